// The curator's side of the demo: the collector this page sends reports to (configured
// in collector.json by scripts/demo.sh), the synthetic population's true answers
// (mechanisms/truth.json, from `privlift simulate`), and the collector's estimates.
import { sendReports } from './privlift/js/privlift.js';

let config = null;
/** `{url}` of the collector, or null when the page is served without one. */
export function collector() {
  config ??= fetch('collector.json').then((r) => (r.ok ? r.json() : null)).then((c) => (c?.collector ? { url: c.collector } : null))
    .catch(() => null);
  return config;
}

let truths = null;
/** The synthetic population's true histograms by mechanism id (`{}` when absent). */
export function truth() {
  truths ??= fetch('mechanisms/truth.json').then((r) => (r.ok ? r.json() : {})).catch(() => ({}));
  return truths;
}

/** Sends one report (retrying with the same report id); resolves to `{accepted, duplicates}`. */
export async function send(report) {
  const c = await collector();
  if (!c) throw new Error('no collector is configured for this page');
  return sendReports(`${c.url}/v1/reports`, [report], { retries: 3, backoffMs: 200 });
}

/** The collector's current estimate for mechanism `id`. */
export async function estimate(id) {
  const c = await collector();
  if (!c) return null;
  const r = await fetch(`${c.url}/v1/estimates/${encodeURIComponent(id)}`, { cache: 'no-store' });
  const body = await r.json();
  if (!r.ok) throw new Error(`${body.message ?? r.status} [${body.code ?? 'http'}]`);
  return body;
}

/** A share as a percentage for display. */
export const pct = (v) => (Number.isFinite(v) ? `${(100 * v).toFixed(1)} %` : '–');

/** The 95 % interval of an estimate with standard error `se`, clipped to [0, 1], for display. */
export function interval(v, se) {
  if (!Number.isFinite(se)) return 'not identified';
  return `${pct(Math.max(0, v - 1.96 * se))} – ${pct(Math.min(1, v + 1.96 * se))}`;
}

/** The collector's heavy hitters of open-domain mechanism `id`: its `top` most frequent values. */
export async function heavyHitters(id, top) {
  const c = await collector();
  if (!c) return null;
  const r = await fetch(`${c.url}/v1/estimates/${encodeURIComponent(id)}?heavy_hitters&top=${top}`, { cache: 'no-store' });
  const body = await r.json();
  if (!r.ok) throw new Error(`${body.message ?? r.status} [${body.code ?? 'http'}]`);
  return body;
}
