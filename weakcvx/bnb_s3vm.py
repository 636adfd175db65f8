r"""Branch and bound for the semi-supervised SVM of Chapelle, Sindhwani & Keerthi (NIPS 2006).

The problem (paper eq. 1 with p = 2 and C* = C, eq. 2, eq. 3): with labeled points L₀,
unlabeled points U (``u = |U|``) and the number of positives n₊ = r·u among them,

.. math::

    \min_{y_U \in \{-1,+1\}^u,\ \sum_{i \in U} \max(y_i, 0) = n_+} J(y_U), \qquad
    J(y_U) = \min_{w, b}\ \tfrac12 \|w\|^2
             + C \sum_{i=1}^n \max(0, 1 - y_i (w \cdot \phi(x_i) + b))^2 .

A node of the tree is a partial labeling ``L ⊇ L₀``. Its lower bound is ``s(L)`` (eq. 6), the
same SVM trained on the points of ``L`` only (the unlabeled points' dual variables set to 0 are
dual feasible, §4). With the squared hinge and an offset, ``s(L)`` is solved exactly by a primal
Newton / active-set method: for the support vectors ``sv = {i : y_i f(x_i) < 1}`` the optimality
conditions are the bordered linear system ``M z = (0, y_sv)``,

.. math::

    M = \begin{pmatrix} 0 & 1^\top \\ 1 & K_{sv} + I/(2C) \end{pmatrix},\quad
    z = \begin{pmatrix} b \\ \beta_{sv} \end{pmatrix},\qquad
    f(x) = \sum_{i \in sv} \beta_i k(x_i, x) + b,\quad
    s(L) = \tfrac12 \beta_{sv}^\top y_{sv} = \tfrac12 (0, y_{sv})^\top M^{-1} (0, y_{sv}),

(``α_i = y_i β_i = 2C(1 − y_i f(x_i)) > 0``). We keep ``M⁻¹`` (bias row first).

Derivation of eq. 8 (the paper omits the proof). Adding a point ``x`` with label ``y`` borders
``M`` with ``v = (1, k(x_sv, x))`` and ``d = k(x, x) + 1/(2C)``. With ``u = M⁻¹v`` and the Schur
complement ``σ = d − vᵀu = S_x + 1/(2C)``, the block inverse is
``[[M⁻¹ + uuᵀ/σ, −u/σ], [−uᵀ/σ, 1/σ]]`` (O(m²)); since ``uᵀ(0, y_sv) = vᵀz = f(x)``,

.. math::

    z' = \big(z - \delta u,\ \delta\big),\quad \delta = \frac{y - f(x)}{\sigma},\qquad
    s(L \cup \{x, y\}) = s(L) + \frac{(y - f(x))^2}{2\sigma}
                       = s(L) + \frac{\max(0, 1 - y f(x))^2}{2 S_x + 1/C},

the max covering ``y f(x) ≥ 1`` (``x`` is then no support vector and nothing moves). This is
exact whenever the support set does not change otherwise. When it does, Newton steps follow
(full steps when they decrease the objective, else an exact line search on the
piecewise-quadratic objective: the finite Newton method), and ``M⁻¹`` follows the support set
by block downdates (points leaving) and borderings (points entering), refactorised from a
Cholesky factor of ``K_sv + I/(2C)`` when more than half of the set changes or the residual of
the system drifts.

Branching is eq. 7: the unassigned point ``x*`` and label ``y*`` maximising the add-one-in
estimate of ``s(L ∪ {x, y})``; the branch ``−y*`` (the most likely label) is explored first.
The search is depth first (Algorithm 1) with the best leaf found so far as upper bound; a node is
pruned when ``s(L)`` reaches the upper bound or when the count constraint (eq. 2) can no longer be
met. When one of the two counts is exhausted the remaining labels are forced: the subtree holds a
single feasible leaf, which is solved directly (one node; Algorithm 1 would walk down to it,
pruning the infeasible sibling at every level, and reach the same leaf).

Reference twins: :func:`node_svm_cvxpy` (CVXPY model of eq. 6) for :func:`node_svm`, and
:func:`enumerate_s3vm` (all labelings with the right count) for :func:`branch_and_bound_s3vm`.

References
----------
O. Chapelle, V. Sindhwani, S. S. Keerthi. Branch and bound for semi-supervised support vector
machines. NIPS 2006.
"""

from __future__ import annotations

import itertools
import logging
import math
import numbers
import time
from dataclasses import dataclass

import numpy as np
import scipy.linalg

from ._validation import one_blas_thread
from .exact import depth_first, search_summary
from .labelsets import SemiSupervised
from .result import SolveResult, SolverError

__all__ = [
    "SquaredHingeSVM",
    "node_svm",
    "node_svm_cvxpy",
    "add_one_in",
    "branch_and_bound_s3vm",
    "enumerate_s3vm",
]

