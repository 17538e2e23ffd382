// The demo uses the npm package exactly as a web app would: fetchMechanism verifies the
// curator's document against the visitor's policy before anything can be perturbed.
import { fetchMechanism, PrivliftError } from './privlift/js/privlift.js';

const $ = (id) => document.getElementById(id);
const state = { mechanism: null, lastOutput: null, receipt: null, error: null, ready: false };
window.__privlift = state; // read by the end-to-end tests

function policy() {
  const cap = Number($('cap').value);
  return Number.isFinite(cap) && cap >= 0 ? { maxLdpX: cap } : {};
}

function setStatus(kind, text) {
  const s = $('status');
  s.className = 'status ' + kind;
  s.textContent = text;
}

async function loadMechanism() {
  const file = $('mechanism').value;
  state.mechanism = null; state.receipt = null; state.error = null; state.lastOutput = null;
  $('value').disabled = true; $('perturb').disabled = true; $('sent').textContent = '';
  drawReceipt(null);
  try {
    const doc = await (await fetch('mechanisms/' + file)).json();
    $('description').textContent = doc.description || '';
    const m = await fetchMechanism('mechanisms/' + file, policy());
    state.mechanism = m;
    const leak = m.leakage();
    setStatus('ok', `✓ Verified in your browser: ${m.id} leaks at most ε = ${leak.ldp_x.toFixed(3)} nats (LDP) ` +
      `and ε = ${leak.lip.toFixed(3)} nats (LIP). It may be used.`);
    const sel = $('value');
    sel.replaceChildren(...m.labels.map((l, i) => new Option(l, String(i))));
    sel.disabled = false; $('perturb').disabled = false;
  } catch (e) {
    state.error = { code: e.code, message: e.message };
    const why = e instanceof PrivliftError ? `${e.message} [${e.code}]` : String(e);
    setStatus('refused', `✗ Refused: ${why}. Nothing will be perturbed with this mechanism.`);
  }
  state.ready = true;
}

function perturb() {
  const m = state.mechanism;
  if (!m) return;
  const x = Number($('value').value);
  const y = m.perturb(x);
  state.lastOutput = y;
  state.receipt = m.receipt(y);
  $('sent').innerHTML = '';
  $('sent').append('Would be sent: ', Object.assign(document.createElement('strong'), { textContent: m.outputLabels[y] }),
    ` (your true answer was ${m.labels[x]}; only the randomised value leaves the device)`);
  drawReceipt(state.receipt);
}

function drawReceipt(r) {
  const svg = $('chart');
  [...svg.querySelectorAll(':not(title)')].forEach((n) => n.remove());
  const table = $('receipt');
  const body = table.querySelector('tbody');
  body.replaceChildren();
  if (!r) { table.hidden = true; $('bounds').textContent = ''; return; }
  table.hidden = false;
  const W = 640, H = 260, L = 50, B = 30, T = 10;
  const top = Math.max(r.max_lift_bound, ...r.entries.map((e) => e.lift)) * 1.1;
  const yOf = (v) => T + (H - B - T) * (1 - v / top);
  const ns = 'http://www.w3.org/2000/svg';
  const el = (tag, attrs, text) => {
    const n = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
    if (text !== undefined) n.textContent = text;
    svg.append(n);
    return n;
  };
  const bw = (W - L - 10) / r.entries.length;
  r.entries.forEach((e, i) => {
    const x = L + i * bw + bw * 0.15;
    el('rect', { x, y: yOf(e.lift), width: bw * 0.7, height: Math.max(0, yOf(0) - yOf(e.lift)),
      fill: e.lift >= 1 ? '#b45309' : '#1d4ed8', 'data-lift': e.lift });
    el('text', { x: x + bw * 0.35, y: H - 12, 'text-anchor': 'middle' }, e.secret);
    el('text', { x: x + bw * 0.35, y: yOf(e.lift) - 4, 'text-anchor': 'middle' }, e.lift.toFixed(2));
  });
  for (const [v, label, dash] of [[r.max_lift_bound, 'e^εu', '6 4'], [1, '1', ''], [r.min_lift_bound, 'e^−εl', '6 4']]) {
    el('line', { x1: L, x2: W - 5, y1: yOf(v), y2: yOf(v), stroke: '#111', 'stroke-dasharray': dash, class: 'bound' });
    el('text', { x: 4, y: yOf(v) + 4 }, `${label} ${v.toFixed(2)}`);
  }
  for (const e of r.entries) {
    const tr = document.createElement('tr');
    for (const [v, th] of [[e.secret, true], [e.prior.toFixed(4)], [e.posterior.toFixed(4)], [e.lift.toFixed(4)]]) {
      const c = document.createElement(th ? 'th' : 'td');
      if (th) c.scope = 'row';
      c.textContent = v;
      tr.append(c);
    }
    body.append(tr);
  }
  $('bounds').textContent = `Guaranteed: every lift is between e^−εl = ${r.min_lift_bound.toFixed(4)} and ` +
    `e^εu = ${r.max_lift_bound.toFixed(4)} (εl = ${r.eps_l.toFixed(3)}, εu = ${r.eps_u.toFixed(3)} nats), ` +
    'whatever value you send. Anyone seeing the sent value can shift their belief about you by at most these factors.';
}

async function main() {
  const index = await (await fetch('mechanisms/index.json')).json();
  $('mechanism').replaceChildren(...index.mechanisms.map((m) => new Option(m.title, m.file)));
  $('mechanism').addEventListener('change', loadMechanism);
  $('cap').addEventListener('change', loadMechanism);
  $('perturb').addEventListener('click', perturb);
  await loadMechanism();
}
main();
