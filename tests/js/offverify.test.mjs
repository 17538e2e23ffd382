// Verification never blocks the calling thread (js/offthread.js, js/verify-worker.js): the
// synchronous verify() refuses a document above SYNC_VERIFY_WORK with `needs_async`, and
// verifyAsync / verifyContinuousAsync verify the slowest documents the default budget
// accepts in the package's Worker while the event loop keeps turning; the mechanism they
// give answers as the synchronous path's, errors keep their codes, an AbortSignal aborts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { createServer } from 'node:http';
import { parseMechanism, fetchMechanism, verifyAsync, AsyncMechanism, PrivliftError } from '../../js/privlift.js';
import { parseContinuousMechanism, fetchContinuousMechanism, verifyContinuousAsync, AsyncContinuousMechanism } from '../../js/continuous.js';
import { SYNC_VERIFY_WORK, unlimited } from '../../js/common.js';
import { terminateIdleWorkers, workerCounts } from '../../js/offthread.js';
import * as raw from '../../pkg/privlift.js';
import { DOCUMENTS } from '../../benches/wasm/cost-documents.mjs';
import { STALL_MS, probed, threads } from './stall-probe.mjs';

/**
 * Slow documents of benches/wasm/cost.mjs the default budget accepts, of at most 23 MB
 * (a dense RR of 1024², a per-secret RR of 4 × 256², an SRLIP audit over 2⁶ inputs; the
 * Gaussian on 491 salary points, the slowest continuous one): 0.1–0.7 s of a first verify.
 */
const SLOW = [['matrix', 1024], ['per_secret', 256], ['srlip', 6]];
const GAUSSIAN = DOCUMENTS.gaussian(491);
const POLICY = { maxLip: 60 };
const INDICES = Uint32Array.from({ length: 64 }, (_, i) => i % 14);

/** The synchronous path, without the calling thread's limit: the reference. */
async function reference(parse, text, policy) {
  const doc = await parse(text, policy);
  try {
    return unlimited(() => doc.verify(policy));
  } finally {
    doc.free();
  }
}

const rejection = (p) => p.then(() => null, (e) => e);

test('verify() refuses above SYNC_VERIFY_WORK with needs_async naming verifyAsync; below it, and too_costly, as before', async () => {
  const big = await parseMechanism(DOCUMENTS.matrix(1024));
  const e = (() => { try { big.verify(); return null; } catch (err) { return err; } })();
  assert.ok(e instanceof PrivliftError);
  assert.equal(e.code, 'needs_async');
  assert.match(e.message, /verifyAsync\(document, policy\) from 'privlift'/);
  // A budget the document exceeds is the policy's refusal, not a matter of threads.
  assert.throws(() => big.verify({ maxVerifyWork: 1000 }), { code: 'too_costly' });
  assert.throws(() => big.verify({ maxLdpXX: 1 }), { code: 'invalid_argument' });
  big.free();
  const small = await parseMechanism(DOCUMENTS.matrix(128));
  small.verify().free();
  small.free();
  const gaussian = await parseContinuousMechanism(GAUSSIAN);
  assert.throws(() => gaussian.verify(), (err) => err.code === 'needs_async' && /verifyContinuousAsync/.test(err.message));
  gaussian.free();
  const few = await parseContinuousMechanism(DOCUMENTS.gaussian(31));
  few.verify().free();
  few.free();
  assert.equal(SYNC_VERIFY_WORK, 2 ** 23);
});

test('the probe sees a synchronous verification of the slowest documents block the event loop (the control)', { timeout: 120_000 }, async () => {
  await raw.default({ module_or_path: await import('node:fs').then((fs) => fs.readFileSync(new URL('../../pkg/privlift_bg.wasm', import.meta.url))) });
  const text = new TextEncoder().encode(DOCUMENTS.matrix(1024));
  const { gaps } = await probed(async () => {
    await sleep(20);
    raw.Document.parseBytes(text, undefined).verify(undefined).free();
    await sleep(20);
  });
  assert.ok(gaps.some((g) => g.blocking), `no blocking gap seen: ${JSON.stringify(gaps)}`);
});

