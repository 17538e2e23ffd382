// Types of privlift/design (curator side). See js/design.js.
import type { InitInput, PrivliftError, WasmModuleLike } from './privlift.js';
import type { OffThreadOptions } from './offthread.js';

export type DesignMethod =
  | 'krr' | 'oue' | 'rr-lip' | 'rr-lip-interval' | 'rr-bp-lip'
  | 'linear-markov' | 'linear-tv' | 'linear-distance'
  | 'orr-lip' | 'orr-alip' | 'orr-ldp' | 'watchdog' | 'subset-merging' | 'srr' | 'srlip';

export interface DesignRequest {
  prior?: { labels?: (string | number)[]; p: number[] };
  /** `attributes` (instead of `labels`): a multi-attribute X whose tuples, in row-major order, are the columns of `p_sx` ('srlip'). */
  joint?: {
    secret_labels?: (string | number)[];
    labels?: (string | number)[];
    attributes?: { labels: (string | number)[] }[];
    p_sx: number[][];
  };
  priors?: { labels?: (string | number)[]; priors: number[][] };
  distortion?: { d: number[][] };
  epsilon?: number;
  /** ALIP budgets (orr-alip, watchdog, subset-merging, srr with notion 'alip'). */
  eps_l?: number;
  eps_u?: number;
  /** Privacy notion of the watchdog family; 'l1', 'chi2', 'alpha' (Sec. VI-B) take `epsilon` or `eps_l`/`eps_u`, not with 'srr'. */
  notion?: 'lip' | 'alip' | 'ldp' | 'l1' | 'chi2' | 'alpha';
  /** The order α > 1 of notion 'alpha' (required there, refused elsewhere). */
  alpha_order?: number;
  /** What 'rr-lip' optimises: 'hit' (P(Y = X), the paper's; default), 'mi' (I(X;Y)) or 'distortion' (E[d(X,Y)], with `distortion`). */
  objective?: 'hit' | 'mi' | 'distortion';
  alpha?: number;
  a?: number;
  b?: number;
  id?: string;
}

export interface Estimate {
  estimate: number[];
  stdError: number[];
  n: number;
  projected?: number[];
}

/** Loads the design wasm module once (optional; the functions below load it; later calls ignore `input`). */
export function init(input?: InitInput): Promise<void>;
/** Instantiates the design wasm module synchronously (workers, Node scripts); a no-op once loaded. Throws `init` on a bad module. */
export function initSync(module: ArrayBuffer | ArrayBufferView | WasmModuleLike): void;
/** Whether the design wasm module is loaded. */
export function isInitialized(): boolean;
/**
 * Designs a mechanism; resolves to the audited document as JSON text. Rejects with
 * PrivliftError. Runs in the package's worker (see `OffThreadOptions`), as do
 * `designContinuous` and `fitGmm`: the calling thread never waits long for a design. A
 * design whose work the designer bounds before it starts, and small (a `krr`, or an
 * `rr-lip` by eq 19, of |X|² + |S|·|X| ≤ 2¹⁷, from a request of ≤ 2¹⁵ characters: a few
 * ms, the first up to about 30), runs on the calling thread instead: the worker's round trip would cost it more.
 */
export function design(method: DesignMethod, request: DesignRequest, options?: OffThreadOptions): Promise<string>;
export function designMethods(): Promise<DesignMethod[]>;
/**
 * Unbiased estimate of P_X from report counts (per output; unary encoding: ones per bit,
 * with `n`). It inverts the channel, so the channel must be square and invertible; another
 * (an LP design that leaves an output unused, such as 'rr-lip' at a small ε, or a merging
 * design) is refused with `invalid_argument` naming `documentJson`. `privlift estimate` and
 * the collector's estimates route estimate any channel by maximum likelihood.
 */
export function estimate(
  documentJson: string | object,
  counts: ArrayLike<number>,
  options?: { n?: number; project?: boolean },
): Promise<Estimate>;
export type ContinuousDesignMethod =
  | 'gaussian-lip' | 'gaussian-lip-instance' | 'analytic-gaussian' | 'laplace-lip' | 'laplace-ldp' | 'sampling';

export type ContinuousPriorJson =
  | { gaussian: { mean: number; sd: number } }
  | { gmm: { weights: number[]; means: number[]; sds: number[] } }
  | { histogram: { edges: number[]; p: number[] } };

export interface ContinuousDesignRequest {
  method: ContinuousDesignMethod;
  /**
   * Values in [lo, hi] are released on the lattice lo + step·j (at most 4096 points). A
   * client's default `verify()` (budget 2^28 work units) accepts fewer for the Gaussian
   * methods: see `designContinuous`.
   */
  domain: { lo: number; hi: number; step: number };
  prior: ContinuousPriorJson;
  /** ε in nats. */
  epsilon: number;
  /** δ in (0, 1) for the (ε, δ) methods; ignored by 'laplace-lip' and 'laplace-ldp'. */
  delta?: number;
  id?: string;
  /** The clients' verification budget in work units (default: a client's default, 2^28): a design over it is refused. */
  maxVerifyWork?: number;
}

export interface GmmFit {
  weights: number[];
  means: number[];
  sds: number[];
  components: number;
  logLikelihood: number;
  bic: number;
  iterations: number;
}

/**
 * Designs a continuous mechanism; resolves to the audited document as JSON text.
 *
 * Up to 4096 lattice points are designed, but verifying a Gaussian document costs about
 * the square of its points times its noise width, and a design the clients' budget
 * (`maxVerifyWork`, default 2^28 work units, a client's default) would refuse is refused
 * with `too_costly`. 'gaussian-lip' and 'gaussian-lip-instance' fit the default up to about
 * 520–650 points at ε 1, δ 1e-5 (depending on the prior; about 420 at ε 0.5, δ 1e-6, and
 * 880 at ε 2, δ 1e-3), 'analytic-gaussian' up to about 460 (310; 740). 'laplace-lip',
 * 'laplace-ldp' and 'sampling' verify at 4096. Clients that accept the cost raise the budget
 * with their policy's `maxVerifyWork`, and the request's `maxVerifyWork` designs for them
 * (the `too_costly` message states the work needed: 4096 Gaussian points take about 40–80×
 * the default).
 */
export function designContinuous(request: ContinuousDesignRequest, options?: OffThreadOptions): Promise<string>;
export function continuousDesignMethods(): Promise<ContinuousDesignMethod[]>;
/** A GMM prior fitted by EM, 1..maxComponents (default 4) components chosen by BIC. */
export function fitGmm(
  samples: ArrayLike<number> | Iterable<number>,
  maxComponents?: number,
  options?: OffThreadOptions,
): Promise<GmmFit>;
export type { PrivliftError };
export type { OffThreadOptions };
export { offThreadAvailable, terminateIdleWorkers } from './offthread.js';
