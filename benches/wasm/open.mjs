// Open-domain documents in wasm (Node's V8, the engine of Chromium): the time of
// parseMechanism + verify (the first, and the median after a warm-up), and of verify alone, of
// open documents (goal: ≤ 1 ms; a sparse prior of 0 to 4,096 values), beside a 4-symbol krr
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
  // A sparse prior of 0, 100, 1,000 and 4,096 (the most) listed values, half the mass.
  ...Object.fromEntries([0, 100, 1000, 4096].map((k) => [`olh_g4_prior_${k}`, open('olh', { kind: 'olh', epsilon: 1, g: 4 },
    k ? { values: Array.from({ length: k }, (_, i) => `word${i}`), p: Array(k).fill(0.5 / k) } : undefined)])),
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

const out = { first_parse_verify_ms: {}, parse_verify_ms: {}, verify_ms: {} };
// The first parse + verify of each document, before any other call on it (what a page pays
// once): one fresh timing each, the documents in turn.
for (const [name, text] of Object.entries(docs)) {
  const s = performance.now();
  const d = await parseMechanism(text);
  d.verify().free();
  out.first_parse_verify_ms[name] = performance.now() - s;
  d.free();
}
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
