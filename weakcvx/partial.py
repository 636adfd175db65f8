r"""Learning with partial labels (Nguyen & Caruana 2008): the PL-SVM loss, PL-Pegasos and a CCCP
reference (docs/design.rst §3.8).

Every training point ``x_i`` comes with a candidate set ``Y_i`` of classes, one of which is the
true class (``|Y_i| = 1``: a fully labeled point). With Crammer–Singer scores
``s_{ic} = w_c · φ(x_i)`` the PL-SVM minimises

.. math::

    P(W) = \frac{\lambda}{2} \sum_c \|w_c\|^2
         + \frac1n \sum_i \max\Bigl(0,\ 1 - \bigl(\max_{c \in Y_i} s_{ic}
                                                 - \max_{c \notin Y_i} s_{ic}\bigr)\Bigr).

The loss of a point is a difference of convex functions of ``W``,
``max(max_{Y_i} s, 1 + max_{∉Y_i} s) − max_{Y_i} s``, and is convex only when ``|Y_i| = 1`` (then
it is the Crammer–Singer hinge). The paper calls the problem convex; it is not, so both solvers
here find stationary points:

- :func:`pl_pegasos_linear` / :func:`pl_pegasos_kernel`: PL-Pegasos (the paper's Algorithm 1,
  mini-batch, vectorised over the batch), fast;
- :func:`pl_cccp`: the concave-convex procedure in CVXPY, the slow readable reference. It fixes
  ``y⁺_i = argmax_{c ∈ Y_i} s_{ic}`` at the current ``W`` and solves the convex Crammer–Singer
  problem in which point ``i`` has label ``y⁺_i`` against the classes outside ``Y_i``; its loss
  ``max(0, 1 − s_{i y⁺} + max_{c∉Y_i} s_{ic})`` majorises the PL loss and touches it at the
  current ``W``, so the objective never increases.

A point whose candidate set holds every class carries no information and has loss 0.
"""

from __future__ import annotations

import functools
import inspect
import logging
import time

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from ._validation import check_integer, warn
from .result import SolveResult, SolverError

__all__ = [
    "check_candidates",
    "check_informative",
    "pl_losses",
    "pl_objective",
    "pl_pegasos_linear",
    "pl_pegasos_kernel",
    "pl_cccp",
]

logger = logging.getLogger("weakcvx")


def check_candidates(candidates, n_samples=None, n_classes=None, name="candidates"):
    """Validate a candidate matrix: boolean-like, 2-D, one row per point, no empty row.

    Parameters
    ----------
    candidates : array-like of shape (n_samples, n_classes)
        ``True`` (or 1) where the class is possible for the point.
    n_samples, n_classes : int or None
        Expected shape, when known.

    Returns
    -------
    ndarray of bool, shape (n_samples, n_classes)

    Examples
    --------
    >>> check_candidates([[1, 0, 0], [1, 1, 0]]).sum(axis=1).tolist()
    [1, 2]
    """
    if sp.issparse(candidates):
        candidates = candidates.toarray()
    C = np.asarray(candidates)
    if C.ndim != 2:
        raise ValueError(f"`{name}` must be a 2-D boolean matrix (n_samples, n_classes). Got "
                         f"shape {C.shape} instead.")
    if C.dtype == bool:
        pass
    elif C.dtype.kind in "iuf" and np.all(np.isin(C, (0, 1))):
        C = C.astype(bool)
    else:
        raise ValueError(f"`{name}` must be boolean-like (bool, or numbers 0/1), one column per "
                         f"class. Got dtype {C.dtype}"
                         + (" with values other than 0 and 1" if C.dtype.kind in "iuf" else "")
                         + ". Rows listing class labels (e.g. [0, 2]) are not an indicator "
                         "matrix; give candidate sets as Python sets of labels instead.")
    if n_samples is not None and C.shape[0] != n_samples:
        raise ValueError(f"`{name}` must have one row per row of X ({n_samples}). Got "
                         f"{C.shape[0]} rows instead.")
    if n_classes is not None and C.shape[1] != n_classes:
        raise ValueError(f"`{name}` must have one column per class ({n_classes}). Got "
                         f"{C.shape[1]} columns instead.")
    if C.shape[1] < 2:
        raise ValueError(f"`{name}` must have at least two columns (classes). Got "
                         f"{C.shape[1]} instead.")
    empty = np.flatnonzero(~C.any(axis=1))
    if empty.size:
        raise ValueError(f"`{name}` must have at least one True per row (the true class is a "
                         f"candidate). Got {empty.size} all-False rows, the first at row "
                         f"{int(empty[0])}.")
    return C


