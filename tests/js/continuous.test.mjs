// privlift/continuous in Node: a curator designs continuous documents (privlift/design),
// the client verifies them itself, perturbs on the lattice, and the receipt's ratio curve
// agrees with an independent computation of P(y|x)/P(y) from the audited pmf.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { designContinuous, continuousDesignMethods, fitGmm } from 'privlift/design';
import {
  parseContinuousMechanism, fetchContinuousMechanism, verifyContinuousAsync, ContinuousDocument, CONTINUOUS_KINDS, PrivliftError,
} from 'privlift/continuous';
import { unlimited } from '../../js/common.js';
import { parseMechanism, sendReports, PrivliftError as RootError } from 'privlift';
import { createHash } from 'node:crypto';

const domain = { lo: 20000, hi: 200000, step: 1000 };
const gmm = { gmm: { weights: [0.6, 0.4], means: [45000, 90000], sds: [12000, 30000] } };

test('every continuous method designs a document the client verifies', async () => {
  const methods = await continuousDesignMethods();
  assert.deepEqual([...methods].sort(), ['analytic-gaussian', 'gaussian-lip', 'gaussian-lip-instance', 'laplace-ldp', 'laplace-lip', 'sampling']);
  for (const method of methods) {
    const json = await designContinuous({ method, domain, prior: gmm, epsilon: 1, delta: 1e-5 });
    const doc = await parseContinuousMechanism(json);
    assert.ok(CONTINUOUS_KINDS.includes(doc.kind), method);
    const report = doc.check();
    assert.equal(report.claimsHold, true, `${method}: ${JSON.stringify(report.claims)}`);
    assert.ok(report.claims.length > 0, method);
    assert.equal(doc.domain.points, 181);
    const mass = doc.latticePrior.reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(mass - 1) < 1e-9, `${method}: lattice prior sums to ${mass}`);
    doc.free();
  }
});

test('perturb stays on the lattice and the receipt matches P(y|x)/P(y)', async () => {
  const json = await designContinuous({ method: 'laplace-lip', domain, prior: gmm, epsilon: 1 });
  const mech = (await parseContinuousMechanism(json)).verify({ lip: { eps: 1 } });
  const b = JSON.parse(json).mechanism.b;
  const x = 52300; // nearest lattice point 52000
  for (let i = 0; i < 200; i++) {
    const y = mech.perturb(x);
    assert.ok(Number.isInteger((y - domain.lo) / domain.step), `off-lattice output ${y}`);
  }
  const y = mech.perturb(x);
  const r = mech.receipt(y, x);
  assert.equal(r.userPoint, 52000);
  // Independent check: the discrete Laplace pmf on the lattice (scale b/step), up to its
  // rational rounding (relative 1e-6 of the scale), against the receipt's ratio.
  const tau = b / domain.step;
  const prior = mech.latticePrior;
  const j = Math.round((y - domain.lo) / domain.step);
  const pmf = (z) => Math.tanh(1 / (2 * tau)) * Math.exp(-Math.abs(z) / tau);
  const py = prior.reduce((acc, p, k) => acc + p * pmf(j - k), 0);
  const kUser = (52000 - domain.lo) / domain.step;
  const expected = pmf(j - kUser) / py;
  assert.ok(Math.abs(r.userRatio / expected - 1) < 1e-4, `${r.userRatio} vs ${expected}`);
  assert.ok(r.maxRatio <= Math.exp(1) * (1 + 1e-9) && r.minRatio >= Math.exp(-1) * (1 - 1e-9));
  assert.ok(r.xs.length <= 256 && r.xs.length === r.ratios.length);
  // What continuous.d.ts says: undefined (never null) without `x`, and for an unclaimed notion.
  assert.deepEqual(r.lip, { eps: 1, delta: 0 });
  assert.equal(r.ldp, undefined);
  const bare = mech.receipt(y);
  for (const k of ['user_x', 'user_point', 'user_ratio', 'ldp']) assert.equal(bare[k], undefined, k);
  mech.free();
});

