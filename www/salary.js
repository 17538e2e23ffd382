// The salary example: a number on a bounded domain, released with three continuous
// mechanisms side by side (privlift/continuous). The curator designed them from a
// Gaussian mixture fitted to synthetic salaries (scripts/stage-site.sh); the browser
// audits each document itself, perturbs on a lattice with exact noise, and draws the
// posterior/prior ratio P(y | x) / P(y) over every salary x for the released y.
import { parseContinuousMechanism, PrivliftError } from './privlift/js/continuous.js';
import { collector, truth, send, estimate } from './curator.js';
import { canvas } from './svg.js';

const $ = (id) => document.getElementById(id);
const state = { entries: [], mechanisms: [], receipts: [], outputs: [], errors: [], ready: false, sent: null, learn: [] };
window.__privliftSalary = state; // read by the end-to-end tests
const COLORS = ['#2563eb', '#b45309', '#7c3aed', '#0f766e'];
const money = (v) => Math.round(v).toLocaleString('en-US');

/** A table cell whose text is set as text (titles and messages may come from documents). */
function cell(tag, text, props = {}) {
  const n = Object.assign(document.createElement(tag), props);
  if (text !== undefined) n.textContent = text;
  return n;
}

function describeClaims(c) {
  const one = (name, v) => v ? `${name} ε = ${v.eps}${v.delta ? `, δ = ${v.delta}` : ''}` : null;
  return [one('LIP', c.lip), one('LDP', c.ldp)].filter(Boolean).join(', ');
}

function noiseOf(doc) {
  if (doc.mechanism.kind === 'laplace') return `Laplace, b = ${money(doc.mechanism.b)}`;
  if (doc.mechanism.kind === 'gaussian') {
    const s = doc.mechanism.sigma;
    return Array.isArray(s) ? `Gaussian, σ from ${money(Math.min(...s))} to ${money(Math.max(...s))}` : `Gaussian, σ = ${money(s)}`;
  }
  return `sampling, λ = ${doc.mechanism.lambda}`;
}

async function load() {
  const index = await (await fetch('mechanisms/index.json')).json();
  state.entries = index.continuous ?? [];
  const rows = [];
  for (const [i, entry] of state.entries.entries()) {
    // One download: the text is shown (claims, noise) and verified.
    const text = await (await fetch('mechanisms/' + entry.file)).text();
    const doc = JSON.parse(text);
    try {
      // The policy: no more than the LIP/LDP the page promises the visitor.
      const parsed = await parseContinuousMechanism(text);
      try {
        state.mechanisms[i] = parsed.verify(entry.policy);
      } finally {
        parsed.free();
      }
      const tr = document.createElement('tr');
      tr.dataset.i = String(i);
      const swatch = cell('span', undefined, { className: 'swatch' });
      swatch.style.background = COLORS[i];
      const th = cell('th', undefined, { scope: 'row' });
      th.append(swatch, String(entry.title));
      tr.append(th, cell('td', describeClaims(doc.claims)), cell('td', noiseOf(doc)),
        cell('td', '–', { className: 'out' }), cell('td', '–', { className: 'at' }), cell('td', '–', { className: 'max' }));
      rows.push(tr);
    } catch (e) {
      state.errors[i] = { code: e.code, message: e.message };
      const tr = document.createElement('tr');
      tr.append(cell('th', String(entry.title), { scope: 'row' }),
        cell('td', `✗ refused: ${e instanceof PrivliftError ? `${e.message} [${e.code}]` : e}`, { colSpan: 5 }));
      rows.push(tr);
    }
  }
  $('salary-table').querySelector('tbody').replaceChildren(...rows);
  const ok = state.mechanisms.filter(Boolean).length;
  const d = state.mechanisms.find(Boolean)?.domain;
  if (d) {
    Object.assign($('salary'), { min: d.lo, max: d.hi, step: 100 });
    $('salary-domain').textContent = `between ${money(d.lo)} and ${money(d.hi)}; it is rounded to the nearest ${money(d.step)}`;
  }
  $('salary-status').textContent = `✓ ${ok} of ${state.entries.length} mechanisms verified in your browser (exact audit of the noise that will be drawn).`;
  $('salary-release').disabled = ok === 0;
  await showEstimates();
  state.ready = true;
}

