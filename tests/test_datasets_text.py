"""Tests of weakcvx.datasets.make_topic_text: sparse text-like rows with class topics."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.svm import LinearSVC

from weakcvx.datasets import make_topic_text


def test_shapes_format_and_unit_rows():
    X, y_true, y_known = make_topic_text(300, 800, n_labeled=12, random_state=0)
    assert sp.issparse(X) and X.format == "csr" and X.shape == (300, 800)
    assert X.dtype == np.float64 and X.indices.dtype == np.int32
    assert X.has_canonical_format
    assert y_true.shape == y_known.shape == (300,)
    assert set(np.unique(y_true)) == {-1, 1} and int((y_true == 1).sum()) == 150
    assert np.all(X.data > 0)
    np.testing.assert_allclose(np.sqrt(X.multiply(X).sum(axis=1)).A1, 1.0, rtol=1e-12)
    # the revealed labels are the true ones, split evenly between the classes
    known = y_known != 0
    assert known.sum() == 12 and np.all(y_known[known] == y_true[known])
    assert int((y_known == 1).sum()) == 6


def test_sparsity_follows_the_document_lengths():
    X, _, _ = make_topic_text(2000, 5000, mean_length=40.0, weighting="tf", random_state=1)
    words = np.diff(X.indptr)
    # distinct words per document: at most the length (mean 40), at least 1, and varying
    assert words.min() >= 1 and 20 < words.mean() < 40
    assert words.std() > 0.4 * words.mean()
    assert X.nnz / np.prod(X.shape) < 0.01


def test_tfidf_is_tf_times_the_smoothed_idf():
    tf, _, _ = make_topic_text(300, 400, weighting="tf", random_state=2)
    tfidf, _, _ = make_topic_text(300, 400, weighting="tfidf", random_state=2)
    assert np.array_equal(tf.indptr, tfidf.indptr) and np.array_equal(tf.indices, tfidf.indices)
    df = np.bincount(tf.indices, minlength=400)
    idf = np.log(301.0 / (1.0 + df)) + 1.0
    ratio = tfidf.data / tf.data / idf[tf.indices]  # one constant (the norms) per row
    for i in range(300):
        r = ratio[tf.indptr[i]:tf.indptr[i + 1]]
        np.testing.assert_allclose(r, r[0], rtol=1e-12)


def test_same_seed_same_data_other_seed_other_data():
    a = make_topic_text(400, 1000, random_state=3)
    b = make_topic_text(400, 1000, random_state=3)
    c = make_topic_text(400, 1000, random_state=4)
    assert (a[0] != b[0]).nnz == 0 and np.array_equal(a[1], b[1]) and np.array_equal(a[2], b[2])
    assert a[0].shape == c[0].shape and ((a[0] != c[0]).nnz > 0 or not np.array_equal(a[1], c[1]))


def test_classes_are_separable_by_a_linear_svm_on_all_labels():
    X, y, _ = make_topic_text(4000, 2000, topic_weight=0.2, random_state=5)
    train = np.arange(4000) < 3000
    clf = LinearSVC(random_state=0).fit(X[train], y[train])
    assert clf.score(X[~train], y[~train]) > 0.95


def test_the_topic_weight_carries_the_class_signal():
    X, y, _ = make_topic_text(2000, 2000, topic_weight=0.0, random_state=6)
    train = np.arange(2000) < 1500
    clf = LinearSVC(random_state=0).fit(X[train], y[train])
    assert clf.score(X[~train], y[~train]) < 0.65  # no topic words: chance level


def test_labeled_fraction_and_default():
    _, _, y_known = make_topic_text(1000, 500, labeled_fraction=0.05, random_state=0)
    assert int((y_known != 0).sum()) == 50
    _, _, y_known = make_topic_text(1000, 500, random_state=0)
    assert int((y_known != 0).sum()) == 10  # 1% by default
    _, _, y_known = make_topic_text(50, 500, random_state=0)
    assert int((y_known != 0).sum()) == 2  # at least one per class


@pytest.mark.parametrize("kwargs, match", [
    ({"n_samples": 1}, "n_samples"),
    ({"n_samples": 10.5}, "n_samples"),
    ({"n_features": 2}, "n_features"),
    ({"topic_size": 600}, "topic_size"),
    ({"topic_size": 0}, "topic_size"),
    ({"topic_weight": 1.5}, "topic_weight"),
    ({"topic_weight": np.nan}, "topic_weight"),
    ({"mean_length": 0.5}, "mean_length"),
    ({"zipf_exponent": -1.0}, "zipf_exponent"),
    ({"weighting": "bm25"}, "weighting"),
    ({"n_labeled": 1}, "n_labeled"),
    ({"n_labeled": 101}, "n_labeled"),
    ({"labeled_fraction": 1.5}, "labeled_fraction"),
    ({"n_labeled": 4, "labeled_fraction": 0.1}, "not both"),
])
def test_bad_arguments_raise(kwargs, match):
    args = {"n_samples": 100, "n_features": 1000, **kwargs}
    with pytest.raises(ValueError, match=match):
        make_topic_text(**args)
