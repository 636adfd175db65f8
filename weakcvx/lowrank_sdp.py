r"""The SDP rung at scale: a low-rank (Burer–Monteiro) solver with a certificate
(docs/design.rst §3.10).

The SDP relaxation of :mod:`weakcvx.sdp` is, by minimax,

.. math::

    V_{\mathrm{sdp}} = \max_{\alpha \in A} f(\alpha) - \tfrac12 \varphi(H_\alpha), \qquad
    H_\alpha = \mathrm{diag}(\alpha) K \mathrm{diag}(\alpha), \qquad
    \varphi(H) = \max\{\langle H, M\rangle : M \succeq 0,\ \mathrm{diag}\,M = 1,\
    \text{the label set's constraints}\},

with today's hinge ``f = 1ᵀα``, ``A = {0 ≤ α ≤ c}``. Three pieces:

- :func:`inner_sdp`: ``φ(H_α)`` by the mixing method (Wang, Chang & Kolter 2017) on
  ``M = VVᵀ`` with unit rows, ``H_α`` applied through ``problem.gram`` or ``problem.factor``;
- :func:`certify`: an upper bound of ``φ(H_α)`` from any dual point made feasible by an
  eigenvalue shift, hence ``f(α) − ½·bound ≤ V_sdp ≤ V_hull ≤ MIP`` for *any* ``α ∈ A``;
- :func:`solve_sdp_lowrank`: both sides of ``min_M g(M) = V_sdp = max_α ψ(α)``: L-BFGS on
  the Burer–Monteiro factor of ``M`` (``g`` = the SVM of ``K ∘ M``, an upper value), then
  the dual polish from ``α(M)`` (a certified lower value), until the two meet.

The label set enters through ``labelset.count_constraints()`` (fixed labels and groups with
counts), lifted as in :class:`weakcvx.sdp._Face` (see :class:`_Lift`).
"""

from __future__ import annotations

import logging
import math
import time
import warnings

import numba
import numpy as np
import scipy.linalg
import scipy.sparse
import scipy.sparse.linalg as spla
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from ._validation import warn
from .result import SolveResult, SolverError
from .rounding import round_scores
from .svm import GRAM_LIMIT, solve_box_qp, solve_box_qp_newton

__all__ = ["inner_sdp", "certify", "solve_sdp_lowrank", "InnerSolution", "Certificate",
           "DENSE_EIGEN_LIMIT"]

logger = logging.getLogger("weakcvx")

#: Largest lifted dimension whose ``λ_min`` is computed by dense ``eigh`` (exact up to rounding);
#: above it Lanczos. A dense ``eigh`` of 3000 × 3000 takes ~6 s on one thread of these machines.
DENSE_EIGEN_LIMIT = 3000

#: Largest lifted dimension for the polish of the dual point (a dense eigendecomposition per
#: evaluation: ~1 ms at 60 rows, ~9 ms at 200, a few tenths of a second at 1000, one thread).
POLISH_LIMIT = 1200

#: Largest ``max |N₀ᵀV|`` of a working-set member (the pinned sums after the projection).
FEASIBILITY_TOL = 1e-9


# ---------------------------------------------------------------------------------------------
# The lift: fixed labels merged, pinned sums as null directions
# ---------------------------------------------------------------------------------------------
class _Lift:
    r"""The label set's count description on lifted rows ``ỹ = [τ; free coordinates]``.

    ``M = E M̃ Eᵀ`` with ``E[i, index[i]] = sign[i]``: every fixed label is ``sign·τ``
    (De Bie & Cristianini 2006), a group whose labels must agree is ``±τ``, and every other
    free point keeps its own row. A group with an exact count ``1ᵀy_G = s_G`` is the linear
    equation ``a_Gᵀỹ = s_G τ``; with the row ``e_0ᵀỹ = τ`` these read ``Fỹ = τ f``, so every
    feasible ``M̃`` satisfies ``M̃ Fᵀv = 0`` for ``v ⊥ f`` (the *null* directions, orthonormal
    columns of ``null``), and ``VᵀFᵀv = 0`` for ``M̃ = VVᵀ`` — linear in ``V``. The coordinate
    ``τ`` exists as soon as a label is fixed or a count is exact; it makes the lifted set
    equivalent to the face of :class:`weakcvx.sdp._Face` (its ``F M̃ Fᵀ = f fᵀ`` follows from
    ``M̃_00 = 1``).

    Groups whose count is a range (``Clustering`` with ``β' > 0``, ``Proportions`` with
    ``eps > 0``) have no linear description in ``V``; they are dropped (``ranges`` lists them),
    which relaxes the SDP (a smaller, still certified lower bound of the MIP).
    """

    def __init__(self, labelset):
        cc = labelset.count_constraints()
        if cc is None:
            raise ValueError(
                "The low-rank SDP needs a label set described by counts "
                "(`labelset.count_constraints()`: SemiSupervised, Clustering, Proportions). Got "
                f"{type(labelset).__name__}, whose count_constraints() is None.")
        fixed, groups = np.asarray(cc[0]), cc[1]
        n = len(fixed)
        known = np.flatnonzero(fixed != 0)
        self.has_tau = bool(known.size) or any(lo == hi for _, lo, hi in groups)
        index = np.full(n, -1, dtype=np.int64)
        sign = np.ones(n)
        dim = 1 if self.has_tau else 0
        index[known], sign[known] = 0, fixed[known]
        F, f = ([np.eye(1).ravel()], [1.0]) if self.has_tau else ([], [])
        pinned, self.ranges = [], []
        for idx, lo, hi in groups:
            idx = np.asarray(idx, dtype=np.int64)
            size = len(idx)
            if lo == hi and lo in (0, size):  # the labels of the group all agree: ±τ
                index[idx], sign[idx] = 0, (1.0 if lo == size else -1.0)
                continue
            index[idx] = dim + np.arange(size)
            dim += size
            if lo == hi:
                pinned.append((idx, float(2 * lo - size)))  # 1ᵀy_G = 2 n₊ − |G|
            else:
                self.ranges.append((idx, lo, hi))
        for idx, s in pinned:
            a = np.zeros(dim)
            a[index[idx]] = 1.0
            F.append(a)
            f.append(s)
        self.n, self.dim, self.index, self.sign = n, dim, index, sign
        self.null = np.zeros((dim, 0))
        if len(F) > 1:
            F = np.array([np.pad(row, (0, dim - len(row))) for row in F])
            f = np.array(f)
            P = np.eye(len(f)) - np.outer(f, f) / np.dot(f, f)
            U, svals, _ = np.linalg.svd(F.T @ P, full_matrices=False)
            self.null = U[:, svals > 1e-9 * max(1.0, np.abs(F).max())]
        self.reflectors = _householder(self.null)

    # -- maps between the n points and the lifted rows -----------------------------------------
    def lift_rows(self, A):
        """``Eᵀ A``: sum the (signed) rows of ``A`` (n, ·) onto the lifted rows (dim, ·)."""
        out = np.zeros((self.dim,) + A.shape[1:])
        np.add.at(out, self.index, self.sign.reshape((-1,) + (1,) * (A.ndim - 1)) * A)
        return out

    def expand(self, V):
        """``E V``: the factor of ``M = E VVᵀ Eᵀ`` on the n points."""
        return self.sign[:, None] * V[self.index]

    def lift_labels(self, b):
        """The lifted row vector of a feasible labeling ``b`` (``τ = +1``)."""
        v = np.zeros(self.dim)
        v[self.index] = self.sign * b
        if self.has_tau:
            v[0] = 1.0
        return v

    def project(self, V, rounds=200, tol=1e-12):
        """Alternating projections: columns of ``V`` onto the complement of ``null``, rows back
        to unit length, until the pinned sums hold to ``tol`` (``violation``)."""
        V = V / np.maximum(np.linalg.norm(V, axis=1, keepdims=True), 1e-300)
        for _ in range(rounds if self.null.shape[1] else 0):
            if np.abs(self.null.T @ V).max() <= tol:
                break
            V -= self.null @ (self.null.T @ V)
            V /= np.maximum(np.linalg.norm(V, axis=1, keepdims=True), 1e-300)
        return V

    def violation(self, V):
        """``max |N₀ᵀV|``: how far ``E VVᵀ Eᵀ`` is from the pinned sums."""
        return float(np.abs(self.null.T @ V).max()) if self.null.shape[1] else 0.0


def _householder(null):
    """Reflectors ``(v, τ)`` with ``Q = H_0 ⋯ H_{q−1}`` and ``Q[:, :q]`` spanning ``null``."""
    A = null.copy()
    out = []
    for j in range(A.shape[1]):
        x = A[j:, j]
        v = np.zeros(A.shape[0])
        v[j:] = x
        v[j] += math.copysign(np.linalg.norm(x), x[0])
        tau = 2.0 / np.dot(v, v)
        A -= tau * np.outer(v, v @ A)
        out.append((v, tau))
    return out


def _apply_q(reflectors, X):
    """``Q X`` for ``Q = H_0 ⋯ H_{q−1}`` (X of shape (dim,) or (dim, p))."""
    X = X.copy()
    for v, tau in reversed(reflectors):
        X -= tau * np.multiply.outer(v, v @ X)
    return X


def _apply_qt(reflectors, X):
    """``Qᵀ X``."""
    X = X.copy()
    for v, tau in reflectors:
        X -= tau * np.multiply.outer(v, v @ X)
    return X