logger = logging.getLogger("weakcvx")

#: Relative slack of the optimality test ``y_i f(x_i) < 1`` ⇔ ``i`` is a support vector.
_KKT_TOL = 1e-9
#: Residual of the bordered system above which an incrementally updated inverse is refactorised.
_RESIDUAL_TOL = 1e-8
#: Newton iterations per node before giving up (never reached in our tests: typically 1–3).
_MAX_NEWTON = 200
#: Largest number of labelings :func:`enumerate_s3vm` accepts.
ENUMERATION_LIMIT = 100_000


@dataclass
class SquaredHingeSVM:
    """The squared-hinge SVM with offset trained on the points with a label (eq. 6).

    Attributes
    ----------
    value : float
        ``s(L) = min_{w,b} ½‖w‖² + C Σ_{i∈L} max(0, 1 − y_i f(x_i))²``.
    dual_coef : ndarray (n,)
        ``β`` with ``f(x) = Σ_i β_i k(x_i, x) + b``; zero outside the support vectors.
    intercept : float
        ``b``.
    support : ndarray of int
        Indices of the support vectors (``y_i f(x_i) < 1``).
    decision : ndarray (n,)
        ``f`` at every one of the n points (labeled or not).

    Examples
    --------
    >>> import numpy as np
    >>> from weakcvx.kernels import rbf
    >>> X = np.array([[-2.0], [-1.5], [-1.0], [1.0], [1.5], [2.0]])
    >>> K, y_known = rbf(X, gamma=1.0), np.array([-1, 0, 0, 0, 0, 1])
    >>> svm = node_svm(K, y_known, C=10.0)   # trained on the two labeled points
    >>> svm.support.tolist(), bool(np.allclose(svm.decision, K @ svm.dual_coef + svm.intercept))
    ([0, 5], True)
    """

    value: float
    dual_coef: np.ndarray
    intercept: float
    support: np.ndarray
    decision: np.ndarray


class _NodeSVM:
    """An SVM solution at a node, immutable once built: support set, inverse of the bordered
    matrix (bias row first), solution ``(b, β_sv)``, decision values at all n points, value."""

    __slots__ = ("support", "inverse", "solution", "decision", "value")

    def __init__(self, support, inverse, solution, decision, value):
        self.support = support
        self.inverse = inverse
        self.solution = solution
        self.decision = decision
        self.value = value


def _one_blas_thread():
    """The node systems are small (m ≲ a few hundred): multi-threaded BLAS only adds overhead
    there (docs/methods/s3vm.rst). Limit BLAS to one thread for the duration of a call."""
    return one_blas_thread()


def _line_search(a, c, m, g, C):
    """Exact minimiser over t ≥ 0 of φ(t) = a·t + ½c·t² + C Σ_i max(0, m_i − t g_i)².

    φ' is continuous, piecewise linear and non-decreasing; walk its breakpoints t_i = m_i / g_i.
    """
    active = (m > 0) | ((m == 0) & (g < 0))
    A0 = a - 2.0 * C * np.dot(m[active], g[active])
    B0 = c + 2.0 * C * np.dot(g[active], g[active])
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = np.where(g != 0, m / np.where(g != 0, g, 1.0), -1.0)
    sel = tau > 0
    tau, mm, gg = tau[sel], m[sel], g[sel]
    order = np.argsort(tau)
    tau, mm, gg = tau[order], mm[order], gg[order]
    # at τ_i a point with g_i > 0 leaves the active set, one with g_i < 0 enters it
    flip = np.where(gg > 0, -1.0, 1.0)
    As = A0 + np.concatenate([[0.0], np.cumsum(flip * (-2.0 * C) * mm * gg)])
    Bs = B0 + np.concatenate([[0.0], np.cumsum(flip * 2.0 * C * gg * gg)])
    right = np.concatenate([tau, [np.inf]])
    left = np.concatenate([[0.0], tau])
    with np.errstate(invalid="ignore"):
        slope_right = np.where(np.isinf(right), np.where(Bs > 0, np.inf, As), As + Bs * right)
    k = int(np.argmax(slope_right >= 0)) if np.any(slope_right >= 0) else len(As) - 1
    if Bs[k] <= 0:
        return float(left[k])
    return float(min(max(-As[k] / Bs[k], left[k]), right[k]))


