// The demo uses the npm package exactly as a web app would: parseMechanism + verify check
// the curator's document against the visitor's policy before anything can be perturbed,
// and privlift/design redesigns the mechanism in the browser when the slider moves.
import { parseMechanism, PrivliftError } from './privlift/js/privlift.js';
import { design } from './privlift/js/design.js';
import { openLedger } from './privlift/js/ledger.js';
import { collector, truth, send, estimate, pct, interval } from './curator.js';
import { canvas, tspan } from './svg.js';

const $ = (id) => document.getElementById(id);
const state = {
  mechanism: null, entry: null, lastInput: null, lastOutput: null, receipt: null,
  error: null, ready: false, utility: null, designs: 0, ledger: null, lastRelease: null,
  published: false, lastReport: null, sendResult: null, learn: null,
  // The selected document's audit w.r.t. the visitor's answer has no LDP bound (ORR, AORR).
  unbounded: false,
  // Opened with no budget: used only for an attribute whose total has no bound, with the visitor's consent.
  unboundedLedger: null,
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

/** The visitor's cap in nats, or undefined when the field is empty. */
function cap() {
  const text = $('cap').value.trim();
  const v = Number(text);
  return text !== '' && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/** Whether the visitor allowed mechanisms without an LDP bound (the one control for them). */
const allowUnbounded = () => $('allow-unbounded').checked;

/**
 * The visitor's policy for a document. The cap bounds the LDP about the visitor's answer;
 * for a mechanism without an LDP bound that the visitor allowed, nothing bounds the answer,
 * so the same cap applies to the LIP about the curator's secret instead.
 */
function policy(unbounded) {
  const c = cap();
  if (c === undefined) return {};
  return unbounded && allowUnbounded() ? { maxLipS: c } : { maxLdpX: c };
}

/**
 * Parses and verifies a document's text against the visitor's policy; sets state.unbounded
 * from the audit (prior-free, so the curator's prior cannot hide it). A mechanism without an
 * LDP bound is refused unless the visitor allowed such mechanisms, whatever the cap says.
 */
async function verifyText(text) {
  const doc = await parseMechanism(text);
  try {
    const check = doc.check({});
    state.unbounded = !(check.leakageX.ldpX < Infinity);
    explainUnbounded(doc, check);
    const m = doc.verify(policy(state.unbounded));
    if (state.unbounded && !allowUnbounded()) {
      m.free();
      throw new PrivliftError('policy_violated', `${doc.id} has no LDP bound about your answer (ε = ∞), and you have not allowed mechanisms without one`);
    }
    return m;
  } finally {
    doc.free();
  }
}

/** The one explanation of a mechanism without an LDP bound, shown while one (with honest claims) is selected. */
function explainUnbounded(doc, check) {
  const p = $('unbounded-why');
  // A document whose claims fail is refused for that reason: nothing to explain here.
  p.hidden = !(state.unbounded && check.claimsHold);
  if (p.hidden) { p.replaceChildren(); return; }
  const attr = state.entry?.attribute ?? doc.id;
  // A document without a secret has S = X: then nothing else is protected.
  const secret = doc.secretLabels.length > 0 && doc.secretLabels.join('\u0000') !== doc.labels.join('\u0000')
    ? `the curator's secret (${doc.secretLabels.join(' or ')})` : null;
  const lipS = `${fmt(check.leakage.lip, 3)} nats of LIP`;
  const c = cap();
  const why = 'Some values it sends never occur for some answers, so seeing one rules those answers out completely ' +
    '(a lift of 0 in the receipt): its LDP and its LIP about your answer are both unbounded. ';
  const ledger = `your ledger records each release of “${attr}” without a budget, since their total has no bound`;
  if (!allowUnbounded()) {
    const then = c === undefined ? ledger
      : secret ? `your cap of ${c} nats then applies to what it reveals about that secret (ε = ${lipS} here), and ${ledger}`
        : `your cap of ${c} nats then applies to its LIP, which is unbounded too, so it stays refused`;
    p.replaceChildren(elem('strong', 'Why it is refused: '),
      `this mechanism ${secret ? `protects ${secret}, but puts` : 'puts'} no bound on what the sent value reveals about your answer itself. ` +
      why + 'Your cap and your ledger’s budget are about your answer, so neither can accept it. ' +
      `To use it anyway, tick “Allow mechanisms without an LDP bound”: ${then}.`);
  } else {
    p.replaceChildren(elem('strong', 'You allowed a mechanism without an LDP bound. '),
      (secret ? `It protects ${secret}: ε = ${lipS}${c === undefined ? '' : `, within your cap of ${c} nats`}. It does not protect your answer itself. `
        : 'It protects nothing else instead. ') +
      why + `Your ledger records each release of “${attr}”, but their total about your answer has no bound, so your budget ` +
      `no longer limits “${attr}”. Untick the box to refuse such mechanisms again; “Clear my ledger” starts “${attr}” afresh.`);
  }
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
  state.utility = null;
  $('utility').textContent = '';
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
  let text = `✓ Verified in your browser: ${m.id} leaks at most ε = ${fmt(lx.ldpX, 3)} nats of LDP (prior-free) ` +
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
  if (state.lastOutput === null) drawReceipt(null);
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
  state.unbounded = false;
  $('unbounded-why').hidden = true;
  try {
    // One download: the text is shown (description) and verified.
    const r = await fetch('mechanisms/' + entry.file);
    if (!r.ok) throw new PrivliftError('http', `mechanisms/${entry.file}: HTTP ${r.status}`, { status: r.status });
    const text = await r.text();
    const doc = JSON.parse(text);
    $('description').textContent = doc.description || '';
    activate(await verifyText(text), doc);
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
      const m = await verifyText(json);
      if (pending !== run) return;
      activate(m, JSON.parse(json));
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
  // The same records (same origin and storage), no budget: for an attribute whose total has
  // no bound (a release without an LDP bound), no budget can be met; see ledgerFor.
  state.unboundedLedger ??= await openLedger({ budget: {} });
  await showLedger();
}

/**
 * The ledger to release `attribute` through `m` with: the budgeted one, unless the total
 * after this release has no bound (this mechanism or an earlier one has no LDP bound) and
 * the visitor allowed such mechanisms; then the budget can never be met, and the release
 * is recorded without one. The LIP about the answer is unbounded too (a lift of 0), so no
 * LIP budget could take over.
 */
async function ledgerFor(attribute, m) {
  if (!allowUnbounded()) return state.ledger;
  const after = await state.ledger.bound(attribute, m);
  return after.ldp < Infinity ? state.ledger : state.unboundedLedger;
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
  $('ledger').hidden = rows.length === 0;
  $('ledger-empty').hidden = rows.length > 0;
  const attr = state.entry?.attribute;
  if (attr) {
    const b = await state.ledger.bound(attr);
    state.ledgerBound = b;
    const budget = state.ledger.budget.ldp;
    const budgetText = budget === undefined ? 'no budget' : `a budget of ${budget} nats of LDP per attribute`;
    if (b.releases === 0) {
      $('ledger-bound').textContent = `No release of “${attr}” yet; ${budgetText}.`;
    } else if (!(b.ldp < Infinity)) {
      $('ledger-bound').textContent = `Together, your ${b.releases} release(s) of “${attr}” have no bound about your answer: ` +
        'at least one went through a mechanism without an LDP bound, and a total with no bound cannot stay within any budget. ' +
        `Further releases of “${attr}” are ${allowUnbounded() ? 'recorded without a budget, as you allowed' : 'refused unless you tick “Allow mechanisms without an LDP bound”'}; ` +
        `“Clear my ledger” starts afresh. (${budgetText[0].toUpperCase()}${budgetText.slice(1)}.)`;
    } else {
      $('ledger-bound').textContent = `Together, your ${b.releases} release(s) of “${attr}” leak at most ε = ${fmt(b.ldp, 3)} nats of LDP ` +
        `and ε = ${fmt(b.lip, 3)} nats of LIP about your answer (composition, Jiang et al. Thm 4); ${budgetText}.`;
    }
  }
}

async function perturb() {
  const m = state.mechanism;
  if (!m) return;
  const x = Number($('value').value);
  try {
    const attribute = state.entry.attribute ?? state.entry.file;
    const ledger = await ledgerFor(attribute, m);
    const r = await ledger.release(attribute, m, x, { memoize: $('memoize').checked });
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

/**
 * One row of an estimate table: the label, the true share, the estimate, its 95 % interval
 * and a bar. A share the mechanism does not identify (`range` = [lo, hi], the values that
 * explain the reports equally well) shows that range instead, never a point and an error.
 */
function learnRow(label, truthShare, est, se, range) {
  const tr = document.createElement('tr');
  const bars = elem('td', '');
  const bar = (v, cls, from = 0) => {
    const b = elem('span', '', { className: cls });
    b.style.marginLeft = `${Math.round(240 * from)}px`;
    b.style.width = `${Math.max(1, Math.round(240 * Math.max(0, v - from)))}px`;
    return b;
  };
  if (Number.isFinite(truthShare)) bars.append(bar(truthShare, 'bar truth'), document.createElement('br'));
  if (range) {
    bars.append(bar(range[1], 'bar range', range[0]));
    tr.append(elem('th', label, { scope: 'row' }), elem('td', pct(truthShare)),
      elem('td', `between ${pct(range[0])} and ${pct(range[1])}`, { className: 'range' }),
      elem('td', 'not identified by this mechanism', { className: 'range' }), bars);
  } else {
    bars.append(bar(est, 'bar'));
    tr.append(elem('th', label, { scope: 'row' }), elem('td', pct(truthShare)), elem('td', pct(est)), elem('td', interval(est, se)), bars);
  }
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
    const hidden = e.identified?.includes(false) ? ' This mechanism cannot tell some answers apart: for those, the reports only say between which shares the truth lies.' : '';
    $('learn-status').textContent = `From ${e.n.toLocaleString('en-US')} randomised reports (${real ? `${real.n.toLocaleString('en-US')} synthetic people${e.n > real.n ? ' and real visitors' : ''}` : 'collected'}), by ${e.method === 'mle' ? 'maximum likelihood' : 'inversion'}.${hidden}`;
    $('learn').querySelector('tbody').replaceChildren(...e.labels.map((l, i) => learnRow(l, real?.p?.[i], e.estimate[i], e.std_error[i], e.interval?.[i])));
    $('learn').hidden = false;
    const s = e.secret;
    $('learn-secret').querySelector('tbody').replaceChildren(...(s ? s.labels.map((l, i) => learnRow(l, real?.secret?.p?.[i], s.estimate[i], s.identified[i] ? s.std_error[i] : NaN, s.interval?.[i])) : []));
    $('learn-secret').hidden = !s;
  } catch (e) {
    state.learn = { error: e.message };
    $('learn-status').textContent = `The collector did not answer: ${e.message}`;
  }
}

/** e to the power ∓ε with subscript `sub`, as the page's text writes it: e<sup>−ε<sub>l</sub></sup>. */
function power(sign, sub) {
  const sup = elem('sup', `${sign}ε`);
  sup.append(elem('sub', sub));
  return [document.createTextNode('e'), sup];
}

/** ε with subscript `sub`. */
const epsSub = (sub) => { const n = elem('span', 'ε'); n.append(elem('sub', sub)); return n; };

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
  $(boundsId).replaceChildren(...(section
    ? [`Proved by your browser's audit of this mechanism: whatever value is sent, every lift ${about} is between `,
      ...power('−', 'l'), ` = ${fmt(section.minLiftBound, 4)} and `, ...power('', 'u'), ` = ${fmt(section.maxLiftBound, 4)} (`,
      epsSub('l'), ` = ${fmt(section.epsL, 3)}, `, epsSub('u'), ` = ${fmt(section.epsU, 3)} nats). ` +
      'Anyone seeing the sent value can shift their belief by at most these factors.']
    : []));
}

/** Section 3 before a release: what will appear, and the bounds the audit already proves. */
function receiptPlaceholder() {
  const p = $('receipt-empty');
  const m = state.mechanism;
  if (!m) {
    p.replaceChildren('No receipt: the selected mechanism was refused (section 1), so nothing can be randomised with it.');
    return;
  }
  const [lo, hi] = m.receiptBounds();
  p.replaceChildren('Nothing has been randomised yet. Choose your answer in section 2 and press “Randomise and show what ' +
    'would be sent”: the receipt for that value appears here. Whatever is sent, the audit already proves that every lift ' +
    'about your answer stays between ', ...power('−', 'l'), ` = ${fmt(lo, 4)} and `, ...power('', 'u'), ` = ${fmt(hi, 4)}.`);
}

const UP = '#b45309', DOWN = '#1d4ed8';

function drawReceipt(r) {
  const el = canvas($('chart'));
  // Always the rows of the visitor's own possible answers (X); the curator's secret (S) in addition.
  fillSection('receipt', 'bounds', r ?? undefined, 'about your answer');
  fillSection('receipt-secret', 'bounds-secret', r?.secret ?? undefined, "about the curator's secret");
  $('chart-figure').hidden = !r;
  $('receipt-empty').hidden = Boolean(r);
  if (!r) { receiptPlaceholder(); return; }
  // The chart: the X lifts. Log scale: a lift of 2 and a lift of 1/2 are equally far from 1, as the bounds are.
  // The bound labels sit left of the plot (right-aligned at L − 8), the answer labels below it.
  const W = 640, H = 280, L = 112, R = 8, B = 40, T = 14;
  const logs = [r.maxLiftBound, r.minLiftBound, ...r.entries.map((e) => e.lift)]
    .filter((v) => v > 0 && Number.isFinite(v)).map((v) => Math.abs(Math.log(v)));
  const span = Math.max(0.1, ...logs) * 1.15;
  const yOf = (v) => {
    const l = v > 0 ? Math.max(-span, Math.min(span, Math.log(v))) : -span;
    return T + (H - B - T) * (0.5 - l / (2 * span));
  };
  const bw = (W - L - R) / r.entries.length;
  const lineYs = [r.maxLiftBound, 1, r.minLiftBound].map(yOf);
  r.entries.forEach((e, i) => {
    const x = L + i * bw + bw * 0.15;
    const [y0, y1] = [yOf(1), yOf(e.lift)].sort((a, b) => a - b);
    el('rect', { x, y: y0, width: bw * 0.7, height: Math.max(1, y1 - y0), fill: e.lift >= 1 ? UP : DOWN, 'data-lift': e.lift });
    el('text', { x: x + bw * 0.35, y: H - 8, 'text-anchor': 'middle', class: 'answer' }, e.label);
    if (r.entries.length <= 8) {
      // Outside the bar's end; inside it (white) when a line would cross the text there; else beyond the line.
      const end = yOf(e.lift), up = e.lift >= 1;
      const spots = up ? [[end - 6, '#333'], [end + 15, '#fff'], [Math.min(...lineYs.filter((y) => y < end + 1)) - 6, '#333']]
        : [[end + 15, '#333'], [end - 5, '#fff'], [Math.max(...lineYs.filter((y) => y > end - 1)) + 15, '#333']];
      const free = ([y, fill]) => (fill !== '#fff' || Math.abs(y1 - y0) >= 20) && lineYs.every((ly) => ly < y - 13 || ly > y + 4);
      const [y, fill] = spots.filter(([v]) => Number.isFinite(v)).find(free) ?? spots[0];
      el('text', { x: x + bw * 0.35, y, 'text-anchor': 'middle', class: 'value', style: `fill: ${fill}` }, fmt(e.lift, 2));
    }
  });
  // The three horizontal lines and their labels, e^{εu}, 1 and e^{−εl} as in the text; labels
  // at least 18 px apart (the lines may be closer), top to bottom.
  const lines = [[r.maxLiftBound, '', 'u', '6 4'], [1, null, null, ''], [r.minLiftBound, '−', 'l', '6 4']];
  const ys = lines.map(([v]) => yOf(v) + 4);
  for (let i = 1; i < ys.length; i++) ys[i] = Math.max(ys[i], ys[i - 1] + 18);
  const shift = Math.max(0, ys[ys.length - 1] - (H - B + 4));
  lines.forEach(([v, sign, sub, dash], i) => {
    el('line', { x1: L, x2: W - R, y1: yOf(v), y2: yOf(v), stroke: '#111', 'stroke-dasharray': dash, class: 'bound', 'data-value': v });
    const t = el('text', { x: L - 8, y: ys[i] - shift, 'text-anchor': 'end', class: 'bound-label' });
    if (sub === null) {
      t.textContent = '1';
    } else {
      // A superscript ε with a subscript: shifted tspans, back on the baseline for the value.
      tspan(t, 'e');
      tspan(t, `${sign}ε`, { dy: -6, 'font-size': 10 });
      tspan(t, sub, { dy: 3, 'font-size': 8 });
      tspan(t, ` = ${fmt(v, 2)}`, { dy: 3 });
    }
  });
}

async function main() {
  index = (await (await fetch('mechanisms/index.json')).json()).mechanisms;
  $('mechanism').replaceChildren(...index.map((m) => new Option(m.title, m.file)));
  $('mechanism').addEventListener('change', loadMechanism);
  $('cap').addEventListener('change', loadMechanism);
  $('allow-unbounded').addEventListener('change', loadMechanism);
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
