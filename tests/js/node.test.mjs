// The npm package in Node: `node --test tests/js/` from the repo root (after
// scripts/build-wasm.sh). Imports the package by its name (self-reference via "exports").
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';

import {
  init, isInitialized, parseMechanism, fetchMechanism, PrivliftError, errorCodes,
  MechanismDocument, Mechanism,
} from 'privlift';

const LN2 = Math.log(2);

/** k-ary randomized response: P(y = x) = e^ε / (e^ε + k − 1), the rest uniform. */
function krrMatrix(k, eps) {
  const d = Math.exp(eps) + k - 1;
  return Array.from({ length: k }, (_, x) =>
    Array.from({ length: k }, (_, y) => (x === y ? Math.exp(eps) / d : 1 / d)));
}

function krrDoc({ claims = { ldp_x: LN2 }, id = 'krr3-ln2' } = {}) {
  return {
    format: 'privlift-mechanism',
    version: 1,
    id,
    labels: ['a', 'b', 'c'],
    output_labels: ['A', 'B', 'C'],
    prior: [1 / 3, 1 / 3, 1 / 3],
    mechanism: { kind: 'matrix', p_y_given_x: krrMatrix(3, LN2) },
    claims,
  };
}

/** Asserts that fn throws (or rejects with) a PrivliftError with `code`; returns it. */
async function rejectsWith(fn, code, messageIncludes) {
  let err;
  try {
    await fn();
  } catch (e) {
    err = e;
  }
  assert.ok(err !== undefined, `expected a PrivliftError with code ${code}, nothing was thrown`);
  assert.ok(err instanceof PrivliftError, `expected instanceof PrivliftError, got ${err && err.name}: ${err && err.message}`);
  assert.ok(err instanceof Error);
  assert.equal(err.name, 'PrivliftError');
  assert.equal(err.code, code, `code of "${err.message}"`);
  assert.ok(errorCodes.includes(err.code));
  if (messageIncludes) assert.ok(err.message.includes(messageIncludes), `"${err.message}" should mention ${messageIncludes}`);
  return err;
}

describe('loading', () => {
  test('init is idempotent and optional', async () => {
    const p = init();
    assert.equal(init(), p, 'a second call returns the same promise');
    await p;
    assert.equal(isInitialized(), true);
  });

  test('no Math.random in the wrapper or the glue', async () => {
    for (const f of ['../../js/privlift.js', '../../pkg/privlift.js']) {
      const src = await readFile(new URL(f, import.meta.url), 'utf8');
      assert.ok(!/Math\s*\.\s*random/.test(src), `${f} uses Math.random`);
    }
  });
});

