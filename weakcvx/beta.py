r"""β-risk and the β-SVM (Zantedeschi, Emonet & Sebban, NIPS 2016; docs/design.rst §3.7).

A weak supervision is encoded by an n×2 matrix β of label confidences whose rows lie on the
simplex; column 0 is σ = −1, column 1 is σ = +1. The β-SVM primal is

.. math::

    \min_{θ, b, ξ} \tfrac12\|θ\|^2 + \sum_i c_i (β_i^- ξ_i^- + β_i^+ ξ_i^+)
    \quad\text{s.t.}\quad σ(θ·φ(x_i) + b) \ge 1 − ξ_i^σ,\ ξ \ge 0,\ σ ∈ \{−1, +1\},

and its dual (paper eq. of §4; supplementary §3), with a = (α⁺, α⁻) and 2n variables, is

.. math::

    \max_a 1^\top a − \tfrac12 (α^+ − α^-)^\top K (α^+ − α^-)
    \quad\text{s.t.}\quad 0 \le α_i^σ \le c_i β_i^σ,\ \sum_i (α_i^+ − α_i^-) = 0,

with ``f(x) = Σ_i (α_i⁺ − α_i⁻) k(x_i, x) + b``. This module has

- :func:`beta_svm_dual`: the reference, a CVXOPT ``qp`` (options passed per call);
- :func:`beta_svm_smo`: the fast path, libsvm's SMO on the 2n multipliers over the n × n
  kernel, warm-started from the previous P1 of the alternation;
- :func:`beta_svm_libsvm`: the same dual as a weighted standard SVM on the data duplicated as
  ``(x_i, +1)`` with weight ``c_i β_i⁺`` and ``(x_i, −1)`` with weight ``c_i β_i⁻`` (LIBSVM
  through scikit-learn, the fast path's twin);
- :func:`p2_step`: the β update P2, a CVXPY linear program;
- :func:`beta_iterate`: the P1/P2 alternation of the paper's §3;
- initialisations: :func:`beta_semi_supervised`, :func:`beta_from_knn`,
  :func:`beta_from_proportions`, :func:`beta_from_votes` (multi-expert).
"""

from __future__ import annotations

import logging
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ._smo import restore_equality, svm_offset_solve
from ._solvers import cvxopt_qp
from ._validation import check_real, warn
from .svm import EPOCH_CAPS, OFFSET_FEATURE, LinearOffsetSVM
from .model_selection import check_bags
from .result import SolverError

__all__ = [
    "BetaSVMSolution",
    "BetaIterationResult",
    "P2Problem",
    "check_beta",
    "beta_svm_dual",
    "beta_svm_libsvm",
    "beta_svm_smo",
    "beta_svm_primal",
    "beta_svm_features",
    "fit_beta_svm",
    "p2_linprog",
    "p2_step",
    "beta_iterate",
    "beta_semi_supervised",
    "beta_from_knn",
    "nearest_other_rows",
    "beta_from_proportions",
    "beta_from_votes",
]

logger = logging.getLogger("weakcvx")

#: Relative size under which an upper bound ``c_i β_i^σ`` counts as zero: that multiplier is
#: fixed at 0 instead of being handed to the interior-point solver as a degenerate box.
ZERO_BOUND_RTOL = 1e-12

#: A multiplier is "free" (strictly between its bounds) when it is further than this fraction of
#: its upper bound from both bounds; CVXOPT stops with complementarity ~1e-9, far below this.
FREE_RTOL = 1e-5

#: CVXOPT options of the reference QP (per call; ``cvxopt.solvers.options`` is never touched).
CVXOPT_OPTIONS = {"show_progress": False, "abstol": 1e-10, "reltol": 1e-10, "feastol": 1e-10,
                  "maxiters": 200}

#: Solver of the CVXPY model :class:`P2Problem` (the fast path :func:`p2_linprog` calls the
#: same HiGHS dual simplex directly), chosen by measurement (see :func:`p2_step`): CVXPY's
#: "SCIPY" interface, i.e. SciPy's own HiGHS build, whose dual simplex returns a vertex like
#: highspy but prints nothing (highspy writes a licence banner to stdout on the first solve of
#: every process).
P2_SOLVER = "SCIPY"

#: Options passed with each P2 solve, per CVXPY solver name.
P2_SOLVER_OPTIONS = {"SCIPY": {"scipy_options": {"method": "highs-ds"}}}

#: Iteration limit of LIBSVM in :func:`beta_svm_libsvm` and of the SMO in
#: :func:`beta_svm_smo`: ``max(LIBSVM_MAX_ITER, 10⁴·m)`` for m active multipliers. Past the
#: limit :func:`beta_iterate` falls back to CVXOPT. Chosen on the SMO iterations of
#: breast_cancer, standardized and raw (docs/methods/beta.rst, "Measurements behind the
#: defaults").
LIBSVM_MAX_ITER = 10_000_000


# --------------------------------------------------------------------------------------------
# validation


def check_beta(beta, n_samples=None, name="beta", atol=1e-6):
    """Validate a β matrix: shape (n_samples, 2), finite, non-negative, rows summing to 1.

    Parameters
    ----------
    beta : array-like of shape (n_samples, 2)
        Column 0 is the confidence in σ = −1 (``classes_[0]``), column 1 in σ = +1.
    n_samples : int or None
        Expected number of rows.
    name : str
        Name used in error messages.
    atol : float
        Tolerance on the row sums; rows are renormalised exactly after the check.

    Returns
    -------
    ndarray of shape (n_samples, 2), float64

    Examples
    --------
    >>> check_beta([[0.5, 0.5], [0.0, 1.0]])
    array([[0.5, 0.5],
           [0. , 1. ]])
    """
    check_real(beta, name)
    try:
        B = np.array(beta, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"`{name}` must be a numeric array of shape (n_samples, 2). "
                        f"Got {type(beta).__name__} instead.") from exc
    if B.ndim != 2 or B.shape[1] != 2 or (n_samples is not None and B.shape[0] != n_samples):
        want = f"({n_samples}, 2)" if n_samples is not None else "(n_samples, 2)"
        raise ValueError(f"`{name}` must have shape {want}: one row per sample, one column per "
                         f"class. Got shape {B.shape} instead.")
    if not np.all(np.isfinite(B)):
        raise ValueError(f"`{name}` must be finite. Got NaN or inf entries.")
    if np.any(B < 0):
        i = int(np.argwhere(B < 0)[0][0])
        raise ValueError(f"`{name}` must have non-negative entries. Got row {i} = "
                         f"{B[i].tolist()} instead.")
    sums = B.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1.0) > atol)
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"The rows of `{name}` must sum to 1 (each row lies on the simplex). "
                         f"Got row {i} = {B[i].tolist()} summing to {float(sums[i])!r} "
                         f"({bad.size} such rows) instead.")
    return B / sums[:, None]


def _check_costs(C, n):
    c = np.broadcast_to(np.asarray(C, dtype=np.float64), (n,)).copy() if np.ndim(C) == 0 \
        else np.asarray(C, dtype=np.float64)
    if c.shape != (n,) or not np.all(np.isfinite(c)) or np.any(c <= 0):
        raise ValueError(f"`C` must be a positive number or an array of {n} positive costs. "
                         f"Got {C!r} instead.")
    return c


def _check_kernel(K):
    K = np.asarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape[0] != K.shape[1] or not np.all(np.isfinite(K)):
        raise ValueError(f"`K` must be a finite square kernel matrix. Got shape {K.shape}.")
    return K


