"""The linear SVM with a free offset (weakcvx.svm.LinearOffsetSVM) and alter-∝SVM's linear path.

The fast solver (dual coordinate descent with proximal steps on the offset) is checked against
two independent references on small inputs: the CVXPY model of the primal
(:func:`weakcvx.svm.linear_svm_offset_cvxpy`, Clarabel) and libsvm's SMO on the kernel matrix
(:func:`weakcvx._smo.svm_offset_solve`). alter-∝SVM's linear path is checked against its dense
kernel path.
"""

import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import weakcvx as wc
from weakcvx._smo import svm_offset_solve
from weakcvx.local import alter_proportion_svm
from weakcvx.svm import LinearOffsetSVM, linear_svm_offset_cvxpy


def _problem(n, d, seed, shift=0.5):
    """Overlapping classes whose boundary is off the origin (the offset matters)."""
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d)
    y = np.where(X[:, 0] + 0.7 * rng.randn(n) > shift, 1.0, -1.0)
    return X, y


def _primal(X, y, c, w, b):
    return 0.5 * w @ w + float(np.dot(np.broadcast_to(c, y.shape),
                                      np.maximum(0.0, 1.0 - y * (X @ w + b))))


@pytest.mark.parametrize("C", [1e-4, 0.1, 1.0, 10.0])
@pytest.mark.parametrize("sparse", [False, True])
def test_agrees_with_the_cvxpy_primal(C, sparse):
    """Tight tolerance: the primal value within 1e-6 (relative) of Clarabel's (whose own
    accuracy is ~1e-8), and the offset within 1e-3. At C = 1e-4 the optimum sits on a kink of
    g(b) = min_w (near b = −1) and the bracket rule ends the search."""
    X, y = _problem(120, 6, seed=1)
    value, w_ref, b_ref = linear_svm_offset_cvxpy(X, y, C)
    svm = LinearOffsetSVM(sp.csr_matrix(X) if sparse else X, tol=1e-6, max_epochs=200000)
    svm.fit(y, C)
    assert svm.converged
    assert _primal(X, y, C, svm.w, svm.offset) == pytest.approx(value, rel=1e-6, abs=1e-9)
    assert svm.offset == pytest.approx(b_ref, abs=1e-3)
    np.testing.assert_allclose(svm.w, w_ref, atol=1e-3 * max(1.0, np.abs(w_ref).max()))
    # the model is the dual's: w = Σ α_i y_i x_i with 0 ≤ α ≤ C and yᵀα ≈ 0
    np.testing.assert_allclose(X.T @ (svm.alpha * y), svm.w, atol=1e-9)
    assert np.all((svm.alpha >= 0) & (svm.alpha <= C))


@pytest.mark.parametrize("seed", range(3))
def test_agrees_with_libsvm_smo_on_the_kernel(seed):
    """Per-point costs against the CVXPY primal, and one cost against an independent
    algorithm, SMO with its equality constraint on K = X Xᵀ. All at tolerance 1e-6: the primal
    values within 1e-5 (relative), the offsets within 1e-3."""
    X, y = _problem(150, 4, seed=seed, shift=1.0)
    c = np.where(y > 0, 2.0, 0.5)
    K = np.ascontiguousarray(X @ X.T)
    svm = LinearOffsetSVM(X, tol=1e-6, max_epochs=200000).fit(y, c)
    value, _, _ = linear_svm_offset_cvxpy(X, y, c)
    assert _primal(X, y, c, svm.w, svm.offset) == pytest.approx(value, rel=1e-5)
    alpha, _, rho, _, converged = svm_offset_solve(K, y, 1.0, tol=1e-6)
    assert converged
    one = LinearOffsetSVM(X, tol=1e-6, max_epochs=200000).fit(y, 1.0)
    w_smo = X.T @ (alpha * y)
    assert _primal(X, y, 1.0, one.w, one.offset) == pytest.approx(
        _primal(X, y, 1.0, w_smo, -rho), rel=1e-5)
    assert one.offset == pytest.approx(-rho, abs=1e-3)


def test_numpy_twin_gives_the_same_iterates():
    X, y = _problem(80, 5, seed=3)
    fast = LinearOffsetSVM(X, tol=1e-5, random_state=7).fit(y, 1.0)
    slow = LinearOffsetSVM(X, tol=1e-5, random_state=7, backend="numpy").fit(y, 1.0)
    assert fast.n_steps == slow.n_steps and fast.n_epochs == slow.n_epochs
    np.testing.assert_allclose(fast.alpha, slow.alpha, atol=1e-10)
    assert fast.offset == pytest.approx(slow.offset, abs=1e-10)


