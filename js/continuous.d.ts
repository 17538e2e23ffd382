// Types of privlift/continuous. See js/continuous.js.
import type { Check, DocumentInput, FetchInput, FetchOptions, InitInput, WasmModuleLike } from './privlift.js';
export { PrivliftError } from './privlift.js';

/** Loads the continuous wasm module once (optional; the functions below load it; later calls ignore `input`). */
export function init(input?: InitInput): Promise<void>;
/** Instantiates the continuous wasm module synchronously (workers, edge functions); a no-op once loaded. Throws `init` on a bad module. */
export function initSync(module: ArrayBuffer | ArrayBufferView | WasmModuleLike): void;
/** Whether the continuous wasm module is loaded. */
export function isInitialized(): boolean;

/** The `mechanism.kind` values this module reads. */
export const CONTINUOUS_KINDS: readonly ContinuousKind[];

/** Parses and validates a continuous document (kind 'gaussian', 'laplace' or 'sampling'). */
export function parseContinuousMechanism(document: DocumentInput): Promise<ContinuousDocument>;

/**
 * fetchMechanism for a continuous document: `needs_async` for a document that costs more
 * than the calling thread verifies; call verifyContinuousAsync with the error's `document`.
 */
export function fetchContinuousMechanism(
  url: FetchInput,
  policy?: ContinuousPolicy,
  fetchOptions?: FetchOptions,
): Promise<ContinuousMechanism>;

/** An (ε, δ) pair in nats; δ = 0 (or absent) is pure ε. */
export interface EpsDelta {
  eps: number;
  delta?: number;
}

/** What a continuous document promises: (ε, δ)-LIP (definition (3) of Jiang et al.) and/or (ε, δ)-LDP. */
export interface ContinuousClaims {
  lip?: EpsDelta;
  ldp?: EpsDelta;
}

/**
 * Limits a client sets on a continuous mechanism (nats). Unknown keys are refused, and so
 * is anything but a plain object of own properties (a `Map`, a class instance, inherited
 * limits), at every level. Leave a key out to set no limit: `lip` or `ldp` that is there
 * is an object `{eps, delta}` with numbers (`delta` 0 when left out), and `maxVerifyWork`
 * a number; `null`, `undefined` or any other value is an `invalid_argument`.
 */
export interface ContinuousPolicy {
  lip?: EpsDelta;
  ldp?: EpsDelta;
  /**
   * The verification cost budget in work units (default 2^28); above it: `too_costly`. A
   * Gaussian document of more than about 1,000 lattice points can need more (see
   * `designContinuous` in 'privlift/design').
   */
  maxVerifyWork?: number;
}

// BEGIN GENERATED from the Rust core by `PRIVLIFT_BLESS_GENERATED=1 cargo test --test generated`; do not edit.
/** The `kind` tag of a continuous mechanism document (`privlift::document::CONTINUOUS_KINDS`). */
export type ContinuousKind = 'gaussian' | 'laplace' | 'sampling';
// END GENERATED

/** Values in [lo, hi] are released on the lattice lo + step·j; `points` lattice points lie in the domain. */
export interface Domain {
  lo: number;
  hi: number;
  step: number;
  points: number;
}

export type ContinuousPrior =
  | { gaussian: { mean: number; sd: number } }
  | { gmm: { weights: number[]; means: number[]; sds: number[] } }
  | { histogram: { edges: number[]; p: number[] } };

/** The exact audit of a continuous sampler. */
export interface ContinuousAudit {
  /** δ of (ε, δ)-LIP at the claimed ε. */
  lip: { eps: number; delta: number };
  /** δ of (ε, δ)-LDP at the claimed ε (NaN when not computed). */
  ldp: { eps: number; delta: number };
  /** Pure ε-LIP (Infinity for Gaussian noise). */
  lipPureEps: number;
  ldpPureEps: number;
  /** Tail mass added to each δ (Gaussian window truncation). */
  tailMass: number;
  points: number;
}

export interface ContinuousVerification {
  audit: ContinuousAudit;
  claims: Check[];
  policy: Check[];
  claimsHold: boolean;
  policyHolds: boolean;
}

/** What a released value says about every value of the domain. */
export interface ContinuousReceipt {
  mechanismId: string;
  output: number;
  outputIndex: number;
  pOutput: number;
  /** The curve: lattice values (≤ 256) and P(y|x)/P(y) at each. */
  xs: number[];
  ratios: number[];
  /** Exact extremes over all lattice points. */
  minRatio: number;
  minRatioX: number;
  maxRatio: number;
  maxRatioX: number;
  /** The user's own `x` as passed to receipt(y, x); undefined without one. */
  userX: number | undefined;
  /** The lattice point nearest `x`; undefined without `x`. */
  userPoint: number | undefined;
  /** P(y | user_point) / P(y); undefined without `x`. */
  userRatio: number | undefined;
  /** The document's (ε, δ)-LIP claim, which verification proved; undefined when it makes none. */
  lip: EpsDelta | undefined;
  /** The document's (ε, δ)-LDP claim, which verification proved; undefined when it makes none. */
  ldp: EpsDelta | undefined;
}

