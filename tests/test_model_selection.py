"""Bag-level scorer and bag-preserving splitter (weakcvx.model_selection)."""

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, cross_val_score

import weakcvx as wc
from weakcvx.model_selection import (BagKFold, bag_error_scorer, bag_proportion_error,
                                     bag_targets, check_bags)


def test_bag_error_is_sum_of_absolute_proportion_differences():
    rng = np.random.RandomState(0)
    bags = rng.randint(0, 6, size=60)
    p = rng.rand(6)
    y_pred = rng.randint(0, 2, size=60)
    expected = sum(abs(y_pred[bags == k].mean() - p[k]) for k in range(6))
    assert bag_proportion_error(bags, p, y_pred) == pytest.approx(expected)
    # ±1 predictions count +1 as positive; two-column targets give the same error
    assert bag_proportion_error(bags, p, 2 * y_pred - 1) == pytest.approx(expected)
    assert bag_proportion_error(bag_targets(bags, p), None, y_pred) == pytest.approx(expected)
    # perfect predictions of the true labels have zero bag error
    y = rng.randint(0, 2, size=60)
    ids, p_true = wc.datasets.make_bags(np.zeros((60, 1)), y, 7, random_state=0)
    assert bag_proportion_error(ids, p_true, y) == 0.0


def test_bag_kfold_keeps_bags_whole_and_covers_every_row_once():
    bags = np.repeat(np.arange(11), np.arange(1, 12))
    seen = np.zeros(len(bags), int)
    folds = list(BagKFold(4, random_state=0).split(np.zeros((len(bags), 1)), groups=bags))
    assert len(folds) == 4
    for train, test in folds:
        assert set(bags[test]).isdisjoint(bags[train])
        assert len(train) + len(test) == len(bags)
        seen[test] += 1
    assert np.all(seen == 1)
    # same bags from the bag targets in y; same seed, same folds
    y = bag_targets(bags, np.full(11, 0.5))
    again = list(BagKFold(4, random_state=0).split(np.zeros((len(bags), 1)), y))
    for (a, b), (c, d) in zip(folds, again):
        np.testing.assert_array_equal(b, d)


def test_grid_search_tunes_with_bag_error_only():
    """GridSearchCV with the bag scorer and BagKFold: no instance label is passed anywhere."""
    X, y = wc.datasets.load_uci("heart")
    y = (y > 0).astype(int)
    bags, p = wc.datasets.make_bags(X, y, 4, random_state=0)
    targets = bag_targets(bags, p)
    search = GridSearchCV(wc.MeanMap(), {"lam": [0.1, 1.0, 10.0]}, scoring=bag_error_scorer,
                          cv=BagKFold(3, random_state=0))
    search.fit(X, targets)
    # the search picks the lam of the smallest cross-validated bag error, computed by hand
    errors = []
    for lam in (0.1, 1.0, 10.0):
        folds = BagKFold(3, random_state=0).split(X, targets)
        errors.append(np.mean([
            bag_proportion_error(targets[test], None,
                                 wc.MeanMap(lam=lam).fit(X[train], targets[train]).predict(X[test]))
            for train, test in folds]))
    assert search.best_params_["lam"] == (0.1, 1.0, 10.0)[int(np.argmin(errors))]
    assert -search.best_score_ == pytest.approx(min(errors))
    assert np.all(search.cv_results_["mean_test_score"] <= 0)
    # the tuned model is better than chance on the hidden labels
    assert np.mean(search.predict(X) == y) > 0.7
    scores = cross_val_score(wc.ProportionSVM(n_init=2, random_state=0), X, targets,
                             scoring=bag_error_scorer, cv=BagKFold(2, random_state=0))
    assert scores.shape == (2,) and np.all(scores <= 0)


