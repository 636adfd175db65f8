"""Branch and bound S3VM (Chapelle, Sindhwani & Keerthi 2006): ``weakcvx.bnb_s3vm`` and the
``BranchAndBoundS3VM`` estimator.

Properties checked (each can fail): the node SVM (primal Newton on the bordered system) reaches
an independent CVXPY solve of the squared-hinge SVM with offset; the add-one-in formula (eq. 8)
equals exact retraining whenever the support set does not change otherwise; the exact line
search minimises its piecewise quadratic; the branch-and-bound optimum equals brute-force
enumeration of every labeling with the right positive count; the bound reported under a node or
time limit is a valid lower bound of the optimum; on two moons the certified optimum is no worse
than the true labeling and its transductive error is at most 2%; the scikit-learn contract; bad
input.
"""

import logging
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

from weakcvx.bnb_s3vm import (
    _line_search,
    add_one_in,
    branch_and_bound_s3vm,
    enumerate_s3vm,
    node_svm,
    node_svm_cvxpy,
)
from weakcvx.datasets import make_two_moons
from weakcvx.estimators.bnb import BranchAndBoundS3VM
from weakcvx.kernels import linear, rbf
from weakcvx.result import SolverError

# Clarabel reaches ~1e-8 relative on these small SOCPs; the Newton solve is exact to round-off.
CVXPY_RTOL = 1e-6
# Two exact solves (or an exact solve and the closed form) of the same linear system.
EXACT_RTOL = 1e-9
TWO_MOONS_GAMMA = 2.0  # sigma = 0.5, the paper's two moons
TWO_MOONS_C = 10.0

# Checks that cannot pass, with the reason (as for S3VM: the same target convention).
EXPECTED_FAILED_CHECKS = {
    "check_classifiers_classes": "string class labels cannot carry the -1 unlabeled marker",
}


# ---------------------------------------------------------------------------------------------
# random problems
# ---------------------------------------------------------------------------------------------


def random_kernel(rng, n, kind=None):
    """A PSD kernel on n random 2-D points: RBF of random width, or linear (rank 2)."""
    X = rng.normal(size=(n, 2))
    X[: n // 2] += rng.uniform(0.0, 2.0)
    kind = kind or rng.choice(["rbf", "rbf", "linear"])
    if kind == "linear":
        return linear(X)
    return rbf(X, gamma=float(rng.uniform(0.2, 3.0)))


def random_labeled_set(rng, n, fraction=0.6):
    """Labels +1/-1 on a random subset of the n points (both classes present), 0 elsewhere."""
    y = np.where(rng.random(n) < fraction, rng.choice([-1.0, 1.0], size=n), 0.0)
    first, second = rng.choice(n, size=2, replace=False)
    y[first], y[second] = 1.0, -1.0
    return y


def random_ssl_problem(seed, n_unlabeled):
    """(K, y_known, C, n_positive) with 2–4 labeled points and a random positive count."""
    rng = np.random.default_rng(seed)
    n_labeled = int(rng.integers(2, 5))
    n = n_labeled + n_unlabeled
    K = random_kernel(rng, n)
    y_known = np.zeros(n)
    labeled = rng.choice(n, size=n_labeled, replace=False)
    y_known[labeled] = rng.choice([-1.0, 1.0], size=n_labeled)
    y_known[labeled[:2]] = [1.0, -1.0]
    n_positive = None if seed % 3 == 0 else int(rng.integers(1, n_unlabeled))
    C = float(rng.uniform(0.5, 20.0))
    return K, y_known, C, n_positive


def primal_objective(K, y, C, beta, b):
    f = K @ beta + b
    L = y != 0
    return 0.5 * beta @ K @ beta + C * np.sum(np.maximum(0.0, 1.0 - y[L] * f[L]) ** 2)


def ssl_target(y_known):
    """Modelling-layer labels (+1/-1/0) to scikit-learn's convention (1/0, -1 unlabeled)."""
    y = np.where(y_known > 0, 1, 0)
    y[y_known == 0] = -1
    return y


def two_moons(seed, n=102):
    """The paper's Table 1 setting: one labeled point and 50 unlabeled points per moon."""
    X, y_true, y_known = make_two_moons(n, n_labeled=2, random_state=seed)
    return X, y_true.astype(float), y_known


# ---------------------------------------------------------------------------------------------
# node SVM (eq. 6) against CVXPY
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(8))
def test_node_svm_matches_cvxpy(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 30))
    K = random_kernel(rng, n, kind="linear" if seed % 4 == 3 else "rbf")
    y = random_labeled_set(rng, n)
    C = float(rng.uniform(0.05, 50.0))
    svm = node_svm(K, y, C)
    reference = node_svm_cvxpy(K, y, C)
    assert svm.value == pytest.approx(reference, rel=CVXPY_RTOL)
    # the value is the primal objective of the returned (β, b), β zero off the labeled points
    assert np.all(svm.dual_coef[y == 0] == 0)
    assert primal_objective(K, y, C, svm.dual_coef, svm.intercept) == pytest.approx(
        svm.value, rel=EXACT_RTOL)
    # KKT: α_i = y_i β_i = 2C(1 − y_i f_i) ≥ 0, zero exactly off the support set; Σ β = 0
    L = np.flatnonzero(y)
    alpha = y[L] * svm.dual_coef[L]
    np.testing.assert_allclose(alpha, 2 * C * np.maximum(0, 1 - y[L] * svm.decision[L]),
                               atol=1e-8 * max(1.0, C))
    assert abs(svm.dual_coef.sum()) < 1e-9
    # s(L) = ½ βᵀy (the paper's s(L) = ½ y_svᵀ K_sv⁻¹ y_sv)
    assert 0.5 * svm.dual_coef @ y == pytest.approx(svm.value, rel=EXACT_RTOL)


