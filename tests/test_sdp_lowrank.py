"""The low-rank SDP (weakcvx.lowrank_sdp): the certificate against CVXPY's φ, the solver against
the CVXPY model, the ladder by enumeration, the dispatch and the errors.

Tolerances: the CVXPY references use Clarabel (interior point, ~1e-7 relative) for the inner
φ and SCS at eps 1e-7 plus weakcvx.sdp's own certified polish for the SDP value; §3.10 notes
that these solvers may return ``optimal_inaccurate``, so the SDP comparisons use sdp.py's
*certified* value (a lower bound) and its solver objective (approximately the optimum) as a
bracket, and ask the low-rank value to lie in it up to ``AGREE_RTOL = 1e-3`` below
(the issue's agreement target) and ``VALID_RTOL`` above (SCS's objective at eps 1e-7 is within
~1e-5 of the optimum on these sizes).
"""

import warnings

import numpy as np
import pytest

import weakcvx as wc
from weakcvx import lowrank_sdp as L
from weakcvx.result import SolverError
from weakcvx.sdp import solve_sdp
from weakcvx.svm import box_qp_cvxpy, solve_box_qp_newton

AGREE_RTOL = 1e-3
VALID_RTOL = 1e-5
TIGHT_SCS = {"eps_abs": 1e-7, "eps_rel": 1e-7, "max_iters": 200000}


def _moons(n, kind, C=1.0, seed=0, formulation=None):
    X, y, y_known = wc.datasets.make_two_moons(n, n_labeled=2, random_state=seed)
    K = wc.kernels.rbf(X, gamma=2.0)
    if kind == "ssl":
        labelset = wc.labelsets.SemiSupervised(y_known)
    elif kind == "clustering":
        labelset = wc.labelsets.Clustering(n, beta=0)
    else:  # three bags with their exact proportions
        bags = np.arange(n) % 3
        labelset = wc.labelsets.Proportions(bags, [np.mean(y[bags == b] > 0) for b in range(3)])
    if formulation is not None:
        return wc.WeakLabelProblem(K, labelset, formulation=formulation(C=C), y_true=y)
    return wc.WeakLabelProblem(K, labelset, costs=C, y_true=y)


def _phi_cvxpy(problem, alpha):
    """max ⟨H_α, M⟩ over M ⪰ 0, diag M = 1 and the label set's SDP constraints (Clarabel)."""
    import cvxpy as cp

    n = problem.n_samples
    H = alpha[:, None] * problem.kernel_matrix() * alpha[None, :]
    M = cp.Variable((n, n), PSD=True)
    prob = cp.Problem(cp.Maximize(cp.trace(H @ M)),
                      [cp.diag(M) == 1] + problem.labelset.sdp_constraints(M))
    prob.solve(solver="CLARABEL")
    return float(prob.value)


# -- the certificate ------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["ssl", "clustering", "proportions"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_certificate_brackets_cvxpy_phi(kind, seed):
    """On random α, ⟨H, M⟩ at the mixing method's feasible M ≤ φ(H_α) ≤ the certificate."""
    problem = _moons(12, kind, seed=seed)
    rng = np.random.default_rng(seed)
    alpha = rng.uniform(0, 1, problem.n_samples) * problem.costs
    alpha[rng.random(problem.n_samples) < 0.3] = 0.0
    cert = L.certify(problem, alpha, max_sweeps=5000)
    assert np.allclose(cert.alpha, cert.scale * alpha)  # the multiple of α certified
    phi = _phi_cvxpy(problem, cert.alpha)
    tol = 1e-6 * max(1.0, abs(phi))
    assert cert.phi_upper >= phi - tol
    assert cert.phi_lower <= phi + tol
    assert cert.value == pytest.approx(cert.alpha.sum() - 0.5 * cert.phi_upper)
    # the mixing method solves the inner SDP: the bracket is tight
    assert cert.phi_gap <= 1e-3 * max(1.0, abs(phi))


