"""β-SVM in a feature space (the fast path at scale): P1 by LinearOffsetSVM on the duplicated
points as dual variables on stored rows, checked against the CVXOPT reference QP and the
LIBSVM path on the kernel matrix; the alternation and the estimator against the dense path.
"""

import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

import weakcvx as wc
import weakcvx.estimators.beta as estimator_module
from weakcvx import beta as B
from weakcvx import kernels
from weakcvx.svm import LinearOffsetSVM, linear_svm_offset_cvxpy

# The coordinate descent stops at a projected-gradient spread of 1e-6 (tol below), CVXOPT at
# 1e-10 relative: primal values then agree to ~1e-6 relative; 1e-5 leaves a factor 10.
OBJ_RTOL = 1e-5


def _ssl(n, seed, labeled=0.1):
    X, y = make_classification(n, 8, n_informative=5, random_state=seed, flip_y=0.05)
    X = StandardScaler().fit_transform(X)
    rng = np.random.RandomState(seed)
    y_semi = np.full(n, -1)
    rows = rng.choice(n, int(labeled * n), replace=False)
    y_semi[rows] = y[rows]
    return X, y, y_semi


def _random_beta(n, seed):
    rng = np.random.default_rng(seed)
    beta = rng.dirichlet([0.7, 0.7], size=n)
    beta[rng.random(n) < 0.3] = [0.0, 1.0]           # one-hot rows: zero-cost points dropped
    beta[rng.random(n) < 0.2] = [1.0, 0.0]
    return beta, rng.uniform(0.2, 5.0, size=n)


# --------------------------------------------------------------------------------------------
# LinearOffsetSVM on repeated rows


def test_rows_repeat_stored_rows_without_copying_them():
    rng = np.random.RandomState(0)
    X = rng.randn(120, 4)
    rows = np.r_[np.arange(120), np.arange(120)]
    y = np.r_[-np.ones(120), np.ones(120)]
    c = np.r_[rng.rand(120), rng.rand(120)] + 0.1
    svm = LinearOffsetSVM(X, tol=1e-7).fit(y, c, rows=rows)
    assert svm.R.shape[0] == 120 and svm.alpha.shape == (240,)
    value, w, offset = linear_svm_offset_cvxpy(X[rows], y, c)   # the explicit duplicate
    assert np.allclose(svm.w, w, atol=1e-4) and svm.offset == pytest.approx(offset, abs=1e-3)


def test_rows_are_validated():
    svm = LinearOffsetSVM(np.eye(3))
    with pytest.raises(ValueError, match="`rows` must be a 1-D integer array"):
        svm.fit(np.ones(2), 1.0, rows=np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="`rows` must index the 3 stored rows"):
        svm.fit(np.array([1.0, -1.0]), 1.0, rows=np.array([0, 3]))
    with pytest.raises(ValueError, match="one entry per row of X"):
        svm.fit(np.array([1.0, -1.0]), 1.0)


# --------------------------------------------------------------------------------------------
# P1 in the feature space against the references


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("sparse", [False, True])
def test_feature_p1_agrees_with_cvxopt_reference(seed, sparse):
    X, _, _ = _ssl(80, seed)
    beta, c = _random_beta(80, seed)
    K = kernels.linear(X)
    ref = B.beta_svm_dual(K, beta, c)
    fast = B.beta_svm_features(sp.csr_matrix(X) if sparse else X, beta, c, tol=1e-6,
                               max_epochs=100_000)
    assert fast.status == "optimal" and fast.offset_rule == "proximal"
    primal = B.beta_svm_primal(K, beta, c, fast.dual_coef, fast.intercept)
    assert primal == pytest.approx(ref.dual_objective, rel=OBJ_RTOL)
    assert np.allclose(fast.coef, X.T @ fast.dual_coef, atol=1e-10)   # w = Σ (α⁺ − α⁻) x
    assert np.all(fast.alpha >= 0) and np.all(fast.alpha <= c[:, None] * beta + 1e-12)
    assert np.all(fast.alpha[beta == 0] == 0)