# --------------------------------------------------------------------------------------------
# P1: the β-SVM dual


@dataclass
class BetaSVMSolution:
    """A solved β-SVM.

    Attributes
    ----------
    alpha : ndarray of shape (n, 2)
        Multipliers ``α_i^σ``, columns ordered (σ = −1, σ = +1) like β.
    dual_coef : ndarray of shape (n,)
        ``α⁺ − α⁻``: ``f(x) = Σ_i dual_coef_i k(x_i, x) + intercept``.
    intercept : float
        The offset b.
    dual_objective : float
        ``1ᵀa − ½ dual_coefᵀ K dual_coef``.
    solver : str
    status : str
    offset_rule : str
        ``"free"`` (mean over free multipliers), ``"kkt_interval"`` (midpoint of the interval
        that the bound multipliers allow), ``"degenerate"`` (one class has no weight) or
        ``"proximal"`` (the feature-space solver's offset search, :func:`beta_svm_features`).
    coef : ndarray of shape (d,) or None
        ``θ`` itself when P1 was solved in a feature space (``f(x) = θ·x + b``); None on a
        kernel matrix.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[-2.0], [-1.0], [1.0], [2.0]]); K = X @ X.T
    >>> beta = [[1, 0], [1, 0], [0, 1], [0, 1]]   # certain labels: -1, -1, +1, +1
    >>> sol = fit_beta_svm(K, beta, C=10.0)
    >>> sol.solver, sol.alpha.shape, np.sign(K @ sol.dual_coef + sol.intercept).tolist()
    ('smo', (4, 2), [-1.0, -1.0, 1.0, 1.0])
    >>> primal = beta_svm_primal(K, beta, 10.0, sol.dual_coef, sol.intercept)
    >>> bool(np.isclose(sol.dual_objective, primal, rtol=1e-4))   # no duality gap
    True
    """

    alpha: np.ndarray
    dual_coef: np.ndarray
    intercept: float
    dual_objective: float
    solver: str
    status: str = "optimal"
    offset_rule: str = "free"
    extra: dict = field(default_factory=dict)
    coef: np.ndarray | None = None


def _active_multipliers(beta, c):
    """Multipliers with a positive upper bound: rows, signs σ and upper bounds ``c_i β_i^σ``."""
    ub = c[:, None] * beta                      # column 0: σ = −1, column 1: σ = +1
    cut = ZERO_BOUND_RTOL * max(ub.max(), 1e-300)
    rows, cols = np.nonzero(ub > cut)
    signs = np.where(cols == 1, 1.0, -1.0)
    return rows, signs, ub[rows, cols]


def _offset(g_rows, signs, a, ub):
    """Offset b from the KKT conditions of the dual.

    Free multipliers (0 < a < ub) satisfy ``σ(g + b) = 1``, so ``b = σ − g``; their mean is
    returned. With none free, the bound multipliers only bracket b (a = 0: σ(g + b) ≥ 1;
    a = ub: σ(g + b) ≤ 1) and the midpoint of that interval is returned (LIBSVM's rule).
    """
    free = (a > FREE_RTOL * ub) & (a < (1.0 - FREE_RTOL) * ub)
    if np.any(free):
        return float(np.mean(signs[free] - g_rows[free])), "free"
    limit = signs - g_rows                      # σ(g + b) = 1  <=>  b = σ − g
    at_lower = a <= FREE_RTOL * ub
    lower = (at_lower & (signs > 0)) | (~at_lower & (signs < 0))
    lo = limit[lower].max() if np.any(lower) else -np.inf
    hi = limit[~lower].min() if np.any(~lower) else np.inf
    if np.isfinite(lo) and np.isfinite(hi):
        return 0.5 * (lo + hi), "kkt_interval"
    return (float(lo) if np.isfinite(lo) else float(hi)), "kkt_interval"


def _prepare(K, beta, C, solver):
    """Validated kernel, the active multipliers, and the solution when the problem is
    degenerate: all weight on one σ, so the equality forces α = 0, θ = 0, and b = σ puts every
    point on the margin of its only label."""
    K = _check_kernel(K)
    n = K.shape[0]
    rows, signs, ub = _active_multipliers(check_beta(beta, n), _check_costs(C, n))
    degenerate = None
    if np.all(signs > 0) or np.all(signs < 0):
        sigma = float(signs[0]) if signs.size else 1.0
        degenerate = BetaSVMSolution(np.zeros((n, 2)), np.zeros(n), sigma, 0.0, solver,
                                     "optimal", "degenerate")
    return K, rows, signs, ub, degenerate


def _assemble(n, rows, signs, a, K, ub, solver, status, extra=None):
    alpha = np.zeros((n, 2))
    alpha[rows, (signs > 0).astype(int)] = a
    dual_coef = alpha[:, 1] - alpha[:, 0]
    g = K @ dual_coef
    b, rule = _offset(g[rows], signs, a, ub)
    obj = float(a.sum() - 0.5 * dual_coef @ g)
    return BetaSVMSolution(alpha, dual_coef, b, obj, solver, status, rule, extra or {})


def beta_svm_dual(K, beta, C=1.0, solver_options=None):
    r"""Solve the β-SVM dual with CVXOPT's ``qp`` (the reference solver).

    .. math::

        \min_a \tfrac12 a^\top P a − 1^\top a,\quad P = (s s^\top) ∘ K_{rr},
        \quad 0 \le a \le u,\quad s^\top a = 0,

    over the multipliers whose upper bound ``u = c_i β_i^σ`` is positive (rows ``r``, signs
    ``s``); the others are 0. The offset comes from the free multipliers, with the KKT interval
    midpoint as fallback (see :class:`BetaSVMSolution`).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Kernel matrix (PSD).
    beta : array-like of shape (n, 2)
        Label confidences, rows on the simplex.
    C : float or ndarray of shape (n,)
        Per-point costs ``c_i``.
    solver_options : dict or None
        Overrides of :data:`CVXOPT_OPTIONS`, passed to this call only.

    Returns
    -------
    BetaSVMSolution

    Raises
    ------
    SolverError
        When CVXOPT returns no solution or fails (a singular KKT system, e.g. at C ≥ 1e20).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    >>> sol = beta_svm_dual(X @ X.T, [[1, 0], [1, 0], [0, 1], [0, 1]], C=10.0)
    >>> np.sign(X @ X.T @ sol.dual_coef + sol.intercept)
    array([-1., -1.,  1.,  1.])
    """
    K, rows, signs, ub, degenerate = _prepare(K, beta, C, "cvxopt")
    if degenerate is not None:
        return degenerate
    n, m = K.shape[0], rows.size
    P = np.outer(signs, signs) * K[np.ix_(rows, rows)]
    P = 0.5 * (P + P.T)
    options = {**CVXOPT_OPTIONS, **(solver_options or {})}
    sol = cvxopt_qp(P, -np.ones(m), np.vstack([np.eye(m), -np.eye(m)]),
                    np.concatenate([ub, np.zeros(m)]), signs[None, :], np.zeros(1), options,
                    "the β-SVM dual QP")
    status = sol["status"]
    if sol["x"] is None:
        raise SolverError("cvxopt", status, "the β-SVM dual QP returned no solution")
    if status != "optimal":
        warn(f"solver 'cvxopt' stopped with status {status!r} on the β-SVM dual; "
             "using its last iterate.", ConvergenceWarning)
    a = np.clip(np.array(sol["x"]).ravel(), 0.0, ub)
    return _assemble(n, rows, signs, a, K, ub, "cvxopt", status,
                     {"equality_multiplier": float(sol["y"][0]), "iterations": sol["iterations"]})


