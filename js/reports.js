// Report envelopes and their delivery to a collector.
//
// A report carries only what the collector needs to count it once: the mechanism's id, the
// SHA-256 of the exact document the client verified (so counts of different versions are
// never mixed), the released output, and a random 128-bit id from crypto.getRandomValues
// (so a retried post is counted once). Never the user's value, no clock, no identifier.

import { PrivliftError, invalid, describe, checkUrl } from './common.js';

const HEX = /^[0-9a-f]+$/;

/** Lower-case hex of `bytes`. */
function hex(bytes) {
  let s = '';
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return s;
}

/** SHA-256 of `bytes` (the document as parsed), lower-case hex, by WebCrypto. */
export async function sha256Hex(bytes) {
  return hex(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)));
}

/** A fresh 128-bit report id from the platform CSPRNG, lower-case hex. */
export function reportId() {
  return hex(crypto.getRandomValues(new Uint8Array(16)));
}

/**
 * An open-domain report (`{seed, y}`, `{j, bit}`, `{j, l, bit}` or `{round, seed, y}`, each
 * field a non-negative integer) copied field by field, or null for any other output.
 * The collector checks its fields against the document.
 */
function openReport(output) {
  if (output === null || typeof output !== 'object' || Array.isArray(output)) return null;
  const keys = Object.keys(output).sort().join(',');
  if (!OPEN_REPORT_KEYS.includes(keys)) return null;
  const entries = Object.entries(output);
  return entries.every(([, v]) => Number.isSafeInteger(v) && v >= 0) ? Object.fromEntries(entries) : null;
}

/** The field sets of the open kinds' reports, sorted and joined. */
const OPEN_REPORT_KEYS = ['seed,y', 'bit,j', 'bit,j,l', 'round,seed,y'];

/** The envelope's four fields, checked (`invalid_argument` naming the report and field). */
function envelope(r, i) {
  const name = `reports[${i}]`;
  if (r === null || typeof r !== 'object') throw invalid(name, `expected a report from Mechanism.report(), got ${describe(r)}`);
  const { mechanism, sha256, output, report_id: id } = r;
  if (typeof mechanism !== 'string') throw invalid(`${name}.mechanism`, 'expected the mechanism id');
  if (typeof sha256 !== 'string' || sha256.length !== 64 || !HEX.test(sha256)) {
    throw invalid(`${name}.sha256`, 'expected 64 lower-case hex digits');
  }
  const open = openReport(output);
  if (open === null && typeof output !== 'string' && !(typeof output === 'number' && Number.isFinite(output))) {
    throw invalid(`${name}.output`, 'expected an output label, index, bit string, released number or open report');
  }
  if (typeof id !== 'string' || id.length !== 32 || !HEX.test(id)) {
    throw invalid(`${name}.report_id`, 'expected 32 lower-case hex digits');
  }
  return { mechanism, sha256, output: open ?? output, report_id: id };
}

/** The JSON body of a batch: `{"reports": [...]}`, each report reduced to its four fields. */
export function reportsBody(reports) {
  if (!Array.isArray(reports) || reports.length === 0) {
    throw invalid('reports', `expected a non-empty array of reports, got ${describe(reports)}`);
  }
  return JSON.stringify({ reports: reports.map(envelope) });
}

const sleep = (ms, signal) => new Promise((resolve, reject) => {
  const t = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => { clearTimeout(t); reject(signal.reason); }, { once: true });
});

/**
 * Posts `reports` to a collector's `POST /v1/reports` (`url`), retrying a failed attempt
 * (network error, HTTP 408, 429 or 5xx: the collector stored none of the batch, or may
 * have stored it without its answer arriving) with the same body, so the same report
 * ids: the collector counts each id once. Resolves to `{accepted, duplicates}` from the collector's
 * 202. Throws PrivliftError `invalid_argument` (a malformed report, before any request),
 * `http` (a 4xx other than 408 and 429, not retried: `status` and the collector's `serverCode` set),
 * `network` (every attempt failed, or `signal` aborted them: its reason is the `cause`).
 */
