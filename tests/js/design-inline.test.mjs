// Which designs run on the calling thread (js/design.js `designedHere`): one the designer
// bounds before it starts by at most INLINE_DESIGN_CELLS, from a request of at most
// INLINE_DESIGN_TEXT characters, whose LPs end within INLINE_DESIGN_LP_MS, answers without
// a turn of the event loop and starts no worker; the largest of them stalls the event loop
// no more than 50 ms; every other design (above a bound, an LP past its deadline, or with no
// bound) runs in the package's worker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import * as raw from '../../pkg-design/privlift_design.js';
import { design, init, terminateIdleWorkers } from '../../js/design.js';
import { INLINE_DESIGN_CELLS, INLINE_DESIGN_TEXT } from '../../js/offthread.js';
import { answered, probed, threads } from './stall-probe.mjs';
import {
  largestInlineDesigns, largestLpDesigns, largestPrior, largestLpPrior, largestLinearSecrets, largestSearchInputs,
  denseJoint, skewed, sparseJoint, uniform,
} from './inline-designs.mjs';

/** The threads of this process once idle workers have gone. */
async function idleThreads() {
  terminateIdleWorkers();
  await sleep(200);
  return threads();
}

const K_HERE = largestPrior(INLINE_DESIGN_CELLS);

test('the largest designs allowed on the calling thread stall the event loop no more than 50 ms, the first ones cold', { timeout: 120_000 }, async () => {
  await init();
  const designs = [...largestInlineDesigns(INLINE_DESIGN_CELLS, INLINE_DESIGN_TEXT), ...largestLpDesigns(INLINE_DESIGN_CELLS)];
  for (const { what, method, request, lp } of designs) {
    // The first designs of this process: cold, their code compiled as it first runs. Run
    // here, not in the worker: only then is this the calling thread's wait. An LP may
    // reach its deadline cold (and then run in the worker): its wait here is still bounded.
    const { value, gaps, maxDelayMs } = await probed(() => answered(() => design(method, request)));
    assert.ok(value.here || lp, `${what} did not run here`);
    assert.deepEqual(gaps.filter((g) => g.blocking), [], `${what}: the event loop stalled (largest delay ${maxDelayMs.toFixed(1)} ms): ${JSON.stringify(gaps)}`);
  }
});

/**
 * Whether `designWithin` starts `method` on `request` here: an LP deadline of 0 stops a
 * timed design at once, after `started()`; a closed form runs without it.
 */
function startsHere(method, request) {
  let started = false;
  const doc = raw.designWithin(method, JSON.stringify(request), INLINE_DESIGN_CELLS, 0, () => { started = true; });
  doc?.free();
  return started || doc !== undefined;
}

test('the tests\' largest bounded designs are the largest the designer starts here', () => {
  const k = largestLpPrior(INLINE_DESIGN_CELLS);
  assert.ok(k >= 8, `an rr-lip LP over ${k} symbols`);
  assert.ok(startsHere('rr-lip', { prior: { p: skewed(k) }, epsilon: 0.3 }));
  assert.ok(!startsHere('rr-lip', { prior: { p: skewed(k + 1) }, epsilon: 0.3 }));
  // A linear reduction's closed form (LP 12 on |x − y| is the north-west plan of linear-tv).
  const ns = largestLinearSecrets(INLINE_DESIGN_CELLS, 16);
  assert.ok(ns >= 8, `a linear reduction over ${ns} × 16`);
  for (const method of ['linear-tv', 'linear-distance']) {
    assert.ok(startsHere(method, { joint: denseJoint(ns, 16), alpha: 0.5 }), `${method} over ${ns} × 16`);
    assert.ok(!startsHere(method, { joint: denseJoint(ns + 1, 16), alpha: 0.5 }), `${method} over ${ns + 1} × 16`);
  }
  assert.ok(startsHere('orr-ldp', { joint: denseJoint(2, 6), epsilon: 0.5 }));
  assert.ok(!startsHere('orr-ldp', { joint: denseJoint(2, 7), epsilon: 0.5 }));
  for (const ns of [2, 5]) {
    const nx = largestSearchInputs(INLINE_DESIGN_CELLS, ns);
    assert.ok(nx >= 17, `a vertex search over ${ns} × ${nx}`);
    const request = (nx) => ({ joint: denseJoint(ns, nx), eps_l: 0.5, eps_u: 0.5 });
    assert.ok(startsHere('orr-alip', request(nx)), `orr-alip over ${ns} × ${nx}`);
    assert.ok(!startsHere('orr-alip', request(nx + 1)), `orr-alip over ${ns} × ${nx + 1}`);
    assert.ok(!startsHere('orr-lip', { joint: denseJoint(ns, nx + 1), epsilon: 0.5 }), `orr-lip over ${ns} × ${nx + 1}`);
  }
});

test('a vertex search is given up at the deadline, and one that ends in time is the same document', () => {
  // The AORR benchmark's size, 5 × 17: a search of thousands of bases in a few ms.
  const text = JSON.stringify({ joint: denseJoint(5, 17), eps_l: 1, eps_u: 1 });
  let starts = 0;
  assert.equal(raw.designWithin('orr-alip', text, INLINE_DESIGN_CELLS, 0, () => { starts += 1; }), undefined);
  assert.equal(starts, 1, 'started() once before the design');
  const timed = raw.designWithin('orr-alip', text, INLINE_DESIGN_CELLS, 60_000, () => {});
  const free = raw.design('orr-alip', text);
  try {
    assert.equal(timed.toJson(), free.toJson());
  } finally {
    timed.free();
    free.free();
  }
});

