// Runs the package's long computations (the curator's designers, the clients' verifications
// of costly documents: below, after the Workers) in a Worker the package manages, so that
// the thread the page (or Node's event loop) runs on never waits for them. The clients'
// entries import this file when first needed (common.js's `offThread`).
//
// - Browsers, Deno: a module Worker, `new Worker(new URL('./worker.js', import.meta.url),
//   {type: 'module'})` (js/verify-worker.js for verifications), the form Vite, webpack and
//   esbuild recognise and bundle.
// - Node: `worker_threads` on the same file.
// - Runtimes with neither (Cloudflare workerd): the calling thread, as before (see
//   `offThreadAvailable`); `signal` is then honoured before the call and at its end only.
//
// The worker instantiates the same compiled `WebAssembly.Module` as the calling thread
// would (compiled here once, asynchronously, from the bytes or URL the caller resolved),
// so nothing is downloaded or compiled twice. Aborting terminates the worker: the wasm
// call in it cannot be interrupted otherwise.

import { PrivliftError, invalid, describe, documentBytes, freed, compiledModule } from './common.js';

const isNode = typeof process !== 'undefined' && process.versions != null && process.versions.node != null;

/** Cloudflare's workerd: no Worker, and with `nodejs_compat` a `process` that looks like Node's without worker_threads. */
const isWorkerd = typeof navigator !== 'undefined' && navigator.userAgent === 'Cloudflare-Workers';

/**
 * The longest request (its JSON, in characters) a design may run on the calling thread
 * with: the module reads it before it knows the design's bound, about 2 ms for 2¹⁵
 * characters of numbers in wasm (55 ns a character, Node 20, Intel Xeon, 2 shared cores).
 */
export const INLINE_DESIGN_TEXT = 2 ** 15;

/**
 * The most work (the designer's bound, `designWithin`: |X|² + |S|·|X| cells) a design runs
 * on the calling thread: 2¹⁷ cells, a k-RR or eq-19 RR over a prior of 256 symbols. At
 * both bounds (256 symbols, or a joint of 38 × 340, in 2¹⁵ characters) a design took
 * 3–12 ms (median) in Node 20 and 4–11 ms in headless Chromium 156, the first one of a
 * thread, whose code V8 compiles as it runs, 10–28 ms of the thread's CPU (Intel Xeon,
 * 2 shared cores, load 4–5); tests/js/design-inline.test.mjs holds the event loop to 50 ms.
 * A linear reduction (`linear-tv`, `linear-distance` on |x − y|) counts 2⁵ passes over
 * its |S|·|X|² blocks (up to 15 × 16). An LP counts 2⁷ cells a non-zero of its
 * constraints (`rr-lip` where eq 19 fails, up to |X| = 11; `orr-ldp`, whose enumeration
 * counts its candidate systems, up to 2 × 6) and its pivots stop at
 * `INLINE_DESIGN_LP_MS`; so do the bases of the vertex search of `orr-lip` and
 * `orr-alip`, which count 2⁷ passes over their |X|² + |S|·|X| cells (up to 5 × 29). Above it, or with no bound (`srr`, `watchdog`,
 * `subset-merging`, the continuous designers), the design runs in the package's Worker,
 * whose round trip (about 0.1 ms, more under load) is small beside it.
 */
export const INLINE_DESIGN_CELLS = 2 ** 17;

/**
 * The longest a design's LPs may pivot, and its vertex search run, on the calling
 * thread: a design whose LP or search has not ended 10 ms after the call is given up there
 * (what it did is lost: at most this) and run in the package's Worker. The LPs the cell
 * bound lets start here end in 0.3–4 ms (wasm, Node 20, Intel Xeon, 2 shared cores), the
 * AORR benchmark's 5 × 17 design in 2–3 ms; no size bounds a simplex's pivots or a
 * polytope's vertices, this does.
 */
export const INLINE_DESIGN_LP_MS = 10;

