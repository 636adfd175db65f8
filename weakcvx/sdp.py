r"""The SDP relaxation of the weak-label MIP (DESIGN.md §3.4), one CVXPY problem.

For a fixed label matrix ``M`` the SVM dual and its Lagrangian dual are, with ``Q = K ∘ M``,

.. math::

    \max_{0 \le \alpha \le c} 1^\top\alpha - \tfrac12 \alpha^\top Q \alpha
    \;=\; \min_{\lambda \ge 0,\, \nu \ge 0}
    \tfrac12 (1 + \lambda - \nu)^\top Q^{-1} (1 + \lambda - \nu) + c^\top \nu ,

and replacing ``M = yyᵀ, y ∈ B`` by the convex set ``𝓜 = {M ⪰ 0, diag M = 1, linear constraints
implied by B}`` gives a convex problem jointly in ``(M, λ, ν)``: a lower bound of
``min_{y∈B} J(y)`` (WellSVM Theorem 1: it is also below the convex-hull relaxation).

Two ways of writing the matrix-fractional term:

- ``"schur"``: minimise ``t + cᵀν`` subject to the LMI
  ``[[K∘M, 1+λ−ν], [(1+λ−ν)ᵀ, 2t]] ⪰ 0``, which also covers a singular ``K∘M`` (linear kernel:
  it then means ``1+λ−ν ∈ range(K∘M)`` and the pseudo-inverse);
- ``"matrix_frac"``: ``½ cp.matrix_frac(1+λ−ν, K∘M) + cᵀν`` (CVXPY builds its own Schur LMI).

**The face of 𝓜.** The linear constraints of :class:`~weakcvx.labelsets.SemiSupervised`
(``M_LL = y_L y_Lᵀ``, ``M_LU 1 = s y_L``, ``1ᵀM_UU 1 = s²``) leave no positive definite
feasible ``M``: every feasible ``M`` has the null vectors ``y_i e_i − y_j e_j`` (``i, j ∈ L``) and
``[−(s/|L|) y_L; 1_U]``. Interior-point and splitting solvers are slow and inaccurate on such
problems (no Slater point: the dual optimum is not attained; measured below). The default
``reduce=True`` solves the same problem on the face that holds 𝓜:

1. *lift* (De Bie & Cristianini 2006): the labeled points share one coordinate, ``y_L = τ ŷ_L``,
   so ``M = D M̃[π][:, π] D`` over ``ỹ = [τ; y_U]`` (``(u+1)×(u+1)``); groups whose labels must
   all agree (``n₊ ∈ {0, u}``, a bag with proportion 0 or 1) collapse the same way;
2. *facial reduction*: every pinned sum ``aᵀỹ = τ f`` (``1ᵀy_U = s τ`` for SemiSupervised,
   ``1ᵀy = 0`` for Clustering with β' = 0, ``1ᵀy_{I_k} = s_k τ`` for the bags of Proportions
   whose count is fixed) gives null vectors ``Fᵀv, v ⊥ f`` of every feasible ``M̃``. With ``N``
   an orthonormal basis of their complement, ``M̃ = N X Nᵀ``, ``X ⪰ 0`` — strictly feasible.
   ``N`` is applied as Householder reflectors ``M̃ ← M̃ − τ(v wᵀ + w vᵀ) + τ²ω vvᵀ`` with
   auxiliary ``w = M̃v``, ``ω = vᵀw``, so the CVXPY model stays sparse.

The lift and the null vectors reproduce every constraint of SemiSupervised and of Clustering with
β' = 0 (they are dropped); Proportions keeps its constraints (tested: the reduced and the full
models give the same value).

**The certified value.** The solvers' objective at a loose tolerance is itself approximate (SCS
at eps 1e-3 misses the optimum by ~0.1% either way). The reported ``value`` is instead a lower
bound computed exactly from the returned dual point by weak duality:
for any ``α ∈ [0, c]``,

.. math::

    \min_{M \in 𝓜} \max_\alpha G(\alpha, M) \;\ge\;
    1^\top\alpha - \tfrac12 \max_{M \in 𝓜} \langle K \circ \alpha\alpha^\top, M \rangle ,

and with ``M = G X Gᵀ``, ``tr X = dim`` and multipliers ``μ`` of the linear constraints
``e_c(X) ≤ 0`` / ``= 0`` (``μ ≥ 0`` for inequalities), ``Σ_c μ_cᵀ e_c(X) = ⟨A_μ, X⟩ + f_μ``:

.. math::

    \max_{M \in 𝓜} \langle H, M \rangle \;\le\;
    -f_\mu + \dim \cdot \lambda_{\max}(G^\top H G - A_\mu).

``α`` is the dual of ``λ ≥ 0`` (clipped to ``[0, c]``) or the SVM solution for ``K ∘ M̂``, ``μ``
is twice the solver's multipliers (the M-part of the Lagrangian is ``½⟨H, M⟩``); the better
bound is kept. Valid whatever the solver's accuracy; its distance to the solver's objective is
``extra["certificate_gap"]``.
"""

