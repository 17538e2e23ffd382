// The demo uses the npm package exactly as a web app would: fetchMechanism verifies the
// curator's document against the visitor's policy before anything can be perturbed, and
// privlift/design redesigns the mechanism in the browser when the slider moves.
import { fetchMechanism, parseMechanism, PrivliftError } from './privlift/js/privlift.js';
import { design } from './privlift/js/design.js';
import { openLedger } from './privlift/js/ledger.js';
import { collector, truth, send, estimate, pct, interval } from './curator.js';
import { canvas } from './svg.js';

const $ = (id) => document.getElementById(id);
const state = {
  mechanism: null, entry: null, lastInput: null, lastOutput: null, receipt: null,
  error: null, ready: false, utility: null, designs: 0, ledger: null, lastRelease: null,
  published: false, lastReport: null, sendResult: null, learn: null,
};
window.__privlift = state; // read by the end-to-end tests
let index = [];

/** A number for display; an unbounded one (the audit proved no finite bound) as ∞. */
function fmt(v, digits) {
  if (typeof v !== 'number' || Number.isNaN(v)) return '?';
  if (!Number.isFinite(v)) return v > 0 ? '∞' : '−∞';
  return v.toFixed(digits);
}

/** An element with text content (never parsed as markup) and properties. */
function elem(tag, text, props = {}) {
  const n = Object.assign(document.createElement(tag), props);
  if (text !== undefined) n.textContent = text;
  return n;
}

function policy() {
  const text = $('cap').value.trim();
  const cap = Number(text);
  return text !== '' && Number.isFinite(cap) && cap >= 0 ? { maxLdpX: cap } : {};
}

function setStatus(kind, text) {
  const s = $('status');
  s.className = 'status ' + kind;
  s.textContent = text;
}

function refused(e) {
  state.mechanism = null;
  state.error = { code: e.code, message: e.message };
  const why = e instanceof PrivliftError ? `${e.message} [${e.code}]` : String(e);
  setStatus('refused', `✗ Refused: ${why}. Nothing will be perturbed with this mechanism.`);
  $('value').disabled = true;
  $('perturb').disabled = true;
  drawReceipt(null);
}

/** Makes `m` the active mechanism (it passed verification). */
function activate(m, doc) {
  state.mechanism = m;
  state.error = null;
  // What the policy read: the audit w.r.t. the visitor's own value X. The curator's
  // secret S (if the document declares one) is audited too and shown in addition.
  const lx = m.leakageX();
  let text = `✓ Verified in your browser: ${m.id} leaks at most ε = ${fmt(lx.ldp_x, 3)} nats of LDP (prior-free) ` +
    `and ε = ${fmt(lx.lip, 3)} nats of LIP (under the curator's prior) about your own answer; ` +
    `whatever the true prior, LIP stays ≤ ${fmt(m.lipUnderAnyPrior(), 3)} nats`;
  if (doc.secret) {
    const ls = m.leakage();
    const names = m.secretLabels.length <= 4 ? ` (${m.secretLabels.join(' / ')})` : '';
    text += `, and ε = ${fmt(ls.lip, 3)} nats of LIP about the curator's secret${names}`;
  }
  setStatus('ok', `${text}. It may be used.`);
  const u = doc.utility || {};
  state.utility = u;
  const parts = [];
  if (typeof u.nmi === 'number') parts.push(`the collected answers keep ${(100 * u.nmi).toFixed(1)}% of the information (NMI)`);
  if (typeof u.hamming === 'number') parts.push(`the sent value differs from the true one ${(100 * u.hamming).toFixed(1)}% of the time`);
  $('utility').textContent = parts.length ? `Utility: ${parts.join('; ')}.` : '';
  const sel = $('value');
  const keep = sel.value;
  sel.replaceChildren(...m.labels.map((l, i) => new Option(l, String(i))));
  if (keep && Number(keep) < m.labels.length) sel.value = keep;
  sel.disabled = false;
  $('perturb').disabled = false;
}