/** Whether this runtime can run work off the calling thread (a Worker or worker_threads). */
export function offThreadAvailable() {
  return !isWorkerd && (isNode || typeof Worker === 'function');
}

/**
 * The error an aborted call rejects with: the signal's reason when it is an `AbortError`
 * (what `controller.abort()` gives), otherwise a `DOMException` named `AbortError` whose
 * `cause` is the reason, so that callers can always test `e.name === 'AbortError'`.
 */
export function abortError(signal, what) {
  const reason = signal.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  const e = new DOMException(`${what} was aborted`, 'AbortError');
  if (reason !== undefined) Object.defineProperty(e, 'cause', { value: reason, configurable: true, writable: true });
  return e;
}

/** `{signal, onProgress}` checked: a wrong type would otherwise fail late, inside the worker. */
export function checkOptions(options) {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object') throw invalid('options', `expected an object {signal?, onProgress?}, got ${describe(options)}`);
  const { signal, onProgress } = options;
  if (signal !== undefined && !(typeof AbortSignal === 'function' && signal instanceof AbortSignal)) {
    throw invalid('options.signal', 'expected an AbortSignal');
  }
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw invalid('options.onProgress', 'expected a function');
  }
  return { signal, onProgress };
}

/**
 * Progress as the caller sees it: a fraction in [0, 1] that never decreases, 0 when the
 * work starts and 1 when it has ended; what the worker reports in between is clipped so.
 */
function progressReporter(onProgress) {
  let last = -1;
  return (fraction) => {
    if (onProgress === undefined) return;
    const f = Math.min(1, Math.max(0, Number(fraction) || 0));
    if (f <= last && !(f === 1 && last < 1)) return;
    last = f;
    onProgress(f);
  };
}

/** The most the worker's own reports may say: 1 means the result has arrived. */
const PROGRESS_BEFORE_END = 0.99;

// ---------------------------------------------------------------------------------------
// Workers: one per call in flight; one idle worker per module is kept for the next call
// (unreferenced in Node, so it never keeps the process alive).

/** @type {Map<WebAssembly.Module, Handle>} */
const idle = new Map();

/** @type {Map<WebAssembly.Module, Promise<Handle | null>>} workers `warmOffThread` is starting */
const warming = new Map();

/**
 * Starts, unless one is idle or starting already, a worker for `glue` that instantiates
 * `module` and then waits idle for the next call on it: what a `needs_async` refusal
 * does, so that the `verifyAsync` the README tells an app to call next finds its worker
 * ready (starting one, its scripts and the module's instance, is most of a first call's
 * cost beyond the work itself). Never throws; a worker that fails to start is dropped,
 * and the next call starts its own.
 */
function warmOffThread(glue, module) {
  if (idle.has(module) || warming.has(module)) return;
  const ready = (async () => {
    // Node: referenced until ready (a call may be waiting for it), then unreferenced idle.
    const handle = await spawn(glue);
    return new Promise((resolve) => {
      handle.listen((msg) => {
        handle.listen(null);
        if (msg.type === 'result') {
          resolve(handle);
        } else {
          handle.terminate();
          resolve(null);
        }
      });
      handle.post({ glue, module, op: 'ready', args: [] });
    });
  })().catch(() => null);
  warming.set(module, ready);
  ready.then((handle) => {
    warming.delete(module);
    if (handle === null) return;
    if (idle.has(module)) {
      handle.terminate();
    } else {
      handle.hold(false);
      idle.set(module, handle);
    }
  });
}

/**
 * `warmOffThread` for the module `compiled` (a `compiledOnce`) compiles, this thread's
 * one; nothing where the runtime has no workers.
 */
export function warmed(glue, compiled) {
  if (offThreadAvailable()) compiled.of().then((module) => warmOffThread(glue, module), () => {});
}

/** The idle worker for `module`, once the one warming up for it is ready; null if none. */
async function idleWorker(module) {
  const starting = warming.get(module);
  // The warm-up's own continuation, registered first, has then moved its worker to `idle`.
  if (starting !== undefined) await starting;
  const handle = idle.get(module) ?? null;
  idle.delete(module);
  return handle;
}

