// Design times of privlift/design in wasm (Node's V8, the engine of Chromium), the same
// cases as design/benches/design.rs natively. Prints one JSON object. Run after
// scripts/build-wasm.sh:  node benches/wasm/design.mjs
import { design } from '../../js/design.js';

function seeded(seed) {
  // xorshift64*: deterministic inputs for the benchmark only (never for privacy).
  let s = BigInt(seed) | 1n;
  return () => {
    s ^= s >> 12n; s ^= (s << 25n) & 0xffffffffffffffffn; s ^= s >> 27n;
    return Number(((s * 2685821657736338717n) & 0xffffffffffffffffn) >> 11n) / 2 ** 53;
  };
}
function dist(rand, k) {
  const v = Array.from({ length: k }, () => rand() + 0.05);
  const s = v.reduce((a, b) => a + b, 0);
  return v.map((x) => x / s);
}
async function time(fn, minMs = 300) {
  await fn(); // warm-up (also loads the module)
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < minMs || n < 3) { await fn(); n += 1; }
  return (performance.now() - t0) / n;
}

const out = {};
for (const k of [2, 21, 256]) {
  const p = dist(seeded(k), k);
  out[`krr/${k}`] = await time(() => design('krr', { prior: { p }, epsilon: 1 }));
  const eps = Math.log(1 / Math.min(...p)) + 0.1;
  out[`rr_lip_eq19/${k}`] = await time(() => design('rr-lip', { prior: { p }, epsilon: eps }));
}
for (const k of [4, 8, 16, 32]) {
  const p = dist(seeded(100 + k), k);
  out[`rr_lip_lp/${k}`] = await time(() => design('rr-lip', { prior: { p }, epsilon: 0.3 }), 100);
}
for (const [ns, nx] of [[2, 4], [4, 16], [8, 32], [16, 64]]) {
  const rand = seeded(ns * 1000 + nx);
  const flat = dist(rand, ns * nx);
  const p_sx = Array.from({ length: ns }, (_, s) => flat.slice(s * nx, (s + 1) * nx));
  out[`linear_distance_lp12/S=${ns},X=${nx}`] = await time(() => design('linear-distance', { joint: { p_sx }, alpha: 0.5 }), 100);
}
console.log(JSON.stringify(Object.fromEntries(Object.entries(out).map(([k, v]) => [k, `${v.toFixed(3)} ms`])), null, 1));