def test_feature_p1_on_a_full_rank_factor_is_the_kernel_beta_svm():
    X, _, _ = _ssl(70, 3)
    beta, c = _random_beta(70, 3)
    K = kernels.rbf(X)
    R = kernels.factor(K, rank=70)
    ref = B.beta_svm_dual(K, beta, c)
    fast = B.beta_svm_features(R, beta, c, tol=1e-6, max_epochs=100_000)
    scores = R @ fast.coef + fast.intercept
    assert np.allclose(scores, K @ ref.dual_coef + ref.intercept, atol=1e-3)
    assert B.beta_svm_primal(K, beta, c, fast.dual_coef, fast.intercept) == pytest.approx(
        ref.dual_objective, rel=OBJ_RTOL)


def test_feature_p1_degenerate_and_warm_start():
    X, _, _ = _ssl(40, 4)
    one_class = np.tile([0.0, 1.0], (40, 1))
    sol = B.beta_svm_features(X, one_class, 1.0)
    assert sol.offset_rule == "degenerate" and sol.intercept == 1.0 and not np.any(sol.coef)
    beta, c = _random_beta(40, 4)
    cold = B.beta_svm_features(X, beta, c, tol=1e-6, max_epochs=100_000)
    warm = B.beta_svm_features(X, beta, c, tol=1e-6, max_epochs=100_000, warm_start=cold)
    assert warm.extra["steps"] == 1                  # started at the optimum: one step
    assert np.allclose(warm.coef, cold.coef, atol=1e-6)


# --------------------------------------------------------------------------------------------
# P2 without the CVXPY model


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("balance", [False, True])
def test_p2_linprog_returns_the_cvxpy_models_vertex(seed, balance):
    rng = np.random.default_rng(seed)
    m = 150
    h = 1.5 * rng.standard_normal(m)
    y_hat = B._estimated_labels(rng.dirichlet([1, 1], size=m)[:, 1], h)
    bounds = (0.3 * m, float(np.sum(y_hat > 0))) if balance else None
    if bounds is not None:
        bounds = (min(bounds), max(bounds))
    ref = B.P2Problem(m, balance=balance).solve(h, y_hat, positive_bounds=bounds)
    fast = B.p2_linprog(h, y_hat, positive_bounds=bounds)
    H, A = B.P2Problem.coefficients(h, y_hat)
    assert np.sum(fast * H) == pytest.approx(np.sum(ref * H), rel=1e-9)
    assert abs(np.sum(fast * A)) < 1e-7 and np.allclose(fast.sum(axis=1), 1.0)
    assert np.all(fast >= 0)
    if bounds is not None:
        assert bounds[0] - 1e-7 <= fast[:, 1].sum() <= bounds[1] + 1e-7
    assert np.allclose(fast, ref, atol=1e-7)         # the same simplex: the same vertex


def test_p2_linprog_memory_is_linear_in_the_free_rows():
    m = 20_000
    rng = np.random.default_rng(0)
    h = rng.standard_normal(m)
    tracemalloc.start()
    B.p2_linprog(h, np.sign(h) + (h == 0), positive_bounds=(0.4 * m, 0.6 * m))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 200 * 8 * m                        # O(m); the CVXPY model's would be ~m²


# --------------------------------------------------------------------------------------------
# the alternation


def test_alternation_in_feature_space_matches_the_kernel_path():
    X, y, y_semi = _ssl(400, 5)
    beta0, free = B.beta_semi_supervised(np.where(y_semi < 0, 0, 2 * y_semi - 1))
    c = np.where(free, 0.01, 0.1)
    K = kernels.linear(X)
    dense = B.beta_iterate(K, beta0, c, free=free, positive_fraction=0.5)
    fast = B.beta_iterate(None, beta0, c, free=free, positive_fraction=0.5, features=X)
    assert fast.solver == "LinearOffsetSVM" and fast.converged and dense.converged
    assert np.allclose(fast.scores, X @ fast.solution.coef + fast.solution.intercept)
    # the same local search: the same predictions on nearly every row, and the P1 optimum of
    # the returned β reached by both to the solvers' tolerance
    assert np.mean(np.sign(fast.scores) == np.sign(dense.scores)) >= 0.99
    ref = B.beta_svm_dual(K, fast.beta, c)
    primal = B.beta_svm_primal(K, fast.beta, c, fast.solution.dual_coef,
                               fast.solution.intercept)
    assert primal == pytest.approx(ref.dual_objective, rel=1e-3)


