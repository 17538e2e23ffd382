// privlift/ledger in Node (memory storage): cumulative bounds, budget refusal with a
// coded error, memoised randomised response, export and clear.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMechanism, PrivliftError } from 'privlift';
import { openLedger } from 'privlift/ledger';
import { design } from 'privlift/design';

function krr(k, eps, id) {
  const e = Math.exp(eps);
  return {
    format: 'privlift-mechanism', version: 1, id,
    labels: Array.from({ length: k }, (_, i) => `v${i}`), prior: Array(k).fill(1 / k),
    mechanism: { kind: 'matrix', p_y_given_x: Array.from({ length: k }, (_, x) => Array.from({ length: k }, (_, y) => (x === y ? e : 1) / (e + k - 1))) },
    claims: { ldp_x: eps },
  };
}

test('bounds accumulate per attribute and the budget refuses with budget_exceeded', async () => {
  const m = (await parseMechanism(krr(4, 1, 'k1'))).verify({});
  const ledger = await openLedger({ origin: 'https://a.example', budget: { ldp: 2.5 }, storage: 'memory' });
  assert.equal(ledger.storage, 'memory');
  assert.deepEqual(await ledger.bound('age'), { releases: 0, ldp: 0, lip: 0 });
  const r1 = await ledger.release('age', m, 'v2');
  assert.equal(r1.bound.releases, 1);
  assert.ok(Math.abs(r1.bound.ldp - 1) < 1e-12);
  assert.ok(r1.bound.lip >= m.leakage().lip - 1e-12, 'one release: the Thm 4 bound covers its own LIP');
  const r2 = await ledger.release('age', m, 'v2');
  assert.ok(Math.abs(r2.bound.ldp - 2) < 1e-12);
  assert.ok(r2.bound.lip > r1.bound.lip);
  // A third release would make the LDP total 3 > 2.5.
  await assert.rejects(ledger.release('age', m, 'v1'), (e) => e instanceof PrivliftError && e.code === 'budget_exceeded' && /2\.5/.test(e.message));
  assert.equal((await ledger.releases('age')).length, 2, 'a refused release is not recorded');
  // Another attribute has its own budget; another origin its own ledger.
  await ledger.release('grade', m, 'v0');
  const other = await openLedger({ origin: 'https://b.example', storage: 'memory' });
  assert.equal((await other.releases()).length, 0);
  const exported = await ledger.export();
  assert.equal(exported.releases.length, 3);
  assert.ok(exported.releases.every((r) => r.origin === 'https://a.example' && r.mechanismId === 'k1' && typeof r.time === 'string'));
  await ledger.clear();
  assert.equal((await ledger.releases()).length, 0);
});

test('memoised randomised response: same input, same output, no new leakage', async () => {
  const m = (await parseMechanism(krr(8, 0.5, 'k8'))).verify({});
  const ledger = await openLedger({ origin: 'https://c.example', budget: { ldp: 0.6 }, storage: 'memory' });
  const first = await ledger.release('q', m, 'v3', { memoize: true });
  for (let i = 0; i < 20; i++) {
    const again = await ledger.release('q', m, 'v3', { memoize: true });
    assert.equal(again.output, first.output);
    assert.equal(again.memoized, true);
  }
  assert.equal((await ledger.releases('q')).length, 1);
  // A different value is a new release, and the 0.6-nat budget refuses it.
  await assert.rejects(ledger.release('q', m, 'v4', { memoize: true }), (e) => e.code === 'budget_exceeded');
});

test('bad arguments are coded errors', async () => {
  await assert.rejects(openLedger({ storage: 'floppy' }), (e) => e.code === 'invalid_argument');
  await assert.rejects(openLedger({ budget: { dp: 1 }, storage: 'memory' }), (e) => e.code === 'invalid_argument');
  const ledger = await openLedger({ storage: 'memory' });
  const m = (await parseMechanism(krr(2, 1, 'k2'))).verify({});
  await assert.rejects(ledger.release('', m, 'v0'), (e) => e.code === 'invalid_argument');
  await assert.rejects(ledger.release('a', m, 'v9'), (e) => e.code === 'unknown_value');
});