def check_informative(C, name="candidates"):
    """Refuse a candidate matrix whose rows are all the same set: it carries no information.

    With the same candidate set ``S`` on every point, the PL loss only asks that some class of
    ``S`` beat every class outside it: nothing tells the classes of ``S`` apart, and the classes
    outside ``S`` never occur. (``S`` = all classes: every loss is 0 and ``W = 0`` is optimal;
    ``|S| = 1``: a single class.) The usual cause is a list of label pairs such as
    ``[[0, 1]] * n`` read as a 0/1 indicator matrix.

    Parameters
    ----------
    C : bool ndarray of shape (n_samples, n_classes)
        Output of :func:`check_candidates`.
    name : str
        Argument name used in the error message.

    Raises
    ------
    ValueError
        If every row of ``C`` is the same set.

    Examples
    --------
    >>> import numpy as np
    >>> check_informative(np.array([[True, False], [True, True]])).shape
    (2, 2)
    """
    if C.shape[0] and np.all(C == C[0]):
        labels = np.flatnonzero(C[0]).tolist()
        raise ValueError(
            f"`{name}` carry no information: every row has the same candidate set (columns "
            f"{labels} of {C.shape[1]}). `{name}` is read as a boolean indicator matrix, one "
            "column per class; if the rows list class labels (e.g. [[0, 1]] * n), give a list "
            "of Python sets of labels instead, e.g. [{0, 1}, {1}, ...].")
    return C


def _best_pair(S, C):
    """``y⁺ = argmax_{c ∈ Y_i} s_ic``, ``y⁻ = argmax_{c ∉ Y_i} s_ic`` and the PL margin
    ``s_{iy⁺} − s_{iy⁻}`` (+inf when every class is a candidate)."""
    rows = np.arange(S.shape[0])
    S_in = np.where(C, S, -np.inf)
    S_out = np.where(C, -np.inf, S)
    y_plus = np.argmax(S_in, axis=1)
    y_minus = np.argmax(S_out, axis=1)
    margin = S_in[rows, y_plus] - S_out[rows, y_minus]
    return y_plus, y_minus, margin


def pl_losses(scores, candidates):
    r"""PL hinge loss of every point, ``max(0, 1 − (max_{c∈Y_i} s_ic − max_{c∉Y_i} s_ic))``
    (Nguyen & Caruana 2008, §2.2; the Crammer–Singer hinge when ``|Y_i| = 1``).

    Parameters
    ----------
    scores : ndarray (n, k)
    candidates : bool ndarray (n, k)

    Returns
    -------
    ndarray (n,)

    Examples
    --------
    >>> import numpy as np
    >>> pl_losses(np.array([[2.0, 1.5, 0.0]]), np.array([[True, True, False]])).tolist()
    [0.0]
    """
    _, _, margin = _best_pair(np.asarray(scores, dtype=float), candidates)
    return np.maximum(0.0, 1.0 - margin)


