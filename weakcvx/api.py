"""``weakcvx.solve``: one entry point for every method on a :class:`WeakLabelProblem`."""

from __future__ import annotations

import numbers
import time
import warnings

import numpy as np
from scipy.sparse.linalg import eigsh
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from .cutting_plane import label_generation
from .exact import enumerate_optimum
from .local import alternating
from .problem import WeakLabelProblem

__all__ = ["solve", "METHODS"]

METHODS = ("label_generation", "sdp", "exact", "alternating")


def _starts(problem, n_init, random_state):
    """Starting labelings for problems without fixed labels (clustering): the signs of the
    leading principal directions of the kernel factor, then random feasible labelings."""
    rng = check_random_state(random_state)
    starts = []
    if problem.gram is not None:
        # the same directions from the centred kernel H K H = U diag(s²) Uᵀ
        K = problem.gram
        col_mean = K.mean(axis=0)
        Kc = K - col_mean[None, :] - col_mean[:, None] + col_mean.mean()
        vals, vecs = np.linalg.eigh(Kc) if K.shape[0] <= 200 else \
            eigsh(Kc, k=2, which="LA", v0=np.random.default_rng(0).standard_normal(K.shape[0]))
        order = np.argsort(vals)[::-1]
        for k in order[:min(2, n_init)]:
            starts.append(problem.labelset.initial(
                scores=vecs[:, k] * np.sqrt(max(vals[k], 0.0))))
        while len(starts) < n_init:
            starts.append(problem.labelset.initial(random_state=rng))
        return starts[:n_init]
    R = problem.factor
    if problem.kernel is not None or not hasattr(R, "tocsr"):
        R = np.asarray(R)
        Rc = R - R.mean(axis=0)
        # principal directions of the centred factor = leading eigenvectors of the centred kernel
        U, s, _ = np.linalg.svd(Rc, full_matrices=False)
        for k in range(min(2, U.shape[1], n_init)):
            starts.append(problem.labelset.initial(scores=U[:, k] * s[k]))
    while len(starts) < n_init:
        starts.append(problem.labelset.initial(random_state=rng))
    return starts[:n_init]


def solve(problem, method="label_generation", n_init=None, random_state=0, verbose=0, **options):
    """Solve a weak-label problem with one method.

    Parameters
    ----------
    problem : WeakLabelProblem
    method : {"label_generation", "sdp", "exact", "alternating"}
        - ``"label_generation"``: WellSVM's convex-hull relaxation (:func:`weakcvx.cutting_plane.
          label_generation`); ``value`` is the master value over the final working set, a
          certified lower bound when ``oracle="exact"``.
        - ``"sdp"``: the SDP relaxation (:mod:`weakcvx.sdp`), a certified lower bound.
        - ``"exact"``: the MIP optimum (enumeration of B; branch and bound for larger sets).
        - ``"alternating"``: a local optimum; ``value = J(labels)``.
    n_init : int, optional
        Number of starts for label sets that fix no label (clustering): the leading principal
        directions, then random labelings; the run whose rounded labels have the lowest
        ``J(labels)`` is kept (docs/design.rst §3.3: the master value is not a reliable selector
        across runs). Default 10 for such sets, 1 otherwise. With a certified method
        (``oracle="exact"``) ``value`` is the largest certified bound over the starts.
        Only for ``"label_generation"`` and ``"alternating"`` (a ``ValueError`` otherwise).
    random_state : int, RandomState or None
    verbose : int
    **options
        Passed to the method's solver (e.g. ``oracle="exact"``, ``max_iter``, ``tol``).

    Returns
    -------
    SolveResult
        ``value``, ``labels`` (feasible), ``upper_bound = J(labels)``, ``certified``,
        ``seconds``, ``n_iter``, ``history``, ``status``.

    Examples
    --------
    >>> import weakcvx as wc
    >>> X, y_true, y_known = wc.datasets.make_two_moons(30, n_labeled=2, random_state=0)
    >>> K = wc.kernels.rbf(X, gamma=2.0)
    >>> problem = wc.WeakLabelProblem(K, wc.labelsets.SemiSupervised(y_known), costs=10.0)
    >>> hull = wc.solve(problem, method="label_generation")
    >>> hull.value <= hull.upper_bound + 1e-6
    True
    """
    if not isinstance(problem, WeakLabelProblem):
        raise TypeError(f"`problem` must be a WeakLabelProblem. Got {type(problem).__name__}.")
    if method not in METHODS:
        raise ValueError(f"`method` must be one of {METHODS}. Got {method!r} instead.")
    if n_init is not None and method in ("sdp", "exact"):
        raise ValueError(f"`n_init` applies to the methods 'label_generation' and 'alternating' "
                         f"(starts of a non-convex search); method={method!r} has a single, "
                         f"start-free solve. Got n_init={n_init!r} instead: leave it None.")
    if method == "sdp":
        from .sdp import solve_sdp  # CVXPY model; imported lazily

        return solve_sdp(problem, verbose=verbose, **options)
    if method == "exact":
        from . import exact

        algorithm = options.pop("algorithm", "auto")
        if algorithm not in ("auto", "enumerate", "branch_and_bound"):
            raise ValueError("`algorithm` must be 'auto', 'enumerate' or 'branch_and_bound'. "
                             f"Got {algorithm!r} instead.")
        if algorithm == "branch_and_bound" or (
                algorithm == "auto" and hasattr(exact, "branch_and_bound")):
            return exact.branch_and_bound(problem, verbose=verbose, **options)
        return enumerate_optimum(problem, verbose=verbose, **options)

    cc = problem.labelset.count_constraints()
    free_start = cc is None or not np.any(np.asarray(cc[0]) != 0)
    if n_init is None:
        n_init = 10 if free_start and "initial" not in options else 1
    if isinstance(n_init, bool) or not isinstance(n_init, numbers.Integral) or n_init < 1:
        raise ValueError(f"`n_init` must be a positive integer. Got {n_init!r} instead.")
    run = label_generation if method == "label_generation" else alternating
    if n_init == 1 or "initial" in options:
        return _warn_if_stopped(run(problem, random_state=random_state, verbose=verbose,
                                    **options))
    start = time.perf_counter()
    best = None
    bound = -np.inf  # the best certified lower bound over the starts
    for k, b0 in enumerate(_starts(problem, n_init, random_state)):
        res = run(problem, initial=b0, random_state=random_state, verbose=verbose, **options)
        res.extra["start"] = k
        if res.certified:
            bound = max(bound, res.value)
        if best is None or res.upper_bound < best.upper_bound:
            best = res
    if best.certified and bound > best.value:
        # every start's certified value bounds the same hull value from below: report the
        # largest (the labels stay those with the lowest J)
        best.extra["value_of_start"] = best.value
        best.value = bound
    best.extra["n_init"] = n_init
    best.seconds = time.perf_counter() - start
    return _warn_if_stopped(best)


def _warn_if_stopped(result):
    """A run cut by its iteration limit is usable (feasible labels, ``upper_bound = J``) but
    not converged: say so with a ConvergenceWarning naming the method and the status."""
    if result.status == "max_iter":
        warnings.warn(f"solver {result.method!r} stopped with status 'max_iter' "
                      f"({result.message}); the result is usable but not converged: raise "
                      "`max_iter` or loosen `tol`.", ConvergenceWarning, stacklevel=3)
    return result