def test_kkt_conditions_of_the_free_offset_problem():
    """At tolerance 1e-6: margins y_i f_i ≥ 1 where α_i = 0, = 1 where 0 < α_i < C, ≤ 1 where
    α_i = C (to 1e-5), and the dual's equality yᵀα = 0 (to 1e-5·C)."""
    X, y = _problem(300, 8, seed=4)
    C = 1.0
    svm = LinearOffsetSVM(X, tol=1e-6, max_epochs=200000).fit(y, C)
    assert svm.converged
    margins = y * (X @ svm.w + svm.offset)
    lower, upper = svm.alpha == 0.0, svm.alpha == C
    free = ~lower & ~upper
    assert free.sum() >= 1
    assert np.all(margins[lower] >= 1 - 1e-5)
    assert np.all(margins[upper] <= 1 + 1e-5)
    np.testing.assert_allclose(margins[free], 1.0, atol=1e-5)
    assert abs(svm.alpha @ y) <= 1e-5 * C


def test_warm_start_from_the_solution_needs_one_step():
    """Restarted from its own solution (α and offset) a fit is already optimal: one proximal
    step, and no more passes than the stopping test needs."""
    X, y = _problem(400, 10, seed=5)
    cold = LinearOffsetSVM(X, max_epochs=100000).fit(y, 1.0)
    warm = LinearOffsetSVM(X, max_epochs=100000).fit(y, 1.0, alpha0=cold.alpha,
                                                      offset0=cold.offset)
    assert cold.converged and warm.converged
    assert warm.n_steps == 1 and warm.n_epochs < cold.n_epochs
    assert _primal(X, y, 1.0, warm.w, warm.offset) == pytest.approx(
        _primal(X, y, 1.0, cold.w, cold.offset), rel=1e-3)


def test_one_class_is_the_constant_model():
    X, _ = _problem(20, 3, seed=6)
    svm = LinearOffsetSVM(X).fit(-np.ones(20), 1.0)
    assert svm.offset == -1.0 and not np.any(svm.w) and svm.converged


@pytest.mark.parametrize("kwargs, match", [
    ({"tol": 0.0}, "`tol` must be a positive float"),
    ({"max_epochs": 0}, "`max_epochs` must be an integer >= 1"),
    ({"backend": "cython"}, "`backend` must be 'numba' or 'numpy'"),
])
def test_bad_parameters(kwargs, match):
    X, _ = _problem(10, 2, seed=0)
    with pytest.raises(ValueError, match=match):
        LinearOffsetSVM(X, **kwargs)


def test_bad_warm_start():
    X, y = _problem(10, 2, seed=0)
    with pytest.raises(ValueError, match="alpha"):
        LinearOffsetSVM(X).fit(y, 1.0, alpha0=np.full(10, 2.0))


# -- alter-∝SVM's linear path -----------------------------------------------------------------
@pytest.fixture(scope="module")
def heart_bags():
    X, y = wc.datasets.load_uci("heart")
    from sklearn.preprocessing import StandardScaler

    X = StandardScaler().fit_transform(X)
    bags, p = wc.datasets.make_bags(X, (y > 0).astype(int), 8, random_state=0)
    return X, y, np.unique(bags, return_inverse=True)[1], p


def test_linear_path_reaches_the_dense_paths_objective_from_the_same_start(heart_bags):
    """Same problem, two SVM solvers: from the same labels and one annealing run, the two
    paths end at labelings of objectives within 1% (the alternation may take another turn on
    a near-tie, so labels are not compared one by one)."""
    X, y, bags, p = heart_bags
    start = np.where(y > 0, 1.0, -1.0)
    kwargs = dict(C=1.0, C_p=10.0, n_init=1, random_state=0, initial=start, initial_ratio=1e9)
    dense = alter_proportion_svm(X @ X.T, bags, p, **kwargs)
    linear = alter_proportion_svm(None, bags, p, features=X, **kwargs)
    assert dense["start"] == linear["start"] == "initial"
    assert linear["value"] == pytest.approx(dense["value"], rel=1e-2)
    assert np.mean(linear["labels"] == dense["labels"]) > 0.95