def beta_svm_libsvm(K, beta, C=1.0, tol=1e-5, max_iter=None):
    r"""Solve the β-SVM dual as a weighted standard SVM (the fast path).

    The dual of :func:`beta_svm_dual` is exactly the dual of a soft-margin SVM with offset on the
    2n duplicated points ``(x_i, +1)`` with cost ``c_i β_i⁺`` and ``(x_i, −1)`` with cost
    ``c_i β_i⁻`` (rows of zero cost dropped). scikit-learn's ``SVC`` (LIBSVM, SMO with
    second-order working set selection) solves it on the precomputed duplicated kernel; its
    ``sample_weight`` multiplies ``C = 1`` per row. LIBSVM's offset rule is the one of
    :func:`beta_svm_dual` (free multipliers, else the KKT midpoint).

    Parameters
    ----------
    K, beta, C : as in :func:`beta_svm_dual`.
    tol : float, default=1e-5
        LIBSVM's stopping tolerance on the maximal KKT violation.
    max_iter : int or None, default=None
        LIBSVM's iteration limit; None means ``max(LIBSVM_MAX_ITER, 10⁴·m)`` for m active
        multipliers (see :data:`LIBSVM_MAX_ITER`). Features on very different scales (a linear
        kernel with a huge diagonal) are what makes SMO slow: standardize them first.

    Returns
    -------
    BetaSVMSolution

    Raises
    ------
    SolverError
        With status ``"max_iter"`` when LIBSVM stops at its iteration limit.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    >>> sol = beta_svm_libsvm(X @ X.T, [[1, 0], [1, 0], [0, 1], [0, 1]], C=10.0)
    >>> np.sign(X @ X.T @ sol.dual_coef + sol.intercept)
    array([-1., -1.,  1.,  1.])
    """
    from sklearn.svm import SVC

    K, rows, signs, ub, degenerate = _prepare(K, beta, C, "libsvm")
    if degenerate is not None:
        return degenerate
    n = K.shape[0]
    if max_iter is None:
        max_iter = max(LIBSVM_MAX_ITER, 10_000 * rows.size)
    svc = SVC(kernel="precomputed", C=1.0, tol=tol, shrinking=True, cache_size=500,
              max_iter=int(max_iter))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        try:
            svc.fit(K[np.ix_(rows, rows)], signs, sample_weight=ub)
        except ConvergenceWarning as exc:
            raise SolverError("libsvm", "max_iter", str(exc)) from exc
    # SVC orders classes_ = [-1, +1]; dual_coef_ holds σ_j a_j with f > 0 meaning +1.
    a = np.zeros(rows.size)
    a[svc.support_] = np.abs(svc.dual_coef_[0])
    a = np.minimum(a, ub)
    sol = _assemble(n, rows, signs, a, K, ub, "libsvm", "optimal")
    sol.intercept = float(svc.intercept_[0])   # LIBSVM's own offset (same rule, its gradient)
    return sol


def _warm_multipliers(previous, rows, signs, ub):
    """A feasible start of the dual from an earlier solution: its multipliers on the new
    active set, cut to the new bounds, the side of ``Σ σ a`` in excess scaled down to 0."""
    return restore_equality(np.minimum(previous.alpha[rows, (signs > 0).astype(np.intp)], ub),
                            signs)


def beta_svm_smo(K, beta, C=1.0, tol=1e-5, max_iter=None, warm_start=None):
    r"""Solve the β-SVM dual by SMO on the kernel matrix itself (the fast path).

    The dual of :func:`beta_svm_dual` is a standard SVM dual with offset whose variables are
    the multipliers ``a_i^σ`` of positive bound ``u = c_i β_i^σ``, variable ``(i, σ)`` with
    label σ on point ``x_i``: ``Q_{(i,σ),(j,τ)} = στ K_{ij}``. libsvm's SMO (second-order
    working-set selection, shrinking; :func:`weakcvx._smo.svm_offset_solve`) runs on it with
    an index from variables to kernel rows, so neither the 2n × 2n duplicated kernel of
    :func:`beta_svm_libsvm` nor any copy of ``K`` is formed, and it can start from the previous
    P1 of the alternation (P2 moves few rows of β).

    Parameters
    ----------
    K, beta, C : as in :func:`beta_svm_dual` (``K`` C-contiguous float64 avoids a copy).
    tol : float, default=1e-5
        Stopping tolerance on the maximal KKT violation (LIBSVM's ``eps``).
    max_iter : int or None, default=None
        Pair updates; None means ``max(LIBSVM_MAX_ITER, 10⁴·m)`` for m active multipliers.
    warm_start : BetaSVMSolution or None
        An earlier solution on the same kernel: its multipliers, cut to the new bounds and made
        feasible for ``Σ σ a = 0`` by scaling down the side in excess, start the SMO.

    Returns
    -------
    BetaSVMSolution
        With ``solver="smo"`` and ``extra = {"iterations": pair updates}``.

    Raises
    ------
    SolverError
        With status ``"max_iter"`` when the SMO stops at its iteration limit.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    >>> sol = beta_svm_smo(X @ X.T, [[1, 0], [1, 0], [0, 1], [0, 1]], C=10.0)
    >>> np.sign(X @ X.T @ sol.dual_coef + sol.intercept)
    array([-1., -1.,  1.,  1.])
    """
    K, rows, signs, ub, degenerate = _prepare(K, beta, C, "smo")
    if degenerate is not None:
        return degenerate
    if max_iter is None:
        max_iter = max(LIBSVM_MAX_ITER, 10_000 * rows.size)
    a0 = None if warm_start is None else _warm_multipliers(warm_start, rows, signs, ub)
    K = np.ascontiguousarray(K, dtype=np.float64)
    a, _, rho, n_iter, converged = svm_offset_solve(K, signs, ub, alpha=a0, tol=tol,
                                                    max_iter=int(max_iter), rows=rows)
    if not converged:
        raise SolverError("smo", "max_iter", f"the β-SVM dual stopped after {n_iter} pair "
                          f"updates (max_iter={int(max_iter)}) without reaching tol={tol:g}")
    sol = _assemble(K.shape[0], rows, signs, np.minimum(a, ub), K, ub, "smo", "optimal",
                    {"iterations": n_iter})
    sol.intercept = -rho       # libsvm's offset rule, on the SMO's own gradient
    return sol


#: Tolerance of :func:`beta_svm_features` (LIBLINEAR's ``eps`` and the offset equality's):
#: LIBLINEAR's default; the alternation on it ends where the SMO path's (tol 1e-5) does on 6 of
#: 8 held-out fits and within 0.0005 on the others (docs/methods/beta.rst, "At scale").
FEATURE_TOL = 1e-3



def _duplicated_points(beta, c):
    """The β-SVM's weighted points as dual variables on stored rows: ``(rows, signs, ub)``
    for every σ with ``c_i β_i^σ > 0``, ordered σ = −1 then σ = +1."""
    n = beta.shape[0]
    rows = np.r_[np.arange(n), np.arange(n)]
    signs = np.r_[-np.ones(n), np.ones(n)]
    ub = np.r_[c * beta[:, 0], c * beta[:, 1]]
    keep = ub > ZERO_BOUND_RTOL * max(ub.max(), 1e-300)
    return rows[keep], signs[keep], ub[keep], keep


