r"""The master problem over a working set of labelings (docs/design.rst §3.2).

.. math::

    \min_{\mu \in \Delta_T} \max_{0 \le \alpha \le c} \; 1^\top\alpha
        - \tfrac12 \alpha^\top \Big(\sum_{t=1}^T \mu_t Q_t\Big) \alpha

Two solvers: :func:`master_cvxpy`, the Lanckriet QCQP written as an SOCP in CVXPY (the readable
reference; the duals of the T cone constraints are μ), and :func:`master_mklgl`, the fast
alternation of WellSVM §4.1.2 (MKLGL): a warm-started box QP with μ fixed, then the closed-form
update ``μ_t ← μ_t‖R_tᵀα‖ / Σ_s μ_s‖R_sᵀα‖``.

Both report a certified bracket of the saddle value: for any feasible α,
``L(α) = 1ᵀα − ½ max_t αᵀQ_tα`` is below it; for any μ, the SVM primal value of ``Q_μ`` at the
solver's ``w`` is above it.
"""

from __future__ import annotations

import logging
import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from ._validation import warn
from ._solvers import SOCP_ORDER, solve_in_order, solver_order
from .svm import solve_box_qp

__all__ = ["MasterSolution", "master_cvxpy", "master_mklgl", "solve_master"]

logger = logging.getLogger("weakcvx")


@dataclass
class MasterSolution:
    """Solution of the master problem.

    Attributes
    ----------
    value : float
        Upper estimate of the saddle value (the SVM primal value of ``Q_μ``; for the CVXPY
        reference, the solver's optimal value).
    lower : float
        ``L(α) = 1ᵀα − ½ max_t αᵀQ_tα``, a certified lower bound of the saddle value.
    alpha : ndarray (m,)
    mu : ndarray (T,)
    quadratics : ndarray (T,)
        ``αᵀQ_tα`` for each label in the working set.
    n_alternations : int
    converged : bool
    history : list of dict
    mu_next : ndarray (T,) or None
        MKLGL: the weights of the next alternation at ``alpha`` (``μ_t ∝ μ_t αᵀQ_tα``), the
        warm start of a master over the same or a grown working set (with one alternation a
        round, warm-starting from ``mu`` would never move the weights). ``None``: use ``mu``.

    Examples
    --------
    >>> import numpy as np
    >>> R = np.array([[1.0], [1.0]])
    >>> rows = np.array([[0, 1], [0, 1]]); signs = np.array([[1.0, 1.0], [1.0, -1.0]])
    >>> sol = solve_master(R, rows, signs, np.ones(2))
    >>> bool(sol.lower <= sol.value), round(float(sol.mu.sum()), 6), sol.converged
    (True, 1.0, True)
    """

    value: float
    lower: float
    alpha: np.ndarray
    mu: np.ndarray
    quadratics: np.ndarray
    n_alternations: int = 0
    converged: bool = True
    history: list = field(default_factory=list)
    mu_next: np.ndarray | None = None


def _quadratics(R, rows, signs, alpha):
    """``αᵀQ_tα = ‖R_tᵀα‖²`` for every t (T×m supports)."""
    out = np.empty(rows.shape[0])
    for t in range(rows.shape[0]):
        v = R[rows[t]].T @ (alpha * signs[t])
        v = np.asarray(v).ravel()
        out[t] = v @ v
    return out


