// The perturbMany benchmark's workload, shared by the Node script (node.mjs) and the
// browser page (index.html): k-RR documents at k = 2, 21, 256, the two baselines, and
// the alternation that measures them in one run.
//
//   perturbMany       Mechanism.perturbIndices(Uint32Array of n inputs), the OS pool
//                     (named perturbMany before the JS API's rename): a new array out
//   … in place        Mechanism.perturbIndicesInPlace: the outputs replace the inputs (each
//                     round perturbs the last round's outputs: a draw's time and randomness
//                     do not depend on its input)
//   keepOrUniform     the JS loop a developer would write instead: keep x with probability
//                     κ, else a uniform draw over the k values; two crypto.getRandomValues
//                     u32 words a report (8 bytes; perturbIndices draws one 32-bit word at
//                     these k, one 64-bit word where its bias check refuses 32 bits); a new
//                     array out
//   keepOrUniformInPlace  the same loop writing its outputs over its inputs
//   getRandomValues   crypto.getRandomValues into 64 KiB views: the byte rate both draw on
//
// Each round runs every contender once, in turn, so that load on a shared machine falls
// on all of them alike; the figures are medians over rounds of each contender's time,
// the ratios medians of the per-round ratios. Each row also has the least time of each
// contender over the rounds and their ratio (`least`): on a loaded machine a round is
// often preempted (wall time in a page), and the least time is the one that was not.

export const EPS = 1.0;

/** The `krr` document at `k` (what `privlift design krr` publishes). */
export function krrDocument(k, eps = EPS) {
  return {
    format: 'privlift-mechanism', version: 1, id: `krr-${k}`,
    labels: Array.from({ length: k }, (_, i) => `v${i}`),
    prior: Array(k).fill(1 / k),
    mechanism: { kind: 'krr', epsilon: eps },
    claims: { ldp_x: eps, lip: eps },
  };
}

/** n inputs spread over k values (a fixed LCG: benchmark inputs, never noise). */
export function inputs(k, n) {
  const xs = new Uint32Array(n);
  let s = 12345;
  for (let i = 0; i < n; i++) { s = (Math.imul(s, 1103515245) + 12345) >>> 0; xs[i] = s % k; }
  return xs;
}

/**
 * The keep-or-uniform baseline: κ = (e^ε − 1)/(e^ε + k − 1) as a u32 threshold, the
 * uniform draw as ⌊w·k / 2³²⌋ of a u32 word w (a multiplication: `w % k` is an integer
 * division, 2× slower at k = 21 in V8, unless the JIT knows k). k and the threshold are
 * arguments of the loop, as in a library: V8 specialises a closure on the constants of
 * its context, which gave the first k measured a mask for `% k` and the others a division.
 */
export function keepOrUniform(k, eps = EPS, { inPlace = false } = {}) {
  const e = Math.exp(eps);
  const keep = Math.floor(((e - 1) / (e + k - 1)) * 4294967296);
  const words = new Uint32Array(2 * 8192);
  return (xs) => keepOrUniformLoop(xs, inPlace ? xs : new Uint32Array(xs.length), k, keep, words);
}

function keepOrUniformLoop(xs, out, k, keep, words) {
  for (let base = 0; base < xs.length; base += 8192) {
    const m = Math.min(8192, xs.length - base);
    crypto.getRandomValues(m === 8192 ? words : words.subarray(0, 2 * m));
    for (let i = 0; i < m; i++) {
      out[base + i] = words[2 * i] < keep ? xs[base + i] : Math.floor(words[2 * i + 1] * k * 2.3283064365386963e-10);
    }
  }
  return out;
}

/** Fills `bytes` bytes with crypto.getRandomValues, 64 KiB a call. */
export function randomBytes(bytes) {
  const buf = new Uint8Array(65536);
  return () => {
    let s = 0;
    for (let off = 0; off < bytes; off += 65536) s += crypto.getRandomValues(buf)[7];
    return s;
  };
}

const median = (a) => { const b = [...a].sort((x, y) => x - y); return b[b.length >> 1]; };

/**
 * Runs `contenders` ({name: () => any}) alternately: a warm-up of `warm` ms (long enough for the JIT to tier every loop up), then `rounds`
 * rounds, each running every contender once; `clock()` is milliseconds (CPU time in Node,
 * wall time in a page). Returns {name: {ms, runs}} with the median of each.
 */
