// The documents of the cost benchmark (benches/wasm/cost.mjs) and the measurement of one,
// shared by its Node runs and its headless-Chromium page (benches/browser/cost.html).
// Each kind grows with one size `n` towards the default budget's boundary; the continuous
// kinds (CONTINUOUS) are parsed by privlift/continuous, the others by privlift.
import { unlimited } from '../../js/common.js';

const labels = (k) => Array.from({ length: k }, (_, i) => `v${i}`);
const uniform = (k) => Array(k).fill(1 / k);
const doc = (id, k, mechanism, extra = {}) => JSON.stringify({
  format: 'privlift-mechanism', version: 1, id, labels: labels(k), prior: uniform(k),
  claims: { lip: 50 }, mechanism, ...extra,
});

/** A document of `kind` whose size grows with `n`. */
export const DOCUMENTS = {
  // Randomised response as a dense k × k matrix.
  matrix: (k) => {
    const p = Math.E / (Math.E + k - 1), q = 1 / (Math.E + k - 1);
    const rows = Array.from({ length: k }, (_, x) => Array.from({ length: k }, (_, y) => (x === y ? p : q)));
    return doc(`matrix-${k}`, k, { kind: 'matrix', p_y_given_x: rows });
  },
  unary: (k) => doc(`unary-${k}`, k, { kind: 'unary', q01: 0.25, q10: 0.5 }),
  krr: (k) => doc(`krr-${k}`, k, { kind: 'krr', epsilon: 1 }),
  rr_lip: (k) => doc(`rr-lip-${k}`, k, { kind: 'rr_lip', keep: 0.5, mixing: uniform(k) }),
  // Each input spread over 16 outputs of k.
  sparse: (k) => {
    const d = Math.min(16, k);
    const rows = Array.from({ length: k }, (_, x) => {
      const ys = Array.from({ length: d }, (_, j) => (x + j) % k).sort((a, b) => a - b);
      return ys.map((y) => [y, 1 / d]);
    });
    return doc(`sparse-${k}`, k, { kind: 'sparse', outputs: k, rows });
  },
  // 4096 inputs: n low-risk, one group of one, the other 4095 − n share `others` over n + 1 outputs.
  srr: (n) => {
    const k = 4096;
    const prior = Array.from({ length: k }, (_, x) => (x <= n ? 1 / (n + 1) : 0));
    return JSON.stringify({
      format: 'privlift-mechanism', version: 1, id: `srr-${n}`, labels: labels(k), prior, claims: { lip: 50 },
      mechanism: {
        kind: 'srr', low_risk: Array.from({ length: n }, (_, i) => i),
        groups: [{ inputs: [n], p_y_given_x: [[1]] }], others: uniform(n + 1),
      },
    });
  },
  // Four secrets (s = x mod 4), each with its own dense RR (ε 1 + s/10) over k inputs.
  per_secret: (k) => {
    const ns = 4;
    const rr = (e) => Array.from({ length: k }, (_, x) => Array.from({ length: k }, (_, y) => (
      x === y ? Math.exp(e) / (Math.exp(e) + k - 1) : 1 / (Math.exp(e) + k - 1))));
    const p_sx = Array.from({ length: ns }, (_, s) => Array.from({ length: k }, (_, x) => (x % ns === s ? 1 / k : 0)));
    return doc(`per-secret-${k}`, k, { kind: 'per_secret', p_y_given_sx: Array.from({ length: ns }, (_, s) => rr(1 + s / 10)) },
      { secret: { labels: ['s0', 's1', 's2', 's3'], p_sx } });
  },
  // Unary over 4096 inputs with n secrets (s = x mod n): the audit w.r.t. S by Dinkelbach steps.
  unary_secret: (ns) => unarySecret(4096, ns),
  // Unary over 14 inputs (every output enumerated, 2¹⁴ of them) with n secrets (s = x mod n).
  unary_secret_enum: (ns) => unarySecret(14, ns),
  // A dense 512 × 512 RR with a `bp_lip` claim over n priors.
  bp_lip: (n) => withClaims(DOCUMENTS.matrix(512), `bp-lip-${n}`, { bp_lip: { eps: 50, priors: priors(512, n) } }),
  // A krr over 4096 inputs with a `bp_lip` claim over n priors.
  bp_lip_krr: (n) => withClaims(DOCUMENTS.krr(4096), `bp-lip-krr-${n}`, { bp_lip: { eps: 50, priors: priors(4096, n) } }),
  // A dense RR over 2^m inputs, m binary attributes, and an `srlip` claim (2^m subsets).
  srlip: (m) => withClaims(DOCUMENTS.matrix(2 ** m), `srlip-${m}`, { srlip: { eps: 50, attributes: Array(m).fill(2) } }),
  // A dense RR over k inputs and an `srlip` claim of one attribute (k + 1 groups).
  srlip_one: (k) => withClaims(DOCUMENTS.matrix(k), `srlip-one-${k}`, { srlip: { eps: 50, attributes: [k] } }),
  // A dense k × k RR with an α-lift claim of order 3 (an audit pass beyond the default order 2).
  alpha: (k) => withClaims(DOCUMENTS.matrix(k), `alpha-${k}`, { alpha: ORDER_3 }),
  alpha_krr: (k) => withClaims(DOCUMENTS.krr(k), `alpha-krr-${k}`, { alpha: ORDER_3 }),
  alpha_unary: (k) => withClaims(DOCUMENTS.unary(k), `alpha-unary-${k}`, { alpha: ORDER_3 }),
  // Gaussian noise on n lattice points of the salary domain, with the σ `designContinuous`
  // gives at ε 1, δ 1e-5 on 901 points (σ is in value units: its width in steps grows with n).
  gaussian: (n) => continuous(`gaussian-${n}`, SALARY, n, { kind: 'gaussian', sigma: 684484.4168194104 * 1.001 },
    { lip: { eps: 1, delta: 1e-5 } }),
  // Two points and σ = n lattice steps: the noise tables alone (σ ≤ 2²⁰ steps).
  gaussian_wide: (n) => continuous(`gaussian-wide-${n}`, { lo: 0, hi: 1 }, 2, { kind: 'gaussian', sigma: n },
    { lip: { eps: 1, delta: 0.9 } }),
  // 128 points (the most whose LDP is audited pairwise) with two σ, n and 1.1n steps, alternating.
  gaussian_pairs: (n) => continuous(`gaussian-pairs-${n}`, { lo: 0, hi: 127 }, 128,
    { kind: 'gaussian', sigma: Array.from({ length: 128 }, (_, k) => (k % 2 ? 1.1 * n : n)) },
    { lip: { eps: 1, delta: 0.9 } }),
  // Laplace noise of scale (hi − lo)/ε on n points (the `laplace-ldp` design at ε 1).
  laplace: (n) => continuous(`laplace-${n}`, SALARY, n, { kind: 'laplace', b: 225000 }, { ldp: { eps: 1.0001, delta: 0 } }),
  // k inputs merged in pairs, a dense RR on the k/2 blocks.
  merge: (k) => {
    const b = k / 2, p = Math.E / (Math.E + b - 1), q = 1 / (Math.E + b - 1);
    const rows = Array.from({ length: b }, (_, x) => Array.from({ length: b }, (_, y) => (x === y ? p : q)));
    return doc(`merge-${k}`, k, {
      kind: 'merge', blocks: Array.from({ length: k }, (_, x) => x >> 1), inner: { kind: 'matrix', p_y_given_x: rows },
    });
  },
};

