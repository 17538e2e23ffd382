// End-to-end, in headless Chromium: the demo's free-text question (an open-domain
// document with a sparse prior) and the heavy hitters the curator discovers from the
// synthetic population, beside that population's truth.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startCurator } from './helpers.mjs';

const root = new URL('../../', import.meta.url).pathname;
const shots = join(root, 'test-output', 'e2e');
mkdirSync(shots, { recursive: true });
const site = join(root, 'target/site');
let curator, context, page, dbDir;

before(async () => {
  dbDir = mkdtempSync(join(tmpdir(), 'privlift-e2e-open-'));
  curator = await startCurator(site, 'sqlite:' + join(dbDir, 'reports.db'));
  context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'privlift-e2e-open-')), {
    executablePath: '/usr/bin/chromium', headless: true, viewport: { width: 900, height: 1100 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'],
  });
  page = await context.newPage();
  page.on('pageerror', (e) => { throw e; });
  await page.goto(curator.base);
  await page.waitForFunction(() => window.__privliftFruit?.ready, null, { timeout: 30000 });
});

after(async () => {
  await context?.close();
  curator?.stop();
  if (dbDir) rmSync(dbDir, { recursive: true, force: true });
});

const doc = (id) => JSON.parse(readFileSync(join(site, 'mechanisms', `${id}.json`), 'utf8'));

/** XXH32 of a string's UTF-8 bytes (shorter than 16 bytes) with `seed`: the spec's hash, written out here. */
function xxh32(seed, text) {
  const b = new TextEncoder().encode(text);
  assert.ok(b.length < 16);
  const P1 = 0x9E3779B1, P2 = 0x85EBCA77, P3 = 0xC2B2AE3D, P4 = 0x27D4EB2F, P5 = 0x165667B1;
  const rotl = (x, r) => ((x << r) | (x >>> (32 - r))) >>> 0;
  let h = (seed + P5 + b.length) >>> 0;
  let i = 0;
  for (; i + 4 <= b.length; i += 4) {
    const w = (b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24)) >>> 0;
    h = Math.imul(rotl((h + Math.imul(w, P3)) >>> 0, 17), P4) >>> 0;
  }
  for (; i < b.length; i++) h = Math.imul(rotl((h + Math.imul(b[i], P5)) >>> 0, 11), P1) >>> 0;
  h = Math.imul(h ^ (h >>> 15), P2) >>> 0;
  h = Math.imul(h ^ (h >>> 13), P3) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

test('the test\'s XXH32 is the spec\'s (the vectors of src/open/hash.rs)', () => {
  assert.equal(xxh32(0, ''), 0x02CC5D05);
  assert.equal(xxh32(0, 'a'), 0x550D7456);
  assert.equal(xxh32(0, 'abc'), 0x32D153FF);
  assert.equal(xxh32(1, ''), 0x0B2CB792);
});

