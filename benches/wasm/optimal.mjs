// Optimal lift designs in wasm (Node's V8, the engine of Chromium): AORR at |X| = 17,
// |S| = 5, εl = εu = 1 and 0.25, and ORR (ε-LIP) and optimal ε-LDP at |X| = 5, |S| = 2,
// on joints with i.i.d. uniform entries (the papers' instances; not the same draws as
// design/benches/optimal.rs, which uses ChaCha8). Prints one JSON object. Run after
// scripts/build-wasm.sh:  node benches/wasm/optimal.mjs
import { design } from '../../js/design.js';

function seeded(seed) {
  // xorshift64*: deterministic inputs for the benchmark only (never for privacy).
  let s = BigInt(seed) | 1n;
  return () => {
    s ^= s >> 12n; s ^= (s << 25n) & 0xffffffffffffffffn; s ^= s >> 27n;
    return Number(((s * 2685821657736338717n) & 0xffffffffffffffffn) >> 11n) / 2 ** 53;
  };
}
function joint(ns, nx, seed) {
  const rand = seeded(seed);
  const flat = Array.from({ length: ns * nx }, () => rand());
  const t = flat.reduce((a, b) => a + b, 0);
  return Array.from({ length: ns }, (_, s) => flat.slice(s * nx, (s + 1) * nx).map((v) => v / t));
}
async function time(fn, minMs = 500) {
  await fn(); // warm-up (also loads the module)
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < minMs || n < 5) { await fn(); n += 1; }
  return (performance.now() - t0) / n;
}

const out = {};
const big = joint(5, 17, 7);
for (const eps of [1, 0.25]) {
  out[`aorr_17x5/${eps}`] = await time(() => design('orr-alip', { joint: { p_sx: big }, eps_l: eps, eps_u: eps }));
}
const small = joint(2, 5, 11);
for (const eps of [0.5, 1, 2]) {
  out[`orr_lip_5x2/${eps}`] = await time(() => design('orr-lip', { joint: { p_sx: small }, epsilon: eps }));
  out[`optimal_ldp_5x2/${eps}`] = await time(() => design('orr-ldp', { joint: { p_sx: small }, epsilon: eps }));
}
console.log(JSON.stringify(Object.fromEntries(Object.entries(out).map(([k, v]) => [k, `${v.toFixed(3)} ms`])), null, 1));
