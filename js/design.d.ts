// Types of privlift/design (curator side). See js/design.js.
import type { PrivliftError } from './privlift.js';

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
  alpha?: number;
  a?: number;
  b?: number;
  id?: string;
}

export interface Estimate {
  estimate: number[];
  std_error: number[];
  n: number;
  projected?: number[];
}

/** Loads the design wasm module (optional; the functions below load it). */
export function initDesign(input?: RequestInfo | URL | Response | BufferSource | WebAssembly.Module): Promise<void>;
/** Designs a mechanism; resolves to the audited document as JSON text. Rejects with PrivliftError. */
export function design(method: DesignMethod, request: DesignRequest): Promise<string>;
export function designMethods(): Promise<DesignMethod[]>;
export function estimate(
  documentJson: string | object,
  counts: ArrayLike<number>,
  options?: { n?: number; project?: boolean },
): Promise<Estimate>;
export type { PrivliftError };
