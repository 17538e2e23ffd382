// Design times of privlift/design in wasm (Node's V8, the engine of Chromium), the same
// cases as design/benches/design.rs natively. Prints one JSON object. Run after
// scripts/build-wasm.sh:  node --no-liftoff benches/wasm/design.mjs
import { design } from '../../js/design.js';
import { seeded, time } from './inputs.mjs';

function dist(rand, k) {
  const v = Array.from({ length: k }, () => rand() + 0.05);
  const s = v.reduce((a, b) => a + b, 0);
  return v.map((x) => x / s);
}

const out = {};
for (const k of [2, 21, 256]) {
  const p = dist(seeded(k), k);
  out[`krr/${k}`] = await time(() => design('krr', { prior: { p }, epsilon: 1 }), 300, 3);
  const eps = Math.log(1 / Math.min(...p)) + 0.1;
  out[`rr_lip_eq19/${k}`] = await time(() => design('rr-lip', { prior: { p }, epsilon: eps }), 300, 3);
}
for (const k of [4, 8, 16, 32]) {
  const p = dist(seeded(100 + k), k);
  out[`rr_lip_lp/${k}`] = await time(() => design('rr-lip', { prior: { p }, epsilon: 0.3 }), 100, 3);
}
for (const [ns, nx] of [[2, 4], [4, 16], [8, 32], [16, 64]]) {
  const rand = seeded(ns * 1000 + nx);
  const flat = dist(rand, ns * nx);
  const p_sx = Array.from({ length: ns }, (_, s) => flat.slice(s * nx, (s + 1) * nx));
  out[`linear_distance_lp12/S=${ns},X=${nx}`] = await time(() => design('linear-distance', { joint: { p_sx }, alpha: 0.5 }), 100, 3);
  // min(|x − y|, |X| − |x − y|): a metric on no line, so each secret's LP (12) is solved.
  const d = Array.from({ length: nx }, (_, x) => Array.from({ length: nx }, (_, y) => Math.min(Math.abs(x - y), nx - Math.abs(x - y))));
  out[`linear_distance_lp12_circle/S=${ns},X=${nx}`] = await time(() => design('linear-distance', { joint: { p_sx }, alpha: 0.5, distortion: { d } }), 100, 3);
}
console.log(JSON.stringify(Object.fromEntries(Object.entries(out).map(([k, v]) => [k, `${v.toFixed(3)} ms`])), null, 1));
