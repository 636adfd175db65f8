"""Kernels and low-rank kernel factors.

Every solver in weakcvx works with a factor ``R`` of the kernel, ``K ≈ R Rᵀ``, so that the label
kernel of a labeling ``y`` is ``Q_y = diag(y) R Rᵀ diag(y)`` and is never stored as an n×n matrix
per label vector (docs/design.rst §1). For the linear kernel the factor is the feature matrix itself
(sparse kept sparse).
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from sklearn.utils.extmath import row_norms

from ._validation import check_dense_size, check_real

__all__ = [
    "KERNELS",
    "linear",
    "rbf",
    "polynomial",
    "resolve_gamma",
    "mean_squared_spread",
    "kernel_function",
    "factor",
    "pivoted_cholesky",
    "pivoted_cholesky_blocked",
    "nystrom",
]

KERNELS = ("linear", "rbf", "poly", "precomputed")

#: Above this many points, :func:`factor` uses pivoted Cholesky instead of an eigendecomposition.
EXACT_FACTOR_LIMIT = 3000
#: Rows of a distance matrix computed at a time (temporaries of ``_DIST_BLOCK × m``).
_DIST_BLOCK = 256
#: ``‖mean‖² / mean squared spread`` of the rows above which :func:`_sq_dists` centres them.
_CENTRE_RATIO = 1e3
#: Rows of a pivoted-Cholesky factor allocated at a time (the storage doubles as it fills).
_CHOLESKY_CHUNK = 256


def _check_data(X, name="X", n_features=None):
    """``X`` as a 2-D float64 array (sparse kept sparse, as CSR) without NaN/inf, with a
    ValueError naming ``name`` otherwise; ``n_features`` checks the column count."""
    check_real(X, name)
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=float)
        values = X.data
    else:
        try:
            X = np.asarray(X, dtype=float)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"`{name}` must be a numeric array of shape (n_samples, "
                             f"n_features). Got {type(X).__name__}: {exc}") from exc
        values = X
    if X.ndim != 2:
        raise ValueError(f"`{name}` must be 2-D, of shape (n_samples, n_features) (one row per "
                         f"point; reshape(-1, 1) for a single feature). Got shape {X.shape} "
                         "instead.")
    if not np.all(np.isfinite(values)):
        raise ValueError(f"`{name}` must contain only finite values. Got NaN or inf.")
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(f"`{name}` must have {n_features} features (columns), as X. Got shape "
                         f"{X.shape} instead.")
    return X


def _check_rank(rank, name="rank"):
    """``rank`` as a positive int, with a ValueError naming ``name`` otherwise."""
    if (isinstance(rank, (bool, np.bool_)) or not isinstance(rank, numbers.Integral)
            or rank < 1):
        raise ValueError(f"`{name}` must be a positive integer. Got {rank!r} instead.")
    return int(rank)


def _check_real_number(value, name):
    if (isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real)
            or not np.isfinite(value)):
        raise ValueError(f"`{name}` must be a finite real number. Got {value!r} instead.")
    return float(value)


def _check_pair(X, Y):
    """:func:`_check_data` for ``X`` and for ``Y`` (``X`` itself when None)."""
    X = _check_data(X, "X")
    return X, (X if Y is None else _check_data(Y, "Y", n_features=X.shape[1]))


def _sq_dists(X, Y):
    """``‖x_i − y_j‖²`` in one n × m array, built in place (no n × m temporaries, so that the
    memory budget counts what is really allocated).

    Rows far from the origin are first moved by the mean row of ``Y`` (distances do not
    change): the expansion ``‖x‖² + ‖y‖² − 2 xᵀy`` loses every digit the rows share with one
    another (``X + 1e8``: every kernel entry came out 1 instead of ``exp(−γ‖x − y‖²)``). Only
    when that mean's squared norm is over ``_CENTRE_RATIO`` times the rows' mean squared
    distance to it (more than three digits lost), so that data near the origin (standardized
    features) are not copied."""
    check_dense_size(X.shape[0], Y.shape[0], "distance matrix")
    same = Y is X
    if sp.issparse(X) and sp.issparse(Y) and _near_origin(Y):
        return _sparse_sq_dists(X, X if same else Y)
    X = X.toarray() if sp.issparse(X) else X
    Y = X if same else (Y.toarray() if sp.issparse(Y) else Y)
    if Y.shape[0]:
        centre = Y.mean(axis=0)
        spread = _centred_sum_of_squares(Y, centre) / Y.shape[0]
        if float(centre @ centre) > _CENTRE_RATIO * spread:
            X = X - centre
            Y = X if same else Y - centre
    XX = np.einsum("ij,ij->i", X, X)[:, None]
    YY = np.einsum("ij,ij->i", Y, Y)[None, :]
    return _distances_from_products(X @ Y.T, XX, YY)


def _distances_from_products(D, XX, YY):
    """``‖x_i‖² + ‖y_j‖² − 2 x_i·y_j`` in place of the products ``D``, clipped at 0, by blocks
    of rows: the sum is formed first, so that k(x, x') = k(x', x) holds exactly
    (check_kernel_matrix then keeps K without a symmetric copy), and the temporaries are
    block × m, not n × m."""
    for i in range(0, D.shape[0], _DIST_BLOCK):
        rows = D[i:i + _DIST_BLOCK]
        total = XX[i:i + _DIST_BLOCK] + YY
        rows *= -2.0
        rows += total
    np.maximum(D, 0.0, out=D)
    return D


def _near_origin(Y):
    """Whether the sparse rows ``Y`` lie near the origin for the expansion of
    :func:`_sq_dists`: the squared norm of their mean at most ``_CENTRE_RATIO`` times their
    mean squared distance to it (text rows: about 0.1). Rows farther out are centred on dense
    copies, as dense rows are."""
    if Y.shape[0] == 0:
        return True
    mean = np.asarray(Y.sum(axis=0)).ravel() / Y.shape[0]
    return float(mean @ mean) <= _CENTRE_RATIO * mean_squared_spread(Y)


def _sparse_sq_dists(X, Y):
    """:func:`_sq_dists` of sparse rows ``X`` and ``Y`` (``Y is X`` for the training kernel),
    from the sparse product ``X Yᵀ`` and the rows' squared norms: only the n × m result is
    dense, never a dense copy of the rows (3,000 tf-idf rows of 20,000 words: 72 MB instead of
    480 MB each)."""
    same = Y is X
    X = _canonical(X)
    Y = X if same else _canonical(Y)
    XX = row_norms(X, squared=True)[:, None]
    YY = XX.T if same else row_norms(Y, squared=True)[None, :]
    D = _distances_from_products((X @ Y.T).toarray(), XX, YY)
    if same:  # ‖x − x‖² = 0 (the expansion leaves round-off there)
        np.fill_diagonal(D, 0.0)
    return D


def _canonical(X):
    """CSR ``X`` with sorted indices and no duplicate entries (a copy only when it has
    either): the product ``X Xᵀ`` then sums each entry's terms in the same order as its
    transpose's, so the kernel is symmetric to the bit, and the rows' squared norms are
    the sums of their stored entries' squares."""
    X = sp.csr_matrix(X)
    if X.has_canonical_format:
        return X
    X = X.copy()
    X.sum_duplicates()
    return X


