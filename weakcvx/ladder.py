r"""The ladder of bounds: run several methods on one problem and tabulate them (docs/design.rst §1).

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

from ._validation import warn
from .api import solve
from .result import SolveResult, SolverError

__all__ = ["compare", "LadderTable", "Rung", "default_methods", "EXACT_TIME_LIMIT"]

logger = logging.getLogger("weakcvx")

#: Starts of the exact-oracle label-generation rung of :func:`compare`. Its value is a
#: certified lower bound of the convex hull, a convex problem: the ten random starts that
#: ``solve`` gives a label set without a fixed start (clustering) moved it by at most 7e-4
#: (relative) and left its labels' J unchanged, at ten times the time (blobs, n = 16, seeds
#: 0-3: 7-10 s against 0.6-1 s; docs/ladder.rst).
EXACT_ORACLE_STARTS = 1
#: Above this many labelings, the exact oracle / enumeration is not attempted by default.
SMALL_LABELSET = 2**14
#: The same limit for a formulation without a fast path (a CVXPY solve, ~10 ms, per labeling).
SMALL_LABELSET_CVXPY = 2**10
#: Above this many points, the SDP rung is skipped by default (SCS at eps 1e-3 takes ~47 s at
#: n=200 on these machines: docs/design.rst §3.4).
SDP_MAX_N = 200
#: Above ``SDP_MAX_N`` points, a fast formulation on a label set described by counts gets the
#: SDP rung from the low-rank solver (:mod:`weakcvx.lowrank_sdp`, certified whenever it
#: stops) up to this many points, under :func:`compare`'s ``time_limit``: two moons SSL at
#: n = 1000 comes within a 2-3% certified gap in 60 s (docs/methods/lowrank_sdp.rst).
LOWRANK_SDP_MAX_N = 1000
#: The default SDP rung of a formulation without ``box()`` (the cutting-plane SDP, which
#: :func:`weakcvx.sdp.sdp_cutting_plane` runs up to ``CUTTING_PLANE_MAX_N`` = 60 points when
#: asked): up to this many points. Measured alone on two moons SSL (a user probe): 1.6 s at
#: n = 20, 9.4 s at 30, 34 s at 40; 478 s at 60, stopped at max_iter.
COMPARE_CUTTING_PLANE_MAX_N = 30
#: Default time limit (seconds) of the exact rung (branch and bound): without one the search
#: is exponential (150 breast-cancer rows: 226,000 nodes in 60 s, not finished at 180 s).
EXACT_TIME_LIMIT = 60.0


@dataclass
class Rung:
    """One method's row of the ladder.

    Examples
    --------
    >>> import weakcvx as wc
    >>> X, y_true, y_known = wc.datasets.make_two_moons(10, n_labeled=2, random_state=0)
    >>> problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0),
    ...     wc.labelsets.SemiSupervised(y_known), costs=10.0)
    >>> table = wc.compare(problem, methods=["exact", "alternating"])
    >>> [(rung.name, rung.kind) for rung in table.rungs]
    [('exact', 'optimum'), ('alternating', 'J(labels)')]
    >>> table["exact"].lower_bound <= table["alternating"].value + 1e-6
    True
    """

    name: str
    result: SolveResult | None
    error: float | None = None
    failure: str | None = None
    #: Messages of the ConvergenceWarnings the method raised (e.g. a branch and bound stopped
    #: by its time limit), and notes of :func:`compare` on what the value means (a low-rank SDP
    #: of a weaker relaxation, labels outside B); :func:`compare` re-emits the warnings and
    #: the table lists them all.
    warnings: list = field(default_factory=list)
    #: False when the rung's labels are not in the label set B (``labelset.contains``): its
    #: ``J(labels)`` then bounds nothing and the table leaves it out of the best ``J(labels)``.
    feasible: bool = True

    @property
    def value(self):
        return None if self.result is None else self.result.value

    @property
    def lower_bound(self):
        """The certified lower bound of the MIP this rung produced, or None.

        The SDP value, the convex hull with the exact oracle, the optimum of a finished exact
        search, and the bound of a branch and bound stopped by a limit (its ``value``: the
        smallest bound over the open nodes, certified at any stop).
        """
        r = self.result
        if r is None:
            return None
        if r.method == "exact":
            bound = r.value if r.certified else r.extra.get("lower_bound", r.value)
            return float(bound) if np.isfinite(bound) else None
        if r.certified:
            return float(r.value)
        bound = r.extra.get("certified_lower_bound")  # the SDP certificate at its α
        return None if bound is None else float(bound)

    @property
    def kind(self):
        """What ``value`` is: ``"optimum"`` (certified), ``"lower bound"`` (certified),
        ``"estimate"`` (a relaxation value not certified), ``"J(labels)"`` (a local method's
        objective, an upper bound), ``"best found"`` (an exact search stopped before it had
        any bound) or ``"failed"``."""
        if self.result is None:
            return "failed"
        r = self.result
        if r.method == "exact":
            if r.certified:
                return "optimum"
            return "lower bound" if self.lower_bound is not None else "best found"
        if r.method == "alternating":
            return "J(labels)"
        return "lower bound" if r.certified else "estimate"


def _count(number):
    """A possibly astronomical count, readable: 16,384 or ~1.2e+38."""
    return f"{number:,}" if number < 10**7 else f"~{float(number):.2g}"


@dataclass
class LadderTable:
    """The rungs of one problem: printable, plottable, exportable.

    The rows bracket the MIP optimum (WellSVM Theorem 1; the design page, docs/design.rst §1):
    every certified lower bound :math:`\\ell` (SDP, convex hull with the exact oracle, a branch
    and bound's bound) and every feasible labeling's :math:`J(y)` satisfy

    .. math::

        \\max \\ell \\;\\le\\; \\min_{y \\in B} J(y) \\;\\le\\; \\min J(\\text{labels}).

    Attributes
    ----------
    rungs : list of Rung
        The methods that ran (or failed), in the order they ran.
    problem_name : str
    seconds : float
        Wall time of :func:`compare`.
    skipped : list of (str, str)
        Rungs :func:`compare` did not run by default, with the reason (the SDP above
        ``SDP_MAX_N`` points, the exact oracle above ``SMALL_LABELSET`` labelings, ...).
    interrupted : bool
        True when Ctrl-C stopped :func:`compare`: the table holds the rungs finished so far.

    Examples
    --------
    >>> import weakcvx as wc
    >>> X, y_true, y_known = wc.datasets.make_two_moons(10, n_labeled=2, random_state=0)
    >>> problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0),
    ...     wc.labelsets.SemiSupervised(y_known), costs=10.0)
    >>> table = wc.compare(problem, methods=["label_generation", "exact"])
    >>> table["exact"].kind
    'optimum'
    >>> table.to_csv().splitlines()[0].split(",")[:3]
    ['problem', 'method', 'value']
    """

    rungs: list
    problem_name: str = ""
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)
    interrupted: bool = False
    skipped: list = field(default_factory=list)

    @property
    def best_lower_bound(self):
        """Largest certified lower bound of the MIP over all rungs (:attr:`Rung.lower_bound`),
        None if no rung produced one."""
        vals = [r.lower_bound for r in self.rungs if r.lower_bound is not None]
        return max(vals) if vals else None

    @property
    def best_upper_bound(self):
        """Smallest ``J(labels)`` over the methods whose labels are in B."""
        vals = [r.result.upper_bound for r in self.rungs if r.result is not None and r.feasible]
        return min(vals) if vals else None

    @property
    def gap(self):
        """``best upper bound − best certified lower bound`` (None if no certified bound)."""
        lb, ub = self.best_lower_bound, self.best_upper_bound
        return None if lb is None or ub is None else ub - lb

    @property
    def optimum(self):
        """The certified MIP optimum when an exact rung finished, else None."""
        vals = [r.result.value for r in self.rungs if r.kind == "optimum"]
        return min(vals) if vals else None

    @property
    def best_rung(self):
        """The rung whose labels have the lowest ``J(labels)`` (the first one on ties), or None.
        Its labels are the table's answer: ``table.best_rung.result.labels``."""
        done = [r for r in self.rungs if r.result is not None and r.feasible]
        return min(done, key=lambda r: r.result.upper_bound) if done else None

    def above_optimum(self, rung):
        """True when ``rung`` is an estimate whose value lies above the MIP optimum (the
        certified optimum, or failing that the best ``J(labels)``, which is above it): a
        relaxation value from above that is not a bound of anything."""
        if rung.kind != "estimate":
            return False
        ref = self.optimum if self.optimum is not None else self.best_upper_bound
        return ref is not None and rung.value > ref + 1e-6 * max(1.0, abs(ref))

    @property
    def inconsistent(self):
        """True when the best certified lower bound exceeds the best ``J(labels)`` by more than
        solver rounding (1e-6 relative): impossible for valid inputs (the ladder inequalities),
        so a label set's callbacks disagree (a Custom ``enumerate()`` missing elements, an
        oracle or ``contains()`` inconsistent with the set) or a user formulation's ``box()``
        and ``dual()`` describe different problems."""
        lb, ub = self.best_lower_bound, self.best_upper_bound
        return lb is not None and ub is not None and ub - lb < -1e-6 * max(1.0, abs(ub))

    def __getitem__(self, name):
        for r in self.rungs:
            if r.name == name:
                return r
        skipped = [n for n, _ in self.skipped]
        raise KeyError(f"no rung named {name!r}: the rungs are {[r.name for r in self.rungs]}"
                       + (f" (not run: {skipped})" if skipped else ""))

    def to_records(self):
        """One dict per rung, then one per skipped rung (for JSON/CSV export).

        ``value`` is what ``kind`` names; ``certified`` says whether ``value`` is certified;
        ``lower_bound`` is the certified lower bound the rung produced (None if none);
        ``above_optimum`` marks an estimate that lies above the optimum; ``labels_in_B`` is
        False for labels the label set rejects (their ``J_labels`` bounds nothing).
        """
        out = []
        for r in self.rungs:
            res = r.result
            out.append({
                "method": r.name,
                "value": None if res is None else float(res.value),
                "kind": r.kind,
                "certified": None if res is None else r.kind in ("optimum", "lower bound"),
                "lower_bound": r.lower_bound,
                "above_optimum": self.above_optimum(r),
                "J_labels": None if res is None else float(res.upper_bound),
                "labels_in_B": None if res is None else r.feasible,
                "error": r.error,
                "seconds": None if res is None else float(res.seconds),
                "n_iter": None if res is None else int(res.n_iter),
                "status": r.failure if res is None else res.status,
            })
        for name, reason in self.skipped:
            out.append({"method": name, "value": None, "kind": "skipped", "certified": None,
                        "lower_bound": None, "above_optimum": False, "J_labels": None,
                        "labels_in_B": None, "error": None, "seconds": None, "n_iter": None,
                        "status": f"skipped: {reason}"})
        return out

    def to_dict(self):
        """The whole table as a JSON-ready dict: problem, rungs (:meth:`to_records`), the best
        certified lower bound, the best ``J(labels)``, the gap, the optimum when certified, the
        rung of the best labels, and ``interrupted``."""
        best = self.best_rung
        return {"problem": self.problem_name, "rungs": self.to_records(),
                "best_lower_bound": self.best_lower_bound,
                "best_upper_bound": self.best_upper_bound, "gap": self.gap,
                "optimum": self.optimum, "best_labels_from": None if best is None else best.name,
                "interrupted": self.interrupted}

    def to_json(self, path=None):
        """:meth:`to_dict` as JSON text; written to ``path`` when given (returns None then)."""
        import json

        text = json.dumps(self.to_dict(), indent=2)
        if path is None:
            return text
        with open(path, "w") as fh:
            fh.write(text + "\n")
        return None

    def to_csv(self, path=None):
        """One CSV row per rung (:meth:`to_records`), the problem's name in the first column;
        returned as text, or written to ``path`` when given (returns None then)."""
        import csv
        import io

        records = self.to_records()
        fields = ["problem"] + (list(records[0]) if records else [])
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        for rec in records:
            writer.writerow({"problem": self.problem_name,
                             **{k: "" if v is None else v for k, v in rec.items()}})
        if path is None:
            return out.getvalue()
        with open(path, "w", newline="") as fh:
            fh.write(out.getvalue())
        return None

    def save(self, path, dpi=120):
        """Write the table to ``path``, by its extension: ``.json`` (:meth:`to_json`), ``.csv``
        (:meth:`to_csv`), else an image of :meth:`plot` in that format (``.png``, ``.pdf``,
        ``.svg``...; PNG without an extension). The figure is closed afterwards."""
        import os

        extension = os.path.splitext(str(path))[1][1:].lower()
        if extension == "json":
            return self.to_json(path)
        if extension == "csv":
            return self.to_csv(path)
        import matplotlib.pyplot as plt

        fig = self.plot()
        try:
            formats = fig.canvas.get_supported_filetypes()
            if extension and extension not in formats:
                raise ValueError(f"`path` must end in .json, .csv or an image format of "
                                 f"matplotlib ({', '.join(sorted(formats))}). Got {path!r} "
                                 f"(.{extension}).")
            fig.savefig(path, dpi=dpi, format=extension or "png")
        finally:
            plt.close(fig)
        return None

    def _summary_lines(self):
        lines = []
        lb, ub, optimum = self.best_lower_bound, self.best_upper_bound, self.optimum
        if lb is not None and ub is not None:
            if -1e-9 * max(1.0, abs(ub)) < ub - lb < 0.0:
                lb = ub  # rounding of equal values (a gap below it would be a bug: shown)
            rel = (ub - lb) / max(abs(ub), 1e-12)
            middle = f"MIP optimum {optimum:.5g}" if optimum is not None else "MIP optimum"
            lines.append(f"best certified lower bound {lb:.5g}  ≤  {middle}  ≤  best J(labels) "
                         f"{ub:.5g}   (gap {ub - lb:.4g}, {100 * rel:.2f}%)")
        elif ub is not None:
            lines.append(f"best J(labels) {ub:.5g}; no certified lower bound computed")
        if self.inconsistent:
            lines.append("INCONSISTENT: a certified lower bound exceeds a feasible J(labels), "
                         "which valid inputs cannot give: check the label set (for Custom: "
                         "enumerate() must list every element of B, oracle() return only "
                         "elements, contains() agree with both) and a custom formulation's "
                         "box() against its dual()")
        best = self.best_rung
        if best is not None:
            lines.append(f"best labels: {best.name} (J(labels) {best.result.upper_bound:.5g})")
        for r in self.rungs:
            if self.above_optimum(r):
                ref = "the MIP optimum" if self.optimum is not None else "the best J(labels)"
                lines.append(f"note [{r.name}]: its value {r.value:.5g} is an estimate, above "
                             f"{ref}: the violated-label search was not exact, so the value "
                             "is no bound (oracle='exact' certifies it on small problems)")
            for message in r.warnings:
                lines.append(f"note [{r.name}]: {message}")
        return lines

    def __str__(self):
        head = f"Ladder of bounds — {self.problem_name}" if self.problem_name else "Ladder of bounds"
        # the column holds the rung's certified lower bound (a number; the CSV's boolean
        # `certified` says whether `value` itself is certified)
        lines = [head, f"{'method':<32}{'value':>12}  {'what it is':<20}{'lower bound':>11}"
                 f"{'J(labels)':>12}{'error':>8}{'seconds':>9}  status"]
        for rec in self.to_records():
            value = "—" if rec["value"] is None else f"{rec['value']:.5g}"
            kind = rec["kind"] + (" > optimum" if rec["above_optimum"] else "")
            J = "—" if rec["J_labels"] is None else f"{rec['J_labels']:.5g}"
            err = "—" if rec["error"] is None else f"{100 * rec['error']:.1f}%"
            sec = "—" if rec["seconds"] is None else f"{rec['seconds']:.2f}"
            lb = "—" if rec["lower_bound"] is None else f"{rec['lower_bound']:.5g}"
            lines.append(f"{rec['method']:<32}{value:>12}  {kind:<20}{lb:>11}{J:>12}{err:>8}"
                         f"{sec:>9}  {rec['status']}")
        lines += self._summary_lines()
        if self.interrupted:
            lines.append("interrupted (Ctrl-C): the best results so far")
        return "\n".join(lines)

    __repr__ = __str__

    def _ladder_order(self):
        """Rows bottom to top: lower bounds and estimates by value, then the exact rung, then
        the J(labels) rungs, then failed and skipped rungs."""
        category = {"lower bound": 0, "estimate": 0, "optimum": 1, "best found": 1,
                    "J(labels)": 2, "failed": 3}

        def key(item):
            i, r = item
            if r.result is not None and r.result.method == "exact":
                return (1, 0.0, i)
            return (category[r.kind], r.value if r.value is not None else 0.0, i)

        return [r for _, r in sorted(enumerate(self.rungs), key=key)]

    def _plot_rung(self, ax, r, y):
        res = r.result
        if r.kind == "optimum":
            ax.plot(res.value, y, marker="*", ms=17, color="tab:green", ls="none", zorder=3,
                    label="MIP optimum")
        elif r.kind == "lower bound":
            ax.plot(res.value, y, marker="o", ms=9, color="tab:blue", ls="none", zorder=3,
                    label="certified lower bound")
        elif self.above_optimum(r):
            ax.plot(res.value, y, marker="D", ms=8, mfc="none", mew=1.5, color="tab:orange",
                    ls="none", zorder=3, label="estimate above the optimum (not a bound)")
        elif r.kind == "estimate":
            ax.plot(res.value, y, marker="o", ms=9, mfc="none", color="tab:blue", ls="none",
                    zorder=3, label="relaxation value (not certified)")
        # on top of the star, so both stay visible when J(labels) is the optimum
        if r.feasible:
            ax.plot(res.upper_bound, y, marker="x", ms=8, mew=2, color="tab:red", ls="none",
                    zorder=4, label="J(labels): upper bound")
        else:   # labels outside B: their J bounds nothing
            ax.plot(res.upper_bound, y, marker="x", ms=8, mew=1, color="0.5", ls="none",
                    zorder=4, label="J(labels) of labels outside B (no bound)")
        if r.kind != "J(labels)":
            ax.plot([res.value, res.upper_bound], [y, y], color="0.6", lw=1, zorder=1)

    def plot(self, ax=None):
        """Draw the ladder and return its figure.

        One row per rung, ordered as a ladder: lower bounds from the bottom (by value), then
        the exact rung, then the local methods' ``J(labels)``; failed and skipped rungs on top
        with their reason. Markers: star, the certified optimum; filled circle, a certified
        lower bound; hollow circle, an estimate; hollow orange diamond, an estimate above the
        optimum; red cross, the ``J(labels)`` of the rung's labels (an upper bound; grey when
        the label set rejects them, no bound). The
        certified bracket [best lower bound, best J(labels)] is shaded and its ends drawn as
        lines, so it stays visible when the gap is 0.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw; default a new figure.

        Returns
        -------
        matplotlib.figure.Figure
            ``table.plot().savefig("ladder.png")``, or :meth:`save`.
        """
        import matplotlib.pyplot as plt

        rows = self._ladder_order()
        n_rows = len(rows) + len(self.skipped)
        if ax is None:
            _, ax = plt.subplots(figsize=(8, 0.6 * n_rows + 2.6))
        names = []
        for y, r in enumerate(rows):
            names.append(r.name)
            if r.result is None:
                ax.text(0.01, y, f"failed: {r.failure}"[:90], transform=ax.get_yaxis_transform(),
                        va="center", fontsize=7, color="0.4")
            else:
                self._plot_rung(ax, r, y)
        for k, (name, reason) in enumerate(self.skipped):
            names.append(name)
            ax.text(0.01, len(rows) + k, f"skipped: {reason}"[:90],
                    transform=ax.get_yaxis_transform(), va="center", fontsize=7, color="0.4")
        lb, ub = self.best_lower_bound, self.best_upper_bound
        if lb is not None and ub is not None:
            ax.axvspan(lb, ub, color="tab:green", alpha=0.12,
                       label="certified bracket of the optimum")
            for x in (lb, ub):
                ax.axvline(x, color="tab:green", lw=1, ls="--", alpha=0.7, zorder=0)
        ax.set_yticks(range(n_rows))
        ax.set_yticklabels(names)
        ax.set_ylim(-0.7, n_rows - 0.3)
        ax.set_xlabel("objective (SVM dual value)")
        title = "Ladder of bounds" + (f"\n{self.problem_name}" if self.problem_name else "")
        ax.set_title(title, fontsize=10)
        handles, labels = ax.get_legend_handles_labels()
        uniq = dict(zip(labels, handles))
        ax.legend(uniq.values(), uniq.keys(), loc="upper center", bbox_to_anchor=(0.5, -0.18),
                  ncol=2, fontsize=8, frameon=False)
        ax.grid(axis="x", alpha=0.3)
        ax.figure.tight_layout()
        return ax.figure