# ---------------------------------------------------------------------------------------------
# H_α on the lifted rows
# ---------------------------------------------------------------------------------------------
def _dense_factor(problem):
    """``problem.factor`` as a dense array (a sparse feature matrix up to 2000 columns)."""
    R = problem.factor
    if hasattr(R, "toarray"):
        if R.shape[1] > 2000:
            raise ValueError("The low-rank SDP needs a dense kernel factor; got a sparse "
                             "feature matrix with more than 2000 columns.")
        R = R.toarray()
    return np.asarray(R, dtype=float)


class _LiftedH:
    """``H̃ = Eᵀ diag(α) K diag(α) E`` as a dense matrix (``problem.gram``) or a factor
    ``F̃ = Eᵀ diag(α) R`` (d, r), never an n × n matrix without ``gram``."""

    def __init__(self, problem, lift, alpha):
        if problem.gram is not None:
            Ha = alpha[:, None] * problem.gram * alpha[None, :]
            self.dense = lift.lift_rows(lift.lift_rows(Ha).T).T
            self.dense = 0.5 * (self.dense + self.dense.T)
            self.factor = None
            self.diag = np.diag(self.dense).copy()
        else:
            self.dense = None
            self.factor = np.ascontiguousarray(lift.lift_rows(alpha[:, None] * _dense_factor(problem)))
            self.diag = np.einsum("ij,ij->i", self.factor, self.factor)

    def dot(self, V):
        """``H̃ V``."""
        if self.dense is not None:
            return self.dense @ V
        return self.factor @ (self.factor.T @ V)

    def matrix(self):
        return self.dense if self.dense is not None else self.factor @ self.factor.T


# ---------------------------------------------------------------------------------------------
# The mixing method (numba; the same function runs as plain Python through .py_func)
# ---------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def _sweep_dense(H, V, N0, lam, rho, P):  # pragma: no cover - compiled
    d, k = V.shape
    q = N0.shape[1]
    for i in range(d):
        g = H[i] @ V - H[i, i] * V[i]
        for a in range(q):
            na = N0[i, a]
            if na != 0.0:
                g -= 0.5 * na * (lam[a] + rho * (P[a] - na * V[i]))
        norm = np.sqrt(np.sum(g * g))
        if norm > 0.0:
            g /= norm
            for a in range(q):
                P[a] += N0[i, a] * (g - V[i])
            V[i] = g


@numba.njit(cache=True)
def _sweep_factor(F, Z, V, N0, lam, rho, P):  # pragma: no cover - compiled
    d, k = V.shape
    q = N0.shape[1]
    for i in range(d):
        fi = F[i]
        g = fi @ Z - (fi @ fi) * V[i]
        for a in range(q):
            na = N0[i, a]
            if na != 0.0:
                g -= 0.5 * na * (lam[a] + rho * (P[a] - na * V[i]))
        norm = np.sqrt(np.sum(g * g))
        if norm > 0.0:
            g /= norm
            delta = g - V[i]
            Z += np.outer(fi, delta)
            for a in range(q):
                P[a] += N0[i, a] * delta
            V[i] = g


def default_rank(dim):
    """``k = ⌈√(2·dim)⌉ + 1``: some optimum of an SDP with ``dim`` equality constraints has rank
    ``r`` with ``r(r+1)/2 ≤ dim`` (Barvinok–Pataki), and at ``k > √(2·dim)`` the mixing method
    has no spurious local optimum for almost every cost (Wang, Chang & Kolter 2017)."""
    return int(math.ceil(math.sqrt(2 * dim))) + 1


class InnerSolution:
    """The mixing method's answer at one ``α`` (see :func:`inner_sdp`).

    Attributes
    ----------
    V : ndarray (dim, k)
        Lifted factor, unit rows, columns orthogonal to the null directions (up to
        ``violation``): ``M = E VVᵀ Eᵀ`` is feasible.
    value : float
        ``⟨H_α, M⟩`` at ``V``: a lower estimate of ``φ(H_α)`` (exact for the returned ``M``).
    y : ndarray (dim,)
        The dual point of stationarity, ``y_i = ⟨v_i, (H̃V)_i − ½(N₀Λ)_i⟩``.
    sweeps : int
    violation : float
        ``max |N₀ᵀV|``, the residual of the pinned sums.
    multipliers : ndarray (q, k)
        The augmented Lagrangian's multipliers (a warm start).

    Examples
    --------
    >>> import weakcvx as wc, numpy as np
    >>> X, y, y_known = wc.datasets.make_two_moons(20, n_labeled=2, random_state=0)
    >>> problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0),
    ...                               wc.labelsets.SemiSupervised(y_known), costs=10.0)
    >>> sol = inner_sdp(problem, np.ones(20))
    >>> sol.V.shape[0], bool(np.allclose(np.linalg.norm(sol.V, axis=1), 1.0))  # 18 free + τ
    (19, True)
    >>> sol.violation < 1e-6
    True
    """

    def __init__(self, V, value, y, sweeps, violation, multipliers):
        self.V, self.value, self.y = V, value, y
        self.sweeps, self.violation, self.multipliers = sweeps, violation, multipliers


def inner_sdp(problem, alpha, V0=None, rank=None, max_sweeps=200, tol=1e-7, multipliers=None,
              random_state=0, _lift=None, _H=None):
    r"""``φ(H_α)`` by the mixing method on ``M = VVᵀ`` (Wang, Chang & Kolter 2017).

    Row ``i`` of ``V`` maximises the augmented Lagrangian
    ``⟨H̃, VVᵀ⟩ − ⟨Λ, N₀ᵀV⟩ − (ρ/2)‖N₀ᵀV‖²`` over the unit sphere with the other rows fixed;
    every term is linear in ``v_i`` on the sphere, so the update is closed-form:

    .. math::

        v_i \leftarrow \frac{g_i}{\|g_i\|}, \qquad
        g_i = \sum_{j \ne i} \tilde H_{ij} v_j - \tfrac12 \sum_a (N_0)_{ia}
              \big(\Lambda_a + \rho (N_0^\top V - (N_0)_{i\cdot}^\top v_i^\top)_a\big),

    ``O(r·k)`` a row through the factor (``O(dim·k)`` with ``gram``); ``Λ ← Λ + ρ N₀ᵀV`` after
    every sweep. The result is projected back onto the feasible set.

    Parameters
    ----------
    problem : WeakLabelProblem
    alpha : array-like (n,)
    V0 : ndarray (dim, k), optional
        Warm start (the previous round's factor).
    rank : int, optional
        ``k``; default :func:`default_rank` of the lifted dimension.
    max_sweeps : int, default=200
        At n = 1000 a sweep takes ~10 ms; 100 sweeps gave a certified relative gap of 2e-5
        (docs/design.rst §3.10).
    tol : float, default=1e-7
        Stop when a sweep raises ``⟨H̃, VVᵀ⟩`` by less than ``tol`` (relative) and the pinned
        sums hold to ``√tol``.

    Returns
    -------
    InnerSolution

    Examples
    --------
    >>> import weakcvx as wc, numpy as np
    >>> X, y, y_known = wc.datasets.make_two_moons(30, n_labeled=2, random_state=0)
    >>> problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0),
    ...                               wc.labelsets.SemiSupervised(y_known), costs=10.0)
    >>> sol = inner_sdp(problem, np.ones(30))
    >>> cert = certify(problem, np.ones(30), inner=sol)  # at t·1, t = cert.scale
    >>> bool(sol.value * cert.scale ** 2 <= cert.phi_upper + 1e-9)
    True
    """
    lift = _Lift(problem.labelset) if _lift is None else _lift
    alpha = _check_alpha(problem, alpha)
    H = _LiftedH(problem, lift, alpha) if _H is None else _H
    dim = lift.dim
    k = default_rank(dim) if rank is None else int(rank)
    if V0 is None:
        rng = check_random_state(random_state)
        V = rng.standard_normal((dim, k))
    else:
        V = np.array(V0, dtype=float)
        if V.shape[1] < k:  # a compressed warm start: pad with small random columns
            rng = check_random_state(random_state)
            V = np.hstack([V, 1e-3 * rng.standard_normal((dim, k - V.shape[1]))])
    V = lift.project(V)
    N0 = np.ascontiguousarray(lift.null)
    q = N0.shape[1]
    lam = np.zeros((q, k)) if multipliers is None or multipliers.shape != (q, k) \
        else multipliers.copy()
    scale = max(float(H.diag.sum()), 1e-12)
    # measured: at ρ = tr H̃ the sums and multipliers cycle on three exact-count bags (n = 12)
    # and the iterates stall 3% below φ; at 10·tr H̃ they converge (SSL n = 1000 too)
    rho = 10.0 * scale
    P = N0.T @ V
    Z = None if H.factor is None else H.factor.T @ V
    value = _objective(H, V)
    sweeps = 0
    for sweeps in range(1, max_sweeps + 1):
        if H.factor is None:
            _sweep_dense(H.dense, V, N0, lam, rho, P)
        else:
            _sweep_factor(H.factor, Z, V, N0, lam, rho, P)
        P = N0.T @ V  # against drift of the running sums
        lam += rho * P
        new = _objective(H, V)
        done = new - value <= tol * max(abs(new), 1e-12) and \
            (q == 0 or np.abs(P).max() <= math.sqrt(tol))
        value = new
        if done:
            break
    V = lift.project(V)
    HV = H.dot(V)
    value = float(np.sum(V * HV))
    y = np.einsum("ij,ij->i", V, HV - 0.5 * (N0 @ lam))
    violation = float(np.abs(N0.T @ V).max()) if q else 0.0
    return InnerSolution(V, value, y, sweeps, violation, lam)


