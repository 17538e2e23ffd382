// Shared by the privlift entry points ('privlift', 'privlift/continuous', 'privlift/design'):
// the error class, argument checks, document input and downloads, hashes, and the document
// wrappers every family extends. No wasm here.

// BEGIN GENERATED from the Rust core by `PRIVLIFT_BLESS_GENERATED=1 cargo test --test generated`; do not edit.
/** The codes the Rust core throws (`privlift::Error::CODES`), in its order. */
export const CORE_ERROR_CODES = Object.freeze([
  'json', 'unsupported_format', 'unsupported_version', 'unsupported_mechanism', 'non_finite',
  'negative_probability', 'not_normalized', 'dimension_mismatch', 'duplicate_label',
  'too_many_symbols', 'empty_alphabet', 'prior_mismatch', 'unknown_value', 'unknown_output',
  'claim_violated', 'policy_violated', 'no_claims', 'invalid_argument', 'rng', 'io', 'infeasible',
  'design_failed', 'too_costly',
]);

/** The `mechanism.kind` values of continuous documents (`privlift::document::CONTINUOUS_KINDS`). */
export const CONTINUOUS_KINDS = Object.freeze(['gaussian', 'laplace', 'sampling']);
// END GENERATED

/**
 * Codes only this JS layer throws; every other code comes from the core (CORE_ERROR_CODES).
 * The `JsErrorCode` type of privlift.d.ts lists them too (tests/js checks the two agree).
 */
export const JS_ERROR_CODES = Object.freeze([
  'http', // fetchMechanism: the server answered with a non-2xx status
  'network', // fetchMechanism, sendReports: fetch() itself failed (DNS, CORS, offline, aborted)
  'init', // the wasm module could not be loaded or instantiated
  'budget_exceeded', // ledger: the release would take the total leakage above the budget
  'storage', // ledger: the requested storage (IndexedDB) failed
  'invalid_state', // a method of an object whose wasm memory free() released
  'needs_async', // verify(): the document costs more than the calling thread verifies; use verifyAsync
]);

/**
 * The most work (the core's units, `maxVerifyWork`'s) a synchronous `verify()` runs on the
 * calling thread: 2²³ ≈ 8.4·10⁶ units, about 50 ms of a first verify in headless Chromium
 * (benches/wasm/cost.mjs --browser, 2 shared cores under load: 0.3–0.7 s per 10⁸ units; a
 * dense 600² RR, 1.2·10⁷ units, took 51 ms, a Gaussian on 101 points, 1.2·10⁷, 82 ms, one
 * on 51, 3.7·10⁶, 22 ms), so that no synchronous verification holds the page's thread (or
 * Node's event loop) much longer. Accepted: every krr, rr_lip and unary document (at most
 * 2·10⁵ units), a dense channel up to about 500²; a dearer document is refused with
 * `needs_async`, naming the call that verifies in the package's Worker.
 */
export const SYNC_VERIFY_WORK = 2 ** 23;

/**
 * The limit in force on this thread: `SYNC_VERIFY_WORK`, or none in the package's own
 * Worker (js/worker.js), whose thread no page runs on.
 */
export const callingThread = { maxVerifyWork: SYNC_VERIFY_WORK };

/** `fn()` without the calling thread's limit: a verification the caller asked to run here (no workers). */
export function unlimited(fn) {
  const limit = callingThread.maxVerifyWork;
  callingThread.maxVerifyWork = Infinity;
  try {
    return fn();
  } finally {
    callingThread.maxVerifyWork = limit;
  }
}

/**
 * Refuses, before any work, a synchronous verification costing `work` units above the
 * calling thread's limit, naming `asyncCall`, the call that verifies off the thread, and
 * calls `warm()` first: it starts that call's worker, which the app calls next.
 */
export function refuseBlocking(work, asyncCall, warm) {
  if (work > callingThread.maxVerifyWork) {
    warm();
    throw new PrivliftError('needs_async', `verifying this document costs about ${work.toExponential(2)} work units, more than `
      + `the ${callingThread.maxVerifyWork.toExponential(2)} a synchronous verify() runs on the calling thread (about 50 ms): `
      + `use ${asyncCall}, which verifies it in the package's Worker`);
  }
}

