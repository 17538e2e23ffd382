// Headless-Chromium benchmark of the wasm package (see benches/browser/index.html).
//
//   node benches/browser/bench.mjs [BASE_URL] [--n N] [--reps R] [--single S] [--ks 2,21,256] [--kind matrix|krr] [--out FILE]
//
// BASE_URL is a server whose root is the repository root (scripts/bench.sh starts one);
// without it this script starts `python3 -m http.server --bind 127.0.0.1` itself.
// Prints the page's results as one JSON object (and writes it to --out if given).
import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveFolder } from '../../scripts/net.mjs';
import { benchPage } from './chromium-page.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : dflt;
};
let base = argv.find((a) => /^https?:\/\//.test(a));
if (!['matrix', 'krr'].includes(opt('kind', 'matrix'))) {
  console.error(`--kind must be matrix or krr, got ${opt('kind')}`);
  process.exit(2);
}

let server = null;
if (!base) {
  server = await serveFolder(repo);
  base = server.base;
}

const q = new URLSearchParams({
  n: opt('n', '1000000'), reps: opt('reps', '5'), single: opt('single', '1000000'), ks: opt('ks', '2,21,256'), kind: opt('kind', 'matrix'),
});
const url = `${base.replace(/\/$/, '')}/benches/browser/index.html?${q}`;
let results;
try {
  ({ results } = await benchPage(url));
  results.url = url;
} finally {
  if (server) server.stop();
}
const text = JSON.stringify(results, null, 2);
console.log(text);
const outFile = opt('out', null);
if (outFile) writeFileSync(outFile, text + '\n');
if (!results.ok) process.exitCode = 1;
