// privlift/continuous: continuous documents on the device — a number on a bounded domain
// (a salary, a reading) released on a lattice with exact discrete Gaussian / Laplace noise
// or the sampling mechanism, after the browser has audited the curator's claims itself.
//
// A separate wasm module (pkg-continuous/) so that a page with discrete mechanisms only
// never downloads it. Errors are the same PrivliftError as 'privlift'. Randomness:
// crypto.getRandomValues inside the wasm module; nothing here draws randomness.

import initWasm, * as raw from '../pkg-continuous/privlift_continuous.js';
import { reportId } from './reports.js';
import {
  PrivliftError, CONTINUOUS_KINDS, guard, invalid, toSeed, documentBytes, wasmSource, typeOf, summarised, moduleLoader,
  refuseBlocking, unlimited, embeddedWasm,
  HANDLE, Wrapper, parsed, fetchedAndVerified, compiledOnce, remoteMechanism, bindRemote, offThread, warmOffThreadLater,
} from './common.js';

/**
 * The module compiled once, from init()'s `input` or by default the .wasm file next to the
 * package (unless an entry carries it: workerd): this thread instantiates it (init) and
 * the package's Worker too (verifyContinuousAsync), one download and one compilation.
 */
const continuousModule = compiledOnce(() => (embeddedWasm.continuous ? embeddedWasm.continuous()
  : wasmSource(new URL('../pkg-continuous/privlift_continuous_bg.wasm', import.meta.url))));

export { PrivliftError, CONTINUOUS_KINDS };

/**
 * `init` (async, once), `initSync` (from bytes or a compiled module) and `isInitialized`,
 * as in 'privlift'. Optional: every function below loads the module.
 */
export const { init, initSync, isInitialized } = moduleLoader('privlift continuous', {
  initWasm,
  initSync: raw.initSync,
  compiled: continuousModule,
});

/**
 * Parses and validates a continuous mechanism document (`kind` 'gaussian', 'laplace' or
 * 'sampling'); a discrete kind is `unsupported_mechanism` (use 'privlift').
 * @returns {Promise<ContinuousDocument>}
 */
export async function parseContinuousMechanism(document) {
  // Parsed once, by the core: a discrete document is `unsupported_mechanism` there,
  // naming parseMechanism from 'privlift'.
  return parsed(documentBytes(document), init, (bytes) => raw.ContinuousDocument.parseBytes(bytes),
    (handle, sha256) => new ContinuousDocument(handle, sha256));
}

/**
 * Downloads a continuous document, parses it and verifies it against `policy`
 * (`{lip?: {eps, delta}, ldp?: {eps, delta}}`, nats). Throws PrivliftError: `network`,
 * `http`, any parse code, `no_claims`, `claim_violated`, `policy_violated`, and
 * `needs_async` (verify the error's `document`, the bytes downloaded, with verifyContinuousAsync).
 * @returns {Promise<ContinuousMechanism>}
 */
export async function fetchContinuousMechanism(url, policy, fetchOptions) {
  return fetchedAndVerified(url, policy, fetchOptions, init, (bytes) => parseContinuousMechanism(bytes));
}

/** Parses `bytes` and returns `verify(doc)`; the document is freed. */
async function verifyBytes(bytes, verify) {
  const doc = await parseContinuousMechanism(bytes);
  try {
    return verify(doc);
  } finally {
    doc.free();
  }
}

/**
 * Parses and verifies a continuous document against `policy` in the package's Worker, as
 * `verifyAsync` of 'privlift': the call for any document `verify()` refuses as
 * `needs_async`. Resolves with an AsyncContinuousMechanism, whose methods answer by
 * promise from that Worker. `options`: `{signal, onProgress}`.
 * @returns {Promise<AsyncContinuousMechanism>}
 */
export async function verifyContinuousAsync(document, policy, options) {
  return (await offThread()).verifyOffThread({
    glue: 'continuous',
    cls: AsyncContinuousMechanism,
    what: 'verifyContinuousAsync()',
    compiled: () => continuousModule.of(),
    here: (bytes, p) => verifyBytes(bytes, (doc) => unlimited(() => doc.verify(p))),
  }, document, policy, options);
}


/**
 * A parsed, validated, NOT yet verified continuous document (`kind` 'gaussian', 'laplace'
 * or 'sampling': a number on a bounded domain, released on a lattice). Get one from
 * parseContinuousMechanism.
 */
export class ContinuousDocument extends Wrapper {
  /** @internal */
  constructor(handle, sha256) {
    super(handle, sha256, { raw: raw.ContinuousDocument, name: 'ContinuousDocument', from: 'parseContinuousMechanism()' });
  }

  get #d() { return this[HANDLE]; }