async function loadMechanism() {
  state.ready = false;
  const entry = index.find((e) => e.file === $('mechanism').value);
  state.entry = entry;
  state.lastOutput = null; state.lastInput = null; state.receipt = null;
  $('sent').textContent = '';
  $('send').disabled = true;
  $('send-status').textContent = '';
  state.published = false; state.lastReport = null; state.sendResult = null;
  drawReceipt(null);
  const tune = $('tune-row');
  tune.hidden = !entry.method;
  if (entry.method) {
    $('tune-label').textContent = { alpha: 'Privacy level α (linear reduction)', eps_u: 'Max-lift budget εu (εl fixed)' }[entry.param] ?? 'Privacy budget ε';
    Object.assign($('tune'), { min: entry.min, max: entry.max, step: entry.param === 'alpha' ? 0.05 : 0.05, value: entry.value });
    $('tune-value').textContent = String(entry.value);
  }
  try {
    const doc = await (await fetch('mechanisms/' + entry.file)).json();
    $('description').textContent = doc.description || '';
    activate(await fetchMechanism('mechanisms/' + entry.file, policy()), doc);
    state.published = true;
  } catch (e) {
    refused(e);
  }
  if (state.ledger) await showLedger();
  await showEstimate(entry.file.replace(/\.json$/, ''));
  state.ready = true;
}

let pending = null;
/** Redesigns the selected mechanism at the slider's value, in the browser. */
async function redesign() {
  const entry = state.entry;
  if (!entry || !entry.method) return;
  const value = Number($('tune').value);
  $('tune-value').textContent = value.toFixed(2);
  const run = (async () => {
    state.ready = false;
    try {
      const json = await design(entry.method, { ...entry.request, [entry.param]: value, id: `${entry.file.replace('.json', '')}-${value}` });
      if (pending !== run) return;
      const doc = JSON.parse(json);
      activate((await parseMechanism(json)).verify(policy()), doc);
      state.published = false; // the collector takes the curator's published version only
      state.designs += 1;
      if (state.lastOutput !== null) showReceipt(state.lastInput, state.lastOutput);
    } catch (e) {
      if (pending === run) refused(e);
    } finally {
      if (pending === run) state.ready = true;
    }
  })();
  pending = run;
  await run;
}

async function openMyLedger() {
  const text = $('budget').value.trim();
  const budget = Number(text);
  state.ledger = await openLedger({ budget: text !== '' && Number.isFinite(budget) && budget >= 0 ? { ldp: budget } : {} });
  await showLedger();
}

async function showLedger() {
  const rows = await state.ledger.releases();
  $('ledger').querySelector('tbody').replaceChildren(...rows.map((r) => {
    const tr = document.createElement('tr');
    // The ledger records the X-audit (lip_x); records of older versions only have ldp_x, which bounds it.
    for (const v of [new Date(r.time).toLocaleTimeString(), r.attribute, r.mechanismId, fmt(r.ldp_x, 3), fmt(r.lip_x ?? r.ldp_x, 3)]) {
      tr.append(elem('td', v));
    }
    return tr;
  }));
  const attr = state.entry?.attribute;
  if (attr) {
    const b = await state.ledger.bound(attr);
    state.ledgerBound = b;
    $('ledger-bound').textContent = `Together, your ${b.releases} release(s) of “${attr}” leak at most ε = ${fmt(b.ldp, 3)} nats of LDP ` +
      `and ε = ${fmt(b.lip, 3)} nats of LIP about your answer (composition, Jiang et al. Thm 4). Budget: ${state.ledger.budget.ldp ?? '∞'} nats.`;
  }
}

async function perturb() {
  const m = state.mechanism;
  if (!m) return;
  const x = Number($('value').value);
  try {
    const r = await state.ledger.release(state.entry.attribute ?? state.entry.file, m, x, { memoize: $('memoize').checked });
    state.lastRelease = { output: r.output, memoized: r.memoized };
    state.error = null;
    showReceipt(x, r.output);
    if (r.memoized) $('sent').append(' — the same as last time for this answer (memoised), so nothing more is revealed.');
  } catch (e) {
    state.error = { code: e.code, message: e.message };
    $('sent').textContent = `Not sent: ${e.message} [${e.code}]`;
  }
  await showLedger();
}

function showReceipt(x, y) {
  const m = state.mechanism;
  if (!m) return;
  state.lastInput = x;
  state.lastOutput = y;
  state.receipt = m.receipt(y);
  $('sent').replaceChildren('Would be sent: ', elem('strong', m.outputLabels[y]),
    ` (your true answer was ${m.labels[x]}; only the randomised value leaves the device)`);
  drawReceipt(state.receipt);
  enableSend();
}