def test_feature_space_arguments_are_checked():
    X, _, _ = _ssl(30, 6)
    beta0 = np.full((30, 2), 0.5)
    with pytest.raises(ValueError, match="not both"):
        B.beta_iterate(X @ X.T, beta0, features=X)
    with pytest.raises(ValueError, match="solver='cvxopt'"):
        B.beta_iterate(None, beta0, features=X, solver="cvxopt")


def test_unconverged_returned_hypothesis_is_resolved_then_warned(monkeypatch):
    X, _, y_semi = _ssl(300, 7)
    beta0, free = B.beta_semi_supervised(np.where(y_semi < 0, 0, 2 * y_semi - 1))
    monkeypatch.setattr(B, "EPOCH_CAPS", (1, 1))
    with pytest.warns(ConvergenceWarning, match="LinearOffsetSVM.*stopped at 1 passes"):
        B.beta_iterate(None, beta0, 10.0, free=free, max_iter=0, features=X)
    monkeypatch.setattr(B, "EPOCH_CAPS", (1, 100_000))   # the re-solve converges: silent
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        res = B.beta_iterate(None, beta0, 10.0, free=free, max_iter=0, features=X)
    assert res.solution.status == "optimal"


# --------------------------------------------------------------------------------------------
# the estimator


def _fit_both(monkeypatch, X, y_semi, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        monkeypatch.setattr(estimator_module, "LINEAR_FEATURE_MIN_ROWS", 10**9)
        monkeypatch.setattr(estimator_module, "FACTOR_MIN_ROWS", 10**9)
        dense = wc.BetaSVM(**params).fit(X, y_semi)
        monkeypatch.setattr(estimator_module, "LINEAR_FEATURE_MIN_ROWS", 0)
        monkeypatch.setattr(estimator_module, "FACTOR_MIN_ROWS", 0)
        fast = wc.BetaSVM(**params).fit(X, y_semi)
    return dense, fast


def test_linear_estimator_feature_path_matches_dense_and_sparse(monkeypatch):
    X, y, y_semi = _ssl(600, 8)
    dense, fast = _fit_both(monkeypatch, X, y_semi, kernel="linear")
    assert dense.dual_coef_.shape == fast.dual_coef_.shape == (600,)
    assert np.allclose(fast.coef_, X.T @ fast.dual_coef_, atol=1e-8)
    # the alternation is a local search whose path moves with P1's tolerance, so compare what
    # is defined: the fast model is the P1 optimum of its own β, and both reach one accuracy
    costs = np.where(y_semi >= 0, *fast.costs_)
    ref = B.beta_svm_dual(kernels.linear(X), fast.beta_, costs)
    primal = B.beta_svm_primal(kernels.linear(X), fast.beta_, costs, fast.dual_coef_,
                               fast.intercept_)
    assert primal == pytest.approx(ref.dual_objective, rel=1e-3)
    assert abs(fast.score(X, y) - dense.score(X, y)) <= 0.02
    sparse = wc.BetaSVM(kernel="linear").fit(sp.csr_matrix(X), y_semi)
    assert np.allclose(sparse.decision_function(X), fast.decision_function(X), atol=1e-8)


def test_rbf_estimator_factor_path_is_the_kernel_expansion_on_pivots(monkeypatch):
    X, y, y_semi = _ssl(300, 9)
    monkeypatch.setattr(estimator_module, "FACTOR_RANK", 300)    # full rank: the exact kernel
    dense, fast = _fit_both(monkeypatch, X, y_semi)
    assert fast.X_fit_.shape[0] == fast.dual_coef_.shape[0] <= 300
    X_new = np.random.RandomState(0).randn(50, X.shape[1])
    # full rank: the same β-SVM, so the same local search on nearly every point
    assert np.mean(fast.predict(X_new) == dense.predict(X_new)) >= 0.96
    assert np.mean(fast.predict(X) == dense.predict(X)) >= 0.98


def test_feature_path_forms_no_n_by_n_array():
    n = 3000
    X, y, y_semi = _ssl(n, 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tracemalloc.start()
        clf = wc.BetaSVM(kernel="linear").fit(X, y_semi)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert peak < 0.1 * n * n * 8
    unlabeled = y_semi < 0
    supervised = wc.BetaSVM(kernel="linear", max_iter=0).fit(X, y_semi)
    assert clf.score(X[unlabeled], y[unlabeled]) >= supervised.score(X[unlabeled],
                                                                     y[unlabeled]) - 0.02


def test_polynomial_kernel_takes_the_factor_only_above_the_budget(monkeypatch):
    X, _, _ = _ssl(60, 11)
    monkeypatch.setattr(estimator_module, "FACTOR_MIN_ROWS", 0)
    model = wc.BetaSVM(kernel="poly")
    assert model._p1_features(X) == (None, None)             # the dense path while it fits
    monkeypatch.setattr(estimator_module, "dense_fits", lambda *args, **kwargs: False)
    features, pivots = model._p1_features(X)
    assert features.shape[0] == 60 and pivots is not None


def test_feature_path_is_invariant_to_the_scale_of_the_features():
    # without the internal rescaling, 1e-3 X collapsed to one class (the offset column of the
    # solver dwarfed the rows and the descent stopped at its pass cap)
    X, y, y_semi = _ssl(1200, 12)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        small = wc.BetaSVM(kernel="linear").fit(1e-3 * X, y_semi)
    unit = wc.BetaSVM(kernel="linear").fit(X, y_semi)
    assert np.allclose(small.decision_function(1e-3 * X), unit.decision_function(X), atol=1e-8)
    assert np.allclose(small.coef_, 1e-3 * (X.T @ small.dual_coef_), rtol=1e-6)
    assert unit.score(X[y_semi < 0], y[y_semi < 0]) > 0.75


def test_the_factor_goes_past_its_rank_only_while_the_residual_trace_is_large(monkeypatch):
    """The P1 factor keeps ``FACTOR_RANK`` columns when they leave at most
    ``FACTOR_TRACE_TOL`` of the RBF kernel's trace (n), and otherwise has more columns, up to
    ``FACTOR_MAX_RANK``, stopping at the first block of columns (64 at a time, the blocked
    pivoted Cholesky's test) after which the residual is below it; the residual is written out
    here as n − ‖R‖²_F (the Nyström factor never exceeds the kernel: K − R Rᵀ ⪰ 0)."""
    monkeypatch.setattr(estimator_module, "FACTOR_RANK", 20)
    monkeypatch.setattr(estimator_module, "FACTOR_MAX_RANK", 300)
    monkeypatch.setattr(estimator_module, "FACTOR_TRACE_TOL", 0.05)

    def residual(R, n):
        return 1.0 - float(np.sum(R * R)) / n

    moons = wc.datasets.make_two_moons(400, random_state=0)[0]  # a kernel of low numerical rank
    R, pivots = wc.BetaSVM()._factor(moons)
    assert R.shape[1] <= 20 and residual(R, 400) <= 0.05
    X, _ = make_classification(400, 10, n_informative=6, random_state=0)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    first, _ = wc.BetaSVM()._kernel_factor(X, 20)
    assert residual(first, 400) > 0.05  # the case the rule is for
    R, pivots = wc.BetaSVM()._factor(X)
    assert 20 < R.shape[1] < 300 and len(pivots) == R.shape[1]  # stopped before the cap
    assert residual(R, 400) <= 0.05 < residual(R[:, :-64], 400)
