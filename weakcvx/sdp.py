r"""The SDP relaxation of the weak-label MIP, as one CVXPY problem (docs/design.rst §3.4).

With ``Q = K ∘ M``, for a fixed label matrix ``M`` (Lagrangian duality of the box QP)

.. math::

    \max_{0 \le \alpha \le c} 1^\top\alpha - \tfrac12 \alpha^\top Q \alpha
    \;=\; \min_{\lambda \ge 0,\, \nu \ge 0}
    \tfrac12 (1 + \lambda - \nu)^\top Q^{-1} (1 + \lambda - \nu) + c^\top \nu ,

and replacing ``M = yyᵀ, y ∈ B`` by ``𝓜 = {M ⪰ 0, diag M = 1, the linear constraints implied by
B}`` (``labelset.sdp_constraints``) makes the problem jointly convex in ``(M, λ, ν)``. Its
optimum is a lower bound of ``min_{y ∈ B} J(y)``, below the convex-hull relaxation too (WellSVM
Theorem 1).

See :func:`solve_sdp` for the two formulations, the reduced model (the face of 𝓜) and the
certified value.
"""

from __future__ import annotations

import logging
import time
import warnings

import numpy as np
import scipy.optimize
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from ._validation import warn
from . import kernels
from .rounding import round_scores
from .labelsets import Clustering, Proportions, SemiSupervised
from ._solvers import SDP_ORDER, solve_in_order, solve_model, solver_order
from .result import SolveResult, SolverError
from .svm import solve_box_qp

__all__ = ["solve_sdp", "sdp_cutting_plane", "SUPPORTED_LABELSETS", "DEFAULT_MAX_N",
           "DEFAULT_SOLVER_OPTIONS", "CUTTING_PLANE_MAX_N"]

logger = logging.getLogger("weakcvx")

#: Label sets with their own SDP constraints; every label set of sign vectors has an SDP rung
#: (generic constraints from its count description, a ``Custom`` set's hook, or the elliptope).
SUPPORTED_LABELSETS = (SemiSupervised, Clustering, Proportions)

#: Largest ``n_samples`` accepted by default; chosen by ``weakcvx bench sdp`` as the size SCS
#: solves within half a minute (docs/design.rst §3.4).
DEFAULT_MAX_N = 200

#: Per-solver defaults, overridden key by key by ``solver_options`` (see :func:`solve_sdp`).
#: SCS: eps 1e-3, chosen by iterations against the certified value; CVXOPT: the robust (LDL)
#: KKT solver, since the default Cholesky one stops with "singular KKT matrix" at the optimum
#: and CVXPY then returns no solution (docs/design.rst §3.4).
DEFAULT_SOLVER_OPTIONS = {
    "SCS": {"eps_abs": 1e-3, "eps_rel": 1e-3, "max_iters": 5000},
    "CVXOPT": {"kktsolver": "robust"},
}

_FORMULATIONS = ("schur", "matrix_frac")

#: Largest ``n_samples`` of the cutting-plane SDP (a formulation without a fast path): each
#: round solves an n × n SDP for the most violated ``M`` and a master with one cone per ``M``.
CUTTING_PLANE_MAX_N = 60
# the cutting-plane models: Clarabel (accurate brackets), then SCS
_CUTTING_PLANE_ORDER = ("CLARABEL", "SCS")
# smoothing temperatures of the certificate polish, relative to |value| / dim
_POLISH_TEMPERATURES = (1e-3, 1e-4, 1e-5)


