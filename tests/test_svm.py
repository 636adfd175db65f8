"""Tests of the box-QP solvers in ``weakcvx.svm``.

Properties checked (each can fail): the numba coordinate descent reaches the CVXPY reference
value; the CSR kernel, the dense kernel and the NumPy twin agree; weak duality and the gap
identity; KKT conditions of the returned α; warm starts; m ≠ n supports; agreement with
LIBLINEAR (scikit-learn's LinearSVC) as an independent solver; input validation.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from weakcvx.result import SolverError
from weakcvx.svm import (
    BoxQPSolution,
    box_qp_cvxpy,
    label_kernel,
    solve_box_qp,
    svm_objective,
)

# A solve that stops at max_epochs would make the checks below meaningless: fail instead.
pytestmark = pytest.mark.filterwarnings("error::sklearn.exceptions.ConvergenceWarning")

# ---------------------------------------------------------------------------------------------
# Random problems
# ---------------------------------------------------------------------------------------------


def _rbf_factor(X, gamma):
    """A full-rank factor R of the RBF kernel (K = R Rᵀ) by eigendecomposition."""
    d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    lam, V = np.linalg.eigh(np.exp(-gamma * d2))
    return np.ascontiguousarray(V * np.sqrt(np.clip(lam, 0.0, None)))


def make_problem(seed, n_labels=1, n=None, factor="lowrank", costs="per_point"):
    """Random box-QP instance: (R, rows, signs, mu, c), rows = arange(n) for every label."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 61)) if n is None else n
    if factor == "lowrank":  # rank-deficient Q: α not unique, many interior coordinates
        R = rng.normal(size=(n, int(rng.integers(2, 12))))
    elif factor == "rbf":
        X = rng.normal(size=(n, 2))
        R = _rbf_factor(X, gamma=rng.uniform(0.2, 2.0))
    else:  # "full": random full-rank Gram matrix
        R = rng.normal(size=(n, n + 5)) / np.sqrt(n)
    rows = np.tile(np.arange(n), (n_labels, 1))
    signs = rng.choice([-1.0, 1.0], size=(n_labels, n))
    mu = rng.dirichlet(np.ones(n_labels)) if n_labels > 1 else np.array([rng.uniform(0.5, 2.0)])
    c = rng.uniform(0.05, 5.0, size=n) if costs == "per_point" else float(rng.uniform(0.1, 10))
    return R, rows, signs, mu, c


def gradient(Q, alpha):
    """Gradient of the minimisation form ½αᵀQα − 1ᵀα."""
    return Q @ alpha - 1.0


def projected_gradient(Q, alpha, c):
    g = gradient(Q, alpha)
    c = np.broadcast_to(c, alpha.shape)
    return np.where(alpha == 0.0, np.minimum(g, 0.0), np.where(alpha == c, np.maximum(g, 0.0), g))


def kkt_tolerance(Q, tol):
    """Bound on |PG_i| after an epoch in which every visited |PG_j| < tol.

    Coordinate i is exact after its own update; each later update δ_j (|δ_j| ≤ tol / Q_jj)
    moves G_i by Q_ij δ_j, so |PG_i| ≤ tol · Σ_{j≠i} |Q_ij| / Q_jj. Plus rounding of Qα
    (1e-12 · scale).
    """
    d = np.diag(Q).copy()
    ratio = np.divide(np.abs(Q), d[None, :], out=np.zeros_like(Q), where=d[None, :] > 0)
    np.fill_diagonal(ratio, 0.0)
    return tol * ratio.sum(axis=1).max() + 1e-12 * max(1.0, np.abs(Q).sum(axis=1).max())


# Dual coordinate descent needs thousands of epochs on rank-deficient Q with many points at a
# bound (measured: rank 8, m = 54: 1,500-6,000 epochs, as many as LIBLINEAR on the same problem)
# before the projected gradient drops; tight-tolerance tests allow that many.
MAX_EPOCHS = 100_000

PROBLEMS = [
    pytest.param(seed, T, factor, costs, id=f"s{seed}-T{T}-{factor}-{costs}")
    for seed, (T, factor, costs) in enumerate(
        [
            (1, "lowrank", "per_point"),
            (1, "rbf", "scalar"),
            (1, "full", "per_point"),
            (3, "lowrank", "scalar"),
            (3, "rbf", "per_point"),
            (3, "full", "per_point"),
            (1, "rbf", "per_point"),
            (3, "rbf", "scalar"),
        ]
    )
]


# ---------------------------------------------------------------------------------------------
# Against the CVXPY reference
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed, T, factor, costs", PROBLEMS)
def test_value_matches_cvxpy_reference(seed, T, factor, costs):
    R, rows, signs, mu, c = make_problem(seed, T, factor=factor, costs=costs)
    sol = solve_box_qp(R, rows, signs, c, mu, tol=1e-8, max_epochs=MAX_EPOCHS)
    assert sol.converged
    ref_value, ref_alpha = box_qp_cvxpy(label_kernel(R, rows, signs, mu), c)
    # Clarabel stops at a relative duality gap of 1e-8 and the coordinate descent's gap at
    # tol=1e-8 is ~1e-8 relative (checked below), so 1e-6 leaves two orders of margin.
    scale = max(1.0, abs(ref_value))
    assert abs(sol.dual_value - ref_value) <= 1e-6 * scale
    # The reference must lie in the certified bracket [dual, primal] (same 1e-6 slack for the
    # reference's own inaccuracy).
    assert sol.dual_value - 1e-6 * scale <= ref_value <= sol.primal_value + 1e-6 * scale
    assert sol.gap <= 1e-6 * scale