def _sparse_sum_of_squares(X):
    """``Σ_ij x_ij²`` of a sparse ``X``: canonical CSR / CSC from the stored entries
    themselves, other CSR (unsorted, duplicate entries) by blocks of rows; never a copy of
    the whole of ``X``."""
    if getattr(X, "has_canonical_format", False):
        return float(X.data @ X.data)
    if X.format == "csr":
        return sum(float(X[i:i + 4096].multiply(X[i:i + 4096]).sum())
                   for i in range(0, X.shape[0], 4096))
    return float(X.multiply(X).sum())


def _centred_sum_of_squares(X, mean):
    """``Σ_i ‖x_i − mean‖²`` of a dense ``X``, centred by blocks of rows (no copy of ``X``,
    and a large common offset does not cancel the result away)."""
    total = 0.0
    for i in range(0, X.shape[0], _DIST_BLOCK):
        centred = X[i:i + _DIST_BLOCK] - mean
        total += float(np.einsum("ij,ij->", centred, centred))
    return total


def mean_squared_spread(X):
    r"""Mean squared distance of the rows of ``X`` to their mean,
    :math:`\frac1n \sum_i \|x_i - \bar x\|^2 = \frac1n \sum_i \|x_i\|^2 - \|\bar x\|^2`:
    the mean diagonal of the centred linear kernel (sparse ``X`` stays sparse; CSR and
    canonical CSC are not copied whole; dense rows are centred by blocks).

    Examples
    --------
    >>> import numpy as np
    >>> float(mean_squared_spread(np.array([[0.0, 0.0], [2.0, 0.0]])))
    1.0
    """
    if sp.issparse(X):
        mean = np.asarray(X.sum(axis=0)).ravel() / X.shape[0]  # X.mean scales a copy of X
        return max(_sparse_sum_of_squares(X) / X.shape[0] - float(mean @ mean), 0.0)
    X = np.asarray(X, dtype=float)
    return _centred_sum_of_squares(X, X.mean(axis=0)) / X.shape[0]


