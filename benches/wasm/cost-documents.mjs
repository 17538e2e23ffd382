// The documents of the cost benchmark (benches/wasm/cost.mjs) and the measurement of one,
// shared by its Node runs and its headless-Chromium page (benches/browser/cost.html).

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
  // k inputs merged in pairs, a dense RR on the k/2 blocks.
  merge: (k) => {
    const b = k / 2, p = Math.E / (Math.E + b - 1), q = 1 / (Math.E + b - 1);
    const rows = Array.from({ length: b }, (_, x) => Array.from({ length: b }, (_, y) => (x === y ? p : q)));
    return doc(`merge-${k}`, k, {
      kind: 'merge', blocks: Array.from({ length: k }, (_, x) => x >> 1), inner: { kind: 'matrix', p_y_given_x: rows },
    });
  },
};

export const SIZES = {
  matrix: [256, 512, 768, 1024, 1448, 2048],
  unary: [256, 1024, 2048, 4096],
  krr: [1024, 4096],
  rr_lip: [1024, 4096],
  sparse: [1024, 2048, 4096],
  srr: [256, 1024, 2048, 3640],
  merge: [512, 1024, 2048, 4096],
  per_secret: [256, 512, 1024, 1448],
};

/** The first parse and verify of `kind` at size `n` with `parseMechanism` (a fresh module). */
export async function measure(parseMechanism, kind, n) {
  const text = DOCUMENTS[kind](Number(n));
  const t0 = performance.now();
  const d = await parseMechanism(text);
  const t1 = performance.now();
  let work = null;
  try {
    d.verify({ maxVerifyWork: 1 });
  } catch (e) {
    work = Number(/about ([0-9.e+]+) work units/.exec(e.message)?.[1] ?? NaN);
  }
  const t2 = performance.now();
  let outcome = 'verified';
  try {
    d.verify({ maxVerifyWork: Infinity });
  } catch (e) {
    outcome = e.code;
  }
  const t3 = performance.now();
  let atDefault = 'accepted';
  try {
    d.verify({});
  } catch (e) {
    if (e.code === 'too_costly') atDefault = 'too_costly';
  }
  const verify = (t3 - t2) / 1000;
  return { kind, n: Number(n), bytes: text.length, work, parse: (t1 - t0) / 1000, verify, outcome, atDefault,
    perWork: work ? (verify / work) * 1e8 : null };
}