def test_node_svm_unbalanced_and_duplicate_points():
    """One point of one class against many of the other, with duplicated rows."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(12, 2))
    X[5] = X[4]
    K = rbf(X, gamma=0.5)
    y = -np.ones(12)
    y[0] = 1.0
    for C in (0.1, 10.0, 1000.0):
        assert node_svm(K, y, C).value == pytest.approx(node_svm_cvxpy(K, y, C),
                                                         rel=CVXPY_RTOL)


# ---------------------------------------------------------------------------------------------
# add-one-in (eq. 8) against retraining
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_add_one_in_equals_retraining_when_support_unchanged(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(10, 25))
    K = random_kernel(rng, n, kind="rbf")
    y = random_labeled_set(rng, n, fraction=0.5)
    C = float(rng.uniform(0.5, 20.0))
    before = node_svm(K, y, C)
    candidates = np.flatnonzero(y == 0)
    plus, minus = add_one_in(K, y, C, candidates)
    n_checked = 0
    for k, x in enumerate(candidates):
        for label, estimate in ((1.0, plus[k]), (-1.0, minus[k])):
            y_new = y.copy()
            y_new[x] = label
            after = node_svm(K, y_new, C)
            expected_support = set(before.support.tolist())
            if label * before.decision[x] < 1:
                expected_support.add(int(x))
            if set(after.support.tolist()) == expected_support:
                assert estimate == pytest.approx(after.value, rel=EXACT_RTOL)
                n_checked += 1
            # eq. 8 never estimates below the parent's value
            assert estimate >= before.value
    assert n_checked >= len(candidates)  # about half the (point, label) pairs at least


def test_add_one_in_schur_complement_by_explicit_inverse():
    """S_x of eq. 8 from an explicitly inverted bordered matrix (no updates involved)."""
    rng = np.random.default_rng(7)
    n, C = 15, 3.0
    K = random_kernel(rng, n, kind="rbf")
    y = random_labeled_set(rng, n, fraction=0.5)
    svm = node_svm(K, y, C)
    sv = svm.support
    M = np.zeros((len(sv) + 1, len(sv) + 1))
    M[0, 1:] = M[1:, 0] = 1.0
    M[1:, 1:] = K[np.ix_(sv, sv)] + np.eye(len(sv)) / (2 * C)
    candidates = np.flatnonzero(y == 0)
    plus, minus = add_one_in(K, y, C, candidates)
    for k, x in enumerate(candidates):
        v = np.concatenate([[1.0], K[sv, x]])
        S_x = K[x, x] - v @ np.linalg.solve(M, v)
        f_x = svm.decision[x]
        assert plus[k] == pytest.approx(
            svm.value + max(0, 1 - f_x) ** 2 / (2 * S_x + 1 / C), rel=EXACT_RTOL)
        assert minus[k] == pytest.approx(
            svm.value + max(0, 1 + f_x) ** 2 / (2 * S_x + 1 / C), rel=EXACT_RTOL)


@pytest.mark.parametrize("seed", range(20))
def test_line_search_minimises_piecewise_quadratic(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 15))
    a, c = rng.normal() - 1.0, float(rng.uniform(0.0, 3.0))
    m, g = rng.normal(size=n), rng.normal(size=n)
    C = float(rng.uniform(0.1, 10.0))

    def phi(t):
        return a * t + 0.5 * c * t * t + C * np.sum(np.maximum(0.0, m - t * g) ** 2)

    t = _line_search(a, c, m, g, C)
    grid = np.linspace(0.0, max(4.0 * t, 10.0), 20001)
    assert t >= 0
    assert phi(t) <= min(phi(s) for s in grid) + 1e-9


# ---------------------------------------------------------------------------------------------
# branch and bound against enumeration
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed,n_unlabeled", [(0, 6), (1, 8), (2, 9), (3, 10), (4, 10),
                                              (5, 11), (6, 12), (7, 7)])
def test_branch_and_bound_equals_enumeration(seed, n_unlabeled):
    K, y_known, C, n_positive = random_ssl_problem(seed, n_unlabeled)
    value, labels, values = enumerate_s3vm(K, y_known, C, n_positive)
    result = branch_and_bound_s3vm(K, y_known, C, n_positive)
    assert result.status == "optimal" and result.extra["optimal"]
    assert result.upper_bound == pytest.approx(value, rel=EXACT_RTOL)
    assert result.value == result.upper_bound
    # the labeling is feasible and its objective is the reported one
    unlabeled = y_known == 0
    assert np.all(result.labels[~unlabeled] == y_known[~unlabeled])
    n_pos = np.sum(labels[unlabeled] > 0)
    assert np.sum(result.labels[unlabeled] > 0) == n_pos
    assert node_svm(K, result.labels, C).value == pytest.approx(result.upper_bound,
                                                                 rel=EXACT_RTOL)
    # the model returned is the SVM of that labeling
    beta, b = result.extra["dual_coef"], result.extra["intercept"]
    assert primal_objective(K, result.labels, C, beta, b) == pytest.approx(
        result.upper_bound, rel=EXACT_RTOL)
    # fewer nodes than labelings (the search prunes)
    assert result.n_iter <= 2 * len(values)


def test_enumeration_optimum_matches_cvxpy():
    """The reference of the reference: enumeration's optimum re-solved by CVXPY."""
    K, y_known, C, n_positive = random_ssl_problem(3, 10)
    value, labels, _ = enumerate_s3vm(K, y_known, C, n_positive)
    assert node_svm_cvxpy(K, labels, C) == pytest.approx(value, rel=CVXPY_RTOL)


