// What 'privlift/continuous' resolves to under the `workerd` export condition (Cloudflare Workers;
// wrangler's bundler sets it): the same API, its wasm module imported as a compiled
// WebAssembly.Module and instantiated by the first function that needs it, inside a
// request (see js/workerd.js for why nothing else loads there). Listed in package.json's
// "sideEffects", so that bundlers keep the registration below.

import { embeddedWasm, importedModule } from './common.js';
import compiled from '../pkg-continuous/privlift_continuous_bg.wasm';

export * from './continuous.js';

embeddedWasm.continuous = () => importedModule(compiled, 'privlift/continuous (workerd)', 'pkg-continuous/privlift_continuous_bg.wasm');
