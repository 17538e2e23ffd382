// Golden vectors through the npm package in Node: every tests/vectors/*.json (see its
// README) is replayed through the public JS API — parseMechanism / parseContinuousMechanism,
// verify(policy), the *SeededForTesting methods, the audits and the receipts — and must
// equal the file bit for bit: integers exactly, every float with Object.is (the same f64,
// -0 ≠ 0), strings exactly, objects key by key. The files are the ones tests/vectors.rs
// replays natively and wasm/tests/vectors.rs in wasm32 (Node, Chromium, Firefox).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';

import { parseMechanism, OpenMechanismDocument } from 'privlift';
import { parseContinuousMechanism, CONTINUOUS_KINDS } from 'privlift/continuous';
import { callingThread } from '../../js/common.js';

// The vectors' outputs are this file's matter; the thread a verification runs on is
// offverify.test.mjs's: here a synchronous verify() takes what the budget allows.
callingThread.maxVerifyWork = Infinity;

const DIR = new URL('../vectors/', import.meta.url);
const files = (await readdir(DIR)).filter((f) => f.endsWith('.json')).sort();

/** The vectors' encoding of a non-finite float (tests/vectors/README.md). */
function nonFinite(v) {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const keys = Object.keys(v);
  if (keys.length !== 1 || keys[0] !== 'non_finite') return undefined;
  return { NaN, Infinity, '-Infinity': -Infinity }[v.non_finite];
}

function show(v) {
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 200 ? `${s.slice(0, 200)}…` : s;
}

/**
 * Asserts that `actual` (what the JS API returned) is `expected` (a vector's exact value)
 * bit for bit. `null` in the vector is an absent Option, which the bindings give as
 * `undefined`. Typed arrays compare as arrays.
 */
/** `max_lift_bound` → `maxLiftBound`. */
const camel = (snake) => snake.replace(/_(.)/g, (_, c) => c.toUpperCase());

function same(actual, expected, path) {
  const fail = (why) => assert.fail(`${path}: ${why}: got ${show(actual)}, expected ${show(expected)}`);
  const special = nonFinite(expected);
  if (special !== undefined) {
    if (typeof actual !== 'number' || !Object.is(actual, special)) fail('not the same non-finite float');
    return;
  }
  if (expected === null) {
    if (actual !== null && actual !== undefined) fail('expected no value');
    return;
  }
  if (typeof expected === 'number') {
    if (typeof actual !== 'number' || !Object.is(actual, expected)) fail('not the same f64');
    return;
  }
  if (typeof expected !== 'object') {
    if (actual !== expected) fail('differs');
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) && !ArrayBuffer.isView(actual)) fail('not an array');
    if (actual.length !== expected.length) fail(`${actual.length} elements, expected ${expected.length}`);
    expected.forEach((e, i) => same(actual[i], e, `${path}[${i}]`));
    return;
  }
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) fail('not an object');
  // The vectors are the JSON the native library writes (snake_case); JS objects are camelCase,
  // and so is a check's notion (a claim or a policy key).
  const keys = new Set(Object.keys(expected).map(camel));
  for (const key of Object.keys(actual)) {
    if (actual[key] !== undefined && !keys.has(key)) fail(`unexpected key \`${key}\``);
  }
  for (const key of Object.keys(expected)) {
    const want = key === 'notion' && typeof expected[key] === 'string' ? camel(expected[key]) : expected[key];
    same(actual[camel(key)], want, `${path}.${key}`);
  }
}

test('the vectors are there', () => {
  assert.ok(files.length >= 8, `expected at least 8 vectors in tests/vectors, found ${files.length}`);
});

test('the comparison sees one bit', () => {
  assert.throws(() => same(0.1 + 0.2, 0.3, '$'));
  assert.throws(() => same(-0, 0, '$'));
  assert.throws(() => same(Infinity, { non_finite: 'NaN' }, '$'));
  assert.throws(() => same({ a: 1, b: 2 }, { a: 1 }, '$'));
  assert.throws(() => same(undefined, 0, '$'));
  same(NaN, { non_finite: 'NaN' }, '$');
  same({ a: undefined, b: [1, -0] }, { a: null, b: [1, -0] }, '$');
});

