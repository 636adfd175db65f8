"""pandas input is accepted (issue 21: tested in CI, pandas is in the test extra): a DataFrame
of features, Series of targets, bag ids and proportions give the same model as NumPy input."""

import numpy as np
import pytest

import weakcvx as wc

pd = pytest.importorskip("pandas")

N = 24
_rng = np.random.default_rng(0)
X = _rng.standard_normal((N, 3))
X[: N // 2, 0] += 3.0
Y = np.r_[np.ones(N // 2, int), np.zeros(N // 2, int)]
COLUMNS = ["a", "b", "c"]


def test_s3vm_on_a_dataframe_and_series_matches_numpy():
    y = Y.copy()
    y[2:10] = -1
    y[14:22] = -1
    ref = wc.S3VM(random_state=0, max_iter=5).fit(X, y)
    model = wc.S3VM(random_state=0, max_iter=5).fit(pd.DataFrame(X, columns=COLUMNS),
                                                   pd.Series(y))
    assert list(model.feature_names_in_) == COLUMNS
    np.testing.assert_allclose(model.decision_function(pd.DataFrame(X, columns=COLUMNS)),
                               ref.decision_function(X), rtol=1e-10, atol=1e-12)


def test_proportion_svm_reads_proportions_by_the_series_index():
    bags = np.repeat(["b1", "b2", "b3", "b4"], N // 4)
    p = {b: float(Y[bags == b].mean()) for b in np.unique(bags)}
    ref = wc.ProportionSVM(n_init=2, random_state=0).fit(X, bags, p)
    shuffled = pd.Series(p).iloc[::-1]                   # index order is not bag order
    model = wc.ProportionSVM(n_init=2, random_state=0).fit(
        pd.DataFrame(X, columns=COLUMNS), pd.Series(bags), shuffled)
    np.testing.assert_array_equal(model.predict(pd.DataFrame(X, columns=COLUMNS)),
                                  ref.predict(X))
    ids, props = model.predict_proportions(pd.DataFrame(X, columns=COLUMNS), pd.Series(bags))
    assert ids.tolist() == ["b1", "b2", "b3", "b4"] and np.all((props >= 0) & (props <= 1))


def test_multi_instance_bags_as_dataframes_match_arrays():
    bags = [X[4 * k: 4 * k + 4] for k in range(N // 4)]
    y = np.array([1, 1, 1, 0, 0, 0])
    ref = wc.MultiInstanceSVM(random_state=0, max_iter=3).fit(bags, y)
    frames = [pd.DataFrame(b, columns=COLUMNS) for b in bags]
    model = wc.MultiInstanceSVM(random_state=0, max_iter=3).fit(frames, pd.Series(y))
    np.testing.assert_array_equal(model.predict(frames), ref.predict(bags))


def test_partial_label_candidates_as_a_boolean_dataframe():
    C = np.zeros((N, 2), bool)
    C[np.arange(N), 1 - Y] = True
    C[::3] = True
    ref = wc.PartialLabelSVM(random_state=0, max_iter=5).fit(X, C)
    model = wc.PartialLabelSVM(random_state=0, max_iter=5).fit(
        pd.DataFrame(X, columns=COLUMNS), pd.DataFrame(C, columns=["x", "y"]))
    # the DataFrame's column names are the classes (pd.get_dummies): predictions are labels,
    # and the order of the columns does not change them
    np.testing.assert_array_equal(model.classes_, ["x", "y"])
    np.testing.assert_array_equal(model.predict(pd.DataFrame(X, columns=COLUMNS)),
                                  np.array(["x", "y"])[ref.predict(X)])
    swapped = wc.PartialLabelSVM(random_state=0, max_iter=5).fit(
        X, pd.DataFrame(C, columns=["x", "y"])[["y", "x"]])
    np.testing.assert_array_equal(swapped.predict(X), model.predict(X))


def test_partial_label_score_reads_a_dataframe_by_its_column_names():
    from sklearn.datasets import load_iris
    Xi, yi = load_iris(return_X_y=True)
    names = pd.Series(np.array(["setosa", "versicolor", "virginica"])[yi])
    D = pd.get_dummies(names)
    clf = wc.PartialLabelSVM(random_state=0).fit(Xi, D)
    accuracy = np.mean(clf.predict(Xi) == names.to_numpy())
    assert accuracy < 1.0  # else any reading of the columns could score the same
    # singleton candidate sets: the score is the accuracy, whatever the order of the columns
    assert clf.score(Xi, D[["virginica", "setosa", "versicolor"]]) == pytest.approx(accuracy)
    # a fold whose get_dummies lacks a class: no row has it as a candidate
    fold = (names != "setosa").to_numpy()
    assert clf.score(Xi[fold], pd.get_dummies(names[fold])) == \
        pytest.approx(np.mean(clf.predict(Xi[fold]) == names[fold].to_numpy()))
    with pytest.raises(ValueError, match=r"columns \['Setosa'\] that are not classes; no "
                                         r"column for \['setosa'\]"):
        clf.score(Xi, D.rename(columns={"setosa": "Setosa"}))
    with pytest.raises(ValueError, match=r"repeated column names \['setosa'\]"):
        clf.score(Xi, D[["setosa", "setosa", "virginica"]])
    # a NumPy array keeps its positional meaning: column j is classes_[j]
    reversed_ = D.to_numpy()[:, ::-1]
    column = np.searchsorted(clf.classes_, clf.predict(Xi))
    assert clf.score(Xi, reversed_) == \
        pytest.approx(np.mean(reversed_[np.arange(len(Xi)), column]))
    # so does a DataFrame when fit was told the classes
    positional = wc.PartialLabelSVM(random_state=0).fit(Xi, D.to_numpy(), classes=D.columns)
    assert positional.score(Xi, pd.DataFrame(reversed_, columns=D.columns)) == \
        pytest.approx(positional.score(Xi, reversed_))
