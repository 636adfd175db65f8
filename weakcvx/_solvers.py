"""CVXPY solves with a documented fallback order of solvers (docs/design.rst §5: a solver that fails
says which solver and status; a fallback where it makes sense).

Both CVXPY models of the library that a user runs on real problems, the SDP relaxation
(:func:`weakcvx.sdp.solve_sdp`) and the master SOCP (:func:`weakcvx.mkl.master_cvxpy`), are
feasible (``α = 0``) and bounded by construction, so any failure status — ``solver_error``,
``infeasible``, ``unbounded``, an exception, or no solution — is the solver's numerical failure,
not the model's. The next solver of the order is then tried, with its own default options, and a
:class:`SolverFallbackWarning` names the solver that failed and its status. When every solver
fails, :class:`~weakcvx.SolverError` names the first solver and status and lists the others.

=====================  ==============================================================
model                  order (the requested solver first, then the others installed)
=====================  ==============================================================
SDP relaxation         SCS, CLARABEL, CVXOPT
master SOCP            CLARABEL, SCS, ECOS
=====================  ==============================================================
"""

from __future__ import annotations

import warnings

import numpy as np

from ._validation import warn
from .result import SolverError

__all__ = ["SDP_ORDER", "SOCP_ORDER", "SolverFallbackWarning", "solve_in_order", "cvxopt_qp"]

#: Fallback order for SDPs: SCS (first-order, scales), Clarabel (interior point, accurate),
#: CVXOPT (interior point, slowest).
SDP_ORDER = ("SCS", "CLARABEL", "CVXOPT")
#: Fallback order for SOCPs: Clarabel (accurate), SCS, ECOS (does not finish at n = 1000).
SOCP_ORDER = ("CLARABEL", "SCS", "ECOS")


class SolverFallbackWarning(UserWarning):
    """A solver failed and the next one of the documented order was used instead.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> import weakcvx as wc
    >>> from weakcvx.mkl import master_cvxpy
    >>> R, rows, signs = np.array([[1.0], [1.0]]), np.array([[0, 1]]), np.array([[1.0, -1.0]])
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     sol = master_cvxpy(R, rows, signs, np.ones(2), solver="NO_SUCH_SOLVER")
    >>> any(issubclass(w.category, wc.SolverFallbackWarning) for w in caught)
    True
    >>> round(sol.value, 3)   # solved by the next solver of SOCP_ORDER
    2.0
    """


def solver_order(solver, order, fallback=True):
    """The requested solver first, then the installed solvers of ``order``."""
    import cvxpy as cp

    first = solver.upper()
    if not fallback:
        return [first]
    installed = set(cp.installed_solvers())
    return [first] + [s for s in order if s != first and s in installed]


def solve_in_order(prob, solvers, options_for, accept, what):
    """Solve ``prob`` with the first solver of ``solvers`` that succeeds.

    Parameters
    ----------
    prob : cvxpy.Problem
    solvers : list of str
    options_for : callable
        ``options_for(index, solver)`` → keyword arguments of ``prob.solve``.
    accept : callable
        ``accept(prob)`` → True when the status and the solution are usable.
    what : str
        The model, for the messages.

    Returns
    -------
    str
        The solver that succeeded.

    Raises
    ------
    SolverError
        Every solver failed: the first solver and status, the others in the detail.
    """
    import cvxpy as cp

    failures = []
    for index, solver in enumerate(solvers):
        try:
            prob.solve(solver=solver, **options_for(index, solver))
            status, detail = str(prob.status), what
        except cp.error.SolverError as exc:
            status, detail = "error", str(exc)
        if status != "error" and accept(prob):
            if failures:
                tried = "; ".join(f"{s} '{st}'" for s, st, _ in failures)
                warn(f"{what}: {tried} failed; solved with {solver} instead (fallback "
                     "order in weakcvx._solvers).", SolverFallbackWarning)
            return solver
        failures.append((solver, status, detail))
    solver, status, detail = failures[0]
    if len(failures) > 1:
        detail += "; fallbacks also failed: " + ", ".join(
            f"{s} '{st}'" for s, st, _ in failures[1:])
    raise SolverError(solver, status, detail)


def solve_model(prob, solver, order, what):
    """Solve a CVXPY model at its solver's own tolerance: ``solver`` (default the first
    installed of ``order``), then the rest of ``order`` (:func:`solve_in_order`). An
    ``optimal_inaccurate`` answer is kept with a ``ConvergenceWarning`` naming the solver.
    Returns the solver used; raises :class:`~weakcvx.SolverError` when none succeeds."""
    import cvxpy as cp
    from sklearn.exceptions import ConvergenceWarning

    first = solver or next(s for s in order if s in cp.installed_solvers())

    def accept(p):
        return p.status in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE) and all(
            v.value is not None for v in p.variables())

    with warnings.catch_warnings():  # CVXPY's generic note; reported below instead
        warnings.filterwarnings("ignore", message="Solution may be inaccurate")
        used = solve_in_order(prob, solver_order(first, order), lambda i, s: {}, accept, what)
    if prob.status == cp.OPTIMAL_INACCURATE:
        warn(f"{what}: solver {used} returned 'optimal_inaccurate'", ConvergenceWarning)
    return used


def cvxopt_qp(P, q, G, h, A, b, options, what):
    """``cvxopt.solvers.qp`` on NumPy arrays, with CVXOPT's own failures raised as
    :class:`~weakcvx.SolverError` naming ``"cvxopt"`` and the failure.

    CVXOPT raises ``ValueError("Rank(A) < p or Rank([P; A; G]) < n")`` when its KKT system is
    singular at the start and ``ArithmeticError`` when it becomes singular during the
    iterations; both are reached by real input (a cost ``C`` of 1e20 or more leaves the box
    constraints far outside the scale of ``P``). The returned solution's ``status`` is left to
    the caller (``"optimal"``, ``"unknown"``, with ``x`` possibly None).

    Parameters
    ----------
    P, q, G, h, A, b : ndarray
        The QP ``min ½xᵀPx + qᵀx  s.t.  Gx ≤ h, Ax = b``.
    options : dict
        CVXOPT options for this call only (never the global ``cvxopt.solvers.options``).
    what : str
        The model, for the message.

    Returns
    -------
    dict
        CVXOPT's solution.

    Raises
    ------
    SolverError
        When CVXOPT raises instead of returning a solution.

    Examples
    --------
    >>> import numpy as np
    >>> sol = cvxopt_qp(np.eye(1), -np.ones(1), np.eye(1), np.full(1, 0.5), np.ones((1, 1)),
    ...                 np.full(1, 0.25), {"show_progress": False}, "a toy QP")
    >>> sol["status"], round(float(sol["x"][0]), 6)
    ('optimal', 0.25)
    """
    import cvxopt
    import cvxopt.solvers

    args = [cvxopt.matrix(np.asarray(a, dtype=float)) for a in (P, q, G, h, A, b)]
    try:
        return cvxopt.solvers.qp(*args, options=options)
    except ValueError as exc:
        raise SolverError("cvxopt", "rank deficient KKT system",
                          f"{what}: {exc}. The QP is degenerate in float64: check the scale of "
                          "the costs (C) against the kernel.") from exc
    except ArithmeticError as exc:
        raise SolverError("cvxopt", "singular KKT system",
                          f"{what}: {type(exc).__name__}: {exc}. The QP is degenerate in "
                          "float64: check the scale of the costs (C) against the kernel.") \
            from exc