def master_cvxpy(factor, rows, signs, c, solver="SCS", solver_options=None, fallback=True,
                 dual=None):
    r"""Master problem as an SOCP in CVXPY (Lanckriet et al. 2004), the reference.

    .. math::

        \max_{\alpha, \theta} \; 1^\top\alpha - \theta \quad \text{s.t.} \quad
        0 \le \alpha \le c, \qquad \tfrac12 \|R_t^\top \alpha\|^2 \le \theta \;\; (t = 1..T)

    The dual variables of the T quadratic constraints are the kernel weights μ (they sum to 1).
    With ``dual``, any concave ``f`` and convex ``A`` replace ``1ᵀα`` and the box
    (docs/formulations.rst): ``max f(α) − θ`` s.t. ``α ∈ A`` and the same T cones.

    Parameters
    ----------
    factor : ndarray (n, r) or sparse (n, d)
    rows, signs : ndarray (T, m)
    c : ndarray (m,) or None
        The box; ``None`` with ``dual``.
    solver : str
        Any CVXPY solver that handles SOCPs. SCS was chosen on its time at n = 300 and 1000
        (``weakcvx bench mkl``; docs/design.rst §3.2). Use ``"CLARABEL"`` for tight accuracy on
        small problems.
    solver_options : dict, optional
        Passed to ``problem.solve`` for this call only.
    fallback : bool, default=True
        When ``solver`` fails (an exception, a failure status or no solution), try the other
        installed solvers of ``weakcvx._solvers.SOCP_ORDER`` (Clarabel, SCS, ECOS) with their
        default options, with a :class:`~weakcvx._solvers.SolverFallbackWarning`.
    dual : callable, optional
        ``dual(alpha) -> (f, constraints)`` for a ``cvxpy.Variable`` (a formulation's
        :meth:`~weakcvx.formulations.Formulation.dual`).

    Returns
    -------
    MasterSolution

    Examples
    --------
    >>> import numpy as np
    >>> R = np.array([[1.0], [1.0]])
    >>> rows = np.array([[0, 1], [0, 1]]); signs = np.array([[1.0, 1.0], [1.0, -1.0]])
    >>> sol = master_cvxpy(R, rows, signs, np.ones(2), solver="CLARABEL")
    >>> round(sol.value, 3), np.round(sol.mu, 2)   # Q_1 = 11ᵀ: value ½ at α₁ + α₂ = 1
    (0.5, array([1., 0.]))
    """
    import cvxpy as cp

    rows = np.atleast_2d(rows)
    signs = np.atleast_2d(signs)
    T, m = rows.shape
    alpha = cp.Variable(m, name="alpha")
    theta = cp.Variable(name="theta")
    quad_constraints = []
    for t in range(T):
        R_t = factor[rows[t]]
        R_t = R_t.multiply(signs[t][:, None]).tocsr() if sp.issparse(R_t) else signs[t][:, None] * R_t
        quad_constraints.append(0.5 * cp.sum_squares(R_t.T @ alpha) <= theta)
    f, box = (cp.sum(alpha), [alpha >= 0, alpha <= c]) if dual is None else dual(alpha)
    prob = cp.Problem(cp.Maximize(f - theta), list(box) + quad_constraints)
    solver = solve_in_order(
        prob, solver_order(solver, SOCP_ORDER, fallback),
        lambda index, name: dict(solver_options or {}) if index == 0 else {},
        lambda prob: prob.status in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE)
        and alpha.value is not None and bool(np.all(np.isfinite(alpha.value))),
        "master SOCP (mkl.master_cvxpy)")
    if prob.status == cp.OPTIMAL_INACCURATE:
        warn(f"solver {solver!r} returned 'optimal_inaccurate' for the master SOCP",
             ConvergenceWarning)
    a = np.asarray(alpha.value, dtype=float).ravel()
    if dual is None:
        a = np.clip(a, 0.0, c)
        f_value = float(a.sum())
    else:
        f_value = float(f.value)
    mu = np.array([max(float(np.sum(con.dual_value)), 0.0) for con in quad_constraints])
    mu = mu / mu.sum() if mu.sum() > 0 else np.full(T, 1.0 / T)
    q = _quadratics(factor, rows, signs, a)
    lower = f_value - 0.5 * float(q.max())
    return MasterSolution(value=float(prob.value), lower=lower, alpha=a, mu=mu, quadratics=q,
                          n_alternations=1, converged=True)


