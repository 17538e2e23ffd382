// The curator's designers run in the package's worker (js/offthread.js, js/worker.js): the
// event loop keeps turning while a long design runs, an AbortSignal terminates the worker,
// progress only grows, and the result is the synchronous path's, byte for byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import * as raw from '../../pkg-design/privlift_design.js';
import { design, designContinuous, fitGmm, init } from '../../js/design.js';
import { PrivliftError } from '../../js/privlift.js';
import { STALL_MS, probed, threads } from './stall-probe.mjs';

/** A Gaussian-LIP design on 301 lattice points: 0.7–2 s (Xeon, 2 shared cores). */
const LONG = {
  method: 'gaussian-lip', domain: { lo: 0, hi: 300, step: 1 },
  prior: { gaussian: { mean: 150, sd: 40 } }, epsilon: 1, delta: 1e-6,
};
/** 901 points: the 18.6 s design, only ever aborted here. */
const LONGER = { ...LONG, domain: { lo: 0, hi: 900, step: 1 }, prior: { gaussian: { mean: 450, sd: 100 } } };

/** An ORR design whose vertex search reports progress from the wasm side (12 inputs). */
const prior = (n) => {
  const p = Array.from({ length: n }, (_, i) => (i + 1) / ((n * (n + 1)) / 2));
  return { labels: p.map((_, i) => `v${i}`), p };
};
const ORR = { prior: prior(12), epsilon: 1 };

/** Progress: 0 first, 1 last, strictly growing, and at least one report from the wasm side between. */
function assertProgress(fractions, what) {
  assert.equal(fractions[0], 0, `${what}: ${fractions}`);
  assert.equal(fractions.at(-1), 1, `${what}: ${fractions}`);
  assert.ok(fractions.some((f) => f > 0 && f < 1), `${what}: no report from the wasm side: ${fractions}`);
  for (let k = 1; k < fractions.length; k++) assert.ok(fractions[k] > fractions[k - 1], `${what}: ${fractions}`);
}

/** The synchronous path of the same call, on this thread: the reference result. */
async function synchronously(call) {
  await init();
  return call();
}
const json = (doc) => {
  try {
    return doc.toJson();
  } finally {
    doc.free();
  }
};

test('the probe sees the synchronous design block the event loop (the control)', { timeout: 120_000 }, async () => {
  await init();
  const { gaps, maxDelayMs } = await probed(async () => {
    await sleep(20);
    json(raw.designContinuous(JSON.stringify(LONG)));
    await sleep(20);
  });
  assert.ok(gaps.some((g) => g.blocking), `no blocking gap seen: ${JSON.stringify(gaps)}`);
  assert.ok(maxDelayMs > STALL_MS, `perf_hooks saw ${maxDelayMs} ms`);
});

test('designContinuous runs off the thread: no stall > 50 ms, progress per audit, the same document as the synchronous path', { timeout: 120_000 }, async () => {
  const fractions = [];
  const started = performance.now();
  const { value, maxDelayMs, gaps } = await probed(() => designContinuous(LONG, { onProgress: (f) => fractions.push(f) }));
  const tookMs = performance.now() - started;
  assert.deepEqual(gaps.filter((g) => g.blocking), [],
    `the event loop stalled (largest delay ${maxDelayMs.toFixed(1)} ms in ${tookMs.toFixed(0)} ms): ${JSON.stringify(gaps)}`);
  assertProgress(fractions, 'designContinuous');
  assert.equal(value, await synchronously(() => json(raw.designContinuous(JSON.stringify(LONG)))));
});

test('design: progress from the vertex search only grows, from 0 to 1; the same document as the synchronous path', { timeout: 120_000 }, async () => {
  const fractions = [];
  const { value, gaps } = await probed(() => design('orr-lip', ORR, { onProgress: (f) => fractions.push(f) }));
  assert.deepEqual(gaps.filter((g) => g.blocking), []);
  assertProgress(fractions, 'design');
  assert.equal(value, await synchronously(() => json(raw.design('orr-lip', JSON.stringify(ORR)))));
});

test('fitGmm runs in the worker and returns the synchronous fit', { timeout: 60_000 }, async () => {
  const samples = Array.from({ length: 400 }, (_, i) => (i % 2 ? 10 : -10) + Math.sin(i));
  assert.deepEqual(await fitGmm(samples, 3), await synchronously(() => raw.fitGmm(Float64Array.from(samples), 3)));
});