def _default_plan(problem):
    """``(methods, skipped)``: the rungs :func:`default_methods` runs, and the rungs it leaves
    out as ``(name, reason)`` pairs."""
    methods, skipped = [], []
    labelset = problem.labelset
    try:
        size = labelset.cardinality()
    except NotImplementedError:  # a Custom set without `enumerate`: its size is unknown
        size = None
    limit, name = (SMALL_LABELSET, "SMALL_LABELSET") if problem.fast else \
        (SMALL_LABELSET_CVXPY, "SMALL_LABELSET_CVXPY")
    small = size is not None and size <= limit
    too_many = (f"|B| = {_count(size)} labelings, above the enumeration limit "
                f"{name} = {limit:,}" if size is not None
                else "the label set cannot be enumerated (no `enumerate`)")
    try:
        from . import sdp

        sdp_max_n = SDP_MAX_N if problem.fast else min(COMPARE_CUTTING_PLANE_MAX_N,
                                                        sdp.CUTTING_PLANE_MAX_N)
        if problem.fast and labelset.count_constraints() is not None:
            sdp_max_n = max(sdp_max_n, LOWRANK_SDP_MAX_N)
        if not labelset.identity_support:
            skipped.append(("sdp", f"the SDP model does not cover {type(labelset).__name__} "
                            "(its label kernels are not K ∘ yyᵀ)"))
        elif problem.n_samples > sdp_max_n:
            skipped.append(("sdp", f"n = {problem.n_samples} points, above the SDP's size "
                            f"limit {sdp_max_n} for {problem.formulation!r}"))
        else:
            methods.append(("sdp", "sdp", {}))
    except ImportError:
        skipped.append(("sdp", "CVXPY is not available"))
    methods.append(("label_generation", "label_generation", {}))
    if small:
        # one start: the rung's value bounds the convex hull, which no start changes; its
        # labels' J is read from the other rungs too (EXACT_ORACLE_STARTS)
        methods.append(("label_generation (exact oracle)", "label_generation",
                        {"oracle": "exact", "n_init": EXACT_ORACLE_STARTS}))
    else:
        skipped.append(("label_generation (exact oracle)", too_many))
    from . import exact

    # branch and bound needs a count description of B and a box containing 0; else enumerate
    if small or (hasattr(exact, "branch_and_bound") and problem.fast
                 and labelset.count_constraints() is not None):
        methods.append(("exact", "exact", {}))
    else:
        skipped.append(("exact", too_many + ", and " + _no_branch_and_bound(problem)))
    methods.append(("alternating", "alternating", {}))
    return methods, skipped


