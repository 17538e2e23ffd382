// Headless-Chromium benchmark of the open-domain kinds in wasm (benches/browser/open.html):
// strings perturbed per second and the verification of open documents, beside k-RR.
//
//   node benches/browser/open.mjs [--n N] [--reps R] [--out FILE]
//
// Serves the repository root with `privlift serve` (target/release/privlift, or $PRIVLIFT_CLI);
// needs pkg/ (scripts/build-wasm.sh). Prints the page's lines, then its results as JSON.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchPage } from './chromium-page.mjs';
import { firstLine } from '../../tests/e2e/helpers.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const argv = process.argv.slice(2);
const opt = (name, dflt) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : dflt; };
const cli = resolve(repo, process.env.PRIVLIFT_CLI ?? 'target/release/privlift');
const server = spawn(cli, ['serve', '--dir', repo, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
let results;
try {
  const base = await firstLine(server, /(http:\/\/127\.0\.0\.1:\d+\/)/, 'server');
  const q = new URLSearchParams({ n: opt('n', '1000000'), reps: opt('reps', '7') });
  let out;
  ({ results, out } = await benchPage(`${base}benches/browser/open.html?${q}`));
  console.log(out);
} finally {
  server.kill();
}
const text = JSON.stringify(results, null, 1);
console.log(text);
if (opt('out', null)) writeFileSync(opt('out'), text + '\n');
if (!results.ok) process.exitCode = 1;
