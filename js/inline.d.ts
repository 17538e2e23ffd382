// Types of privlift/inline (js/inline.js): the 'privlift' API, loaded when the import resolves.
export * from './privlift.js';