def beta_svm_features(features, beta, C=1.0, tol=FEATURE_TOL, max_epochs=EPOCH_CAPS[0],
                      warm_start=None):
    r"""Solve P1 in a feature space: the β-SVM with ``θ = w ∈ R^d`` on explicit features.

    The β-SVM primal

    .. math::

        \min_{w, b} \tfrac12\|w\|^2 + \sum_i c_i \sum_σ β_i^σ \max(0, 1 − σ(w·x_i + b))

    is the linear SVM with a free offset on the points ``(x_i, +1)`` of cost ``c_i β_i⁺`` and
    ``(x_i, −1)`` of cost ``c_i β_i⁻`` (zero-cost points dropped), the duplication of
    :func:`beta_svm_libsvm` without its 2n × 2n kernel: :class:`weakcvx.svm.LinearOffsetSVM`
    runs LIBLINEAR's dual coordinate descent over those points as dual variables on the
    stored rows (no copy of a row), its offset by proximal steps. With the features of a
    kernel factor (``K ≈ R Rᵀ``) it solves the β-SVM of that kernel.

    Parameters
    ----------
    features : ndarray, scipy.sparse matrix of shape (n, d), or LinearOffsetSVM
        The feature matrix, or a :class:`~weakcvx.svm.LinearOffsetSVM` built on it (reused
        across the P1 steps of :func:`beta_iterate`: one copy of the matrix per fit; its
        ``tol`` and ``max_epochs`` are set to those given here).
    beta, C : as in :func:`beta_svm_dual`.
    tol : float, default=FEATURE_TOL
        Tolerance of the coordinate descent and of the offset's equality ``Σ σ a = 0``.
    max_epochs : int, default=1000
        Passes over the data.
    warm_start : BetaSVMSolution or None
        A previous solution: its multipliers (cut to the new bounds) and offset start the
        descent.

    Returns
    -------
    BetaSVMSolution
        With ``coef = w``, ``offset_rule = "proximal"``, ``status`` ``"optimal"`` or
        ``"max_epochs"`` (the descent stopped at ``max_epochs``), and
        ``extra = {"epochs", "steps"}``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    >>> sol = beta_svm_features(X, [[1, 0], [1, 0], [0, 1], [0, 1]], C=10.0, tol=1e-6)
    >>> np.sign(X @ sol.coef + sol.intercept), sol.coef.round(3)
    (array([-1., -1.,  1.,  1.]), array([1.]))
    """
    engine = features if isinstance(features, LinearOffsetSVM) else LinearOffsetSVM(features)
    n = engine.R.shape[0]
    beta = check_beta(beta, n)
    c = _check_costs(C, n)
    rows, signs, ub, keep = _duplicated_points(beta, c)
    engine.tol, engine.max_epochs = float(tol), int(max_epochs)
    alpha0 = offset0 = None
    if warm_start is not None:
        alpha0 = np.minimum(warm_start.alpha.T.ravel()[keep], ub)
        offset0 = warm_start.intercept
    engine.fit(signs, ub, alpha0=alpha0, offset0=offset0, rows=rows)
    alpha = np.zeros(2 * n)
    alpha[keep] = engine.alpha
    alpha = alpha.reshape(2, n).T              # columns (σ = −1, σ = +1), like β
    dual_coef = alpha[:, 1] - alpha[:, 0]
    w = engine.w.copy()
    degenerate = bool(np.all(signs == signs[0]))
    return BetaSVMSolution(alpha, dual_coef, float(engine.offset),
                           float(engine.alpha.sum() - 0.5 * w @ w), "LinearOffsetSVM",
                           "optimal" if engine.converged else "max_epochs",
                           "degenerate" if degenerate else "proximal",
                           {"epochs": engine.n_epochs, "steps": engine.n_steps}, coef=w)


def fit_beta_svm(K, beta, C=1.0, solver="smo", tol=1e-5, solver_options=None,
                 max_iter=None, warm_start=None):
    """Solve P1 with ``solver`` in {"smo", "libsvm", "cvxopt"}; see :func:`beta_svm_smo`,
    :func:`beta_svm_libsvm` and :func:`beta_svm_dual` (``max_iter`` is the SMO's or LIBSVM's
    iteration limit; ``warm_start``, an earlier solution, only starts ``"smo"``).

    Examples
    --------
    >>> import numpy as np
    >>> K = np.eye(2)
    >>> fit_beta_svm(K, [[1, 0], [0, 1]], solver="cvxopt").dual_coef.round(3)
    array([-1.,  1.])
    """
    if solver == "smo":
        return beta_svm_smo(K, beta, C, tol=tol, max_iter=max_iter, warm_start=warm_start)
    if solver == "libsvm":
        return beta_svm_libsvm(K, beta, C, tol=tol, max_iter=max_iter)
    if solver == "cvxopt":
        return beta_svm_dual(K, beta, C, solver_options=solver_options)
    raise ValueError(f"`solver` must be 'smo', 'libsvm' or 'cvxopt'. Got {solver!r} instead.")


def beta_svm_primal(K, beta, C, dual_coef, intercept):
    r"""Primal objective ``½‖θ‖² + Σ_i c_i Σ_σ β_i^σ max(0, 1 − σ f(x_i))`` of the model
    ``θ = Σ_i dual_coef_i φ(x_i)``, offset ``intercept``; equals the dual value at the optimum.

    Examples
    --------
    >>> import numpy as np
    >>> float(beta_svm_primal(np.eye(2), [[0.5, 0.5], [0.5, 0.5]], 1.0, np.zeros(2), 0.0))
    2.0
    """
    K = _check_kernel(K)
    beta = check_beta(beta, K.shape[0])
    c = _check_costs(C, K.shape[0])
    g = K @ dual_coef
    f = g + intercept
    loss = beta[:, 0] * np.maximum(0.0, 1.0 + f) + beta[:, 1] * np.maximum(0.0, 1.0 - f)
    return float(0.5 * dual_coef @ g + c @ loss)


# --------------------------------------------------------------------------------------------
# P2: the β update, a linear program


def _estimated_labels(beta_plus, h):
    """ŷ_i = sign(β_i⁺ − ½), ties broken by sign(h(x_i)) (h = 0 by +1); docs/design.rst §3.7."""
    y = np.sign(beta_plus - 0.5)
    tie = y == 0
    y[tie] = np.where(h[tie] >= 0, 1.0, -1.0)
    return y