describe('k-RR, k = 3, ε = ln 2', () => {
  let doc;
  let mech;
  before(async () => {
    doc = await parseMechanism(JSON.stringify(krrDoc()));
    mech = doc.verify({ maxLdpX: 1 });
  });

  test('document getters', async () => {
    assert.ok(doc instanceof MechanismDocument);
    assert.equal((await import('privlift')).Document, undefined, 'no export named Document: it is the DOM\'s');
    assert.equal(doc.id, 'krr3-ln2');
    assert.deepEqual(doc.labels, ['a', 'b', 'c']);
    assert.deepEqual(doc.outputLabels, ['A', 'B', 'C']);
    assert.deepEqual(doc.secretLabels, ['a', 'b', 'c']);
    assert.equal(doc.prior.length, 3);
    assert.ok(Math.abs(doc.claims.ldpX - LN2) < 1e-15);
  });

  test('an object document parses like its JSON text', async () => {
    const d2 = await parseMechanism(krrDoc());
    assert.equal(d2.id, doc.id);
    const d3 = await parseMechanism(new TextEncoder().encode(JSON.stringify(krrDoc())));
    assert.equal(d3.id, doc.id);
  });

  test('verify gives a Mechanism with its alphabets', () => {
    assert.ok(mech instanceof Mechanism);
    assert.equal(mech.id, 'krr3-ln2');
    assert.deepEqual([...mech.labels], ['a', 'b', 'c']);
    assert.deepEqual([...mech.outputLabels], ['A', 'B', 'C']);
    assert.deepEqual([...mech.secretLabels], ['a', 'b', 'c']);
  });

  test('leakage and verification', () => {
    const leak = mech.leakage();
    assert.ok(leak.ldpX >= LN2 && leak.ldpX < LN2 * (1 + 1e-9), `ldp_x ${leak.ldpX}`);
    // Uniform prior: posterior = channel column, lifts 1.5 and 0.75.
    assert.ok(Math.abs(leak.alip.epsU - Math.log(1.5)) < 1e-9);
    assert.ok(Math.abs(leak.alip.epsL - Math.log(4 / 3)) < 1e-9);
    const v = mech.verification();
    assert.equal(v.claimsHold, true);
    assert.equal(v.policyHolds, true);
    assert.deepEqual(v.claims.map((c) => c.notion), ['ldpX']);
    assert.deepEqual(v.policy.map((c) => [c.notion, c.bound]), [['maxLdpX', 1]]);
  });

  test('perturb: a label in, a label out; perturbIndex: an index in, an index out', async () => {
    for (const x of ['a', 'b', 'c']) {
      const y = mech.perturb(x);
      assert.ok(['A', 'B', 'C'].includes(y), `perturb(${x}) = ${y}`);
    }
    for (const i of [0, 1, 2]) {
      const y = mech.perturbIndex(i);
      assert.ok(Number.isInteger(y) && y >= 0 && y < 3, `perturbIndex(${i}) = ${y}`);
    }
    // A number is never read as a label, nor a decimal string as an index.
    await rejectsWith(() => mech.perturb(1), 'invalid_argument', 'perturbIndex');
    await rejectsWith(() => mech.perturb('2'), 'unknown_value');
    assert.equal(mech.inputIndex('c'), 2);
    assert.equal(mech.inputIndex(1), 1);
  });

  test('perturbIndices on 10^5 values matches the row within 5 sd', () => {
    const n = 100_000;
    const row = krrMatrix(3, LN2);
    for (const [x, xs] of [
      [0, new Uint32Array(n)], // all index 0
      [2, Array(n).fill(2)], // all index 2, as an array
    ]) {
      const ys = mech.perturbIndices(xs);
      assert.ok(ys instanceof Uint8Array, 'three outputs fit a Uint8Array');
      assert.equal(ys.length, n);
      const counts = [0, 0, 0];
      for (const y of ys) counts[y] += 1;
      for (let y = 0; y < 3; y++) {
        const p = row[x][y];
        const sd = Math.sqrt(n * p * (1 - p));
        assert.ok(Math.abs(counts[y] - n * p) <= 5 * sd,
          `x=${x}: count[${y}] = ${counts[y]}, expected ${n * p} ± ${5 * sd}`);
      }
    }
  });

  test('perturbIndicesInPlace draws the row in the caller\'s array; perturbIndices leaves it alone', async () => {
    const n = 100_000;
    const row = krrMatrix(3, LN2);
    const xs = new Uint32Array(n).fill(1);
    const kept = mech.perturbIndices(xs);
    assert.ok(kept !== xs && xs.every((x) => x === 1), 'perturbIndices wrote into its argument');
    assert.equal(mech.perturbIndicesInPlace(xs), xs);
    const counts = [0, 0, 0];
    for (const y of xs) counts[y] += 1;
    for (let y = 0; y < 3; y++) {
      const p = row[1][y];
      const sd = Math.sqrt(n * p * (1 - p));
      assert.ok(Math.abs(counts[y] - n * p) <= 5 * sd, `count[${y}] = ${counts[y]}, expected ${n * p} ± ${5 * sd}`);
    }
    // An invalid input, in the second block of 65,536: the array is zeroed (the first block
    // was drawn), so that it holds neither a report nor the user's inputs.
    const bad = new Uint32Array(70_000).fill(2);
    bad[69_000] = 7;
    await rejectsWith(() => mech.perturbIndicesInPlace(bad), 'unknown_value');
    assert.ok(bad.every((y) => y === 0));
    const copy = new Uint32Array(70_000).fill(2);
    copy[69_000] = 7;
    await rejectsWith(() => mech.perturbIndices(copy), 'unknown_value');
    assert.ok(copy.every((x, i) => x === (i === 69_000 ? 7 : 2)), 'perturbIndices wrote into its argument');
    await rejectsWith(() => mech.perturbIndicesInPlace([0, 1]), 'invalid_argument', 'Uint32Array');
  });

  test('perturbIndices returns the narrowest array that holds every output index', async () => {
    // ε = 40: (nearly) every output is its input, so a wrongly narrowed index shows.
    for (const [k, Out] of [[256, Uint8Array], [257, Uint16Array], [4096, Uint16Array]]) {
      const labels = Array.from({ length: k }, (_, i) => `v${i}`);
      const near = (await parseMechanism({
        format: 'privlift-mechanism', version: 1, id: `krr${k}`, labels, prior: Array(k).fill(1 / k),
        mechanism: { kind: 'krr', epsilon: 40 }, claims: { ldp_x: 41 },
      })).verify();
      const xs = Uint32Array.from({ length: 70_000 }, (_, i) => k - 1 - (i % k));
      for (const [how, ys] of [
        ['a Uint32Array', near.perturbIndices(xs)],
        ['an array', near.perturbIndices(Array.from(xs))],
        ['seeded', near.perturbIndicesSeededForTesting(xs, 1n)],
      ]) {
        assert.ok(ys instanceof Out, `k = ${k}, ${how}: ${ys.constructor.name}`);
        assert.equal(ys.length, xs.length);
        assert.ok(ys.filter((y, i) => y !== xs[i]).length < 10, `k = ${k}, ${how}: outputs are not the inputs`);
      }
      assert.ok(near.perturbIndicesInPlace(xs.slice()) instanceof Uint32Array, 'in place keeps the caller\'s array');
      near.free();
    }
  });

  test('perturbIndices takes indices (a label is refused) and an empty input', async () => {
    assert.equal(mech.perturbIndices([0, 1, 2, 0]).length, 4);
    assert.equal(mech.perturbIndices([]).length, 0);
    await rejectsWith(() => mech.perturbIndices([0, 'b']), 'invalid_argument', 'inputIndex');
  });

  test('receipt fields: lift = posterior / prior, within the bounds', () => {
    for (const y of [0, 1, 2, 'B']) {
      const r = mech.receipt(y);
      const yi = typeof y === 'number' ? y : 1;
      assert.equal(r.mechanismId, 'krr3-ln2');
      assert.equal(r.outputIndex, yi);
      assert.equal(r.output, ['A', 'B', 'C'][yi]);
      assert.equal(r.entries.length, 3);
      assert.equal(r.secret, undefined, 'no secret declared: one section, the user\'s own values');
      // The audit's bounds (3-RR at ln 2, uniform prior: lifts 3/4 and 3/2), rounded
      // outwards, never the claim's e^{∓ln 2}.
      assert.ok(r.minLiftBound <= 0.75 && 0.75 - r.minLiftBound < 1e-12, `min_lift_bound ${r.minLiftBound}`);
      assert.ok(r.maxLiftBound >= 1.5 && r.maxLiftBound - 1.5 < 1e-12, `max_lift_bound ${r.maxLiftBound}`);
      assert.ok(Math.abs(r.epsU - Math.log(1.5)) < 1e-12 && Math.abs(r.epsL - Math.log(4 / 3)) < 1e-12);
      assert.deepEqual(mech.receiptBounds(), [r.minLiftBound, r.maxLiftBound]);
      let sum = 0;
      for (const [s, e] of r.entries.entries()) {
        assert.equal(e.index, s);
        assert.equal(e.label, ['a', 'b', 'c'][s]);
        assert.ok(Math.abs(e.lift - e.posterior / e.prior) < 1e-12);
        assert.ok(e.lift >= r.minLiftBound && e.lift <= r.maxLiftBound, `lift ${e.lift}`);
        assert.ok(Math.abs(e.posterior - (s === yi ? 0.5 : 0.25)) < 1e-12);
        sum += e.posterior;
      }
      assert.ok(Math.abs(sum - 1) < 1e-12);
    }
  });

  test('seeded path is deterministic', () => {
    const xs = Array.from({ length: 1000 }, (_, i) => i % 3);
    const a = mech.perturbIndicesSeededForTesting(xs, 42n);
    const b = mech.perturbIndicesSeededForTesting(Uint32Array.from(xs), 42);
    const c = mech.perturbIndicesSeededForTesting(xs, 43n);
    assert.deepEqual(a, b, 'same seed (BigInt or number) → same outputs');
    assert.notDeepEqual(a, c, 'different seed → different outputs');
    assert.deepEqual(mech.perturbIndicesSeededForTesting(xs, 2n ** 64n - 1n).length, 1000);
  });
});

