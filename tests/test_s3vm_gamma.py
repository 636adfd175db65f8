"""S3VM's ``gamma="select"``: its parts against independent computations, and the choice on
data where the cluster assumption holds (two moons) and where it does not help (UCI)."""

import numpy as np
import pytest
from sklearn.svm import SVC

import weakcvx as wc
from weakcvx.estimators.s3vm import (GAMMA_MULTIPLES, cut_fraction, labeled_loo_accuracy,
                                     neighbour_graph, select_gamma, selection_rows)
from weakcvx.kernels import resolve_gamma


def test_labeled_loo_accuracy_matches_refitting_without_each_row():
    # the closed form against the ridge system solved again without row i, for each width
    rng = np.random.default_rng(0)
    X = rng.standard_normal((25, 3))
    y = np.where(X[:, 0] + 0.7 * rng.standard_normal(25) > 0, 1.0, -1.0)
    gammas, ridge = [0.05, 1.0, 20.0], 0.5
    ours = labeled_loo_accuracy(X, y, gammas, ridge=ridge)
    for gamma, accuracy in zip(gammas, ours):
        K = np.exp(-gamma * ((X[:, None] - X[None]) ** 2).sum(-1)) + 1.0
        correct = 0
        for i in range(len(y)):
            rest = np.arange(len(y)) != i
            alpha = np.linalg.solve(K[np.ix_(rest, rest)] + ridge * np.eye(len(y) - 1), y[rest])
            correct += np.sign(K[i, rest] @ alpha) == y[i]
        assert accuracy == pytest.approx(correct / len(y), abs=1e-12)
    assert len(set(ours)) > 1  # the widths differ on these rows: the test can tell them apart


def test_neighbour_graph_matches_brute_force_and_skips_the_row_itself():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((30, 2))
    X[7] = X[3]  # a duplicate: each must list the other, never itself
    rows, neighbours = neighbour_graph(X, n_neighbors=4)
    D = ((X[:, None] - X[None]) ** 2).sum(-1)
    np.fill_diagonal(D, np.inf)
    for i, row in enumerate(rows):
        assert row not in neighbours[i]
        np.testing.assert_allclose(np.sort(D[row, neighbours[i]]), np.sort(D[row])[:4])
    assert 3 in neighbours[7] and 7 in neighbours[3]


def test_neighbour_graph_draws_query_rows_above_the_cap():
    X = np.random.default_rng(2).standard_normal((50, 2))
    rows, neighbours = neighbour_graph(X, n_neighbors=3, max_rows=20, random_state=0)
    assert rows.shape == (20,) and len(np.unique(rows)) == 20 and neighbours.shape == (20, 3)


def test_cut_fraction_counts_edges_with_different_labels():
    rng = np.random.default_rng(3)
    labels = rng.choice([-1, 1], 25)
    rows, neighbours = np.arange(25), rng.integers(0, 25, (25, 4))
    count = sum(labels[j] != labels[i] for i in range(25) for j in neighbours[i])
    assert cut_fraction(labels, rows, neighbours) == pytest.approx(count / 100)