class P2Problem:
    r"""The P2 step over ``m`` free rows, as a parametrised CVXPY LP (compiled once, re-solved).

    .. math::

        \min_{β} \sum_i \sum_σ β_i^σ \max(0, 1 − σ h_i)
        \quad\text{s.t.}\quad \sum_i β_i^{−ŷ_i} (−ŷ_i h_i) = 0,\quad
        β_i^- + β_i^+ = 1,\quad β \ge 0,

    (paper §3, P2 with the hinge loss), where ``h_i = h(x_i)`` and ``ŷ`` comes from the current
    β (see :func:`p2_step`). The loss matrix ``H`` and the constraint coefficients ``A``
    (``A_{i,σ} = −ŷ_i h_i`` for σ = −ŷ_i, else 0) are CVXPY Parameters. With ``balance=True``
    the LP also has ``lo ≤ Σ_i β_i⁺ ≤ hi`` (Parameters too; see :func:`p2_step`).

    Parameters
    ----------
    m : int
        Number of free rows.
    solver : str
        CVXPY solver name (default :data:`P2_SOLVER`).
    balance : bool, default=False
        Whether to add the bounds on ``Σ_i β_i⁺``.

    Examples
    --------
    >>> import numpy as np
    >>> P2 = P2Problem(3)
    >>> beta = P2.solve(np.array([2.0, -0.5, 0.3]), np.array([1.0, -1.0, 1.0]))
    >>> bool(np.allclose(beta.sum(axis=1), 1))
    True
    """

    def __init__(self, m, solver=None, balance=False):
        import cvxpy as cp

        self.m = m
        self.solver = solver or P2_SOLVER
        self.balance = balance
        self.beta = cp.Variable((m, 2), name="beta")
        self.H = cp.Parameter((m, 2), name="hinge")
        self.A = cp.Parameter((m, 2), name="constraint")
        risk = cp.sum(cp.multiply(self.beta, self.H))               # β-risk, hinge loss
        constraints = [cp.sum(cp.multiply(self.beta, self.A)) == 0,  # Σ β^{−ŷ}(−ŷ h) = 0
                       cp.sum(self.beta, axis=1) == 1,               # β⁻ + β⁺ = 1
                       self.beta >= 0]
        if balance:
            self.lo = cp.Parameter(name="positive_lower")
            self.hi = cp.Parameter(name="positive_upper")
            n_positive = cp.sum(self.beta[:, 1])
            constraints += [n_positive >= self.lo, n_positive <= self.hi]
        self.problem = cp.Problem(cp.Minimize(risk), constraints)

    @staticmethod
    def coefficients(h, y_hat):
        """Loss matrix ``H`` and constraint matrix ``A`` (columns σ = −1, +1)."""
        H = np.column_stack([np.maximum(0.0, 1.0 + h), np.maximum(0.0, 1.0 - h)])
        A = np.zeros((h.size, 2))
        col = (y_hat < 0).astype(int)               # the column of σ = −ŷ
        A[np.arange(h.size), col] = -y_hat * h
        return H, A

    def solve(self, h, y_hat, solver_options=None, positive_bounds=None):
        """Return the optimal β (m×2) for decision values ``h`` and labels ``ŷ``.

        ``positive_bounds = (lo, hi)`` bounds ``Σ_i β_i⁺`` (problems built with
        ``balance=True`` only); ``solver_options`` override :data:`P2_SOLVER_OPTIONS`.
        """
        self.H.value, self.A.value = self.coefficients(np.asarray(h, float),
                                                       np.asarray(y_hat, float))
        if self.balance:
            if positive_bounds is None:
                raise ValueError("`positive_bounds` is required by a P2Problem built with "
                                 "balance=True. Got None.")
            self.lo.value, self.hi.value = (float(v) for v in positive_bounds)
        options = {**P2_SOLVER_OPTIONS.get(self.solver, {}), **(solver_options or {})}
        try:
            self.problem.solve(solver=self.solver, **options)
        except Exception as exc:  # cvxpy.error.SolverError and solver crashes
            raise SolverError(self.solver, "error", f"P2 linear program: {exc}") from exc
        status = self.problem.status
        if status not in ("optimal", "optimal_inaccurate") or self.beta.value is None:
            raise SolverError(self.solver, str(status), "P2 linear program")
        if status == "optimal_inaccurate":
            warn(f"solver {self.solver!r} returned status {status!r} on P2.",
                 ConvergenceWarning)
        B = np.clip(self.beta.value, 0.0, 1.0) + 0.0   # + 0.0 turns -0.0 into 0.0
        return B / B.sum(axis=1, keepdims=True)


def p2_linprog(h, y_hat, positive_bounds=None):
    r"""P2 as a linear program in ``x = β⁺`` alone, by SciPy's HiGHS dual simplex (the fast
    path of :class:`P2Problem`, which stays the readable CVXPY reference).

    With ``β⁻ = 1 − x`` the LP of :class:`P2Problem` is

    .. math::

        \min_{0 \le x \le 1} \sum_i x_i (H_i^+ − H_i^-)
        \quad\text{s.t.}\quad \sum_i x_i (A_i^+ − A_i^-) = −\sum_i A_i^-,
        \quad lo \le \sum_i x_i \le hi \text{ (with ``positive_bounds``)},

    one or three rows over m columns: no compilation, O(m) memory (the parametrised CVXPY
    model's first solve peaks at ~36 m² bytes, 263 MB at m = 2,700), and the same vertex
    (tests/test_beta_features.py).

    Parameters
    ----------
    h, y_hat : ndarray of shape (m,)
        Decision values and estimated labels of the free rows.
    positive_bounds : (float, float) or None
        ``(lo, hi)`` bounds on ``Σ_i β_i⁺``.

    Returns
    -------
    ndarray of shape (m, 2)
        The optimal β rows (columns σ = −1, +1).

    Raises
    ------
    SolverError
        With solver ``"highs-ds"`` and HiGHS's status when it finds no optimum.

    Examples
    --------
    >>> import numpy as np
    >>> p2_linprog(np.array([2.0, -0.5, 0.3]), np.array([1.0, -1.0, 1.0]))[:, 1]
    array([1., 0., 1.])
    """
    from scipy.optimize import linprog

    H, A = P2Problem.coefficients(np.asarray(h, float), np.asarray(y_hat, float))
    m = H.shape[0]
    A_ub = b_ub = None
    if positive_bounds is not None:
        lo, hi = (float(v) for v in positive_bounds)
        A_ub, b_ub = np.vstack([np.ones(m), -np.ones(m)]), [hi, -lo]
    res = linprog(H[:, 1] - H[:, 0], A_ub=A_ub, b_ub=b_ub, A_eq=(A[:, 1] - A[:, 0])[None, :],
                  b_eq=[-A[:, 0].sum()], bounds=(0.0, 1.0), method="highs-ds")
    if res.status != 0 or res.x is None:
        raise SolverError("highs-ds", str(res.status), f"P2 linear program: {res.message}")
    x = np.clip(res.x, 0.0, 1.0)
    return np.column_stack([1.0 - x, x]) + 0.0    # + 0.0 turns -0.0 into 0.0


