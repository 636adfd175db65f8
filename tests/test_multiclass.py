"""More than two classes, one against the rest: S3VM and BetaSVM (init "ssl" and "knn")."""

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


SEMI_SUPERVISED = [wc.S3VM(random_state=0), wc.BetaSVM()]


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


def test_s3vm_transduction_keeps_the_given_classes():
    X, y, labeled = _vertical_bands(1)
    clf = wc.S3VM(random_state=0).fit(X, np.where(labeled, y, -1))
    assert np.array_equal(clf.transduction_[labeled], y[labeled])
    assert np.array_equal(clf.transduction_[~labeled], clf.predict(X[~labeled]))


@pytest.mark.parametrize("estimator", SEMI_SUPERVISED, ids=lambda e: type(e).__name__)
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
    """A warning of one class's problem says which class it is (a β-SVM drifting to one class
    on a class with two labels among 1,797 digits is one of ten problems)."""
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    X = (X - X.mean(axis=0)) / np.maximum(X.std(axis=0), 1e-12)
    y_semi = np.full_like(y, -1)
    for c in range(10):
        y_semi[np.flatnonzero(y == c)[:2]] = c
    with pytest.warns(UserWarning, match=r"^class \d against the rest: BetaSVM predicts"):
        wc.BetaSVM().fit(X, y_semi)
