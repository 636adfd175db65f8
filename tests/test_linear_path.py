"""Tests of the linear (sparse features) path against slow readable references.

- the CSR coordinate descent for a working set of sign vectors that mostly agree (its weights
  split into a shared part and per-label parts) against the NumPy twin, the dense kernel and the
  CVXPY box QP;
- a feature matrix is used in place (no copy) and its cached row norms follow in-place changes;
- the MKLGL master on sparse features against the CVXPY SOCP reference;
- the large linear policy of the label-generation driver (``RoundPolicy.for_problem``).
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import weakcvx
from weakcvx import WeakLabelProblem
from weakcvx.problem import append_constant_feature
from weakcvx.cutting_plane import LARGE_LINEAR_N, RoundPolicy
from weakcvx.labelsets import SemiSupervised
from weakcvx.mkl import master_cvxpy, master_mklgl
from weakcvx.svm import box_qp_cvxpy, label_kernel, solve_box_qp

# Dual coordinate descent on rank-deficient problems can need thousands of epochs at tight
# tolerances (tests/test_svm.py); these problems are small.
MAX_EPOCHS = 100_000


def sparse_working_set(seed, n=60, d=40, T=3, n_flip=6, density=0.15):
    """Sparse rows and T sign vectors that differ from the first on ``n_flip`` points each."""
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, format="csr", random_state=rng)
    X.data = rng.normal(size=X.nnz)
    y = rng.choice([-1.0, 1.0], size=n)
    signs = np.tile(y, (T, 1))
    for t in range(1, T):
        flip = rng.choice(n, n_flip, replace=False)
        signs[t, flip] *= -1
    rows = np.tile(np.arange(n), (T, 1))
    mu = rng.dirichlet(np.ones(T))
    c = rng.uniform(0.1, 3.0, size=n)
    return X, rows, signs, mu, c


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("shrinking", [True, False])
def test_shared_rows_kernel_matches_numpy_twin_and_dense_kernel(seed, shrinking):
    X, rows, signs, mu, c = sparse_working_set(seed)
    options = dict(tol=1e-8, shrinking=shrinking, max_epochs=MAX_EPOCHS, random_state=seed)
    fast = solve_box_qp(X, rows, signs, c, mu, **options)
    slow = solve_box_qp(X, rows, signs, c, mu, backend="numpy", **options)
    dense = solve_box_qp(X.toarray(), rows, signs, c, mu, **options)
    # same algorithm and coordinate order; the gradient of a point on which the labels agree
    # is summed in another order (Σ_t μ_t u + z̄ instead of Σ_t μ_t w_t): rounding-level changes
    for other in (slow, dense):
        assert fast.n_epochs == other.n_epochs
        np.testing.assert_allclose(fast.alpha, other.alpha, rtol=0, atol=1e-9)
        np.testing.assert_allclose(fast.dual_value, other.dual_value, rtol=1e-10)
    np.testing.assert_allclose(fast.w, slow.w, rtol=0, atol=1e-9)


@pytest.mark.parametrize("seed", [3, 4])
def test_shared_rows_kernel_reaches_the_cvxpy_value(seed):
    X, rows, signs, mu, c = sparse_working_set(seed, T=4, n_flip=10)
    sol = solve_box_qp(X, rows, signs, c, mu, tol=1e-9, max_epochs=MAX_EPOCHS)
    value, _ = box_qp_cvxpy(label_kernel(X, rows, signs, mu), c)
    # the descent's dual value is a lower bound within its certified gap; Clarabel's value is
    # accurate to ~1e-8 relative on these sizes
    assert sol.dual_value <= value + 1e-7 * max(1.0, abs(value))
    assert sol.gap < 1e-6 * max(1.0, abs(value))
    np.testing.assert_allclose(sol.dual_value, value, rtol=1e-6)


def test_shared_rows_kernel_warm_start_and_zero_signs():
    X, rows, signs, mu, c = sparse_working_set(5, T=3)
    signs[:, :5] = 0.0  # points no label uses: α_i goes to c_i (Q_ii = 0)
    signs[1, 5:8] = 0.0  # used by some labels only
    cold = solve_box_qp(X, rows, signs, c, mu, tol=1e-9, max_epochs=MAX_EPOCHS)
    np.testing.assert_allclose(cold.alpha[:5], c[:5])
    warm = solve_box_qp(X, rows, signs, c, mu, alpha0=cold.alpha, tol=1e-9,
                        max_epochs=MAX_EPOCHS)
    assert warm.n_epochs <= 2
    np.testing.assert_allclose(warm.dual_value, cold.dual_value, rtol=1e-12)
    slow = solve_box_qp(X, rows, signs, c, mu, tol=1e-9, max_epochs=MAX_EPOCHS,
                        backend="numpy")
    np.testing.assert_allclose(cold.dual_value, slow.dual_value, rtol=1e-10)


def test_features_are_used_in_place_and_row_norms_follow_changes():
    X, rows, signs, mu, c = sparse_working_set(6, T=1)
    y_known = np.zeros(X.shape[0])
    y_known[:2] = [1.0, -1.0]
    problem = WeakLabelProblem(features=X, labelset=SemiSupervised(y_known))
    assert problem.factor is X  # a float64 canonical CSR matrix is not copied
    first = solve_box_qp(X, rows, signs, c, tol=1e-9, max_epochs=MAX_EPOCHS)
    X.data *= 2.0  # changed in place by its owner: the cached row norms must not be reused
    second = solve_box_qp(X, rows, signs, c, tol=1e-9, max_epochs=MAX_EPOCHS)
    fresh = solve_box_qp(X.copy(), rows, signs, c, tol=1e-9, max_epochs=MAX_EPOCHS)
    np.testing.assert_allclose(second.dual_value, fresh.dual_value, rtol=1e-12)
    assert abs(second.dual_value - first.dual_value) > 1e-3


def test_features_with_duplicates_or_other_formats_are_copied_not_changed():
    rng = np.random.default_rng(7)
    coo = sp.random(30, 10, density=0.3, format="coo", random_state=rng)
    dup = sp.csr_matrix((np.r_[coo.data, 1.0], (np.r_[coo.row, 0], np.r_[coo.col, 0])),
                        shape=coo.shape)
    dup = sp.csr_matrix((dup.data, dup.indices, dup.indptr), shape=dup.shape)
    y_known = np.zeros(30)
    y_known[:2] = [1.0, -1.0]
    problem = WeakLabelProblem(features=coo, labelset=SemiSupervised(y_known))
    assert problem.factor.format == "csr" and problem.factor.has_canonical_format
    y = rng.choice([-1.0, 1.0], size=30)
    a = solve_box_qp(coo, np.arange(30), y, 1.0, tol=1e-9, max_epochs=MAX_EPOCHS)
    b = solve_box_qp(coo.toarray(), np.arange(30), y, 1.0, tol=1e-9, max_epochs=MAX_EPOCHS)
    np.testing.assert_allclose(a.dual_value, b.dual_value, rtol=1e-10)
    c = solve_box_qp(dup, np.arange(30), y, 1.0, tol=1e-9, max_epochs=MAX_EPOCHS)
    d = solve_box_qp(dup.toarray(), np.arange(30), y, 1.0, tol=1e-9, max_epochs=MAX_EPOCHS)
    np.testing.assert_allclose(c.dual_value, d.dual_value, rtol=1e-10)


@pytest.mark.parametrize("kind", ["canonical", "unsorted", "duplicates", "coo", "dense"])
def test_append_constant_feature_equals_the_dense_stack(kind):
    rng = np.random.default_rng(8)
    D = np.where(rng.random((12, 7)) < 0.4, rng.normal(size=(12, 7)), 0.0)
    D[3] = 0.0  # an empty row
    X = sp.csr_matrix(D)
    if kind == "unsorted":
        for i in range(12):  # reverse every row's entries
            lo, hi = X.indptr[i], X.indptr[i + 1]
            X.indices[lo:hi] = X.indices[lo:hi][::-1].copy()
            X.data[lo:hi] = X.data[lo:hi][::-1].copy()
        X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=X.shape)
    elif kind == "duplicates":  # D[0, 0] split into two stored entries
        coo = sp.coo_matrix(D)
        X = sp.csr_matrix((np.r_[coo.data, 1.0, -1.0], (np.r_[coo.row, 0, 0],
                                                         np.r_[coo.col, 0, 0])), shape=D.shape)
        X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=X.shape)
    elif kind == "coo":
        X = sp.coo_matrix(D)
    elif kind == "dense":
        X = D
    before = X.copy()
    F = append_constant_feature(X, 0.5)
    expected = np.hstack([D, np.full((12, 1), 0.5)])
    if kind == "dense":
        np.testing.assert_array_equal(F, expected)
        return
    assert F.format == "csr" and F.has_canonical_format and F.dtype == np.float64
    assert np.all(np.diff(F.indices[F.indptr[0]:F.indptr[1]]) > 0)
    np.testing.assert_allclose(F.toarray(), expected, rtol=0, atol=1e-15)
    np.testing.assert_array_equal((X != before).toarray(), False)  # X itself unchanged


@pytest.mark.parametrize("seed", [0, 1])
def test_mklgl_master_on_sparse_features_matches_the_socp(seed):
    X, rows, signs, mu, c = sparse_working_set(seed, n=40, d=25, T=3, n_flip=8)
    fast = master_mklgl(X, rows, signs, c, tol=1e-7, max_alternations=2000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = master_cvxpy(X, rows, signs, c, solver="CLARABEL")
    # MKLGL certifies lower <= saddle value <= value with a relative gap of 1e-7; Clarabel is
    # accurate to ~1e-7 here
    assert fast.lower <= ref.value + 1e-6 * abs(ref.value)
    np.testing.assert_allclose(fast.value, ref.value, rtol=1e-5)


def test_large_linear_policy_applies_only_to_large_feature_problems():
    rng = np.random.default_rng(0)
    y_known = np.zeros(LARGE_LINEAR_N + 1)
    y_known[:2] = [1.0, -1.0]
    X = sp.random(LARGE_LINEAR_N + 1, 5, density=0.5, format="csr", random_state=rng)
    large = RoundPolicy.for_problem(WeakLabelProblem(features=X,
                                                     labelset=SemiSupervised(y_known)))
    small = RoundPolicy.for_problem(WeakLabelProblem(features=X[:-1],
                                                     labelset=SemiSupervised(y_known[:-1])))
    assert small == RoundPolicy()  # the small-problem defaults are untouched
    assert large.cuts == 1 and not large.eigen_starts and large.polish_iter == 0
    assert large.final_alternations <= small.final_alternations
    # the exact oracle keeps its certified settings on large feature problems too
    exact = RoundPolicy.for_problem(WeakLabelProblem(features=X, labelset=SemiSupervised(y_known)),
                                    oracle="exact")
    assert exact.master_tol == 1e-4 and exact.inner_tol is None and exact.tol == 1e-3


def test_large_linear_fit_beats_chance_and_returns_feasible_labels():
    """The large linear policy end to end (just above LARGE_LINEAR_N rows): feasible labels with
    the labeled ones kept, upper_bound = J(labels), and the topic classes recovered."""
    from weakcvx import solve
    from weakcvx.datasets import make_topic_text

    X, y, y_known = make_topic_text(LARGE_LINEAR_N + 500, 2000, topic_weight=0.2,
                                    labeled_fraction=0.02, random_state=0)
    problem = WeakLabelProblem(features=X, labelset=SemiSupervised(y_known.astype(float)))
    res = solve(problem, method="label_generation", max_iter=10)
    labels = np.asarray(res.labels)
    assert problem.labelset.contains(labels)
    assert np.all(labels[y_known != 0] == y_known[y_known != 0])
    # upper_bound is J(labels): the primal value of an SVM fit to 1e-6 (4 digits at least)
    np.testing.assert_allclose(res.upper_bound, problem.J(labels)[0], rtol=1e-4)
    assert np.mean(labels == y) > 0.9


@pytest.mark.parametrize("seed", range(3))
def test_linear_s3vm_defaults_beat_a_linear_svm_on_topic_text(seed):
    """Where the cluster assumption holds (two topic vocabularies, 2% of the documents
    labeled), the default ``S3VM(kernel="linear")`` labels the unlabeled documents better than
    scikit-learn's ``LinearSVC()`` trained on the labeled ones (measured margin 0.046-0.074 on
    seeds 0-5; the former costs C = C_u = 2 gained 0.012-0.052)."""
    from sklearn.svm import LinearSVC

    import weakcvx as wc
    from weakcvx.datasets import make_topic_text

    X, y, y_known = make_topic_text(2000, 1000, labeled_fraction=0.02, random_state=seed)
    labeled = y_known != 0
    supervised = LinearSVC(random_state=0).fit(X[labeled], y[labeled]).predict(X[~labeled])
    clf = wc.S3VM(kernel="linear", random_state=0).fit(X, np.where(labeled, (y > 0), -1))
    s3vm = np.where(clf.transduction_[~labeled] == 1, 1, -1)
    assert np.mean(s3vm == y[~labeled]) > np.mean(supervised == y[~labeled]) + 0.02


def test_linear_s3vm_is_translation_invariant_and_predicts_its_labels():
    """Dense features are centred (the offset is a regularised constant feature): a column
    around 5e4 (an income) gives the same labeling as the centred data, and the model then
    follows its own transduction on the training rows. Uncentred, the constant feature of
    value 1 was dwarfed and ``predict`` gave one class (0.50 against 0.77 for the labels)."""
    X, y_true, y_known = weakcvx.datasets.make_two_moons(30, n_labeled=4, random_state=0)
    y = np.where(y_known == 0, -1, (y_known > 0).astype(int))
    income = np.c_[10_000 * X[:, 0], X[:, 1]]
    fits = [weakcvx.S3VM(kernel="linear", random_state=0).fit(income + shift, y)
            for shift in (np.zeros(2), np.array([50_000.0, -3.0]))]
    assert np.array_equal(fits[0].transduction_, fits[1].transduction_)
    shifted = income + np.array([50_000.0, -3.0])
    np.testing.assert_allclose(fits[1].decision_function(shifted),
                               fits[0].decision_function(income), rtol=1e-6, atol=1e-6)
    # the soft-margin SVM of the labels need not reproduce every one of them, but it follows
    # them (uncentred: one class everywhere, 0.60 agreement)
    assert np.mean(fits[1].predict(shifted) == fits[1].transduction_) > 0.9
    assert np.mean(fits[1].predict(shifted) == (y_true > 0)) > 0.7