def _no_branch_and_bound(problem):
    """Why branch and bound cannot run on ``problem`` (:func:`_available_methods`)."""
    if problem.labelset.count_constraints() is None:
        return "B is not described by counts (no branch and bound)"
    return (f"the formulation {type(problem.formulation).__name__} has no box fast path (branch "
            "and bound needs one; compare(problem, methods=[..., 'exact']) enumerates B up to "
            "its own limit, at one CVXPY solve per labeling)")


def default_methods(problem):
    """The rungs :func:`compare` runs by default for this problem.

    SDP when the label set's label kernels are ``K ∘ yyᵀ`` and ``n ≤ SDP_MAX_N``
    (``LOWRANK_SDP_MAX_N`` for a fast formulation on a label set described by counts, by the
    low-rank solver; :data:`COMPARE_CUTTING_PLANE_MAX_N` for a formulation without a fast
    path); label generation with the sorting oracle, and with the exact oracle (one start,
    :data:`EXACT_ORACLE_STARTS`) when ``|B| ≤ SMALL_LABELSET``; exact (enumeration when B is small, branch and bound otherwise
    when B is described by counts), whose time limit :func:`compare` sets; alternating.
    The rungs left out are listed, with the reason, in :attr:`LadderTable.skipped`.

    Examples
    --------
    >>> import weakcvx as wc
    >>> X, y_true, y_known = wc.datasets.make_two_moons(10, n_labeled=2, random_state=0)
    >>> problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0),
    ...     wc.labelsets.SemiSupervised(y_known), costs=10.0)
    >>> [name for name, method, options in default_methods(problem)]   # |B| = 2⁸: all rungs
    ['sdp', 'label_generation', 'label_generation (exact oracle)', 'exact', 'alternating']
    """
    return _default_plan(problem)[0]