test('seeded perturbation is reproducible and statistically right', async () => {
  const json = await designContinuous({ method: 'sampling', domain, prior: gmm, epsilon: 1, delta: 0.01 });
  const mech = (await parseContinuousMechanism(json)).verify();
  const xs = new Float64Array(20000).fill(100000);
  const a = mech.perturbManySeededForTesting(xs, 11n);
  const b = mech.perturbManySeededForTesting(xs, 11);
  assert.deepEqual(a, b);
  // Sampling mechanism: y = x with probability λ + (1 − λ)·P(x); 20000 draws, 5 sd.
  const lambda = JSON.parse(json).mechanism.lambda;
  const k = (100000 - domain.lo) / domain.step;
  const p = lambda + (1 - lambda) * mech.latticePrior[k];
  const hits = a.filter((y) => y === 100000).length;
  const sd = Math.sqrt(20000 * p * (1 - p));
  assert.ok(Math.abs(hits - 20000 * p) < 5 * sd, `${hits} vs ${20000 * p}`);
});

test('lying documents, bad policies and bad inputs are typed errors', async () => {
  const json = JSON.parse(await designContinuous({ method: 'gaussian-lip', domain, prior: gmm, epsilon: 1, delta: 1e-5 }));
  const lying = { ...json, claims: { lip: { eps: 0.2, delta: 1e-5 } } };
  // 181 points: verified in the package's Worker (verify() refuses it as needs_async).
  const doc = await parseContinuousMechanism(lying);
  assert.throws(() => doc.verify(), (e) => e instanceof PrivliftError && e.code === 'needs_async');
  await assert.rejects(verifyContinuousAsync(lying), (e) => e instanceof PrivliftError && e.code === 'claim_violated');
  assert.equal(PrivliftError, RootError);
  await assert.rejects(verifyContinuousAsync(json, { lip: { eps: 0.5, delta: 1e-5 } }), (e) => e.code === 'policy_violated');
  await assert.rejects(verifyContinuousAsync(json, { maxLip: 1 }), (e) => e.code === 'invalid_argument');
  const mech = await verifyContinuousAsync(json, { lip: { eps: 1, delta: 1e-4 } });
  await assert.rejects(mech.perturb(10), (e) => e.code === 'unknown_value');
  await assert.rejects(mech.perturb(NaN), (e) => e.code === 'non_finite');
  await assert.rejects(mech.perturb('52000'), (e) => e.code === 'non_finite');
  await assert.rejects(mech.receipt(20500), (e) => e.code === 'unknown_output');
  mech.free();
  await assert.rejects(parseContinuousMechanism({ ...json, domain: { lo: 5, hi: 1, step: 1 } }), (e) => e instanceof PrivliftError);
  await assert.rejects(parseContinuousMechanism('{"format": '), (e) => e.code === 'json');
  // The discrete entry point names the right one.
  await assert.rejects(parseMechanism(json), (e) => e.code === 'unsupported_mechanism' && /privlift\/continuous/.test(e.message));
  await assert.rejects(fetchContinuousMechanism(42), (e) => e.code === 'invalid_argument');
  // A document is made by the parser, which the refusal names.
  assert.throws(() => new ContinuousDocument({}), (e) => e.code === 'invalid_argument' && /parseContinuousMechanism\(\)/.test(e.message));
});

