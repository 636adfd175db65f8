"""Benchmark of the exact solver: branch and bound on two moons (Chapelle et al. 2006 setting)."""

from __future__ import annotations

import time
import warnings

import numpy as np

#: Sizes of the sweep, up to the n = 400 of issue 23; a seed leaves a bound's sweep at the
#: first size it does not certify, the other seeds go on.
SIZES = (20, 40, 60, 80, 100, 150, 200, 250, 300, 400)

#: The node bounds compared (weakcvx.exact.BOUNDS).
BOUNDS = ("svm", "hull", "sdp")


def _two_moons_problem(n, seed):
    import weakcvx as wc

    X, y_true, y_known = wc.datasets.make_two_moons(n, n_labeled=2, random_state=seed)
    return wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0),
                               wc.labelsets.SemiSupervised(y_known), costs=10.0, y_true=y_true)


def _bnb_run(bound, n, seed, limit):
    """One branch-and-bound run on two moons: print its row, return its record."""
    from sklearn.exceptions import ConvergenceWarning

    from weakcvx.exact import branch_and_bound

    problem = _two_moons_problem(n, seed)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        res = branch_and_bound(problem, bound=bound, time_limit=limit)
    seconds = time.perf_counter() - t0
    J_true = problem.J(problem.y_true)[0]
    nodes = res.extra["n_nodes"]
    accuracy = float(np.mean(res.labels == problem.y_true))
    sdp = f"{res.extra['sdp_nodes']}/{res.extra['sdp_pruned']}"
    print(f"{bound:>6} {n:>5} {seed:>4} {nodes:>9} {seconds:>9.2f} "
          f"{1e3 * seconds / max(nodes, 1):>8.2f} "
          f"{res.extra['seed']['seconds']:>7.2f} {res.status:>11} "
          f"{res.value:>11.5g} {J_true:>9.5g} {res.extra['seed']['value']:>9.5g} "
          f"{accuracy:>8.2f} {sdp:>11} {res.extra['sdp_seconds']:>7.2f}", flush=True)
    return {"bound": bound, "n": n, "seed": seed, "nodes": nodes, "seconds": seconds,
            "status": res.status, "certified": res.certified, "value": res.value,
            "upper_bound": res.upper_bound, "J_true": J_true,
            "seed_value": res.extra["seed"]["value"],
            "seed_seconds": res.extra["seed"]["seconds"], "accuracy": accuracy,
            "sdp_nodes": res.extra["sdp_nodes"], "sdp_pruned": res.extra["sdp_pruned"],
            "sdp_seconds": res.extra["sdp_seconds"]}


def bench_bnb(quick=False, seeds=None, run_limit=600.0, bounds=BOUNDS, sizes=SIZES):
    """Branch and bound on two moons (2 labeled points, RBF gamma=2, C=10): nodes and seconds
    with ``bound="svm"`` (Chapelle et al.), ``bound="hull"`` and ``bound="sdp"`` for growing
    n, and the largest n certified within the time limit with each, per seed and with every
    seed.

    Full run: seeds 0, 1, 2 per size (``seeds=``), 10 minutes per run (``run_limit``).
    ``quick``: seed 0 only and a budget of 80 s per bound for the whole sweep (each run gets
    what is left of it; every bound certifies up to n = 300 in well under that). A seed leaves
    a bound's sweep at the first size it does not certify; the others go on to the next size.
    ``bounds`` and ``sizes`` restrict the sweep (a single measurement:
    ``bench_bnb(seeds=[0], bounds=["sdp"], sizes=[400])``).
    Times include the incumbent seed (rounding of the convex-hull relaxation,
    ``SEED_MAX_ITER`` label-generation rounds), shown apart in the column "seed s"; for
    ``"sdp"`` the columns "sdp" (nodes where the SDP bound was computed / pruned) and
    "sdp s" (its seconds).
    """
    seeds = ((0,) if quick else (0, 1, 2)) if seeds is None else tuple(seeds)
    budget = 80.0 if quick else np.inf
    print(f"branch and bound on two moons (2 labeled, gamma=2, C=10); seeds {list(seeds)}; "
          + ("budget 80 s per bound" if quick else f"time limit {run_limit:g} s per run")
          + "; a seed leaves a bound's sweep at its first uncertified size")
    print(f"{'bound':>6} {'n':>5} {'seed':>4} {'nodes':>9} {'seconds':>9} {'ms/node':>8} "
          f"{'seed s':>7} {'status':>11} {'optimum/LB':>11} {'J(true)':>9} {'seed J':>9} "
          f"{'accuracy':>8} {'sdp':>11} {'sdp s':>7}")
    records = []
    largest, per_seed = {}, {}
    for bound in bounds:
        spent = 0.0
        largest[bound] = None
        per_seed[bound] = dict.fromkeys(seeds)
        active = list(seeds)
        for n in sizes:
            for seed in list(active):
                limit = min(run_limit, budget - spent)
                if limit <= 1.0:
                    active.remove(seed)
                    continue
                record = _bnb_run(bound, n, seed, limit)
                spent += record["seconds"]
                records.append(record)
                if record["certified"]:
                    per_seed[bound][seed] = n
                else:
                    active.remove(seed)
            if not active:
                break
            if len(active) == len(seeds):
                largest[bound] = n
    limit = "the 80 s budget" if quick else f"{run_limit:g} s per run"
    for bound, n in largest.items():
        each = ", ".join(f"seed {s}: {m}" for s, m in per_seed[bound].items())
        print(f"largest n certified with bound={bound!r} within {limit}: {n} with every seed; "
              f"per seed {each}")
    _print_bound_comparison(records, bounds)
    return {"records": records, "largest_certified": largest, "largest_per_seed": per_seed}


def _print_bound_comparison(records, bounds):
    """Nodes saved and time ratio of each bound against ``"svm"`` on the runs both certified."""
    both = {}
    for r in records:
        both.setdefault((r["n"], r["seed"]), {})[r["bound"]] = r
    for other in bounds:
        rows = [v for _, v in sorted(both.items()) if other != "svm" and "svm" in v
                and other in v and v["svm"]["certified"] and v[other]["certified"]]
        if rows:
            saved = [1 - v[other]["nodes"] / v["svm"]["nodes"] for v in rows]
            ratio = [v[other]["seconds"] / v["svm"]["seconds"] for v in rows]
            print(f"{other} vs svm on the {len(rows)} runs both certified: nodes saved "
                  f"{np.median(saved):.0%} (median; range {min(saved):.0%} to "
                  f"{max(saved):.0%}), time ratio {np.median(ratio):.2f} (median)")
