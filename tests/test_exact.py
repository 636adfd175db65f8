"""Exact solvers: branch and bound against enumeration, its certificates and its limits.

Properties checked (each can fail): branch and bound returns the enumeration optimum on random
semi-supervised, clustering and proportion problems (with either bound, with and without a
seed); every bound it uses (root, node SVM, hull) is below the optimum of the node's
completions; the dedicated node solver agrees with ``solve_box_qp``; on a problem enumeration
cannot reach, the certified optimum sits inside the ladder (SDP ≤ optimum ≤ J of any feasible
labeling); limits give a ConvergenceWarning, ``certified=False`` and a valid lower bound.
"""

import functools
import logging
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import weakcvx as wc
from weakcvx.exact import _BranchAndBound, _Node, branch_and_bound, enumerate_optimum
from weakcvx.svm import solve_box_qp

from conftest import J_RTOL, leq


def _problem(kind, seed, n=14):
    """A random problem with ``n − 2`` (SSL) or ``n`` unknown labels."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 2))
    X[: n // 2] += 1.0
    K = wc.kernels.rbf(X, gamma=float(rng.uniform(0.3, 3.0)))
    C = float(rng.choice([0.3, 1.0, 10.0]))
    if kind == "ssl":
        n = n + 2  # 14 unknowns
        X = np.vstack([X, rng.standard_normal((2, 2))])
        K = wc.kernels.rbf(X, gamma=1.0)
        y_known = np.zeros(n)
        y_known[0], y_known[-1] = 1, -1
        labelset = wc.labelsets.SemiSupervised(y_known, n_positive=int(rng.integers(2, n - 4)))
        return wc.WeakLabelProblem(K, labelset, costs=(C, C / 2))
    if kind == "clustering":
        labelset = wc.labelsets.Clustering(n, beta=int(rng.integers(0, 5)))
        return wc.WeakLabelProblem(K, labelset, costs=C)
    bags = np.arange(n) % 3
    proportions = [np.mean(rng.random(np.sum(bags == k)) < 0.5) for k in range(3)]
    labelset = wc.labelsets.Proportions(bags, proportions, eps=float(rng.choice([0.0, 0.1])))
    return wc.WeakLabelProblem(K, labelset, costs=C)


@functools.lru_cache(maxsize=None)
def _enumerated(kind, seed):
    """``(problem, enumerate_optimum(problem))``, computed once per module run."""
    problem = _problem(kind, seed)
    return problem, enumerate_optimum(problem)


def _two_moons(n, seed=0):
    X, y_true, y_known = wc.datasets.make_two_moons(n, n_labeled=2, random_state=seed)
    return wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0),
                               wc.labelsets.SemiSupervised(y_known), costs=10.0, y_true=y_true)


def _J(problem, labels):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return problem.J(labels, tol=1e-10, max_epochs=100000)[0]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("kind", ["ssl", "clustering", "proportions"])
@pytest.mark.parametrize("bound", ["svm", "hull"])
def test_branch_and_bound_equals_enumeration(kind, seed, bound):
    problem, reference = _enumerated(kind, seed)
    res = branch_and_bound(problem, bound=bound, incumbent="none")
    assert res.certified and res.status == "optimal"
    assert res.method == "exact"
    assert problem.labelset.contains(res.labels)
    assert res.value == res.upper_bound
    assert res.value == pytest.approx(reference.value, rel=1e-6)
    # the labels found are optimal, not just the value (ties have equal J)
    assert _J(problem, res.labels) == pytest.approx(_J(problem, reference.labels), rel=1e-6)
    assert leq(res.extra["root_bound"], reference.value)
    assert leq(res.extra["lower_bound"], res.value)
    assert res.extra["lower_bound"] >= res.value - 1e-6 * max(1.0, res.value) - 1e-12


@pytest.mark.parametrize("kind", ["ssl", "clustering", "proportions"])
def test_seeded_branch_and_bound_equals_enumeration(kind):
    problem = _problem(kind, 7)
    reference = enumerate_optimum(problem)
    res = branch_and_bound(problem)  # seeded by rounding the convex-hull relaxation
    assert res.certified
    assert res.extra["seed"]["source"].startswith("label_generation")
    assert res.value == pytest.approx(reference.value, rel=1e-6)
    values = [h["value"] for h in res.history]
    assert all(b <= a for a, b in zip(values, values[1:]))


def test_solve_exact_uses_branch_and_bound():
    problem = _problem("ssl", 1)
    res = wc.solve(problem, method="exact", incumbent="none")
    assert res.certified and "n_pruned" in res.extra
    reference = wc.solve(problem, method="exact", algorithm="enumerate")
    assert res.value == pytest.approx(reference.value, rel=1e-6)


def _random_node(bb, problem, rng, n_assign):
    """A feasible partial labeling: a random element of B revealed on some free points."""
    y = problem.labelset.initial(random_state=int(rng.integers(2**31)))
    free = np.flatnonzero(bb.group_of >= 0)
    node = _Node(bb.fixed.copy(), np.zeros(bb.n), np.zeros(bb.n),
                 np.zeros(len(bb.members), dtype=np.int64),
                 np.array([len(m) for m in bb.members], dtype=np.int64), 0.0, 0)
    points = rng.choice(free, size=n_assign, replace=False)
    assert bb._assign(node, list(points), list(y[points])) is not None
    return node


def _completions(problem, node):
    B = problem.labelset.enumerate()
    assigned = node.labels != 0
    return B[np.all(B[:, assigned] == node.labels[assigned], axis=1)]


def _nodes_and_best_completions(bb, problem, seed):
    """Random nodes with 1, 3, 5 and 7 assigned points (those with free points left), each with
    the smallest J over its completions (enumeration) and its SVM bound."""
    rng = np.random.default_rng(seed)
    for n_assign in (1, 3, 5, 7):
        node = _random_node(bb, problem, rng, n_assign)
        if np.any(node.rem):
            best = min(_J(problem, b) for b in _completions(problem, node))
            yield node, best, bb.solve(node, np.inf, leaf=False)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("kind", ["ssl", "clustering", "proportions"])
def test_node_bounds_are_below_every_completion(kind, seed):
    problem = _problem(kind, seed, n=10)
    bb = _BranchAndBound(problem, "hull")
    for node, best, svm in _nodes_and_best_completions(bb, problem, seed):
        hull = bb.hull_bound(node)
        assert leq(svm, best) and leq(hull, best)
        # the certified one-coordinate child bounds used to prune before solving a child
        x, first, cheap = bb.branch(node)
        for label, gain in zip((1.0, -1.0), cheap):
            child = [b for b in _completions(problem, node) if b[x] == label]
            if child:
                assert leq(node.dual + gain, min(_J(problem, b) for b in child))


@pytest.mark.parametrize("seed", range(3))
def test_node_svm_agrees_with_solve_box_qp(seed):
    """The dedicated node solver and its reference twin reach the same SVM value on S."""
    problem = _two_moons(30, seed)
    bb = _BranchAndBound(problem, "svm")
    rng = np.random.default_rng(seed)
    node = _random_node(bb, problem, rng, 12)
    value = bb.solve(node, np.inf, leaf=True)
    S = np.flatnonzero(node.labels)
    ref = solve_box_qp(problem.factor, S, node.labels[S], problem.costs[S], tol=1e-10,
                       max_epochs=100000)
    assert value == pytest.approx(ref.dual_value, rel=1e-7)
    assert node.converged
    # warm start after adding a point: the same value as a cold solve
    x = int(np.flatnonzero(node.labels == 0)[0])
    bb._assign(node, [x], [1.0])
    warm = bb.solve(node, np.inf, leaf=True)
    S = np.flatnonzero(node.labels)
    cold = solve_box_qp(problem.factor, S, node.labels[S], problem.costs[S], tol=1e-10,
                        max_epochs=100000)
    assert warm == pytest.approx(cold.dual_value, rel=1e-7)
    assert warm >= value - 1e-12  # bounds grow down the tree


def test_certified_optimum_beyond_enumeration():
    """Two moons with 38 unknowns (C(38, 19) ≈ 3.5e10 labelings): certified, and inside the
    ladder SDP ≤ optimum ≤ J(true labels), J(label generation's labels)."""
    problem = _two_moons(40)
    res = branch_and_bound(problem)
    assert res.certified and res.status == "optimal"
    assert problem.labelset.contains(res.labels)
    assert res.upper_bound == pytest.approx(_J(problem, res.labels), rel=J_RTOL)
    hull = wc.solve(problem, method="label_generation")
    assert leq(res.value, _J(problem, problem.y_true))
    assert leq(res.value, hull.upper_bound)
    assert leq(res.extra["root_bound"], res.value)
    sdp = wc.solve(problem, method="sdp")
    assert sdp.certified
    assert leq(sdp.value, res.value, 1e-3)
    # both bounds certify the same optimum
    other = branch_and_bound(problem, bound="hull", incumbent=res.labels)
    assert other.value == pytest.approx(res.value, rel=1e-6)


@pytest.mark.parametrize("limit", [{"max_nodes": 5}, {"time_limit": 1e-3}])
def test_limits_warn_and_return_a_lower_bound(limit):
    problem = _two_moons(40)
    optimum = branch_and_bound(problem, incumbent="none").value
    with pytest.warns(ConvergenceWarning, match="max_nodes|time_limit"):
        res = branch_and_bound(problem, incumbent="none", **limit)
    assert not res.certified
    assert res.status == ("node_limit" if "max_nodes" in limit else "time_limit")
    assert res.value <= res.upper_bound
    assert leq(res.value, optimum)
    assert leq(optimum, res.upper_bound)
    assert res.extra["incumbent"] == res.upper_bound
    assert problem.labelset.contains(res.labels)
    if "max_nodes" in limit:
        assert res.extra["n_nodes"] == 5


def test_seeded_limit_keeps_the_seed():
    problem = _two_moons(40)
    y = problem.y_true
    with pytest.warns(ConvergenceWarning, match="max_nodes"):
        res = branch_and_bound(problem, incumbent=y, max_nodes=1, polish=False)
    assert res.upper_bound == pytest.approx(_J(problem, y), rel=J_RTOL)
    assert res.value <= res.upper_bound


def test_other_label_sets_are_enumerated():
    rng = np.random.default_rng(0)
    B = np.where(rng.random((6, 8)) < 0.5, 1.0, -1.0)
    problem = wc.WeakLabelProblem(wc.kernels.rbf(rng.standard_normal((8, 2))),
                                  wc.labelsets.Enumerated(B))
    res = branch_and_bound(problem)
    assert res.certified
    assert res.value == pytest.approx(enumerate_optimum(problem).value, rel=1e-6)


def test_sparse_linear_features():
    import scipy.sparse as sp

    rng = np.random.default_rng(3)
    X = rng.standard_normal((14, 3))
    y_known = np.zeros(14)
    y_known[[0, 1]] = [1, -1]
    labelset = wc.labelsets.SemiSupervised(y_known)
    dense = wc.WeakLabelProblem(features=X, labelset=labelset)
    sparse = wc.WeakLabelProblem(features=sp.csr_matrix(X), labelset=labelset)
    reference = enumerate_optimum(dense).value
    for problem in (dense, sparse):
        assert branch_and_bound(problem, incumbent="none").value == pytest.approx(reference,
                                                                                   rel=1e-6)


def test_verbose_logs_progress(caplog):
    problem = _problem("ssl", 0)
    with caplog.at_level(logging.INFO, logger="weakcvx"):
        branch_and_bound(problem, incumbent="none", verbose=1)
    assert any("branch_and_bound" in r.message for r in caplog.records)


def test_invalid_arguments():
    problem = _problem("ssl", 0)
    with pytest.raises(ValueError, match="`bound`"):
        branch_and_bound(problem, bound="lp")
    with pytest.raises(ValueError, match="`max_nodes`"):
        branch_and_bound(problem, max_nodes=0)
    with pytest.raises(ValueError, match="`time_limit`"):
        branch_and_bound(problem, time_limit=-1.0)
    with pytest.raises(ValueError, match="`tol`"):
        branch_and_bound(problem, tol=float("nan"))
    with pytest.raises(ValueError, match="`incumbent`"):
        branch_and_bound(problem, incumbent=np.ones(problem.n_samples))


def test_enumeration_skips_labelings_a_hard_margin_cannot_fit():
    # a hard margin (α ≥ 0 without an upper bound), linear kernel, no offset, one dimension: a
    # labeling b is separable iff all b_i x_i share one sign; for the others the dual is
    # unbounded (J = +∞) and the enumeration goes on; the optimum is checked by hand
    import cvxpy as cp

    class HardMargin(wc.formulations.Formulation):
        def dual(self, alpha):
            return cp.sum(alpha), [alpha >= 0]

    X = np.array([[-3.0], [-1.0], [0.5], [1.0], [3.0]])
    problem = wc.WeakLabelProblem(features=X, formulation=HardMargin(),
                                  labelset=wc.labelsets.SemiSupervised([-1, 0, 0, 0, 1]))
    elements = problem.labelset.enumerate()
    separable = np.array([len(set(np.sign(b * X[:, 0]))) == 1 for b in elements])
    assert separable.any() and not separable.all()
    res = enumerate_optimum(problem)
    assert np.all(np.isinf(res.extra["values"][~separable]))
    assert np.all(np.isfinite(res.extra["values"][separable]))
    # the only separable labeling is sign(x): b_i w x_i ≥ 1 needs w ≥ 1 / 0.5, J = ½ w² = 2
    assert res.labels.tolist() == [-1, -1, 1, 1, 1]
    assert res.value == pytest.approx(2.0, rel=1e-4)


def test_enumeration_says_when_every_labeling_is_unbounded():
    import cvxpy as cp

    class HardMargin(wc.formulations.Formulation):
        def dual(self, alpha):
            return cp.sum(alpha), [alpha >= 0]

    # two copies of the same point with opposite fixed labels: no labeling is separable
    X = np.array([[1.0], [1.0], [2.0], [3.0]])
    problem = wc.WeakLabelProblem(features=X, formulation=HardMargin(),
                                  labelset=wc.labelsets.SemiSupervised([-1, 1, 0, 0]))
    with pytest.raises(wc.SolverError, match="unbounded .* for every labeling .*HardMargin"):
        enumerate_optimum(problem)


def test_progress_lines_thin_out_after_the_first_seconds(monkeypatch, caplog):
    """A 60 s search printed 60 progress lines: one a second for the first 10 s, then one
    every 5 s (a simulated clock; no wall time is measured)."""
    import types

    import weakcvx.exact as exact_module

    clock = {"now": 0.0}
    monkeypatch.setattr(exact_module.time, "perf_counter", lambda: clock["now"])
    tree = types.SimpleNamespace(n_nodes=0, stack=[], progress=lambda: (3, 10.0, 1.0))
    progress = exact_module._Progress("branch_and_bound", verbose=1, start=0.0)
    with caplog.at_level(logging.INFO, logger="weakcvx"):
        for step in range(1, 601):          # a node every 0.1 s for 60 s
            clock["now"] = 0.1 * step
            progress.node(tree)
    times = [float(r.getMessage().rsplit(", ", 1)[1].split()[0]) for r in caplog.records]
    early = [t for t in times if t < exact_module.PROGRESS_QUIET_AFTER]
    late = [t for t in times if t >= exact_module.PROGRESS_QUIET_AFTER]
    assert len(early) >= 9 and np.all(np.diff(early) >= 1.0 - 1e-9)
    assert np.all(np.diff(late) >= exact_module.PROGRESS_INTERVAL - 1e-9)
    assert len(times) <= 10 + 50 / exact_module.PROGRESS_INTERVAL + 1
