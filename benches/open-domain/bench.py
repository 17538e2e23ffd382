"""Issue 34's goals beside pure-LDP 1.2.0, in one run: frequency oracles' MSE (OLH,
Hadamard, HCMS) and the coverage of privlift's 95 % intervals, heavy hitters' recall
(privlift's heavy_hitters kind vs pure-LDP's PEM), and the estimation time of 10^4
candidates from 10^6 reports on the same reports. `run.sh` sets up pure-LDP and calls this.
"""
import argparse
import json
import os
import shutil
import sqlite3
import sys
import time

import numpy as np

import population as popn
import pureldp
import summary
import xxh32np
from ours import Cli, Example

MAX_BYTES = 4  # "0" … "9999"
KINDS = ("olh", "hadamard", "hcms")


def arguments():
    a = argparse.ArgumentParser(description=__doc__)
    a.add_argument("--n", default="100000,1000000", help="users, comma-separated")
    a.add_argument("--eps", default="1,2,4", help="ε values, comma-separated")
    a.add_argument("--words", type=int, default=popn.WORDS)
    a.add_argument("--evaluate", type=int, default=1000, help="words scored on both sides")
    a.add_argument("--seed", type=int, default=2017, help="the seed of a single run")
    a.add_argument("--seeds", default=None,
                   help="seeds, comma-separated (A-B for a range): each cell is run once per seed, on both "
                        "sides, and reported as the mean ± standard error over seeds")
    a.add_argument("--kinds", default=",".join(KINDS + ("heavy-hitters",)),
                   help="what to compare, comma-separated (olh, hadamard, hcms, heavy-hitters)")
    a.add_argument("--cover", choices=("all", "evaluated"), default="all",
                   help="the words privlift estimates, whose intervals' coverage is reported: all of them, or "
                        "(10× faster for OLH at --ours example) the --evaluate words the MSE is scored on")
    a.add_argument("--merge", nargs="+", metavar="ROWS.json",
                   help="run nothing: print the table of rows written by earlier runs' --out (pooled by seed)")
    a.add_argument("--cli", default=os.environ.get("PRIVLIFT_CLI", "target/release/privlift"))
    a.add_argument("--work", default="target/open-domain")
    a.add_argument("--speed-subset", type=int, default=200,
                   help="reports pure-LDP's LHServer aggregates for the timing (then scaled)")
    a.add_argument("--pure-only", action="store_true", help="pure-LDP's side only")
    a.add_argument("--ours", choices=("cli", "example"), default="cli",
                   help="privlift through its CLI (design, simulate, estimate, heavy-hitters) or through "
                        "the library (design/examples/open_domain.rs, at --example)")
    a.add_argument("--example", default="target/release/examples/open_domain")
    a.add_argument("--out", default=None, help="write the rows as JSON here")
    return a.parse_args()


def our_counts(result, n_words):
    """Estimates and standard errors in word order from `privlift estimate`'s JSON (NaN for
    the words not asked)."""
    est, se = np.full(n_words, np.nan), np.full(n_words, np.nan)
    order = [int(w) for w in result["labels"]]
    est[order], se[order] = result["estimate"], result["std_error"]
    return est, se


def realised(truth, ident, n_words, fallback):
    """The simulated users' true counts (`--truth`), or the expected counts if not written."""
    t = truth.get(ident, {})
    labels = t.get("labels") or t.get("values")
    if not labels or "p" not in t:
        return fallback, "expected"
    counts = dict(zip(labels, np.asarray(t["p"]) * t["n"]))
    return np.array([counts.get(str(i), 0.0) for i in range(n_words)]), "realised"


def designer_defaults(tag):
    """The parameters privlift's designers choose (design/src/open/designer.rs), so that
    pure-LDP's side can run before (or without) ours: Hadamard 2^20 buckets with
    hash_seed = xxh32(0, id); HCMS k = 2048, m = 1024; PEM one byte per round."""
    import xxhash
    return {"hadamard": (20, xxhash.xxh32(f"hadamard-{tag}".encode(), seed=0).intdigest()),
            "hcms": (2048, 1024), "pem": (0, 8)}


