"""Targets with missing entries (None, NaN, pandas.NA: how a DataFrame column marks unknown
rows) are refused by every estimator with a ValueError naming the argument, never a raw
TypeError from sorting the labels, and the semi-supervised estimators say how to mark
unlabeled rows instead (-1)."""

import numpy as np
import pandas as pd
import pytest

import weakcvx as wc
from weakcvx._validation import check_classes, count_missing

N = 12
_rng = np.random.default_rng(0)
X = _rng.standard_normal((N, 2))
X[: N // 2] += 2.0
NAMES = np.array(["cat"] * (N // 2) + ["dog"] * (N // 2), dtype=object)
UNLABELED = np.isin(np.arange(N), [1, 2, 3, 7, 8, 9])


def _ssl_targets():
    none = NAMES.copy()
    none[UNLABELED] = None
    nan = NAMES.copy()
    nan[UNLABELED] = np.nan
    na = pd.Series(np.where(UNLABELED, None, NAMES), dtype="string")
    return {"None": none, "nan": nan, "pd.NA": na}


@pytest.mark.parametrize("estimator", [wc.S3VM, wc.BetaSVM, wc.BranchAndBoundS3VM])
@pytest.mark.parametrize("kind", ["None", "nan", "pd.NA"])
def test_semi_supervised_estimators_refuse_missing_entries_and_name_the_marker(estimator, kind):
    y = _ssl_targets()[kind]
    with pytest.raises(ValueError, match=r"`y` must not contain missing values .*6 of 12.*"
                                         r"integer -1"):
        estimator().fit(X, y)


def test_the_same_target_with_minus_one_fits():
    y = NAMES.copy()
    y[UNLABELED] = -1
    clf = wc.S3VM(random_state=0).fit(X, y)
    assert set(clf.predict(X).tolist()) <= {"cat", "dog"}


def test_multi_instance_svm_refuses_a_missing_bag_label():
    bags = [X[i:i + 3] for i in range(0, N, 3)]
    y = np.array(["neg", "pos", None, "pos"], dtype=object)
    with pytest.raises(ValueError, match="`y` must not contain missing values.*1 of 4"):
        wc.MultiInstanceSVM().fit(bags, y)


def test_partial_label_svm_refuses_a_missing_class_label():
    y = np.array(["a", "b", "c"] * 4, dtype=object)
    y[0] = np.nan
    with pytest.raises(ValueError, match="`candidates` must not contain missing values.*1 of 12"):
        wc.PartialLabelSVM().fit(X, y)


def test_beta_svm_knn_refuses_mixed_kinds_by_name():
    y = np.array(["a", 1] * (N // 2), dtype=object)
    with pytest.raises(ValueError, match="`y` must hold class labels of one sortable kind"):
        wc.BetaSVM(init="knn").fit(X, y)


def test_count_missing_reads_each_kind_of_missing_entry():
    y = np.array(["a", None, np.nan, pd.NA, float("inf"), 0.0], dtype=object)
    assert count_missing(y) == 3          # inf in an object array is a value, not missing
    assert count_missing(np.array([1.0, np.nan, np.inf])) == 2
    assert count_missing(np.array([1, 2])) == 0
    assert check_classes(np.array([2, 1, 2])).tolist() == [1, 2]
