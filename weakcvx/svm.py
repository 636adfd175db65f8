"""Fast solvers of the box QP  max_{0 <= alpha <= c} 1ᵀα − ½ αᵀQα  (docs/design.rst §1, §3.2).

The label kernel is never stored as a dense m×m matrix. It is given through a kernel factor ``R``
(dense ``(n, r)`` with ``K = R Rᵀ``, or a sparse CSR feature matrix ``(n, d)`` for the linear
kernel) and a working set of label *supports* ``(rows_t, signs_t)`` with weights ``mu_t``::

    Q = Σ_t μ_t · diag(s_t) R[rows_t] R[rows_t]ᵀ diag(s_t)

so a dual variable ``i`` of label ``t`` uses the row ``R[rows[t, i]]`` with sign ``signs[t, i]``.

- :func:`solve_box_qp`: dual coordinate descent (Hsieh et al. 2008, LIBLINEAR without bias)
  generalised to ``T`` blocks, with numba kernels for dense and CSR factors and a pure-NumPy twin.
- :func:`solve_box_qp_newton`: a primal active-set method with Newton steps on the free face,
  for an explicit ``Q`` (or an operator) that is ill-conditioned with few free variables, as
  ``K ∘ M`` in the low-rank SDP's primal descent.
- :func:`box_qp_cvxpy`: the readable CVXPY reference on an explicit ``Q``.
- :class:`LinearOffsetSVM`: the linear SVM with a free offset on the feature matrix (proximal
  steps on the offset around the same coordinate descent), and its CVXPY reference
  :func:`linear_svm_offset_cvxpy`.
- :func:`label_kernel`: the dense ``Q`` (small problems and tests only).
- :func:`svm_objective`: the primal value ½Σμ‖w_t‖² + Σ c_i hinge(·) at given ``w`` or ``alpha``.
"""

from __future__ import annotations

import copy
import logging
import weakref
from dataclasses import dataclass, field
from numbers import Integral, Real

import numba
import numpy as np
import scipy.linalg
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.extmath import row_norms

from ._validation import check_integer, warn
from weakcvx.result import SolverError

__all__ = [
    "BoxQPSolution",
    "solve_box_qp",
    "solve_box_qp_newton",
    "box_qp_cvxpy",
    "LinearOffsetSVM",
    "linear_svm_offset_cvxpy",
    "label_kernel",
    "svm_objective",
]

logger = logging.getLogger("weakcvx")

# Minimal-standard LCG (Park & Miller, multiplier 48271). It drives the per-epoch permutation in
# both the numba kernels and the NumPy twin, so the two visit coordinates in the same order and
# can be compared closely; all products stay below 2**47, exact in int64 and in Python ints.
_LCG_MULTIPLIER = 48271
_LCG_MODULUS = 2147483647

# Warm starts may sit outside [0, c] by rounding only; beyond this they are refused.
_WARM_START_SLACK = 1e-12

#: Largest number of dual variables for which :func:`solve_box_qp` forms the label kernel
#: ``Q`` explicitly when it is given the Gram matrix (``gram=``): 5000² doubles = 200 MB.
GRAM_LIMIT = 5000


@dataclass
class BoxQPSolution:
    """Solution of the box QP ``max_{0<=α<=c} 1ᵀα − ½ αᵀQα`` returned by :func:`solve_box_qp`.

    Attributes
    ----------
    alpha : ndarray of shape (m,)
        The dual variables, in ``[0, c]``.
    dual_value : float
        ``1ᵀα − ½ αᵀQα = 1ᵀα − ½ Σ_t μ_t ‖w_t‖²``: the box-QP objective at ``alpha``, a lower
        bound of the optimum.
    primal_value : float
        ``½ αᵀQα + Σ_i c_i max(0, 1 − (Qα)_i)``: the SVM primal at ``w(α)``, an upper bound of
        the optimum.
    n_epochs : int
        Passes over the (active) coordinates.
    converged : bool
        Whether the stopping criterion was met before ``max_epochs``.
    quadratics : ndarray of shape (T,)
        ``αᵀQ_tα = ‖w_t‖²`` per label (not scaled by ``mu``): what the MKL master's weight update
        and its lower bound need.
    w : ndarray of shape (T, r)
        ``w_t = Σ_i α_i s_ti R[rows_ti]`` (not scaled by ``mu``), recomputed from ``alpha`` so
        that it carries no accumulated rounding of the updates. Computed on first access when the
        solve ran on the Gram matrix (it costs ``O(T·n·r)``, as much as many epochs there);
        ``None`` when no factor was given (``factor=None, gram=K``).

    Examples
    --------
    >>> import numpy as np
    >>> R = np.random.default_rng(0).standard_normal((6, 2))
    >>> sol = solve_box_qp(R, np.arange(6), [1.0, 1.0, 1.0, -1.0, -1.0, -1.0], 1.0)
    >>> sol.alpha.shape, sol.w.shape, sol.converged
    ((6,), (1, 2), True)
    >>> bool(abs(sol.gap) < 1e-6)   # dual_value <= optimum <= primal_value
    True
    """

    alpha: np.ndarray
    dual_value: float
    primal_value: float
    n_epochs: int
    converged: bool
    quadratics: np.ndarray
    _weights: object = field(default=None, repr=False, compare=False)
    #: ``K Aᵀ`` at ``alpha`` on the Gram path (``A[t] = α ∘ s_t`` on its rows), for a warm start
    #: of the next solve on the same rows and signs (``solve_box_qp(..., label_products=)``).
    label_products: object = field(default=None, repr=False, compare=False)

    @property
    def w(self):
        if callable(self._weights):
            self._weights = self._weights()
        return self._weights

    @property
    def gap(self) -> float:
        """``primal_value − dual_value`` ≥ 0: a certificate of the accuracy of ``dual_value``."""
        return float(self.primal_value - self.dual_value)

    def __repr__(self) -> str:
        return (
            f"BoxQPSolution(dual_value={self.dual_value:.8g}, gap={self.gap:.3g}, "
            f"n_epochs={self.n_epochs}, converged={self.converged}, m={self.alpha.shape[0]})"
        )


# ---------------------------------------------------------------------------------------------
# Input validation
# ---------------------------------------------------------------------------------------------


#: Attribute under which a validated canonical CSR factor keeps its squared row norms, so that the
#: outer loops (MKL alternations, cutting-plane rounds) do not re-validate a large sparse matrix
#: on every call (a visible share of a large fit: docs/design.rst §7). The library never modifies
#: a factor in place; the cache also holds the sum of the stored values, checked on every call
#: (one read-only pass), so that a matrix its owner changed in place is validated again.
_ROW_NORMS_ATTR = "_weakcvx_row_norms_sq"


def _coordinate_seed(random_state):
    """The LCG seed of the coordinate order: an integer seed maps to itself (mod the LCG's
    modulus, never 0) without building a RandomState (0.1 ms, paid by every box QP of a
    label-generation run); a RandomState or None draws one."""
    if isinstance(random_state, Integral) and not isinstance(random_state, bool) \
            and random_state >= 0:
        return int(random_state) % (_LCG_MODULUS - 1) + 1
    return int(check_random_state(random_state).randint(1, _LCG_MODULUS))


def _canonical_csr(matrix):
    """``matrix`` itself when it is a float64 CSR matrix with sorted indices and no duplicates,
    else a converted copy (other sparse formats, dtypes, or duplicate entries; never densified).
    A large feature matrix is used in place: a copy of it is as large as the data, and a copy
    per solve is a visible share of a large fit (docs/design.rst §7)."""
    if matrix.format == "csr" and matrix.dtype == np.float64 and matrix.has_canonical_format:
        return matrix
    R = sp.csr_matrix(matrix, dtype=np.float64, copy=True)
    R.sum_duplicates()  # also sorts the indices
    return R


def _check_sparse_factor(factor):
    """``(R, row_norms_sq)`` for a sparse factor: :func:`_canonical_csr`, finite values, squared
    row norms (cached on ``R``)."""
    if factor.ndim != 2:
        raise ValueError(f"`factor` must be 2-D. Got shape {factor.shape} instead.")
    R = _canonical_csr(factor)
    total = float(R.data.sum())
    cached = getattr(R, _ROW_NORMS_ATTR, None)
    if cached is not None and cached[0] == total and cached[1].shape == (R.shape[0],):
        return R, cached[1]
    # the sum of finite entries is finite unless it overflows (|x| ~ 1e300)
    if not np.isfinite(total) and not np.all(np.isfinite(R.data)):
        raise ValueError("`factor` must contain only finite values. Got NaN or inf instead.")
    row_norms_sq = row_norms(R, squared=True)  # no n×d temporary, unlike R.multiply(R)
    try:
        setattr(R, _ROW_NORMS_ATTR, (total, row_norms_sq))
    except AttributeError:  # pragma: no cover - a subclass with __slots__
        pass
    return R, row_norms_sq


def _check_factor(factor):
    """Return ``(R, row_norms_sq)`` with R a C-contiguous float64 array or a canonical CSR."""
    if sp.issparse(factor):
        return _check_sparse_factor(factor)
    R = np.asarray(factor)
    if R.ndim != 2:
        raise ValueError(
            f"`factor` must be a 2-D array (n, r) or a scipy.sparse matrix. "
            f"Got an array of shape {R.shape} instead."
        )
    if not np.issubdtype(R.dtype, np.number) or np.iscomplexobj(R):
        raise ValueError(f"`factor` must be real-valued. Got dtype {R.dtype} instead.")
    R = np.ascontiguousarray(R, dtype=np.float64)
    if not np.all(np.isfinite(R)):
        raise ValueError("`factor` must contain only finite values. Got NaN or inf instead.")
    return R, np.einsum("ij,ij->i", R, R)


def _check_gram(gram):
    """The Gram matrix as a float64 (n, n) array with finite entries."""
    K = np.asarray(gram)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"`gram` must be a square (n, n) matrix. Got shape {K.shape} instead.")
    if not np.issubdtype(K.dtype, np.number) or np.iscomplexobj(K):
        raise ValueError(f"`gram` must be real-valued. Got dtype {K.dtype} instead.")
    K = np.asarray(K, dtype=np.float64)
    if _cached(_CHECKED_GRAMS, K) is not None:
        return K
    # one read-only pass: the sum of finite entries is finite unless it overflows (|K| ~ 1e300)
    if not np.isfinite(K.sum()) and not np.all(np.isfinite(K)):
        raise ValueError("`gram` must contain only finite values. Got NaN or inf instead.")
    _remember(_CHECKED_GRAMS, K, True)
    return K


#: Gram matrices that passed :func:`_check_gram`, by identity while they live: the MKL master
#: and the rounding hand the same matrix to :func:`solve_box_qp` dozens of times a fit, and the
#: check reads all of it (8 ms at n = 4000, 14% of a ``MaxMarginClustering`` fit). As with the
#: float32 copy (:func:`_gram32`), a matrix handed to the solvers is not to be changed in place.
_CHECKED_GRAMS = {}


def _cached(cache, array):
    """The value stored for ``array`` (this very object, alive), else None."""
    hit = cache.get(id(array))
    return hit[1] if hit is not None and hit[0]() is array else None


def _remember(cache, array, value):
    """Store ``value`` for ``array`` while it lives (nothing if it cannot be weakly referenced)."""
    key = id(array)
    try:
        ref = weakref.ref(array, lambda _, key=key: cache.pop(key, None))
    except TypeError:  # pragma: no cover - not weak-referenceable: no caching
        return
    cache[key] = (ref, value)


def _check_supports(rows, signs, n_rows):
    """Return ``(rows, signs)`` as int64 / float64 arrays of shape (T, m)."""
    rows = np.asarray(rows)
    signs = np.asarray(signs)
    if rows.ndim == 1:
        rows = rows[None, :]
    if signs.ndim == 1:
        signs = signs[None, :]
    if rows.ndim != 2:
        raise ValueError(f"`rows` must be 1-D (m,) or 2-D (T, m). Got shape {rows.shape} instead.")
    if signs.shape != rows.shape:
        raise ValueError(
            f"`signs` must have the shape of `rows` {rows.shape}. Got {signs.shape} instead."
        )
    if rows.shape[0] < 1 or rows.shape[1] < 1:
        raise ValueError(f"`rows` must have T >= 1 and m >= 1. Got shape {rows.shape} instead.")
    if not np.issubdtype(rows.dtype, np.integer):
        raise ValueError(f"`rows` must hold integers. Got dtype {rows.dtype} instead.")
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    if rows.min() < 0 or rows.max() >= n_rows:
        raise ValueError(
            f"`rows` must index rows of `factor`, in [0, {n_rows}). "
            f"Got values in [{rows.min()}, {rows.max()}] instead."
        )
    if not np.issubdtype(signs.dtype, np.number) or np.iscomplexobj(signs):
        raise ValueError(f"`signs` must be real-valued. Got dtype {signs.dtype} instead.")
    signs = np.ascontiguousarray(signs, dtype=np.float64)
    if not np.all(np.isfinite(signs)):
        raise ValueError("`signs` must contain only finite values. Got NaN or inf instead.")
    return rows, signs