class _Solver:
    """Node SVMs on a fixed kernel matrix: cold solves, warm-started extensions, add-one-in."""

    def __init__(self, K, C):
        self.K = np.ascontiguousarray(K, dtype=float)
        self.diag = np.diag(self.K).copy()
        self.C = float(C)
        self.ridge = 1.0 / (2.0 * self.C)
        self.n = self.K.shape[0]
        self.n_refactor = 0
        self.n_update = 0
        self.n_newton = 0

    # -- the bordered system -----------------------------------------------------------------
    def _inverse(self, A):
        """Inverse of [[0, 1ᵀ], [1, K_AA + I/2C]] from a Cholesky factor of K_AA + I/2C."""
        self.n_refactor += 1
        m = len(A)
        H = self.K[np.ix_(A, A)] + self.ridge * np.eye(m)
        try:
            Hinv = scipy.linalg.cho_solve(scipy.linalg.cho_factor(H), np.eye(m))
        except np.linalg.LinAlgError:  # K not numerically PSD: plain LU on the bordered matrix
            M = np.zeros((m + 1, m + 1))
            M[0, 1:] = M[1:, 0] = 1.0
            M[1:, 1:] = H
            return np.linalg.inv(M)
        h = Hinv.sum(axis=1)
        s = h.sum()
        inv = np.empty((m + 1, m + 1))
        inv[0, 0] = -1.0 / s
        inv[0, 1:] = inv[1:, 0] = h / s
        inv[1:, 1:] = Hinv - np.outer(h, h) / s
        return inv

    def _border(self, A, inverse, solution, x, y_x):
        """Add point ``x`` (label ``y_x``) to the support set: block inverse update (O(m²))."""
        v = np.empty(len(A) + 1)
        v[0] = 1.0
        v[1:] = self.K[A, x]
        u = inverse @ v
        sigma = self.diag[x] + self.ridge - v @ u  # = S_x + 1/(2C)
        f_x = v @ solution
        delta = (y_x - f_x) / sigma
        m1 = len(v)
        new = np.empty((m1 + 1, m1 + 1))
        new[:m1, :m1] = inverse + np.outer(u, u) / sigma
        new[:m1, m1] = new[m1, :m1] = -u / sigma
        new[m1, m1] = 1.0 / sigma
        return new, np.concatenate([solution - delta * u, [delta]])

    def _update(self, A, inverse, new_A):
        """Inverse of the bordered matrix of ``new_A`` from the inverse ``P`` of that of ``A``,
        by block formulas in O(m²·k) for k changed points: the points that leave (positions
        ``r``; inverse of a principal submatrix, ``P_kk − P_kr P_rr⁻¹ P_rk``), then those that
        enter (bordering with ``B = [1; K(A, x_e)]``, Schur complement
        ``S = K_ee + I/2C − Bᵀ P B``). Returns ``(None, None)`` (refactorise) when more than
        half of the points change."""
        old_mask = np.zeros(self.n, dtype=bool)
        old_mask[A] = True
        new_mask = np.zeros(self.n, dtype=bool)
        new_mask[new_A] = True
        keep = new_mask[A]
        entering = new_A[~old_mask[new_A]]
        n_change = len(A) - int(keep.sum()) + len(entering)
        if inverse is None or not keep.any() or n_change > max(2, len(new_A) // 2):
            return None, None
        self.n_update += n_change
        if not keep.all():
            k = np.concatenate([[0], np.flatnonzero(keep) + 1])  # the bias row comes first
            r = np.flatnonzero(~keep) + 1
            P_kr = inverse[np.ix_(k, r)]
            inverse = inverse[np.ix_(k, k)] - P_kr @ np.linalg.solve(inverse[np.ix_(r, r)],
                                                                     P_kr.T)
            A = A[keep]
        if len(entering):
            B = np.empty((len(A) + 1, len(entering)))
            B[0] = 1.0
            B[1:] = self.K[np.ix_(A, entering)]
            U = inverse @ B
            S = self.K[np.ix_(entering, entering)] + self.ridge * np.eye(len(entering)) - B.T @ U
            S_inv = np.linalg.inv(S)
            US = U @ S_inv
            m1 = len(A) + 1
            new = np.empty((m1 + len(entering), m1 + len(entering)))
            new[:m1, :m1] = inverse + US @ U.T
            new[:m1, m1:] = -US
            new[m1:, :m1] = -US.T
            new[m1:, m1:] = S_inv
            inverse = new
            A = np.concatenate([A, entering])
        return A, inverse

    # -- Newton / active set -----------------------------------------------------------------
    def _objective(self, y, L, beta, b, f):
        """½βᵀKβ + C Σ_{i∈L} max(0, 1 − y_i f_i)² (β is zero outside L, Kβ = f − b)."""
        loss = np.maximum(0.0, 1.0 - y[L] * f[L])
        return 0.5 * beta[L] @ (f[L] - b) + self.C * loss @ loss

    def _newton(self, y, L, beta, b, f, A, inverse=None, solution=None):
        """Minimise ½βᵀKβ + C Σ_{i∈L} max(0, 1 − y_i f_i)² from the point (β, b, f), whose
        active set ``{i ∈ L : y_i f_i < 1}`` is ``A``; ``inverse``/``solution`` of A's bordered
        system when already known.

        Each iteration jumps to the Newton point of the active set (the solution of its
        bordered system). It is the optimum when its own active set is the same; otherwise the
        step is taken in full if it decreases the objective, else with an exact line search
        (finite Newton method), and the inverse is updated to the new active set."""
        C, K = self.C, self.K
        yL = y[L]
        value = self._objective(y, L, beta, b, f)
        refactored = False
        for _ in range(_MAX_NEWTON):
            self.n_newton += 1
            if len(A) == 0:  # every margin met: the Newton model is ½‖w‖², minimised at w = 0
                beta_new, b_new = np.zeros(self.n), b
                f_new = np.full(self.n, b)
                residual = 0.0
            else:
                if inverse is None:
                    inverse = self._inverse(A)
                    refactored = True
                if solution is None:
                    solution = inverse @ np.concatenate([[0.0], y[A]])
                b_new = solution[0]
                f_new = K[:, A] @ solution[1:] + b_new
                residual = max(abs(f_new[A] + self.ridge * solution[1:] - y[A]).max(),
                               abs(solution[1:].sum()))
                if residual > _RESIDUAL_TOL and not refactored:  # drift of the updated inverse
                    inverse = solution = None
                    continue
                beta_new = np.zeros(self.n)
                beta_new[A] = solution[1:]
            margin = yL * f_new[L]
            in_A = np.zeros(self.n, dtype=bool)
            in_A[A] = True
            in_A = in_A[L]
            # the margins of the Newton point are known to the residual of its system
            tol = _KKT_TOL + residual
            if np.all(margin[in_A] <= 1 + tol) and np.all(margin[~in_A] >= 1 - tol):
                return _NodeSVM(np.asarray(A, dtype=np.intp), inverse, solution, f_new,
                                float(self._objective(y, L, beta_new, b_new, f_new)))
            value_new = self._objective(y, L, beta_new, b_new, f_new)
            if value_new < value:  # full Newton step
                beta, b, f, value = beta_new, b_new, f_new, value_new
            else:  # exact line search from (β, b) towards the Newton point
                d_beta, d_f = beta_new[L] - beta[L], f_new[L] - f[L]
                d_b = b_new - b
                Kd = d_f - d_b  # K dβ on L
                t = _line_search(beta[L] @ Kd, d_beta @ Kd, 1.0 - yL * f[L], yL * d_f, C)
                beta = beta + t * (beta_new - beta)
                b = b + t * d_b
                f = f + t * (f_new - f)
                value = self._objective(y, L, beta, b, f)
            new_A = L[yL * f[L] < 1.0]
            A, inverse = self._update(np.asarray(A, dtype=np.intp), inverse, new_A)
            if A is None:
                A = new_A
            solution = None
            refactored = False
        raise SolverError("bnb_s3vm node SVM", "max_newton",
                          f"no convergence in {_MAX_NEWTON} Newton steps")

    def solve(self, y):
        """Cold solve of the SVM on the points with ``y ≠ 0``."""
        L = np.flatnonzero(y)
        return self._newton(y, L, np.zeros(self.n), 0.0, np.zeros(self.n), L.astype(np.intp))

    def extend(self, node, y, new_points):
        """Warm start: the SVM of ``node`` with ``new_points`` added (their labels in ``y``)."""
        f = node.decision
        entering = [x for x in new_points if y[x] * f[x] < 1.0]
        if not entering:  # the new points are outside the margin: the solution does not move
            return node
        L = np.flatnonzero(y)
        A = node.support
        beta = np.zeros(self.n)
        beta[A] = node.solution[1:]
        A_next = np.concatenate([A, entering]).astype(np.intp)
        if len(entering) == 1:  # eq. 8: bordering, exact if the support set does not change
            inverse, solution = self._border(A, node.inverse, node.solution, entering[0],
                                             y[entering[0]])
        else:
            A_upd, inverse = self._update(A, node.inverse, A_next)
            A_next = A_next if A_upd is None else A_upd
            solution = None
        return self._newton(y, L, beta, node.solution[0], f, A_next, inverse, solution)

    def add_one_in(self, node, candidates):
        """Eq. 8 for every candidate and both labels: estimated s(L ∪ {x, +1}), s(L ∪ {x, −1})."""
        A = node.support
        V = np.empty((len(A) + 1, len(candidates)))
        V[0] = 1.0
        V[1:] = self.K[np.ix_(A, candidates)]
        S = self.diag[candidates] - np.einsum("ij,ij->j", V, node.inverse @ V)  # Schur
        denom = 2.0 * S + 1.0 / self.C
        f = node.decision[candidates]
        plus = node.value + np.maximum(0.0, 1.0 - f) ** 2 / denom
        minus = node.value + np.maximum(0.0, 1.0 + f) ** 2 / denom
        return plus, minus


# --------------------------------------------------------------------------------------------
# input checks (docs/design.rst §5)


def _check_kernel(K):
    K = np.asarray(K, dtype=float)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"`K` must be a square (n, n) kernel matrix. Got shape {K.shape} "
                         "instead.")
    if not np.all(np.isfinite(K)):
        raise ValueError("`K` must contain only finite values. Got NaN or inf.")
    return K


