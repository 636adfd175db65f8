r"""The generic label-generation driver: WellSVM Algorithm 1 (DESIGN.md §3.3).

.. code-block:: text

    C ← {b₀}
    repeat
        (α, μ) ← master(C)
        b̂ ← argmax_{b∈C} αᵀQ_bα ;  r ← linearisation of αᵀQ_bα at b̂
        b* ← labelset.argmax(r)                       # sorting oracle
        violated ⇔ αᵀQ_{b*}α > αᵀQ_{b̂}α + 2ε
    until not violated, or relative decrease of the master value < tol, or max_iter

The sorting oracle maximises the linearisation ``b ↦ 2 b̂ᵀH b`` of the convex function
``b ↦ bᵀHb`` (``H = K ∘ ααᵀ``) exactly, so it always returns a label at least as violated as
``b̂`` (WellSVM Prop. 4) but not necessarily the most violated one. ``oracle="exact"`` enumerates B
(tiny problems) and then ``1ᵀα − ½ max_{b∈B} αᵀQ_bα`` is a certified lower bound of the convex-hull
relaxation, hence of the MIP (minimax theorem).
"""

from __future__ import annotations

import logging
import time

import numpy as np

from .mkl import solve_master
from .result import SolveResult
from .svm import solve_box_qp

__all__ = ["label_generation", "supervised_scores", "round_scores"]

logger = logging.getLogger("weakcvx")


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
    sol = solve_box_qp(problem.factor, known.astype(np.int64), fixed[known].astype(float),
                       problem.costs[known], tol=tol)
    return np.asarray(problem.factor @ sol.w[0]).ravel()


def _linearisation(problem, alpha, b_hat, scores):
    r"""``r = H b̂`` with ``H = K ∘ ααᵀ``: ``r_i = α_i (K(α ∘ b̂))_i`` (WellSVM eq. 16).

    Points with ``α_i = 0`` would get ``r_i = 0`` and be labelled arbitrarily; a tie-break of
    ``1e-6 · c_i · f(x_i)`` makes them follow the current classifier.
    """
    R = problem.factor
    v = R.T @ (alpha * b_hat)
    r = alpha * np.asarray(R @ v).ravel()
    return r + 1e-6 * problem.costs * scores


def _most_violated_sorting(problem, alpha, b_hat, scores):
    labelset = problem.labelset
    if hasattr(labelset, "most_violated"):
        return labelset.most_violated(problem, alpha, b_hat, scores)
    return labelset.argmax(_linearisation(problem, alpha, b_hat, scores))


def _all_quadratics(problem, alpha, elements):
    """``αᵀQ_bα`` for every element of an enumerated label set."""
    R = problem.factor
    if getattr(problem.labelset, "is_sign_set", True) and elements.shape[1] == alpha.shape[0]:
        V = np.asarray(R.T @ (elements * alpha).T).T  # (N, r)
        return np.einsum("nr,nr->n", V, V)
    return np.array([problem.quadratic(alpha, b) for b in elements])


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