def _check_mu(mu, n_labels):
    if mu is None:
        return np.ones(n_labels)
    mu = np.asarray(mu, dtype=np.float64)
    if mu.ndim == 0 and n_labels == 1:
        mu = mu.reshape(1)
    if mu.shape != (n_labels,):
        raise ValueError(
            f"`mu` must have shape ({n_labels},), one weight per label. Got {mu.shape} instead."
        )
    if not np.all(np.isfinite(mu)) or np.any(mu < 0):
        raise ValueError(f"`mu` must be finite and non-negative. Got {mu!r} instead.")
    return np.ascontiguousarray(mu)


def _check_costs(c, m):
    c = np.asarray(c, dtype=np.float64)
    if c.ndim == 0:
        c = np.full(m, float(c))
    if c.shape != (m,):
        raise ValueError(
            f"`c` must be a scalar or have shape ({m},), one cost per dual variable. "
            f"Got shape {c.shape} instead."
        )
    if not np.all(np.isfinite(c)) or np.any(c <= 0):
        bad = c[~(np.isfinite(c) & (c > 0))]
        raise ValueError(f"`c` must be positive and finite. Got {bad[:5]!r} among its values.")
    return np.ascontiguousarray(c)


def _check_alpha(alpha0, c):
    m = c.shape[0]
    alpha = np.array(alpha0, dtype=np.float64)  # a copy: the solver writes into it
    if alpha.shape != (m,):
        raise ValueError(f"`alpha0` must have shape ({m},). Got {alpha.shape} instead.")
    if not np.all(np.isfinite(alpha)):
        raise ValueError("`alpha0` must contain only finite values. Got NaN or inf instead.")
    below = -alpha
    above = alpha - c
    worst = max(below.max(), above.max())
    if worst > _WARM_START_SLACK:
        raise ValueError(
            f"`alpha0` must lie in the box [0, c]. Got a violation of {worst:.3g} "
            f"(allowed: {_WARM_START_SLACK:g}) instead."
        )
    # Only rounding-size excursions reach here; put them exactly on the bound so that the
    # kernels' tests `alpha == 0` / `alpha == c` see them.
    np.clip(alpha, 0.0, c, out=alpha)
    return alpha


def _check_w(w, n_labels, dim):
    w = np.asarray(w, dtype=np.float64)
    if w.ndim == 1 and n_labels == 1:
        w = w[None, :]
    if w.shape != (n_labels, dim):
        raise ValueError(f"`w` must have shape ({n_labels}, {dim}). Got {w.shape} instead.")
    if not np.all(np.isfinite(w)):
        raise ValueError("`w` must contain only finite values. Got NaN or inf instead.")
    return w


# ---------------------------------------------------------------------------------------------
# Shared linear algebra (vectorised, used outside the inner loop)
# ---------------------------------------------------------------------------------------------


def _row_coefficients(rows, signs, alpha, n_rows):
    """``A[t] = Σ_i α_i s_ti e_{rows_ti}`` (T × n_rows): each label's dual coefficients gathered
    on the rows of the factor or Gram matrix they use."""
    return np.stack([np.bincount(rows[t], weights=alpha * signs[t], minlength=n_rows)
                     for t in range(len(rows))])


def _weights_from_alpha(R, rows, signs, alpha):
    """``W[t] = Σ_i α_i s_ti R[rows_ti]`` as a C-contiguous (T, r) array, in O(T·nnz(R))."""
    A = _row_coefficients(rows, signs, alpha, R.shape[0])
    if sp.issparse(R):
        W = np.asarray(R.T @ A.T).T
    else:
        W = A @ R
    return np.ascontiguousarray(W, dtype=np.float64)


def _margins(R, rows, signs, mu, W):
    """``Σ_t μ_t s_ti R[rows_ti]·w_t`` for every dual variable i (= gradient + 1)."""
    P = np.asarray(R @ W.T)  # (n, T): never forms R[rows_t], which would be (m, r) per label
    out = np.zeros(rows.shape[1])
    for t in range(rows.shape[0]):
        out += mu[t] * signs[t] * P[rows[t], t]
    return out


def _half_norm(mu, W):
    """``½ Σ_t μ_t ‖w_t‖²`` (= ½ αᵀQα when W comes from α)."""
    return 0.5 * float(np.dot(mu, np.einsum("tj,tj->t", W, W)))


def _primal(R, rows, signs, mu, c, W):
    """SVM primal ``½ Σ_t μ_t ‖w_t‖² + Σ_i c_i max(0, 1 − margin_i)``."""
    hinge = np.maximum(0.0, 1.0 - _margins(R, rows, signs, mu, W))
    return _half_norm(mu, W) + float(np.dot(c, hinge))


def _squared_hinge_primal(shift, mu, alpha, margins, half_norm):
    """``½αᵀQ₀α + Σ_i max(0, 1 − (Q₀α)_i)² / (2 d_i)`` for ``Q = Q₀ + (Σμ) diag(d)``."""
    d = np.asarray(shift, dtype=float) * float(np.sum(mu))
    if d.shape != alpha.shape or not np.all(d > 0):
        raise ValueError(f"`shift` must be a positive vector of length {alpha.shape[0]}. Got "
                         f"shape {d.shape}.")
    base = margins - d * alpha
    return half_norm - 0.5 * float(np.dot(d, alpha**2)) + float(
        np.sum(np.maximum(0.0, 1.0 - base) ** 2 / (2.0 * d)))


def _diagonal(row_norms_sq, rows, signs, mu):
    """``Q_ii = Σ_t μ_t s_ti² ‖R[rows_ti]‖²``."""
    return np.ascontiguousarray((mu[:, None] * signs**2 * row_norms_sq[rows]).sum(axis=0))


# ---------------------------------------------------------------------------------------------
# Coordinate descent: numba kernels (dense, CSR) and the readable NumPy twin
# ---------------------------------------------------------------------------------------------
#
# The three implementations are the same algorithm line by line (LIBLINEAR's
# solve_l2r_l1l2_svc with L1 loss, no bias, generalised to T blocks):
#   for each epoch: shuffle the active coordinates; for each coordinate i
#     G_i  = Σ_t μ_t s_ti R[rows_ti]·w_t − 1          (gradient of ½αᵀQα − 1ᵀα)
#     PG_i = projected gradient (0 when the bound blocks the descent direction)
#     shrink i if it sits at a bound and its gradient points outside by more than the extreme
#       projected gradients of the previous epoch (LIBLINEAR's rule)
#     α_i ← clip(α_i − G_i/Q_ii, 0, c_i)  (α_i ← c_i when Q_ii = 0: then G_i = −1)
#     w_t += (α_i^new − α_i^old) s_ti R[rows_ti]  for every t (also μ_t = 0: w is unscaled)
#   stop when max_i PG_i − min_i PG_i < tol over an epoch on the full set (after shrinking,
#   re-check on all coordinates, as LIBLINEAR does).
# The range of PG includes 0 (max/min start at 0, not ±inf as in LIBLINEAR), so the criterion
# means |PG_i| < tol for every i; LIBLINEAR's version would stop on an epoch in which all
# projected gradients happen to be equal and non-zero.


@numba.njit(cache=True, inline="always")
def _shuffle(index, active, state):
    """Fisher–Yates on the active prefix, driven by the module's LCG; returns the new state."""
    for k in range(active - 1, 0, -1):
        state = (state * 48271) % 2147483647
        j = state % (k + 1)
        tmp = index[k]
        index[k] = index[j]
        index[j] = tmp
    return state


@numba.njit(cache=True, inline="always")
def _projected_gradient(a, g, c_i, pg_max_old, pg_min_old, shrinking):
    """``(shrink, PG_i)``: LIBLINEAR's shrinking test for a coordinate at a bound whose
    gradient points outside by more than last epoch's extremes, else its projected gradient."""
    if a == 0.0:
        if shrinking and g > pg_max_old:
            return True, 0.0
        return False, min(g, 0.0)
    if a == c_i:
        if shrinking and g < pg_min_old:
            return True, 0.0
        return False, max(g, 0.0)
    return False, g


@numba.njit(cache=True, inline="always")
def _coordinate_step(a, g, q_ii, c_i):
    """Exact minimiser along the axis, clipped to the box (``c_i`` when ``Q_ii = 0``)."""
    if q_ii > 0.0:
        return min(max(a - g / q_ii, 0.0), c_i)
    return c_i


@numba.njit(cache=True, inline="always")
def _swap_out(index, s, active):
    """Move ``index[s]`` behind the active prefix; returns the new prefix length."""
    active -= 1
    tmp = index[s]
    index[s] = index[active]
    index[active] = tmp
    return active


@numba.njit(cache=True, nogil=True)
def _cd_dense(R, rows, signs, mu, c, qd, alpha, W, tol, max_epochs, seed, shrinking):
    n_labels, m = rows.shape
    dim = R.shape[1]
    index = np.arange(m)
    active = m
    pg_max_old, pg_min_old = np.inf, -np.inf
    state = seed
    epoch = 0
    while epoch < max_epochs:
        state = _shuffle(index, active, state)
        pg_max = pg_min = 0.0
        s = 0
        while s < active:
            i = index[s]
            g = -1.0
            for t in range(n_labels):
                coef = mu[t] * signs[t, i]
                if coef != 0.0:
                    row = rows[t, i]
                    acc = 0.0
                    for j in range(dim):
                        acc += R[row, j] * W[t, j]
                    g += coef * acc
            a = alpha[i]
            shrink, pg = _projected_gradient(a, g, c[i], pg_max_old, pg_min_old, shrinking)
            if shrink:
                active = _swap_out(index, s, active)
                continue
            pg_max, pg_min = max(pg_max, pg), min(pg_min, pg)
            if pg != 0.0:
                new = _coordinate_step(a, g, qd[i], c[i])
                delta = new - a
                alpha[i] = new
                if delta != 0.0:
                    for t in range(n_labels):
                        step = delta * signs[t, i]
                        if step != 0.0:
                            row = rows[t, i]
                            for j in range(dim):
                                W[t, j] += step * R[row, j]
            s += 1
        epoch += 1
        if pg_max - pg_min < tol:
            if active == m:
                return epoch, True
            active, pg_max_old, pg_min_old = m, np.inf, -np.inf
            continue
        pg_max_old = pg_max if pg_max > 0.0 else np.inf
        pg_min_old = pg_min if pg_min < 0.0 else -np.inf
    return epoch, False


@numba.njit(cache=True, nogil=True)
def _cd_csr(
    indptr, indices, data, rows, signs, mu, c, qd, alpha, W, tol, max_epochs, seed, shrinking
):
    n_labels, m = rows.shape
    index = np.arange(m)
    active = m
    pg_max_old, pg_min_old = np.inf, -np.inf
    state = seed
    epoch = 0
    while epoch < max_epochs:
        state = _shuffle(index, active, state)
        pg_max = pg_min = 0.0
        s = 0
        while s < active:
            i = index[s]
            g = -1.0
            for t in range(n_labels):
                coef = mu[t] * signs[t, i]
                if coef != 0.0:
                    row = rows[t, i]
                    acc = 0.0
                    for p in range(indptr[row], indptr[row + 1]):
                        acc += data[p] * W[t, indices[p]]
                    g += coef * acc
            a = alpha[i]
            shrink, pg = _projected_gradient(a, g, c[i], pg_max_old, pg_min_old, shrinking)
            if shrink:
                active = _swap_out(index, s, active)
                continue
            pg_max, pg_min = max(pg_max, pg), min(pg_min, pg)
            if pg != 0.0:
                new = _coordinate_step(a, g, qd[i], c[i])
                delta = new - a
                alpha[i] = new
                if delta != 0.0:
                    for t in range(n_labels):
                        step = delta * signs[t, i]
                        if step != 0.0:
                            row = rows[t, i]
                            for p in range(indptr[row], indptr[row + 1]):
                                W[t, indices[p]] += step * data[p]
            s += 1
        epoch += 1
        if pg_max - pg_min < tol:
            if active == m:
                return epoch, True
            active, pg_max_old, pg_min_old = m, np.inf, -np.inf
            continue
        pg_max_old = pg_max if pg_max > 0.0 else np.inf
        pg_min_old = pg_min if pg_min < 0.0 else -np.inf
    return epoch, False


