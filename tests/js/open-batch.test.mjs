// OpenMechanism.perturbBatch through the npm package: under a seeded generator the batch is
// the per-report path report for report, for every open kind; the golden vectors of the
// open kinds reproduced through it; refusals that name the value's index, never its text,
// and return no batch; the batch's reports as objects, canonical texts and one report body.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { parseMechanism, OpenReportBatch, PrivliftError } from 'privlift';
import { reportsBody } from '../../js/reports.js';
import { HANDLE } from '../../js/common.js';

const openDoc = (mechanism, maxBytes = 64) => JSON.stringify({
  format: 'privlift-mechanism', version: 1, id: `batch-${mechanism.kind}`, domain: { kind: 'strings', max_bytes: maxBytes },
  mechanism: { hash: 'xxh32', hash_version: 1, epsilon: 2, ...mechanism }, claims: { ldp_x: 2.1 },
});

const KINDS = {
  olh: openDoc({ kind: 'olh', g: 7 }),
  hadamard: openDoc({ kind: 'hadamard', bits: 12, hash_seed: 99 }),
  hcms: openDoc({ kind: 'hcms', k: 1000, m: 256 }),
  heavy_hitters: openDoc({ kind: 'heavy_hitters', g: 5, prefix_bits: [3, 16, 61, 512], split: [0.1, 0.2, 0.3, 0.4] }),
};
const FIELDS = { olh: ['seed', 'y'], hadamard: ['j', 'bit'], hcms: ['j', 'l', 'bit'], heavy_hitters: ['round', 'seed', 'y'] };

async function verified(text) {
  const doc = await parseMechanism(text);
  try {
    return doc.verify({});
  } finally {
    doc.free();
  }
}

/**
 * Words, the empty string, multi-byte characters short and long (the two ways JS writes a
 * value), a lone surrogate, URLs of exactly 64 bytes.
 */
function values(n) {
  const fixed = ['apple', '', 'kiwi', 'é', '日本語', '🍐 pear', 'banana', 'a\ud800b', 'ü'.repeat(31)];
  return Array.from({ length: n }, (_, i) => (i % 11 === 9 ? `https://example.org/${String(i).padStart(44, '0')}`
    : i % 11 === 10 ? `word-${(i * 2654435761) % 10007}` : fixed[i % 11]));
}

const canonicals = (batch) => Array.from({ length: batch.length }, (_, i) => batch.canonical(i));

for (const [kind, text] of Object.entries(KINDS)) {
  test(`${kind}: the seeded batch is the per-report path report for report`, async () => {
    const m = await verified(text);
    const vs = values(6000); // more than two of the module's blocks
    const batch = m.perturbBatchSeededForTesting(vs, 34n);
    assert.ok(batch instanceof OpenReportBatch);
    assert.equal(batch.kind, kind);
    assert.equal(batch.length, vs.length);
    assert.deepEqual(batch.fields, FIELDS[kind]);
    for (const f of FIELDS[kind]) assert.ok(batch[f] instanceof Uint32Array && batch[f].length === vs.length, f);
    const single = m.perturbManySeededForTesting(vs, 34n);
    assert.deepEqual(canonicals(batch), single);
    for (const i of [0, 1, 7, 5999]) assert.deepEqual(batch.report(i), m.report(single[i]).output);
    // Long values on average: joined and encoded at once, the other way JS writes them.
    const long = vs.slice(0, 500).map((v) => v.padEnd(20, '-'));
    assert.deepEqual(canonicals(m.perturbBatchSeededForTesting(long, 3n)), m.perturbManySeededForTesting(long, 3n));
    m.free();
  });
}

test('a first multi-byte value after the first joined chunk grows the staged room', async () => {
  const m = await verified(KINDS.olh);
  // 2,500 ASCII values (two chunks and a half), then every kind of value of values().
  const vs = [...Array.from({ length: 2500 }, (_, i) => `w${i}`), ...values(600)];
  assert.deepEqual(canonicals(m.perturbBatchSeededForTesting(vs, 8n)), m.perturbManySeededForTesting(vs, 8n));
  m.free();
});

test('no value stays in the module after a batch, drawn or refused', async () => {
  const m = await verified(openDoc({ kind: 'olh', g: 4 }, 16));
  const staged = () => m[HANDLE].stageValues(0); // the whole staged buffer, as the module keeps it
  const vs = values(3000).map((v) => v.slice(0, 5));
  m.perturbBatch(vs);
  assert.ok(staged().length >= 3000 && staged().every((b) => b === 0));
  assert.throws(() => m.perturbBatch(vs.with(2999, 'secret-secret-secret')));
  assert.ok(staged().every((b) => b === 0));
  // Room the module's memory cannot hold is refused with a code, not an abort.
  assert.throws(() => m[HANDLE].stageValues(0xffff_ffff), (e) => e?.code === 'invalid_argument');
  assert.equal(m.perturbBatch(vs).length, 3000);
  m.free();
});