/** The one error class privlift throws. Branch on `code`, never on `message`. */
export class PrivliftError extends Error {
  /**
   * @param {string} code
   * @param {string} message
   * @param {{cause?: unknown, status?: number, serverCode?: string}} [options]
   */
  constructor(code, message, options = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PrivliftError';
    this.code = code;
    if (options.status !== undefined) this.status = options.status;
    if (options.serverCode !== undefined) this.serverCode = options.serverCode;
  }
}

/** Turns an error thrown by the wasm module into a PrivliftError; others pass through. */
export function convert(e) {
  if (e instanceof PrivliftError) return e;
  if (e !== null && typeof e === 'object' && e.name === 'PrivliftError' && typeof e.code === 'string') {
    return new PrivliftError(e.code, e.message, { cause: e });
  }
  return e;
}

export function guard(fn) {
  try {
    return fn();
  } catch (e) {
    throw convert(e);
  }
}

export function describe(v) {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'number' || typeof v === 'boolean' || v == null) return String(v);
  if (Array.isArray(v)) return 'an array';
  return Object.prototype.toString.call(v);
}

/**
 * The type of a value the user entered, never the value itself: errors may reach
 * telemetry, so no message ever contains the user's input.
 */
export function typeOf(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  const t = typeof v;
  if (t === 'number') return Number.isNaN(v) ? 'NaN' : (Number.isFinite(v) ? 'a number' : 'an infinite number');
  return t === 'object' ? 'an object' : `a ${t}`;
}

/** What a method of a `cls` instance throws once free() (or a `using` block) released its wasm memory. */
export function freed(cls) {
  return new PrivliftError('invalid_state', `this ${cls} was freed (by free() or the end of its \`using\` block) and cannot be used any more`);
}

export function invalid(name, reason) {
  return new PrivliftError('invalid_argument', `invalid \`${name}\`: ${reason}`);
}

export function toSeed(seed) {
  if (typeof seed === 'number' && Number.isSafeInteger(seed) && seed >= 0) return BigInt(seed);
  if (typeof seed === 'bigint' && seed >= 0n && seed < 2n ** 64n) return seed;
  throw invalid('seed', `expected an integer in [0, 2^64) (a BigInt or a safe integer), got ${describe(seed)}`);
}

let encoder = null;
const encode = (text) => (encoder ??= new TextEncoder()).encode(text);

/**
 * The document as the UTF-8 bytes the wasm parser reads, as given. The core parses it
 * once, its `mechanism.kind` included; nothing here parses or decodes it (the core reads
 * past one leading byte-order mark, in every entry point: see `hashedBytes`).
 * - bytes: a Uint8Array view of the same memory, not copied; bytes that are not UTF-8
 *   are the core's `json` error;
 * - a string: TextEncoder's bytes (faster than wasm-bindgen's own copy of a string, which
 *   loops in JS and reserves 3× the length for non-ASCII text);
 * - a plain object: its JSON.stringify text, encoded likewise.
 * @returns {Uint8Array}
 */
export function documentBytes(input) {
  if (typeof input === 'string') return encode(input);
  if (input instanceof ArrayBuffer || ArrayBuffer.isView(input)) {
    return input instanceof Uint8Array ? input
      : input instanceof ArrayBuffer ? new Uint8Array(input)
        : new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  }
  if (input !== null && typeof input === 'object') {
    let text;
    try {
      text = JSON.stringify(input);
    } catch (e) {
      throw invalid('document', `cannot be serialised to JSON: ${e.message}`);
    }
    return encode(text);
  }
  throw invalid('document', `expected a JSON string, bytes or a plain object, got ${describe(input)}`);
}

/**
 * The document's bytes whose SHA-256 its reports name: without one leading byte-order mark
 * (which the core reads past), so that a document hashes the same whether it came as
 * bytes, as a string or through `Response.text()`, and as the collector hashes it.
 * @param {Uint8Array} bytes
 * @returns {Uint8Array}
 */
export function hashedBytes(bytes) {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
}

export function checkUrl(url) {
  if (typeof url !== 'string' && !(url instanceof URL) && !(typeof Request !== 'undefined' && url instanceof Request)) {
    throw invalid('url', `expected a string, URL or Request, got ${describe(url)}`);
  }
}

/**
 * Default cap on a downloaded document (64 MiB): the body is refused with `too_costly`
 * as soon as it exceeds it (by Content-Length, or while streaming), so a hostile server
 * cannot make the page download and parse gigabytes before verification's own budget
 * applies. `fetchOptions.maxBytes` changes it.
 */
export const DEFAULT_MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;

