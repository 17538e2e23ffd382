// js/worker.js is the script of the package's Worker (started by js/offthread.js); it
// exports nothing.
export {};
