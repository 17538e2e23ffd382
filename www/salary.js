// The salary example: a number on a bounded domain, released with three continuous
// mechanisms side by side (privlift/continuous). The curator designed them from a
// Gaussian mixture fitted to synthetic salaries (scripts/stage-site.sh); the browser
// audits each document itself, perturbs on a lattice with exact noise, and draws the
// posterior/prior ratio P(y | x) / P(y) over every salary x for the released y.
import { verifyContinuousAsync, PrivliftError } from './privlift/js/continuous.js';
import { collector, truth, send, estimate } from './curator.js';
import { canvas, svgElement } from './svg.js';

const $ = (id) => document.getElementById(id);
const state = { entries: [], mechanisms: [], receipts: [], outputs: [], errors: [], ready: false, sent: null, learn: [] };
window.__privliftSalary = state; // read by the end-to-end tests
const COLORS = ['#2563eb', '#b45309', '#7c3aed', '#0f766e'];
// Each curve also has its own line pattern and marker, so curves that nearly coincide stay
// distinguishable (and without colour vision): solid + circles, dashed + squares, dotted + triangles.
const DASHES = ['', '10 5', '2 4', '6 2 2 2'];
const MARKERS = ['circle', 'square', 'triangle', 'diamond'];
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
      // The policy: no more than the LIP/LDP the page promises the visitor. Verified in the
      // package's Worker (a few hundred ms each): the page keeps responding meanwhile.
      state.mechanisms[i] = await verifyContinuousAsync(text, entry.policy);
      const tr = document.createElement('tr');
      tr.dataset.i = String(i);
      const th = cell('th', undefined, { scope: 'row' });
      th.append(sample(i), String(entry.title));
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
  $('salary-legend').replaceChildren(...state.entries.map((entry, i) => {
    if (!state.mechanisms[i]) return '';
    const item = cell('span', undefined, { className: 'item' });
    item.dataset.i = String(i);
    item.append(sample(i), String(entry.title));
    return item;
  }));
  const ok = state.mechanisms.filter(Boolean).length;
  // The documents' lattice: the one rounding rule the hint, the note and the chart all quote.
  const d = state.mechanisms.find(Boolean)?.domain;
  if (d) {
    Object.assign($('salary'), { min: d.lo, max: d.hi, step: d.step });
    $('salary-domain').textContent = `between ${money(d.lo)} and ${money(d.hi)}; rounded to the nearest ${money(d.step)} before noise is added`;
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
      accepted += (await send(await m.report(state.outputs[i]))).accepted;
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

/**
 * Bars: the synthetic truth; line: the curator's estimated histogram, on the lattice; band:
 * at the points the reports do not identify, every share that explains them equally well.
 */
function histogram(e, real, color) {
  const el = canvas($('salary-hist'));
  const W = 640, H = 200, L = 8, R = 8, T = 8, B = 28;
  const n = e.estimate.length;
  const hi = e.estimate.map((v, k) => e.interval?.[k]?.[1] ?? v);
  const lo = e.estimate.map((v, k) => e.interval?.[k]?.[0] ?? v);
  const top = Math.max(...hi, ...(real?.p ?? [0])) || 1;
  const px = (k) => L + (k + 0.5) / n * (W - L - R);
  const py = (v) => H - B - v / top * (H - T - B);
  const w = (W - L - R) / n;
  real?.p?.forEach((v, k) => el('rect', { x: px(k) - w / 2, y: py(v), width: Math.max(w - 0.5, 0.5), height: H - B - py(v), fill: '#d1d5db', class: 'truth' }));
  if (e.interval?.some(Boolean)) {
    const edge = (vs, k, first) => `${first ? 'M' : 'L'}${px(k).toFixed(1)},${py(vs[k]).toFixed(1)}`;
    const d = hi.map((_, k) => edge(hi, k, k === 0)).join('') + lo.map((_, k) => edge(lo, n - 1 - k, false)).join('') + 'Z';
    el('path', { d, fill: color, 'fill-opacity': 0.2, stroke: 'none', class: 'interval' });
  }
  el('path', { d: e.estimate.map((v, k) => `${k ? 'L' : 'M'}${px(k).toFixed(1)},${py(v).toFixed(1)}`).join(''), fill: 'none', stroke: color, 'stroke-width': 2, class: 'estimate' });
  for (let q = 0; q <= 4; q++) {
    const k = Math.round((n - 1) * q / 4);
    el('text', { x: Math.min(Math.max(px(k), L + 24), W - R - 28), y: H - 8, 'text-anchor': 'middle' }, money(Number(e.labels[k])));
  }
}

/** A small picture of curve `i`'s line and marker, for the table and the legend (decorative: the text names it). */
function sample(i) {
  const svg = svgElement('svg', { width: 36, height: 14, viewBox: '0 0 36 14', 'aria-hidden': 'true', class: 'sample' });
  svg.append(svgElement('line', { x1: 1, x2: 35, y1: 7, y2: 7, stroke: COLORS[i], 'stroke-width': 2, 'stroke-dasharray': DASHES[i] }),
    svgElement(...marker(i, 18, 7)));
  return svg;
}

/** The marker of curve `i` centred at (x, y): [tag, attributes]. */
function marker(i, x, y) {
  const fill = { fill: COLORS[i], class: `marker marker-${MARKERS[i]}` };
  const pts = (ps) => ps.map(([a, b]) => `${(x + a).toFixed(1)},${(y + b).toFixed(1)}`).join(' ');
  switch (MARKERS[i]) {
    case 'circle': return ['circle', { cx: x, cy: y, r: 3.5, ...fill }];
    case 'square': return ['rect', { x: x - 3.5, y: y - 3.5, width: 7, height: 7, ...fill }];
    case 'triangle': return ['polygon', { points: pts([[0, -4.5], [4.5, 3.5], [-4.5, 3.5]]), ...fill }];
    default: return ['polygon', { points: pts([[0, -4.5], [4.5, 0], [0, 4.5], [-4.5, 0]]), ...fill }];
  }
}

async function release() {
  const x = Number($('salary').value);
  state.receipts = []; state.outputs = [];
  $('salary-error').textContent = '';
  $('salary-rounded').textContent = '';
  try {
    for (const [i, m] of state.mechanisms.entries()) {
      if (!m) continue;
      const y = await m.perturb(x);
      const r = await m.receipt(y, x);
      state.outputs[i] = y; state.receipts[i] = r;
      const row = $('salary-table').querySelector(`tr[data-i="${i}"]`);
      row.querySelector('.out').textContent = money(y);
      row.querySelector('.at').textContent = r.userRatio.toFixed(3);
      row.querySelector('.max').textContent = `${r.maxRatio.toFixed(3)} (at ${money(r.maxRatioX)})`;
    }
  } catch (e) {
    $('salary-error').textContent = `✗ ${e.message} [${e.code}]`;
  }
  const r = state.receipts.find(Boolean);
  if (r) {
    const step = state.mechanisms.find(Boolean).domain.step;
    $('salary-rounded').textContent = r.userPoint === x
      ? `Your salary, ${money(x)}, is a point of the curator's grid (every ${money(step)}): the mechanisms add noise to it as it is.`
      : `Your salary, ${money(x)}, is rounded to ${money(r.userPoint)}, the nearest point of the curator's grid (every ${money(step)}), ` +
        'before noise is added: that is the value the mechanisms protect, and the ratios below are at it.';
  }
  draw();
  collector().then((c) => { $('salary-send').disabled = !c || state.outputs.length === 0; });
}

/** The ratio curves on a log scale, with e^{±ε} of the LIP claims and the visitor's (rounded) salary. */
function draw() {
  const el = canvas($('salary-chart'));
  const rs = state.receipts.filter(Boolean);
  $('salary-chart-figure').hidden = rs.length === 0;
  $('salary-empty').hidden = rs.length > 0;
  if (!rs.length) return;
  const W = 640, H = 260, L = 56, R = 12, T = 12, B = 36;
  const lo = rs[0].xs[0], hi = rs[0].xs[rs[0].xs.length - 1];
  const ratios = rs.flatMap((r) => r.ratios).filter((v) => v > 0);
  const top = Math.max(Math.E, ...ratios), bottom = Math.min(1 / Math.E, ...ratios);
  const lt = Math.log(top), lb = Math.log(bottom);
  const px = (v) => L + (v - lo) / (hi - lo) * (W - L - R);
  const py = (v) => T + (lt - Math.log(Math.max(v, bottom))) / (lt - lb) * (H - T - B);
  el('line', { x1: L, y1: py(1), x2: W - R, y2: py(1), stroke: '#999' });
  el('text', { x: L - 8, y: py(1) + 4, 'text-anchor': 'end' }, '1');
  const eps = state.entries.map((e, i) => state.receipts[i]?.lip?.eps).filter((e) => e !== undefined);
  for (const e of new Set(eps)) {
    for (const v of [Math.exp(e), Math.exp(-e)]) {
      el('line', { x1: L, y1: py(v), x2: W - R, y2: py(v), stroke: '#dc2626', 'stroke-dasharray': '5 4' });
      el('text', { x: L - 8, y: py(v) + 4, 'text-anchor': 'end' }, v.toFixed(2));
    }
  }
  state.receipts.forEach((r, i) => {
    if (!r) return;
    const d = r.xs.map((v, k) => `${k ? 'L' : 'M'}${px(v).toFixed(1)},${py(r.ratios[k]).toFixed(1)}`).join('');
    const g = el('g', { class: 'curve-group', 'data-i': i });
    g.append(svgElement('path', { d, fill: 'none', stroke: COLORS[i], 'stroke-width': 2, 'stroke-dasharray': DASHES[i], class: 'curve' }));
    // Eight markers per curve, staggered between curves so that they never sit on one another.
    const n = r.xs.length;
    for (let j = 0; j < 8; j++) {
      const k = Math.min(n - 1, Math.round((j + 0.25 + i / 3) * (n - 1) / 8.5));
      g.append(svgElement(...marker(i, px(r.xs[k]), py(r.ratios[k]))));
    }
  });
  const pt = rs[0].userPoint;
  el('line', { x1: px(pt), y1: T, x2: px(pt), y2: H - B, stroke: '#111', 'stroke-dasharray': '2 3' });
  el('text', { x: Math.min(px(pt) + 4, W - 170), y: T + 12, id: 'salary-chart-you' }, `your salary, rounded: ${money(pt)}`);
  for (let k = 0; k <= 4; k++) {
    const v = lo + (hi - lo) * k / 4;
    el('text', { x: Math.min(Math.max(px(v), L + 24), W - R - 28), y: H - 12, 'text-anchor': 'middle' }, money(v));
  }
}

$('salary-release').addEventListener('click', release);
$('salary-send').addEventListener('click', sendAll);
load().catch((e) => { $('salary-status').textContent = `✗ ${e.message}`; state.ready = true; });