def test_bad_input():
    with pytest.raises(ValueError, match="n_splits"):
        BagKFold(1)
    with pytest.raises(ValueError, match="more than the number of bags"):
        list(BagKFold(5).split(np.zeros((4, 1)), groups=[0, 0, 1, 1]))
    with pytest.raises(ValueError, match="same proportion"):
        check_bags(np.array([[0, 0.5], [0, 0.25]]), None, 2)
    with pytest.raises(ValueError, match="must be None"):
        check_bags(np.array([[0, 0.5], [0, 0.5]]), [0.5], 2)
    with pytest.raises(ValueError, match="\\[0, 1\\]"):
        bag_targets([0, 1], [0.5, -0.1])
    with pytest.raises(ValueError, match="proportions` is required"):
        check_bags([0, 1], None, 2)


class _LabelledVector:
    """A minimal stand-in for a pandas Series (pandas is not a dependency): values with an
    index of bag ids, ``to_dict`` and ``__array__`` that ignores the index."""

    ndim = 1

    def __init__(self, values, index):
        self.values, self.index = np.asarray(values, dtype=float), list(index)

    def __array__(self, dtype=None, copy=None):
        return self.values if dtype is None else self.values.astype(dtype)

    def __len__(self):
        return len(self.values)

    def to_dict(self):
        return dict(zip(self.index, self.values))


def test_labelled_proportions_are_matched_by_bag_id_not_position():
    from types import MappingProxyType

    bags = np.array([5, 3, 9, 5, 3, 9])
    order = [9, 3, 5]  # not sorted
    values = {3: 0.0, 5: 0.5, 9: 1.0}
    expected = [0.0, 0.5, 1.0]  # sorted ids 3, 5, 9
    for given in [_LabelledVector([values[k] for k in order], order),
                  MappingProxyType(values), values]:
        ids, index, p = check_bags(bags, given, 6)
        assert ids.tolist() == [3, 5, 9] and p.tolist() == expected
    # a plain array is positional, in sorted-id order
    assert check_bags(bags, [0.0, 0.5, 1.0], 6)[2].tolist() == expected
    # missing or duplicated ids
    with pytest.raises(ValueError, match=r"matched by its keys / index.*\[9\]"):
        check_bags(bags, _LabelledVector([0.0, 0.5], [3, 5]), 6)
    with pytest.raises(ValueError, match="duplicated bag ids \\[3\\]"):
        check_bags(bags, _LabelledVector([0.0, 0.5, 1.0, 0.0], [3, 5, 9, 3]), 6)


def test_real_pandas_series_is_read_by_index():
    pd = pytest.importorskip("pandas")
    bags = np.array([1, 0, 2, 1, 0, 2])
    series = pd.Series([1.0, 0.0, 0.5], index=[2, 0, 1])
    assert check_bags(bags, series, 6)[2].tolist() == [0.0, 0.5, 1.0]
    with pytest.raises(ValueError, match="1-D"):
        check_bags(bags, pd.DataFrame({"p": [0.0, 0.5, 1.0]}), 6)


def test_shuffled_labelled_proportions_fit_the_same_model():
    X, y = wc.datasets.load_uci("heart")
    bags, p = wc.datasets.make_bags(X, (y > 0).astype(int), 8, random_state=0)
    ids = np.unique(bags)
    perm = np.random.RandomState(0).permutation(len(ids))
    shuffled = _LabelledVector(p[perm], ids[perm])
    for Est in [wc.MeanMap, wc.InvCal]:
        a, b = Est().fit(X, bags, p), Est().fit(X, bags, shuffled)
        np.testing.assert_allclose(a.decision_function(X), b.decision_function(X))


