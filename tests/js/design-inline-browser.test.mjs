// The designs js/design.js runs on the page's thread, in headless Chromium: the largest it
// allows (tests/js/inline-designs.mjs, at INLINE_DESIGN_CELLS and INLINE_DESIGN_TEXT) run
// there, no Worker is started for them, and the page's thread runs no task longer than
// 50 ms (the Long Tasks API, as tests/js/offthread-browser.test.mjs measures the Worker's
// designs); a design above the bound starts the Worker. The largest LP designs allowed
// there (which may reach their deadline cold and go to the Worker) run no task over 50 ms
// either. Skipped when Chromium or playwright-core is absent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { skip, servedSite, pageResult, PAGE_PROBE } from './chromium.mjs';

const STALL_MS = 50;

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body><script type="module">
  import { design, init } from '/js/design.js';
  import { INLINE_DESIGN_CELLS, INLINE_DESIGN_TEXT } from '/js/offthread.js';
  import { largestInlineDesigns, largestLpDesigns, largestPrior, uniform } from '/inline-designs.mjs';
${PAGE_PROBE}
  await init();
  const here = [];
  for (const { what, method, request } of largestInlineDesigns(INLINE_DESIGN_CELLS, INLINE_DESIGN_TEXT)) {
    // The first attempt of the first design is cold: its code is compiled as it first runs.
    const run = await probedQuiet(() => design(method, request));
    here.push({ what, long: run.long, attempts: run.attempts, worstMs: run.worstMs });
  }
  const workerBefore = performance.getEntriesByType('resource').some((e) => e.name.endsWith('/js/worker.js'));
  await design('krr', { prior: { p: uniform(largestPrior(INLINE_DESIGN_CELLS) + 1) }, epsilon: 1 });
  for (const { what, method, request } of largestLpDesigns(INLINE_DESIGN_CELLS)) {
    const run = await probedQuiet(() => design(method, request));
    here.push({ what, long: run.long, attempts: run.attempts, worstMs: run.worstMs });
  }
  window.__inline = { here, workerBefore };
</script></body></html>`;

const site = servedSite({
  '/': ['.html', PAGE],
  '/inline-designs.mjs': ['.js', readFileSync(new URL('./inline-designs.mjs', import.meta.url), 'utf8')],
}, ['js', 'pkg', 'pkg-design']);

test('Chromium: the largest designs allowed on the page\'s thread run there, no task over 50 ms', { skip, timeout: 180_000 }, async () => {
  const r = await pageResult(site, '/', '__inline', 170_000);
  assert.equal(r.workerBefore, false, 'a Worker was started for a design allowed on the page\'s thread');
  assert.ok(site.requests.includes('/js/worker.js'), 'the design above the bound did not start the Worker');
  for (const { what, long, attempts } of r.here) {
    assert.deepEqual(long.filter((ms) => ms > STALL_MS), [], `${what}: long tasks (ms) in every attempt: ${JSON.stringify(attempts)}`);
  }
});