/**
 * The beginning of a long download read first for what it settles: the sizes a discrete
 * document declares, which `fetchBytes` gives `onHead` while the rest arrives.
 */
export const HEAD_BYTES = 1 << 16;

/**
 * The length from which a download is long enough for `onHead`: a discrete document
 * dearer than a synchronous verify() declares about 250,000 numbers (a dense 500² RR,
 * ≈ 5.5 MB of JSON); reading the head of every shorter one would cost a cold page a
 * parse for nothing.
 */
const HEAD_AFTER = 1 << 22;

/**
 * Fetches `url` and returns the body's bytes, with the `network` / `http` errors; calls
 * `onHead(bytes)` once with the first HEAD_BYTES (a copy) of a body that is still arriving
 * after HEAD_AFTER bytes, so that what they settle need not wait for the rest.
 */
export async function fetchBytes(url, fetchOptions, init, onHead) {
  checkUrl(url);
  const where = typeof url === 'string' ? url : url instanceof URL ? url.href : url.url;
  const { maxBytes = DEFAULT_MAX_DOCUMENT_BYTES, ...requestInit } = fetchOptions ?? {};
  if (typeof maxBytes !== 'number' || !(maxBytes > 0)) {
    throw invalid('fetchOptions.maxBytes', `expected a number of bytes > 0, got ${describe(maxBytes)}`);
  }
  const tooLarge = () => new PrivliftError('too_costly',
    `the document at ${where} is larger than ${maxBytes} bytes (raise fetchOptions.maxBytes to accept it)`);
  const loading = init();
  loading.catch(() => {}); // handled below, after the download; no unhandled rejection meanwhile
  const file = isNode ? nodeFileUrl(url) : null;
  if (file) {
    const bytes = await readFileCapped(file, maxBytes, tooLarge);
    await loading;
    return bytes;
  }
  let res;
  try {
    res = await fetch(url, requestInit);
  } catch (e) {
    if (isNode && typeof url === 'string' && !isAbsolute(url)) throw relativeInNode(url);
    throw new PrivliftError('network', `could not fetch ${where}: ${e && e.message ? e.message : e}`, { cause: e });
  }
  if (!res.ok) {
    throw new PrivliftError('http', `fetching ${res.url || where} gave HTTP ${res.status}${res.statusText ? ' ' + res.statusText : ''}`, { status: res.status });
  }
  const declared = Number(res.headers.get('content-length'));
  if (declared > maxBytes) {
    res.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  let bytes;
  try {
    if (res.body && typeof res.body.getReader === 'function') {
      const reader = res.body.getReader();
      // With a declared length, each chunk is copied into one buffer of that length as it
      // arrives (the document is held once, not as its chunks and then their join); a
      // body longer than declared (a coded one) falls back to joining its chunks.
      let whole = declared > 0 ? new Uint8Array(declared) : null;
      const chunks = [];
      let total = 0;
      let head = onHead ? new Uint8Array(HEAD_BYTES) : null;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (head) {
          if (total < HEAD_BYTES) head.set(value.subarray(0, HEAD_BYTES - total), total);
          if (total + value.byteLength > HEAD_AFTER) {
            onHead(head);
            head = null;
          }
        }
        total += value.byteLength;
        if (total > maxBytes) {
          reader.cancel().catch(() => {});
          throw tooLarge();
        }
        if (whole && total <= whole.byteLength) {
          whole.set(value, total - value.byteLength);
          continue;
        }
        if (whole) chunks.push(whole.subarray(0, total - value.byteLength));
        whole = null;
        chunks.push(value);
      }
      if (whole) {
        bytes = whole.subarray(0, total);
      } else {
        bytes = new Uint8Array(total);
        let at = 0;
        for (const c of chunks) {
          bytes.set(c, at);
          at += c.byteLength;
        }
      }
    } else {
      bytes = new Uint8Array(await res.arrayBuffer());
      if (bytes.byteLength > maxBytes) throw tooLarge();
    }
  } catch (e) {
    if (e instanceof PrivliftError) throw e;
    throw new PrivliftError('network', `could not read the body of ${where}: ${e && e.message ? e.message : e}`, { cause: e });
  }
  await loading;
  return bytes;
}

const isNode = typeof process !== 'undefined' && process.versions != null && process.versions.node != null;

