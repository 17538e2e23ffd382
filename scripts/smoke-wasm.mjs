// Instantiates pkg/privlift_bg.wasm through the public wrapper and runs one
// parse → verify → perturb → receipt round. Used by build-wasm.sh to accept or reject
// a wasm-opt output. Exit code 0 = the module works.
import { parseMechanism } from '../js/privlift.js';

const doc = await parseMechanism({
  format: 'privlift-mechanism', version: 1, id: 'smoke',
  labels: ['no', 'yes'], prior: [0.5, 0.5],
  mechanism: { kind: 'matrix', p_y_given_x: [[0.75, 0.25], [0.25, 0.75]] },
  claims: { ldp_x: Math.log(3) },
});
const mech = doc.verify({ maxLdpX: 2 });
const ys = mech.perturbIndices(new Uint32Array(1000).fill(1));
if (ys.length !== 1000 || ys.some((y) => y > 1)) throw new Error('perturbIndices gave a bad output');
const seeded = mech.perturbIndicesSeededForTesting([0, 1, 0, 1], 7n);
if (seeded.length !== 4) throw new Error('seeded path broken');
const r = mech.receipt(mech.perturb('yes'));
if (r.entries.length !== 2 || !(r.maxLiftBound > 1)) throw new Error('bad receipt');
try {
  doc.verify({ maxLdpX: 0.1 });
  throw new Error('policy not enforced');
} catch (e) {
  if (e.code !== 'policy_violated') throw e;
}
console.log('smoke ok');
