"""The comparison's population and its metrics.

Zipf with exponent 1.1 over d words; word i (rank i + 1) is spelled as the decimal string
``str(i)``, so that pure-LDP's local hashing (``xxh32(str(index), seed) % g``) and privlift's
(``xxh32(seed, utf8(value)) % g``) hash the same bytes.
"""
import json

import numpy as np

ZIPF_S = 1.1
WORDS = 10_000


def zipf(d=WORDS, s=ZIPF_S):
    """The population's probabilities, most frequent word first."""
    w = 1.0 / np.arange(1, d + 1, dtype=np.float64) ** s
    return w / w.sum()


def words(d=WORDS):
    return [str(i) for i in range(d)]


def draw(p, n, seed):
    """n users' word indices and the realised counts (the truth both sides estimate)."""
    rng = np.random.default_rng(seed)
    users = rng.choice(len(p), size=n, p=p)
    return users, np.bincount(users, minlength=len(p)).astype(np.float64)


def evaluation_set(d, size, seed):
    """The words whose estimates are scored: the 100 most frequent and a fixed random
    sample of the rest (pure-LDP's estimator costs one hash per report and word)."""
    top = min(100, d, size)
    rng = np.random.default_rng(seed)
    rest = rng.choice(np.arange(top, d), size=max(0, min(size, d) - top), replace=False)
    return np.concatenate([np.arange(top), np.sort(rest)])


def mse(estimate, truth):
    """Mean squared error of counts."""
    e = np.asarray(estimate, dtype=np.float64) - np.asarray(truth, dtype=np.float64)
    return float(np.mean(e * e))


def expected_mse(kind, n, eps, f, buckets):
    """The expected MSE of counts of an unbiased oracle over words of frequencies f, with
    the exact (unquantised) channel: n·Var f̂ averaged over the words. OLH (g = round(e^ε) + 1,
    p = e^ε/(e^ε + g − 1), q = 1/g): n·(f·p(1 − p) + (1 − f)·q(1 − q))/(p − q)². The one-bit
    kinds over M buckets (Hadamard: M = 2^bits; HCMS: M = m; p = e^ε/(e^ε + 1)):
    (M/(M − 1))²·n·(1/(2p − 1)² − f − (1 − f)/M²). Both sides' MSE should scatter around it."""
    f = np.asarray(f, dtype=np.float64)
    e = np.exp(eps)
    if kind == "olh":
        g = round(e) + 1
        p, q = e / (e + g - 1), 1.0 / g
        var = (f * p * (1 - p) + (1 - f) * q * (1 - q)) / (p - q) ** 2
    else:
        p, c = e / (e + 1), buckets / (buckets - 1)
        var = c * c * (1 / (2 * p - 1) ** 2 - f - (1 - f) / buckets ** 2)
    return float(n * np.mean(var))


def coverage(estimate, std_error, truth, z=1.959963984540054):
    """Fraction of the 95 % intervals estimate ± z·se that contain the truth."""
    est, se, t = (np.asarray(a, dtype=np.float64) for a in (estimate, std_error, truth))
    return float(np.mean(np.abs(est - t) <= z * se))


def recall(found, truth_counts, k):
    """Share of the true top k among the values found."""
    top = {str(i) for i in np.argsort(-truth_counts, kind="stable")[:k]}
    return len(top & set(found)) / k


def population_file(ids, p, path):
    """`privlift simulate --population` input: every mechanism id gets the same population."""
    pop = {"values": words(len(p)), "p": [float(x) for x in p]}
    with open(path, "w") as f:
        json.dump({i: pop for i in ids}, f)