class Cache:
    """pure-LDP's accuracy results by their inputs (they are seeded: the same inputs give the
    same figures), kept between runs in a JSON file; its timings are measured afresh."""

    def __init__(self, path):
        self.path = path
        self.data = json.load(open(path)) if os.path.exists(path) else {}

    def get(self, key, compute):
        k = json.dumps(key)
        if k not in self.data:
            self.data[k] = json.loads(json.dumps(compute()))
            with open(self.path, "w") as f:
                json.dump(self.data, f)
        return self.data[k]


def pem_shape(doc):
    """pure-LDP's PEM (start, step) for privlift's prefix lengths ℓ_r = start + r·step."""
    bits = doc["mechanism"]["prefix_bits"]
    step = bits[1] - bits[0] if len(bits) > 1 else bits[0]
    return bits[0] - step, step


def olh_reports(db, ident):
    """(y, seed) pairs of one mechanism's stored OLH reports, as pure-LDP's LHServer takes them."""
    with sqlite3.connect(db.removeprefix("sqlite:")) as c:
        rows = c.execute("SELECT r.output FROM privlift_reports r JOIN privlift_documents d "
                         "ON r.version = d.version WHERE d.mechanism = ?", (ident,)).fetchall()
    out = []
    for (o,) in rows:
        s, y = o.split(":")
        out.append((int(y), int(s)))
    return out


