// The requests of the inline-design tests (design-inline.test.mjs in Node,
// design-inline-browser.test.mjs in Chromium): the largest designs js/design.js runs on the
// calling thread, at both of its bounds. Plain ES module: the Chromium page imports it too.

/** P uniform over `k` symbols. */
export const uniform = (k) => Array.from({ length: k }, () => 1 / k);

/** The largest prior a k-RR may design on the calling thread under `cells`: 2k² cells. */
export const largestPrior = (cells) => Math.floor(Math.sqrt(cells / 2));

/** A joint of `ns` secrets over `nx` inputs (each input under one secret), mostly zeros: many cells in a short text. */
export function sparseJoint(ns, nx) {
  return { p_sx: Array.from({ length: ns }, (_, s) => Array.from({ length: nx }, (_, x) => (x % ns === s ? 1 / nx : 0))) };
}

/**
 * The largest designs allowed on the calling thread under the bounds `cells` and `text`:
 * the k-RR and eq-19 RR (ε 10) of `largestPrior(cells)` symbols whose labels fill the
 * request to `text` characters, and of a joint of many zeros with as many cells as fit in
 * both bounds (a joint's text grows with |S|·|X|, its cells with |X|² too).
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
  return [
    { what: `krr over ${k} symbols`, method: 'krr', request: prior },
    { what: `rr-lip over ${k} symbols`, method: 'rr-lip', request: { ...prior, epsilon: 10 } },
    { what: `krr over ${ns} × ${nx}`, method: 'krr', request: joint },
    { what: `rr-lip over ${ns} × ${nx}`, method: 'rr-lip', request: { ...joint, epsilon: 10 } },
  ];
}
