// The perturbMany benchmark (index.html, workload.mjs) in headless Chromium.
//
//   node benches/perturb-many/chromium.mjs [--n N] [--rounds R] [--ks 2,21,256] [--compare DIR ...]
//
// Serves the repository root itself (and each --compare DIR, another checkout with js/ and
// pkg/ built, under /compare/<i>/<its name>/: the before/after of a change in one page), prints the
// page's lines and then its results as JSON. Run after scripts/build-wasm.sh.
import { chromium } from 'playwright-core';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync, createReadStream, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve, extname, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const argv = process.argv.slice(2);
const opt = (name, dflt) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : dflt; };
const compare = argv.flatMap((a, i) => (a === '--compare' ? [resolve(argv[i + 1])] : []));

const types = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };
/** A file under `root` for a URL path, or null (never outside the root). */
function file(root, path) {
  const p = normalize(join(root, decodeURIComponent(path)));
  if (!p.startsWith(root)) return null;
  try { return statSync(p).isFile() ? p : null; } catch { return null; }
}
const server = createServer((req, res) => {
  const path = new URL(req.url, 'http://x').pathname;
  const m = /^\/compare\/(\d+)\/[^/]+(\/.*)$/.exec(path);
  const f = m ? (compare[Number(m[1])] ? file(compare[Number(m[1])], m[2]) : null) : file(repo, path);
  if (!f) { res.writeHead(404).end(); return; }
  res.writeHead(200, { 'content-type': types[extname(f)] ?? 'application/octet-stream' });
  createReadStream(f).pipe(res);
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const q = new URLSearchParams({ n: opt('n', '1000000'), rounds: opt('rounds', '15'), ks: opt('ks', '2,21,256') });
compare.forEach((_, i) => q.append('compare', `/compare/${i}/${compare[i].split('/').filter(Boolean).pop()}/`));
const url = `http://127.0.0.1:${server.address().port}/benches/perturb-many/index.html?${q}`;

const userDataDir = mkdtempSync(join(tmpdir(), 'pw-perturb-many-'));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
         '--disable-component-update', '--disable-sync'],
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
  console.log(await page.evaluate(() => document.getElementById('out').textContent));
} finally {
  await context.close();
  rmSync(userDataDir, { recursive: true, force: true });
  server.close();
}
console.log(JSON.stringify(results));
if (!results.ok) process.exitCode = 1;