@numba.njit(cache=True)
def _cd_gram(Q, left, scale, pattern, corr, disagree, c, alpha, G, tol, max_epochs, seed,
             shrinking):
    """The same coordinate descent on an explicit matrix, keeping the gradient ``G = Q̃α − 1``
    up to date: a coordinate costs O(1) to test and O(m) to move, instead of O(T·r) and O(T·r)
    through the factor. The matrix descended on is

        Q̃_ij = Q_ij (left_i scale_j + corr[pattern_i, pattern_j] [j ∈ disagree])

    (symmetric by construction, see :func:`_label_patterns`). ``Q`` is the label kernel with
    ``left = scale = 1``; the Gram matrix itself with ``left = scale = √μ·s`` for one sign
    vector; or the Gram matrix with the sign patterns of several sign vectors
    (:func:`_label_patterns`). In the last two no m×m label kernel is formed; a move costs one
    pass over a row of ``Q`` plus a gather over the ``disagree`` columns."""
    m = Q.shape[0]
    n_disagree = disagree.shape[0]
    index = np.arange(m)
    active = m
    pg_max_old, pg_min_old = np.inf, -np.inf
    state = seed
    epoch = 0
    while epoch < max_epochs:
        state = _shuffle(index, active, state)
        pg_max = pg_min = 0.0
        s = 0
        while s < active:
            i = index[s]
            g = G[i]
            a = alpha[i]
            shrink, pg = _projected_gradient(a, g, c[i], pg_max_old, pg_min_old, shrinking)
            if shrink:
                active = _swap_out(index, s, active)
                continue
            pg_max, pg_min = max(pg_max, pg), min(pg_min, pg)
            if pg != 0.0:
                crow = corr[pattern[i]]
                q_ii = Q[i, i] * left[i] * scale[i] + Q[i, i] * crow[pattern[i]]
                new = _coordinate_step(a, g, q_ii, c[i])
                delta = new - a
                alpha[i] = new
                if delta != 0.0:
                    step = delta * left[i]
                    for j in range(m):
                        G[j] += step * scale[j] * Q[i, j]
                    for k in range(n_disagree):
                        j = disagree[k]
                        G[j] += delta * crow[pattern[j]] * Q[i, j]
            s += 1
        epoch += 1
        if pg_max - pg_min < tol:
            if active == m:
                return epoch, True
            active, pg_max_old, pg_min_old = m, np.inf, -np.inf
            continue
        pg_max_old = pg_max if pg_max > 0.0 else np.inf
        pg_min_old = pg_min if pg_min < 0.0 else -np.inf
    return epoch, False


@dataclass(frozen=True)
class _LabelPatterns:
    """Several sign vectors over the same rows, as :func:`_cd_gram` descends on them: ``Q̃ =
    Σ_t μ_t (s_t s_tᵀ) ∘ K`` written as ``Q̃_ij = K_ij (left_i scale_j + corr[p_i, p_j] [j ∈
    disagree])`` (:func:`_label_patterns`)."""

    left: np.ndarray
    scale: np.ndarray
    pattern: np.ndarray
    corr: np.ndarray
    disagree: np.ndarray

    @classmethod
    def plain(cls, scale):
        """``Q̃ = diag(scale) Q diag(scale)``: no pattern, no correction."""
        return cls(scale, scale, np.zeros(len(scale), dtype=np.int32), np.zeros((1, 1)),
                   np.zeros(0, dtype=np.int64))


#: Largest fraction of dual variables whose sign differs between the labels of a working set
#: for which :func:`_label_patterns` replaces the explicit label kernel (beyond it a move's
#: gather over those columns costs more than reading a row of an explicit ``Q``).
PATTERN_MAX_DISAGREE = 0.5

#: Largest number of distinct sign patterns :func:`_label_patterns` tabulates.
PATTERN_MAX = 256


def _label_patterns(signs, mu):
    r"""The sign vectors ``s_1..s_T`` (±1, over the same rows) and weights ``μ`` as
    :class:`_LabelPatterns`; ``None`` (the explicit label kernel then) when a sign is not ±1,
    more than ``PATTERN_MAX_DISAGREE`` of the variables disagree or there are more than
    ``PATTERN_MAX`` patterns.

    With ``p_i`` the index of variable i's sign pattern ``(s_{1i}, …, s_{Ti})`` and the table
    ``W[a, b] = Σ_t μ_t σ_{ta} σ_{tb}`` over the patterns, ``Q̃_ij = K_ij W[p_i, p_j]``. A
    variable on which every label agrees (``s_{tj} = s_{1j}``: most of them, the labels of a
    working set differ on few points) has ``W[p_i, p_j] = s_{1j} Σ_t μ_t s_{ti}``, so with
    ``left_i = Σ_t μ_t s_{ti}``, ``scale = s_1`` and ``corr[a, b] = W[a, b] − left_a σ_{1b}``
    (zero for an agreeing pattern b) the descent moves every gradient entry as for one sign
    vector and corrects only the ``disagree`` ones: no m×m label kernel, whose build (one m×m
    product and one m×m Hadamard product per MKLGL alternation) cost more than the descent on
    large problems (docs/design.rst §3.2)."""
    if not np.all(np.abs(signs) == 1.0):
        return None
    m = signs.shape[1]
    disagree = np.flatnonzero(np.any(signs != signs[0], axis=0))
    if disagree.size > PATTERN_MAX_DISAGREE * m:
        return None
    patterns, pattern = np.unique(signs.T, axis=0, return_inverse=True)
    if len(patterns) > PATTERN_MAX:
        return None
    pattern = pattern.reshape(-1).astype(np.int32)
    left_of = patterns @ mu
    corr = (patterns * mu) @ patterns.T - left_of[:, None] * patterns[:, 0][None, :]
    corr[:, np.all(patterns == patterns[:, :1], axis=1)] = 0.0  # agreeing columns: exactly 0
    return _LabelPatterns(left=left_of[pattern], scale=np.ascontiguousarray(signs[0], float),
                          pattern=pattern, corr=corr, disagree=disagree.astype(np.int64))


#: Epochs of coordinate descent on the Gram path between two Newton steps on the free
#: variables (:func:`_free_newton_step`); chosen on the S3VM fits of the peers protocol
#: (australian, pima, ionosphere, split seeds 0-1): 30, 50, 100, 200, 400 epochs.
NEWTON_EVERY = 100

#: Largest free set a Newton step factors (a Cholesky costs ``|F|³/3`` flops: 3·10⁸ here,
#: about the cost of a few epochs that move every coordinate of a 1000-point problem).
NEWTON_MAX_FREE = 1000


def _lowers(g, Q, d):
    """Whether the step ``d`` lowers a quadratic with gradient ``g`` and Hessian ``Q``."""
    return bool(g @ d + 0.5 * (d @ Q @ d) < 0.0)


def _free_newton_step(Q, scale, c, alpha, G, patterns=None):
    r"""One Newton step on the free face of ``min ½αᵀQ̃α − 1ᵀα`` over the box, in place.

    With ``F = {i : 0 < α_i < c_i}`` and the other coordinates held, the minimiser on the face
    is ``α_F + d`` with ``Q̃_FF d = −G_F`` (``G = Q̃α − 1``; ``Q̃ = diag(scale) Q diag(scale)``,
    or the matrix of ``patterns``, :class:`_LabelPatterns`).
    The step is projected on the box and taken when it lowers the objective (whose change
    ``G_Fᵀd + ½ dᵀQ̃_FF d`` is exact for a quadratic); otherwise ``α_F + t d`` is taken with the
    largest ``t ≤ 1`` inside the box, a descent step that puts one more coordinate on its
    bound. ``G`` is then updated in ``O(m |F|)``.
    Coordinate descent converges linearly at a rate set by the conditioning of ``Q̃_FF`` (RBF
    kernels: thousands of epochs), while once it has found the face one step lands on the
    optimum. Returns ``True`` (step taken), ``False`` (no descent: the face is still wrong) or
    ``None`` when no step is possible here (no free variable, ``|F| > NEWTON_MAX_FREE``, or
    ``Q̃_FF`` not positive definite).
    """
    if patterns is None:
        patterns = _LabelPatterns.plain(scale)
    free = np.flatnonzero((alpha > 0.0) & (alpha < c))
    if free.size == 0 or free.size > NEWTON_MAX_FREE:
        return None
    l_free, s_free = patterns.left[free], patterns.scale[free]
    Q_free = Q[np.ix_(free, free)].astype(np.float64)
    corr_free = _pattern_correction(Q_free, patterns, free)
    Q_free *= l_free[:, None]
    Q_free *= s_free[None, :]
    if corr_free is not None:
        Q_free += corr_free
    try:
        d = -scipy.linalg.cho_solve(scipy.linalg.cho_factor(Q_free), G[free])
    except (np.linalg.LinAlgError, ValueError):
        return None
    a_free, g_free, c_free = alpha[free], G[free], c[free]
    target = np.clip(a_free + d, 0.0, c_free)
    if not _lowers(g_free, Q_free, target - a_free):
        # along d up to the first bound: descent, as t ↦ t gᵀd + ½t² dᵀQd falls on [0, 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            room = np.where(d > 0.0, (c_free - a_free) / d, np.where(d < 0.0, -a_free / d, 1.0))
        first = int(np.argmin(room))
        target = np.clip(a_free + min(1.0, float(room[first])) * d, 0.0, c_free)
        if room[first] <= 1.0:  # the coordinate that stops the step lands on its bound exactly
            target[first] = c_free[first] if d[first] > 0.0 else 0.0
        if not _lowers(g_free, Q_free, target - a_free):
            return False
    d = target - a_free
    alpha[free] = target
    G += (Q[:, free] @ (d * l_free)) * patterns.scale
    D = patterns.disagree
    if D.size:  # G_j += Σ_f Q_jf corr[p_f, p_j] d_f on the disagreeing rows j
        p = patterns.pattern
        G[D] += np.einsum("jf,jf,f->j", Q[np.ix_(D, free)], patterns.corr[p[free]][:, p[D]].T,
                          d)
    return True


def _pattern_correction(Q_free, patterns, free):
    """``Q_FF ∘ corr[p_F, p_F]`` restricted to the disagreeing columns (None if there are none
    among ``free``): the part of ``Q̃_FF`` beyond ``Q_FF ∘ left_F scale_Fᵀ``."""
    if not patterns.disagree.size:
        return None
    p = patterns.pattern[free]
    columns = np.flatnonzero(np.isin(free, patterns.disagree))
    if not columns.size:
        return None
    out = np.zeros_like(Q_free)
    out[:, columns] = Q_free[:, columns] * patterns.corr[p][:, p[columns]]
    return out


def _cd_newton(Q, scale, c, alpha, G, tol, max_epochs, seed, shrinking, patterns=None):
    """:func:`_cd_gram` in runs of ``NEWTON_EVERY`` epochs, each followed by a
    :func:`_free_newton_step` until the stopping rule holds; returns ``(epochs, converged)``.
    When no Newton step is possible the descent goes on alone."""
    if patterns is None:
        patterns = _LabelPatterns.plain(scale)
    epochs, newton = 0, True
    while True:
        run = min(NEWTON_EVERY, max_epochs - epochs) if newton else max_epochs - epochs
        n_epochs, converged = _cd_gram(Q, patterns.left, patterns.scale, patterns.pattern,
                                       patterns.corr, patterns.disagree, c, alpha, G, tol, run,
                                       seed, shrinking)
        epochs += n_epochs
        if converged or epochs >= max_epochs:
            return epochs, converged
        newton = _free_newton_step(Q, scale, c, alpha, G, patterns) is not None


#: From this many dual variables on, the explicit ``Q`` is stored in float32: the descent reads
#: a row of ``Q`` per moved coordinate, and once ``Q`` outgrows the cache (1000² doubles = 8 MB)
#: memory traffic is the cost. The rounding of ``Q`` (relative 6e-8 per entry) moves the optimum
#: far less than the tolerances used; the gradient is started, and the values, margins and
#: quadratics are computed, from the float64 Gram matrix.
GRAM_FLOAT32_MIN = 1000

_GRAM32_CACHE = {}


def _gram32(gram):
    """A float32 copy of the Gram matrix, made once per array (kept while the array lives)."""
    K32 = _cached(_GRAM32_CACHE, gram)
    if K32 is None:
        K32 = gram.astype(np.float32)
        _remember(_GRAM32_CACHE, gram, K32)
    return K32