export async function sendReports(url, reports, options = {}) {
  checkUrl(url);
  const { retries = 3, backoffMs = 250, signal, fetch: fetchFn = globalThis.fetch } = options ?? {};
  if (!Number.isInteger(retries) || retries < 0) throw invalid('options.retries', `expected an integer ≥ 0, got ${describe(retries)}`);
  if (typeof backoffMs !== 'number' || !(backoffMs >= 0)) throw invalid('options.backoffMs', `expected a number ≥ 0, got ${describe(backoffMs)}`);
  const body = reportsBody(reports);
  // An abort (before or during an attempt, or while waiting to retry) ends the retries.
  const aborted = (e) => new PrivliftError('network', `posting reports to ${url} was aborted`, { cause: e });
  let last = null;
  for (let attempt = 0; attempt <= retries; attempt++) {
    if (attempt > 0) {
      try {
        await sleep(backoffMs * 2 ** (attempt - 1), signal);
      } catch (e) {
        throw aborted(e);
      }
    }
    let res;
    try {
      res = await fetchFn(url, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body, signal,
        keepalive: body.length < 60_000, // survives the page's unload when small enough
      });
    } catch (e) {
      if (signal?.aborted) throw aborted(e);
      last = new PrivliftError('network', `could not post reports to ${url}: ${e && e.message ? e.message : e}`, { cause: e });
      continue;
    }
    if (res.status === 200 || res.status === 202) {
      const ack = await res.json().catch(() => null);
      if (!ack || !Number.isInteger(ack.accepted) || !Number.isInteger(ack.duplicates)) {
        throw new PrivliftError('http', `the collector at ${url} answered ${res.status} without {accepted, duplicates}`, { status: res.status });
      }
      return { accepted: ack.accepted, duplicates: ack.duplicates };
    }
    const detail = await res.json().catch(() => null);
    const serverCode = typeof detail?.code === 'string' ? detail.code : undefined;
    last = new PrivliftError('http', `posting reports to ${url} gave HTTP ${res.status}${serverCode ? ` (${serverCode})` : ''}`,
      { status: res.status, serverCode });
    // 408: the request did not arrive in time (transient); other 4xx: the batch itself was refused.
    if (res.status !== 408 && res.status !== 429 && res.status < 500) throw last;
  }
  throw last;
}

/**
 * On page hide, hands the reports `pending()` returns to `navigator.sendBeacon` (one
 * batch, no answer: the next page load re-sends whatever the app still holds, and the
 * report ids keep that from double-counting). Returns a function that stops listening.
 * `options.target` (default `globalThis`) and `options.beacon` are for tests.
 */
export function beaconOnPageHide(url, pending, options = {}) {
  checkUrl(url);
  if (typeof pending !== 'function') throw invalid('pending', `expected a function returning the unsent reports, got ${describe(pending)}`);
  const target = options.target ?? globalThis;
  const beacon = options.beacon ?? ((u, data) => globalThis.navigator?.sendBeacon?.(u, data) ?? false);
  const send = () => {
    const reports = pending();
    if (!Array.isArray(reports) || reports.length === 0) return;
    // text/plain is CORS-safelisted: a beacon of another type to a collector on another
    // origin is dropped by browsers (no preflight for beacons). The collector reads the
    // body as JSON whatever its type.
    beacon(String(url), new Blob([reportsBody(reports)], { type: 'text/plain;charset=utf-8' }));
  };
  const onVisibility = () => { if (globalThis.document?.visibilityState === 'hidden') send(); };
  target.addEventListener('pagehide', send);
  target.addEventListener('visibilitychange', onVisibility);
  return () => {
    target.removeEventListener('pagehide', send);
    target.removeEventListener('visibilitychange', onVisibility);
  };
}