@pytest.mark.parametrize("n_positive", [0, 9])
def test_branch_and_bound_forced_labels(n_positive):
    """n₊ = 0 or u: a single feasible labeling, solved at the root."""
    K, y_known, C, _ = random_ssl_problem(4, 9)
    result = branch_and_bound_s3vm(K, y_known, C, n_positive)
    expected = np.where(y_known == 0, 1.0 if n_positive else -1.0, y_known)
    assert np.array_equal(result.labels, expected)
    assert result.n_iter == 1 and result.status == "optimal"


@pytest.mark.parametrize("max_nodes", [1, 2, 5, 20])
def test_node_limit_gives_valid_lower_bound(max_nodes):
    K, y_known, C, n_positive = random_ssl_problem(6, 12)
    optimum, _, _ = enumerate_s3vm(K, y_known, C, n_positive)
    with pytest.warns(ConvergenceWarning, match="max_nodes"):
        result = branch_and_bound_s3vm(K, y_known, C, n_positive, max_nodes=max_nodes)
    assert result.status == "node_limit" and not result.extra["optimal"]
    assert result.n_iter == max_nodes
    assert result.value <= optimum * (1 + EXACT_RTOL) <= result.upper_bound * (1 + 2 * EXACT_RTOL)
    # still a feasible labeling with the right count
    unlabeled = y_known == 0
    n_pos = n_positive if n_positive is not None else np.sum(
        enumerate_s3vm(K, y_known, C, None)[1][unlabeled] > 0)
    assert np.sum(result.labels[unlabeled] > 0) == n_pos