const ORDER_3 = { order: 3, eps_l: 50, eps_u: 50 };

/** The continuous kinds (privlift/continuous documents). */
export const CONTINUOUS = new Set(['gaussian', 'gaussian_wide', 'gaussian_pairs', 'laplace']);

const SALARY = { lo: 15000, hi: 240000 };
const SALARY_PRIOR = { gmm: { weights: [0.45, 0.4, 0.15], means: [38000, 62000, 110000], sds: [7000, 12000, 25000] } };

/** A continuous document on n points of [lo, hi]. */
function continuous(id, { lo, hi }, n, mechanism, claims) {
  const prior = lo === SALARY.lo ? SALARY_PRIOR : { gmm: { weights: [1], means: [(lo + hi) / 2], sds: [hi - lo + 1] } };
  return JSON.stringify({
    format: 'privlift-mechanism', version: 1, id, domain: { lo, hi, step: (hi - lo) / (n - 1) }, prior, mechanism, claims,
  });
}

/** `text` (a document) with its `id` and more claims. */
function withClaims(text, id, claims) {
  const d = JSON.parse(text);
  return JSON.stringify({ ...d, id, claims: { ...d.claims, ...claims } });
}

/** n priors over k inputs, each a different tilt of the uniform one. */
function priors(k, n) {
  return Array.from({ length: n }, (_, i) => {
    const w = Array.from({ length: k }, (_, x) => 1 + ((x * (i + 1)) % 7));
    const t = w.reduce((a, b) => a + b, 0);
    return w.map((v) => v / t);
  });
}

