// Headless-Chromium benchmark of the wasm package (see benches/browser/index.html).
//
//   node benches/browser/bench.mjs [BASE_URL] [--n N] [--reps R] [--single S] [--ks 2,21,256] [--kind matrix|krr] [--out FILE]
//
// BASE_URL is a server whose root is the repository root (scripts/bench.sh starts one);
// without it this script starts `python3 -m http.server --bind 127.0.0.1` itself.
// Prints the page's results as one JSON object (and writes it to --out if given).
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';

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

async function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => res(p)); });
  });
}

let server = null;
if (!base) {
  const port = await freePort();
  server = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1'], { cwd: repo, stdio: 'ignore' });
  base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 50; i++) {
    try { if ((await fetch(base + '/package.json')).ok) break; } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
}

const q = new URLSearchParams({
  n: opt('n', '1000000'), reps: opt('reps', '5'), single: opt('single', '1000000'), ks: opt('ks', '2,21,256'), kind: opt('kind', 'matrix'),
});
const url = `${base.replace(/\/$/, '')}/benches/browser/index.html?${q}`;
const userDataDir = mkdtempSync(join(tmpdir(), 'pw-bench-'));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
let results;
try {
  const page = await context.newPage();
  page.on('pageerror', (e) => { console.error('[pageerror]', e); process.exitCode = 1; });
  page.on('console', (m) => { if (m.type() === 'error') console.error('[console]', m.text()); });
  await page.goto(url);
  await page.waitForFunction(() => window.__bench !== undefined, null, { timeout: 600_000, polling: 500 });
  results = await page.evaluate(() => window.__bench);
  results.browser = context.browser()?.version() ?? null;
  results.url = url;
} finally {
  await context.close();
  rmSync(userDataDir, { recursive: true, force: true });
  if (server) server.kill();
}
const text = JSON.stringify(results, null, 2);
console.log(text);
const outFile = opt('out', null);
if (outFile) writeFileSync(outFile, text + '\n');
if (!results.ok) process.exitCode = 1;