def test_positional_proportions_with_string_ids_warn_when_order_is_not_natural():
    import warnings

    with pytest.warns(UserWarning, match="sorted order is not their natural order.*'bag10'"):
        check_bags(["bag2", "bag10", "bag2"], [0.5, 1.0], 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        check_bags(["b02", "b10", "b02"], [0.5, 1.0], 3)  # zero-padded: sorted = natural
        check_bags(["bag2", "bag10", "bag2"], {"bag2": 0.5, "bag10": 1.0}, 3)


def test_positional_proportions_warn_when_rows_come_bag_by_bag_out_of_id_order():
    """Rows grouped bag by bag as 3, 3, 1, 1, 2: proportions listed in the rows' order would be
    read for the wrong bags (bag 1 gets bag 3's). Shuffled rows and rows in the ids' order do
    not warn; a mapping reads the proportions by id."""
    import warnings

    bags = [3, 3, 1, 1, 2]
    with pytest.warns(UserWarning, match=r"rows of X come bag by bag in another order \(3, 1, 2\)"):
        _, _, p = check_bags(bags, [1.0, 0.0, 0.5], 5)
    assert p.tolist() == [1.0, 0.0, 0.5]  # read by sorted id, as documented: bag 1 -> 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        _, _, p = check_bags(bags, {3: 1.0, 1: 0.0, 2: 0.5}, 5)
        assert p.tolist() == [0.0, 0.5, 1.0]
        check_bags([1, 1, 2, 2, 3], [0.0, 0.5, 1.0], 5)
        check_bags([3, 1, 3, 2, 1], [0.0, 0.5, 1.0], 5)  # bags interleaved: no rows' order


def test_cross_val_score_default_scoring_is_minus_bag_error():
    """With bag targets as y, the estimators' own ``score`` is the bag scorer, so the default
    scoring of cross_val_score works (it gave NaN)."""
    X, y = wc.datasets.load_uci("heart")
    bags, p = wc.datasets.make_bags(X, (y > 0).astype(int), 8, random_state=0)
    targets = bag_targets(bags, p)
    cv = BagKFold(3, random_state=0)
    default = cross_val_score(wc.MeanMap(), X, targets, cv=cv)
    explicit = cross_val_score(wc.MeanMap(), X, targets, cv=cv, scoring=bag_error_scorer)
    assert np.all(np.isfinite(default))
    np.testing.assert_allclose(default, explicit)


@pytest.mark.parametrize("make", [lambda: wc.MeanMap(),
                                  lambda: wc.ProportionSVM(n_init=1, random_state=0),
                                  lambda: wc.BetaSVM(init="proportions", random_state=0)],
                         ids=["MeanMap", "ProportionSVM", "BetaSVM"])
def test_a_split_that_cuts_bags_warns_and_a_split_by_bag_does_not(make):
    """An integer ``cv`` splits rows: the bags scored were fitted with part of their rows, and
    the bag error compares a whole bag's proportion with predictions on the rest of it."""
    import warnings

    from sklearn.datasets import make_blobs

    X, y = make_blobs(160, centers=2, n_features=3, random_state=0)
    bags, p = wc.datasets.make_bags(X, y, 8, random_state=0)
    targets = bag_targets(bags, p)

    def cut_warnings(**kwargs):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cross_val_score(make(), X, targets, **kwargs)
        return [w for w in caught if "cut bags" in str(w.message)]

    assert len(cut_warnings(cv=2)) == 2  # one per test fold
    assert len(cut_warnings(cv=2, scoring=bag_error_scorer)) == 2
    assert cut_warnings(cv=BagKFold(2, random_state=0)) == []
    assert cut_warnings(cv=BagKFold(2, random_state=0), scoring=bag_error_scorer) == []
    model = make().fit(X, targets)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.score(X, targets)  # the training bags, whole: nothing was cut
    assert not [w for w in caught if "cut bags" in str(w.message)]


def test_too_many_positional_proportions_name_the_bag_ids_without_rows():
    bags = np.repeat([0, 1, 2, 4, 5, 6, 7], 3)  # bag 3 lost its rows
    with pytest.raises(ValueError, match=r"7 bags.*Got shape \(8,\).*from 0 to 7 but bag 3 "
                                         r"has no rows"):
        check_bags(bags, np.full(8, 0.5), len(bags))
    with pytest.raises(ValueError, match=r"but bags 3, 4 have no rows"):
        check_bags(np.repeat([0, 1, 2, 5], 2), np.full(6, 0.5), 8)
    with pytest.raises(ValueError, match=r"Got shape \(8,\) instead\.$"):  # ids 0-6: no gap
        check_bags(np.repeat(np.arange(7), 3), np.full(8, 0.5), 21)
