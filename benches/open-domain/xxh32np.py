"""XXH32 of one short byte string under many seeds at once (numpy, uint32 arithmetic).

pure-LDP's local-hashing server counts, for every report (seed, y) and every candidate c,
whether ``xxh32(str(c), seed) % g == y``: O(n·d) calls of python-xxhash. This module computes
the same 32-bit values for a whole column of seeds in one pass, so that the comparison's
accuracy runs can use pure-LDP's estimator on 10^6 reports in seconds. ``check()`` pins it to
python-xxhash (the hash pure-LDP calls) on random seeds and every length the bench uses.
"""
import numpy as np

P1, P2, P3, P4, P5 = (np.uint32(x) for x in
                      (0x9E3779B1, 0x85EBCA77, 0xC2B2AE3D, 0x27D4EB2F, 0x165667B1))


def _rotl(x, r):
    return (x << np.uint32(r)) | (x >> np.uint32(32 - r))


def xxh32_seeds(data: bytes, seeds: np.ndarray) -> np.ndarray:
    """XXH32(data, seed) for every seed (uint32 array); data shorter than 16 bytes."""
    if len(data) >= 16:
        raise ValueError("xxh32_seeds handles inputs shorter than one 16-byte stripe")
    with np.errstate(over="ignore"):
        h = seeds.astype(np.uint32) + P5 + np.uint32(len(data))
        i = 0
        while i + 4 <= len(data):
            word = np.uint32(int.from_bytes(data[i:i + 4], "little"))
            h = _rotl(h + word * P3, 17) * P4
            i += 4
        for b in data[i:]:
            h = _rotl(h + np.uint32(b) * P5, 11) * P1
        h ^= h >> np.uint32(15)
        h *= P2
        h ^= h >> np.uint32(13)
        h *= P3
        h ^= h >> np.uint32(16)
    return h


def check():
    """Equal to python-xxhash (pure-LDP's hash) on 1,000 seeds and lengths 0..15."""
    import xxhash
    rng = np.random.default_rng(7)
    seeds = rng.integers(0, 2**32, 1000, dtype=np.uint64).astype(np.uint32)
    for n in range(16):
        data = bytes(rng.integers(0, 256, n, dtype=np.uint8))
        got = xxh32_seeds(data, seeds)
        want = np.array([xxhash.xxh32(data, seed=int(s)).intdigest() for s in seeds], dtype=np.uint32)
        if not np.array_equal(got, want):
            raise AssertionError(f"xxh32_seeds differs from python-xxhash at length {n}")


if __name__ == "__main__":
    check()
    print("xxh32np: equal to python-xxhash")
