// Types of privlift/ledger. See js/ledger.js.
import type { Mechanism, Receipt, Value } from './privlift.js';

export interface Budget {
  /** Cap on the attribute's total LDP (basic composition), nats. */
  ldp?: number;
  /** Cap on the attribute's total LIP bound (Jiang et al. Thm 4), nats. */
  lip?: number;
}

export interface Release {
  origin: string;
  attribute: string;
  mechanismId: string;
  /** ISO 8601. */
  time: string;
  ldp_x: number;
  lip: number;
  eps_l: number;
  eps_u: number;
  /** Smallest non-zero prior mass of the mechanism's document. */
  pmin: number;
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
  release(attribute: string, mechanism: Mechanism, value: Value, options?: { memoize?: boolean }): Promise<ReleaseResult>;
  export(): Promise<{ origin: string; budget: Budget; releases: Release[] }>;
  clear(): Promise<void>;
}

export function openLedger(options?: {
  origin?: string;
  budget?: Budget;
  storage?: 'auto' | 'indexeddb' | 'localstorage' | 'memory';
}): Promise<Ledger>;