# ---------------------------------------------------------------------------------------------
# The face of the feasible set
# ---------------------------------------------------------------------------------------------
class _Face:
    """Lift and facial reduction of 𝓜 (see Notes of :func:`solve_sdp`).

    Attributes
    ----------
    index, sign : ndarray (n,)
        ``M = diag(sign) M̃[index][:, index] diag(sign)``.
    dim : int
        Size of the lifted matrix ``M̃``.
    null : ndarray (dim, k)
        Orthonormal vectors in the null space of every feasible ``M̃``.
    keep_constraints : bool
        Whether ``labelset.sdp_constraints(M)`` is added to the model (otherwise the lift and
        the null vectors already imply it).
    """

    def __init__(self, labelset, reduce=True):
        n = labelset.n_samples
        if not reduce or labelset.count_constraints() is None:
            self.index, self.sign, self.dim = np.arange(n), np.ones(n), n
            self.null = np.zeros((n, 0))
            self.keep_constraints = True
            return
        fixed, groups = labelset.count_constraints()
        fixed = np.asarray(fixed)
        known = np.flatnonzero(fixed != 0)
        index = np.full(n, -1, dtype=np.int64)
        sign = np.ones(n)
        dim = 0
        if known.size:  # y_L = τ ŷ_L: one coordinate for all fixed labels
            index[known], sign[known], dim = 0, fixed[known], 1
        pinned = []
        for idx, lo, hi in groups:
            size = len(idx)
            if lo == hi and lo in (0, size):  # the labels of the group all agree
                if known.size:
                    index[idx], sign[idx] = 0, (1.0 if lo == size else -1.0)
                else:
                    index[idx], dim = dim, dim + 1
            else:
                index[idx] = dim + np.arange(size)
                dim += size
            if lo == hi:
                pinned.append((idx, 2 * lo - size))  # 1ᵀy_group = 2 n₊ − size
        # pinned sums: F ỹ = τ f (with fixed labels, ỹ_0 = τ is one of them)
        F, f = [], []
        if known.size:
            F.append(np.eye(dim)[0])
            f.append(1.0)
        for idx, s in pinned:
            a = np.zeros(dim)
            np.add.at(a, index[idx], sign[idx])
            F.append(a)
            f.append(float(s))
        self.index, self.sign, self.dim = index, sign, dim
        self.null = np.zeros((dim, 0))
        if F:
            # F M̃ Fᵀ = f fᵀ for M̃ = ỹỹᵀ, so vᵀF M̃ Fᵀv = 0 and M̃ Fᵀv = 0 for every v ⊥ f
            F, f = np.array(F), np.array(f)
            P = np.eye(len(f))
            if np.any(f != 0):
                P -= np.outer(f, f) / np.dot(f, f)
            U, svals, _ = np.linalg.svd(F.T @ P, full_matrices=False)
            self.null = U[:, svals > 1e-9 * max(1.0, np.abs(F).max())]
        self.keep_constraints = not (
            isinstance(labelset, SemiSupervised)
            or (isinstance(labelset, Clustering) and 2 * labelset.max_positive == n))

    @property
    def identity(self):
        """Whether ``M = M̃`` (no lift)."""
        return (self.dim == len(self.index) and np.array_equal(self.index, np.arange(self.dim))
                and bool(np.all(self.sign == 1.0)))

    def reflectors(self):
        """Householder reflectors ``(v, τ)``, ``Q = H_0 ⋯ H_{k−1}``, ``Q[:, :k]`` spans ``null``."""
        A = self.null.copy()
        out = []
        for j in range(A.shape[1]):
            x = A[j:, j]
            v = np.zeros(self.dim)
            v[j:] = x
            v[j] += np.copysign(np.linalg.norm(x), x[0])
            tau = 2.0 / np.dot(v, v)
            A -= tau * np.outer(v, v @ A)
            out.append((v, tau))
        return out

    def basis(self):
        """``N``: an orthonormal basis (dim, dim − k) of the complement of ``null``."""
        Q = np.eye(self.dim)
        for v, tau in reversed(self.reflectors()):
            Q -= tau * np.outer(v, v @ Q)
        return Q[:, self.null.shape[1]:]

    def expand(self, N=None):
        """``G`` (n, dim − k) with ``M = G X Gᵀ`` for ``M̃ = N X Nᵀ``."""
        n = len(self.index)
        E = np.zeros((n, self.dim))
        E[np.arange(n), self.index] = self.sign
        return E @ (self.basis() if N is None else N)


# ---------------------------------------------------------------------------------------------
# The CVXPY model
# ---------------------------------------------------------------------------------------------
def _build(problem, face, formulation):
    """The SDP as a CVXPY problem, and the handles the certificate needs."""
    import cvxpy as cp

    n = problem.n_samples
    K = problem.kernel_matrix()
    c = problem.costs
    k = face.null.shape[1]
    X = cp.Variable((face.dim - k, face.dim - k), PSD=True)
    constraints = []
    M_lift = X
    if k:
        # M̃ = H_0 ⋯ H_{k−1} [[0, 0], [0, X]] H_{k−1} ⋯ H_0; each reflection
        # H A H = A − τ(v wᵀ + w vᵀ) + τ² ω vvᵀ with auxiliaries w = Av, ω = vᵀw keeps the model
        # sparse (a dense N X Nᵀ would couple every entry of M̃ to every entry of X)
        embed = sp.vstack([sp.csr_matrix((k, face.dim - k)), sp.eye(face.dim - k)]).tocsr()
        M_lift = embed @ X @ embed.T
        for v, tau in reversed(face.reflectors()):
            w, omega = cp.Variable(face.dim), cp.Variable()
            constraints += [w == M_lift @ v, omega == v @ w]
            col = cp.reshape(w, (face.dim, 1), order="C")
            M_lift = (M_lift - tau * (v[:, None] @ col.T) - tau * (col @ v[None, :])
                      + tau**2 * omega * np.outer(v, v))
    diag = cp.diag(M_lift) == 1
    constraints.append(diag)
    if face.identity:
        M = M_lift
    else:
        M = cp.multiply(np.outer(face.sign, face.sign), M_lift[face.index, :][:, face.index])
    set_constraints = problem.labelset.sdp_constraints(M) if face.keep_constraints else []
    KM = cp.multiply(K, M)
    lam, nu = cp.Variable(n), cp.Variable(n)
    lam_nonneg = lam >= 0  # its multiplier is α
    z = 1 + lam - nu
    if formulation == "schur":
        t = cp.Variable()
        zc = cp.reshape(z, (n, 1), order="C")
        lmi = cp.bmat([[KM, zc], [zc.T, cp.reshape(2 * t, (1, 1), order="C")]]) >> 0
        objective = t + c @ nu
        cones = [lmi]
    else:
        objective = 0.5 * cp.matrix_frac(z, KM) + c @ nu
        cones = []
    prob = cp.Problem(cp.Minimize(objective),
                      constraints + set_constraints + [lam_nonneg, nu >= 0] + cones)
    handles = {"X": X, "diag": diag, "set_constraints": set_constraints,
               "lam_nonneg": lam_nonneg, "K": K}
    return prob, handles