def _objective(H, V):
    if H.factor is None:
        return float(np.sum(V * (H.dense @ V)))
    Z = H.factor.T @ V
    return float(np.sum(Z * Z))


def _check_alpha(problem, alpha):
    alpha = np.asarray(alpha, dtype=float)
    n = problem.n_samples
    if alpha.shape != (n,):
        raise ValueError(f"`alpha` must have shape ({n},). Got shape {alpha.shape} instead.")
    if not np.all(np.isfinite(alpha)):
        raise ValueError("`alpha` must contain only finite values. Got NaN or inf.")
    c = problem.costs
    if c is None:  # a formulation without a box: the caller vouches that α ∈ A
        return alpha
    if np.any(alpha < -1e-12) or np.any(alpha > c + 1e-12):
        raise ValueError("`alpha` must lie in the box [0, problem.costs]. Got values in "
                         f"[{alpha.min():.6g}, {alpha.max():.6g}] instead.")
    return np.clip(alpha, 0.0, c)


# ---------------------------------------------------------------------------------------------
# The certificate
# ---------------------------------------------------------------------------------------------
class Certificate:
    """A certified bound at one ``α`` (see :func:`certify`).

    Attributes
    ----------
    value : float
        ``f(α) − ½ phi_upper``: a certified lower bound of the SDP value and of the MIP.
    phi_upper : float
        ``Σy − dim·λ`` with ``λ ≤ λ_min(Nᵀ(Diag y − H̃)N)``: an upper bound of ``φ(H_α)``.
    phi_lower : float
        ``⟨H_α, M⟩`` at the mixing method's feasible ``M``.
    lambda_min : float
        The lower bound of ``λ_min`` used (rounding margin or residual subtracted).
    eigen : str
        How ``λ_min`` was bounded: ``"dense"``, ``"lanczos"`` or ``"factor"``.
    inner : InnerSolution
        The mixing method's solution, moved to ``alpha`` (the same ``M``; ``y`` and ``φ``
        scaled by ``scale²``).
    alpha : ndarray (n,)
        The point certified.
    scale : float
        ``t*`` of :func:`certify`: ``alpha`` is ``scale`` times the ``α`` given.

    Examples
    --------
    >>> import weakcvx as wc
    >>> X, y, y_known = wc.datasets.make_two_moons(20, n_labeled=2, random_state=0)
    >>> problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0),
    ...                               wc.labelsets.SemiSupervised(y_known), costs=10.0)
    >>> hull = wc.solve(problem, method="label_generation")
    >>> cert = certify(problem, hull.alpha)
    >>> cert.eigen, bool(0 <= cert.phi_gap < 1e-3 * cert.phi_upper)
    ('dense', True)
    >>> bool(cert.value <= hull.upper_bound)   # a lower bound of the MIP, below any J(labels)
    True
    """

    def __init__(self, **kw):
        self.__dict__.update(kw)

    @property
    def phi_gap(self):
        """``phi_upper − phi_lower`` ≥ 0 (up to rounding): how loose the certificate is."""
        return self.phi_upper - self.phi_lower

    def __repr__(self):
        return (f"Certificate(value={self.value:.6g}, phi in [{self.phi_lower:.6g}, "
                f"{self.phi_upper:.6g}], eigen={self.eigen!r})")


def _lambda_min_dense(lift, H, y):
    """Exact ``λ_min(Nᵀ(Diag y − H̃)N)`` minus a rounding margin (eigh is backward stable)."""
    A = -H.matrix()
    A[np.diag_indices_from(A)] += y
    q = lift.null.shape[1]
    if q:
        A = _apply_qt(lift.reflectors, _apply_qt(lift.reflectors, A).T)[q:, q:]
    A = 0.5 * (A + A.T)
    lam = float(scipy.linalg.eigh(A, eigvals_only=True, subset_by_index=[0, 0],
                                  check_finite=False)[0])
    margin = 10 * A.shape[0] * np.finfo(float).eps * float(np.linalg.norm(A))
    return lam - margin, 0.0


