// End-to-end in WebKitGTK: the demo's key flow — verify → perturb → receipt → the report
// stored by the collector — driven through W3C WebDriver (scripts/webdriver.mjs: Debian's
// WebKitWebDriver and MiniBrowser on Xvfb), beside demo.test.mjs's Chromium run.
// The receipt is checked against the native core's (`privlift receipt`) field by field, so
// WebKit's JavaScriptCore runs the same wasm to the same bits as V8 and the native build.
//
// Env: PRIVLIFT_NO_WEBKIT=1 skips this file (where webkit2gtk-driver is not installed).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWebKit } from '../../scripts/webdriver.mjs';
import { cli, close, startCurator } from './helpers.mjs';

const skip = process.env.PRIVLIFT_NO_WEBKIT === '1' ? 'PRIVLIFT_NO_WEBKIT=1' : false;
const root = new URL('../../', import.meta.url).pathname;
let wk, curator, tmp, site, base, collectorUrl;

before(async () => {
  if (skip) return;
  // A copy of the staged site with its own collector.json: demo.test.mjs may run beside this
  // file and writes the one of target/site.
  tmp = mkdtempSync(join(tmpdir(), 'privlift-webkit-'));
  site = join(tmp, 'site');
  cpSync(join(root, 'target/site'), site, { recursive: true });
  // demo.test.mjs's population: with it the collector estimates the salary mechanisms in
  // about a second (2,000 users of seed 2 made the Laplace one take over two minutes).
  curator = await startCurator(site, 'sqlite:' + join(tmp, 'reports.db'));
  ({ base, collectorUrl } = curator);
  wk = await startWebKit();
});

