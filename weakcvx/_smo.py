r"""SMO for the SVM *with offset* on a dense kernel, warm-startable (alter-∝SVM's and the
β-SVM's inner solves).

The dual of ``min ½‖w‖² + C Σ_i max(0, 1 − y_i(w·φ(x_i) + b))`` is

.. math::

    \min_\alpha \tfrac12 \alpha^\top Q \alpha - 1^\top\alpha
    \quad\text{s.t.}\quad y^\top\alpha = 0,\; 0 \le \alpha \le C,
    \qquad Q_{ij} = y_i y_j K_{ij},

solved here by libsvm's SMO (Fan, Chen & Lin 2005: second-order working-set selection WSS2,
the same pair update, shrinking heuristic and offset ``ρ``; ``f(x) = Σ_j α_j y_j k(x_j, x) − ρ``),
without a kernel cache since ``K`` is held dense. What libsvm through scikit-learn cannot
do is start from a given ``α``: alter-∝SVM solves ~30 annealing steps × a few relabelings per
restart, each close to the previous one, so :func:`svm_offset_solve` takes any feasible ``α``
(``yᵀα = 0``, in the box) with its gradient and continues from there. :func:`warm_start` maps
the previous solution to a feasible start after ``C`` or the labels change.

The bounds may differ per variable (``0 ≤ α_t ≤ C_t``, libsvm's pair update with ``C_i ≠ C_j``),
and a variable may live on any row of ``K`` (``rows``): the β-SVM's dual has one variable per
point and sign, two on the same row, solved without forming its 2n × 2n duplicated kernel
(:func:`weakcvx.beta.beta_svm_smo`). With ``rows=None`` numba compiles the one-variable-per-row
case without the index load.

The reference twin is libsvm (``sklearn.svm.SVC(kernel="precomputed")``); the tests compare
dual objectives and offsets on random problems, cold and warm (tests/test_proportion.py), and
the β-SVM's solutions with CVXOPT's, cold and warm, and with LIBSVM on the duplicated kernel
(tests/test_beta.py).
"""

from __future__ import annotations

import numba
import numpy as np
from numba.core import types
from numba.extending import overload

__all__ = ["svm_offset_solve", "warm_start", "restore_equality", "dual_objective"]

#: libsvm's TAU: curvature used when ``K_ii + K_jj − 2K_ij ≤ 0``.
_TAU = 1e-12


def _row(rows, t):
    """Kernel row of variable ``t``: ``rows[t]``, or ``t`` itself when ``rows`` is None (one
    variable per point; numba compiles that case without the index load)."""
    return t if rows is None else rows[t]


@overload(_row, inline="always")
def _row_compiled(rows, t):
    if isinstance(rows, types.NoneType):
        return lambda rows, t: t
    return lambda rows, t: rows[t]


@numba.njit(cache=True, nogil=True, inline="always")
def _set_flags(t, y, C, alpha, up, low):
    """Membership of ``t`` in libsvm's ``I_up`` (``α_t`` may move so that ``y_t α_t`` grows)
    and ``I_low`` (so that it shrinks); ``C[t]`` is its upper bound."""
    up[t] = alpha[t] < C[t] if y[t] > 0.0 else alpha[t] > 0.0
    low[t] = alpha[t] > 0.0 if y[t] > 0.0 else alpha[t] < C[t]


@numba.njit(cache=True, nogil=True, inline="always")
def _select(K, rows, Kd, F, up, low, active, m):
    """WSS2 over ``active[:m]`` with ``F = −y∘G``: ``(i, j, gap)``, ``gap = m(α) − M(α)``
    (libsvm's ``Gmax + Gmax2``); ``j = −1`` when no pair decreases the objective. Variable
    ``t`` lives on kernel row ``rows[t]``."""
    g_max = -np.inf
    i = -1
    for s in range(m):
        t = active[s]
        if up[t] and F[t] >= g_max:
            g_max = F[t]
            i = t
    g_max2 = -np.inf
    j = -1
    if i < 0:
        return i, j, -np.inf
    # largest diff²/quad, compared as diff²·quad_best ≥ best·quad (no division per element)
    best, quad_best = -1.0, 1.0
    k_ii = Kd[i]
    K_i = K[_row(rows, i)]
    for s in range(m):
        t = active[s]
        if low[t]:
            if -F[t] >= g_max2:
                g_max2 = -F[t]
            diff = g_max - F[t]
            if diff > 0.0:
                quad = k_ii + Kd[t] - 2.0 * K_i[_row(rows, t)]
                if quad <= 0.0:
                    quad = _TAU
                if diff * diff * quad_best >= best * quad:
                    best, quad_best = diff * diff, quad
                    j = t
    return i, j, g_max + g_max2


