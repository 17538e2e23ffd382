// privlift: client-side local information privacy (ES module, browsers and Node ≥ 20).
//
// A thin wrapper over the wasm-bindgen glue in ../pkg/privlift.js. All parsing,
// verification, sampling and receipts happen in the Rust core compiled to wasm, and so do
// the checks of policies, indices and bits; this file loads the module, converts arguments
// that cannot cross the boundary as they are, maps labels to indices, and turns every
// error into a PrivliftError with a stable `code`.
//
// Randomness: Mechanism.perturb* draw from crypto.getRandomValues inside the wasm module.
// Nothing in this file draws randomness itself.

import initWasm, * as raw from '../pkg/privlift.js';
import {
  PrivliftError, CORE_ERROR_CODES, JS_ERROR_CODES, guard, describe, typeOf, invalid, toSeed,
  documentBytes, wasmSource, summarised, embeddedWasm, moduleLoader, refuseBlocking, unlimited, callingThread,
  HANDLE, Wrapper, parsed, fetchedAndVerified, compiledOnce, remoteMechanism, bindRemote, offThread, warmOffThreadLater,
} from './common.js';
import { reportId, OpenReportBatch } from './reports.js';

export { PrivliftError };
export { sendReports, beaconOnPageHide, OpenReportBatch } from './reports.js';

/** Every `code` a PrivliftError can carry: the core's (generated from Rust), then the JS layer's. */
export const errorCodes = Object.freeze([...CORE_ERROR_CODES, ...JS_ERROR_CODES]);

// ---------------------------------------------------------------------------------------
// Loading the module

/**
 * The module compiled once, from init()'s `input` or by default the .wasm file next to the
 * package (unless an entry carries it: privlift/inline, privlift/workerd): this thread
 * instantiates it (init) and the package's Worker too (verifyAsync), one download and one
 * compilation; verifyAsync alone never instantiates it here.
 */
const clientModule = compiledOnce(() => (embeddedWasm.privlift ? embeddedWasm.privlift()
  : wasmSource(new URL('../pkg/privlift_bg.wasm', import.meta.url))));

/**
 * `init(input?)` loads and instantiates the wasm module once. Idempotent: later calls
 * return the same promise (and ignore `input`). Every other function calls it for you;
 * call it yourself to load early or to pass the module from elsewhere (by default
 * pkg/privlift_bg.wasm next to this package, or the bytes 'privlift/inline' carries).
 *
 * `initSync(module)` instantiates it synchronously from its bytes or a compiled
 * WebAssembly.Module, for runtimes that cannot await init() first (a worker's top level,
 * Jest, edge functions); a no-op once loaded. Browsers refuse to compile more than 4 KB
 * synchronously on the main thread: there, use init() (or 'privlift/inline', which
 * carries the module and loads it on first use).
 *
 * `isInitialized()`: whether the module is loaded (init() has completed).
 */
export const { init, initSync, isInitialized } = moduleLoader('privlift', {
  initWasm,
  initSync: raw.initSync,
  // The .wasm file next to the package, unless the entry carries it (privlift/inline).
  defaultSource: () => (embeddedWasm.privlift ? embeddedWasm.privlift()
    : wasmSource(new URL('../pkg/privlift_bg.wasm', import.meta.url))),
  compiled: clientModule,
  hint: () => (embeddedWasm.privlift ? '' : ' (is pkg/privlift_bg.wasm served next to js/? With the Vite dev server,'
    + " set optimizeDeps.exclude: ['privlift'], or pass the .wasm URL to init())"),
});

/**
 * The glue of the open-domain module (pkg-open/), once loaded: the open kinds have a wasm
 * module of their own, which parseMechanism loads (initOpen) when it meets an open-domain
 * document, so that a page of other documents neither downloads nor compiles it.
 */
let rawOpen = null;

/**
 * `initOpen(input?)` loads and instantiates the open-domain module once (by default
 * pkg-open/privlift_open_bg.wasm next to this package, or what 'privlift/inline' and
 * 'privlift/workerd' carry), as `init` does the discrete one. parseMechanism calls it for
 * an open-domain document; call it yourself to load early or to pass the module from
 * elsewhere. `isOpenInitialized()`: whether it has completed.
 */