def test_cvxpy_reference_solvers_agree():
    R, rows, signs, mu, c = make_problem(11, 3, factor="rbf")
    Q = label_kernel(R, rows, signs, mu)
    values = [box_qp_cvxpy(Q, c, solver=s)[0] for s in ("CLARABEL", "OSQP", "SCS")]
    sol = solve_box_qp(R, rows, signs, c, mu, tol=1e-8, max_epochs=MAX_EPOCHS)
    # SCS and OSQP default tolerances (~1e-4 relative on residuals) bound this check.
    np.testing.assert_allclose(values, sol.dual_value, rtol=1e-3)


@pytest.mark.filterwarnings("ignore:Solution may be inaccurate:UserWarning")
def test_cvxpy_reference_failure_raises_solver_error():
    R, rows, signs, mu, c = make_problem(1, 1, factor="full")
    Q = label_kernel(R, rows, signs, mu)
    with pytest.raises(SolverError, match="CLARABEL.*user_limit"):
        box_qp_cvxpy(Q, c, solver="CLARABEL", solver_options={"max_iter": 1})


def test_cvxpy_reference_inaccurate_warns():
    R, rows, signs, mu, c = make_problem(1, 1, factor="full")
    Q = label_kernel(R, rows, signs, mu)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # CVXPY's own "may be inaccurate"
        with pytest.warns(ConvergenceWarning, match="optimal_inaccurate"):
            box_qp_cvxpy(Q, c, solver="SCS", solver_options={"max_iters": 5})


# ---------------------------------------------------------------------------------------------
# Implementations agree with each other
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("T", [1, 3])
@pytest.mark.parametrize("shrinking", [True, False])
def test_csr_kernel_equals_dense_kernel(T, shrinking):
    rng = np.random.default_rng(5)
    n, d = 50, 30
    X = sp.random(n, d, density=0.2, format="csr", random_state=rng)
    X.data = rng.normal(size=X.nnz)
    _, rows, signs, mu, c = make_problem(5, T, n=n)
    options = dict(tol=1e-8, shrinking=shrinking, max_epochs=MAX_EPOCHS)
    sparse = solve_box_qp(X, rows, signs, c, mu, **options)
    dense = solve_box_qp(X.toarray(), rows, signs, c, mu, **options)
    # Same coordinate order, and a CSR dot product adds the same non-zero terms in the same
    # order as the dense one (the skipped terms are exact zeros): identical up to rounding.
    assert sparse.n_epochs == dense.n_epochs
    np.testing.assert_allclose(sparse.alpha, dense.alpha, rtol=0, atol=1e-10)
    np.testing.assert_allclose(sparse.dual_value, dense.dual_value, rtol=1e-12)
    np.testing.assert_allclose(sparse.primal_value, dense.primal_value, rtol=1e-12)


@pytest.mark.parametrize("sparse_input", [False, True])
@pytest.mark.parametrize("T", [2, 5])
def test_shared_weight_kernels_equal_the_plain_ones(sparse_input, T, monkeypatch):
    """Sign vectors over the same rows that agree on most points (a working set): the kernels
    that split the weights into shared and per-label parts (:func:`_cd_dense_shared`,
    :func:`_cd_csr_shared`) take the same coordinate steps as the per-label kernels
    (``_cd_dense``, ``_cd_csr``, reached here by routing around the split)."""
    import weakcvx.svm as svm

    R, rows, signs, mu, c = make_problem(11 + T, T, n=60, factor="full")
    rng = np.random.default_rng(T)
    signs[1:] = signs[0]
    signs[1:, rng.random(60) < 0.2] *= -1.0  # a fifth of the points disagree
    assert 0 < np.mean(np.any(signs != signs[0], axis=0)) < 0.5
    if sparse_input:
        R = sp.csr_matrix(np.where(np.abs(R) > 0.1, R, 0.0))
    options = dict(tol=1e-8, random_state=3, max_epochs=MAX_EPOCHS)
    calls = []
    shared = svm._cd_shared_rows
    monkeypatch.setattr(svm, "_cd_shared_rows", lambda *a: calls.append(1) or shared(*a))
    split = solve_box_qp(R, rows, signs, c, mu, **options)
    assert calls, "the split kernels must run"

    def per_label_kernels(R_, rows_, signs_, mu_, c_, norms, alpha, tol, max_epochs, seed,
                          shrinking, backend):
        qd = svm._diagonal(norms, rows_, signs_, mu_)
        W = svm._weights_from_alpha(R_, rows_, signs_, alpha)
        args = (rows_, signs_, mu_, c_, qd, alpha, W, tol, max_epochs, seed, shrinking)
        if sp.issparse(R_):
            return svm._cd_csr(R_.indptr, R_.indices, R_.data, *args)
        return svm._cd_dense(R_, *args)

    monkeypatch.setattr(svm, "_cd_factor", per_label_kernels)
    per_label = solve_box_qp(R, rows, signs, c, mu, **options)
    # same coordinate order; the split sums the same terms in another order (1e-15 level)
    assert split.n_epochs == per_label.n_epochs
    np.testing.assert_allclose(split.alpha, per_label.alpha, rtol=0, atol=1e-9)
    np.testing.assert_allclose(split.dual_value, per_label.dual_value, rtol=1e-10)