for (const [kind, n] of SLOW) {
  test(`verifyAsync of ${kind} ${n}: no stall > 50 ms, progress 0 then 1, the synchronous path's answers`, { timeout: 120_000 }, async () => {
    const text = DOCUMENTS[kind](n);
    const fractions = [];
    const { value: m, gaps, maxDelayMs } = await probed(() => verifyAsync(text, POLICY, { onProgress: (f) => fractions.push(f) }));
    try {
      assert.deepEqual(gaps.filter((g) => g.blocking), [], `largest delay ${maxDelayMs.toFixed(1)} ms: ${JSON.stringify(gaps)}`);
      assert.deepEqual(fractions, [0, 1]);
      assert.ok(m instanceof AsyncMechanism);
      const sync = await reference(parseMechanism, text, POLICY);
      try {
        for (const p of ['id', 'sha256', 'kind', 'labels', 'outputLabels', 'secretLabels', 'prior']) assert.deepEqual(m[p], sync[p], p);
        assert.deepEqual(await m.verification(), sync.verification());
        assert.deepEqual(await m.receiptBounds(), sync.receiptBounds());
        assert.deepEqual(await m.leakageX(), sync.leakageX());
        if (m.kind === 'per_secret') {
          // Only the curator, who knows s, applies it: refused alike.
          assert.throws(() => sync.perturbIndex(0), { code: 'invalid_argument' });
          assert.equal((await rejection(m.perturbIndex(0)))?.code, 'invalid_argument');
        } else if (m.kind === 'unary') {
          assert.deepEqual(await m.perturbBitsSeededForTesting(3, 7n), sync.perturbBitsSeededForTesting(3, 7n));
          const bits = await m.perturbBits(2);
          assert.deepEqual(await m.receiptBits(bits), sync.receiptBits(bits));
        } else {
          assert.deepEqual(await m.perturbIndicesSeededForTesting(INDICES, 7n), sync.perturbIndicesSeededForTesting(INDICES, 7n));
          assert.deepEqual(await m.receipt(1), sync.receipt(1));
          assert.equal(typeof await m.perturb(m.labels[0]), 'string');
          assert.deepEqual(Object.keys(await m.report(0)), ['mechanism', 'sha256', 'output', 'report_id']);
        }
      } finally {
        sync.free();
      }
    } finally {
      m.free();
    }
  });
}

test('verifyContinuousAsync of the Gaussian on 491 points: no stall > 50 ms, the synchronous path\'s answers', { timeout: 120_000 }, async () => {
  const policy = undefined; // a policy limit is one more audit: 491 points are then above the default budget
  const { value: m, gaps } = await probed(() => verifyContinuousAsync(GAUSSIAN, policy));
  try {
    assert.deepEqual(gaps.filter((g) => g.blocking), [], JSON.stringify(gaps));
    assert.ok(m instanceof AsyncContinuousMechanism);
    const sync = await reference(parseContinuousMechanism, GAUSSIAN, policy);
    try {
      for (const p of ['id', 'sha256', 'kind', 'domain', 'latticePrior']) assert.deepEqual(m[p], sync[p], p);
      assert.deepEqual(await m.verification(), sync.verification());
      assert.deepEqual(await m.audit(), sync.audit());
      const xs = [20000, 60000, 120000];
      assert.deepEqual(await m.perturbManySeededForTesting(xs, 11n), sync.perturbManySeededForTesting(xs, 11n));
      const y = await m.perturb(52000);
      assert.deepEqual(await m.receipt(y, 52000), sync.receipt(y, 52000));
      assert.equal((await m.report(y)).output, y);
    } finally {
      sync.free();
    }
  } finally {
    m.free();
  }
});

/** Verifies `text` both ways; the error of each (null when it verified). */
async function bothErrors(text, policy, parse, verifyOff) {
  const sync = await rejection((async () => {
    const doc = await parse(text, policy);
    try {
      unlimited(() => doc.verify(policy)).free();
    } finally {
      doc.free();
    }
  })());
  const off = await rejection(verifyOff(text, policy).then((m) => m.free()));
  return { sync, off };
}

