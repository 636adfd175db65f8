"""A DataFrame in fit and predict: no feature-name warning raised from inside fit (the
estimator re-validating its own array), and the same model as from the plain array."""

import warnings

import numpy as np
import pandas as pd
import pytest

import weakcvx as wc

N = 24
_rng = np.random.default_rng(1)
X = _rng.standard_normal((N, 3))
X[: N // 2] += 2.0
Y01 = np.r_[np.ones(N // 2, int), np.zeros(N // 2, int)]
Y_SSL = np.where(np.isin(np.arange(N), [0, 1, 12, 13]), Y01, -1)
BAGS = np.repeat(np.arange(6), 4)
PROPS = np.array([Y01[BAGS == b].mean() for b in range(6)])
PROPS[[0, 3]] = [0.75, 0.25]        # not all 0/1, as the proportion estimators ask

CASES = {
    "S3VM": (lambda: wc.S3VM(random_state=0), (Y_SSL,)),
    "BetaSVM": (lambda: wc.BetaSVM(), (Y_SSL,)),
    "BranchAndBoundS3VM": (lambda: wc.BranchAndBoundS3VM(), (Y_SSL,)),
    "MaxMarginClustering": (lambda: wc.MaxMarginClustering(random_state=0), ()),
    "ProportionSVM": (lambda: wc.ProportionSVM(random_state=0), (BAGS, PROPS)),
    "InvCal": (lambda: wc.InvCal(), (BAGS, PROPS)),
    "InvCal linear": (lambda: wc.InvCal(kernel="linear"), (BAGS, PROPS)),
    "MeanMap": (lambda: wc.MeanMap(), (BAGS, PROPS)),
    "PartialLabelSVM": (lambda: wc.PartialLabelSVM(random_state=0), (Y01,)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_fit_on_a_dataframe_warns_nothing_about_feature_names(name):
    make, args = CASES[name]
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        from_frame = make().fit(frame, *args)
        scores_frame = from_frame.predict(frame)
    names = [str(w.message) for w in caught if "feature names" in str(w.message)]
    assert names == []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores_array = make().fit(X, *args).predict(X)
    np.testing.assert_array_equal(scores_frame, scores_array)