/** Unary over nx inputs (uniform prior) with ns secrets, s = x mod ns. */
function unarySecret(nx, ns) {
  const p_sx = Array.from({ length: ns }, (_, s) => Array.from({ length: nx }, (_, x) => (x % ns === s ? 1 / nx : 0)));
  const secret = { labels: Array.from({ length: ns }, (_, s) => `s${s}`), p_sx };
  return doc(`unary-${nx}-secret-${ns}`, nx, { kind: 'unary', q01: 0.25, q10: 0.5 }, { secret });
}

export const SIZES = {
  matrix: [256, 512, 768, 1024, 1448, 2048],
  unary: [256, 1024, 2048, 4096],
  krr: [1024, 4096],
  rr_lip: [1024, 4096],
  sparse: [1024, 2048, 4096],
  srr: [256, 1024, 2048, 3640],
  merge: [512, 1024, 2048, 4096],
  per_secret: [256, 512, 1024, 1448],
  unary_secret: [4, 8, 16, 32, 64],
  unary_secret_enum: [16, 40, 64, 320],
  bp_lip: [16, 64, 74],
  bp_lip_krr: [64, 256],
  srlip: [5, 6, 7],
  srlip_one: [200, 280, 320],
  alpha: [256, 500, 560, 1024],
  alpha_krr: [1024, 4096],
  alpha_unary: [1024, 4096],
  gaussian: [301, 451, 491, 541, 901],
  gaussian_wide: [16384, 26000, 31000, 65536],
  gaussian_pairs: [64, 180, 220],
  laplace: [1024, 4096],
};

/**
 * The first parse and verify of `kind` at size `n` (a fresh module): `parse` is
 * `{ discrete, continuous }`, privlift's `parseMechanism` and privlift/continuous's
 * `parseContinuousMechanism`. `refusal` is the seconds of the default budget's refusal.
 */
export async function measure(parse, kind, n) {
  const text = DOCUMENTS[kind](Number(n));
  const t0 = performance.now();
  const d = await (CONTINUOUS.has(kind) ? parse.continuous : parse.discrete)(text);
  const t1 = performance.now();
  let work = null;
  try {
    unlimited(() => d.verify({ maxVerifyWork: 1 }));
  } catch (e) {
    work = Number(/about ([0-9.e+]+) work units/.exec(e.message)?.[1] ?? NaN);
  }
  const t2 = performance.now();
  let outcome = 'verified';
  try {
    // Without the calling thread's limit (SYNC_VERIFY_WORK): what a first verify costs.
    unlimited(() => d.verify({ maxVerifyWork: Infinity }));
  } catch (e) {
    outcome = e.code;
  }
  const t3 = performance.now();
  let atDefault = 'accepted';
  try {
    unlimited(() => d.verify({}));
  } catch (e) {
    if (e.code === 'too_costly') atDefault = 'too_costly';
  }
  const t4 = performance.now();
  const verify = (t3 - t2) / 1000;
  return { kind, n: Number(n), bytes: text.length, work, parse: (t1 - t0) / 1000, verify, outcome, atDefault,
    refusal: atDefault === 'too_costly' ? (t4 - t3) / 1000 : null, perWork: work ? (verify / work) * 1e8 : null };
}

