// The Worker of js/offthread.js (a module Worker in browsers, worker_threads in Node): it
// instantiates the WebAssembly.Module it is sent, once, runs one call at a time and
// posts back `{type: 'progress', fraction}`, then `{type: 'result', value}` or
// `{type: 'error', error: {name, code, message}}`. It never draws randomness.

import initDesign, * as design from '../pkg-design/privlift_design.js';

/** The wasm-bindgen glue a request names, with what each operation returns as plain data. */
const GLUES = {
  design: {
    init: initDesign,
    ops: {
      design: (progress, method, request) => json(design.design(method, request, progress)),
      designContinuous: (progress, request) => json(design.designContinuous(request, progress)),
      fitGmm: (progress, samples, max) => design.fitGmm(samples, max),
    },
  },
};

/** The document's JSON text; its wasm memory freed at once. */
function json(doc) {
  try {
    return doc.toJson();
  } finally {
    doc.free();
  }
}

/** @type {Map<string, WebAssembly.Module>} the module each glue was instantiated with */
const instantiated = new Map();

async function handle({ glue, module, op, args }, post) {
  try {
    const g = GLUES[glue];
    const fn = g?.ops[op];
    if (fn === undefined) throw new Error(`unknown operation ${glue}.${op}`);
    if (!instantiated.has(glue)) {
      await g.init({ module_or_path: module });
      instantiated.set(glue, module);
    }
    const progress = (fraction) => post({ type: 'progress', fraction });
    post({ type: 'result', value: fn(progress, ...args) });
  } catch (e) {
    const error = e !== null && typeof e === 'object'
      ? { name: String(e.name ?? 'Error'), code: e.code, message: String(e.message ?? e) }
      : { name: 'Error', message: String(e) };
    post({ type: 'error', error });
  }
}

const isNode = typeof process !== 'undefined' && process.versions != null && process.versions.node != null;

// No top-level await: Vite bundles workers as IIFE by default, which has none.
if (isNode) {
  const name = 'node:worker_threads';
  import(/* @vite-ignore */ /* webpackIgnore: true */ name).then(({ parentPort }) => {
    parentPort.on('message', (msg) => handle(msg, (m) => parentPort.postMessage(m)));
  });
} else {
  self.onmessage = (ev) => handle(ev.data, (m) => self.postMessage(m));
}
