// A design given up on the calling thread at INLINE_DESIGN_LP_MS, counted from the call
// (js/design.js `designedHere`): it runs in the worker and answers with the synchronous
// document, progress 0 told once.
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

test('a design given up at its deadline runs in the worker, with the synchronous document', { timeout: 60_000 }, async () => {
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
  assert.equal(fractions.filter((f) => f === 0).length, 1, 'progress 0 told once');
  assert.equal(fractions.at(-1), 1);
  assert.equal(slow.value, synchronous('rr-lip', lp(6)), 'the worker\'s document');
  // A closed form of the same method still runs here.
  const request = { prior: { p: skewed(3) }, epsilon: 3 }; // eq 19 holds
  const { value, here } = await answered(() => design('rr-lip', request));
  assert.ok(here, 'rr-lip by eq 19 did not run here');
  assert.equal(value, synchronous('rr-lip', request));
});
