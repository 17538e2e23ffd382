"""pure-LDP 1.2.0's side of the comparison: its clients perturb, its estimators estimate.

Two adaptations, both exact (``check()`` proves them against pure-LDP's own classes):
- ``CandidateLH``: pure-LDP's ``LHServer`` materialises the whole domain and hashes every
  word for every report (O(n·d) python-xxhash calls; PEM's last rounds have d = 2^32). This
  subclass keeps the reports and counts support only for the words it is asked about, with
  the vectorised XXH32 of ``xxh32np``; the count and ``LHServer._update_estimates``'s formula
  are unchanged (a word's count is kept until the next report).
- ``CandidateHadamard``: pure-LDP's ``HadamardMechServer`` keeps a 2^bits array and
  transforms it whole; this subclass keeps the reports and sums
  ``coeff · (−1)^popcount(b & j) / (2p − 1)`` for the asked buckets b only, which is that
  transform's entry b (for many buckets, by one fast transform of the sums by index).
- ``CandidateCMS``: pure-LDP's ``CMSServer.estimate`` calls k python hash functions per
  word (2·10⁶ calls for 1,000 words at k = 2048, more than its clients cost at n = 10⁵);
  this subclass evaluates its k hash functions on the asked words once (per k, m and words)
  and sums the transformed sketch's entries with numpy, the same formula.
pure-LDP's Hadamard mechanism takes an index in [0, 2^bits); it is given the word's bucket
``xxh32(hash_seed, word) mod 2^bits``, as privlift's ``hadamard`` kind hashes it.
"""
import math
import random

import numpy as np
import xxhash
from pure_ldp.frequency_oracles.apple_cms import CMSClient, CMSServer
from pure_ldp.frequency_oracles.hadamard_mechanism import HadamardMechClient, HadamardMechServer
from pure_ldp.frequency_oracles.local_hashing import LHClient, LHServer
from pure_ldp.heavy_hitters.prefix_extending import PEMClient, PEMServer

from xxh32np import xxh32_seeds


class CandidateLH(LHServer):
    """``LHServer`` whose support counts are computed for the asked words only."""

    def reset(self):
        self.seeds, self.ys = [], []
        self.n = 0
        self.last_estimated = 0

    def aggregate(self, priv_data):
        self.ys.append(priv_data[0])
        self.seeds.append(priv_data[1] & 0xFFFFFFFF)  # python-xxhash reads the seed mod 2^32
        self.n += 1

    def arrays(self):
        """The reports as arrays, converted once after the last aggregate."""
        if getattr(self, "_arrays", (None, -1))[1] != self.n:
            self._arrays = ((np.asarray(self.seeds, dtype=np.uint32), np.asarray(self.ys, dtype=np.uint32)), self.n)
        return self._arrays[0]

    def support(self, index):
        """Reports supporting `index`, kept until the next aggregate (PEM's searches for the
        top 10 and the top 20 ask again for most of the same prefixes)."""
        memo = getattr(self, "_support", None)
        if memo is None or memo[0] != self.n:
            memo = self._support = (self.n, {})
        if index not in memo[1]:
            seeds, ys = self.arrays()
            memo[1][index] = int(np.count_nonzero(xxh32_seeds(str(index).encode(), seeds) % np.uint32(self.g) == ys))
        return memo[1][index]

    def estimate(self, data, suppress_warnings=True):
        a = self.g / (self.p * self.g - 1)
        b = self.n / (self.p * self.g - 1)
        return a * self.support(self.index_mapper(data)) - b


def parity(x):
    """popcount(x) mod 2 of each uint64."""
    for shift in (32, 16, 8, 4, 2, 1):
        x = x ^ (x >> np.uint64(shift))
    return x & np.uint64(1)


