// What the end-to-end tests share, whatever drives the browser (playwright-core in
// demo.test.mjs, W3C WebDriver in webkit.test.mjs).
import assert from 'node:assert/strict';

/** Resolves to the first match of `re` on the process's stdout (a server's address line). */
export function firstLine(proc, re, what) {
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (d) => {
      out += d;
      const m = out.match(re);
      if (m) resolve(m[1]);
    });
    proc.on('exit', (c) => reject(new Error(`${what} exited ${c}`)));
    setTimeout(() => reject(new Error(`${what} did not start: ${out}`)), 10000);
  });
}

/** Equal up to floating-point rounding (native libm vs wasm), or both the same infinity. */
export function close(a, b, what) {
  assert.ok(a === b || Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(a), Math.abs(b)), `${what}: ${a} vs ${b}`);
}
