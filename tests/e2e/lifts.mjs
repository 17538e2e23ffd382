// The receipt's lifts computed independently of privlift, from a discrete document's JSON:
// every channel kind expanded by hand, then P(y|x)/P(y) and P(s|y)/P(s).

const TWO32 = 2 ** 32;

/**
 * The keep probability a uniform mixing actually draws with (the rule of
 * src/sample/keep_or_uniform.rs, restated here from its documentation): one 32-bit word
 * keeps with κ₃₂ = 1 − g·w/2³², w = ⌈(2³² − ⌊κ·2³²⌋)/g⌉, when κ − κ₃₂ is at most a tenth of
 * the standard error of a frequency from 10⁹ reports (relative to κ); otherwise a 64-bit
 * word keeps with κ to within 2⁻⁶⁴, which the tests' tolerance absorbs.
 */
function keptByOneWord(keep, g) {
  if (keep >= 1) return keep;
  const w = Math.ceil((TWO32 - Math.floor(keep * TWO32)) / g);
  if (g * w > TWO32) return keep;
  const kept32 = (TWO32 - g * w) / TWO32;
  const off = (1 - keep) / g;
  const v = (q) => q * (1 - q);
  const sd = Math.sqrt(Math.min(v(off), v(keep + off)) / 1e9) / keep;
  const fits = (keep === 0 && keep === kept32) || (keep - kept32) / keep <= sd / 10;
  return fits ? kept32 : keep;
}

/** ε-LDP of the k-RR over `g` values designed at `eps`, as its sampler draws it. */
export function drawnKrrLdp(eps, g) {
  const keep = keptByOneWord(Math.expm1(eps) / (Math.expm1(eps) + g), g);
  return Math.log1p((keep * g) / (1 - keep));
}

/** P(y|x) of a discrete mechanism object over `nx` inputs, expanded by hand for every channel kind. */
function expand(m, nx) {
  switch (m.kind) {
    case 'matrix': return m.p_y_given_x;
    case 'krr':
    case 'rr_lip': {
      const nominal = m.keep ?? Math.expm1(m.epsilon) / (Math.expm1(m.epsilon) + nx);
      const mix = m.mixing ?? Array(nx).fill(1 / nx);
      const keep = mix.every((v) => v === mix[0]) ? keptByOneWord(nominal, mix.length) : nominal;
      return mix.map((_, x) => mix.map((v, y) => (1 - keep) * v + (x === y ? keep : 0)));
    }
    case 'sparse':
      return m.rows.map((r) => { const row = Array(m.outputs).fill(0); r.forEach(([y, p]) => { row[y] = p; }); return row; });
    case 'srr': {
      const low = m.low_risk ?? [];
      const ny = low.length + m.groups.reduce((a, g) => a + g.p_y_given_x[0].length, 0);
      const rows = Array(nx).fill(null);
      low.forEach((x, i) => { rows[x] = Array(ny).fill(0); rows[x][i] = 1; });
      let y0 = low.length;
      for (const g of m.groups) {
        g.inputs.forEach((x, j) => { rows[x] = Array(ny).fill(0); g.p_y_given_x[j].forEach((p, y) => { rows[x][y0 + y] = p; }); });
        y0 += g.p_y_given_x[0].length;
      }
      return rows.map((r) => r ?? m.others);
    }
    case 'merge': {
      const nb = Math.max(...m.blocks) + 1;
      const inner = m.inner ? expand(m.inner, nb) : Array.from({ length: nb }, (_, b) => Array.from({ length: nb }, (_, y) => (y === b ? 1 : 0)));
      return m.blocks.map((b) => inner[b]);
    }
    default: throw new Error(`no channel for kind ${m.kind}`);
  }
}

/** P(y|x) of a document: its channel, or Σ_s P(s|x)·P(y|s,x) for a per-secret one. */
function channel(doc) {
  const m = doc.mechanism;
  if (m.kind !== 'per_secret') return expand(m, doc.labels.length);
  if (m.p_y_given_x) return m.p_y_given_x;
  return doc.prior.map((px, x) => m.p_y_given_sx[0][x].map((_, y) =>
    doc.secret.p_sx.reduce((a, row, s) => a + row[x] * m.p_y_given_sx[s][x][y], 0) / px));
}

/**
 * Receipt lifts computed independently from the document: for each value x of the user's
 * input, P(y|x)/P(y) with P(y) = Σ_x prior[x]·P(y|x); for each value s of the curator's
 * secret (when declared), P(s|y)/P(s). A zero prior has lift 0.
 */
export function expectedLifts(doc, y) {
  const W = channel(doc);
  const pY = doc.prior.reduce((a, p, x) => a + p * W[x][y], 0);
  const x = doc.prior.map((p, k) => (p > 0 ? W[k][y] / pY : 0));
  if (!doc.secret) return { x, s: undefined };
  const Ws = (s) => doc.mechanism.p_y_given_sx?.[s] ?? W;
  const s = doc.secret.p_sx.map((row, k) => {
    const ps = row.reduce((a, b) => a + b, 0);
    const psy = row.reduce((a, p, xi) => a + p * Ws(k)[xi][y], 0);
    return ps > 0 ? psy / pY / ps : 0;
  });
  return { x, s };
}