class CandidateHadamard(HadamardMechServer):
    """``HadamardMechServer`` whose transform is evaluated at the asked buckets only."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.reset()

    def reset(self):
        self.js, self.coeffs = [], []
        self.n = 0
        self.last_estimated = 0

    def aggregate(self, data):
        for j, c in data:
            self.js.append(j)
            self.coeffs.append(c)
        self.n += 1

    def estimate(self, data, suppress_warnings=True):
        if getattr(self, "_arrays", (None, -1))[1] != self.n:
            self._arrays = ((np.asarray(self.js, dtype=np.uint64), np.asarray(self.coeffs, dtype=np.int64)), self.n)
        js, coeffs = self._arrays[0]
        signs = 1 - 2 * parity(js & np.uint64(self.index_mapper(data))).astype(np.int64)
        return float(np.dot(signs, coeffs)) / (2 * self.p - 1) / self.t

    def estimate_many(self, buckets, bits):
        """``estimate`` of each bucket at once: the coefficients summed by index and
        transformed whole (a fast Walsh–Hadamard transform of 2^bits integers, exact in
        float64), for many buckets cheaper than one sweep of the reports each."""
        t = np.bincount(np.asarray(self.js, dtype=np.int64), weights=np.asarray(self.coeffs, dtype=np.float64),
                        minlength=1 << bits)
        return fwht(t)[np.asarray(buckets, dtype=np.int64)] / (2 * self.p - 1) / self.t


def fwht(a):
    """a[b] ← Σ_j a[j]·(−1)^popcount(b & j), for a of length 2^bits."""
    size, h = a.size, 1
    while h < size:
        a = a.reshape(-1, 2, h)
        a = np.concatenate((a[:, :1] + a[:, 1:], a[:, :1] - a[:, 1:]), axis=1)
        h *= 2
    return a.reshape(size)


_HASHES = {}


def cms_hashes(hash_funcs, m, words):
    """hash_funcs[i](str(w)) for every i and word w (k × len(words)), once per k, m and words."""
    key = (len(hash_funcs), m, tuple(int(w) for w in words))
    if key not in _HASHES:
        _HASHES[key] = np.array([[h(str(w)) for w in key[2]] for h in hash_funcs], dtype=np.int64)
    return _HASHES[key]


class CandidateCMS(CMSServer):
    """``CMSServer`` (HCMS) estimating a list of words at once."""

    def estimate_many(self, words):
        self.check_and_update_estimates()
        sketch = self.transformed_matrix if self.is_hadamard else self.sketch_matrix
        k, m = sketch.shape
        h = cms_hashes(self.hash_funcs, m, words)
        freq_sum = sketch[np.arange(k)[:, None], h].sum(axis=0)
        return (m / (m - 1)) * ((1 / k) * freq_sum - (self.n / m))


def olh(users, eps, evaluate, seed, g=None):
    """pure-LDP's OLH (g = round(e^ε) + 1 unless given): estimates of the words `evaluate`."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    client = LHClient(eps, d=None, g=g or 2, use_olh=g is None, index_mapper=lambda x: x)
    server = CandidateLH(eps, d=1, g=client.g, index_mapper=lambda x: x)
    for u in users:
        server.aggregate(client.privatise(int(u)))
    return np.array([server.estimate(int(i)) for i in evaluate]), client.g


def hadamard_bucket(hash_seed, bits, index):
    return xxhash.xxh32(str(index).encode(), seed=hash_seed).intdigest() % (1 << bits)


def hadamard(users, eps, evaluate, seed, bits, hash_seed):
    """pure-LDP's Hadamard mechanism with t = 1 over the buckets of privlift's hash."""
    random.seed(seed)
    d = 1 << bits
    client = HadamardMechClient(eps, d, t=1, index_mapper=lambda x: x)
    server = CandidateHadamard(eps, 2, t=1, index_mapper=lambda x: x)
    bucket = {}
    for u in users:
        b = bucket.get(u)
        if b is None:
            b = bucket[u] = hadamard_bucket(hash_seed, bits, u)
        server.aggregate(list(client.privatise(b)))
    return server.estimate_many([hadamard_bucket(hash_seed, bits, int(i)) for i in evaluate], bits)