def test_sparse_factor_is_not_densified_and_other_formats_accepted():
    rng = np.random.default_rng(2)
    X = sp.random(40, 25, density=0.3, format="coo", random_state=rng)
    y = rng.choice([-1.0, 1.0], size=40)
    a = solve_box_qp(X, np.arange(40), y, 1.0, tol=1e-8, max_epochs=MAX_EPOCHS)
    b = solve_box_qp(X.tocsr(), np.arange(40), y, 1.0, tol=1e-8, max_epochs=MAX_EPOCHS)
    assert a.w.shape == (1, 25)
    np.testing.assert_allclose(a.dual_value, b.dual_value, rtol=1e-12)


@pytest.mark.parametrize("sparse_input", [False, True])
@pytest.mark.parametrize("T", [1, 3])
def test_numba_matches_numpy_twin(sparse_input, T):
    R, rows, signs, mu, c = make_problem(7 + T, T, n=30, factor="full")
    if sparse_input:
        R = sp.csr_matrix(np.where(np.abs(R) > 0.1, R, 0.0))
    options = dict(tol=1e-7, random_state=3, max_epochs=MAX_EPOCHS)
    fast = solve_box_qp(R, rows, signs, c, mu, **options)
    slow = solve_box_qp(R, rows, signs, c, mu, **options, backend="numpy")
    # Same algorithm and coordinate order; only the summation order of dot products differs
    # (BLAS vs a loop), which perturbs iterates at the 1e-15 level.
    assert fast.n_epochs == slow.n_epochs
    np.testing.assert_allclose(fast.alpha, slow.alpha, rtol=0, atol=1e-9)
    np.testing.assert_allclose(fast.dual_value, slow.dual_value, rtol=1e-10)


def test_same_seed_same_result_and_seeds_agree_on_value():
    R, rows, signs, mu, c = make_problem(3, 3, factor="rbf")
    options = dict(tol=1e-8, max_epochs=MAX_EPOCHS)
    a = solve_box_qp(R, rows, signs, c, mu, random_state=0, **options)
    b = solve_box_qp(R, rows, signs, c, mu, random_state=0, **options)
    other = solve_box_qp(R, rows, signs, c, mu, random_state=42, **options)
    np.testing.assert_array_equal(a.alpha, b.alpha)
    assert a.n_epochs == b.n_epochs
    # Different orders reach the same optimum: both values are within their gaps of it.
    assert abs(a.dual_value - other.dual_value) <= max(a.gap, other.gap) + 1e-12


# ---------------------------------------------------------------------------------------------
# Optimality certificates
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed, T, factor, costs", PROBLEMS)
def test_weak_duality_and_gap_identity(seed, T, factor, costs):
    R, rows, signs, mu, c = make_problem(seed, T, factor=factor, costs=costs)
    for tol, max_epochs in [(1e-8, MAX_EPOCHS), (1e-2, MAX_EPOCHS), (1e-8, 2)]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            sol = solve_box_qp(R, rows, signs, c, mu, tol=tol, max_epochs=max_epochs)
        scale = max(1.0, abs(sol.primal_value))
        assert sol.primal_value >= sol.dual_value - 1e-12 * scale  # weak duality, any α
        assert np.all(sol.alpha >= 0) and np.all(sol.alpha <= c)
        # gap = Σ_i α_i G_i + c_i max(0, −G_i): the primal and dual evaluated consistently.
        Q = label_kernel(R, rows, signs, mu)
        g = gradient(Q, sol.alpha)
        cc = np.broadcast_to(c, g.shape)
        expected_gap = np.sum(sol.alpha * g + cc * np.maximum(0.0, -g))
        np.testing.assert_allclose(sol.gap, expected_gap, rtol=1e-8, atol=1e-10 * scale)
        # ... hence gap ≤ 2 Σ c_i · max |PG_i|.
        pg = projected_gradient(Q, sol.alpha, c)
        assert sol.gap <= 2 * cc.sum() * np.abs(pg).max() + 1e-10 * scale


@pytest.mark.parametrize("seed, T, factor, costs", PROBLEMS)
def test_kkt_conditions_of_returned_alpha(seed, T, factor, costs):
    R, rows, signs, mu, c = make_problem(seed, T, factor=factor, costs=costs)
    tol = 1e-8
    sol = solve_box_qp(R, rows, signs, c, mu, tol=tol, max_epochs=MAX_EPOCHS)
    Q = label_kernel(R, rows, signs, mu)
    g = gradient(Q, sol.alpha)
    cc = np.broadcast_to(c, g.shape)
    eps = kkt_tolerance(Q, tol)
    at_lower = sol.alpha == 0.0
    at_upper = sol.alpha == cc
    interior = ~(at_lower | at_upper)
    assert np.all(g[at_lower] >= -eps)
    assert np.all(g[at_upper] <= eps)
    assert np.all(np.abs(g[interior]) <= eps)


