"""Regressions found by a robustness sweep of the estimators with default parameters on data
they were not tuned on (scikit-learn's bundled sets)."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.preprocessing import StandardScaler

import weakcvx as wc
from weakcvx.model_selection import BagKFold, bag_error_scorer, bag_targets


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    rng = np.random.RandomState(0)
    rows = rng.permutation(len(y))[:150]
    return X[rows], y[rows]


def _semi(y, n_labeled=20):
    y_semi = np.full_like(y, -1)
    for c in (0, 1):
        y_semi[np.flatnonzero(y == c)[: n_labeled // 2]] = c
    return y_semi


def test_beta_svm_ssl_score_skips_unlabeled_rows(cancer):
    # BetaSVM's default init="ssl" takes -1 for unlabeled rows in fit; score used to count
    # every -1 row as an error (accuracy 0.1 on a target with 10% labeled rows), so
    # cross_val_score / GridSearchCV with the fit target were meaningless
    X, y = cancer
    y_semi = _semi(y)
    clf = wc.BetaSVM().fit(X, y_semi)
    labeled = y_semi != -1
    expected = np.mean(clf.predict(X[labeled]) == y_semi[labeled])
    assert clf.score(X, y_semi) == pytest.approx(expected)
    assert clf.score(X, y_semi) > 0.8


def test_beta_svm_ssl_score_with_string_classes(cancer):
    # strings in an object array with the integer -1 for unlabeled rows: fit accepted them,
    # score raised TypeError ('<' not supported between 'int' and 'str')
    X, y = cancer
    y_semi = _semi(y)
    y_obj = np.array(["yes" if v == 1 else "no" for v in y_semi], dtype=object)
    y_obj[y_semi == -1] = -1
    clf = wc.BetaSVM().fit(X, y_obj)
    labeled = y_semi != -1
    assert clf.score(X, y_obj) == pytest.approx(np.mean(clf.predict(X[labeled])
                                                        == y_obj[labeled]))


def test_beta_svm_ssl_cross_val_score_with_fit_target(cancer):
    # test folds of a plain KFold hold unlabeled rows: they are skipped, as by S3VM.score
    X, y = cancer
    y_semi = _semi(y, n_labeled=30)
    scores = cross_val_score(wc.BetaSVM(), X, y_semi, cv=KFold(3, shuffle=True, random_state=0))
    assert np.all(scores > 0.5)


def test_beta_svm_proportions_default_score_is_minus_bag_error(cancer):
    # docs/user_guide.rst: BetaSVM(init="proportions") with bag targets is scored by minus
    # the bag error, "the estimators' default score"; the default score raised ValueError
    # (continuous-multioutput targets), and cross_val_score returned NaN
    X, y = cancer
    bags, proportions = wc.datasets.make_bags(X, y, 10, random_state=0)
    targets = bag_targets(bags, proportions)
    clf = wc.BetaSVM(init="proportions").fit(X, targets)
    assert clf.score(X, targets) == pytest.approx(bag_error_scorer(clf, X, targets))
    scores = cross_val_score(wc.BetaSVM(init="proportions"), X, targets,
                             cv=BagKFold(3, random_state=0))
    assert np.all(np.isfinite(scores)) and np.all(scores <= 0)
    search = GridSearchCV(wc.BetaSVM(init="proportions"), {"C": [1.0, 10.0]},
                          cv=BagKFold(3, random_state=0)).fit(X, targets)
    assert np.isfinite(search.best_score_)
    # instance labels are still scored by accuracy
    assert clf.score(X, y) == pytest.approx(np.mean(clf.predict(X) == y))
    with pytest.raises(ValueError, match="sample_weight"):
        clf.score(X, targets, sample_weight=np.ones(len(y)))


def test_beta_svm_knn_score_is_plain_accuracy(cancer):
    # with init="knn" the labels are classes, -1 included: nothing is skipped
    X, y = cancer
    y_pm = 2 * y - 1
    clf = wc.BetaSVM(init="knn").fit(X, y_pm)
    assert clf.score(X, y_pm) == pytest.approx(np.mean(clf.predict(X) == y_pm))


@pytest.mark.parametrize("name", ["S3VM", "BetaSVM"])
def test_list_of_strings_keeps_the_integer_unlabeled_marker(cancer, name):
    # a plain list ["yes", "no", -1, ...] became an array of strings with '-1' among them;
    # fit refused it, and following the hint (y.astype(object)) gave a third class '-1'
    X, y = cancer
    y_semi = _semi(y)
    y_list = [-1 if v == -1 else ("yes" if v == 1 else "no") for v in y_semi]
    clf = getattr(wc, name)(random_state=0).fit(X, y_list)
    assert clf.classes_.tolist() == ["no", "yes"]
    y_obj = np.array(y_list, dtype=object)
    reference = getattr(wc, name)(random_state=0).fit(X, y_obj)
    np.testing.assert_array_equal(clf.predict(X), reference.predict(X))
    assert clf.score(X, y_list) == pytest.approx(reference.score(X, y_obj))


def test_string_array_hint_turns_the_string_minus_one_into_the_integer(cancer):
    X, y = cancer
    y_semi = _semi(y)
    y_str = np.array([-1 if v == -1 else ("yes" if v == 1 else "no") for v in y_semi],
                     dtype=object).astype(str)          # '-1', 'no', 'yes'
    with pytest.raises(ValueError, match=r"y\[y == '-1'\] = -1"):
        wc.S3VM().fit(X, y_str)
    y_fixed = y_str.astype(object)
    y_fixed[y_fixed == "-1"] = -1                        # the recipe of the message
    assert wc.S3VM().fit(X, y_fixed).classes_.tolist() == ["no", "yes"]


def test_partial_label_svm_reads_a_pandas_series_of_sets_as_candidate_sets():
    # a Series of sets (e.g. a DataFrame column) was read as 1-D class labels: every distinct
    # set became a class of classes_, silently
    pd = pytest.importorskip("pandas")
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    sets = [{int(c)} if i % 2 else {int(c), (int(c) + 1) % 3} for i, c in enumerate(y)]
    from_series = wc.PartialLabelSVM(random_state=0).fit(X, pd.Series(sets))
    from_list = wc.PartialLabelSVM(random_state=0).fit(X, sets)
    assert from_series.classes_.tolist() == [0, 1, 2]
    np.testing.assert_array_equal(from_series.predict(X), from_list.predict(X))
    assert from_series.score(X, pd.Series(sets)) == pytest.approx(from_list.score(X, sets))


def test_invcal_with_bags_of_one_row_learns_the_labels():
    """Bags of one row are labeled rows (proportion 0 or 1): half a point from the edge moved
    both to 1/2, every logit target was 0 and the model constant; as bags of two they become
    1/4 and 3/4, and InvCal is then a regression on the labels (well above chance here, where a
    linear SVC on the labels reaches 1.0)."""
    from sklearn.datasets import make_blobs

    X, y = make_blobs(80, centers=[[-2, 0], [2, 0]], random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = wc.InvCal().fit(X, np.arange(80), y.astype(float))
    assert len(np.unique(model.predict(X))) == 2
    assert np.mean(model.predict(X) == y) > 0.95


def test_beta_svm_linear_default_cost_beats_the_rbf_one_and_the_linear_svc():
    """The default C resolves by kernel (10 with RBF, 16 / mean ‖x − x̄‖² linear): on digits
    3 v 8 with 10% labeled per class, the linear default beats C = 10 (the RBF default it
    replaced) and an SVC(kernel="linear") on the labeled rows, on the unlabeled rows."""
    from sklearn.datasets import load_digits
    from sklearn.svm import SVC

    digits = load_digits()
    keep = np.isin(digits.target, (3, 8))
    X = StandardScaler().fit_transform(digits.data[keep])
    y = (digits.target[keep] == 8).astype(int)
    rng = np.random.default_rng(0)
    labeled = np.concatenate([rng.choice(np.flatnonzero(y == c), 18, replace=False)
                              for c in (0, 1)])
    y_semi = np.full(len(y), -1)
    y_semi[labeled] = y[labeled]
    unlabeled = y_semi == -1
    spread = np.mean(np.sum((X - X.mean(axis=0)) ** 2, axis=1))
    assert wc.BetaSVM(kernel="linear")._cost(X) == pytest.approx(16.0 / spread)
    assert wc.BetaSVM()._cost(X) == 10.0

    def accuracy(model):
        return np.mean(model.predict(X[unlabeled]) == y[unlabeled])

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        default = accuracy(wc.BetaSVM(kernel="linear", random_state=0).fit(X, y_semi))
        rbf_cost = accuracy(wc.BetaSVM(kernel="linear", C=10.0, random_state=0).fit(X, y_semi))
    svc = accuracy(SVC(kernel="linear").fit(X[labeled], y[labeled]))
    assert default > rbf_cost + 0.02 and default > svc