@pytest.mark.parametrize("kind", ["ssl", "clustering", "proportions"])
def test_certificate_at_the_best_multiple_of_a_hull_alpha(kind):
    """At label generation's α the certificate moves to t*·α: t* maximises the concave
    t·1ᵀα − ½t²φ̄ (so 1ᵀ(t*α) = φ̄(t*α) when t* is inside the box), the value is never below
    the one at α itself, and it stays below the SDP optimum solved by CVXPY (an independent
    solver): a valid bound, not just a larger number."""
    problem = _moons(12, kind, C=10.0)
    hull = wc.solve(problem, method="label_generation")
    cert = L.certify(problem, hull.alpha, max_sweeps=5000)
    at_alpha = hull.alpha.sum() - 0.5 * cert.phi_upper / cert.scale ** 2
    assert cert.value >= at_alpha - 1e-9
    assert np.all(cert.alpha <= problem.costs + 1e-12)
    if cert.scale * hull.alpha.max() < 10.0 - 1e-9:  # t* inside the box: stationary in t
        assert cert.alpha.sum() == pytest.approx(cert.phi_upper, rel=1e-9)
    sdp = solve_sdp(problem, solver="SCS", solver_options=TIGHT_SCS)
    assert cert.value <= sdp.extra["solver_value"] + VALID_RTOL * max(1.0, abs(sdp.value))


def test_certificate_of_a_hull_alpha_is_positive_where_the_unscaled_one_is_not():
    """40 ionosphere rows, 2 labels, C = 1: at label generation's α, f(α) − ½φ̄ is below zero
    (φ(H_α) counts labelings the hull never saw); the best multiple of α certifies a positive
    bound (s²/2φ̄ > 0), below the branch-and-bound optimum."""
    X, y = wc.datasets.load_uci("ionosphere")
    rows = np.random.default_rng(0).choice(len(y), 40, replace=False)
    y = np.where(y[rows] == np.unique(y)[1], 1.0, -1.0)
    y_known = np.zeros(40)
    for s in (1.0, -1.0):
        y_known[np.flatnonzero(y == s)[0]] = s
    problem = wc.WeakLabelProblem(wc.kernels.rbf(X[rows], gamma="mean_distance"),
                                  wc.labelsets.SemiSupervised(y_known), costs=1.0)
    hull = wc.solve(problem, method="label_generation")
    cert = L.certify(problem, hull.alpha)
    at_alpha = hull.alpha.sum() - 0.5 * cert.phi_upper / cert.scale ** 2
    assert at_alpha < 0.0 < cert.value
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exact = wc.solve(problem, method="exact")
    assert exact.certified and cert.value <= exact.value + 1e-6


def test_certificate_without_restriction_is_what_fails():
    """The restriction to the complement of the null directions matters (§3.10): with fixed
    labels and a count every feasible M is singular, and the unrestricted λ_min is very
    negative; the restricted one is not."""
    problem = _moons(20, "ssl")
    alpha = np.full(problem.n_samples, 0.5)
    cert = L.certify(problem, alpha)
    lift = L._Lift(problem.labelset)
    assert lift.null.shape[1] == 1
    A = np.diag(cert.inner.y) - L._LiftedH(problem, lift, alpha).matrix()
    unrestricted = np.linalg.eigvalsh(A)[0]
    assert unrestricted < cert.lambda_min - 1e-3


def test_lanczos_certificate_is_valid_and_close_to_dense():
    problem = _moons(40, "ssl", C=10.0)
    alpha = np.random.default_rng(0).uniform(0, 10, 40)
    inner = L.inner_sdp(problem, alpha)
    dense = L.certify(problem, alpha, inner=inner, eigen="dense")
    lanczos = L.certify(problem, alpha, inner=inner, eigen="lanczos")
    assert lanczos.eigen == "lanczos" and dense.eigen == "dense"
    assert lanczos.lambda_min <= dense.lambda_min + 1e-9
    assert lanczos.value == pytest.approx(dense.value, rel=1e-4)


def test_factor_path_matches_gram_path():
    """Above the Gram limit the kernel enters through its factor: same φ and certificate."""
    X, y, y_known = wc.datasets.make_two_moons(30, n_labeled=2, random_state=0)
    K = wc.kernels.rbf(X, gamma=2.0)
    labelset = wc.labelsets.SemiSupervised(y_known)
    gram = wc.WeakLabelProblem(K, labelset, costs=1.0)
    factor = wc.WeakLabelProblem(K, labelset, costs=1.0, rank=30)
    assert gram.gram is not None and factor.gram is None
    alpha = np.full(30, 0.7)
    a, b = L.certify(gram, alpha), L.certify(factor, alpha)
    assert a.value == pytest.approx(b.value, rel=1e-5)