test('free text: the open-domain document verifies; the receipt covers each listed fruit and every other answer', async () => {
  const d = doc('fruit-olh');
  assert.equal(d.mechanism.kind, 'olh');
  assert.match(await page.textContent('#fruit-status'), /^✓ Verified in your browser/);
  const eps = d.claims.ldp_x;
  const tol = 1e-12;
  for (const typed of ['apple', 'mango', 'dragon fruit']) {
    await page.evaluate(() => { window.__privliftFruit.receipt = null; });
    await page.fill('#fruit', typed);
    await page.click('#fruit-perturb');
    await page.waitForFunction(() => window.__privliftFruit.receipt !== null);
    const s = await page.evaluate(() => window.__privliftFruit);
    assert.equal(s.error, null);
    const r = s.receipt;
    // One row per listed value, in the prior's order, with the prior the document states;
    // its bucket under the report's seed, recomputed here from the spec's hash.
    const { seed, y } = s.output;
    assert.deepEqual(r.listed.map((e) => e.value), d.prior.values);
    r.listed.forEach((e, i) => {
      assert.ok(Math.abs(e.prior - d.prior.p[i]) < tol);
      assert.equal(e.inBucket, xxh32(seed, e.value) % d.mechanism.g === y, e.value);
    });
    const rest = 1 - d.prior.p.reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(r.otherMass - rest) < 1e-9, `the other answers' mass ${r.otherMass} vs ${rest}`);
    // Every lift range, listed or not, lies within the audit's e^−εl and e^εu, and those
    // within the LDP the document claims.
    const [lo, hi] = [Math.exp(-r.epsL) * (1 - tol), Math.exp(r.epsU) * (1 + tol)];
    for (const e of r.listed) assert.ok(lo <= e.minLift && e.minLift <= e.maxLift && e.maxLift <= hi, e.value);
    assert.ok(lo <= r.unlistedMinLift && r.unlistedMinLift <= r.unlistedMaxLift && r.unlistedMaxLift <= hi);
    assert.ok(r.epsL <= eps * (1 + tol) && r.epsU <= eps * (1 + tol));
    // The table shows them all, the other answers last.
    const rows = await page.$$eval('#fruit-receipt tbody tr', (rs) => rs.map((row) => row.cells[0].textContent));
    assert.deepEqual(rows, [...d.prior.values, 'any other answer']);
    // What would be sent is the seed and the bucket, never the text.
    const sent = await page.textContent('#fruit-sent');
    assert.ok(!sent.includes(typed), 'the typed value is not shown as sent');
  }
  await page.locator('section[aria-labelledby="h-fruit"]').screenshot({ path: join(shots, 'fruit-receipt.png') });
});

test('free text: an answer longer than the domain is refused with a typed error that does not repeat it', async () => {
  const secret = 'a very long and private answer';
  await page.fill('#fruit', secret);
  await page.click('#fruit-perturb');
  await page.waitForFunction(() => window.__privliftFruit.error !== null);
  const s = await page.evaluate(() => window.__privliftFruit.error);
  assert.equal(s.code, 'invalid_argument');
  assert.ok(!s.message.includes(secret) && !s.message.includes('private'), s.message);
  assert.match(s.message, /value/);
  const shown = await page.textContent('#fruit-error');
  assert.ok(!shown.includes('private'), shown);
  // The earlier answer's report and receipt are gone: they would read as this answer's.
  assert.equal(await page.textContent('#fruit-sent'), '');
  assert.ok(await page.isHidden('#fruit-receipt'));
  assert.equal(await page.evaluate(() => window.__privliftFruit.output), null);
});

test('heavy hitters: the curator finds the top answers without a list, beside the truth', async () => {
  const id = 'fruit-heavy-hitters';
  const truth = JSON.parse(readFileSync(join(site, 'mechanisms', 'truth.json'), 'utf8'))[id];
  const labels = truth.labels ?? truth.values;
  const order = labels.map((_, i) => i).sort((a, b) => truth.p[b] - truth.p[a]);
  const top5 = order.slice(0, 5).map((i) => labels[i]);
  await page.waitForFunction(() => window.__privliftFruit.top !== null);
  const hh = await page.evaluate(() => window.__privliftFruit.top);
  assert.equal(hh.n, truth.n);
  // The five most frequent answers are found, mango among them though the prior never lists it.
  for (const v of top5) assert.ok(hh.values.includes(v), `${v} not found: ${hh.values}`);
  assert.ok(!doc('fruit-olh').prior.values.includes('mango') && hh.values.includes('mango'));
  // Each found value's estimated frequency is within 4 standard errors of its true frequency.
  for (const v of top5) {
    const i = hh.values.indexOf(v);
    const t = truth.p[labels.indexOf(v)];
    assert.ok(Math.abs(hh.estimate[i] - t) <= 4 * hh.std_error[i], `${v}: ${hh.estimate[i]} ± ${hh.std_error[i]} vs ${t}`);
  }
  const rows = await page.$$eval('#fruit-top tbody tr', (rs) => rs.map((r) => [...r.cells].map((c) => c.textContent)));
  assert.equal(rows.length, 10);
  assert.deepEqual(rows.slice(0, 5).map((r) => r[4]), top5, 'the true top answers, in order');
  assert.match(await page.textContent('#fruit-top-status'), /found \d+ of the true top 10/);
  await page.locator('section[aria-labelledby="h-fruit"]').screenshot({ path: join(shots, 'fruit-heavy-hitters.png') });
});