def ours_cli(cli, a, tag, eps, n, p, candidates, seed, kinds):
    """privlift through its CLI: design, simulate --population, estimate, heavy-hitters."""
    d = os.path.join(a.work, tag)
    shutil.rmtree(d, ignore_errors=True)
    mech = os.path.join(d, "mechanisms")
    os.makedirs(mech)
    docs = {k: cli.design(k, eps, MAX_BYTES, f"{k}-{tag}", mech) for k in kinds}
    popn.population_file([f"{k}-{tag}" for k in docs], p, os.path.join(d, "population.json"))
    db = "sqlite:" + os.path.join(d, "reports.db")
    t0 = time.perf_counter()
    truth = cli.simulate(db, mech, n, seed, os.path.join(d, "population.json"), os.path.join(d, "truth.json"))
    print(f"{tag}: simulated {n} users × {len(docs)} documents in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    out = {"params": params_of(tag, docs), "g": docs["olh"]["mechanism"]["g"] if "olh" in docs else None}
    for kind in KINDS:
        if kind not in docs:
            continue
        ident = f"{kind}-{tag}"
        best = None
        for _ in range(3 if kind == "olh" else 1):
            res, secs = cli.estimate(db, ident, candidates)
            best = secs if best is None else min(best, secs)
        est, se = our_counts(res, a.words)
        t_ours, which = realised(truth, ident, a.words, n * p)
        out[kind] = {"estimate": est * res["n"], "std_error": se * res["n"], "truth": t_ours, "which": which,
                     "seconds": best, "n": res["n"]}
    if "heavy-hitters" in docs:
        ident = f"heavy-hitters-{tag}"
        out["hh_truth"], _ = realised(truth, ident, a.words, n * p)
        out["hh"] = {top: cli.heavy_hitters(db, ident, top)["values"] for top in (10, 20)}
    if "olh" in docs:
        out["olh_reports"] = olh_reports(db, f"olh-{tag}")[:2000]
    return out


def ours_example(lib, a, tag, eps, n, reps, seed, kinds, asked):
    """privlift through the library (design/examples/open_domain.rs), estimating the words
    `asked` (None: all); OLH's estimate timed best of `reps`."""
    res = {k: lib.run(k, eps, n, seed, f"{k}-{tag}", a.words, reps=reps if k == "olh" else 1,
                      candidates=None if k == "heavy-hitters" else asked) for k in kinds}
    docs = {k: r["document"] for k, r in res.items()}
    out = {"params": params_of(tag, docs), "g": docs["olh"]["mechanism"]["g"] if "olh" in docs else None}
    for kind in KINDS:
        if kind not in res:
            continue
        r = res[kind]
        est, se = our_counts(r, a.words)
        out[kind] = {"estimate": est * r["n"], "std_error": se * r["n"], "truth": np.asarray(r["truth"], dtype=float),
                     "which": "realised", "seconds": r["estimate_seconds"], "n": r["n"]}
    if "heavy-hitters" in res:
        hh = res["heavy-hitters"]
        out["hh_truth"] = np.asarray(hh["truth"], dtype=float)
        out["hh"] = {top: hh[f"top{top}"]["values"] for top in (10, 20)}
    if "olh" in res:
        out["olh_reports"] = [tuple(x) for x in res["olh"]["first_reports"]]
    return out


def params_of(tag, docs):
    """pure-LDP's parameters from privlift's designed documents (the designers' defaults for
    the kinds not designed in this run)."""
    params = designer_defaults(tag)
    if "hadamard" in docs:
        h = docs["hadamard"]["mechanism"]
        params["hadamard"] = (h["bits"], h["hash_seed"])
    if "hcms" in docs:
        c = docs["hcms"]["mechanism"]
        params["hcms"] = (c["k"], c["m"])
    if "heavy-hitters" in docs:
        params["pem"] = pem_shape(docs["heavy-hitters"])
    return params


def seed_list(a):
    """--seeds (comma-separated, A-B a range) or the single --seed."""
    if not a.seeds:
        return [a.seed]
    out = []
    for part in a.seeds.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def pure_oracle(kind, users, eps, evaluate, seed, params):
    """pure-LDP's estimates of the words `evaluate` by `kind` at the parameters `params`."""
    if kind == "olh":
        est, g_pure = pureldp.olh(users, eps, evaluate, seed)
        return est, f"pure-LDP g = {g_pure}"
    if kind == "hadamard":
        bits, hseed = params["hadamard"]
        return pureldp.hadamard(users, eps, evaluate, seed, bits, hseed), f"bits = {bits}"
    k, m = params["hcms"]
    return pureldp.hcms(users, eps, evaluate, seed, k, m), f"k = {k}, m = {m}"


def main():
    a = arguments()
    if a.merge:
        rows = summary.load(a.merge)
        summary.table(rows, theory_of(a))
        if a.out:
            summary.save(rows, a.out)
        return
    ns = [int(x) for x in a.n.split(",")]
    epss = [float(x) for x in a.eps.split(",")]
    seeds = seed_list(a)
    kinds = [k for k in a.kinds.split(",") if k]
    unknown = set(kinds) - set(KINDS + ("heavy-hitters",))
    if unknown:
        sys.exit(f"--kinds: unknown {sorted(unknown)}")
    xxh32np.check()
    pureldp.check()
    p = popn.zipf(a.words)
    evaluate = popn.evaluation_set(a.words, a.evaluate, a.seed)
    cli = None if a.pure_only or a.ours != "cli" else Cli(os.path.abspath(a.cli), a.work)
    lib = Example(os.path.abspath(a.example)) if not a.pure_only and a.ours == "example" else None
    os.makedirs(a.work, exist_ok=True)
    candidates = os.path.join(a.work, "candidates.txt")
    with open(candidates, "w") as f:
        f.write("\n".join(popn.words(a.words)) + "\n")
    rows = []
    cache = Cache(os.path.join(a.work, "pure-ldp-cache.json"))

    def row(**kw):
        rows.append(kw)
        print(json.dumps(kw), file=sys.stderr, flush=True)
        if a.out:  # after every row, so that an interrupted run keeps what it measured
            summary.save(rows, a.out)

    for seed in seeds:
        for n in ns:
            users, truth_pure = popn.draw(p, n, seed + n)
            for eps in epss:
                tag = f"n{n}-e{eps:g}"
                ours = None
                if cli:
                    ours = ours_cli(cli, a, tag, eps, n, p, candidates, seed, kinds)
                elif lib:
                    ours = ours_example(lib, a, tag, eps, n, 1, seed, kinds,
                                        evaluate if a.cover == "evaluated" else None)
                params = ours["params"] if ours else designer_defaults(tag)
                if params != designer_defaults(tag):
                    print(f"{tag}: the designers' parameters are not designer_defaults()'s: {params}", file=sys.stderr)
                for kind in (k for k in KINDS if k in kinds):
                    def pure_run(kind=kind):
                        t0 = time.perf_counter()
                        est, note = pure_oracle(kind, users, eps, evaluate, seed, params)
                        return {"kind": kind, "n": n, "eps": eps, "note": note,
                                "mse_pure": popn.mse(est, truth_pure[evaluate]),
                                "pure_seconds": round(time.perf_counter() - t0, 1)}
                    r = dict(cache.get((kind, n, eps, seed, a.evaluate, a.words, params.get(kind)), pure_run))
                    r["seed"] = seed
                    if ours:
                        o = ours[kind]
                        if kind == "olh":
                            r["note"] += f", ours g = {ours['g']}"
                        est, se, t_ours = o["estimate"], o["std_error"], o["truth"]
                        asked = ~np.isnan(est)
                        r.update(mse_ours=popn.mse(est[evaluate], t_ours[evaluate]),
                                 coverage=popn.coverage(est[asked], se[asked], t_ours[asked]),
                                 covered_words=int(asked.sum()),
                                 coverage_evaluated=popn.coverage(est[evaluate], se[evaluate], t_ours[evaluate]),
                                 truth=o["which"], ours_estimate_seconds=round(o["seconds"], 3))
                        r["ratio"] = r["mse_ours"] / r["mse_pure"]
                    row(**r)
                if "heavy-hitters" in kinds:
                    heavy_hitter_rows(a, row, ours, users, truth_pure, n, eps, seed, params, cache)
                if ours and "olh" in kinds and n == max(ns) and seed == seeds[0] and a.cover == "all":
                    speed_row(a, row, ours, eps)
    summary.table(rows, theory_of(a))


def theory_of(a):
    """(kind, n, ε) → the expected MSE over the scored words at the designers' parameters."""
    f = popn.zipf(a.words)[popn.evaluation_set(a.words, a.evaluate, a.seed)]
    (bits, _), (_, m) = designer_defaults("")["hadamard"], designer_defaults("")["hcms"]
    return lambda kind, n, eps: popn.expected_mse(kind, n, eps, f, 2 ** bits if kind == "hadamard" else m)


def heavy_hitter_rows(a, row, ours, users, truth_pure, n, eps, seed, params, cache):
    """Recall of the true top 10 and 20: pure-LDP's PEM and, when run, privlift's kind."""
    start, step = params["pem"]

    def pem_run():
        t0 = time.perf_counter()
        found = pureldp.pem(users, eps, seed, (10, 20), MAX_BYTES, start, step)
        return {"found": found, "seconds": round(time.perf_counter() - t0, 1)}
    pem = cache.get(("pem", n, eps, seed, a.words, start, step), pem_run)
    for top in (10, 20):
        r = {"kind": "heavy_hitters", "n": n, "eps": eps, "top": top, "seed": seed,
             "recall_pure": popn.recall(pem["found"][str(top)], truth_pure, top),
             "pure_seconds": pem["seconds"], "note": f"start {start}, step {step}"}
        if ours:
            r["recall_ours"] = popn.recall(ours["hh"][top], ours["hh_truth"], top)
        row(**r)


def speed_row(a, row, ours, eps):
    """Estimation time of every word from the OLH reports: privlift's vs pure-LDP's LHServer
    on a subset of the same reports, scaled."""
    reports, total = ours["olh_reports"], ours["olh"]["n"]
    t_sub, t_pure = pureldp.time_lh_aggregate(reports, eps, ours["g"], a.words, a.speed_subset, total)
    best = ours["olh"]["seconds"]
    row(kind="speed", n=total, eps=eps, candidates=a.words, ours_seconds=round(best, 3),
        ours_via=a.ours, pure_subset=a.speed_subset, pure_subset_seconds=round(t_sub, 2),
        pure_seconds_scaled=round(t_pure, 1), speedup=round(t_pure / best, 1))


if __name__ == "__main__":
    main()
