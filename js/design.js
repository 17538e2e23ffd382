// privlift/design: the curator side in the browser or Node — design a mechanism from a
// prior (the same designers as `privlift design`) and estimate frequencies from counts.
//
// A separate wasm module (pkg-design/, built with the `design` feature and its LP
// solver) so that a client that only verifies and perturbs never downloads it. It
// returns documents as JSON text: hand them to `parseMechanism`/`fetchMechanism` from
// 'privlift', which verify them like any curator's document.

import initWasm, * as raw from '../pkg-design/privlift_design.js';
import { PrivliftError } from './privlift.js';
import { convert, guard, invalid, wasmSource } from './common.js';

let ready = null;


/** Loads the design module once (idempotent). Every function below calls it. */
export function initDesign(input) {
  if (ready === null) {
    ready = (async () => {
      await initWasm({ module_or_path: input === undefined ? await wasmSource(new URL('../pkg-design/privlift_design_bg.wasm', import.meta.url)) : input });
    })().catch((e) => {
      ready = null;
      throw new PrivliftError('init', `could not load the privlift design module: ${e && e.message}`, { cause: e });
    });
  }
  return ready;
}

/**
 * Designs a mechanism and returns its document as JSON text (already audited: every claim
 * holds). `request` holds the method's inputs, as in the CLI's files:
 * `{prior: {labels, p}}` or `{joint: {secret_labels, labels, p_sx}}`, `epsilon`, `alpha`,
 * `a`, `b`, `priors: {labels, priors}`, `distortion: {d}`, `id`.
 */
export async function design(method, request) {
  await initDesign();
  if (typeof method !== 'string') throw invalid('method', 'expected a string'); // wasm takes a &str
  let doc;
  try {
    doc = raw.design(method, JSON.stringify(request ?? {}));
    return doc.toJson();
  } catch (e) {
    throw convert(e);
  } finally {
    doc?.free();
  }
}

/** The method names `design` accepts. */
export async function designMethods() {
  await initDesign();
  return raw.designMethods();
}

/**
 * Unbiased estimate of P_X from report counts (per output; for unary encoding, ones per
 * bit with `n` the number of reports): `{estimate, std_error, n, projected?}`. It inverts
 * the channel, so the channel must be square and invertible: an LP design that leaves an
 * output unused (rr-lip at a small ε), or a merging one, is refused (`invalid_argument`
 * naming `documentJson`); `privlift estimate` and the collector estimate any channel by
 * maximum likelihood.
 */
export async function estimate(documentJson, counts, { n, project = false } = {}) {
  await initDesign();
  let doc;
  try {
    doc = raw.Document.parse(typeof documentJson === 'string' ? documentJson : JSON.stringify(documentJson));
    return raw.estimate(doc, Float64Array.from(counts), n, project);
  } catch (e) {
    const err = convert(e);
    // The core calls the channel `mechanism`; the caller passed it as `documentJson`.
    const named = 'invalid `mechanism`:';
    if (err instanceof PrivliftError && err.code === 'invalid_argument' && err.message.startsWith(named)) {
      throw new PrivliftError(err.code, `invalid \`documentJson\`:${err.message.slice(named.length)}`, { cause: e });
    }
    throw err;
  } finally {
    doc?.free();
  }
}

/**
 * Designs a continuous mechanism (a number on a bounded domain, released on a lattice)
 * and returns its audited document as JSON text. `request`: `{method, domain: {lo, hi,
 * step}, prior: {gaussian: {mean, sd}} | {gmm: {weights, means, sds}} | {histogram:
 * {edges, p}}, epsilon, delta, id?, maxVerifyWork?}`; methods as `privlift design` (`gaussian-lip`,
 * `gaussian-lip-instance`, `analytic-gaussian`, `laplace-lip`, `laplace-ldp`, `sampling`).
 */
export async function designContinuous(request) {
  await initDesign();
  if (request === null || typeof request !== 'object') {
    // Sent as JSON text; the core would call a non-object `json`, this API says invalid_argument.
    throw invalid('request', 'expected an object {method, domain, prior, epsilon, delta}');
  }
  let doc;
  try {
    // JSON has no Infinity: a budget of Infinity is sent as the largest double.
    const text = JSON.stringify(request, (k, v) => (k === 'maxVerifyWork' && v === Infinity ? Number.MAX_VALUE : v));
    doc = raw.designContinuous(text);
    return doc.toJson();
  } catch (e) {
    throw convert(e);
  } finally {
    doc?.free();
  }
}

/** The method names `designContinuous` accepts. */
export async function continuousDesignMethods() {
  await initDesign();
  return raw.continuousDesignMethods();
}

/**
 * Fits a Gaussian-mixture prior to samples by EM, with 1 to `maxComponents` components
 * chosen by BIC: `{weights, means, sds, components, logLikelihood, bic, iterations}`.
 * Pass `{gmm: {weights, means, sds}}` as the `prior` of `designContinuous`.
 */
export async function fitGmm(samples, maxComponents = 4) {
  await initDesign();
  if (samples === null || typeof samples !== 'object' || typeof samples[Symbol.iterator] !== 'function') {
    throw invalid('samples', 'expected an array or Float64Array of numbers');
  }
  // The usize wasm takes would wrap any other number; its range (1 to 64) is the core's.
  if (!Number.isInteger(maxComponents) || maxComponents < 0) {
    throw invalid('maxComponents', `expected a positive integer, got ${maxComponents}`);
  }
  const max = Math.min(maxComponents, 0xffff_ffff);
  return guard(() => raw.fitGmm(samples instanceof Float64Array ? samples : Float64Array.from(samples), max));
}
