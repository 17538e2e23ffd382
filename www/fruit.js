// Free text: a favourite fruit typed by the visitor, an open-domain document (OLH over
// UTF-8 strings with a sparse prior). The browser verifies the document, hashes and
// randomises the answer, and shows the receipt over the listed fruits plus one bound for
// every other answer. Below it, the heavy hitters the curator discovered from a synthetic
// population (prefix extension, no dictionary), beside that population's true top answers.
import { parseMechanism, PrivliftError } from './privlift/js/privlift.js';
import { collector, truth, heavyHitters, pct, interval } from './curator.js';

const $ = (id) => document.getElementById(id);
const state = { entry: null, document: null, mechanism: null, error: null, output: null, receipt: null, top: null, ready: false };
window.__privliftFruit = state; // read by the end-to-end tests

/** An element with text content (never parsed as markup). */
function elem(tag, text, props = {}) {
  const n = Object.assign(document.createElement(tag), props);
  if (text !== undefined) n.textContent = text;
  return n;
}

const fmt = (v, d) => (Number.isFinite(v) ? v.toFixed(d) : v > 0 ? '∞' : '?');
const why = (e) => (e instanceof PrivliftError ? `${e.message} [${e.code}]` : String(e));

function status(kind, text) {
  const s = $('fruit-status');
  s.className = `status ${kind}`;
  s.textContent = text;
}

async function load(index) {
  state.entry = index.open?.[0] ?? null;
  if (!state.entry) { status('refused', 'No free-text mechanism is published.'); return; }
  const text = await (await fetch(`mechanisms/${state.entry.file}`)).text();
  const doc = JSON.parse(text);
  state.document = doc;
  try {
    const parsed = await parseMechanism(text);
    try {
      // The visitor's limit, as for the other questions: no more than 5 nats of LDP.
      state.mechanism = parsed.verify({ maxLdpX: 5 });
    } finally {
      parsed.free();
    }
    const lx = state.mechanism.audit();
    status('ok', `✓ Verified in your browser: ${doc.id} leaks at most ε = ${fmt(lx.ldpX, 3)} nats of LDP about ` +
      `your answer, whatever it is and whatever hash seed is drawn, and ε = ${fmt(lx.lip, 3)} nats of LIP under the ` +
      'curator\'s prior. It may be used.');
    $('fruit-help').textContent = `(at most ${doc.domain.max_bytes} bytes of UTF-8)`;
    $('fruit-perturb').disabled = false;
  } catch (e) {
    state.error = { code: e.code, message: e.message };
    status('refused', `✗ Refused: ${why(e)}. Nothing will be perturbed with this mechanism.`);
  }
}

function perturb() {
  const m = state.mechanism;
  if (!m) return;
  const doc = state.document.mechanism;
  $('fruit-error').textContent = '';
  try {
    const output = m.perturb($('fruit').value);
    state.output = output;
    state.receipt = m.receipt(output);
    state.error = null;
    $('fruit-sent').replaceChildren('Would be sent: ', elem('strong', `seed ${output.seed}, bucket ${output.y}`),
      ` (a random hash seed and your answer's hashed bucket among ${doc.g}, randomised; the text never leaves the device)`);
    drawReceipt(state.receipt);
  } catch (e) {
    // The message names the limit, never the text typed.
    state.error = { code: e.code, message: e.message };
    $('fruit-error').textContent = `Not randomised: ${why(e)}`;
    // An earlier answer's report and receipt would read as this answer's: clear them.
    state.output = state.receipt = null;
    $('fruit-sent').replaceChildren();
    $('fruit-receipt').hidden = true;
    $('fruit-empty').hidden = false;
    $('fruit-bounds').textContent = '';
  }
}

/** A lift range as text: one number when both ends agree to 4 digits. */
function liftRange(lo, hi) {
  return fmt(lo, 4) === fmt(hi, 4) ? fmt(lo, 4) : `${fmt(lo, 4)} – ${fmt(hi, 4)}`;
}

/**
 * The receipt: for each listed fruit its prior, posterior and lift; a range where the
 * lift depends on how the unlisted mass spreads (the worst cases, proved by the audit);
 * and one row for every other answer together.
 */
function drawReceipt(r) {
  const row = (label, prior, lo, hi, cls = '') => {
    const tr = elem('tr', undefined, { className: cls });
    tr.append(elem('th', label, { scope: 'row' }), elem('td', fmt(prior, 4)),
      elem('td', liftRange(prior * lo, prior * hi)), elem('td', liftRange(lo, hi)));
    return tr;
  };
  const rows = r.listed.map((e) => row(e.value, e.prior, e.minLift, e.maxLift, e.inBucket ? 'up' : 'down'));
  rows.push(row('any other answer', r.otherMass, r.unlistedMinLift, r.unlistedMaxLift, 'other'));
  $('fruit-receipt').querySelector('tbody').replaceChildren(...rows);
  $('fruit-receipt').hidden = false;
  $('fruit-empty').hidden = true;
  $('fruit-bounds').textContent = 'Proved by your browser\'s audit: whatever value is sent, every lift about your ' +
    `answer, listed or not, is between e^−εl = ${fmt(Math.exp(-r.epsL), 4)} and e^εu = ${fmt(Math.exp(r.epsU), 4)}. ` +
    'A range is the least and the greatest lift over every way the other answers could share their mass.';
}

/** The collector's heavy hitters beside the synthetic population's true top answers. */
async function showTop(index) {
  const entry = index.heavyHitters?.[0];
  if (!entry) return;
  if (!(await collector())) {
    $('fruit-top-status').textContent = 'Start the demo with its collector (scripts/demo.sh) to see what the curator discovers.';
    return;
  }
  const id = entry.file.replace(/\.json$/, '');
  try {
    const [hh, t] = await Promise.all([heavyHitters(id, entry.top), truth()]);
    state.top = hh;
    const real = t[id];
    const labels = real?.labels ?? real?.values ?? [];
    const order = labels.map((_, i) => i).sort((a, b) => real.p[b] - real.p[a]).slice(0, entry.top);
    const rows = Array.from({ length: entry.top }, (_, i) => {
      const tr = elem('tr');
      const found = i < hh.values.length;
      const hit = found && order.some((k) => labels[k] === hh.values[i]);
      tr.append(elem('td', String(i + 1)),
        elem('th', found ? hh.values[i] : '—', { scope: 'row', className: hit ? 'hit' : '' }),
        elem('td', found ? pct(hh.estimate[i]) : '—'),
        elem('td', found ? interval(hh.estimate[i], hh.std_error[i]) : '—'),
        elem('td', i < order.length ? labels[order[i]] : '—'),
        elem('td', i < order.length ? pct(real.p[order[i]]) : '—'));
      return tr;
    });
    $('fruit-top').querySelector('tbody').replaceChildren(...rows);
    $('fruit-top').hidden = false;
    const hits = hh.values.filter((v) => order.some((k) => labels[k] === v)).length;
    $('fruit-top-status').textContent = `From ${hh.n.toLocaleString('en-US')} randomised reports, the curator found ` +
      `${hits} of the true top ${entry.top} answers without a list of candidates.`;
  } catch (e) {
    $('fruit-top-status').textContent = `The collector did not answer: ${e.message}`;
  }
}

async function main() {
  const index = await (await fetch('mechanisms/index.json')).json();
  $('fruit-perturb').addEventListener('click', perturb);
  await load(index);
  await showTop(index);
  state.ready = true;
}
main();
