r"""Exact solution of the MIP ``min_{y ∈ B} J(y)`` (DESIGN.md §3.5).

:func:`enumerate_optimum` evaluates ``J`` on every element of B with warm starts: the ground
truth for tests and for tiny problems (up to ~16 unknown labels).
"""

from __future__ import annotations

import logging
import time

import numpy as np

from .result import SolveResult

__all__ = ["enumerate_optimum"]

logger = logging.getLogger("weakcvx")


def enumerate_optimum(problem, limit=None, tol=1e-8, verbose=0):
    """Global optimum of ``min_{b∈B} J(b)`` by enumerating B.

    Every ``J(b)`` is an SVM box QP solved to ``tol`` and warm-started from the previous α
    (consecutive elements differ in few labels). For symmetric sets (clustering) only one of
    ``b``, ``−b`` is solved.

    Parameters
    ----------
    problem : WeakLabelProblem
    limit : int, optional
        Refuse label sets larger than this (default: the label set's enumeration limit).
    tol : float
        Box-QP tolerance.

    Returns
    -------
    SolveResult
        ``value = upper_bound = min J``, ``certified=True``, ``extra["values"]`` all ``J(b)``.

    Examples
    --------
    >>> import numpy as np, weakcvx as wc
    >>> X = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    >>> problem = wc.WeakLabelProblem(features=X,
    ...     labelset=wc.labelsets.SemiSupervised(np.array([-1, 0, 0, 1])))
    >>> enumerate_optimum(problem).labels
    array([-1., -1.,  1.,  1.])
    """
    start = time.perf_counter()
    labelset = problem.labelset
    elements = labelset.enumerate() if limit is None else labelset.enumerate(limit=limit)
    values = np.full(len(elements), np.inf)
    alpha = None
    seen = {}
    for k, b in enumerate(elements):
        if getattr(labelset, "symmetric", False):
            key = (-b).tobytes()
            if key in seen:
                values[k] = values[seen[key]]
                continue
            seen[b.tobytes()] = k
        values[k], alpha_k = problem.J(b, alpha0=alpha, tol=tol)
        alpha = alpha_k if alpha is None or alpha_k.shape == alpha.shape else None
    j = int(np.argmin(values))
    best_value, best_alpha = problem.J(elements[j], tol=tol)
    return SolveResult(method="exact", value=best_value, labels=elements[j].copy(),
                       upper_bound=best_value, certified=True, status="optimal",
                       message=f"enumerated all {len(elements)} labelings", n_iter=len(elements),
                       seconds=time.perf_counter() - start,
                       history=[{"iteration": len(elements), "value": best_value}],
                       alpha=best_alpha, mu=np.ones(1), working_set=[elements[j].copy()],
                       extra={"values": values, "n_nodes": len(elements)})
