"""More than two classes: one against the rest (``multi_class="ovr"``; BetaSVM with init "ssl"
and "knn"), then one pair against the other on that step's transduction (the default)."""

import re
import warnings

import numpy as np
import pytest
from sklearn.svm import SVC

import weakcvx as wc


def _vertical_bands(seed, n_classes=3, n_per_class=40, n_labeled=2):
    """Classes as tall bands side by side, 3 apart (a low-density gap between neighbours), two
    labeled points per class at random heights: the SVM of the labels tilts its boundaries,
    the gaps are where a large margin puts them."""
    rng = np.random.default_rng(seed)
    X = np.vstack([np.c_[3.0 * k + rng.normal(0, 0.4, n_per_class),
                         rng.normal(0, 2.5, n_per_class)] for k in range(n_classes)])
    y = np.repeat(np.arange(n_classes), n_per_class)
    labeled = np.zeros(y.size, dtype=bool)
    for k in range(n_classes):
        labeled[rng.choice(np.flatnonzero(y == k), n_labeled, replace=False)] = True
    return X, y, labeled


SEMI_SUPERVISED = [wc.S3VM(random_state=0, multi_class="ovr"), wc.BetaSVM(multi_class="ovr")]


@pytest.mark.parametrize("estimator", SEMI_SUPERVISED, ids=lambda e: type(e).__name__)
def test_more_classes_is_one_against_the_rest(estimator):
    """Column k of the decision function is the two-class fit of class k against the rest,
    fitted on its own (same defaults); predict takes the largest column."""
    X, y, labeled = _vertical_bands(0)
    classes = np.array([3, 5, 9])
    target = np.where(labeled, classes[y], -1)
    clf = estimator.fit(X, target)
    assert np.array_equal(clf.classes_, classes) and len(clf.estimators_) == 3
    scores = clf.decision_function(X)
    assert scores.shape == (X.shape[0], 3)
    for k, c in enumerate(classes):
        binary = np.where(labeled, np.where(target == c, 2, 1), -1)  # classes 1 = rest, 2 = c
        alone = type(estimator)(**estimator.get_params()).fit(X, binary)
        np.testing.assert_allclose(scores[:, k], alone.decision_function(X), atol=1e-10)
        assert np.array_equal(clf.estimators_[k].predict(X), (scores[:, k] > 0).astype(int))
    assert np.array_equal(clf.predict(X), classes[scores.argmax(axis=1)])
    assert clf.n_iter_.shape == (3,) and np.all(clf.n_iter_ >= 1)
    with pytest.raises(ValueError, match="positive_fraction.*two classes"):
        type(estimator)(**{**estimator.get_params(), "positive_fraction": 0.3}).fit(X, target)
    # a two-class refit forgets the one-against-the-rest models
    clf.fit(X[y < 2], target[y < 2])
    assert not hasattr(clf, "estimators_") and clf.decision_function(X).shape == (X.shape[0],)


@pytest.mark.parametrize("multi_class", ["ovo", "ovr"])
def test_s3vm_transduction_keeps_the_given_classes(multi_class):
    X, y, labeled = _vertical_bands(1)
    clf = wc.S3VM(random_state=0, multi_class=multi_class).fit(X, np.where(labeled, y, -1))
    assert np.array_equal(clf.transduction_[labeled], y[labeled])
    assert np.array_equal(clf.transduction_[~labeled], clf.predict(X[~labeled]))


def test_votes_of_pairs_is_scikit_learns_one_against_one_shape():
    """The pairs' decisions become one column per class as SVC(decision_function_shape="ovr")
    makes them (its private helper, the reference)."""
    multiclass = pytest.importorskip("sklearn.utils.multiclass")
    reference = getattr(multiclass, "_ovr_decision_function", None)
    if reference is None:
        pytest.skip("scikit-learn without _ovr_decision_function")
    from weakcvx.estimators._base import votes_of_pairs

    confidences = np.random.default_rng(0).normal(size=(50, 10))  # 5 classes, 10 pairs
    confidences[:5] = 0.0  # ties: a zero decision is a vote for the first class of the pair
    np.testing.assert_allclose(votes_of_pairs(confidences, 5),
                               reference(confidences > 0, confidences, 5), atol=1e-12)


PAIRS = [wc.S3VM(random_state=0), wc.BetaSVM(), wc.BetaSVM(init="knn")]


