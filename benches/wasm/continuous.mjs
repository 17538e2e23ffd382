// Exact lattice noise in wasm (Node's V8, the engine of Chromium): reports per second of
// privlift/continuous perturbMany and single perturb calls, and GMM fitting and σ
// calibration of privlift/design, beside the naive float Laplace in JS (the leaky
// baseline, Mironov 2012) measured in the same run. Prints one JSON object. Run after
// scripts/build-wasm.sh:  node --no-liftoff benches/wasm/continuous.mjs
//
// The rates are those of the exact sampler on the calling thread. A document whose
// verification costs more than a synchronous verify() runs on the calling thread
// (gaussian-lip's here) is verified there all the same, without that limit (the sampler
// is the same), and also by verifyContinuousAsync, as a page must: its mechanism stays in
// the package's Worker and each call is one message, timed as `worker_single_per_s`.
import { parseContinuousMechanism, verifyContinuousAsync } from '../../js/continuous.js';
import { designContinuous, fitGmm } from '../../js/design.js';
import { unlimited } from '../../js/common.js';
import { seeded } from './inputs.mjs';

const domain = { lo: 15000, hi: 240000, step: 1000 };
const prior = { gmm: { weights: [0.45, 0.4, 0.15], means: [38000, 62000, 110000], sds: [7000, 12000, 25000] } };

async function best(fn, reps = 5) {
  await fn();
  let b = Infinity;
  for (let r = 0; r < reps; r++) {
    const t = performance.now();
    await fn();
    b = Math.min(b, performance.now() - t);
  }
  return b;
}

/**
 * The mechanism verified on the calling thread (past the synchronous limit if need be),
 * and `worker`: verify() refuses it there (`needs_async`).
 */
async function verified(json) {
  const doc = await parseContinuousMechanism(json);
  try {
    return { m: doc.verify(), worker: false };
  } catch (e) {
    if (e.code !== 'needs_async') throw e;
    return { m: unlimited(() => doc.verify()), worker: true };
  } finally {
    doc.free();
  }
}


const out = {};
const N = 200000;
const xs = new Float64Array(N).fill(52300);
for (const method of ['laplace-lip', 'gaussian-lip', 'sampling']) {
  const json = await designContinuous({ method, domain, prior, epsilon: 1, delta: 1e-5 });
  const { m, worker } = await verified(json);
  const calls = 50000;
  const batch = await best(() => m.perturbMany(xs));
  // Synchronous calls stay unawaited: an await would add a microtask to each.
  const single = await best(() => { for (let i = 0; i < calls; i++) m.perturb(52300); });
  out[method] = { scale: JSON.parse(json).mechanism, batch_per_s: N / batch * 1000, single_per_s: calls / single * 1000 };
  m.free();
  if (worker) {
    const a = await verifyContinuousAsync(json);
    const asyncCalls = 2000;
    const t = await best(async () => { for (let i = 0; i < asyncCalls; i++) await a.perturb(52300); });
    out[method].worker_single_per_s = asyncCalls / t * 1000;
    a.free();
  }
}
// The baseline draws its uniforms from a 32-bit xorshift (no BigInt), so that it measures
// the float Laplace itself.
let w = 2463534242;
const u32 = () => { w ^= w << 13; w >>>= 0; w ^= w >>> 17; w ^= w << 5; w >>>= 0; return w; };
const naive = await best(() => {
  let s = 0;
  for (let i = 0; i < N; i++) { const u = (u32() + 0.5) / 2 ** 32 - 0.5; s += -184000 * Math.sign(u) * Math.log(1 - 2 * Math.abs(u)); }
  return s;
});
const rand = seeded(1);
out.naive_float_laplace_js_per_s = N / naive * 1000;
const samples = Array.from({ length: 100000 }, (_, i) => {
  const [m, sd] = i % 3 === 0 ? [35000, 6000] : [70000, 15000];
  return m + sd * Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
});
await fitGmm(samples, 4);
let fitMs = Infinity;
for (let r = 0; r < 3; r++) {
  const t = performance.now();
  await fitGmm(samples, 4);
  fitMs = Math.min(fitMs, performance.now() - t);
}
out.fit_gmm_1e5_ms = fitMs;
console.log(JSON.stringify(out, null, 1));