test('a trivial secret does not fool the ledger: its budgets compose the leakage about X', async () => {
  // Near-clear text of X (0.9 on the diagonal) with one secret value "all": every S-notion
  // is 0, while the X-audit is what the user's budget is about.
  const k = 3;
  const doc = {
    format: 'privlift-mechanism', version: 1, id: 'trivial', labels: ['a', 'b', 'c'], prior: [0.2, 0.3, 0.5],
    secret: { labels: ['all'], p_sx: [[0.2, 0.3, 0.5]] },
    mechanism: { kind: 'matrix', p_y_given_x: Array.from({ length: k }, (_, x) => Array.from({ length: k }, (_, y) => (x === y ? 0.9 : 0.05))) },
    claims: { lip: 0, ldp: 0 },
  };
  const m = (await parseMechanism(doc)).verify({ maxLipS: 0 });
  assert.ok(m.leakage().lip < 1e-12, 'nothing about S');
  const lx = m.leakageX();
  assert.ok(lx.lip > 1 && Math.abs(lx.ldpX - Math.log(18)) < 1e-9, `X leaks: ${JSON.stringify(lx)}`);
  assert.ok(m.lipUnderAnyPrior() <= lx.ldpX && m.lipUnderAnyPrior() >= lx.lip);
  const ledger = await openLedger({ origin: 'https://t.example', storage: 'memory' });
  let last;
  for (let i = 0; i < 5; i++) last = await ledger.release('answer', m, 'b');
  assert.ok(Math.abs(last.bound.ldp - 5 * Math.log(18)) < 1e-9, `LDP_X adds up: ${last.bound.ldp}`);
  assert.ok(last.bound.lip > lx.lip, `the LIP bound is about X: ${last.bound.lip}`);
  const records = await ledger.releases('answer');
  assert.ok(records.every((r) => r.lip_x === lx.lip && r.ldp_x === lx.ldpX && !('lip' in r)), 'records hold X-notions only');
  const capped = await openLedger({ origin: 'https://u.example', storage: 'memory', budget: { lip: 1 } });
  await assert.rejects(capped.release('answer', m, 'b'), (e) => e.code === 'budget_exceeded');
});

test('in Node: auto storage is memory and says so once; indexeddb and localstorage are storage errors', async (t) => {
  const warnings = [];
  t.mock.method(console, 'warn', (...args) => warnings.push(args.join(' ')));
  const a = await openLedger({ origin: 'https://n.example' });
  assert.equal(a.storage, 'memory');
  await openLedger({ origin: 'https://n.example' });
  assert.equal(warnings.length, 1, 'warned once');
  assert.match(warnings[0], /kept in memory and forgotten/);
  await openLedger({ origin: 'https://n.example', storage: 'memory' });
  assert.equal(warnings.length, 1, "storage: 'memory' is silent");
  for (const storage of ['indexeddb', 'localstorage']) {
    await assert.rejects(openLedger({ storage }), (e) => e instanceof PrivliftError && e.code === 'storage' && /storage: 'memory'/.test(e.message), storage);
  }
  await assert.rejects(openLedger({ storage: 'disk' }), (e) => e instanceof PrivliftError && e.code === 'invalid_argument');
});

test('numeric labels that are not their positions: release resolves the label once, by index', async () => {
  // Labels "1", "2", "3": the label "2" is index 1, and the number 1 would be ambiguous to
  // perturb; the ledger must perturb the index it resolved, never re-read it as a value.
  const doc = { ...krr(3, 1, 'num'), labels: ['1', '2', '3'] };
  const m = (await parseMechanism(doc)).verify({});
  const ledger = await openLedger({ origin: 'https://num.example', budget: { ldp: 10 }, storage: 'memory' });
  for (const value of ['1', '2', '3']) {
    const r = await ledger.release('g', m, value);
    assert.ok(Number.isInteger(r.output) && r.output < 3, value);
    assert.equal(r.label, m.outputLabels[r.output]);
  }
  const first = await ledger.release('h', m, '2', { memoize: true });
  const again = await ledger.release('h', m, '2', { memoize: true });
  assert.equal(first.memoized, false);
  assert.equal(again.memoized, true);
  assert.equal(again.output, first.output);
  assert.equal((await ledger.releases()).length, 4);
});

test('a unary (OUE) mechanism is refused up front: the ledger releases one label per call', async () => {
  const json = await design('oue', { prior: { labels: ['a', 'b', 'c'], p: [0.2, 0.3, 0.5] }, epsilon: 1 });
  const m = (await parseMechanism(json)).verify({});
  assert.equal(m.kind, 'unary');
  const ledger = await openLedger({ origin: 'https://oue.example', storage: 'memory' });
  await assert.rejects(ledger.release('u', m, 'a'), (e) => e instanceof PrivliftError && e.code === 'invalid_argument'
    && /unary/.test(e.message) && /not supported/.test(e.message) && !/perturbBits/.test(e.message));
  await assert.rejects(ledger.release('u', m, 'a', { memoize: true }), (e) => e.code === 'invalid_argument');
  assert.equal((await ledger.releases()).length, 0, 'nothing recorded');
});