export const { init: initOpen, isInitialized: isOpenInitialized } = moduleLoader('privlift open-domain', {
  initWasm: async (input) => {
    const glue = await import('../pkg-open/privlift_open.js');
    await glue.default(input);
    rawOpen = glue;
  },
  initSync: null, // parseMechanism is asynchronous: the open module has no synchronous loader
  defaultSource: () => (embeddedWasm.open ? embeddedWasm.open()
    : wasmSource(new URL('../pkg-open/privlift_open_bg.wasm', import.meta.url))),
  hint: () => (embeddedWasm.open ? '' : ' (is pkg-open/privlift_open_bg.wasm served next to js/? Or pass its URL to initOpen())'),
});

/** A class of the open-domain glue, or one no handle is an instance of before it is loaded. */
const openClass = (name) => rawOpen?.[name] ?? NotLoaded;
class NotLoaded {}

// ---------------------------------------------------------------------------------------
// Argument conversion. Policies (shape, keys, ranges: Policy::from_entries), index ranges
// (unknown_value, unknown_output) and bits (0 or 1) are checked by the core, once.

const U32_MAX = 0xffff_ffff;

/**
 * An index as the u32 wasm takes: wasm-bindgen would wrap any other number (-1 → 2^32 − 1,
 * 1.5 → 1, 2^32 → 0), so that is refused here, naming the argument and the type of what was
 * given, never its value (it may be the user's). Beyond 2^32 − 1 it saturates, an index no
 * alphabet reaches (at most 4096 symbols), so the core refuses it as out of range.
 */
function toU32(v, name) {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
    throw invalid(name, `expected a label string or a non-negative integer index, got ${typeOf(v)}`);
  }
  return Math.min(v, U32_MAX);
}

/** An element of an index array: a string there is a label, which the index methods never read. */
function toIndex(v, name) {
  if (typeof v === 'string') throw invalid(name, 'expected an input index (a number), got a string: map labels with inputIndex');
  return toU32(v, name);
}

// ---------------------------------------------------------------------------------------
// Public API

/**
 * Parses and validates a mechanism document (JSON text, UTF-8 bytes or an object) within
 * the verification budget of `policy` (its `maxVerifyWork`; none: the default): a document
 * that verifying would refuse is refused with `too_costly` as it is read, before the rest
 * of its numbers are held, and before its bytes are hashed.
 * Loads the wasm module first if needed. An open-domain document (kinds `olh`,
 * `hadamard`, `hcms`, `heavy_hitters`) gives an OpenMechanismDocument.
 * @returns {Promise<MechanismDocument | OpenMechanismDocument>}
 */
export async function parseMechanism(document, policy) {
  return parsedWithin(document, policy);
}

/**
 * parseMechanism; with `threadLimit` (work units), a discrete document above it but
 * within the policy's budget is refused as it is read, with the core's `needs_async`.
 */
async function parsedWithin(document, policy, threadLimit) {
  // Parsed once, by the core: a document of another family is `unsupported_mechanism`
  // there, naming its entry point (the core's peek of its kind, made only on a failed
  // parse). An open-domain one names parseMechanism: it is read by the open-domain module.
  const bytes = documentBytes(document);
  await init();
  try {
    return await parsed(bytes, init, (b) => raw.Document.parseBytes(b, policy, threadLimit),
      (handle, sha256) => new MechanismDocument(handle, sha256));
  } catch (e) {
    if (e?.code !== 'unsupported_mechanism' || !raw.isOpenDocument(bytes)) throw e;
  }
  return parsed(bytes, initOpen, (b) => rawOpen.OpenDocument.parseBytes(b, policy),
    (handle, sha256) => new OpenMechanismDocument(handle, sha256));
}

/**
 * parseMechanism for a verification on this thread (fetchMechanism): a document that
 * verify() would refuse as `needs_async` is refused so as it is read, from the sizes it
 * declares, not after all its numbers are parsed (a dense 1024² RR, 23 MB: about 0.6 s
 * of this thread in Chromium, then parsed again in the Worker).
 */
async function parsedToVerifyHere(document, policy) {
  try {
    return await parsedWithin(document, policy, callingThread.maxVerifyWork);
  } catch (e) {
    if (e?.code === 'needs_async') refuseBlocking(e.cause.work, VERIFY_ASYNC, warmClient);
    throw e;
  }
}

/**
 * On the head of a long download (fetchMechanism; fetchBytes's `onHead`): when it declares
 * sizes that parsedToVerifyHere will refuse as `needs_async`, the Worker of the verifyAsync
 * that follows starts now, while the rest downloads (starting it takes about 0.15 s in
 * Chromium, longer than what is left of the refusal once the document has arrived).
 * The beginning is read by the same reader with the same limits; anything else it says
 * (the rest is missing) is the full read's to say.
 */
