// End-to-end: the demo page served by the curator CLI, driven in headless Chromium.
// Screenshots of each state go to test-output/e2e/; the README's two (docs/demo.png,
// docs/salary.png) are made here only: PRIVLIFT_BLESS_SCREENSHOTS=1 writes them (screenshots.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { cli, close, startCurator } from './helpers.mjs';
import { drawnKrrLdp, expectedLifts } from './lifts.mjs';
import { bless, STALE, PNGS, contextOptions, fixedTime, seededRandomness, writeRecord, staleness } from './screenshots.mjs';

const root = new URL('../../', import.meta.url).pathname;
const shots = join(root, 'test-output', 'e2e');
mkdirSync(shots, { recursive: true });
const mechanisms = join(root, 'target/site/mechanisms');
let curator, context, page, base, collectorUrl, dbDir;
const browserOptions = {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
};

before(async () => {
  // The curator's side, as scripts/demo.sh runs it: a synthetic population in a fresh
  // SQLite file, and the collector the page sends reports to.
  dbDir = mkdtempSync(join(tmpdir(), 'privlift-e2e-db-'));
  curator = await startCurator(join(root, 'target/site'), 'sqlite:' + join(dbDir, 'reports.db'));
  ({ base, collectorUrl } = curator);
  context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'privlift-e2e-')), {
    ...browserOptions,
    viewport: { width: 900, height: 1100 },
  });
  page = await context.newPage();
  page.on('pageerror', (e) => { throw e; });
});

after(async () => {
  await context?.close();
  curator?.stop();
  if (dbDir) rmSync(dbDir, { recursive: true, force: true });
});

async function choose(file) {
  await page.evaluate(() => { window.__privlift.ready = false; });
  await page.selectOption('#mechanism', file);
  await page.waitForFunction(() => window.__privlift.ready, null, { timeout: 15000 });
}

/** The native CLI prints an unbounded number as "inf". */
const num = (v) => (v === 'inf' ? Infinity : v === '-inf' ? -Infinity : v);
/** The page's number format (an unbounded figure as ∞). */
const fmt = (v, d) => (Number.isFinite(v) ? v.toFixed(d) : v > 0 ? '∞' : '−∞');

/** Sets the cap on LDP about the visitor's answer and waits for the mechanism to be verified again. */
async function setCap(v) {
  await page.evaluate((v) => {
    window.__privlift.ready = false;
    const cap = document.getElementById('cap');
    cap.value = v;
    cap.dispatchEvent(new Event('change'));
  }, v);
  await page.waitForFunction(() => window.__privlift.ready, null, { timeout: 15000 });
}

/** Ticks or unticks "Allow mechanisms without an LDP bound" and waits for the verification. */
async function setAllow(on) {
  if ((await page.isChecked('#allow-unbounded')) === on) return;
  await page.evaluate(() => { window.__privlift.ready = false; });
  await page.setChecked('#allow-unbounded', on);
  await page.waitForFunction(() => window.__privlift.ready, null, { timeout: 15000 });
}

/** Boxes of SVG elements in user units: [{x, y, width, height, ...data}]. */
const boxes = (selector) => page.$$eval(selector, (ns) => ns.map((n) => {
  const b = n.getBBox();
  return { x: b.x, y: b.y, width: b.width, height: b.height, text: n.textContent,
    x1: Number(n.getAttribute('x1')), y1: Number(n.getAttribute('y1')), x2: Number(n.getAttribute('x2')) };
}));
const overlap = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/**
 * The receipt chart's labels: the three line labels left of every line and apart from one
 * another, in the text's notation (a raised ε with a subscript, no caret); no value label
 * crossed by a line.
 */
async function assertReceiptChartLayout(what) {
  const lines = await boxes('#chart line.bound');
  const labels = await boxes('#chart text.bound-label');
  assert.equal(lines.length, 3, `${what}: three lines`);
  assert.equal(labels.length, 3, `${what}: three line labels`);
  const left = Math.min(...lines.map((l) => l.x1));
  for (const t of labels) assert.ok(t.x + t.width <= left - 2, `${what}: label "${t.text}" (right edge ${t.x + t.width}) runs into the lines starting at ${left}`);
  for (let i = 0; i < labels.length; i++) {
    for (let j = i + 1; j < labels.length; j++) assert.ok(!overlap(labels[i], labels[j]), `${what}: labels "${labels[i].text}" and "${labels[j].text}" overlap`);
  }
  for (const t of await boxes('#chart text.value')) {
    for (const l of lines) {
      const crossed = t.y < l.y1 && l.y1 < t.y + t.height && t.x < l.x2 && l.x1 < t.x + t.width;
      assert.ok(!crossed, `${what}: value label "${t.text}" is crossed by the line at y = ${l.y1}`);
    }
  }
  // The notation of the text: e<sup>ε<sub>u</sub></sup>, as tspans raised above the baseline.
  const notation = await page.$$eval('#chart text.bound-label', (ts) => ts.map((t) => [...t.querySelectorAll('tspan')].map((s) => [s.textContent, Number(s.getAttribute('dy') ?? 0)])));
  assert.deepEqual(notation[0].slice(0, 3), [['e', 0], ['ε', -6], ['u', 3]], `${what}: e^εu label`);
  assert.deepEqual(notation[2].slice(0, 3), [['e', 0], ['−ε', -6], ['l', 3]], `${what}: e^−εl label`);
  for (const n of notation) assert.equal(n.reduce((a, [, dy]) => a + dy, 0), 0, `${what}: back on the baseline`);
  const texts = await page.evaluate(() => [document.getElementById('chart').textContent, document.getElementById('bounds').textContent]);
  for (const t of texts) assert.ok(!t.includes('^'), `${what}: caret notation in "${t}"`);
  assert.equal(await page.$$eval('#bounds sup sub', (ns) => ns.map((n) => n.textContent).join()), 'l,u');
}