def test_linear_path_value_is_the_objective_of_its_model(heart_bags):
    """The reported objective is ½‖w‖² + C Σ hinge + C_p Σ|p̃ − p| of the returned model and
    labels, and those labels are a fixed point of the exact label update."""
    from weakcvx.local import proportion_label_update

    X, _, bags, p = heart_bags
    res = alter_proportion_svm(None, bags, p, C=1.0, C_p=10.0, n_init=3, random_state=0,
                               features=X)
    w = X.T @ res["beta"]
    f = X @ w + res["intercept"]
    y = res["labels"]
    p_tilde = np.bincount(bags, weights=(y > 0).astype(float)) / np.bincount(bags)
    value = 0.5 * w @ w + np.maximum(0, 1 - y * f).sum() + 10.0 * np.abs(p_tilde - p).sum()
    assert res["value"] == pytest.approx(value, rel=1e-9)
    relabeled = proportion_label_update(np.maximum(0, 1 + f), np.maximum(0, 1 - f), bags, p,
                                        1.0, 10.0)
    p_new = np.bincount(bags, weights=(relabeled > 0).astype(float)) / np.bincount(bags)
    new = (np.where(relabeled > 0, np.maximum(0, 1 - f), np.maximum(0, 1 + f)).sum()
           + 10.0 * np.abs(p_new - p).sum())
    assert value - 0.5 * w @ w <= new + 1e-6


def test_k_and_features_are_exclusive(heart_bags):
    X, _, bags, p = heart_bags
    with pytest.raises(ValueError, match="not both nor neither"):
        alter_proportion_svm(X @ X.T, bags, p, features=X)
    with pytest.raises(ValueError, match="not both nor neither"):
        alter_proportion_svm(None, bags, p)


def test_sparse_and_dense_features_give_the_same_model(heart_bags, monkeypatch):
    """CSR and dense kernels visit coordinates in the same order: same labels, same model up
    to rounding (the feature path forced on heart's 270 rows)."""
    import weakcvx.estimators.proportion as module

    monkeypatch.setattr(module, "PRIMAL_MIN_ROWS", 0)
    X, _, bags, p = heart_bags
    dense = wc.ProportionSVM(random_state=0, n_init=3).fit(X, bags, p)
    sparse = wc.ProportionSVM(random_state=0, n_init=3).fit(sp.csr_matrix(X), bags, p)
    np.testing.assert_array_equal(dense.transduction_, sparse.transduction_)
    np.testing.assert_allclose(dense.coef_, sparse.coef_, atol=1e-8)


