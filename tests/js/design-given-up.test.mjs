// A design given up on the calling thread at INLINE_DESIGN_LP_MS (js/design.js `givenUp`):
// it runs in the worker, and so do the same method's later designs with as large a bound;
// a smaller one of that method, and other methods, still run here. Its own file: the memory
// lives as long as the module, one per process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as raw from '../../pkg-design/privlift_design.js';
import { design, init } from '../../js/design.js';
import { INLINE_DESIGN_LP_MS } from '../../js/offthread.js';
import { answered } from './stall-probe.mjs';
import { skewed } from './inline-designs.mjs';

/** rr-lip's LP over `k` symbols (eq 19 fails at ε 0.3 on a skewed prior). */
const lp = (k) => ({ prior: { p: skewed(k) }, epsilon: 0.3 });

/** Keeps this thread busy `ms` milliseconds. */
function busy(ms) {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

/** The document `raw.design` gives synchronously. */
function synchronous(method, request) {
  const doc = raw.design(method, JSON.stringify(request));
  try {
    return doc.toJson();
  } finally {
    doc.free();
  }
}

test('a design given up at its deadline sends the same method\'s designs as large to the worker', { timeout: 60_000 }, async () => {
  await init();
  // The deadline counts from the call: a start that takes longer than it gives the LP up.
  const fractions = [];
  const onProgress = (f) => {
    fractions.push(f);
    if (f === 0) busy(INLINE_DESIGN_LP_MS + 5);
  };
  const slow = await answered(() => design('rr-lip', lp(6), { onProgress }));
  assert.ok(!slow.here, 'the design given up ran here');
  assert.equal(fractions[0], 0, 'started here first');
  assert.equal(fractions.at(-1), 1);
  assert.equal(slow.value, synchronous('rr-lip', lp(6)), 'the worker\'s document');

  for (const request of [lp(6), lp(8)]) {
    const { value, here } = await answered(() => design('rr-lip', request));
    assert.ok(!here, `an LP over ${request.prior.p.length} symbols ran here after one over 6 was given up`);
    assert.equal(value, synchronous('rr-lip', request));
  }
  // Smaller bounds: rr-lip where eq 19 holds (a closed form, no deadline read), and k-RR.
  for (const [method, request] of [
    ['rr-lip', { prior: { p: skewed(3) }, epsilon: 3 }],
    ['krr', { prior: { p: skewed(64) }, epsilon: 1 }],
  ]) {
    const { value, here } = await answered(() => design(method, request));
    assert.ok(here, `${method} over ${request.prior.p.length} symbols did not run here`);
    assert.equal(value, synchronous(method, request));
  }
});