// First, before any test sends a report: the curator's estimates are the synthetic population's.
test("the README's screenshots show the current page, from a fixed scenario", async () => {
  // A fresh browser (an empty ledger) with a fixed viewport, locale, time zone, clock and seeded
  // randomness: the same sources give the same pictures.
  const browser = await chromium.launch(browserOptions);
  try {
    const ctx = await browser.newContext(contextOptions);
    await ctx.addInitScript(seededRandomness);
    const p = await ctx.newPage();
    const errors = [];
    p.on('pageerror', (e) => errors.push(e));
    await p.clock.setFixedTime(new Date(fixedTime));
    await p.goto(base);
    await p.waitForFunction(() => window.__privlift?.ready && window.__privliftSalary?.ready, null, { timeout: 30000 });
    // Sections 1–5: a mechanism with a secret, an answer, its receipt, the curator's estimate, the ledger.
    await p.evaluate(() => { window.__privlift.ready = false; });
    await p.selectOption('#mechanism', 'age-retired-krr.json');
    await p.waitForFunction(() => window.__privlift.ready, null, { timeout: 15000 });
    await p.selectOption('#value', '4');
    await p.click('#perturb');
    await p.waitForSelector('#receipt:not([hidden])');
    await p.waitForFunction(() => document.querySelectorAll('#ledger tbody tr').length === 1);
    const learnt = await p.evaluate(() => window.__privlift.learn.n);
    const truth = JSON.parse(readFileSync(join(mechanisms, 'truth.json'), 'utf8'));
    assert.equal(learnt, truth['age-retired-krr'].n, 'the synthetic population only');
    // Section 6: a salary off the grid (the note says how it is rounded), three curves, the estimates.
    await p.fill('#salary', '52300');
    await p.click('#salary-release');
    await p.waitForFunction(() => window.__privliftSalary.receipts.filter(Boolean).length === 3);
    await p.waitForSelector('#salary-hist-figure:not([hidden])');
    assert.deepEqual(await p.evaluate(() => window.__privliftSalary.learn.map((e) => e?.n)), [20000, 20000, 20000]);
    assert.deepEqual(errors, []);
    const out = (name) => (bless ? join(root, 'docs', name) : join(shots, `readme-${name}`));
    // demo.png: the page from its top to the end of the ledger (section 5), in page coordinates.
    const bottom = await p.$eval('section[aria-labelledby="h-ledger"]', (s) => s.getBoundingClientRect().bottom + window.scrollY);
    const shot = { animations: 'disabled', caret: 'hide', scale: 'css' };
    await p.screenshot({ ...shot, path: out('demo.png'), fullPage: true,
      clip: { x: 0, y: 0, width: contextOptions.viewport.width, height: Math.ceil(bottom + 16) } });
    await p.locator('section[aria-labelledby="h-salary"]').screenshot({ ...shot, path: out('salary.png') });
    await ctx.close();
  } finally {
    await browser.close();
  }
  if (bless) writeRecord(root);
  const diffs = staleness(root);
  if (diffs.length) assert.fail(`${STALE}\n${diffs.join('\n')}`);
  assert.deepEqual(PNGS.map((f) => readFileSync(join(root, f)).subarray(1, 4).toString()), ['PNG', 'PNG']);
});

