// Headless-Chromium benchmark of the open-domain kinds in wasm (benches/browser/open.html):
// strings perturbed per second and the verification of open documents, beside k-RR.
// With --node, the perturbation part (open.bench.mjs) in this Node process instead. With
// --compare DIR (repeatable; a checkout under the repository root, with js/ and pkg/ built,
// e.g. a copy of another branch's in target/), perturbBatch alone, this checkout's package
// against each DIR's, alternated call by call in one page.
//
//   node benches/browser/open.mjs [--node] [--n N] [--reps R] [--compare DIR ...] [--out FILE]
//
// Serves the repository root with `privlift serve` (target/release/privlift, or $PRIVLIFT_CLI);
// needs pkg/ (scripts/build-wasm.sh). Prints the page's lines, then its results as JSON.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchPage } from './chromium-page.mjs';
import { firstLine } from '../../tests/e2e/helpers.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const argv = process.argv.slice(2);
const opt = (name, dflt) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : dflt; };
let results;
if (argv.includes('--node')) {
  const api = await import('../../js/privlift.js');
  const { HANDLE } = await import('../../js/common.js');
  const { run } = await import('./open.bench.mjs');
  const n = Number(opt('n', '1000000'));
  results = { ok: true, node: process.version, ...await run({ api, handleOf: (m) => m[HANDLE], n, reps: Number(opt('reps', '7')), log: console.log }) };
} else {
  results = await inChromium();
}
const text = JSON.stringify(results, null, 1);
console.log(text);
if (opt('out', null)) writeFileSync(opt('out'), text + '\n');
if (!results.ok) process.exitCode = 1;

/** The page's results, served by `privlift serve` (target/release/privlift, or $PRIVLIFT_CLI). */
async function inChromium() {
  const cli = resolve(repo, process.env.PRIVLIFT_CLI ?? 'target/release/privlift');
  const server = spawn(cli, ['serve', '--dir', repo, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const base = await firstLine(server, /(http:\/\/127\.0\.0\.1:\d+\/)/, 'server');
    const q = new URLSearchParams({ n: opt('n', '1000000'), reps: opt('reps', '7') });
    for (const [i, a] of argv.entries()) if (a === '--compare') q.append('compare', `/${relative(repo, resolve(argv[i + 1]))}/`);
    const { results: r, out } = await benchPage(`${base}benches/browser/open.html?${q}`);
    console.log(out);
    return r;
  } finally {
    server.kill();
  }
}
