// The designers off the page's thread in headless Chromium: 'privlift/design' starts its
// module Worker (js/worker.js) from the URL next to it; while a long design runs the page's
// thread runs no task longer than 50 ms (the Long Tasks API, beside a setInterval lag
// probe); abort terminates the worker; progress only grows; the result is the synchronous
// path's. Skipped when Chromium or playwright-core is absent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { skip, servedSite, pageResult, requestsOf, PAGE_PROBE } from './chromium.mjs';

const STALL_MS = 50;

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body><script type="module">
  import { design, designContinuous, init } from '/js/design.js';
  import * as raw from '/pkg-design/privlift_design.js';
  const LONG = { method: 'gaussian-lip', domain: { lo: 0, hi: 300, step: 1 },
    prior: { gaussian: { mean: 150, sd: 40 } }, epsilon: 1, delta: 1e-6 };
  const LONGER = { ...LONG, domain: { lo: 0, hi: 900, step: 1 }, prior: { gaussian: { mean: 450, sd: 100 } } };
  const n = 12, p = Array.from({ length: n }, (_, i) => (i + 1) / (n * (n + 1) / 2));
  const ORR = { prior: { labels: p.map((_, i) => 'v' + i), p }, epsilon: 1 };
  const json = (doc) => { try { return doc.toJson(); } finally { doc.free(); } };
${PAGE_PROBE}
  const out = {};
  const off = await probedQuiet(async () => {
    const continuous = [];
    const t = performance.now();
    const doc = await designContinuous(LONG, { onProgress: (f) => continuous.push(f) });
    return { doc, continuous, tookMs: performance.now() - t };
  });
  out.off = { worstMs: off.worstMs, long: off.long, attempts: off.attempts, tookMs: off.value.tookMs, continuous: off.value.continuous };
  const orr = [];
  const offOrr = await design('orr-lip', ORR, { onProgress: (f) => orr.push(f) });
  out.orr = orr;
  await init();
  const on = await probed(async () => { await sleep(20); const v = json(raw.designContinuous(JSON.stringify(LONG))); await sleep(20); return v; });
  out.on = { worstMs: on.worstMs, long: on.long };
  out.same = off.value.doc === on.value && offOrr === json(raw.design('orr-lip', JSON.stringify(ORR)));
  const controller = new AbortController();
  let started;
  const startedP = new Promise((r) => { started = r; });
  const running = designContinuous(LONGER, { signal: controller.signal, onProgress: (f) => f === 0 && started() });
  await startedP;
  await sleep(300);
  const a = performance.now();
  controller.abort();
  const err = await running.then(() => null, (e) => e);
  out.abort = { name: err && err.name, ms: performance.now() - a };
  window.__offthread = out;
</script></body></html>`;

const site = servedSite({ '/': ['.html', PAGE] }, ['js', 'pkg', 'pkg-design']);

test('Chromium: the designers run in the package\'s module Worker; the page never stalls > 50 ms', { skip, timeout: 180_000 }, async () => {
  const r = await pageResult(site, '/', '__offthread', 170_000);
  assert.ok(site.requests.includes('/js/worker.js'), 'the worker was started from the URL next to js/offthread.js');
  assert.equal(requestsOf(site, '/pkg-design/privlift_design_bg.wasm'), 1,
    'the worker instantiates the module the page compiled: one download');
  // The control: the synchronous path blocks the page for the whole design.
  assert.ok(r.on.long.some((ms) => ms > STALL_MS), `the synchronous design made no long task: ${JSON.stringify(r.on)}`);
  assert.deepEqual(r.off.long, [], `long tasks (ms) during every attempt: ${JSON.stringify(r.off)}`);
  for (const fractions of [r.off.continuous, r.orr]) {
    assert.equal(fractions[0], 0, `${fractions}`);
    assert.equal(fractions.at(-1), 1, `${fractions}`);
    assert.ok(fractions.some((f) => f > 0 && f < 1), `no report from the wasm side: ${fractions}`);
    for (let k = 1; k < fractions.length; k++) assert.ok(fractions[k] > fractions[k - 1], `${fractions}`);
  }
  assert.ok(r.same, 'the off-thread documents equal the synchronous ones');
  assert.equal(r.abort.name, 'AbortError');
  assert.ok(r.abort.ms < STALL_MS, `rejected ${r.abort.ms} ms after abort()`);
});