@numba.njit(cache=True, nogil=True)
def _reconstruct(K, rows, y, alpha, F, active, m):
    """Exact ``F_t = −y_t G_t = 1 − Σ_j y_j α_j K_tj`` (with ``y_t² = 1``: ``F_t = y_t − f_t − ρ``
    up to the offset) for the shrunk ``t ∈ active[m:]``."""
    n = y.shape[0]
    support = np.empty(n, dtype=np.int64)
    n_sv = 0
    for j in range(n):
        if alpha[j] > 0.0:
            support[n_sv] = j
            n_sv += 1
    for s in range(m, n):
        t = active[s]
        K_t = K[_row(rows, t)]
        acc = 0.0
        for q in range(n_sv):
            j = support[q]
            acc += K_t[_row(rows, j)] * (y[j] * alpha[j])
        F[t] = y[t] * (1.0 - y[t] * acc)


@numba.njit(cache=True, nogil=True)
def _shrink(K, rows, y, alpha, F, up, low, tol, active, m, unshrink):
    """libsvm's ``do_shrinking`` (``be_shrunk``: a variable at a bound that its gradient
    pushes against); returns the new active size and ``unshrink``."""
    g_max1 = -np.inf  # max {−y_t G_t : t ∈ I_up}
    g_max2 = -np.inf  # max {y_t G_t : t ∈ I_low}
    for s in range(m):
        t = active[s]
        if up[t]:
            g_max1 = max(g_max1, F[t])
        if low[t]:
            g_max2 = max(g_max2, -F[t])
    n = y.shape[0]
    if not unshrink and g_max1 + g_max2 <= 10.0 * tol:
        unshrink = True  # near the end: bring everything back once, as libsvm does
        _reconstruct(K, rows, y, alpha, F, active, m)
        m = n
    s = 0
    while s < m:
        t = active[s]
        # at a bound (in only one of I_up, I_low) and pushed against it
        if (up[t] and not low[t] and -F[t] > g_max2) or (low[t] and not up[t]
                                                          and F[t] > g_max1):
            m -= 1
            active[s] = active[m]
            active[m] = t
        else:
            s += 1
    return m, unshrink