# ---------------------------------------------------------------------------------------------
# The certificate
# ---------------------------------------------------------------------------------------------
class _Certificate:
    r"""Certified lower bounds of the SDP value from any dual point (weak duality).

    With ``M = G X Gᵀ`` (``X ⪰ 0``, ``tr X = dim`` on 𝓜), ``H = K ∘ ααᵀ``, multipliers ``y`` of
    ``diag(N X Nᵀ) = 1`` and ``μ_c`` of the label-set constraints ``e_c(M) ≤ 0`` (``μ_c ≥ 0``)
    or ``= 0``, and ``Σ_c μ_cᵀ e_c(M) = ⟨A_μ, M⟩ + f_μ``:

    .. math::

        \mathrm{LB}(\alpha, y, \mu) = 1^\top\alpha - \tfrac12 \Big( \textstyle\sum_i y_i - f_\mu
        + \dim \cdot \lambda_{\max}\big(G^\top (H - A_\mu) G - N^\top \mathrm{Diag}(y) N\big)
        \Big) \;\le\; \min_{M \in 𝓜} \max_{0 \le \alpha \le c} G(\alpha, M),

    because ``⟨H, M⟩ ≤ ⟨H, M⟩ − Σ_i y_i(diag(M̃)_i − 1) − Σ_c μ_cᵀe_c(M)`` on 𝓜 and
    ``⟨S, X⟩ ≤ λ_max(S) tr X`` for ``X ⪰ 0``. LB is the dual function of the SDP: jointly
    concave, maximal (= the SDP value) at the solver's dual solution, where ``α`` is the
    multiplier of ``λ ≥ 0`` and ``(y, μ)`` are twice the solver's multipliers (the M-part of the
    Lagrangian is ``½⟨H, M⟩``).
    """

    def __init__(self, problem, face, handles):
        import cvxpy as cp

        self.n = n = problem.n_samples
        self.K = handles["K"]
        self.c = problem.costs
        self.dim = face.dim
        self.N = face.basis()
        self.G = face.expand(self.N)
        # missing or non-finite multipliers are replaced by 0: any multipliers give a valid bound
        y = handles["diag"].dual_value
        self.y0 = np.zeros(face.dim) if y is None else np.nan_to_num(
            2.0 * np.asarray(y, float).ravel(), nan=0.0, posinf=0.0, neginf=0.0)
        # label-set constraints: the same constraints on a plain matrix variable give the adjoint
        # (the Jacobian d e_c / d vec(M), column-major) and the constants e_c(0)
        self.jacobians, self.constants, self.inequality, self.mu0 = [], [], [], []
        if handles["set_constraints"]:
            M_probe = cp.Variable((n, n))
            M_probe.value = np.zeros((n, n))
            for solved, con in zip(handles["set_constraints"],
                                   problem.labelset.sdp_constraints(M_probe)):
                if isinstance(con, cp.constraints.Inequality):  # e(M) = lhs − rhs ≤ 0
                    inequality = True
                elif isinstance(con, cp.constraints.Equality):
                    inequality = False
                else:
                    continue  # leaving a constraint out (μ = 0) keeps the bound valid
                self.jacobians.append(sp.csc_matrix(con.expr.grad[M_probe]))
                self.constants.append(np.asarray(con.expr.value, float).ravel(order="F"))
                self.inequality.append(inequality)
                mu = solved.dual_value
                mu = (np.zeros(con.expr.size) if mu is None else np.nan_to_num(
                    2.0 * np.asarray(mu, float).ravel(order="F"), nan=0.0, posinf=0.0,
                    neginf=0.0))
                self.mu0.append(np.maximum(mu, 0.0) if inequality else mu)
        self.sizes = [len(k) for k in self.constants]
        self.bounds = ([(0.0, ci) for ci in self.c] + [(None, None)] * self.dim
                       + [b for ineq, size in zip(self.inequality, self.sizes)
                          for b in [(0.0, None) if ineq else (None, None)] * size])

    def pack(self, alpha, y, mus):
        return np.concatenate([alpha, y, *mus])

    def _unpack(self, x):
        n, dim = self.n, self.dim
        alpha = np.clip(x[:n], 0.0, self.c)
        y = x[n:n + dim]
        mus, offset = [], n + dim
        for size, ineq in zip(self.sizes, self.inequality):
            mu = x[offset:offset + size]
            mus.append(np.maximum(mu, 0.0) if ineq else mu)
            offset += size
        return alpha, y, mus

    def evaluate(self, x, temperature=0.0):
        """``(exact LB, smoothed LB, gradient of the smoothed LB)`` at ``x = (α, y, μ)``.

        The smoothed bound replaces ``λ_max`` by ``τ log Σ exp(λ_i/τ) ≥ λ_max``, so it is also a
        valid (lower) bound; with ``temperature=0`` only the exact bound is returned.
        """
        alpha, y, mus = self._unpack(x)
        n, G, N, K, dim = self.n, self.G, self.N, self.K, self.dim
        f = 0.0
        A_M = np.zeros((n, n))
        for J, const, mu in zip(self.jacobians, self.constants, mus):
            A_M += (J @ mu).reshape(n, n, order="F")
            f += float(mu @ const)
        GA = G * alpha[:, None]
        quad = GA.T @ K @ GA  # Gᵀ(K ∘ ααᵀ)G
        lin = N.T @ (y[:, None] * N) + G.T @ (0.5 * (A_M + A_M.T)) @ G
        S = quad - lin
        S = 0.5 * (S + S.T)
        eig, U = np.linalg.eigh(S)
        # eigh is backward stable and S is formed with rounding errors of the order of the
        # terms subtracted: a margin of a few ulps of their norm per dimension covers both
        margin = 10 * dim * np.finfo(float).eps * (np.linalg.norm(quad) + np.linalg.norm(lin))
        base = alpha.sum() - 0.5 * (y.sum() - f)
        exact = float(base - 0.5 * dim * (eig[-1] + margin))
        if not temperature:
            return exact, None, None
        z = np.exp((eig - eig[-1]) / temperature)
        smooth_max = eig[-1] + temperature * np.log(z.sum())
        smooth = float(base - 0.5 * dim * (smooth_max + margin))
        weights = z / z.sum()
        keep = weights > 1e-12
        W = U[:, keep] * np.sqrt(weights[keep])
        GW, NW = G @ W, N @ W
        P = GW @ GW.T  # gradient of smooth_max with respect to M, in M-space
        grad_alpha = 1.0 - dim * ((P * K) @ alpha)
        grad_y = -0.5 + 0.5 * dim * np.einsum("ij,ij->i", NW, NW)
        grad_mu = [0.5 * const + 0.5 * dim * (J.T @ P.ravel(order="F"))
                   for J, const in zip(self.jacobians, self.constants)]
        return exact, smooth, np.concatenate([grad_alpha, grad_y, *grad_mu])

    def polish(self, x0, max_evaluations, scale):
        """Raise the bound from ``x0`` by L-BFGS-B on the smoothed bound (temperatures
        decreasing); return ``(best exact bound seen, its x, evaluations)``."""
        best = [self.evaluate(x0)[0], x0]
        count = [1]

        def negative(x, temperature):
            exact, smooth, grad = self.evaluate(x, temperature)
            count[0] += 1
            if exact > best[0]:
                best[:] = [exact, x.copy()]
            return -smooth, -grad

        x = x0
        per_phase = max_evaluations // len(_POLISH_TEMPERATURES)
        for rel in _POLISH_TEMPERATURES:
            if per_phase < 2:
                break
            res = scipy.optimize.minimize(
                negative, x, args=(rel * scale / self.dim,), jac=True, method="L-BFGS-B",
                bounds=self.bounds, options={"maxfun": per_phase, "maxiter": per_phase})
            x = res.x
        return best[0], best[1], count[0]