def _entry_variance(X):
    """Variance of all the entries of ``X``, scikit-learn's ``X.var()`` (sparse without a
    dense copy)."""
    size = X.shape[0] * X.shape[1]
    if sp.issparse(X):
        mean = float(X.sum()) / size
        return max(_sparse_sum_of_squares(X) / size - mean * mean, 0.0)
    return _centred_sum_of_squares(X, float(X.mean())) / size


def _check_spread(spread, gamma):
    """A ValueError naming ``X`` when its spread overflows float64 (a width of 0 would follow)."""
    if not np.isfinite(spread):
        raise ValueError(f"`X` has entries too large for gamma={gamma!r}: the spread of its rows "
                         "overflows float64 (inf). Scale the features (e.g. StandardScaler) or "
                         "give gamma as a positive number.")


def resolve_gamma(X, gamma="mean_distance"):
    r"""Resolve an RBF width ``gamma`` from the data.

    Both data-driven widths are exact and cost one pass over ``X`` (O(nnz) for sparse ``X``,
    no distance matrix, no subsample):
    :math:`\frac{1}{n(n-1)} \sum_{i \ne j} \|x_i - x_j\|^2 = \frac{2n}{n-1}\, s^2` with
    :math:`s^2` the mean squared distance to the mean (:func:`mean_squared_spread`).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    gamma : {"mean_distance", "scale", "wide"} or float
        ``"mean_distance"``: ``1 / mean_{i≠j} ‖x_i − x_j‖²`` (the WellSVM papers' choice);
        ``"scale"``: scikit-learn's ``1 / (n_features · Var(X))`` over all entries of ``X``
        (for standardized features about 2 / mean squared distance);
        ``"wide"``: ``1 / (4 · mean squared distance)``, a kernel four times wider than
        ``"mean_distance"`` (for clustering, where a narrow kernel splits off local structure);
        a positive number is returned unchanged.

    Returns
    -------
    float
        1.0 when the data have no spread (fewer than two rows, or all rows equal).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0]])
    >>> resolve_gamma(X)   # mean squared distance over pairs i != j is 1
    1.0
    >>> resolve_gamma(X, "scale")   # 1 / (1 feature x variance 1/4)
    4.0
    """
    if isinstance(gamma, numbers.Real) and not isinstance(gamma, bool):
        if not np.isfinite(gamma) or gamma <= 0:
            raise ValueError(f"`gamma` must be a positive finite number. Got {gamma!r} instead.")
        return float(gamma)
    if gamma not in ("mean_distance", "scale", "wide"):
        raise ValueError(
            f"`gamma` must be 'mean_distance', 'scale', 'wide' or a positive number. Got "
            f"{gamma!r} instead."
        )
    if X is None:
        raise ValueError(f"`X` is needed to resolve gamma={gamma!r} from the data (or give a "
                         "positive number). Got X=None.")
    X = _check_data(X)
    n = X.shape[0]
    if gamma == "scale":
        var = _entry_variance(X) if X.size else 0.0
        _check_spread(var, gamma)
        return float(1.0 / (X.shape[1] * var)) if var > 0 else 1.0
    if n < 2:
        return 1.0
    mean = 2.0 * n / (n - 1) * mean_squared_spread(X)
    _check_spread(mean, gamma)
    if gamma == "wide":
        mean = 4.0 * mean
    return float(1.0 / mean) if mean > 0 else 1.0