const idOf = (entry) => entry.file.replace(/\.json$/, '');

/** Sends each mechanism's released value (one report each) to the collector. */
async function sendAll() {
  $('salary-send').disabled = true;
  state.sent = null;
  try {
    let accepted = 0;
    for (const [i, m] of state.mechanisms.entries()) {
      if (!m || state.outputs[i] === undefined) continue;
      accepted += (await send(m.report(state.outputs[i]))).accepted;
    }
    state.sent = { accepted };
    $('salary-learn-status').textContent = `Sent: ${accepted} noisy value(s), nothing else.`;
  } catch (e) {
    state.sent = { error: e.code ?? String(e) };
    $('salary-learn-status').textContent = `Not stored: ${e.message}${e.code ? ` [${e.code}]` : ''}`;
  }
  await showEstimates();
}

/** The curator's estimated mean salary per mechanism, and the estimated histogram. */
async function showEstimates() {
  if (!(await collector())) return;
  const t = await truth();
  const rows = [];
  const learn = [];
  for (const [i, entry] of state.entries.entries()) {
    const id = idOf(entry);
    let e;
    try { e = await estimate(id); } catch (err) { e = { error: err.message }; }
    learn[i] = e;
    if (!e || e.error || !e.n) continue;
    const lo = e.mean - 1.96 * e.mean_std_error, hi = e.mean + 1.96 * e.mean_std_error;
    const tr = document.createElement('tr');
    tr.append(cell('th', String(entry.title), { scope: 'row' }), cell('td', e.n.toLocaleString('en-US')),
      cell('td', t[id] ? money(t[id].mean) : '–'), cell('td', money(e.mean)), cell('td', `${money(lo)} – ${money(hi)}`));
    rows.push(tr);
  }
  $('salary-learn').querySelector('tbody').replaceChildren(...rows);
  $('salary-learn').hidden = rows.length === 0;
  // The histogram of the mechanism with the least noise (the smallest standard error of
  // the mean): with noise wider than the salary range, only a rough shape is learnt.
  let k = -1;
  learn.forEach((e, i) => { if (e?.estimate && (k < 0 || e.mean_std_error < learn[k].mean_std_error)) k = i; });
  $('salary-hist-figure').hidden = k < 0;
  if (k >= 0) {
    histogram(learn[k], t[idOf(state.entries[k])], COLORS[k]);
    $('salary-hist-mechanism').textContent = state.entries[k].title;
  }
  state.learn = learn;
}

/** Bars: the synthetic truth; line: the curator's estimated histogram, on the lattice. */
function histogram(e, real, color) {
  const el = canvas($('salary-hist'));
  const W = 640, H = 200, L = 8, R = 8, T = 8, B = 28;
  const n = e.estimate.length;
  const top = Math.max(...e.estimate, ...(real?.p ?? [0])) || 1;
  const px = (k) => L + (k + 0.5) / n * (W - L - R);
  const py = (v) => H - B - v / top * (H - T - B);
  const w = (W - L - R) / n;
  real?.p?.forEach((v, k) => el('rect', { x: px(k) - w / 2, y: py(v), width: Math.max(w - 0.5, 0.5), height: H - B - py(v), fill: '#d1d5db', class: 'truth' }));
  el('path', { d: e.estimate.map((v, k) => `${k ? 'L' : 'M'}${px(k).toFixed(1)},${py(v).toFixed(1)}`).join(''), fill: 'none', stroke: color, 'stroke-width': 2, class: 'estimate' });
  for (let q = 0; q <= 4; q++) {
    const k = Math.round((n - 1) * q / 4);
    el('text', { x: Math.min(Math.max(px(k), L + 24), W - R - 28), y: H - 8, 'text-anchor': 'middle' }, money(Number(e.labels[k])));
  }
}