@numba.njit(cache=True, nogil=True)
def _smo(K, rows, Kd, y, C, alpha, G, tol, max_iter, shrinking):
    """libsvm's ``Solver::Solve`` with its shrinking heuristic (no kernel cache: ``K`` is
    dense); ``alpha`` and ``G = Qα − 1`` in place. Returns ``(n_iter, converged)``. Variable
    ``t`` has the kernel row ``rows[t]``, the diagonal entry ``Kd[t]`` and the bound ``C[t]``.

    Works on ``F = −y∘G`` (so that ``I_up`` and ``I_low`` need no branch on ``y``) and on the
    membership flags of ``I_up`` and ``I_low``, which only the updated pair can change."""
    n = y.shape[0]
    F = -y * G
    up = np.empty(n, dtype=np.bool_)
    low = np.empty(n, dtype=np.bool_)
    for t in range(n):
        _set_flags(t, y, C, alpha, up, low)
    active = np.arange(n)
    m = n
    unshrink = False
    period = min(n, 1000)
    counter = period + 1
    it = 0
    converged = False
    while it < max_iter:
        if shrinking:
            counter -= 1
            if counter == 0:
                counter = period
                m, unshrink = _shrink(K, rows, y, alpha, F, up, low, tol, active, m, unshrink)
        i, j, gap = _select(K, rows, Kd, F, up, low, active, m)
        if gap < tol or j < 0:
            if m == n:
                converged = True
                break
            _reconstruct(K, rows, y, alpha, F, active, m)  # optimal on the active set: all
            m = n
            i, j, gap = _select(K, rows, Kd, F, up, low, active, m)
            if gap < tol or j < 0:
                converged = True
                break
            counter = 1  # shrink again at the next iteration
        it += 1
        # the pair update of libsvm (bounds C_i, C_j), in G = −y∘F
        g_i, g_j = -y[i] * F[i], -y[j] * F[j]
        old_i, old_j = alpha[i], alpha[j]
        C_i, C_j = C[i], C[j]
        K_i, K_j = K[_row(rows, i)], K[_row(rows, j)]
        quad = Kd[i] + Kd[j] - 2.0 * K_i[_row(rows, j)]
        if quad <= 0.0:
            quad = _TAU
        if y[i] != y[j]:
            delta = (-g_i - g_j) / quad
            diff = old_i - old_j
            ai, aj = old_i + delta, old_j + delta
            if diff > 0.0:
                if aj < 0.0:
                    aj, ai = 0.0, diff
            elif ai < 0.0:
                ai, aj = 0.0, -diff
            if diff > C_i - C_j:
                if ai > C_i:
                    ai, aj = C_i, C_i - diff
            elif aj > C_j:
                aj, ai = C_j, C_j + diff
        else:
            delta = (g_i - g_j) / quad
            total = old_i + old_j
            ai, aj = old_i - delta, old_j + delta
            if total > C_i:
                if ai > C_i:
                    ai, aj = C_i, total - C_i
            elif aj < 0.0:
                aj, ai = 0.0, total
            if total > C_j:
                if aj > C_j:
                    aj, ai = C_j, total - C_j
            elif ai < 0.0:
                ai, aj = 0.0, total
        alpha[i], alpha[j] = ai, aj
        _set_flags(i, y, C, alpha, up, low)
        _set_flags(j, y, C, alpha, up, low)
        d_i = (ai - old_i) * y[i]
        d_j = (aj - old_j) * y[j]
        for s in range(m):
            t = active[s]
            r = _row(rows, t)
            F[t] -= K_i[r] * d_i + K_j[r] * d_j
    if m < n:
        _reconstruct(K, rows, y, alpha, F, active, m)
    for t in range(n):
        G[t] = -y[t] * F[t]
    return it, converged


@numba.njit(cache=True, nogil=True)
def _rho(y, C, alpha, G):
    """libsvm's ``calculate_rho``: mean of ``y_i G_i`` over free ``α_i``, else the midpoint."""
    ub, lb = np.inf, -np.inf
    total, n_free = 0.0, 0
    for i in range(y.shape[0]):
        yg = y[i] * G[i]
        if alpha[i] >= C[i]:
            if y[i] < 0.0:
                ub = min(ub, yg)
            else:
                lb = max(lb, yg)
        elif alpha[i] <= 0.0:
            if y[i] > 0.0:
                ub = min(ub, yg)
            else:
                lb = max(lb, yg)
        else:
            n_free += 1
            total += yg
    if n_free > 0:
        return total / n_free
    return 0.5 * (ub + lb)


def default_max_iter(n):
    """The default cap of :func:`svm_offset_solve` on ``n`` points: ``max(10⁶, 100 n)`` pair
    updates (libsvm's cap is ``max(10⁷, 100 n)``)."""
    return max(10**6, 100 * n)


