"""The comparison's rows pooled over seeds, and the table bench.py prints.

A row is one cell (oracle, n, ε) — or one heavy-hitter search (n, ε, top) — at one seed.
Over the seeds of a cell, each figure is reported as mean ± standard error (the seeds'
standard deviation over √seeds): the MSE ratio (privlift ÷ pure-LDP, both sides drawn
afresh at each seed), the coverage of privlift's 95 % intervals and the recall of the
true top k. ``margin`` says how many standard errors the mean ratio lies below the goal's
1.1 (negative: above); *pure/E* and *ours/E* are each side's mean MSE over the expected MSE
of the exact channel (``population.expected_mse``).
"""
import json
import math

import numpy as np

GOAL = 1.1
ORACLES = ("olh", "hadamard", "hcms")


def key(r):
    """A row's identity: the same cell at the same seed is measured once."""
    return r["kind"], r["n"], r["eps"], r.get("top"), r.get("seed")


def load(paths):
    """Rows of earlier runs (--out), a later file's row replacing an earlier one of the same key."""
    rows = {}
    for path in paths:
        with open(path) as f:
            for r in json.load(f):
                rows[key(r)] = r
    return list(rows.values())


def save(rows, path):
    with open(path, "w") as f:
        json.dump(rows, f, indent=1)


def mean_se(values):
    """(mean, standard error over the values, count); the error is None for one value."""
    v = np.asarray([x for x in values if x is not None], dtype=np.float64)
    if v.size == 0:
        return None, None, 0
    se = float(np.std(v, ddof=1) / math.sqrt(v.size)) if v.size > 1 else None
    return float(v.mean()), se, int(v.size)


def groups(rows, kinds):
    """Rows of `kinds` grouped by cell, in first-seen order."""
    out = {}
    for r in rows:
        if r["kind"] in kinds:
            out.setdefault((r["kind"], r["n"], r["eps"], r.get("top")), []).append(r)
    return out


def oracle_cells(rows, theory=None):
    """Per cell: seeds, ratio, pooled ratio (mean MSE ÷ mean MSE), coverages, margin, and
    with `theory` ((kind, n, ε) → expected MSE) each side's mean MSE over it."""
    cells = []
    for (kind, n, eps, _), rs in groups(rows, ORACLES).items():
        ratio, ratio_se, seeds = mean_se(r.get("ratio") for r in rs)
        cover, cover_se, _ = mean_se(r.get("coverage") for r in rs)
        cover_e, cover_e_se, _ = mean_se(r.get("coverage_evaluated") for r in rs)
        ours = [r["mse_ours"] for r in rs if "mse_ours" in r]
        pooled = float(np.mean(ours) / np.mean([r["mse_pure"] for r in rs if "mse_ours" in r])) if ours else None
        expected = theory(kind, n, eps) if theory else None
        mse_pure = mean_se(r["mse_pure"] for r in rs)[0]
        margin = (GOAL - ratio) / ratio_se if ratio_se else None
        cells.append({"kind": kind, "n": n, "eps": eps, "seeds": seeds or len(rs), "ratio": ratio,
                      "ratio_se": ratio_se, "pooled": pooled, "margin": margin, "coverage": cover,
                      "coverage_se": cover_se, "coverage_evaluated": cover_e, "coverage_evaluated_se": cover_e_se,
                      "mse_pure": mse_pure, "note": rs[0]["note"],
                      "pure_vs_theory": mse_pure / expected if expected else None,
                      "ours_vs_theory": float(np.mean(ours)) / expected if expected and ours else None})
    return cells


def recall_cells(rows):
    cells = []
    for (_, n, eps, top), rs in groups(rows, ("heavy_hitters",)).items():
        pure, pure_se, seeds = mean_se(r["recall_pure"] for r in rs)
        ours, ours_se, _ = mean_se(r.get("recall_ours") for r in rs)
        cells.append({"n": n, "eps": eps, "top": top, "seeds": seeds, "recall_pure": pure,
                      "recall_pure_se": pure_se, "recall_ours": ours, "recall_ours_se": ours_se})
    return cells


def pm(x, se, fmt):
    """'x ± se' (or 'x', or '—')."""
    if x is None:
        return "—"
    return format(x, fmt) + ("" if se is None else " ± " + format(se, fmt))


def table(rows, theory=None):
    """The comparison as a plain-text table on stdout."""
    f = lambda x, fmt: "—" if x is None else format(x, fmt)
    print(f"{'oracle':<10}{'n':>9}{'ε':>4}{'seeds':>6} {'MSE pure-LDP':>13}{'pure/E':>7}{'ours/E':>7} {'ratio':>15}"
          f"{'pooled':>7}{'margin':>7} {'cover':>15} {'cover E':>15}  parameters")
    for c in oracle_cells(rows, theory):
        print(f"{c['kind']:<10}{c['n']:>9}{c['eps']:>4g}{c['seeds']:>6} {c['mse_pure']:>13.4g}"
              f"{f(c['pure_vs_theory'], '.3f'):>7}{f(c['ours_vs_theory'], '.3f'):>7} "
              f"{pm(c['ratio'], c['ratio_se'], '.3f'):>15}{f(c['pooled'], '.3f'):>7}{f(c['margin'], '.1f'):>7} "
              f"{pm(c['coverage'], c['coverage_se'], '.4f'):>15} "
              f"{pm(c['coverage_evaluated'], c['coverage_evaluated_se'], '.3f'):>15}  {c['note']}")
    print(f"\n{'heavy hitters':<14}{'n':>9}{'ε':>4}{'top':>5}{'seeds':>6}{'recall PEM':>16}{'recall ours':>16}")
    for c in recall_cells(rows):
        print(f"{'':<14}{c['n']:>9}{c['eps']:>4g}{c['top']:>5}{c['seeds']:>6}"
              f"{pm(c['recall_pure'], c['recall_pure_se'], '.2f'):>16}"
              f"{pm(c['recall_ours'], c['recall_ours_se'], '.2f'):>16}")
    for r in rows:
        if r["kind"] == "speed":
            print(f"\nestimation of {r['candidates']} candidates from {r['n']} OLH reports (ε = {r['eps']:g}): "
                  f"ours {r['ours_seconds']} s; pure-LDP's LHServer {r['pure_subset_seconds']} s for "
                  f"{r['pure_subset']} reports, scaled linearly to {r['pure_seconds_scaled']} s; "
                  f"{r['speedup']}× faster")
