// The perturbMany benchmark (index.html, workload.mjs) in headless Chromium.
//
//   node benches/perturb-many/chromium.mjs [--n N] [--rounds R] [--ks 2,21,256] [--compare DIR ...]
//
// Serves the repository root itself (and each --compare DIR, another checkout with js/ and
// pkg/ built, under /compare/<i>/<its name>/: the before/after of a change in one page), prints the
// page's lines and then its results as JSON. Run after scripts/build-wasm.sh.
import { createServer } from 'node:http';
import { createReadStream, statSync } from 'node:fs';
import { join, dirname, resolve, extname, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchPage } from '../browser/chromium-page.mjs';

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
  // Cross-origin isolated (COOP + COEP): the page's performance.now() then ticks in 5 µs,
  // not 100 µs (2.5 % of a 4 ms call at k = 256).
  res.writeHead(200, {
    'content-type': types[extname(f)] ?? 'application/octet-stream',
    'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp',
  });
  createReadStream(f).pipe(res);
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const q = new URLSearchParams({ n: opt('n', '1000000'), rounds: opt('rounds', '15'), ks: opt('ks', '2,21,256') });
compare.forEach((_, i) => q.append('compare', `/compare/${i}/${compare[i].split('/').filter(Boolean).pop()}/`));
const url = `http://127.0.0.1:${server.address().port}/benches/perturb-many/index.html?${q}`;

let results;
try {
  let out;
  ({ results, out } = await benchPage(url));
  console.log(out);
} finally {
  server.close();
}
console.log(JSON.stringify(results));
if (!results.ok) process.exitCode = 1;