#: When :func:`gram_dot` sums the rows ``V[j] ⊗ K[j]`` itself rather than calling BLAS on all
#: of ``K``: a single vector with at most this fraction of nonzero entries; a block of ``k``
#: columns when (fraction of nonzero rows) · ``k`` is at most ``GRAM_DOT_BLOCK`` (OpenBLAS's
#: product with few columns reads ``K`` slowly, with many it is compute-efficient). The
#: break-even points measured at n = 600, 3000 and 3196, k = 1-32, on one thread.
GRAM_DOT_DENSITY = 0.5
GRAM_DOT_BLOCK = 6.0


@numba.njit(cache=True)
def _rows_dot(K, nonzero, B):
    """``Σ_a B[a] ⊗ K[nonzero_a]`` as a (k, n) array: each row of ``K`` read once, in order."""
    n_cols, n = B.shape[1], K.shape[1]
    out = np.zeros((n_cols, n))
    for a in range(nonzero.shape[0]):
        row = K[nonzero[a]]
        for t in range(n_cols):
            coef = B[a, t]
            if coef != 0.0:
                target = out[t]
                for i in range(n):
                    target[i] += coef * row[i]
    return out


def gram_dot(gram, V):
    r"""``K V`` for a symmetric matrix ``K`` (``gram``) and a vector or (n, k) block ``V``,
    over the nonzero rows of ``V`` only.

    Dual coefficients are sparse (the support vectors), and ``K V = Σ_{j ∈ nz} K[j]ᵀ V[j]``
    by symmetry: the sum reads the ``|nz|`` rows of ``K`` it needs, each once. Used for
    vectors with at most ``GRAM_DOT_DENSITY`` nonzero entries and for blocks of ``k`` columns
    with at most ``GRAM_DOT_BLOCK / k`` nonzero rows; otherwise (or for a ``gram`` that is not
    a C-ordered float64 array, or a sparse ``V``) ``gram @ V``. Equal to ``gram @ V`` up to the order of
    summation.

    Examples
    --------
    >>> import numpy as np
    >>> from weakcvx.kernels import rbf
    >>> K = rbf(np.arange(10.0)[:, None])
    >>> v = np.zeros(10); v[[2, 7]] = [1.0, -0.5]
    >>> bool(np.allclose(gram_dot(K, v), K @ v))
    True
    """
    if sp.issparse(V):
        return gram @ V
    V = np.asarray(V)
    n = V.shape[0]
    block = V.reshape(n, -1)
    if not (isinstance(gram, np.ndarray) and gram.dtype == np.float64
            and gram.flags.c_contiguous and block.dtype == np.float64):
        return gram @ V
    nonzero = np.flatnonzero(np.any(block != 0, axis=1))
    k = block.shape[1]
    if nonzero.size > (GRAM_DOT_DENSITY if k == 1 else GRAM_DOT_BLOCK / k) * n:
        return gram @ V
    product = _rows_dot(gram, nonzero, np.ascontiguousarray(block[nonzero]))
    return product[0] if V.ndim == 1 else product.T


def _gram_products(gram, rows, signs, alpha):
    """``(A, K Aᵀ)`` with ``A[t] = Σ_i α_i s_ti e_{rows_ti}`` (T×n): one product gives the
    label kernels' actions ``(Q_t α)_i = s_ti (K a_t)[rows_ti]`` and ``αᵀQ_tα = a_tᵀ K a_t``."""
    A = _row_coefficients(rows, signs, alpha, gram.shape[0])
    return A, gram_dot(gram, np.ascontiguousarray(A.T))  # (n, T): beats A @ gram (docs/design.rst §3.2)


def _gram_margins(KA, rows, signs, mu):
    """``(Σ_t μ_t Q_t α)_i = Σ_t μ_t s_ti (K a_t)[rows_ti]`` from :func:`_gram_products`."""
    out = np.zeros(rows.shape[1])
    for t in range(rows.shape[0]):
        out += mu[t] * signs[t] * KA[rows[t], t]
    return out


def _explicit_label_kernel(gram, rows, signs, mu):
    r"""``Q = Σ_t μ_t (s_t s_tᵀ) ∘ K[rows_t, rows_t]`` from the Gram matrix ``K``
    (:func:`label_kernel` is the readable reference).

    A dual variable whose row and sign are the same in every label (*shared*: a negative
    instance of multi-instance learning, a labeled point) contributes the same entries to every
    term, so with ``S`` the shared and ``V`` the varying variables

    .. math::

        Q_{SS} = (1ᵀμ)\, (s_S s_Sᵀ) ∘ K[r_S, r_S], \qquad
        Q_{V\cdot} = \sum_t μ_t\, (s_{tV} s_tᵀ) ∘ K[r_{tV}, r_t], \qquad Q_{SV} = Q_{VS}ᵀ:

    ``O(|S|² + T |V| m)`` instead of ``O(T m²)`` (when all variables are shared, as for sign
    vectors, one product ``K ∘ (S diag(μ) Sᵀ)`` over the common rows)."""
    if np.all(rows == rows[0]):
        S = (signs * np.sqrt(mu)[:, None]).astype(gram.dtype)
        K = gram if np.array_equal(rows[0], np.arange(gram.shape[0])) else \
            gram[np.ix_(rows[0], rows[0])]
        Q = S.T @ S
        Q *= K
        return Q
    m = rows.shape[1]
    shared = np.all(rows == rows[0], axis=0) & np.all(signs == signs[0], axis=0)
    S, V = np.flatnonzero(shared), np.flatnonzero(~shared)
    if S.size and S[-1] - S[0] + 1 == S.size and V[-1] - V[0] + 1 == V.size:
        # two runs (key instances, then negatives): the blocks by slicing, not fancy indexing
        S, V = slice(S[0], S[-1] + 1), slice(V[0], V[-1] + 1)
    Q_V = np.zeros((m - shared.sum(), m), dtype=gram.dtype)
    for t in range(rows.shape[0]):
        if mu[t] != 0.0:
            s_t = signs[t]
            Q_V += mu[t] * (s_t[V, None] * gram[np.ix_(rows[t, V], rows[t])] * s_t[None, :])
    if not shared.any():
        return Q_V
    r_S, s_S = rows[0, S], signs[0, S]
    Q_SS = gram[np.ix_(r_S, r_S)]
    if np.all(s_S == s_S[0]):  # s_S s_Sᵀ is the constant s²
        Q_SS *= mu.sum() * s_S[0] ** 2
    else:
        Q_SS *= mu.sum() * np.outer(s_S, s_S)
    Q = np.empty((m, m), dtype=gram.dtype)
    Q[V] = Q_V
    if isinstance(S, slice):
        Q[S, S] = Q_SS
        Q[S, V] = Q_V[:, S].T
    else:
        Q[np.ix_(S, S)] = Q_SS
        Q[np.ix_(S, V)] = Q_V[:, S].T
    return Q


@numba.njit(cache=True)
def _cd_csr_shared(indptr, indices, data, row_of, signsT, same, mu, c, qd, alpha, u, ZT, tol,
                   max_epochs, seed, shrinking):
    """:func:`_cd_csr` when every label uses the same row for a dual variable (sign vectors).

    The weights are split as ``w_t = u + z_t``: ``u`` gathers the dual variables on which every
    label has the same sign (``same[i]``), ``z_t`` the others. For such an ``i`` (most of them:
    the labels of a working set differ on few points) the gradient and the update touch ``u``
    and ``z̄ = Σ_t μ_t z_t`` only, as for one label::

        G_i = s_i x_i·(Σ_t μ_t u + z̄) − 1,   u += δ s_i x_i

    and for the others ``G_i = x_i·(Σ_t μ_t s_ti (u + z_t)) − 1``, ``z_t += δ s_ti x_i``,
    ``z̄ += δ (Σ_t μ_t s_ti) x_i``, with ``z`` stored transposed (``ZT[j, t]``) so that one
    non-zero meets its ``T`` weights in one contiguous run. Same coordinate order and the same
    iterates as :func:`_cd_csr` up to rounding. An epoch costs one label's on the agreeing
    points and ``T + 1`` on the others, instead of ``T`` everywhere (timings on 100k × 20k
    sparse rows: docs/design.rst §7). ``z̄`` is the last column of ``ZT``."""
    m, n_labels = signsT.shape
    mu_sum = 0.0
    for t in range(n_labels):
        mu_sum += mu[t]
    coef = np.empty(n_labels)
    index = np.arange(m)
    active = m
    pg_max_old, pg_min_old = np.inf, -np.inf
    state = seed
    epoch = 0
    while epoch < max_epochs:
        state = _shuffle(index, active, state)
        pg_max = pg_min = 0.0
        s = 0
        while s < active:
            i = index[s]
            row = row_of[i]
            g = -1.0
            mixed = 0.0  # Σ_t μ_t s_ti
            if same[i]:
                s_i = signsT[i, 0]
                if s_i != 0.0:
                    for p in range(indptr[row], indptr[row + 1]):
                        col = indices[p]
                        g += s_i * data[p] * (mu_sum * u[col] + ZT[col, n_labels])
            else:
                for t in range(n_labels):
                    coef[t] = mu[t] * signsT[i, t]
                    mixed += coef[t]
                for p in range(indptr[row], indptr[row + 1]):
                    col = indices[p]
                    acc = mixed * u[col]
                    for t in range(n_labels):
                        acc += coef[t] * ZT[col, t]
                    g += data[p] * acc
            a = alpha[i]
            shrink, pg = _projected_gradient(a, g, c[i], pg_max_old, pg_min_old, shrinking)
            if shrink:
                active = _swap_out(index, s, active)
                continue
            pg_max, pg_min = max(pg_max, pg), min(pg_min, pg)
            if pg != 0.0:
                new = _coordinate_step(a, g, qd[i], c[i])
                delta = new - a
                alpha[i] = new
                if delta != 0.0:
                    if same[i]:
                        step = delta * signsT[i, 0]
                        for p in range(indptr[row], indptr[row + 1]):
                            u[indices[p]] += step * data[p]
                    else:
                        for p in range(indptr[row], indptr[row + 1]):
                            col = indices[p]
                            step = delta * data[p]
                            for t in range(n_labels):
                                ZT[col, t] += step * signsT[i, t]
                            ZT[col, n_labels] += step * mixed
            s += 1
        epoch += 1
        if pg_max - pg_min < tol:
            if active == m:
                return epoch, True
            active, pg_max_old, pg_min_old = m, np.inf, -np.inf
            continue
        pg_max_old = pg_max if pg_max > 0.0 else np.inf
        pg_min_old = pg_min if pg_min < 0.0 else -np.inf
    return epoch, False


@numba.njit(cache=True)
def _cd_dense_shared(R, row_of, signsT, same, mu, c, qd, alpha, u, Z, zbar, tol, max_epochs,
                     seed, shrinking):
    """:func:`_cd_csr_shared` on a dense factor: ``w_t = u + z_t`` with ``u`` from the dual
    variables on which every label agrees and ``z̄ = Σ_t μ_t z_t`` kept beside ``Z`` (rows
    ``z_t``), all contiguous. An agreeing coordinate costs two passes over its row of ``R``
    (``G_i = s_i R_i·(Σ_t μ_t u + z̄) − 1``, ``u += δ s_i R_i``) instead of :func:`_cd_dense`'s
    ``2T``; the others ``T + 1`` dot products and ``T + 1`` updates. Same coordinate order and
    iterates as :func:`_cd_dense` up to rounding."""
    m, n_labels = signsT.shape
    dim = R.shape[1]
    mu_sum = 0.0
    for t in range(n_labels):
        mu_sum += mu[t]
    coef = np.empty(n_labels)
    index = np.arange(m)
    active = m
    pg_max_old, pg_min_old = np.inf, -np.inf
    state = seed
    epoch = 0
    while epoch < max_epochs:
        state = _shuffle(index, active, state)
        pg_max = pg_min = 0.0
        s = 0
        while s < active:
            i = index[s]
            row = row_of[i]
            g = -1.0
            mixed = 0.0  # Σ_t μ_t s_ti
            if same[i]:
                s_i = signsT[i, 0]
                if s_i != 0.0:
                    acc = 0.0
                    for j in range(dim):
                        acc += R[row, j] * (mu_sum * u[j] + zbar[j])
                    g += s_i * acc
            else:
                for t in range(n_labels):
                    coef[t] = mu[t] * signsT[i, t]
                    mixed += coef[t]
                acc = 0.0
                for j in range(dim):
                    acc += R[row, j] * u[j]
                g += mixed * acc
                for t in range(n_labels):
                    if coef[t] != 0.0:
                        acc = 0.0
                        for j in range(dim):
                            acc += R[row, j] * Z[t, j]
                        g += coef[t] * acc
            a = alpha[i]
            shrink, pg = _projected_gradient(a, g, c[i], pg_max_old, pg_min_old, shrinking)
            if shrink:
                active = _swap_out(index, s, active)
                continue
            pg_max, pg_min = max(pg_max, pg), min(pg_min, pg)
            if pg != 0.0:
                new = _coordinate_step(a, g, qd[i], c[i])
                delta = new - a
                alpha[i] = new
                if delta != 0.0:
                    if same[i]:
                        step = delta * signsT[i, 0]
                        for j in range(dim):
                            u[j] += step * R[row, j]
                    else:
                        for t in range(n_labels):
                            step = delta * signsT[i, t]
                            if step != 0.0:
                                for j in range(dim):
                                    Z[t, j] += step * R[row, j]
                        step = delta * mixed
                        for j in range(dim):
                            zbar[j] += step * R[row, j]
            s += 1
        epoch += 1
        if pg_max - pg_min < tol:
            if active == m:
                return epoch, True
            active, pg_max_old, pg_min_old = m, np.inf, -np.inf
            continue
        pg_max_old = pg_max if pg_max > 0.0 else np.inf
        pg_min_old = pg_min if pg_min < 0.0 else -np.inf
    return epoch, False