def linear(X, Y=None):
    """Linear kernel ``k(x, z) = xᵀz``.

    Examples
    --------
    >>> import numpy as np
    >>> linear(np.eye(2))
    array([[1., 0.],
           [0., 1.]])
    """
    X, Y = _check_pair(X, Y)
    check_dense_size(X.shape[0], Y.shape[0], "linear kernel matrix")
    K = X @ Y.T
    return K.toarray() if sp.issparse(K) else np.asarray(K, dtype=float)


def rbf(X, Y=None, gamma="mean_distance"):
    """Gaussian kernel ``k(x, z) = exp(−γ‖x − z‖²)``; ``gamma`` as in :func:`resolve_gamma`.

    Examples
    --------
    >>> import numpy as np
    >>> K = rbf(np.array([[0.0], [1.0]]), gamma=1.0)
    >>> round(float(K[0, 1]), 4)
    0.3679
    """
    X, Y = _check_pair(X, Y)
    g = resolve_gamma(X, gamma)
    K = _sq_dists(X, Y)
    K *= -g
    return np.exp(K, out=K)


def polynomial(X, Y=None, degree=3, gamma=1.0, coef0=1.0):
    """Polynomial kernel ``k(x, z) = (γ xᵀz + coef0)^degree``.

    Examples
    --------
    >>> import numpy as np
    >>> polynomial(np.array([[1.0]]), degree=2)
    array([[4.]])

    Raises
    ------
    ValueError
        When ``degree`` is not a positive integer (a fractional power of a negative
        ``γ xᵀz + coef0`` is NaN, and not a kernel), ``gamma`` or ``coef0`` is not finite, or
        the kernel overflows float64.
    """
    if isinstance(degree, (bool, np.bool_)) or not isinstance(degree, numbers.Real) \
            or not float(degree).is_integer() or degree < 1:
        raise ValueError(f"`degree` must be a positive integer. Got {degree!r} instead.")
    gamma = _check_real_number(gamma, "gamma")
    coef0 = _check_real_number(coef0, "coef0")
    K = linear(X, Y)
    with np.errstate(over="ignore"):
        K *= gamma
        K += coef0
        K **= int(degree)
    if not np.all(np.isfinite(K)):
        raise ValueError(f"The polynomial kernel (γ xᵀz + coef0)^degree overflows float64 with "
                         f"degree={degree!r}, gamma={gamma!r}, coef0={coef0!r}: scale the "
                         "features or lower `degree`.")
    return K


