// What the document families share on the JS side: parsing a document into its wasm
// handle with the SHA-256 of its bytes, fetching and verifying one, and the wrapper class
// every document and mechanism class extends (its handle, its hash, free()). Each family's
// entry ('privlift', 'privlift/continuous') passes its own wasm class and names.

import { guard, invalid, freed, hashedBytes, fetchBytes } from './common.js';
import { sha256Hex } from './reports.js';

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
 * Parses the document `bytes` with `parse` (the wasm class's `parseBytes`, throwing the
 * core's errors) once `init` has loaded the module, then hashes the same bytes: a document
 * the core refuses is refused before it is hashed. `wrap(handle, sha256)` makes the JS
 * object; the handle is freed if that fails.
 */
export async function parsed(bytes, init, parse, wrap) {
  await init();
  const handle = guard(() => parse(bytes));
  // The SHA-256 of exactly these bytes (without a leading BOM) goes into every report (the
  // collector never mixes the counts of two versions of a document).
  try {
    return wrap(handle, await sha256Hex(hashedBytes(bytes)));
  } catch (e) {
    handle.free();
    throw e;
  }
}

/**
 * Downloads the document at `url`, parses it with `parse(bytes, policy)` and verifies it
 * against `policy`; the document itself is freed either way.
 */
export async function fetchedAndVerified(url, policy, fetchOptions, init, parse) {
  const doc = await parse(await fetchBytes(url, fetchOptions, init), policy);
  try {
    return doc.verify(policy);
  } finally {
    doc.free();
  }
}