def _best_response_alpha(K, M, c):
    """The SVM dual solution for the label kernel ``K ∘ M`` (``M`` projected onto PSD)."""
    w, V = np.linalg.eigh(0.5 * (M + M.T))
    R = kernels.factor(K * ((V * np.maximum(w, 0.0)) @ V.T))
    n = len(c)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # any α in [0, c] is admissible
        sol = solve_box_qp(R, np.arange(n, dtype=np.int64), np.ones(n), c, tol=1e-8,
                           max_epochs=20000)
    return sol.alpha


# ---------------------------------------------------------------------------------------------
# solve_sdp
# ---------------------------------------------------------------------------------------------
def _check_arguments(problem, solver, solver_options, formulation, max_n, polish):
    from .problem import WeakLabelProblem

    if not isinstance(problem, WeakLabelProblem):
        raise TypeError(f"`problem` must be a WeakLabelProblem. Got {type(problem).__name__}.")
    labelset = problem.labelset
    if not labelset.identity_support:
        raise ValueError(f"The SDP relaxation needs label kernels K ∘ yyᵀ of sign vectors; "
                         f"{type(labelset).__name__} selects rows (its label kernel is not "
                         "K ∘ M for a matrix M ⪰ 0 with unit diagonal): use "
                         "method=\"label_generation\".")
    if formulation not in _FORMULATIONS:
        raise ValueError(f"`formulation` must be one of {_FORMULATIONS}. Got {formulation!r} "
                         "instead.")
    if max_n is None:
        max_n = DEFAULT_MAX_N
    if isinstance(max_n, (bool, np.bool_)) or not isinstance(max_n, (int, np.integer)) \
            or max_n < 1:
        raise ValueError(f"`max_n` must be a positive integer or None. Got {max_n!r} instead.")
    if problem.n_samples > max_n:
        raise ValueError(
            f"The SDP relaxation has O(n²) variables and n_samples={problem.n_samples} is above "
            f"`max_n`={max_n}. Measured practical limit: n = {DEFAULT_MAX_N} (SCS at eps 1e-3: "
            "12–16 s on two moons and clustering, 20–30 s under load; `weakcvx bench sdp`). Use "
            "method=\"label_generation\" for larger problems, or pass a larger `max_n`.")
    if solver_options is not None and not isinstance(solver_options, dict):
        raise ValueError("`solver_options` must be a dict of keyword arguments for the solver. "
                         f"Got {solver_options!r} instead.")
    if isinstance(polish, (bool, np.bool_)) or not isinstance(polish, (int, np.integer)) \
            or polish < 0:
        raise ValueError(f"`polish` must be a non-negative integer. Got {polish!r} instead.")
    import cvxpy as cp

    installed = cp.installed_solvers()
    if not isinstance(solver, str) or solver.upper() not in installed:
        raise ValueError(f"`solver` must be one of the installed CVXPY solvers {installed}. "
                         f"Got {solver!r} instead.")
    return solver.upper()


