// Instantiates pkg-open/privlift_open_bg.wasm through the public wrapper (parseMechanism
// loads it for an open-domain document) and runs one parse → verify → perturb → receipt
// round. Used by build-wasm.sh to accept or reject a wasm-opt output. Exit code 0 = the
// module works.
import { parseMechanism, OpenMechanism } from '../js/privlift.js';

const doc = await parseMechanism({
  format: 'privlift-mechanism', version: 1, id: 'smoke-olh',
  domain: { kind: 'strings', max_bytes: 32 },
  prior: { values: ['apple', 'banana', 'cherry'], p: [0.3, 0.2, 0.1] },
  mechanism: { kind: 'olh', epsilon: 1, g: 4, hash: 'xxh32', hash_version: 1 },
  claims: { ldp_x: 1, lip: 1 },
});
const mech = doc.verify({ maxLdpX: 1.01 });
if (!(mech instanceof OpenMechanism)) throw new Error('not an open-domain mechanism');
const batch = mech.perturbBatch(['apple', 'durian', 'banana']);
if (batch.length !== 3 || batch.y.some((y) => y >= 4)) throw new Error('perturbBatch gave a bad output');
const seeded = mech.perturbManySeededForTesting(['apple', 'kiwi'], 7n);
if (seeded.length !== 2) throw new Error('seeded path broken');
const r = mech.receipt(mech.perturb('cherry'));
if (r === null || typeof r !== 'object') throw new Error('bad receipt');
try {
  doc.verify({ maxLdpX: 0.5 });
  throw new Error('policy not enforced');
} catch (e) {
  if (e.code !== 'policy_violated') throw e;
}
console.log('open smoke ok');