/** The send button: only for the curator's published mechanism, and with a collector. */
async function enableSend() {
  const c = await collector();
  const ok = Boolean(c && state.mechanism && state.published && state.lastOutput !== null);
  $('send').disabled = !ok;
  if (!c) $('send-status').textContent = 'No collector is running with this page: nothing can be sent.';
  else if (!state.published) $('send-status').textContent = "A mechanism redesigned in your browser is not the curator's published one: its collector would refuse the report.";
  else $('send-status').textContent = '';
}

/** Sends the randomised value (only it, with the mechanism's id and hash and a random report id). */
async function sendOutput() {
  const m = state.mechanism;
  if (!m || state.lastOutput === null) return;
  $('send').disabled = true;
  try {
    const report = m.report(state.lastOutput);
    state.lastReport = report;
    const r = await send(report);
    state.sendResult = r;
    $('send-status').textContent = r.accepted === 1
      ? `Stored by the curator's collector (report ${report.report_id.slice(0, 8)}…): only “${report.output}” was sent.`
      : 'The collector already had this report: it is counted once.';
  } catch (e) {
    state.sendResult = { error: e.code ?? String(e) };
    $('send-status').textContent = `Not stored: ${e.message}${e.code ? ` [${e.code}]` : ''}`;
  }
  await showEstimate(m.id);
}

/** One row of an estimate table: the label, the true share, the estimate, its interval and a bar. */
function learnRow(label, truthShare, est, se) {
  const tr = document.createElement('tr');
  const bars = elem('td', '');
  const bar = (v, cls) => { const b = elem('span', '', { className: cls }); b.style.width = `${Math.round(240 * Math.max(0, v))}px`; return b; };
  if (Number.isFinite(truthShare)) bars.append(bar(truthShare, 'bar truth'), document.createElement('br'));
  bars.append(bar(est, 'bar'));
  tr.append(elem('th', label, { scope: 'row' }), elem('td', pct(truthShare)), elem('td', pct(est)), elem('td', interval(est, se)), bars);
  return tr;
}

/** Fills section 4 with the collector's estimate for mechanism `id` next to the synthetic truth. */
async function showEstimate(id) {
  const c = await collector();
  if (!c) {
    $('learn-status').textContent = 'Start the demo with its collector (scripts/demo.sh) to see what the curator learns.';
    return;
  }
  try {
    const [e, t] = await Promise.all([estimate(id), truth()]);
    state.learn = e;
    const real = t[id];
    if (!e || e.n === 0 || !e.estimate) {
      $('learn-status').textContent = 'The collector has no reports for this mechanism yet.';
      $('learn').hidden = true; $('learn-secret').hidden = true;
      return;
    }
    const hidden = e.unidentified?.length ? ` The channel cannot tell some answers apart (${e.unidentified.length} direction(s) not identified): their split is a guess, only their sum is learnt.` : '';
    $('learn-status').textContent = `From ${e.n.toLocaleString('en-US')} randomised reports (${real ? `${real.n.toLocaleString('en-US')} synthetic people${e.n > real.n ? ' and real visitors' : ''}` : 'collected'}), by ${e.method === 'mle' ? 'maximum likelihood' : 'inversion'}.${hidden}`;
    $('learn').querySelector('tbody').replaceChildren(...e.labels.map((l, i) => learnRow(l, real?.p?.[i], e.estimate[i], e.std_error[i])));
    $('learn').hidden = false;
    const s = e.secret;
    $('learn-secret').querySelector('tbody').replaceChildren(...(s ? s.labels.map((l, i) => learnRow(l, real?.secret?.p?.[i], s.estimate[i], s.identified[i] ? s.std_error[i] : NaN)) : []));
    $('learn-secret').hidden = !s;
  } catch (e) {
    state.learn = { error: e.message };
    $('learn-status').textContent = `The collector did not answer: ${e.message}`;
  }
}