def test_time_limit_warns_and_bounds():
    X, y_true, y_known = two_moons(0)
    K = rbf(X, gamma=TWO_MOONS_GAMMA)
    with pytest.warns(ConvergenceWarning, match="time_limit"):
        result = branch_and_bound_s3vm(K, y_known, TWO_MOONS_C, time_limit=1e-3)
    assert result.status == "time_limit" and not result.extra["optimal"]
    assert result.value <= node_svm(K, y_true, TWO_MOONS_C).value
    assert result.value <= result.upper_bound


def test_enumeration_refuses_large_sets():
    K, y_known, C, _ = random_ssl_problem(0, 12)
    with pytest.raises(ValueError, match="enumeration limit"):
        enumerate_s3vm(K, y_known, C, 6, limit=100)


# ---------------------------------------------------------------------------------------------
# two moons, the paper's Table 1 setting
# ---------------------------------------------------------------------------------------------


def _check_two_moons(seed):
    X, y_true, y_known = two_moons(seed)
    y = ssl_target(y_known)
    clf = BranchAndBoundS3VM(C=TWO_MOONS_C, gamma=TWO_MOONS_GAMMA).fit(X, y)
    assert clf.optimal_ and clf.lower_bound_ == clf.objective_
    K = rbf(X, gamma=TWO_MOONS_GAMMA)
    true_objective = node_svm(K, y_true, TWO_MOONS_C).value
    assert clf.objective_ <= true_objective * (1 + EXACT_RTOL)
    unlabeled = y_known == 0
    error = np.mean(clf.transduction_[unlabeled] != (y_true[unlabeled] > 0))
    assert error <= 0.02
    # the classifier extends to fresh points from the same moons
    X_test, y_test, _ = make_two_moons(400, random_state=10_000 + seed)
    assert np.mean(clf.predict(X_test) != (y_test > 0)) <= 0.05


@pytest.mark.parametrize("seed", [2, 3, 6])  # 160–370 nodes, well under a second each
def test_two_moons_certified_optimum(seed):
    _check_two_moons(seed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 5, 7, 18])  # 1100–3700 nodes, 1–5 s each
def test_two_moons_certified_optimum_harder_seeds(seed):
    _check_two_moons(seed)


# ---------------------------------------------------------------------------------------------
# the estimator
# ---------------------------------------------------------------------------------------------


@parametrize_with_checks([BranchAndBoundS3VM(max_nodes=200)],
                         expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS)
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


def small_moons(seed=0, n=30):
    X, y_true, y_known = make_two_moons(n, n_labeled=4, random_state=seed)
    return X, y_true, y_known, ssl_target(y_known)