class LimitsClass {
  constructor() { this.maxLip = 1; }
}

test('errors keep their codes and messages: parse, claims, policy, budget, malformed policies', { timeout: 60_000 }, async () => {
  const rr = JSON.parse(DOCUMENTS.matrix(64));
  const hidden = {};
  Object.defineProperty(hidden, 'maxLip', { value: 0.01, enumerable: false });
  const cases = [
    ['not json', '{"format":', undefined],
    ['a lying claim', JSON.stringify({ ...rr, claims: { lip: 0.01 } }), undefined],
    ['a policy limit', DOCUMENTS.matrix(64), { maxLip: 0.01 }],
    ['a non-enumerable limit', DOCUMENTS.matrix(64), hidden],
    ['the budget', DOCUMENTS.matrix(64), { maxVerifyWork: 10 }],
    ['a snake_case key', DOCUMENTS.matrix(64), { max_lip: 1 }],
    ['a class instance', DOCUMENTS.matrix(64), new LimitsClass()],
    ['a Map', DOCUMENTS.matrix(64), new Map([['maxLip', 1]])],
    ['a function limit', DOCUMENTS.matrix(64), { maxLip: () => 1 }],
    ['an unknown key', DOCUMENTS.matrix(64), { maxWhatever: 1 }],
    ['a continuous document', GAUSSIAN, undefined],
  ];
  for (const [what, text, policy] of cases) {
    const { sync, off } = await bothErrors(text, policy, parseMechanism, verifyAsync);
    assert.ok(sync instanceof PrivliftError, `${what}: the synchronous path refused it`);
    assert.ok(off instanceof PrivliftError, `${what}: ${off}`);
    assert.deepEqual([off.code, off.message], [sync.code, sync.message], what);
  }
  const continuous = await bothErrors(DOCUMENTS.gaussian(51), { lip: { eps: 0.001, delta: 0 } }, parseContinuousMechanism, verifyContinuousAsync);
  assert.equal(continuous.sync.code, 'policy_violated');
  assert.deepEqual([continuous.off.code, continuous.off.message], [continuous.sync.code, continuous.sync.message]);
  for (const [options, name] of [[{ signal: {} }, 'options.signal'], [{ onProgress: 1 }, 'options.onProgress'], [7, 'options']]) {
    const bad = await rejection(verifyAsync(DOCUMENTS.matrix(8), undefined, options));
    assert.equal(bad?.code, 'invalid_argument');
    assert.ok(bad.message.includes(`\`${name}\``), bad.message);
  }
});

test('an AbortSignal rejects at once with an AbortError and ends the worker; an aborted one before any work', { timeout: 120_000 }, async () => {
  const before = threads();
  const controller = new AbortController();
  const running = verifyContinuousAsync(GAUSSIAN, undefined, { signal: controller.signal });
  running.catch(() => {});
  // Well inside the verification (≈ 240 ms on an idle machine, more with the Worker's start).
  await sleep(60);
  const t = performance.now();
  controller.abort();
  const err = await rejection(running);
  assert.equal(err?.name, 'AbortError');
  assert.ok(performance.now() - t < STALL_MS, `rejected after ${(performance.now() - t).toFixed(1)} ms`);
  await sleep(200);
  if (before !== null) assert.ok(threads() <= before, `threads ${before} → ${threads()}`);
  const reason = new Error('the user left');
  const pre = await rejection(verifyAsync(DOCUMENTS.matrix(8), undefined, { signal: AbortSignal.abort(reason) }));
  assert.equal(pre?.name, 'AbortError');
  assert.equal(pre.cause, reason);
  // Aborted from the progress callback as the work starts (fraction 0).
  const atStart = new AbortController();
  const fractions = [];
  const onProgress = (f) => { fractions.push(f); if (f === 0) atStart.abort(); };
  const started = await rejection(verifyAsync(DOCUMENTS.matrix(8), undefined, { signal: atStart.signal, onProgress }));
  assert.equal(started?.name, 'AbortError', `${started}`);
  assert.deepEqual(fractions, [0]);
});