/** A 3-input matrix document with `prior` and rows `rows` (2 outputs), claiming ldp_x ln 9. */
function matrix3(id, prior, rows, extra = {}) {
  return {
    format: 'privlift-mechanism', version: 1, id, labels: ['v0', 'v1', 'v2'], prior,
    mechanism: { kind: 'matrix', p_y_given_x: rows }, claims: { ldp_x: Math.log(9) }, ...extra,
  };
}

test('priors that rule out different inputs: each release enters the LIP total with its LDP', async () => {
  // Each has LIP 0 under its own prior (the inputs it allows share one row), but together
  // the two outputs tell v0, v1 and v2 apart: the joint channel's LIP is ln 3 under either prior.
  const a = (await parseMechanism(matrix3('a', [0, 0.5, 0.5], [[0.9, 0.1], [0.5, 0.5], [0.5, 0.5]]))).verify({});
  const b = (await parseMechanism(matrix3('b', [0.5, 0.5, 0], [[0.5, 0.5], [0.5, 0.5], [0.1, 0.9]]))).verify({});
  assert.ok(a.leakageX().lip < 1e-12 && b.leakageX().lip < 1e-12);
  const ledger = await openLedger({ origin: 'https://support.example', budget: { lip: 0.5 }, storage: 'memory' });
  await ledger.release('x', a, 'v1');
  await assert.rejects(ledger.release('x', b, 'v1'), (e) => e.code === 'budget_exceeded');
  const both = await ledger.bound('x', b);
  assert.ok(both.lip >= Math.log(3), `${both.lip} < ln 3`);
  // The same prior twice: the LIP of each release still composes (LIP 0 each).
  const same = await openLedger({ origin: 'https://same.example', budget: { lip: 0.5 }, storage: 'memory' });
  await same.release('x', a, 'v1');
  await same.release('x', a, 'v2');
  assert.ok((await same.bound('x')).lip < 1e-9);
});

test('localStorage keeps an unbounded release unbounded', async (t) => {
  const store = new Map();
  const ls = { getItem: (k) => (store.has(k) ? store.get(k) : null), setItem: (k, v) => store.set(k, String(v)), removeItem: (k) => store.delete(k) };
  const had = Object.getOwnPropertyDescriptor(globalThis, 'localStorage');
  Object.defineProperty(globalThis, 'localStorage', { value: ls, configurable: true, writable: true });
  t.after(() => (had ? Object.defineProperty(globalThis, 'localStorage', had) : delete globalThis.localStorage));
  // X in clear, with a secret independent of X: its S-claim holds, its leakage about X is ∞.
  const clear = (await parseMechanism(matrix3('clear', [0.2, 0.3, 0.5], [[1, 0], [0, 1], [0, 1]], {
    claims: { lip: 0 }, secret: { labels: ['s0', 's1'], p_sx: [[0.1, 0.15, 0.25], [0.1, 0.15, 0.25]] },
  }))).verify({});
  assert.equal(clear.leakageX().ldpX, Infinity);
  const page = await openLedger({ origin: 'https://ls.example', storage: 'localstorage' });
  assert.equal(page.storage, 'localstorage');
  await page.release('age', clear, 'v1');
  const later = await openLedger({ origin: 'https://ls.example', storage: 'localstorage', budget: { ldp: 1 } });
  assert.deepEqual(await later.bound('age'), { releases: 1, ldp: Infinity, lip: Infinity });
  const k = (await parseMechanism(krr(3, 0.5, 'k'))).verify({});
  await assert.rejects(later.release('age', k, 'v0'), (e) => e.code === 'budget_exceeded');
});

test('releases started together are checked one after another against the budget', async () => {
  const m = (await parseMechanism(krr(4, 1, 'k1'))).verify({});
  const ledger = await openLedger({ origin: 'https://race.example', budget: { ldp: 2.5 }, storage: 'memory' });
  const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => ledger.release('age', m, 'v1')));
  assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 2);
  assert.ok(outcomes.filter((o) => o.status === 'rejected').every((o) => o.reason.code === 'budget_exceeded'));
  assert.equal((await ledger.releases('age')).length, 2);
  assert.ok((await ledger.bound('age')).ldp <= 2.5);
});