def solve_sdp(problem, solver="SCS", solver_options=None, formulation="schur", verbose=0,
              max_n=None, reduce=True, polish=600, fallback=True):
    r"""Solve the SDP relaxation of a weak-label problem: a certified lower bound of the MIP.

    Parameters
    ----------
    problem : WeakLabelProblem
        Its label set must be :class:`~weakcvx.labelsets.SemiSupervised`,
        :class:`~weakcvx.labelsets.Clustering` or :class:`~weakcvx.labelsets.Proportions`.
    solver : str, default="SCS"
        A CVXPY solver able to handle SDPs (``"SCS"``, ``"CLARABEL"``, ``"CVXOPT"``).
    solver_options : dict, optional
        Keyword arguments of the solver, passed per call; they override
        ``DEFAULT_SOLVER_OPTIONS`` key by key (SCS: ``eps_abs = eps_rel = 1e-3``,
        ``max_iters = 5000``; CVXOPT: ``kktsolver="robust"``; Clarabel: its defaults).
    fallback : bool, default=True
        When ``solver`` fails (an exception, a failure status or no solution), try the other
        installed solvers of ``weakcvx._solvers.SDP_ORDER`` (SCS, Clarabel, CVXOPT) with their
        default options, with a :class:`~weakcvx._solvers.SolverFallbackWarning`.
    formulation : {"schur", "matrix_frac"}, default="schur"
        How the matrix-fractional term is written (see Notes).
    verbose : int, default=0
        ``1``: one log line; ``2``: also the solver's own output.
    max_n : int, optional
        Refuse problems with more points (default ``DEFAULT_MAX_N = 200``).
    reduce : bool, default=True
        Solve on the face of the feasible set (see Notes); ``False`` is the readable reference
        model, ``labelset.sdp_constraints`` on a full ``n × n`` matrix.
    polish : int, default=600
        Budget (eigen-decompositions) for raising the certified bound from the solver's dual
        point; ``0`` keeps the bound of the returned point.

    Returns
    -------
    SolveResult
        ``method="sdp"``; ``value``: a certified lower bound of the SDP optimum, hence of
        ``min_{y∈B} J(y)``; ``labels`` (rounded, feasible) and ``upper_bound = J(labels)``;
        ``alpha``, ``mu = [1]``, ``working_set = [labels]``: the SVM on the rounded labels (the
        classifier, as for the other methods); ``status``: the solver's; ``n_iter``: solver
        iterations; ``extra``: ``M`` (n × n), ``solver``, ``status``, ``solver_value`` (the
        solver's objective, approximate), ``certificate_alpha`` (the α of the certified bound),
        ``certificate_gap = solver_value − value``, ``formulation``, ``reduced``,
        ``polish_evaluations``, ``solver_seconds``, ``solver_options``.

    Raises
    ------
    ValueError
        Unsupported label set, ``n_samples > max_n``, unknown formulation or solver.
    SolverError
        The solver failed or returned no solution.

    Warns
    -----
    ConvergenceWarning
        The solver stopped early (``optimal_inaccurate``, ``user_limit``): the value is still
        certified but may be loose (``extra["certificate_gap"]``).

    Notes
    -----
    **Formulations.** ``"schur"`` minimises ``t + cᵀν`` subject to the LMI
    ``[[K∘M, 1+λ−ν], [(1+λ−ν)ᵀ, 2t]] ⪰ 0``, which also covers a singular ``K∘M`` (linear
    kernel: ``1+λ−ν`` must then lie in its range and ``Q⁻¹`` is the pseudo-inverse);
    ``"matrix_frac"`` minimises ``½ cp.matrix_frac(1+λ−ν, K∘M) + cᵀν`` (CVXPY builds its own
    Schur LMI). They agree; SCS needs several times more iterations on ``"matrix_frac"``,
    hence the default (docs/design.rst §3.4).

    **The face.** The constraints of SemiSupervised (``M_LL = ŷ_L ŷ_Lᵀ``, ``M_LU 1 = s ŷ_L``,
    ``1ᵀM_UU 1 = s²``, ``s = 2n₊ − u``) admit no positive definite ``M``: every feasible ``M``
    has the null vectors ``ŷ_i e_i − ŷ_j e_j`` (``i, j ∈ L``) and ``[−(s/|L|) ŷ_L; 1_U]``; so do
    Clustering with ``β' = 0`` (``M1 = 0``) and Proportions with fixed counts. Without a Slater
    point the dual optimum is not attained and solvers struggle (inaccurate statuses and
    values already at n = 40: docs/design.rst §3.4).
    ``reduce=True`` solves the same problem on the face:

    1. *lift* (De Bie & Cristianini 2006): ``y_L = τ ŷ_L``, so ``M = D M̃[π][:, π] D`` over
       ``ỹ = [τ; y_U]``, a ``(u+1) × (u+1)`` matrix; a group whose labels must agree (``n₊`` of
       0 or ``u``, a bag of proportion 0 or 1) collapses to one coordinate the same way;
    2. *facial reduction*: each pinned sum ``aᵀỹ = τ f_a`` (``1ᵀy_U = sτ``; ``1ᵀy = 0`` for
       Clustering with ``β' = 0``; ``1ᵀy_{I_k} = s_k τ`` for the bags of Proportions whose count
       is fixed) gives ``F M̃ Fᵀ = f fᵀ``, hence ``M̃ Fᵀv = 0`` for ``v ⊥ f``. With ``N`` an
       orthonormal basis of the complement, ``M̃ = N X Nᵀ``, ``X ⪰ 0`` (strictly feasible), and
       ``N`` is applied as Householder reflections with auxiliary vectors (sparse model).

    The lift and the null vectors imply every constraint of SemiSupervised and of Clustering
    with ``β' = 0``, which are dropped; Proportions keeps its constraints. The reduced and the
    full models have the same optimum (tested).

    **The certified value.** A first-order solver's objective at eps 1e-3 is off by ~0.1–1% in
    either direction. ``value`` is instead the dual function of the SDP evaluated exactly at a
    dual point (class ``_Certificate``): for ``α ∈ [0, c]`` and multipliers ``(y, μ)``,
    ``LB = 1ᵀα − ½(Σy − f_μ + dim · λ_max(S))`` is below the SDP optimum whatever the solver's
    accuracy (weak duality; eigenvalues with a rounding margin). The start is the solver's dual
    point (or ``α`` = the SVM solution for ``K ∘ M̂``), then ``polish`` evaluations of L-BFGS-B
    on a smoothed ``λ_max`` raise it (what the polish gains and costs on two moons:
    docs/design.rst §3.4). So ``certified`` is True for every returned solution,
    ``optimal_inaccurate`` included (with a warning).

    **Rounding.** ``labelset.argmax`` of the leading eigenvector of ``M`` (its sign fixed by
    the labeled points for SemiSupervised; both signs tried, lower ``J`` kept, otherwise).

    References
    ----------
    De Bie, T. and Cristianini, N. (2006). Semi-supervised learning using semi-definite
    programming. In *Semi-Supervised Learning*, MIT Press.
    Xu, L., Neufeld, J., Larson, B. and Schuurmans, D. (2005). Maximum margin clustering. NIPS.

    Examples
    --------
    >>> import weakcvx as wc
    >>> X, y_true, y_known = wc.datasets.make_two_moons(20, n_labeled=2, random_state=0)
    >>> problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0),
    ...                               wc.labelsets.SemiSupervised(y_known), costs=10.0)
    >>> res = wc.solve(problem, method="sdp")
    >>> res.certified, res.value <= res.upper_bound
    (True, True)
    """
    start = time.perf_counter()
    if not getattr(problem, "fast", True):  # a formulation without a box: cutting planes
        return sdp_cutting_plane(problem, max_n=max_n, verbose=verbose)
    solver = _check_arguments(problem, solver, solver_options, formulation, max_n, polish)
    import cvxpy as cp

    labelset = problem.labelset
    face = _Face(labelset, reduce=reduce)
    prob, handles = _build(problem, face, formulation)

    def options_for(index, name):  # the user's options belong to the solver they named
        return {**DEFAULT_SOLVER_OPTIONS.get(name, {}), **((solver_options or {}) if index == 0
                                                             else {}), "verbose": verbose >= 2}

    def accept(prob):
        X = handles["X"].value
        return str(prob.status) in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE, cp.USER_LIMIT) \
            and X is not None and bool(np.all(np.isfinite(X)))

    with warnings.catch_warnings():
        # CVXPY's generic note; the status is reported below as a ConvergenceWarning
        warnings.filterwarnings("ignore", message="Solution may be inaccurate",
                                category=UserWarning)
        order = solver_order(solver, SDP_ORDER, fallback)
        try:
            solver = solve_in_order(prob, order, options_for, accept,
                                    "SDP relaxation (weakcvx.sdp.solve_sdp)")
        except SolverError as exc:
            if not (exc.status.startswith("infeasible") and handles["set_constraints"]):
                raise
            detail = str(exc).split(": ", 1)[-1]
            raise SolverError(exc.solver, exc.status, f"{detail}. The label set's constraints on M "
                              f"({type(labelset).__name__}.sdp_constraints, "
                              f"{len(handles['set_constraints'])} of them) may admit no M ⪰ 0 "
                              "with unit diagonal: check them") from exc
        used = order.index(solver)
    status = str(prob.status)
    X_value = handles["X"].value
    solver_value = float("nan") if prob.value is None else float(prob.value)
    solve_seconds = time.perf_counter() - start

    N = face.basis()
    M = face.sign[:, None] * (N @ X_value @ N.T)[np.ix_(face.index, face.index)] \
        * face.sign[None, :]
    M = 0.5 * (M + M.T)

    with threadpool_limits(limits=1, user_api="blas"):  # small matrices, shared cores
        cert = _Certificate(problem, face, handles)
        starts = [_best_response_alpha(handles["K"], M, problem.costs)]
        if handles["lam_nonneg"].dual_value is not None:
            starts.insert(0, np.asarray(handles["lam_nonneg"].dual_value, float))
        points = [cert.pack(np.clip(np.nan_to_num(a), 0.0, problem.costs), cert.y0, cert.mu0)
                  for a in starts]
        bounds = [cert.evaluate(x)[0] for x in points]
        x0 = points[int(np.argmax(bounds))]
        value, x, evaluations = max(bounds), x0, len(points)
        if polish:
            value, x, more = cert.polish(x0, polish, scale=max(1.0, abs(solver_value)))
            evaluations += more
        certificate_alpha = cert._unpack(x)[0]

        # rounding: leading eigenvector of M, then the exact linear oracle
        v = np.linalg.eigh(M)[1][:, -1]
        if isinstance(labelset, SemiSupervised):
            if np.dot(v[labelset.labeled], labelset.y_known[labelset.labeled]) < 0:
                v = -v
            labels, upper, alpha = round_scores(problem, v)
        else:
            labels, upper, alpha = round_scores(problem, v, candidates=[labelset.argmax(-v)])

    if status != cp.OPTIMAL:
        warn(f"SDP relaxation: solver {solver!r} returned status {status!r}. The value "
             "is still a certified lower bound (weak duality at the returned dual "
             f"point) but may be loose: solver objective {solver_value:.6g}, certified "
             f"{value:.6g}.", ConvergenceWarning)
    n_iter = int(getattr(prob.solver_stats, "num_iters", None) or 0)
    seconds = time.perf_counter() - start
    message = (f"{solver} {status} in {solve_seconds:.2f}s; certified bound {value:.6g} "
               f"(solver objective {solver_value:.6g})")
    if verbose:
        logger.info("sdp: %s; J(labels)=%.6g; %.2fs in all", message, upper, seconds)
    return SolveResult(
        method="sdp", value=value, labels=labels, upper_bound=upper, certified=True,
        status=status, message=message, n_iter=n_iter, seconds=seconds,
        history=[{"iteration": n_iter, "value": value, "solver_value": solver_value}],
        alpha=alpha, mu=np.ones(1), working_set=[labels.copy()],
        extra={"M": M, "solver": solver, "status": status, "solver_value": solver_value,
               "certificate_alpha": certificate_alpha,
               "certificate_gap": solver_value - value, "formulation": formulation,
               "reduced": bool(reduce), "polish_evaluations": evaluations,
               "solver_seconds": solve_seconds,
               "solver_options": {k: v for k, v in options_for(used, solver).items()
                                  if k != "verbose"}})


