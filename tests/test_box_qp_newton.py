"""The projected Newton box-QP solver against the CVXPY reference and coordinate descent.

Problems are ``Q = X Xᵀ + ridge·I`` with ``X`` of rank ``r < m``: the ridge sets the condition
number (up to ~10⁹ here, the regime of ``K ∘ M`` near a low-rank ``M`` where the solver is
used). Agreement is on the optimal value, which is well conditioned in ``Q`` (``α`` itself is
not unique to more digits than the conditioning allows). Tolerances: the Newton solution
satisfies ``|PG_i| ≤ 1e-9``, so its value is within ``Σc_i·1e-9`` of the optimum; Clarabel's
default tolerances (1e-8 relative) bound the reference.
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from weakcvx.svm import box_qp_cvxpy, solve_box_qp, solve_box_qp_newton


def _problem(seed, m=40, rank=6, ridge=1e-6, costs="vector"):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, rank))
    Q = X @ X.T + ridge * np.eye(m)
    c = rng.uniform(0.1, 2.0, m) if costs == "vector" else 1.0
    return Q, c


def _kkt_violation(Q, c, alpha):
    g = Q @ alpha - 1.0
    c = np.broadcast_to(c, alpha.shape)
    pg = np.where(alpha <= 0, np.minimum(g, 0), np.where(alpha >= c, np.maximum(g, 0), g))
    return float(np.abs(pg).max())


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("ridge", [1e-2, 1e-6, 1e-9])
def test_value_matches_cvxpy_and_kkt_holds(seed, ridge):
    Q, c = _problem(seed, rank=4 + seed, ridge=ridge)
    sol = solve_box_qp_newton(Q, c, tol=1e-9)
    value, _ = box_qp_cvxpy(Q, c)
    assert sol.converged
    assert np.all(sol.alpha >= 0) and np.all(sol.alpha <= c)
    assert _kkt_violation(Q, c, sol.alpha) <= 1e-9
    assert sol.dual_value == pytest.approx(value, rel=1e-6, abs=1e-7)
    assert sol.dual_value <= sol.primal_value + 1e-12


@pytest.mark.parametrize("seed", range(4))
def test_agrees_with_coordinate_descent_from_a_warm_start(seed):
    Q, c = _problem(seed, m=60, rank=10, ridge=1e-4, costs="scalar")
    rng = np.random.default_rng(100 + seed)
    alpha0 = rng.uniform(0, 1, 60) * (rng.random(60) < 0.5)
    cd = solve_box_qp(None, np.arange(60), np.ones(60), c, gram=Q, tol=1e-9,
                      max_epochs=200000)
    newton = solve_box_qp_newton(Q, c, alpha0=alpha0, tol=1e-9)
    assert newton.dual_value == pytest.approx(cd.dual_value, rel=1e-8, abs=1e-9)
    # the optimum of a warm start is a fixed point: one check, no step
    again = solve_box_qp_newton(Q, c, alpha0=newton.alpha, tol=1e-9)
    assert again.n_epochs == 0 and np.array_equal(again.alpha, newton.alpha)


class _Operator:
    """``Q`` given only through ``matvec`` and ``block`` (the protocol for a Q too large to
    form), counting the products so the test sees the dense matrix is never asked for."""

    def __init__(self, Q):
        self._Q, self.shape, self.calls = Q, Q.shape, 0

    def matvec(self, a):
        self.calls += 1
        return self._Q @ a

    def block(self, rows, cols):
        return self._Q[np.ix_(rows, cols)]


def test_operator_protocol_gives_the_dense_answer():
    Q, c = _problem(3, m=50, rank=8, ridge=1e-5)
    dense = solve_box_qp_newton(Q, c, tol=1e-9)
    op = _Operator(Q)
    through_op = solve_box_qp_newton(op, c, tol=1e-9, max_iter=500)
    assert op.calls > 0 and through_op.converged
    assert _kkt_violation(Q, c, through_op.alpha) <= 1e-9
    assert through_op.dual_value == pytest.approx(dense.dual_value, rel=1e-12)


def test_operator_out_of_steps_warns_and_reports_not_converged():
    Q, c = _problem(1, m=50, rank=8, ridge=1e-8)
    with pytest.warns(ConvergenceWarning, match="solve_box_qp_newton stopped after 1"):
        sol = solve_box_qp_newton(_Operator(Q), c, tol=1e-12, max_iter=1)
    assert not sol.converged
    assert sol.dual_value <= box_qp_cvxpy(Q, c)[0] + 1e-9  # still a feasible point


def test_dense_out_of_steps_is_finished_by_coordinate_descent():
    Q, c = _problem(2, m=50, rank=8, ridge=1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        sol = solve_box_qp_newton(Q, c, tol=1e-8, max_iter=1)
    assert sol.converged and _kkt_violation(Q, c, sol.alpha) <= 1e-8


@pytest.mark.parametrize("kwargs, match", [
    (dict(Q=np.ones((2, 3)), c=1.0), "`Q` must be a finite square"),
    (dict(Q=np.array([[1.0, np.nan], [np.nan, 1.0]]), c=1.0), "`Q` must be a finite square"),
    (dict(Q=np.eye(2), c=-1.0), "`c` must be positive"),
    (dict(Q=np.eye(2), c=np.ones(3)), r"`c` must be a scalar or have shape \(2,\)"),
    (dict(Q=np.eye(2), c=1.0, tol=0.0), "`tol` must be a positive float"),
    (dict(Q=np.eye(2), c=1.0, max_iter=0), "`max_iter` must be an integer >= 1"),
    (dict(Q=np.eye(2), c=1.0, alpha0=np.array([2.0, 0.0])), "`alpha0` must lie in the box"),
])
def test_bad_input_raises(kwargs, match):
    with pytest.raises(ValueError, match=match):
        solve_box_qp_newton(**kwargs)