def pl_objective(scores, candidates, lam, sq_norm):
    r"""``P(W) = λ/2 ‖W‖² + (1/n) Σ_i loss_i`` from the scores ``S = F Wᵀ`` (or ``K B``) and
    ``‖W‖²`` (``Σ_c ‖w_c‖²``, or ``tr(Bᵀ K B)`` in the kernel form).

    Examples
    --------
    >>> import numpy as np
    >>> pl_objective(np.zeros((2, 2)), np.eye(2, dtype=bool), lam=1.0, sq_norm=0.0)
    1.0
    """
    return 0.5 * lam * float(sq_norm) + float(np.mean(pl_losses(scores, candidates)))


def _check_lam(lam):
    if not np.isfinite(lam) or lam <= 0:
        raise ValueError(f"`lam` must be a positive finite number. Got {lam!r} instead.")


def _refuse_overflow(pegasos):
    """Run a PL-Pegasos function with float overflow raised, and report it as a ValueError
    naming ``lam``: the first step is ``η_1 = 1/λ``, so a tiny ``lam`` (1e-300) overflows
    ``‖W‖`` and the projection then returned the all-zero model without a word."""
    signature = inspect.signature(pegasos)

    @functools.wraps(pegasos)
    def run(*args, **kwargs):
        with np.errstate(over="raise", invalid="raise"):
            try:
                return pegasos(*args, **kwargs)
            except FloatingPointError as exc:
                bound = signature.bind(*args, **kwargs)
                bound.apply_defaults()
                lam = bound.arguments["lam"]
                raise ValueError(f"`lam` is too small for PL-Pegasos on these features: its "
                                 f"steps 1/(lam·t) overflow float64 ({exc}). Use a larger "
                                 f"`lam` (the measured default is 1e-2) or scale the features. "
                                 f"Got lam={lam!r} instead.") from exc
    return run


def _n_epochs(n, batch_size, max_iter, min_steps):
    """Epochs to run: ``max_iter``, or more when that gives fewer than ``min_steps`` steps.

    PL-Pegasos converges as O(1/(λT)) in the number of steps T, not of epochs: 20 epochs of
    batches of 64 are 40 steps on 105 points, too few to leave the huge first steps
    (``η_1 = 1/λ``) behind."""
    steps_per_epoch = int(np.ceil(n / batch_size))
    return max(int(max_iter), int(np.ceil(min_steps / steps_per_epoch))), steps_per_epoch


#: Most epoch lines ``verbose`` logs in one PL-Pegasos run: ``min_steps`` makes small data sets
#: run hundreds of epochs (1,000 on 40 points), each line an extra pass over the data.
LOGGED_EPOCHS = 20


def _logs_epoch(t, steps_per_epoch, n_epochs):
    """Whether step ``t`` ends an epoch that ``verbose`` logs: every epoch up to
    :data:`LOGGED_EPOCHS` of them, else evenly spaced ones and the last."""
    if t % steps_per_epoch:
        return False
    epoch = t // steps_per_epoch
    every = int(np.ceil(n_epochs / LOGGED_EPOCHS))
    return epoch % every == 0 or epoch == n_epochs


def _check_pegasos_budget(max_iter, batch_size, min_steps):
    for name, value, low in (("max_iter", max_iter, 1), ("batch_size", batch_size, 1),
                             ("min_steps", min_steps, 0)):
        check_integer(value, name, low)


def _warn_if_worse_than_zero(value, candidates, solver, n_steps, n_epochs):
    """ConvergenceWarning when ``P(W) > P(0)``: the zero model (loss 1 on every informative
    point, 0 on a point whose candidate set holds every class) is better than the answer."""
    zero_value = float(np.mean(~candidates.all(axis=1)))
    if value > zero_value:
        warn(
            f"solver {solver!r} stopped with status 'max_iter' after {n_steps} steps "
            f"({n_epochs} epochs) at objective P(W) = {value:.6g}, above that of the zero model "
            f"P(0) = {zero_value:.6g}: not converged. Raise the number of epochs (`max_iter`) "
            f"or steps (`min_steps`), or standardize the features (PartialLabelSVM's "
            f"`standardize=True`); the step 1/(λt) scales with max ||x||^2 / λ.",
            ConvergenceWarning)


