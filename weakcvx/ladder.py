r"""The ladder of bounds: run several methods on one problem and tabulate them (DESIGN.md §1).

For every problem (WellSVM Theorem 1):

.. math::

    \underbrace{\text{SDP}}_{\text{lower}} \;\le\; \underbrace{\text{convex hull}}_{\text{lower}}
    \;\le\; \min_{y \in B} J(y) \;\le\; J(\text{any feasible } y).

:func:`compare` computes each rung with a real solver, records which values are certified, and
returns a :class:`LadderTable` that prints and plots.
"""

from __future__ import annotations

import logging
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .api import solve
from .result import SolveResult, SolverError

__all__ = ["compare", "LadderTable", "Rung", "default_methods", "EXACT_TIME_LIMIT"]

logger = logging.getLogger("weakcvx")

#: Above this many labelings, the exact oracle / enumeration is not attempted by default.
SMALL_LABELSET = 2**14
#: Above this many points, the SDP rung is skipped by default (SCS at eps 1e-3 takes ~47 s at
#: n=200 on these machines: DESIGN §3.4).
SDP_MAX_N = 200
#: Default time limit (seconds) of the exact rung (branch and bound): without one the search
#: is exponential (150 breast-cancer rows: 226,000 nodes in 60 s, not finished at 180 s).
EXACT_TIME_LIMIT = 60.0


@dataclass
class Rung:
    """One method's row of the ladder."""

    name: str
    result: SolveResult | None
    error: float | None = None
    failure: str | None = None
    #: Messages of the ConvergenceWarnings the method raised (e.g. a branch and bound stopped
    #: by its time limit); :func:`compare` re-emits them and the table lists them.
    warnings: list = field(default_factory=list)

    @property
    def value(self):
        return None if self.result is None else self.result.value

    @property
    def kind(self):
        """What ``value`` is: a certified lower bound, the certified optimum, or an estimate."""
        if self.result is None:
            return "failed"
        r = self.result
        if r.method == "exact":
            return "optimum" if r.certified else "best found"
        if r.method == "alternating":
            return "J(labels)"
        return "lower bound" if r.certified else "estimate"


