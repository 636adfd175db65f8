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
- :func:`solve_sdp_lowrank`: label generation with the SDP's oracle (a working set of feasible
  low-rank ``M_i``, the master ``max_α min_μ G(α, Σμ_i M_i)``, the mixing method at the
  master's ``α``), stopped when the certificate meets the master value.

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

from .result import SolveResult
from .rounding import round_scores
from .svm import solve_box_qp

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
            R = problem.factor
            if hasattr(R, "toarray"):
                R = R.toarray() if R.shape[1] <= 2000 else None
            if R is None:
                raise ValueError("The low-rank SDP needs a dense kernel factor; got a sparse "
                                 "feature matrix with more than 2000 columns.")
            self.dense = None
            self.factor = np.ascontiguousarray(lift.lift_rows(alpha[:, None] * np.asarray(R)))
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
    >>> cert = certify(problem, np.ones(30), inner=sol)
    >>> bool(sol.value <= cert.phi_upper + 1e-9)
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
        ``"dense"`` or ``"lanczos"``.
    inner : InnerSolution
    alpha : ndarray (n,)
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
    eigen : {"auto", "dense", "lanczos"}, default="auto"
        ``λ_min`` by dense ``eigh`` (exact, ``dim ≤ DENSE_EIGEN_LIMIT`` for "auto") or LOBPCG
        with its residual norm subtracted (see :func:`_lambda_min_lanczos`).

    Returns
    -------
    Certificate

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
    if eigen not in ("auto", "dense", "lanczos"):
        raise ValueError(f"`eigen` must be 'auto', 'dense' or 'lanczos'. Got {eigen!r} instead.")
    alpha = _check_alpha(problem, alpha)
    lift = _Lift(problem.labelset)
    H = _LiftedH(problem, lift, alpha)
    if inner is None:
        inner = inner_sdp(problem, alpha, max_sweeps=max_sweeps, random_state=random_state,
                          _lift=lift, _H=H)
    return _certificate(problem, lift, H, alpha, inner, eigen, random_state)


def _certificate(problem, lift, H, alpha, inner, eigen="auto", random_state=0):
    if eigen == "dense" or (eigen == "auto" and lift.dim <= DENSE_EIGEN_LIMIT):
        lam, residual = _lambda_min_dense(lift, H, inner.y)
        kind = "dense"
    else:
        lam, residual = _lambda_min_lanczos(lift, H, inner.y, inner.V, random_state)
        kind = "lanczos"
    phi_upper = float(inner.y.sum() - lift.dim * lam)
    value = float(problem.f(alpha) - 0.5 * phi_upper)  # f = 1ᵀα on a box fast path
    return Certificate(value=value, phi_upper=phi_upper, phi_lower=inner.value,
                       lambda_min=lam, residual=residual, eigen=kind, inner=inner,
                       alpha=alpha, dropped_ranges=len(lift.ranges))


# ---------------------------------------------------------------------------------------------
# The master over a working set of feasible low-rank M_i (MKLGL, WellSVM §4.1.2)
# ---------------------------------------------------------------------------------------------
def _compress(V, rel=1e-6):
    """A thinner factor with the same ``VVᵀ`` up to the singular values below ``rel·σ₁``
    (an SDP optimum of the oracle is usually of rank 2–5, far below ``k``)."""
    U, s, _ = np.linalg.svd(V, full_matrices=False)
    keep = s > rel * s[0]
    return U[:, keep] * s[keep]