def kernel_function(kernel="rbf", gamma="mean_distance", degree=3, coef0=1.0, X_fit=None):
    """Return ``k(X, Y)`` for a kernel name, with ``gamma`` resolved once on ``X_fit``.

    The named widths (:func:`resolve_gamma`) serve both kernels: ``exp(−γ‖x − y‖²)`` and
    ``(γ xᵀy + coef0)^degree``, the polynomial kernel's ``γ xᵀy`` of order one on the data as
    the RBF kernel's ``γ‖x − y‖²`` is.

    Returns
    -------
    callable ``(X, Y=None) -> ndarray`` and the resolved gamma (None for linear).

    Examples
    --------
    >>> import numpy as np
    >>> X_fit = np.array([[0.0], [1.0]])
    >>> k, gamma = kernel_function("rbf", X_fit=X_fit)
    >>> gamma   # resolved once, on X_fit: 1 / mean squared distance
    1.0
    >>> round(float(k(np.array([[2.0]]), X_fit)[0, 1]), 4)   # new points keep it: exp(-1)
    0.3679
    >>> kernel_function("linear")[1] is None
    True
    """
    if kernel == "linear":
        return (lambda X, Y=None: linear(X, Y)), None
    if kernel not in ("rbf", "poly"):
        raise ValueError(f"`kernel` must be one of {KERNELS[:3]}. Got {kernel!r} instead.")
    if X_fit is None and isinstance(gamma, str):
        raise ValueError(f"`X_fit` is needed to resolve gamma={gamma!r} from the training "
                         "data (or give a positive number). Got X_fit=None.")
    # the polynomial kernel's γ scales the inner products as the RBF kernel's scales the
    # squared distances: with γ = 1 they grow with the features' count and scale (S3VM, 10%
    # labels, 7 UCI sets: 0.761 against 0.821 with "mean_distance", 10x faster on magic)
    g = resolve_gamma(X_fit, gamma)
    if kernel == "rbf":
        return (lambda X, Y=None: rbf(X, Y, gamma=g)), g
    return (lambda X, Y=None: polynomial(X, Y, degree=degree, gamma=g, coef0=coef0)), g


def pivoted_cholesky(K_diag, K_column, rank, tol=1e-10):
    """Pivoted (partial) Cholesky factor ``R`` (n, r) with ``K ≈ R Rᵀ``.

    Greedy: at each step pivot on the largest remaining diagonal of ``K − R Rᵀ``; stops at
    ``rank`` columns or when the trace of the residual falls below ``tol · trace(K)``. Needs only
    the diagonal and one kernel column per step: O(n r²) time, O(n r) memory. This is the
    readable reference; :func:`pivoted_cholesky_blocked` is the fast path (kernel columns and
    updates by blocks, BLAS-3).

    Parameters
    ----------
    K_diag : ndarray (n,)
    K_column : callable ``j -> K[:, j]``
    rank : int
    tol : float

    Returns
    -------
    ndarray (n, r)

    Examples
    --------
    >>> import numpy as np
    >>> K = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> R = pivoted_cholesky(np.diag(K), lambda j: K[:, j], rank=2)
    >>> np.allclose(R @ R.T, K)
    True
    """
    d = np.array(check_real(K_diag, "K_diag"), dtype=float)
    n = d.shape[0]
    rank = min(_check_rank(rank), n)
    # the factor is stored transposed, (rank, n): row k is column k of R, so the update
    # K[:, j] − R[:, :k] R[j, :k] reads k contiguous rows
    # rows are allocated by chunks as the factor grows: a full-rank request on a kernel of low
    # numerical rank (rank=None above EXACT_FACTOR_LIMIT) must not reserve n × n
    Rt = np.zeros((min(rank, _CHOLESKY_CHUNK), n))
    total = d.sum()
    k = 0
    for k in range(rank):
        j = int(np.argmax(d))
        if d[j] <= tol * max(total, 1e-300) / max(n, 1) or d.sum() <= tol * total:
            break
        if k == Rt.shape[0]:
            Rt = np.vstack([Rt, np.zeros((min(rank - k, Rt.shape[0]), n))])
        col = np.array(K_column(j), dtype=float).ravel()
        if k:
            col -= Rt[:k, j] @ Rt[:k]
        col /= np.sqrt(d[j])
        Rt[k] = col
        d -= col * col
        d[j] = 0.0
        np.maximum(d, 0.0, out=d)
    else:
        k = rank
    return np.ascontiguousarray(Rt[:k].T)


