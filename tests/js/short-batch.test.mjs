// Short batches of perturbIndices / perturbIndicesInPlace: `node --test tests/js/` (after
// scripts/build-wasm.sh). A batch of a few inputs crosses into the module one input at a
// time, a longer one a block at a time; both give each input its own row, and neither takes
// a `subarray` of the caller's array when the batch is one block (V8 moves a small array's
// elements to a buffer of their own for that: it was half of a one-input batch's time).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { parseMechanism } from 'privlift';

const LN2 = Math.log(2);
/** 3-RR at ln 2: P(y = x) = 1/2, each other output 1/4. */
const ROW = (x, y) => (x === y ? 0.5 : 0.25);
const doc = {
  format: 'privlift-mechanism',
  version: 1,
  id: 'krr3-short',
  labels: ['a', 'b', 'c'],
  prior: [1 / 3, 1 / 3, 1 / 3],
  mechanism: { kind: 'matrix', p_y_given_x: [0, 1, 2].map((x) => [0, 1, 2].map((y) => ROW(x, y))) },
  claims: { ldp_x: LN2 },
};
const mech = (await parseMechanism(JSON.stringify(doc))).verify();

// Lengths on both sides of the one-at-a-time limit (16 inputs), and a longer batch.
const LENGTHS = [1, 2, 9, 16, 17, 100];

/** Counts `subarray` calls on `xs` (an own property shadows the prototype's). */
function countingSubarray(xs) {
  const seen = { calls: 0 };
  xs.subarray = (...args) => {
    seen.calls += 1;
    return Uint32Array.prototype.subarray.apply(xs, args);
  };
  return seen;
}

test('a one-block batch takes no subarray of the caller\'s array', () => {
  for (const n of LENGTHS) {
    const xs = new Uint32Array(n).fill(1);
    const seen = countingSubarray(xs);
    mech.perturbIndices(xs);
    mech.perturbIndicesInPlace(xs);
    assert.equal(seen.calls, 0, `n = ${n}: ${seen.calls} subarray calls`);
    assert.ok(xs.every((y) => y < 3));
  }
});

test('each input of a short batch is drawn from its own row, in place or not', () => {
  const reps = 4000;
  for (const n of LENGTHS) {
    for (const inPlace of [false, true]) {
      const counts = [0, 1, 2].map(() => [0, 0, 0]);
      for (let r = 0; r < reps; r++) {
        // Position i holds (i + r) mod 3: a copy that read or wrote the wrong element
        // would move counts between rows.
        const xs = Uint32Array.from({ length: n }, (_, i) => (i + r) % 3);
        const ys = inPlace ? mech.perturbIndicesInPlace(xs) : mech.perturbIndices(xs);
        assert.equal(ys.length, n);
        for (let i = 0; i < n; i++) counts[(i + r) % 3][ys[i]] += 1;
        if (!inPlace) assert.ok(xs.every((x, i) => x === (i + r) % 3), 'perturbIndices wrote into its argument');
      }
      for (let x = 0; x < 3; x++) {
        const total = counts[x].reduce((a, b) => a + b, 0);
        for (let y = 0; y < 3; y++) {
          const p = ROW(x, y);
          const sd = Math.sqrt(total * p * (1 - p));
          assert.ok(Math.abs(counts[x][y] - total * p) <= 5 * sd,
            `n = ${n}, in place ${inPlace}: count[${x}][${y}] = ${counts[x][y]}, expected ${total * p} ± ${5 * sd}`);
        }
      }
    }
  }
});

test('a short batch with an invalid input is refused and, in place, zeroed', () => {
  for (const n of LENGTHS) {
    const xs = new Uint32Array(n).fill(2);
    xs[n - 1] = 7;
    assert.throws(() => mech.perturbIndicesInPlace(xs), (e) => e.code === 'unknown_value');
    assert.ok(xs.every((y) => y === 0), `n = ${n}: the array still holds ${xs}`);
    const kept = new Uint32Array(n).fill(2);
    kept[n - 1] = 7;
    assert.throws(() => mech.perturbIndices(kept), (e) => e.code === 'unknown_value');
    assert.ok(kept.every((x, i) => x === (i === n - 1 ? 7 : 2)), 'perturbIndices wrote into its argument');
  }
});
