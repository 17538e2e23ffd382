// privlift/workerd: the 'privlift' API for Cloudflare Workers and other workerd runtimes,
// and what 'privlift' and 'privlift/inline' resolve to under the `workerd` export condition
// (wrangler's bundler sets it); js/workerd-continuous.js and js/workerd-design.js are the
// same for 'privlift/continuous' and 'privlift/design'.
//
// workerd refuses to compile WebAssembly from bytes while it serves (no
// WebAssembly.compile/instantiate of a buffer, so 'privlift/inline' cannot load there), and
// it has no file next to the script to fetch. What it accepts is a module compiled at
// deploy time: an `import` of a .wasm file, which wrangler's default module rule (and a
// `wasm` module in workerd's own configuration) turns into a WebAssembly.Module. This entry
// imports pkg/privlift_bg.wasm (and the open-domain pkg-open/privlift_open_bg.wasm) that way
// and hands it to init() (initOpen()). Nothing is instantiated at import: the first
// function that needs the module does it, inside a request, where the runtime allows it
// (work started at a Worker's top level is not awaited by any request).
//
// This file has a side effect (the registration below) and is listed in package.json's
// "sideEffects", so that bundlers keep it.

import { embeddedWasm, importedModule } from './common.js';
import compiled from '../pkg/privlift_bg.wasm';
import openCompiled from '../pkg-open/privlift_open_bg.wasm';

export * from './privlift.js';

embeddedWasm.privlift = () => importedModule(compiled, 'privlift/workerd', 'pkg/privlift_bg.wasm');
embeddedWasm.open = () => importedModule(openCompiled, 'privlift/workerd', 'pkg-open/privlift_open_bg.wasm');