@dataclass
class LadderTable:
    """The rungs of one problem, printable and plottable.

    Attributes
    ----------
    rungs : list of Rung
    problem_name : str
    """

    rungs: list
    problem_name: str = ""
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)
    #: True when Ctrl-C stopped :func:`compare`: the table holds the rungs finished so far.
    interrupted: bool = False

    @property
    def best_lower_bound(self):
        """Largest certified lower bound of the MIP (SDP, exact-oracle hull, exact optimum)."""
        vals = [r.result.value for r in self.rungs if r.result is not None and r.result.certified]
        return max(vals) if vals else None

    @property
    def best_upper_bound(self):
        """Smallest ``J(labels)`` over all methods."""
        vals = [r.result.upper_bound for r in self.rungs if r.result is not None]
        return min(vals) if vals else None

    @property
    def gap(self):
        """``best upper bound − best certified lower bound`` (None if no certified bound)."""
        lb, ub = self.best_lower_bound, self.best_upper_bound
        return None if lb is None or ub is None else ub - lb

    def __getitem__(self, name):
        for r in self.rungs:
            if r.name == name:
                return r
        raise KeyError(name)

    def to_records(self):
        """One dict per rung (for JSON/CSV export)."""
        out = []
        for r in self.rungs:
            res = r.result
            out.append({
                "method": r.name,
                "value": None if res is None else float(res.value),
                "kind": r.kind,
                "certified": None if res is None else bool(res.certified),
                "J_labels": None if res is None else float(res.upper_bound),
                "error": r.error,
                "seconds": None if res is None else float(res.seconds),
                "status": r.failure if res is None else res.status,
            })
        return out

    def __str__(self):
        head = f"Ladder of bounds — {self.problem_name}" if self.problem_name else "Ladder of bounds"
        lines = [head, f"{'method':<32}{'value':>12}  {'what it is':<13}{'J(labels)':>12}"
                 f"{'error':>8}{'seconds':>9}  status"]
        for rec in self.to_records():
            value = "—" if rec["value"] is None else f"{rec['value']:.5g}"
            J = "—" if rec["J_labels"] is None else f"{rec['J_labels']:.5g}"
            err = "—" if rec["error"] is None else f"{100 * rec['error']:.1f}%"
            sec = "—" if rec["seconds"] is None else f"{rec['seconds']:.2f}"
            lines.append(f"{rec['method']:<32}{value:>12}  {rec['kind']:<13}{J:>12}{err:>8}"
                         f"{sec:>9}  {rec['status']}")
        lb, ub = self.best_lower_bound, self.best_upper_bound
        if lb is not None and ub is not None:
            rel = (ub - lb) / max(abs(ub), 1e-12)
            lines.append(f"best certified lower bound {lb:.5g}  ≤  MIP optimum  ≤  best J(labels) "
                         f"{ub:.5g}   (gap {ub - lb:.4g}, {100 * rel:.2f}%)")
        elif ub is not None:
            lines.append(f"best J(labels) {ub:.5g}; no certified lower bound computed")
        for r in self.rungs:
            for message in r.warnings:
                lines.append(f"note [{r.name}]: {message}")
        if self.interrupted:
            lines.append("interrupted (Ctrl-C): the best results so far")
        return "\n".join(lines)

    __repr__ = __str__

    def plot(self, ax=None):
        """Draw the ladder: one row per method, its value (filled marker: certified lower bound
        or optimum; hollow: estimate) and the J of its labels (upper bound, a cross), with the
        best certified bracket shaded.

        Returns
        -------
        matplotlib.axes.Axes
        """
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(8, 0.6 * len(self.rungs) + 2.6))
        names, ys = [], []
        for i, r in enumerate(self.rungs):
            y = len(self.rungs) - 1 - i
            names.append(r.name)
            ys.append(y)
            if r.result is None:
                continue
            res = r.result
            if res.method in ("exact",) and res.certified:
                ax.plot(res.value, y, marker="*", ms=14, color="tab:green", ls="none",
                        label="MIP optimum")
            elif res.certified:
                ax.plot(res.value, y, marker="o", ms=9, color="tab:blue", ls="none",
                        label="certified lower bound")
            elif res.method != "alternating":
                ax.plot(res.value, y, marker="o", ms=9, mfc="none", color="tab:blue", ls="none",
                        label="relaxation value (not certified)")
            ax.plot(res.upper_bound, y, marker="x", ms=10, mew=2, color="tab:red", ls="none",
                    label="J(labels): upper bound")
            if res.method != "alternating":
                ax.plot([res.value, res.upper_bound], [y, y], color="0.6", lw=1, zorder=0)
        lb, ub = self.best_lower_bound, self.best_upper_bound
        if lb is not None and ub is not None:
            ax.axvspan(lb, ub, color="tab:green", alpha=0.12, label="certified bracket of the optimum")
        ax.set_yticks(ys)
        ax.set_yticklabels(names)
        ax.set_xlabel("objective (SVM dual value)")
        title = "Ladder of bounds" + (f"\n{self.problem_name}" if self.problem_name else "")
        ax.set_title(title, fontsize=10)
        handles, labels = ax.get_legend_handles_labels()
        uniq = dict(zip(labels, handles))
        ax.legend(uniq.values(), uniq.keys(), loc="upper center", bbox_to_anchor=(0.5, -0.18),
                  ncol=2, fontsize=8, frameon=False)
        ax.grid(axis="x", alpha=0.3)
        ax.figure.tight_layout()
        return ax


def default_methods(problem):
    """The rungs :func:`compare` runs by default for this problem.

    SDP when the label set supports it (``weakcvx.sdp.SUPPORTED_LABELSETS``) and
    ``n ≤ SDP_MAX_N``; label generation with the sorting oracle, and with the exact oracle when
    ``|B| ≤ SMALL_LABELSET``; exact (enumeration when B is small, branch and bound otherwise
    when B is described by counts), whose time limit :func:`compare` sets; alternating.
    """
    methods = []
    labelset = problem.labelset
    try:
        small = labelset.cardinality() <= SMALL_LABELSET
    except NotImplementedError:  # a Custom set without `enumerate`: its size is unknown
        small = False
    try:
        from . import sdp

        if problem.n_samples <= SDP_MAX_N and isinstance(labelset, sdp.SUPPORTED_LABELSETS):
            methods.append(("sdp", "sdp", {}))
    except ImportError:
        pass
    methods.append(("label_generation", "label_generation", {}))
    if small:
        methods.append(("label_generation (exact oracle)", "label_generation",
                        {"oracle": "exact"}))
    from . import exact

    # branch and bound needs a count description of B; other sets are enumerated
    if small or (hasattr(exact, "branch_and_bound") and labelset.count_constraints() is not None):
        methods.append(("exact", "exact", {}))
    methods.append(("alternating", "alternating", {}))
    return methods


