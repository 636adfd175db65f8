r"""Local heuristics: alternating optimisation to a local optimum (DESIGN.md §3.3, §3.6).

Alternating minimisation of the MIP's primal ``½‖w‖² + Σ_i c_i max(0, 1 − b_i w·φ(x_i))``:

1. labels fixed: the SVM (box QP) gives ``w`` and the scores ``f(x_i) = w·φ(x_i)``;
2. ``w`` fixed: the best labeling in B is exactly ``labelset.argmax(δ)`` with
   ``δ_i = c_i[max(0, 1 + f_i) − max(0, 1 − f_i)]`` (the loss of −1 minus the loss of +1), since
   ``Σ_i c_i loss_i(b_i) = const − ½ Σ_i b_i δ_i``.

Each step can only decrease the objective, so ``J`` of the labels is non-increasing and the loop
stops at a labeling that the relabeling step cannot improve: a local optimum.
"""

from __future__ import annotations

import logging
import time

import numpy as np

from .cutting_plane import supervised_scores
from .result import SolveResult

__all__ = ["alternating", "relabel_scores"]

logger = logging.getLogger("weakcvx")


def relabel_scores(scores, costs):
    """``δ_i = c_i[hinge(−f_i) − hinge(f_i)]``: maximise ``Σ b_i δ_i`` to relabel exactly."""
    return costs * (np.maximum(0.0, 1.0 + scores) - np.maximum(0.0, 1.0 - scores))


def alternating(problem, initial=None, max_iter=100, tol=1e-8, verbose=0, random_state=0):
    """Alternate SVM fit and exact relabeling by the label set's oracle, to a local optimum.

    Parameters
    ----------
    problem : WeakLabelProblem
    initial : array or None
        Starting labeling; default the supervised SVM's scores rounded by the label set, or the
        label set's own initial rule (random for clustering, seeded by ``random_state``).
    max_iter : int
    tol : float
        Stop when ``J`` decreases by less than ``tol`` (relative).

    Returns
    -------
    SolveResult
        ``value = upper_bound = J(labels)``, ``certified=False``.

    Examples
    --------
    >>> import weakcvx as wc
    >>> X, y_true, y_known = wc.datasets.make_two_moons(40, n_labeled=2, random_state=0)
    >>> problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0),
    ...                               wc.labelsets.SemiSupervised(y_known), costs=10.0)
    >>> res = alternating(problem)
    >>> res.value == res.upper_bound
    True
    """
    start = time.perf_counter()
    labelset = problem.labelset
    if initial is None:
        b = labelset.initial(scores=supervised_scores(problem), random_state=random_state)
    else:
        b = np.asarray(initial, dtype=float)
        if not labelset.contains(b):
            raise ValueError("`initial` must be an element of the label set. Got an infeasible "
                             "labeling.")
    value, alpha = problem.J(b)
    history = [{"iteration": 0, "value": value, "seconds": time.perf_counter() - start}]
    status, message = "max_iter", f"stopped after max_iter={max_iter} alternations"
    it = 0
    for it in range(1, max_iter + 1):
        scores = problem.decision_scores(alpha, [b], np.ones(1))
        b_new = labelset.argmax(relabel_scores(scores, problem.costs))
        if np.array_equal(b_new, b):
            status, message = "converged", "labels unchanged"
            break
        new_value, new_alpha = problem.J(b_new, alpha0=alpha)
        history.append({"iteration": it, "value": new_value,
                        "seconds": time.perf_counter() - start})
        if verbose:
            logger.info("alternating it=%d J=%.6g", it, new_value)
        if new_value >= value - tol * max(1.0, abs(value)):
            if new_value < value:
                b, value, alpha = b_new, new_value, new_alpha
            status, message = "converged", "objective stopped decreasing"
            break
        b, value, alpha = b_new, new_value, new_alpha
    return SolveResult(method="alternating", value=value, labels=b, upper_bound=value,
                       certified=False, status=status, message=message, n_iter=it,
                       seconds=time.perf_counter() - start, history=history, alpha=alpha,
                       mu=np.ones(1), working_set=[b])