def test_zero_rows_zero_signs_and_zero_weights():
    rng = np.random.default_rng(4)
    n = 20
    R = rng.normal(size=(n, 5))
    R[[3, 7]] = 0.0  # Q_ii = 0: the gradient is −1, so α_i = c_i
    rows = np.tile(np.arange(n), (2, 1))
    signs = rng.choice([-1.0, 1.0], size=(2, n))
    signs[:, 11] = 0.0  # also Q_ii = 0
    mu = np.array([1.0, 0.0])  # label 1 has no weight but w_1 must still follow α
    c = rng.uniform(0.5, 2.0, n)
    sol = solve_box_qp(R, rows, signs, c, mu, tol=1e-10, max_epochs=MAX_EPOCHS)
    np.testing.assert_array_equal(sol.alpha[[3, 7, 11]], c[[3, 7, 11]])
    expected_w = np.stack([(sol.alpha * signs[t]) @ R for t in range(2)])
    np.testing.assert_allclose(sol.w, expected_w, atol=1e-12)
    ref_value, _ = box_qp_cvxpy(label_kernel(R, rows, signs, mu), c)
    assert abs(sol.dual_value - ref_value) <= 1e-6 * max(1.0, abs(ref_value))


def test_all_weights_zero_puts_alpha_at_upper_bound():
    R, rows, signs, _, c = make_problem(2, 3)
    sol = solve_box_qp(R, rows, signs, c, mu=np.zeros(3))
    np.testing.assert_array_equal(sol.alpha, c)
    assert sol.dual_value == pytest.approx(np.sum(c))
    assert sol.gap == pytest.approx(0.0, abs=1e-12)


# ---------------------------------------------------------------------------------------------
# Warm starts
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("T", [1, 3])
def test_warm_start_from_optimum_converges_in_one_epoch(T):
    R, rows, signs, mu, c = make_problem(20 + T, T, factor="rbf")
    opt = solve_box_qp(R, rows, signs, c, mu, tol=1e-11, max_epochs=MAX_EPOCHS)
    # At tol=1e-11 every projected gradient of the returned α is below kkt_tolerance(Q, 1e-11),
    # far below 1e-6, so the first epoch from it meets the criterion.
    again = solve_box_qp(R, rows, signs, c, mu, alpha0=opt.alpha, tol=1e-6)
    assert again.n_epochs == 1 and again.converged
    assert again.dual_value == pytest.approx(opt.dual_value, rel=1e-12)


def test_warm_start_from_feasible_point_reaches_same_optimum():
    R, rows, signs, mu, c = make_problem(8, 3, factor="full")
    cold = solve_box_qp(R, rows, signs, c, mu, tol=1e-8, max_epochs=MAX_EPOCHS)
    alpha0 = np.random.default_rng(0).uniform(0, 1, c.shape) * c
    warm = solve_box_qp(R, rows, signs, c, mu, alpha0=alpha0, tol=1e-8, max_epochs=MAX_EPOCHS)
    assert warm.converged
    assert abs(warm.dual_value - cold.dual_value) <= max(warm.gap, cold.gap) + 1e-12


def test_warm_start_tolerates_rounding_outside_box():
    R, rows, signs, mu, c = make_problem(9, 1)
    alpha0 = np.array(c, dtype=float)
    alpha0[0] += 5e-13
    alpha0[1] = -5e-13
    sol = solve_box_qp(R, rows, signs, c, mu, alpha0=alpha0)
    assert np.all(sol.alpha >= 0) and np.all(sol.alpha <= c)


# ---------------------------------------------------------------------------------------------
# Supports: m ≠ n, 1-D input
# ---------------------------------------------------------------------------------------------


def test_rows_select_factor_rows_m_different_from_n():
    rng = np.random.default_rng(12)
    n, m, T = 25, 40, 2
    R = rng.normal(size=(n, 6))
    rows = rng.integers(0, n, size=(T, m))  # repeats: several duals share one factor row
    signs = rng.choice([-1.0, 1.0], size=(T, m))
    mu = np.array([0.3, 0.7])
    c = rng.uniform(0.1, 2.0, m)
    sol = solve_box_qp(R, rows, signs, c, mu, tol=1e-8, max_epochs=MAX_EPOCHS)
    assert sol.alpha.shape == (m,) and sol.w.shape == (T, 6)
    Q = label_kernel(R, rows, signs, mu)
    assert Q.shape == (m, m)
    ref_value, _ = box_qp_cvxpy(Q, c)
    assert abs(sol.dual_value - ref_value) <= 1e-6 * max(1.0, abs(ref_value))
    # Same problem with the factor expanded so that rows are the identity (T=1 slice).
    options = dict(tol=1e-10, max_epochs=MAX_EPOCHS)
    one = solve_box_qp(R, rows[0], signs[0], c, **options)
    expanded = solve_box_qp(R[rows[0]], np.arange(m), signs[0], c, **options)
    assert abs(one.dual_value - expanded.dual_value) <= one.gap + expanded.gap + 1e-12


