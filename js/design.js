// privlift/design: the curator side in the browser or Node — design a mechanism from a
// prior (the same designers as `privlift design`) and estimate frequencies from counts.
//
// A separate wasm module (pkg-design/, built with the `design` feature and its LP
// solver) so that a client that only verifies and perturbs never downloads it. It
// returns documents as JSON text: hand them to `parseMechanism`/`fetchMechanism` from
// 'privlift', which verify them like any curator's document.
//
// The designers (`design`, `designContinuous`, `fitGmm`) run in the package's worker
// (js/offthread.js), with `{signal, onProgress}`: a design of seconds never blocks the
// page or Node's event loop. A `design` whose work the designer bounds before it starts,
// and small, runs on the calling thread (`designedHere`): the round trip to the worker
// would cost more than the design.

import initWasm, * as raw from '../pkg-design/privlift_design.js';
import { PrivliftError } from './privlift.js';
import { convert, guard, invalid, wasmSource, moduleLoader, embeddedWasm, compiledModule } from './common.js';
import {
  offThreadAvailable, checkOptions, runOffThread, abortError, INLINE_DESIGN_TEXT, INLINE_DESIGN_CELLS,
  INLINE_DESIGN_LP_MS,
} from './offthread.js';

export { offThreadAvailable, terminateIdleWorkers } from './offthread.js';

/** @type {Promise<WebAssembly.Module> | null} */
let compiled = null;

/**
 * The design module compiled once, from `init`'s `input` or the .wasm next to the package:
 * this thread and the package's worker instantiate the same one (one download).
 */
function designModule(input) {
  if (compiled === null) {
    // The .wasm file next to the package, unless given one or an entry carries it (workerd).
    compiled = (async () => compiledModule(input !== undefined ? input
      : embeddedWasm.design ? embeddedWasm.design()
        : await wasmSource(new URL('../pkg-design/privlift_design_bg.wasm', import.meta.url))))();
    compiled.catch(() => { compiled = null; });
  }
  return compiled;
}

/**
 * `init` (async, once), `initSync` (from bytes or a compiled module) and `isInitialized`,
 * as in 'privlift'. Optional: every function below loads the module. The module they load
 * is the one the package's worker instantiates too.
 */
export const { init, initSync, isInitialized } = moduleLoader('privlift design', {
  initWasm: async ({ module_or_path }) => initWasm({ module_or_path: await designModule(module_or_path) }),
  initSync: ({ module }) => {
    const compiledNow = module instanceof WebAssembly.Module ? module : new WebAssembly.Module(module);
    raw.initSync({ module: compiledNow });
    compiled ??= Promise.resolve(compiledNow);
  },
  defaultSource: () => undefined,
});

/**
 * Designs a mechanism and returns its document as JSON text (already audited: every claim
 * holds). `request` holds the method's inputs, as in the CLI's files:
 * `{prior: {labels, p}}` or `{joint: {secret_labels, labels, p_sx}}`, `epsilon`, `alpha`,
 * `a`, `b`, `priors: {labels, priors}`, `distortion: {d}`, `id`.
 */
export async function design(method, request, options) {
  const opts = checkOptions(options);
  if (typeof method !== 'string') throw invalid('method', 'expected a string'); // wasm takes a &str
  const text = JSON.stringify(request ?? {});
  let here = { started: false };
  if (offThreadAvailable() && text.length <= INLINE_DESIGN_TEXT) {
    if (opts.signal?.aborted) throw abortError(opts.signal, 'design()');
    await init();
    here = designedHere(method, text, opts);
    if (here.json !== undefined) return here.json;
  }
  // A design given up here at its LP's deadline has told `onProgress` 0 already.
  const { onProgress } = opts;
  const progress = here.started && onProgress !== undefined ? (f) => { if (f > 0) onProgress(f); } : onProgress;
  return offThread('design', [method, text], { ...opts, onProgress: progress }, 'design()', () => {
    let doc;
    try {
      doc = raw.design(method, text);
      return doc.toJson();
    } finally {
      doc?.free();
    }
  });
}

