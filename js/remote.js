// Verification off the calling thread: `verifyAsync` ('privlift') and
// `verifyContinuousAsync` ('privlift/continuous') parse and verify a document in the
// package's Worker (js/offthread.js), so that a document of up to the whole verification
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

import { PrivliftError, documentBytes, freed, invalid, summarised } from './common.js';
import { offThreadAvailable, checkOptions, holdOffThread, abortError } from './offthread.js';

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
 * handles more than SLICE of it. An object is serialised first, at once.
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
  for (let i = 0; i < bytes.length; i += SLICE) {
    if (i > 0) await nextTask();
    chunks.push(bytes.slice(i, i + SLICE));
  }
  return chunks;
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

/** The link (`{call, close}`) and the unchanging properties of each off-thread mechanism. */
const links = new WeakMap();
const values = new WeakMap();

/** What the constructor of a class `remoteMechanism` made calls: binds `obj` to `link`. */
export function bindRemote(obj, link, props) {
  if (link === null || typeof link !== 'object' || typeof link.call !== 'function' || typeof props !== 'object') {
    throw invalid('link', `use ${obj.constructor.VERIFY}() to make a ${obj.constructor.name}`);
  }
  links.set(obj, link);
  values.set(obj, Object.freeze({ ...props }));
}

/**
 * Makes `cls` a mechanism whose `methods` answer by promise from wherever it was verified,
 * whose `props` (what never changes) are read at once, and whose `free()` releases it
 * (in the Worker, which then waits idle for the next verification). `summary` is what console.log and JSON.stringify show.
 */
export function remoteMechanism(cls, props, methods, summary) {
  cls.PROPS = props;
  for (const name of props) {
    Object.defineProperty(cls.prototype, name, {
      get() {
        if (!links.has(this)) throw freed(cls.name);
        return values.get(this)[name];
      },
      configurable: true,
    });
  }
  for (const name of methods) {
    Object.defineProperty(cls.prototype, name, {
      value(...args) {
        const link = links.get(this);
        return link === undefined ? Promise.reject(freed(cls.name)) : link.call(name, args);
      },
      writable: true, configurable: true,
    });
  }
  Object.defineProperty(cls.prototype, 'free', {
    value() {
      const link = links.get(this);
      links.delete(this);
      link?.close();
    },
    writable: true, configurable: true,
  });
  if (typeof Symbol.dispose === 'symbol') cls.prototype[Symbol.dispose] = cls.prototype.free;
  summarised(cls, (m) => {
    if (!links.has(m)) throw new PrivliftError('invalid_state', 'freed');
    return { ...summary(values.get(m)), verified: true, offThread: true };
  });
}
