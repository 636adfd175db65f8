"""Benchmark of the SDP relaxation: solvers and sizes (``weakcvx bench sdp``).

Each run happens in its own process with ``MEMORY_LIMIT`` bytes of address space ("out of
memory"); a run whose solve exceeds ``TIME_LIMIT`` seconds is reported as "timeout", and its
process is killed 30 s later (the slack covers its imports), so one slow interior-point solve
cannot stall the table or the shared machine. A solver that timed out (or ran out of memory) is
not run at larger n for the same problem.
"""

from __future__ import annotations

import multiprocessing
import queue as queue_module
import time

#: Seconds allowed per run.
TIME_LIMIT = 120.0
#: Address-space limit per run (interior-point solvers form dense KKT blocks of size ~n⁴/4).
MEMORY_LIMIT = 6 * 2**30
SOLVERS = ("SCS", "CLARABEL", "CVXOPT")


def make_problem(kind, n):
    """Two moons (``make_two_moons(n, n_labeled=2, random_state=0)``, RBF gamma=2, C=10) as
    semi-supervised learning (``kind="ssl"``) or clustering with ``beta = 0.03 n`` (the default
    balance of :class:`~weakcvx.MaxMarginClustering`; ``kind="clustering"``)."""
    import weakcvx as wc

    X, y_true, y_known = wc.datasets.make_two_moons(n, n_labeled=2, random_state=0)
    K = wc.kernels.rbf(X, gamma=2.0)
    if kind == "ssl":
        labelset = wc.labelsets.SemiSupervised(y_known)
    else:
        labelset = wc.labelsets.Clustering(n, beta=0.03 * n)
    return wc.WeakLabelProblem(K, labelset, costs=10.0, y_true=y_true,
                               name=f"two moons {kind} n={n}")


def _worker(out, kind, n, solver):
    import resource
    import warnings

    from weakcvx.result import SolverError
    from weakcvx.sdp import solve_sdp

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    try:
        problem = make_problem(kind, n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            start = time.perf_counter()
            res = solve_sdp(problem, solver=solver, max_n=n)
            seconds = time.perf_counter() - start
        out.put({"status": res.status, "seconds": seconds,
                 "solver_seconds": res.extra["solver_seconds"], "value": res.value,
                 "solver_value": res.extra["solver_value"], "J_labels": res.upper_bound,
                 "n_iter": res.n_iter})
    except MemoryError:
        out.put({"status": "out of memory"})
    except SolverError as exc:
        out.put({"status": f"failed: {exc.status}"})
    except Exception as exc:  # reported in the table, not raised: the benchmark goes on
        out.put({"status": f"{type(exc).__name__}: {exc}"[:60]})


def _run(kind, n, solver, time_limit):
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    proc = ctx.Process(target=_worker, args=(out, kind, n, solver), daemon=True)
    proc.start()
    start = time.perf_counter()
    try:
        # the worker's import of cvxpy is not part of the limit: it reports its own solve time
        record = out.get(timeout=time_limit + 30.0)
    except queue_module.Empty:
        record = {"status": "timeout"}
    if proc.is_alive() and record["status"] == "timeout":
        proc.terminate()
    proc.join(timeout=10.0)
    if record.get("seconds", 0.0) > time_limit:
        record = {"status": "timeout", "seconds": record["seconds"]}
    record.setdefault("wall", time.perf_counter() - start)
    return record


def bench_sdp(quick=False, time_limit=TIME_LIMIT):
    """Time and value of the SDP relaxation for each installed solver at n = 50, 100, 200
    (quick: 50, 100), on two-moons SSL and clustering; prints a table and returns its rows.

    ``seconds`` is the whole call, ``(solver)`` the solver alone (the rest: the certificate
    polish and the rounding); ``value`` is the certified lower bound, ``solver obj`` the solver's
    own objective (at SCS's eps 1e-3 it is approximate in either direction), ``J(labels)`` the
    rounded labeling's objective; ``iters`` is "—" when the solver does not report it
    (CVXOPT). Runs over ``time_limit`` seconds print "timeout" (the process is killed at
    ``time_limit`` + 30 s, the slack covering imports).
    """
    import cvxpy as cp

    sizes = (50, 100) if quick else (50, 100, 200)
    installed = [s for s in SOLVERS if s in cp.installed_solvers()]
    rows = []
    header = (f"{'problem':<11}{'n':>5}  {'solver':<9}{'status':<24}{'seconds':>8}{'(solver)':>9}"
              f"{'value':>10}{'solver obj':>11}{'J(labels)':>10}{'iters':>6}")
    print(header)
    print("-" * len(header))
    for kind in ("ssl", "clustering"):
        timed_out = set()
        for n in sizes:
            for solver in installed:
                if solver in timed_out:
                    rec = {"status": "timeout (at smaller n)"}
                else:
                    rec = _run(kind, n, solver, time_limit)
                    if rec["status"].startswith("timeout") or rec["status"] == "out of memory":
                        timed_out.add(solver)
                rec.update(problem=kind, n=n, solver=solver)
                rows.append(rec)

                def fmt(key, spec):
                    return format(rec[key], spec) if rec.get(key) else "—"

                print(f"{kind:<11}{n:>5}  {solver:<9}{rec['status']:<24}"
                      f"{fmt('seconds', '.1f'):>8}{fmt('solver_seconds', '.1f'):>9}"
                      f"{fmt('value', '.5f'):>10}{fmt('solver_value', '.5f'):>11}"
                      f"{fmt('J_labels', '.4g'):>10}{fmt('n_iter', 'd'):>6}", flush=True)
    from .sdp_lowrank import bench_sdp_lowrank

    print("\nThe low-rank SDP with its certificate (weakcvx.lowrank_sdp; `bench sdp-lowrank`):")
    rows += [{**rec, "solver": "lowrank"} for rec in bench_sdp_lowrank(quick=quick)]
    return rows