def compare(problem, methods=None, random_state=0, verbose=0, time_limit=EXACT_TIME_LIMIT):
    """Run several methods on one problem and return the ladder of bounds.

    Parameters
    ----------
    problem : WeakLabelProblem
    methods : list, optional
        Method names (``"sdp"``, ``"label_generation"``, ``"exact"``, ``"alternating"``) or
        ``(display name, method, options)`` triples. Default: :func:`default_methods`.
    random_state : int
    verbose : int
        ``1``: log each method as it starts and ends, with its status, and the progress of
        the branch and bound (every second) through ``logging.getLogger("weakcvx")``;
        ``2``: also the other solvers' progress.
    time_limit : float or None, default=EXACT_TIME_LIMIT (60 s)
        Time limit of every ``"exact"`` rung whose options do not set ``time_limit``. A branch
        and bound stopped by it keeps its best labeling (``kind`` "best found", status
        ``"time_limit"``) and its value stays a certified lower bound. ``None``: no limit.

    Returns
    -------
    LadderTable
        ``print(table)`` shows value, what it certifies, J(labels), error against
        ``problem.y_true`` when known, seconds, status, and the certified gap;
        ``table.plot()`` draws it. A method that fails is listed with its failure instead of
        stopping the comparison. The ConvergenceWarnings of a method (a solver stopped early,
        e.g. at its time limit) are kept in ``Rung.warnings``, listed as notes under the
        table, and re-emitted once each, prefixed with the rung's name; other warnings of the
        solvers are not shown.
        Ctrl-C stops the comparison and returns the rungs finished so far (a branch and bound
        in progress contributes its incumbent), with ``table.interrupted`` set.

    Examples
    --------
    >>> import weakcvx as wc
    >>> X, y_true, y_known = wc.datasets.make_two_moons(12, n_labeled=2, random_state=0)
    >>> problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0),
    ...     wc.labelsets.SemiSupervised(y_known), costs=10.0, y_true=y_true)
    >>> table = wc.compare(problem, methods=["label_generation", "exact"])
    >>> table.best_lower_bound <= table.best_upper_bound + 1e-6
    True
    """
    from .api import METHODS
    from .problem import WeakLabelProblem

    if not isinstance(problem, WeakLabelProblem):
        raise TypeError(f"`problem` must be a WeakLabelProblem. Got {type(problem).__name__}.")
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(
            time_limit, (int, float, np.integer, np.floating)) or not 0 < time_limit < np.inf):
        raise ValueError("`time_limit` must be None or a positive finite number of seconds. "
                         f"Got {time_limit!r} instead.")
    start = time.perf_counter()
    if methods is None:
        methods = default_methods(problem)
    methods = [(m, m, {}) if isinstance(m, str) else m for m in methods]
    for m in methods:
        if not (isinstance(m, tuple) and len(m) == 3 and m[1] in METHODS
                and isinstance(m[2], dict)):
            raise ValueError(f"`methods` must hold method names {METHODS} or (display name, "
                             f"method, options dict) triples. Got {m!r} instead.")
    rungs = []
    interrupted = False
    for k, (name, method, options) in enumerate(methods, 1):
        if interrupted:
            rungs.append(Rung(name=name, result=None, failure="not run (interrupted)"))
            continue
        options = dict(options)
        if (method == "exact" and time_limit is not None
                and options.get("algorithm", "auto") != "enumerate"):
            options.setdefault("time_limit", float(time_limit))
        # the branch and bound reports progress at verbose 1, the others from verbose 2
        solver_verbose = (1 if verbose else 0) if method == "exact" else max(verbose - 1, 0)
        if verbose:
            limit = (f" (time limit {options['time_limit']:g} s)"
                     if options.get("time_limit") is not None else "")
            logger.info("compare [%d/%d]: running %s%s", k, len(methods), name, limit)
        caught = []
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                res = solve(problem, method=method, random_state=random_state,
                            verbose=solver_verbose, **options)
        except (SolverError, ValueError, NotImplementedError) as exc:
            if verbose:
                logger.info("compare [%d/%d]: %s failed: %s", k, len(methods), name, exc)
            rungs.append(Rung(name=name, result=None, failure=f"{type(exc).__name__}: {exc}"))
            continue
        except KeyboardInterrupt:  # Ctrl-C: keep the rungs done so far, run no more
            rungs.append(Rung(name=name, result=None, failure="interrupted"))
            interrupted = True
            continue
        # a method that handles Ctrl-C itself (branch and bound) returns its best so far
        interrupted = res.status == "interrupted"
        notes = list(dict.fromkeys(str(w.message) for w in caught
                                   if issubclass(w.category, ConvergenceWarning)))
        for message in notes:
            warnings.warn(f"compare, rung {name!r}: {message}", ConvergenceWarning, stacklevel=2)
        if verbose:
            logger.info("compare [%d/%d]: %s %s in %.2f s", k, len(methods), name, res.status,
                        res.seconds)
        err = None
        if problem.y_true is not None and np.shape(res.labels) == problem.y_true.shape:
            err = float(np.mean(res.labels != problem.y_true))
            if getattr(problem.labelset, "symmetric", False):
                err = min(err, 1.0 - err)
        rungs.append(Rung(name=name, result=res, error=err, warnings=notes))
    return LadderTable(rungs=rungs, problem_name=problem.name,
                       seconds=time.perf_counter() - start, interrupted=interrupted)