  /** 'gaussian', 'laplace' or 'sampling'. */
  get kind() { return this.#d.kind; }
  get description() { return this.#d.description; }
  /** `{lo, hi, step, points}`: values in [lo, hi] are released on lo + step·j. */
  get domain() { return guard(() => this.#d.domain); }
  /** The prior as the document declares it. */
  get prior() { return guard(() => this.#d.prior); }
  /** The prior's mass at each lattice point (conditioned on the domain). */
  get latticePrior() { return Array.from(this.#d.latticePrior); }
  get claims() { return guard(() => this.#d.claims); }
  get utility() { return guard(() => this.#d.utility); }
  toJson() { return this.#d.toJson(); }

  /** The exact audit of the sampler: `{lip: {eps, delta}, ldp: {eps, delta}, …}`. */
  audit() { return guard(() => this.#d.audit()); }

  /** Every claim and policy check, without throwing on a failed check. */
  check(policy) {
    return guard(() => this.#d.check(policy));
  }

  /**
   * Verifies claims and `policy` ({lip?: {eps, delta}, ldp?: {eps, delta}}); returns a
   * ContinuousMechanism or throws. A document that costs more than the calling thread
   * verifies (about 50 ms) is refused with `needs_async`: use verifyContinuousAsync.
   */
  verify(policy) {
    refuseBlocking(guard(() => this.#d.verifyWork(policy)), "verifyContinuousAsync(document, policy) from 'privlift/continuous'",
      () => warmOffThreadLater('continuous', continuousModule));
    return new ContinuousMechanism(guard(() => this.#d.verify(policy)), this.sha256);
  }
}

/**
 * A number as the f64 wasm takes: wasm-bindgen would coerce anything else ('52000' →
 * 52000), so that is refused here; the core refuses NaN and ±Infinity (non_finite) and
 * values outside the domain (unknown_value).
 */
function checkNumber(v, name, finite = false) {
  if (typeof v !== 'number' || (finite && !Number.isFinite(v))) {
    // The type only: `v` may be the user's value, which no error message contains.
    throw new PrivliftError('non_finite', `\`${name}\` must be a finite number, got ${typeOf(v)}`);
  }
  return v;
}

function toFloat64(xs, name) {
  if (xs instanceof Float64Array) return xs;
  if (typeof xs === 'string' || xs === null || typeof xs !== 'object' || typeof xs[Symbol.iterator] !== 'function') {
    throw invalid(name, `expected an array or Float64Array of numbers, got ${typeOf(xs)}`);
  }
  const arr = Array.from(xs);
  arr.forEach((v, k) => checkNumber(v, `${name}[${k}]`));
  return Float64Array.from(arr);
}

/** A verified continuous mechanism, perturbing with crypto.getRandomValues. */
export class ContinuousMechanism extends Wrapper {
  #kind;

  /** @internal */
  constructor(handle, sha256) {
    super(handle, sha256, { raw: raw.ContinuousMechanism, name: 'ContinuousMechanism', from: 'ContinuousDocument.verify()' });
    this.#kind = handle.kind;
  }

  get #m() { return this[HANDLE]; }

  /**
   * The report envelope for a released value `y` (from perturb): `{mechanism, sha256,
   * output, report_id}` with a fresh random 128-bit id. Nothing else: not the user's value,
   * no time, no identifier. Throws `unknown_output` for a value that is not on the lattice.
   */
  report(y) {
    checkNumber(y, 'y', true);
    const { lo, step } = this.domain;
    const j = Math.round((y - lo) / step);
    if (!(Math.abs(lo + step * j - y) <= 1e-6 * step)) {
      throw new PrivliftError('unknown_output', 'the value is not lo + step·j of this mechanism\'s lattice');
    }
    return Object.freeze({ mechanism: this.id, sha256: this.sha256, output: y, report_id: reportId() });
  }
  get kind() { return this.#kind; }
  get domain() { return guard(() => this.#m.domain); }
  get latticePrior() { return Array.from(this.#m.latticePrior); }

  /** Releases a perturbed value for `x` in the domain (throws `unknown_value` outside it). */
  perturb(x) {
    checkNumber(x, 'x');
    return guard(() => this.#m.perturb(x));
  }

  /** Perturbs many values; returns a Float64Array. */
  perturbMany(xs) {
    const v = toFloat64(xs, 'xs');
    return guard(() => this.#m.perturbMany(v));
  }

  /** DETERMINISTIC perturbation from `seed`: for tests and simulations only. */
  perturbManySeededForTesting(xs, seed) {
    const v = toFloat64(xs, 'xs');
    const s = toSeed(seed);
    return guard(() => this.#m.perturbManySeededForTesting(v, s));
  }

  /**
   * The receipt of a released `y`: `ratios[i] = P(y | xs[i]) / P(y)` over the domain (a
   * curve to draw), its exact extremes, and the value at the user's own `x` if given.
   */
  receipt(y, x) {
    // Finite here too: the core's code for a NaN `y` is unknown_output (no lattice value), this API's non_finite.
    checkNumber(y, 'y', true);
    if (x !== undefined) checkNumber(x, 'x');
    return guard(() => this.#m.receipt(y, x));
  }

  /** The audit of the sampler that runs. */
  audit() { return guard(() => this.#m.audit()); }

  /** The full verification report (claims and policy checks). */
  verification() { return guard(() => this.#m.verification()); }
}

// What console.log and JSON.stringify show (id, kind, domain, claims), not `ContinuousMechanism {}`.
summarised(ContinuousDocument, (d) => ({ id: d.id, kind: d.kind, sha256: d.sha256, domain: d.domain, claims: d.claims, verified: false }));
summarised(ContinuousMechanism, (m) => ({ id: m.id, kind: m.kind, sha256: m.sha256, domain: m.domain, verified: true, audit: m.audit() }));

/**
 * A verified continuous mechanism that lives in the package's Worker
 * (verifyContinuousAsync): the methods of ContinuousMechanism, answering by promise; `id`,
 * `sha256`, `kind`, `domain` and `latticePrior` are read at once. `free()` releases it.
 */
export class AsyncContinuousMechanism {
  /** @internal */
  constructor(link, props) {
    bindRemote(this, link, props);
  }
}
AsyncContinuousMechanism.VERIFY = 'verifyContinuousAsync';
remoteMechanism(AsyncContinuousMechanism, ['id', 'sha256', 'kind', 'domain', 'latticePrior'],
  ['report', 'perturb', 'perturbMany', 'perturbManySeededForTesting', 'receipt', 'audit', 'verification'],
  (m) => ({ id: m.id, kind: m.kind, sha256: m.sha256, domain: m.domain }));