def _master(problem, members, mu0, alpha0, tol, max_alternations):
    r"""``min_{μ∈Δ} max_{α∈A} 1ᵀα − ½αᵀ(K ∘ Σ_i μ_i W_iW_iᵀ)α`` by MKLGL.

    ``K ∘ WWᵀ = Σ_l diag(w_l) K diag(w_l)``: member ``i`` enters the box-QP engine as its
    ``k_i`` columns, each a real "sign vector" with the weight ``μ_i``. The μ-step is
    ``μ_i ∝ μ_i αᵀ(K∘M_i)α`` (:func:`weakcvx.mkl.master_mklgl`, step 1). Returns
    ``(alpha, mu, upper, lower, quadratics, alternations)``: ``upper`` is the SVM primal value
    of the current ``Σμ_iM_i`` (an upper bound of the saddle value, hence of ``V_sdp`` when
    the ``M_i`` are feasible), ``lower = 1ᵀα − ½ max_i αᵀ(K∘M_i)α``.
    """
    n = problem.n_samples
    widths = np.array([W.shape[1] for W in members])
    starts = np.concatenate([[0], np.cumsum(widths)[:-1]])
    signs = np.ascontiguousarray(np.hstack(members).T)
    rows = np.ascontiguousarray(np.broadcast_to(np.arange(n, dtype=np.int64), signs.shape))
    mu = np.maximum(np.asarray(mu0, dtype=float), 1e-3 / len(members))
    mu /= mu.sum()
    alpha, best, products = alpha0, None, None
    inner_tol = max(1e-8, min(1e-3, tol))
    for k in range(1, max_alternations + 1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)  # any α in A is usable
            sol = solve_box_qp(problem.box_factor, rows, signs, problem.costs,
                               mu=np.repeat(mu, widths), alpha0=alpha, tol=inner_tol,
                               max_epochs=2000, gram=problem.gram, label_products=products)
        products = sol.label_products if hasattr(sol, "label_products") else None
        alpha = sol.alpha
        q = np.add.reduceat(sol.quadratics, starts)
        upper, lower = float(sol.primal_value), float(alpha.sum() - 0.5 * q.max())
        if best is None or upper < best[2]:
            best = [alpha.copy(), mu.copy(), upper, lower, q]
        best[3] = max(best[3], lower)
        if upper - best[3] <= tol * max(1.0, abs(upper)) or len(members) == 1:
            break
        mu = mu * np.maximum(q, 0.0)
        mu /= mu.sum()
    return (*best, k)


# ---------------------------------------------------------------------------------------------
# Polish of the certificate: the SDP's dual function in (α, y), smoothed λ_min, L-BFGS-B
# ---------------------------------------------------------------------------------------------
class _Deadline(Exception):
    pass


