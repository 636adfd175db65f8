"""Targets as scikit-learn's classifiers take them: a column vector (n, 1) is raveled with a
DataConversionWarning and fits exactly as the 1-D target; a regression target (non-integer
floats) is refused with scikit-learn's "Unknown label type" message. scikit-learn's estimator
checks cover S3VM, BranchAndBoundS3VM and BetaSVM at their defaults; these cover the other
entry points (BetaSVM's k-NN start, MultiInstanceSVM's bag labels)."""

import numpy as np
import pytest
from sklearn.exceptions import DataConversionWarning

import weakcvx as wc
from weakcvx.estimators.bnb import BranchAndBoundS3VM

RNG = np.random.RandomState(0)
X = np.r_[RNG.normal(-1.5, 1.0, (20, 2)), RNG.normal(1.5, 1.0, (20, 2))]
Y01 = np.r_[np.zeros(20, int), np.ones(20, int)]
Y_SEMI = np.where(np.arange(40) % 4 == 0, Y01, -1)
BAGS = [RNG.normal(0.0, 1.0, (3, 2)) + (2.0 if i % 2 else 0.0) for i in range(12)]
Y_BAGS = np.arange(12) % 2


def _cases():
    return [
        ("S3VM", lambda: wc.S3VM(max_iter=3, random_state=0), X, Y_SEMI),
        ("BranchAndBoundS3VM", lambda: BranchAndBoundS3VM(max_nodes=50), X, Y_SEMI),
        ("BetaSVM ssl", lambda: wc.BetaSVM(max_iter=3), X, Y_SEMI),
        ("BetaSVM knn", lambda: wc.BetaSVM(init="knn", max_iter=3), X, Y01),
        ("MultiInstanceSVM", lambda: wc.MultiInstanceSVM(max_iter=2, random_state=0), BAGS,
         Y_BAGS),
    ]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("name, make, data, y", _cases(), ids=[c[0] for c in _cases()])
def test_column_target_fits_as_the_flat_one(name, make, data, y):
    flat = make().fit(data, y)
    with pytest.warns(DataConversionWarning, match="column-vector y"):
        column = make().fit(data, y[:, None])
    np.testing.assert_array_equal(column.predict(data), flat.predict(data))
    np.testing.assert_allclose(column.decision_function(data), flat.decision_function(data))


@pytest.mark.parametrize("name, make, data, y", _cases(), ids=[c[0] for c in _cases()])
def test_regression_target_is_refused_by_name(name, make, data, y):
    continuous = y + np.linspace(0.1, 0.4, len(y))
    with pytest.raises(ValueError, match=r"Unknown label type: continuous\. `y` must hold class"):
        make().fit(data, continuous)


@pytest.mark.parametrize("shape", [(40, 2), (1, 40)])
def test_other_two_dimensional_targets_are_still_refused(shape):
    y = np.resize(Y_SEMI, shape)
    with pytest.raises(ValueError, match="`y` must be a 1-D array"):
        wc.S3VM(max_iter=3).fit(X, y)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("name, make, data, y", _cases(), ids=[c[0] for c in _cases()])
def test_predictions_keep_the_dtype_of_object_classes(name, make, data, y):
    """String classes in an object array (the -1 marker kept as the integer): predictions are
    an object array of those strings, as scikit-learn's classifiers return ``classes_``'s
    own dtype."""
    named = np.where(np.asarray(y) == 1, "yes", "no").astype(object)
    named[np.asarray(y) == -1] = -1
    model = make().fit(data, named)
    predicted = model.predict(data)
    assert model.classes_.dtype == object and predicted.dtype == object
    assert set(predicted.tolist()) <= {"no", "yes"}
    if hasattr(model, "transduction_"):
        assert model.transduction_.dtype == object


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_a_column_list_keeps_the_integer_unlabeled_marker():
    """``[["no"], [-1], ...]``: raveled into a flat list, whose integer -1 stays the marker of
    unlabeled rows (numpy would turn it into the string '-1', a third class)."""
    named = [["yes"] if label == 1 else ["no"] if label == 0 else [-1] for label in Y_SEMI]
    with pytest.warns(DataConversionWarning):
        model = wc.S3VM(max_iter=3, random_state=0).fit(X, named)
    assert model.classes_.tolist() == ["no", "yes"]
    assert np.sum(model.transduction_ == "yes") > 0