def test_estimator_attributes_and_classes():
    X, y_true, y_known, y = small_moons()
    y_named = np.where(y == 1, 7, np.where(y == 0, 3, -1))  # classes 3 and 7
    clf = BranchAndBoundS3VM(C=10.0, gamma=2.0).fit(X, y_named)
    assert list(clf.classes_) == [3, 7]
    labeled = y_named != -1
    assert np.array_equal(clf.transduction_[labeled], y_named[labeled])
    assert set(np.unique(clf.transduction_)) <= {3, 7}
    assert clf.optimal_ and clf.n_nodes_ >= 1 and clf.lower_bound_ == clf.objective_
    scores = clf.decision_function(X)
    np.testing.assert_array_equal(clf.predict(X), np.where(scores > 0, 7, 3))
    # on the training points the decision function is the node SVM's
    np.testing.assert_allclose(scores, clf.result_.extra["decision"], atol=1e-10)
    assert clf.score(X, np.where(y_true > 0, 7, 3)) == np.mean(
        clf.predict(X) == np.where(y_true > 0, 7, 3))
    # balance: n₊ = labeled ratio times u
    n_pos = np.sum(clf.transduction_[~labeled] == 7)
    assert n_pos == int(np.floor(np.sum(~labeled) * np.mean(y[labeled] == 1) + 0.5))


def test_estimator_positive_fraction():
    X, _, _, y = small_moons(1)
    u = np.sum(y == -1)
    clf = BranchAndBoundS3VM(gamma=2.0, positive_fraction=0.3).fit(X, y)
    assert np.sum(clf.transduction_[y == -1] == 1) == round(0.3 * u)


def test_estimator_precomputed_and_linear_kernels():
    X, _, _, y = small_moons(2)
    rbf_clf = BranchAndBoundS3VM(gamma=1.5).fit(X, y)
    pre = BranchAndBoundS3VM(kernel="precomputed").fit(rbf(X, gamma=1.5), y)
    assert pre.objective_ == pytest.approx(rbf_clf.objective_, rel=EXACT_RTOL)
    np.testing.assert_array_equal(pre.transduction_, rbf_clf.transduction_)
    X_new = X[:5] + 0.05
    np.testing.assert_allclose(pre.decision_function(rbf(X_new, X, gamma=1.5)),
                               rbf_clf.decision_function(X_new), atol=1e-8)
    lin = BranchAndBoundS3VM(kernel="linear").fit(X, y)
    np.testing.assert_allclose(lin.decision_function(X), X @ lin.coef_ + lin.intercept_)
    K = X @ X.T
    assert lin.objective_ == pytest.approx(
        branch_and_bound_s3vm(K, np.where(y == -1, 0, 2.0 * y - 1), 10.0).upper_bound,
        rel=EXACT_RTOL)


def test_estimator_limits_warn():
    X, _, _, y = small_moons(0, n=40)
    with pytest.warns(ConvergenceWarning, match="max_nodes=3"):
        clf = BranchAndBoundS3VM(gamma=2.0, max_nodes=3).fit(X, y)
    assert not clf.optimal_ and clf.n_nodes_ == 3
    assert clf.lower_bound_ <= clf.objective_
    full = BranchAndBoundS3VM(gamma=2.0).fit(X, y)
    assert clf.lower_bound_ <= full.objective_ * (1 + EXACT_RTOL) <= clf.objective_ * (1 + 1e-9)


def test_estimator_deterministic_and_picklable():
    X, _, _, y = small_moons(3)
    a = BranchAndBoundS3VM(gamma=2.0, random_state=0).fit(X, y)
    b = BranchAndBoundS3VM(gamma=2.0, random_state=1).fit(X, y)
    assert a.objective_ == b.objective_ and a.n_nodes_ == b.n_nodes_
    np.testing.assert_array_equal(a.transduction_, b.transduction_)
    c = pickle.loads(pickle.dumps(a))
    # bit-identical model; its evaluation may differ in the last bit (BLAS and array alignment)
    np.testing.assert_array_equal(c.dual_coef_, a.dual_coef_)
    np.testing.assert_allclose(c.decision_function(X), a.decision_function(X), rtol=1e-12,
                               atol=1e-12)