test('the open golden vectors replay through the batch', async () => {
  const dir = new URL('../vectors/', import.meta.url);
  const files = (await readdir(dir)).filter((f) => f.startsWith('open-') && f.endsWith('.json'));
  assert.ok(files.length >= 4, files.join());
  for (const file of files) {
    const v = JSON.parse(await readFile(new URL(file, dir), 'utf8'));
    const doc = await parseMechanism(JSON.stringify(v.document));
    const m = doc.verify(v.policy);
    assert.deepEqual(canonicals(m.perturbBatchSeededForTesting(v.inputs, BigInt(v.seed))), v.outputs, file);
    m.free();
    doc.free();
  }
});

test('the CSPRNG batch has every field in range and fresh draws', async () => {
  const m = await verified(KINDS.hcms);
  const vs = values(1000);
  const a = m.perturbBatch(vs);
  const b = m.perturbBatch(vs);
  assert.equal(a.length, 1000);
  assert.ok(a.j.every((j) => j < 1000) && a.l.every((l) => l < 256) && a.bit.every((x) => x <= 1));
  assert.notDeepEqual(a.l, b.l);
  assert.equal(m.perturbBatch([]).length, 0);
  assert.deepEqual(m.perturbBatch([]).fields, FIELDS.hcms);
  m.free();
});

/** Asserts `fn` throws invalid_argument naming `name`, without `secret` in its message. */
function refuses(fn, name, secret = 'secret') {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof PrivliftError, String(e));
    assert.equal(e.code, 'invalid_argument');
    assert.ok(e.message.includes(name), e.message);
    assert.ok(!e.message.includes(secret), `echoes the value: ${e.message}`);
    return true;
  });
}

test('a refused value is named by its index, never echoed, and no batch is made', async () => {
  const m = await verified(openDoc({ kind: 'olh', g: 4 }, 16));
  const vs = values(20).map((v) => v.slice(0, 5));
  refuses(() => m.perturbBatch(vs.with(13, 'secret-secret-secret')), 'values[13]');
  refuses(() => m.perturbBatch(vs.with(3, 'secret\0')), 'values[3]');
  refuses(() => m.perturbBatch(vs.with(0, 'ab\0cd').with(9, 'secret-secret-secret')), 'values[0]');
  refuses(() => m.perturbBatch(vs.with(4, 7)), 'values[4]');
  refuses(() => m.perturbBatch(vs.with(5, null)), 'values[5]');
  refuses(() => m.perturbBatch('secret'), 'values');
  refuses(() => m.perturbBatchSeededForTesting(vs.with(19, 'é'.repeat(9)), 1n), 'values[19]', 'é');
  // The same value passes at the limit (16 bytes).
  assert.equal(m.perturbBatch(vs.with(19, 'é'.repeat(8))).length, 20);
  m.free();
});

test('a batch reads as report objects, canonical texts, envelopes and one report body', async () => {
  const m = await verified(KINDS.heavy_hitters);
  const batch = m.perturbBatchSeededForTesting(values(50), 9n);
  for (const i of [0, 17, 49]) {
    const r = batch.report(i);
    assert.deepEqual(Object.keys(r), FIELDS.heavy_hitters);
    assert.equal(m.canonical(r), batch.canonical(i));
    assert.deepEqual(m.report(batch.canonical(i)).output, r);
  }
  refuses(() => batch.report(50), 'i');
  refuses(() => batch.canonical(-1), 'i');
  const body = JSON.parse(reportsBody(batch));
  assert.equal(body.reports.length, 50);
  body.reports.forEach((r, i) => {
    assert.deepEqual(Object.keys(r), ['mechanism', 'sha256', 'output', 'report_id']);
    assert.equal(r.mechanism, m.id);
    assert.equal(r.sha256, m.sha256);
    assert.deepEqual(r.output, batch.report(i));
    assert.match(r.report_id, /^[0-9a-f]{32}$/);
  });
  assert.equal(new Set(body.reports.map((r) => r.report_id)).size, 50);
  // Ids are drawn once: the same reports posted again, whole or sliced, keep them.
  assert.deepEqual(JSON.parse(reportsBody(batch)), body);
  const part = batch.slice(10, 20);
  assert.equal(part.length, 10);
  assert.deepEqual(JSON.parse(reportsBody(part)).reports, body.reports.slice(10, 20));
  assert.deepEqual(batch.envelope(12), body.reports[12]);
  assert.throws(() => reportsBody(batch.slice(5, 5)), /reports/);
  m.free();
});
