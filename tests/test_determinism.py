"""Determinism and scikit-learn integration (issue 10): the same ``random_state`` gives the same
result (per estimator, parallel restarts included); every estimator works inside ``Pipeline``
and ``GridSearchCV``; ``predict`` returns class labels, never scores.

The ``parametrize_with_checks`` runs live in each estimator's own test file with their listed,
reasoned exceptions (test_estimators.py, test_bnb_s3vm.py, test_beta.py, test_partial.py,
test_proportion.py, test_mil.py).
"""

import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

import weakcvx as wc
from weakcvx.model_selection import BagKFold, bag_error_scorer, bag_targets

N = 16
_rng = np.random.default_rng(0)
X = _rng.standard_normal((N, 2)) * 0.6 * [1.0, 3.0] + [5.0, -2.0]   # not standardized
X[: N // 2, 0] += 2.5
Y = np.r_[np.ones(N // 2, int), np.zeros(N // 2, int)]
Y_SSL = np.where(np.isin(np.arange(N), [0, 1, 8, 9]), Y, -1)
BAGS = np.repeat(np.arange(4), 4)
PROPS = np.array([1.0, 0.5, 0.5, 0.0])
CANDIDATES = np.zeros((N, 3), bool)
CANDIDATES[np.arange(N), np.arange(N) % 3] = True
CANDIDATES[::2, (np.arange(N)[::2] + 1) % 3] = True
MIL_BAGS = [X[2 * k: 2 * k + 2] for k in range(N // 2)]
MIL_Y = np.r_[np.ones(N // 4, int), np.zeros(N // 4, int)]

CASES = {
    # name: (estimator, fit args after X, fitted attributes that must repeat)
    "S3VM": (lambda: wc.S3VM(random_state=0), (Y_SSL,), ["transduction_", "objective_"]),
    "S3VM-alternating": (lambda: wc.S3VM(relaxation="alternating", random_state=0), (Y_SSL,),
                         ["transduction_"]),
    "BranchAndBoundS3VM": (lambda: wc.BranchAndBoundS3VM(max_nodes=200), (Y_SSL,),
                           ["transduction_", "objective_"]),
    "MaxMarginClustering": (lambda: wc.MaxMarginClustering(n_init=2, max_iter=10,
                                                           random_state=0), (),
                            ["labels_", "objective_"]),
    "BetaSVM": (lambda: wc.BetaSVM(max_iter=5), (Y_SSL,), ["beta_"]),
    "ProportionSVM": (lambda: wc.ProportionSVM(n_init=3, random_state=0), (BAGS, PROPS),
                      ["transduction_", "restart_objectives_"]),
    "ProportionSVM-convex": (lambda: wc.ProportionSVM(relaxation="label_generation",
                                                      eps=0.25, random_state=0),
                             (BAGS, PROPS), ["transduction_"]),
    "InvCal": (lambda: wc.InvCal(), (BAGS, PROPS), ["dual_coef_"]),
    "MeanMap": (lambda: wc.MeanMap(), (BAGS, PROPS), ["coef_"]),
    "PartialLabelSVM": (lambda: wc.PartialLabelSVM(kernel="linear", random_state=0),
                        (CANDIDATES,),
                        ["transduction_", "coef_"]),
    "PartialLabelSVM-rbf": (lambda: wc.PartialLabelSVM(random_state=0),
                            (CANDIDATES,), ["transduction_", "dual_coef_"]),
}


def _fit(est, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(*args)


def _same(a, b):
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_random_state_same_result(name):
    make, rest, attributes = CASES[name]
    first = _fit(make(), X, *rest)
    again = _fit(make(), X, *rest)
    cloned = _fit(clone(first), X, *rest)
    unpickled = pickle.loads(pickle.dumps(first))
    for other in (again, cloned):
        _same(first.decision_function(X), other.decision_function(X))
        for attribute in attributes:
            _same(getattr(first, attribute), getattr(other, attribute))
    _same(first.predict(X), unpickled.predict(X))


@pytest.mark.parametrize("name", ["S3VM", "MaxMarginClustering", "ProportionSVM",
                                  "PartialLabelSVM"])
def test_a_random_state_instance_is_consumed_reproducibly(name):
    """``random_state=np.random.RandomState(s)``: two fresh instances with the same seed give
    the same fit (randomness only through random_state)."""
    make, rest, _ = CASES[name]
    a = _fit(make().set_params(random_state=np.random.RandomState(7)), X, *rest)
    b = _fit(make().set_params(random_state=np.random.RandomState(7)), X, *rest)
    _same(a.decision_function(X), b.decision_function(X))


def test_multi_instance_same_random_state_same_result():
    for relaxation in ("label_generation", "alternating"):
        a = wc.MultiInstanceSVM(relaxation=relaxation, random_state=0).fit(MIL_BAGS, MIL_Y)
        b = wc.MultiInstanceSVM(relaxation=relaxation, random_state=0).fit(MIL_BAGS, MIL_Y)
        _same(a.decision_function(MIL_BAGS), b.decision_function(MIL_BAGS))
        _same(a.key_instances_, b.key_instances_)


def test_parallel_restarts_equal_serial_restarts():
    """alter-∝SVM restarts through joblib: n_jobs=2 gives exactly the n_jobs=1 result (each
    restart's seed is drawn before dispatch, results are gathered in order)."""
    serial = wc.ProportionSVM(n_init=3, n_jobs=1, random_state=3).fit(X, BAGS, PROPS)
    parallel = wc.ProportionSVM(n_init=3, n_jobs=2, random_state=3).fit(X, BAGS, PROPS)
    parallel_again = wc.ProportionSVM(n_init=3, n_jobs=2, random_state=3).fit(X, BAGS, PROPS)
    _same(serial.restart_objectives_, parallel.restart_objectives_)
    _same(serial.decision_function(X), parallel.decision_function(X))
    _same(parallel.decision_function(X), parallel_again.decision_function(X))


# --- predict returns class labels ------------------------------------------------------------

def test_predict_returns_the_user_class_labels_never_scores():
    y = np.where(Y_SSL == 1, 7, np.where(Y_SSL == 0, 3, -1))
    for est in (wc.S3VM(random_state=0), wc.BranchAndBoundS3VM(max_nodes=100),
                wc.BetaSVM(max_iter=3)):
        pred = _fit(est, X, y).predict(X)
        assert set(np.unique(pred)) <= {3, 7} and pred.dtype.kind in "iu"
        assert np.array_equal(pred, np.where(est.decision_function(X) > 0, 7, 3))
    pl = wc.PartialLabelSVM(random_state=0).fit(X, CANDIDATES, classes=["a", "b", "c"])
    pred = pl.predict(X)
    assert set(pred) <= {"a", "b", "c"}
    assert np.array_equal(pred, np.array(["a", "b", "c"])[pl.decision_function(X).argmax(1)])
    for est, args in ((wc.ProportionSVM(n_init=2, random_state=0), (BAGS, PROPS)),
                      (wc.InvCal(), (BAGS, PROPS)), (wc.MeanMap(), (BAGS, PROPS)),
                      (wc.MaxMarginClustering(n_init=1, max_iter=10, random_state=0), ())):
        pred = _fit(est, X, *args).predict(X)
        assert set(np.unique(pred)) <= {0, 1} and pred.dtype.kind in "iu"
    mil = wc.MultiInstanceSVM(random_state=0).fit(MIL_BAGS, MIL_Y * 5 + 2)
    assert set(np.unique(mil.predict(MIL_BAGS))) <= {2, 7}
    assert set(np.unique(mil.predict_instances(X))) <= {2, 7}


# --- Pipeline and GridSearchCV ----------------------------------------------------------------

def _labeled_accuracy(est, Xs, y):
    """Accuracy on the labeled points of a semi-supervised target (−1 = unlabeled)."""
    mask = y != -1
    return float(np.mean(est.predict(Xs[mask]) == y[mask])) if mask.any() else 1.0


def _candidate_hit(est, Xs, C):
    """Fraction of points predicted inside their candidate set."""
    return float(np.mean(np.asarray(C)[np.arange(len(Xs)), est.predict(Xs)]))


#: stratified on the target with −1 (unlabeled) as its own value: each training fold keeps a
#: labeled point of each class
SSL_CV = StratifiedKFold(2, shuffle=True, random_state=0)

PIPELINE_CASES = {
    # name: (estimator, y passed to fit / GridSearchCV, grid, scoring, cv)
    "S3VM": (wc.S3VM(random_state=0), Y_SSL, {"C": [1.0, 10.0]}, _labeled_accuracy, SSL_CV),
    "BranchAndBoundS3VM": (wc.BranchAndBoundS3VM(max_nodes=100), Y_SSL, {"C": [1.0, 10.0]},
                           _labeled_accuracy, SSL_CV),
    "MaxMarginClustering": (wc.MaxMarginClustering(n_init=1, max_iter=10, random_state=0), Y,
                            {"C": [1.0, 10.0]}, "adjusted_rand_score", KFold(2, shuffle=True,
                                                                             random_state=0)),
    "BetaSVM": (wc.BetaSVM(max_iter=3), Y_SSL, {"C": [1.0, 10.0]}, _labeled_accuracy, SSL_CV),
    "ProportionSVM": (wc.ProportionSVM(n_init=2, random_state=0), bag_targets(BAGS, PROPS),
                      {"C": [0.1, 1.0]}, bag_error_scorer, BagKFold(2, random_state=0)),
    "InvCal": (wc.InvCal(), bag_targets(BAGS, PROPS), {"C": [0.1, 1.0]}, bag_error_scorer,
               BagKFold(2, random_state=0)),
    "MeanMap": (wc.MeanMap(), bag_targets(BAGS, PROPS), {"lam": [0.1, 1.0]}, bag_error_scorer,
                BagKFold(2, random_state=0)),
    "PartialLabelSVM": (wc.PartialLabelSVM(random_state=0), CANDIDATES, {"lam": [1e-2, 1e-1]},
                        _candidate_hit, KFold(2, shuffle=True, random_state=0)),
}


@pytest.mark.parametrize("name", sorted(PIPELINE_CASES))
def test_pipeline_and_grid_search(name):
    est, y, grid, scoring, cv = PIPELINE_CASES[name]
    pipe = make_pipeline(StandardScaler(), clone(est))
    _fit(pipe, X, y)
    # the pipeline is the estimator on standardized features
    Xs = StandardScaler().fit_transform(X)
    direct = _fit(clone(est), Xs, y)
    np.testing.assert_allclose(pipe.decision_function(X), direct.decision_function(Xs),
                               rtol=1e-8, atol=1e-10)
    step = pipe.steps[-1][0]
    search = GridSearchCV(pipe, {f"{step}__{k}": v for k, v in grid.items()}, scoring=scoring,
                          cv=cv, error_score="raise")
    _fit(search, X, y)
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))
    # the refit model is the one of the best cross-validated score
    scores = search.cv_results_["mean_test_score"]
    best = search.cv_results_["params"][int(np.argmax(scores))]
    assert search.best_params_ == best and search.best_score_ == scores.max()
    assert search.best_estimator_.get_params()[next(iter(best))] == next(iter(best.values()))
    pred = search.predict(X)
    assert set(np.unique(pred)) <= set(np.unique(getattr(search.best_estimator_[-1],
                                                         "classes_", [0, 1])))


def test_multi_instance_grid_search_over_bags():
    """Bags are a list of arrays, not a matrix: GridSearchCV indexes the list; a Pipeline
    step would need a bag-wise transformer, so MultiInstanceSVM is searched directly."""
    search = GridSearchCV(wc.MultiInstanceSVM(relaxation="alternating", random_state=0),
                          {"C": [1.0, 10.0]}, cv=KFold(2, shuffle=True, random_state=0),
                          error_score="raise")
    search.fit(MIL_BAGS, MIL_Y)
    assert set(np.unique(search.predict(MIL_BAGS))) <= {0, 1}
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))


# --- scikit-learn's estimator checks for the estimators whose fit is not fit(X, y) ---------

_LLP_REASON = ("fit(X, bags, proportions): the check fits with class labels as the target and "
               "no proportions, which the estimator refuses by design (a label-proportion "
               "learner never sees instance labels); its own tests cover the same property")
_LLP_FIT_CHECKS = [
    "check_classifier_data_not_an_array", "check_classifier_not_supporting_multiclass",
    "check_classifiers_classes", "check_classifiers_one_label",
    "check_classifiers_regression_target", "check_classifiers_train", "check_dict_unchanged",
    "check_dont_overwrite_parameters", "check_dtype_object", "check_estimators_dtypes",
    "check_estimators_fit_returns_self", "check_estimators_nan_inf",
    "check_estimators_overwrite_params", "check_estimators_pickle",
    "check_f_contiguous_array_estimator", "check_fit2d_1feature", "check_fit2d_predict1d",
    "check_fit_check_is_fitted", "check_fit_idempotent", "check_fit_score_takes_y",
    "check_methods_sample_order_invariance", "check_methods_subset_invariance",
    "check_n_features_in", "check_n_features_in_after_fitting", "check_pipeline_consistency",
    "check_positive_only_tag_during_fit", "check_readonly_memmap_input",
    "check_requires_y_none", "check_supervised_y_2d", "check_estimator_sparse_array",
    "check_estimator_sparse_matrix", "check_estimator_sparse_tag",
    "check_non_transformer_estimators_n_iter",
]


def _llp_expected_failures(estimator):
    if isinstance(estimator, wc.MultiInstanceSVM):
        return {}  # two_d_array=False: scikit-learn runs only the input-agnostic checks
    # MeanMap and InvCal have no n_iter_: that check passes
    skip = {"MeanMap": {"check_non_transformer_estimators_n_iter"},
            "InvCal": {"check_non_transformer_estimators_n_iter"}}.get(type(estimator).__name__,
                                                                     set())
    return {name: _LLP_REASON for name in _LLP_FIT_CHECKS if name not in skip}


@parametrize_with_checks([wc.ProportionSVM(n_init=1, max_iter=5, random_state=0), wc.InvCal(),
                          wc.MeanMap(), wc.MultiInstanceSVM(max_iter=3, random_state=0)],
                         expected_failed_checks=_llp_expected_failures)
def test_sklearn_checks_with_reasoned_exceptions(estimator, check):
    check(estimator)