def _lambda_min_lanczos(lift, H, y, V, random_state=0):
    """``θ − ‖Sx − θx‖`` for the smallest Ritz pair of Lanczos on the restricted operator.

    By the residual bound, some eigenvalue lies within ``‖Sx − θx‖`` of ``θ``; that it is the
    smallest rests on Lanczos having found the bottom of the spectrum (it starts from the
    mixing method's factor, where ``S`` nearly vanishes, and a random vector).
    """
    q = lift.null.shape[1]
    d = lift.dim

    def matvec(x):
        x = np.asarray(x, dtype=float).reshape(d - q, -1)
        z = _apply_q(lift.reflectors, np.vstack([np.zeros((q, x.shape[1])), x]))
        w = y[:, None] * z - H.dot(z)
        return _apply_qt(lift.reflectors, w)[q:]

    op = spla.LinearOperator((d - q, d - q), matvec=matvec, matmat=matvec, dtype=float)
    rng = check_random_state(random_state)
    X0 = _apply_qt(lift.reflectors, V)[q:]
    X0 = np.hstack([X0, rng.standard_normal((d - q, 2))])
    X0, _ = np.linalg.qr(X0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theta, X = spla.lobpcg(op, X0, largest=False, tol=1e-9, maxiter=200)
    X /= np.linalg.norm(X, axis=0, keepdims=True)
    residual = np.linalg.norm(op.matmat(X) - X * theta[None, :], axis=0)
    j = int(np.argmin(theta - residual))
    return float(theta[j] - residual[j]), float(residual[j])


def certify(problem, alpha, inner=None, max_sweeps=1000, eigen="auto", random_state=0):
    r"""A certified lower bound of the SDP value (hence of the MIP) at any ``α ∈ A``.

    For any ``y ∈ R^dim``, with ``S = Nᵀ(Diag y − H̃_α)N`` (``N``: an orthonormal basis of the
    complement of the null directions of :class:`_Lift`, applied as Householder reflections)
    and ``M̃ = N X Nᵀ``, ``X ⪰ 0``, ``tr X = dim`` on the feasible set:

    .. math::

        \langle H, M\rangle = \textstyle\sum_i y_i - \langle S, X\rangle
        \le \sum_i y_i - \dim \cdot \lambda_{\min}(S),

    so ``f(α) − ½(Σy − dim·λ_min(S)) ≤ V_sdp ≤ V_hull ≤ MIP`` (weak duality; §3.10). Without
    the restriction to ``N`` no ``y`` would do: every feasible ``M`` is singular along the null
    directions. ``y`` is the mixing method's stationarity point (:func:`inner_sdp`), which
    makes the bound tight at its optimum; any ``y`` is valid.

    On a box fast path (``f = 1ᵀα``) the bound is then taken at the best multiple ``tα`` in
    the box: ``H_{tα} = t² H_α``, so ``(t²y, t²λ)`` certifies ``φ(H_{tα}) ≤ t² φ̄`` with
    ``φ̄ = Σy − dim·λ``, and

    .. math::

        \max_{0 < t \le t_{\max}} \; t\,\mathbf 1^\top\alpha - \tfrac12 t^2 \bar\varphi,
        \qquad t^\star = \min\big(\mathbf 1^\top\alpha / \bar\varphi,\;
        \min_{\alpha_i > 0} c_i / \alpha_i\big),

    is certified at no further cost. At the SDP's own ``α`` it changes nothing (``t* = 1`` at
    an optimum); at an α chosen for another relaxation (label generation's) it can turn a
    negative bound into a positive one.

    Parameters
    ----------
    problem : WeakLabelProblem
        Any formulation (docs/formulations.rst): ``f(α) = 1ᵀα`` on ``A = [0, problem.costs]``
        on a fast path (the squared hinge's shift is in the kernel), else the formulation's own
        ``f`` (``α`` must then be a point of its ``A``).
    alpha : array-like (n,)
        Any point of ``A``, e.g. label generation's final ``α`` (the hull rung, certified).
    inner : InnerSolution, optional
        A mixing-method solution at this ``α``; computed when omitted.
    max_sweeps : int, default=1000
        Mixing sweeps when ``inner`` is computed here (cold start: two moons SSL n = 1000
        stops after ~170, a 12-point problem with a random α needed ~3700 for 1e-9).
    eigen : {"auto", "dense", "lanczos", "factor"}, default="auto"
        ``λ_min`` by dense ``eigh`` (exact, ``dim ≤ DENSE_EIGEN_LIMIT`` for "auto"), by
        bisection on an ``r × r`` Schur test through the kernel factor (``"factor"``: a proven
        bound at any size, :func:`_lambda_min_factor`; "auto" above the dense limit when the
        problem has no Gram matrix), or by LOBPCG with its residual norm subtracted
        (``"lanczos"``, see :func:`_lambda_min_lanczos`; "auto" otherwise).

    Returns
    -------
    Certificate
        At ``scale · α`` (``scale = t*``, 1 off the box fast path).

    Examples
    --------
    >>> import weakcvx as wc
    >>> X, y, y_known = wc.datasets.make_two_moons(40, n_labeled=2, random_state=0)
    >>> problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0),
    ...                               wc.labelsets.SemiSupervised(y_known), costs=10.0)
    >>> hull = wc.solve(problem, method="label_generation")
    >>> cert = certify(problem, hull.alpha)
    >>> bool(cert.value <= hull.upper_bound)
    True
    """
    from .problem import WeakLabelProblem

    if not isinstance(problem, WeakLabelProblem):
        raise TypeError(f"`problem` must be a WeakLabelProblem. Got {type(problem).__name__}.")
    if eigen not in ("auto", "dense", "lanczos", "factor"):
        raise ValueError(f"`eigen` must be 'auto', 'dense', 'lanczos' or 'factor'. Got {eigen!r} "
                         "instead.")
    alpha = _check_alpha(problem, alpha)
    lift = _Lift(problem.labelset)
    H = _LiftedH(problem, lift, alpha)
    if inner is None:
        inner = inner_sdp(problem, alpha, max_sweeps=max_sweeps, random_state=random_state,
                          _lift=lift, _H=H)
    return _best_multiple(problem, _certificate(problem, lift, H, alpha, inner, eigen,
                                                random_state))


def _schur_matrix(F, P, d):
    """``(T, Z)`` with ``Z = Π_d F`` and ``T = Fᵀ Π_d F`` (symmetrised), where
    ``Π_d = N(NᵀD N)⁻¹Nᵀ = D⁻¹ − D⁻¹P(PᵀD⁻¹P)⁻¹PᵀD⁻¹`` for ``D = Diag d ≻ 0`` and ``N`` the
    orthonormal complement of the null directions ``P``: ``O(dim·r·(r + q))``."""
    Z = F / d[:, None]
    if P.shape[1]:
        DP = P / d[:, None]
        Z -= DP @ np.linalg.solve(P.T @ DP, DP.T @ F)
    T = F.T @ Z
    return 0.5 * (T + T.T), Z


def _compressed_positive(P, d, tiny):
    """Whether ``Nᵀ Diag(d) N ≻ 0`` for ``N`` the orthonormal complement of ``P``, from the
    inertia identity ``In(D) = In(NᵀDN) + In(PᵀD⁻¹P)`` (``D`` invertible): it holds exactly
    when ``D`` has as many negative entries as ``PᵀD⁻¹P`` has negative eigenvalues and the
    latter is invertible. ``|d_j| ≤ tiny`` counts as singular."""
    if np.abs(d).min() <= tiny:
        return False
    negative = int(np.count_nonzero(d < 0))
    if negative > P.shape[1]:
        return False
    if not P.shape[1]:
        return True
    eigs = np.linalg.eigvalsh(P.T @ (P / d[:, None]))
    scale = max(float(np.abs(eigs).max()), 1e-300)
    return bool(np.abs(eigs).min() > 1e-12 * scale and np.count_nonzero(eigs < 0) == negative)


def _lambda_min_factor(lift, H, y, max_halvings=200):
    r"""A proven lower bound of ``λ_min(S)``, ``S = Nᵀ(Diag y − F̃F̃ᵀ)N``, through the kernel
    factor ``F̃`` (``dim × r``), for any size.

    Whenever ``Nᵀ(D − λI)N ≻ 0`` (checked exactly by :func:`_compressed_positive`; it holds
    for every ``λ < min y`` and may hold up to the ``(q+1)``-th smallest ``y_j``), its Schur
    complement gives

    .. math::

        S - \lambda I \succeq 0 \iff
        \lambda_{\max}\big(\tilde F^\top \Pi_{y - \lambda} \tilde F\big) \le 1, \qquad
        \Pi_{d} = N(N^\top D_d N)^{-1}N^\top
                = D_d^{-1} - D_d^{-1}P(P^\top D_d^{-1}P)^{-1}P^\top D_d^{-1}

    (:func:`_schur_matrix`), an ``r × r`` test; and ``S − λI ⪰ 0`` implies
    ``Nᵀ(D − λI)N ⪰ 0``, so the test passes exactly for ``λ`` below ``λ_min(S)`` (up to its
    boundary). Bisection keeps the largest ``λ`` that passes it (with the eigenvalue's
    rounding margin), between ``min y − ‖F̃‖²_F``, which passes (``D − λI ⪰ ‖F̃‖²I ⪰
    F̃F̃ᵀ``), and the ``(q+1)``-th smallest ``y_j`` (``λ_min(S) ≤ λ_min(NᵀDN)`` by interlacing):
    every point that passes is a lower bound of ``λ_min(S)``, so the certificate needs no
    assumption on an iterative eigensolver. Returns ``(λ, bracket width)``.
    """
    F, P = H.factor, lift.null
    y = np.asarray(y, dtype=float)
    scale = max(float(np.abs(y).max()), float(H.diag.max()), 1e-300)

    def passes(lam):
        d = y - lam
        if not _compressed_positive(P, d, 1e-12 * scale):
            return False
        T = _schur_matrix(F, P, d)[0]
        top = float(scipy.linalg.eigh(T, eigvals_only=True, check_finite=False,
                                      subset_by_index=[len(T) - 1] * 2)[0])
        return top + 1e3 * len(T) * np.finfo(float).eps * float(np.linalg.norm(T)) <= 1.0

    q = P.shape[1]
    hi = float(np.partition(y, q)[q]) if len(y) > q else float(y.max())
    lo = float(y.min()) - float(np.sum(F * F)) - 1e-12 * scale
    while not passes(lo):  # rounding only: widen until the test holds
        lo -= max(1.0, abs(lo))
    for _ in range(max_halvings):
        if hi - lo <= 1e-12 * scale:
            break
        mid = 0.5 * (lo + hi)
        if passes(mid):
            lo = mid
        else:
            hi = mid
    return lo, hi - lo


def _certificate(problem, lift, H, alpha, inner, eigen="auto", random_state=0):
    if eigen == "factor" and H.factor is None:
        raise ValueError("`eigen`='factor' needs a problem given by a kernel factor (no Gram "
                         "matrix, e.g. WeakLabelProblem(K, ..., rank=r)); this one has a Gram "
                         "matrix: use 'dense' or 'lanczos'.")
    if eigen == "dense" or (eigen == "auto" and lift.dim <= DENSE_EIGEN_LIMIT):
        lam, residual = _lambda_min_dense(lift, H, inner.y)
        kind = "dense"
    elif eigen == "factor" or (eigen == "auto" and H.factor is not None):
        lam, residual = _lambda_min_factor(lift, H, inner.y)
        kind = "factor"
    else:
        lam, residual = _lambda_min_lanczos(lift, H, inner.y, inner.V, random_state)
        kind = "lanczos"
    phi_upper = float(inner.y.sum() - lift.dim * lam)
    value = float(problem.f(alpha) - 0.5 * phi_upper)  # f = 1ᵀα on a box fast path
    return Certificate(value=value, phi_upper=phi_upper, phi_lower=inner.value,
                       lambda_min=lam, residual=residual, eigen=kind, inner=inner,
                       alpha=alpha, dropped_ranges=len(lift.ranges), scale=1.0)


def _best_multiple(problem, cert):
    """``cert`` moved to ``t*·α`` (:func:`certify`, box fast path): the certified value
    ``t·1ᵀα − ½t²φ̄`` at its maximiser over the multiples of ``α`` that stay in the box."""
    alpha, phi_upper = cert.alpha, cert.phi_upper
    total = float(alpha.sum())
    if not problem.fast or problem.costs is None or phi_upper <= 0.0 or total <= 0.0:
        return cert
    costs = np.broadcast_to(np.asarray(problem.costs, dtype=float), alpha.shape)
    support = alpha > 0.0
    t = min(total / phi_upper, float(np.min(costs[support] / alpha[support])))
    value = t * total - 0.5 * t * t * phi_upper
    if not value > cert.value:
        return cert
    t2, inner = t * t, cert.inner  # M is the same; y, φ and the multipliers scale with t²
    multipliers = None if inner.multipliers is None else t2 * inner.multipliers
    inner = InnerSolution(inner.V, t2 * inner.value, t2 * inner.y, inner.sweeps,
                          inner.violation, multipliers)
    return Certificate(value=value, phi_upper=t2 * phi_upper, phi_lower=t2 * cert.phi_lower,
                       lambda_min=t2 * cert.lambda_min, residual=t2 * cert.residual,
                       eigen=cert.eigen, inner=inner, alpha=np.clip(t * alpha, 0.0, costs),
                       dropped_ranges=cert.dropped_ranges, scale=t)


# ---------------------------------------------------------------------------------------------
# Polish of the certificate: the SDP's dual function in (α, y), smoothed λ_min, L-BFGS-B
# ---------------------------------------------------------------------------------------------
class _Deadline(Exception):
    pass


class _DenseSpectrum:
    """The bottom eigenpairs of ``S(α, y) = Nᵀ(Diag y − H̃_α)N`` from the dense matrix
    (``dim ≤ POLISH_LIMIT``): ``O(n² + q·dim²)`` to form, a partial ``eigh`` of the
    ``eigen_count`` smallest in single precision (1.7x faster at dim 1000; the smoothed values
    only steer the search, the result is certified in double)."""

    def __init__(self, problem, lift, eigen_count=None):
        n, d, q = problem.n_samples, lift.dim, lift.null.shape[1]
        self.lift, self.eigen_count, self.q = lift, eigen_count, q
        self.K = problem.kernel_matrix()
        self.E = scipy.sparse.csr_matrix((lift.sign, (np.arange(n), lift.index)), shape=(n, d))

    def kernel_times(self, X):
        return self.K @ X

    def bottom(self, a, y):
        """``(λ, U)``: the smallest eigenvalues, ascending, and their eigenvectors as vectors
        of the lifted space (``U = N U_N``, orthonormal, orthogonal to the null directions)."""
        lift, q, E, k = self.lift, self.q, self.E, self.eigen_count
        A = -(E.T @ (E.T @ (a[:, None] * self.K * a[None, :])).T)
        A[np.diag_indices_from(A)] += y
        S = _apply_qt(lift.reflectors, _apply_qt(lift.reflectors, A).T)[q:, q:]
        S = 0.5 * (S + S.T)
        if k is not None and S.shape[0] > 2 * k:
            try:
                lam, U = scipy.linalg.eigh(S.astype(np.float32), check_finite=False,
                                           subset_by_index=[0, k - 1])
                lam, U = lam.astype(np.float64), U.astype(np.float64)
            except np.linalg.LinAlgError:  # LAPACK's single-precision solver can fail
                lam, U = scipy.linalg.eigh(S, check_finite=False, subset_by_index=[0, k - 1])
        else:
            lam, U = np.linalg.eigh(S)
        return lam, _apply_q(lift.reflectors, np.vstack([np.zeros((q, U.shape[1])), U]))


#: Shifts tried by :class:`_FactorSpectrum` before giving up (each 4x further down).
_SHIFT_TRIES = 100


class _FactorSpectrum:
    r"""The bottom eigenpairs of ``S(α, y) = Nᵀ(Diag y − F̃F̃ᵀ)N`` through the kernel factor
    (``F̃ = Eᵀ D_α R``, ``dim × r``), by shift-invert Lanczos at any size.

    With a shift ``σ`` that passes the Schur test of :func:`_lambda_min_factor`
    (``Nᵀ(D − σI)N ≻ 0`` and ``I − T ≻ 0``, ``T = F̃ᵀΠ_{y−σ}F̃``), ``σ < λ_min(S)`` and, by
    Woodbury on the compressed matrix, ``(S − σI)⁻¹`` acts on the lifted space as

    .. math::

        B = \Pi_{y-\sigma} + Z (I - T)^{-1} Z^\top, \qquad Z = \Pi_{y-\sigma}\tilde F,

    positive definite on the complement of the null directions and zero on them: its largest
    eigenvalues ``θ`` are ``1/(λ − σ)`` for the smallest ``λ`` of ``S``. One ``T`` costs
    ``O(dim·r²)``, one product with ``B`` ``O(dim·(r + q))``. The shift starts below the last
    call's bottom eigenvalue and is lowered (×4 steps) until the test of
    :func:`_lambda_min_factor` passes (with every ``|y_j − σ|`` at least 1e-6 of ``max |y|``,
    which bounds the divisions by ``y − σ``), so it is below ``λ_min(S)`` whatever ``(α, y)``
    the search tries.
    """

    def __init__(self, problem, lift, eigen_count, tol=1e-3):
        # eigsh needs k < dim, and B vanishes on the q null directions
        k = max(1, min(eigen_count, lift.dim - lift.null.shape[1] - 1))
        self.lift, self.P, self.k, self.tol = lift, lift.null, k, tol
        self.R = np.ascontiguousarray(_dense_factor(problem))
        self.lam = self.v0 = None

    def kernel_times(self, X):
        return self.R @ (self.R.T @ X)

    def _shifted_inverse(self, F, y):
        """``(σ, B)`` with ``σ`` proven below ``λ_min(S)`` (see the class)."""
        # σ stays at least `floor` away from every y_j: Π_{y−σ} divides by y − σ
        floor = 1e-6 * max(1.0, float(np.abs(y).max()))
        base, step = float(y.min()), floor
        if self.lam is not None:
            step = max(self.lam[min(3, len(self.lam) - 1)] - self.lam[0], floor)
            base = float(self.lam[0])
        for _ in range(_SHIFT_TRIES):  # ×4 a try: from 1e-6 past any finite spectrum
            sigma = base - step
            d = y - sigma
            step *= 4.0
            if not _compressed_positive(self.P, d, floor):
                continue
            T, Z = _schur_matrix(F, self.P, d)
            try:
                chol = scipy.linalg.cho_factor(np.eye(len(T)) - T, check_finite=False)
                break
            except np.linalg.LinAlgError:
                continue
        else:
            raise SolverError("low-rank SDP polish", "no shift",
                              f"no shift below λ_min(S) in {_SHIFT_TRIES} tries (non-finite "
                              "α or y?)")
        P = self.P
        DP = P / d[:, None]
        C = P.T @ DP

        def B(v):
            w = v / d
            if P.shape[1]:
                w -= DP @ np.linalg.solve(C, DP.T @ v)
            return w + Z @ scipy.linalg.cho_solve(chol, Z.T @ v, check_finite=False)

        return sigma, B

    def bottom(self, a, y):
        """``(λ, U)`` as :meth:`_DenseSpectrum.bottom`, the ``eigen_count`` smallest."""
        F = self.lift.lift_rows(a[:, None] * self.R)
        sigma, B = self._shifted_inverse(F, y)
        dim = len(y)
        op = spla.LinearOperator((dim, dim), matvec=B, dtype=float)
        # the last call's bottom vectors plus a fixed spread vector (a start in the span of a
        # few eigenvectors alone can miss others), orthogonal to the null directions so that
        # the Krylov space stays there (eigsh's random start leaves a component of size ~tol)
        v0 = np.cos(np.arange(dim) + 0.5) / math.sqrt(dim)
        if self.v0 is not None:
            v0 = 0.1 * v0 + self.v0
        v0 = v0 - self.P @ (self.P.T @ v0)
        theta, U = spla.eigsh(op, k=self.k, which="LA", v0=v0, tol=self.tol,
                              ncv=min(dim - 1, 2 * self.k + 10))
        lam = sigma + 1.0 / theta
        order = np.argsort(lam)
        lam, U = lam[order], U[:, order]
        U -= self.P @ (self.P.T @ U)
        self.lam, self.v0 = lam, U.sum(axis=1) / math.sqrt(U.shape[1])
        return lam, U


def _smoothed_dual(problem, lift, spectrum, x, tau):
    r"""``(LB_τ, ∇LB_τ)`` at ``x = (α, y)``: ``LB_τ = 1ᵀα − ½(Σy − dim·soft_τ)`` with the soft
    minimum ``soft_τ = λ₁ − τ log Σ_i exp(−(λ_i − λ₁)/τ)`` over the eigenvalues ``spectrum``
    returns; ``∂soft/∂y = Σ_i w_i u_i²`` and ``∂soft/∂α = −2 Σ_i w_i (g_i ∘ K(g_i ∘ α))`` with
    ``w`` the soft minimum's weights, ``u_i`` the eigenvectors and ``g_i = E u_i`` (α enters
    through ``H̃ = Eᵀ D_α K D_α E``)."""
    n, d = problem.n_samples, lift.dim
    a, yy = np.clip(x[:n], 0.0, problem.costs), x[n:]
    lam, U = spectrum.bottom(a, yy)
    z = np.exp(-(lam - lam[0]) / tau)
    soft = lam[0] - tau * np.log(z.sum())
    w = z / z.sum()
    keep = w > 1e-12
    NW = U[:, keep] * np.sqrt(w[keep])
    GW = lift.expand(NW)
    value = a.sum() - 0.5 * (yy.sum() - d * soft)
    # ((GW GWᵀ) ∘ K) α = Σ_l gw_l ∘ K(gw_l ∘ α)
    grad_a = 1.0 - d * np.einsum("ij,ij->i", GW, spectrum.kernel_times(GW * a[:, None]))
    grad_y = -0.5 + 0.5 * d * np.einsum("ij,ij->i", NW, NW)
    return float(value), np.concatenate([grad_a, grad_y])


def _polish(problem, lift, alpha, y, evaluations, spectrum, temperatures=(1e-2, 1e-3, 1e-4),
            deadline=None, timed=False):
    r"""Raise the certified value by maximising the dual function jointly in ``(α, y)``.

    ``LB(α, y) = 1ᵀα − ½(Σy − dim·λ_min(S(α, y)))`` is jointly concave and equals ``V_sdp`` at
    a dual optimum; ``λ_min`` is replaced by the soft minimum of :func:`_smoothed_dual` over
    the smallest eigenpairs that ``spectrum`` returns (:class:`_DenseSpectrum`, or
    :class:`_FactorSpectrum` through the kernel factor) and maximised by L-BFGS-B over
    ``α ∈ [0, c]``, as :class:`weakcvx.sdp._Certificate` does for the CVXPY model. With only
    the bottom eigenpairs (terms far above ``λ_min`` matter little at the low temperatures)
    the smoothed values are estimates, and the caller certifies the result exactly. The
    temperatures share ``evaluations`` equally, or with ``timed`` the time to ``deadline``
    (each phase then ends at its share, whatever its evaluations, and the next starts from
    its best point). Returns
    ``(alpha, y)``.
    """
    import scipy.optimize

    n, d = problem.n_samples, lift.dim
    c = problem.costs
    scale = max(1.0, abs(float(alpha.sum())))
    best = [np.inf, None]
    phase_end = [deadline]

    def negative(x, tau):
        if phase_end[0] is not None and time.perf_counter() > phase_end[0] and \
                best[1] is not None:
            raise _Deadline
        value, grad = _smoothed_dual(problem, lift, spectrum, x, tau)
        if -value < best[0]:
            best[:] = [-value, x.copy()]
        return -value, -grad

    x = np.concatenate([alpha, y])
    bounds = [(0.0, ci) for ci in c] + [(None, None)] * d
    per_phase = 10 ** 9 if timed else max(2, evaluations // len(temperatures))
    start = time.perf_counter()
    for i, rel in enumerate(temperatures):
        best[:] = [np.inf, None]  # a new temperature: smoothed values are not comparable
        if timed:
            phase_end[0] = start + (i + 1) * (deadline - start) / len(temperatures)
        try:
            res = scipy.optimize.minimize(negative, x, args=(rel * scale / d,), jac=True,
                                          method="L-BFGS-B", bounds=bounds,
                                          options={"maxfun": per_phase, "maxiter": per_phase})
            x = res.x
        except _Deadline:  # the phase's end: keep the best point of this phase
            x = best[1]
            if not timed:
                break
    return np.clip(x[:n], 0.0, c), x[n:]


def _dense_recovery(problem, lift, alpha, y):
    """:func:`_recover` with the dense pieces it needs (``dim ≤ POLISH_LIMIT``)."""
    q = lift.null.shape[1]
    Nb = _apply_q(lift.reflectors, np.eye(lift.dim))[:, q:]
    return _recover(lift, Nb, lift.expand(Nb), problem.kernel_matrix(), alpha, y)


def _recover(lift, Nb, G, K, alpha, y, width=None):
    """A feasible primal factor from a dual point: complementary slackness puts the optimal
    ``X`` on the bottom eigenvectors of ``S``; take the ``k`` lowest, weight them by how close
    their eigenvalue is to the bottom, and project onto the feasible set."""
    d = lift.dim
    GA = G * alpha[:, None]
    S = (Nb.T * y) @ Nb - GA.T @ K @ GA
    S = 0.5 * (S + S.T)
    k = min(S.shape[0], width or default_rank(d))
    lam, U = scipy.linalg.eigh(S, subset_by_index=[0, k - 1])
    spread = max(lam[-1] - lam[0], 1e-12)
    w = np.exp(-(lam - lam[0]) / (1e-3 * spread))
    return lift.project(Nb @ (U * np.sqrt(w)))

# ---------------------------------------------------------------------------------------------
# The primal side: the SVM dual value g(M) of a feasible M = E VVᵀ Eᵀ, descended in V
# ---------------------------------------------------------------------------------------------
class _HadamardFactor:
    r"""``K ∘ WWᵀ`` with ``K = RRᵀ``, never formed: ``(K ∘ WWᵀ)a = rowsum((R Rᵀ(a∘W)) ∘ W)``
    costs ``O(n·r·k)`` and a block ``(R_I R_Jᵀ) ∘ (W_I W_Jᵀ)`` costs ``O(|I||J|(r + k))``; the
    operator protocol of :func:`weakcvx.svm.solve_box_qp_newton`. Memory ``O(n(r + k))``."""

    def __init__(self, R, W):
        self.R, self.W = np.asarray(R), W
        self.shape = (W.shape[0], W.shape[0])

    def matvec(self, a):
        return np.einsum("ij,ij->i", self.R @ (self.R.T @ (a[:, None] * self.W)), self.W)

    def block(self, rows, cols):
        R, W = self.R, self.W
        return (R[rows] @ R[cols].T) * (W[rows] @ W[cols].T)


class _PrimalDescent:
    r"""``min_V g(E VVᵀ Eᵀ)`` over factors with unit rows, by L-BFGS on ``V = U / ‖U‖_rows``.

    ``g(M) = max_{α ∈ A} 1ᵀα − ½αᵀ(K ∘ M)α`` is convex in ``M`` and, since ``K ∘ M ≻ 0``
    for ``K ≻ 0`` and ``diag M = 1`` (Schur), differentiable with ``∇_M g = −½ H_{α(M)}``
    (Danskin), so ``∇_V g = −H̃_α V``: one box-QP solve (warm-started) per evaluation gives
    value and gradient. The pinned sums ``N₀ᵀV = 0`` enter as the penalty
    ``(ρ/2)‖N₀ᵀV‖²`` (ρ = 10·Σα_i²K_ii ≈ 10·tr H̃ at the current ``α``, as in
    :func:`inner_sdp`); every
    upper bound is taken at the factor projected back onto them (:meth:`evaluate`).
    Burer–Monteiro with ``k > √(2·dim)`` columns: no spurious local minimum for almost every
    cost (the rank argument of :func:`default_rank`).
    """

    def __init__(self, problem, lift, rank, random_state):
        self.problem, self.lift = problem, lift
        rng = check_random_state(random_state)
        self.U = lift.project(rng.standard_normal((lift.dim, rank)))
        self.alpha = self.V = None
        self.upper, self.V_best, self.evaluations = np.inf, None, 0
        R = problem.box_factor
        self.kernel_diagonal = np.diag(problem.gram).copy() if problem.gram is not None else \
            np.asarray(R.multiply(R).sum(axis=1)).ravel() if scipy.sparse.issparse(R) else \
            np.einsum("ij,ij->i", R, R)

    def _solve(self, V, tol):
        """The box QP of the kernel ``K ∘ WWᵀ``, ``W = E V``, by the active-set Newton solver:
        on ``K ∘ WWᵀ`` formed (``O(n²k)``, one GEMM) when the kernel matrix is at hand, else
        through a dense kernel factor (:class:`_HadamardFactor`); a sparse factor (squared
        hinge's shift) goes to coordinate descent with the columns of ``W`` as real "sign
        vectors" of weight one (``K ∘ WWᵀ = Σ_l diag(w_l) K diag(w_l)``)."""
        problem = self.problem
        W = self.lift.expand(V)
        n, k = W.shape
        alpha0 = None if self.alpha is None else np.clip(self.alpha, 0.0, problem.costs)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)  # any α in A is usable
            if problem.gram is not None and n <= GRAM_LIMIT:
                return solve_box_qp_newton(problem.gram * (W @ W.T), problem.costs,
                                           alpha0=alpha0, tol=tol)
            R = problem.box_factor
            if not scipy.sparse.issparse(R):
                return solve_box_qp_newton(_HadamardFactor(R, W), problem.costs, alpha0=alpha0,
                                           tol=tol)
            rows = np.ascontiguousarray(np.broadcast_to(np.arange(n, dtype=np.int64), (k, n)))
            return solve_box_qp(problem.box_factor, rows, np.ascontiguousarray(W.T),
                                problem.costs, alpha0=alpha0, tol=tol, max_epochs=20000,
                                gram=problem.gram)

    def _HV(self, alpha, V):
        """``H̃_α V = Eᵀ diag(α) K diag(α) E V`` by two products with ``K`` (or its factor)."""
        problem = self.problem
        AW = alpha[:, None] * self.lift.expand(V)
        if problem.gram is not None:
            KAW = problem.gram @ AW
        else:
            R = problem.box_factor
            KAW = np.asarray(R @ np.asarray(R.T @ AW))
        return self.lift.lift_rows(alpha[:, None] * KAW)

    def _value_and_gradient(self, x):
        lift = self.lift
        U = x.reshape(self.U.shape)
        norms = np.maximum(np.linalg.norm(U, axis=1, keepdims=True), 1e-300)
        V = U / norms
        sol = self._solve(V, PRIMAL_QP_TOL)
        self.alpha = sol.alpha
        self.evaluations += 1
        HV = self._HV(sol.alpha, V)
        value = float(sol.alpha.sum() - 0.5 * np.sum(V * HV))
        grad = -HV
        if lift.null.shape[1]:
            rho = 10.0 * max(float(np.sum(sol.alpha ** 2 * self.kernel_diagonal)), 1e-12)
            P = lift.null.T @ V
            value += 0.5 * rho * float(np.sum(P * P))
            grad = grad + rho * (lift.null @ P)
        grad = (grad - np.sum(grad * V, axis=1, keepdims=True) * V) / norms
        return value, grad.ravel()

    def run(self, steps, deadline=None):
        """``steps`` L-BFGS iterations from the current factor (stopped at ``deadline``)."""
        import scipy.optimize

        # unit rows again: the tangent steps only grow ‖U_i‖, and with it shrink the gradient
        # (∝ 1/‖U_i‖) until a restarted L-BFGS stalls at its first line search
        self.U = self.U / np.maximum(np.linalg.norm(self.U, axis=1, keepdims=True), 1e-300)
        if self.alpha is None:
            self.alpha = self._solve(self.U, PRIMAL_QP_TOL).alpha
        last = [self.U.ravel().copy()]

        def callback(x):
            last[0] = x.copy()
            if deadline is not None and time.perf_counter() > deadline:
                raise _Deadline

        try:
            res = scipy.optimize.minimize(self._value_and_gradient, self.U.ravel(),
                                          jac=True, method="L-BFGS-B", callback=callback,
                                          options={"maxiter": steps, "maxcor": 20, "ftol": 0.0,
                                                   "gtol": 0.0})
            last[0] = res.x
        except _Deadline:
            pass
        self.U = last[0].reshape(self.U.shape)
        return self.evaluate(self.U)

    def evaluate(self, V):
        """``g`` at ``V`` projected onto the feasible set: an upper bound of ``V_sdp`` (the
        box-QP primal value, valid at any ``α``). Keeps the best."""
        V = self.lift.project(np.array(V, dtype=float))
        self.V = V  # the last projected factor: the warm start of the certificate
        if self.lift.violation(V) > FEASIBILITY_TOL:
            return np.inf
        sol = self._solve(V, 1e-8)
        upper = float(sol.primal_value)
        if upper < self.upper:
            self.upper, self.V_best = upper, V
        return upper


# ---------------------------------------------------------------------------------------------
# The solver: primal descent and dual polish, alternated until their values meet
# ---------------------------------------------------------------------------------------------
def _check_solve_arguments(problem, tol, max_iter, rank, max_sweeps, time_limit, primal_steps,
                           polish):
    from .problem import WeakLabelProblem

    if not isinstance(problem, WeakLabelProblem):
        raise TypeError(f"`problem` must be a WeakLabelProblem. Got {type(problem).__name__}.")
    if not isinstance(tol, (int, float, np.floating)) or isinstance(tol, bool) \
            or not 0 < tol < 1:
        raise ValueError(f"`tol` must be a float in (0, 1). Got {tol!r} instead.")
    for name, value, allow_none in (("max_iter", max_iter, False), ("rank", rank, True),
                                    ("max_sweeps", max_sweeps, False),
                                    ("primal_steps", primal_steps, False)):
        if value is None and allow_none:
            continue
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
                or value < 1:
            raise ValueError(f"`{name}` must be a positive integer. Got {value!r} instead.")
    if polish is not None and (isinstance(polish, (bool, np.bool_)) or not isinstance(
            polish, (int, np.integer)) or polish < 0):
        raise ValueError(f"`polish` must be a non-negative integer or None. Got {polish!r} "
                         "instead.")
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(
            time_limit, (int, float, np.floating)) or not time_limit > 0):
        raise ValueError(f"`time_limit` must be a positive number or None. Got {time_limit!r} "
                         "instead.")