# -- the certificate through the kernel factor -----------------------------------------------------
def _factor_moons(n, kind, C=1.0, seed=0):
    """The problem of :func:`_moons` given by an exact factor (rank n, no Gram matrix), so
    that the CVXPY references see the same kernel."""
    p = _moons(n, kind, C=C, seed=seed)
    problem = wc.WeakLabelProblem(p.kernel_matrix(), p.labelset, costs=C, rank=n)
    assert problem.gram is None
    return problem


def _random_points(problem, lift, rng):
    """Random (α, y) around the mixing method's y at a random α, then far from it: the
    spectrum's shift must stay below λ_min after large moves of a search."""
    alpha = rng.uniform(0, 1, problem.n_samples) * problem.costs
    y = L.inner_sdp(problem, alpha, _lift=lift).y
    yield alpha, y
    for size in (1e-3, 1e-1, 1.0):
        a = np.clip(alpha + size * rng.standard_normal(alpha.size) * problem.costs, 0.0,
                    problem.costs)
        yield a, y + size * rng.standard_normal(y.size) * np.abs(y).max()


@pytest.mark.parametrize("kind", ["ssl", "clustering", "proportions"])
def test_factor_spectrum_equals_the_dense_one(kind):
    """Shift-invert Lanczos through the factor against the dense ``eigh`` of ``S`` (the same
    compressed matrix): the k smallest eigenvalues to 1e-6 of the spectrum's scale (Lanczos
    at tolerance 1e-10 here), eigenvectors orthogonal to the null directions and spanning the
    same space (a principal angle cosine ≥ 1 − 1e-6 for simple eigenvalues)."""
    problem = _factor_moons(24, kind)
    lift = L._Lift(problem.labelset)
    dense = L._DenseSpectrum(problem, lift)
    factor = L._FactorSpectrum(problem, lift, 6, tol=1e-10)
    rng = np.random.default_rng(1)
    for alpha, y in _random_points(problem, lift, rng):
        lam_d, U_d = dense.bottom(alpha, y)
        lam_f, U_f = factor.bottom(alpha, y)
        scale = max(1.0, np.abs(lam_d).max())
        np.testing.assert_allclose(lam_f, lam_d[:6], atol=1e-6 * scale)
        if lift.null.shape[1]:
            assert np.abs(lift.null.T @ U_f).max() <= 1e-8
        cosines = np.linalg.svd(U_d[:, :6].T @ U_f, compute_uv=False)
        simple = np.all(np.diff(lam_d[:7]) > 1e-6 * scale)
        assert not simple or cosines.min() >= 1 - 1e-6


@pytest.mark.parametrize("spectrum", ["dense", "factor"])
@pytest.mark.parametrize("kind", ["ssl", "clustering"])
def test_smoothed_dual_gradient_matches_central_differences(kind, spectrum):
    """The polish's smoothed dual function (soft minimum of all eigenvalues in double, or of
    the 5 smallest through the factor) against central differences of the same function:
    1e-5 relative (Lanczos at 1e-12; h = 1e-6; α strictly inside its box)."""
    problem = _factor_moons(16, kind)
    lift = L._Lift(problem.labelset)
    spec = (L._DenseSpectrum(problem, lift) if spectrum == "dense"
            else L._FactorSpectrum(problem, lift, 5, tol=1e-12))
    rng = np.random.default_rng(0)
    alpha = rng.uniform(0.1, 0.9, 16) * problem.costs
    y = L.inner_sdp(problem, alpha, _lift=lift).y + 0.05
    x, tau = np.concatenate([alpha, y]), 0.05
    _, grad = L._smoothed_dual(problem, lift, spec, x, tau)
    for _ in range(3):
        direction = rng.standard_normal(x.size)
        h = 1e-6
        plus = L._smoothed_dual(problem, lift, spec, x + h * direction, tau)[0]
        minus = L._smoothed_dual(problem, lift, spec, x - h * direction, tau)[0]
        assert (plus - minus) / (2 * h) == pytest.approx(grad @ direction, rel=1e-5, abs=1e-7)


