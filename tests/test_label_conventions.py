"""The label-convention trap: estimators read -1 as unlabeled, the modelling layer reads 0."""

import warnings

import numpy as np
import pytest

import weakcvx as wc


def _moons(n=40, n_labeled=6):
    X, y_true, y_known = wc.datasets.make_two_moons(n, n_labeled=n_labeled, random_state=0)
    y = (y_known > 0).astype(int)
    y[y_known == 0] = -1
    return X, y_true, y_known, y


def _our_warnings(record):
    return [str(w.message) for w in record if "`y` " in str(w.message)]


@pytest.mark.parametrize("Estimator", [wc.S3VM, wc.BranchAndBoundS3VM])
def test_the_modelling_layers_labels_given_to_an_estimator_warn(Estimator):
    X, _, y_known, _ = _moons()
    assert set(np.unique(y_known)) == {-1.0, 0.0, 1.0}
    with pytest.warns(UserWarning, match="exactly the values -1, 0 and \\+1, with more 0") as record:
        Estimator(C=10.0, gamma=2.0).fit(X, y_known)
    message = next(m for m in _our_warnings(record) if "exactly the values" in m)
    # both conventions are named, and the conversion
    assert "-1 as unlabeled" in message and "0 as unknown" in message
    assert "np.where(y_known == 0, -1" in message


def test_the_suggested_conversion_fits_without_the_warning_and_learns():
    X, y_true, y_known, _ = _moons()
    y = np.where(y_known == 0, -1, (y_known > 0).astype(int))  # the warning's own advice
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        clf = wc.S3VM(C=10.0, gamma=2.0).fit(X, y)
    assert _our_warnings(record) == []
    # the trap gives chance accuracy; the converted target learns the moons
    assert np.mean(clf.predict(X) == (y_true > 0)) > 0.8


def test_nan_for_unlabeled_gets_a_hint():
    X, _, y_known, y = _moons()
    y = y.astype(float)
    y[y == -1] = np.nan
    with pytest.raises(ValueError, match="If NaN marks the unlabeled rows.*np.isnan"):
        wc.S3VM().fit(X, y)


def test_inf_gets_no_nan_hint():
    X, _, _, y = _moons()
    y = y.astype(float)
    y[0] = np.inf
    with pytest.raises(ValueError, match="must not contain NaN or inf") as info:
        wc.S3VM().fit(X, y)
    assert "np.isnan" not in str(info.value)


def test_nothing_unlabeled_warns():
    X, y_true, _, _ = _moons()
    with pytest.warns(UserWarning, match="marks no row as unlabeled"):
        wc.S3VM(C=10.0, gamma=2.0).fit(X, (y_true > 0).astype(int))


def test_beta_svm_refuses_bags_or_proportions_it_would_not_use():
    """Nothing is silently ignored: bags / proportions only drive init='proportions'."""
    X = np.random.default_rng(0).standard_normal((40, 3))
    y = np.full(40, -1)
    y[:4], y[4:8] = 0, 1
    bags = np.arange(40) // 8
    with pytest.raises(ValueError, match="only used with init='proportions'. Got `bags` with "
                                         "init='ssl'"):
        wc.BetaSVM().fit(X, y, bags=bags)
    with pytest.raises(ValueError, match="Got `bags` and `proportions` with init='knn'"):
        wc.BetaSVM(init="knn").fit(X, np.where(y < 0, 0, y), bags=bags,
                                   proportions=np.full(5, 0.5))


@pytest.mark.parametrize("bags", [np.arange(40).reshape(5, 8), np.c_[np.arange(40) // 8] * [1, 1, 1]])
def test_wrongly_shaped_bags_are_named_as_such(bags):
    X = np.random.default_rng(0).standard_normal((40, 3))
    with pytest.raises(ValueError, match=r"`bags` must be one bag id per row of X, shape \(40,\), "
                                         r"or the two-column targets"):
        wc.ProportionSVM().fit(X, bags, np.full(5, 0.5))