def _check_method_options(method_options, methods):
    """``method_options`` as a dict of dicts keyed by method names (empty when None)."""
    if method_options is None:
        return {}
    if not isinstance(method_options, dict) or not all(
            k in methods and isinstance(v, dict) for k, v in method_options.items()):
        raise ValueError(f"`method_options` must be a dict mapping method names {methods} to "
                         f"dicts of options. Got {method_options!r} instead.")
    return method_options


def compare(problem, methods=None, random_state=0, verbose=0, time_limit=EXACT_TIME_LIMIT,
            method_options=None):
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
        the branch and bound (every second, every 5 s after 10 s) through
        ``logging.getLogger("weakcvx")``; ``2``: also the other solvers' progress.
    time_limit : float or None, default=EXACT_TIME_LIMIT (60 s)
        Time limit of every ``"exact"`` rung whose options do not set ``time_limit``. A branch
        and bound stopped by it keeps its best labeling (``kind`` "best found", status
        ``"time_limit"``) and its value stays a certified lower bound. ``None``: no limit.
        Also the low-rank SDP rung's (above ``SDP_MAX_N`` points), whose value stays
        certified when it stops.

    Returns
    -------
    LadderTable
        ``print(table)`` shows value, what it certifies, J(labels), error against
        ``problem.y_true`` when known, seconds, status, and the certified gap;
        ``table.plot()`` draws it. A method that fails is listed with its failure instead of
        stopping the comparison; the default rungs not run (too large) are listed in
        ``table.skipped`` with the reason. The ConvergenceWarnings of a method (a solver stopped early,
        e.g. at its time limit) are kept in ``Rung.warnings``, listed as notes under the
        table, and re-emitted once each, prefixed with the rung's name; other warnings of the
        solvers are not shown. A rung whose labels the label set rejects (``contains``) is
        noted and warned about (``Rung.feasible`` False; its ``J(labels)`` is left out of the
        best), a low-rank SDP of a weaker relaxation (range counts left out) is noted, and a
        table whose certified lower bound exceeds a feasible ``J(labels)``
        (``LadderTable.inconsistent``: a label set's callbacks or a formulation's ``box()``
        disagree) says INCONSISTENT, with a UserWarning.
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
    skipped = []
    if methods is None:
        methods, skipped = _default_plan(problem)
    given = methods
    methods = [] if isinstance(methods, str) else [
        (m, m, {}) if isinstance(m, str) else m for m in methods]  # any iterable
    if not methods:
        raise ValueError(f"`methods` must be a non-empty list of method names {METHODS} or "
                         f"(display name, method, options dict) triples. Got {given!r}"
                         + (f"; for one method write [{given!r}]." if isinstance(given, str)
                            else "."))
    for m in methods:
        if not (isinstance(m, tuple) and len(m) == 3 and m[1] in METHODS
                and isinstance(m[2], dict)):
            raise ValueError(f"`methods` must hold method names {METHODS} or (display name, "
                             f"method, options dict) triples. Got {m!r} instead.")
    method_options = _check_method_options(method_options, METHODS)
    rungs = []
    interrupted = False
    for k, (name, method, options) in enumerate(methods, 1):
        if interrupted:
            rungs.append(Rung(name=name, result=None, failure="not run (interrupted)"))
            continue
        options = {**method_options.get(method, {}), **options}
        if (method == "exact" and time_limit is not None and problem.fast
                and options.get("algorithm", "auto") != "enumerate"):
            options.setdefault("time_limit", float(time_limit))
        if (method == "sdp" and time_limit is not None and problem.fast
                and problem.n_samples > SDP_MAX_N and "solver" not in options):
            options.setdefault("time_limit", float(time_limit))  # the low-rank solver
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
        except KeyboardInterrupt:  # Ctrl-C: keep the rungs done so far, run no more
            rungs.append(Rung(name=name, result=None, failure="interrupted"))
            interrupted = True
            continue
        except Exception as exc:  # noqa: BLE001 - one failing rung must not stop the ladder
            if verbose:
                logger.info("compare [%d/%d]: %s failed: %s", k, len(methods), name, exc)
            if not isinstance(exc, (SolverError, ValueError, NotImplementedError)):
                # not a documented failure (e.g. a bug in a user's oracle): said out loud
                warn(f"compare, rung {name!r} raised {type(exc).__name__}: {exc}",
                     RuntimeWarning)
            rungs.append(Rung(name=name, result=None, failure=f"{type(exc).__name__}: {exc}"))
            continue
        # a method that handles Ctrl-C itself (branch and bound) returns its best so far
        interrupted = res.status == "interrupted"
        notes = list(dict.fromkeys(str(w.message) for w in caught
                                   if issubclass(w.category, ConvergenceWarning)))
        for message in notes:
            warn(f"compare, rung {name!r}: {message}", ConvergenceWarning)
        if verbose:
            logger.info("compare [%d/%d]: %s %s in %.2f s", k, len(methods), name, res.status,
                        res.seconds)
        err = None
        if problem.y_true is not None and np.shape(res.labels) == problem.y_true.shape:
            err = float(np.mean(res.labels != problem.y_true))
            if getattr(problem.labelset, "symmetric", False):
                err = min(err, 1.0 - err)
        _certify_hull(problem, res)
        feasible, more = _rung_notes(problem, name, res)
        rungs.append(Rung(name=name, result=res, error=err, warnings=notes + more,
                          feasible=feasible))
    table = LadderTable(rungs=rungs, problem_name=problem.name,
                        seconds=time.perf_counter() - start, interrupted=interrupted,
                        skipped=skipped)
    if table.inconsistent:
        warn(f"compare: the best certified lower bound {table.best_lower_bound:.6g} exceeds the "
             f"best J(labels) {table.best_upper_bound:.6g}, which valid inputs cannot give; "
             "see the table's note.", UserWarning)
    return table