after(async () => {
  await wk?.close();
  curator?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** `window.__privlift`'s fields `names`, read in the page. */
const state = (...names) => wk.execute(
  'const s = window.__privlift; return Object.fromEntries(arguments[0].map((k) => [k, s[k] ?? null]));', [names]);

/** Selects `file` in the mechanism list (as a user's choice: a change event) and waits for its verification. */
async function choose(file) {
  await wk.execute(`window.__privlift.ready = false;
    const s = document.getElementById('mechanism');
    s.value = arguments[0];
    s.dispatchEvent(new Event('change'));`, [file]);
  await wk.waitFor('return window.__privlift.ready', [], { what: `${file} to be verified` });
}


test('the browser is WebKitGTK, driven through WebKitWebDriver', { skip }, async () => {
  assert.equal(wk.capabilities.browserName, 'MiniBrowser');
  const ua = await wk.execute('return navigator.userAgent');
  assert.match(ua, /AppleWebKit\/\d/);
  assert.doesNotMatch(ua, /Chrome|Firefox/);
});

test('WebKit verifies, perturbs, shows the native receipt, and the collector stores the report', { skip }, async () => {
  await wk.navigate(base);
  await wk.waitFor('return Boolean(window.__privlift && window.__privlift.ready)', [], { timeout: 30000, what: 'the page' });
  const file = 'age-retired-krr.json';
  await choose(file);
  const doc = JSON.parse(readFileSync(join(site, 'mechanisms', file), 'utf8'));
  assert.equal((await state('error')).error, null);
  assert.match(await wk.execute("return document.getElementById('status').textContent"), /Verified/);
  await wk.waitFor('return window.__privlift.learn && window.__privlift.learn.n > 0', [], { what: "the collector's estimate" });
  const before = (await state('learn')).learn;

  await wk.execute("document.getElementById('value').value = '4'");
  await wk.click('#perturb');
  await wk.waitFor("return !document.getElementById('receipt').hidden", [], { what: 'the receipt' });
  const { receipt, lastOutput, lastInput } = await state('receipt', 'lastOutput', 'lastInput');
  assert.equal(lastInput, 4);
  assert.ok(Number.isInteger(lastOutput) && lastOutput >= 0 && lastOutput < doc.labels.length);

  // The receipt WebKit computed is the native core's, field by field.
  const native = JSON.parse(execFileSync(cli, ['receipt', join(site, 'mechanisms', file), '--output', String(lastOutput)], { encoding: 'utf8' }));
  // The page's receipt is a JS object (camelCase), the CLI's is JSON (the wire's names).
  assert.equal(receipt.mechanismId, native.mechanism_id);
  assert.equal(receipt.outputIndex, native.output_index);
  const same = (n, p, what) => {
    assert.equal(p.entries.length, n.entries.length, `${what}: rows`);
    p.entries.forEach((e, i) => {
      for (const f of ['index', 'label', 'prior', 'posterior', 'lift']) assert.equal(e[f], n.entries[i][f], `${what} ${f} of ${e.label}`);
    });
    for (const [f, g] of [['minLiftBound', 'min_lift_bound'], ['maxLiftBound', 'max_lift_bound'], ['epsL', 'eps_l'], ['epsU', 'eps_u']]) {
      close(p[f], n[g], `${what} ${f}`);
    }
  };
  same(native, receipt, 'X');
  same(native.secret, receipt.secret, 'S');
  // What the page shows: one row per input label, and the secret's table.
  const shown = (id) => wk.execute(`return [...document.querySelectorAll('#${id} tbody tr th')].map((t) => t.textContent)`);
  assert.deepEqual(await shown('receipt'), doc.labels);
  assert.deepEqual(await shown('receipt-secret'), doc.secret.labels);

  // Send: the collector stores the one report, and the page's estimate counts it.
  await wk.waitFor("return !document.getElementById('send').disabled", [], { what: 'the send button' });
  await wk.click('#send');
  await wk.waitFor('return window.__privlift.sendResult && window.__privlift.learn && window.__privlift.learn.n !== arguments[0]',
    [before.n], { what: 'the report to be stored' });
  const s = await state('sendResult', 'lastReport', 'learn');
  assert.deepEqual(s.sendResult, { accepted: 1, duplicates: 0 });
  assert.deepEqual(Object.keys(s.lastReport).sort(), ['mechanism', 'output', 'report_id', 'sha256']);
  assert.equal(s.lastReport.mechanism, doc.id);
  const outputLabels = await wk.execute('return window.__privlift.mechanism.outputLabels');
  assert.equal(s.lastReport.output, outputLabels[lastOutput]);
  assert.equal(s.learn.n, before.n + 1);
  const direct = await (await fetch(`${collectorUrl}/v1/estimates/${doc.id}`)).json();
  assert.equal(direct.n, before.n + 1, "the collector's own count");
  assert.match(await wk.execute("return document.getElementById('send-status').textContent"), /^Stored by the curator's collector/);
});

test('WebKit refuses the lying document and cannot perturb with it', { skip }, async () => {
  await choose('lying.json');
  const st = await state('error', 'mechanism');
  assert.equal(st.error.code, 'claim_violated');
  assert.equal(st.mechanism, null);
  assert.match(await wk.execute("return document.getElementById('status').textContent"), /Refused/);
  assert.equal(await wk.execute("return document.getElementById('perturb').disabled"), true);
});

test('WebKit verifies the three continuous salary mechanisms and releases on their lattices', { skip }, async () => {
  await wk.waitFor('return window.__privliftSalary && window.__privliftSalary.ready', [], { timeout: 30000, what: 'the salary section' });
  const loaded = await wk.execute('const s = window.__privliftSalary; return { n: s.mechanisms.filter(Boolean).length, errors: s.errors };');
  assert.equal(loaded.n, 3, JSON.stringify(loaded.errors));
  await wk.execute("document.getElementById('salary').value = '52300'");
  await wk.click('#salary-release');
  await wk.waitFor('return window.__privliftSalary.receipts.filter(Boolean).length === 3', [], { what: 'three salary receipts' });
  const s = await wk.execute('const s = window.__privliftSalary; return { outputs: s.outputs, receipts: s.receipts };');
  const index = JSON.parse(readFileSync(join(site, 'mechanisms/index.json'), 'utf8'));
  for (const [i, entry] of index.continuous.entries()) {
    const { lo, step } = JSON.parse(readFileSync(join(site, 'mechanisms', entry.file), 'utf8')).domain;
    const k = (s.outputs[i] - lo) / step;
    assert.ok(Math.abs(k - Math.round(k)) < 1e-9, `${entry.file}: ${s.outputs[i]} off the lattice`);
    assert.equal(s.receipts[i].userPoint, 52000, `${entry.file}: the salary rounded to the lattice`);
    assert.ok(s.receipts[i].xs.length > 100 && s.receipts[i].xs.length === s.receipts[i].ratios.length);
  }
});