def _cd_shared_rows(R, rows, signs, mu, c, qd, alpha, tol, max_epochs, seed, shrinking):
    """Run :func:`_cd_csr_shared` (CSR factor) or :func:`_cd_dense_shared` (dense): split the
    dual variables by whether all labels agree, and start ``u`` and ``z`` from ``alpha``.
    ``alpha`` is updated in place."""
    same = np.all(signs == signs[0], axis=0)
    split = np.where(same, alpha, 0.0)
    u = _weights_from_alpha(R, rows[:1], signs[:1], split)[0]
    Z = _weights_from_alpha(R, rows, signs, alpha - split)
    if not sp.issparse(R):
        return _cd_dense_shared(R, np.ascontiguousarray(rows[0]), np.ascontiguousarray(signs.T),
                                same, mu, c, qd, alpha, u, np.ascontiguousarray(Z), mu @ Z, tol,
                                max_epochs, seed, shrinking)
    ZT = np.empty((R.shape[1], rows.shape[0] + 1))
    ZT[:, :-1] = Z.T
    ZT[:, -1] = mu @ Z
    return _cd_csr_shared(R.indptr, R.indices, R.data, np.ascontiguousarray(rows[0]),
                          np.ascontiguousarray(signs.T), same, mu, c, qd, alpha, u, ZT, tol,
                          max_epochs, seed, shrinking)


def _box_qp_numpy(R, rows, signs, mu, c, qd, alpha, W, tol, max_epochs, seed, shrinking):
    """Readable twin of :func:`_cd_dense` / :func:`_cd_csr` (slow; for tests and debugging).

    Same algorithm, same coordinate order (same LCG), same shrinking; ``alpha`` and ``W`` are
    updated in place. ``R`` is a dense array or a CSR matrix.
    """
    sparse = sp.issparse(R)

    def row_of(k):  # (column indices, values) of R[k]
        if sparse:
            lo, hi = R.indptr[k], R.indptr[k + 1]
            return R.indices[lo:hi], R.data[lo:hi]
        return slice(None), R[k]

    n_labels, m = rows.shape
    index = np.arange(m)
    active = m
    pg_max_old, pg_min_old = np.inf, -np.inf
    state = seed
    for epoch in range(1, max_epochs + 1):
        for k in range(active - 1, 0, -1):
            state = (state * _LCG_MULTIPLIER) % _LCG_MODULUS
            j = state % (k + 1)
            index[k], index[j] = index[j], index[k]
        pg_max = pg_min = 0.0
        s = 0
        while s < active:
            i = index[s]
            g = -1.0
            for t in range(n_labels):
                if mu[t] * signs[t, i] != 0.0:
                    cols, vals = row_of(rows[t, i])
                    g += mu[t] * signs[t, i] * (vals @ W[t, cols])
            at_lower, at_upper = alpha[i] == 0.0, alpha[i] == c[i]
            if shrinking and (
                (at_lower and g > pg_max_old) or (at_upper and g < pg_min_old)
            ):
                active -= 1
                index[s], index[active] = index[active], index[s]
                continue
            if at_lower:
                pg = min(g, 0.0)
            elif at_upper:
                pg = max(g, 0.0)
            else:
                pg = g
            pg_max, pg_min = max(pg_max, pg), min(pg_min, pg)
            if pg != 0.0:
                new = min(max(alpha[i] - g / qd[i], 0.0), c[i]) if qd[i] > 0.0 else c[i]
                delta = new - alpha[i]
                alpha[i] = new
                if delta != 0.0:
                    for t in range(n_labels):
                        if signs[t, i] != 0.0:
                            cols, vals = row_of(rows[t, i])
                            W[t, cols] += delta * signs[t, i] * vals
            s += 1
        if pg_max - pg_min < tol:
            if active == m:
                return epoch, True
            active = m
            pg_max_old, pg_min_old = np.inf, -np.inf
            continue
        pg_max_old = pg_max if pg_max > 0.0 else np.inf
        pg_min_old = pg_min if pg_min < 0.0 else -np.inf
    return max_epochs, False


# ---------------------------------------------------------------------------------------------
# Public solvers
# ---------------------------------------------------------------------------------------------


def _cd_factor(R, rows, signs, mu, c, row_norms_sq, alpha, tol, max_epochs, seed, shrinking,
               backend):
    """Coordinate descent through the factor: the NumPy twin, the kernels with weights split
    into shared and per-label parts when every label uses the same rows (sign vectors; CSR or
    dense factor), the general CSR kernel, or the dense one. ``alpha`` is updated in place; returns ``(epochs, converged)``."""
    qd = _diagonal(row_norms_sq, rows, signs, mu)
    if backend == "numba" and rows.shape[0] > 1 and np.all(rows == rows[0]):
        return _cd_shared_rows(R, rows, signs, mu, c, qd, alpha, tol, max_epochs, seed,
                               shrinking)
    W = _weights_from_alpha(R, rows, signs, alpha)
    args = (rows, signs, mu, c, qd, alpha, W, tol, max_epochs, seed, shrinking)
    if backend == "numpy":
        return _box_qp_numpy(R, *args)
    if sp.issparse(R):
        return _cd_csr(R.indptr, R.indices, R.data, *args)
    return _cd_dense(R, *args)


def solve_box_qp(
    factor,
    rows,
    signs,
    c,
    mu=None,
    alpha0=None,
    tol=1e-6,
    max_epochs=1000,
    random_state=0,
    *,
    shrinking=True,
    backend="numba",
    gram=None,
    label_products=None,
    shift=None,
):
    r"""Solve ``max_{0 <= α <= c} 1ᵀα − ½ αᵀQα`` by dual coordinate descent.

    ``Q = Σ_t μ_t diag(s_t) R[rows_t] R[rows_t]ᵀ diag(s_t)`` is never formed.

    Parameters
    ----------
    factor : ndarray of shape (n, r), scipy.sparse matrix of shape (n, d), or None
        Kernel factor ``R`` with ``K = R Rᵀ``. Dense input is used as a C-contiguous float64
        array (converted if needed); sparse input (linear kernel on features) is used as CSR
        and never densified. ``None`` when ``gram`` is given: the solve then needs no factor
        (one is computed from ``gram`` only if the explicit path does not apply, and the
        solution's ``w`` is ``None``).
    rows : int array of shape (T, m) or (m,)
        ``rows[t, i]``: the row of ``R`` that dual variable ``i`` uses in label ``t``. 1-D means
        ``T = 1``. ``m`` may differ from ``n`` (e.g. multi-instance super-instances).
    signs : float array of the shape of ``rows``
        ``s_ti``, usually ±1 (any finite real is allowed).
    c : float or ndarray of shape (m,)
        Box upper bounds (per-point costs), positive.
    mu : ndarray of shape (T,), default=None
        Non-negative label weights; ``None`` means ``ones(T)``.
    alpha0 : ndarray of shape (m,), default=None
        Warm start, which must lie in ``[0, c]`` (up to 1e-12; larger violations raise).
        ``None`` starts from ``α = 0``.
    tol : float, default=1e-6
        Stopping tolerance on the projected gradient (see Notes).
    max_epochs : int, default=1000
        Maximum number of passes over the active coordinates. 0 takes no step: the bounds
        (dual and primal values) of ``alpha0`` itself, without a warning.
    random_state : int, RandomState instance or None, default=0
        Seeds the per-epoch permutation; the same seed gives the same result.
    shrinking : bool, default=True
        LIBLINEAR's shrinking of coordinates stuck at a bound.
    backend : {"numba", "numpy"}, default="numba"
        ``"numpy"`` runs the pure-NumPy twin of the numba kernels: same algorithm and coordinate
        order, orders of magnitude slower; for tests and reading.
    gram : ndarray of shape (n, n), default=None
        The Gram matrix ``K = R Rᵀ`` of a dense factor, when the caller has it. Then, for
        ``m ≤ GRAM_LIMIT`` dual variables, ``Q`` is formed once (``O(T m²)``) and the descent
        keeps the gradient ``Qα − 1`` up to date, so a coordinate costs ``O(m)`` when it moves
        and ``O(1)`` otherwise instead of ``O(T·r)`` each time. Same iterates in exact
        arithmetic, several times faster on a working set of a few hundred points
        (docs/design.rst §3.2).
    label_products : ndarray of shape (n, T), default=None
        With ``gram``: ``K Aᵀ`` at ``alpha0`` for these ``rows`` and ``signs``, i.e. the
        ``label_products`` of the solution ``alpha0`` came from (an MKL alternation that only
        changed ``mu``); it starts the gradient without one ``O(T n²)`` product. The caller
        vouches that it matches ``alpha0``; ``None`` computes it.
    shift : ndarray of shape (m,), default=None
        A positive diagonal ``d`` already folded into the kernel (``Q = Q₀ + (Σμ) diag(d)``, the
        squared hinge's fast path, docs/formulations.rst). The primal value is then the smaller
        of the hinge primal and the squared-hinge primal of ``max_{α ≥ 0}``,
        ``½αᵀQ₀α + Σ_i max(0, 1 − (Q₀α)_i)² / (2 d_i)``; both bound the optimum from above
        (the second bounds a maximum over a larger set), and the second is tight at the optimum
        when ``c`` does not bind.

    Returns
    -------
    BoxQPSolution
        ``alpha``, ``w``, the dual value (lower bound), the primal value (upper bound), epochs
        and the convergence flag. A :class:`~sklearn.exceptions.ConvergenceWarning` is issued
        when ``max_epochs`` is reached first.

    Notes
    -----
    Coordinate ``i`` minimises ``f(α) = ½αᵀQα − 1ᵀα`` exactly along its axis, with
    ``w_t = Σ_i α_i s_ti R[rows_ti]`` maintained so that

    .. math::

        G_i = Σ_t μ_t s_{ti} R_{rows_{ti}}·w_t − 1, \qquad
        Q_{ii} = Σ_t μ_t s_{ti}^2 ‖R_{rows_{ti}}‖^2, \qquad
        α_i ← \min(\max(α_i − G_i / Q_{ii}, 0), c_i)

    and ``α_i ← c_i`` when ``Q_ii = 0`` (then ``G_i = −1``). Coordinates are visited in a random
    order each epoch; with ``shrinking`` those at a bound whose gradient points outside are
    dropped as in LIBLINEAR and re-checked before stopping.

    **Speed.** An epoch costs ``O(T · nnz(R[rows]))``. The number of epochs depends on the
    problem, from hundreds to thousands, as many as LIBLINEAR needs on the same problem
    (docs/design.rst §3.2). On the Gram path every ``NEWTON_EVERY`` epochs a Newton step solves
    the free variables' system ``Q_FF d = −G_F`` (Cholesky, ``|F| ≤ NEWTON_MAX_FREE``): once
    the descent has found the optimal face, that step ends the solve, where the descent alone
    converges linearly at the rate of ``Q_FF``'s conditioning. Warm starts (``alpha0``) are
    the main saving in the outer loops of :mod:`weakcvx.mkl` and :mod:`weakcvx.cutting_plane`.

    **Stopping rule.** Only LIBLINEAR's projected-gradient criterion: stop after an epoch over
    all coordinates in which ``max_i PG_i − min_i PG_i < tol``, where the range includes 0, so
    every ``|PG_i| < tol``. The duality gap is *not* a stopping criterion (it costs a full extra
    pass per epoch); it is computed once at the end and reported, and it certifies the result:
    ``dual_value ≤ optimum ≤ primal_value``. At the end,
    ``gap = Σ_i [α_i G_i + c_i max(0, −G_i)] ≤ 2 Σ_i c_i max_i |PG_i|``.

    References
    ----------
    Hsieh, Chang, Lin, Keerthi, Sundararajan. A dual coordinate descent method for large-scale
    linear SVM. ICML 2008.

    Examples
    --------
    >>> import numpy as np
    >>> R = np.random.default_rng(0).standard_normal((6, 2))   # K = R Rᵀ
    >>> rows, signs = np.arange(6), np.array([1.0, 1.0, 1.0, -1.0, -1.0, -1.0])
    >>> sol = solve_box_qp(R, rows, signs, 1.0)
    >>> value, alpha = box_qp_cvxpy(label_kernel(R, rows, signs), 1.0)   # the reference
    >>> bool(np.isclose(sol.dual_value, value, rtol=1e-4))
    True
    """
    if factor is None:
        if gram is None:
            raise ValueError("`factor` (R with K = R Rᵀ) or `gram` (K) must be given. Got "
                             "neither.")
        gram = _check_gram(gram)
        R, row_norms_sq, n_rows = None, None, gram.shape[0]
    else:
        R, row_norms_sq = _check_factor(factor)
        n_rows = R.shape[0]
    rows, signs = _check_supports(rows, signs, n_rows)
    n_labels, m = rows.shape
    mu = _check_mu(mu, n_labels)
    c = _check_costs(c, m)
    if not isinstance(tol, Real) or not np.isfinite(tol) or tol <= 0:
        raise ValueError(f"`tol` must be a positive float. Got {tol!r} instead.")
    check_integer(max_epochs, "max_epochs", 0)
    if backend not in ("numba", "numpy"):
        raise ValueError(f"`backend` must be 'numba' or 'numpy'. Got {backend!r} instead.")
    alpha = np.zeros(m) if alpha0 is None else _check_alpha(alpha0, c)
    seed = _coordinate_seed(random_state)

    if gram is not None:
        gram = np.asarray(gram)
        if gram.shape != (n_rows, n_rows):
            raise ValueError(f"`gram` must be the ({n_rows}, {n_rows}) matrix R Rᵀ. "
                             f"Got shape {gram.shape} instead.")
    use_gram = gram is not None and backend == "numba" and m <= GRAM_LIMIT \
        and not sp.issparse(R)
    if R is None and not use_gram:  # the factor path needs a factor: the exact one of K
        from .kernels import factor as kernel_factor
        R, row_norms_sq = _check_factor(kernel_factor(gram))
    if use_gram:  # the factor's weights and diagonal are not needed on this path
        K_cd = _gram32(gram) if m >= GRAM_FLOAT32_MIN else gram
        patterns = None
        every_row = m == gram.shape[0] and np.array_equal(rows[0], np.arange(m))
        if n_labels == 1 and every_row:
            # one sign vector over every point (an SVM fit of J(b)): Q = D K D is applied
            # through the Gram matrix itself, no m×m copy
            Q, scale = K_cd, np.sqrt(mu[0]) * signs[0]
        elif every_row and np.all(rows == rows[0]) and \
                (patterns := _label_patterns(signs, mu)) is not None:
            # several sign vectors over every point: their patterns, no m×m label kernel
            Q, scale = K_cd, patterns.scale
        else:
            Q, scale = _explicit_label_kernel(K_cd, rows, signs, mu), np.ones(m)
        if label_products is not None and np.shape(label_products) == (gram.shape[0], n_labels):
            G = _gram_margins(label_products, rows, signs, mu) - 1.0
        elif np.any(alpha):
            _, KA = _gram_products(gram, rows, signs, alpha)
            G = _gram_margins(KA, rows, signs, mu) - 1.0
        else:
            G = np.full(m, -1.0)
        n_epochs, converged = (0, False) if max_epochs == 0 else _cd_newton(
            Q, scale, c, alpha, G, float(tol), int(max_epochs), seed, bool(shrinking), patterns)
        # exact (Qα)_i and αᵀQ_tα in float64, without the updates' accumulated rounding
        A, KA = _gram_products(gram, rows, signs, alpha)
        margins = _gram_margins(KA, rows, signs, mu)
        half_norm = 0.5 * float(alpha @ margins)
        quadratics = np.einsum("jt,tj->t", KA, A)
        W = None if R is None else (lambda: _weights_from_alpha(R, rows, signs, alpha))
    else:
        n_epochs, converged = (0, False) if max_epochs == 0 else _cd_factor(
            R, rows, signs, mu, c, row_norms_sq, alpha, float(tol), int(max_epochs), seed,
            bool(shrinking), backend)
        W = _weights_from_alpha(R, rows, signs, alpha)
        margins = _margins(R, rows, signs, mu, W)
        half_norm = _half_norm(mu, W)
        quadratics = np.einsum("tj,tj->t", W, W)
    dual = float(alpha.sum()) - half_norm
    primal = half_norm + float(np.dot(c, np.maximum(0.0, 1.0 - margins)))
    if shift is not None:
        primal = min(primal, _squared_hinge_primal(shift, mu, alpha, margins, half_norm))
    if not converged and max_epochs > 0:
        warn(
            f"solve_box_qp (dual coordinate descent) reached max_epochs={max_epochs} before "
            f"the projected gradient fell below tol={tol:g}; duality gap {primal - dual:.3g}.",
            ConvergenceWarning,
        )
    logger.debug(
        "solve_box_qp: m=%d T=%d epochs=%d converged=%s dual=%.8g gap=%.3g",
        m, n_labels, n_epochs, converged, dual, primal - dual,
    )
    return BoxQPSolution(
        alpha=alpha,
        dual_value=dual,
        primal_value=primal,
        n_epochs=int(n_epochs),
        converged=bool(converged),
        quadratics=quadratics,
        _weights=W,
        label_products=KA if use_gram else None,
    )


