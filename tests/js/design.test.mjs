// privlift/design in Node: every method designs a document the client verifies, and
// estimation from counts matches a direct computation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { design, designMethods, estimate, fitGmm } from 'privlift/design';
import { parseMechanism, PrivliftError } from 'privlift';

const prior = { labels: ['a', 'b', 'c', 'd'], p: [0.1, 0.2, 0.3, 0.4] };
const joint = { secret_labels: ['s0', 's1'], labels: ['a', 'b', 'c', 'd'], p_sx: [[0.1, 0.1, 0.05, 0.15], [0.0, 0.1, 0.25, 0.25]] };
const requests = {
  krr: { prior, epsilon: 1 },
  oue: { prior, epsilon: 1 },
  'rr-lip': { prior, epsilon: 0.7 },
  'rr-lip-interval': { a: 0.2, b: 0.4, epsilon: 1 },
  'rr-bp-lip': { priors: { priors: [[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25]] }, epsilon: 1 },
  'linear-markov': { joint, alpha: 0.5 },
  'linear-tv': { joint, alpha: 0.5 },
  'linear-distance': { joint, alpha: 0.5 },
};

test('every method designs a document that the client verifies', async () => {
  const methods = await designMethods();
  for (const m of Object.keys(requests)) assert.ok(methods.includes(m), `designMethods() lists ${m}`);
  for (const [method, req] of Object.entries(requests)) {
    const json = await design(method, req);
    const doc = await parseMechanism(json);
    const report = doc.check({});
    assert.equal(report.claimsHold, true, method);
    assert.ok(report.claims.length > 0, method);
    assert.equal(typeof JSON.parse(json).utility.nmi, 'number', method);
  }
});

test('design errors are PrivliftErrors with codes', async () => {
  await assert.rejects(design('krr', { prior, epsilon: -1 }), (e) => e instanceof PrivliftError && e.code === 'invalid_argument');
  await assert.rejects(design('nope', { prior }), (e) => e.code === 'invalid_argument');
  await assert.rejects(design('krr', { prior, epsilon: 1, typo: 1 }), (e) => e.code === 'json');
  await assert.rejects(design('krr', { prior: { p: [0.5, 0.6] }, epsilon: 1 }), (e) => e.code === 'not_normalized');
});

test('estimate inverts the channel on exact expected counts', async () => {
  const json = await design('krr', { prior, epsilon: 1 });
  // k-RR is published as the O(1) `krr` kind: expand it by hand.
  const m = JSON.parse(json).mechanism;
  assert.equal(m.kind, 'krr');
  const e = Math.exp(m.epsilon);
  const W = [0, 1, 2, 3].map((x) => [0, 1, 2, 3].map((y) => (x === y ? e : 1) / (e + 3)));
  const n = 1e6;
  const counts = [0, 1, 2, 3].map((y) => n * prior.p.reduce((a, p, x) => a + p * W[x][y], 0));
  const est = await estimate(json, counts, { project: true });
  est.estimate.forEach((v, x) => assert.ok(Math.abs(v - prior.p[x]) < 1e-9, `${v} vs ${prior.p[x]}`));
  assert.ok(Math.abs(est.projected.reduce((a, b) => a + b, 0) - 1) < 1e-12);
  assert.ok(Math.abs(est.n - n) < 1e-6 * n, `${est.n}`);
});

test('estimate refuses a channel it cannot invert, naming the argument passed (documentJson)', async () => {
  // rr-lip at ε 0.5 on this prior never outputs 'a': rank-deficient, so no unbiased inversion.
  const json = await design('rr-lip', { prior: { labels: ['a', 'b', 'c'], p: [0.2, 0.3, 0.5] }, epsilon: 0.5 });
  assert.ok(JSON.parse(json).mechanism.p_y_given_x.every((row) => row[0] === 0), 'the example is rank-deficient');
  for (const doc of [json, JSON.parse(json)]) {
    await assert.rejects(estimate(doc, [30, 30, 40]), (e) => e instanceof PrivliftError && e.code === 'invalid_argument'
      && e.message.startsWith('invalid `documentJson`:') && /not invertible/.test(e.message) && !e.message.includes('`mechanism`'));
  }
  // Other argument names are left as the core gives them.
  await assert.rejects(estimate(await design('krr', { prior, epsilon: 1 }), [1, -1, 1, 1]), (e) => e.code === 'invalid_argument' && /`counts/.test(e.message));
});

test('lift-measure notions and SRLIP design documents the client verifies', async () => {
  for (const notion of ['l1', 'chi2', 'alpha']) {
    const req = { joint, epsilon: 0.5, notion, ...(notion === 'alpha' ? { alpha_order: 3 } : {}) };
    const json = await design('subset-merging', req);
    const doc = await parseMechanism(json);
    const report = doc.check({});
    assert.equal(report.claimsHold, true, notion);
    assert.ok(notion in JSON.parse(json).claims, `${notion} claim present`);
    // At ε = 1 the high-risk set is the single symbol 'a' (P(s1 | a) = 0): merging it
    // alone cannot help, so there is no watchdog — a typed error, not a document.
    await assert.rejects(design('subset-merging', { ...req, epsilon: 1 }), (e) => e.code === 'infeasible');
  }
  await assert.rejects(design('watchdog', { joint, epsilon: 1, notion: 'alpha' }), (e) => e.code === 'invalid_argument');
  // Two binary attributes; columns of p_sx are the tuples in row-major order.
  const multi = {
    secret_labels: ['s0', 's1'],
    attributes: [{ labels: ['a0', 'a1'] }, { labels: ['b0', 'b1'] }],
    p_sx: [[0.2, 0.1, 0.1, 0.1], [0.05, 0.15, 0.1, 0.2]],
  };
  const json = await design('srlip', { joint: multi, epsilon: 1 });
  const doc = await parseMechanism(json);
  assert.equal(doc.check({}).claimsHold, true);
  assert.deepEqual(JSON.parse(json).claims.srlip.attributes, [2, 2]);
});

test('fitGmm: what cannot cross as a usize is refused in JS, the range (1 to 64) by the core', async () => {
  const samples = Array.from({ length: 60 }, (_, i) => (i % 2 ? 10 : 50) + (i % 7));
  for (const m of [0, 65, 2 ** 32, 2 ** 32 + 1, 1.5, -1, '2']) {
    await assert.rejects(fitGmm(samples, m), (e) => e instanceof PrivliftError && e.code === 'invalid_argument', `maxComponents ${m}`);
  }
  assert.ok((await fitGmm(samples, 1)).components === 1);
});