def _round(problem, lift, V):
    """Labels from the leading left singular vector of ``E V`` (the top eigenvector of ``M``),
    rounded by the label set's oracle; both signs tried unless labels are fixed."""
    U, _, _ = np.linalg.svd(lift.expand(V), full_matrices=False)
    v = U[:, 0]
    cc = problem.labelset.count_constraints()
    fixed = np.asarray(cc[0], dtype=float)
    if np.any(fixed != 0):
        if np.dot(v, fixed) < 0:
            v = -v
        return round_scores(problem, v)
    return round_scores(problem, v, candidates=[problem.labelset.argmax(-v)])


def solve_sdp_lowrank(problem, tol=1e-3, max_iter=20, rank=None, primal_steps=500,
                      max_sweeps=300, polish=None, time_limit=600.0, eigen="auto", verbose=0,
                      random_state=0):
    r"""The SDP relaxation at scale, with a certified value (docs/methods/lowrank_sdp.rst).

    By minimax the SDP value is reached from both sides,

    .. math::

        \min_{M \in \mathcal M} g(M) \;=\; V_{\mathrm{sdp}} \;=\;
        \max_{\alpha \in A,\, y} 1^\top\alpha - \tfrac12\big(\textstyle\sum_i y_i
            - \dim\cdot\lambda_{\min}(S(\alpha, y))\big),

    with ``g(M) = max_α 1ᵀα − ½αᵀ(K∘M)α`` (the SVM of the kernel ``K ∘ M``) and ``S`` the
    matrix of :func:`certify`. Each round alternates

    1. the **primal descent** (:class:`_PrimalDescent`): ``primal_steps`` L-BFGS iterations
       on the Burer–Monteiro factor of ``M`` (unit rows, ``k`` columns), each one box-QP
       solve; ``g`` at the projected factor is the upper value;
    2. the **dual polish** (:func:`_polish`): from ``α(M)`` and the mixing method's ``y`` at
       it (:func:`inner_sdp`), L-BFGS-B on the smoothed dual function; its point certified
       exactly (:func:`certify`'s eigenvalue bound) is the lower value, and (up to
       ``POLISH_LIMIT``) the factor recovered from it is offered to the primal side.

    Through the kernel factor (above ``POLISH_LIMIT``) with a time limit, the polish feeds
    nothing back, so the rounds are scheduled: primal rounds alone while each lowers the
    upper value by ``FACTOR_PRIMAL_GAIN`` and the next would end within
    ``FACTOR_PRIMAL_SHARE`` of the limit, then one polish in the rest of the time, its
    temperature phases sharing that time. Both values bound ``V_sdp`` whenever the run stops,
    so the gap is honest.

    Parameters
    ----------
    problem : WeakLabelProblem
        Label set described by counts (SemiSupervised, Clustering, Proportions), a
        formulation with a box fast path (Hinge, SquaredHinge).
    tol : float, default=1e-3
        Stop when ``upper − value ≤ tol·max(1, |upper|)``. The 1e-3 of the agreement with the
        CVXPY model that the tests check.
    max_iter : int, default=20
        Rounds.
    rank : int, optional
        Columns ``k`` of the factor; default ``⌈√(2·dim)⌉ + 1`` (:func:`default_rank`).
    primal_steps : int, default=500
        L-BFGS iterations of the primal descent per round (500 reached a 1% gap sooner than
        300 at n = 1000, SSL and clustering; ``weakcvx bench sdp-lowrank``).
    max_sweeps : int, default=300
        Mixing sweeps for the dual start at ``α(M)`` (warm-started from the primal factor).
    polish : int, optional
        Evaluations of the dual function per round (:func:`_polish`); default 600 with dense
        eigendecompositions when ``dim ≤ POLISH_LIMIT``; above it ``FACTOR_POLISH`` by
        shift-invert Lanczos through the kernel factor (:class:`_FactorSpectrum`) when there
        is no Gram matrix, else none (the certificate is then the mixing method's at
        ``α(M)``). With a time limit through the factor, the first polish runs to the limit
        whatever this budget (the schedule above); 0 turns it off.
    time_limit : float or None, default=600.0
        Seconds; the primal descent and the polish stop early enough (1.5 times the longest
        certificate seen so far before it) that the certificate of the round ends within it,
        and the run stops after that round (status ``"time_limit"``).
    eigen : {"auto", "dense", "lanczos", "factor"}
        How the certificate computes ``λ_min`` (see :func:`certify`).
    verbose : int
    random_state : int, RandomState or None
        Seeds the starting factor.

    Returns
    -------
    SolveResult
        ``method="sdp"``, ``value``: the best certified lower bound (``certified=True``);
        ``labels``: a rounding of the leading eigenvector of the best primal ``M``
        (feasible); ``upper_bound = J(labels)``; ``extra``: ``solver="lowrank"``,
        ``primal_value`` (the smallest ``g(M)``, an upper bound of the SDP), ``gap``,
        ``relative_gap``, ``certificate_alpha``, ``rank``, ``dropped_ranges`` (range groups the
        lifted model leaves out, see :class:`_Lift`), ``primal_evaluations``.

    Warns
    -----
    UserWarning
        When range constraints are dropped (the value bounds a weaker relaxation).
    ConvergenceWarning
        When ``max_iter`` or ``time_limit`` stops the run before ``tol``: the value is still
        certified.

    Examples
    --------
    >>> import weakcvx as wc
    >>> X, y, y_known = wc.datasets.make_two_moons(20, n_labeled=2, random_state=0)
    >>> problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0),
    ...                               wc.labelsets.SemiSupervised(y_known), costs=1.0)
    >>> res = solve_sdp_lowrank(problem, tol=1e-2)
    >>> lower, upper = res.value, res.extra["primal_value"]   # V_sdp lies in [lower, upper]
    >>> res.certified, bool(upper - lower <= 1e-2 * upper), bool(lower <= res.upper_bound)
    (True, True, True)
    """
    start = time.perf_counter()
    if not getattr(problem, "fast", True):
        raise ValueError(f"The low-rank SDP needs a formulation with a box fast path; "
                         f"{problem.formulation!r} has none: use weakcvx.sdp.sdp_cutting_plane "
                         "(small problems).")
    _check_solve_arguments(problem, tol, max_iter, rank, max_sweeps, time_limit, primal_steps,
                           polish)
    lift = _Lift(problem.labelset)
    if lift.ranges:
        warn(f"low-rank SDP: {len(lift.ranges)} group(s) of "
             f"{type(problem.labelset).__name__} have a range of counts, which the "
             "lifted model leaves out: the certified value bounds a weaker relaxation "
             "than weakcvx.sdp.solve_sdp's (still a lower bound of the MIP).",
             UserWarning)
    if polish is None:
        polish = 600 if lift.dim <= POLISH_LIMIT else (FACTOR_POLISH if problem.gram is None
                                                        else 0)
    deadline = None if time_limit is None else start + time_limit
    factor_timed = (deadline is not None and polish and lift.dim > POLISH_LIMIT
                    and problem.gram is None)
    state = _Rounds(problem, lift, rank or default_rank(lift.dim), max_sweeps, eigen,
                    random_state, deadline,
                    start + FACTOR_PRIMAL_SHARE * time_limit if factor_timed else None)
    status, history = "max_iter", []
    for it in range(1, max_iter + 1):
        state.round(primal_steps, polish, last=it == max_iter)
        gap = state.primal.upper - state.certified.value
        history.append({"iteration": it, "value": state.certified.value,
                        "primal_value": state.primal.upper, "gap": gap,
                        "seconds": time.perf_counter() - start})
        if verbose:
            logger.info("sdp lowrank %d: primal %.6g, certified %.6g, gap %.3g", it,
                        state.primal.upper, state.certified.value, gap)
        if gap <= tol * max(1.0, abs(state.primal.upper)):
            status = "converged"
            break
        if deadline is not None and time.perf_counter() > state._work_deadline():
            status = "time_limit"  # another round's descent or polish would not fit
            break
    return _result(problem, lift, state, history, status, tol, start)