def test_one_dimensional_supports_mean_one_label():
    R, rows, signs, mu, c = make_problem(13, 1)
    a = solve_box_qp(R, rows[0], signs[0], c)
    b = solve_box_qp(R, rows, signs, c, mu=np.ones(1))
    np.testing.assert_array_equal(a.alpha, b.alpha)
    assert isinstance(a, BoxQPSolution) and a.w.shape == (1, R.shape[1])


def test_label_kernel_dense_and_sparse_match_formula():
    rng = np.random.default_rng(14)
    X = sp.random(15, 8, density=0.4, format="csr", random_state=rng)
    rows = rng.integers(0, 15, size=(2, 10))
    signs = rng.normal(size=(2, 10))
    mu = np.array([0.4, 1.5])
    K = (X @ X.T).toarray()
    expected = sum(
        mu[t] * np.outer(signs[t], signs[t]) * K[np.ix_(rows[t], rows[t])] for t in range(2)
    )
    np.testing.assert_allclose(label_kernel(X, rows, signs, mu), expected, atol=1e-12)
    np.testing.assert_allclose(label_kernel(X.toarray(), rows, signs, mu), expected, atol=1e-12)


def test_svm_objective_from_alpha_equals_primal_value():
    R, rows, signs, mu, c = make_problem(15, 3)
    sol = solve_box_qp(R, rows, signs, c, mu, tol=1e-6, max_epochs=MAX_EPOCHS)
    p_alpha = svm_objective(R, rows, signs, c, mu, alpha=sol.alpha)
    p_w = svm_objective(R, rows, signs, c, mu, w=sol.w)
    assert p_alpha == pytest.approx(sol.primal_value, rel=1e-12)
    assert p_w == pytest.approx(sol.primal_value, rel=1e-12)


# ---------------------------------------------------------------------------------------------
# Independent solver: LIBLINEAR through scikit-learn
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("sparse_input", [False, True])
@pytest.mark.parametrize("per_point", [False, True])
def test_matches_liblinear_linear_svc(sparse_input, per_point):
    """T = 1, linear kernel: min ½‖w‖² + Σ c_i hinge(y_i w·x_i), LinearSVC without intercept."""
    rng = np.random.default_rng(16)
    n, d = 200, 15
    X = rng.normal(size=(n, d))
    y = np.sign(X @ rng.normal(size=d) + 0.5 * rng.normal(size=n))
    C = 0.7
    weights = rng.uniform(0.2, 3.0, n) if per_point else np.ones(n)
    if sparse_input:
        X = sp.csr_matrix(np.where(np.abs(X) > 0.8, X, 0.0))
    svc = LinearSVC(fit_intercept=False, loss="hinge", dual=True, C=C, tol=1e-8, max_iter=100_000,
                    random_state=0)  # liblinear shuffles: a fixed order, a fixed run
    svc.fit(X, y, sample_weight=weights)  # LIBLINEAR uses C_i = C · weight_i
    c = C * weights
    ours = solve_box_qp(X, np.arange(n), y, c, tol=1e-8, max_epochs=MAX_EPOCHS)
    theirs = svm_objective(X, np.arange(n), y, c, w=svc.coef_.ravel())
    # Two solvers at tol 1e-8 on the same strictly convex primal; 1e-4 relative is the agreed
    # bar between independent implementations (LIBLINEAR's returned w is only as good as its
    # stopping rule, and the primal is sensitive to w at first order through the hinge).
    assert ours.primal_value == pytest.approx(theirs, rel=1e-4)
    assert ours.dual_value <= theirs + 1e-9 * abs(theirs)  # our dual bounds their primal


# ---------------------------------------------------------------------------------------------
# Convergence reporting and input validation
# ---------------------------------------------------------------------------------------------


def test_max_epochs_reached_warns_and_reports():
    R, rows, signs, mu, c = make_problem(17, 3, factor="rbf")
    with pytest.warns(ConvergenceWarning, match="max_epochs=1"):
        sol = solve_box_qp(R, rows, signs, c, mu, tol=1e-12, max_epochs=1)
    assert not sol.converged and sol.n_epochs == 1
    assert sol.gap > 0


@pytest.fixture
def small():
    rng = np.random.default_rng(0)
    R = rng.normal(size=(6, 3))
    return R, np.arange(6), rng.choice([-1.0, 1.0], size=6), np.ones(6)


