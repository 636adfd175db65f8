"""Several sign vectors over the same rows on the Gram path without an explicit label kernel
(``weakcvx.svm._label_patterns``).

References: the label kernel's formula (:func:`weakcvx.svm.label_kernel`), the CVXPY box-QP
model (:func:`weakcvx.svm.box_qp_cvxpy`), the explicit-``Q`` path (the patterns refused) and the
factor path. Properties: the patterns reproduce ``Q̃`` entry by entry; the solve reaches the
reference optimum; a Newton step on the free face keeps the gradient exact, never raises the
objective and, from the optimum's face, lands on the optimum.
"""

import numpy as np
import pytest

import weakcvx.svm as svm
from weakcvx.svm import box_qp_cvxpy, label_kernel, solve_box_qp

pytestmark = pytest.mark.filterwarnings("error::sklearn.exceptions.ConvergenceWarning")


def _working_set(seed, n, T, flip=None):
    """A Gram matrix and ``T`` sign vectors over every row that differ on a few points (each
    label after the first flips a fraction ``flip`` of the first, by default ``0.3 / T``), as
    the labels of a label-generation working set do, with weights ``mu``."""
    flip = 0.3 / T if flip is None else flip
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 2))
    gram = np.exp(-rng.uniform(0.2, 2.0) * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    base = np.where(X[:, 0] + 0.3 * rng.standard_normal(n) > 0, 1.0, -1.0)
    signs = np.tile(base, (T, 1))
    for t in range(1, T):
        flipped = rng.random(n) < flip
        signs[t, flipped] *= -1.0
    mu = rng.dirichlet(np.ones(T))
    return gram, np.tile(np.arange(n), (T, 1)), signs, mu


def _dense(gram, patterns):
    """``Q̃`` written out from the patterns, as :func:`weakcvx.svm._cd_gram` reads it."""
    Q = gram * np.outer(patterns.left, patterns.scale)
    D, p = patterns.disagree, patterns.pattern
    Q[:, D] += gram[:, D] * patterns.corr[p][:, p[D]]
    return Q


def _factor(gram):
    lam, V = np.linalg.eigh(gram)
    return np.ascontiguousarray(V * np.sqrt(np.clip(lam, 0.0, None)))


@pytest.mark.parametrize("seed, T", [(0, 2), (1, 3), (2, 5), (3, 8)])
def test_patterns_reproduce_the_label_kernel(seed, T):
    gram, rows, signs, mu = _working_set(seed, 40, T)
    patterns = svm._label_patterns(signs, mu)
    assert patterns is not None and patterns.disagree.size > 0
    Q = _dense(gram, patterns)
    np.testing.assert_allclose(Q, label_kernel(_factor(gram), rows, signs, mu), atol=1e-10)
    np.testing.assert_allclose(Q, Q.T, atol=1e-12)
    # the first label's agreeing columns carry no correction: exactly zero
    agreeing = np.setdiff1d(np.arange(40), patterns.disagree)
    assert not np.any(patterns.corr[:, np.unique(patterns.pattern[agreeing])])


def test_patterns_refused_where_they_do_not_pay_or_do_not_apply(monkeypatch):
    gram, rows, signs, mu = _working_set(4, 30, 3)
    assert svm._label_patterns(signs * 0.5, mu) is None  # not ±1
    many = np.random.default_rng(0).choice([-1.0, 1.0], size=(3, 30))  # most points disagree
    assert np.mean(np.any(many != many[0], axis=0)) > svm.PATTERN_MAX_DISAGREE
    assert svm._label_patterns(many, mu) is None
    monkeypatch.setattr(svm, "PATTERN_MAX", 2)
    assert svm._label_patterns(signs, mu) is None


@pytest.mark.parametrize("seed, T, c", [(0, 2, 1.0), (1, 3, 10.0), (2, 4, 0.3), (3, 6, 5.0)])
def test_solve_on_patterns_matches_cvxpy_and_the_explicit_path(seed, T, c, monkeypatch):
    gram, rows, signs, mu = _working_set(seed, 60, T)
    taken = []
    original = svm._label_patterns
    monkeypatch.setattr(svm, "_label_patterns",
                        lambda *a: taken.append(original(*a)) or taken[-1])
    sol = solve_box_qp(None, rows, signs, c, mu, tol=1e-9, max_epochs=200_000, gram=gram)
    assert taken and taken[-1] is not None, "the solve must run on the patterns"
    ref_value, _ = box_qp_cvxpy(label_kernel(_factor(gram), rows, signs, mu), c)
    scale = max(1.0, abs(ref_value))
    # both stop at ~1e-8 relative (CVXPY's interior point, the descent's tol 1e-9)
    assert sol.converged and abs(sol.dual_value - ref_value) <= 1e-6 * scale
    assert sol.dual_value - 1e-6 * scale <= ref_value <= sol.primal_value + 1e-6 * scale
    monkeypatch.setattr(svm, "_label_patterns", lambda *a: None)
    explicit = solve_box_qp(None, rows, signs, c, mu, tol=1e-9, max_epochs=200_000, gram=gram)
    assert abs(sol.dual_value - explicit.dual_value) <= 1e-8 * scale
    # the per-label quadratics (the oracle's input) agree with the explicit path's
    np.testing.assert_allclose(sol.quadratics, explicit.quadratics, rtol=1e-5, atol=1e-6)


def test_float32_gram_on_patterns_agrees_with_the_float64_factor_path():
    """From ``GRAM_FLOAT32_MIN`` variables the patterns read the float32 copy of the Gram
    matrix; the optimum moves far less than the tolerance (as for the explicit path)."""
    m = svm.GRAM_FLOAT32_MIN + 10
    gram, rows, signs, mu = _working_set(5, m, 3, flip=0.05)
    assert svm._label_patterns(signs, mu) is not None
    sol = solve_box_qp(None, rows, signs, 0.5, mu, tol=1e-6, max_epochs=200_000, gram=gram)
    ref = solve_box_qp(_factor(gram), rows, signs, 0.5, mu, tol=1e-8, max_epochs=200_000)
    scale = max(1.0, abs(ref.dual_value))
    assert sol.converged and abs(sol.dual_value - ref.dual_value) <= 1e-6 * scale


def _objective(Q, alpha):
    return 0.5 * alpha @ Q @ alpha - alpha.sum()


@pytest.mark.parametrize("seed", range(12))
def test_newton_step_on_patterns_keeps_the_gradient_and_descends(seed):
    rng = np.random.default_rng(seed)
    gram, rows, signs, mu = _working_set(seed, int(rng.integers(8, 50)), int(rng.integers(2, 6)))
    patterns = svm._label_patterns(signs, mu)
    Q = _dense(gram, patterns)
    n = len(gram)
    c = rng.uniform(0.1, 5.0, n)
    alpha = np.where(rng.random(n) < 0.3, rng.choice([0.0, 1.0], n) * c, rng.random(n) * c)
    G = Q @ alpha - 1.0
    before, start = _objective(Q, alpha), alpha.copy()
    taken = svm._free_newton_step(gram, patterns.scale, c, alpha, G, patterns)
    assert np.all(alpha >= 0.0) and np.all(alpha <= c)
    if taken:
        assert _objective(Q, alpha) < before
        np.testing.assert_allclose(G, Q @ alpha - 1.0, atol=1e-9)
    else:
        np.testing.assert_array_equal(alpha, start)


@pytest.mark.parametrize("seed", range(4))
def test_one_newton_step_from_the_optimal_face_on_patterns(seed):
    gram, rows, signs, mu = _working_set(seed, 50, 3)
    c = np.full(50, 2.0)
    sol = solve_box_qp(None, rows, signs, c, mu, tol=1e-10, max_epochs=500_000, gram=gram)
    patterns = svm._label_patterns(signs, mu)
    Q = _dense(gram, patterns)
    free = (sol.alpha > 1e-9) & (sol.alpha < c - 1e-9)
    assert free.any()
    alpha = np.where(free, 0.5 * c, np.where(sol.alpha > c / 2, c, 0.0))
    G = Q @ alpha - 1.0
    assert svm._free_newton_step(gram, patterns.scale, c, alpha, G, patterns) is True
    np.testing.assert_allclose(G, Q @ alpha - 1.0, atol=1e-9)
    assert abs(_objective(Q, alpha) - _objective(Q, sol.alpha)) <= 1e-9 * abs(_objective(Q,
                                                                                          alpha))