from __future__ import annotations

import logging
import time
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from . import kernels
from .cutting_plane import round_scores
from .labelsets import Clustering, Proportions, SemiSupervised
from .result import SolveResult, SolverError
from .svm import solve_box_qp

__all__ = ["solve_sdp", "SUPPORTED_LABELSETS", "DEFAULT_MAX_N", "DEFAULT_SOLVER_OPTIONS"]

logger = logging.getLogger("weakcvx")

#: Label sets with an SDP description (``labelset.sdp_constraints``).
SUPPORTED_LABELSETS = (SemiSupervised, Clustering, Proportions)

#: Default ``max_n``: see ``weakcvx bench sdp``; SCS at eps 1e-3 on two moons (reduced model)
#: takes TODO s at n = 200.
DEFAULT_MAX_N = 200

#: Per-solver defaults, merged under the caller's ``solver_options`` (measured: TODO).
DEFAULT_SOLVER_OPTIONS = {
    "SCS": {"eps_abs": 1e-3, "eps_rel": 1e-3, "max_iters": 10_000},
    "CLARABEL": {},
    "CVXOPT": {},
}

_FORMULATIONS = ("schur", "matrix_frac")


# ---------------------------------------------------------------------------------------------
# The face of the feasible set
# ---------------------------------------------------------------------------------------------
class _Face:
    """Lift and facial reduction of the SDP feasible set of a label set (module docstring).

    Attributes
    ----------
    index, sign : ndarray (n,)
        ``M = diag(sign) M̃[index][:, index] diag(sign)``.
    dim : int
        Size of ``M̃``.
    null : ndarray (dim, k)
        Orthonormal null vectors shared by every feasible ``M̃``.
    keep_constraints : bool
        Whether ``labelset.sdp_constraints(M)`` must be added (otherwise they are implied).
    """

    def __init__(self, labelset, reduce=True):
        n = labelset.n_samples
        if not reduce:
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
        # pinned sums: rows a of F with aᵀỹ = τ f, τ = ±1 the global sign
        F, f = [], []
        if known.size:
            index[known], sign[known], dim = 0, fixed[known], 1
        pinned = []
        for idx, lo, hi in groups:
            size = len(idx)
            if lo == hi and lo in (0, size):  # all labels of the group agree
                if known.size:
                    index[idx], sign[idx] = 0, (1.0 if lo == size else -1.0)
                else:
                    index[idx], dim = dim, dim + 1
            else:
                index[idx] = dim + np.arange(size)
                dim += size
            if lo == hi:
                pinned.append((idx, 2 * lo - size))  # 1ᵀy_group = 2n₊ − size
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
            F, f = np.array(F), np.array(f)
            P = np.eye(len(f))
            if np.any(f != 0):
                P -= np.outer(f, f) / np.dot(f, f)
            U, svals, _ = np.linalg.svd(F.T @ P, full_matrices=False)
            self.null = U[:, svals > 1e-9 * max(1.0, np.abs(F).max())]
        self.keep_constraints = not (
            isinstance(labelset, SemiSupervised)
            or (isinstance(labelset, Clustering) and labelset.max_positive * 2 == n))

    @property
    def trivial(self):
        return self.dim == len(self.index) and np.array_equal(self.index, np.arange(self.dim)) \
            and bool(np.all(self.sign == 1.0))

    def reflectors(self):
        """Householder reflectors ``(v, τ)``: ``Q = H_0 ⋯ H_{k−1}``, ``Q[:, :k]`` spans ``null``."""
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
        """``N``: orthonormal basis (dim, dim − k) of the complement of ``null``."""
        Q = np.eye(self.dim)
        for v, tau in reversed(self.reflectors()):
            Q -= tau * np.outer(v, v @ Q)
        return Q[:, self.null.shape[1]:]

    def expand(self):
        """``G`` (n, dim − k) with ``M = G X Gᵀ``."""
        n = len(self.index)
        E = np.zeros((n, self.dim))
        E[np.arange(n), self.index] = self.sign
        return E @ self.basis()