def pivoted_cholesky_blocked(K_diag, K_columns, rank, tol=1e-10, block=64, accept=0.5,
                             return_pivots=False):
    r"""Pivoted Cholesky factor ``R`` (n, r), ``K ≈ R Rᵀ``, with kernel columns by blocks.

    The greedy rule of :func:`pivoted_cholesky` (pivot on the largest residual diagonal), made
    cache-friendly: each round takes the ``block`` points of largest residual diagonal as
    candidates, fetches their kernel columns at once (``K_columns(idx)``, one matrix product
    instead of ``block`` vector products) and brings them up to date with one product
    ``K[:, S] − R R[S]ᵀ``; then pivots greedily *within* the candidates, as long as the best
    candidate's residual diagonal is at least ``accept`` times the largest residual diagonal
    overall (otherwise a fresh block is fetched). Each step is then the greedy step up to the
    factor ``accept``, and the result is exactly the Nyström factor of the chosen pivots P:

    .. math:: R Rᵀ = K_{:,P} K_{P,P}^{-1} K_{P,:}, \qquad K - R Rᵀ \succeq 0 .

    Blocks were chosen for BLAS-3 speed over the column-by-column reference, at the same
    residual trace to a few per cent (Musk2, rank 1000: docs/design.rst §7).

    Parameters
    ----------
    K_diag : ndarray (n,)
    K_columns : callable ``idx -> K[:, idx]`` (n, len(idx)) for an integer array ``idx``
    rank : int
    tol : float
        Stop when the largest residual diagonal is below ``tol · trace(K) / n`` or the residual
        trace below ``tol · trace(K)``.
    block : int
        Candidates fetched per round.
    accept : float in (0, 1]
        Smallest ratio of a pivot's residual diagonal to the largest one (1: exactly greedy,
        up to ties).
    return_pivots : bool
        Also return the pivot indices, in order.

    Returns
    -------
    R : ndarray (n, r), C-contiguous
    pivots : ndarray of int (r,), only with ``return_pivots=True``

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).standard_normal((40, 3))
    >>> K = rbf(X, gamma=0.5)
    >>> R = pivoted_cholesky_blocked(np.ones(40), lambda idx: K[:, idx], rank=40)
    >>> bool(np.allclose(R @ R.T, K, atol=1e-6))
    True
    """
    d = np.array(check_real(K_diag, "K_diag"), dtype=float)
    n = d.shape[0]
    rank = min(_check_rank(rank), n)
    block = _check_rank(block, "block")
    if not 0 < accept <= 1:
        raise ValueError(f"`accept` must lie in (0, 1]. Got {accept!r} instead.")
    Rt = np.zeros((rank, n))
    pivots = np.zeros(rank, dtype=np.int64)
    total = d.sum()
    floor = tol * max(total, 1e-300) / max(n, 1)
    k = 0
    while k < rank:
        dmax = d.max()
        if dmax <= floor or d.sum() <= tol * total:
            break
        m = min(block, rank - k, n)
        S = np.argpartition(-d, m - 1)[:m] if m < n else np.arange(n)
        S = S[np.argsort(-d[S], kind="stable")]
        panel = np.array(K_columns(S), dtype=float).reshape(n, m)
        if k:
            panel -= Rt[:k].T @ Rt[:k, S]
        panel = np.asfortranarray(panel)
        k0 = k
        free = np.ones(m, dtype=bool)
        while k < rank and free.any():
            cand = np.flatnonzero(free)
            i = cand[np.argmax(d[S[cand]])]
            j = S[i]
            if d[j] <= floor or d[j] < accept * d.max():
                break
            # bring the candidate's column up to date with the pivots of this round only
            col = panel[:, i] - Rt[k0:k, j] @ Rt[k0:k] if k > k0 else panel[:, i].copy()
            col /= np.sqrt(d[j])
            Rt[k] = col
            pivots[k] = j
            k += 1
            free[i] = False
            d -= col * col
            d[j] = 0.0
            np.maximum(d, 0.0, out=d)
    R = np.ascontiguousarray(Rt[:k].T)
    return (R, pivots[:k]) if return_pivots else R