test('page loads, verifies the honest mechanism, perturbs and shows a correct receipt', async () => {
  await page.goto(base);
  await page.waitForFunction(() => window.__privlift && window.__privlift.ready, null, { timeout: 20000 });
  for (const file of ['grade-krr.json', 'grade-rr-lip.json', 'age-retired-krr.json', 'age-retired-linear.json', 'age-retired-orr.json', 'age-retired-aorr.json']) {
    const optimalLip = file.includes('orr');
    if (optimalLip) {
      // ORR/AORR are optimal for LIP about the curator's secret and have outputs some inputs
      // never produce: no LDP bound (nor LIP bound) about the visitor's answer. Refused by
      // default, with the one explanation; accepted only after the one control is ticked.
      await setAllow(false);
      await setCap('5');
      await choose(file);
      const refusedState = await page.evaluate(() => ({ e: window.__privlift.error, u: window.__privlift.unbounded }));
      assert.equal(refusedState.e?.code, 'policy_violated', `${file}: refused by default`);
      assert.equal(refusedState.u, true);
      const why = await page.textContent('#unbounded-why');
      assert.equal(await page.isVisible('#unbounded-why'), true);
      assert.match(why, /^Why it is refused:/);
      assert.match(why, /tick “Allow mechanisms without an LDP bound”/);
      assert.match(why, /rules those answers out completely/);
      assert.ok(why.includes(`ε = ${fmt(1, 3)} nats of LIP`), why);
      assert.equal(await page.isDisabled('#perturb'), true);
      assert.match(await page.textContent('#receipt-empty'), /refused/);
      // An empty cap does not let it through: only the explicit consent does.
      await setCap('');
      assert.equal(await page.evaluate(() => window.__privlift.error?.code), 'policy_violated');
      assert.match(await page.textContent('#status'), /not allowed mechanisms without one/);
      // With consent the cap still applies, to the LIP about the secret (1 nat here).
      await setCap('0.5');
      await setAllow(true);
      const capped = await page.evaluate(() => window.__privlift.error);
      assert.equal(capped?.code, 'policy_violated', `${file}: the cap applies to the secret`);
      assert.match(capped.message, /lip_s/);
      await setCap('5');
      assert.equal(await page.evaluate(() => window.__privlift.error), null);
      assert.match(await page.textContent('#unbounded-why'), /^You allowed a mechanism without an LDP bound\./);
      // The budget is not lifted: the release goes through without one because the total is unbounded.
      assert.equal(await page.evaluate(() => window.__privlift.ledger.budget.ldp), 10);
    } else {
      await choose(file);
      assert.equal(await page.isVisible('#unbounded-why'), false, `${file}: no explanation for a bounded mechanism`);
      assert.equal(await page.evaluate(() => window.__privlift.unbounded), false);
    }
    assert.match(await page.textContent('#status'), /Verified/);
    await page.selectOption('#value', '4');
    await page.click('#perturb');
    await page.waitForFunction(() => !document.getElementById('receipt').hidden || /^Not sent/.test(document.getElementById('sent').textContent));
    assert.doesNotMatch(await page.textContent('#sent'), /^Not sent/, `${file}: the ledger refused the release`);
    const { receipt, lastOutput, lx, ls, rb } = await page.evaluate(() => {
      const st = window.__privlift;
      return { receipt: st.receipt, lastOutput: st.lastOutput, lx: st.mechanism.leakageX(), ls: st.mechanism.leakage(), rb: st.mechanism.receiptBounds() };
    });
    const doc = JSON.parse(readFileSync(join(root, 'target/site/mechanisms', file), 'utf8'));
    const lifts = expectedLifts(doc, lastOutput);
    // X rows: one per input label, always.
    assert.deepEqual(receipt.entries.map((e) => e.label), doc.labels, `${file}: X rows`);
    assert.deepEqual(receipt.entries.map((e) => e.index), doc.labels.map((_, k) => k));
    receipt.entries.forEach((e, i) => {
      assert.ok(Math.abs(e.lift - lifts.x[i]) < 1e-9, `${file} X lift ${i}: ${e.lift} vs ${lifts.x[i]}`);
      assert.ok(Math.abs(e.prior - doc.prior[i]) < 1e-12, `${file} X prior ${i}`);
      assert.ok(e.lift <= receipt.maxLiftBound && e.lift >= receipt.minLiftBound, `${file} X lift ${i} out of the bounds`);
    });
    // The X bounds are the audit's w.r.t. X (leakageX), not a claim.
    assert.deepEqual(rb, [receipt.minLiftBound, receipt.maxLiftBound]);
    close(receipt.epsL, lx.alip.epsL, `${file} eps_l vs leakageX`);
    close(receipt.epsU, lx.alip.epsU, `${file} eps_u vs leakageX`);
    for (const gone of ['audited_eps_l', 'audited_eps_u']) assert.equal(receipt[gone], undefined, `${file}: ${gone} is gone`);
    // S rows: only when the document declares a secret; one per secret label.
    if (doc.secret) {
      assert.deepEqual(receipt.secret.entries.map((e) => e.label), doc.secret.labels, `${file}: S rows`);
      receipt.secret.entries.forEach((e, i) => {
        assert.ok(Math.abs(e.lift - lifts.s[i]) < 1e-9, `${file} S lift ${i}: ${e.lift} vs ${lifts.s[i]}`);
        assert.ok(e.lift <= receipt.secret.maxLiftBound && e.lift >= receipt.secret.minLiftBound, `${file} S lift ${i} out of the bounds`);
      });
      close(receipt.secret.epsL, ls.alip.epsL, `${file} S eps_l vs leakage`);
      close(receipt.secret.epsU, ls.alip.epsU, `${file} S eps_u vs leakage`);
    } else {
      assert.equal(receipt.secret, undefined, `${file}: no secret section`);
    }
    // The same receipt computed natively by the Rust core (`privlift receipt`), field by field.
    const native = JSON.parse(execFileSync(cli,
      ['receipt', join(root, 'target/site/mechanisms', file), '--output', String(lastOutput)], { encoding: 'utf8' }));
    assert.equal(native.mechanism_id, receipt.mechanismId);
    assert.equal(native.output, receipt.output);
    assert.equal(native.output_index, receipt.outputIndex);
    const sameSection = (n, p, what) => {
      assert.equal(n.entries.length, p.entries.length, `${what}: rows`);
      p.entries.forEach((e, i) => {
        for (const f of ['index', 'label', 'prior', 'posterior', 'lift']) assert.equal(e[f], n.entries[i][f], `${what} ${f} of ${e.label}`);
      });
      // The JS receipt's camelCase fields against the native JSON's snake_case ones.
      for (const [f, g] of [['minLiftBound', 'min_lift_bound'], ['maxLiftBound', 'max_lift_bound'], ['epsL', 'eps_l'], ['epsU', 'eps_u']]) {
        close(p[f], num(n[g]), `${what} ${f}`);
      }
    };
    sameSection(native, receipt, `${file} X`);
    assert.equal(native.secret == null, receipt.secret === undefined, `${file}: secret section in one receipt only`);
    if (receipt.secret) sameSection(native.secret, receipt.secret, `${file} S`);
    // What the page shows: the X table (one row per input label) and, with a secret, the S table.
    const shown = (id) => page.$$eval(`#${id} tbody tr th`, (ths) => ths.map((t) => t.textContent));
    assert.deepEqual(await shown('receipt'), doc.labels, `${file}: X rows shown`);
    assert.match(await page.textContent('#receipt caption'), /each answer you could have given/);
    const bounds = await page.textContent('#bounds');
    assert.match(bounds, /Proved by your browser's audit/);
    assert.doesNotMatch(bounds, /claim/i);
    assert.ok(bounds.includes(fmt(receipt.maxLiftBound, 4)) && bounds.includes(fmt(receipt.epsL, 3)), bounds);
    assert.equal(await page.isHidden('#receipt-secret'), !doc.secret, `${file}: S table visibility`);
    const status = await page.textContent('#status');
    assert.ok(status.includes(`ε = ${fmt(lx.lip, 3)} nats of LIP (under the curator's prior) about your own answer`), status);
    assert.ok(status.includes(`ε = ${fmt(lx.ldpX, 3)} nats of LDP (prior-free)`), status);
    if (doc.secret) {
      assert.deepEqual(await shown('receipt-secret'), doc.secret.labels, `${file}: S rows shown`);
      assert.match(await page.textContent('#receipt-secret caption'), /the curator's secret/);
      assert.ok((await page.textContent('#bounds-secret')).includes(fmt(receipt.secret.maxLiftBound, 4)));
      assert.ok(status.includes(`ε = ${fmt(ls.lip, 3)} nats of LIP about the curator's secret`), status);
    } else {
      assert.equal(await page.$$eval('#receipt-secret tbody tr', (trs) => trs.length), 0);
      assert.equal(await page.textContent('#bounds-secret'), '');
      assert.doesNotMatch(status, /secret/);
    }
    const bars = await page.$$eval('#chart rect', (rs) => rs.map((r) => Number(r.dataset.lift)));
    assert.deepEqual(bars, receipt.entries.map((e) => e.lift));
    await assertReceiptChartLayout(file);
    // The ledger recorded this release (the last row), with the X-audit's numbers.
    const ledgerRows = await page.$$eval('#ledger tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
    const last = ledgerRows[ledgerRows.length - 1];
    const attribute = JSON.parse(readFileSync(join(mechanisms, 'index.json'), 'utf8')).mechanisms.find((e) => e.file === file).attribute;
    assert.deepEqual(last.slice(1, 4), [attribute, receipt.mechanismId, fmt(lx.ldpX, 3)], `${file}: the ledger's last row`);
    if (optimalLip) {
      assert.equal(last[3], '∞');
      assert.match(await page.textContent('#ledger-bound'), /have no bound about your answer/);
    }
    await page.screenshot({ path: join(shots, `receipt-${file.replace('.json', '')}.png`), fullPage: true });
  }
  // "age" now has releases without an LDP bound: without the consent, the budget refuses any
  // further release of it, even through a bounded mechanism, and the ledger says why.
  await setAllow(false);
  await choose('age-retired-krr.json');
  await page.selectOption('#value', '1');
  await page.click('#perturb');
  await page.waitForFunction(() => window.__privlift.error?.code === 'budget_exceeded', null, { timeout: 10000 });
  assert.match(await page.textContent('#sent'), /^Not sent: .*\[budget_exceeded\]$/);
  assert.match(await page.textContent('#ledger-bound'), /refused unless you tick “Allow mechanisms without an LDP bound”/);
  await setAllow(true);
});

test('before the first click no section is an empty box; the charts have legends', async () => {
  await page.goto(base);
  await page.waitForFunction(() => window.__privlift?.ready && window.__privliftSalary?.ready, null, { timeout: 30000 });
  await page.click('#clear-ledger');
  // The clear is asynchronous (IndexedDB): reloading before it ends kept the releases.
  await page.waitForSelector('#ledger-empty', { state: 'visible' });
  await page.reload();
  await page.waitForFunction(() => window.__privlift?.ready && window.__privliftSalary?.ready, null, { timeout: 30000 });
  await choose('grade-krr.json');
  // Section 3: a prompt with the bounds the audit already proves, and no empty chart.
  const [lo, hi] = await page.evaluate(() => window.__privlift.mechanism.receiptBounds());
  const prompt = await page.textContent('#receipt-empty');
  assert.equal(await page.isVisible('#receipt-empty'), true);
  assert.match(prompt, /Nothing has been randomised yet/);
  assert.ok(prompt.includes(`= ${fmt(lo, 4)} and`) && prompt.includes(`= ${fmt(hi, 4)}.`), prompt);
  assert.equal(await page.isVisible('#chart-figure'), false, 'no empty chart');
  // Section 5: an empty ledger says so, instead of an empty table.
  assert.equal(await page.isVisible('#ledger-empty'), true);
  assert.equal(await page.isVisible('#ledger'), false);
  assert.match(await page.textContent('#ledger-bound'), /^No release of “grade” yet; a budget of 10 nats of LDP per attribute\.$/);
  // Section 6: a prompt instead of an empty chart.
  assert.equal(await page.isVisible('#salary-empty'), true);
  assert.match(await page.textContent('#salary-empty'), /press “Add noise with each mechanism”/);
  assert.equal(await page.isVisible('#salary-chart-figure'), false);
  // Every section shows more than its heading and help text.
  const bare = await page.$$eval('section', (ss) => ss.filter((sec) => ![...sec.children].some((c) =>
    !c.matches('h2, .help') && c.checkVisibility() && c.textContent.trim() !== '')).map((sec) => sec.querySelector('h2').textContent));
  assert.deepEqual(bare, [], 'sections with nothing but a heading and help');
  await page.screenshot({ path: join(shots, 'initial.png'), fullPage: true });

  // After a release: the chart and the ledger replace the prompts.
  await page.selectOption('#value', '15');
  await page.click('#perturb');
  await page.waitForSelector('#receipt:not([hidden])');
  assert.equal(await page.isVisible('#receipt-empty'), false);
  assert.equal(await page.isVisible('#chart-figure'), true);
  await page.waitForFunction(() => document.querySelectorAll('#ledger tbody tr').length === 1);
  assert.equal(await page.isVisible('#ledger'), true);
  assert.equal(await page.isVisible('#ledger-empty'), false);
  // The legend: one swatch per bar colour, the same colours as the bars.
  assert.equal(await page.isVisible('#chart-legend'), true);
  const rgb = (c) => page.evaluate((c) => { const d = document.createElement('div'); d.style.color = c; document.body.append(d); const v = getComputedStyle(d).color; d.remove(); return v; }, c);
  const bars = await page.$$eval('#chart rect', (rs) => rs.map((r) => ({ lift: Number(r.dataset.lift), fill: r.getAttribute('fill') })));
  const swatch = (cls) => page.$eval(`#chart-legend .swatch.${cls}`, (n) => getComputedStyle(n).backgroundColor);
  const up = bars.filter((b) => b.lift >= 1), down = bars.filter((b) => b.lift < 1);
  assert.ok(up.length > 0 && down.length > 0, 'both colours drawn');
  for (const b of up) assert.equal(await rgb(b.fill), await swatch('up'), 'lift ≥ 1: the legend\'s colour');
  for (const b of down) assert.equal(await rgb(b.fill), await swatch('down'), 'lift < 1: the legend\'s colour');
  assert.match(await page.textContent('#chart-legend'), /more likely than before \(lift ≥ 1\)[\s\S]*less likely than before \(lift < 1\)/);

  // The salary chart: three curves told apart by line pattern and marker as well as colour, and a legend.
  await page.fill('#salary', '52300');
  await page.click('#salary-release');
  await page.waitForFunction(() => window.__privliftSalary.receipts.filter(Boolean).length === 3);
  assert.equal(await page.isVisible('#salary-empty'), false);
  assert.equal(await page.isVisible('#salary-chart-figure'), true);
  const curves = await page.$$eval('#salary-chart path.curve', (ps) => ps.map((p) => ({
    stroke: p.getAttribute('stroke'), dash: p.getAttribute('stroke-dasharray'),
    markers: [...p.parentNode.querySelectorAll('.marker')].map((m) => m.getAttribute('class')),
  })));
  assert.equal(curves.length, 3);
  assert.equal(new Set(curves.map((c) => c.dash)).size, 3, 'three line patterns');
  assert.equal(new Set(curves.map((c) => c.markers[0])).size, 3, 'three marker shapes');
  for (const c of curves) assert.ok(c.markers.length >= 5 && new Set(c.markers).size === 1, JSON.stringify(c));
  const legend = await page.$$eval('#salary-legend .item', (items) => items.map((it) => ({
    text: it.textContent, stroke: it.querySelector('line').getAttribute('stroke'), dash: it.querySelector('line').getAttribute('stroke-dasharray'),
    marker: it.querySelector('.marker').getAttribute('class'),
  })));
  const titles = await page.evaluate(() => window.__privliftSalary.entries.map((e) => e.title));
  assert.deepEqual(legend.map((l) => l.text), titles);
  assert.deepEqual(legend.map((l) => [l.stroke, l.dash, l.marker]), curves.map((c) => [c.stroke, c.dash, c.markers[0]]));
  assert.equal(await page.isVisible('#salary-legend'), true);
  assert.match(await page.textContent('#salary-chart-figure figcaption'), /The two Gaussian curves often run close to 1 and to each other: that is real/);
});

test('the slider redesigns the mechanism in the browser and the chart follows', async () => {
  await choose('grade-krr.json');
  await page.selectOption('#value', '12');
  await page.click('#perturb');
  await page.waitForSelector('#receipt:not([hidden])');
  const before = await page.evaluate(() => ({ r: window.__privlift.receipt, u: document.getElementById('utility').textContent }));
  const bars = () => page.$$eval('#chart rect', (rs) => rs.map((r) => Number(r.dataset.lift)));
  const barsBefore = await bars();
  for (const [value, shot] of [['3', 'slider-eps3'], ['0.3', 'slider-eps0.3']]) {
    const designs = await page.evaluate(() => window.__privlift.designs);
    await page.evaluate((v) => {
      const t = document.getElementById('tune');
      t.value = v;
      t.dispatchEvent(new Event('change'));
    }, value);
    await page.waitForFunction((d) => window.__privlift.designs > d && window.__privlift.ready, designs, { timeout: 20000 });
    const after = await page.evaluate(() => ({ r: window.__privlift.receipt, u: document.getElementById('utility').textContent, m: window.__privlift.mechanism.leakageX() }));
    const eps = Number(value);
    // The redesigned k-RR is verified at the new ε (its sampler's channel, at or just below
    // it), and the receipt's X bounds follow it: they are the audit's w.r.t. X (ε-LDP w.r.t.
    // X bounds every lift about X by e^ε).
    const drawn = drawnKrrLdp(eps, after.r.entries.length);
    assert.ok(drawn <= eps && Math.abs(after.m.ldpX - drawn) < 1e-9, `ldp_x ${after.m.ldpX} vs ${drawn} (ε ${eps})`);
    assert.ok(after.r.maxLiftBound <= Math.exp(eps * (1 + 1e-8)), 'the receipt bound follows the new ε');
    close(after.r.maxLiftBound, after.m.maxLift, 'max_lift_bound vs leakageX().maxLift');
    close(after.r.minLiftBound, after.m.minLift, 'min_lift_bound vs leakageX().minLift');
    close(after.r.epsU, after.m.alip.epsU, 'eps_u vs leakageX()');
    assert.equal(after.r.secret, undefined, 'no secret declared');
    assert.ok(Math.abs(after.r.maxLiftBound - before.r.maxLiftBound) > 1e-6);
    assert.ok(after.r.entries.every((e) => e.lift <= after.r.maxLiftBound && e.lift >= after.r.minLiftBound));
    assert.notEqual(after.u, before.u, 'the utility figure changes');
    assert.notDeepEqual(await bars(), barsBefore, 'the chart changes');
    assert.equal(after.r.outputIndex, before.r.outputIndex, 'same released value, new mechanism');
    await assertReceiptChartLayout(`k-RR at ε = ${value}`);
    await page.screenshot({ path: join(shots, `${shot}.png`), fullPage: true });
  }
  // More privacy, less utility: NMI at ε = 0.3 is below NMI at ε = 3.
  const nmi = await page.evaluate(() => window.__privlift.utility.nmi);
  assert.ok(nmi < 0.1, `NMI at ε = 0.3 is ${nmi}`);
});

test('the lying document is refused and cannot be used', async () => {
  await choose('lying.json');
  const st = await page.evaluate(() => window.__privlift);
  assert.equal(st.error.code, 'claim_violated');
  assert.equal(st.mechanism, null);
  assert.match(await page.textContent('#status'), /Refused/);
  assert.equal(await page.isDisabled('#perturb'), true);
  // A static document has no slider: hidden, not shown with the last mechanism's label.
  assert.equal(await page.isVisible('#tune-row'), false);
  await choose('grade-krr.json');
  assert.equal(await page.isVisible('#tune-row'), true);
  await choose('age-krr.json');
  assert.equal(await page.isVisible('#tune-row'), false);
  await choose('lying.json');
  await page.screenshot({ path: join(shots, 'refused-lying.png'), fullPage: true });
});

test('the demo never parses strings as markup', () => {
  // Error messages and labels carry text from documents: the page sets text, never markup.
  const scripts = readdirSync(join(root, 'www')).filter((f) => f.endsWith('.js')).map((f) => `www/${f}`);
  assert.ok(scripts.length >= 4, scripts.join(', '));
  for (const f of scripts) {
    const src = readFileSync(join(root, f), 'utf8');
    for (const sink of ['innerHTML', 'outerHTML', 'insertAdjacentHTML', 'document.write']) {
      assert.ok(!src.includes(sink), `${f} uses ${sink}`);
    }
  }
});

test("a document's markup is shown as text, in the receipt and in a refusal", async () => {
  const hostile = '<img src=x onerror=window.__pwned=1>';
  const orig = JSON.parse(readFileSync(join(root, 'target/site/mechanisms/age-krr.json'), 'utf8'));
  const serve = async (doc) => {
    await page.unroute('**/mechanisms/age-krr.json');
    await page.route('**/mechanisms/age-krr.json', (route) => route.fulfill({ contentType: 'application/json', body: JSON.stringify(doc) }));
  };
  try {
    // Accepted: labels and description with markup.
    await serve({ ...orig, description: hostile, labels: [hostile, ...orig.labels.slice(1)], output_labels: [hostile, ...orig.output_labels.slice(1)] });
    // Earlier tests released "age" with unbounded LDP (ORR): start from an empty ledger.
    await page.click('#clear-ledger');
    await page.waitForFunction(() => document.querySelectorAll('#ledger tbody tr').length === 0);
    await choose('grade-krr.json');
    await choose('age-krr.json');
    assert.equal(await page.evaluate(() => window.__privlift.error), null);
    await page.selectOption('#value', '0');
    await page.click('#perturb');
    await page.waitForSelector('#receipt:not([hidden])');
    assert.equal((await page.$$eval('#receipt tbody tr th', (ths) => ths.map((t) => t.textContent)))[0], hostile);
    assert.equal(await page.textContent('#description'), hostile);
    // Refused: the core's message quotes the duplicated label.
    await serve({ ...orig, labels: [hostile, hostile, ...orig.labels.slice(2)] });
    await choose('grade-krr.json');
    await choose('age-krr.json');
    assert.equal(await page.evaluate(() => window.__privlift.error.code), 'duplicate_label');
    assert.ok((await page.textContent('#status')).includes(hostile));
    assert.equal(await page.$$eval('body img', (imgs) => imgs.length), 0, 'no element was created from document text');
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
  } finally {
    await page.unroute('**/mechanisms/age-krr.json');
  }
});

test('a strict policy refuses an honest mechanism', async () => {
  await choose('grade-krr.json');
  await setCap('0.5'); // k-RR at ε = 1 exceeds a 0.5-nat cap
  const st = await page.evaluate(() => window.__privlift);
  assert.equal(st.error.code, 'policy_violated');
  assert.equal(await page.isDisabled('#perturb'), true);
  await page.screenshot({ path: join(shots, 'refused-policy.png'), fullPage: true });
  await setCap('5');
  assert.equal(await page.evaluate(() => window.__privlift.error), null);
});

test("the JS README's first example runs as written, in the demo's page", async () => {
  const readme = readFileSync(join(root, 'js/README.md'), 'utf8');
  const block = readme.match(/```js\n([\s\S]*?)```/)[1];
  const code = block.replace("from 'privlift'", "from '/privlift/js/privlift.js'") +
    '\nwindow.__readme = { y, receipt };\n';
  const logs = [];
  page.on('console', (m) => logs.push(m.text()));
  // A collector's POST /v1/reports (the demo's static server has none): record and acknowledge.
  const posted = [];
  await page.route('**/v1/reports', async (route) => {
    const batch = JSON.parse(route.request().postData());
    posted.push(batch);
    await route.fulfill({ status: 202, contentType: 'application/json',
      body: JSON.stringify({ accepted: batch.reports.length, duplicates: 0 }) });
  });
  await page.goto(base);
  await page.addScriptTag({ type: 'module', content: code });
  await page.waitForFunction(() => window.__readme, null, { timeout: 15000 });
  await page.unroute('**/v1/reports');
  const { y, receipt } = await page.evaluate(() => window.__readme);
  assert.equal(receipt.mechanismId, 'age-krr-eps1');
  assert.equal(posted.length, 1, 'one batch sent');
  const [report] = posted[0].reports;
  assert.deepEqual(Object.keys(report).sort(), ['mechanism', 'output', 'report_id', 'sha256']);
  assert.equal(report.mechanism, 'age-krr-eps1');
  assert.ok(typeof y === 'string' && report.output === y, 'perturb released a label, and the report carries it');
  assert.ok(logs.some((l) => l.startsWith('every lift stays in [')), logs.join('\n'));
});

test('the ledger: memoised outputs survive a reload, the total bound grows, the budget refuses', async () => {
  await page.goto(base);
  await page.waitForFunction(() => window.__privlift && window.__privlift.ready, null, { timeout: 20000 });
  await page.click('#clear-ledger');
  await page.waitForSelector('#ledger-empty', { state: 'visible' });
  await choose('age-retired-krr.json');
  await page.check('#memoize');
  await page.selectOption('#value', '3');
  const release = async () => {
    await page.evaluate(() => { window.__privlift.lastRelease = null; });
    await page.click('#perturb');
    await page.waitForFunction(() => window.__privlift.lastRelease || window.__privlift.error, null, { timeout: 10000 });
    return page.evaluate(() => ({ r: window.__privlift.lastRelease, e: window.__privlift.error }));
  };
  const first = await release();
  assert.equal(first.r.memoized, false);
  const outputs = new Set();
  for (let reload = 0; reload < 3; reload++) {
    await page.reload();
    await page.waitForFunction(() => window.__privlift && window.__privlift.ready, null, { timeout: 20000 });
    await choose('age-retired-krr.json');
    await page.check('#memoize');
    await page.selectOption('#value', '3');
    const again = await release();
    assert.equal(again.r.memoized, true);
    outputs.add(again.r.output);
  }
  assert.deepEqual([...outputs], [first.r.output], 'identical output across reloads');
  const rows = await page.$$eval('#ledger tbody tr', (trs) => trs.length);
  assert.equal(rows, 1, 'memoised repeats add no release');
  // Without memoisation every release counts; a 2-nat budget stops the second 1.5-nat one.
  await page.uncheck('#memoize');
  await page.fill('#budget', '2');
  await page.dispatchEvent('#budget', 'change');
  await page.waitForFunction(() => window.__privlift.ledger.budget.ldp === 2);
  const refused = await release();
  assert.equal(refused.e.code, 'budget_exceeded');
  assert.match(await page.textContent('#sent'), /budget_exceeded/);
  assert.match(await page.textContent('#ledger-bound'), /1 release/);
  await page.screenshot({ path: join(shots, 'ledger-budget.png'), fullPage: true });
});

test('salary: three continuous mechanisms verify, release on the lattice, and the ratio curves are right', async () => {
  await page.goto(base);
  await page.waitForFunction(() => window.__privliftSalary && window.__privliftSalary.ready, null, { timeout: 30000 });
  const loaded = await page.evaluate(() => ({
    n: window.__privliftSalary.mechanisms.filter(Boolean).length, errors: window.__privliftSalary.errors,
  }));
  assert.equal(loaded.n, 3, JSON.stringify(loaded.errors));
  await page.fill('#salary', '52300');
  await page.click('#salary-release');
  await page.waitForFunction(() => window.__privliftSalary.receipts.filter(Boolean).length === 3);
  const s = await page.evaluate(() => ({ receipts: window.__privliftSalary.receipts, outputs: window.__privliftSalary.outputs }));
  const index = JSON.parse(readFileSync(join(root, 'target/site/mechanisms/index.json'), 'utf8'));
  for (const [i, entry] of index.continuous.entries()) {
    const doc = JSON.parse(readFileSync(join(root, 'target/site/mechanisms', entry.file), 'utf8'));
    const { lo, step } = doc.domain;
    const y = s.outputs[i];
    const r = s.receipts[i];
    assert.ok(Number.isInteger(Math.round((y - lo) / step)) && Math.abs((y - lo) / step - Math.round((y - lo) / step)) < 1e-9, `${entry.file}: ${y} off the lattice`);
    assert.equal(r.userPoint, 52000);
    assert.ok(r.xs.length > 100 && r.xs.length === r.ratios.length);
    // The ratio at the visitor's salary is the curve's value there.
    const k = r.xs.indexOf(52000);
    if (k >= 0) assert.ok(Math.abs(r.ratios[k] / r.userRatio - 1) < 1e-12);
    // Pure ε-LIP (Laplace): every ratio within e^{±ε}, as audited.
    if (doc.mechanism.kind === 'laplace') {
      assert.ok(r.maxRatio <= Math.exp(doc.claims.lip.eps) * (1 + 1e-9) && r.minRatio >= Math.exp(-doc.claims.lip.eps) * (1 - 1e-9));
    }
  }
  // One rounding rule everywhere: the documents' lattice step, quoted by the hint, the note and the chart.
  const step = JSON.parse(readFileSync(join(mechanisms, index.continuous[0].file), 'utf8')).domain.step;
  const money = (v) => Math.round(v).toLocaleString('en-US');
  assert.match(await page.textContent('#salary-domain'), new RegExp(`rounded to the nearest ${money(step)} before noise is added`));
  assert.equal(Number(await page.getAttribute('#salary', 'step')), step);
  assert.equal(await page.textContent('#salary-rounded'),
    `Your salary, 52,300, is rounded to 52,000, the nearest point of the curator's grid (every ${money(step)}), ` +
    'before noise is added: that is the value the mechanisms protect, and the ratios below are at it.');
  assert.equal(await page.textContent('#salary-chart-you'), 'your salary, rounded: 52,000');
  assert.ok(!(await page.textContent('#salary-chart')).includes('52,300'), 'the chart quotes the rounded salary only');
  const marker = await page.$eval('#salary-chart-you', (t) => Number(t.getAttribute('x')));
  assert.ok(marker > 56, 'the label is inside the plot');
  // The page shows all three released values and draws three curves.
  const cells = await page.$$eval('#salary-table td.out', (tds) => tds.map((t) => t.textContent));
  assert.equal(cells.filter((t) => t !== '–').length, 3);
  assert.equal(await page.$$eval('#salary-chart path.curve', (p) => p.length), 3);
  // Out of the domain: a typed error, nothing released.
  await page.fill('#salary', '5');
  await page.click('#salary-release');
  // Released by the mechanisms in the package's Worker: their answers arrive by promise.
  await page.waitForFunction(() => /unknown_value/.test(document.getElementById('salary-error').textContent));
  await page.fill('#salary', '52300');
  await page.click('#salary-release');
  await page.waitForFunction(() => window.__privliftSalary.receipts.filter(Boolean).length === 3);
  await page.locator('#h-salary').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, 'salary.png'), fullPage: true });
  await page.locator('section[aria-labelledby="h-salary"]').screenshot({ path: join(shots, 'salary-section.png') });
});