test('free() releases it, its worker kept for the next; later calls reject with invalid_state; calls in order, arguments that cannot be sent refused', { timeout: 60_000 }, async () => {
  const before = threads();
  const m = await verifyAsync(DOCUMENTS.krr(16), POLICY);
  const many = await Promise.all(Array.from({ length: 20 }, (_, i) => m.perturbIndex(i % 16)));
  assert.ok(many.every((y) => Number.isInteger(y) && y >= 0 && y < 16));
  assert.equal((await rejection(m.perturbIndex(-1)))?.code, 'invalid_argument');
  assert.equal((await rejection(m.perturb(99)))?.code, 'invalid_argument', 'a number is not a label, as in Mechanism.perturb');
  assert.equal((await rejection(m.perturbIndices({ *[Symbol.iterator]() { yield 1; }, f() {} })))?.code, 'invalid_argument');
  assert.equal(typeof await m.perturb('v3'), 'string', 'the worker survives a refused call');
  assert.equal(JSON.parse(JSON.stringify(m)).offThread, true);
  m.free();
  m.free();
  assert.equal((await rejection(m.perturbIndex(0)))?.code, 'invalid_state');
  assert.throws(() => m.labels, { code: 'invalid_state' });
  // Its worker is kept idle for the next verification, which starts no thread.
  await sleep(100);
  const idle = threads();
  const next = await verifyAsync(DOCUMENTS.krr(8));
  if (idle !== null) assert.equal(threads(), idle, 'the idle worker was reused');
  assert.equal(await next.perturbIndex(7) < 8, true);
  next.free();
  terminateIdleWorkers();
  await sleep(200);
  if (before !== null) assert.ok(threads() <= before, `threads ${before} → ${threads()}`);
  assert.throws(() => new AsyncMechanism({}, {}), { code: 'invalid_argument' });
});

/** Waits (≤ 10 s) until `ready()` holds. */
async function until(ready, what) {
  for (let waited = 0; !ready(); waited += 10) {
    assert.ok(waited < 10_000, `timed out waiting until ${what}`);
    await sleep(10);
  }
}

test('a needs_async refusal starts the worker verifyAsync then takes, even before it is ready; one worker each time', { timeout: 60_000 }, async () => {
  terminateIdleWorkers();
  const text = DOCUMENTS.matrix(1024);
  const doc = await parseMechanism(text);
  assert.throws(() => doc.verify(), { code: 'needs_async' });
  await until(() => workerCounts().idle === 1, 'the warmed worker is idle');
  assert.throws(() => doc.verify(), { code: 'needs_async' });
  assert.deepEqual(workerCounts(), { idle: 1, warming: 0 }, 'a second refusal starts no second worker');
  const m = await verifyAsync(text);
  assert.deepEqual(workerCounts(), { idle: 0, warming: 0 }, 'verifyAsync took the warmed worker');
  assert.equal(m.labels.length, 1024);
  m.free();
  // Refused, and at once verifyAsync: it waits for the worker warming up, starting none.
  terminateIdleWorkers();
  const gaussian = await parseContinuousMechanism(GAUSSIAN);
  assert.throws(() => gaussian.verify(), { code: 'needs_async' });
  await until(() => workerCounts().warming === 1, 'the refusal warms a worker');
  const g = await verifyContinuousAsync(GAUSSIAN);
  assert.deepEqual(workerCounts(), { idle: 0, warming: 0 }, 'the warming worker became verifyContinuousAsync\'s');
  assert.equal(typeof await g.perturb(52000), 'number');
  g.free();
  gaussian.free();
  doc.free();
  terminateIdleWorkers();
});