def nystrom(X, kernel_fn, rank, random_state=0):
    """Nyström factor with ``rank`` uniformly sampled landmarks: ``R = K_nm K_mm^{-1/2}``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).standard_normal((20, 2))
    >>> nystrom(X, lambda A, B=None: rbf(A, B, gamma=0.5), rank=5).shape[0]
    20
    """
    rank = _check_rank(rank)
    n = X.shape[0]
    rank = min(rank, n)
    idx = np.random.default_rng(random_state).choice(n, rank, replace=False)
    K_nm = kernel_fn(X, X[idx])
    K_mm = K_nm[idx]
    vals, vecs = scipy.linalg.eigh(K_mm)
    keep = vals > 1e-10 * vals.max()
    return np.ascontiguousarray(K_nm @ (vecs[:, keep] / np.sqrt(vals[keep])))


def factor(K, rank=None, tol=1e-10):
    """Factor a PSD kernel matrix: ``K ≈ R Rᵀ``.

    Exact eigen-factor ``R = V diag(√λ)`` (eigenvalues below ``tol · λ_max`` dropped) for
    ``n ≤ EXACT_FACTOR_LIMIT`` and ``rank=None``; pivoted Cholesky with at most ``rank``
    columns otherwise (:func:`pivoted_cholesky_blocked`; ``rank=None``: to the numerical rank,
    ``tol``).

    Parameters
    ----------
    K : ndarray (n, n), symmetric positive semi-definite
    rank : int or None
    tol : float

    Returns
    -------
    R : ndarray (n, r), C-contiguous

    Raises
    ------
    ValueError
        If ``K`` is not square, not symmetric, not finite, or clearly indefinite (an eigenvalue
        below ``−1e-6 · λ_max``).

    Examples
    --------
    >>> import numpy as np
    >>> K = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> R = factor(K)
    >>> np.allclose(R @ R.T, K)
    True
    """
    K = check_kernel_matrix(K)
    if rank is not None:
        rank = _check_rank(rank)
    n = K.shape[0]
    if rank is None and n <= EXACT_FACTOR_LIMIT:
        vals, vecs = scipy.linalg.eigh(K)
        lmax = max(vals.max(), 0.0)
        if vals.min() < -1e-6 * max(lmax, 1.0):
            raise ValueError(
                "`kernel` must be positive semi-definite. Got a matrix with eigenvalue "
                f"{vals.min():.3g} (largest {lmax:.3g}); use a valid kernel or add a multiple of "
                "the identity."
            )
        keep = vals > tol * max(lmax, 1e-300)
        R = vecs[:, keep] * np.sqrt(vals[keep])
        return np.ascontiguousarray(R[:, ::-1])
    rank = n if rank is None else rank
    # the blocked fast path (its reference is pivoted_cholesky): 8.2 s against 38 s for the
    # factor of a 6,000-row RBF kernel to its numerical rank (5,445 columns), one thread
    return pivoted_cholesky_blocked(np.diag(K), lambda idx: K[:, idx], rank, tol=tol)


def check_psd(K, name="kernel"):
    """Refuse a clearly indefinite kernel matrix, with the message of :func:`factor`, without an
    eigendecomposition when ``K`` passes.

    ``K + δI`` with ``δ = 1e-6 · max(λ_max, 1)`` has a Cholesky factor exactly when the smallest
    eigenvalue of ``K`` is above ``−δ`` (:func:`factor`'s rule); the rounding error of the
    factorisation, about ``n·ε·λ_max``, is far below ``δ``. Only a failed factorisation pays for
    the eigenvalue named in the message (about ten times cheaper than ``eigh``:
    docs/design.rst §7).

    Examples
    --------
    >>> import numpy as np
    >>> check_psd(np.array([[1.0, 2.0], [2.0, 1.0]]))
    Traceback (most recent call last):
    ...
    ValueError: `kernel` must be positive semi-definite. Got a matrix with eigenvalue -1 ...
    """
    n = K.shape[0]
    if n == 0:
        return
    if n <= 200:
        lmax = float(np.linalg.eigvalsh(K)[-1])
    else:
        from scipy.sparse.linalg import eigsh
        lmax = float(eigsh(K, k=1, which="LA", return_eigenvectors=False, tol=1e-3)[0])
    delta = 1e-6 * max(lmax, 1.0)
    shifted = K.copy()  # the one n × n copy of the check (see PSD_CHECK_COPIES)
    shifted.flat[::n + 1] += delta
    try:
        # the transpose of the symmetric C-ordered copy is Fortran-ordered: LAPACK factors it
        # in place (a C-ordered argument would be copied once more)
        scipy.linalg.cholesky(shifted.T, lower=True, check_finite=False, overwrite_a=True)
        return
    except np.linalg.LinAlgError:
        pass
    finally:
        del shifted
    vals = scipy.linalg.eigvalsh(K)
    lmax = max(vals.max(), 0.0)
    if vals.min() < -1e-6 * max(lmax, 1.0):
        raise ValueError(
            f"`{name}` must be positive semi-definite. Got a matrix with eigenvalue "
            f"{vals.min():.3g} (largest {lmax:.3g}); use a valid kernel or add a multiple of "
            "the identity."
        )