#: Projected-gradient tolerance of the box QP inside the primal descent (its gradient is exact
#: only at the QP's optimum; the final upper bound is always re-solved at 1e-8).
PRIMAL_QP_TOL = 1e-6

#: Eigenpairs in the polish's soft minimum above ``2 ×`` this dimension (a partial ``eigh``).
POLISH_EIGEN_COUNT = 16

#: Eigenpairs in the soft minimum of the polish through the kernel factor (above
#: ``POLISH_LIMIT``), found to relative accuracy ``FACTOR_EIGEN_TOL``. At n = 5000 (rank 200),
#: 600 evaluations from the first round's point (certified 2.857): 8 / 24 / 48 eigenpairs gave
#: 3.50 / 3.71 / 3.76 in 41 / 84 / 190 s. Accuracy 1e-2 needs 134 Lanczos products a call
#: against 209 at 1e-3 (0.71x the time), for a little less per evaluation (3300 evaluations:
#: 4.116 against 4.130); in the 600 s schedule of SSL n = 5000 it left a 0.76% gap, 1e-3 1.32%.
FACTOR_EIGEN_COUNT = 24
FACTOR_EIGEN_TOL = 1e-2

#: Evaluations a round of the polish through the factor: long phases per temperature let
#: L-BFGS-B keep its memory (two moons SSL, n = 5000, rank 200, 600 s: 600 a round left a
#: 5.3% gap after three rounds, 1800 a 1.2% gap after two; ~0.14 s an evaluation).
FACTOR_POLISH = 1800

