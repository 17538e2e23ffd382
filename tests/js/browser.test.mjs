// The npm package in a real browser: headless Chromium (Debian's /usr/bin/chromium, driven
// by playwright-core, which downloads no browser) loads js/privlift.js as a plain
// <script type="module"> from a server on 127.0.0.1, with an import map for the bare name
// `privlift`. Checks the default .wasm URL (relative to the module), crypto.getRandomValues
// sampling, and PrivliftError in the page. Skipped when Chromium or playwright-core is absent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { skip, servedSite, pageResult, requestsOf } from './chromium.mjs';

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>privlift</title>
<script type="importmap">{"imports": {"privlift": "/js/privlift.js"}}</script></head>
<body><pre id="out">loading…</pre>
<script type="module">
  import { parseMechanism, PrivliftError } from 'privlift';
  const e = Math.log(2), d = Math.exp(e) + 2;
  const P = [0, 1, 2].map((x) => [0, 1, 2].map((y) => (x === y ? Math.exp(e) / d : 1 / d)));
  const doc = (claims) => ({ format: 'privlift-mechanism', version: 1, id: 'krr3',
    labels: ['a', 'b', 'c'], prior: [1 / 3, 1 / 3, 1 / 3],
    mechanism: { kind: 'matrix', p_y_given_x: P }, claims });
  const mech = (await parseMechanism(doc({ ldp_x: e }))).verify({ maxLdpX: 1 });
  const n = 30000;
  const ys = mech.perturbIndices(new Uint32Array(n));
  const counts = [0, 0, 0];
  for (const y of ys) counts[y]++;
  const receipt = mech.receipt(mech.perturb('b'));
  let liar = null;
  try {
    (await parseMechanism(doc({ ldp_x: 0.1 }))).verify({});
  } catch (err) {
    liar = { isPrivliftError: err instanceof PrivliftError, code: err.code, name: err.name };
  }
  let badArg = null;
  try { mech.perturbIndex(NaN); } catch (err) { badArg = { code: err.code, message: err.message }; }
  window.__privlift = { ok: true, n, counts, receipt, liar, badArg };
  document.getElementById('out').textContent = JSON.stringify(window.__privlift, null, 2);
</script></body></html>`;

// A module Worker (no import maps in workers: paths). `entry` is '/js/privlift.js' (the .wasm
// fetched next to it by init()) or '/js/inline.js' (the .wasm inside the JS).
const WORKER = `
  const entry = new URL(location.href).searchParams.get('entry');
  const { parseMechanism, isInitialized } = await import(entry);
  const readyAtImport = isInitialized();
  const mech = (await parseMechanism({ format: 'privlift-mechanism', version: 1, id: 'w',
    labels: ['a', 'b', 'c'], prior: [0.2, 0.5, 0.3], mechanism: { kind: 'krr', epsilon: 1 },
    claims: { ldp_x: 1 } })).verify({ maxLdpX: 1 });
  const ys = mech.perturbIndices(new Uint32Array(20000));
  const kept = ys.filter((y) => y === 0).length;
  postMessage({ entry, readyAtImport, kept, n: ys.length, receipt: mech.receipt(mech.perturb('c')).entries.length });
`;

const WORKER_PAGE = `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body><script type="module">
  const run = (entry) => new Promise((resolve, reject) => {
    const w = new Worker('/worker.js?entry=' + encodeURIComponent(entry), { type: 'module' });
    w.onmessage = (e) => { resolve(e.data); w.terminate(); };
    w.onerror = (e) => reject(new Error(e.message || 'worker error'));
  });
  window.__workers = await Promise.all([run('/js/privlift.js'), run('/js/inline.js')]);