def p2_step(h, beta, free=None, solver=None, problem=None, positive_fraction=None):
    r"""The β update P2 of the paper's §3 (hinge loss) over the free rows of β.

    ``ŷ_i = sign(β_i⁺ − ½)`` with ties broken by ``sign(h_i)``: with ŷ = sign(h) everywhere
    the equality would force β one-hot on the prediction (self-training); the β-based estimate
    lets P2 trade label changes against the constraint. Fixed rows keep their β.

    With ``positive_fraction = r`` the step may not move the class balance of the free rows
    away from r: ``Σ_i β_i⁺`` must lie between ``r·m`` and ``#{i: ŷ_i = +1}`` (m free rows).
    The bound is always feasible (β one-hot on ŷ meets the equality and sits on the second
    end), and it stops a drift of the paper's P2 towards one class, a few rows per step
    (seen on standardized breast_cancer with one labeled point per class:
    docs/methods/beta.rst).

    Solver: by default :func:`p2_linprog`, SciPy's HiGHS dual simplex on the LP in β⁺ alone
    (no CVXPY compilation, O(m) memory); with ``solver`` or ``problem`` the CVXPY model
    :class:`P2Problem`, whose default solver is the same HiGHS dual simplex, chosen by
    :func:`weakcvx.bench.beta.measure_p2_solvers` (timings in docs/methods/beta.rst). The
    interior-point solvers stop inside the face of optimal solutions, the simplex on a vertex
    (one fractional row, as an LP with one coupling equality must have). A β row left at
    ½ ± 1e−7 would make ŷ a coin toss at the next step, so exactness wins over a few ms per
    step; SciPy's build is preferred to highspy (``solver="HIGHS"``, the same vertex) because
    highspy prints a banner to stdout on the first solve of each process. Pass
    ``solver="ECOS"`` for speed.

    Parameters
    ----------
    h : ndarray of shape (n,)
        Decision values of the current hypothesis on the training points.
    beta : ndarray of shape (n, 2)
        Current β (gives ŷ).
    free : boolean ndarray of shape (n,) or None
        Rows that P2 may change (all when None).
    solver : str or None
        CVXPY solver of :class:`P2Problem` (None: :func:`p2_linprog`); ignored when
        ``problem`` is given.
    problem : P2Problem or None
        A compiled problem of the right size, to reuse across iterations (built with
        ``balance=True`` when ``positive_fraction`` is given).
    positive_fraction : float in [0, 1] or None
        Target fraction of positives among the free rows; None is the paper's P2.

    Returns
    -------
    ndarray of shape (n, 2)

    Examples
    --------
    >>> import numpy as np
    >>> beta = np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]])
    >>> p2_step(np.array([1.5, -2.0, 0.4]), beta)[2]
    array([0., 1.])
    """
    h = np.asarray(h, dtype=np.float64)
    beta = check_beta(beta, h.size)
    free = np.ones(h.size, bool) if free is None else np.asarray(free, bool)
    idx = np.flatnonzero(free)
    out = beta.copy()
    if idx.size == 0:
        return out
    balance = positive_fraction is not None
    y_hat = _estimated_labels(beta[idx, 1], h[idx])
    bounds = None
    if balance:
        target, current = positive_fraction * idx.size, float(np.sum(y_hat > 0))
        bounds = (min(target, current), max(target, current))
    if problem is None and solver is None:
        out[idx] = p2_linprog(h[idx], y_hat, positive_bounds=bounds)
        return out
    problem = problem or P2Problem(idx.size, solver, balance=balance)
    out[idx] = problem.solve(h[idx], y_hat, positive_bounds=bounds)
    return out


# --------------------------------------------------------------------------------------------
# the iterative algorithm


@dataclass
class BetaIterationResult:
    """Outcome of :func:`beta_iterate`: the last hypothesis and the β it was trained on.

    ``status`` is ``"converged"``, ``"max_iter"`` or ``"cycle"`` (β came back to an earlier
    value, so the deterministic alternation would repeat forever); ``solver`` is the P1 solver
    of the returned hypothesis (``"cvxopt"`` after a fallback); ``scores`` its decision values
    ``h(x_i)`` on the training rows.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(-2, 1, (10, 2)), rng.normal(2, 1, (10, 2))]; K = X @ X.T
    >>> beta0 = np.full((20, 2), 0.5); beta0[0] = [1, 0]; beta0[-1] = [0, 1]
    >>> free = np.ones(20, bool); free[[0, -1]] = False
    >>> res = beta_iterate(K, beta0, C=1.0, free=free)
    >>> res.status, res.converged, res.beta.shape
    ('converged', True, (20, 2))
    >>> bool(np.allclose(res.scores, K @ res.solution.dual_coef + res.solution.intercept))
    True
    """

    solution: BetaSVMSolution
    beta: np.ndarray
    n_iter: int
    converged: bool
    history: list
    seconds: float
    status: str = "converged"
    solver: str = "smo"
    scores: np.ndarray | None = None


class _KernelP1:
    """P1 on a kernel matrix (SMO, LIBSVM or CVXOPT), with the hypothesis space's geometry: scores
    ``K·dual_coef + b`` and ``‖h‖² = dual_coefᵀ K dual_coef + b²``."""

    def __init__(self, K, c, solver, svm_tol, svm_max_iter):
        self.K, self.c, self.solver = K, c, solver
        self.svm_tol, self.svm_max_iter = svm_tol, svm_max_iter

    def fit(self, beta, previous=None):
        if self.solver in ("smo", "libsvm"):
            try:
                return fit_beta_svm(self.K, beta, self.c, solver=self.solver, tol=self.svm_tol,
                                    max_iter=self.svm_max_iter, warm_start=previous)
            except SolverError as exc:
                if exc.status != "max_iter":
                    raise
                warn(f"beta_iterate: solver {self.solver!r} stopped with status 'max_iter' "
                     f"on P1 ({exc}); solving this and later P1 steps with 'cvxopt'. "
                     "Standardize the features if the kernel is linear.",
                     ConvergenceWarning)
                self.solver = "cvxopt"
        return fit_beta_svm(self.K, beta, self.c, solver=self.solver, tol=self.svm_tol)

    def finish(self, beta, sol):
        return sol

    def scores(self, sol):
        return self.K @ sol.dual_coef + sol.intercept

    def norm(self, sol):
        theta_sq = max(sol.dual_coef @ self.K @ sol.dual_coef, 0.0)
        return float(np.sqrt(theta_sq + sol.intercept ** 2))

    def distance(self, a, b):
        """‖h_a − h_b‖ with ‖h‖² = θᵀθ + b² (the paper's stopping distance)."""
        d = a.dual_coef - b.dual_coef
        return float(np.sqrt(max(d @ self.K @ d, 0.0) + (a.intercept - b.intercept) ** 2))


class _FeatureP1:
    """P1 in a feature space (:func:`beta_svm_features`, one copy of the features for the
    whole alternation, each step warm-started from the last), ``‖h‖² = ‖w‖² + b²``."""

    solver = "LinearOffsetSVM"

    def __init__(self, features, c):
        self.engine, self.c, self.capped = LinearOffsetSVM(features), c, 0

    def fit(self, beta, previous=None):
        sol = beta_svm_features(self.engine, beta, self.c, warm_start=previous)
        self.capped += sol.status != "optimal"
        return sol

    def finish(self, beta, sol):
        """The returned hypothesis, re-solved with the larger pass cap if its P1 stopped at
        the first; a ``ConvergenceWarning`` if that one stops too."""
        if sol.status == "optimal":
            return sol
        sol = beta_svm_features(self.engine, beta, self.c, max_epochs=EPOCH_CAPS[1],
                                warm_start=sol)
        if sol.status != "optimal":
            warn(f"beta_iterate: P1 ('LinearOffsetSVM') of the returned hypothesis "
                 f"stopped at {EPOCH_CAPS[1]} passes before its tolerance "
                 f"{FEATURE_TOL:g}. Standardize the features or lower C.",
                 ConvergenceWarning)
        return sol

    def scores(self, sol):
        weights = np.append(sol.coef, sol.intercept / OFFSET_FEATURE)
        return np.asarray(self.engine.R @ weights).ravel()

    def norm(self, sol):
        return float(np.sqrt(sol.coef @ sol.coef + sol.intercept ** 2))

    def distance(self, a, b):
        d = a.coef - b.coef
        return float(np.sqrt(d @ d + (a.intercept - b.intercept) ** 2))


#: Earlier iterates kept to detect a cycle of the alternation (periods 1 to CYCLE_MEMORY).
CYCLE_MEMORY = 4