export function alternate(contenders, { rounds, clock, warm = 1500 }) {
  const names = Object.keys(contenders);
  let sink = 0;
  const w0 = clock();
  for (let c = 0; c < 2 || clock() - w0 < warm; c++) for (const n of names) sink += Number(contenders[n]()?.[7] ?? 0);
  const runs = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    for (const n of names) {
      const t = clock();
      sink += Number(contenders[n]()?.[7] ?? 0);
      runs[n].push(clock() - t);
    }
  }
  const out = Object.fromEntries(names.map((n) => [n, { ms: median(runs[n]), runs: runs[n] }]));
  out.sink = sink;
  return out;
}

/** The median over rounds of a.runs[r] / b.runs[r] (each ratio from one round). */
const ratio = (a, b) => median(a.runs.map((v, r) => v / b.runs[r]));

/**
 * The whole benchmark: for each k, perturbMany of each entry of `mechanisms`
 * ({label: async (doc) => mechanism}) against keep-or-uniform and the byte rate, n reports
 * a call. Returns rows {k, label, ms, vs_keep_or_uniform, byte_rate_share}.
 */
export async function run(mechanisms, { ks = [2, 21, 256], n = 1_000_000, rounds = 9, clock, log = () => {} }) {
  const rows = [];
  for (const k of ks) {
    const xs = inputs(k, n);
    const inPlace = xs.slice();
    const contenders = {
      keepOrUniform: (f => () => f(xs))(keepOrUniform(k)),
      keepOrUniformInPlace: (f => () => f(inPlace))(keepOrUniform(k, EPS, { inPlace: true })),
      getRandomValues: randomBytes(8 * n),
    };
    const labels = [];
    for (const [label, make] of Object.entries(mechanisms)) {
      const m = await make(krrDocument(k));
      // `perturbIndices` (`perturbMany` in a checkout before the rename, for --compare).
      const draw = (m.perturbIndices ?? m.perturbMany).bind(m);
      contenders[label] = () => draw(xs);
      labels.push(label);
      if (m.perturbIndicesInPlace) {
        const work = xs.slice();
        contenders[`${label} in place`] = () => m.perturbIndicesInPlace(work);
        labels.push(`${label} in place`);
      }
    }
    const r = alternate(contenders, { rounds, clock });
    for (const label of labels) {
      const row = {
        k, label, ms: r[label].ms, keep_or_uniform_ms: r.keepOrUniform.ms,
        keep_or_uniform_in_place_ms: r.keepOrUniformInPlace.ms, random_bytes_ms: r.getRandomValues.ms,
        // Speed against the baselines (> 1: perturbMany is faster) and the share of the
        // getRandomValues byte rate its 8 bytes a report reach.
        vs_keep_or_uniform: ratio(r.keepOrUniform, r[label]),
        least_ms: Math.min(...r[label].runs), keep_or_uniform_least_ms: Math.min(...r.keepOrUniform.runs),
        vs_keep_or_uniform_least: Math.min(...r.keepOrUniform.runs) / Math.min(...r[label].runs),
        vs_keep_or_uniform_in_place: ratio(r.keepOrUniformInPlace, r[label]),
        byte_rate_share: ratio(r.getRandomValues, r[label]),
        runs: r[label].runs.map((v) => +v.toFixed(2)),
      };
      rows.push(row);
      log(`k = ${String(k).padStart(3)}  ${label.padEnd(22)} ${row.ms.toFixed(2).padStart(6)} ms / ${n} reports  `
        + `${row.vs_keep_or_uniform.toFixed(2)}× keep-or-uniform (${row.keep_or_uniform_ms.toFixed(2)} ms), `
        + `${row.vs_keep_or_uniform_in_place.toFixed(2)}× in place (${row.keep_or_uniform_in_place_ms.toFixed(2)} ms)  `
        + `${(100 * row.byte_rate_share).toFixed(0)} % of the byte rate (${row.random_bytes_ms.toFixed(2)} ms for ${8 * n} B); `
        + `least ${row.least_ms.toFixed(2)} ms, ${row.vs_keep_or_uniform_least.toFixed(2)}× keep-or-uniform's (${row.keep_or_uniform_least_ms.toFixed(2)} ms)`);
    }
  }
  return rows;
}