</script></body></html>`;

// An open-domain document: 'privlift' loads its own module (pkg-open/) for it.
const OPEN_PAGE = `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body><script type="module">
  import { parseMechanism, isOpenInitialized, OpenMechanism } from '/js/privlift.js';
  const before = isOpenInitialized();
  const mech = (await parseMechanism({ format: 'privlift-mechanism', version: 1, id: 'fruit',
    domain: { kind: 'strings', max_bytes: 32 }, prior: { values: ['apple', 'banana'], p: [0.5, 0.3] },
    mechanism: { kind: 'olh', epsilon: 1, g: 4, hash: 'xxh32', hash_version: 1 }, claims: { ldp_x: 1 } })).verify({});
  const batch = mech.perturbBatch(['apple', 'kiwi', 'banana']);
  window.__open = { before, after: isOpenInitialized(), open: mech instanceof OpenMechanism, n: batch.length,
    inRange: Array.from(batch.y).every((y) => y < 4) };
</script></body></html>`;

const site = servedSite(
  { '/': ['.html', PAGE], '/index.html': ['.html', PAGE], '/workers.html': ['.html', WORKER_PAGE], '/worker.js': ['.js', WORKER],
    '/open.html': ['.html', OPEN_PAGE] },
  ['js', 'pkg', 'pkg-open'],
);

test('the package runs in headless Chromium as <script type=module>', { skip, timeout: 60_000 }, async () => {
  const r = await pageResult(site, '/', '__privlift');
  assert.ok(r.ok);
  assert.ok(site.requests.includes('/pkg/privlift_bg.wasm'), 'the .wasm was fetched from its default URL');
  assert.ok(!site.requests.some((u) => u.startsWith('/pkg-open/')), 'a page of discrete documents fetches no open-domain module');
  assert.ok(!site.requests.includes('/js/offthread.js'), 'a page verifying on its own thread never loads the Workers\' code');
  const row = [0.5, 0.25, 0.25];
  for (let y = 0; y < 3; y++) {
    const sd = Math.sqrt(r.n * row[y] * (1 - row[y]));
    assert.ok(Math.abs(r.counts[y] - r.n * row[y]) <= 5 * sd, `counts ${r.counts}`);
  }
  assert.equal(r.receipt.entries.length, 3);
  for (const e of r.receipt.entries) {
    assert.ok(e.lift >= r.receipt.minLiftBound && e.lift <= r.receipt.maxLiftBound);
  }
  assert.deepEqual(r.liar, { isPrivliftError: true, code: 'claim_violated', name: 'PrivliftError' });
  assert.equal(r.badArg.code, 'invalid_argument');
  assert.match(r.badArg.message, /`i`/);
});

test('the package runs in a module Web Worker in Chromium, from its .wasm file and from privlift/inline', { skip, timeout: 60_000 }, async () => {
  site.requests.length = 0;
  const [file, inline] = await pageResult(site, '/workers.html', '__workers');
  assert.equal(file.readyAtImport, false, 'the plain entry loads on first use');
  assert.ok(site.requests.includes('/pkg/privlift_inline.js'));
  assert.equal(requestsOf(site, '/pkg/privlift_bg.wasm'), 1,
    'only the plain entry fetches the .wasm; the inline one loads its own bytes');
  // k-RR, |X| = 3, ε = 1: P(y = x) = e/(e + 2); 5 standard deviations.
  const p = Math.E / (Math.E + 2);
  for (const r of [file, inline]) {
    const sd = Math.sqrt(r.n * p * (1 - p));
    assert.ok(Math.abs(r.kept - r.n * p) <= 5 * sd, `${r.entry}: ${r.kept} of ${r.n}`);
    assert.equal(r.receipt, 3);
  }
});

test('an open-domain document loads the open-domain module, once, in Chromium', { skip, timeout: 60_000 }, async () => {
  site.requests.length = 0;
  const r = await pageResult(site, '/open.html', '__open');
  assert.deepEqual(r, { before: false, after: true, open: true, n: 3, inRange: true });
  assert.equal(requestsOf(site, '/pkg-open/privlift_open_bg.wasm'), 1);
  assert.equal(requestsOf(site, '/pkg-open/privlift_open.js'), 1);
});
