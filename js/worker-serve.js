// The message loop of the package's Workers (js/worker.js, js/verify-worker.js; started
// by js/offthread.js, a module Worker in browsers, worker_threads in Node): each
// instantiates the WebAssembly.Module it is sent (with its first message only), once per
// glue (and only that for the operation `ready`), runs one call at a time and posts back
// `{type: 'progress', fraction}`, then `{type: 'result', value, call}` or
// `{type: 'error', error: {name, code, message}, call}` (`call`: the number of a later
// call on what a first one made, see `Session` in js/offthread.js).

/**
 * Serves `glues`: for each glue name, its `init({module_or_path})` and its operations
 * `ops[op](progress, ...args)`, whose results are plain data (or a promise of it).
 */
export function serve(glues) {
  /** @type {Map<string, WebAssembly.Module>} the module each glue was instantiated with */
  const instantiated = new Map();

  async function handle({ glue, module, op, args, call: number }, post) {
    try {
      const g = glues[glue];
      // `ready`: instantiate the module only (a worker warming up, js/offthread.js).
      const fn = op === 'ready' && g !== undefined ? () => true : g?.ops[op];
      if (fn === undefined) throw new Error(`unknown operation ${glue}.${op}`);
      if (!instantiated.has(glue)) {
        // The first message on a glue carries its module; later ones none (js/offthread.js).
        if (module === undefined) throw new Error(`no module for ${glue}`);
        await g.init({ module_or_path: module });
        instantiated.set(glue, module);
      }
      const progress = (fraction) => post({ type: 'progress', fraction });
      post({ type: 'result', value: await fn(progress, ...args), call: number });
    } catch (e) {
      const error = e !== null && typeof e === 'object'
        ? { name: String(e.name ?? 'Error'), code: e.code, message: String(e.message ?? e) }
        : { name: 'Error', message: String(e) };
      post({ type: 'error', error, call: number });
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
}
