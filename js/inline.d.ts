// Types of privlift/inline (js/inline.js): the 'privlift' API with the wasm module inside;
// the first function that needs the module (or init()) loads it from those bytes.
export * from './privlift.js';
