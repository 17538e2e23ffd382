// Reads a document file with the npm package and verifies it at the default policy: the
// seconds to parse and to verify (or refuse), and the process's peak memory (Node's
// `process.resourceUsage().maxRSS`).
//
//   node benches/wasm/dense-refusal.mjs FILE
import { readFile } from 'node:fs/promises';
import { parseMechanism } from 'privlift';

const bytes = await readFile(process.argv[2]);
const t0 = performance.now();
let outcome = 'verified';
let t1 = t0;
try {
  const doc = await parseMechanism(bytes);
  t1 = performance.now();
  doc.verify({});
} catch (e) {
  outcome = e.code ?? String(e);
}
const t2 = performance.now();
console.log(JSON.stringify({
  bytes: bytes.length, parse: (t1 - t0) / 1000, total: (t2 - t0) / 1000, outcome,
  maxRssMB: process.resourceUsage().maxRSS / 1024,
}));