# ---------------------------------------------------------------------------------------------
# The CVXPY model
# ---------------------------------------------------------------------------------------------
def _build(problem, face, formulation):
    """The SDP as a CVXPY problem and the handles the certificate needs."""
    import cvxpy as cp

    n = problem.n_samples
    K = problem.kernel_matrix()
    c = problem.costs
    k = face.null.shape[1]
    X = cp.Variable((face.dim - k, face.dim - k), PSD=True)
    constraints = []
    M_lift = X
    if k:
        # M̃ = H_0 ⋯ H_{k−1} [[0, 0], [0, X]] H_{k−1} ⋯ H_0 with auxiliaries w = M̃v, ω = vᵀw
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
    if face.trivial:
        M = M_lift
    else:
        M = cp.multiply(np.outer(face.sign, face.sign), M_lift[face.index, :][:, face.index])
    set_constraints = problem.labelset.sdp_constraints(M) if face.keep_constraints else []
    KM = cp.multiply(K, M)
    lam, nu = cp.Variable(n), cp.Variable(n)
    lam_pos, nu_pos = lam >= 0, nu >= 0
    z = 1 + lam - nu
    if formulation == "schur":
        t = cp.Variable()
        zc = cp.reshape(z, (n, 1), order="C")
        lmi = cp.bmat([[KM, zc], [zc.T, cp.reshape(2 * t, (1, 1), order="C")]]) >> 0
        prob = cp.Problem(cp.Minimize(t + c @ nu),
                          constraints + set_constraints + [lam_pos, nu_pos, lmi])
    else:
        prob = cp.Problem(cp.Minimize(0.5 * cp.matrix_frac(z, KM) + c @ nu),
                          constraints + set_constraints + [lam_pos, nu_pos])
    handles = {"X": X, "diag": diag, "set_constraints": set_constraints, "lam_pos": lam_pos,
               "K": K}
    return prob, handles