def beta_iterate(K, beta0, C=1.0, free=None, max_iter=20, tol=1e-3, tol_abs=1e-5,
                 solver="smo", p2_solver=None, svm_tol=1e-5, verbose=0,
                 positive_fraction=None, svm_max_iter=None, features=None):
    r"""The iterative β-SVM (paper §3): alternate P1 (fit the β-SVM) and P2 (update β).

    ``h⁰ = P1(β⁰)``; then for t = 1, 2, …: ``βᵗ = P2(hᵗ⁻¹, βᵗ⁻¹)``, ``hᵗ = P1(βᵗ)``, until the
    hypothesis stabilises, ``‖hᵗ − hᵗ⁻¹‖ ≤ ε = tol_abs + tol·‖hᵗ‖`` (the paper's
    ε = 1e−5 + 1e−3‖h‖, with ``‖h‖² = θᵀθ + b²`` in the RKHS), or β stops changing, or after
    ``max_iter`` P2 steps. The returned hypothesis was trained on the returned β.

    The paper gives no convergence guarantee and the alternation can cycle (2-cycles were seen
    on k-NN noisy-label fits: docs/methods/beta.rst). When hᵗ is within ε of
    h^{t−p} for some 2 ≤ p ≤ :data:`CYCLE_MEMORY` the iteration stops with status ``"cycle"``
    and returns the iterate of the cycle with the lowest P1 objective. A cycle is an end of the
    paper's algorithm, not a solver giving up: P2 reads ŷ from the previous β, so the
    alternation is not a descent on one objective, and further steps would only go round the
    same cycle. It is recorded in ``status`` and logged (``verbose``), without a warning; a
    ``ConvergenceWarning`` says when ``max_iter`` stops the alternation before ε, naming the
    final change and ε.

    Parameters
    ----------
    K : ndarray (n, n) or None
        Kernel matrix; None with ``features``.
    beta0 : ndarray (n, 2)
        Initial β (see the ``beta_*`` initialisers).
    C : float or ndarray (n,)
        Per-point costs.
    free : boolean ndarray (n,) or None
        Rows of β that P2 updates (semi-supervised: the unlabeled rows); all when None.
    max_iter : int, default=20
        P2 steps; 0 fits P1 on β⁰ only (no warning).
    tol, tol_abs : float
        Relative and absolute parts of ε.
    solver : {"smo", "libsvm", "cvxopt"}, default="smo"
        P1 solver (:func:`fit_beta_svm`); ``"smo"`` starts every P1 from the previous one.
        When the SMO or LIBSVM stops at its iteration limit, that P1 and all later ones are
        solved with CVXOPT, with one ``ConvergenceWarning``.
    p2_solver : str or None
        CVXPY solver of P2's :class:`P2Problem`; None: :func:`p2_linprog` (the same HiGHS
        dual simplex without the CVXPY model).
    svm_tol : float
        Tolerance of the SMO or LIBSVM on P1.
    verbose : int
    positive_fraction : float in [0, 1] or None
        Class balance that P2 may not move away from (see :func:`p2_step`); None is the paper's
        P2.
    svm_max_iter : int or None
        The SMO's or LIBSVM's iteration limit (see :func:`beta_svm_smo`).
    features : ndarray or scipy.sparse matrix of shape (n, d), optional
        Solve every P1 in this feature space instead (:func:`beta_svm_features`, with
        ``K = None`` and ``solver="smo"``, the fast path's name): ``X`` for the linear
        kernel, or a factor ``R`` with ``K ≈ R Rᵀ``; then ``‖h‖² = ‖w‖² + b²`` and no n × n
        array is formed. The returned hypothesis is re-solved with
        ``EPOCH_CAPS[1]`` passes if its P1 stopped at the first cap.

    Returns
    -------
    BetaIterationResult

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(-2, 1, (10, 2)), rng.normal(2, 1, (10, 2))]
    >>> beta0 = np.full((20, 2), 0.5); beta0[0] = [1, 0]; beta0[-1] = [0, 1]
    >>> free = np.ones(20, bool); free[[0, -1]] = False
    >>> res = beta_iterate(X @ X.T, beta0, C=1.0, free=free)
    >>> bool(np.all(res.beta[:10, 0] >= res.beta[:10, 1]))
    True
    """
    t0 = time.perf_counter()
    space = _p1_space(K, features, C, solver, svm_tol, svm_max_iter)
    n = space.c.shape[0]
    beta = check_beta(beta0, n, name="beta0")
    free = np.ones(n, bool) if free is None else np.asarray(free, bool)
    if positive_fraction is not None and not 0.0 <= positive_fraction <= 1.0:
        raise ValueError(f"`positive_fraction` must lie in [0, 1] or be None. Got "
                         f"{positive_fraction!r} instead.")
    p2 = (P2Problem(int(free.sum()), p2_solver, balance=positive_fraction is not None)
          if free.any() and p2_solver is not None else None)

    sol = space.fit(beta)
    history = [{"iter": 0, "change": np.nan, "eps": np.nan, "beta_change": np.nan,
                "objective": sol.dual_objective, "seconds": time.perf_counter() - t0}]
    converged = not free.any()
    status = "converged" if converged else "max_iter"
    recent = [(beta, sol)]                      # the last CYCLE_MEMORY + 1 iterates
    n_iter = 0
    change = eps = np.nan
    while not converged and n_iter < max_iter:
        beta_new = p2_step(space.scores(sol), beta, free, problem=p2,
                           positive_fraction=positive_fraction)
        beta_change = float(np.abs(beta_new - beta).max())
        new = space.fit(beta_new, sol)
        n_iter += 1
        change = space.distance(new, sol)
        eps = tol_abs + tol * space.norm(new)
        # hᵗ within ε of h^{t−p}, p ≥ 2: the alternation has settled into a cycle of period p
        period = next((len(recent) - j for j, (_, old) in enumerate(recent[:-1])
                       if space.distance(new, old) <= eps), None)
        beta, sol = beta_new, new
        recent = (recent + [(beta, sol)])[-(CYCLE_MEMORY + 1):]
        history.append({"iter": n_iter, "change": change, "eps": eps, "beta_change": beta_change,
                        "objective": sol.dual_objective, "seconds": time.perf_counter() - t0})
        if verbose:
            logger.info("beta-SVM iter %d: |dh| = %.3g (eps %.3g), max|d beta| = %.3g",
                        n_iter, change, eps, beta_change)
        converged = change <= eps or beta_change <= 1e-9
        if converged:
            status = "converged"
        elif period is not None:
            # the alternation is deterministic, so it would go round the cycle until max_iter;
            # keep the cycle's iterate of lowest P1 objective min_h J(h, β).
            status = "cycle"
            beta, sol = min(recent[-period:], key=lambda it: it[1].dual_objective)
            logger.info("beta-SVM: h repeats with period %d after %d P2 steps (change %.3g > "
                        "eps %.3g); the cycle's iterate of lowest P1 objective is kept",
                        period, n_iter, change, eps)
            break
    if status == "max_iter" and max_iter > 0:
        _warn_max_iter(max_iter, change, eps, space.solver, p2.solver if p2 else "highs-ds")
    sol = space.finish(beta, sol)
    return BetaIterationResult(sol, beta, n_iter, converged, history, time.perf_counter() - t0,
                               status, space.solver, space.scores(sol))


def _p1_space(K, features, C, solver, svm_tol, svm_max_iter):
    """The P1 solver of :func:`beta_iterate`: on the kernel matrix or in the feature space."""
    if features is None:
        K = _check_kernel(K)
        return _KernelP1(K, _check_costs(C, K.shape[0]), solver, svm_tol, svm_max_iter)
    if K is not None:
        raise ValueError("Give the kernel matrix `K` or `features`, not both. Got both.")
    if solver != "smo":
        raise ValueError(f"`features` runs the fast P1 path (solver='smo'); LIBSVM and the "
                         f"reference solver need the kernel matrix. Got solver={solver!r}.")
    return _FeatureP1(features, _check_costs(C, features.shape[0]))