def svm_offset_solve(K, y, C, alpha=None, grad=None, tol=1e-3, max_iter=None, shrinking=True,
                     rows=None):
    """Solve the SVM with offset by SMO, optionally from a feasible ``alpha``.

    With ``rows``, variable ``t`` is the point ``x_{rows[t]}`` with label ``y_t`` and bound
    ``C_t``: the same point may carry several variables (the β-SVM's two signs,
    :func:`weakcvx.beta.beta_svm_smo`) without a copy of the kernel,
    ``Q_{st} = y_s y_t K[rows[s], rows[t]]``.

    Parameters
    ----------
    K : ndarray of shape (n, n), C-contiguous float64
        Kernel matrix.
    y : ndarray of shape (m,)
        Labels ±1 (both present); ``m = n`` without ``rows``.
    C : float or ndarray of shape (m,)
        Upper bound of every variable, or one per variable.
    alpha : ndarray of shape (m,), optional
        Feasible start (``yᵀα = 0``, ``0 ≤ α ≤ C``); default 0. Modified in place.
    grad : ndarray of shape (m,), optional
        ``Qα − 1`` for the given ``alpha`` (computed when None). Modified in place.
    tol : float, default=1e-3
        libsvm's ``eps``: stop when the maximal KKT violation pair is below it.
    max_iter : int, optional
        Default ``max(10⁶, 100 m)`` (libsvm's cap is ``max(10⁷, 100 m)``).
    shrinking : bool, default=True
        libsvm's shrinking heuristic (the active set skips variables held at a bound).
    rows : ndarray of int of shape (m,), optional
        Kernel row of every variable; default ``arange(n)``.

    Returns
    -------
    alpha, grad : ndarray
    rho : float
        Offset: ``f(x) = Σ_t α_t y_t k(x_{rows[t]}, x) − ρ``.
    n_iter : int
    converged : bool

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]]); y = np.array([-1.0, -1.0, 1.0, 1.0])
    >>> alpha, grad, rho, n_iter, ok = svm_offset_solve(X @ X.T, y, C=10.0)
    >>> f = (X @ X.T) @ (alpha * y) - rho
    >>> bool(ok), np.sign(f).tolist()
    (True, [-1.0, -1.0, 1.0, 1.0])
    """
    y = np.ascontiguousarray(y, dtype=np.float64)
    m = y.shape[0]
    if rows is not None:
        rows = np.ascontiguousarray(rows, dtype=np.int64)
    C = np.ascontiguousarray(np.broadcast_to(np.asarray(C, dtype=np.float64), (m,)))
    if alpha is None:
        alpha = np.zeros(m)
    if grad is None:
        grad = (y * (K @ (alpha * y)) if rows is None else
                y * (K @ np.bincount(rows, alpha * y, minlength=K.shape[0]))[rows]) - 1.0
    if max_iter is None:
        max_iter = default_max_iter(m)
    diagonal = np.ascontiguousarray(np.diag(K) if rows is None else np.diag(K)[rows])
    n_iter, converged = _smo(K, rows, diagonal, y, C, alpha, grad, float(tol), int(max_iter),
                             bool(shrinking))
    return alpha, grad, float(_rho(y, C, alpha, grad)), int(n_iter), bool(converged)


def warm_start(K, y_old, y_new, alpha, C_old, C_new, scores):
    """A feasible start for the SVM on labels ``y_new`` at ``C_new`` from the solution
    ``alpha`` on ``y_old`` at ``C_old``.

    ``α`` is scaled by ``C_new / C_old`` (exact for a bound-constrained point, and keeps
    ``yᵀα = 0``). A point whose label changed gets the multiplier its new label would have if
    the current scores ``f`` stayed: ``C_new`` inside the margin (``y_new f < 1``), 0 outside.
    The equality ``yᵀα = 0`` is then restored by scaling down the side in excess.

    Returns
    -------
    alpha, grad : ndarray
        The start and its gradient ``Qα − 1``.
    """
    at_bound = alpha >= C_old
    alpha = alpha * (C_new / C_old)
    alpha[at_bound] = C_new  # exactly at the bound: rounding must not make it free
    flipped = y_new != y_old
    if flipped.any():
        alpha[flipped] = np.where(y_new[flipped] * scores[flipped] < 1.0, C_new, 0.0)
        restore_equality(alpha, y_new)
    grad = y_new * (K @ (alpha * y_new)) - 1.0
    return alpha, grad


def restore_equality(alpha, y):
    """Make a start that is in its box feasible for ``yᵀα = 0``, in place: the side of the
    larger sum (``y = +1`` or ``−1``) scaled down to the other's (the box still holds)."""
    positive = y > 0
    s_pos, s_neg = alpha[positive].sum(), alpha[~positive].sum()
    if s_pos > s_neg:
        alpha[positive] *= s_neg / s_pos
    elif s_neg > s_pos:
        alpha[~positive] *= s_pos / s_neg
    return alpha


def dual_objective(alpha, grad):
    """``½αᵀQα − 1ᵀα`` from ``α`` and ``G = Qα − 1`` (``= ½ Σ α_i (G_i − 1)``)."""
    return 0.5 * float(alpha @ (grad - 1.0))
