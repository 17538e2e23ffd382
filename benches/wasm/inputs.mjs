// What the wasm benchmarks share: deterministic inputs and a mean time per call.

/**
 * A generator of numbers in [0, 1) from `seed` (xorshift64*): deterministic benchmark
 * inputs only, never for privacy.
 */
export function seeded(seed) {
  let s = BigInt(seed) | 1n;
  return () => {
    s ^= s >> 12n; s ^= (s << 25n) & 0xffffffffffffffffn; s ^= s >> 27n;
    return Number(((s * 2685821657736338717n) & 0xffffffffffffffffn) >> 11n) / 2 ** 53;
  };
}

/**
 * Whether V8 compiles wasm with its optimising compiler from the start (`node --no-liftoff`).
 * Without it, a module's code runs baseline-compiled (Liftoff) at first, and each function
 * is optimised once it has run enough: a case can then be timed before, across or after
 * its own tier-up, at a point that moves with the module's code (a 100 ms window of the
 * rr-lip LP over 4 symbols read 2.5 ms three times in a row, then 0.6 ms).
 */
const optimisedFromTheStart = process.execArgv.includes('--no-liftoff');
if (!optimisedFromTheStart) {
  console.error('note: run with `node --no-liftoff` to time optimised wasm, not its tier-up');
}

/**
 * The mean milliseconds of one `await fn()` over at least `minMs` ms and `minRuns` calls,
 * after a warm-up as long (at least one call, which also loads and compiles the module).
 */
export async function time(fn, minMs, minRuns) {
  const warm = performance.now();
  do await fn(); while (performance.now() - warm < minMs);
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < minMs || n < minRuns) { await fn(); n += 1; }
  return (performance.now() - t0) / n;
}
