// Reads a document file with the npm package and verifies it at the default policy: the
// seconds to parse and to verify (or refuse), and the process's peak memory (Node's
// `process.resourceUsage().maxRSS`) above its peak after loading the module and verifying
// a tiny document, against the document's bytes (the rule: at most 4× for a refusal).
// With WARM, a small document of the same kind, the baseline is taken after verifying
// it and refusing it within a budget of 1 (three times, so that the code the refusal
// runs is loaded and compiled) instead.
//
//   node benches/wasm/dense-refusal.mjs FILE [WARM]
import { readFile } from 'node:fs/promises';
import { parseMechanism } from 'privlift';

const tiny = {
  format: 'privlift-mechanism', version: 1, id: 'tiny', labels: ['a', 'b'], prior: [0.5, 0.5],
  mechanism: { kind: 'matrix', p_y_given_x: [[1, 0], [0, 1]] }, claims: { ldp_x: 100 },
};
const warm = process.argv[3] ? await readFile(process.argv[3]) : null;
for (let i = 0; i < (warm ? 3 : 1); i++) {
  try {
    const small = await parseMechanism(warm ?? tiny);
    try {
      small.verify({});
    } finally {
      small.free();
    }
  } catch {
    // An identity leaks without bound: refused after the whole verification ran.
  }
  if (warm) {
    // And refused as it is read, as FILE will be.
    await parseMechanism(warm, { maxVerifyWork: 1 }).then((d) => d.free(), () => {});
  }
}
const baseline = process.resourceUsage().maxRSS * 1024;

const bytes = await readFile(process.argv[2]);
const t0 = performance.now();
let outcome = 'verified';
let t1 = t0;
try {
  const doc = await parseMechanism(bytes, {});
  t1 = performance.now();
  doc.verify({});
} catch (e) {
  t1 = t1 === t0 ? performance.now() : t1;
  outcome = e.code ?? String(e);
}
const t2 = performance.now();
const peak = process.resourceUsage().maxRSS * 1024;
console.log(JSON.stringify({
  bytes: bytes.length, parse: (t1 - t0) / 1000, total: (t2 - t0) / 1000, outcome,
  baselineMB: baseline / 2 ** 20, peakMB: peak / 2 ** 20, aboveBaseline: +((peak - baseline) / bytes.length).toFixed(2),
}));