#: With a time limit above ``POLISH_LIMIT``: primal rounds alone while the next would end
#: within this share of the limit and the last lowered the upper value by at least
#: ``FACTOR_PRIMAL_GAIN`` (relative), then one polish in the rest of the time. Chosen on two
#: moons SSL at n = 5000 (rounds of 184 s and ~140 s; the second lowers g by 2.4%).
FACTOR_PRIMAL_SHARE = 0.7
FACTOR_PRIMAL_GAIN = 0.01


#: The time kept free before ``time_limit`` is this multiple of the longest certificate (or
#: recovery and certificate) seen so far, so that the run returns within the limit: at n = 1000
#: the final certificate after a polish stopped at the limit took 0.6 s past it.
RESERVE_MARGIN = 1.5


class _Rounds:
    """The state of :func:`solve_sdp_lowrank`: the primal descent, the best certificate at the
    points the solver visited (``best``, where the polish starts) and the best one at their
    best multiples (``certified``, :func:`_best_multiple`, the value returned). The polish
    starts from the point itself, not its multiple (docs/methods/lowrank_sdp.rst)."""

    def __init__(self, problem, lift, rank, max_sweeps, eigen, random_state, deadline,
                 polish_after=None):
        self.problem, self.lift, self.deadline = problem, lift, deadline
        # seconds kept free before the deadline for the work after a descent or a polish (the
        # certificate, the dense recovery): the longest seen so far, with a margin
        self.reserve = 0.0
        # with a deadline through the factor: primal rounds alone until `polish_after`
        self.polish_after, self.primal_seconds, self.primal_gain = polish_after, 0.0, np.inf
        self.max_sweeps, self.eigen, self.random_state = max_sweeps, eigen, random_state
        self.primal = _PrimalDescent(problem, lift, rank, random_state)
        self.multipliers = None
        self.factor_spectrum = None
        # ψ(0) = f(0) − ½φ(0) = 0 is certified for the hinge: the floor of every run
        zero_y = np.zeros(lift.dim)
        self.best = Certificate(value=0.0, phi_upper=0.0, phi_lower=0.0, lambda_min=0.0,
                                residual=0.0, eigen="exact", alpha=np.zeros(problem.n_samples),
                                inner=InnerSolution(None, 0.0, zero_y, 0, 0.0, None),
                                dropped_ranges=len(lift.ranges), scale=1.0)
        self.certified = self.best

    def _certify(self, alpha, V0=None, y=None):
        """The mixing method at ``α`` (warm from ``V0``) and its certificate, or the
        certificate of a given dual point ``y`` (``V0`` then only gives ``phi_lower``); keeps
        the best."""
        began = time.perf_counter()
        problem, lift = self.problem, self.lift
        H = _LiftedH(problem, lift, alpha)
        if y is None:
            inner = inner_sdp(problem, alpha, V0=V0, rank=self.primal.U.shape[1],
                              max_sweeps=self.max_sweeps, multipliers=self.multipliers,
                              random_state=self.random_state, _lift=lift, _H=H)
            self.multipliers = inner.multipliers
        else:
            inner = InnerSolution(V0, _objective(H, V0), y, 0, lift.violation(V0), None)
        cert = _certificate(problem, lift, H, alpha, inner, self.eigen, self.random_state)
        if cert.value > self.best.value:
            self.best = cert
        scaled = _best_multiple(problem, cert)
        if scaled.value > self.certified.value:
            self.certified = scaled
        self.reserve = max(self.reserve, RESERVE_MARGIN * (time.perf_counter() - began))
        return cert

    def _work_deadline(self):
        """The deadline of a descent or a polish: ``time_limit`` less :attr:`reserve`, so that
        the certificate after it still ends within the limit."""
        return None if self.deadline is None else self.deadline - self.reserve

    def _polish_now(self, last):
        """Whether the polish runs this round: always, except with a deadline through the
        kernel factor, where the polish feeds nothing back to the primal side: there primal
        rounds run alone while each lowers the upper value by ``FACTOR_PRIMAL_GAIN`` or more
        and the next would end before ``polish_after``; the polish then takes the rest of the
        time in one run (L-BFGS loses its memory with every restart)."""
        if self.polish_after is None or last or self.primal_gain < FACTOR_PRIMAL_GAIN:
            return True
        return time.perf_counter() + self.primal_seconds > self.polish_after

    def round(self, primal_steps, polish, last=False):
        primal = self.primal
        spectrum = self._spectrum()
        timed = isinstance(spectrum, _FactorSpectrum) and self.deadline is not None
        scheduled = self.polish_after is not None and self.best.inner.V is not None
        if not (scheduled and self._polish_now(last)):  # else the polish's turn: no primal
            began, before = time.perf_counter(), primal.upper
            primal.run(primal_steps, self._work_deadline())  # ends with evaluate(): V projected
            self.primal_seconds = time.perf_counter() - began
            self.primal_gain = (before - primal.upper) / max(1.0, abs(primal.upper))
            self._certify(np.clip(primal.alpha, 0.0, self.problem.costs), V0=primal.V)
        in_time = self.deadline is None or time.perf_counter() < self._work_deadline()
        if not (polish and in_time and spectrum is not None and self._polish_now(last)):
            return
        best = self.best
        V0 = best.inner.V if best.inner.V is not None else primal.V
        alpha, y = _polish(self.problem, self.lift, best.alpha, best.inner.y, polish, spectrum,
                           deadline=self._work_deadline(), timed=timed)
        if isinstance(spectrum, _FactorSpectrum):  # no dense recovery at this size
            self.polish_after = None  # from now on: primal round, then polish
            self._certify(alpha, V0=V0, y=y)
            return
        began = time.perf_counter()
        V_rec = _dense_recovery(self.problem, self.lift, alpha, y)
        self._certify(alpha, V0=V_rec, y=y)
        before = primal.upper
        if primal.evaluate(V_rec) < before:  # the dual's primal is better: descend from it
            primal.U = primal.V_best.copy()
        self.reserve = max(self.reserve, RESERVE_MARGIN * (time.perf_counter() - began))

    def _spectrum(self):
        """The polish's eigen-step: dense up to ``POLISH_LIMIT``, through the kernel factor
        above it (kept across rounds: its shift and Lanczos start carry over), else none."""
        if self.lift.dim <= POLISH_LIMIT:
            return _DenseSpectrum(self.problem, self.lift, POLISH_EIGEN_COUNT)
        if self.problem.gram is not None:
            return None
        if self.factor_spectrum is None:
            self.factor_spectrum = _FactorSpectrum(self.problem, self.lift, FACTOR_EIGEN_COUNT,
                                                   FACTOR_EIGEN_TOL)
        return self.factor_spectrum