def _check_C(C):
    if isinstance(C, bool) or not isinstance(C, numbers.Real) or not (0 < C < np.inf):
        raise ValueError(f"`C` must be a positive finite number. Got {C!r} instead.")
    return float(C)


def _check_labels(y, n, name="y"):
    y = np.asarray(y, dtype=float)
    if y.ndim != 1 or y.shape[0] != n:
        raise ValueError(f"`{name}` must be a 1-D array with one entry per row of K ({n}). Got "
                         f"shape {y.shape} instead.")
    if not np.all(np.isin(y, (-1.0, 0.0, 1.0))):
        raise ValueError(f"`{name}` must use +1/-1 for labeled and 0 for unlabeled points. Got "
                         f"values {np.unique(y[~np.isin(y, (-1.0, 0.0, 1.0))])[:5]} instead.")
    return y


def _public(node, y):
    beta = np.zeros(len(y))
    beta[node.support] = node.solution[1:]
    return SquaredHingeSVM(value=node.value, dual_coef=beta, intercept=float(node.solution[0]),
                           support=node.support.copy(), decision=node.decision.copy())


# --------------------------------------------------------------------------------------------
# the node SVM and its reference twin


def node_svm(K, y, C):
    """Squared-hinge SVM with offset on the labeled points (eq. 6), by primal Newton.

    Parameters
    ----------
    K : ndarray (n, n)
        Kernel matrix of all points (only the rows/columns of labeled points are used for
        training; ``decision`` is returned for all n).
    y : ndarray (n,)
        +1 / -1 for the points of L, 0 for points left out. Both classes must occur.
    C : float

    Returns
    -------
    SquaredHingeSVM

    Examples
    --------
    >>> import numpy as np
    >>> K = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> svm = node_svm(K, np.array([1.0, -1.0]), C=1.0)
    >>> round(svm.value, 6), round(svm.intercept, 6)   # β = ±2/3, b = 0, s = ½ Σ y_i β_i
    (0.666667, 0.0)
    """
    K = _check_kernel(K)
    y = _check_labels(y, K.shape[0])
    C = _check_C(C)
    if not (np.any(y > 0) and np.any(y < 0)):
        raise ValueError("`y` must contain both classes (+1 and -1) among its non-zero entries.")
    with _one_blas_thread():
        return _public(_Solver(K, C).solve(y), y)