test('fitGmm recovers a two-component salary mixture and BIC picks two', async () => {
  // Deterministic normal draws by the inverse-CDF of a fixed quasi-random sequence
  // (test data only): 1/3 N(35000, 6000²), 2/3 N(70000, 15000²).
  const erfinv = (x) => { // Giles 2010 single-precision approximation, enough for test data
    let w = -Math.log((1 - x) * (1 + x)); let p;
    if (w < 5) { w -= 2.5; p = 2.81022636e-08; for (const c of [3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941]) p = c + p * w; }
    else { w = Math.sqrt(w) - 3; p = -0.000200214257; for (const c of [0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682]) p = c + p * w; }
    return p * x;
  };
  const samples = [];
  for (let i = 0; i < 6000; i++) {
    const u = ((i * 0.6180339887498949) % 1) * 0.998 + 0.001;
    const z = Math.SQRT2 * erfinv(2 * u - 1);
    samples.push(i % 3 === 0 ? 35000 + 6000 * z : 70000 + 15000 * z);
  }
  const fit = await fitGmm(samples, 4);
  assert.equal(fit.components, 2, JSON.stringify(fit));
  const order = fit.means[0] < fit.means[1] ? [0, 1] : [1, 0];
  assert.ok(Math.abs(fit.weights[order[0]] - 1 / 3) < 0.03);
  assert.ok(Math.abs(fit.means[order[0]] - 35000) < 1000 && Math.abs(fit.means[order[1]] - 70000) < 1500);
  await assert.rejects(fitGmm([1, 2, NaN, 4, 5, 6, 7, 8, 9]), (e) => e.code === 'invalid_argument');
  // A fitted prior designs a document directly.
  const json = await designContinuous({
    method: 'gaussian-lip', domain, epsilon: 1, delta: 1e-5,
    prior: { gmm: { weights: fit.weights, means: fit.means, sds: fit.sds } },
  });
  assert.equal((await parseContinuousMechanism(json)).check().claimsHold, true);
});

test('numbers and policies are checked once, by the core, with the same codes as before', async () => {
  const json = await designContinuous({ method: 'laplace-lip', domain, prior: gmm, epsilon: 1 });
  const doc = await parseContinuousMechanism(json);
  for (const bad of ['strict', 5, [1]]) {
    assert.throws(() => doc.verify(bad), (e) => e instanceof PrivliftError && e.code === 'invalid_argument' && /policy/.test(e.message));
    assert.throws(() => doc.check(bad), (e) => e.code === 'invalid_argument' && /policy/.test(e.message));
  }
  assert.throws(() => doc.verify({ lip: { eps: 1, delt: 1 } }), (e) => e.code === 'invalid_argument' && /delt/.test(e.message));
  // Only a plain object's own properties are read; limits held anywhere else are refused.
  class Lip { get eps() { return 1e-9; } }
  for (const bad of [new Map([['lip', { eps: 1e-9 }]]), { lip: new Lip() }, { lip: Object.create({ eps: 1e-9 }) }]) {
    assert.throws(() => doc.verify(bad), (e) => e.code === 'invalid_argument' && /plain object/.test(e.message));
  }
  // Every field is read by hand: a wrong type or a missing ε names its field.
  for (const [bad, field] of [
    [{ lip: { delta: 1e-6 } }, 'policy.lip.eps'],
    [{ ldp: { eps: '1' } }, 'policy.ldp.eps'],
    [{ lip: { eps: 1, delta: 'x' } }, 'policy.lip.delta'],
    [{ maxVerifyWork: '1e9' }, 'policy.maxVerifyWork'],
    [{ lip: 1 }, 'policy.lip'],
    [{ maxLip: 1 }, 'policy'],
  ]) {
    assert.throws(() => doc.verify(bad), (e) => e.code === 'invalid_argument' && e.message.includes(`\`${field}\``), JSON.stringify(bad));
  }
  // A limit that is there is a number: null or undefined never removes one (leave the key
  // out for no limit), at either level. δ defaults to 0 when left out.
  for (const [bad, field] of [
    [{ lip: null }, 'policy.lip'],
    [{ ldp: undefined }, 'policy.ldp'],
    [{ lip: { eps: null } }, 'policy.lip.eps'],
    [{ ldp: { eps: 1e-9, delta: null } }, 'policy.ldp.delta'],
    [{ lip: { eps: 1, delta: undefined } }, 'policy.lip.delta'],
    [{ maxVerifyWork: null }, 'policy.maxVerifyWork'],
    [{ lip: { eps: true } }, 'policy.lip.eps'],
    [{ lip: { eps: {} } }, 'policy.lip.eps'],
    [{ lip: { eps: NaN } }, 'policy.lip'],
    [{ ldp: { eps: -1 } }, 'policy.ldp'],
    [{ lip: { eps: 1, delta: -1e-9 } }, 'policy.lip'],
  ]) {
    assert.throws(() => doc.check(bad), (e) => e.code === 'invalid_argument' && e.message.includes(`\`${field}`), String(Object.keys(bad)));
  }
  assert.throws(() => doc.check({ lip: { eps: 1 }, ldp: { eps: 1 }, max_verify_work: 1e9 }),
    (e) => e.code === 'invalid_argument' && e.message.includes('maxVerifyWork'));
  assert.equal(doc.check({ ldp: { eps: 1e-9 } }).policyHolds, false);
  assert.equal(doc.check({ lip: { eps: Infinity }, ldp: { eps: Infinity } }).policyHolds, true);
  const loose = doc.check({ lip: { eps: 50 }, ldp: { eps: 50 } });
  assert.equal(loose.policyHolds, true);
  assert.deepEqual(loose.policy.map((c) => c.notion).sort(), ['maxLdp', 'maxLip']);
  assert.throws(() => doc.verify({ maxVerifyWork: 1 }), (e) => e.code === 'too_costly');
  const mech = doc.verify(null);
  // The core refuses what is not finite (non_finite) or outside the domain (unknown_value);
  // JS refuses only what would be coerced on the way in ('52000' → 52000).
  for (const x of [NaN, Infinity, -Infinity]) {
    assert.throws(() => mech.perturb(x), (e) => e.code === 'non_finite');
    assert.throws(() => mech.perturbMany([52000, x]), (e) => e.code === 'non_finite');
    assert.throws(() => mech.receipt(x), (e) => e.code === 'non_finite');
    assert.throws(() => mech.receipt(mech.perturb(52000), x), (e) => e.code === 'non_finite');
  }
  for (const x of ['52000', null, 52000n]) {
    assert.throws(() => mech.perturb(x), (e) => e.code === 'non_finite' && !e.message.includes('52000'));
    assert.throws(() => mech.perturbMany([52000, x]), (e) => e.code === 'non_finite' && /xs\[1\]/.test(e.message));
  }
  assert.throws(() => mech.perturb(-5), (e) => e.code === 'unknown_value' && !e.message.includes('-5'));
  assert.throws(() => mech.receipt(52000.5), (e) => e.code === 'unknown_output');
});

