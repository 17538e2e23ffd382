// Optimal lift designs in wasm (Node's V8, the engine of Chromium): AORR at |X| = 17,
// |S| = 5, εl = εu = 1 and 0.25, and ORR (ε-LIP) and optimal ε-LDP at |X| = 5, |S| = 2,
// on joints with i.i.d. uniform entries (the papers' instances; not the same draws as
// design/benches/optimal.rs, which uses ChaCha8). Prints one JSON object. Run after
// scripts/build-wasm.sh:  node --no-liftoff benches/wasm/optimal.mjs
import { design } from '../../js/design.js';
import { seeded, time } from './inputs.mjs';

function joint(ns, nx, seed) {
  const rand = seeded(seed);
  const flat = Array.from({ length: ns * nx }, () => rand());
  const t = flat.reduce((a, b) => a + b, 0);
  return Array.from({ length: ns }, (_, s) => flat.slice(s * nx, (s + 1) * nx).map((v) => v / t));
}

const out = {};
const big = joint(5, 17, 7);
for (const eps of [1, 0.25]) {
  out[`aorr_17x5/${eps}`] = await time(() => design('orr-alip', { joint: { p_sx: big }, eps_l: eps, eps_u: eps }), 500, 5);
}
const small = joint(2, 5, 11);
for (const eps of [0.5, 1, 2]) {
  out[`orr_lip_5x2/${eps}`] = await time(() => design('orr-lip', { joint: { p_sx: small }, epsilon: eps }), 500, 5);
  out[`optimal_ldp_5x2/${eps}`] = await time(() => design('orr-ldp', { joint: { p_sx: small }, epsilon: eps }), 500, 5);
}
console.log(JSON.stringify(Object.fromEntries(Object.entries(out).map(([k, v]) => [k, `${v.toFixed(3)} ms`])), null, 1));