def _moons(seed, n=600, labeled=30):
    X, y_true, _ = wc.datasets.make_two_moons(n + 2000, noise=0.1, random_state=seed)
    rng = np.random.default_rng(seed)
    known = np.zeros(n)
    for c in (-1, 1):  # stratified: labeled // 2 of each class
        known[rng.choice(np.flatnonzero(y_true[:n] == c), labeled // 2, replace=False)] = c
    return X[:n], y_true[:n], known, X[n:], y_true[n:]


def test_select_keeps_the_base_width_without_two_labeled_rows_per_class():
    X, _, known, _, _ = _moons(0)
    known[np.flatnonzero(known < 0)[1:]] = 0  # one labeled row of class -1
    calls = []
    chosen = select_gamma(X, known, 0.5, lambda g: calls.append(g) or np.ones(len(X)))
    assert chosen == 0.5 and calls == []  # no labeling computed either


def test_select_keeps_the_base_width_when_the_narrow_labeling_cuts_as_much():
    # every width labels the rows the same way: no width separates through a sparser region
    X, _, known, _, _ = _moons(0)
    fixed = np.where(X[:, 0] > 0.5, 1, -1)
    assert select_gamma(X, known, 0.5, lambda g: fixed) == 0.5


def test_s3vm_select_narrows_the_kernel_on_two_moons_and_beats_the_wide_one():
    # 2-D moons: 1 / mean squared distance is too wide to follow the moons once ~20 rows are
    # labeled; the selected width must be narrower on half the seeds or more and more accurate
    # on average, and above the supervised SVC of the labeled rows (the cluster assumption
    # holds here)
    chosen, selected, wide, supervised = [], [], [], []
    for seed in range(6):
        X, _, known, X_test, y_test = _moons(seed, labeled=20)
        y = np.where(known == 0, -1, (known > 0).astype(int))
        model = wc.S3VM(random_state=seed).fit(X, y)
        chosen.append(model.gamma_ / resolve_gamma(X))
        selected.append(np.mean(model.predict(X_test) == (y_test > 0)))
        base = wc.S3VM(gamma="mean_distance", random_state=seed).fit(X, y)
        wide.append(np.mean(base.predict(X_test) == (y_test > 0)))
        svc = SVC().fit(X[known != 0], known[known != 0])
        supervised.append(np.mean(svc.predict(X_test) == y_test))
    assert sum(m > 1 for m in chosen) >= 3 and set(chosen) <= set(GAMMA_MULTIPLES)
    assert np.mean(selected) > np.mean(wide) + 0.02
    assert np.mean(selected) > np.mean(supervised)


def test_s3vm_select_is_the_mean_distance_width_for_other_kernels_and_given_numbers():
    X, y = wc.datasets.load_uci("heart")
    y = np.where(np.arange(len(y)) % 10 == 0, (y > 0).astype(int), -1)
    poly = wc.S3VM(kernel="poly", max_iter=2).fit(X, y)
    # "select" is "mean_distance" for the polynomial kernel: 1 / mean squared distance
    from scipy.spatial.distance import pdist
    assert poly.gamma_ == pytest.approx(1.0 / np.mean(pdist(X, "sqeuclidean")), rel=1e-10)
    assert wc.S3VM(gamma=0.3, max_iter=2).fit(X, y).gamma_ == 0.3
    assert wc.S3VM(kernel="linear", max_iter=2).fit(X, y).gamma_ is None


def test_selection_rows_keep_every_row_up_to_the_cap_and_at_most_half_labeled_above():
    y_known = np.r_[np.ones(300), -np.ones(300), np.zeros(4400)]
    rows = selection_rows(y_known, max_rows=1000, random_state=0)
    assert len(rows) == 1000 and len(np.unique(rows)) == 1000
    assert np.sum(y_known[rows] != 0) == 500  # half of the draw, of 600 labeled rows
    few = np.r_[np.ones(3), -np.ones(3), np.zeros(4000)]
    rows = selection_rows(few, max_rows=1000, random_state=0)
    assert np.sum(few[rows] != 0) == 6  # every labeled row when they are fewer
    np.testing.assert_array_equal(selection_rows(few[:900], max_rows=1000), np.arange(900))


@pytest.mark.parametrize("estimator", ["S3VM", "MultiInstanceSVM", "BetaSVM"])
def test_a_bool_gamma_is_refused_with_the_estimators_own_options(estimator):
    """``gamma=True`` passes scikit-learn's Interval of reals; the error must come at
    validation and list this estimator's options (S3VM's include 'select')."""
    est = getattr(wc, estimator)(gamma=True)
    options = est._parameter_constraints["gamma"][0].options
    X = np.random.default_rng(0).random((12, 2))
    with pytest.raises(ValueError, match=r"'gamma' parameter of " + estimator) as info:
        if estimator == "MultiInstanceSVM":
            est.fit([X[:4], X[4:8], X[8:]], np.array([1, 0, 0]))
        else:
            est.fit(X, np.r_[[0, 1, 0, 1], -np.ones(8, dtype=int)])
    assert all(repr(o) in str(info.value) for o in options)
