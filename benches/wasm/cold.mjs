// A page's first parse and first verify of a small document, in a fresh V8 each time.
//
//   node benches/wasm/cold.mjs [--runs 41]        (after scripts/build-wasm.sh)
//
// V8 compiles a wasm function the first time it is called (lazy compilation, Liftoff, on
// the calling thread), so the first parseMechanism and verify of a page pay for compiling
// every function on their path: for a 21-symbol document that is nearly all of their time
// (with `--no-wasm-lazy-compilation` both are about 0.2 ms). Chromium's cold loads
// (benches/browser/navigate.mjs, "after ready") measure the same thing among the noise of
// a browser start; here each run is a new Node process (the engine's default flags, not
// the parent's `--no-liftoff`) that loads the module untimed, then times the public path
// once: `parseMechanism(bytes)`, then `doc.verify({})`. Prints one JSON object of medians.
// 41 processes a document: a process's first parse of the 1024-label document is 3–4 ms or
// 7–10 ms (two modes, in every tree, by how V8's background threads share two cores), and
// the median of 15 fell in either mode from one run to the next.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { DOCUMENTS } from './cost-documents.mjs';

/** The documents timed (the cost benchmark's builders: ε = 1, a uniform prior, labels v0…). */
const DOCS = { 'krr-21': () => DOCUMENTS.krr(21), 'matrix-21': () => DOCUMENTS.matrix(21), 'krr-1024': () => DOCUMENTS.krr(1024) };

const argv = process.argv.slice(2);
if (argv[0] === '--child') {
  const { init, parseMechanism } = await import('../../js/privlift.js');
  await init();
  const bytes = new TextEncoder().encode(DOCS[argv[1]]());
  let t = performance.now();
  const doc = await parseMechanism(bytes);
  const parse = performance.now() - t;
  t = performance.now();
  const mechanism = doc.verify({});
  const verify = performance.now() - t;
  mechanism.free();
  doc.free();
  console.log(JSON.stringify({ parse, verify }));
} else {
  const i = argv.indexOf('--runs');
  const runs = i >= 0 ? Number(argv[i + 1]) : 41;
  const median = (a) => { const b = [...a].sort((x, y) => x - y); return b[b.length >> 1]; };
  const self = fileURLToPath(import.meta.url);
  const out = {};
  for (const name of Object.keys(DOCS)) {
    const r = Array.from({ length: runs }, () => JSON.parse(execFileSync(process.execPath, [self, '--child', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })));
    const ms = (f) => `${median(r.map(f)).toFixed(3)} ms`;
    out[name] = { first_parse: ms((x) => x.parse), first_verify: ms((x) => x.verify), both: ms((x) => x.parse + x.verify) };
  }
  console.log(JSON.stringify(out, null, 1));
}
