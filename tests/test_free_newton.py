"""The Newton steps on the free face inside the Gram-path coordinate descent (weakcvx.svm).

References: the CVXPY box-QP model (:func:`box_qp_cvxpy`) and the factor path, which runs
coordinate descent alone; properties: a step never raises the objective nor leaves the box, and
from a point on the optimum's face one step satisfies the KKT conditions.
"""

import numpy as np
import pytest

import weakcvx.svm as svm
from weakcvx.svm import NEWTON_EVERY, box_qp_cvxpy, solve_box_qp

pytestmark = pytest.mark.filterwarnings("error::sklearn.exceptions.ConvergenceWarning")


def _rbf(X, gamma):
    return np.exp(-gamma * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))


def _hard_problem(seed, n=150):
    """An ill-conditioned RBF SVM (wide kernel, large costs): coordinate descent needs
    several runs of NEWTON_EVERY epochs, so the Newton steps are exercised."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    gram = _rbf(X, 0.1)
    signs = np.sign(X[:, 0] + 0.5 * rng.standard_normal(n))[None, :]
    return gram, np.arange(n)[None, :], signs, np.full(n, 10.0)


def _objective(Q, alpha):
    return 0.5 * alpha @ Q @ alpha - alpha.sum()


def _projected_gradient(Q, alpha, c):
    g = Q @ alpha - 1.0
    return np.where(alpha <= 0, np.minimum(g, 0), np.where(alpha >= c, np.maximum(g, 0), g))


@pytest.mark.parametrize("seed", range(3))
def test_gram_path_with_newton_steps_matches_cvxpy_and_plain_descent(seed, monkeypatch):
    gram, rows, signs, c = _hard_problem(seed)
    steps = []
    original = svm._free_newton_step
    monkeypatch.setattr(svm, "_free_newton_step",
                        lambda *a: steps.append(original(*a)) or steps[-1])
    sol = solve_box_qp(None, rows, signs, c, tol=1e-8, max_epochs=200_000, gram=gram)
    assert sol.converged and any(steps), "the problem must exercise the Newton steps"
    Q = signs.T * gram * signs
    ref_value, _ = box_qp_cvxpy(Q, c)
    scale = max(1.0, abs(ref_value))
    # CVXPY (Clarabel/ECOS) and the descent both solve to ~1e-8 relative
    assert abs(sol.dual_value - ref_value) <= 1e-6 * scale
    # coordinate descent alone (the factor path never takes Newton steps) ends at the same value
    from weakcvx.kernels import factor as kernel_factor

    plain = solve_box_qp(kernel_factor(gram), rows, signs, c, tol=1e-8, max_epochs=200_000)
    assert abs(sol.dual_value - plain.dual_value) <= 1e-6 * scale
    # KKT of the returned α: every |PG_i| is tiny (the run ended with an exact face solve or a
    # full epoch below tol)
    assert np.abs(_projected_gradient(Q, sol.alpha, c)).max() <= 1e-6


@pytest.mark.parametrize("seed", range(5))
def test_one_step_from_the_optimal_face_solves_the_problem(seed):
    """Start at a point that has the optimum's bound coordinates at their bounds and its free
    ones perturbed inside the box: one Newton step lands on the optimum (KKT to 1e-8)."""
    gram, rows, signs, c = _hard_problem(seed, n=80)
    sol = solve_box_qp(None, rows, signs, c, tol=1e-10, max_epochs=500_000, gram=gram)
    Q = signs.T * gram * signs
    free = (sol.alpha > 1e-9) & (sol.alpha < c - 1e-9)
    rng = np.random.default_rng(seed)
    alpha = np.where(free, 0.0, sol.alpha)
    alpha[free] = rng.uniform(0.2, 0.8, free.sum()) * c[free]
    alpha[~free] = np.where(sol.alpha[~free] > c[~free] / 2, c[~free], 0.0)
    G = Q @ alpha - 1.0
    taken = svm._free_newton_step(gram, signs[0].copy(), c, alpha, G)
    assert taken is True
    np.testing.assert_allclose(G, Q @ alpha - 1.0, atol=1e-9)  # the gradient kept up to date
    assert np.abs(_projected_gradient(Q, alpha, c)).max() <= 1e-8
    assert abs(_objective(Q, alpha) - _objective(Q, sol.alpha)) <= 1e-9 * abs(_objective(Q, alpha))


@pytest.mark.parametrize("seed", range(20))
def test_a_step_never_raises_the_objective_nor_leaves_the_box(seed):
    """From random feasible points (many free coordinates whose Newton step leaves the box):
    either no step, or a step with a lower objective inside the box."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    X = rng.standard_normal((n, 2))
    gram = _rbf(X, rng.uniform(0.05, 3.0))
    signs = rng.choice([-1.0, 1.0], n)
    c = rng.uniform(0.1, 5.0, n)
    alpha = np.where(rng.random(n) < 0.3, rng.choice([0.0, 1.0], n) * c, rng.random(n) * c)
    Q = signs[:, None] * gram * signs[None, :]
    G = Q @ alpha - 1.0
    before = _objective(Q, alpha)
    start = alpha.copy()
    taken = svm._free_newton_step(gram, signs, c, alpha, G)
    assert np.all(alpha >= 0.0) and np.all(alpha <= c)
    if taken:
        assert _objective(Q, alpha) < before
        np.testing.assert_allclose(G, Q @ alpha - 1.0, atol=1e-9)
    else:
        np.testing.assert_array_equal(alpha, start)


def test_singular_face_falls_back_to_plain_descent():
    """Duplicated points make ``Q_FF`` singular: the Cholesky fails, no step is taken, and the
    descent alone still reaches the CVXPY optimum."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 2))
    X = np.vstack([X, X])  # every point twice
    gram = X @ X.T + 1.0  # linear kernel with offset: rank 3
    signs = np.sign(X[:, 0] + 0.3 * X[:, 1])[None, :]
    c = np.full(80, 50.0)
    alpha = np.full(80, 1.0)
    G = (signs.T * gram * signs) @ alpha - 1.0
    assert svm._free_newton_step(gram, signs[0], c, alpha, G) is None
    sol = solve_box_qp(None, np.arange(80)[None, :], signs, c, tol=1e-8, max_epochs=500_000,
                       gram=gram)
    ref_value, _ = box_qp_cvxpy(signs.T * gram * signs, c)
    assert abs(sol.dual_value - ref_value) <= 1e-6 * max(1.0, abs(ref_value))


def test_newton_runs_are_longer_than_the_tests_need():
    """The hard problems above need more than one run of NEWTON_EVERY epochs (else the Newton
    path would not be tested): checked through the factor path, which runs descent alone."""
    from weakcvx.kernels import factor as kernel_factor

    gram, rows, signs, c = _hard_problem(0)
    plain = solve_box_qp(kernel_factor(gram), rows, signs, c, tol=1e-8, max_epochs=200_000)
    assert plain.n_epochs > NEWTON_EVERY