# ---------------------------------------------------------------------------------------------
# Any formulation: cutting planes over 𝓜
# ---------------------------------------------------------------------------------------------
class _ElliptopeOracle:
    """``φ(H) = max{⟨H, M⟩ : M ⪰ 0, diag M = 1, labelset.sdp_constraints(M)}`` in CVXPY."""

    def __init__(self, labelset, solver):
        import cvxpy as cp

        n = labelset.n_samples
        self.M = cp.Variable((n, n), PSD=True)
        self.H = cp.Parameter((n, n))
        constraints = [cp.diag(self.M) == 1, *labelset.sdp_constraints(self.M)]
        self.prob = cp.Problem(cp.Maximize(cp.sum(cp.multiply(self.H, self.M))), constraints)
        self.solver = solver

    def __call__(self, H):
        self.H.value = 0.5 * (H + H.T)
        solve_model(self.prob, self.solver, _CUTTING_PLANE_ORDER,
                    "the SDP oracle φ(H) (weakcvx.sdp)")
        return float(self.prob.value), np.asarray(self.M.value, dtype=float)


def _master_over_matrices(problem, factors, solver):
    """``max_{α ∈ A} min_i f(α) − ½‖G_iᵀα‖²`` (``K ∘ M_i = G_i G_iᵀ``) in CVXPY: the value, α,
    the weights μ (the cones' duals) and ``f(α)``."""
    import cvxpy as cp

    alpha, theta = cp.Variable(problem.n_samples), cp.Variable()
    f, constraints = problem.formulation.dual(alpha)
    cones = [0.5 * cp.sum_squares(G.T @ alpha) <= theta for G in factors]
    prob = cp.Problem(cp.Maximize(f - theta), list(constraints) + cones)
    solve_model(prob, solver, _CUTTING_PLANE_ORDER, "the cutting-plane SDP master (weakcvx.sdp)")
    mu = np.array([max(float(np.sum(c.dual_value)), 0.0) for c in cones])
    mu = mu / mu.sum() if mu.sum() > 0 else np.full(len(cones), 1.0 / len(cones))
    return float(prob.value), np.asarray(alpha.value, dtype=float).ravel(), mu, float(f.value)