/** What a client sends a collector for one released value (`ContinuousMechanism.report`). */
export interface ContinuousReportEnvelope {
  readonly mechanism: string;
  readonly sha256: string;
  /** The released value lo + step·j. */
  readonly output: number;
  readonly report_id: string;
}

/** A parsed and validated continuous document whose claims are NOT yet verified. */
export class ContinuousDocument {
  private constructor();
  readonly id: string;
  /** SHA-256 (lower-case hex) of the document's bytes. */
  readonly sha256: string;
  readonly kind: ContinuousKind;
  readonly description: string | undefined;
  readonly domain: Domain;
  readonly prior: ContinuousPrior;
  /** The prior's mass at each lattice point (conditioned on the domain). */
  readonly latticePrior: number[];
  readonly claims: ContinuousClaims;
  /** Informational figures from the curator (never trusted). */
  readonly utility: Record<string, unknown> | undefined;
  toJson(): string;
  audit(): ContinuousAudit;
  check(policy?: ContinuousPolicy): ContinuousVerification;
  /** Verifies claims and policy on the exact sampler; throws `no_claims`, `claim_violated`, `policy_violated`, `invalid_argument`. */
  /**
   * Verifies on the calling thread; throws `needs_async` for a document that costs more
   * than the calling thread verifies (about 50 ms): use verifyContinuousAsync.
   */
  verify(policy?: ContinuousPolicy): ContinuousMechanism;
  /**
   * Releases the wasm memory now (otherwise the garbage collector does it). Afterwards every
   * method throws PrivliftError `invalid_state`; a second free() does nothing.
   */
  free(): void;
  /** free(), for `using` declarations (TypeScript 5.2+, lib esnext.disposable). */
  [Symbol.dispose](): void;
  /** A summary (id, kind, sha256, sizes or domain, claims; `{freed: true}` after free()); also what console.log shows in Node. */
  toJSON(): Record<string, unknown>;
}

/** A verified continuous mechanism; perturbs with crypto.getRandomValues. */
export class ContinuousMechanism {
  private constructor();
  readonly id: string;
  /** SHA-256 (lower-case hex) of the verified document's bytes. */
  readonly sha256: string;
  /**
   * The report envelope for a released value (from perturb), with a fresh random 128-bit id;
   * send it with `sendReports` from 'privlift'. Throws `unknown_output` off the lattice.
   */
  report(y: number): ContinuousReportEnvelope;
  readonly kind: ContinuousKind;
  readonly domain: Domain;
  readonly latticePrior: number[];
  /** A released value for `x` in the domain (throws `unknown_value` outside it, `non_finite` for NaN). */
  perturb(x: number): number;
  perturbMany(xs: Float64Array | readonly number[] | Iterable<number>): Float64Array;
  /** DETERMINISTIC perturbation from `seed`: for tests and simulations only. */
  perturbManySeededForTesting(xs: Float64Array | readonly number[] | Iterable<number>, seed: bigint | number): Float64Array;
  /** The receipt of a released `y`, with the ratio at the user's own `x` if given. */
  receipt(y: number, x?: number): ContinuousReceipt;
  audit(): ContinuousAudit;
  verification(): ContinuousVerification;
  /**
   * Releases the wasm memory now (otherwise the garbage collector does it). Afterwards every
   * method throws PrivliftError `invalid_state`; a second free() does nothing.
   */
  free(): void;
  /** free(), for `using` declarations (TypeScript 5.2+, lib esnext.disposable). */
  [Symbol.dispose](): void;
  /** A summary (id, kind, sha256, sizes or domain, claims; `{freed: true}` after free()); also what console.log shows in Node. */
  toJSON(): Record<string, unknown>;
}


/**
 * verifyAsync of 'privlift' for a continuous document: parses and verifies it in the
 * package's Worker (the calling thread where there are no workers); the mechanism stays
 * there and answers by promise. Rejects with the codes `verify` throws, or an `AbortError`.
 */
export function verifyContinuousAsync(
  document: DocumentInput,
  policy?: ContinuousPolicy,
  options?: import('./offthread.js').OffThreadOptions,
): Promise<AsyncContinuousMechanism>;

/** A verified continuous mechanism in the package's Worker: ContinuousMechanism's methods, answering by promise. */
export class AsyncContinuousMechanism {
  private constructor();
  readonly id: string;
  readonly sha256: string;
  readonly kind: ContinuousKind;
  readonly domain: Domain;
  readonly latticePrior: readonly number[];
  report(y: number): Promise<ContinuousReportEnvelope>;
  perturb(x: number): Promise<number>;
  perturbMany(xs: Float64Array | readonly number[] | Iterable<number>): Promise<Float64Array>;
  /** DETERMINISTIC perturbation from `seed`: for tests and simulations only. */
  perturbManySeededForTesting(xs: Float64Array | readonly number[] | Iterable<number>, seed: bigint | number): Promise<Float64Array>;
  receipt(y: number, x?: number): Promise<ContinuousReceipt>;
  audit(): Promise<ContinuousAudit>;
  verification(): Promise<ContinuousVerification>;
  /** Releases its memory in the Worker; afterwards every method rejects with `invalid_state`; a second free() does nothing. */
  free(): void;
  /** free(), for `using` declarations (TypeScript 5.2+, lib esnext.disposable). */
  [Symbol.dispose](): void;
  toJSON(): Record<string, unknown>;
}