def _rung_notes(problem, name, res):
    """``(feasible, notes)`` of a finished rung: whether its labels lie in B
    (``labelset.contains``; a rung whose labels do not bounds nothing, said with a
    UserWarning), and what its value means when that is not what its kind says (a low-rank
    SDP that left range constraints of the label set out: a weaker relaxation's bound)."""
    notes = []
    if res.extra.get("solver") == "lowrank" and res.extra.get("dropped_ranges"):
        notes.append(f"the low-rank SDP leaves out {res.extra['dropped_ranges']} range "
                     "constraint(s) of the label set: its value bounds a weaker relaxation "
                     "than the CVXPY SDP's (solver='SCS' up to 200 points), still a certified "
                     "lower bound")
    try:
        feasible = bool(problem.labelset.contains(res.labels))
    except (TypeError, ValueError) as exc:
        feasible, why = False, f"contains() raised {type(exc).__name__}: {exc}"
    else:
        why = "contains() rejects them"
    if not feasible:
        message = (f"its labels are not in the label set B ({why}): its J(labels) bounds "
                   "nothing and is left out of the best J(labels)")
        notes.append(message)
        warn(f"compare, rung {name!r}: {message}", UserWarning)
    return feasible, notes


def _certify_hull(problem, res):
    """A label-generation rung without an exact oracle gets a certified lower bound at any n:
    the SDP certificate at the best multiple of its final α (``V_sdp ≤ V_hull``; docs/design.rst
    §3.10), in
    ``res.extra["certified_lower_bound"]``. Label sets without a count description keep none."""
    if res.method != "label_generation" or res.certified or res.alpha is None \
            or problem.labelset.count_constraints() is None \
            or np.shape(res.alpha) != (problem.n_samples,):
        return
    from .lowrank_sdp import certify

    res.extra["certified_lower_bound"] = certify(problem, res.alpha).value