#: A kernel whose smallest eigenvalue is below ``-PSD_RTOL · max(λ_max, 1)`` is refused: the
#: SVM dual would not be concave. Rounding error of a valid kernel stays far below (~1e-15 n).
PSD_RTOL = 1e-6


def _max_asymmetry(K, block=128):
    """``max |K − Kᵀ|`` by blocks of rows: no n × n temporary."""
    asym = 0.0
    for i in range(0, K.shape[0], block):
        asym = max(asym, float(np.max(np.abs(K[i:i + block] - K[:, i:i + block].T),
                                      initial=0.0)))
    return asym


def check_kernel_matrix(K, name="kernel", psd=False):
    """Validate a precomputed kernel matrix: square, finite, symmetric (to 1e-8 relative) and,
    with ``psd=True``, positive semi-definite up to ``PSD_RTOL`` (a nearly-PSD matrix from
    rounding passes; a clearly indefinite one is refused with its smallest eigenvalue).

    Examples
    --------
    >>> import numpy as np
    >>> check_kernel_matrix(np.array([[1.0, 0.5], [0.5, 1.0]]), psd=True)
    array([[1. , 0.5],
           [0.5, 1. ]])
    """
    if sp.issparse(K):
        raise TypeError(f"`{name}` must be a dense (n, n) array: a kernel matrix is dense (use "
                        f"`features=` for a sparse feature matrix). Got a sparse "
                        f"{type(K).__name__} of shape {K.shape} instead.")
    check_real(K, name)
    try:
        K = np.asarray(K, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"`{name}` must be a numeric (n, n) matrix. Got "
                         f"{type(K).__name__}: {exc}") from exc
    if K.ndim != 2 or K.shape[0] != K.shape[1] or K.shape[0] == 0:
        raise ValueError(f"`{name}` must be a square (n, n) matrix with n >= 1. Got shape "
                         f"{K.shape} instead.")
    if not np.all(np.isfinite(K)):
        raise ValueError(f"`{name}` must contain only finite values. Got NaN or inf.")
    scale = max(float(K.max()), -float(K.min()), 1e-300) if K.size else 1e-300
    asym = _max_asymmetry(K)
    if asym > 1e-8 * scale:
        raise ValueError(
            f"`{name}` must be symmetric. Got max |K - K.T| = {asym:.3g} (max |K| = {scale:.3g})."
        )
    if asym > 0:  # a symmetric copy; an exactly symmetric K is used as it is
        K = K + K.T
        K *= 0.5
    if psd and K.shape[0] > 0:
        n = K.shape[0]
        lmin = scipy.linalg.eigvalsh(K, subset_by_index=[0, 0])[0]
        lmax = scipy.linalg.eigvalsh(K, subset_by_index=[n - 1, n - 1])[0]
        if lmin < -PSD_RTOL * max(lmax, 1.0):
            raise ValueError(
                f"`{name}` must be positive semi-definite (a valid kernel). Got a matrix with "
                f"eigenvalue {lmin:.3g} (largest {lmax:.3g}); use a valid kernel or add "
                f"{-lmin:.3g} times the identity.")
    return K