def sdp_cutting_plane(problem, tol=1e-4, max_iter=50, solver=None, max_n=None, verbose=0):
    r"""The SDP rung for any formulation, by cutting planes over 𝓜 (docs/formulations.rst).

    .. math::

        V_{sdp} = \max_{\alpha \in A} f(\alpha) - \tfrac12 \varphi(H_\alpha), \qquad
        \varphi(H) = \max_{M \in 𝓜} \langle H, M \rangle, \quad
        H_\alpha = \operatorname{diag}(\alpha) K \operatorname{diag}(\alpha),

    with 𝓜 = {M ⪰ 0, diag M = 1, ``labelset.sdp_constraints(M)``}. A working set of matrices
    ``M_i ∈ 𝓜`` (from ``yyᵀ`` of a feasible labeling) gives the master
    ``U = max_α min_i f(α) − ½ αᵀ(K ∘ M_i)α ≥ V_sdp`` (fewer matrices, a larger value); at its
    α the oracle ``φ(H_α)`` gives ``L = f(α) − ½ φ(H_α) ≤ V_sdp`` (any α ∈ A) and the most
    violated ``M``, added to the set. Stops when ``U − L ≤ tol · max(1, |U|)``. Both steps are
    CVXPY models, so the bracket is exact up to the solvers' tolerances; for a label set
    described by exact counts, ``value`` is then the weak-duality certificate at the best α
    (:func:`weakcvx.lowrank_sdp.certify`, exact eigenvalues) and ``certified=True``.

    Parameters
    ----------
    problem : WeakLabelProblem
        Any formulation; its label set's label kernels must be ``K ∘ yyᵀ``.
    tol : float, default=1e-4
        Relative gap ``(U − L) / max(1, |U|)`` at which to stop.
    max_iter : int, default=50
    solver : str, optional
        CVXPY solver of both models (default Clarabel, then SCS).
    max_n : int, optional
        Refuse larger problems (default ``CUTTING_PLANE_MAX_N``).

    Returns
    -------
    SolveResult
        ``value``: the certified bound at the best α (or ``L`` when not certified),
        ``extra["lower_estimate"] = L``, ``extra["master_value"] = U``, ``extra["gap"]``,
        ``labels``: the rounding of the leading eigenvector of ``Σ μ_i M_i``.

    Examples
    --------
    >>> import weakcvx as wc
    >>> X, y_true, y_known = wc.datasets.make_two_moons(12, n_labeled=2, random_state=0)
    >>> problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0),
    ...     wc.labelsets.SemiSupervised(y_known), formulation=wc.formulations.Hinge(C=1.0))
    >>> res = sdp_cutting_plane(problem)
    >>> res.value <= res.extra["master_value"] + 1e-6 and res.value <= res.upper_bound
    True
    """
    start = time.perf_counter()
    labelset = problem.labelset
    n = problem.n_samples
    max_n = CUTTING_PLANE_MAX_N if max_n is None else max_n
    if not labelset.identity_support:
        raise ValueError(f"The SDP relaxation needs label kernels K ∘ yyᵀ; "
                         f"{type(labelset).__name__} selects rows: use "
                         "method=\"label_generation\".")
    if n > max_n:
        raise ValueError(f"The cutting-plane SDP solves an n × n SDP a round; n_samples={n} is "
                         f"above `max_n`={max_n}. Pass a larger `max_n`, or use "
                         "method=\"label_generation\".")
    K = problem.kernel_matrix()
    if problem.shift is not None:  # the formulation's f carries the shift itself
        K = K - np.diag(problem.shift)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        lower, best_alpha, upper, M, it, status, message, history = _cutting_plane_rounds(
            problem, K, solver, tol, max_iter, verbose, start)
    v = np.linalg.eigh(M)[1][:, -1]
    labels, upper_bound, labels_alpha = round_scores(problem, v,
                                                     candidates=[labelset.argmax(-v)])
    value, certified = _certified_value(problem, best_alpha, lower)
    message = _report_inexact_solves(caught, certified, message)
    return SolveResult(method="sdp", value=value, labels=labels,
                       upper_bound=upper_bound, certified=certified, status=status,
                       message=message,
                       n_iter=it, seconds=time.perf_counter() - start, history=history,
                       alpha=labels_alpha, mu=np.ones(1), working_set=[labels.copy()],
                       extra={"M": M, "master_value": float(upper), "lower_estimate": lower,
                              "gap": float(upper - lower), "formulation": "cutting_plane"})