test("the JS README's continuous example runs as written, in the demo's page", async () => {
  const readme = readFileSync(join(root, 'js/README.md'), 'utf8');
  const block = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => b.includes("'privlift/continuous'"));
  const code = block.replace("from 'privlift/continuous'", "from '/privlift/js/continuous.js'") +
    '\nwindow.__readmeContinuous = { y, r };\n';
  await page.goto(base);
  await page.addScriptTag({ type: 'module', content: code });
  await page.waitForFunction(() => window.__readmeContinuous, null, { timeout: 15000 });
  const { y, r } = await page.evaluate(() => window.__readmeContinuous);
  assert.equal(r.mechanismId, 'salary-gaussian-lip');
  assert.equal(r.output, y);
  assert.equal(r.userPoint, 52000);
  assert.ok(r.userRatio > 0 && r.ratios.length === r.xs.length);
});

test("the visitor's report is stored once even when its POST is retried, and the curator's estimate moves", async () => {
  await page.goto(base);
  await page.waitForFunction(() => window.__privlift && window.__privlift.ready, null, { timeout: 20000 });
  await page.fill('#cap', '5');
  await choose('grade-krr.json');
  await page.waitForFunction(() => window.__privlift.learn && window.__privlift.learn.n > 0);
  const before = await page.evaluate(() => window.__privlift.learn);
  const truth = JSON.parse(readFileSync(join(mechanisms, 'truth.json'), 'utf8'))['grade-krr'];
  assert.equal(before.n, truth.n, 'the synthetic population only');
  assert.equal(before.sha256, truth.sha256);
  // The table shows the truth beside the estimate and its interval, for every answer.
  assert.equal(await page.$$eval('#learn tbody tr', (r) => r.length), truth.labels.length);
  assert.equal(await page.isVisible('#learn'), true);
  assert.equal(await page.isVisible('#learn-secret'), false);

  // The first POST reaches the collector, but its answer is lost: the client retries.
  const posts = [];
  await page.route(`${collectorUrl}/v1/reports`, async (route) => {
    const req = route.request();
    if (req.method() !== 'POST') return route.continue();
    posts.push(JSON.parse(req.postData()));
    if (posts.length === 1) {
      await route.fetch();
      return route.abort('connectionreset');
    }
    return route.continue();
  });
  await page.selectOption('#value', '10');
  await page.click('#perturb');
  await page.waitForFunction(() => !document.getElementById('send').disabled);
  await page.click('#send');
  await page.waitForFunction((n) => window.__privlift.sendResult && window.__privlift.learn && window.__privlift.learn.n !== n, before.n);
  await page.unroute(`${collectorUrl}/v1/reports`);
  const s = await page.evaluate(() => ({ result: window.__privlift.sendResult, report: window.__privlift.lastReport, learn: window.__privlift.learn, y: window.__privlift.lastOutput }));
  assert.equal(posts.length, 2, 'one retry');
  assert.deepEqual(posts[0], posts[1], 'the retry sends the same report id');
  assert.deepEqual(s.result, { accepted: 0, duplicates: 1 }, 'the retry is a duplicate: the first attempt was stored');
  // Only the randomised output leaves: the envelope's four fields.
  assert.deepEqual(Object.keys(posts[0].reports[0]).sort(), ['mechanism', 'output', 'report_id', 'sha256']);
  assert.equal(s.report.output, String(s.y));
  assert.equal(s.learn.n, before.n + 1, 'counted exactly once');
  assert.notDeepEqual(s.learn.estimate, before.estimate);
  // The collector's count agrees.
  const direct = await (await fetch(`${collectorUrl}/v1/estimates/grade-krr`)).json();
  assert.equal(direct.n, before.n + 1);
  await page.locator('section[aria-labelledby="h-learn"]').screenshot({ path: join(shots, 'curator-learns.png') });

  // A declared secret: the curator's estimate of P_S beside the truth.
  await choose('age-retired-krr.json');
  await page.waitForFunction(() => window.__privlift.learn && window.__privlift.learn.secret);
  assert.equal(await page.isVisible('#learn-secret'), true);
  assert.equal(await page.$$eval('#learn-secret tbody tr', (r) => r.length), 2);

  // A channel that cannot tell answers apart (this rr-lip design): each such answer shows
  // the range of shares the reports allow, never a point with a standard error.
  await choose('grade-rr-lip.json');
  await page.waitForFunction(() => window.__privlift.learn?.identified?.includes(false));
  const lip = await page.evaluate(() => window.__privlift.learn);
  const rows = await page.$$eval('#learn tbody tr', (rs) => rs.map((r) => [r.cells[2].textContent, r.cells[3].textContent]));
  lip.identified.forEach((known, i) => {
    if (known) return assert.doesNotMatch(rows[i][1], /not identified/);
    const [lo, hi] = lip.interval[i].map((v) => `${(100 * v).toFixed(1)} %`);
    assert.deepEqual(rows[i], [`between ${lo} and ${hi}`, 'not identified by this mechanism']);
    assert.equal(lip.std_error[i], null);
  });
  await page.locator('section[aria-labelledby="h-learn"]').screenshot({ path: join(shots, 'curator-unidentified.png') });

  // A mechanism redesigned in the browser is not the published one: nothing is sent.
  await choose('grade-krr.json');
  await page.evaluate(() => { window.__privlift.ready = false; });
  await page.$eval('#tune', (el) => { el.value = '2'; el.dispatchEvent(new Event('change')); });
  await page.waitForFunction(() => window.__privlift.ready && window.__privlift.designs > 0);
  await page.click('#perturb');
  await page.waitForFunction(() => /redesigned/.test(document.getElementById('send-status').textContent));
  assert.equal(await page.isDisabled('#send'), true);
});