function warmIfDear(head, policy) {
  init().then(() => {
    raw.Document.parseBytes(head, policy, callingThread.maxVerifyWork).free();
  }).catch((e) => {
    if (e?.code === 'needs_async') warmClient();
  });
}

/** The call that verifies what verify() refuses as `needs_async`. */
const VERIFY_ASYNC = "verifyAsync(document, policy) from 'privlift'";

/** Starts the Worker of verifyAsync (on a `needs_async` refusal: the app's next call). */
const warmClient = () => warmOffThreadLater('privlift', clientModule);


/**
 * parseMechanism for an open-domain document only (kinds `olh`, `hadamard`, `hcms`,
 * `heavy_hitters`): any other document is `unsupported_mechanism`.
 * @returns {Promise<OpenMechanismDocument>}
 */
export async function parseOpenMechanism(document, policy) {
  const doc = await parseMechanism(document, policy);
  if (doc instanceof OpenMechanismDocument) return doc;
  doc.free();
  throw new PrivliftError('unsupported_mechanism', `mechanism kind '${doc.kind}' is not an open-domain kind: use parseMechanism`);
}

/**
 * Downloads a mechanism document, parses it within `policy`'s budget and verifies it
 * against `policy`.
 * Throws PrivliftError: `network` (fetch failed), `http` (non-2xx status; `status` set),
 * any parse code, `no_claims`, `claim_violated`, `policy_violated`, and `needs_async` for
 * a document above what verify() runs on this thread (refused as it is read, before the
 * rest of its numbers): verify the error's `document`, the bytes downloaded, with verifyAsync.
 * @returns {Promise<Mechanism>}
 */
export async function fetchMechanism(url, policy, fetchOptions) {
  return fetchedAndVerified(url, policy, fetchOptions, init, parsedToVerifyHere, (head) => warmIfDear(head, policy));
}

/** Parses `bytes` within `policy`'s budget and returns `verify(doc)`; the document is freed. */
async function verifyBytes(bytes, policy, verify) {
  const doc = await parseMechanism(bytes, policy);
  try {
    return verify(doc);
  } finally {
    doc.free();
  }
}

/**
 * Parses and verifies a mechanism document (JSON text, UTF-8 bytes or an object) against
 * `policy` in the package's Worker, so that neither blocks the calling thread, whatever
 * the document costs within the budget: the call for any document `verify()` refuses as
 * `needs_async`, and for a document whose size is not known in advance. Resolves with an
 * AsyncMechanism, which stays in that Worker: its methods answer by promise.
 * `options`: `{signal, onProgress}` (aborting terminates the Worker and rejects with an
 * `AbortError`; progress: 0 at the start, 1 at the end). Throws what parseMechanism and
 * verify throw, with the same codes.
 * @returns {Promise<AsyncMechanism>}
 */
export async function verifyAsync(document, policy, options) {
  return (await offThread()).verifyOffThread({
    glue: 'privlift',
    cls: AsyncMechanism,
    what: 'verifyAsync()',
    compiled: () => clientModule.of(),
    here: (bytes, p) => verifyBytes(bytes, p, (doc) => unlimited(() => doc.verify(p))),
  }, document, policy, options);
}

/**
 * A parsed, validated, NOT yet verified mechanism document. Get one from parseMechanism.
 * (Not `Document`: that name is the DOM's, which a TypeScript file importing it would lose.)
 */
export class MechanismDocument extends Wrapper {
  /** @internal */
  constructor(handle, sha256) {
    super(handle, sha256, { raw: raw.Document, name: 'MechanismDocument', from: 'parseMechanism()' });
  }

  get #d() { return this[HANDLE]; }