/**
 * `design(method, text)` run on the calling thread as `{json}`, or `{started}` where it
 * runs in the worker: with workers, a request of at most `INLINE_DESIGN_TEXT` characters
 * whose work the designer bounds before it starts (`designWithin`: |X|² + |S|·|X| cells
 * for `krr` and for `rr-lip` where eq 19 holds; 2⁵ passes over the |S|·|X|² blocks of
 * `linear-tv` and `linear-distance` with no `distortion`; an LP's non-zeros at 2⁷ cells
 * each for `rr-lip` and `orr-ldp`, whose enumeration counts its candidate systems; 2⁷
 * passes over the cells for `orr-lip` and `orr-alip`; no bound for the others)
 * by at most `INLINE_DESIGN_CELLS`, and whose LPs and vertex searches end within
 * `INLINE_DESIGN_LP_MS` of the call (`started`: one that did not, given up here). The
 * bounds keep the calling thread's wait well below 50 ms (js/offthread.js says what was
 * measured). The caller loads the module on this thread first, only for a request that
 * short.
 */
function designedHere(method, text, { signal, onProgress }) {
  let doc;
  let started = false;
  const start = () => { started = true; onProgress?.(0); };
  try {
    doc = guard(() => raw.designWithin(method, text, INLINE_DESIGN_CELLS, INLINE_DESIGN_LP_MS, start));
    if (doc === undefined) return { started };
    const json = doc.toJson();
    if (signal?.aborted) throw abortError(signal, 'design()');
    if (!started) onProgress?.(0); // a closed form: designWithin calls no `started`
    onProgress?.(1);
    return { json };
  } finally {
    doc?.free();
  }
}

/** The method names `design` accepts. */
export async function designMethods() {
  await init();
  return raw.designMethods();
}

/**
 * Unbiased estimate of P_X from report counts (per output; for unary encoding, ones per
 * bit with `n` the number of reports): `{estimate, stdError, n, projected?}`. It inverts
 * the channel, so the channel must be square and invertible: an LP design that leaves an
 * output unused (rr-lip at a small ε), or a merging one, is refused (`invalid_argument`
 * naming `documentJson`); `privlift estimate` and the collector estimate any channel by
 * maximum likelihood.
 */
export async function estimate(documentJson, counts, { n, project = false } = {}) {
  await init();
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
export async function designContinuous(request, options) {
  const opts = checkOptions(options);
  if (request === null || typeof request !== 'object') {
    // Sent as JSON text; the core would call a non-object `json`, this API says invalid_argument.
    throw invalid('request', 'expected an object {method, domain, prior, epsilon, delta}');
  }
  // JSON has no Infinity: a budget of Infinity is sent as the largest double.
  const text = JSON.stringify(request, (k, v) => (k === 'maxVerifyWork' && v === Infinity ? Number.MAX_VALUE : v));
  return offThread('designContinuous', [text], opts, 'designContinuous()', () => {
    let doc;
    try {
      doc = raw.designContinuous(text);
      return doc.toJson();
    } finally {
      doc?.free();
    }
  });
}

/** The method names `designContinuous` accepts. */
export async function continuousDesignMethods() {
  await init();
  return raw.continuousDesignMethods();
}

/**
 * Fits a Gaussian-mixture prior to samples by EM, with 1 to `maxComponents` components
 * chosen by BIC: `{weights, means, sds, components, logLikelihood, bic, iterations}`.
 * Pass `{gmm: {weights, means, sds}}` as the `prior` of `designContinuous`.
 */
export async function fitGmm(samples, maxComponents = 4, options) {
  const opts = checkOptions(options);
  if (samples === null || typeof samples !== 'object' || typeof samples[Symbol.iterator] !== 'function') {
    throw invalid('samples', 'expected an array or Float64Array of numbers');
  }
  // The usize wasm takes would wrap any other number; its range (1 to 64) is the core's.
  if (!Number.isInteger(maxComponents) || maxComponents < 0) {
    throw invalid('maxComponents', `expected a positive integer, got ${maxComponents}`);
  }
  const max = Math.min(maxComponents, 0xffff_ffff);
  const xs = samples instanceof Float64Array ? samples : Float64Array.from(samples);
  return offThread('fitGmm', [xs, max], opts, 'fitGmm()', () => raw.fitGmm(xs, max));
}

/**
 * Runs the designer `op` in the package's worker (js/offthread.js), or, where the runtime
 * has no workers, `here()` on the calling thread between a start and an end progress.
 */
async function offThread(op, args, { signal, onProgress }, what, here) {
  if (!offThreadAvailable()) {
    if (signal?.aborted) throw abortError(signal, what);
    await init();
    onProgress?.(0);
    const out = guard(here);
    if (signal?.aborted) throw abortError(signal, what);
    onProgress?.(1);
    return out;
  }
  let module;
  try {
    module = await designModule();
  } catch (e) {
    throw new PrivliftError('init', `could not load the privlift design module: ${e && e.message}`, { cause: e });
  }
  return runOffThread('design', module, op, args, { signal, onProgress }, what);
}