@pytest.mark.parametrize("estimator", PAIRS, ids=["S3VM", "BetaSVM", "BetaSVM-knn"])
def test_pairs_are_two_class_fits_on_the_transduction(estimator):
    """With the default multi_class="ovo", pair (i, j) is the two-class fit, on its own, of the
    rows labeled i or j and the unlabeled rows the one-against-the-rest fit gives to either,
    with that fit's fraction of j among them; decision_function counts the pairs' votes."""
    X, y, labeled = _vertical_bands(3, n_classes=4)
    if estimator.get_params().get("init") == "knn":
        labeled = np.ones_like(labeled)  # every row labeled (noisy labels)
    classes = np.array([2, 4, 6, 8])
    target = np.where(labeled, classes[y], -1)
    Estimator, params = type(estimator), estimator.get_params()
    clf = Estimator(**params).fit(X, target)
    first_params = {**params, "multi_class": "ovr"}
    if isinstance(estimator, wc.S3VM):  # before the pairs, the alternating search
        from weakcvx.estimators.s3vm import FIRST_STEP_RELAXATION
        first_params["relaxation"] = FIRST_STEP_RELAXATION
    else:  # before the pairs, a few P2 steps
        from weakcvx.estimators.beta import FIRST_STEP_MAX_ITER
        first_params["max_iter"] = FIRST_STEP_MAX_ITER
    first = Estimator(**first_params).fit(X, target)
    assert len(clf.pair_estimators_) == 6 and len(clf.estimators_) == 4
    np.testing.assert_allclose(clf.estimators_[2].decision_function(X),
                               first.estimators_[2].decision_function(X), atol=1e-10)
    assigned = np.where(labeled, target, classes[np.round(first.decision_function(X), 9)
                                                  .argmax(axis=1)])
    confidences = []
    for pair, (i, j) in enumerate([(i, j) for i in range(4) for j in range(i + 1, 4)]):
        rows = np.isin(assigned, classes[[i, j]])
        unlabeled = rows & ~labeled
        fraction = (np.mean(assigned[unlabeled] == classes[j]) if unlabeled.any()
                    else params["positive_fraction"])
        alone = Estimator(**{**params, "positive_fraction": fraction}).fit(
            X[rows], np.where(labeled[rows], np.where(target[rows] == classes[j], 2, 1), -1))
        confidences.append(alone.decision_function(X))
        np.testing.assert_allclose(clf.pair_estimators_[pair].decision_function(X),
                                   confidences[-1], atol=1e-10)
    votes = np.zeros((X.shape[0], 4))
    for pair, (i, j) in enumerate([(i, j) for i in range(4) for j in range(i + 1, 4)]):
        votes[:, j] += confidences[pair] > 0
        votes[:, i] += confidences[pair] <= 0
    scores = clf.decision_function(X)
    assert np.array_equal(np.floor(scores + 1 / 3), votes)  # confidences only break ties
    assert np.array_equal(clf.predict(X), classes[scores.argmax(axis=1)])
    if isinstance(clf, wc.BetaSVM):  # the paper's P2 (no balance) is kept in the pairs
        paper = Estimator(**{**params, "positive_fraction": None}).fit(X, target)
        assert all(e.positive_fraction is None for e in paper.pair_estimators_)
    # a refit one against the rest forgets the pairs
    clf.set_params(multi_class="ovr").fit(X, target)
    assert not hasattr(clf, "pair_estimators_")
    ovr = Estimator(**{**params, "multi_class": "ovr"}).fit(X, target)
    np.testing.assert_allclose(clf.decision_function(X), ovr.decision_function(X), atol=1e-10)


def test_s3vm_pairs_with_a_precomputed_kernel():
    """A pair fitted on some rows of a precomputed kernel predicts from those columns: the same
    scores as the RBF kernel of that width."""
    X, y, labeled = _vertical_bands(4)
    target = np.where(labeled, y, -1)
    rbf = wc.S3VM(random_state=0, gamma=0.5).fit(X, target)
    K = np.exp(-0.5 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=-1))
    pre = wc.S3VM(random_state=0, kernel="precomputed").fit(K, target)
    np.testing.assert_allclose(pre.decision_function(K), rbf.decision_function(X), atol=1e-6)
    assert np.array_equal(pre.transduction_, rbf.transduction_)


@pytest.mark.parametrize("estimator", SEMI_SUPERVISED + [wc.S3VM(random_state=0), wc.BetaSVM()],
                         ids=lambda e: f"{type(e).__name__}-{getattr(e, 'multi_class', '')}")
def test_more_classes_beat_supervised_on_bands(estimator):
    """Three bands split by gaps, two labels a class: the unlabeled points move the boundaries
    into the gaps, where the SVC of the six labels leaves them tilted (measured on these seeds:
    S3VM 0.92, BetaSVM 0.96, against 0.85)."""
    gains = []
    for seed in range(6):
        X, y, labeled = _vertical_bands(seed)
        clf = estimator.fit(X, np.where(labeled, y, -1))
        svc = SVC().fit(X[labeled], y[labeled])
        gains.append(np.mean(clf.predict(X[~labeled]) == y[~labeled])
                     - np.mean(svc.predict(X[~labeled]) == y[~labeled]))
    assert np.mean(gains) > 0.03 and min(gains) > -0.05


def test_beta_knn_more_classes_and_the_minus_one_class():
    """init="knn" reads every row as labeled: with more than two classes each is fitted
    against the rest, and a -1 among them is a class, with a warning naming init='ssl'."""
    X, y, _ = _vertical_bands(2)
    clf = wc.BetaSVM(init="knn").fit(X, y)
    assert clf.decision_function(X).shape == (X.shape[0], 3)
    assert np.mean(clf.predict(X) == y) > 0.9
    with pytest.warns(UserWarning, match="-1 .*read as a class.*init='ssl'"):
        clf = wc.BetaSVM(init="knn").fit(X, y - 1)
    assert np.array_equal(clf.classes_, [-1, 0, 1])