/**
 * In Node, the `file:` URL a fetch input names, if it names one (Node's fetch() reads no
 * files). A relative path is left to fetch() (a test harness or a server-side framework
 * may resolve it); if fetch() cannot, the error says the two ways that work.
 */
function nodeFileUrl(url) {
  if (url instanceof URL) return url.protocol === 'file:' ? url : null;
  if (typeof url !== 'string' || !isAbsolute(url)) return null;
  const u = new URL(url);
  return u.protocol === 'file:' ? u : null;
}

function isAbsolute(url) {
  try {
    new URL(url); // eslint-disable-line no-new
    return true;
  } catch {
    return false;
  }
}

/** A relative path that Node's fetch() could not resolve (there is no page to resolve it against). */
function relativeInNode(url) {
  return invalid('url', `${JSON.stringify(url)} is a relative path, which Node cannot fetch: pass a file URL `
    + "(new URL('./m.json', import.meta.url)) or parse the bytes (parseMechanism(await readFile(path)))");
}

async function nodeFs() {
  // The specifier is hidden from bundlers, which would otherwise try to pull a Node
  // built-in into a browser bundle.
  const fsName = 'node:fs/promises';
  return import(/* @vite-ignore */ /* webpackIgnore: true */ fsName);
}

/** The bytes of a local file, refused with `too_costly` beyond `maxBytes` before reading. */
async function readFileCapped(url, maxBytes, tooLarge) {
  const { open } = await nodeFs();
  let handle;
  try {
    handle = await open(url, 'r');
    const { size } = await handle.stat();
    if (size > maxBytes) throw tooLarge();
    const bytes = new Uint8Array(size);
    let at = 0;
    while (at < size) {
      const { bytesRead } = await handle.read(bytes, at, size - at, at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return bytes.subarray(0, at);
  } catch (e) {
    if (e instanceof PrivliftError) throw e;
    throw new PrivliftError('io', `could not read ${url.href}: ${e && e.code ? e.code : e && e.message}`, { cause: e });
  } finally {
    await handle?.close();
  }
}

/**
 * Where init() takes a wasm module from when it is given nothing, if not from the .wasm
 * file next to the package: set by an entry that carries the module inside its JavaScript
 * (privlift/inline: the bytes) or imports it compiled (the workerd entries: a
 * WebAssembly.Module), as a function returning it; one per module.
 */
export const embeddedWasm = { privlift: null, open: null, continuous: null, design: null };

/**
 * The module a workerd entry (`entry`) imported from `file` as a compiled
 * WebAssembly.Module, or the `init` error that names what the import gave instead and why
 * nothing else can load there.
 */
export function importedModule(compiled, entry, file) {
  if (typeof WebAssembly !== 'undefined' && compiled instanceof WebAssembly.Module) return compiled;
  const got = compiled === null ? 'null' : typeof compiled === 'object' ? compiled.constructor?.name || 'an object' : typeof compiled;
  throw new PrivliftError('init', `${entry} imports ${file} as a compiled WebAssembly.Module, but the import gave ${got}: `
    + 'bundle the Worker with wrangler (whose default rule makes every *.wasm import a CompiledWasm module) or declare the file as a '
    + '`wasm` module in the workerd configuration; the runtime refuses to compile WebAssembly from bytes while serving, '
    + "so neither 'privlift/inline' nor a fetched .wasm can load there");
}

/**
 * What to hand wasm-bindgen's init for the .wasm at `url` (written by each caller as
 * `new URL('../pkg…/….wasm', import.meta.url)`, the form bundlers recognise): the URL
 * itself, or its bytes in Node, whose fetch() does not read file: URLs.
 */
export async function wasmSource(url) {
  if (url.protocol === 'file:' && isNode) {
    const { readFile } = await nodeFs();
    return readFile(url);
  }
  return url;
}

/**
 * A compiled module for `input` (a URL, Request, Response, bytes or a Module, or a promise
 * of one), compiled asynchronously: WebAssembly.compile never blocks the calling thread.
 * @returns {Promise<WebAssembly.Module>}
 */
export async function compiledModule(input) {
  const source = await input; // wasm-bindgen's init accepts a promise of any of these too
  if (source instanceof WebAssembly.Module) return source;
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return WebAssembly.compile(source);
  const response = typeof Response === 'function' && source instanceof Response ? source : await fetch(source);
  if (typeof WebAssembly.compileStreaming === 'function'
    && response.headers.get('content-type')?.startsWith('application/wasm')) {
    return WebAssembly.compileStreaming(response);
  }
  return WebAssembly.compile(await response.arrayBuffer());
}

/**
 * One compilation of a module, shared by the thread that instantiates it (init) and the
 * package's Worker (the async verifications): `of(input)` compiles `input`, or by default
 * `defaultSource()`, once; `now(module)` compiles bytes synchronously (initSync) and keeps
 * the result for the Worker.
 */
export function compiledOnce(defaultSource) {
  /** @type {Promise<WebAssembly.Module> | null} */
  let compiling = null;
  return {
    of(input) {
      if (compiling === null) {
        compiling = (async () => compiledModule(input !== undefined ? input : await defaultSource()))();
        compiling.catch(() => { compiling = null; });
      }
      return compiling;
    },
    now(module) {
      const compiledNow = module instanceof WebAssembly.Module ? module : new WebAssembly.Module(module);
      compiling ??= Promise.resolve(compiledNow);
      return compiledNow;
    },
  };
}

/**
 * js/offthread.js (the package's Workers), imported when first needed: by verifyAsync,
 * verifyContinuousAsync, or the warm-up of a `needs_async` refusal. A page that verifies on
 * its own thread never loads it (each module of an entry's static imports is one more
 * request and parse before a cold page's first call).
 */
let offThreadModule = null;
export const offThread = () => (offThreadModule ??= import('./offthread.js'));

/**
 * Starts the package's Worker for `glue` and the module `compiled` compiles (a
 * `compiledOnce`), js/offthread.js loaded first: on a `needs_async` refusal, so that the
 * app's next call (verifyAsync) finds it ready. Never throws; nothing without workers.
 */
export function warmOffThreadLater(glue, compiled) {
  offThread().then((o) => o.warmed(glue, compiled), () => {});
}

/**
 * The loader of one wasm module: `init` (async, once; later calls return the same promise
 * and ignore `input`), `initSync` (from bytes or a compiled module; a no-op once loaded) and
 * `isInitialized`, the same three functions in every entry. `what` names the module in
 * errors; `defaultSource()` is where `init()` takes it from when given nothing, and
 * `hint()` what a failure to load it from there adds to the message (where the file
 * should be). `compiled` (a `compiledOnce`), when given, compiles the module
 * once for this thread and the package's Worker alike.
 */
export function moduleLoader(what, { initWasm, initSync, defaultSource, hint = () => '', compiled = null }) {
  let ready = null;
  let loaded = false;
  const failed = (verb, e, note = '') => new PrivliftError('init',
    `could not ${verb} the ${what} wasm module: ${e && e.message ? e.message : e}${note}`, { cause: e });
  return {
    init(input) {
      if (ready === null) {
        const note = input === undefined ? hint() : '';
        ready = (async () => {
          const source = compiled ? compiled.of(input) : input === undefined ? defaultSource() : input;
          await initWasm({ module_or_path: await source });
          loaded = true;
        })().catch((e) => {
          ready = null; // allow a retry, e.g. after going back online
          throw failed('load', e, note);
        });
      }
      return ready;
    },
    initSync(module) {
      if (loaded) return;
      if (module === undefined || module === null) {
        throw invalid('module', 'expected the .wasm bytes or a WebAssembly.Module');
      }
      try {
        initSync({ module: compiled ? compiled.now(module) : module });
      } catch (e) {
        throw failed('instantiate', e);
      }
      loaded = true;
      ready = Promise.resolve();
    },
    isInitialized: () => loaded,
  };
}

/**
 * Gives a class a summary for `JSON.stringify` (`toJSON`) and `console.log` in Node
 * (`util.inspect`): `summary(obj)` returns a plain object. After `free()` the summary is
 * `{freed: true}` instead of a wasm error.
 */
export function summarised(cls, summary) {
  Object.defineProperty(cls.prototype, 'toJSON', {
    value() {
      try {
        return summary(this);
      } catch {
        return { freed: true };
      }
    },
    writable: true, configurable: true,
  });
  Object.defineProperty(cls.prototype, Symbol.for('nodejs.util.inspect.custom'), {
    value(depth, options, inspect) {
      const body = this.toJSON();
      return `${cls.name} ${typeof inspect === 'function' ? inspect(body, options) : JSON.stringify(body)}`;
    },
    writable: true, configurable: true,
  });
}

// ---------------------------------------------------------------------------------------
// Hashes

/** Lower-case hex of `bytes`. */
export function hex(bytes) {
  let s = '';
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return s;
}

/** SHA-256 of `bytes` (the document as parsed), lower-case hex, by WebCrypto. */
export async function sha256Hex(bytes) {
  return hex(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)));
}

