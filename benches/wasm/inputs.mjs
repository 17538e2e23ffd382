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
 * The mean milliseconds of one `await fn()` over at least `minMs` ms and `minRuns` calls,
 * after a warm-up as long (at least one call, which also loads the module): V8 runs a
 * module's code unoptimised at first and optimises what runs hot later, so a window right
 * after the first call would time that tiering, not the code.
 */
export async function time(fn, minMs, minRuns) {
  const warm = performance.now();
  do await fn(); while (performance.now() - warm < minMs);
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < minMs || n < minRuns) { await fn(); n += 1; }
  return (performance.now() - t0) / n;
}