class _DenseQ:
    """An explicit ``Q`` seen through the operator protocol of :func:`solve_box_qp_newton`."""

    def __init__(self, Q):
        self.Q = Q
        self.shape = Q.shape

    def matvec(self, a):
        return self.Q @ a

    def block(self, rows, cols):
        return self.Q[np.ix_(rows, cols)]

    def columns_times(self, cols, x):
        return self.Q[:, cols] @ x


def _times_columns(op, cols, x):
    """``Q[:, cols] @ x``: by the columns when the operator has them at hand, else one
    ``matvec`` of the zero-padded vector."""
    if hasattr(op, "columns_times"):
        return op.columns_times(cols, x)
    padded = np.zeros(op.shape[0])
    padded[cols] = x
    return op.matvec(padded)


def _face_step(op, alpha, g, free):
    """The Newton step ``Q_FF d_F = −g_F`` on the free face (Cholesky; a tiny ridge if
    ``Q_FF`` is singular to working precision)."""
    F = np.flatnonzero(free)
    block = op.block(F, F)
    try:
        return F, -scipy.linalg.cho_solve(scipy.linalg.cho_factor(block), g[F])
    except np.linalg.LinAlgError:
        ridge = 1e-12 * max(float(np.trace(block)), 1e-300)
        return F, -scipy.linalg.solve(block + ridge * np.eye(F.size), g[F], assume_a="pos")


def _release(alpha, g, c, free, tol, count):
    """Up to ``count`` fixed variables whose gradient pulls them into the box by more than
    ``tol`` (most violating first); the projected-gradient check of optimality."""
    pull = np.where(free, 0.0, np.where(alpha <= 0.0, np.maximum(-g, 0.0),
                                        np.maximum(g, 0.0)))
    candidates = np.flatnonzero(pull > tol)
    return candidates[np.argsort(-pull[candidates], kind="stable")[:count]]


def _pinned_step(op, alpha, Qa, g, c, free, F, d, max_passes=10):
    """The face step with every variable it carries out of the box pinned at the bound it
    crosses and the step re-solved on the rest, repeated; returned as ``(α, Qα, free)`` if it
    decreases ``q`` by Armijo's rule (``None`` otherwise, or if the full step is feasible).
    One such step does the work of many blocked steps when a warm start is a few changes of
    the free set away from the optimum."""
    target = alpha[F] + d
    if np.all((target >= 0.0) & (target <= c[F])):
        return None
    free, step = free.copy(), np.zeros_like(alpha)
    step[F] = d
    for _ in range(max_passes):
        out = free & ((alpha + step < 0.0) | (alpha + step > c))
        if not out.any():
            break
        step[out] = np.where(alpha[out] + step[out] < 0.0, -alpha[out], c[out] - alpha[out])
        free &= ~out
        moved = np.flatnonzero(~free & (step != 0.0))
        shifted = g.copy()  # the gradient seen by the free set once the pinned ones moved
        F = np.flatnonzero(free)
        if F.size:
            shifted[F] += op.block(F, moved) @ step[moved]
            F, step[F] = _face_step(op, alpha, shifted, free)
    trial = np.clip(alpha + step, 0.0, c)
    Q_trial = op.matvec(trial)
    q, q_trial = 0.5 * alpha @ Qa - alpha.sum(), 0.5 * trial @ Q_trial - trial.sum()
    if not q_trial <= q + 1e-4 * float(g @ (trial - alpha)):
        return None
    return trial, Q_trial, (trial > 0.0) & (trial < c)


def solve_box_qp_newton(Q, c, alpha0=None, tol=1e-6, max_iter=None):
    r"""Solve ``max_{0 <= α <= c} 1ᵀα − ½ αᵀQα`` by a primal active-set method with Newton
    steps on the free face.

    The variables strictly inside the box form the free set ``F``; the others sit at a
    bound. Each iteration solves ``Q_FF d_F = −g_F`` (Cholesky) for the gradient
    ``g = Qα − 1`` of the minimised ``q(α) = ½αᵀQα − 1ᵀα``, and steps along ``d`` up to the
    first bound it meets (that variable leaves ``F``) or the whole way (the minimum of ``q``
    on the face). At a face minimum, the fixed variables whose gradient pulls them into the
    box by more than ``tol`` are released (up to ten at a time, the most violating first;
    one after a step blocked at length zero). When the face step leaves the box, the
    variables it carries out are first pinned at the bound they cross and the step re-solved
    on the rest; that step is taken instead if it decreases ``q`` by Armijo's rule (from a
    warm start a few changes of ``F`` away, one such step replaces many blocked ones). Each
    step decreases ``q``; the method stops when every projected gradient, on an exact
    ``Qα``, is below ``tol``. A step costs ``O(|F|³ + m|F|)``,
    whatever the conditioning of ``Q`` — where coordinate descent (:func:`solve_box_qp`)
    crawls: ``K ∘ M`` near a low-rank ``M`` has condition numbers of 10⁹, and a warm start
    there is a few changes of the free set away from the optimum
    (docs/methods/lowrank_sdp.rst).

    Parameters
    ----------
    Q : ndarray of shape (m, m), or an operator
        Symmetric positive definite. An operator has ``shape``, ``matvec(a)`` (``Qa``) and
        ``block(rows, cols)`` (the dense ``Q[rows][:, cols]``), for a ``Q`` too large to form.
    c : float or ndarray of shape (m,)
        Positive, finite box upper bounds.
    alpha0 : ndarray of shape (m,), optional
        Warm start in ``[0, c]``; ``None`` starts from 0.
    tol : float, default=1e-6
        Stop when every projected gradient ``|PG_i| ≤ tol`` (the criterion of
        :func:`solve_box_qp`).
    max_iter : int, optional
        Iterations; default ``4m + 50``. When they run out the result is finished by
        :func:`solve_box_qp` (explicit ``Q``) or returned with ``converged=False`` and a
        warning.

    Returns
    -------
    BoxQPSolution
        ``n_epochs`` counts iterations; ``quadratics = [αᵀQα]``; no ``w``.

    Examples
    --------
    >>> import numpy as np
    >>> Q = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> sol = solve_box_qp_newton(Q, 1.0)
    >>> np.round(sol.alpha, 6).tolist(), round(sol.dual_value, 6)
    ([0.333333, 0.333333], 0.333333)
    """
    if isinstance(Q, np.ndarray) or not hasattr(Q, "matvec"):
        Q = np.asarray(Q, dtype=np.float64)
        if Q.ndim != 2 or Q.shape[0] != Q.shape[1] or not np.all(np.isfinite(Q)):
            raise ValueError(f"`Q` must be a finite square 2-D array. Got shape {Q.shape}.")
        op = _DenseQ(Q)
    else:
        op = Q
    m = op.shape[0]
    c = _check_costs(c, m)
    if not isinstance(tol, Real) or not np.isfinite(tol) or tol <= 0:
        raise ValueError(f"`tol` must be a positive float. Got {tol!r} instead.")
    if max_iter is None:
        max_iter = 4 * m + 50
    check_integer(max_iter, "max_iter", 1)
    alpha = np.zeros(m) if alpha0 is None else _check_alpha(alpha0, c)
    Qa = op.matvec(alpha)
    free = (alpha > 0.0) & (alpha < c)
    converged, steps, batch, exact = False, 0, 10, True
    for steps in range(max_iter + 1):
        if steps % 50 == 49:  # the updates of Qα drift: recompute now and then
            Qa, exact = op.matvec(alpha), True
        g = Qa - 1.0
        if not free.any() or np.max(np.abs(g[free])) <= tol:  # at the face's minimum
            released = _release(alpha, g, c, free, tol, batch)
            if released.size == 0 and not exact:  # decide on an exact gradient
                Qa, exact = op.matvec(alpha), True
                continue
            if released.size == 0:
                converged = True
                break
            free[released] = True
        if steps == max_iter:
            break
        F, d = _face_step(op, alpha, g, free)
        pinned = _pinned_step(op, alpha, Qa, g, c, free, F, d)
        if pinned is not None:  # every variable that met a bound fixed there at once
            alpha, Qa, free = pinned
            batch, exact = 10, True
            continue
        with np.errstate(divide="ignore", invalid="ignore"):
            room = np.where(d < 0, alpha[F] / -d, np.where(d > 0, (c[F] - alpha[F]) / d,
                                                          np.inf))
        blocking = int(np.argmin(room))
        t = min(1.0, float(room[blocking]))
        alpha[F] = np.clip(alpha[F] + t * d, 0.0, c[F])
        Qa, exact = Qa + _times_columns(op, F, t * d), False
        batch = 1 if t == 0.0 else 10
        if t < 1.0:  # a bound met: that variable leaves the face
            i = F[blocking]
            alpha[i] = 0.0 if d[blocking] < 0 else c[i]
            free[i] = False
    if not converged and isinstance(op, _DenseQ):
        return solve_box_qp(None, np.arange(m, dtype=np.int64), np.ones(m), c, alpha0=alpha,
                            tol=tol, max_epochs=100000, gram=op.Q)
    Qa = op.matvec(alpha)
    half_norm = 0.5 * float(alpha @ Qa)
    dual = float(alpha.sum()) - half_norm
    primal = half_norm + float(np.dot(c, np.maximum(0.0, 1.0 - Qa)))
    if not converged:
        warn(f"solve_box_qp_newton stopped after {steps} iterations with projected "
             f"gradient above tol={tol:g}; duality gap {primal - dual:.3g}.",
             ConvergenceWarning)
    return BoxQPSolution(alpha=alpha, dual_value=dual, primal_value=primal, n_epochs=steps,
                         converged=converged, quadratics=np.array([2.0 * half_norm]))