# ---------------------------------------------------------------------------------------------
# The certificate
# ---------------------------------------------------------------------------------------------
def _multiplier_form(problem, face, handles):
    """``(A_μ, f_μ)`` in X-space: ``Σ_c μ_cᵀ e_c(X) = ⟨A_μ, X⟩ + f_μ`` with ``μ`` twice the
    solver's multipliers (projected to ``μ ≥ 0`` on inequalities)."""
    import cvxpy as cp

    N = face.basis()
    G = face.expand()
    y = handles["diag"].dual_value
    y = np.zeros(face.dim) if y is None else 2.0 * np.asarray(y, dtype=float).ravel()
    A = N.T @ (y[:, None] * N)  # Σ_i y_i (diag M̃)_i = ⟨Nᵀ Diag(y) N, X⟩
    f0 = -float(y.sum())
    if handles["set_constraints"]:
        # the same constraints on a plain matrix variable give the adjoint in M-space
        n = problem.n_samples
        M_probe = cp.Variable((n, n))
        probe = problem.labelset.sdp_constraints(M_probe)
        terms = []
        for solved, con in zip(handles["set_constraints"], probe):
            mu = solved.dual_value
            if mu is None:
                continue
            mu = 2.0 * np.asarray(mu, dtype=float)
            if isinstance(con, cp.constraints.Inequality):  # e(M) = lhs − rhs ≤ 0
                mu = np.maximum(mu, 0.0)
            elif not isinstance(con, cp.constraints.Equality):
                continue  # a zero multiplier keeps the bound valid
            terms.append(cp.sum(cp.multiply(np.reshape(mu, con.expr.shape), con.expr)))
        if terms:
            M_probe.value = np.zeros((n, n))
            lagrangian = cp.sum(cp.hstack(terms))
            A_M = np.asarray(lagrangian.grad[M_probe].todense()).reshape(n, n, order="F")
            A += G.T @ (0.5 * (A_M + A_M.T)) @ G
            f0 += float(lagrangian.value)
    return G, A, f0


def _certified_bound(alpha, K, G, A, f0, dim):
    """``1ᵀα − ½ (−f_μ + dim · λ_max(GᵀHG − A_μ))`` with ``H = K ∘ ααᵀ``."""
    GH = G * alpha[:, None]
    S = GH.T @ K @ GH - A
    S = 0.5 * (S + S.T)
    eig = np.linalg.eigvalsh(S)
    # eigvalsh is backward stable: errors below a few ulps of ‖S‖ per dimension
    lam_max = eig[-1] + 10 * dim * np.finfo(float).eps * max(abs(eig[0]), abs(eig[-1]))
    return float(alpha.sum() - 0.5 * (-f0 + dim * lam_max))


def _best_response_alpha(K, M, c):
    """The SVM dual solution for the label kernel ``K ∘ M`` (``M`` projected onto PSD)."""
    w, V = np.linalg.eigh(0.5 * (M + M.T))
    M_psd = (V * np.maximum(w, 0.0)) @ V.T
    R = kernels.factor(K * M_psd)
    n = len(c)
    sol = solve_box_qp(R, np.arange(n, dtype=np.int64), np.ones(n), c, tol=1e-8,
                       max_epochs=20000)
    return sol.alpha


# ---------------------------------------------------------------------------------------------
# The solver
# ---------------------------------------------------------------------------------------------
def _check_options(problem, solver, solver_options, formulation, max_n):
    from .problem import WeakLabelProblem

    if not isinstance(problem, WeakLabelProblem):
        raise TypeError(f"`problem` must be a WeakLabelProblem. Got {type(problem).__name__}.")
    labelset = problem.labelset
    if not isinstance(labelset, SUPPORTED_LABELSETS):
        names = ", ".join(cls.__name__ for cls in SUPPORTED_LABELSETS)
        raise ValueError(f"The SDP relaxation supports the label sets {names}. Got "
                         f"{type(labelset).__name__} instead; use method=\"label_generation\".")
    if formulation not in _FORMULATIONS:
        raise ValueError(f"`formulation` must be one of {_FORMULATIONS}. Got {formulation!r} "
                         "instead.")
    if max_n is None:
        max_n = DEFAULT_MAX_N
    if problem.n_samples > max_n:
        raise ValueError(
            f"The SDP has O(n²) variables: n_samples={problem.n_samples} is above "
            f"`max_n`={max_n} (measured practical limit: TODO). Use "
            "method=\"label_generation\" for large problems, or pass a larger `max_n`.")
    if solver_options is not None and not isinstance(solver_options, dict):
        raise ValueError("`solver_options` must be a dict of keyword arguments for the solver. "
                         f"Got {type(solver_options).__name__} instead.")
    import cvxpy as cp

    if not isinstance(solver, str) or solver.upper() not in cp.installed_solvers():
        raise ValueError(f"`solver` must be one of the installed CVXPY solvers "
                         f"{cp.installed_solvers()}. Got {solver!r} instead.")
    return solver.upper()