def test_verbose_logs_and_default_is_silent(caplog):
    X, _, _, y = small_moons(0)
    with caplog.at_level(logging.INFO, logger="weakcvx"):
        BranchAndBoundS3VM(gamma=2.0).fit(X, y)
        assert not caplog.records
        BranchAndBoundS3VM(gamma=2.0, verbose=1).fit(X, y)
    messages = [r.getMessage() for r in caplog.records]
    assert any("new upper bound" in m for m in messages)
    assert any("optimal" in m for m in messages)


# ---------------------------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("params,match", [
    ({"C": 0.0}, "C"),
    ({"C": -1.0}, "C"),
    ({"kernel": "poly"}, "kernel"),
    ({"gamma": -2.0}, "gamma"),
    ({"positive_fraction": 1.5}, "positive_fraction"),
    ({"positive_fraction": 0.0}, "positive_fraction"),
    ({"max_nodes": 0}, "max_nodes"),
    ({"time_limit": 0.0}, "time_limit"),
])
def test_estimator_bad_parameters(params, match):
    X, _, _, y = small_moons()
    with pytest.raises(ValueError, match=match):
        BranchAndBoundS3VM(**params).fit(X, y)


def test_estimator_bad_data():
    X, _, _, y = small_moons()
    with pytest.raises(ValueError, match="two classes"):
        BranchAndBoundS3VM().fit(X, np.where(y == 0, -1, y))  # only class 1 labeled
    with pytest.raises(ValueError, match="one entry per row"):
        BranchAndBoundS3VM().fit(X, y[:-1])
    X_nan = X.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        BranchAndBoundS3VM().fit(X_nan, y)
    with pytest.raises(ValueError, match="square"):
        BranchAndBoundS3VM(kernel="precomputed").fit(X, y)
    with pytest.raises(ValueError, match="symmetric"):
        BranchAndBoundS3VM(kernel="precomputed").fit(np.triu(rbf(X)), y)


def test_functions_bad_input():
    K, y_known, C, _ = random_ssl_problem(0, 6)
    with pytest.raises(ValueError, match="square"):
        branch_and_bound_s3vm(K[:, :-1], y_known)
    with pytest.raises(ValueError, match="finite"):
        branch_and_bound_s3vm(np.full_like(K, np.nan), y_known)
    with pytest.raises(ValueError, match="one entry per row"):
        branch_and_bound_s3vm(K, y_known[:-1])
    with pytest.raises(ValueError, match=r"\+1/-1 for labeled and 0 for unlabeled"):
        branch_and_bound_s3vm(K, np.where(y_known == 1, 2.0, y_known))
    with pytest.raises(ValueError, match="both classes"):
        branch_and_bound_s3vm(K, np.where(y_known == 1, 0.0, y_known))
    with pytest.raises(ValueError, match="n_positive"):
        branch_and_bound_s3vm(K, y_known, n_positive=7)
    with pytest.raises(ValueError, match="C"):
        branch_and_bound_s3vm(K, y_known, C=0.0)
    with pytest.raises(ValueError, match="max_nodes"):
        branch_and_bound_s3vm(K, y_known, max_nodes=0)
    with pytest.raises(ValueError, match="time_limit"):
        branch_and_bound_s3vm(K, y_known, time_limit=-1.0)
    with pytest.raises(ValueError, match="both classes"):
        node_svm(K, np.where(y_known == -1, 0.0, y_known), 1.0)