describe('unary encoding (q01 = q10 = 1/4)', () => {
  const unaryDoc = {
    format: 'privlift-mechanism', version: 1, id: 'oue3',
    labels: ['a', 'b', 'c'], prior: [1 / 3, 1 / 3, 1 / 3],
    mechanism: { kind: 'unary', q01: 0.25, q10: 0.25 },
    claims: { ldp_x: 2.2 }, // ln 9 = 2.197: two bits differ, each by a factor 3
  };
  let mech;
  before(async () => {
    const doc = await parseMechanism(unaryDoc);
    assert.equal(doc.kind, 'unary');
    mech = doc.verify({ maxLdpX: 2.5 });
  });

  test('perturbBits follows the flip probabilities (5 sd)', () => {
    assert.equal(mech.kind, 'unary');
    const n = 10_000;
    const ones = [0, 0, 0];
    for (let i = 0; i < n; i++) {
      const bits = mech.perturbBits('b');
      assert.ok(bits instanceof Uint8Array && bits.length === 3);
      bits.forEach((b, j) => { assert.ok(b === 0 || b === 1); ones[j] += b; });
    }
    for (const [j, p] of [0.25, 0.75, 0.25].entries()) {
      const sd = Math.sqrt(n * p * (1 - p));
      assert.ok(Math.abs(ones[j] - n * p) <= 5 * sd, `bit ${j}: ${ones[j]} ones, expected ${n * p}`);
    }
  });

  test('receiptBits: lifts within the bounds, no output index', () => {
    const bits = mech.perturbBits(0);
    for (const b of [bits, Array.from(bits), Array.from(bits, (v) => v === 1)]) {
      const r = mech.receiptBits(b);
      assert.equal(r.output, Array.from(bits).join(''));
      assert.equal(r.outputIndex, undefined);
      assert.equal(r.entries.length, 3);
      for (const e of r.entries) {
        assert.ok(Math.abs(e.lift - e.posterior / e.prior) < 1e-12);
        assert.ok(e.lift >= r.minLiftBound && e.lift <= r.maxLiftBound);
      }
    }
  });

  test('seeded bits are deterministic', () => {
    const a = mech.perturbBitsSeededForTesting('c', 5n);
    assert.deepEqual(a, mech.perturbBitsSeededForTesting(2, 5));
    const many = new Set(Array.from({ length: 64 }, (_, k) => mech.perturbBitsSeededForTesting('c', BigInt(k)).join('')));
    assert.ok(many.size > 1, 'different seeds give different vectors');
  });

  test('wrong API for the kind, and bad bit vectors', async () => {
    await rejectsWith(() => mech.perturb('a'), 'invalid_argument', 'perturbBits');
    await rejectsWith(() => mech.perturbIndex(0), 'invalid_argument', 'perturbBits');
    await rejectsWith(() => mech.perturbIndices([0]), 'invalid_argument', 'perturbBits');
    await rejectsWith(() => mech.receipt(0), 'invalid_argument', 'receiptBits');
    await rejectsWith(() => mech.receiptBits([0, 1]), 'dimension_mismatch');
    await rejectsWith(() => mech.receiptBits([0, 2, 1]), 'invalid_argument', 'bits[1]');
    await rejectsWith(() => mech.receiptBits(new Uint8Array([0, 2, 1])), 'invalid_argument', 'bits[1]');
    await rejectsWith(() => mech.receiptBits('010'), 'invalid_argument', 'bits');
    await rejectsWith(() => mech.perturbBits(3), 'unknown_value');
    const krr = (await parseMechanism(krrDoc())).verify();
    await rejectsWith(() => krr.perturbBits(0), 'invalid_argument', 'unary');
    await rejectsWith(() => krr.receiptBits([0, 1, 0]), 'invalid_argument', 'unary');
  });

  test('bits that are no byte are refused, not wrapped (256 would become 0)', async () => {
    await rejectsWith(() => mech.receiptBits([0, 256, 1]), 'invalid_argument', 'bits[1]');
    await rejectsWith(() => mech.receiptBits([0, 1.5, 1]), 'invalid_argument', 'bits[1]');
    await rejectsWith(() => mech.receiptBits([0, '1', 1]), 'invalid_argument', 'bits[1]');
    await rejectsWith(() => mech.receiptBits([false, 255, true]), 'invalid_argument', 'bits[1]');
    assert.equal(mech.receiptBits([false, true, true]).output, '011');
  });
});

