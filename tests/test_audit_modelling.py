"""Audit of the modelling layer (kernels, WeakLabelProblem, label sets, solve, compare): each
test failed before its fix. References are independent: CVXPY for J, brute force over B."""

import itertools
import warnings

import numpy as np
import pytest

import weakcvx as wc

cp = pytest.importorskip("cvxpy")


def J_reference(K, b, costs):
    """``max_{0 ≤ α ≤ c} 1ᵀα − ½αᵀ(K ∘ bbᵀ)α`` by CVXPY (Clarabel), on an eigen-factor."""
    Q = K * np.outer(b, b)
    vals, vecs = np.linalg.eigh(Q)
    R = vecs * np.sqrt(np.clip(vals, 0.0, None))
    alpha = cp.Variable(len(b))
    prob = cp.Problem(cp.Maximize(cp.sum(alpha) - 0.5 * cp.sum_squares(R.T @ alpha)),
                      [alpha >= 0, alpha <= costs])
    prob.solve(solver=cp.CLARABEL)
    return prob.value


# 9 points of one unstandardized feature: a rank-1 linear kernel on which the coordinate
# descent with shrinking stalls (its primal value after 5000 epochs was 122.7 for J = 87.55)
X_RANK_ONE = np.array([-21.29810170994561, 10.332299411224383, -1.8711343402252334,
                       9.577865696937021, 9.29124419961881, 31.209070283999345,
                       2.975871740569467, 13.381451586839002, -23.95340875329263])[:, None]
Y_KNOWN_RANK_ONE = np.array([-1, 1, 0, 0, 0, 0, -1, 0, 0])


@pytest.mark.parametrize("as_features", [True, False])
def test_J_equals_an_independent_solve_on_a_rank_one_linear_kernel(as_features):
    labelset = wc.labelsets.SemiSupervised(Y_KNOWN_RANK_ONE)
    K = X_RANK_ONE @ X_RANK_ONE.T
    problem = (wc.WeakLabelProblem(features=X_RANK_ONE, labelset=labelset, costs=10.0)
               if as_features else wc.WeakLabelProblem(K, labelset, costs=10.0))
    for b in labelset.enumerate():
        value, alpha = problem.J(b)
        reference = J_reference(K, b, problem.costs)
        assert value == pytest.approx(reference, rel=1e-5), b
        assert np.all((alpha >= 0) & (alpha <= problem.costs + 1e-12))


def test_every_rung_reports_J_of_its_labels_and_exact_is_the_brute_force_minimum():
    labelset = wc.labelsets.SemiSupervised(Y_KNOWN_RANK_ONE)
    K = X_RANK_ONE @ X_RANK_ONE.T
    problem = wc.WeakLabelProblem(features=X_RANK_ONE, labelset=labelset, costs=10.0)
    optimum = min(J_reference(K, b, problem.costs) for b in labelset.enumerate())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = wc.compare(problem)
    for rung in table.rungs:
        res = rung.result
        assert res is not None, rung.failure
        assert labelset.contains(res.labels), rung.name
        J_labels = J_reference(K, res.labels, problem.costs)
        assert res.upper_bound == pytest.approx(J_labels, rel=1e-5), rung.name
        assert res.upper_bound >= optimum * (1 - 1e-6), rung.name
        if res.certified and res.method != "exact":
            assert res.value <= optimum * (1 + 1e-6), rung.name
    assert table["exact"].result.value == pytest.approx(optimum, rel=1e-5)


@pytest.mark.parametrize("method", ["sdp", "exact"])
def test_solve_refuses_n_init_where_it_would_be_ignored(method):
    X, _, y_known = wc.datasets.make_two_moons(10, n_labeled=2, random_state=0)
    problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0),
                                  wc.labelsets.SemiSupervised(y_known))
    with pytest.raises(ValueError, match="`n_init`"):
        wc.solve(problem, method=method, n_init=5)


