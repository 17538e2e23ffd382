// Types of privlift/inline (js/inline.js): the 'privlift' API with the wasm module inside;
// importing it starts the load, which every function (and init()) awaits.
export * from './privlift.js';