describe('errors', () => {
  let doc;
  let mech;
  before(async () => {
    doc = await parseMechanism(krrDoc());
    mech = doc.verify();
  });

  test('a lying document is rejected: claim_violated', async () => {
    const liar = await parseMechanism(krrDoc({ claims: { ldp_x: 0.5 } }));
    const err = await rejectsWith(() => liar.verify(), 'claim_violated', 'ldp_x');
    assert.equal(err.cause.name, 'PrivliftError', 'the wasm error is kept as the cause');
    assert.equal(liar.check().claimsHold, false);
  });

  test('no claim at all: no_claims', async () => {
    const bare = await parseMechanism(krrDoc({ claims: {} }));
    await rejectsWith(() => bare.verify(), 'no_claims');
  });

  test('policy violated; the checks name the limits by their camelCase keys', async () => {
    await rejectsWith(() => doc.verify({ maxLdpX: 0.5 }), 'policy_violated');
    await rejectsWith(() => doc.verify({ maxEpsU: 0.1 }), 'policy_violated');
    await rejectsWith(() => doc.verify({ maxEpsL: 0.1 }), 'policy_violated');
    const v = doc.check({ maxLdpX: 0.5, maxLip: 10 });
    assert.equal(v.policyHolds, false);
    assert.deepEqual(v.policy.map((c) => [c.notion, c.holds]), [['maxLdpX', false], ['maxLip', true]]);
    assert.deepEqual(v.claims.map((c) => c.notion), ['ldpX']);
  });

  test('a snake_case policy key is refused, naming its camelCase key', async () => {
    for (const [snake, camel] of [['max_ldp_x', 'maxLdpX'], ['max_eps_l', 'maxEpsL'], ['max_eps_u_s', 'maxEpsUS'],
      ['max_verify_work', 'maxVerifyWork']]) {
      const err = await rejectsWith(() => doc.verify({ [snake]: 0.5 }), 'invalid_argument', camel);
      assert.ok(err.message.includes(snake), err.message);
      await rejectsWith(() => doc.check({ [snake]: 10 }), 'invalid_argument', camel);
    }
  });

  test('malformed policies: invalid_argument', async () => {
    await rejectsWith(() => doc.verify({ maxLDPX: 0.5 }), 'invalid_argument', 'maxLDPX'); // misspelt: never ignored
    await rejectsWith(() => doc.verify({ maxLdpX: '1' }), 'invalid_argument', 'maxLdpX');
    await rejectsWith(() => doc.verify({ maxLdpX: -1 }), 'invalid_argument');
    await rejectsWith(() => doc.verify({ maxLdpX: NaN }), 'invalid_argument');
    await rejectsWith(() => doc.verify(5), 'invalid_argument', 'policy');
    // A limit that is there is a number >= 0 (Infinity: no limit), for every limit: null or
    // undefined never removes one (leave the key out for that), and no value is coerced.
    const keys = ['maxLdpX', 'maxLdp', 'maxLip', 'maxEpsL', 'maxEpsU', 'maxLdpS', 'maxLipS', 'maxEpsLS', 'maxEpsUS',
      'maxVerifyWork'];
    for (const key of keys) {
      for (const bad of [null, undefined, '1', '', true, false, {}, { eps: 1 }, [1], 1n, () => 1]) {
        await rejectsWith(() => doc.verify({ [key]: bad }), 'invalid_argument', 'policy');
        await rejectsWith(() => doc.check({ [key]: bad }), 'invalid_argument', 'policy');
      }
      for (const bad of [NaN, -1, -Infinity]) {
        await rejectsWith(() => doc.verify({ [key]: bad }), 'invalid_argument');
        await rejectsWith(() => doc.check({ [key]: bad }), 'invalid_argument');
      }
      assert.equal(doc.check({ [key]: Infinity }).policyHolds, true, key);
    }
    // An unknown key is quoted: a newline or U+202E in it cannot forge a line or turn one around.
    const forged = await rejectsWith(() => doc.verify({ 'x\n\u202eprivlift: verified OK': 1 }), 'invalid_argument');
    assert.ok(forged.message.includes('"x\\n\\u{202e}privlift: verified OK"'), forged.message);
    const long = await rejectsWith(() => doc.verify({ ['k'.repeat(1 << 20)]: 1 }), 'invalid_argument');
    assert.ok(long.message.length < 600 && long.message.includes('(1048576 characters)'), long.message.slice(0, 600));
    // Limits only a plain object's own properties hold: anywhere else (a Map entry, a
    // class getter, a prototype) they are refused, never silently dropped.
    class Limits { get maxLdpX() { return 0.5; } }
    for (const hidden of [new Map([['maxLdpX', 0.5]]), new Limits(), Object.create({ maxLdpX: 0.5 })]) {
      await rejectsWith(() => doc.verify(hidden), 'invalid_argument', 'plain object');
      await rejectsWith(() => doc.check(hidden), 'invalid_argument', 'plain object');
    }
    // An own limit is read whether or not it is enumerable, and with a null prototype.
    const quiet = {};
    Object.defineProperty(quiet, 'maxLdpX', { value: 0.5, enumerable: false });
    await rejectsWith(() => doc.verify(quiet), 'policy_violated');
    await rejectsWith(() => doc.verify(Object.assign(Object.create(null), { maxLdpX: 0.5 })), 'policy_violated');
  });

  test('malformed JSON: json', async () => {
    await rejectsWith(() => parseMechanism('{"format": "privlift-mechanism",'), 'json');
    await rejectsWith(() => parseMechanism({ ...krrDoc(), surprise: 1 }), 'json');
  });

  test('validation codes cross from the core', async () => {
    await rejectsWith(() => parseMechanism({ ...krrDoc(), format: 'other' }), 'unsupported_format');
    await rejectsWith(() => parseMechanism({ ...krrDoc(), prior: [0.5, 0.5, 0.5] }), 'not_normalized');
    await rejectsWith(() => parseMechanism({ ...krrDoc(), labels: ['a', 'a', 'c'] }), 'duplicate_label');
  });

  test('a document of the wrong type: invalid_argument', async () => {
    await rejectsWith(() => parseMechanism(42), 'invalid_argument', 'document');
    await rejectsWith(() => parseMechanism(undefined), 'invalid_argument', 'document');
  });

  test('out-of-alphabet values: unknown_value', async () => {
    await rejectsWith(() => mech.perturb('zzz'), 'unknown_value', 'not in the input alphabet');
    await rejectsWith(() => mech.perturbIndex(3), 'unknown_value');
    await rejectsWith(() => mech.perturbIndex(2 ** 32), 'unknown_value'); // not wrapped to 0
    await rejectsWith(() => mech.perturbIndices(new Uint32Array([0, 7])), 'unknown_value');
    await rejectsWith(() => mech.perturbIndicesSeededForTesting([9], 1n), 'unknown_value');
  });

  test('no error message ever contains the value the user entered', async () => {
    const secrets = ['my SSN 123-45-6789', 'zzz-private-zzz'];
    const numbers = [1234567, 98765.25, 2 ** 40];
    const calls = [
      (v) => mech.perturb(v), (v) => mech.perturbIndex(v), (v) => mech.inputIndex(v),
      (v) => mech.perturbIndices([0, v]), (v) => mech.perturbIndices(v), (v) => mech.perturbBits(v),
      (v) => mech.perturbIndicesSeededForTesting([v], 1n),
    ];
    for (const v of [...secrets, ...numbers]) {
      for (const call of calls) {
        let err;
        try { call(v); } catch (e) { err = e; }
        assert.ok(err instanceof PrivliftError, `a call with ${typeof v} did not throw a PrivliftError`);
        for (const needle of [String(v), JSON.stringify(v), '123-45-6789', 'zzz-private']) {
          assert.ok(!err.message.includes(needle), `the message leaks the value: ${err.message}`);
        }
      }
    }
  });

  test('bad argument types: invalid_argument naming the argument', async () => {
    for (const bad of [1, 1.5, NaN, -1, Infinity, null, undefined, true, {}, 1n]) {
      await rejectsWith(() => mech.perturb(bad), 'invalid_argument', '`label`');
    }
    for (const bad of [1.5, NaN, -1, Infinity, null, undefined, true, {}, 1n, '1']) {
      await rejectsWith(() => mech.perturbIndex(bad), 'invalid_argument', '`i`');
    }
    await rejectsWith(() => mech.perturbIndices([0, 1.5]), 'invalid_argument', 'indices[1]');
    await rejectsWith(() => mech.perturbIndices('abc'), 'invalid_argument', 'indices');
    await rejectsWith(() => mech.perturbIndices(7), 'invalid_argument', 'indices');
    await rejectsWith(() => mech.perturbIndicesSeededForTesting([0], -1n), 'invalid_argument', 'seed');
    await rejectsWith(() => mech.perturbIndicesSeededForTesting([0], 2n ** 64n), 'invalid_argument', 'seed');
    await rejectsWith(() => mech.perturbIndicesSeededForTesting([0], 0.5), 'invalid_argument', 'seed');
    await rejectsWith(() => mech.receipt(-1), 'invalid_argument', '`y`');
  });

  test('unknown outputs: unknown_output', async () => {
    await rejectsWith(() => mech.receipt(3), 'unknown_output');
    await rejectsWith(() => mech.receipt('Z'), 'unknown_output');
  });

  test('indices beyond 2^32 are refused by the core, not wrapped into range', async () => {
    // wasm takes u32: 2^32 + 1 would wrap to 1, a valid index, without the JS conversion.
    for (const big of [2 ** 32, 2 ** 32 + 1, 2 ** 40, Number.MAX_SAFE_INTEGER]) {
      await rejectsWith(() => mech.receipt(big), 'unknown_output');
      await rejectsWith(() => mech.perturbIndex(big), 'unknown_value');
      await rejectsWith(() => mech.perturbIndices([0, big]), 'unknown_value');
      await rejectsWith(() => mech.perturbIndicesSeededForTesting([big], 1n), 'unknown_value');
      await rejectsWith(() => mech.inputIndex(big), 'unknown_value');
    }
    await rejectsWith(() => mech.perturbIndex(0xffff_ffff), 'unknown_value');
    assert.equal(mech.inputIndex(2), 2);
    await rejectsWith(() => mech.inputIndex(3), 'unknown_value');
  });

  test('policies are read by the core alone: the same codes through every entry point', async () => {
    for (const bad of ['strict', 5, true, [1], () => 1]) {
      await rejectsWith(() => doc.verify(bad), 'invalid_argument', 'policy');
      await rejectsWith(() => doc.check(bad), 'invalid_argument', 'policy');
    }
    await rejectsWith(() => doc.check({ maxLdpx: 1 }), 'invalid_argument', 'maxLdpx');
    assert.equal(doc.check(null).policy.length, 0);
    assert.equal(doc.verify(undefined).id, doc.id);
  });

  test('errorCodes lists the core codes, the JS codes and the TypeScript union', async () => {
    const raw = await import('../../pkg/privlift.js');
    const core = raw.errorCodes();
    assert.ok(core.length >= 20);
    assert.deepEqual(errorCodes.slice(0, core.length), core, 'core codes first, in order');
    assert.deepEqual(errorCodes.slice(core.length), ['http', 'network', 'init', 'budget_exceeded', 'storage', 'invalid_state', 'needs_async']);
    assert.ok(Object.isFrozen(errorCodes));
    const dts = await readFile(new URL('../../js/privlift.d.ts', import.meta.url), 'utf8');
    const union = (name) => {
      const m = dts.match(new RegExp(`export type ${name} =([^;]*);`));
      assert.ok(m, `type ${name} in privlift.d.ts`);
      return [...m[1].matchAll(/'([a-z_]+)'/g)].map((x) => x[1]);
    };
    assert.deepEqual([...union('CoreErrorCode'), ...union('JsErrorCode')], [...errorCodes]);
  });

  test('PrivliftError can be made on the JS side', () => {
    const e = new PrivliftError('http', 'gone', { status: 410 });
    assert.ok(e instanceof Error);
    assert.equal(e.name, 'PrivliftError');
    assert.equal(e.code, 'http');
    assert.equal(e.status, 410);
  });
});