# ---------------------------------------------------------------------------------------------
# The linear SVM with a free offset (primal features, proximal steps on the offset)
# ---------------------------------------------------------------------------------------------

#: Value ``s`` of the constant feature that carries the offset in the proximal steps of
#: :class:`LinearOffsetSVM` (``(b − b₀)² / (2 s²)``): LIBLINEAR's default bias feature.
OFFSET_FEATURE = 1.0

#: Proximal steps on the offset per :meth:`LinearOffsetSVM.fit` before it gives up.
MAX_OFFSET_STEPS = 60

#: Passes over the data allowed to one :class:`LinearOffsetSVM` fit inside an outer loop
#: (alter-∝SVM's restarts, the β-SVM's P1 steps; LIBLINEAR's ``max_iter``), and to the
#: re-solve of the model the loop returns when its own fit stopped at the first cap.
EPOCH_CAPS = (1000, 10000)


class LinearOffsetSVM:
    r"""The linear SVM with a free (unregularised) offset, solved in the feature space.

    .. math::

        \min_{w, b} \tfrac12\|w\|^2 + \sum_i c_i \max(0, 1 - y_i (w\cdot x_i + b))

    The offset puts the equality ``yᵀα = 0`` in the dual, which coordinate descent cannot keep
    (libsvm's SMO, :mod:`weakcvx._smo`, moves pairs instead, on an ``n × n`` kernel). Here the
    offset is found by proximal steps. For a centre ``b₀``

    .. math::

        \min_{w, b} \tfrac12\|w\|^2 + \frac{(b - b_0)^2}{2 s^2}
            + \sum_i c_i \max(0, 1 - y_i (w\cdot x_i + b))

    is LIBLINEAR's problem on the features ``[x_i, s]`` with the weight of the constant feature
    shifted by ``b₀ / s``: the dual coordinate descent of :func:`solve_box_qp` (same kernels,
    the weights started at ``[Xᵀ(α∘y), b₀/s + s·yᵀα]``), and its solution has
    ``b = b₀ + s²·yᵀα``. With ``g(b) = min_w`` of the objective (convex in ``b``), the
    optimality of that step reads ``g'(b) = −yᵀα``: every step samples the derivative of ``g``.
    The centres follow those samples: outward, doubling the step, until the root of ``g'`` is
    bracketed, then regula falsi with the Illinois modification inside the bracket (``g'`` is
    piecewise affine, so the steps end once the root's piece is reached). A fit stops when
    ``|yᵀα| ≤ tol · max_i c_i`` (the equality of the dual holds to one point's share ``tol`` of
    its box) or when the bracket is narrower than ``tol`` (a kink of ``g``, e.g. at a tiny
    ``C`` where ``g`` is nearly ``C Σ hinge(y_i b)``).

    Memory: one copy of ``X`` with the constant column (dense, or CSR for sparse ``X``) and
    ``O(n + d)`` vectors; no ``n × n`` array.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n, d)
        Features (finite values).
    tol : float, default=1e-3
        Projected-gradient tolerance of the coordinate descent (LIBLINEAR's ``eps``, about the
        scale of libsvm's) and of the offset search above.
    max_epochs : int, default=1000
        Passes over the data per fit, over all its proximal steps (LIBLINEAR's cap).
    random_state : int, RandomState or None, default=0
        Seeds the coordinate order.
    backend : {"numba", "numpy"}, default="numba"
        ``"numpy"``: :func:`solve_box_qp`'s readable twin (same iterates, slow).

    Attributes
    ----------
    w : ndarray of shape (d,), offset : float
        The model ``f(x) = w·x + offset`` of the last fit.
    alpha : ndarray of shape (n,)
        Its dual variables (``w = Σ_i α_i y_i x_i``, ``0 ≤ α ≤ c``; ``yᵀα ≈ 0``).
    n_epochs, n_steps : int
        Coordinate-descent passes and proximal steps of the last fit.
    converged : bool
        Whether the last fit met both stopping rules within ``max_epochs``.

    Raises
    ------
    SolverError
        From :meth:`fit`, with status ``"overflow"``, when ``max_i c_i · Σ_i ‖x_i‖`` (a bound
        on ``‖w‖``) puts ``‖w‖²`` beyond the float64 range (e.g. ``C = 1e300``).

    See Also
    --------
    weakcvx._smo.svm_offset_solve : the same problem by SMO on a kernel matrix.
    linear_svm_offset_cvxpy : the readable reference (a CVXPY model of the primal).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(200, 3)
    >>> y = np.where(X[:, 0] + 0.5 * rng.randn(200) > 1.0, 1.0, -1.0)  # boundary off the origin
    >>> svm = LinearOffsetSVM(X).fit(y, 1.0)
    >>> value, w, offset = linear_svm_offset_cvxpy(X, y, 1.0)
    >>> svm.converged, round(svm.offset, 2), round(offset, 2)
    (True, -2.43, -2.43)
    """

    def __init__(self, X, tol=1e-3, max_epochs=1000, random_state=0, backend="numba"):
        if not isinstance(tol, Real) or not np.isfinite(tol) or tol <= 0:
            raise ValueError(f"`tol` must be a positive float. Got {tol!r} instead.")
        check_integer(max_epochs, "max_epochs", 1)
        if backend not in ("numba", "numpy"):
            raise ValueError(f"`backend` must be 'numba' or 'numpy'. Got {backend!r} instead.")
        n = X.shape[0]
        column = np.full((n, 1), OFFSET_FEATURE)
        if sp.issparse(X):
            R = sp.hstack([X, sp.csr_matrix(column)], format="csr")
        else:
            R = np.hstack([np.asarray(X, dtype=np.float64), column])
        self.R, self.row_norms_sq = _check_factor(R)
        self.tol, self.max_epochs, self.backend = float(tol), int(max_epochs), backend
        self.seed = _coordinate_seed(random_state)
        self.w, self.offset, self.alpha = np.zeros(R.shape[1] - 1), 0.0, np.zeros(n)
        self.n_epochs, self.n_steps, self.converged = 0, 0, True
        self._all_rows = np.arange(n)

    def _check_rows(self, rows, m):
        """``rows`` as an int64 array of ``m`` stored-row indices (all rows when None)."""
        n = self.R.shape[0]
        if rows is None:
            if m != n:
                raise ValueError(f"`y` must have one entry per row of X ({n}). Got {m}.")
            return self._all_rows
        rows = np.asarray(rows)
        if rows.ndim != 1 or rows.shape[0] != m or rows.dtype.kind not in "iu":
            raise ValueError(f"`rows` must be a 1-D integer array with one entry per entry of "
                             f"`y` ({m}). Got shape {rows.shape}, dtype {rows.dtype}.")
        if m and (rows.min() < 0 or rows.max() >= n):
            raise ValueError(f"`rows` must index the {n} stored rows. Got values in "
                             f"[{rows.min()}, {rows.max()}].")
        return np.ascontiguousarray(rows, dtype=np.int64)

    def _prox_step(self, y, c, alpha, centre, max_epochs, rows, qd):
        """One proximal step from ``centre`` (``alpha`` updated in place) on the dual variables
        of the stored rows ``rows``; returns ``(W, epochs, converged)`` with ``W = [w, b / s]``."""
        rows, signs = rows[None, :], y[None, :]
        W = _weights_from_alpha(self.R, rows, signs, alpha)
        W[0, -1] += centre / OFFSET_FEATURE
        args = (rows, signs, np.ones(1), c, qd, alpha, W, self.tol, max_epochs, self.seed, True)
        if self.backend == "numpy":
            epochs, converged = _box_qp_numpy(self.R, *args)
        elif sp.issparse(self.R):
            epochs, converged = _cd_csr(self.R.indptr, self.R.indices, self.R.data, *args)
        else:
            epochs, converged = _cd_dense(self.R, *args)
        return W, epochs, converged

    def fit(self, y, c, alpha0=None, offset0=None, rows=None):
        """Solve for labels ``y`` (±1) and costs ``c`` (scalar or per point), warm-started
        from ``alpha0`` (in ``[0, c]``; default 0) and the offset ``offset0`` (default 0).

        ``rows`` (default: every stored row once) gives the stored row of each dual variable;
        a row may appear several times, e.g. once per label as in the β-SVM's duplicated
        points ``(x_i, +1)``, ``(x_i, −1)`` (:func:`weakcvx.beta.beta_svm_features`), without
        copying it. ``y``, ``c`` and ``alpha0`` then have one entry per entry of ``rows``.
        Returns ``self``."""
        y = np.asarray(y, dtype=np.float64)
        rows = self._check_rows(rows, len(y))
        c = _check_costs(c, len(y))
        qd = self.row_norms_sq if rows is self._all_rows else self.row_norms_sq[rows]
        # ‖w‖ ≤ max_i c_i · Σ_i ‖x̃_i‖ for every α in the box; ‖w‖² must stay in float64
        weight_bound = float(c.max()) * float(np.sqrt(qd).sum())
        if not np.isfinite(4.0 * weight_bound * weight_bound):
            raise SolverError("LinearOffsetSVM", "overflow",
                              f"costs up to {float(c.max()):g} with Σ_i ‖x_i‖ = "
                              f"{float(np.sqrt(qd).sum()):g} put ‖w‖² beyond "
                              "the float64 range. Lower C or rescale the features.")
        alpha = np.zeros(len(y)) if alpha0 is None else _check_alpha(alpha0, c)
        self.n_epochs = self.n_steps = 0
        if np.all(y == y[0]):  # one class: w = 0, b = y₀ meets every margin
            self.w, self.offset, self.alpha = np.zeros_like(self.w), float(y[0]), alpha * 0.0
            self.converged = True
            return self
        centre = 0.0 if offset0 is None else float(offset0)
        lo = hi = last = None  # samples (b, g'(b)): g' < 0 and g' > 0 (the root between), last
        side, growth, steps_ok, converged = 0, 0.0, False, True
        while self.n_steps < MAX_OFFSET_STEPS and self.n_epochs < self.max_epochs:
            W, epochs, converged = self._prox_step(y, c, alpha, centre,
                                                   self.max_epochs - self.n_epochs, rows, qd)
            self.n_epochs += int(epochs)
            self.n_steps += 1
            b = OFFSET_FEATURE * W[0, -1]
            slope = -float(alpha @ y)  # g'(b)
            if not np.isfinite(slope + b):  # overflow (a cost near the float64 range)
                converged = False
                break
            if abs(slope) <= self.tol * float(c.max()):
                steps_ok = True
                break
            if slope < 0:
                if side < 0 and hi is not None:
                    hi[1] *= 0.5  # Illinois: the same end moved twice
                lo, side = [b, slope], -1
            else:
                if side > 0 and lo is not None:
                    lo[1] *= 0.5
                hi, side = [b, slope], 1
            if lo is not None and hi is not None:
                if hi[0] - lo[0] <= self.tol:
                    steps_ok = True
                    break
                centre = lo[0] - lo[1] * (hi[0] - lo[0]) / (hi[1] - lo[1])
            else:
                centre = self._outward_centre(b, slope, centre, last, growth)
                growth = 2.0 * growth + 1.0
            last = (b, slope)
        self.w, self.offset, self.alpha = W[0, :-1].copy(), float(b), alpha
        self.converged = bool(converged and steps_ok)
        return self

    def training_scores(self):
        """``f(x_i) = w·x_i + offset`` on the training rows (one product with the stored
        matrix, no copy of it)."""
        return np.asarray(self.R @ np.append(self.w, self.offset / OFFSET_FEATURE)).ravel()

    def spawn(self, **params):
        """A solver sharing this one's matrix (no copy) with its own state and, optionally,
        other ``tol`` / ``max_epochs``: one per restart of an outer loop, safe in threads."""
        other = copy.copy(self)
        other.w, other.offset, other.alpha = np.zeros_like(self.w), 0.0, np.zeros_like(self.alpha)
        for name, value in params.items():
            if name not in ("tol", "max_epochs"):
                raise TypeError(f"spawn() takes `tol` and `max_epochs`. Got {name!r}.")
            setattr(other, name, value)
        return other

    @staticmethod
    def _outward_centre(b, slope, centre, last, growth):
        """The next centre while the root of ``g'`` is not bracketed: the secant root of the
        last two samples when their slope is positive (exact where ``g'`` is affine) and it
        lies within 16 proximal moves, else ``b`` pushed on by ``growth`` times the last
        proximal move (0, 1, 3, 7, ...: the plain proximal point first, then doubling, for a
        nearly flat ``g'`` as at a tiny ``C``)."""
        move = b - centre  # = −s² g'(b)
        if last is not None and (slope - last[1]) * (b - last[0]) > 0:
            root = b - slope * (b - last[0]) / (slope - last[1])
            if abs(root - b) <= 16.0 * abs(move):
                return root
        return b + growth * move