def _steps(n, batch_size, max_iter, rng):
    """Mini-batches of ``max_iter`` epochs: each epoch a random permutation cut into batches."""
    for epoch in range(max_iter):
        order = rng.permutation(n)
        for start in range(0, n, batch_size):
            yield epoch, order[start:start + batch_size]


def _batch_direction(S, C, warm):
    r"""The step of a batch with scores ``S`` (b, k) and candidates ``C`` (b, k).

    Returns ``(D, margin, violated)``: ``violated`` the indices of the points with margin
    below 1, ``D`` (len(violated), k) their rows of the direction, so that the step adds
    ``Σ_i D_ic φ(x_i)`` to ``w_c``. The PL loss (``warm=False``): ``D_i = e_{y⁺_i} − e_{y⁻_i}``,
    margin ``s_{iy⁺} − s_{iy⁻}``. The warm-up loss (``warm=True``): the candidates' mean score
    in place of their maximum, ``D_i = (1/|Y_i|) Σ_{c∈Y_i} e_c − e_{y⁻_i}``, margin
    ``mean_{c∈Y_i} s_ic − s_{iy⁻}``. ``⟨D_i, s_i⟩`` is the margin in both."""
    y_plus, y_minus, margin = _best_pair(S, C)
    rows = np.arange(S.shape[0])
    if warm:
        n_in = C.sum(axis=1)
        margin = margin - S[rows, y_plus] + np.where(C, S, 0.0).sum(axis=1) / n_in
    violated = np.flatnonzero(margin < 1.0)  # never a point with every class a candidate
    D = np.zeros((violated.size, S.shape[1]))
    at = np.arange(violated.size)
    if warm:
        D[:] = C[violated] / n_in[violated, None]
    else:
        D[at, y_plus[violated]] = 1.0
    D[at, y_minus[violated]] -= 1.0  # y⁻ ∉ Y_i, so it never meets a candidate's entry
    return D, margin, violated


def _check_warmup(warmup):
    if not 0.0 <= warmup <= 1.0:
        raise ValueError(f"`warmup` must be a fraction of the epochs in [0, 1]. Got "
                         f"{warmup!r} instead.")