def _cutting_plane_rounds(problem, K, solver, tol, max_iter, verbose, start):
    """The rounds of :func:`sdp_cutting_plane`: ``(L, α of L, U, Σ μ_i M_i, rounds, status,
    message, history)``."""
    labelset = problem.labelset
    oracle = _ElliptopeOracle(labelset, solver)
    b0 = labelset.initial(random_state=0)
    matrices = [np.outer(b0, b0)]
    lower, history, best_alpha = -np.inf, [], None
    status, message = "max_iter", f"stopped after max_iter={max_iter} rounds"
    it = 0
    for it in range(1, max_iter + 1):
        upper, alpha, mu, f_alpha = _master_over_matrices(
            problem, [kernels.factor(0.5 * (K * M + (K * M).T)) for M in matrices], solver)
        phi, M_new = oracle(alpha[:, None] * K * alpha[None, :])
        if f_alpha - 0.5 * phi > lower:
            lower, best_alpha = f_alpha - 0.5 * phi, alpha
        history.append({"iteration": it, "value": lower, "master_value": upper,
                        "seconds": time.perf_counter() - start})
        if verbose:
            logger.info("sdp cutting plane it=%d L=%.6g U=%.6g", it, lower, upper)
        if upper - lower <= tol * max(1.0, abs(upper)):
            status, message = "converged", f"gap {upper - lower:.3g} ≤ tol·max(1, |U|)"
            break
        matrices.append(M_new)
    M = sum(m * Mi for m, Mi in zip(mu, matrices))
    return lower, best_alpha, upper, M, it, status, message, history


def _report_inexact_solves(caught, certified, message):
    """Re-issue the warnings recorded during the rounds, except the inexact solves'
    (``optimal_inaccurate``) when the value is certified: the weak-duality certificate at the
    returned α does not depend on what the solvers returned, so they are only noted in the
    result's ``message``. Returns that message."""
    inexact = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    for w in caught:
        if not (certified and w in inexact):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if certified and inexact:
        message += (f"; {len(inexact)} CVXPY solve(s) of the rounds inexact "
                    f"({inexact[0].message}), the certified value does not depend on them")
    return message


def _certified_value(problem, alpha, estimate):
    """``(value, certified)``: the weak-duality certificate of :func:`weakcvx.lowrank_sdp.certify`
    at the best α (exact eigenvalues), when the label set is described by exact counts alone
    (it then bounds the same SDP); else the CVXPY estimate ``f(α) − ½φ(H_α)``, not certified."""
    from .labelsets import Custom

    if alpha is None or problem.labelset.count_constraints() is None \
            or isinstance(problem.labelset, Custom):
        return float(estimate), False
    from .lowrank_sdp import certify

    cert = certify(problem, alpha, eigen="dense")
    if cert.dropped_ranges:  # the lift leaves range counts out: a weaker relaxation's bound
        return float(estimate), False
    return float(cert.value), True