def master_mklgl(factor, rows, signs, c, alpha0=None, mu0=None, tol=1e-4, max_alternations=200,
                 inner_tol=None, step=1.0, random_state=0, gram=None, shift=None):
    r"""Master problem by MKLGL alternation (WellSVM §4.1.2; Xu et al. 2010), the fast path.

    Alternate (i) μ fixed: the box QP with ``Q_μ = Σ_t μ_t Q_t`` (:func:`weakcvx.svm.solve_box_qp`,
    warm-started from the previous α); (ii) α fixed: ``μ_t ← μ_t‖R_tᵀα‖ / Σ_s μ_s‖R_sᵀα‖``.
    Stops when the certified saddle gap ``U − L`` falls below ``tol · max(1, |U|)``, where ``U``
    is the SVM primal value of ``Q_μ`` and ``L = 1ᵀα − ½ max_t αᵀQ_tα``.

    Parameters
    ----------
    factor : ndarray (n, r), sparse CSR (n, d), or None (with ``gram``)
    rows, signs : ndarray (T, m)
    c : ndarray (m,)
    alpha0, mu0 : warm starts (α in the box; μ on the simplex, entries may be 0 for new labels)
    tol : float
        Relative saddle-gap tolerance.
    max_alternations : int
        Cap on the alternations (two a cutting-plane round on large problems:
        :meth:`weakcvx.cutting_plane.RoundPolicy.for_problem`).
    step : float
        Exponent of the μ update ``μ_t ← μ_t (αᵀQ_tα)^step / Σ_s …``. ``step=0.5`` is MKLGL's
        closed form (``μ_t ∝ ‖f_t‖``); every step has the same fixed points (all weighted
        ``αᵀQ_tα`` equal, the saddle's condition). Default 1, chosen by the alternations to a
        relative gap of 1e-5 on random RBF working sets (docs/design.rst §3.2).
    inner_tol : float, optional
        Projected-gradient tolerance of the box-QP solver; default ``tol`` clipped to
        [1e-8, 1e-2].
    gram : ndarray (n, n), optional
        ``K = R Rᵀ``, passed to the box-QP solver (explicit label kernel for small problems).
    shift : ndarray (m,), optional
        The squared hinge's diagonal folded into the kernel (:func:`weakcvx.svm.solve_box_qp`):
        a tighter upper value.

    Returns
    -------
    MasterSolution

    Examples
    --------
    >>> import numpy as np
    >>> R = np.array([[1.0], [1.0]])
    >>> rows = np.array([[0, 1], [0, 1]]); signs = np.array([[1.0, 1.0], [1.0, -1.0]])
    >>> sol = master_mklgl(R, rows, signs, np.ones(2))
    >>> round(sol.value, 3)
    0.5
    """
    rows = np.atleast_2d(rows)
    signs = np.atleast_2d(signs)
    T, m = rows.shape
    # the projected-gradient tolerance of the inner SVM; its inexactness only loosens the
    # certified upper value, which the saddle-gap test accounts for
    inner_tol = max(1e-8, min(1e-2, tol)) if inner_tol is None else inner_tol
    mu = np.full(T, 1.0 / T) if mu0 is None else np.asarray(mu0, dtype=float).copy()
    if mu.shape != (T,) or np.any(mu < 0) or mu.sum() <= 0:
        raise ValueError(f"`mu0` must be a nonnegative vector of length {T} with positive sum. "
                         f"Got {mu0!r}.")
    # a label entering with weight 0 would stay at 0 under the multiplicative update
    mu = np.maximum(mu / mu.sum(), 1e-3 / T)
    mu /= mu.sum()
    alpha = alpha0
    history = []
    best = None
    converged = False
    products = None  # K Aᵀ at α from the previous alternation (only μ changed since)
    k = 0
    for k in range(1, max_alternations + 1):
        with warnings.catch_warnings():
            # an inner solve stopped at max_epochs is still a feasible α and a valid upper
            # value; the master's own saddle gap decides convergence
            warnings.simplefilter("ignore", ConvergenceWarning)
            sol = solve_box_qp(factor, rows, signs, c, mu=mu, alpha0=alpha, tol=inner_tol,
                               random_state=random_state, gram=gram,
                               label_products=products, shift=shift)
        products = sol.label_products
        alpha = sol.alpha
        q = sol.quadratics
        upper = float(sol.primal_value)
        lower = float(alpha.sum() - 0.5 * q.max())
        history.append({"alternation": k, "upper": upper, "lower": lower, "mu": mu.copy()})
        if best is None or upper < best.value:
            best = MasterSolution(value=upper, lower=lower, alpha=alpha.copy(), mu=mu.copy(),
                                  quadratics=q)
        best.lower = max(best.lower, lower)
        if upper - best.lower <= tol * max(1.0, abs(upper)) or T == 1:
            converged = True
            break
        norms = mu * np.maximum(q, 0.0) ** step  # step ½: ‖f_t‖ = μ_t ‖R_tᵀα‖ (MKLGL)
        if norms.sum() <= 0:
            converged = True
            break
        mu = norms / norms.sum()
    best.n_alternations = k
    best.converged = converged
    best.history = history
    norms = best.mu * np.maximum(best.quadratics, 0.0) ** step
    best.mu_next = norms / norms.sum() if norms.sum() > 0 else best.mu.copy()
    return best


def solve_master(factor, rows, signs, c, master="mklgl", alpha0=None, mu0=None, tol=1e-4,
                 max_alternations=200, inner_tol=None, solver="SCS", solver_options=None,
                 random_state=0, gram=None, dual=None, shift=None):
    """Dispatch to :func:`master_mklgl` (``master="mklgl"``) or :func:`master_cvxpy` (with
    ``dual``, a formulation's ``f`` and ``A``: CVXPY only).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> R = rng.standard_normal((8, 3))                   # K = R Rᵀ
    >>> rows = np.tile(np.arange(8), (3, 1))              # three labelings of the 8 points
    >>> signs = np.sign(rng.standard_normal((3, 8)))
    >>> fast = solve_master(R, rows, signs, np.ones(8))  # MKLGL
    >>> ref = solve_master(R, rows, signs, np.ones(8), master="cvxpy", solver="CLARABEL")
    >>> bool(fast.lower <= ref.value <= fast.value)       # MKLGL's bracket holds the SOCP value
    True
    """
    if master == "mklgl":
        return master_mklgl(factor, rows, signs, c, alpha0=alpha0, mu0=mu0, tol=tol,
                            max_alternations=max_alternations, inner_tol=inner_tol,
                            random_state=random_state, gram=gram, shift=shift)
    if master == "cvxpy":
        return master_cvxpy(factor, rows, signs, c, solver=solver, solver_options=solver_options,
                            dual=dual)
    raise ValueError(f"`master` must be 'mklgl' or 'cvxpy'. Got {master!r} instead.")
