// js/verify-worker.js is the script of the package's verification Worker (started by
// js/offthread.js for verifyAsync and verifyContinuousAsync); it exports nothing.
export {};