def test_ctrl_c_returns_the_incumbent_marked_not_optimal(monkeypatch):
    """A KeyboardInterrupt inside the search returns the best labeling so far with a valid lower
    bound (the node being expanded stays open) and ``optimal`` False, with a warning."""
    import warnings

    import weakcvx as wc
    from weakcvx import bnb_s3vm

    X, _, y_known = wc.datasets.make_two_moons(40, n_labeled=2, random_state=0)
    K = wc.kernels.rbf(X, gamma=2.0)
    full = bnb_s3vm.branch_and_bound_s3vm(K, y_known, C=10.0)
    calls = {"n": 0}
    original = bnb_s3vm._Solver.add_one_in

    def interrupted(self, node, candidates):
        calls["n"] += 1
        if calls["n"] == 4:
            raise KeyboardInterrupt
        return original(self, node, candidates)

    monkeypatch.setattr(bnb_s3vm._Solver, "add_one_in", interrupted)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = bnb_s3vm.branch_and_bound_s3vm(K, y_known, C=10.0)
    assert res.status == "interrupted" and not res.extra["optimal"]
    assert any("Ctrl-C" in str(w.message) for w in caught)
    # the returned bound brackets the true optimum found by the uninterrupted search
    assert res.value <= full.upper_bound + 1e-9 <= res.upper_bound + 2e-9
    assert np.all(res.labels[y_known != 0] == y_known[y_known != 0])


# ---------------------------------------------------------------------------------------------
# conditioning: features far from the origin or of large scale (linear kernel)
# ---------------------------------------------------------------------------------------------


def _moons_linear(n=30, n_labeled=4, seed=0):
    X, _, y_known = make_two_moons(n, n_labeled=n_labeled, random_state=seed)
    return X, y_known, ssl_target(y_known)


@pytest.mark.parametrize("sparse", [False, True])
def test_linear_kernel_is_translation_invariant(sparse):
    # the offset is free: shifting every row by the same vector changes b only. On the raw
    # kernel of X + 1e4 the node SVM ran out of Newton steps (SolverError 'max_newton')
    X, _, y = _moons_linear()
    ref = BranchAndBoundS3VM(kernel="linear").fit(X, y)
    far = X + 1e4
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)   # scale 1: no warning
        clf = BranchAndBoundS3VM(kernel="linear").fit(sp.csr_matrix(far) if sparse else far, y)
    assert clf.optimal_
    np.testing.assert_array_equal(clf.transduction_, ref.transduction_)
    assert clf.objective_ == pytest.approx(ref.objective_, rel=1e-6)
    np.testing.assert_allclose(clf.decision_function(far), ref.decision_function(X), atol=1e-5)
    np.testing.assert_array_equal(clf.predict(far), clf.transduction_)


@pytest.mark.parametrize("n, n_labeled, seed", [(30, 4, 0), (40, 6, 3)])
def test_node_solver_on_an_ill_conditioned_kernel(n, n_labeled, seed):
    # J(s²K, C) = J(K, C s²) / s² (β' = s²β). At C · max k(x, x) ≈ 2.5e9 the fresh solves of
    # the node systems are accurate to ~1e-7 only, and a KKT test at 1e-9 cycled on the kernel
    # of the scaled rows (SolverError 'max_newton')
    X, y_known, _ = _moons_linear(n, n_labeled, seed)
    X, s = X - X.mean(axis=0), 1e4
    scaled = branch_and_bound_s3vm(linear(s * X), y_known, TWO_MOONS_C)
    costly = branch_and_bound_s3vm(linear(X), y_known, TWO_MOONS_C * s**2)
    assert scaled.extra["optimal"] and costly.extra["optimal"]
    np.testing.assert_array_equal(scaled.labels, costly.labels)
    assert scaled.upper_bound * s**2 == pytest.approx(costly.upper_bound, rel=1e-6)


def test_unscaled_linear_features_warn_and_a_failure_says_why():
    X, _, y = _moons_linear()
    # C · max ‖x − x̄‖² = 2.4e15: warned upfront; the node systems cannot be solved in float64
    with pytest.warns(UserWarning, match=r"C · max_i ‖x_i − x̄‖² with kernel='linear' = "
                                          r"2\.4\de\+15 exceeds 1e\+11") as record:
        with pytest.raises(SolverError, match=r"too ill-conditioned to solve in float64; "
                                                 r"the features look unscaled: standardize"):
            BranchAndBoundS3VM(kernel="linear").fit(X * 1e7, y)
    # the explained error, not also the search's warning that a node stopped it
    assert not any("could not solve" in str(w.message) for w in record)
