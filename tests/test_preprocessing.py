"""BagTransformer: an instance transformer fitted on the training bags, applied bag by bag."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import QuantileTransformer, StandardScaler

import weakcvx as wc
from weakcvx.preprocessing import BagTransformer


def _bags(seed=0, n_bags=12, width=3):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(int(rng.integers(1, 5)), width)) * [1, 10, 100] + [0, 5, -5]
            for _ in range(n_bags)]


def test_fits_on_the_stacked_instances_and_keeps_bag_sizes():
    bags = _bags()
    out = BagTransformer().fit_transform(bags)
    assert [len(b) for b in out] == [len(b) for b in bags]
    # the same numbers as a StandardScaler fitted on all instances, row for row
    expected = StandardScaler().fit_transform(np.vstack(bags))
    np.testing.assert_allclose(np.vstack(out), expected, rtol=1e-12, atol=1e-12)


def test_test_bags_use_the_training_statistics_only():
    train, test = _bags(0), _bags(1)
    scaler = BagTransformer().fit(train)
    X = np.vstack(train)
    mean, scale = X.mean(axis=0), X.std(axis=0)
    for got, bag in zip(scaler.transform(test), test):
        np.testing.assert_allclose(got, (bag - mean) / scale, rtol=1e-12)
    # refitting on the test bags would give other numbers: the statistics are not the test's
    assert not np.allclose(np.vstack(scaler.transform(test)).mean(axis=0), 0.0)


def test_any_row_wise_transformer_and_clone():
    bags = _bags()
    quantile = QuantileTransformer(n_quantiles=10, output_distribution="normal")
    t = BagTransformer(quantile)
    out = t.fit_transform(bags)
    expected = clone(quantile).fit_transform(np.vstack(bags))
    np.testing.assert_allclose(np.vstack(out), expected)
    assert t.transformer is quantile and not hasattr(quantile, "quantiles_")  # a clone is fitted
    assert clone(t).get_params()["transformer"].get_params() == quantile.get_params()


def test_pipeline_and_gridsearch_on_bags_choose_the_preprocessing():
    bags, y, _ = wc.datasets.make_mil_roi(n_bags=30, random_state=0)
    pipe = make_pipeline(BagTransformer(), wc.MultiInstanceSVM(relaxation="alternating",
                                                                random_state=0))
    # the pipeline is the manual sequence: transform with the training statistics, then fit
    pipe.fit(bags, y)
    scaled = BagTransformer().fit(bags)
    manual = wc.MultiInstanceSVM(relaxation="alternating", random_state=0).fit(
        scaled.transform(bags), y)
    np.testing.assert_allclose(pipe.decision_function(bags[:5]),
                               manual.decision_function(scaled.transform(bags[:5])))
    grid = {"bagtransformer__transformer": [StandardScaler(), QuantileTransformer(
        n_quantiles=20, output_distribution="normal")]}
    search = GridSearchCV(pipe, grid, cv=StratifiedKFold(3, shuffle=True, random_state=0))
    search.fit(bags, y)
    assert search.best_score_ > 0.6
    assert search.predict(bags).shape == (len(bags),)


def test_bad_input():
    with pytest.raises(TypeError, match="`transformer` must be a scikit-learn transformer"):
        BagTransformer(transformer=np.mean).fit(_bags())
    with pytest.raises(ValueError, match="bags\\[1\\]` is empty"):
        BagTransformer().fit([np.ones((2, 3)), np.ones((0, 3))])
    fitted = BagTransformer().fit(_bags())
    with pytest.raises(ValueError, match="must have 3 features"):
        fitted.transform([np.ones((2, 4))])

    class DropsRows(StandardScaler):
        def transform(self, X, copy=None):
            return super().transform(X)[:-1]

    with pytest.raises(ValueError, match="one row per instance"):
        BagTransformer(DropsRows()).fit(_bags()).transform(_bags())


def test_inner_cv_chooses_the_quantile_map_on_heavy_tailed_bags():
    # the ROI toy seen through a monotone map with a heavy right tail (exp(3x)): a quantile map
    # undoes it (it is invariant to monotone maps), standardization does not
    from weakcvx.bench.mil import PREPROCESSINGS, prepare_bags, select_params

    picks, gains = [], []
    for seed in range(3):
        bags, y, _ = wc.datasets.make_mil_roi(n_bags=60, n_features=5, random_state=seed)
        test, y_test, _ = wc.datasets.make_mil_roi(n_bags=200, n_features=5,
                                                   random_state=100 + seed)
        bags, test = [np.exp(3.0 * b) for b in bags], [np.exp(3.0 * b) for b in test]
        acc = {}
        for name in PREPROCESSINGS:
            tr, te = prepare_bags(bags, test, name)
            clf = wc.MultiInstanceSVM(random_state=0).fit(tr, y)
            acc[name] = np.mean(clf.predict(te) == y_test)
        gains.append(acc["quantile"] - acc["standardize"])
        picks.append(select_params(bags, y, {}, grid=[{"preprocessing": p}
                                                      for p in PREPROCESSINGS])["preprocessing"])
    # measured: gains 0.09-0.14, quantile chosen on all three training sets
    assert min(gains) > 0.03
    assert picks.count("quantile") >= 2