def test_zero_epochs_give_the_bounds_of_the_start(small):
    """``max_epochs=0`` takes no step: α is the start, its dual value ``1ᵀα − ½αᵀQα`` and
    primal value ``½αᵀQα + Σ c_i max(0, 1 − (Qα)_i)`` written from their definitions, on the
    factor and on the Gram paths alike, without a warning."""
    import warnings

    R, rows, signs, c = small
    Q = label_kernel(R, rows, signs)
    alpha0 = np.random.default_rng(0).uniform(0.0, c, size=len(rows))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for gram in (None, R @ R.T):
            sol = solve_box_qp(R if gram is None else None, rows, signs, c, alpha0=alpha0,
                               max_epochs=0, gram=gram)
            np.testing.assert_array_equal(sol.alpha, alpha0)
            quadratic = alpha0 @ Q @ alpha0
            assert sol.dual_value == pytest.approx(alpha0.sum() - 0.5 * quadratic, rel=1e-12)
            hinge = np.sum(c * np.maximum(0.0, 1.0 - Q @ alpha0))
            assert sol.primal_value == pytest.approx(0.5 * quadratic + hinge, rel=1e-12)
            assert sol.n_epochs == 0 and not sol.converged


@pytest.mark.parametrize(
    "change, match",
    [
        (dict(c=np.array([1.0, 1, 1, 0, 1, 1])), "`c` must be positive"),
        (dict(c=np.ones(5)), r"`c` must be a scalar or have shape \(6,\)"),
        (dict(c=np.array([1.0, 1, np.nan, 1, 1, 1])), "`c` must be positive and finite"),
        (dict(rows=np.array([0, 1, 2, 3, 4, 6])), r"`rows` must index rows of `factor`"),
        (dict(rows=np.arange(6.0)), "`rows` must hold integers"),
        (dict(rows=np.zeros((2, 3, 1), dtype=int)), "`rows` must be 1-D"),
        (dict(signs=np.ones(5)), "`signs` must have the shape of `rows`"),
        (dict(signs=np.array([1.0, np.inf, 1, 1, 1, 1])), "`signs` must contain only finite"),
        (dict(mu=np.array([-1.0])), "`mu` must be finite and non-negative"),
        (dict(mu=np.ones(2)), r"`mu` must have shape \(1,\)"),
        (dict(alpha0=np.full(6, 1.1)), r"`alpha0` must lie in the box \[0, c\]"),
        (dict(alpha0=np.full(6, -1e-9)), r"`alpha0` must lie in the box"),
        (dict(alpha0=np.ones(4)), r"`alpha0` must have shape \(6,\)"),
        (dict(tol=0.0), "`tol` must be a positive float"),
        (dict(max_epochs=-1), "`max_epochs` must be an integer >= 0"),
        (dict(backend="cython"), "`backend` must be 'numba' or 'numpy'"),
        (dict(factor=np.ones(6)), "`factor` must be a 2-D array"),
        (dict(factor=np.full((6, 3), np.nan)), "`factor` must contain only finite"),
        (dict(factor=sp.csr_matrix(np.full((6, 3), np.inf))), "`factor` must contain only finite"),
    ],
)
def test_bad_input_raises(small, change, match):
    R, rows, signs, c = small
    kwargs = dict(factor=R, rows=rows, signs=signs, c=c)
    kwargs.update(change)
    with pytest.raises(ValueError, match=match):
        solve_box_qp(**kwargs)


def test_bad_input_of_helpers_raises(small):
    R, rows, signs, c = small
    with pytest.raises(ValueError, match="Exactly one of `w` and `alpha`"):
        svm_objective(R, rows, signs, c)
    with pytest.raises(ValueError, match=r"`w` must have shape \(1, 3\)"):
        svm_objective(R, rows, signs, c, w=np.ones(4))
    with pytest.raises(ValueError, match="`Q` must be a square 2-D array"):
        box_qp_cvxpy(np.ones((3, 4)), 1.0)
    with pytest.raises(ValueError, match="`c` must be positive"):
        box_qp_cvxpy(np.eye(3), -1.0)


# ---------------------------------------------------------------------------------------------
# The explicit-Q path (``gram=``) against the CVXPY reference and the factor path
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed, T, factor, costs", PROBLEMS)
def test_gram_path_matches_cvxpy_and_factor_path(seed, T, factor, costs):
    R, rows, signs, mu, c = make_problem(seed, T, factor=factor, costs=costs)
    gram = R @ R.T
    sol = solve_box_qp(R, rows, signs, c, mu, tol=1e-8, max_epochs=MAX_EPOCHS, gram=gram)
    assert sol.converged
    ref_value, _ = box_qp_cvxpy(label_kernel(R, rows, signs, mu), c)
    scale = max(1.0, abs(ref_value))
    # same tolerances as test_value_matches_cvxpy_reference: both stop at ~1e-8 relative
    assert abs(sol.dual_value - ref_value) <= 1e-6 * scale
    assert sol.dual_value - 1e-6 * scale <= ref_value <= sol.primal_value + 1e-6 * scale
    factor_sol = solve_box_qp(R, rows, signs, c, mu, tol=1e-8, max_epochs=MAX_EPOCHS)
    assert abs(sol.dual_value - factor_sol.dual_value) <= 1e-6 * scale
    # the returned weights are those of the returned alpha, whichever path ran
    np.testing.assert_allclose(sol.w, _weights_from_alpha_ref(R, rows, signs, sol.alpha),
                               atol=1e-10)


def _weights_from_alpha_ref(R, rows, signs, alpha):
    return np.stack([R[rows[t]].T @ (alpha * signs[t]) for t in range(rows.shape[0])])