describe('fetchMechanism (server on 127.0.0.1)', () => {
  let server;
  let base;
  before(async () => {
    server = createServer((req, res) => {
      const body = {
        '/krr.json': JSON.stringify(krrDoc()),
        '/liar.json': JSON.stringify(krrDoc({ claims: { ldp_x: 0.1 } })),
        '/broken.json': '{"format":',
      }[req.url];
      if (req.url === '/huge.json' || req.url === '/huge-chunked.json') {
        // 2 MB of JSON whitespace before a valid document; with and without Content-Length.
        const doc = ' '.repeat(2_000_000) + JSON.stringify(krrDoc());
        const headers = { 'content-type': 'application/json' };
        if (req.url === '/huge.json') headers['content-length'] = Buffer.byteLength(doc);
        res.writeHead(200, headers);
        if (req.url === '/huge.json') res.end(doc);
        else { res.write(doc.slice(0, 1_000_000)); res.end(doc.slice(1_000_000)); }
        return;
      }
      if (body === undefined) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      }
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${server.address().port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  test('downloads, parses, verifies', async () => {
    const m = await fetchMechanism(`${base}/krr.json`, { maxLdpX: 1 });
    assert.ok(m instanceof Mechanism);
    assert.equal(m.id, 'krr3-ln2');
    const m2 = await fetchMechanism(new URL('/krr.json', base), undefined, { headers: { accept: 'application/json' } });
    assert.ok(['A', 'B', 'C'].includes(m2.perturb('a')));
  });

  test('HTTP errors: http with the status', async () => {
    const e = await rejectsWith(() => fetchMechanism(`${base}/missing.json`, {}), 'http', '404');
    assert.equal(e.status, 404);
  });

  test('a lying, over-budget or broken document is refused', async () => {
    await rejectsWith(() => fetchMechanism(`${base}/liar.json`, {}), 'claim_violated');
    await rejectsWith(() => fetchMechanism(`${base}/krr.json`, { maxLdpX: 0.1 }), 'policy_violated');
    await rejectsWith(() => fetchMechanism(`${base}/broken.json`, {}), 'json');
  });

  test('a document above fetchOptions.maxBytes is refused before it is parsed: too_costly', async () => {
    for (const path of ['/huge.json', '/huge-chunked.json']) {
      await rejectsWith(() => fetchMechanism(`${base}${path}`, {}, { maxBytes: 1_000_000 }), 'too_costly', 'maxBytes');
      // Under the default cap (64 MiB) the same 2 MB document verifies.
      const m = await fetchMechanism(`${base}${path}`, {});
      assert.equal(m.id, 'krr3-ln2');
      m.free();
    }
    await rejectsWith(() => fetchMechanism(`${base}/krr.json`, {}, { maxBytes: -1 }), 'invalid_argument', 'maxBytes');
  });

  test('bad arguments and a refused connection', async () => {
    await rejectsWith(() => fetchMechanism(42, {}), 'invalid_argument', 'url');
    await rejectsWith(() => fetchMechanism(`${base}/krr.json`, 'strict'), 'invalid_argument', 'policy');
    // A port that was just free: the connection is refused (loopback only).
    const tmp = createServer();
    await new Promise((resolve) => tmp.listen(0, '127.0.0.1', resolve));
    const port = tmp.address().port;
    await new Promise((resolve) => tmp.close(resolve));
    await rejectsWith(() => fetchMechanism(`http://127.0.0.1:${port}/krr.json`, {}), 'network');
  });
});

test('the npm tarball carries both licences and every file package.json names', async () => {
  const { execFileSync } = await import('node:child_process');
  // --ignore-scripts: the prepack build has already run (scripts/build-wasm.sh).
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const packed = new Set(JSON.parse(out)[0].files.map((f) => f.path));
  const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
  for (const f of ['LICENSE-MIT', 'LICENSE-APACHE', ...pkg.files]) assert.ok(packed.has(f), `${f} is not in the tarball`);
  assert.equal(pkg.license, 'MIT OR Apache-2.0');
  const apache = await readFile(new URL('../../LICENSE-APACHE', import.meta.url), 'utf8');
  assert.match(apache, /Apache License\s+Version 2\.0, January 2004/);
});

test('console.log and JSON.stringify show a summary, not an empty object', async () => {
  const { inspect } = await import('node:util');
  const text = JSON.stringify({
    format: 'privlift-mechanism', version: 1, id: 'grade', labels: ['A', 'B', 'C'], prior: [0.2, 0.5, 0.3],
    mechanism: { kind: 'krr', epsilon: 1 }, claims: { ldp_x: 1 },
  });
  const doc = await parseMechanism(text);
  assert.match(inspect(doc), /^MechanismDocument \{[\s\S]*id: 'grade'[\s\S]*verified: false/);
  const m = doc.verify({});
  const summary = JSON.parse(JSON.stringify(m));
  assert.deepEqual(Object.keys(summary), ['id', 'kind', 'sha256', 'inputs', 'outputs', 'verified', 'claims']);
  assert.equal(summary.inputs, 3);
  assert.equal(summary.claims.ldpX.bound, 1);
  assert.ok(summary.claims.ldpX.audited <= 1 + 1e-9);
  assert.match(inspect(m), /^Mechanism \{/);
  m.free();
  doc.free();
  assert.deepEqual(JSON.parse(JSON.stringify(m)), { freed: true });
});

test("the .wasm files are exported, so init()'s advice (pass the .wasm URL) can be followed", async () => {
  const { existsSync } = await import('node:fs');
  const { fileURLToPath } = await import('node:url');
  for (const spec of ['privlift/pkg/privlift_bg.wasm', 'privlift/pkg-open/privlift_open_bg.wasm',
    'privlift/pkg-continuous/privlift_continuous_bg.wasm', 'privlift/pkg-design/privlift_design_bg.wasm']) {
    const url = import.meta.resolve(spec);
    assert.ok(existsSync(fileURLToPath(url)), `${spec} → ${url}`);
  }
  const bytes = await readFile(new URL(import.meta.resolve('privlift/pkg/privlift_bg.wasm')));
  assert.ok(WebAssembly.validate(bytes));
});

test('the open-domain module loads at the first open-domain document only, or from what initOpen is given', async () => {
  const { execFileSync } = await import('node:child_process');
  const run = (code) => JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' }));
  const fruit = JSON.stringify(await readFile(new URL('../../examples/fruit-olh.json', import.meta.url), 'utf8'));
  const discrete = JSON.stringify(JSON.stringify({ format: 'privlift-mechanism', version: 1, id: 'k', labels: ['a', 'b'],
    prior: [0.5, 0.5], mechanism: { kind: 'krr', epsilon: 1 }, claims: { ldp_x: 1 } }));
  const lazy = run(`
    import { parseMechanism, isInitialized, isOpenInitialized } from 'privlift';
    (await parseMechanism(${discrete})).verify({}).perturb('a');
    const afterDiscrete = [isInitialized(), isOpenInitialized()];
    const kind = (await parseMechanism(${fruit})).verify({}).kind;
    console.log(JSON.stringify({ afterDiscrete, kind, afterOpen: isOpenInitialized() }));
  `);
  assert.deepEqual(lazy, { afterDiscrete: [true, false], kind: 'olh', afterOpen: true });
  // A module from elsewhere: a bad one is an init error naming the open-domain module.
  const given = run(`
    import { initOpen, isOpenInitialized, parseMechanism } from 'privlift';
    let bad = null;
    await initOpen(new Uint8Array([0, 97, 115, 109, 9, 9, 9, 9])).catch((e) => { bad = [e.code, /open-domain/.test(e.message)]; });
    const { readFileSync } = await import('node:fs');
    await initOpen(readFileSync(new URL(import.meta.resolve('privlift/pkg-open/privlift_open_bg.wasm'))));
    const ready = isOpenInitialized();
    const kind = (await parseMechanism(${fruit})).kind;
    console.log(JSON.stringify({ bad, ready, kind }));
  `);
  assert.deepEqual(given, { bad: ['init', true], ready: true, kind: 'olh' });
});

test('in Node, fetchMechanism reads a file: URL (with maxBytes) and refuses a relative path saying what works', async () => {
  const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { pathToFileURL } = await import('node:url');
  const dir = await mkdtemp(join(tmpdir(), 'privlift-file-'));
  try {
    const path = join(dir, 'krr.json');
    await writeFile(path, JSON.stringify(krrDoc()));
    const url = pathToFileURL(path);
    for (const input of [url, url.href]) {
      const m = await fetchMechanism(input, { maxLdpX: 1 });
      assert.equal(m.id, 'krr3-ln2');
      m.free();
    }
    await rejectsWith(() => fetchMechanism(url, {}, { maxBytes: 100 }), 'too_costly', 'maxBytes');
    await rejectsWith(() => fetchMechanism(pathToFileURL(join(dir, 'missing.json')), {}), 'io', 'ENOENT');
    const e = await rejectsWith(() => fetchMechanism('./krr.json', {}), 'invalid_argument', 'relative path');
    assert.match(e.message, /new URL\('\.\/m\.json', import\.meta\.url\)/);
    assert.match(e.message, /parseMechanism\(await readFile\(path\)\)/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('numeric labels: perturb reads labels, perturbIndex indices; inputIndex refuses an ambiguous number', async () => {
  const doc = (k, labels) => ({
    format: 'privlift-mechanism', version: 1, id: `n${k}`, labels, prior: Array(k).fill(1 / k),
    mechanism: { kind: 'krr', epsilon: 1 }, claims: { ldp_x: 1 },
  });
  const m = (await parseMechanism(doc(3, ['1', '2', '3']))).verify({});
  // A string is a label: "2" is index 1, and perturb returns a label.
  assert.equal(m.inputIndex('2'), 1);
  assert.ok(['1', '2', '3'].includes(m.perturb('2')));
  await rejectsWith(async () => m.perturb(2), 'invalid_argument', 'perturbIndex');
  // Where a number may be either (inputIndex, perturbBits, the ledger), another input's label is ambiguous.
  const e = await rejectsWith(async () => m.inputIndex(1), 'invalid_argument', 'ambiguous');
  assert.ok(!/[0-9]/.test(e.message.replace(/perturbIndex|\[[0-9]+\]/g, '')), `the message names no value: ${e.message}`);
  // perturbIndex and perturbIndices take indices only.
  assert.ok(m.perturbIndex(2) < 3);
  assert.equal(m.perturbIndices(new Uint32Array([0, 1, 2])).length, 3);
  assert.equal(m.perturbIndices([0, 1, 2]).length, 3);
  await rejectsWith(async () => m.perturbIndex('2'), 'invalid_argument', 'index');
  await rejectsWith(async () => m.perturbIndex(3), 'unknown_value');
  await rejectsWith(async () => m.perturbIndices(['1']), 'invalid_argument', 'inputIndex');
  m.free();
});

test('after free(), every method throws PrivliftError invalid_state; a second free() (or dispose) does nothing', async () => {
  const doc = await parseMechanism(krrDoc());
  const m = doc.verify({});
  const y = m.perturb('a');
  m.free();
  m.free();
  if (typeof Symbol.dispose === 'symbol') m[Symbol.dispose](); // the end of a `using` block after free()
  for (const call of [() => m.perturb('a'), () => m.perturbIndex(0), () => m.receipt(y), () => m.report(y), () => m.id,
    () => m.leakage(), () => m.receiptBounds(), () => m.lipUnderAnyPrior(), () => m.verification()]) {
    await rejectsWith(async () => call(), 'invalid_state', 'Mechanism was freed');
  }
  assert.deepEqual(JSON.parse(JSON.stringify(m)), { freed: true });
  if (typeof Symbol.dispose === 'symbol') doc[Symbol.dispose]();
  doc.free();
  for (const call of [() => doc.verify({}), () => doc.check(), () => doc.id, () => doc.labels, () => doc.audit()]) {
    await rejectsWith(async () => call(), 'invalid_state', 'MechanismDocument was freed');
  }
});