def node_svm_cvxpy(K, y, C, solver="CLARABEL"):
    """Reference twin of :func:`node_svm`: eq. 6 as a CVXPY model in feature space.

    With a factor ``K_LL = R Rᵀ`` the problem reads, line by line,
    ``minimize ½‖w‖² + C Σ_i ξ_i²  subject to  ξ_i ≥ 1 − y_i(R_i w + b),  ξ ≥ 0``.

    Returns
    -------
    float
        The optimal value.

    Examples
    --------
    >>> import numpy as np
    >>> from weakcvx.kernels import rbf
    >>> X = np.array([[-2.0], [-1.5], [-1.0], [1.0], [1.5], [2.0]])
    >>> K, y_known = rbf(X, gamma=1.0), np.array([-1, 0, 0, 0, 0, 1])
    >>> bool(np.isclose(node_svm_cvxpy(K, y_known, 10.0), node_svm(K, y_known, 10.0).value,
    ...                 rtol=1e-5))
    True
    """
    import cvxpy as cp

    from .kernels import factor

    K = _check_kernel(K)
    y = _check_labels(y, K.shape[0])
    L = np.flatnonzero(y)
    R = factor(K[np.ix_(L, L)])
    w = cp.Variable(R.shape[1])
    b = cp.Variable()
    xi = cp.Variable(len(L), nonneg=True)
    constraints = [xi >= 1 - cp.multiply(y[L], R @ w + b)]
    problem = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + C * cp.sum_squares(xi)),
                         constraints)
    problem.solve(solver=solver)
    if problem.status not in ("optimal", "optimal_inaccurate"):
        raise SolverError(solver, problem.status)
    return float(problem.value)