@pytest.mark.parametrize("kind", ["ssl", "clustering", "proportions"])
@pytest.mark.parametrize("seed", [0, 1])
def test_factor_certificate_bounds_cvxpy_phi(kind, seed):
    """The certificate with the factor's λ_min bound brackets CVXPY's φ (Clarabel): above it,
    and within 1e-3 of it at the mixing method's y."""
    problem = _factor_moons(12, kind, seed=seed)
    rng = np.random.default_rng(seed)
    alpha = rng.uniform(0, 1, 12) * problem.costs
    cert = L.certify(problem, alpha, max_sweeps=5000, eigen="factor")
    phi = _phi_cvxpy(problem, cert.alpha)  # at the multiple of α certified
    tol = 1e-6 * max(1.0, abs(phi))
    assert cert.eigen == "factor"
    assert phi - tol <= cert.phi_upper <= phi + 1e-3 * max(1.0, abs(phi))


@pytest.mark.parametrize("kind", ["ssl", "clustering", "proportions"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_factor_lambda_min_is_a_proven_bound_equal_to_dense(kind, seed):
    """The bisection on the Schur test never exceeds the dense ``λ_min(S)`` (it is a proven
    lower bound) and reaches ``min(λ_min, min y)`` to 1e-9 (relative to the scale of y and H;
    the bisection stops at 1e-12): it is only capped below ``min y``."""
    problem = _factor_moons(14, kind, seed=seed)
    lift = L._Lift(problem.labelset)
    rng = np.random.default_rng(seed)
    alpha = rng.uniform(0, 1, 14) * problem.costs
    H = L._LiftedH(problem, lift, alpha)
    for y in (rng.uniform(0.05, 2.0, lift.dim), L.inner_sdp(problem, alpha, _lift=lift).y):
        dense, _ = L._lambda_min_dense(lift, H, y)
        bound, width = L._lambda_min_factor(lift, H, y)
        scale = max(np.abs(y).max(), H.diag.max())
        assert bound <= dense + 1e-9 * scale
        assert bound >= min(dense, y.min()) - 1e-9 * scale


@pytest.mark.parametrize("kind", ["ssl", "clustering"])
def test_factor_polish_reaches_the_sdp_value(kind):
    """From label generation's α and the mixing method's y there, the polish through the
    factor spectrum ends at a point whose certified value (the factor's proven λ_min bound)
    lies in the bracket of the CVXPY SDP: below its objective, within AGREE_RTOL of its
    certified value."""
    problem = _factor_moons(20, kind)
    lift = L._Lift(problem.labelset)
    hull = wc.solve(problem, method="label_generation")
    y0 = L.inner_sdp(problem, hull.alpha, _lift=lift).y
    spectrum = L._FactorSpectrum(problem, lift, 8)
    alpha, y = L._polish(problem, lift, hull.alpha, y0, 1500, spectrum)
    H = L._LiftedH(problem, lift, alpha)
    value = alpha.sum() - 0.5 * (y.sum() - lift.dim * L._lambda_min_factor(lift, H, y)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = solve_sdp(problem, solver_options=TIGHT_SCS, polish=2000)
    top = max(ref.value, ref.extra["solver_value"])
    assert value <= top + VALID_RTOL * max(1.0, abs(top))
    assert value >= ref.value - AGREE_RTOL * max(1.0, abs(ref.value))


def test_solver_polishes_through_the_factor_above_the_polish_limit(monkeypatch):
    """Above POLISH_LIMIT (lowered here) the rounds polish through the factor: the result stays
    a valid bound of the CVXPY SDP and is no lower than without a polish."""
    problem = _factor_moons(20, "ssl")
    monkeypatch.setattr(L, "POLISH_LIMIT", 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        polished = L.solve_sdp_lowrank(problem, max_iter=2)
        plain = L.solve_sdp_lowrank(problem, max_iter=2, polish=0)
        ref = solve_sdp(problem, solver_options=TIGHT_SCS, polish=2000)
    top = max(ref.value, ref.extra["solver_value"])
    assert polished.value <= top + VALID_RTOL * max(1.0, abs(top))
    assert polished.value >= plain.value - 1e-12


def test_timed_polish_runs_every_temperature_phase(monkeypatch):
    """With ``timed``, each temperature phase ends at its share of the time and the next
    starts from its best point: with the deadline already passed, every phase still runs
    (one evaluation each) and the point returned is the start (the only one evaluated). An
    untimed polish stops at the deadline after its first phase."""
    problem = _moons(16, "ssl")
    lift = L._Lift(problem.labelset)
    alpha = np.full(problem.n_samples, 0.5)
    y = L.inner_sdp(problem, alpha, _lift=lift).y
    taus = []
    real = L._smoothed_dual

    def recording(problem, lift, spectrum, x, tau):
        taus.append(tau)
        return real(problem, lift, spectrum, x, tau)

    monkeypatch.setattr(L, "_smoothed_dual", recording)
    spectrum = L._DenseSpectrum(problem, lift)
    past = L.time.perf_counter() - 1.0
    a, yy = L._polish(problem, lift, alpha, y, 600, spectrum, deadline=past, timed=True)
    assert len(set(taus)) == 3 and len(taus) == 3  # the start's evaluation, then the stop
    np.testing.assert_array_equal(a, alpha)
    np.testing.assert_array_equal(yy, y)
    taus.clear()
    L._polish(problem, lift, alpha, y, 600, spectrum, deadline=past)
    assert len(set(taus)) == 1


def test_factor_schedule_polishes_once_the_primal_stalls_or_time_is_up():
    """With a deadline through the factor the primal rounds run alone while the last one
    gained at least FACTOR_PRIMAL_GAIN and the next would end before ``polish_after``; the
    polish runs on the last round, after a small gain, or when the share of time is spent."""
    problem = _factor_moons(12, "ssl")
    lift = L._Lift(problem.labelset)
    now = L.time.perf_counter()
    state = L._Rounds(problem, lift, 3, 10, "auto", 0, now + 100.0, polish_after=now + 60.0)
    state.primal_seconds, state.primal_gain = 1.0, 0.5
    assert not state._polish_now(last=False)
    assert state._polish_now(last=True)
    state.primal_gain = 0.5 * L.FACTOR_PRIMAL_GAIN
    assert state._polish_now(last=False)
    state.primal_gain, state.primal_seconds = 0.5, 90.0  # the next round would end too late
    assert state._polish_now(last=False)
    state.polish_after = None  # no deadline, or after the first polish: every round
    state.primal_seconds = 0.0
    assert state._polish_now(last=False)


def test_factor_schedule_without_polish_runs_the_primal_every_round(monkeypatch):
    """With ``polish=0`` there is no polish to schedule: every round descends the primal
    (a schedule that skipped the primal for the polish's turn would leave rounds empty)."""
    problem = _factor_moons(20, "ssl")
    monkeypatch.setattr(L, "POLISH_LIMIT", 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runs = [L.solve_sdp_lowrank(problem, max_iter=m, polish=0, primal_steps=5, tol=1e-12)
                for m in (1, 2, 3)]
    evaluations = [r.extra["primal_evaluations"] for r in runs]
    assert evaluations[0] < evaluations[1] < evaluations[2]  # the last round descends too
    assert runs[2].extra["primal_value"] <= runs[0].extra["primal_value"] + 1e-9


def test_polish_falls_back_to_double_when_single_precision_eigh_fails(monkeypatch):
    """LAPACK's single-precision partial eigh can fail (seen inside branch and bound); the
    polish then takes the double-precision one and the run agrees with the CVXPY SDP."""
    real_eigh = L.scipy.linalg.eigh
    calls = {"float32": 0}

    def failing_eigh(a, *args, **kwargs):
        if getattr(a, "dtype", None) == np.float32:
            calls["float32"] += 1
            raise np.linalg.LinAlgError("Internal Error")
        return real_eigh(a, *args, **kwargs)

    monkeypatch.setattr(L.scipy.linalg, "eigh", failing_eigh)
    monkeypatch.setattr(L, "POLISH_EIGEN_COUNT", 4)
    _agree(_moons(20, "ssl"))
    assert calls["float32"] > 0


def test_factor_certificate_needs_a_factor():
    problem = _moons(12, "ssl")
    with pytest.raises(ValueError, match="eigen.*factor.*Gram"):
        L.certify(problem, np.full(12, 0.5), eigen="factor")


# -- the primal descent ------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["ssl", "proportions"])
def test_primal_gradient_is_danskins(kind):
    """The descent's gradient −H̃_{α(M)}V (Danskin) plus the penalty's, through the row
    normalisation, against central differences of g(VVᵀ) (each an independent box-QP solve to
    1e-12); ρ follows α between evaluations and is held at its value here."""
    problem = _moons(16, kind)
    lift = L._Lift(problem.labelset)
    primal = L._PrimalDescent(problem, lift, L.default_rank(lift.dim), random_state=0)
    rng = np.random.default_rng(1)
    U = rng.standard_normal(primal.U.shape)
    _, grad = primal._value_and_gradient(U.ravel())

    primal.alpha = None
    rho = 10.0 * float(np.sum(primal._solve(U / np.linalg.norm(U, axis=1, keepdims=True),
                                            1e-12).alpha ** 2 * primal.kernel_diagonal))

    def g(x):  # the SVM dual value of K ∘ M at the normalised factor, penalty at fixed ρ
        V = x.reshape(U.shape) / np.linalg.norm(x.reshape(U.shape), axis=1, keepdims=True)
        primal.alpha = None
        sol = primal._solve(V, 1e-12)
        P = lift.null.T @ V
        return float(sol.dual_value) + 0.5 * rho * float(np.sum(P * P))

    D = rng.standard_normal(U.shape)
    h = 1e-5
    fd = (g(U.ravel() + h * D.ravel()) - g(U.ravel() - h * D.ravel())) / (2 * h)
    assert np.dot(grad, D.ravel()) == pytest.approx(fd, rel=2e-3, abs=1e-6)


def test_primal_upper_bound_is_valid_on_both_kernel_paths():
    """g at any feasible factor bounds the SDP from above: against CVXPY's value, through the
    Gram matrix and through the kernel factor (the same number)."""
    values = []
    for rank in (None, 20):
        problem = wc.WeakLabelProblem(_moons(20, "ssl").kernel_matrix(),
                                      _moons(20, "ssl").labelset, costs=1.0, rank=rank)
        lift = L._Lift(problem.labelset)
        primal = L._PrimalDescent(problem, lift, L.default_rank(lift.dim), random_state=0)
        values.append(primal.run(30))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = solve_sdp(_moons(20, "ssl"), solver_options=TIGHT_SCS, polish=2000)
    assert values[0] == pytest.approx(values[1], rel=1e-3)
    assert min(values) >= ref.value - VALID_RTOL * max(1.0, abs(ref.value))


def test_hadamard_factor_operator_is_k_circ_wwt():
    """The factor-path operator of the primal QP against the formed K ∘ WWᵀ: products,
    blocks, and the active-set solve through it (same optimum as on the explicit matrix)."""
    rng = np.random.default_rng(0)
    R = rng.standard_normal((70, 12))
    W = rng.standard_normal((70, 5))
    W /= np.linalg.norm(W, axis=1, keepdims=True)
    Q = (R @ R.T) * (W @ W.T)
    op = L._HadamardFactor(R, W)
    a = rng.random(70)
    np.testing.assert_allclose(op.matvec(a), Q @ a, rtol=1e-12, atol=1e-12)
    rows, cols = [3, 9, 40], [0, 9, 69, 12]
    np.testing.assert_allclose(op.block(rows, cols), Q[np.ix_(rows, cols)], rtol=1e-12)
    through_op = solve_box_qp_newton(op, 2.0, tol=1e-10)
    explicit = box_qp_cvxpy(Q, 2.0)[0]
    assert through_op.converged
    assert through_op.dual_value == pytest.approx(explicit, rel=1e-7)


# -- the solver against the CVXPY model -------------------------------------------------------------
def _agree(problem):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = solve_sdp(problem, solver_options=TIGHT_SCS, polish=2000)
        res = L.solve_sdp_lowrank(problem, max_iter=30)
    top = max(ref.value, ref.extra["solver_value"])
    assert res.certified
    assert res.value <= top + VALID_RTOL * max(1.0, abs(top))   # a valid lower bound
    assert res.value >= ref.value - AGREE_RTOL * max(1.0, abs(ref.value))
    assert res.value <= res.extra["primal_value"] + 1e-9        # the bracket is ordered
    assert problem.labelset.contains(res.labels)
    assert res.upper_bound == pytest.approx(problem.J(res.labels)[0], rel=1e-5)
    return res, ref


@pytest.mark.parametrize("kind", ["ssl", "clustering", "proportions"])
def test_agrees_with_cvxpy_small(kind):
    _agree(_moons(20, kind))


@pytest.mark.slow
@pytest.mark.parametrize("n", [60, 100])
@pytest.mark.parametrize("kind", ["ssl", "clustering", "proportions"])
def test_agrees_with_cvxpy(kind, n):
    _agree(_moons(n, kind, C=10.0 if kind == "ssl" else 1.0))


@pytest.mark.parametrize("kind", ["ssl", "clustering", "proportions"])
def test_stopped_early_the_best_multiple_is_returned_and_stays_valid(kind):
    """After one round without polish the returned value is the best multiple's: not below
    the certificate at the point visited, attained at ``scale · α`` of that point, and below
    the SDP optimum of the CVXPY model (a valid bound, however far from converged)."""
    problem = _moons(20, kind, C=10.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = L.solve_sdp_lowrank(problem, max_iter=1, polish=0, primal_steps=3)
        ref = solve_sdp(problem, solver_options=TIGHT_SCS, polish=2000)
    cert = res.extra["certificate"]
    at_point = cert.alpha.sum() / cert.scale - 0.5 * cert.phi_upper / cert.scale ** 2
    assert res.value == pytest.approx(cert.value) and res.value >= at_point - 1e-9
    assert res.value == pytest.approx(cert.alpha.sum() - 0.5 * cert.phi_upper)
    top = max(ref.value, ref.extra["solver_value"])
    assert res.value <= top + VALID_RTOL * max(1.0, abs(top))


@pytest.mark.parametrize("kind", ["ssl", "clustering"])
def test_agrees_with_cvxpy_for_the_squared_hinge(kind):
    # a non-hinge formulation: its fast path (the box QP of K + diag(1/2c)) is all the
    # low-rank solver sees; the CVXPY Schur model solves the same SDP
    _agree(_moons(20, kind, formulation=wc.formulations.SquaredHinge))


# -- the ladder by enumeration ----------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ladder_sdp_below_hull_below_exact(seed):
    from conftest import random_ssl_problem

    problem = random_ssl_problem(seed, n=10, n_labeled=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sdp = L.solve_sdp_lowrank(problem, max_iter=10)
        hull = wc.solve(problem, method="label_generation", oracle="exact")
        exact = wc.solve(problem, method="exact", algorithm="enumerate")
    rtol = 1e-5
    assert sdp.value <= hull.value + rtol * max(1.0, abs(hull.value))
    assert hull.value <= exact.value + rtol * max(1.0, abs(exact.value))
    assert exact.value <= sdp.upper_bound + rtol * max(1.0, abs(exact.value))
    # the certificate at the hull's α is a lower bound of the MIP too
    assert L.certify(problem, hull.alpha).value <= exact.value + rtol


def test_compare_gives_the_hull_rung_a_certified_bound():
    from conftest import random_ssl_problem

    problem = random_ssl_problem(3, n=10, n_labeled=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = wc.compare(problem, methods=["label_generation", "exact"])
    hull, exact = table["label_generation"], table["exact"]
    assert hull.lower_bound is not None
    assert hull.lower_bound <= exact.value + 1e-6
    assert "certified" in str(table)


# -- dispatch ---------------------------------------------------------------------------------------
def test_solve_picks_lowrank_by_size_and_solver_overrides(monkeypatch):
    from weakcvx import sdp

    problem = _moons(20, "ssl")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = wc.solve(problem, method="sdp", solver="lowrank", max_iter=3)
        assert res.extra["solver"] == "lowrank"
        monkeypatch.setattr(sdp, "DEFAULT_MAX_N", 10)
        res = wc.solve(problem, method="sdp", max_iter=3)
        assert res.extra["solver"] == "lowrank"
        monkeypatch.setattr(sdp, "DEFAULT_MAX_N", 200)
        res = wc.solve(problem, method="sdp")
        assert res.extra["solver"] == "SCS"
    with pytest.raises(ValueError, match="`solver` must be"):
        wc.solve(problem, method="sdp", solver=3)


# -- errors -----------------------------------------------------------------------------------------
def test_errors():
    problem = _moons(12, "ssl")
    with pytest.raises(ValueError, match="`alpha` must have shape"):
        L.certify(problem, np.ones(3))
    with pytest.raises(ValueError, match=r"`alpha` must lie in the box"):
        L.certify(problem, np.full(12, 5.0))
    with pytest.raises(ValueError, match="`alpha` must contain only finite"):
        L.certify(problem, np.full(12, np.nan))
    with pytest.raises(TypeError, match="`problem` must be a WeakLabelProblem"):
        L.certify("problem", np.ones(12))
    with pytest.raises(ValueError, match="`eigen` must be"):
        L.certify(problem, np.ones(12), eigen="qr")
    with pytest.raises(ValueError, match="`tol` must be"):
        L.solve_sdp_lowrank(problem, tol=2.0)
    with pytest.raises(ValueError, match="`max_iter` must be a positive integer"):
        L.solve_sdp_lowrank(problem, max_iter=0)
    with pytest.raises(ValueError, match="`time_limit` must be"):
        L.solve_sdp_lowrank(problem, time_limit=-1)
    with pytest.raises(ValueError, match="`primal_steps` must be a positive integer"):
        L.solve_sdp_lowrank(problem, primal_steps=0)
    with pytest.raises(ValueError, match="`polish` must be"):
        L.solve_sdp_lowrank(problem, polish=-3)
    custom = wc.labelsets.Enumerated([np.ones(12), -np.ones(12)])
    with pytest.raises(ValueError, match="count_constraints"):
        L.certify(wc.WeakLabelProblem(problem.kernel_matrix(), custom), np.ones(12))


def test_ranges_are_dropped_with_a_warning_and_stay_below_the_mip():
    problem = wc.WeakLabelProblem(_moons(10, "ssl").kernel_matrix(),
                                  wc.labelsets.Clustering(10, beta=2), costs=1.0)
    with pytest.warns(UserWarning, match="range of counts"):
        res = L.solve_sdp_lowrank(problem, max_iter=5)
    exact = wc.solve(problem, method="exact", algorithm="enumerate")
    assert res.extra["dropped_ranges"] == 1
    assert res.value <= exact.value + 1e-6


def test_compare_runs_the_lowrank_rung_above_the_cvxpy_limit(monkeypatch):
    """Above SDP_MAX_N the ladder gets its SDP rung from the low-rank solver, under compare's
    time limit, certified, below the hull and the optimum (enumerated)."""
    from weakcvx import ladder, sdp

    monkeypatch.setattr(ladder, "SDP_MAX_N", 8)
    monkeypatch.setattr(sdp, "DEFAULT_MAX_N", 8)
    problem = _moons(12, "ssl", C=2.0)
    assert "sdp" in [m[0] for m in ladder._default_plan(problem)[0]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = wc.compare(problem, methods=["sdp", "label_generation", "exact"], time_limit=30)
        exact = wc.solve(problem, method="exact", algorithm="enumerate")
    rung = table["sdp"]
    assert rung.result.extra["solver"] == "lowrank" and rung.result.certified
    assert rung.result.value <= table["label_generation"].result.value + 1e-6
    assert rung.result.value <= exact.value + 1e-6
    monkeypatch.setattr(ladder, "LOWRANK_SDP_MAX_N", 10)
    assert "sdp" in [name for name, _ in ladder._default_plan(problem)[1]]


def test_factor_spectrum_with_non_finite_input_raises_solver_error():
    """A dual point with a NaN never passes the shift's Schur test: a clear error, not a hang."""
    problem = _factor_moons(12, "ssl")
    lift = L._Lift(problem.labelset)
    spectrum = L._FactorSpectrum(problem, lift, 4)
    y = np.ones(lift.dim)
    y[3] = np.nan
    with pytest.raises(SolverError, match="no shift below"):
        spectrum.bottom(np.full(12, 0.5), y)