def test_gram_path_with_rows_differing_between_labels():
    """Supports whose rows differ per label (multi-instance super-instances) on the Q path."""
    rng = np.random.default_rng(3)
    R = rng.standard_normal((9, 4))
    rows = np.array([[0, 1, 2, 5, 6], [3, 1, 4, 5, 8]])
    signs = np.array([[1.0, 1.0, -1.0, -1.0, 1.0], [1.0, -1.0, -1.0, 1.0, 1.0]])
    mu = np.array([0.3, 0.7])
    c = np.full(5, 2.0)
    sol = solve_box_qp(R, rows, signs, c, mu, tol=1e-9, max_epochs=MAX_EPOCHS, gram=R @ R.T)
    ref_value, _ = box_qp_cvxpy(label_kernel(R, rows, signs, mu), c)
    assert abs(sol.dual_value - ref_value) <= 1e-6 * max(1.0, abs(ref_value))


def test_gram_of_wrong_shape_raises():
    R = np.eye(3)
    with pytest.raises(ValueError, match="`gram` must be the \\(3, 3\\)"):
        solve_box_qp(R, np.arange(3), np.ones(3), 1.0, gram=np.eye(2))


@pytest.mark.parametrize("seed, T, factor, costs", PROBLEMS)
def test_gram_only_solve_needs_no_factor(seed, T, factor, costs):
    """``factor=None, gram=K``: the same optimum as the factor path, ``w`` is ``None`` and the
    per-label quadratics equal ``‖w_t‖²`` of the factor path's weights at the same α."""
    R, rows, signs, mu, c = make_problem(seed, T, factor=factor, costs=costs)
    gram = R @ R.T
    sol = solve_box_qp(None, rows, signs, c, mu, tol=1e-8, max_epochs=MAX_EPOCHS, gram=gram)
    assert sol.w is None
    factor_sol = solve_box_qp(R, rows, signs, c, mu, tol=1e-8, max_epochs=MAX_EPOCHS)
    scale = max(1.0, abs(factor_sol.dual_value))
    assert abs(sol.dual_value - factor_sol.dual_value) <= 1e-6 * scale
    assert sol.dual_value <= sol.primal_value + 1e-12 * scale
    W = _weights_from_alpha_ref(R, rows, signs, sol.alpha)
    np.testing.assert_allclose(sol.quadratics, np.einsum("tr,tr->t", W, W),
                               rtol=1e-10, atol=1e-10 * scale)