def add_one_in(K, y, C, candidates=None):
    """Add-one-in estimates (eq. 8) of ``s(L ∪ {x, ±1})`` for candidate points ``x``.

    ``s(L ∪ {x, y}) ≈ s(L) + max(0, 1 − y f(x))² / (2 S_x + 1/C)`` with ``S_x`` the Schur
    complement of ``x`` against the bordered support-vector system (bias row included). Exact
    when adding ``x`` does not change the support set otherwise.

    Parameters
    ----------
    K, y, C : as in :func:`node_svm` (``L`` = points with ``y ≠ 0``).
    candidates : array of int, optional
        Default: every point with ``y == 0``.

    Returns
    -------
    plus, minus : ndarray
        Estimated ``s(L ∪ {x, +1})`` and ``s(L ∪ {x, −1})`` for each candidate.

    Examples
    --------
    >>> import numpy as np
    >>> from weakcvx.kernels import rbf
    >>> X = np.array([[-2.0], [-1.5], [-1.0], [1.0], [1.5], [2.0]])
    >>> K, y_known = rbf(X, gamma=1.0), np.array([-1, 0, 0, 0, 0, 1])
    >>> plus, minus = add_one_in(K, y_known, C=10.0)   # candidates: the points 1 to 4
    >>> np.where(plus < minus, 1, -1).tolist()          # the cheaper label of each
    [-1, -1, 1, 1]
    >>> y = y_known.copy(); y[1] = -1                     # point 1 added with its label −1
    >>> bool(np.isclose(minus[0], node_svm(K, y, C=10.0).value))   # exact here
    True
    """
    K = _check_kernel(K)
    y = _check_labels(y, K.shape[0])
    solver = _Solver(K, _check_C(C))
    if candidates is None:
        candidates = np.flatnonzero(y == 0)
    with _one_blas_thread():
        return solver.add_one_in(solver.solve(y), np.asarray(candidates, dtype=np.intp))


# --------------------------------------------------------------------------------------------
# branch and bound (Algorithm 1, iterative depth first)


def _n_positive(y_known, n_positive):
    """Validate ``y_known`` and resolve n₊ with the rule of :class:`SemiSupervised`."""
    labelset = SemiSupervised(y_known, n_positive=n_positive)
    return labelset.n_positive, labelset.unlabeled


def _result(method, lower, labels, objective, node, status, message, n_nodes, start, history,
            solver, optimal, failure=None):
    beta = np.zeros(len(labels))
    beta[node.support] = node.solution[1:]
    return SolveResult(
        method=method, value=float(lower), labels=labels, upper_bound=float(objective),
        certified=True, status=status, message=message, n_iter=n_nodes,
        seconds=time.perf_counter() - start, history=history, alpha=beta * labels,
        extra={"dual_coef": beta, "intercept": float(node.solution[0]),
               "decision": node.decision.copy(), "n_nodes": n_nodes, "optimal": optimal,
               "n_refactor": solver.n_refactor, "n_update": solver.n_update,
               "n_newton": solver.n_newton, "failure": failure})


def branch_and_bound_s3vm(K, y_known, C=10.0, n_positive=None, max_nodes=None, time_limit=None,
                          verbose=0):
    r"""Exact S3VM (squared hinge, offset, exact positive count) by branch and bound.

    Algorithm 1 of Chapelle, Sindhwani & Keerthi (2006), depth first: lower bound ``s(L)``
    (eq. 6, exact node SVM warm-started from the parent), branching by eq. 7 with the add-one-in
    estimate eq. 8, most likely label first, pruning on the incumbent and on eq. 2. See the
    module docstring for the math.

    Parameters
    ----------
    K : ndarray (n, n)
        Kernel matrix of all (labeled and unlabeled) points.
    y_known : ndarray (n,)
        +1 / -1 for labeled points, 0 for unlabeled ones; both classes must be labeled.
    C : float, default=10.0
    n_positive : int, optional
        Positives among the unlabeled points (eq. 2, ``r·u``). Default: the labeled class ratio
        times ``u``, rounded half up (as :class:`weakcvx.labelsets.SemiSupervised`).
    max_nodes : int, optional
        Stop after this many nodes (node SVMs solved).
    time_limit : float, optional
        Stop the search after this many seconds (a search stopped before any leaf then pays
        one more SVM solve on every point for the labels it returns).
    verbose : int
        ``1``: progress lines on ``logging.getLogger("weakcvx")`` (INFO, at most one a second)
        and every new incumbent; ``2``: also a ``tqdm`` bar of the nodes (the loop of
        :func:`weakcvx.exact.depth_first`, shared with :func:`weakcvx.exact.branch_and_bound`).

    Returns
    -------
    SolveResult
        ``method="branch_and_bound"``; ``labels`` the best labeling found (±1 for all n points),
        ``upper_bound`` its objective ``J``; ``value`` a certified lower bound of the optimum:
        equal to ``upper_bound`` when the search finished (``status="optimal"``), else the
        minimum of the incumbent and of the bounds of the open nodes (``status="node_limit"``,
        ``"time_limit"``, ``"interrupted"`` (Ctrl-C) or ``"solver_error"`` (a node SVM past
        the root failed; the message names it), with a
        :class:`~sklearn.exceptions.ConvergenceWarning`). ``n_iter``
        is the number of nodes; ``extra`` holds ``dual_coef`` (β, n), ``intercept`` (b),
        ``decision`` (f at the n points), ``n_nodes``, ``optimal``, ``failure`` (the
        :class:`~weakcvx.SolverError` of ``status="solver_error"``, else None).

    Examples
    --------
    >>> import numpy as np
    >>> from weakcvx.kernels import rbf
    >>> X = np.array([[-2.0], [-1.5], [-1.0], [1.0], [1.5], [2.0]])
    >>> y_known = np.array([-1, 0, 0, 0, 0, 1])
    >>> res = branch_and_bound_s3vm(rbf(X, gamma=1.0), y_known, C=10.0)
    >>> res.labels.astype(int).tolist(), res.status
    ([-1, -1, -1, 1, 1, 1], 'optimal')
    """
    start = time.perf_counter()
    K = _check_kernel(K)
    y_known = _check_labels(y_known, K.shape[0], name="y_known")
    C = _check_C(C)
    if max_nodes is not None and (isinstance(max_nodes, bool)
                                  or not isinstance(max_nodes, numbers.Integral)
                                  or max_nodes < 1):
        raise ValueError(f"`max_nodes` must be a positive integer or None. Got {max_nodes!r} "
                         "instead.")
    if time_limit is not None and (isinstance(time_limit, bool)
                                   or not isinstance(time_limit, numbers.Real)
                                   or not time_limit > 0):
        raise ValueError(f"`time_limit` must be a positive number of seconds or None. Got "
                         f"{time_limit!r} instead.")
    n_pos, unlabeled = _n_positive(y_known, n_positive)
    u = len(unlabeled)
    with _one_blas_thread():
        return _search(K, y_known, C, n_pos, u, max_nodes, time_limit, verbose, start)