def _polish(problem, lift, alpha, y, evaluations, temperatures=(1e-2, 1e-3, 1e-4),
            deadline=None):
    r"""Raise the certified value by maximising the dual function jointly in ``(α, y)``.

    ``LB(α, y) = 1ᵀα − ½(Σy − dim·λ_min(S(α, y)))`` is jointly concave and equals ``V_sdp`` at
    a dual optimum; ``λ_min`` is replaced by the soft minimum ``−τ log Σ exp(−λ_i/τ) ≤ λ_min``
    (so every smoothed value is a valid bound too) and maximised by L-BFGS-B over
    ``α ∈ [0, c]``, as :class:`weakcvx.sdp._Certificate` does for the CVXPY model. Dense
    eigendecompositions: for ``dim ≤ POLISH_LIMIT`` only. Returns ``(alpha, y)``; the caller
    certifies the result exactly.
    """
    import scipy.optimize

    n, d, q = problem.n_samples, lift.dim, lift.null.shape[1]
    c = problem.costs
    K = problem.kernel_matrix() if problem.gram is None else problem.gram
    Nb = _apply_q(lift.reflectors, np.eye(d))[:, q:]  # orthonormal basis of the complement
    G = lift.expand(Nb)  # (n, d − q): M = G X Gᵀ
    E = scipy.sparse.csr_matrix((lift.sign, (np.arange(n), lift.index)), shape=(n, d))
    scale = max(1.0, abs(float(alpha.sum())))

    best = [np.inf, None]

    def negative(x, tau):
        if deadline is not None and time.perf_counter() > deadline and best[1] is not None:
            raise _Deadline
        a, yy = np.clip(x[:n], 0.0, c), x[n:]
        # S = Nᵀ(Diag y − EᵀD_αKD_αE)N with N applied as q reflections: O(n² + q·dim²)
        A = -(E.T @ (E.T @ (a[:, None] * K * a[None, :])).T)
        A[np.diag_indices_from(A)] += yy
        S = _apply_qt(lift.reflectors, _apply_qt(lift.reflectors, A).T)[q:, q:]
        S = 0.5 * (S + S.T)
        lam, U = np.linalg.eigh(S)
        z = np.exp(-(lam - lam[0]) / tau)
        soft = lam[0] - tau * np.log(z.sum())
        w = z / z.sum()
        keep = w > 1e-12
        W = U[:, keep] * np.sqrt(w[keep])
        NW = _apply_q(lift.reflectors, np.vstack([np.zeros((q, W.shape[1])), W]))
        GW = lift.expand(NW)
        value = a.sum() - 0.5 * (yy.sum() - d * soft)
        # ((GW GWᵀ) ∘ K) α = Σ_l gw_l ∘ K(gw_l ∘ α)
        grad_a = 1.0 - d * np.einsum("ij,ij->i", GW, K @ (GW * a[:, None]))
        grad_y = -0.5 + 0.5 * d * np.einsum("ij,ij->i", NW, NW)
        if -value < best[0]:
            best[:] = [-value, x.copy()]
        return -value, -np.concatenate([grad_a, grad_y])

    x = np.concatenate([alpha, y])
    bounds = [(0.0, ci) for ci in c] + [(None, None)] * d
    per_phase = max(2, evaluations // len(temperatures))
    for rel in temperatures:
        best[0] = np.inf  # a new temperature: smoothed values are not comparable across
        try:
            res = scipy.optimize.minimize(negative, x, args=(rel * scale / d,), jac=True,
                                          method="L-BFGS-B", bounds=bounds,
                                          options={"maxfun": per_phase, "maxiter": per_phase})
            x = res.x
        except _Deadline:  # the caller's time limit: keep the best point of this phase
            x = best[1]
            break
    return np.clip(x[:n], 0.0, c), x[n:], _recover(lift, Nb, G, K, np.clip(x[:n], 0.0, c), x[n:])


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
# Label generation with the SDP's oracle
# ---------------------------------------------------------------------------------------------
def _check_solve_arguments(problem, tol, max_iter, rank, max_sweeps, time_limit, stabilize,
                           polish):
    from .problem import WeakLabelProblem

    if not isinstance(problem, WeakLabelProblem):
        raise TypeError(f"`problem` must be a WeakLabelProblem. Got {type(problem).__name__}.")
    if not isinstance(tol, (int, float, np.floating)) or isinstance(tol, bool) \
            or not 0 < tol < 1:
        raise ValueError(f"`tol` must be a float in (0, 1). Got {tol!r} instead.")
    for name, value, allow_none in (("max_iter", max_iter, False), ("rank", rank, True),
                                    ("max_sweeps", max_sweeps, False)):
        if value is None and allow_none:
            continue
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
                or value < 1:
            raise ValueError(f"`{name}` must be a positive integer. Got {value!r} instead.")
    if isinstance(stabilize, bool) or not isinstance(stabilize, (int, float, np.floating)) \
            or not 0 <= stabilize < 1:
        raise ValueError(f"`stabilize` must be a number in [0, 1). Got {stabilize!r} instead.")
    if polish is not None and (isinstance(polish, (bool, np.bool_)) or not isinstance(
            polish, (int, np.integer)) or polish < 0):
        raise ValueError(f"`polish` must be a non-negative integer or None. Got {polish!r} "
                         "instead.")
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(
            time_limit, (int, float, np.floating)) or not time_limit > 0):
        raise ValueError(f"`time_limit` must be a positive number or None. Got {time_limit!r} "
                         "instead.")


def _first_member(problem, lift, random_state):
    """A feasible rank-one start: the label set's rounding of the supervised SVM's scores
    (SSL), else a random element of ``B``."""
    from .rounding import supervised_scores

    scores = supervised_scores(problem)
    labelset = problem.labelset
    b0 = labelset.initial(random_state=random_state) if scores is None \
        else labelset.argmax(scores)
    return lift.expand(lift.lift_labels(b0)[:, None])


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