def test_kernels_take_lists_and_refuse_nan_and_1d_input():
    X = np.random.default_rng(0).standard_normal((7, 3))
    np.testing.assert_allclose(wc.kernels.rbf(X.tolist(), gamma="mean_distance"),
                               wc.kernels.rbf(X, gamma="mean_distance"))
    np.testing.assert_allclose(wc.kernels.linear(X.tolist()), X @ X.T)
    X_nan = X.copy()
    X_nan[2, 1] = np.nan
    with pytest.raises(ValueError, match="`X` must contain only finite"):
        wc.kernels.resolve_gamma(X_nan, "mean_distance")  # was silently gamma = 1.0
    with pytest.raises(ValueError, match="`X` must contain only finite"):
        wc.kernels.rbf(X_nan)
    with pytest.raises(ValueError, match="`X` must be 2-D"):
        wc.kernels.rbf(X[:, 0])
    with pytest.raises(ValueError, match="`Y` must have 3 features"):
        wc.kernels.linear(X, X[:, :2])


@pytest.mark.parametrize("rank", [0, -3, 2.5, True])
def test_problem_refuses_a_bad_rank(rank):
    X = np.random.default_rng(0).standard_normal((8, 2))
    labelset = wc.labelsets.Clustering(8, beta=2)
    with pytest.raises(ValueError, match="`rank`"):
        wc.WeakLabelProblem(wc.kernels.rbf(X), labelset, rank=rank)


def test_problem_refuses_rank_with_features_instead_of_ignoring_it():
    X = np.random.default_rng(0).standard_normal((8, 2))
    with pytest.raises(ValueError, match="`rank`"):
        wc.WeakLabelProblem(features=X, labelset=wc.labelsets.Clustering(8, beta=2), rank=1)


@pytest.mark.parametrize("costs", [True, "1.0", np.array([True] * 6)])
def test_costs_must_be_numbers(costs):
    labelset = wc.labelsets.SemiSupervised([1, -1, 0, 0, 0, 0])
    with pytest.raises(ValueError, match="`costs`"):
        wc.WeakLabelProblem(np.eye(6), labelset, costs=costs)


def _at_most_one_positive(r):
    b = -np.ones(len(r))
    if r.max() > 0:
        b[np.argmax(r)] = 1.0
    return b


@pytest.mark.parametrize("with_contains", [True, False])
def test_compare_on_a_custom_set_without_enumerate(with_contains):
    """docs/custom_labelset.rst: ``enumerate`` (and ``contains``) are optional; compare raised
    NotImplementedError (from ``cardinality()``, then from ``contains`` in the alternating
    polish) before running any rung."""
    n = 7
    contains = (lambda b: np.sum(b > 0) <= 1) if with_contains else None
    labelset = wc.labelsets.Custom(n, _at_most_one_positive, contains=contains)
    members = [np.array(v, dtype=float) for v in itertools.product((-1, 1), repeat=n)
               if np.sum(np.array(v) > 0) <= 1]
    X = np.random.default_rng(1).standard_normal((n, 2))
    K = wc.kernels.rbf(X, gamma=1.0)
    problem = wc.WeakLabelProblem(K, labelset)
    optimum = min(J_reference(K, b, problem.costs) for b in members)
    table = wc.compare(problem)
    assert [r.failure for r in table.rungs if r.result is None] == []
    assert {r.name for r in table.rungs} >= {"label_generation", "alternating"}
    for rung in table.rungs:
        res = rung.result
        assert np.sum(res.labels > 0) <= 1
        assert res.upper_bound == pytest.approx(J_reference(K, res.labels, problem.costs),
                                                rel=1e-5)
        assert res.upper_bound >= optimum * (1 - 1e-6)


def test_compare_runs_no_sdp_rung_the_sdp_cannot_solve():
    X = np.random.default_rng(0).standard_normal((9, 2))
    labelset = wc.labelsets.InstanceLabels(np.repeat(np.arange(3), 3), [1, -1, 1])
    problem = wc.WeakLabelProblem(wc.kernels.rbf(X), labelset)
    table = wc.compare(problem)
    assert [r.failure for r in table.rungs if r.result is None] == []
    optimum = min(J_reference(problem.kernel, b, problem.costs) for b in labelset.enumerate())
    assert table["exact"].result.value == pytest.approx(optimum, rel=1e-5)
    assert table.best_lower_bound <= optimum * (1 + 1e-6)