class _Tree:
    """The search state of :func:`branch_and_bound_s3vm` for
    :func:`weakcvx.exact.depth_first` (Algorithm 1, iterative depth first).

    An open entry is ``(bound of its parent, parent's SVM, parent's labels, assigned
    positives, assigned negatives, point, label)``; a ``None`` point is the root."""

    def __init__(self, solver, y_known, n_pos, u, verbose, start):
        self.solver, self.u, self.verbose, self.start = solver, u, verbose, start
        self.n_pos, self.n_neg = n_pos, u - n_pos
        self.stack = [(-np.inf, None, y_known.copy(), 0, 0, None, 0.0)]
        self.upper, self.best_labels, self.best_node = np.inf, None, None
        self.history = []
        self.n_nodes, self.depth = 0, 0
        self.last = None  # (node SVM, labels, positives, negatives) of the last node solved
        self.failure = None  # the SolverError that stopped the search, if one did

    def progress(self):
        return self.depth, self.upper, min([self.upper] + [e[0] for e in self.stack])

    def interrupted(self, entry):
        # keep the incumbent; the entry being expanded stays open for the lower bound (its
        # parent's bound: a node SVM that failed, or Ctrl-C, leaves its subtree unexplored)
        if self.last is None:
            return False
        if entry is not None:
            self.stack.append(entry)
        return True

    def expand(self, entry):
        """:meth:`_expand`, with a singular node system reported as the node SVM's
        :class:`~weakcvx.SolverError` (which :func:`weakcvx.exact.depth_first` turns into
        ``status="solver_error"`` past the root)."""
        try:
            return self._expand(entry)
        except np.linalg.LinAlgError as exc:
            raise SolverError("bnb_s3vm node SVM", "singular matrix", str(exc)) from exc

    def _expand(self, entry):
        """Prune ``entry`` (``s`` only grows down the tree) or solve its node's SVM: a leaf
        may become the incumbent, an inner node is branched (eq. 7, 8). True when a node's SVM
        was solved."""
        bound, parent, labels, p, q, x, y_x = entry
        if bound >= self.upper:
            return False
        n_pos, n_neg, solver = self.n_pos, self.n_neg, self.solver
        if x is not None:
            labels = labels.copy()
            labels[x] = y_x
            p, q = (p + 1, q) if y_x > 0 else (p, q + 1)
        new_points = [x] if x is not None else []
        free = np.flatnonzero(labels == 0)
        if free.size and (p == n_pos or q == n_neg):  # eq. 2 forces the remaining labels
            labels[free] = -1.0 if p == n_pos else 1.0
            new_points += free.tolist()
            p, q = n_pos, n_neg
            free = free[:0]
        node = solver.solve(labels) if parent is None else solver.extend(parent, labels,
                                                                          new_points)
        self.n_nodes += 1
        self.last = (node, labels, p, q)
        self.depth = self.u - free.size
        if node.value >= self.upper:
            return True
        if free.size == 0:  # a leaf: new incumbent
            self.upper, self.best_labels, self.best_node = node.value, labels, node
            self.history.append({"node": self.n_nodes, "value": self.upper,
                                 "seconds": time.perf_counter() - self.start})
            if self.verbose:
                logger.info("branch_and_bound_s3vm: node %d new upper bound %.8g (%.2fs)",
                            self.n_nodes, self.upper, time.perf_counter() - self.start)
            return True
        plus, minus = solver.add_one_in(node, free)  # eq. 8
        k = int(np.argmax(np.maximum(plus, minus)))  # eq. 7
        x_star, y_star = int(free[k]), (1.0 if plus[k] >= minus[k] else -1.0)
        # explore -y* (the most likely label) first: push it last
        for label in (y_star, -y_star):
            if (label > 0 and p < n_pos) or (label < 0 and q < n_neg):
                self.stack.append((node.value, node, labels, p, q, x_star, label))
        return True

    def result(self, status, max_nodes, time_limit):
        """The :class:`SolveResult` of a finished or stopped search; when it stopped before
        any leaf, the last node's decision values rounded to the count give the labels."""
        optimal = status == "optimal"
        upper, best_labels, best_node = self.upper, self.best_labels, self.best_node
        lower = upper if optimal else min([upper] + [e[0] for e in self.stack])
        if best_labels is None:
            node, labels, p, q = self.last
            labels = labels.copy()
            free = np.flatnonzero(labels == 0)
            order = free[np.argsort(-node.decision[free], kind="stable")]
            labels[order[: self.n_pos - p]] = 1.0
            labels[order[self.n_pos - p:]] = -1.0
            try:
                best_node = self.solver.extend(node, labels, free.tolist())
            except (SolverError, np.linalg.LinAlgError):
                if self.failure is None:
                    raise
                best_node = self.solver.solve(labels)  # the warm start failed: cold
            best_labels, upper = labels, best_node.value
            lower = min(lower, upper)
        value, message, _ = search_summary("branch_and_bound_s3vm", status, self.n_nodes, upper,
                                           lower, max_nodes, time_limit, self.start,
                                           self.verbose, failure=self.failure)
        return _result("branch_and_bound", value, best_labels.copy(), upper, best_node, status,
                       message, self.n_nodes, self.start, self.history, self.solver, optimal,
                       failure=self.failure)