def label_generation(problem, oracle="sorting", initial=None, epsilon=1e-3, tol=1e-3,
                     max_iter=50, master=None, master_tol=1e-4, max_alternations=200,
                     enumeration_limit=None, verbose=0, random_state=0, callback=None):
    r"""WellSVM's convex relaxation by label generation (cutting planes + MKL).

    Solves ``min_{μ ∈ Δ(B)} max_{α ∈ A} 1ᵀα − ½αᵀ(Σ_b μ_b Q_b)α`` by growing a working set C.

    Parameters
    ----------
    problem : WeakLabelProblem
    oracle : {"sorting", "exact"}
        ``"sorting"``: the label set's linear oracle on the linearisation (fast, not certified);
        ``"exact"``: enumerate B (tiny problems); the result's ``value`` is then the certified
        lower bound ``1ᵀα − ½ max_{b∈B} αᵀQ_bα``.
    initial : array or None
        First label in the working set; default: the supervised SVM's scores rounded by the label
        set (SSL), or the label set's own initial rule.
    epsilon : float
        Violation threshold, relative: stop when ``αᵀQ_{b*}α ≤ αᵀQ_{b̂}α + 2ε·max(1, value)``.
    tol : float
        Stop when the master value decreases by less than ``tol`` (relative) in one round.
    max_iter : int
        Maximum cutting-plane rounds.
    master : {"mklgl", "cvxpy"} or None
        Master solver. Default: ``"mklgl"`` (fast alternation) with the sorting oracle;
        ``"cvxpy"`` (the SOCP, Clarabel up to 300 points, SCS above) with ``oracle="exact"``,
        whose problems are tiny and whose certified value is only as tight as the master's α
        (MKLGL converges slowly at tight tolerances).
    master_tol, max_alternations :
        Tolerance and alternation cap of the MKLGL master.
    verbose : int
        Log one line per round at INFO level on ``logging.getLogger("weakcvx")`` when > 0.
    callback : callable, optional
        Called with the history record after each round.

    Returns
    -------
    SolveResult
        ``value``: master value over the final working set (certified lower bound of the MIP when
        ``oracle="exact"``); ``labels``: the rounding of ``f(x_i) = Σ_t μ_t Σ_j α_j b_tj K_ij`` (or
        the heaviest label of C when it has lower J); ``upper_bound = J(labels)``.

    Examples
    --------
    >>> import weakcvx as wc
    >>> X, y_true, y_known = wc.datasets.make_two_moons(40, n_labeled=2, random_state=0)
    >>> K = wc.kernels.rbf(X, gamma=2.0)
    >>> problem = wc.WeakLabelProblem(K, wc.labelsets.SemiSupervised(y_known), costs=10.0)
    >>> res = label_generation(problem)
    >>> res.value <= res.upper_bound
    True
    """
    if oracle not in ("sorting", "exact"):
        raise ValueError(f"`oracle` must be 'sorting' or 'exact'. Got {oracle!r} instead.")
    start = time.perf_counter()
    labelset = problem.labelset
    c = problem.costs
    if master is None:
        master = "cvxpy" if oracle == "exact" else "mklgl"
    cvx_solver = "CLARABEL" if problem.n_samples <= 300 else "SCS"
    elements = None
    if oracle == "exact":
        kwargs = {} if enumeration_limit is None else {"limit": enumeration_limit}
        elements = labelset.enumerate(**kwargs)

    if initial is None:
        scores0 = supervised_scores(problem)
        b0 = labelset.initial(scores=scores0, random_state=random_state)
    else:
        b0 = np.asarray(initial, dtype=float)
        if not labelset.contains(b0):
            raise ValueError("`initial` must be an element of the label set. Got an infeasible "
                             "labeling.")
    working_set = [b0]
    alpha = None
    mu = None
    history = []
    status, message = "max_iter", f"stopped after max_iter={max_iter} rounds"
    previous = np.inf
    sol = None
    it = 0
    for it in range(1, max_iter + 1):
        rows, signs = problem.stack(working_set)
        sol = solve_master(problem.factor, rows, signs, c, master=master, alpha0=alpha, mu0=mu,
                           tol=master_tol, max_alternations=max_alternations,
                           solver=cvx_solver, random_state=random_state)
        alpha, mu = sol.alpha, sol.mu
        value = sol.value
        t_hat = int(np.argmax(sol.quadratics))
        q_hat = float(sol.quadratics[t_hat])
        scores = problem.decision_scores(alpha, working_set, mu)
        if oracle == "exact":
            q_all = _all_quadratics(problem, alpha, elements)
            j = int(np.argmax(q_all))
            b_star, q_star = elements[j], float(q_all[j])
        else:
            b_star = _most_violated_sorting(problem, alpha, working_set[t_hat], scores)
            q_star = problem.quadratic(alpha, b_star)
        violation = q_star - q_hat
        record = {"iteration": it, "value": value, "lower": sol.lower, "violation": violation,
                  "working_set_size": len(working_set), "alternations": sol.n_alternations,
                  "seconds": time.perf_counter() - start}
        history.append(record)
        if verbose:
            logger.info("label_generation it=%d value=%.6g violation=%.3g |C|=%d", it, value,
                        violation, len(working_set))
        if callback is not None:
            callback(record)
        if violation <= 2 * epsilon * max(1.0, abs(value)):
            status, message = "converged", "no violated label (WellSVM Algorithm 1 test)"
            break
        if np.isfinite(previous) and previous - value < tol * max(1.0, abs(previous)):
            status, message = "converged", "relative decrease of the master value below tol"
            break
        if any(np.array_equal(b_star, b) for b in working_set):
            status, message = "converged", "the oracle returned a label already in the working set"
            break
        previous = value
        working_set.append(np.asarray(b_star, dtype=float))
        mu = np.append(mu * (1 - 1 / len(working_set)), 1 / len(working_set))

    value = float(sol.value)
    certified = False
    extra = {"master_value": value, "master_lower": float(sol.lower), "oracle": oracle}
    if oracle == "exact":
        q_all = _all_quadratics(problem, alpha, elements)
        value = float(alpha.sum() - 0.5 * q_all.max())
        certified = True
    scores = problem.decision_scores(alpha, working_set, mu)
    heaviest = working_set[int(np.argmax(mu))]
    labels, upper, _ = round_scores(problem, scores, candidates=[heaviest])
    extra["scores"] = scores
    return SolveResult(method="label_generation", value=value, labels=labels, upper_bound=upper,
                       certified=certified, status=status, message=message, n_iter=it,
                       seconds=time.perf_counter() - start, history=history, alpha=alpha, mu=mu,
                       working_set=working_set, extra=extra)
