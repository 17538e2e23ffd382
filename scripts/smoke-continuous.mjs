// Instantiates pkg-continuous/privlift_continuous_bg.wasm through the public wrapper and
// runs one parse → verify → perturb → receipt round. Used by build-wasm.sh to accept or
// reject a wasm-opt output. Exit code 0 = the module works.
import { parseContinuousMechanism } from '../js/continuous.js';

const doc = await parseContinuousMechanism({
  format: 'privlift-mechanism', version: 1, id: 'smoke-laplace',
  domain: { lo: 0, hi: 10, step: 0.5 },
  prior: { gaussian: { mean: 5, sd: 2 } },
  mechanism: { kind: 'laplace', b: 10 },
  claims: { ldp: { eps: 1 } },
});
const mech = doc.verify({ ldp: { eps: 1.01 } });
const ys = mech.perturbMany([0, 2.5, 10]);
if (ys.length !== 3 || ys.some((y) => !Number.isFinite(y) || Math.abs(y * 2 - Math.round(y * 2)) > 1e-9)) {
  throw new Error(`perturbMany gave off-lattice outputs: ${ys}`);
}
const seeded = mech.perturbManySeededForTesting([1, 2], 7n);
if (seeded.length !== 2) throw new Error('seeded path broken');
const y = mech.perturb(3.2);
const r = mech.receipt(y, 3.2);
if (r.xs.length !== 21 || !(r.userRatio > 0) || !(r.maxRatio <= Math.exp(1.01))) throw new Error('bad receipt');
try {
  doc.verify({ ldp: { eps: 0.5 } });
  throw new Error('policy not enforced');
} catch (e) {
  if (e.code !== 'policy_violated') throw e;
}
console.log('continuous smoke ok');