def box_qp_cvxpy(Q, c, solver=None, solver_options=None, factor=None):
    """Reference solver: ``max_{0 <= α <= c} 1ᵀα − ½ αᵀQα`` as a CVXPY model.

    Parameters
    ----------
    Q : ndarray of shape (m, m)
        Symmetric PSD matrix (e.g. from :func:`label_kernel`). It is symmetrised and passed
        through ``psd_wrap``, so rounding-level asymmetry or negative eigenvalues are tolerated;
        a genuinely indefinite ``Q`` makes the problem non-concave and the answer meaningless.
    c : float or ndarray of shape (m,)
        Positive box upper bounds.
    solver : str, default=None
        A CVXPY solver name. ``None`` means Clarabel, an interior-point QP solver, chosen for
        its accuracy at a time close to OSQP's and SCS's (docs/design.rst §3.2); it is the
        reference of the tests.
    solver_options : dict, default=None
        Passed to ``problem.solve`` for this call only.
    factor : ndarray or sparse matrix of shape (m, d), optional
        ``G`` with ``Q = G Gᵀ`` (e.g. ``diag(s) R[rows]`` for a label kernel); then ``Q`` must be
        ``None`` and the model is ``max 1ᵀα − ½‖Gᵀα‖²``, whose quadratic term has ``d`` rather
        than ``m²`` entries (faster for ``d ≪ m``: docs/design.rst §3.2).

    Returns
    -------
    value : float
        The optimal value reported by the solver.
    alpha : ndarray of shape (m,)
        An optimal ``α`` (not unique when ``Q`` is singular).

    Raises
    ------
    SolverError
        When the solver fails or returns a status other than optimal / optimal_inaccurate
        (the latter gives a :class:`~sklearn.exceptions.ConvergenceWarning`).

    Examples
    --------
    >>> import numpy as np
    >>> Q = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> value, alpha = box_qp_cvxpy(Q, 1.0)   # interior optimum: Qα = 1
    >>> round(value, 4), np.round(alpha, 4).tolist()
    (0.3333, [0.3333, 0.3333])
    >>> value_g, _ = box_qp_cvxpy(None, 1.0, factor=np.linalg.cholesky(Q))   # Q = G Gᵀ
    >>> bool(np.isclose(value_g, value, rtol=1e-6))
    True
    """
    import cvxpy as cp

    if factor is not None:
        if Q is not None:
            raise ValueError("Give `Q` or `factor` (Q = G Gᵀ), not both. Got both.")
        G = factor.tocsr() if sp.issparse(factor) else np.asarray(factor, dtype=np.float64)
        if G.ndim != 2:
            raise ValueError(f"`factor` must be a 2-D array (m, d). Got shape {G.shape}.")
        if not np.all(np.isfinite(G.data if sp.issparse(G) else G)):
            raise ValueError("`factor` must contain only finite values. Got NaN or inf.")
        m = G.shape[0]
    else:
        Q = np.asarray(Q, dtype=np.float64)
        if Q.ndim != 2 or Q.shape[0] != Q.shape[1]:
            raise ValueError(f"`Q` must be a square 2-D array. Got shape {Q.shape} instead.")
        if not np.all(np.isfinite(Q)):
            raise ValueError("`Q` must contain only finite values. Got NaN or inf instead.")
        m = Q.shape[0]
        Q = 0.5 * (Q + Q.T)
    c = _check_costs(c, m)
    solver = cp.CLARABEL if solver is None else solver

    alpha = cp.Variable(m, name="alpha")
    quadratic = cp.sum_squares(G.T @ alpha) if factor is not None else \
        cp.quad_form(alpha, cp.psd_wrap(Q))
    objective = cp.Maximize(cp.sum(alpha) - 0.5 * quadratic)
    constraints = [alpha >= 0, alpha <= c]
    problem = cp.Problem(objective, constraints)
    try:
        problem.solve(solver=solver, **(solver_options or {}))
    except cp.error.SolverError as exc:
        raise SolverError(str(solver), "solver_error", str(exc)) from exc
    status = problem.status
    if status == cp.OPTIMAL_INACCURATE:
        warn(
            f"box_qp_cvxpy: solver {solver!r} returned status {status!r}.",
            ConvergenceWarning,
        )
    elif status != cp.OPTIMAL:
        raise SolverError(str(solver), str(status))
    return float(problem.value), np.asarray(alpha.value, dtype=np.float64)


def linear_svm_offset_cvxpy(X, y, c, solver=None):
    r"""Reference solver of :class:`LinearOffsetSVM`'s problem as a CVXPY model of the primal:

    .. math::

        \min_{w, b} \tfrac12\|w\|^2 + \sum_i c_i \max(0, 1 - y_i (w\cdot x_i + b)).

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n, d)
    y : ndarray of shape (n,), values ±1
    c : float or ndarray of shape (n,)
    solver : str, default=None
        A CVXPY solver name; ``None``: Clarabel, as :func:`box_qp_cvxpy`.

    Returns
    -------
    value : float
    w : ndarray of shape (d,)
    offset : float

    Raises
    ------
    SolverError
        When the solver fails or ends with a status other than optimal.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[-2.0], [-1.0], [1.0], [3.0]]); y = np.array([-1.0, -1.0, 1.0, 1.0])
    >>> value, w, offset = linear_svm_offset_cvxpy(X, y, 10.0)
    >>> round(value, 4), np.round(X @ w + offset, 3).tolist()   # margin 1 at x = -1 and x = 1
    (0.5, [-2.0, -1.0, 1.0, 3.0])
    """
    import cvxpy as cp

    y = np.asarray(y, dtype=np.float64)
    c = _check_costs(c, len(y))
    solver = cp.CLARABEL if solver is None else solver
    w, b = cp.Variable(X.shape[1], name="w"), cp.Variable(name="b")
    margins = cp.multiply(y, X @ w + b)
    problem = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w)
                                     + c @ cp.pos(1 - margins)))
    try:
        problem.solve(solver=solver)
    except cp.error.SolverError as exc:
        raise SolverError(str(solver), "solver_error", str(exc)) from exc
    if problem.status != cp.OPTIMAL:
        raise SolverError(str(solver), str(problem.status))
    return float(problem.value), np.asarray(w.value, dtype=np.float64), float(b.value)


def label_kernel(factor, rows, signs, mu=None):
    """The dense label kernel ``Q = Σ_t μ_t diag(s_t) R[rows_t] R[rows_t]ᵀ diag(s_t)``.

    .. warning::
        This forms an ``(m, m)`` dense matrix: for tests, teaching and small problems only.
        The solvers of this module work on the factor and never call it.

    Parameters
    ----------
    factor, rows, signs, mu :
        As in :func:`solve_box_qp`.

    Returns
    -------
    Q : ndarray of shape (m, m)

    Examples
    --------
    >>> import numpy as np
    >>> R = np.array([[1.0], [2.0]])                # K = R Rᵀ = [[1, 2], [2, 4]]
    >>> label_kernel(R, [0, 1], [1.0, -1.0])         # K ∘ yyᵀ for y = (1, -1)
    array([[ 1., -2.],
           [-2.,  4.]])
    >>> label_kernel(R, [[0, 1], [0, 1]], [[1.0, 1.0], [1.0, -1.0]], mu=[0.5, 0.5])
    array([[1., 0.],
           [0., 4.]])
    """
    R, _ = _check_factor(factor)
    rows, signs = _check_supports(rows, signs, R.shape[0])
    mu = _check_mu(mu, rows.shape[0])
    m = rows.shape[1]
    Q = np.zeros((m, m))
    for t in range(rows.shape[0]):
        Z = R[rows[t]]
        G = Z @ Z.T
        G = G.toarray() if sp.issparse(G) else G
        Q += mu[t] * (signs[t][:, None] * G * signs[t][None, :])
    return Q


def svm_objective(factor, rows, signs, c, mu=None, w=None, alpha=None):
    """The SVM primal ``½ Σ_t μ_t ‖w_t‖² + Σ_i c_i max(0, 1 − Σ_t μ_t s_ti R[rows_ti]·w_t)``.

    It is the dual of the box QP of :func:`solve_box_qp`, so its value at any ``w`` is an upper
    bound of the box-QP optimum (weak duality).

    Parameters
    ----------
    factor, rows, signs, c, mu :
        As in :func:`solve_box_qp`.
    w : ndarray of shape (T, r), or (r,) when T = 1
        Unscaled weights (the classifier of label ``t`` is ``μ_t w_t``).
    alpha : ndarray of shape (m,)
        Alternatively, dual variables: then ``w_t = Σ_i α_i s_ti R[rows_ti]``.
        Exactly one of ``w`` and ``alpha`` must be given.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> R = np.random.default_rng(0).standard_normal((6, 2))
    >>> rows, signs = np.arange(6), np.array([1.0, 1.0, 1.0, -1.0, -1.0, -1.0])
    >>> sol = solve_box_qp(R, rows, signs, 1.0)
    >>> bool(np.isclose(svm_objective(R, rows, signs, 1.0, alpha=sol.alpha), sol.primal_value))
    True
    >>> svm_objective(R, rows, signs, 1.0, w=np.zeros(2))   # w = 0: every hinge is 1
    6.0
    """
    R, _ = _check_factor(factor)
    rows, signs = _check_supports(rows, signs, R.shape[0])
    n_labels, m = rows.shape
    mu = _check_mu(mu, n_labels)
    c = _check_costs(c, m)
    if (w is None) == (alpha is None):
        raise ValueError("Exactly one of `w` and `alpha` must be given. Got both or neither.")
    if w is None:
        alpha = np.asarray(alpha, dtype=np.float64)
        if alpha.shape != (m,) or not np.all(np.isfinite(alpha)):
            raise ValueError(f"`alpha` must be a finite array of shape ({m},). Got {alpha.shape}.")
        w = _weights_from_alpha(R, rows, signs, alpha)
    else:
        w = _check_w(w, n_labels, R.shape[1])
    return _primal(R, rows, signs, mu, c, w)