/** A worker behind one interface for browsers and Node. */
class Handle {
  #worker;
  #node;
  #listener = null;
  /** The module this worker was last sent (js/worker-serve.js keeps its instance). */
  #module = undefined;

  constructor(worker, node) {
    this.#worker = worker;
    this.#node = node;
    const deliver = (msg) => this.#listener?.(msg);
    if (node) {
      worker.on('message', deliver);
      worker.on('error', (e) => deliver({ type: 'crash', message: e && e.message ? e.message : String(e) }));
      worker.on('exit', (code) => deliver({ type: 'crash', message: `it exited with code ${code}` }));
    } else {
      worker.onmessage = (ev) => deliver(ev.data);
      worker.onerror = (ev) => {
        ev.preventDefault?.();
        deliver({ type: 'crash', message: ev.message || 'it could not be started' });
      };
      worker.onmessageerror = () => deliver({ type: 'crash', message: 'a message could not be read' });
    }
  }

  listen(fn) { this.#listener = fn; }
  /**
   * Posts `msg`, without its `module` when this worker has it already: cloning a
   * `WebAssembly.Module` into a worker took 0.2–0.3 ms a message (Node 20).
   */
  post(msg, transfer = []) {
    const { module, ...rest } = msg;
    this.#worker.postMessage(module === this.#module ? rest : msg, transfer);
    this.#module = module;
  }
  /** Node: whether the worker keeps the process alive (only while it works). */
  hold(yes) {
    if (this.#node) {
      if (yes) this.#worker.ref();
      else this.#worker.unref();
    }
  }

  terminate() {
    this.#listener = null;
    this.#worker.terminate();
  }
}

/**
 * A worker for `glue`: the designers' script (js/worker.js) or the clients' verification
 * script (js/verify-worker.js), so that a page that only verifies never bundles the
 * curator's module. Each `new URL('./….js', import.meta.url)` is written out whole: the
 * form bundlers recognise.
 */
async function spawn(glue) {
  const design = glue === 'design';
  if (isNode) {
    // Hidden from bundlers, which would otherwise pull a Node built-in into a browser bundle.
    const name = 'node:worker_threads';
    const { Worker: NodeWorker } = await import(/* @vite-ignore */ /* webpackIgnore: true */ name);
    // No flags of the caller's: they may concern its main script only (`--input-type`
    // with `-e` makes a worker refuse to start), and the worker needs none.
    const url = design ? new URL('./worker.js', import.meta.url) : new URL('./verify-worker.js', import.meta.url);
    return new Handle(new NodeWorker(url, { execArgv: [] }), true);
  }
  return new Handle(design ? new Worker(new URL('./worker.js', import.meta.url), { type: 'module' })
    : new Worker(new URL('./verify-worker.js', import.meta.url), { type: 'module' }), false);
}

/**
 * Runs `op(...args)` of the wasm module `glue` ('design') in a worker that instantiated
 * `module`, with `options.signal` and `options.onProgress`; resolves with its result or
 * rejects with its PrivliftError (or the `AbortError` of an abort, the worker terminated).
 *
 * @param {string} glue
 * @param {WebAssembly.Module} module
 * @param {string} op
 * @param {unknown[]} args structured-cloneable
 * @param {{signal?: AbortSignal, onProgress?: (fraction: number) => void}} options
 * @param {string} what the call, for the abort message
 */
export async function runOffThread(glue, module, op, args, options, what) {
  return (await startOffThread(glue, module, op, args, options, what, false)).value;
}

/**
 * `runOffThread`, keeping the worker for what the call made there (a verified mechanism):
 * resolves with `{value, session}`, whose `session.call(op, args)` runs later operations
 * in that worker until `session.close()` ends the session.
 */
export async function holdOffThread(glue, module, op, args, options, what, transfer) {
  return startOffThread(glue, module, op, args, options, what, true, transfer);
}

async function startOffThread(glue, module, op, args, options, what, hold, transfer = []) {
  const { signal, onProgress } = options;
  const progress = progressReporter(onProgress);
  if (signal?.aborted) throw abortError(signal, what);
  let handle = await idleWorker(module);
  try {
    handle ??= await spawn(glue);
  } catch (e) {
    throw new PrivliftError('init', `could not start the privlift worker: ${e && e.message ? e.message : e}`, { cause: e });
  }
  if (signal?.aborted) {
    handle.terminate();
    throw abortError(signal, what);
  }
  handle.hold(true);
  progress(0);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      handle.terminate();
      reject(abortError(signal, what));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    // Aborted by the caller's own onProgress(0), above: no event is left to hear.
    if (signal?.aborted) {
      onAbort();
      return;
    }
    const settle = (keep) => {
      signal?.removeEventListener('abort', onAbort);
      handle.listen(null);
      if (keep && !idle.has(module)) {
        handle.hold(false);
        idle.set(module, handle);
      } else {
        handle.terminate();
      }
    };
    handle.listen((msg) => {
      // A late answer to a session's last call (its `free`), posted before this call's.
      if (msg.call !== undefined) return;
      if (msg.type === 'progress') {
        progress(Math.min(msg.fraction, PROGRESS_BEFORE_END));
      } else if (msg.type === 'result') {
        if (hold) {
          signal?.removeEventListener('abort', onAbort);
          progress(1);
          resolve({ value: msg.value, session: new Session(handle, glue, module) });
          return;
        }
        settle(true);
        progress(1);
        resolve({ value: msg.value });
      } else if (msg.type === 'error') {
        // A PrivliftError is a refusal; anything else (a trap, memory exhausted) may have
        // left the wasm instance unusable, so that worker is not used again.
        settle(msg.error.name === 'PrivliftError');
        reject(rebuild(msg.error));
      } else {
        settle(false);
        reject(new PrivliftError('init', `the privlift worker stopped: ${msg.message}`));
      }
    });
    post(handle, { glue, module, op, args }, reject, () => settle(true), transfer);
  });
}

