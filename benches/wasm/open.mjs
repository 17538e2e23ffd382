// Open-domain documents in wasm (Node's V8, the engine of Chromium): the time of
// parseMechanism + verify, and of verify alone, of open documents (goal: ≤ 1 ms), beside a 4-symbol krr
// document's measured in the same run, and perturb throughput of an olh mechanism on
// strings beside the krr mechanism's on indices. Prints one JSON object. Run after
// scripts/build-wasm.sh:  node benches/wasm/open.mjs
import { parseMechanism } from '../../js/privlift.js';

const head = { format: 'privlift-mechanism', version: 1 };
const open = (id, mechanism, prior) => JSON.stringify({
  ...head, id, domain: { kind: 'strings', max_bytes: 32 }, ...(prior ? { prior } : {}),
  mechanism: { hash: 'xxh32', hash_version: 1, ...mechanism }, claims: { ldp_x: mechanism.epsilon },
});
const docs = {
  olh_g4: open('olh', { kind: 'olh', epsilon: 1, g: 4 }),
  olh_g1024: open('olh', { kind: 'olh', epsilon: 7, g: 1024 }),
  hcms_k1024_m1024: open('hcms', { kind: 'hcms', epsilon: 2, k: 1024, m: 1024 }),
  olh_g4_prior_1000: open('olh', { kind: 'olh', epsilon: 1, g: 4 },
    { values: Array.from({ length: 1000 }, (_, i) => `word${i}`), p: Array(1000).fill(0.0005) }),
  krr4_baseline: JSON.stringify({ ...head, id: 'krr', labels: ['a', 'b', 'c', 'd'], prior: [0.25, 0.25, 0.25, 0.25],
    mechanism: { kind: 'krr', epsilon: 1 }, claims: { ldp_x: 1 } }),
};

/** Median of `reps` timings (ms) of `fn`, after one warm-up call. */
async function median(fn, reps = 41) {
  await fn();
  const t = [];
  for (let r = 0; r < reps; r++) {
    const s = performance.now();
    await fn();
    t.push(performance.now() - s);
  }
  return t.sort((a, b) => a - b)[reps >> 1];
}

const out = { parse_verify_ms: {}, verify_ms: {} };
for (const [name, text] of Object.entries(docs)) {
  out.parse_verify_ms[name] = await median(async () => {
    const d = await parseMechanism(text);
    d.verify().free();
    d.free();
  });
  const d = await parseMechanism(text);
  out.verify_ms[name] = await median(() => d.verify().free());
  d.free();
}
const N = 200000;
const words = Array.from({ length: 1024 }, (_, i) => `word${i}`);
const olh = (await parseMechanism(docs.olh_g4)).verify();
const krr = (await parseMechanism(docs.krr4_baseline)).verify();
const tOlh = await median(() => { for (let i = 0; i < N; i++) olh.perturb(words[i & 1023]); }, 5);
const tKrr = await median(() => { for (let i = 0; i < N; i++) krr.perturbIndex(i & 3); }, 5);
out.olh_perturb_per_s = N / tOlh * 1000;
out.krr4_perturb_index_per_s = N / tKrr * 1000;
out.olh_over_krr_time = tOlh / tKrr;
console.log(JSON.stringify(out, null, 1));