@_refuse_overflow
def pl_pegasos_linear(X, candidates, lam=1e-2, max_iter=20, batch_size=64, average=True,
                      min_steps=0, center=None, warmup=0.0, random_state=None, verbose=0):
    r"""PL-Pegasos for the linear kernel (Nguyen & Caruana 2008, Algorithm 1), mini-batch.

    Step ``t`` draws a batch ``A_t`` (epochs of random permutations), sets ``η_t = 1/(λt)`` and

    .. math::

        W_{t+½} = (1 − η_tλ) W_t + \frac{η_t}{|A_t|} \sum_{i ∈ A_t,\ \text{margin}_i < 1}
                  Φ(x_i, y⁺_i) − Φ(x_i, y⁻_i), \qquad
        W_{t+1} = \min\Bigl(1, \frac{1/\sqrt{λ}}{\|W_{t+½}\|}\Bigr) W_{t+½},

    with ``y⁺_i = argmax_{c ∈ Y_i} s_ic`` and ``y⁻_i = argmax_{c ∉ Y_i} s_ic``. Sparse ``X``
    stays sparse: the batch step is the sparse product ``A X_batch``.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix (n, d)
    candidates : bool ndarray (n, k)
    lam : float
        λ > 0.
    max_iter : int
        Epochs (passes over the data).
    batch_size : int
    average : bool
        Return the average of the iterates of the second half of the run (suffix averaging)
        instead of the last iterate; with few epochs and small λ the last iterate is noisy.
    min_steps : int
        Run more than ``max_iter`` epochs when they hold fewer than ``min_steps`` steps
        (small data sets: ``ceil(n / batch_size)`` steps per epoch).
    center : ndarray (d,) or None
        Train on ``X − 1 centerᵀ`` without forming it, so that sparse ``X`` is centered and
        stays sparse: scores ``X_b Wᵀ − 1 (W center)ᵀ``, steps ``A X_b − (A 1) centerᵀ``.
    warmup : float in [0, 1]
        Fraction of the epochs (the first ones) on the convex upper bound of the PL loss with
        the candidates' mean score in place of their maximum: the step of a violated point is
        ``(1/|Y_i|) Σ_{c∈Y_i} Φ(x_i, c) − Φ(x_i, y⁻_i)`` on the margin
        ``mean_{c∈Y_i} s_ic − s_{iy⁻}``. 0 (the default here) is the paper's algorithm.
    random_state : int, RandomState or None
    verbose : int
        ≥ 1 logs the objective of the last iterate after every epoch, at most
        :data:`LOGGED_EPOCHS` of them evenly spaced (one extra pass each).

    Returns
    -------
    SolveResult
        ``value`` = ``upper_bound`` = ``P(W)`` of the returned ``W``, ``labels`` = ``y⁺`` (the
        disambiguated class of every point), ``extra["coef"]`` = ``W`` (k, d), ``n_iter`` =
        epochs run, ``extra["n_steps"]``.

    Warns
    -----
    ConvergenceWarning
        If ``P(W)`` is above the objective of ``W = 0`` (1 when every candidate set is a proper
        subset of the classes): unscaled features (the steps scale with ``max ‖x‖² / λ``) or too
        few steps.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.1], [0.1, 1.0]])
    >>> C = np.array([[1, 0], [0, 1], [1, 1], [0, 1]], dtype=bool)
    >>> res = pl_pegasos_linear(X, C, lam=0.1, random_state=0)
    >>> res.labels.tolist()
    [0, 1, 0, 1]
    """
    _check_lam(lam)
    _check_pegasos_budget(max_iter, batch_size, min_steps)
    _check_warmup(warmup)
    t0 = time.perf_counter()
    rng = check_random_state(random_state)
    X = X.tocsr() if sp.issparse(X) else np.asarray(X, dtype=float)
    n, d = X.shape
    k = candidates.shape[1]
    radius = 1.0 / np.sqrt(lam)
    center = np.zeros(d) if center is None else np.asarray(center, dtype=float)
    if center.shape != (d,):
        raise ValueError(f"`center` must have one entry per column of X ({d}). Got shape "
                         f"{center.shape} instead.")
    W = np.zeros((k, d))
    W_sum = np.zeros((k, d))
    n_epochs, steps_per_epoch = _n_epochs(n, batch_size, max_iter, min_steps)
    warm_epochs = warmup * n_epochs
    n_steps = n_epochs * steps_per_epoch
    avg_from = n_steps // 2 + 1 if average else n_steps
    history = []
    t = 0
    for epoch, batch in _steps(n, batch_size, n_epochs, rng):
        t += 1
        Xb = X[batch]
        S = np.asarray(Xb @ W.T) - W @ center
        D, _, violated = _batch_direction(S, candidates[batch], epoch < warm_epochs)
        eta = 1.0 / (lam * t)
        W *= 1.0 - eta * lam
        if violated.size:
            step = np.asarray(D.T @ Xb[violated]) - np.outer(D.sum(axis=0), center)
            W += (eta / batch.size) * step
        norm = np.linalg.norm(W)
        if norm > radius:
            W *= radius / norm
        if t >= avg_from:
            W_sum += W
        if verbose and _logs_epoch(t, steps_per_epoch, n_epochs):
            value = pl_objective(np.asarray(X @ W.T) - W @ center, candidates, lam,
                                 np.sum(W * W))
            history.append({"epoch": epoch + 1, "value": value})
            logger.info("PL-Pegasos epoch %d: P(W_t) = %.6g", epoch + 1, value)
    W_out = W_sum / (n_steps - avg_from + 1)
    S = np.asarray(X @ W_out.T) - W_out @ center
    value = pl_objective(S, candidates, lam, np.sum(W_out * W_out))
    y_plus, _, _ = _best_pair(S, candidates)
    _warn_if_worse_than_zero(value, candidates, "PL-Pegasos", n_steps, n_epochs)
    return SolveResult(method="pegasos", value=value, labels=y_plus, upper_bound=value,
                       status="max_iter",
                       message=f"{n_epochs} epochs ({n_steps} steps) of PL-Pegasos",
                       n_iter=n_epochs, seconds=time.perf_counter() - t0, history=history,
                       extra={"coef": W_out, "n_steps": n_steps})