/** Posts `msg`; arguments that cannot be cloned (a function, a generator) reject as `invalid_argument`. */
function post(handle, msg, reject, undo, transfer) {
  try {
    handle.post(msg, transfer);
  } catch (e) {
    undo();
    reject(invalid('arguments', `cannot be sent to the privlift worker: ${e && e.message ? e.message : e}`));
  }
}

/** Terminates a session's worker when the object that held it is garbage-collected unfreed. */
const unreleased = typeof FinalizationRegistry === 'function' ? new FinalizationRegistry((h) => h.terminate()) : null;

/**
 * A worker kept for the object one call made in it: later calls run there in order, each
 * answered by its number; `close()` frees the object and returns the worker to the idle
 * pool. In Node it keeps the process alive only while a call is in flight.
 */
class Session {
  #handle;
  #glue;
  #module;
  #pending = new Map();
  #next = 0;
  #stopped = null;

  constructor(handle, glue, module) {
    this.#handle = handle;
    this.#glue = glue;
    this.#module = module;
    handle.hold(false);
    handle.listen((msg) => {
      if (msg.type !== 'result' && msg.type !== 'error') {
        if (msg.type === 'crash') this.#stop(new PrivliftError('init', `the privlift worker stopped: ${msg.message}`));
        return;
      }
      const call = this.#pending.get(msg.call);
      if (call === undefined) return;
      this.#pending.delete(msg.call);
      if (this.#pending.size === 0) handle.hold(false);
      if (msg.type === 'result') {
        call.resolve(msg.value);
      } else {
        call.reject(rebuild(msg.error));
        // Not a refusal: the wasm instance may be unusable (see runOffThread).
        if (msg.error.name !== 'PrivliftError') this.#stop(new PrivliftError('init', `the privlift worker stopped: ${msg.error.message}`));
      }
    });
  }

  /** Ties the worker's life to `owner`: collected unfreed, it terminates the worker. */
  owner(obj) {
    unreleased?.register(obj, this.#handle, this);
  }

  /** Runs `op(...args)` on what the session's first call made; rejects with `stopped` once closed. */
  call(op, args, stopped) {
    return new Promise((resolve, reject) => {
      if (this.#stopped !== null) {
        reject(this.#stopped === true ? stopped() : this.#stopped);
        return;
      }
      const call = this.#next++;
      this.#pending.set(call, { resolve, reject });
      this.#handle.hold(true);
      post(this.#handle, { glue: this.#glue, module: this.#module, op, args, call }, reject, () => {
        this.#pending.delete(call);
        if (this.#pending.size === 0) this.#handle.hold(false);
      });
    });
  }

  /**
   * Ends the session (a second call does nothing): the worker frees what the first call
   * made and is kept idle for the next call on its module (or terminated if one is kept
   * already, or calls are in flight: those reject with `stopped()`).
   */
  close(stopped) {
    if (this.#stopped !== null) return;
    if (this.#pending.size > 0) {
      this.#stop(true, stopped);
      return;
    }
    this.#stopped = true;
    unreleased?.unregister(this);
    const handle = this.#handle;
    handle.listen(null);
    try {
      handle.post({ glue: this.#glue, module: this.#module, op: 'call', args: ['free', []], call: -1 });
    } catch {
      handle.terminate();
      return;
    }
    if (idle.has(this.#module)) {
      handle.terminate();
    } else {
      handle.hold(false);
      idle.set(this.#module, handle);
    }
  }

  #stop(reason, stopped) {
    this.#stopped = reason;
    unreleased?.unregister(this);
    this.#handle.terminate();
    for (const { reject } of this.#pending.values()) reject(reason === true ? stopped() : reason);
    this.#pending.clear();
  }
}

/** The error the worker sent as plain data, as the class the calling thread would have thrown. */
function rebuild({ name, code, message }) {
  if (name === 'PrivliftError' && typeof code === 'string') return new PrivliftError(code, message);
  const e = new Error(message);
  e.name = name;
  return e;
}

/** How many workers are idle and warming up (for the package's tests). */
export function workerCounts() {
  return { idle: idle.size, warming: warming.size };
}

/** Terminates the idle workers now (they are also unreferenced in Node, so never needed for exit). */
export function terminateIdleWorkers() {
  for (const h of idle.values()) h.terminate();
  idle.clear();
}

// ---------------------------------------------------------------------------------------
// Verification off the calling thread: `verifyAsync` ('privlift') and
// `verifyContinuousAsync` ('privlift/continuous') parse and verify a document in the
// package's Worker (above), so that a document of up to the whole verification
// budget (about a second of a first verify) never holds the page's thread or Node's event
// loop; the synchronous `verify()` refuses one above `SYNC_VERIFY_WORK` (js/common.js).
//
// The verified mechanism stays in that Worker, and its methods answer by promise. The
// wasm API has no way to rebuild a mechanism on the calling thread from what the Worker's
// audit proved (its sampler, exact channel and the joints its receipts read are built by
// the verification itself, and that building is a third of its cost), and verifying again
// on the calling thread would block it as long as the first time: so the Worker keeps the
// mechanism, and each call is one message (about 0.1 ms).
//
// Where the runtime has no workers (Cloudflare workerd), the same object wraps a mechanism
// verified on the calling thread; `signal` is then read before and after the call.

/**
 * A policy as the Worker's copy will read it: structured cloning would drop non-enumerable
 * limits, read a class instance as a plain object and refuse a function, where the core
 * reads every own property of a plain object and refuses anything else. So the copy holds
 * the same own properties (nested ones too: a continuous policy's `{lip: {eps, delta}}`),
 * a value that cannot be cloned becomes one the core refuses the same way (`{}`: "a value
 * that is not a number"), and an object that is not a plain object becomes an array, which
 * the core refuses as it would have refused the original.
 */
function sendablePolicy(policy, depth = 0) {
  if (typeof policy === 'function' || typeof policy === 'symbol') return {};
  if (policy === null || typeof policy !== 'object') return policy;
  // No policy reads deeper than a limit's members; below, any object is "not a number".
  if (depth === 2) return {};
  const proto = Object.getPrototypeOf(policy);
  if (Array.isArray(policy) || (proto !== null && proto !== Object.prototype)) return [];
  const copy = {};
  for (const key of Object.getOwnPropertyNames(policy)) copy[key] = sendablePolicy(policy[key], depth + 1);
  return copy;
}

/**
 * Verifies `document` under `policy` in the package's Worker with the client module
 * `glue` ('privlift' or 'continuous', compiled by `compiled()`), or, without workers,
 * with `here(bytes, policy)` on the calling thread; resolves with `new cls(link, props)`.
 *
 * @param {{glue: string, compiled: () => Promise<WebAssembly.Module>, here: Function, cls: Function, what: string}} entry
 */
export async function verifyOffThread(entry, document, policy, options) {
  const opts = checkOptions(options);
  if (!offThreadAvailable()) return verifyHere(entry, document, policy, opts);
  const chunks = await slices(document);
  if (opts.signal?.aborted) throw abortError(opts.signal, entry.what);
  let module;
  try {
    module = await entry.compiled();
  } catch (e) {
    throw new PrivliftError('init', `could not load the ${entry.glue} wasm module: ${e && e.message ? e.message : e}`, { cause: e });
  }
  const { value, session } = await holdOffThread(entry.glue, module, 'verify', [chunks, sendablePolicy(policy)], opts, entry.what,
    chunks.map((c) => c.buffer));
  const stopped = () => freed(entry.cls.name);
  const obj = new entry.cls({
    call: (method, args) => session.call('call', [method, args], stopped),
    close: () => session.close(stopped),
  }, value);
  session.owner(obj);
  return obj;
}

/** The most of a document one task of the calling thread encodes or copies for the Worker (about 5 ms). */
const SLICE = 1 << 22;

const nextTask = () => new Promise((resolve) => { setTimeout(resolve, 0); });

let encoder = null;

/**
 * The document's UTF-8 bytes as buffers of its own, to transfer to the Worker (not to
 * copy: posting 23 MB of text costs this thread 40 ms, transferring nothing): text is
 * encoded and bytes are copied a slice per task, so that none of this thread's tasks
 * handles more than SLICE of it. Bytes are copied into one buffer, which the Worker
 * reads as it is (joining a dense 1024² RR's six slices there took 19 ms). An object is
 * serialised first, at once.
 */
async function slices(document) {
  const chunks = [];
  if (typeof document === 'string') {
    encoder ??= new TextEncoder();
    for (let i = 0; i < document.length;) {
      let end = Math.min(document.length, i + SLICE);
      // Never between the two halves of a surrogate pair.
      if (end < document.length && (document.charCodeAt(end - 1) & 0xfc00) === 0xd800) end -= 1;
      chunks.push(encoder.encode(document.slice(i, end)));
      i = end;
      if (i < document.length) await nextTask();
    }
    return chunks;
  }
  const bytes = documentBytes(document);
  const copy = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i += SLICE) {
    if (i > 0) await nextTask();
    copy.set(bytes.subarray(i, i + SLICE), i);
  }
  return [copy];
}

async function verifyHere({ here, cls, what }, document, policy, { signal, onProgress }) {
  if (signal?.aborted) throw abortError(signal, what);
  onProgress?.(0);
  const mechanism = await here(document, policy);
  if (signal?.aborted) {
    mechanism.free();
    throw abortError(signal, what);
  }
  onProgress?.(1);
  let live = true;
  return new cls({
    call: async (method, args) => {
      if (!live) throw freed(cls.name);
      if (method === 'free') live = false;
      return mechanism[method](...args);
    },
    close: () => {
      live = false;
      mechanism.free();
    },
  }, Object.fromEntries(cls.PROPS.map((p) => [p, mechanism[p]])));
}
