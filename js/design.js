// privlift/design: the curator side in the browser or Node — design a mechanism from a
// prior (the same designers as `privlift design`) and estimate frequencies from counts.
//
// A separate wasm module (pkg-design/, built with the `design` feature and its LP
// solver) so that a client that only verifies and perturbs never downloads it. It
// returns documents as JSON text: hand them to `parseMechanism`/`fetchMechanism` from
// 'privlift', which verify them like any curator's document.

import initWasm, * as raw from '../pkg-design/privlift_design.js';
import { PrivliftError } from './privlift.js';

const isNode = typeof process !== 'undefined' && process.versions != null && process.versions.node != null;
let ready = null;

async function defaultModuleSource() {
  const url = new URL('../pkg-design/privlift_design_bg.wasm', import.meta.url);
  if (url.protocol === 'file:' && isNode) {
    const fsName = 'node:fs/promises';
    const { readFile } = await import(/* @vite-ignore */ /* webpackIgnore: true */ fsName);
    return readFile(url);
  }
  return url;
}

/** Loads the design module once (idempotent). Every function below calls it. */
export function initDesign(input) {
  if (ready === null) {
    ready = (async () => {
      await initWasm({ module_or_path: input === undefined ? await defaultModuleSource() : input });
    })().catch((e) => {
      ready = null;
      throw new PrivliftError('init', `could not load the privlift design module: ${e && e.message}`, { cause: e });
    });
  }
  return ready;
}

function convert(e) {
  if (e !== null && typeof e === 'object' && e.name === 'PrivliftError' && typeof e.code === 'string') {
    return e instanceof PrivliftError ? e : new PrivliftError(e.code, e.message, { cause: e });
  }
  return e;
}

/**
 * Designs a mechanism and returns its document as JSON text (already audited: every claim
 * holds). `request` holds the method's inputs, as in the CLI's files:
 * `{prior: {labels, p}}` or `{joint: {secret_labels, labels, p_sx}}`, `epsilon`, `alpha`,
 * `a`, `b`, `priors: {labels, priors}`, `distortion: {d}`, `id`.
 */
export async function design(method, request) {
  await initDesign();
  if (typeof method !== 'string') throw new PrivliftError('invalid_argument', 'invalid `method`: expected a string');
  let doc;
  try {
    doc = raw.design(method, JSON.stringify(request ?? {}));
    return doc.toJson();
  } catch (e) {
    throw convert(e);
  } finally {
    doc?.free();
  }
}

/** The method names `design` accepts. */
export async function designMethods() {
  await initDesign();
  return raw.designMethods();
}

/**
 * Unbiased estimate of P_X from report counts (per output; for unary encoding, ones per
 * bit with `n` the number of reports): `{estimate, std_error, n, projected?}`.
 */
export async function estimate(documentJson, counts, { n, project = false } = {}) {
  await initDesign();
  let doc;
  try {
    doc = raw.Document.parse(typeof documentJson === 'string' ? documentJson : JSON.stringify(documentJson));
    return raw.estimate(doc, Float64Array.from(counts), n, project);
  } catch (e) {
    throw convert(e);
  } finally {
    doc?.free();
  }
}