test('fetchMechanism refuses a document above the calling thread\'s limit as it reads it (needs_async, with the bytes), above the budget as too_costly', { timeout: 60_000 }, async () => {
  const big = DOCUMENTS.matrix(1024);
  // Its last numbers cut off: a parse that read them all would say `json`.
  const cut = big.slice(0, big.length - 200);
  const files = { '/big.json': big, '/cut.json': cut, '/small.json': DOCUMENTS.matrix(128), '/gaussian.json': GAUSSIAN };
  const server = createServer((req, res) => {
    res.writeHead(files[req.url] ? 200 : 404, { 'content-type': 'application/json' });
    res.end(files[req.url] ?? '');
  });
  await new Promise((resolve) => { server.listen(0, '127.0.0.1', resolve); });
  const base = `http://127.0.0.1:${server.address().port}`;
  try {
    for (const path of ['/big.json', '/cut.json']) {
      const e = await rejection(fetchMechanism(base + path, {}));
      assert.ok(e instanceof PrivliftError, String(e));
      assert.equal(e.code, 'needs_async', path);
      assert.match(e.message, /verifyAsync\(document, policy\) from 'privlift'/);
      // The bytes it downloaded, for verifyAsync: not fetched again.
      assert.ok(e.document instanceof Uint8Array, path);
      assert.deepEqual(e.document, new TextEncoder().encode(files[path]), path);
    }
    await assert.rejects(parseMechanism(cut), { code: 'json' }, 'the control: parsed whole, the cut document is malformed');
    // Above the policy's own budget it is the policy's refusal, naming that budget.
    const over = await rejection(fetchMechanism(`${base}/big.json`, { maxVerifyWork: 1e6 }));
    assert.equal(over?.code, 'too_costly');
    assert.match(over.message, /budget of 1(\.0+)?e6/);
    assert.equal(over.document, undefined, 'only a needs_async refusal carries the bytes');
    // A budget below the thread's limit: the policy's refusal too, never needs_async.
    assert.equal((await rejection(fetchMechanism(`${base}/small.json`, { maxVerifyWork: 1000 })))?.code, 'too_costly');
    const m = await fetchMechanism(`${base}/small.json`, {});
    assert.equal(m.labels.length, 128);
    m.free();
    const a = await verifyAsync((await rejection(fetchMechanism(`${base}/big.json`, {}))).document);
    assert.equal(a.labels.length, 1024);
    a.free();
    // The continuous fetch refuses as verify() does, and hands over its bytes the same way.
    const g = await rejection(fetchContinuousMechanism(`${base}/gaussian.json`, {}));
    assert.equal(g?.code, 'needs_async');
    assert.deepEqual(g.document, new TextEncoder().encode(GAUSSIAN));
    const ga = await verifyContinuousAsync(g.document);
    assert.ok(ga instanceof AsyncContinuousMechanism);
    ga.free();
  } finally {
    server.close();
    terminateIdleWorkers();
  }
});

test('fetchMechanism starts the Worker while a document its first bytes price above the thread\'s limit downloads', { timeout: 60_000 }, async () => {
  terminateIdleWorkers();
  const big = new TextEncoder().encode(DOCUMENTS.matrix(1024));
  const small = new TextEncoder().encode(DOCUMENTS.matrix(480)); // 5 MB, verified here
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  const server = createServer(async (req, res) => {
    const body = req.url === '/big.json' ? big : small;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    // The first 5 MB, then the rest only once the test has looked.
    res.write(body.subarray(0, 5_000_000));
    await held;
    res.end(body.subarray(5_000_000));
  });
  await new Promise((resolve) => { server.listen(0, '127.0.0.1', resolve); });
  const base = `http://127.0.0.1:${server.address().port}`;
  try {
    const refused = rejection(fetchMechanism(`${base}/big.json`, {}));
    await until(() => workerCounts().warming + workerCounts().idle === 1, 'the first 5 MB start a worker');
    release();
    const e = await refused;
    assert.equal(e?.code, 'needs_async');
    const a = await verifyAsync(e.document);
    assert.equal(a.labels.length, 1024);
    a.free();
    terminateIdleWorkers();
    // A long document its first bytes price within the limit starts none.
    const m = await fetchMechanism(`${base}/small.json`, {});
    assert.equal(m.labels.length, 480);
    m.free();
    assert.deepEqual(workerCounts(), { idle: 0, warming: 0 });
  } finally {
    release();
    server.close();
    terminateIdleWorkers();
  }
});
