// The requests of the inline-design tests (design-inline.test.mjs in Node,
// design-inline-browser.test.mjs in Chromium): the largest designs js/design.js runs on the
// calling thread, at both of its bounds. Plain ES module: the Chromium page imports it too.

/** P ∝ (1, 2, …, k): skewed, so that eq 19 fails for rr-lip at a small ε. */
export const skewed = (k) => Array.from({ length: k }, (_, i) => (2 * (i + 1)) / (k * (k + 1)));

/** P uniform over `k` symbols. */
export const uniform = (k) => Array.from({ length: k }, () => 1 / k);

/** The largest prior a k-RR may design on the calling thread under `cells`: 2k² cells. */
export const largestPrior = (cells) => Math.floor(Math.sqrt(cells / 2));

/** A joint of `ns` secrets over `nx` inputs (each input under one secret), mostly zeros: many cells in a short text. */
export function sparseJoint(ns, nx) {
  return { p_sx: Array.from({ length: ns }, (_, s) => Array.from({ length: nx }, (_, x) => (x % ns === s ? 1 / nx : 0))) };
}

/**
 * The largest |X| whose `rr-lip` LP (eq 19 failing) may run on the calling thread under
 * `cells`: 2k² cells and its LP's 6k² + k non-zeros at 2⁷ cells each, with 2⁸ passes over
 * its k² cells (design/src/work.rs; design-inline.test.mjs checks the two agree).
 */
export function largestLpPrior(cells) {
  const bound = (k) => 2 * k * k + 256 * k * k + 128 * (6 * k * k + k);
  let k = 2;
  while (bound(k + 1) <= cells) k += 1;
  return k;
}

/**
 * The most secrets a linear reduction (`linear-tv`, `linear-distance` on |x − y|) over `nx`
 * inputs may have on the calling thread under `cells`: nx² + ns·nx cells, and 2⁵ passes
 * over each secret's nx² block (design/src/work.rs).
 */
export const largestLinearSecrets = (cells, nx) => Math.floor((cells - nx * nx) / (32 * nx * nx + nx));

/** A joint of `ns` secrets over `nx` inputs with no zero, each row unlike the others. */
export function denseJoint(ns, nx) {
  const w = Array.from({ length: ns }, (_, s) => Array.from({ length: nx }, (_, x) => 1 + ((7 * s + 3 * x) % 5)));
  const total = w.flat().reduce((a, b) => a + b, 0);
  return { p_sx: w.map((row) => row.map((v) => v / total)) };
}

/**
 * The largest |X| over `ns` secrets whose vertex search (`orr-lip`, `orr-alip`) may start
 * on the calling thread under `cells`: 2⁷ passes over |X|² + |S|·|X| cells
 * (design/src/work.rs; its search's bases stop at the deadline).
 */
export function largestSearchInputs(cells, ns) {
  let nx = 1;
  while (128 * ((nx + 1) ** 2 + ns * (nx + 1)) <= cells) nx += 1;
  return nx;
}

/**
 * The largest LP designs allowed on the calling thread under `cells` (2¹⁷), each marked
 * `lp`: rr-lip's LP at its largest, the vertex searches over the
 * largest joints of two and five secrets that start here (2 × 31 and 5 × 29; the second
 * reaches its deadline), and orr-ldp over the largest joint of two secrets it may run here
 * (2 × 6: design-inline.test.mjs).
 */
export function largestLpDesigns(cells) {
  const k = largestLpPrior(cells);
  const [two, five] = [largestSearchInputs(cells, 2), largestSearchInputs(cells, 5)];
  return [
    { what: `rr-lip's LP over ${k} symbols`, method: 'rr-lip', request: { prior: { p: skewed(k) }, epsilon: 0.3 }, lp: true },
    { what: `orr-lip over 2 × ${two}`, method: 'orr-lip', request: { joint: denseJoint(2, two), epsilon: 0.5 }, lp: true },
    { what: `orr-alip over 5 × ${five}`, method: 'orr-alip', request: { joint: denseJoint(5, five), eps_l: 0.25, eps_u: 0.25 }, lp: true },
    { what: 'orr-ldp over 2 × 6', method: 'orr-ldp', request: { joint: denseJoint(2, 6), epsilon: 0.5 }, lp: true },
  ];
}

/**
 * The largest designs allowed on the calling thread under the bounds `cells` and `text`:
 * the k-RR and eq-19 RR (ε 10) of `largestPrior(cells)` symbols whose labels fill the
 * request to `text` characters, of a joint of many zeros with as many cells as fit in
 * both bounds (a joint's text grows with |S|·|X|, its cells with |X|² too), and the linear
 * reductions over the most secrets of 16 inputs.
 * @returns {{what: string, method: string, request: object}[]}
 */
export function largestInlineDesigns(cells, text) {
  const k = largestPrior(cells);
  const labelled = (n) => ({ prior: { labels: Array.from({ length: k }, (_, i) => `${i}-`.padEnd(n, 'x')), p: uniform(k) }, epsilon: 1 });
  let n = 4;
  while (JSON.stringify(labelled(n + 1)).length <= text) n += 1;
  const prior = labelled(n);
  const nx = Math.floor(Math.sqrt(cells) * 0.94);
  const length = (ns) => JSON.stringify({ joint: sparseJoint(ns, nx), epsilon: 1 }).length;
  const row = length(2) - length(1); // each secret's row adds as many characters
  let ns = Math.min(nx, Math.floor((cells - nx * nx) / nx), Math.floor((text - length(1)) / row) + 1);
  while (ns > 1 && length(ns) > text) ns -= 1;
  const joint = { joint: sparseJoint(ns, nx), epsilon: 1 };
  const linear = { joint: denseJoint(largestLinearSecrets(cells, 16), 16), alpha: 0.5 };
  return [
    { what: `krr over ${k} symbols`, method: 'krr', request: prior },
    { what: `rr-lip over ${k} symbols`, method: 'rr-lip', request: { ...prior, epsilon: 10 } },
    { what: `krr over ${ns} × ${nx}`, method: 'krr', request: joint },
    { what: `rr-lip over ${ns} × ${nx}`, method: 'rr-lip', request: { ...joint, epsilon: 10 } },
    { what: `linear-tv over ${linear.joint.p_sx.length} × 16`, method: 'linear-tv', request: linear },
    { what: `linear-distance over ${linear.joint.p_sx.length} × 16`, method: 'linear-distance', request: linear },
  ];
}
