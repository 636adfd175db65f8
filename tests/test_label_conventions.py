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
    with pytest.warns(UserWarning, match="exactly the values -1, 0 and \\+1, with 0 in more "
                                         "than two thirds") as record:
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


def test_nan_hint_when_minus_one_is_a_class():
    """Classes -1/+1 with NaN for unlabeled: marking NaN with -1 would merge class -1 into the
    unlabeled points, so the hint recodes the classes first; its code then fits."""
    X, y_true, y_known, _ = _moons()
    y = np.where(y_known == 0, np.nan, y_known)
    with pytest.raises(ValueError, match="already one of your classes") as info:
        wc.S3VM().fit(X, y)
    assert "y = np.where(np.isnan(y), -1, (y > 0).astype(int))" in str(info.value)
    recoded = np.where(np.isnan(y), -1, (y > 0).astype(int))
    assert wc.S3VM(random_state=0).fit(X, recoded).classes_.tolist() == [0, 1]


def test_labels_minus_one_and_one_name_the_collision():
    """{-1, +1} with -1 read as unlabeled leaves one class: the error says why."""
    X, _, y_known, _ = _moons()
    y = np.where(y_known == 0, -1, y_known).astype(int)
    for Estimator in (wc.S3VM, wc.BranchAndBoundS3VM):
        with pytest.raises(ValueError, match=r"labels in \{-1, \+1\} leave a single class"):
            Estimator().fit(X, y)


def test_string_minus_one_is_refused_not_a_class():
    """A target read as text (pandas string dtype, or object strings) with '-1' for unlabeled
    rows: refused with the conversion, which then fits two classes."""
    pd = pytest.importorskip("pandas")
    X, _, y_known, _ = _moons()
    text = np.where(y_known == 0, "-1", np.where(y_known > 0, "pos", "neg"))
    for y in (pd.Series(text, dtype="string"), text.astype(object)):
        with pytest.raises(ValueError, match="holds the string '-1'"):
            wc.S3VM().fit(X, y)
    y = pd.Series(text, dtype="string")
    y = y.astype(object).where(y != "-1", -1)  # the error's own advice
    assert wc.S3VM(random_state=0).fit(X, y).classes_.tolist() == ["neg", "pos"]


def test_mostly_labeled_target_does_not_warn():
    """Classes 0/1 with 80% of the rows labeled: more 0 than -1, a legitimate target, and no
    warning about the modelling layer's convention (0 is not most of the rows)."""
    X, y_true, _, _ = _moons(100, n_labeled=4)
    rng = np.random.default_rng(0)
    y = np.where(rng.random(100) < 0.8, (y_true > 0).astype(int), -1)
    assert np.sum(y == 0) > np.sum(y == -1)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        wc.S3VM(random_state=0).fit(X, y)
    assert not [m for m in _our_warnings(record) if "exactly the values" in m]


@pytest.mark.parametrize("Estimator", [wc.S3VM, wc.BranchAndBoundS3VM, wc.BetaSVM])
def test_mostly_labeled_target_with_a_majority_class_does_not_warn(Estimator):
    """Classes 0/1, 85% of the rows labeled, class 0 on 60% of the rows: neither the
    estimators' check nor the modelling layer's (on the converted y_known, whose -1 is then
    more than half of the points) warns about a convention the user did not use."""
    X, y_true, _, _ = _moons(48, n_labeled=4)
    rows = np.r_[np.flatnonzero(y_true < 0), np.flatnonzero(y_true > 0)[:16]]
    X, y_true = X[rows], y_true[rows]                     # 24 negatives, 16 positives
    y = np.where(y_true > 0, 1, 0)
    y[np.flatnonzero(y_true > 0)[:6]] = -1                # 6 of 40 unlabeled
    assert 0.5 < np.mean(y == 0) < 2 / 3
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        Estimator(random_state=0).fit(X, y)
    messages = [str(w.message) for w in record]
    assert not [m for m in messages if "exactly the values" in m], messages


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


def test_beta_svm_checks_the_target_once():
    """BetaSVM's fit checks a two-class target once: each warning about it comes once, and the
    {-1, +1} error says why once."""
    X, y_true, y_known, _ = _moons()
    for y, text in (((y_true > 0).astype(int), "marks no row as unlabeled"),
                    (y_known.astype(int), "exactly the values")):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            wc.BetaSVM().fit(X, y)
        assert sum(text in m for m in _our_warnings(record)) == 1
    with pytest.raises(ValueError) as info:
        wc.BetaSVM().fit(X, np.where(y_known == 0, -1, y_known).astype(int))
    assert str(info.value).count("leave a single class") == 1 and "init='knn'" in str(info.value)


def test_scikit_learn_target_given_to_the_modelling_layer_warns():
    """The mirror trap: scikit-learn's target (-1 unlabeled, classes 0/1) given to
    SemiSupervised fixes every unlabeled point to class -1; a warning names both conventions,
    and its conversion gives the modelling layer's y_known back."""
    _, _, y_known, y = _moons()
    with pytest.warns(UserWarning, match="-1 in more than half of the points"):
        wc.labelsets.SemiSupervised(y)
    converted = np.where(y == -1, 0, np.where(y > 0, 1, -1))  # the warning's own advice
    assert np.array_equal(converted, y_known)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        wc.labelsets.SemiSupervised(y_known)


def test_boolean_target_gets_the_conversion():
    """A boolean y cannot mark unlabeled rows with -1: the error gives the conversion."""
    X, y_true, _, _ = _moons()
    for Estimator in (wc.S3VM, wc.BranchAndBoundS3VM, wc.BetaSVM):
        with pytest.raises(ValueError, match=r"Got dtype bool: .*y = y.astype\(int\)"):
            Estimator().fit(X, y_true > 0)


def test_one_labeled_class_names_both_readings():
    """Classes 0/1 with only class 1 labeled give y in {-1, 1}: the error names both
    readings (classes -1/+1, or -1 unlabeled with one class labeled)."""
    X, _, y_known, _ = _moons()
    y = np.where(y_known > 0, 1, -1)
    for Estimator in (wc.S3VM, wc.BranchAndBoundS3VM):
        with pytest.raises(ValueError, match="label at least one point of the other class"):
            Estimator().fit(X, y)
