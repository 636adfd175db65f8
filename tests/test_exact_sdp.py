"""``branch_and_bound(bound="sdp")``: the node SDP bound against enumeration and CVXPY.

Properties checked (each can fail): with the SDP bound computed at every node the SVM bound
does not prune, branch and bound returns the enumeration optimum (semi-supervised,
clustering, proportions); the node bound is below the best completion of random nodes, also
when only some free points enter it (the counts then enter as norm constraints); with all
free points and a long ascent it reaches the node's SDP value of the CVXPY model
(:func:`weakcvx.sdp.solve_sdp` on the node's label set); it is at least the SVM bound's
value at the start of the ascent; a bad ``bound`` is a ValueError.
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import weakcvx as wc
from weakcvx import exact
from weakcvx.exact import _BranchAndBound, _Node, branch_and_bound, enumerate_optimum

from conftest import leq
from test_exact import (_enumerated, _J, _nodes_and_best_completions, _problem,
                        _random_node, _two_moons)


@pytest.fixture
def sdp_everywhere(monkeypatch):
    """Compute the SDP bound at every node the SVM bound does not prune (no gate)."""
    monkeypatch.setattr(exact, "SDP_GATE", np.inf)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("kind", ["ssl", "clustering", "proportions"])
def test_sdp_bound_branch_and_bound_equals_enumeration(kind, seed, sdp_everywhere):
    problem, reference = _enumerated(kind, seed)
    res = branch_and_bound(problem, bound="sdp", incumbent="none")
    assert res.certified and res.status == "optimal"
    assert res.value == pytest.approx(reference.value, rel=1e-6)
    assert _J(problem, res.labels) == pytest.approx(_J(problem, reference.labels), rel=1e-6)
    svm = branch_and_bound(problem, bound="svm", incumbent="none")
    assert res.value == pytest.approx(svm.value, rel=1e-6)
    extra = res.extra
    assert extra["bound"] == "sdp"
    assert 0 <= extra["sdp_pruned"] <= extra["sdp_nodes"] and extra["sdp_seconds"] >= 0.0
    assert extra["n_nodes"] <= svm.extra["n_nodes"]  # a stronger bound never adds nodes
    assert svm.extra["sdp_nodes"] == 0


def test_sdp_bound_is_computed_and_prunes(sdp_everywhere):
    """On two moons (38 unknowns) the SDP bound runs, prunes, and certifies the same optimum."""
    problem = _two_moons(40)
    svm = branch_and_bound(problem)
    res = branch_and_bound(problem, bound="sdp", incumbent=svm.labels)
    assert res.certified
    assert res.value == pytest.approx(svm.value, rel=1e-6)
    assert res.extra["sdp_nodes"] > 0 and res.extra["sdp_pruned"] > 0


@pytest.mark.parametrize("points", [None, 2])
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("kind", ["ssl", "clustering", "proportions"])
def test_node_sdp_bound_is_below_every_completion(kind, seed, points):
    """Valid with all free points (``None``: up to ``SDP_POINTS``) and with two of them (the
    others' counts as the radius of the norm constraints)."""
    problem = _problem(kind, seed, n=10)
    bb = _BranchAndBound(problem, "sdp")
    for node, best, svm in _nodes_and_best_completions(bb, problem, seed):
        sdp = bb.sdp_bound(node, points=points, evaluations=200,
                           temperatures=(1e-2, 1e-3, 1e-4))
        assert leq(svm, best) and leq(sdp, best)
        # the ascent starts at the SVM's α_S, where the dual function is the SVM bound
        assert sdp >= svm - 1e-6 * max(1.0, abs(svm))


def _node_problem(problem, node):
    """The node as a problem of its own: the assigned labels fixed, the remaining count."""
    labels = node.labels
    n_positive = int(problem.labelset.n_positive - np.sum(labels[problem.labelset.y_known == 0]
                                                          > 0))
    labelset = wc.labelsets.SemiSupervised(labels.astype(int), n_positive=n_positive)
    return wc.WeakLabelProblem(problem.gram, labelset, costs=10.0)


@pytest.mark.parametrize("n, seed", [(20, 0), (30, 1), (30, 2)])
def test_node_sdp_bound_agrees_with_cvxpy(n, seed):
    """With every free point and a long ascent the node bound is the node's SDP value.

    Tolerance: from above, Clarabel's objective (interior point, gap ~1e-8) plus 1e-6; from
    below 1e-3 relative, which covers the soft minimum at the last temperature (1e-5 of the
    bound's size over ``d``: it costs at most ½·1e-5·size·log d ≈ 2e-5 relative) and the
    truncated ascent (measured 5e-6 relative at these sizes, 1500 evaluations)."""
    problem = _two_moons(n, seed)
    bb = _BranchAndBound(problem, "sdp")
    rng = np.random.default_rng(seed)
    node = _random_node(bb, problem, rng, 6)
    bb.solve(node, np.inf, leaf=False)
    value = bb.sdp_bound(node, points=n, evaluations=1500,
                         temperatures=(1e-2, 1e-3, 1e-4, 1e-5))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ref = wc.solve(_node_problem(problem, node), method="sdp", solver="CLARABEL")
    upper = ref.extra.get("solver_value", ref.value)
    assert value <= upper + 1e-6 * max(1.0, upper)
    assert value >= ref.value * (1 - 1e-3)
    assert value > node.bound  # the free points add to the SVM bound here


def test_unknown_bound_is_a_value_error():
    problem = _problem("ssl", 0)
    with pytest.raises(ValueError, match="`bound` must be one of .*'sdp'.*Got 'SDP'"):
        branch_and_bound(problem, bound="SDP")


def test_node_sdp_bound_at_a_leaf_is_minus_infinity():
    problem = _problem("ssl", 0, n=6)
    bb = _BranchAndBound(problem, "sdp")
    reference = enumerate_optimum(problem)
    leaf = _Node(reference.labels.astype(float), np.zeros(bb.n), np.zeros(bb.n),
                 np.zeros(len(bb.members), dtype=np.int64),
                 np.zeros(len(bb.members), dtype=np.int64), 0.0, 0)
    assert bb.sdp_bound(leaf) == -np.inf
