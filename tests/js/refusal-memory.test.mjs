// A document is parsed within the verification budget of the policy given to
// parseMechanism: what verifying would refuse is refused as it is read, and refusing a
// dense 4096 × 4096 identity (33.7 MB) holds at most 4× its bytes above the process's
// baseline (benches/wasm/dense-refusal.mjs in a child process: its file, one copy in wasm
// memory, one row of numbers).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