for (const file of files) {
  test(`vector ${file}`, async () => {
    const v = JSON.parse(await readFile(new URL(file, DIR), 'utf8'));
    assert.equal(`${v.name}.json`, file);
    assert.ok(v.inputs.length > 0 && v.receipts.length > 0);
    const seed = BigInt(v.seed);
    const kind = v.document.mechanism.kind;
    const a = v.audit;
    if (['olh', 'hadamard', 'hcms', 'heavy_hitters'].includes(kind)) {
      const doc = await parseMechanism(JSON.stringify(v.document));
      assert.ok(doc instanceof OpenMechanismDocument);
      assert.equal(doc.kind, kind);
      const mech = doc.verify(v.policy);
      same(mech.perturbManySeededForTesting(v.inputs, seed), v.outputs, 'outputs');
      same(mech.audit(), a.audit.value, 'audit.audit');
      same(mech.verification(), a.verification.value, 'audit.verification');
      v.receipts.forEach((r, i) => same(mech.receipt(r.report), r.value, `receipts[${i}]`));
      mech.free();
      doc.free();
      return;
    }
    if (CONTINUOUS_KINDS.includes(kind)) {
      const doc = await parseContinuousMechanism(JSON.stringify(v.document));
      same(doc.audit(), a.document_audit.value, 'audit.document_audit');
      same(doc.latticePrior, a.lattice_prior, 'audit.lattice_prior');
      const mech = doc.verify(v.policy);
      same(mech.latticePrior, a.lattice_prior, 'audit.lattice_prior (mechanism)');
      same(mech.perturbManySeededForTesting(v.inputs, seed), v.outputs, 'outputs');
      same(mech.audit(), a.audit.value, 'audit.audit');
      same(mech.verification(), a.verification.value, 'audit.verification');
      v.receipts.forEach((r, i) => same(mech.receipt(r.output, r.x), r.value, `receipts[${i}]`));
      mech.free();
      doc.free();
      return;
    }
    const doc = await parseMechanism(JSON.stringify(v.document));
    assert.equal(doc.kind, kind);
    same(doc.audit(), a.document_audit.value, 'audit.document_audit');
    const mech = doc.verify(v.policy);
    if (kind === 'unary') {
      // One generator per report: input i is drawn with seed + i.
      const outputs = v.inputs.map((x, i) => Array.from(mech.perturbBitsSeededForTesting(x, seed + BigInt(i))));
      same(outputs, v.outputs, 'outputs');
    } else {
      const ys = mech.perturbIndicesSeededForTesting(v.inputs, seed);
      // The narrowest array for the output count (every vector has at most 256 outputs).
      assert.ok(ys instanceof (mech.outputLabels.length <= 256 ? Uint8Array : Uint16Array), ys.constructor.name);
      same(ys, v.outputs, 'outputs');
    }
    same(mech.leakage(), a.leakage.value, 'audit.leakage');
    same(mech.leakageX(), a.leakage_x.value, 'audit.leakage_x');
    same(mech.verification(), a.verification.value, 'audit.verification');
    same(mech.lipUnderAnyPrior(), a.lip_under_any_prior, 'audit.lip_under_any_prior');
    same(mech.receiptBounds(), a.receipt_bounds, 'audit.receipt_bounds');
    v.receipts.forEach((r, i) => {
      if (kind === 'unary') {
        same(mech.receiptBits(r.bits), r.value, `receipts[${i}]`);
      } else {
        same(mech.receipt(r.output), r.value, `receipts[${i}]`);
        same(mech.receipt(mech.outputLabels[r.output]), r.value, `receipts[${i}] (by label)`);
      }
    });
    mech.free();
    doc.free();
  });
}