test('an LP that reaches its deadline is given up here, after started(); one that ends in time is the same document', () => {
  for (const [method, request] of [
    ['rr-lip', { prior: { p: [0.2, 0.3, 0.5] }, epsilon: 0.3 }],
    ['orr-lip', { joint: denseJoint(2, 5), epsilon: 0.5 }],
    ['orr-ldp', { joint: denseJoint(2, 5), epsilon: 0.5 }],
  ]) {
    const text = JSON.stringify(request);
    let starts = 0;
    assert.equal(raw.designWithin(method, text, INLINE_DESIGN_CELLS, 0, () => { starts += 1; }), undefined, method);
    assert.equal(starts, 1, `${method}: started() once before the design`);
    for (const bad of [NaN, -1]) {
      assert.equal(raw.designWithin(method, text, INLINE_DESIGN_CELLS, bad, () => {}), undefined, `${method}: LP deadline ${bad}`);
    }
    const timed = raw.designWithin(method, text, INLINE_DESIGN_CELLS, 60_000, () => {});
    const free = raw.design(method, text);
    try {
      assert.equal(timed.toJson(), free.toJson(), `${method}: the document without a deadline`);
    } finally {
      timed.free();
      free.free();
    }
  }
});

test('a closed form runs here without started() or the clock: at an LP deadline of 0, the same document', () => {
  for (const [method, request] of [
    ['krr', { prior: { p: [0.2, 0.3, 0.5] }, epsilon: 1 }],
    ['rr-lip', { prior: { p: [0.2, 0.3, 0.5] }, epsilon: 2 }], // eq 19
    ['linear-tv', { joint: denseJoint(2, 4), alpha: 0.5 }],
    ['linear-distance', { joint: denseJoint(2, 4), alpha: 0.5 }],
  ]) {
    const text = JSON.stringify(request);
    let starts = 0;
    const timed = raw.designWithin(method, text, INLINE_DESIGN_CELLS, 0, () => { starts += 1; });
    const free = raw.design(method, text);
    try {
      assert.equal(starts, 0, `${method}: started()`);
      assert.equal(timed?.toJson(), free.toJson(), method);
    } finally {
      timed?.free();
      free.free();
    }
  }
});

test('a design bounded below INLINE_DESIGN_CELLS runs on the calling thread and starts no worker', { timeout: 60_000 }, async () => {
  await init();
  const start = await idleThreads();
  for (const [method, request] of [
    ['krr', { prior: { p: [0.5, 0.5] }, epsilon: 1 }],
    ['rr-lip', { prior: { p: [0.2, 0.3, 0.5] }, epsilon: 2 }], // eq 19 holds: 0.2 ≥ 1/(1 + e²)
    ['rr-lip', { prior: { p: [0.2, 0.3, 0.5] }, epsilon: 0.3 }], // an LP: eq 19 fails at ε 0.3
    ['linear-distance', { joint: denseJoint(2, 4), alpha: 0.5 }], // LP (12) on a line: the north-west plan
    ['linear-tv', { joint: denseJoint(2, 4), alpha: 0.5 }],
    ['orr-lip', { joint: denseJoint(2, 3), epsilon: 0.5 }], // a vertex search and LP (22)
    ['orr-ldp', { joint: denseJoint(2, 3), epsilon: 0.5 }],
    ['krr', { joint: sparseJoint(4, 16), epsilon: 1 }],
    ['krr', { prior: { p: uniform(K_HERE) }, epsilon: 1 }],
  ]) {
    const fractions = [];
    const { value, here } = await answered(() => design(method, request, { onProgress: (f) => fractions.push(f) }));
    assert.ok(here, `${method} ${JSON.stringify(request).slice(0, 60)} did not run here`);
    const doc = raw.design(method, JSON.stringify(request));
    try {
      assert.equal(value, doc.toJson(), 'the document of the synchronous call');
    } finally {
      doc.free();
    }
    assert.deepEqual(fractions, [0, 1]);
  }
  if (start !== null) assert.equal(threads(), start, 'a worker was started');
});

test('above either bound, or with no bound, a design runs in the worker', { timeout: 60_000 }, async () => {
  await init();
  for (const [why, method, request] of [
    ['|X|² + |S|·|X| above INLINE_DESIGN_CELLS', 'krr', { prior: { p: uniform(K_HERE + 1) }, epsilon: 1 }],
    ['a request longer than INLINE_DESIGN_TEXT', 'krr', { prior: { p: [0.5, 0.5] }, epsilon: 1, id: 'x'.repeat(INLINE_DESIGN_TEXT) }],
    ['an LP above INLINE_DESIGN_CELLS', 'rr-lip', { prior: { p: skewed(largestLpPrior(INLINE_DESIGN_CELLS) + 1) }, epsilon: 0.3 }],
    ['a distortion (LP 12 or the full LP 10 may run)', 'linear-distance', { joint: denseJoint(2, 3), alpha: 0.5, distortion: { d: [[0, 1, 1], [1, 0, 1], [1, 1, 0]] } }],
    ['a vertex search above INLINE_DESIGN_CELLS', 'orr-lip', { joint: denseJoint(2, largestSearchInputs(INLINE_DESIGN_CELLS, 2) + 1), epsilon: 0.5 }],
    ['a method with no bound', 'watchdog', { prior: { p: [0.2, 0.3, 0.5] }, epsilon: 0.5 }],
  ]) {
    const start = await idleThreads();
    const { here } = await answered(() => design(method, request));
    assert.ok(!here, `${why}: answered without a turn of the event loop`);
    if (start !== null) assert.equal(threads(), start + 1, `${why}: no worker kept after the design`);
  }
});

test('an aborted signal refuses a design that would run here, before any work', async () => {
  const err = await design('krr', { prior: { p: [0.5, 0.5] }, epsilon: 1 }, { signal: AbortSignal.abort() }).then(() => null, (e) => e);
  assert.equal(err?.name, 'AbortError');
});