// ---------------------------------------------------------------------------------------
// What the document families share on the JS side: parsing a document into its wasm
// handle with the SHA-256 of its bytes, fetching and verifying one, and the wrapper class
// every document and mechanism class extends (its handle, its hash, free()). Each family's
// entry ('privlift', 'privlift/continuous') passes its own wasm class and names.

/** The key of a wrapper's wasm handle (`invalid_state` once freed): for the subclasses only. */
export const HANDLE = Symbol('privlift handle');

/**
 * A wasm handle in a JS class of the package, with the SHA-256 of the document it came
 * from. `kind.raw` is the wasm-bindgen class the handle must be, `kind.name` the JS class's
 * name and `kind.from` what makes one (both named in errors).
 */
export class Wrapper {
  #handle;
  #sha256;
  #name;

  /** @internal */
  constructor(handle, sha256, kind) {
    if (!(handle instanceof kind.raw)) throw invalid('handle', `use ${kind.from} to make a ${kind.name}`);
    this.#handle = handle;
    this.#sha256 = sha256;
    this.#name = kind.name;
  }

  /** The wasm handle; `invalid_state` once freed (wasm-bindgen's own error is a plain Error). */
  get [HANDLE]() {
    if (this.#handle === null) throw freed(this.#name);
    return this.#handle;
  }

  get id() { return this[HANDLE].id; }
  /** SHA-256 (lower-case hex) of the document's bytes as parsed. */
  get sha256() { return this.#sha256; }

  /** Releases the wasm memory now (otherwise the garbage collector does it); a second call does nothing. */
  free() {
    const h = this.#handle;
    this.#handle = null;
    h?.free();
  }
}

if (typeof Symbol.dispose === 'symbol') Wrapper.prototype[Symbol.dispose] = Wrapper.prototype.free;

/**
 * Documents of at most this many bytes (without a leading BOM) are hashed before they are
 * parsed: SubtleCrypto answers while the calling thread waits idle, before the parse's
 * work (and the engine's compiling of it) competes with it for the cores. A larger
 * document is hashed only once parsed, so that one the core refuses is never copied into
 * SubtleCrypto nor hashed for nothing.
 */
export const HASHED_FIRST = 1 << 20;

/**
 * Parses the document `bytes` with `parse` (the wasm class's `parseBytes`, throwing the
 * core's errors) once `init` has loaded the module, and hashes the same bytes: up to
 * HASHED_FIRST bytes while the module loads, beyond it after the parse.
 * `wrap(handle, sha256)` makes the JS object; the handle is freed if that fails.
 */
export async function parsed(bytes, init, parse, wrap) {
  // The SHA-256 of exactly these bytes (without a leading BOM) goes into every report (the
  // collector never mixes the counts of two versions of a document).
  const hashed = hashedBytes(bytes);
  const [early] = await Promise.all([hashed.length <= HASHED_FIRST ? sha256Hex(hashed) : null, init()]);
  const handle = guard(() => parse(bytes));
  try {
    return wrap(handle, early ?? await sha256Hex(hashed));
  } catch (e) {
    handle.free();
    throw e;
  }
}

/**
 * Downloads the document at `url`, parses it with `parse(bytes, policy)` and verifies it
 * against `policy`; the document itself is freed either way. A `needs_async` refusal
 * carries the downloaded bytes as its `document`. `onHead`: fetchBytes's.
 */
export async function fetchedAndVerified(url, policy, fetchOptions, init, parse, onHead) {
  const bytes = await fetchBytes(url, fetchOptions, init, onHead);
  try {
    const doc = await parse(bytes, policy);
    try {
      return doc.verify(policy);
    } finally {
      doc.free();
    }
  } catch (e) {
    // The bytes downloaded, for the verifyAsync the refusal names: not downloaded again
    // (a dense 1024² RR, 23 MB: 0.2–0.4 s from Chromium's cache).
    if (e instanceof PrivliftError && e.code === 'needs_async') e.document = bytes;
    throw e;
  }
}

// ---------------------------------------------------------------------------------------
// The mechanisms verified off the calling thread (verifyAsync, verifyContinuousAsync:
// js/offthread.js), whose methods answer by promise from where they were verified.

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