test('salary: the noisy values are sent and the curator learns the mean and the histogram', async () => {
  await page.goto(base);
  await page.waitForFunction(() => window.__privliftSalary && window.__privliftSalary.ready, null, { timeout: 30000 });
  const truth = JSON.parse(readFileSync(join(mechanisms, 'truth.json'), 'utf8'));
  const before = await page.evaluate(() => window.__privliftSalary.learn.map((e) => e?.n));
  assert.deepEqual(before, [20000, 20000, 20000]);
  assert.equal(await page.$$eval('#salary-learn tbody tr', (r) => r.length), 3);
  await page.fill('#salary', '52300');
  await page.click('#salary-release');
  await page.waitForFunction(() => !document.getElementById('salary-send').disabled);
  await page.click('#salary-send');
  await page.waitForFunction(() => window.__privliftSalary.sent && window.__privliftSalary.learn.every((e) => e && e.n === 20001));
  const s = await page.evaluate(() => ({ sent: window.__privliftSalary.sent, learn: window.__privliftSalary.learn, entries: window.__privliftSalary.entries }));
  assert.deepEqual(s.sent, { accepted: 3 });
  for (const [i, e] of s.learn.entries()) {
    const id = s.entries[i].file.replace('.json', '');
    // The mean is learnt from the noise: the synthetic truth within 4 standard errors.
    assert.ok(Math.abs(e.mean - truth[id].mean) < 4 * e.mean_std_error, `${id}: ${e.mean} ± ${e.mean_std_error} vs ${truth[id].mean}`);
    const total = e.estimate.reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(total - 1) < 1e-9, `${id}: histogram sums to ${total}`);
  }
  assert.equal(await page.isVisible('#salary-hist-figure'), true);
  assert.equal(await page.$$eval('#salary-hist path.estimate', (p) => p.length), 1);
  await page.locator('section[aria-labelledby="h-salary"]').screenshot({ path: join(shots, 'salary-learns.png') });
});

test('the sample documents of examples/ are the bytes the demo\'s curator designs (scripts/stage-site.sh)', () => {
  const examples = join(root, 'examples');
  const files = readdirSync(examples).filter((f) => f.endsWith('.json'));
  assert.ok(files.length > 0, 'no sample document in examples/');
  for (const f of files) {
    assert.ok(readFileSync(join(mechanisms, f)).equals(readFileSync(join(examples, f))),
      `examples/${f} differs from what scripts/stage-site.sh designs: copy target/site/mechanisms/${f} there`);
  }
});
