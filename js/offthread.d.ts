// Types of js/offthread.js: the options of every call the package runs in its worker.
import type { AbortSignalLike } from './privlift.js';

/**
 * Options of a call that runs off the calling thread (the designers of 'privlift/design',
 * verifyAsync of 'privlift', verifyContinuousAsync of 'privlift/continuous').
 */
export interface OffThreadOptions {
  /**
   * Aborting terminates the worker and rejects the call with an error named `AbortError`
   * (the signal's reason when it is one, else a DOMException whose `cause` is the reason).
   */
  signal?: AbortSignalLike;
  /**
   * Called with a fraction in [0, 1] that never decreases: 0 when the work starts, 1 when
   * its result has arrived, and in between what the designer reports: the vertex searches
   * of 'orr-*' and 'srr' the bases visited against the search's cap, `designContinuous`
   * its steps (exact audits, certified bounds of its calibration) done against those its
   * method is expected to make. A verification reports 0 and 1 only.
   */
  onProgress?: (fraction: number) => void;
}

/**
 * Whether this runtime runs the designers off the calling thread (a module Worker in
 * browsers and Deno, worker_threads in Node). Where it cannot (Cloudflare workerd), they
 * run on the calling thread, `onProgress` hears 0 and 1 only, and `signal` is read
 * before and after the call.
 */
export function offThreadAvailable(): boolean;

/** Terminates the idle workers kept for the next call (each holds a wasm module's memory: the design module's, or a client's after verifyAsync). */
export function terminateIdleWorkers(): void;