def _warn_max_iter(max_iter, change, eps, p1_solver, p2_solver):
    """The ``ConvergenceWarning`` of an alternation stopped by ``max_iter`` before ε."""
    warn(f"β-SVM alternation (P1 {p1_solver!r}, P2 {p2_solver!r}) did not converge, "
         f"status 'max_iter': stopped at max_iter={max_iter} while the hypothesis still moved "
         f"(final change ‖hᵗ − hᵗ⁻¹‖ = {change:.3g} > ε = {eps:.3g}); the last iterate is "
         "returned. The paper's alternation has no convergence guarantee and can wander "
         "before it settles or cycles (docs/methods/beta.rst): a larger max_iter lets it end "
         "in a cycle (a user probe, 6,000 rows: the same accuracy at max_iter=100), a larger "
         "tol stops it sooner.", ConvergenceWarning)


# --------------------------------------------------------------------------------------------
# initialisations (paper §2.3, §5)


def beta_semi_supervised(y_known):
    """Semi-supervised β (paper §5.1): labeled rows one-hot, unlabeled rows ½.

    Parameters
    ----------
    y_known : array-like (n,) in {−1, 0, +1}, 0 for unlabeled.

    Returns
    -------
    beta : ndarray (n, 2)
    free : boolean ndarray (n,), the unlabeled rows.

    Examples
    --------
    >>> beta_semi_supervised([1, 0, -1])[0]
    array([[0. , 1. ],
           [0.5, 0.5],
           [1. , 0. ]])
    """
    y = np.asarray(y_known, dtype=float)
    beta = np.full((y.size, 2), 0.5)
    beta[y > 0] = [0.0, 1.0]
    beta[y < 0] = [1.0, 0.0]
    return beta, y == 0


def beta_from_knn(X, y, n_neighbors=4, metric="euclidean"):
    """Noisy-label β (paper §5.2, "4-nn"): ``β_i^σ`` is the fraction of the ``n_neighbors``
    nearest other points whose (possibly noisy) label is σ.

    Parameters
    ----------
    X : ndarray (n, d), or an (n, n) distance matrix with ``metric="precomputed"``.
    y : array-like (n,) in {−1, +1}.
    n_neighbors : int, default=4

    Returns
    -------
    ndarray (n, 2)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.arange(6.0)[:, None]
    >>> beta_from_knn(X, [-1, -1, -1, 1, 1, 1], n_neighbors=2)[2]
    array([0.5, 0.5])
    """
    y = np.asarray(y)
    n = y.shape[0]
    if not (1 <= n_neighbors < n):
        raise ValueError(f"`n_neighbors` must be in [1, n_samples - 1] = [1, {n - 1}]. "
                         f"Got {n_neighbors!r} instead.")
    neigh = nearest_other_rows(X, n_neighbors, metric=metric)
    p_plus = np.mean(y[neigh] > 0, axis=1)
    return np.column_stack([1.0 - p_plus, p_plus])


def nearest_other_rows(X, n_neighbors, rows=None, metric="euclidean"):
    """Indices of the ``n_neighbors`` nearest other rows of ``X`` for each of ``rows`` (all
    rows by default): each row itself is dropped wherever it appears among ties (a duplicate
    row may come first).

    Returns
    -------
    ndarray of int, shape (len(rows), n_neighbors)

    Examples
    --------
    >>> import numpy as np
    >>> nearest_other_rows(np.array([[0.0], [1.0], [3.0]]), 1).ravel().tolist()
    [1, 0, 1]
    """
    from sklearn.neighbors import NearestNeighbors

    rows = np.arange(X.shape[0]) if rows is None else np.asarray(rows)
    index = NearestNeighbors(n_neighbors=n_neighbors + 1, metric=metric).fit(X).kneighbors(
        X[rows], return_distance=False)
    return np.array([[j for j in r if j != i][:n_neighbors] for i, r in zip(rows, index)])


def beta_from_proportions(bags, proportions=None):
    """Label-proportion β (paper §2.3): ``β_i⁺ = p_k`` for every point of bag k.

    Parsed by :func:`weakcvx.model_selection.check_bags`, so every form the proportion
    estimators accept works here too.

    Parameters
    ----------
    bags : array-like of shape (n,) or (n, 2)
        Bag id of each point, or the two-column targets of
        :func:`weakcvx.model_selection.bag_targets` (then ``proportions`` is None).
    proportions : array-like (n_bags,), mapping or None
        Proportion of positives per bag: an array indexed by the sorted bag ids, or a mapping
        bag id → proportion (as :func:`~weakcvx.model_selection.check_bags` reads it).

    Returns
    -------
    ndarray (n, 2)

    Raises
    ------
    ValueError
        As :func:`~weakcvx.model_selection.check_bags`: wrong shapes, proportions outside
        [0, 1], a bag without a proportion, an empty bag.

    Examples
    --------
    >>> beta_from_proportions([0, 0, 1], [0.25, 1.0])
    array([[0.75, 0.25],
           [0.75, 0.25],
           [0.  , 1.  ]])
    """
    arr = np.asarray(bags)
    _, index, p = check_bags(bags, proportions, arr.shape[0] if arr.ndim else -1)
    p_plus = p[index]
    return np.column_stack([1.0 - p_plus, p_plus])


def beta_from_votes(votes, classes=None, missing=None):
    """Multi-expert β (paper §2.3): the average of the experts' votes.

    Parameters
    ----------
    votes : array-like of shape (n_samples, n_experts)
        Label each expert gives each point; entries equal to ``missing`` (or NaN for float
        votes) are abstentions.
    classes : sequence of 2 labels or None
        Column order of β (``classes[1]`` is σ = +1); the sorted distinct votes by default.
    missing : scalar or None
        Marker of an abstention.

    Returns
    -------
    beta : ndarray of shape (n_samples, 2)
        ``β_i^σ`` = fraction of the experts voting on i who chose σ (½ when none voted).
    classes : ndarray of shape (2,)

    Examples
    --------
    >>> import numpy as np
    >>> votes = np.array([[1, 1, 0, 1], [0, 0, 0, 1]])
    >>> beta, classes = beta_from_votes(votes)
    >>> beta
    array([[0.25, 0.75],
           [0.75, 0.25]])
    """
    V = np.asarray(votes)
    if V.ndim != 2:
        raise ValueError(f"`votes` must be a 2-D array (n_samples, n_experts). Got shape "
                         f"{V.shape} instead.")
    cast = V.astype(object)
    given = np.ones(V.shape, bool)
    if missing is not None:
        given &= ~(cast == missing)
    if V.dtype.kind == "f":
        given &= ~np.isnan(V)
    present = np.unique(V[given]) if classes is None else np.asarray(classes)
    if present.size != 2:
        raise ValueError(f"`votes` must contain exactly two classes (or pass `classes`). Got "
                         f"{present.tolist()} instead.")
    other = given & ~np.isin(V, present)
    if np.any(other):
        raise ValueError(f"`votes` must only contain the classes {present.tolist()} or the "
                         f"missing marker. Got {V[other][0]!r}.")
    n_votes = given.sum(axis=1)
    n_plus = (given & (V == present[1])).sum(axis=1)
    p_plus = np.where(n_votes > 0, n_plus / np.maximum(n_votes, 1), 0.5)
    return np.column_stack([1.0 - p_plus, p_plus]), present
