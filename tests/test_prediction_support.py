"""Prediction evaluates the kernel on the support only: the same scores as the full kernel
expansion ``k(X, X_fit_) @ dual_coef_`` over every training row, written out here."""

import numpy as np
import pytest

import weakcvx as wc
from weakcvx import kernels


def _full_expansion(model, X):
    K = kernels.rbf(X, model.X_fit_, gamma=model._gamma)
    return K @ model.dual_coef_ + model.intercept_


@pytest.mark.parametrize("make", [
    lambda: wc.S3VM(random_state=0),
    lambda: wc.S3VM(relaxation="alternating", random_state=0),
    lambda: wc.BetaSVM(random_state=0),
])
def test_scores_equal_the_expansion_over_every_training_row(make):
    X, y_true, y_known = wc.datasets.make_two_moons(300, n_labeled=10, random_state=1)
    y = np.where(y_known == 0, -1, (y_known > 0).astype(int))
    model = make().fit(X, y)
    coef = model.dual_coef_
    assert 0 < np.count_nonzero(coef) < coef.shape[0]  # the case the support path is for
    X_new = np.random.default_rng(0).normal(size=(57, 2))
    np.testing.assert_allclose(model.decision_function(X_new), _full_expansion(model, X_new),
                               rtol=1e-10, atol=1e-10)


def test_clustering_and_multiclass_scores_equal_the_full_expansion():
    X, _ = wc.datasets.make_clustering_blobs(120, random_state=0)
    mmc = wc.MaxMarginClustering(random_state=0).fit(X)
    np.testing.assert_allclose(mmc.decision_function(X), _full_expansion(mmc, X),
                               rtol=1e-10, atol=1e-10)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 3)) + np.repeat(np.eye(3) * 3, 30, axis=0)
    y = np.repeat(np.arange(3), 30)
    candidates = np.eye(3, dtype=bool)[y] | (rng.random((90, 3)) < 0.3)
    pl = wc.PartialLabelSVM(kernel="rbf", random_state=0).fit(X, candidates)
    pl.dual_coef_ = pl.dual_coef_.copy()
    pl.dual_coef_[::2] = 0.0  # rows of zeros: the support path of a multi-column expansion
    Z = pl._standardized(X)
    expected = kernels.rbf(Z, pl.X_fit_, gamma=pl._gamma) @ pl.dual_coef_ + pl.intercept_
    np.testing.assert_allclose(pl.decision_function(X), expected, rtol=1e-10, atol=1e-10)


def test_a_model_with_no_support_scores_its_offset():
    """All coefficients 0 (no point inside or on the margin): the scores are the offset."""
    model = wc.S3VM(positive_fraction=0.5, random_state=0).fit(*_two_points())
    model.dual_coef_ = np.zeros_like(model.dual_coef_)
    np.testing.assert_array_equal(model.decision_function(np.zeros((3, 1))),
                                  np.full(3, model.intercept_))


def _two_points():
    return np.array([[0.0], [1.0], [0.5]]), np.array([0, 1, -1])