def _result(problem, lift, state, history, status, tol, start):
    best, upper = state.certified, state.primal.upper
    V = state.primal.V_best if state.primal.V_best is not None else state.primal.U
    labels, J, alpha_labels = _round(problem, lift, V)
    gap = upper - best.value
    relative = gap / max(1.0, abs(upper))
    if status != "converged":
        warn(f"low-rank SDP stopped with status {status!r} at a relative gap "
             f"{relative:.3g} (tol {tol:g}); the value is certified but may be loose.",
             ConvergenceWarning)
    return SolveResult(
        method="sdp", value=best.value, labels=labels, upper_bound=J, certified=True,
        status=status, n_iter=len(history), seconds=time.perf_counter() - start,
        history=history,
        message=(f"low-rank SDP {status} after {len(history)} rounds: certified "
                 f"{best.value:.6g}, primal {upper:.6g}, gap {gap:.3g}"),
        alpha=alpha_labels, mu=np.ones(1), working_set=[labels.copy()],
        extra={"solver": "lowrank", "primal_value": upper, "gap": gap, "relative_gap": relative,
               "certificate_alpha": best.alpha, "certificate": best, "rank": V.shape[1],
               "dropped_ranges": len(lift.ranges), "eigen": best.eigen,
               "primal_evaluations": state.primal.evaluations})