def test_gram_path_in_float32_agrees_with_float64_factor_path():
    """Above ``GRAM_FLOAT32_MIN`` variables ``Q`` is stored in float32; the optimum moves by far
    less than the solver tolerance. Reference: the float64 factor path at tol 1e-8; allowed:
    1e-6 relative, the tolerance of the CVXPY comparisons above (the perturbation of ``Q``,
    6e-8 relative per entry, moves the value by about that times ``αᵀ|Q|α``)."""
    from weakcvx.kernels import factor as kernel_factor
    from weakcvx.svm import GRAM_FLOAT32_MIN

    rng = np.random.default_rng(0)
    m = GRAM_FLOAT32_MIN + 10
    X = rng.standard_normal((m, 3))
    gram = np.exp(-0.5 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    R = kernel_factor(gram)
    signs = np.stack([np.sign(X[:, 0] + 0.3 * rng.standard_normal(m)), np.sign(X[:, 1])])
    rows = np.tile(np.arange(m), (2, 1))
    mu = np.array([0.6, 0.4])
    c = np.full(m, 0.5)
    sol = solve_box_qp(None, rows, signs, c, mu, tol=1e-6, max_epochs=MAX_EPOCHS, gram=gram)
    ref = solve_box_qp(R, rows, signs, c, mu, tol=1e-8, max_epochs=MAX_EPOCHS)
    scale = max(1.0, abs(ref.dual_value))
    assert sol.converged
    assert abs(sol.dual_value - ref.dual_value) <= 1e-6 * scale
    assert sol.dual_value - 1e-6 * scale <= ref.primal_value
    assert ref.dual_value - 1e-6 * scale <= sol.primal_value


def test_the_finite_check_of_a_gram_matrix_is_remembered_only_for_that_array():
    """The check runs once per array (the solvers see the same matrix dozens of times a fit);
    an array that dies leaves nothing behind, so a new array with a NaN, even at a reused
    address, is still refused."""
    import gc

    import weakcvx.svm as svm

    for _ in range(20):
        clean = np.eye(4)
        svm._check_gram(clean)
        assert svm._cached(svm._CHECKED_GRAMS, clean) is True
        key = id(clean)
        del clean
        gc.collect()
        assert key not in svm._CHECKED_GRAMS
        bad = np.eye(4)
        bad[0, 1] = bad[1, 0] = np.nan
        with pytest.raises(ValueError, match="only finite values"):
            svm._check_gram(bad)


def test_gram_only_solve_rejects_missing_and_bad_gram():
    with pytest.raises(ValueError, match="`factor` .* or `gram` .* must be given"):
        solve_box_qp(None, np.arange(3), np.ones(3), 1.0)
    with pytest.raises(ValueError, match="`gram` must contain only finite values"):
        solve_box_qp(None, np.arange(2), np.ones(2), 1.0, gram=np.array([[1.0, np.nan],
                                                                        [np.nan, 1.0]]))
    with pytest.raises(ValueError, match="`gram` must be a square"):
        solve_box_qp(None, np.arange(2), np.ones(2), 1.0, gram=np.ones((2, 3)))


@pytest.mark.parametrize("sparse", [False, True])
def test_box_qp_reference_on_a_factor_agrees_with_the_dense_model(sparse):
    # two CVXPY models of one QP: Q = G Gᵀ as a quad_form, and ½‖Gᵀα‖² on the factor
    import scipy.sparse as sp

    from weakcvx.svm import box_qp_cvxpy

    rng = np.random.default_rng(3)
    for m, d in ((40, 3), (60, 10)):
        G = rng.normal(size=(m, d)) * (rng.random((m, d)) < 0.6)
        c = rng.uniform(0.5, 5.0, size=m)
        dense_value, dense_alpha = box_qp_cvxpy(G @ G.T, c)
        value, alpha = box_qp_cvxpy(None, c, factor=sp.csr_matrix(G) if sparse else G)
        # interior-point optimal values agree to the solvers' tolerance (1e-8 relative)
        assert value == pytest.approx(dense_value, rel=1e-6)
        assert np.all(alpha >= -1e-8) and np.all(alpha <= c + 1e-8)
        # the dual α are not unique (rank d < m) but their objective is the optimum
        objective = alpha.sum() - 0.5 * np.sum((G.T @ alpha) ** 2)
        assert objective == pytest.approx(dense_value, rel=1e-6)
    with pytest.raises(ValueError, match="not both"):
        box_qp_cvxpy(np.eye(2), 1.0, factor=np.eye(2))


@pytest.mark.parametrize("seed", range(3))
def test_label_products_warm_start_is_the_same_solve(seed):
    """Passing the previous solution's ``K Aᵀ`` (only μ changed, as between MKL alternations)
    starts the same descent as computing it: the same α and values."""
    R, rows, signs, mu, c = make_problem(seed, 3, factor="rbf")
    gram = R @ R.T
    first = solve_box_qp(R, rows, signs, c, mu, tol=1e-3, gram=gram, max_epochs=MAX_EPOCHS)
    mu2 = np.roll(mu, 1)
    warm = solve_box_qp(R, rows, signs, c, mu2, alpha0=first.alpha, tol=1e-6, gram=gram,
                        label_products=first.label_products, max_epochs=MAX_EPOCHS)
    cold = solve_box_qp(R, rows, signs, c, mu2, alpha0=first.alpha, tol=1e-6, gram=gram,
                        max_epochs=MAX_EPOCHS)
    np.testing.assert_allclose(warm.alpha, cold.alpha, atol=1e-10)
    assert warm.dual_value == pytest.approx(cold.dual_value, rel=1e-12)
    assert first.label_products.shape == (gram.shape[0], 3)


# ---------------------------------------------------------------------------------------------
# K V over the nonzero rows (gram_dot) against the full product


@pytest.mark.parametrize("density", [0.0, 0.05, 0.3, 0.5, 0.7, 1.0])
@pytest.mark.parametrize("n_cols", [None, 1, 4, 32])
def test_gram_dot_equals_the_full_product(density, n_cols):
    """``gram_dot`` (rows of K summed over the nonzero rows of V, or BLAS on all of K) equals
    ``K @ V`` to 1e-12 relative to ``|K| |V|`` (only the order of summation differs: n = 300
    terms of size ≤ 1 in double precision), for vectors and blocks, on both sides of the density
    threshold."""
    from weakcvx.kernels import rbf
    from weakcvx.svm import gram_dot

    rng = np.random.default_rng(0)
    n = 300
    K = rbf(rng.standard_normal((n, 5)))
    shape = (n,) if n_cols is None else (n, n_cols)
    V = rng.standard_normal(shape)
    V[rng.random(n) >= density] = 0.0
    expected = K @ V
    out = gram_dot(K, V)
    assert out.shape == expected.shape
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-12 * n * max(1.0, np.abs(V).max()))


def test_gram_dot_other_layouts_fall_back_to_the_product():
    """A Fortran-ordered or float32 ``gram``, an integer ``V`` and a sparse ``V`` give
    ``gram @ V`` itself."""
    from weakcvx.kernels import rbf
    from weakcvx.svm import gram_dot

    rng = np.random.default_rng(1)
    K = rbf(rng.standard_normal((50, 3)))
    v = np.zeros(50)
    v[:5] = 1.0
    np.testing.assert_array_equal(gram_dot(np.asfortranarray(K), v), np.asfortranarray(K) @ v)
    K32 = K.astype(np.float32)
    np.testing.assert_array_equal(gram_dot(K32, v), K32 @ v)
    vi = v.astype(int)
    np.testing.assert_array_equal(gram_dot(K, vi), K @ vi)
    vs = sp.csr_matrix(v[:, None])
    np.testing.assert_allclose(np.asarray(gram_dot(K, vs)), K @ v[:, None], rtol=1e-12)