@_refuse_overflow
def pl_pegasos_kernel(K, candidates, lam=1e-2, max_iter=20, batch_size=64, average=True,
                      min_steps=0, warmup=0.0, random_state=None, verbose=0):
    r"""Kernelised PL-Pegasos: ``w_c = Σ_i B_ic φ(x_i)``, one coefficient per (point, class).

    The same steps as :func:`pl_pegasos_linear` written on ``B`` (n, k): scores of a batch are
    ``K[A_t] B``; the step adds ``η_t/|A_t|`` to ``B[i, y⁺_i]`` and subtracts it from
    ``B[i, y⁻_i]`` for violated points. ``‖W‖² = tr(Bᵀ K B)`` is kept up to date in
    ``O(|violated|²)`` per step,

    .. math::

        \|aW + G\|^2 = a^2\|W\|^2 + 2a⟨W, G⟩ + \|G\|^2,\quad
        ⟨W, G⟩ = \frac{η_t}{|A_t|}\sum_{i\ \mathrm{violated}} (s_{iy⁺} − s_{iy⁻}),

    and recomputed exactly after every epoch against rounding drift.

    Parameters
    ----------
    K : ndarray (n, n)
        Training kernel matrix (PSD). Memory is O(n²).
    candidates, lam, max_iter, batch_size, average, min_steps, warmup, random_state, verbose :
        As in :func:`pl_pegasos_linear`.

    Returns
    -------
    SolveResult
        As :func:`pl_pegasos_linear`, with ``extra["dual_coef"]`` = ``B`` (n, k).

    Warns
    -----
    ConvergenceWarning
        If ``P(W) > P(0)``, as in :func:`pl_pegasos_linear`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.1], [0.1, 1.0]])
    >>> C = np.array([[1, 0], [0, 1], [1, 1], [0, 1]], dtype=bool)
    >>> res = pl_pegasos_kernel(X @ X.T, C, lam=0.1, random_state=0)
    >>> res.labels.tolist()
    [0, 1, 0, 1]
    """
    _check_lam(lam)
    _check_pegasos_budget(max_iter, batch_size, min_steps)
    _check_warmup(warmup)
    t0 = time.perf_counter()
    rng = check_random_state(random_state)
    K = np.asarray(K, dtype=float)
    n = K.shape[0]
    k = candidates.shape[1]
    radius = 1.0 / np.sqrt(lam)
    B = np.zeros((n, k))
    B_sum = np.zeros((n, k))
    sq_norm = 0.0
    n_epochs, steps_per_epoch = _n_epochs(n, batch_size, max_iter, min_steps)
    warm_epochs = warmup * n_epochs
    n_steps = n_epochs * steps_per_epoch
    avg_from = n_steps // 2 + 1 if average else n_steps
    history = []
    t = 0
    last_epoch = 0
    for epoch, batch in _steps(n, batch_size, n_epochs, rng):
        if epoch != last_epoch:  # exact ‖W‖² once per epoch
            sq_norm = float(np.sum(B * (K @ B)))
            last_epoch = epoch
        t += 1
        S = K[batch] @ B
        D, margin, viol = _batch_direction(S, candidates[batch], epoch < warm_epochs)
        eta = 1.0 / (lam * t)
        a = 1.0 - eta * lam
        B *= a
        inner = g_norm = 0.0
        if viol.size:
            c = eta / batch.size
            idx = batch[viol]  # distinct: a batch is a slice of a permutation
            B[idx] += c * D
            inner = c * float(np.sum(margin[viol]))  # ⟨W, G⟩ = c Σ_i ⟨D_i, s_i⟩
            # ‖G‖² = c² Σ_ij K_ij ⟨D_i, D_j⟩
            g_norm = c * c * float(np.sum(K[np.ix_(idx, idx)] * (D @ D.T)))
        sq_norm = max(a * a * sq_norm + 2.0 * a * inner + g_norm, 0.0)
        if sq_norm > radius ** 2:
            scale = radius / np.sqrt(sq_norm)
            B *= scale
            sq_norm *= scale * scale
        if t >= avg_from:
            B_sum += B
        if verbose and _logs_epoch(t, steps_per_epoch, n_epochs):
            value = pl_objective(K @ B, candidates, lam, np.sum(B * (K @ B)))
            history.append({"epoch": epoch + 1, "value": value})
            logger.info("PL-Pegasos (kernel) epoch %d: P(W_t) = %.6g", epoch + 1, value)
    B_out = B_sum / (n_steps - avg_from + 1)
    S = K @ B_out
    value = pl_objective(S, candidates, lam, np.sum(B_out * S))
    y_plus, _, _ = _best_pair(S, candidates)
    _warn_if_worse_than_zero(value, candidates, "PL-Pegasos", n_steps, n_epochs)
    return SolveResult(method="pegasos", value=value, labels=y_plus, upper_bound=value,
                       status="max_iter",
                       message=f"{n_epochs} epochs ({n_steps} steps) of kernel PL-Pegasos",
                       n_iter=n_epochs, seconds=time.perf_counter() - t0, history=history,
                       extra={"dual_coef": B_out, "n_steps": n_steps})