  /** The mechanism kind: 'matrix', 'per_secret', 'unary', or a structured kind ('krr', 'rr_lip', 'merge', 'sparse', 'srr'). */
  get kind() { return this.#d.kind; }
  get description() { return this.#d.description; }
  get labels() { return this.#d.labels; }
  get outputLabels() { return this.#d.outputLabels; }
  get secretLabels() { return this.#d.secretLabels; }
  get prior() { return Array.from(this.#d.prior); }
  get claims() { return guard(() => this.#d.claims); }

  /** The audit of the channel as declared (every leakage measure). */
  audit(alphaOrder) {
    if (alphaOrder !== undefined && typeof alphaOrder !== 'number') {
      throw invalid('alphaOrder', `expected a number, got ${describe(alphaOrder)}`);
    }
    return guard(() => this.#d.audit(alphaOrder));
  }

  /** Every claim and policy check, without throwing on a failed check. */
  check(policy) {
    return guard(() => this.#d.check(policy));
  }

  /**
   * Verifies claims and policy on the exact sampler; returns a Mechanism or throws. A
   * document that costs more than the calling thread verifies (about 50 ms) is refused
   * with `needs_async`: use verifyAsync.
   */
  verify(policy) {
    refuseBlocking(guard(() => this.#d.verifyWork(policy)), VERIFY_ASYNC, warmClient);
    return new Mechanism(guard(() => this.#d.verify(policy)), this.sha256);
  }
}

/**
 * A parsed, validated, NOT yet verified open-domain document (values are strings of at most
 * `maxBytes` UTF-8 bytes). Get one from parseMechanism.
 */
export class OpenMechanismDocument extends Wrapper {
  /** @internal */
  constructor(handle, sha256) {
    super(handle, sha256, { raw: openClass('OpenDocument'), name: 'OpenMechanismDocument', from: 'parseMechanism()' });
  }

  get #d() { return this[HANDLE]; }

  /** 'olh', 'hadamard', 'hcms' or 'heavy_hitters'. */
  get kind() { return this.#d.kind; }
  get description() { return this.#d.description; }
  get maxBytes() { return this.#d.maxBytes; }
  /** `{values, p, otherMass}`, or undefined without a prior. */
  get prior() { return this.#d.prior; }
  get claims() { return this.#d.claims; }
  /** The audit of the randomiser that will run: `{ldpX, lip, epsL, epsU}`. */
  audit() { return guard(() => this.#d.audit()); }
  /** Every claim and policy check, without throwing on a failed check. */
  check(policy) { return guard(() => this.#d.check(policy)); }
  /** Verifies claims and policy; returns an OpenMechanism or throws. */
  verify(policy) { return new OpenMechanism(guard(() => this.#d.verify(policy)), this.sha256); }
}

const utf8 = new TextEncoder();

/** The number of report fields of each open kind. */
const OPEN_WIDTH = { olh: 2, hadamard: 2, hcms: 3, heavy_hitters: 3 };

/** Values joined and encoded at a time (measured against 128 to 16,384 and the whole batch). */
const JOIN_CHUNK = 1024;

/**
 * Writes the UTF-8 of `values` joined by U+0000 straight into the module's memory
 * (`m.stageValues`: a view of a buffer the mechanism keeps) and returns its length: one
 * pass for the types and the total length, then the values joined JOIN_CHUNK at a time,
 * each join written by one TextEncoder.encodeInto into the view (no JS buffer, no copy
 * into the module). Strings of a few tens of KB stay in V8's young generation: Node 20,
 * CPU time per 10⁶ 64-byte URLs, 183 ms against 248 ms for one join of the whole batch
 * and 329 ms a byte per unit; words 28 ms, as fast as a byte per unit (24–31 ms) and
 * against 62–72 ms. One byte a unit is staged first; a value of more needs at most 3 a
 * unit (the module keeps what was written when it grows). Lone surrogates become U+FFFD,
 * as in every string passed to the module. The module checks lengths and counts the
 * values, and zeroes what was staged once it has drawn.
 */
function stageJoined(m, values) {
  if (!Array.isArray(values)) throw invalid('values', `expected an array of strings, got ${typeOf(values)}`);
  const n = values.length;
  let units = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (typeof v !== 'string') throw invalid(`values[${i}]`, `expected a string, got ${typeOf(v)}`);
    units += v.length;
  }
  // The module's memory is at most 4 GiB: a larger batch could never be staged.
  if (units + n > U32_MAX) throw invalid('values', 'the joined values may have at most 4 GiB');
  let buf = guard(() => m.stageValues(units + n)); // enough while every unit is ASCII
  let grown = false;
  let at = 0;
  for (let i = 0; i < n; i += JOIN_CHUNK) {
    if (i > 0) buf[at++] = 0;
    let s = values.slice(i, i + JOIN_CHUNK).join('\0');
    for (;;) {
      const { read, written } = utf8.encodeInto(s, buf.subarray(at));
      at += written;
      if (read === s.length) break;
      s = s.slice(read); // encodeInto stops between characters, never inside one
      if (grown) { // 3 bytes a unit is room enough unless that passes 4 GiB
        buf.fill(0);
        throw invalid('values', 'the joined values may have at most 4 GiB');
      }
      buf = guard(() => m.stageValues(Math.min(3 * (units + n), U32_MAX)));
      grown = true;
    }
  }
  return at;
}

/** The refusal of the first value holding a U+0000, or null. */
function nulInside(values) {
  const i = values.findIndex((v) => v.includes('\0'));
  return i < 0 ? null : invalid(`values[${i}]`, 'a value may not contain U+0000 (the padding byte of prefixes)');
}

/** A verified open-domain mechanism, perturbing with crypto.getRandomValues. */
export class OpenMechanism extends Wrapper {
  /** @internal */
  constructor(handle, sha256) {
    super(handle, sha256, { raw: openClass('OpenMechanism'), name: 'OpenMechanism', from: 'OpenMechanismDocument.verify()' });
  }

  get #m() { return this[HANDLE]; }

  get kind() { return this.#m.kind; }
  get maxBytes() { return this.#m.maxBytes; }

  /**
   * One report of the string `value`: `{seed, y}` (olh), `{j, bit}` (hadamard),
   * `{j, l, bit}` (hcms) or `{round, seed, y}` (heavy_hitters). Throws `invalid_argument`
   * (never echoing the value) for a value that is not a string, is longer than `maxBytes`
   * UTF-8 bytes or contains U+0000.
   */
  perturb(value) {
    if (typeof value !== 'string') throw invalid('value', `expected a string, got ${typeOf(value)}`);
    return guard(() => this.#m.perturb(value));
  }

  /**
   * Reports of many strings at once, as columns: an OpenReportBatch whose fields are one
   * Uint32Array per report field of the kind (`batch.seed`, `batch.y` for olh, …), with
   * `length`, `report(i)`, `canonical(i)` and `slice`, which sendReports posts as it is.
   * The strings are written as UTF-8 straight into the module's memory (joined by U+0000,
   * which no value contains: stageJoined), and leave as one array. Every value is checked before anything is
   * drawn: `invalid_argument` naming `values[i]` (never echoing it) for a value that is not
   * a string, is longer than `maxBytes` UTF-8 bytes or contains U+0000; on any error there
   * is no batch. Each report draws the same number of random words whatever its value.
   */
  perturbBatch(values) {
    return this.#batch(values, (len, n) => this.#m.perturbStaged(len, n));
  }

  /** perturbBatch with a deterministic generator from `seed` — for tests and simulations only. */
  perturbBatchSeededForTesting(values, seed) {
    const s = toSeed(seed);
    return this.#batch(values, (len, n) => this.#m.perturbStagedSeededForTesting(len, n, s));
  }

  #batch(values, draw) {
    const len = stageJoined(this.#m, values);
    let columns;
    try {
      columns = guard(() => draw(len, values.length)); // zeroes what was staged, whatever happens
    } catch (e) {
      // A U+0000 inside a value splits it in two: the module counts one value too many.
      throw nulInside(values) ?? e;
    }
    const n = values.length;
    return new OpenReportBatch({
      kind: this.kind, mechanism: this.id, sha256: this.sha256,
      columns: Array.from({ length: OPEN_WIDTH[this.kind] }, (_, f) => columns.subarray(f * n, (f + 1) * n)),
    });
  }

  /** Deterministic reports (their canonical text) from `seed` — for tests and simulations only. */
  perturbManySeededForTesting(values, seed) {
    if (!Array.isArray(values) || !values.every((v) => typeof v === 'string')) {
      throw invalid('values', 'expected an array of strings');
    }
    const s = toSeed(seed);
    return guard(() => this.#m.perturbManySeededForTesting(values, s));
  }

  /** What a report (object or canonical text) tells about each listed value, and a range for every other one. */
  receipt(report) { return guard(() => this.#m.receipt(report)); }

  /** The canonical stored text of a report (`"s:y"`, `"j:bit"`, `"j:l:bit"`, `"r:s:y"`). */
  canonical(report) { return guard(() => this.#m.canonical(report)); }

  /**
   * The report envelope `{mechanism, sha256, output, report_id}` whose output is the
   * report object (validated: `unknown_output` out of range), with a fresh random id.
   */
  report(report) {
    const output = guard(() => this.#m.reportObject(report));
    return Object.freeze({ mechanism: this.id, sha256: this.sha256, output, report_id: reportId() });
  }

  audit() { return this.#m.audit(); }
  verification() { return this.#m.verification(); }
}

/** A verified mechanism, perturbing with crypto.getRandomValues. Get one from MechanismDocument.verify. */
export class Mechanism extends Wrapper {
  #labels;
  #outputLabels;
  #secretLabels;
  #outputCount;
  #index;
  #numeric;
  #kind;

  /** @internal */
  constructor(handle, sha256) {
    super(handle, sha256, { raw: raw.Mechanism, name: 'Mechanism', from: 'MechanismDocument.verify()' });
    // Read once: the getter builds a string in wasm on every call (it cost 10× on perturb).
    this.#kind = handle.kind;
  }

  get #m() { return this[HANDLE]; }

  /**
   * The report envelope for a released output: `{mechanism, sha256, output, report_id}`,
   * with the output label (from an output index or label; for unary encoding the released
   * bits as a '0'/'1' string) and a fresh random 128-bit id. Nothing else: not the user's
   * value, no time, no identifier. Throws `unknown_output` for an output outside Y.
   */
  report(y) {
    let output;
    if (this.#kind === 'unary') {
      if (!(Array.isArray(y) || y instanceof Uint8Array) || y.length !== this.labels.length) {
        throw invalid('bits', `expected ${this.labels.length} bits from perturbBits, got ${describe(y)}`);
      }
      output = Array.from(y, (b) => (b === 1 || b === true ? '1' : b === 0 || b === false ? '0' : '?')).join('');
      if (output.includes('?')) throw invalid('bits', 'every bit must be 0/1 or a boolean');
    } else if (typeof y === 'string') {
      if (!this.outputLabels.includes(y)) throw new PrivliftError('unknown_output', 'the output is not in the output alphabet');
      output = y;
    } else {
      const j = toU32(y, 'y');
      if (j >= this.outputLabels.length) {
        throw new PrivliftError('unknown_output', `the output index is out of range (${this.outputLabels.length} outputs)`);
      }
      output = this.outputLabels[j];
    }
    return Object.freeze({ mechanism: this.id, sha256: this.sha256, output, report_id: reportId() });
  }

  /** The mechanism kind: 'matrix', 'per_secret', 'unary' (use perturbBits / receiptBits), 'krr', 'rr_lip', 'merge', 'sparse' or 'srr'. */
  get kind() { return this.#kind; }
  // The alphabets are copied out of wasm on first use and then kept: at 4096 labels the
  // three copies took 5 ms, four times the verification itself.
  /** Input alphabet X. */
  get labels() { return (this.#labels ??= Object.freeze(this.#m.labels)); }
  /** Output alphabet Y. */
  get outputLabels() { return (this.#outputLabels ??= Object.freeze(this.#m.outputLabels)); }
  /** Secret alphabet S (equal to `labels` when the document declares no secret). */
  get secretLabels() { return (this.#secretLabels ??= Object.freeze(this.#m.secretLabels)); }
  /** The prior P_X the document declares. */
  get prior() { return Array.from(this.#m.prior); }

  /** Input index of a label or index; throws `unknown_value` / `invalid_argument`. */
  inputIndex(x, name = 'x') {
    if (typeof x === 'string') return this.#input(x, name);
    // An index's range is the core's to check (Document::input_index), as for a string.
    return guard(() => this.#m.inputIndex(String(this.#input(x, name))));
  }

  /**
   * The index wasm takes for a label or an index; its range is the core's to check.
   *
   * A number is an index. With labels such as ["1", "2", "3"], inputIndex(1) would be index
   * 1, the label "2" — so a number whose decimal form is the label of ANOTHER input is
   * refused as ambiguous (`invalid_argument`): pass the label as a string, or the index to
   * perturbIndex. The message never contains the value.
   */
  #input(x, name) {
    if (typeof x === 'string') {
      const i = this.#labelIndex().get(x);
      // Not a label: the core also accepts a decimal index string ("2"), or refuses it.
      return i !== undefined ? i : guard(() => this.#m.inputIndex(x));
    }
    const i = toU32(x, name);
    if (this.#numericLabels()) {
      const j = this.#labelIndex().get(String(i));
      if (j !== undefined && j !== i) {
        throw invalid(name, 'a number that is also the label of another input is ambiguous: pass the label as a '
          + 'string, or use perturbIndex for an index');
      }
    }
    return i;
  }

  #labelIndex() {
    return (this.#index ??= new Map(this.labels.map((l, i) => [l, i])));
  }

  /** Whether some label is the decimal form of an index other than its own (then numbers are checked). */
  #numericLabels() {
    return (this.#numeric ??= this.labels.some((l, i) => /^(0|[1-9][0-9]*)$/.test(l) && Number(l) !== i));
  }

  // The core refuses these too (invalid_argument), naming its Rust methods; these name the JS ones.
  #notUnary(method) {
    if (this.#kind === 'unary') {
      throw invalid('mechanism', `unary encoding releases a bit vector: use ${method}`);
    }
  }

  #unary(method) {
    if (this.#kind !== 'unary') {
      throw invalid('mechanism', `${method} is for unary encoding; this mechanism is '${this.#kind}'`);
    }
  }

  /**
   * Perturbs the user's value, given as its label; returns the released output's label.
   * A number is refused (`invalid_argument`): an index goes to perturbIndex, which returns
   * an index, so that a label and an index are never mistaken for each other.
   */
  perturb(label) {
    this.#notUnary('perturbBits');
    if (typeof label !== 'string') {
      throw invalid('label', `expected an input label (a string), got ${typeOf(label)}; for an index use perturbIndex`);
    }
    const i = this.#labelIndex().get(label);
    if (i === undefined) throw new PrivliftError('unknown_value', 'the value is not in the input alphabet (a label)');
    return this.outputLabels[guard(() => this.#m.perturb(i))];
  }

  /** Perturbs the input at index `i` (0 ≤ i < labels.length); returns the output index. Never reads `i` as a label. */
  perturbIndex(i) {
    this.#notUnary('perturbBits');
    if (typeof i !== 'number') throw invalid('i', `expected an input index (a number), got ${typeOf(i)}`);
    const j = toU32(i, 'i');
    return guard(() => this.#m.perturb(j));
  }

  /** Input indices as the Uint32Array wasm takes (the core checks the range); a label is refused. */
  #indices(xs, name) {
    if (xs instanceof Uint32Array) return xs;
    if (typeof xs === 'string' || xs === null || typeof xs !== 'object' || typeof xs[Symbol.iterator] !== 'function') {
      throw invalid(name, `expected an array or Uint32Array of input indices, got ${typeOf(xs)}`);
    }
    const arr = Array.isArray(xs) || ArrayBuffer.isView(xs) ? xs : Array.from(xs);
    const out = new Uint32Array(arr.length);
    for (let k = 0; k < arr.length; k++) {
      const v = arr[k];
      out[k] = typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= U32_MAX ? v : toIndex(v, `${name}[${k}]`);
    }
    return out;
  }

  /**
   * The typed array a batch's output indices come in: the narrowest that holds every one
   * (Uint8Array up to 256 outputs, Uint16Array up to 65,536, else Uint32Array). Fixed by
   * the document; a quarter of the fresh memory at k ≤ 256, whose first writes cost an
   * allocating batch in a browser more than its draws.
   */
  get #outputArray() {
    const g = (this.#outputCount ??= this.#m.outputCount);
    return g <= 256 ? Uint8Array : g <= 65536 ? Uint16Array : Uint32Array;
  }

  /**
   * Perturbs many inputs given by index; returns their output indices in a new array of
   * the narrowest width (#outputArray): Uint8Array, Uint16Array or Uint32Array.
   */
  perturbIndices(indices) {
    this.#notUnary('perturbBits');
    const idx = this.#indices(indices, 'indices');
    const Out = this.#outputArray;
    // The module reads the caller's array and writes a new one (no copy of the inputs); a
    // Uint32Array converted from the caller's values takes the outputs itself.
    const out = idx === indices || Out !== Uint32Array ? new Out(idx.length) : idx;
    guard(() => this.#m.perturbInto(idx, out));
    return out;
  }

  /**
   * Replaces each input index of `indices` (a Uint32Array) by its output index, and
   * returns the same array: no array is allocated (for large batches, half the time of
   * `perturbIndices` in Chromium, whose new array's first writes cost the rest). On an error (an invalid input, a failing random source) it is
   * zeroed: nothing in it is a report to send, nor the user's input.
   */
  perturbIndicesInPlace(indices) {
    this.#notUnary('perturbBits');
    if (!(indices instanceof Uint32Array)) throw invalid('indices', `expected a Uint32Array, got ${typeOf(indices)}`);
    guard(() => this.#m.perturbInto(indices, indices));
    return indices;
  }

  /**
   * DETERMINISTIC perturbation from `seed` (ChaCha12): for tests and simulations only.
   * Anyone who knows the seed knows the noise; never use it on a real user's value.
   */
  perturbIndicesSeededForTesting(indices, seed) {
    this.#notUnary('perturbBitsSeededForTesting');
    const idx = this.#indices(indices, 'indices');
    const s = toSeed(seed);
    const ys = guard(() => this.#m.perturbManySeededForTesting(idx, s));
    const Out = this.#outputArray;
    return Out === Uint32Array ? ys : new Out(ys);
  }

  /** Unary encoding: the perturbed bit vector (Uint8Array of 0/1, one per input label). */
  perturbBits(x) {
    this.#unary('perturbBits');
    const i = this.#input(x, 'x');
    return guard(() => this.#m.perturbBits(i));
  }

  /** DETERMINISTIC perturbBits from `seed`: for tests and simulations only. */
  perturbBitsSeededForTesting(x, seed) {
    this.#unary('perturbBitsSeededForTesting');
    const i = this.#input(x, 'x');
    const s = toSeed(seed);
    return guard(() => this.#m.perturbBitsSeededForTesting(i, s));
  }

  /** Unary encoding: the receipt for a released bit vector (0/1 or booleans). */
  receiptBits(bits) {
    this.#unary('receiptBits');
    let b;
    if (bits instanceof Uint8Array) {
      b = bits; // a byte other than 0 or 1 is refused by the core (invalid_argument `bits[k]`)
    } else if (bits !== null && typeof bits === 'object' && typeof bits[Symbol.iterator] === 'function') {
      const arr = Array.from(bits);
      b = new Uint8Array(arr.length);
      arr.forEach((v, k) => {
        // Booleans become bytes; a value that is no byte would be wrapped by Uint8Array (256 → 0).
        if (typeof v === 'boolean' || (Number.isInteger(v) && v >= 0 && v <= 255)) b[k] = Number(v);
        else throw invalid(`bits[${k}]`, `a bit is 0, 1, false or true, got ${describe(v)}`);
      });
    } else {
      throw invalid('bits', `expected a Uint8Array or an array of 0/1, got ${describe(bits)}`);
    }
    return guard(() => this.#m.receiptBits(b));
  }

  /** The privacy receipt for a released output (index or output label). */
  receipt(y) {
    this.#notUnary('receiptBits');
    if (typeof y === 'string') return guard(() => this.#m.receiptForLabel(y));
    const j = toU32(y, 'y');
    return guard(() => this.#m.receipt(j));
  }

  /** The audited leakage of the sampler that runs, w.r.t. the document's secret S. */
  leakage() { return guard(() => this.#m.leakage()); }

  /**
   * The audited leakage w.r.t. the user's own value X under the declared prior: what the
   * policy's limits (maxLip, maxEpsL, …) and the ledger read. `ldpX` is prior-free.
   */
  leakageX() { return guard(() => this.#m.leakageX()); }

  /**
   * LIP w.r.t. X (nats) that holds under every prior, not only the declared one:
   * min(LDP_X, 2ε, ln((e^ε − 1 + Pmin)/Pmin)), ε the LIP under the declared prior
   * (Jiang et al. eq 12 without η). The declared prior is not proved; this is.
   */
  lipUnderAnyPrior() { return this.#m.lipUnderAnyPrior(); }

  /** `[min, max]`: the lift bounds every receipt of this mechanism states for X. */
  receiptBounds() { return Array.from(this.#m.receiptBounds()); }

  /** The full verification report (claims and policy checks). */
  verification() { return guard(() => this.#m.verification()); }
}

// What console.log and JSON.stringify show (ids, sizes, claims), not `Mechanism {}`.
const sizes = (o) => ({ inputs: o.labels.length, outputs: o.outputLabels.length });
summarised(MechanismDocument, (d) => ({ id: d.id, kind: d.kind, sha256: d.sha256, ...sizes(d), claims: d.claims, verified: false }));
summarised(Mechanism, (m) => ({
  id: m.id, kind: m.kind, sha256: m.sha256, ...sizes(m), verified: true,
  claims: Object.fromEntries(m.verification().claims.map((c) => [c.notion, { bound: c.bound, audited: c.actual }])),
}));

/**
 * A verified mechanism that lives in the package's Worker (verifyAsync): the methods of
 * Mechanism, answering by promise; `id`, `sha256`, `kind`, the alphabets and the prior
 * are read at once. `free()` releases it (the Worker is kept for the next verifyAsync).
 */
export class AsyncMechanism {
  /** @internal */
  constructor(link, props) {
    bindRemote(this, link, props);
  }
}
AsyncMechanism.VERIFY = 'verifyAsync';
remoteMechanism(AsyncMechanism, ['id', 'sha256', 'kind', 'labels', 'outputLabels', 'secretLabels', 'prior'], [
  'report', 'inputIndex', 'perturb', 'perturbIndex', 'perturbIndices', 'perturbIndicesSeededForTesting', 'perturbBits',
  'perturbBitsSeededForTesting', 'receiptBits', 'receipt', 'leakage', 'leakageX', 'lipUnderAnyPrior', 'receiptBounds',
  'verification',
], (m) => ({ id: m.id, kind: m.kind, sha256: m.sha256, ...sizes(m) }));

