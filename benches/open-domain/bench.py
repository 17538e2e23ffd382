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
import xxh32np
from ours import Cli, Example

MAX_BYTES = 4  # "0" … "9999"


def arguments():
    a = argparse.ArgumentParser(description=__doc__)
    a.add_argument("--n", default="100000,1000000", help="users, comma-separated")
    a.add_argument("--eps", default="1,2,4", help="ε values, comma-separated")
    a.add_argument("--words", type=int, default=popn.WORDS)
    a.add_argument("--evaluate", type=int, default=1000, help="words scored on both sides")
    a.add_argument("--seed", type=int, default=2017)
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
    """Estimates and standard errors in word order from `privlift estimate`'s JSON."""
    index = {w: i for i, w in enumerate(result["labels"])}
    order = [index[str(i)] for i in range(n_words)]
    return np.asarray(result["estimate"])[order], np.asarray(result["std_error"])[order]


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


def ours_cli(cli, a, tag, eps, n, p, candidates):
    """privlift through its CLI: design, simulate --population, estimate, heavy-hitters."""
    d = os.path.join(a.work, tag)
    shutil.rmtree(d, ignore_errors=True)
    mech = os.path.join(d, "mechanisms")
    os.makedirs(mech)
    docs = {k: cli.design(k, eps, MAX_BYTES, f"{k}-{tag}", mech) for k in ("olh", "hadamard", "hcms", "heavy-hitters")}
    popn.population_file([f"{k}-{tag}" for k in docs], p, os.path.join(d, "population.json"))
    db = "sqlite:" + os.path.join(d, "reports.db")
    t0 = time.perf_counter()
    truth = cli.simulate(db, mech, n, a.seed, os.path.join(d, "population.json"), os.path.join(d, "truth.json"))
    print(f"{tag}: simulated {n} users × 4 documents in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    out = {"params": params_of(docs), "g": docs["olh"]["mechanism"]["g"]}
    for kind in ("olh", "hadamard", "hcms"):
        ident = f"{kind}-{tag}"
        best = None
        for _ in range(3 if kind == "olh" else 1):
            res, secs = cli.estimate(db, ident, candidates)
            best = secs if best is None else min(best, secs)
        est, se = our_counts(res, a.words)
        t_ours, which = realised(truth, ident, a.words, n * p)
        out[kind] = {"estimate": est * res["n"], "std_error": se * res["n"], "truth": t_ours, "which": which,
                     "seconds": best, "n": res["n"]}
    ident = f"heavy-hitters-{tag}"
    out["hh_truth"], _ = realised(truth, ident, a.words, n * p)
    out["hh"] = {top: cli.heavy_hitters(db, ident, top)["values"] for top in (10, 20)}
    out["olh_reports"] = olh_reports(db, f"olh-{tag}")[:2000]
    return out


def ours_example(lib, a, tag, eps, n, reps):
    """privlift through the library (design/examples/open_domain.rs); OLH's estimate timed best of `reps`."""
    res = {k: lib.run(k, eps, n, a.seed, f"{k}-{tag}", a.words, reps=reps if k == "olh" else 1)
           for k in ("olh", "hadamard", "hcms", "heavy-hitters")}
    docs = {k: r["document"] for k, r in res.items()}
    out = {"params": params_of(docs), "g": docs["olh"]["mechanism"]["g"]}
    for kind in ("olh", "hadamard", "hcms"):
        r = res[kind]
        est, se = our_counts(r, a.words)
        out[kind] = {"estimate": est * r["n"], "std_error": se * r["n"], "truth": np.asarray(r["truth"], dtype=float),
                     "which": "realised", "seconds": r["estimate_seconds"], "n": r["n"]}
    hh = res["heavy-hitters"]
    out["hh_truth"] = np.asarray(hh["truth"], dtype=float)
    out["hh"] = {top: hh[f"top{top}"]["values"] for top in (10, 20)}
    out["olh_reports"] = [tuple(x) for x in res["olh"]["first_reports"]]
    return out


def params_of(docs):
    """pure-LDP's parameters from privlift's designed documents."""
    h, c = docs["hadamard"]["mechanism"], docs["hcms"]["mechanism"]
    return {"hadamard": (h["bits"], h["hash_seed"]), "hcms": (c["k"], c["m"]), "pem": pem_shape(docs["heavy-hitters"])}


def main():
    a = arguments()
    ns = [int(x) for x in a.n.split(",")]
    epss = [float(x) for x in a.eps.split(",")]
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

    for n in ns:
        users, truth_pure = popn.draw(p, n, a.seed + n)
        for eps in epss:
            tag = f"n{n}-e{eps:g}"
            params = designer_defaults(tag)
            ours = None
            if cli:
                ours = ours_cli(cli, a, tag, eps, n, p, candidates)
            elif lib:
                ours = ours_example(lib, a, tag, eps, n, reps=1)
            if ours:
                params = ours["params"]
                if params != designer_defaults(tag):
                    print(f"{tag}: the designers' parameters are not designer_defaults()'s: {params}", file=sys.stderr)
            for kind in ("olh", "hadamard", "hcms"):
                def pure_run(kind=kind):
                    t0 = time.perf_counter()
                    if kind == "olh":
                        est, g_pure = pureldp.olh(users, eps, evaluate, a.seed)
                        note = f"pure-LDP g = {g_pure}"
                    elif kind == "hadamard":
                        bits, hseed = params["hadamard"]
                        est = pureldp.hadamard(users, eps, evaluate, a.seed, bits, hseed)
                        note = f"bits = {bits}"
                    else:
                        k, m = params["hcms"]
                        est = pureldp.hcms(users, eps, evaluate, a.seed, k, m)
                        note = f"k = {k}, m = {m}"
                    return {"kind": kind, "n": n, "eps": eps, "note": note,
                            "mse_pure": popn.mse(est, truth_pure[evaluate]),
                            "pure_seconds": round(time.perf_counter() - t0, 1)}
                r = dict(cache.get((kind, n, eps, a.seed, a.evaluate, a.words, params.get(kind)), pure_run))
                if ours:
                    o = ours[kind]
                    if kind == "olh":
                        r["note"] += f", ours g = {ours['g']}"
                    est, se, t_ours = o["estimate"], o["std_error"], o["truth"]
                    r.update(mse_ours=popn.mse(est[evaluate], t_ours[evaluate]),
                             coverage=popn.coverage(est, se, t_ours),
                             coverage_evaluated=popn.coverage(est[evaluate], se[evaluate], t_ours[evaluate]),
                             truth=o["which"], ours_estimate_seconds=round(o["seconds"], 3))
                    r["ratio"] = r["mse_ours"] / r["mse_pure"]
                row(**r)
            start, step = params["pem"]

            def pem_run():
                t0 = time.perf_counter()
                found = pureldp.pem(users, eps, a.seed, (10, 20), MAX_BYTES, start, step)
                return {"found": found, "seconds": round(time.perf_counter() - t0, 1)}
            pem = cache.get(("pem", n, eps, a.seed, a.words, start, step), pem_run)
            for top in (10, 20):
                r = {"kind": "heavy_hitters", "n": n, "eps": eps, "top": top,
                     "recall_pure": popn.recall(pem["found"][str(top)], truth_pure, top),
                     "pure_seconds": pem["seconds"], "note": f"start {start}, step {step}"}
                if ours:
                    r["recall_ours"] = popn.recall(ours["hh"][top], ours["hh_truth"], top)
                row(**r)
            if ours and n == max(ns):
                reports, total = ours["olh_reports"], ours["olh"]["n"]
                t_sub, t_pure = pureldp.time_lh_aggregate(reports, eps, ours["g"], a.words, a.speed_subset, total)
                best = ours["olh"]["seconds"]
                row(kind="speed", n=total, eps=eps, candidates=a.words, ours_seconds=round(best, 3),
                    ours_via=a.ours, pure_subset=a.speed_subset, pure_subset_seconds=round(t_sub, 2),
                    pure_seconds_scaled=round(t_pure, 1), speedup=round(t_pure / best, 1))
    table(rows)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(rows, f, indent=1)


def table(rows):
    """The comparison as a plain-text table on stdout."""
    f = lambda x, fmt: "—" if x is None else format(x, fmt)
    print(f"{'oracle':<10}{'n':>9}{'ε':>4} {'MSE pure-LDP':>13}{'MSE ours':>13}{'ratio':>7}"
          f"{'cover':>7}{'cover E':>8}  parameters")
    for r in rows:
        if r["kind"] in ("olh", "hadamard", "hcms"):
            print(f"{r['kind']:<10}{r['n']:>9}{r['eps']:>4g} {r['mse_pure']:>13.4g}"
                  f"{f(r.get('mse_ours'), '.4g'):>13}{f(r.get('ratio'), '.3f'):>7}"
                  f"{f(r.get('coverage'), '.3f'):>7}{f(r.get('coverage_evaluated'), '.3f'):>8}  {r['note']}")
    print(f"\n{'heavy hitters':<14}{'n':>9}{'ε':>4}{'top':>5}{'recall PEM':>12}{'recall ours':>12}")
    for r in rows:
        if r["kind"] == "heavy_hitters":
            print(f"{'':<14}{r['n']:>9}{r['eps']:>4g}{r['top']:>5}{r['recall_pure']:>12.2f}"
                  f"{f(r.get('recall_ours'), '.2f'):>12}")
    for r in rows:
        if r["kind"] == "speed":
            print(f"\nestimation of {r['candidates']} candidates from {r['n']} OLH reports (ε = {r['eps']:g}): "
                  f"ours {r['ours_seconds']} s; pure-LDP's LHServer {r['pure_subset_seconds']} s for "
                  f"{r['pure_subset']} reports, scaled linearly to {r['pure_seconds_scaled']} s; "
                  f"{r['speedup']}× faster")


if __name__ == "__main__":
    main()
