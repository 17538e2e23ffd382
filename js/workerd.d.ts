// Types of privlift/workerd (js/workerd.js): the 'privlift' API, its wasm module imported as
// a compiled WebAssembly.Module (wrangler's .wasm module rule); the first function that needs
// it (or init()) instantiates it.
export * from './privlift.js';