def hcms(users, eps, evaluate, seed, k, m):
    """pure-LDP's HCMS (Apple's Hadamard count-mean sketch; its hashes: xxh64 seeds 0..k−1)."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    server = CandidateCMS(eps, k, m, is_hadamard=True)
    client = CMSClient(eps, server.get_hash_funcs(), m, is_hadamard=True)
    for u in users:
        server.aggregate(client.privatise(int(u)))
    return server.estimate_many(evaluate)


def padded_bits(index, max_bytes):
    """The word's UTF-8 bytes padded with NUL to max_bytes, as a big-endian bit string
    (the bits privlift's heavy_hitters kind extends prefix by prefix)."""
    b = str(index).encode().ljust(max_bytes, b"\0")
    return "".join(f"{x:08b}" for x in b)


def bits_to_word(bits):
    b = int(bits, 2).to_bytes(len(bits) // 8, "big").rstrip(b"\0")
    try:
        return b.decode()
    except UnicodeDecodeError:
        return None


def pem(users, eps, seed, tops, max_bytes, start, step):
    """pure-LDP's PEM (OLH per group) over the padded bits: for each k in `tops`, the top k
    values it finds (PEM keeps k prefixes per round, so each k is its own search)."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    length = 8 * max_bytes
    fo = CandidateLH(eps, d=1, use_olh=True)
    server = PEMServer(eps, start, length, step, fo_server=fo)
    client = PEMClient(eps, start, length, step)
    for u in users:
        server.aggregate(client.privatise(padded_bits(int(u), max_bytes)))
    found = {}
    for k in tops:
        bits, _ = server.find_heavy_hitters(k=k)
        found[k] = [w for w in map(bits_to_word, bits) if w is not None]
    return found


def check():
    """CandidateLH, CandidateHadamard and CandidateCMS equal pure-LDP's LHServer,
    HadamardMechServer and CMSServer on the same reports (d = 300, 256 and 300; 3,000
    reports)."""
    random.seed(1)
    np.random.seed(1)
    client = LHClient(2.0, d=300, use_olh=True, index_mapper=lambda x: x)
    full = LHServer(2.0, 300, use_olh=True, index_mapper=lambda x: x)
    ours = CandidateLH(2.0, d=1, use_olh=True, index_mapper=lambda x: x)
    for u in np.random.default_rng(2).integers(0, 300, 3000):
        r = client.privatise(int(u))
        full.aggregate(r)
        ours.aggregate(r)
    want = full.estimate_all(range(300), suppress_warnings=True)
    got = np.array([ours.estimate(i) for i in range(300)])
    if not np.allclose(got, want, rtol=0, atol=1e-9):
        raise AssertionError("CandidateLH differs from pure-LDP's LHServer")
    client = HadamardMechClient(2.0, 256, t=1, index_mapper=lambda x: x)
    full = HadamardMechServer(2.0, 256, t=1, index_mapper=lambda x: x)
    ours = CandidateHadamard(2.0, 2, t=1, index_mapper=lambda x: x)
    for u in np.random.default_rng(3).integers(0, 256, 3000):
        r = list(client.privatise(int(u)))
        full.aggregate(r)
        ours.aggregate(r)
    want = [full.estimate(i, True) for i in range(256)]
    got = [ours.estimate(i) for i in range(256)]
    if not np.allclose(got, want, rtol=0, atol=1e-6) or not np.allclose(ours.estimate_many(range(256), 8), want,
                                                                          rtol=0, atol=1e-6):
        raise AssertionError("CandidateHadamard differs from pure-LDP's HadamardMechServer")
    full = CMSServer(2.0, 16, 64, is_hadamard=True)
    ours = CandidateCMS(2.0, 16, 64, is_hadamard=True)
    client = CMSClient(2.0, full.get_hash_funcs(), 64, is_hadamard=True)
    for u in np.random.default_rng(4).integers(0, 300, 3000):
        r = client.privatise(int(u))
        full.aggregate(r)
        ours.aggregate(r)
    want = [full.estimate(i, True) for i in range(300)]
    if not np.allclose(ours.estimate_many(range(300)), want, rtol=1e-12, atol=1e-6):
        raise AssertionError("CandidateCMS differs from pure-LDP's CMSServer")


def time_lh_aggregate(reports, eps, g, d, limit, total):
    """pure-LDP's own LHServer on `limit` of `reports` ((y, seed) pairs) over a domain of d
    words: seconds to aggregate them and estimate every word, and that time with the
    aggregation (O(d) per report) scaled linearly to `total` reports (the estimate, O(d),
    once)."""
    import time
    server = LHServer(eps, d, g=g, index_mapper=lambda x: x)
    part = reports[:limit]
    t0 = time.perf_counter()
    for r in part:
        server.aggregate(r)
    t1 = time.perf_counter()
    server.estimate_all(range(d), suppress_warnings=True)
    t2 = time.perf_counter()
    return t2 - t0, (t1 - t0) * total / len(part) + (t2 - t1)


if __name__ == "__main__":
    check()
    print("pureldp: the candidate servers equal pure-LDP's")
