// What 'privlift/design' resolves to under the `workerd` export condition (Cloudflare Workers;
// wrangler's bundler sets it): the same API, its wasm module imported as a compiled
// WebAssembly.Module and instantiated by the first function that needs it, inside a
// request (see js/workerd.js for why nothing else loads there). Listed in package.json's
// "sideEffects", so that bundlers keep the registration below.

import { embeddedWasm, importedModule } from './common.js';
import compiled from '../pkg-design/privlift_design_bg.wasm';

export * from './design.js';

embeddedWasm.design = () => importedModule(compiled, 'privlift/design (workerd)', 'pkg-design/privlift_design_bg.wasm');