test('an AbortSignal rejects at once with an AbortError and terminates the worker', { timeout: 120_000 }, async () => {
  const controller = new AbortController();
  let started;
  const startedP = new Promise((resolve) => { started = resolve; });
  const running = designContinuous(LONGER, { signal: controller.signal, onProgress: (f) => f === 0 && started() });
  running.catch(() => {});
  await startedP;
  await sleep(300);
  const during = threads();
  const t = performance.now();
  controller.abort();
  const err = await running.then(() => null, (e) => e);
  const rejectMs = performance.now() - t;
  assert.equal(err?.name, 'AbortError');
  assert.ok(rejectMs < STALL_MS, `rejected after ${rejectMs.toFixed(1)} ms`);

  // Gone: its thread ends, and the process stops computing (a running design keeps a core busy).
  await sleep(200);
  const cpu0 = process.cpuUsage();
  await sleep(1000);
  const cpuMs = (process.cpuUsage(cpu0).user + process.cpuUsage(cpu0).system) / 1000;
  if (during !== null) assert.ok(threads() < during, `threads ${during} → ${threads()}`);
  assert.ok(cpuMs < 150, `${cpuMs.toFixed(0)} ms of CPU in the second after the abort`);
});

test('an aborted signal refuses before any work; a custom reason is the cause of the AbortError', async () => {
  const reason = new Error('the user left');
  const err = await designContinuous(LONG, { signal: AbortSignal.abort(reason) }).then(() => null, (e) => e);
  assert.equal(err?.name, 'AbortError');
  assert.equal(err.cause, reason);
  const timeout = await design('orr-lip', ORR, { signal: AbortSignal.abort() }).then(() => null, (e) => e);
  assert.equal(timeout?.name, 'AbortError');
});

test('errors cross from the worker as PrivliftError; bad options are refused before it', async () => {
  const err = await design('no-such-method', ORR).then(() => null, (e) => e);
  assert.ok(err instanceof PrivliftError);
  assert.equal(err.code, 'invalid_argument');
  assert.match(err.message, /`method`/);
  const infeasible = await designContinuous({ ...LONG, epsilon: -1 }).then(() => null, (e) => e);
  assert.ok(infeasible instanceof PrivliftError);
  assert.equal(infeasible.code, 'invalid_argument');
  for (const [options, name] of [[{ signal: {} }, 'options.signal'], [{ onProgress: 1 }, 'options.onProgress'], [7, 'options']]) {
    const bad = await designContinuous(LONG, options).then(() => null, (e) => e);
    assert.equal(bad?.code, 'invalid_argument');
    assert.ok(bad.message.includes(`\`${name}\``), bad.message);
  }
});

/** The top-level `await`s of an ES module (outside every function), by TypeScript's parser. */
async function topLevelAwaits(file) {
  const { default: ts } = await import('typescript');
  const source = ts.createSourceFile(file, await readFile(new URL(file, import.meta.url), 'utf8'), ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) || ts.isClassStaticBlockDeclaration(node)) return;
    if (ts.isAwaitExpression(node) || (ts.isForOfStatement(node) && node.awaitModifier)) {
      found.push(source.getLineAndCharacterOfPosition(node.getStart()).line + 1);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test('the workers\' scripts have no top-level await (Vite bundles workers as IIFE by default, which refuses it)', async () => {
  for (const file of ['../../js/worker.js', '../../js/verify-worker.js', '../../js/worker-serve.js', '../../pkg-design/privlift_design.js',
    '../../pkg/privlift.js', '../../pkg-continuous/privlift_continuous.js']) {
    assert.deepEqual(await topLevelAwaits(file), [], `${file}: lines with a top-level await`);
  }
});

test('a worker whose call failed other than with a PrivliftError is not used again', { timeout: 60_000 }, async () => {
  const { runOffThread } = await import('../../js/offthread.js');
  const { compiledModule } = await import('../../js/common.js');
  const module = await compiledModule(readFileSync(new URL('../../pkg-design/privlift_design_bg.wasm', import.meta.url)));
  await runOffThread('design', module, 'fitGmm', [Float64Array.of(1, 2, 3, 4, 5, 6, 7, 8), 1], {}, 'fitGmm()');
  const kept = threads(); // the idle worker of that module
  const err = await runOffThread('design', module, 'no-such-operation', [], {}, 'x').then(() => null, (e) => e);
  assert.equal(err?.name, 'Error');
  assert.match(err.message, /unknown operation/);
  await sleep(200);
  if (kept !== null) assert.ok(threads() < kept, `threads ${kept} → ${threads()}`);
});