def solve_sdp_lowrank(problem, tol=1e-3, max_iter=50, rank=None, max_sweeps=200,
                      master_alternations=200, time_limit=600.0, eigen="auto", verbose=0,
                      random_state=0, stabilize=0.5, polish=None):
    r"""The SDP relaxation at scale, with a certified value (docs/design.rst §3.10).

    Label generation with the SDP's oracle, plus a polish of the dual point (see the Notes of
    ``docs/methods/lowrank_sdp.rst``): a working set of feasible ``M_i = E V_iV_iᵀ Eᵀ``,

    .. math::

        U = \min_{\mu \in \Delta} \max_{\alpha \in A} G\big(\alpha, \textstyle\sum_i \mu_i M_i\big)
        \;\ge\; V_{\mathrm{sdp}} \;\ge\; f(\alpha) - \tfrac12 \varphi^{\uparrow}(H_\alpha),

    the master (MKLGL over the label kernels ``K∘M_i``) gives ``α`` and the upper value
    ``U``; the mixing method at that ``α`` (:func:`inner_sdp`) gives the ``M`` that ``α`` likes
    least, a new member; its certificate (:func:`certify`) gives the lower value. Both values
    bound ``V_sdp`` at every round, so the gap is honest whenever the run stops. (Best-response
    alternation of ``α`` and ``M`` cycles; a proximal ascent judged on unconverged ``φ``
    oscillates: §3.10.)

    Parameters
    ----------
    problem : WeakLabelProblem
        Label set described by counts (SemiSupervised, Clustering, Proportions); hinge loss.
    tol : float, default=1e-3
        Stop when ``U − value ≤ tol·max(1, |U|)``. The 1e-3 of the issue's agreement target.
    max_iter : int, default=50
        Rounds (oracle calls).
    rank : int, optional
        Columns ``k`` of the mixing method's factor; default ``⌈√(2·dim)⌉ + 1``.
    max_sweeps : int, default=200
        Mixing sweeps per oracle call (warm-started from the previous round).
    master_alternations : int, default=200
        MKLGL alternations per master solve (its own tolerance is ``tol / 10``). Measured at
        n = 60 after 10 rounds: 50 alternations leave the master value at 4.0073, 1000 at
        3.9939 (SDP 3.9814): the master's μ converges slowly and bounds the primal side.
    time_limit : float or None, default=600.0
        Seconds; the run stops after the round that passes it (status ``"time_limit"``), and
        the polish stops at it. 600 s is the issue's budget at n = 5000; at n = 1000 one round
        with the polish takes about a minute on one thread (``weakcvx bench sdp-lowrank``).
    eigen : {"auto", "dense", "lanczos"}
        How the certificate computes ``λ_min`` (see :func:`certify`).
    verbose : int
    random_state : int, RandomState or None
    stabilize : float in [0, 1), default=0.5
        The oracle is asked at ``stabilize·α_best + (1 − stabilize)·α_master`` (in-out
        stabilisation, Wentges 1997). Measured at n = 60: 0 (plain Kelley) certified 3.63
        after 50 rounds, 0.5 certified 3.92 after 100, 0.8 and 0.9 no better (SDP 3.9814).
    polish : int, optional
        Evaluations of the dual polish in the first round (a third in later ones); default 600
        when ``dim ≤ POLISH_LIMIT``, else 0. Measured at n = 60: 1000 evaluations from
        ``α = 0`` certify 3.9657, from a stabilised point 3.98112 (SDP 3.98139).

    Returns
    -------
    SolveResult
        ``method="sdp"``, ``value``: the best certified lower bound (``certified=True``);
        ``labels``: a rounding of the leading eigenvector of the oracle's ``M`` (feasible);
        ``upper_bound = J(labels)``; ``extra``: ``solver="lowrank"``, ``primal_value`` (the
        smallest master value ``U``), ``gap = U − value``, ``relative_gap``,
        ``certificate_alpha``, ``rank``, ``n_members``, ``dropped_ranges`` (range groups the
        lifted model leaves out, see :class:`_Lift`), ``max_violation`` (pinned sums of the
        members).

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
    _check_solve_arguments(problem, tol, max_iter, rank, max_sweeps, time_limit, stabilize,
                           polish)
    lift = _Lift(problem.labelset)
    if lift.ranges:
        warnings.warn(f"low-rank SDP: {len(lift.ranges)} group(s) of "
                      f"{type(problem.labelset).__name__} have a range of counts, which the "
                      "lifted model leaves out: the certified value bounds a weaker relaxation "
                      "than weakcvx.sdp.solve_sdp's (still a lower bound of the MIP).",
                      UserWarning, stacklevel=2)
    if polish is None:
        polish = 600 if lift.dim <= POLISH_LIMIT else 0
    state = _Rounds(problem, lift, rank, max_sweeps, eigen, random_state)
    if time_limit is not None:
        state.deadline = start + time_limit
    status = "max_iter"
    for it in range(1, max_iter + 1):
        state.round(tol, master_alternations, stabilize, polish if it == 1 else polish // 3)
        gap = state.upper - state.best.value
        state.history.append({"iteration": it, "value": state.best.value,
                              "primal_value": state.upper, "gap": gap,
                              "members": len(state.members),
                              "seconds": time.perf_counter() - start})
        if verbose:
            logger.info("sdp lowrank %d: primal %.6g, certified %.6g, gap %.3g, |C|=%d", it,
                        state.upper, state.best.value, gap, len(state.members))
        if gap <= tol * max(1.0, abs(state.upper)):
            status = "converged"
            break
        if time_limit is not None and time.perf_counter() - start > time_limit:
            status = "time_limit"
            break
        state.grow()
    return _result(problem, lift, state, status, tol, start)


class _Rounds:
    """The state of :func:`solve_sdp_lowrank`: working set, best certificate, primal value."""

    def __init__(self, problem, lift, rank, max_sweeps, eigen, random_state):
        self.problem, self.lift, self.rank = problem, lift, rank
        self.max_sweeps, self.eigen, self.random_state = max_sweeps, eigen, random_state
        self.members = [_first_member(problem, lift, random_state)]
        self.mu = np.ones(1)
        self.alpha = self.V = self.multipliers = self.best = None
        self.upper, self.history, self.new = np.inf, [], []
        self.max_violation = 0.0
        self.deadline = None
        # ψ(0) = f(0) − ½φ(0) = 0 is certified for the hinge: the floor of every run (at
        # n = 5000 without the polish the oracle's certificates stayed far below it)
        zero_y = np.zeros(lift.dim)
        self.best = Certificate(value=0.0, phi_upper=0.0, phi_lower=0.0, lambda_min=0.0,
                                residual=0.0, eigen="exact", alpha=np.zeros(problem.n_samples),
                                inner=InnerSolution(None, 0.0, zero_y, 0, 0.0, None),
                                dropped_ranges=len(lift.ranges))

    def _certify(self, alpha, y=None):
        """The mixing method at ``α`` (warm), its certificate, and the one of a given ``y``."""
        problem, lift = self.problem, self.lift
        H = _LiftedH(problem, lift, alpha)
        inner = inner_sdp(problem, alpha, V0=self.V, rank=self.rank, max_sweeps=self.max_sweeps,
                          multipliers=self.multipliers, random_state=self.random_state,
                          _lift=lift, _H=H)
        self.V, self.multipliers = inner.V, inner.multipliers
        self.max_violation = max(self.max_violation, inner.violation)
        cert = _certificate(problem, lift, H, alpha, inner, self.eigen, self.random_state)
        if y is not None:  # the polished dual point itself
            other = InnerSolution(inner.V, inner.value, y, inner.sweeps, inner.violation,
                                  inner.multipliers)
            cert2 = _certificate(problem, lift, H, alpha, other, self.eigen, self.random_state)
            cert = max(cert, cert2, key=lambda c: c.value)
        if self.best is None or cert.value > self.best.value:
            self.best = cert
        if self._feasible(inner.V):
            self.new.append(lift.expand(_compress(inner.V)))
        return cert

    def _primal(self, V):
        """``g(M)`` at a feasible factor: the box-QP primal value, an upper bound of V_sdp."""
        W = self.lift.expand(V)
        n, k = W.shape
        rows = np.ascontiguousarray(np.broadcast_to(np.arange(n, dtype=np.int64), (k, n)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            sol = solve_box_qp(self.problem.box_factor, rows, np.ascontiguousarray(W.T),
                               self.problem.costs, tol=1e-8, max_epochs=5000,
                               gram=self.problem.gram)
        self.upper = min(self.upper, float(sol.primal_value))
        self.new.append(self.lift.expand(_compress(V)))

    def _feasible(self, V):
        """Whether a factor may join the working set (its M must be feasible for the master
        value to bound V_sdp from above)."""
        violation = self.lift.violation(V)
        self.max_violation = max(self.max_violation, violation)
        return violation <= FEASIBILITY_TOL

    def round(self, tol, master_alternations, stabilize, polish, spread=4):
        """Master, then the oracle at a stabilised α (Wentges 1997: between the best
        certified α and the master's; ψ is concave, so the certificate there is at least the
        mix of the two), then the polish of the best dual point and its primal recovery."""
        alpha, mu, upper, _, _, _ = _master(self.problem, self.members, self.mu, self.alpha,
                                            tol / 10, master_alternations)
        self.alpha, self.mu, self.upper = alpha, mu, min(self.upper, upper)
        query = alpha if self.best.inner.V is None else \
            stabilize * self.best.alpha + (1 - stabilize) * alpha
        self._certify(query)
        if polish:
            # ψ(0) = 0 is certified; an oracle certificate below it is a worse start (measured:
            # two moons SSL n = 200, the first master's α certifies −11431)
            start_alpha, start_y = self.best.alpha, self.best.inner.y
            a, y, V_rec = _polish(self.problem, self.lift, start_alpha, start_y, polish,
                                  deadline=self.deadline)
            self._certify(a, y)
            if self._feasible(V_rec):
                self._primal(V_rec)
            self._face(a, spread)

    def _face(self, alpha, count):
        """More elements of the oracle's optimal face at ``α``: mixing runs from random
        starts. Near the saddle the master's mix of them is the primal solution (the face is
        rarely a single point: the optimum of ``⟨H_α, M⟩`` has rank above one)."""
        problem, lift = self.problem, self.lift
        H = _LiftedH(problem, lift, alpha)
        rng = check_random_state(self.random_state)
        for _ in range(count):
            inner = inner_sdp(problem, alpha, rank=self.rank, max_sweeps=self.max_sweeps,
                              random_state=rng, _lift=lift, _H=H)
            if self._feasible(inner.V):
                self.new.append(lift.expand(_compress(inner.V)))

    def grow(self):
        """Add this round's factors to the working set; drop members the master no longer
        weighs."""
        keep = [i for i in range(len(self.members)) if self.mu[i] > 1e-8 * self.mu.max()]
        self.members = [self.members[i] for i in keep] + self.new
        self.mu = np.append(self.mu[keep], np.zeros(len(self.new)))
        self.new = []


def _result(problem, lift, state, status, tol, start):
    best, upper = state.best, state.upper
    labels, J, alpha_labels = _round(problem, lift, state.V)
    gap = upper - best.value
    relative = gap / max(1.0, abs(upper))
    if status != "converged":
        warnings.warn(f"low-rank SDP stopped with status {status!r} at a relative gap "
                      f"{relative:.3g} (tol {tol:g}); the value is certified but may be loose.",
                      ConvergenceWarning, stacklevel=3)
    return SolveResult(
        method="sdp", value=best.value, labels=labels, upper_bound=J, certified=True,
        status=status, n_iter=len(state.history), seconds=time.perf_counter() - start,
        history=state.history,
        message=(f"low-rank SDP {status} after {len(state.history)} rounds: certified "
                 f"{best.value:.6g}, primal {upper:.6g}, gap {gap:.3g}"),
        alpha=alpha_labels, mu=np.ones(1), working_set=[labels.copy()],
        extra={"solver": "lowrank", "primal_value": upper, "gap": gap, "relative_gap": relative,
               "certificate_alpha": best.alpha, "certificate": best, "rank": state.V.shape[1],
               "n_members": len(state.members), "dropped_ranges": len(lift.ranges),
               "max_violation": state.max_violation, "eigen": best.eigen})