def solve_sdp(problem, solver="SCS", solver_options=None, formulation="schur", verbose=0,
              max_n=None, reduce=True):
    """draft"""
    start = time.perf_counter()
    solver = _check_options(problem, solver, solver_options, formulation, max_n)
    import cvxpy as cp

    labelset = problem.labelset
    face = _Face(labelset, reduce=reduce)
    prob, handles = _build(problem, face, formulation)
    options = {**DEFAULT_SOLVER_OPTIONS.get(solver, {}), **(solver_options or {})}
    try:
        prob.solve(solver=solver, verbose=verbose >= 2, **options)
    except cp.error.SolverError as exc:
        raise SolverError(solver, "error", str(exc)) from exc
    status = prob.status
    if status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE) or handles["X"].value is None:
        raise SolverError(solver, str(status), "SDP relaxation (weakcvx.sdp.solve_sdp)")
    solver_value = float(prob.value)

    # M from X
    N = face.basis()
    M_lift = N @ handles["X"].value @ N.T
    s = face.sign
    M = s[:, None] * M_lift[np.ix_(face.index, face.index)] * s[None, :]
    M = 0.5 * (M + M.T)

    # certified lower bound
    c = problem.costs
    G, A, f0 = _multiplier_form(problem, face, handles)
    K = handles["K"]
    candidates = []
    if handles["lam_pos"].dual_value is not None:
        candidates.append(np.clip(np.asarray(handles["lam_pos"].dual_value, float), 0.0, c))
    candidates.append(_best_response_alpha(K, M, c))
    bounds = [_certified_bound(a, K, G, A, f0, face.dim) for a in candidates]
    best = int(np.argmax(bounds))
    value, alpha = bounds[best], candidates[best]

    # rounding: leading eigenvector of M, then the exact oracle
    w, V = np.linalg.eigh(M)
    v = V[:, -1]
    if isinstance(labelset, SemiSupervised):
        if np.dot(v[labelset.labeled], labelset.y_known[labelset.labeled]) < 0:
            v = -v
        labels, upper, _ = round_scores(problem, v)
    else:
        labels, upper, _ = round_scores(problem, v, candidates=[labelset.argmax(-v)])

    message = f"{solver} status {status}"
    if status == cp.OPTIMAL_INACCURATE:
        warnings.warn(f"SDP relaxation: solver {solver!r} returned status {status!r}; the "
                      "reported value is still a certified lower bound (weak duality from the "
                      "returned dual point) but may be loose: certificate gap "
                      f"{solver_value - value:.3g}.", ConvergenceWarning, stacklevel=2)
    n_iter = int(getattr(prob.solver_stats, "num_iters", 0) or 0)
    seconds = time.perf_counter() - start
    if verbose:
        logger.info("sdp: %s %s value=%.6g (solver %.6g) J(labels)=%.6g %.2fs", solver, status,
                    value, solver_value, upper, seconds)
    return SolveResult(
        method="sdp", value=value, labels=labels, upper_bound=upper, certified=True,
        status=status, message=message, n_iter=n_iter, seconds=seconds,
        history=[{"iteration": n_iter, "value": value, "solver_value": solver_value}],
        alpha=alpha,
        extra={"M": M, "solver": solver, "status": status, "solver_value": solver_value,
               "certificate_gap": solver_value - value, "formulation": formulation,
               "reduced": reduce, "solver_options": options})
