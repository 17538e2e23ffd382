// Verification off the page's thread in headless Chromium: verifyAsync and
// verifyContinuousAsync start the package's module Worker (js/verify-worker.js) from the
// URL next to js/offthread.js; while the slowest documents the default budget accepts are
// parsed and verified the page runs no task longer than 50 ms (the Long Tasks API, beside
// a setInterval lag probe), and the synchronous path, the control, does; the answers are
// the synchronous path's; verify() refuses them with `needs_async`; abort terminates the
// worker. Skipped when Chromium or playwright-core is absent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { skip, servedSite, pageResult, requestsOf, PAGE_PROBE } from './chromium.mjs';
import { DOCUMENTS } from '../../benches/wasm/cost-documents.mjs';

const STALL_MS = 50;

/** The documents, served as files: a dense RR of 1024² (0.2–0.5 s), an SRLIP audit, the Gaussian on 491 points. */
const DOCS = {
  '/matrix.json': DOCUMENTS.matrix(1024),
  '/srlip.json': DOCUMENTS.srlip(6),
  '/gaussian.json': DOCUMENTS.gaussian(491),
};

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body><script type="module">
  import { parseMechanism, verifyAsync } from '/js/privlift.js';
  import { parseContinuousMechanism, verifyContinuousAsync } from '/js/continuous.js';
  import { unlimited } from '/js/common.js';
${PAGE_PROBE}
  const bytes = async (path) => new Uint8Array(await (await fetch(path)).arrayBuffer());
  const out = { docs: {} };
  try {
  const cases = [
    ['/matrix.json', parseMechanism, verifyAsync, { maxLip: 60 }],
    ['/srlip.json', parseMechanism, verifyAsync, { maxLip: 60 }],
    // No policy: a policy limit is one more audit, and 491 points are then above the default budget.
    ['/gaussian.json', parseContinuousMechanism, verifyContinuousAsync, undefined],
  ];
  for (const [path, parse, verifyOff, policy] of cases) {
    const text = await bytes(path);
    const off = await probedQuiet(() => verifyOff(text, policy), (m) => m.free());
    const m = off.value;
    const doc = await parse(text, policy);
    let refused = null;
    try { doc.verify(policy).free(); } catch (e) { refused = e.code; }
    const on = await probed(async () => { await sleep(20); const v = unlimited(() => doc.verify(policy)); await sleep(20); return v; });
    const sync = on.value;
    const same = JSON.stringify(await m.verification()) === JSON.stringify(sync.verification())
      && (m.kind === 'gaussian'
        ? String(await m.perturbManySeededForTesting([20000, 60000], 5n)) === String(sync.perturbManySeededForTesting([20000, 60000], 5n))
        : String(await m.perturbIndicesSeededForTesting([0, 1, 2, 3], 5n)) === String(sync.perturbIndicesSeededForTesting([0, 1, 2, 3], 5n)));
    out.docs[path] = { attempts: off.attempts, worstMs: off.worstMs, controlLong: on.long, refused, same };
    m.free(); sync.free(); doc.free();
  }
  // Aborted 5 ms after the Worker starts (progress 0): inside the parse and verification of
  // a dense 1024 × 1024 document on any machine, where a delay from the call could outlast
  // a fast machine's whole verification.
  const controller = new AbortController();
  let a = null;
  const abortSoon = (f) => { if (f === 0) setTimeout(() => { a = performance.now(); controller.abort(); }, 5); };
  const running = verifyAsync(await bytes('/matrix.json'), undefined, { signal: controller.signal, onProgress: abortSoon });
  const err = await running.then(() => null, (e) => e);
  out.abort = { name: err && err.name, ms: a === null ? null : performance.now() - a };
  } catch (e) { out.error = String(e); }
  window.__offverify = out;
</script></body></html>`;

const site = servedSite(
  { '/': ['.html', PAGE], ...Object.fromEntries(Object.entries(DOCS).map(([path, text]) => [path, ['.json', text]])) },
  ['js', 'pkg', 'pkg-continuous'],
);

test('Chromium: verifyAsync and verifyContinuousAsync verify in the package\'s Worker; the page never stalls > 50 ms', { skip, timeout: 240_000 }, async () => {
  const r = await pageResult(site, '/', '__offverify', 230_000);
  assert.equal(r.error, undefined);
  assert.ok(site.requests.includes('/js/verify-worker.js'), 'the worker was started from the URL next to js/offthread.js');
  assert.ok(!site.requests.includes('/js/worker.js'), 'the designers\' worker (and its module) is not loaded to verify');
  for (const wasm of ['/pkg/privlift_bg.wasm', '/pkg-continuous/privlift_continuous_bg.wasm']) {
    assert.equal(requestsOf(site, wasm), 1, `${wasm}: the worker instantiates the module the page compiled`);
  }
  for (const [path, d] of Object.entries(r.docs)) {
    assert.equal(d.refused, 'needs_async', `${path}: the synchronous verify() refuses it`);
    // The control, on the two slowest (the SRLIP audit, verified after them, runs optimised code).
    if (path !== '/srlip.json') {
      assert.ok(d.controlLong.some((ms) => ms > STALL_MS), `${path}: the synchronous verification made no long task: ${JSON.stringify(d)}`);
    }
    assert.deepEqual(d.attempts.at(-1), [], `${path}: long tasks (ms) during every attempt: ${JSON.stringify(d)}`);
    assert.ok(d.same, `${path}: the off-thread answers equal the synchronous ones`);
  }
  assert.equal(r.abort.name, 'AbortError');
  assert.ok(r.abort.ms < STALL_MS, `rejected ${r.abort.ms} ms after abort()`);
});
