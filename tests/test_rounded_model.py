"""The estimators predict with the SVM of their rounded labels (not the relaxation's mixture).

Property checked against an independent computation: the primal SVM objective of the
estimator's own decision function on its returned labels equals ``objective_ = J(labels)``;
since ``J(labels)`` is the minimum of that primal, equality means the classifier *is* the SVM
of the labels.
"""

import numpy as np
import pytest
from sklearn.datasets import make_moons

import weakcvx as wc
from weakcvx import kernels
from weakcvx.estimators.s3vm import LINEAR_C_DIAGONAL


def _primal(clf, X, labels, costs):
    """½‖w‖² + Σ c_i max(0, 1 − y_i f(x_i)) with ‖w‖² = βᵀ(K + s²)β (offset as a feature)."""
    beta = clf.dual_coef_
    K = kernels.rbf(X, gamma=clf._gamma) + clf.intercept_scaling ** 2
    f = clf.decision_function(X)
    return 0.5 * beta @ K @ beta + np.sum(costs * np.maximum(0.0, 1.0 - labels * f))


@pytest.mark.parametrize("seed", range(3))
def test_s3vm_predicts_with_the_svm_of_its_transduction(seed):
    X, y = make_moons(80, noise=0.15, random_state=seed)
    yy = np.full(80, -1)
    for c in (0, 1):
        yy[np.flatnonzero(y == c)[:2]] = c
    clf = wc.S3VM(random_state=0).fit(X, yy)
    labels = np.where(clf.transduction_ == clf.classes_[1], 1.0, -1.0)
    C, C_unlabeled = clf.costs_
    assert C_unlabeled == C  # the RBF default: unlabeled points cost C too
    costs = np.full(80, C)
    assert _primal(clf, X, labels, costs) == pytest.approx(clf.objective_, rel=1e-3)
    # training points beyond the margin are predicted as transduced
    f = clf.decision_function(X)
    beyond = np.abs(f) > 1 + 1e-6
    np.testing.assert_array_equal(clf.predict(X)[beyond], clf.transduction_[beyond])


def test_clustering_predicts_with_the_svm_of_its_labels():
    X, _ = wc.datasets.make_clustering_blobs(60, random_state=0)
    clf = wc.MaxMarginClustering(random_state=0).fit(X)
    labels = np.where(clf.labels_ == 1, 1.0, -1.0)
    costs = np.full(60, clf.C)
    assert _primal(clf, X, labels, costs) == pytest.approx(clf.objective_, rel=1e-3)


def test_linear_s3vm_objective_uses_its_resolved_costs():
    """With the linear kernel the default costs differ per point (``C`` labeled,
    ``C_unlabeled`` unlabeled); the primal with the costs the estimator reports in
    ``costs_`` must equal its objective, and the reported costs must be the linear defaults."""
    X, y = make_moons(80, noise=0.15, random_state=0)
    yy = np.full(80, -1)
    for c in (0, 1):
        yy[np.flatnonzero(y == c)[:4]] = c
    clf = wc.S3VM(kernel="linear", random_state=0).fit(X, yy)
    C, C_unlabeled = clf.costs_
    # C = LINEAR_C_DIAGONAL / (mean ‖x − x̄‖² + s²): less on wider rows; C_u = 0.1 C
    spread = np.mean(np.sum((X - X.mean(axis=0)) ** 2, axis=1))
    assert C == pytest.approx(LINEAR_C_DIAGONAL / (spread + clf.intercept_scaling ** 2))
    assert C_unlabeled == pytest.approx(0.1 * C)
    labels = np.where(clf.transduction_ == clf.classes_[1], 1.0, -1.0)
    costs = np.where(yy >= 0, C, C_unlabeled)
    K = X @ X.T + clf.intercept_scaling ** 2
    beta = clf.dual_coef_
    f = clf.decision_function(X)
    primal = 0.5 * beta @ K @ beta + np.sum(costs * np.maximum(0.0, 1.0 - labels * f))
    assert primal == pytest.approx(clf.objective_, rel=1e-3)


@pytest.mark.parametrize("per_class", [5, 20])
def test_rbf_s3vm_unlabeled_cost_falls_with_the_labels(per_class):
    """With more than ``UNLABELED_COST_LABELS`` labeled points the default unlabeled cost is
    ``C · 20 / l``; the primal with those per-point costs must equal the fit's objective (the
    costs reported are the costs optimised), and with at most 20 labels it is ``C``."""
    X, y = make_moons(120, noise=0.15, random_state=1)
    yy = np.full(120, -1)
    for c in (0, 1):
        yy[np.flatnonzero(y == c)[:per_class]] = c
    clf = wc.S3VM(random_state=0).fit(X, yy)
    C, C_unlabeled = clf.costs_
    n_labeled = 2 * per_class
    assert C_unlabeled == pytest.approx(C * min(1.0, 20 / n_labeled))
    labels = np.where(clf.transduction_ == clf.classes_[1], 1.0, -1.0)
    costs = np.where(yy >= 0, C, C_unlabeled)
    assert _primal(clf, X, labels, costs) == pytest.approx(clf.objective_, rel=1e-3)


def test_linear_s3vm_costs_follow_the_spread_of_the_rows():
    """On rows of unit norm (tf-idf text) the spread is ``1 − ‖x̄‖²``, so the linear default is
    ``LINEAR_C_DIAGONAL / 2`` and a tenth of it (WellSVM's ratio C₂ / C₁); widening the rows
    tenfold divides the spread by 100, and the sparse and dense forms of the same rows resolve
    alike."""
    X, _, y_known = wc.datasets.make_topic_text(400, 300, labeled_fraction=0.05, random_state=0)
    y = np.where(y_known == 0, -1, (y_known > 0).astype(int))
    sparse = wc.S3VM(kernel="linear", max_iter=2, random_state=0).fit(X, y)
    spread = 1.0 - np.sum(np.asarray(X.mean(axis=0)) ** 2)
    C = LINEAR_C_DIAGONAL / (spread + 1.0)
    assert sparse.costs_ == pytest.approx((C, 0.1 * C))
    dense = wc.S3VM(kernel="linear", max_iter=2, random_state=0).fit(X.toarray(), y)
    assert dense.costs_ == pytest.approx(sparse.costs_)
    wide = wc.S3VM(kernel="linear", max_iter=2, random_state=0).fit(10 * X, y)
    assert wide.costs_[0] == pytest.approx(LINEAR_C_DIAGONAL / (100.0 * spread + 1.0))