def _crammer_singer_fixed(F, y_plus, candidates, lam, solver, solver_options):
    r"""The convex step of CCCP in CVXPY:

    .. math::

        \min_{W, ξ} \frac{λ}{2}\|W\|_F^2 + \frac1n \sum_i ξ_i \quad \text{s.t.}\quad
        ξ_i ≥ 0,\ \ ξ_i ≥ 1 + s_{ic} − s_{iy⁺_i}\ \ ∀ c \notin Y_i, \qquad S = F Wᵀ.

    With singleton candidate sets this is the Crammer–Singer multiclass SVM.
    """
    import cvxpy as cp

    n, d = F.shape
    k = candidates.shape[1]
    W = cp.Variable((k, d), name="W")
    xi = cp.Variable(n, name="xi")
    S = F @ W.T
    s_plus = cp.sum(cp.multiply(S, np.eye(k)[y_plus]), axis=1)
    outside = (~candidates).astype(float)
    margin_violation = cp.multiply(outside, 1 + S - cp.reshape(s_plus, (n, 1), order="C")
                                   @ np.ones((1, k)))
    constraints = [xi >= 0, margin_violation <= cp.reshape(xi, (n, 1), order="C")
                   @ np.ones((1, k))]
    problem = cp.Problem(cp.Minimize(0.5 * lam * cp.sum_squares(W) + cp.sum(xi) / n),
                         constraints)
    try:
        problem.solve(solver=solver, **(solver_options or {}))
    except cp.error.SolverError as exc:
        raise SolverError(solver, "error", str(exc)) from exc
    if problem.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE) or W.value is None:
        raise SolverError(solver, str(problem.status), "Crammer–Singer step of PL-CCCP")
    if problem.status == cp.OPTIMAL_INACCURATE:
        warn(f"solver {solver!r} returned status {problem.status!r} in the "
             "Crammer–Singer step of PL-CCCP", ConvergenceWarning)
    return np.asarray(W.value)