def _search(K, y_known, C, n_pos, u, max_nodes, time_limit, verbose, start):
    """Algorithm 1, iterative depth first (see :func:`branch_and_bound_s3vm`), by the loop
    shared with :func:`weakcvx.exact.branch_and_bound`; the root is always solved."""
    tree = _Tree(_Solver(K, C), y_known, n_pos, u, verbose, start)
    status = depth_first(tree, start, max_nodes, time_limit, verbose,
                         name="branch_and_bound_s3vm", solve_root=True)
    return tree.result(status, max_nodes, time_limit)


def enumerate_s3vm(K, y_known, C=10.0, n_positive=None, limit=ENUMERATION_LIMIT):
    """Reference twin of :func:`branch_and_bound_s3vm`: solve the SVM (cold start) for every
    labeling of the unlabeled points with exactly ``n_positive`` positives.

    Returns
    -------
    value : float
        The optimum.
    labels : ndarray (n,)
        An optimal labeling.
    values : ndarray
        The objective of every labeling, in the order of ``itertools.combinations``.

    Examples
    --------
    >>> import numpy as np
    >>> from weakcvx.kernels import rbf
    >>> X = np.array([[-2.0], [-1.5], [-1.0], [1.0], [1.5], [2.0]])
    >>> K, y_known = rbf(X, gamma=1.0), np.array([-1, 0, 0, 0, 0, 1])
    >>> value, labels, values = enumerate_s3vm(K, y_known, C=10.0)   # 2 of 4 positive
    >>> len(values), labels.astype(int).tolist()
    (6, [-1, -1, -1, 1, 1, 1])
    >>> bool(np.isclose(value, branch_and_bound_s3vm(K, y_known, C=10.0).value))
    True
    """
    K = _check_kernel(K)
    y_known = _check_labels(y_known, K.shape[0], name="y_known")
    C = _check_C(C)
    n_pos, unlabeled = _n_positive(y_known, n_positive)
    count = math.comb(len(unlabeled), n_pos)
    if count > limit:
        raise ValueError(f"`K`/`y_known` give {count} labelings, above the enumeration limit "
                         f"{limit}.")
    solver = _Solver(K, C)
    values, best, best_labels = [], np.inf, None
    with _one_blas_thread():
        for positives in itertools.combinations(unlabeled.tolist(), n_pos):
            labels = y_known.copy()
            labels[unlabeled] = -1.0
            labels[list(positives)] = 1.0
            value = solver.solve(labels).value
            values.append(value)
            if value < best:
                best, best_labels = value, labels
    return best, best_labels, np.array(values)