test('report: the released value, the document hash and a fresh id, nothing else', async () => {
  const json = await designContinuous({ method: 'laplace-lip', domain, prior: gmm, epsilon: 1 });
  const doc = await parseContinuousMechanism(json);
  const mech = doc.verify({ lip: { eps: 1 } });
  const sha = createHash('sha256').update(json).digest('hex');
  assert.equal(doc.sha256, sha);
  assert.equal(mech.sha256, sha);
  const y = mech.perturb(52300);
  const r = mech.report(y);
  assert.deepEqual(Object.keys(r).sort(), ['mechanism', 'output', 'report_id', 'sha256']);
  assert.equal(r.output, y);
  assert.equal(r.mechanism, mech.id);
  assert.match(r.report_id, /^[0-9a-f]{32}$/);
  assert.notEqual(mech.report(y).report_id, r.report_id);
  assert.ok(Object.isFrozen(r));
  // A value off the lattice, or not a number, is refused.
  assert.throws(() => mech.report(y + 0.5), (e) => e.code === 'unknown_output');
  assert.throws(() => mech.report(NaN), (e) => e.code === 'non_finite');
  assert.throws(() => mech.report(String(y)), (e) => e.code === 'non_finite');
  // sendReports posts it as it is.
  let body;
  const fetch = async (_url, init) => {
    body = JSON.parse(init.body);
    return new Response(JSON.stringify({ accepted: 1, duplicates: 0 }), { status: 202 });
  };
  assert.deepEqual(await sendReports('http://127.0.0.1:9/v1/reports', [r], { fetch }), { accepted: 1, duplicates: 0 });
  assert.deepEqual(body, { reports: [{ ...r }] });
  doc.free();
  mech.free();
});