function release() {
  const x = Number($('salary').value);
  state.receipts = []; state.outputs = [];
  $('salary-error').textContent = '';
  try {
    state.mechanisms.forEach((m, i) => {
      if (!m) return;
      const y = m.perturb(x);
      const r = m.receipt(y, x);
      state.outputs[i] = y; state.receipts[i] = r;
      const row = $('salary-table').querySelector(`tr[data-i="${i}"]`);
      row.querySelector('.out').textContent = money(y);
      row.querySelector('.at').textContent = r.user_ratio.toFixed(3);
      row.querySelector('.max').textContent = `${r.max_ratio.toFixed(3)} (at ${money(r.max_ratio_x)})`;
    });
  } catch (e) {
    $('salary-error').textContent = `✗ ${e.message} [${e.code}]`;
  }
  draw(x);
  collector().then((c) => { $('salary-send').disabled = !c || state.outputs.length === 0; });
}

/** The ratio curves on a log scale, with e^{±ε} of the LIP claims and the visitor's salary. */
function draw(x) {
  const el = canvas($('salary-chart'));
  const rs = state.receipts.filter(Boolean);
  if (!rs.length) return;
  const W = 640, H = 260, L = 56, R = 12, T = 12, B = 36;
  const lo = rs[0].xs[0], hi = rs[0].xs[rs[0].xs.length - 1];
  const ratios = rs.flatMap((r) => r.ratios).filter((v) => v > 0);
  const top = Math.max(Math.E, ...ratios), bottom = Math.min(1 / Math.E, ...ratios);
  const lt = Math.log(top), lb = Math.log(bottom);
  const px = (v) => L + (v - lo) / (hi - lo) * (W - L - R);
  const py = (v) => T + (lt - Math.log(Math.max(v, bottom))) / (lt - lb) * (H - T - B);
  el('line', { x1: L, y1: py(1), x2: W - R, y2: py(1), stroke: '#999' });
  el('text', { x: 4, y: py(1) + 4 }, '1');
  const eps = state.entries.map((e, i) => state.receipts[i]?.lip?.eps).filter((e) => e !== undefined);
  for (const e of new Set(eps)) {
    for (const v of [Math.exp(e), Math.exp(-e)]) {
      el('line', { x1: L, y1: py(v), x2: W - R, y2: py(v), stroke: '#dc2626', 'stroke-dasharray': '5 4' });
      el('text', { x: 4, y: py(v) + 4 }, v.toFixed(2));
    }
  }
  state.receipts.forEach((r, i) => {
    if (!r) return;
    const d = r.xs.map((v, k) => `${k ? 'L' : 'M'}${px(v).toFixed(1)},${py(r.ratios[k]).toFixed(1)}`).join('');
    el('path', { d, fill: 'none', stroke: COLORS[i], 'stroke-width': 2, class: 'curve' });
  });
  el('line', { x1: px(x), y1: T, x2: px(x), y2: H - B, stroke: '#111', 'stroke-dasharray': '2 3' });
  el('text', { x: Math.min(px(x) + 4, W - 120), y: T + 12 }, `your salary ${money(x)}`);
  for (let k = 0; k <= 4; k++) {
    const v = lo + (hi - lo) * k / 4;
    el('text', { x: Math.min(Math.max(px(v), L + 24), W - R - 28), y: H - 12, 'text-anchor': 'middle' }, money(v));
  }
}

$('salary-release').addEventListener('click', release);
$('salary-send').addEventListener('click', sendAll);
load().catch((e) => { $('salary-status').textContent = `✗ ${e.message}`; state.ready = true; });
