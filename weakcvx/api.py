"""``weakcvx.solve``: one entry point for every method on a :class:`WeakLabelProblem`."""

from __future__ import annotations

import inspect

from sklearn.exceptions import ConvergenceWarning

from ._validation import warn
from .cutting_plane import label_generation
from .exact import enumerate_optimum
from .local import alternating
from .problem import WeakLabelProblem
from .rounding import best_of_starts

__all__ = ["solve", "METHODS"]

METHODS = ("label_generation", "sdp", "exact", "alternating")


def solve(problem, method="label_generation", n_init=None, random_state=0, verbose=0, **options):
    """Solve a weak-label problem with one method.

    Parameters
    ----------
    problem : WeakLabelProblem
    method : {"label_generation", "sdp", "exact", "alternating"}
        - ``"label_generation"``: WellSVM's convex-hull relaxation (:func:`weakcvx.cutting_plane.
          label_generation`); ``value`` is the master value over the final working set, a
          certified lower bound when ``oracle="exact"``.
        - ``"sdp"``: the SDP relaxation, a lower bound: the CVXPY model
          (:mod:`weakcvx.sdp`) up to ``sdp.DEFAULT_MAX_N`` points, the low-rank solver
          (:mod:`weakcvx.lowrank_sdp`) above; ``solver="lowrank"`` or a CVXPY solver name
          overrides the choice. Certified (``certified=True``, by a weak-duality certificate)
          for the built-in formulations and those with a ``box()``; a formulation without one
          is solved by cutting planes (:func:`weakcvx.sdp.sdp_cutting_plane`), certified only
          on label sets described by exact counts, else an estimate (``certified=False``).
        - ``"exact"``: the MIP optimum (enumeration of B; branch and bound for larger sets).
        - ``"alternating"``: a local optimum; ``value = J(labels)``.
    n_init : int, optional
        Number of starts for label sets that fix no label (clustering), and for those that do
        not describe themselves by counts (:class:`~weakcvx.labelsets.Custom`: weakcvx cannot
        see which labels they fix): the leading principal directions, then random labelings;
        the run whose rounded labels have the lowest ``J(labels)`` is kept (docs/design.rst
        §3.3: the master value is not a reliable selector across runs). Default 10 for such
        sets, 1 otherwise (pass ``n_init=1`` for a Custom set that fixes labels). With a certified method
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
        return _solve_sdp(problem, verbose, random_state, options)
    if method == "exact":
        from . import exact

        algorithm = options.pop("algorithm", "auto")
        if algorithm not in ("auto", "enumerate", "branch_and_bound"):
            raise ValueError("`algorithm` must be 'auto', 'enumerate' or 'branch_and_bound'. "
                             f"Got {algorithm!r} instead.")
        if algorithm == "branch_and_bound" or (algorithm == "auto" and problem.fast):
            # branch and bound needs a box containing 0 (Formulation.box()); else enumerate
            _check_options(exact.branch_and_bound, options, method, also=("algorithm",))
            return exact.branch_and_bound(problem, verbose=verbose, **options)
        _check_options(enumerate_optimum, options, method, also=("algorithm",))
        return enumerate_optimum(problem, verbose=verbose, **options)

    run = label_generation if method == "label_generation" else alternating
    _check_options(run, options, method)
    return _warn_if_stopped(best_of_starts(run, problem, n_init=n_init,
                                           random_state=random_state, verbose=verbose,
                                           **options))


def _check_options(function, options, method, also=()):
    """Refuse options that ``function``, the solver behind ``method``, does not take, naming
    the ones it does and ``also`` (options ``solve`` itself read); a TypeError from deep
    inside would name an internal function."""
    parameters = inspect.signature(function).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return
    accepted = [*also, *(name for name in parameters
                         if name not in ("problem", "verbose", "random_state"))]
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise TypeError(f"solve(method={method!r}) got unknown option(s) "
                        f"{', '.join(map(repr, unknown))}; the options of this method are "
                        f"{', '.join(accepted)} ({function.__module__}.{function.__name__}).")


def _warn_if_stopped(result):
    """A run cut by its iteration limit is usable (feasible labels, ``upper_bound = J``) but
    not converged: say so with a ConvergenceWarning naming the method and the status."""
    if result.status == "max_iter":
        warn(f"solver {result.method!r} stopped with status 'max_iter' "
             f"({result.message}); the result is usable but not converged: raise "
             "`max_iter` or loosen `tol`.", ConvergenceWarning)
    return result


def _solve_sdp(problem, verbose, random_state, options):
    """The SDP rung: CVXPY up to ``sdp.DEFAULT_MAX_N`` points (measured: SCS 12–16 s at
    n = 200), the low-rank solver above; ``solver="lowrank"`` or a CVXPY name decides. A
    formulation without ``box()`` takes the cutting-plane SDP (``sdp.sdp_cutting_plane``, its
    options: ``max_iter``, ``tol``, ``max_n``; a ConvergenceWarning when it stops at
    ``max_iter``)."""
    from . import sdp  # CVXPY model; imported lazily

    solver = given = options.pop("solver", None)
    if solver is not None and not isinstance(solver, str):
        raise ValueError(f"`solver` must be 'lowrank' or a CVXPY solver name. Got {solver!r} "
                         "instead.")
    if solver is None:
        # a formulation without a fast path has only the cutting-plane SDP (sdp.solve_sdp)
        solver = "SCS" if problem.n_samples <= sdp.DEFAULT_MAX_N or not problem.fast \
            else "lowrank"
    if solver.lower() == "lowrank":
        from .lowrank_sdp import solve_sdp_lowrank

        _check_options(solve_sdp_lowrank, options, "sdp")
        return solve_sdp_lowrank(problem, verbose=verbose, random_state=random_state,
                                 **options)
    if not problem.fast:  # no box(): the cutting-plane SDP, with its own options (max_iter...)
        _check_options(sdp.sdp_cutting_plane, options, "sdp")
        return _warn_if_stopped(sdp.sdp_cutting_plane(problem, solver=given, verbose=verbose,
                                                      **options))
    _check_options(sdp.solve_sdp, options, "sdp")
    return sdp.solve_sdp(problem, solver=solver, verbose=verbose, **options)
