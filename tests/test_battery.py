"""The faults found by the 310-case reliability battery (issue 21), one test per fixed case:
complex input refused by name, errors that name their argument, no silent wrong result, solver
faults wrapped, and the positive-unlabeled label set.

Inputs are tiny (12 points) so that every case runs in well under a second.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import weakcvx as wc
from weakcvx import kernels, labelsets

N = 12
_rng = np.random.default_rng(0)
X = _rng.standard_normal((N, 2))
X[: N // 2] += 2.0
BAGS = np.repeat(np.arange(4), 3)
PROPS = np.array([1.0, 2 / 3, 1 / 3, 0.0])
Y01 = np.r_[np.ones(N // 2, int), np.zeros(N // 2, int)]
Y_SSL = Y01.copy()
Y_SSL[[1, 2, 3, 4, 7, 8, 9, 10]] = -1
K = kernels.rbf(X)
MIXED_IDS = np.array([0, 1, "a"] * 4, dtype=object)


def _proportion_svm():
    return wc.ProportionSVM(n_init=1, max_iter=3, random_state=0)


# -- complex input is refused, naming the argument ----------------------------------------------
COMPLEX_CASES = {
    "proportions": lambda: labelsets.Proportions(BAGS, PROPS + 0j),
    "y_known": lambda: labelsets.SemiSupervised(np.array([1, -1, 0, 0]) + 0j),
    "X": lambda: kernels.rbf(X + 0j),
    "Y": lambda: kernels.linear(X, X + 1j),
    "features": lambda: wc.WeakLabelProblem(features=X + 0j,
                                            labelset=labelsets.Clustering(N, 4)),
    "kernel": lambda: wc.WeakLabelProblem(K + 0j, labelsets.Clustering(N, 4)),
    "beta": lambda: wc.BetaSVM(init="given", max_iter=2).fit(
        X, Y01, beta=np.full((N, 2), 0.5) + 0j),
    "bag_labels": lambda: labelsets.KeyInstances(BAGS, np.array([1, 1, 0, 0]) + 0j),
    "vectors": lambda: labelsets.Enumerated(np.ones((2, N)) + 0j),
    "y_true": lambda: wc.WeakLabelProblem(K, labelsets.Clustering(N, 4),
                                          y_true=np.where(Y01 > 0, 1, -1) + 0j),
    "K_diag": lambda: kernels.pivoted_cholesky(np.diag(K) + 0j, lambda j: K[:, j], rank=3),
}


@pytest.mark.parametrize("name", sorted(COMPLEX_CASES))
def test_complex_input_is_refused_naming_the_argument(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # no ComplexWarning on the way
        with pytest.raises(ValueError, match=f"`{name}` must be real-valued"):
            COMPLEX_CASES[name]()


@pytest.mark.parametrize("make", [
    lambda: _proportion_svm().fit(X, BAGS, PROPS + 0j),
    lambda: _proportion_svm().fit(X, BAGS, {k: p + 0j for k, p in enumerate(PROPS)}),
    lambda: wc.InvCal().fit(X, BAGS, PROPS + 0j),
    lambda: wc.MeanMap().fit(X, BAGS, PROPS + 0j),
])
def test_complex_proportions_are_refused_by_the_estimators(make):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="`proportions` must be real-valued"):
            make()


def test_complex_multi_instance_labels_are_refused():
    bags = [X[3 * k: 3 * k + 3] for k in range(4)]
    with pytest.raises(ValueError, match="`y` must be real-valued"):
        wc.MultiInstanceSVM(max_iter=2).fit(bags, np.array([1, 1, 0, 0]) + 0j)


# -- errors that name the argument ------------------------------------------------------------
def test_bag_ids_mixing_ints_and_strings_are_refused_by_name():
    with pytest.raises(ValueError, match=r"`bags` must hold ids of one sortable kind.*int.*str"):
        _proportion_svm().fit(X, MIXED_IDS, [0.5, 0.5, 0.5])
    with pytest.raises(ValueError, match="`bag_ids` must hold ids of one sortable kind"):
        labelsets.Proportions(MIXED_IDS, [0.5, 0.5, 0.5])


@pytest.mark.parametrize("bags, match", [
    (BAGS[:5], r"`bags` must be a 1-D array with one bag id per row of X \(12\)"),
    (np.r_[BAGS[:-1], np.nan], "`bags` must not contain NaN"),
    (np.array([0, 1, np.nan] * 4, dtype=object), "`bags` must not contain NaN"),
    (MIXED_IDS, "`bags` must hold ids of one sortable kind"),
])
def test_predict_proportions_checks_bags_as_fit_does(bags, match):
    model = _proportion_svm().fit(X, BAGS, PROPS)
    with pytest.raises(ValueError, match=match):
        model.predict_proportions(X, bags)


@pytest.mark.parametrize("kernel, error, match", [
    (np.zeros((0, 0)), ValueError, r"`kernel` must be a square \(n, n\) matrix with n >= 1"),
    (sp.csr_matrix(K), TypeError, "`kernel` must be a dense"),
])
def test_problem_refuses_an_empty_or_sparse_kernel(kernel, error, match):
    with pytest.raises(error, match=match):
        wc.WeakLabelProblem(kernel, labelsets.Clustering(N, 4))


@pytest.mark.parametrize("call", [
    lambda rank: kernels.factor(K, rank=rank),
    lambda rank: kernels.nystrom(X, kernels.rbf, rank),
    lambda rank: kernels.pivoted_cholesky_blocked(np.diag(K), lambda idx: K[:, idx], rank),
])
@pytest.mark.parametrize("rank", [-1, 0, 2.5])
def test_factor_ranks_must_be_positive_integers(call, rank):
    with pytest.raises(ValueError, match=f"`rank` must be a positive integer. Got {rank!r}"):
        call(rank)


# -- no silent wrong result -------------------------------------------------------------------
@pytest.mark.parametrize("degree", [0.5, 0, -1])
def test_polynomial_kernel_refuses_a_degree_that_is_not_a_positive_integer(degree):
    with pytest.raises(ValueError, match="`degree` must be a positive integer"):
        kernels.polynomial(X, degree=degree, coef0=-5)


def test_polynomial_kernel_refuses_to_overflow():
    with pytest.raises(ValueError, match="overflows float64"):
        kernels.polynomial(X * 1e3, degree=200)


@pytest.mark.parametrize("b", [np.zeros(N), np.full(N, 0.5), np.ones(N - 1)])
def test_J_refuses_a_vector_that_is_not_a_labeling(b):
    problem = wc.WeakLabelProblem(features=X, labelset=labelsets.Clustering(N, 4))
    with pytest.raises(ValueError, match="`b` must be a labeling"):
        problem.J(b)


def test_partial_label_sets_mixing_int_and_str_labels_are_refused_by_name():
    sets = [{0, "a"} if i % 2 else {1} for i in range(N)]
    with pytest.raises(ValueError, match="`candidates` must hold class labels of one sortable "
                                         r"kind.*int.*str"):
        wc.PartialLabelSVM(max_iter=5, random_state=0).fit(X, sets)


def test_partial_label_sets_keep_integer_classes():
    sets = [{0, 1} if i % 2 else {i % 3} for i in range(N)]
    model = wc.PartialLabelSVM(max_iter=5, random_state=0).fit(X, sets)
    assert model.classes_.tolist() == [0, 1, 2]


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_beta_svm_knn_refuses_nan_or_inf_as_a_class(bad):
    y = np.r_[np.ones(N // 2), np.full(N // 2, bad)]
    with pytest.raises(ValueError, match="`y` must hold class labels, without NaN or inf"):
        wc.BetaSVM(init="knn", max_iter=2).fit(X, y)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_partial_label_svm_with_a_tiny_lam_says_so_instead_of_a_zero_model(kernel):
    C = np.eye(3, dtype=bool)[np.arange(N) % 3]
    with pytest.raises(ValueError, match="`lam` is too small for PL-Pegasos.*lam=1e-300"):
        wc.PartialLabelSVM(lam=1e-300, kernel=kernel, random_state=0).fit(X, C)


# -- solver faults wrapped; degenerate fits said ---------------------------------------------
N40 = 40
_rng40 = np.random.default_rng(1)
X40 = _rng40.standard_normal((N40, 2))
Y40 = (X40[:, 0] > 0).astype(int)
BAGS40 = np.repeat(np.arange(8), 5)
PROPS40 = np.array([Y40[BAGS40 == k].mean() for k in range(8)])
Y40_SSL = np.where(np.arange(N40) < 6, Y40, -1)


@pytest.mark.parametrize("make, fit_args", [
    (lambda C: wc.InvCal(C=C), (X40, BAGS40, PROPS40)),
    (lambda C: wc.BetaSVM(C=C, solver="cvxopt", max_iter=2), (X40, Y40_SSL)),
])
@pytest.mark.parametrize("C", [1e20, 1e300])
def test_cvxopt_failures_on_a_huge_C_raise_solver_error(make, fit_args, C):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")    # LIBSVM's own warnings on the way
        with pytest.raises(wc.SolverError, match="solver 'cvxopt' failed with status "
                                                 "'singular KKT system'"):
            make(C).fit(*fit_args)


def test_beta_svm_falls_back_from_libsvm_to_cvxopt_and_raises_solver_error():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(wc.SolverError, match="'cvxopt' failed with status 'singular KKT"):
            wc.BetaSVM(C=1e300, max_iter=2).fit(X40, Y40_SSL)


def test_cvxopt_rank_error_raises_solver_error(monkeypatch):
    import cvxopt.solvers

    def rank_deficient(*args, **kwargs):
        raise ValueError("Rank(A) < p or Rank([P; A; G]) < n")

    monkeypatch.setattr(cvxopt.solvers, "qp", rank_deficient)
    with pytest.raises(wc.SolverError, match="'cvxopt' failed with status 'rank deficient KKT "
                                             "system'.*InvCal.*Rank"):
        wc.InvCal().fit(X40, BAGS40, PROPS40)


@pytest.mark.parametrize("make, scale", [
    (lambda: wc.ProportionSVM(C=1e300, n_init=3, random_state=0, standardize=False), 1.0),
    (lambda: wc.ProportionSVM(n_init=3, random_state=0, standardize=False), 1e-6),
    (lambda: wc.InvCal(), 1e-6),
    (lambda: wc.MeanMap(), 1e-6),
])
def test_proportion_estimators_warn_when_they_predict_one_class(make, scale):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # overflow inside the SMO at C=1e300
        with pytest.warns(UserWarning, match="predicts class . for every training point") \
                as record:
            model = make().fit(X40 * scale, BAGS40, PROPS40)
    assert np.isfinite(model.decision_function(X40 * scale)).all()
    message = next(str(w.message) for w in record if "every training point" in str(w.message))
    # the causes named fit the estimator: the bag means for the two that see only them, C
    # for those that have one
    assert ("bag means too alike" in message) == isinstance(model, (wc.InvCal, wc.MeanMap))
    assert ("C=" in message) == hasattr(model, "C")
    assert ("tiny scale" in message) == (not getattr(model, "standardize", False))
    assert ("try kernel='rbf'" in message) == (getattr(model, "kernel", None) == "linear")


def test_one_class_warning_names_the_linear_kernel_not_the_scale_of_standardized_features():
    # a 20% minority without a linear boundary, bags of 2 (a user probe, seed 2100): the
    # transduction keeps the proportions, the linear model puts every point on the majority
    # side, as a linear SVC on the true labels does; the features are standardized by fit
    from sklearn.datasets import make_classification
    from sklearn.svm import LinearSVC

    X, y = make_classification(1024, 10, n_informative=5, weights=[0.8], random_state=2100)
    X, y = X[:768], y[:768]
    assert np.mean(LinearSVC().fit(X, y).predict(X)) < 0.05    # the true labels, linearly
    bags, props = wc.datasets.make_bags(X, y, 2, random_state=2100)
    with pytest.warns(UserWarning, match="predicts class 0 for every training point") as record:
        model = wc.ProportionSVM(random_state=2100).fit(X, bags, props)
    message = next(str(w.message) for w in record if "every training point" in str(w.message))
    assert "try kernel='rbf'" in message and "tiny scale" not in message
    assert 0.1 < model.transduction_.mean() < 0.3


def test_proportion_svm_refuses_a_non_finite_model(monkeypatch):
    import weakcvx.estimators.proportion as proportion

    original = proportion.alter_proportion_svm

    def overflowed(*args, **kwargs):
        res = original(*args, **kwargs)
        return {**res, "value": np.nan}

    monkeypatch.setattr(proportion, "alter_proportion_svm", overflowed)
    with pytest.raises(wc.SolverError, match="non-finite model"):
        wc.ProportionSVM(n_init=1, random_state=0).fit(X40, BAGS40, PROPS40)


def test_proportion_estimators_on_standardized_features_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for model in (wc.ProportionSVM(n_init=3, random_state=0), wc.InvCal(), wc.MeanMap()):
            model.fit(X40, BAGS40, PROPS40)


# -- positive-unlabeled learning: a valid label set -------------------------------------------
def _pu_problem():
    X, y_true, _ = wc.datasets.make_two_moons(14, n_labeled=2, random_state=0)
    y_known = np.zeros(14, dtype=int)
    y_known[np.flatnonzero(y_true == 1)[:3]] = 1
    n_positive = int(np.sum(y_true == 1)) - 3
    labelset = labelsets.SemiSupervised(y_known, n_positive=n_positive)
    return wc.WeakLabelProblem(kernels.rbf(X), labelset), y_known, n_positive


def test_positive_unlabeled_set_is_accepted_when_the_count_is_given():
    problem, y_known, n_positive = _pu_problem()
    B = problem.labelset
    assert B.n_positive == n_positive and B.n_labeled == 3
    elements = B.enumerate()
    assert len(elements) == B.cardinality()
    assert np.all(elements[:, y_known == 1] == 1)
    assert np.all((elements[:, y_known == 0] == 1).sum(axis=1) == n_positive)


def test_positive_unlabeled_ladder_holds_against_brute_force():
    problem, _, _ = _pu_problem()
    exact = wc.solve(problem, method="exact")
    brute = min(problem.J(b)[0] for b in problem.labelset.enumerate())
    assert exact.certified and exact.value == pytest.approx(brute, rel=1e-6)
    hull = wc.solve(problem, method="label_generation", oracle="exact")
    sdp = wc.solve(problem, method="sdp")
    assert sdp.value <= hull.value * (1 + 1e-3) + 1e-6
    assert hull.value <= exact.value * (1 + 1e-6)
    for result in (exact, hull, sdp):
        assert problem.labelset.contains(result.labels)


@pytest.mark.parametrize("y_known", [[1, 1, 0, 0], [-1, 0, 0], [0, 0, 0]])
def test_one_labeled_class_without_a_count_is_still_refused(y_known):
    with pytest.raises(ValueError, match="both classes .* when `n_positive` is not given"):
        labelsets.SemiSupervised(y_known)


# -- quality notes: a warning rather than silence ---------------------------------------------
def _gap_clusters():
    X, y_true, y_known = wc.datasets.make_gap_clusters(60, n_labeled=4, random_state=0)
    return X, np.where(y_known == 0, -1, (y_known > 0).astype(int))


@pytest.mark.parametrize("make, with_y", [
    (lambda: wc.S3VM(kernel="linear", random_state=0, max_iter=3), True),
    (lambda: wc.MaxMarginClustering(kernel="linear", random_state=0, n_init=1, max_iter=3),
     False),
])
def test_linear_kernel_on_unscaled_features_warns(make, with_y):
    X, y = _gap_clusters()
    args = (y,) if with_y else ()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", wc.SolverFallbackWarning)
        with pytest.warns(UserWarning, match=r"max_i ‖x_i‖² with kernel='linear' = .* the "
                                             "features look unscaled"):
            make().fit(X * 1e6, *args)


def test_linear_kernel_on_standardized_features_does_not_warn():
    X, y = _gap_clusters()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wc.S3VM(kernel="linear", random_state=0, max_iter=3).fit(X * 1e3, y)
    assert not [w for w in caught if "look unscaled" in str(w.message)]


def test_proportion_svm_label_generation_warns_about_scale_once():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wc.ProportionSVM(relaxation="label_generation", random_state=0, max_iter=3,
                         standardize=False).fit(X40 * 1e6, BAGS40, PROPS40)
    unscaled = [w for w in caught if "look unscaled" in str(w.message)]
    assert len(unscaled) == 1