def test_a_class_problem_that_warns_is_named():
    """A warning of one class's problem says which class it is, once per kind: ten problems
    against the rest stopped by max_iter=1 on digits give one ConvergenceWarning naming them
    and how many of the ten, and the pairs one more."""
    from sklearn.datasets import load_digits
    from sklearn.exceptions import ConvergenceWarning

    X, y = load_digits(return_X_y=True)
    X = (X - X.mean(axis=0)) / np.maximum(X.std(axis=0), 1e-12)
    y_semi = np.full_like(y, -1)
    for c in range(10):
        y_semi[np.flatnonzero(y == c)[:2]] = c
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        wc.BetaSVM(max_iter=1).fit(X, y_semi)
    stopped = [w for w in record if issubclass(w.category, ConvergenceWarning)]
    assert len(stopped) == 2, [str(w.message) for w in record]
    message = str(stopped[0].message)
    assert re.match(r"^classes \d(, \d)+, \.\.\. against the rest \(10 of 10 problems; the "
                    r"first one's message\): β-SVM alternation", message), message
    assert str(stopped[1].message).startswith("class pairs 0 and 1, 0 and 2")
    assert stopped[0].filename == __file__  # it points at the user's call of fit


def test_a_class_never_predicted_is_named_and_the_problems_sides_are_not():
    """With more than two classes the class of the largest score wins, so a problem of one
    class against the rest whose scores all lie on one side is no failure and gives no warning
    (on the digits above some are); a class with labeled points
    that no training row gets is (class 2's one label inside class 0's blob)."""
    from sklearn.datasets import make_blobs

    X, y = make_blobs(150, centers=[[0, 0], [6, 0], [0, 6]], random_state=0)
    y_semi = np.full(150, -1)
    for c in (0, 1):
        y_semi[np.flatnonzero(y == c)[:3]] = c
    y_semi[np.flatnonzero(y == 0)[5]] = 2
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        clf = wc.BetaSVM().fit(X, y_semi)
    messages = [str(w.message) for w in record]
    assert 2 not in clf.predict(X)
    assert [m for m in messages if "predicts no training point as class 2 (1 of 3" in m]
    assert not [m for m in messages if "as one class although" in m], messages
    y_semi[np.flatnonzero(y == 2)[:3]] = 2          # labels of class 2 where it lies
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        clf = wc.BetaSVM().fit(X, y_semi)
    assert not [w for w in record if "predicts no training point" in str(w.message)]
    assert np.mean(clf.predict(X) == y) > 0.9


def test_verbose_one_logs_a_line_per_problem(caplog):
    """verbose=1 with more than two classes: one progress line per two-class problem (three
    against the rest, three pairs), not every problem's own rounds; verbose=2 adds those."""
    import logging

    X, y, labeled = _vertical_bands(0)
    target = np.where(labeled, y, -1)
    counts = []
    for verbose in (1, 2):
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="weakcvx"):
            wc.S3VM(random_state=0, verbose=verbose).fit(X, target)
        counts.append(len([r for r in caplog.records if r.name == "weakcvx"]))
    assert counts[0] == 6 and counts[1] > counts[0]


def test_first_step_ties_go_to_the_nearest_labeled_class_whatever_the_names():
    """Rows whose scores against the rest tie (up to solver noise, here 1e-6) go to the tied
    class of the nearest labeled row, so that permuting the classes' codes permutes the
    assignment (the former rule, the first class, moved such rows between pairs when the
    classes were renamed: 9 of 10 draws of segment; found by an invariance probe)."""
    rng = np.random.default_rng(0)
    centres = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]])
    codes = np.repeat([0, 1, 2, -1], [3, 3, 3, 30])
    X = np.vstack([centres[c] + 0.3 * rng.standard_normal((3, 2)) for c in range(3)]
                  + [4.0 * rng.random((30, 2))])
    scores = np.full((39, 3), -1.0)
    scores[:9][np.arange(9), codes[:9]] = 1.0
    for i in range(9, 39):  # every unlabeled row ties between two classes
        a, b = rng.choice(3, 2, replace=False)
        scores[i, a], scores[i, b] = -1.0, -1.0 + 1e-6
        scores[i, 3 - a - b] = -1.5
    model = wc.S3VM()
    assigned = model._first_step_assignment(X, codes, scores)
    for i in range(9, 39):
        tied = np.flatnonzero(scores[i] > -1.1)
        nearest = min((np.sum((X[j] - X[i]) ** 2), codes[j]) for j in range(9)
                      if codes[j] in tied)[1]
        assert assigned[i] == nearest
    for perm in ([2, 0, 1], [1, 2, 0], [0, 2, 1]):
        perm = np.array(perm)  # class c is renamed perm[c]
        renamed_codes = np.where(codes >= 0, perm[np.maximum(codes, 0)], -1)
        renamed_scores = np.empty_like(scores)
        renamed_scores[:, perm] = scores
        renamed = model._first_step_assignment(X, renamed_codes, renamed_scores)
        np.testing.assert_array_equal(renamed, perm[assigned])
