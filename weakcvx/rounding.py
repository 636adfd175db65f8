"""Rounding and supervised starts (docs/design.rst §3.3): real scores rounded to a feasible
labeling by the label set's oracle (the lowest ``J`` among candidates kept), the scores of the
SVM of the fixed labels only (the first label of every search), and the tolerance of the loose
SVM fits that searches make before an exact ``J``.

The label-generation driver (:mod:`weakcvx.cutting_plane`), the local heuristics
(:mod:`weakcvx.local`) and the SDP rounding (:mod:`weakcvx.sdp`) all start from here, so none of
them imports another for it.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .svm import solve_box_qp

__all__ = ["round_scores", "supervised_scores", "POLISH_TOL"]

#: Projected-gradient tolerance of the SVM fits inside the rounding's polish; the labels it
#: ends at get an exact ``J`` (default tolerance) afterwards.
POLISH_TOL = 1e-3


def supervised_scores(problem, tol=1e-4):
    """Scores of an SVM (no offset) trained on the fixed labels of the label set only.

    Returns ``None`` when the label set fixes no label (e.g. clustering).
    """
    cc = problem.labelset.count_constraints()
    if cc is None:
        return None
    fixed = np.asarray(cc[0])
    known = np.flatnonzero(fixed != 0)
    if known.size == 0:
        return None
    with warnings.catch_warnings():
        # only a start for the search (its labels are rounded and then improved by the driver):
        # a loose α here changes no result, so its epoch limit is not the user's warning
        # (haberman, 31 labeled points with duplicates: gap 2.5e-4 after 1000 epochs)
        warnings.filterwarnings("ignore", message="solve_box_qp", category=ConvergenceWarning)
        sol = solve_box_qp(problem.box_factor, known.astype(np.int64),
                           fixed[known].astype(float), problem.costs[known], tol=tol,
                           gram=problem.gram)
    coef = np.zeros(problem.n_samples)
    coef[known] = sol.alpha * fixed[known]
    return np.asarray(problem.kernel_dot(coef)).ravel()



def round_scores(problem, scores, candidates=()):
    """Round real scores to a feasible labeling: ``labelset.argmax(scores)``; among it and the
    optional ``candidates`` keep the one with the lowest ``J``. Returns ``(labels, J, alpha)``."""
    best = None
    seen = []
    for b in [problem.labelset.argmax(scores), *candidates]:
        if any(np.array_equal(b, s) for s in seen):
            continue
        seen.append(b)
        value, alpha = problem.J(b)
        if best is None or value < best[1]:
            best = (b, value, alpha)
    return best
