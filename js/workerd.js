// privlift/workerd: the 'privlift' API for Cloudflare Workers and other workerd runtimes,
// and what 'privlift' and 'privlift/inline' resolve to under the `workerd` export condition
// (wrangler's bundler sets it).
//
// workerd refuses to compile WebAssembly from bytes while it serves (no
// WebAssembly.compile/instantiate of a buffer, so 'privlift/inline' cannot load there), and
// it has no file next to the script to fetch. What it accepts is a module compiled at
// deploy time: an `import` of a .wasm file, which wrangler's default module rule (and a
// `wasm` module in workerd's own configuration) turns into a WebAssembly.Module. This entry
// imports pkg/privlift_bg.wasm that way and hands it to init(). Nothing is instantiated at
// import: the first function that needs the module does it, inside a request, where the
// runtime allows it (work started at a Worker's top level is not awaited by any request).
//
// This file has a side effect (the registration below) and is listed in package.json's
// "sideEffects", so that bundlers keep it.

import { embeddedWasm, PrivliftError } from './common.js';
import compiled from '../pkg/privlift_bg.wasm';

export * from './privlift.js';

embeddedWasm.privlift = () => {
  if (typeof WebAssembly !== 'undefined' && compiled instanceof WebAssembly.Module) return compiled;
  const got = compiled === null ? 'null' : typeof compiled === 'object' ? compiled.constructor?.name || 'an object' : typeof compiled;
  throw new PrivliftError('init', `privlift/workerd imports pkg/privlift_bg.wasm as a compiled WebAssembly.Module, but the import gave ${got}: `
    + 'bundle the Worker with wrangler (whose default rule makes every *.wasm import a CompiledWasm module) or declare the file as a '
    + '`wasm` module in the workerd configuration; the runtime refuses to compile WebAssembly from bytes while serving, '
    + "so neither 'privlift/inline' nor a fetched .wasm can load there");
};