def test_linear_fit_memory_has_no_n_by_n_array():
    """At n = 3,000 a dense kernel is 72 MB; the linear path's traced peak stays under a
    quarter of it (X is 0.5 MB)."""
    rng = np.random.RandomState(0)
    n, d = 3000, 20
    X = rng.randn(n, d)
    y = (X[:, 0] + 0.5 * rng.randn(n) > 0).astype(int)
    bags, p = wc.datasets.make_bags(X, y, 16, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tracemalloc.start()
        wc.ProportionSVM(n_init=1, random_state=0).fit(X, bags, p)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert peak < 0.25 * n * n * 8


def test_spawned_solvers_share_the_matrix_not_the_state():
    X, y = _problem(60, 3, seed=8)
    parent = LinearOffsetSVM(X)
    child = parent.spawn(max_epochs=5)
    assert child.R is parent.R and child.max_epochs == 5 and parent.max_epochs == 1000
    child.fit(y, 1.0)
    assert not np.any(parent.alpha) and parent.offset == 0.0
    with pytest.raises(TypeError, match="spawn"):
        parent.spawn(C=1.0)


def test_linear_path_restarts_identical_for_n_jobs_1_and_2(heart_bags):
    X, _, bags, p = heart_bags
    one = alter_proportion_svm(None, bags, p, C=1.0, C_p=10.0, n_init=4, random_state=3,
                               n_jobs=1, features=X)
    two = alter_proportion_svm(None, bags, p, C=1.0, C_p=10.0, n_init=4, random_state=3,
                               n_jobs=2, features=X)
    np.testing.assert_array_equal(one["labels"], two["labels"])
    np.testing.assert_array_equal(one["values"], two["values"])


# -- the RBF kernel through a pivoted-Cholesky factor ------------------------------------------
@pytest.fixture
def factor_path(monkeypatch):
    """The factor path from any size (FACTOR_MIN_ROWS = 0)."""
    import weakcvx.estimators.proportion as module

    monkeypatch.setattr(module, "FACTOR_MIN_ROWS", 0)
    return module


def _moons_bags(n, seed):
    X, y = wc.datasets.make_two_moons(n, n_labeled=2, noise=0.15, random_state=seed)[:2]
    y01 = (y > 0).astype(int)
    bags, p = wc.datasets.make_bags(X, y01, 8, random_state=seed)
    return X, y01, bags, p


def test_factor_model_predicts_the_scores_the_fit_saw(factor_path):
    """f(x) = Σ_{j∈P} γ_j k(x_j, x) + b on the pivots reproduces R w + b on the training
    rows (the Nyström features of the pivots are the factor's rows)."""
    from weakcvx import kernels

    X, _, bags, p = _moons_bags(300, seed=0)
    clf = wc.ProportionSVM(kernel="rbf", random_state=0, n_init=2, standardize=False).fit(
        X, bags, p)
    R, pivots = kernels.pivoted_cholesky_blocked(
        np.ones(300), lambda idx: kernels.rbf(X, X[idx], gamma=clf._gamma),
        factor_path.FACTOR_RANK, return_pivots=True)
    np.testing.assert_array_equal(clf.X_fit_, X[pivots])  # on 2-D moons: rank 73 < 200
    w = R[pivots].T @ clf.dual_coef_  # the weights of the fit on R
    np.testing.assert_allclose(clf.decision_function(X), R @ w + clf.intercept_, atol=1e-8)
    assert np.mean((clf.decision_function(X) > 0) == (clf.transduction_ > 0)) > 0.9


def test_full_rank_factor_path_reaches_the_dense_objective(factor_path, monkeypatch):
    """With a full-rank factor (R Rᵀ = K) the fit solves the dense path's problem: from the
    same MeanMap start, objectives within 1%."""
    monkeypatch.setattr(factor_path, "FACTOR_RANK", 10**6)
    X, _, bags, p = _moons_bags(200, seed=1)
    factored = wc.ProportionSVM(kernel="rbf", random_state=0, n_init=2).fit(X, bags, p)
    monkeypatch.setattr(factor_path, "FACTOR_MIN_ROWS", 10**9)
    dense = wc.ProportionSVM(kernel="rbf", random_state=0, n_init=2).fit(X, bags, p)
    assert factored.objective_ == pytest.approx(dense.objective_, rel=1e-2)
    assert np.mean(factored.predict(X) == dense.predict(X)) > 0.95


def test_factor_path_learns_the_nonlinear_boundary(factor_path):
    """Two moons in bags of 8: the RBF model through the factor (rank 200 of 600 rows) is far
    above the linear one on held-out rows (the moons are not linearly separable)."""
    X, y, bags, p = _moons_bags(600, seed=2)
    X_test, y_test = _moons_bags(600, seed=3)[:2]
    rbf = wc.ProportionSVM(kernel="rbf", random_state=0).fit(X, bags, p)
    linear = wc.ProportionSVM(random_state=0).fit(X, bags, p)
    assert rbf.score(X_test, y_test) > max(0.9, linear.score(X_test, y_test) + 0.05)


def test_factor_fit_memory_has_no_n_by_n_array(factor_path):
    rng = np.random.RandomState(0)
    n = 3000
    X = rng.randn(n, 10)
    y = (X[:, 0] ** 2 + 0.5 * rng.randn(n) > 1).astype(int)
    bags, p = wc.datasets.make_bags(X, y, 16, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tracemalloc.start()
        wc.ProportionSVM(kernel="rbf", n_init=1, random_state=0).fit(X, bags, p)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert peak < 0.25 * n * n * 8


def test_polynomial_kernel_takes_the_factor_only_above_the_budget(factor_path, monkeypatch):
    """The default (x·z + 1)³ keeps too little of its trace in a rank-200 factor (training
    accuracy 0.822 against 0.906 dense at 5,000 rows): the dense path while the kernel fits."""
    X = np.random.RandomState(0).randn(60, 3)
    model = wc.ProportionSVM(kernel="poly")
    assert model._alternating_features(X, False) == (None, None)
    monkeypatch.setattr(factor_path, "dense_fits", lambda *args, **kwargs: False)
    features, pivots = model._alternating_features(X, False)
    assert features.shape[0] == 60 and pivots is not None
    # the RBF kernel keeps its switch at FACTOR_MIN_ROWS (0 here) whatever the budget
    monkeypatch.undo()
    monkeypatch.setattr(factor_path, "FACTOR_MIN_ROWS", 0)
    assert wc.ProportionSVM(kernel="rbf")._alternating_features(X, False)[1] is not None


def test_costs_beyond_float64_raise_a_solver_error_naming_the_solver():
    """C = 1e300 would overflow the weights: a SolverError at once, from the engine and from
    ProportionSVM on its feature path (n ≥ PRIMAL_MIN_ROWS), not a NaN model."""
    X, y = _problem(1200, 5, seed=9)
    with pytest.raises(wc.SolverError, match="LinearOffsetSVM.*overflow"):
        LinearOffsetSVM(X).fit(y, 1e300)
    bags, p = wc.datasets.make_bags(X, (y > 0).astype(int), 8, random_state=0)
    with pytest.raises(wc.SolverError, match="LinearOffsetSVM"):
        wc.ProportionSVM(C=1e300, n_init=1, random_state=0).fit(X, bags, p)