test('console.log and JSON.stringify show a summary of a continuous mechanism', async () => {
  const { inspect } = await import('node:util');
  const json = await designContinuous({ method: 'laplace-lip', domain, prior: gmm, epsilon: 1 });
  const doc = await parseContinuousMechanism(json);
  const mech = doc.verify({ lip: { eps: 1 } });
  assert.match(inspect(mech), /^ContinuousMechanism \{[\s\S]*kind: 'laplace'/);
  const s = JSON.parse(JSON.stringify(mech));
  assert.equal(s.domain.points, 181);
  assert.equal(s.verified, true);
  assert.ok(s.audit.lip.eps <= 1 + 1e-9);
  assert.equal(JSON.parse(JSON.stringify(doc)).verified, false);
  mech.free();
  doc.free();
  assert.deepEqual(JSON.parse(JSON.stringify(mech)), { freed: true });
});

test('after free(), a continuous document or mechanism throws PrivliftError invalid_state; a second free() does nothing', async () => {
  const json = await designContinuous({ method: 'laplace-lip', domain, prior: gmm, epsilon: 1 });
  const doc = await parseContinuousMechanism(json);
  const mech = doc.verify({ lip: { eps: 1 } });
  const y = mech.perturb(50000);
  mech.free();
  mech.free();
  if (typeof Symbol.dispose === 'symbol') mech[Symbol.dispose]();
  doc.free();
  doc.free();
  const freed = (cls) => (e) => e instanceof PrivliftError && e.code === 'invalid_state' && e.message.includes(`${cls} was freed`);
  for (const call of [() => mech.perturb(50000), () => mech.receipt(y), () => mech.report(y), () => mech.domain, () => mech.audit()]) {
    assert.throws(call, freed('ContinuousMechanism'));
  }
  for (const call of [() => doc.verify(), () => doc.check(), () => doc.domain, () => doc.toJson()]) {
    assert.throws(call, freed('ContinuousDocument'));
  }
});

test('the default verify budget and Gaussian lattice sizes: as design.d.ts and the README say', async () => {
  const design = (method, points, more = {}) => {
    const hi = points - 1;
    return designContinuous({
      method, domain: { lo: 0, hi, step: 1 }, prior: { gaussian: { mean: hi / 2, sd: hi / 8 } }, epsilon: 1, delta: 1e-5,
      ...more,
    });
  };
  // Documented: gaussian-lip fits the default budget up to about 520–650 points at ε 1,
  // δ 1e-5, analytic-gaussian up to about 460; beyond, the designer refuses with too_costly
  // unless the request's maxVerifyWork is raised (and the clients' with it).
  for (const [method, fits, over] of [['gaussian-lip', 500, 1000], ['analytic-gaussian', 400, 550]]) {
    const small = await parseContinuousMechanism(await design(method, fits));
    unlimited(() => small.verify()).free(); // the budget's matter, not the thread's
    small.free();
    await assert.rejects(design(method, over),
      (e) => e instanceof PrivliftError && e.code === 'too_costly' && /coarser step/.test(e.message), method);
  }
  const raised = await parseContinuousMechanism(await design('analytic-gaussian', 550, { maxVerifyWork: 2 ** 30 }));
  assert.throws(() => raised.verify(), (e) => e instanceof PrivliftError && e.code === 'too_costly' && /maxVerifyWork/.test(e.message));
  unlimited(() => raised.verify({ maxVerifyWork: 2 ** 30 })).free();
  raised.free();
  const { readFile } = await import('node:fs/promises');
  const dts = await readFile(new URL('../../js/design.d.ts', import.meta.url), 'utf8');
  const readme = await readFile(new URL('../../js/README.md', import.meta.url), 'utf8');
  for (const [name, text] of [['design.d.ts', dts], ['js/README.md', readme]]) {
    assert.match(text, /520–650 points/, name);
    assert.match(text, /460/, name);
    assert.match(text, /maxVerifyWork/, name);
  }
});
