// The Worker of the clients' verifications (js/offthread.js starts it for verifyAsync of
// 'privlift' and verifyContinuousAsync of 'privlift/continuous'): it parses and verifies
// a document and keeps the mechanism, whose methods the calling thread then calls here
// (js/offthread.js's verifyOffThread). The mechanism perturbs with crypto.getRandomValues
// of this thread, as it would on the calling one.

import { init as initClient, parseMechanism } from './privlift.js';
import { init as initContinuous, parseContinuousMechanism } from './continuous.js';
import { callingThread } from './common.js';
import { serve } from './worker-serve.js';

// No page runs on this thread: a synchronous verify() here may take what the budget allows.
callingThread.maxVerifyWork = Infinity;

/** The mechanism this worker verified; its session's calls run on it (one per worker). */
let held = null;

/**
 * Parses and verifies a document with `parse` ('privlift' or 'privlift/continuous'), and
 * keeps the mechanism: the calling thread gets what never changes (`props`).
 */
async function verify(parse, props, chunks, policy) {
  const doc = await parse(concat(chunks), policy);
  try {
    held = doc.verify(policy);
  } finally {
    doc.free();
  }
  return Object.fromEntries(props.map((p) => [p, held[p]]));
}

/** The document's bytes, from the slices the calling thread sent. */
function concat(chunks) {
  if (chunks.length === 1) return chunks[0];
  const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return bytes;
}

/** A method of the held mechanism; the calling thread names only those of its own class. */
function call(method, args) {
  if (held === null || typeof held[method] !== 'function') throw new Error(`no mechanism method ${method}`);
  const value = held[method](...args);
  if (method === 'free') held = null;
  return value;
}

serve({
  privlift: {
    init: ({ module_or_path }) => initClient(module_or_path),
    ops: {
      verify: (progress, chunks, policy) => verify(parseMechanism, ['id', 'sha256', 'kind', 'labels', 'outputLabels', 'secretLabels', 'prior'], chunks, policy),
      call: (progress, method, args) => call(method, args),
    },
  },
  continuous: {
    init: ({ module_or_path }) => initContinuous(module_or_path),
    ops: {
      verify: (progress, chunks, policy) => verify(parseContinuousMechanism, ['id', 'sha256', 'kind', 'domain', 'latticePrior'], chunks, policy),
      call: (progress, method, args) => call(method, args),
    },
  },
});