def pl_cccp(F, candidates, lam=1e-2, max_iter=50, tol=1e-6, init=None, solver="CLARABEL",
            solver_options=None, random_state=None, verbose=0):
    r"""Concave-convex procedure for the PL-SVM, each convex step solved in CVXPY (reference).

    Round ``r``: ``y⁺_i = argmax_{c ∈ Y_i} s_ic`` at ``W_r``, then ``W_{r+1}`` solves the convex
    multiclass problem with point ``i`` labeled ``y⁺_i`` against the classes outside ``Y_i``
    (see :func:`_crammer_singer_fixed`). Its loss majorises the PL loss and equals it at
    ``W_r``, so ``P(W_{r+1}) ≤ P(W_r)``; stop when the decrease is below
    ``tol · max(1, P)`` or ``y⁺`` repeats.

    Parameters
    ----------
    F : ndarray (n, d)
        Features; for a kernel pass a factor ``R`` with ``K = R Rᵀ``
        (:func:`weakcvx.kernels.factor`).
    candidates : bool ndarray (n, k)
    lam : float
    max_iter : int
        Maximum CCCP rounds.
    tol : float
    init : ndarray (k, d), or None
        Starting ``W``; ``None`` picks ``y⁺_i`` uniformly among the candidates of point ``i``
        (through ``random_state``).
    solver : str
        CVXPY solver of the convex steps (QP); Clarabel by default.
    solver_options : dict or None
    random_state : int, RandomState or None
    verbose : int

    Returns
    -------
    SolveResult
        ``value`` = ``P(W)`` at the last ``W``, ``labels`` = ``y⁺``, ``extra["coef"]`` = ``W``,
        ``history`` = one record per round.

    Raises
    ------
    SolverError
        If a convex step fails.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.1], [0.1, 1.0]])
    >>> C = np.array([[1, 0], [0, 1], [1, 1], [0, 1]], dtype=bool)
    >>> res = pl_cccp(X, C, lam=0.1, random_state=0)
    >>> res.labels.tolist()
    [0, 1, 0, 1]
    """
    _check_lam(lam)
    t0 = time.perf_counter()
    F = np.asarray(F.toarray() if sp.issparse(F) else F, dtype=float)
    if init is None:
        rng = check_random_state(random_state)
        keys = np.where(candidates, rng.random_sample(candidates.shape), -1.0)
        y_plus = np.argmax(keys, axis=1)
        value = np.inf
    else:
        W = np.asarray(init, dtype=float)
        S = F @ W.T
        y_plus, _, _ = _best_pair(S, candidates)
        value = pl_objective(S, candidates, lam, np.sum(W * W))
    history = []
    status, message = "max_iter", f"stopped after {max_iter} CCCP rounds"
    for r in range(1, max_iter + 1):
        W = _crammer_singer_fixed(F, y_plus, candidates, lam, solver, solver_options)
        S = F @ W.T
        new_value = pl_objective(S, candidates, lam, np.sum(W * W))
        new_plus, _, _ = _best_pair(S, candidates)
        history.append({"round": r, "value": new_value,
                        "n_changed": int(np.sum(new_plus != y_plus))})
        logger.log(logging.INFO if verbose else logging.DEBUG,
                   "PL-CCCP round %d: P(W) = %.8g, %d labels changed", r, new_value,
                   history[-1]["n_changed"])
        decrease = value - new_value
        value = new_value
        if np.array_equal(new_plus, y_plus) or decrease <= tol * max(1.0, abs(value)):
            status, message = "converged", f"converged after {r} CCCP rounds"
            break
        y_plus = new_plus
    else:
        warn(f"solver 'PL-CCCP' stopped after max_iter={max_iter} rounds without "
             "converging", ConvergenceWarning)
    y_plus, _, _ = _best_pair(S, candidates)
    return SolveResult(method="cccp", value=value, labels=y_plus, upper_bound=value,
                       status=status, message=message, n_iter=len(history),
                       seconds=time.perf_counter() - t0, history=history,
                       extra={"coef": W})
