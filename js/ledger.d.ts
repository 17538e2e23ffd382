// Types of privlift/ledger. See js/ledger.js.
import type { Mechanism, Receipt, Value } from './privlift.js';

/** Caps about the user's own value X (never about the curator's secret S). */
export interface Budget {
  /** Cap on the attribute's total LDP w.r.t. X (basic composition), nats. */
  ldp?: number;
  /** Cap on the attribute's total LIP bound w.r.t. X (Jiang et al. Thm 4), nats. */
  lip?: number;
}

export interface Release {
  origin: string;
  attribute: string;
  mechanismId: string;
  /** ISO 8601. */
  time: string;
  /** LDP w.r.t. X (prior-free), nats. */
  ldp_x: number;
  /** LIP w.r.t. X under the document's prior, nats (absent in records of versions < 0.2; their ldp_x bounds it). */
  lip_x?: number;
  eps_l_x?: number;
  eps_u_x?: number;
  /** Smallest non-zero prior mass of the mechanism's document. */
  pmin: number;
  /** Number of input values of the mechanism's document (absent in older records). */
  inputs?: number;
  /**
   * The inputs its prior gives no mass (absent in older records). Thm 4 composes the
   * releases' LIP only when every release's prior allows the same inputs; otherwise (or
   * with an older record) each release enters with its LDP w.r.t. X.
   */
  zeros?: number[];
}

export interface Bound {
  releases: number;
  ldp: number;
  lip: number;
}

export interface ReleaseResult {
  output: number;
  label: string;
  receipt: Receipt;
  /** The cumulative bound including this release (unchanged when memoized). */
  bound: Bound;
  memoized: boolean;
}

export class Ledger {
  private constructor();
  readonly origin: string;
  readonly storage: 'indexeddb' | 'localstorage' | 'memory';
  readonly budget: Budget;
  releases(attribute?: string): Promise<Release[]>;
  bound(attribute: string, mechanism?: Mechanism): Promise<Bound>;
  /**
   * Perturbs `value` (a label, or an input index) for `attribute` if the budget allows
   * (else `budget_exceeded`; a total within 1e-9 relative of the budget counts as within
   * it, the tolerance of every claim check) and records the release; `memoize` gives an
   * already released value the same output again. Releases run one at a time (across the
   * origin's tabs where the Web Locks API exists), so releases started together cannot
   * each pass the budget against the same earlier total. One output label per call: a unary-encoding mechanism
   * (kind 'unary', e.g. OUE, which releases a bit vector) is not supported and is refused
   * with `invalid_argument`.
   */
  release(attribute: string, mechanism: Mechanism, value: Value, options?: { memoize?: boolean }): Promise<ReleaseResult>;
  export(): Promise<{ origin: string; budget: Budget; releases: Release[] }>;
  clear(): Promise<void>;
}

/**
 * Opens the ledger of `origin` (default: this page's origin). `storage`: 'auto' (default:
 * IndexedDB, else localStorage, else memory — in Node that is memory, forgotten when the
 * process ends, and said once with console.warn), 'indexeddb' or 'localstorage' (a
 * PrivliftError with code 'storage' where unavailable), or 'memory' (no warning).
 */
export function openLedger(options?: {
  origin?: string;
  budget?: Budget;
  storage?: 'auto' | 'indexeddb' | 'localstorage' | 'memory';
}): Promise<Ledger>;