/** Fills one receipt table (X rows or S rows) and its bounds paragraph; hides it when `section` is absent. */
function fillSection(tableId, boundsId, section, about) {
  const table = $(tableId);
  table.querySelector('tbody').replaceChildren(...(section?.entries ?? []).map((e) => {
    const tr = document.createElement('tr');
    tr.append(elem('th', e.label, { scope: 'row' }));
    for (const v of [e.prior, e.posterior, e.lift]) tr.append(elem('td', fmt(v, 4)));
    return tr;
  }));
  table.hidden = !section;
  $(boundsId).textContent = section
    ? `Proved by your browser's audit of this mechanism: whatever value is sent, every lift ${about} is between ` +
      `e^−εl = ${fmt(section.min_lift_bound, 4)} and e^εu = ${fmt(section.max_lift_bound, 4)} ` +
      `(εl = ${fmt(section.eps_l, 3)}, εu = ${fmt(section.eps_u, 3)} nats). ` +
      'Anyone seeing the sent value can shift their belief by at most these factors.'
    : '';
}

function drawReceipt(r) {
  const el = canvas($('chart'));
  // Always the rows of the visitor's own possible answers (X); the curator's secret (S) in addition.
  fillSection('receipt', 'bounds', r ?? undefined, 'about your answer');
  fillSection('receipt-secret', 'bounds-secret', r?.secret ?? undefined, "about the curator's secret");
  if (!r) return;
  // The chart: the X lifts. Log scale: a lift of 2 and a lift of 1/2 are equally far from 1, as the bounds are.
  const W = 640, H = 260, L = 80, B = 30, T = 10;
  const logs = [r.max_lift_bound, r.min_lift_bound, ...r.entries.map((e) => e.lift)]
    .filter((v) => v > 0 && Number.isFinite(v)).map((v) => Math.abs(Math.log(v)));
  const span = Math.max(0.1, ...logs) * 1.15;
  const yOf = (v) => {
    const l = v > 0 ? Math.max(-span, Math.min(span, Math.log(v))) : -span;
    return T + (H - B - T) * (0.5 - l / (2 * span));
  };
  const bw = (W - L - 10) / r.entries.length;
  r.entries.forEach((e, i) => {
    const x = L + i * bw + bw * 0.15;
    const [y0, y1] = [yOf(1), yOf(e.lift)].sort((a, b) => a - b);
    el('rect', { x, y: y0, width: bw * 0.7, height: Math.max(1, y1 - y0),
      fill: e.lift >= 1 ? '#b45309' : '#1d4ed8', 'data-lift': e.lift });
    el('text', { x: x + bw * 0.35, y: H - 12, 'text-anchor': 'middle' }, e.label);
    if (r.entries.length <= 8) {
      el('text', { x: x + bw * 0.35, y: e.lift >= 1 ? yOf(e.lift) - 4 : yOf(e.lift) + 14, 'text-anchor': 'middle' }, fmt(e.lift, 2));
    }
  });
  for (const [v, label, dash] of [[r.max_lift_bound, 'e^εu', '6 4'], [1, '1', ''], [r.min_lift_bound, 'e^−εl', '6 4']]) {
    el('line', { x1: L, x2: W - 5, y1: yOf(v), y2: yOf(v), stroke: '#111', 'stroke-dasharray': dash, class: 'bound', 'data-value': v });
    el('text', { x: 4, y: yOf(v) + 4 }, `${label} = ${fmt(v, 2)}`);
  }
}

async function main() {
  index = (await (await fetch('mechanisms/index.json')).json()).mechanisms;
  $('mechanism').replaceChildren(...index.map((m) => new Option(m.title, m.file)));
  $('mechanism').addEventListener('change', loadMechanism);
  $('cap').addEventListener('change', loadMechanism);
  $('perturb').addEventListener('click', perturb);
  $('send').addEventListener('click', sendOutput);
  $('budget').addEventListener('change', openMyLedger);
  $('clear-ledger').addEventListener('click', async () => { await state.ledger.clear(); await showLedger(); });
  await openMyLedger();
  let timer = null;
  $('tune').addEventListener('input', () => {
    $('tune-value').textContent = Number($('tune').value).toFixed(2);
    clearTimeout(timer);
    timer = setTimeout(redesign, 120);
  });
  $('tune').addEventListener('change', () => { clearTimeout(timer); redesign(); });
  await loadMechanism();
}
main();
