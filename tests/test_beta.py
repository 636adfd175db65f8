"""β-risk and BetaSVM (Zantedeschi et al. 2016, docs/design.rst §3.7).

Tolerances, tied to how each value is computed:
- CVXOPT runs with abstol = reltol = feastol = 1e-10 and LIBSVM (ours and scikit-learn's SVC)
  with a KKT tolerance of 1e-6 to 1e-5, so decision values agree to ~1e-5 (measured 4e-7 to
  9e-6 at n = 120); ``F_ATOL`` = 1e-4 leaves a margin of 10;
- objective values are compared relatively at ``OBJ_RTOL`` = 1e-6 (interior point at 1e-10,
  LIBSVM's objective error is second order in its KKT tolerance);
- LP values (HiGHS simplex in CVXPY vs SciPy's HiGHS interior point) at 1e-7 relative.
"""

import logging
import pickle
import subprocess
import sys
import warnings

import cvxopt
import numpy as np
import pytest
from scipy.optimize import linprog
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks

import weakcvx as wc
from weakcvx import beta as B
from weakcvx import kernels
from weakcvx.estimators.beta import KERNEL_C, LABELED_SHARE

F_ATOL = 1e-4
OBJ_RTOL = 1e-6
LP_RTOL = 1e-7


def _blobs(seed, n=60, d=2, shift=1.2):
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(n) < n // 2, 1, -1)
    X = rng.standard_normal((n, d)) + shift * y[:, None]
    return X, y


def _one_hot(y):
    return np.where(np.asarray(y)[:, None] > 0, [0.0, 1.0], [1.0, 0.0])


def _decision(K_test, sol):
    return K_test @ sol.dual_coef + sol.intercept


# --------------------------------------------------------------------------------------------
# P1: one-hot β is the standard SVM


@pytest.mark.parametrize("solver", ["cvxopt", "libsvm", "smo"])
@pytest.mark.parametrize("C", [0.3, 5.0])
@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_one_hot_beta_is_svc(solver, C, kernel):
    X, y = _blobs(0, n=70)
    Xt, _ = _blobs(1, n=40)
    g = kernels.resolve_gamma(X)
    kf = (lambda A, Z: kernels.rbf(A, Z, gamma=g)) if kernel == "rbf" else kernels.linear
    sol = B.fit_beta_svm(kf(X, X), _one_hot(y), C, solver=solver, tol=1e-6)
    svc = SVC(kernel=kernel, C=C, gamma=g, tol=1e-7).fit(X, y)
    assert np.allclose(_decision(kf(Xt, X), sol), svc.decision_function(Xt), atol=F_ATOL)


def test_estimator_one_hot_given_is_svc():
    X, y = _blobs(2, n=80, d=3)
    Xt, _ = _blobs(3, n=50, d=3)
    est = wc.BetaSVM(init="given", C=2.0, max_iter=0).fit(X, y, beta=_one_hot(y))
    svc = SVC(C=2.0, gamma=kernels.resolve_gamma(X), tol=1e-7).fit(X, y)
    assert np.allclose(est.decision_function(Xt), svc.decision_function(Xt), atol=F_ATOL)
    assert np.array_equal(est.classes_, [-1, 1])
    assert np.array_equal(est.predict(Xt), svc.predict(Xt))


# --------------------------------------------------------------------------------------------
# β = ½ rows carry no label


@pytest.mark.parametrize("solver", ["cvxopt", "libsvm", "smo"])
def test_half_beta_everywhere_gives_no_separator(solver):
    # loss of a ½ row: (c/2)(max(0, 1 - f) + max(0, 1 + f)) = c max(1, |f|), minimised by θ = 0
    X, _ = _blobs(4)
    K = kernels.rbf(X)
    sol = B.fit_beta_svm(K, np.full((len(X), 2), 0.5), 1.0, solver=solver)
    assert np.abs(K @ sol.dual_coef).max() < F_ATOL
    assert abs(sol.intercept) <= 1.0 + F_ATOL


def test_half_points_inside_the_margin_do_not_move_the_separator():
    X, y = _blobs(5, n=60, shift=1.0)
    Xu, yu = _blobs(6, n=200, shift=1.0)
    g = kernels.resolve_gamma(X)
    svc = SVC(C=1.0, gamma=g, tol=1e-7).fit(X, y)
    inside = np.abs(svc.decision_function(Xu)) < 0.8
    outside = np.abs(svc.decision_function(Xu)) > 1.5
    assert inside.sum() >= 5 and outside.sum() >= 5
    Xt, _ = _blobs(7, n=40)

    def fit_with(extra):
        Xa = np.vstack([X, extra])
        beta = np.vstack([_one_hot(y), np.full((len(extra), 2), 0.5)])
        sol = B.beta_svm_dual(kernels.rbf(Xa, gamma=g), beta, 1.0)
        return _decision(kernels.rbf(Xt, Xa, gamma=g), sol)

    # subgradient of a ½ row is 0 on the margin band: the SVC optimum stays optimal
    assert np.allclose(fit_with(Xu[inside]), svc.decision_function(Xt), atol=F_ATOL)
    # outside the band the loss c|f| pulls f toward the band: the separator does move
    assert np.abs(fit_with(Xu[outside]) - svc.decision_function(Xt)).max() > 0.05


# --------------------------------------------------------------------------------------------
# fast path vs reference, offset, KKT


@pytest.mark.parametrize("fast_solver", [B.beta_svm_libsvm, B.beta_svm_smo])
@pytest.mark.parametrize("seed", range(4))
def test_fast_paths_agree_with_cvxopt(seed, fast_solver):
    rng = np.random.default_rng(seed)
    X, _ = _blobs(seed, n=50)
    K = kernels.rbf(X) if seed % 2 else kernels.linear(X)
    beta = rng.dirichlet([0.7, 0.7], size=len(X))
    beta[rng.random(len(X)) < 0.3] = [0.0, 1.0]        # some one-hot rows: zero upper bounds
    c = rng.uniform(0.2, 5.0, size=len(X))
    ref = B.beta_svm_dual(K, beta, c)
    fast = fast_solver(K, beta, c, tol=1e-5)
    assert np.allclose(K @ fast.dual_coef + fast.intercept, K @ ref.dual_coef + ref.intercept,
                       atol=F_ATOL)
    assert fast.dual_objective == pytest.approx(ref.dual_objective, rel=OBJ_RTOL)
    # strong duality with the recovered offset: the primal of (θ, b) equals the dual value
    assert B.beta_svm_primal(K, beta, c, ref.dual_coef, ref.intercept) == pytest.approx(
        ref.dual_objective, rel=OBJ_RTOL)
    # feasibility of the returned multipliers
    ub = c[:, None] * beta
    assert np.all(ref.alpha >= 0) and np.all(ref.alpha <= ub + 1e-12)
    assert abs(ref.dual_coef.sum()) < 1e-7


@pytest.mark.parametrize("seed", range(4))
def test_warm_started_smo_reaches_the_cold_optimum(seed):
    # P2 moves β between P1 steps: a start from the previous multipliers (cut to the new bounds,
    # Σσa = 0 restored) must end at the optimum of the new β (CVXOPT), rows gaining or losing a
    # sign included
    rng = np.random.default_rng(100 + seed)
    X, _ = _blobs(30 + seed, n=60)
    K = kernels.rbf(X)
    c = rng.uniform(0.5, 3.0, size=len(X))
    beta = rng.dirichlet([0.5, 0.5], size=len(X))
    previous = B.beta_svm_smo(K, beta, c)
    moved = rng.random(len(X)) < 0.3
    beta_new = beta.copy()
    beta_new[moved] = np.eye(2)[rng.integers(0, 2, moved.sum())]
    warm = B.beta_svm_smo(K, beta_new, c, warm_start=previous)
    ref = B.beta_svm_dual(K, beta_new, c)
    assert warm.dual_objective == pytest.approx(ref.dual_objective, rel=OBJ_RTOL)
    assert np.allclose(K @ warm.dual_coef + warm.intercept, K @ ref.dual_coef + ref.intercept,
                       atol=F_ATOL)
    ub = c[:, None] * beta_new      # check_beta renormalizes the rows: bounds equal to an ulp
    assert np.all(warm.alpha >= 0) and np.all(warm.alpha <= ub * (1 + 1e-12))
    assert abs(warm.dual_coef.sum()) < 1e-9


def test_offset_from_free_multipliers_matches_cvxopt_equality_multiplier():
    X, y = _blobs(8, n=60)
    K = kernels.rbf(X)
    sol = B.beta_svm_dual(K, _one_hot(y), 1.0)
    assert sol.offset_rule == "free"
    assert sol.intercept == pytest.approx(sol.extra["equality_multiplier"], abs=1e-6)


def test_offset_fallback_when_no_multiplier_is_free():
    # tiny C: every point violates the margin, every multiplier sits at its upper bound
    X, y = _blobs(9, n=20, shift=0.3)
    K = kernels.linear(X)
    beta = _one_hot(y)
    sol = B.beta_svm_dual(K, beta, 1e-4)
    assert sol.offset_rule == "kkt_interval"
    assert B.beta_svm_primal(K, beta, 1e-4, sol.dual_coef, sol.intercept) == pytest.approx(
        sol.dual_objective, rel=OBJ_RTOL)


def test_degenerate_beta_on_one_class():
    K = kernels.linear(_blobs(10, n=10)[0])
    beta = np.tile([0.0, 1.0], (10, 1))
    for solver in ("cvxopt", "libsvm", "smo"):
        sol = B.fit_beta_svm(K, beta, 1.0, solver=solver)
        assert sol.offset_rule == "degenerate" and np.all(sol.dual_coef == 0)
        assert B.beta_svm_primal(K, beta, 1.0, sol.dual_coef, sol.intercept) == 0.0


def test_cvxopt_global_options_untouched():
    before = dict(cvxopt.solvers.options)
    X, y = _blobs(11, n=20)
    B.beta_svm_dual(kernels.linear(X), _one_hot(y), 1.0, solver_options={"maxiters": 50})
    assert dict(cvxopt.solvers.options) == before


# --------------------------------------------------------------------------------------------
# P2: feasibility and optimality against an independent LP solve


def _p2_by_linprog(h, y_hat, positive_bounds=None):
    """The same LP in SciPy's own modelling (HiGHS interior point), variables β⁺ only;
    ``positive_bounds = (lo, hi)`` adds ``lo ≤ Σ β⁺ ≤ hi``."""
    hinge_pos, hinge_neg = np.maximum(0, 1 - h), np.maximum(0, 1 + h)
    # objective Σ β⁺ hinge(h) + (1 − β⁺) hinge(−h)
    cost = hinge_pos - hinge_neg
    # Σ β^{−ŷ}(−ŷ h) = 0: ŷ = +1 gives (1 − β⁺)(−h), ŷ = −1 gives β⁺ h; so Σ h β⁺ = Σ_{ŷ=+1} h
    rhs = np.sum(np.where(y_hat > 0, h, 0.0))
    ub = {}
    if positive_bounds is not None:
        lo, hi = positive_bounds
        ub = {"A_ub": np.vstack([np.ones(h.size), -np.ones(h.size)]), "b_ub": [hi, -lo]}
    res = linprog(cost, A_eq=h[None, :], b_eq=[rhs], bounds=[(0, 1)] * h.size,
                  method="highs-ipm", **ub)
    assert res.status == 0
    return res.fun + hinge_neg.sum()


@pytest.mark.parametrize("seed", range(5))
def test_p2_feasible_and_optimal(seed):
    rng = np.random.default_rng(seed)
    n = 60
    h = rng.normal(scale=1.5, size=n)
    beta = rng.dirichlet([1, 1], size=n)
    beta[:5] = 0.5                                    # ties: broken by sign(h)
    free = rng.random(n) < 0.7
    out = B.p2_step(h, beta, free)
    assert np.allclose(out[~free], beta[~free])      # fixed rows untouched
    assert np.all(out >= 0) and np.allclose(out.sum(axis=1), 1)
    idx = np.flatnonzero(free)
    y_hat = B._estimated_labels(beta[idx, 1], h[idx])
    assert np.all(y_hat[:5][np.isin(idx[:5], range(5))] != 0)
    H, A = B.P2Problem.coefficients(h[idx], y_hat)
    assert abs(np.sum(A * out[idx])) < 1e-8          # Σ β^{−ŷ}(−ŷ h) = 0
    value = np.sum(H * out[idx])
    assert value == pytest.approx(_p2_by_linprog(h[idx], y_hat), rel=LP_RTOL)
    # an interior-point solver (ECOS) reaches the same optimum
    other = B.p2_step(h, beta, free, solver="ECOS")
    assert np.sum(H * other[idx]) == pytest.approx(value, rel=1e-6)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("fraction", [0.1, 0.5, 0.9])
def test_p2_balance_bound_feasible_and_optimal(seed, fraction):
    # Σ β⁺ must lie between fraction·m and #{ŷ = +1}; β one-hot on ŷ is feasible, so the LP
    # always has a solution, and its value matches an independent solve with the same bound
    rng = np.random.default_rng(seed)
    m = 50
    h = rng.normal(scale=1.5, size=m)
    beta = np.where(rng.random((m, 1)) < 0.6, [0.0, 1.0], [1.0, 0.0])
    beta[:3] = rng.dirichlet([1, 1], size=3)
    out = B.p2_step(h, beta, positive_fraction=fraction)
    y_hat = B._estimated_labels(beta[:, 1], h)
    lo, hi = sorted([fraction * m, float(np.sum(y_hat > 0))])
    assert lo - 1e-7 <= out[:, 1].sum() <= hi + 1e-7
    H, A = B.P2Problem.coefficients(h, y_hat)
    assert abs(np.sum(A * out)) < 1e-8
    assert np.sum(H * out) == pytest.approx(_p2_by_linprog(h, y_hat, (lo, hi)), rel=LP_RTOL)
    # the bound can only cost: the paper's P2 is the relaxation without it
    assert np.sum(H * B.p2_step(h, beta)) <= np.sum(H * out) + 1e-9


def test_p2_tie_rule_and_self_training_collapse():
    # all rows ½: ŷ = sign(h), the equality forces β one-hot on sign(h) (docs/design.rst §3.7)
    h = np.array([2.0, -0.3, 0.7, -1.5])
    out = B.p2_step(h, np.full((4, 2), 0.5))
    assert np.allclose(out[:, 1], h > 0)


# --------------------------------------------------------------------------------------------
# the iteration and the estimator


def test_iteration_ssl_keeps_labeled_rows_and_simplex():
    X, y_true, y_known = wc.datasets.make_two_moons(80, n_labeled=6, random_state=0)
    y = np.where(y_known > 0, 1, 0)
    y[y_known == 0] = -1
    clf = wc.BetaSVM(init="ssl", C=10.0, gamma=2.0, max_iter=6).fit(X, y)
    lab = y >= 0
    assert np.allclose(clf.beta_[lab, 1], y[lab])    # labeled rows one-hot and fixed
    assert np.all(clf.beta_ >= 0) and np.allclose(clf.beta_.sum(axis=1), 1)
    assert 2 <= clf.n_iter_ <= 7 and len(clf.history_) == clf.n_iter_
    last = clf.history_[-1]
    if clf.converged_:
        assert last["change"] <= last["eps"] or last["beta_change"] <= 1e-9
    # costs: c₂ = C n_l / n on unlabeled rows -> the solution respects α ≤ c β
    # measured 0.81 (the majority class is 0.5): well above chance
    assert clf.score(X, (y_true > 0).astype(int)) >= 0.75


def test_ssl_beats_supervised_svm_on_separated_blobs():
    # cluster assumption holds: two separated blobs, 2 labels per class at the outer edge
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal([-2.5, 0], 0.6, (60, 2)), rng.normal([2.5, 0], 0.6, (60, 2))]
    y_true = np.r_[np.zeros(60, int), np.ones(60, int)]
    y = np.full(120, -1)
    lab = [np.argmin(X[:60, 1]), np.argmax(X[:60, 1]), 60 + np.argmin(X[60:, 1]),
           60 + np.argmax(X[60:, 1])]
    y[lab] = y_true[lab]
    clf = wc.BetaSVM(init="ssl", kernel="linear").fit(X, y)
    assert clf.score(X, y_true) >= 0.95
    assert np.allclose(clf.beta_[lab], _one_hot(2 * y_true[lab] - 1))


def test_knn_init_and_noise_robustness_property():
    X, y = _blobs(12, n=80, shift=1.5)
    beta0 = B.beta_from_knn(X, y, n_neighbors=4)
    assert np.allclose(beta0.sum(axis=1), 1) and set(np.unique(beta0 * 4)) <= set(range(5))
    clf = wc.BetaSVM(init="knn", kernel="linear").fit(X, y)
    assert clf.score(X, y) > 0.85
    assert np.allclose(clf.beta_.sum(axis=1), 1)


def test_proportions_init():
    # bags whose proportions vary (2/20 ... 18/20): the initial β⁺ = p_k orients the separator.
    # (With random bags, p_k ≈ ½ carries no orientation and P2, which forgets the proportions
    # after the start, can settle on the flipped labeling.)
    X, y = _blobs(13, n=120, shift=1.5)
    pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
    bags = np.empty(120, int)
    counts = [2, 5, 8, 12, 15, 18]
    for k, m in enumerate(counts):
        bags[pos[sum(counts[:k]):sum(counts[:k]) + m]] = k
        bags[neg[sum(20 - c for c in counts[:k]):sum(20 - c for c in counts[:k]) + 20 - m]] = k
    props = np.array(counts) / 20
    clf = wc.BetaSVM(init="proportions", kernel="linear").fit(X, bags=bags, proportions=props)
    assert np.array_equal(clf.classes_, [0, 1])
    assert np.allclose(clf.beta_.sum(axis=1), 1) and np.all(clf.beta_ >= 0)
    assert clf.score(X, (y > 0).astype(int)) > 0.9


def test_proportions_from_bag_targets_and_mappings():
    X, y = _blobs(16, n=60, shift=1.5)
    bags = np.repeat(np.arange(6), 10)
    props = np.array([0.1, 0.3, 0.4, 0.6, 0.7, 0.9])
    targets = wc.model_selection.bag_targets(bags, props)
    beta0 = B.beta_from_proportions(bags, props)
    assert np.allclose(beta0[:, 1], props[bags])
    assert np.allclose(B.beta_from_proportions(targets), beta0)
    # a mapping bag id -> p is read by id, not by position
    shuffled = {int(k): float(props[k]) for k in [5, 2, 0, 4, 1, 3]}
    assert np.allclose(B.beta_from_proportions(bags, shuffled), beta0)
    ref = wc.BetaSVM(init="proportions", kernel="linear").fit(X, bags=bags, proportions=props)
    for kwargs in ({"y": targets}, {"bags": targets}):
        est = wc.BetaSVM(init="proportions", kernel="linear").fit(X, **kwargs)
        assert np.allclose(est.decision_function(X), ref.decision_function(X))
        assert np.array_equal(est.beta_, ref.beta_)


def test_proportions_grid_search_with_bag_folds():
    X, y = _blobs(17, n=80, shift=1.5)
    pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
    bags = np.empty(80, int)
    bags[pos] = np.arange(40) % 8
    bags[neg] = np.arange(40) % 8
    rng = np.random.default_rng(0)
    keep = rng.random(80) < 0.75                      # uneven bags: proportions vary
    X, bags, y = X[keep], bags[keep], y[keep]
    props = np.array([np.mean(y[bags == k] > 0) for k in range(8)])
    search = GridSearchCV(wc.BetaSVM(init="proportions", kernel="linear"), {"C": [1.0, 10.0]},
                          scoring=wc.model_selection.bag_error_scorer,
                          cv=wc.model_selection.BagKFold(4, random_state=0))
    targets = wc.model_selection.bag_targets(bags, props)
    search.fit(X, targets)
    # the search picks the C of the smallest cross-validated bag error, computed here by hand
    errors = [_cv_bag_error(wc.BetaSVM(init="proportions", kernel="linear", C=C), X, targets,
                            wc.model_selection.BagKFold(4, random_state=0)) for C in (1.0, 10.0)]
    assert search.best_params_["C"] == (1.0, 10.0)[int(np.argmin(errors))]
    assert -search.best_score_ == pytest.approx(min(errors))
    assert np.all(search.cv_results_["mean_test_score"] <= 0)   # minus a bag error


def test_beta_from_votes():
    votes = np.array([["a", "b", "b"], ["a", "a", "?"], ["?", "?", "?"]])
    beta, classes = B.beta_from_votes(votes, missing="?")
    assert list(classes) == ["a", "b"]
    assert np.allclose(beta, [[1 / 3, 2 / 3], [1.0, 0.0], [0.5, 0.5]])
    fv = np.array([[1.0, np.nan], [0.0, 0.0]])
    assert np.allclose(B.beta_from_votes(fv)[0], [[0, 1], [1, 0]])
    with pytest.raises(ValueError, match="exactly two classes"):
        B.beta_from_votes([[1, 2, 3]])


def test_non_convergence_warns_with_change_and_eps():
    X, y = _blobs(19, n=60, shift=0.6)
    yn = np.where(np.random.default_rng(0).random(60) < 0.3, -y, y)
    with pytest.warns(ConvergenceWarning, match=r"status 'max_iter'.*change .* > ε"):
        clf = wc.BetaSVM(init="knn", max_iter=1, tol=0.0).fit(X, yn)
    assert not clf.converged_ and clf.status_ == "max_iter"
    last = clf.history_[-1]
    assert last["change"] > last["eps"]
    # max_iter=0 asks for P1 only: nothing to converge, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        wc.BetaSVM(init="knn", max_iter=0).fit(X, yn)


def _cycling_knn_problem():
    """Noisy labels on which the paper's alternation settles into a 2-cycle (measured)."""
    from sklearn.datasets import make_classification
    from sklearn.model_selection import train_test_split
    X, y = make_classification(400, 10, n_informative=4, random_state=0)
    X, _, y, _ = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    X = StandardScaler().fit_transform(X)
    return X, wc.datasets.make_label_noise(y, 0.1, random_state=0)


def test_cycle_is_detected_and_best_iterate_of_cycle_returned(caplog):
    X, yn = _cycling_knn_problem()
    K = kernels.rbf(X, gamma="mean_distance")
    beta0 = B.beta_from_knn(X, np.where(yn > 0, 1.0, -1.0))
    # a cycle is an end of the alternation (more steps repeat it): logged, not warned
    with warnings.catch_warnings(), caplog.at_level(logging.INFO, logger="weakcvx"):
        warnings.simplefilter("error", ConvergenceWarning)
        res = B.beta_iterate(K, beta0, 10.0, max_iter=60)
    assert res.status == "cycle" and not res.converged
    assert any("repeats with period 2" in r.getMessage() for r in caplog.records)
    assert res.n_iter < 60                            # stopped once the cycle was seen
    # the returned hypothesis is trained on the returned β and is the cycle's best iterate
    again = B.fit_beta_svm(K, res.beta, 10.0)
    assert again.dual_objective == pytest.approx(res.solution.dual_objective, rel=OBJ_RTOL)
    period_objectives = [h["objective"] for h in res.history[-2:]]
    assert res.solution.dual_objective == pytest.approx(min(period_objectives), rel=1e-12)


def _one_label_per_class(seed):
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    rng = np.random.RandomState(seed)
    lab = np.r_[rng.choice(np.flatnonzero(y == 0), 1), rng.choice(np.flatnonzero(y == 1), 1)]
    y_semi = np.full(len(y), -1)
    y_semi[lab] = y[lab]
    return X, y, y_semi


def test_one_label_per_class_does_not_collapse():
    # measured: with the paper's P2 this seed drifts to 100% positives (accuracy 0.63) ...
    X, y, y_semi = _one_label_per_class(3)
    with pytest.warns(UserWarning, match="as one class although"):
        paper = wc.BetaSVM(positive_fraction=None).fit(X, y_semi)
    assert min(np.mean(paper.predict(X)), 1 - np.mean(paper.predict(X))) < 0.01
    # ... the balance bound keeps both classes and a clearly better accuracy
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        clf = wc.BetaSVM().fit(X, y_semi)
    frac = np.mean(clf.predict(X))
    assert 0.05 < frac < 0.95
    assert clf.score(X, y) > paper.score(X, y) + 0.05


@pytest.mark.parametrize("solver", ["smo", "libsvm"])
def test_iteration_limit_falls_back_to_cvxopt(solver):
    X, y = _blobs(20, n=60)
    K = kernels.linear(X)
    beta = np.random.default_rng(1).dirichlet([1, 1], size=60)
    with pytest.raises(wc.SolverError, match="max_iter"):
        B.fit_beta_svm(K, beta, 10.0, solver=solver, max_iter=5)
    with pytest.warns(ConvergenceWarning, match=f"'{solver}' stopped with status 'max_iter'"):
        res = B.beta_iterate(K, beta, 10.0, max_iter=2, svm_max_iter=5, solver=solver)
    assert res.solver == "cvxopt"
    ref = B.beta_iterate(K, beta, 10.0, max_iter=2, solver="cvxopt")
    assert np.allclose(res.beta, ref.beta)
    assert res.solution.dual_objective == pytest.approx(ref.solution.dual_objective,
                                                        rel=OBJ_RTOL)


def test_unscaled_linear_kernel_warns():
    X, y = _blobs(21, n=40)
    with pytest.warns(UserWarning, match="Standardize the features"):
        wc.BetaSVM(init="knn", kernel="linear", C=10.0, max_iter=0).fit(1e3 * X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        wc.BetaSVM(init="knn", kernel="linear", C=10.0, max_iter=0).fit(X, y)


def test_default_linear_cost_is_scale_invariant():
    # C = LINEAR_C_DIAGONAL / mean ‖x − x̄‖²: scaling X by s scales C by 1/s², and with the
    # free offset the β-SVM of (sX, C/s²) is that of (X, C) with w/s (the same predictions)
    X, y = _blobs(23, n=60)
    y_semi = np.where(np.arange(60) % 4 == 0, (y > 0).astype(int), -1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        raw = wc.BetaSVM(kernel="linear").fit(1e3 * X + 50.0, y_semi)
    scaled = wc.BetaSVM(kernel="linear").fit(X, y_semi)
    assert raw.costs_[0] == pytest.approx(1e-6 * scaled.costs_[0], rel=1e-9)
    assert np.allclose(raw.decision_function(1e3 * X + 50.0), scaled.decision_function(X),
                       atol=1e-4)
    spread = np.mean(np.sum((X - X.mean(axis=0)) ** 2, axis=1))
    share = min(1.0, LABELED_SHARE * 60 / 15)  # 15 of 60 rows labeled: the default scaled
    assert scaled.costs_ == pytest.approx((16.0 / spread * share, 16.0 / spread * share * 15 / 60))


@pytest.mark.parametrize("X", [np.tile([[1.0, 2.0]], (40, 1)),   # spread exactly 0
                               np.full((40, 3), 0.1),            # spread ~1e-32 (rounding)
                               np.zeros((40, 2))])
@pytest.mark.parametrize("init", ["ssl", "knn"])
def test_default_linear_cost_on_rows_that_do_not_vary(X, init):
    # 16 / mean ‖x − x̄‖² divided by 0 (or by rounding noise); with identical rows every C gives
    # the same model, one decision value for every row
    y = np.r_[0, 1, 1, np.full(37, -1)] if init == "ssl" else np.arange(40) % 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)   # all rows are predicted as one class
        model = wc.BetaSVM(kernel="linear", init=init).fit(X, y)
        given = wc.BetaSVM(kernel="linear", init=init, C=1.0).fit(X, y)
    assert np.isfinite(model.costs_[0]) and model.costs_[0] < 1e3
    d = model.decision_function(X)
    assert np.ptp(d) < 1e-9
    np.testing.assert_array_equal(model.predict(X), given.predict(X))


def test_fit_prints_nothing(capfd):
    X, y = _blobs(22, n=40)
    y_semi = np.where(np.arange(40) % 5 == 0, (y > 0).astype(int), -1)
    wc.BetaSVM(max_iter=3).fit(X, y_semi)
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_first_fit_of_a_process_prints_nothing():
    # the banner of a solver library is printed once per process: check a fresh one
    code = ("import numpy as np, warnings, weakcvx as wc\n"
            "warnings.simplefilter('ignore')\n"
            "X = np.random.RandomState(0).randn(40, 3); y = (X[:, 0] > 0).astype(int)\n"
            "y[::2] = -1\n"
            "wc.BetaSVM(max_iter=3).fit(X, y)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""


@pytest.mark.parametrize("solver", ["smo", "libsvm"])
def test_cvxopt_and_fast_estimators_agree_on_first_fit(solver):
    X, y = _blobs(14, n=50)
    beta = np.random.default_rng(0).dirichlet([1, 1], size=50)
    a = wc.BetaSVM(init="given", solver="cvxopt", max_iter=0).fit(X, beta=beta)
    b = wc.BetaSVM(init="given", solver=solver, max_iter=0).fit(X, beta=beta)
    assert np.allclose(a.decision_function(X), b.decision_function(X), atol=F_ATOL)


def test_smo_and_libsvm_alternations_agree():
    # the whole alternation: warm-started SMO steps and cold LIBSVM steps solve the same P1s to
    # the same tolerance, so P2 sees the same scores and the β iterates coincide
    X, y = _blobs(16, n=80)
    y_semi = np.where(np.arange(80) % 8 == 0, (y > 0).astype(int), -1)
    a = wc.BetaSVM(solver="smo").fit(X, y_semi)
    b = wc.BetaSVM(solver="libsvm").fit(X, y_semi)
    assert np.array_equal(a.beta_, b.beta_) and a.n_iter_ == b.n_iter_
    assert np.allclose(a.decision_function(X), b.decision_function(X), atol=F_ATOL)


def test_deterministic_clone_and_pickle():
    X, y = _blobs(15, n=60)
    y_semi = np.where(np.arange(60) % 6 == 0, (y > 0).astype(int), -1)
    a = wc.BetaSVM().fit(X, y_semi)
    b = clone(a).fit(X, y_semi)
    assert np.array_equal(a.decision_function(X), b.decision_function(X))
    c = pickle.loads(pickle.dumps(a))
    # the fitted model survives pickling bit for bit; its evaluation may differ in the last
    # bit (BLAS results depend on the alignment of the unpickled arrays), hence 1e-12
    assert np.array_equal(a.dual_coef_, c.dual_coef_) and a.intercept_ == c.intercept_
    assert np.array_equal(a.beta_, c.beta_)
    assert np.allclose(a.decision_function(X), c.decision_function(X), rtol=1e-12, atol=1e-12)


# --------------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize("beta, match", [
    (np.full((10, 3), 1 / 3), r"shape \(10, 2\)"),
    (np.full((9, 2), 0.5), r"shape \(10, 2\)"),
    (np.tile([1.5, -0.5], (10, 1)), "non-negative"),
    (np.tile([0.5, 0.6], (10, 1)), "sum to 1"),
    (np.tile([np.nan, 0.5], (10, 1)), "finite"),
])
def test_bad_beta(beta, match):
    X, _ = _blobs(16, n=10)
    with pytest.raises(ValueError, match=match):
        wc.BetaSVM(init="given").fit(X, beta=beta)


@pytest.mark.parametrize("init, kwargs, match", [
    ("given", {}, "init='given' requires `beta`"),
    ("given", {"y": np.repeat([0, 1], 5)}, "init='given' requires `beta`"),
    ("ssl", {}, "init='ssl' requires y to be passed"),
    ("knn", {}, "init='knn' requires y to be passed"),
    ("proportions", {"bags": np.zeros(10)}, "requires `bags` and `proportions`"),
    ("ssl", {"y": np.r_[np.zeros(5), -np.ones(5)].astype(int)}, "at least two classes"),
    ("knn", {"y": np.ones(10, int)}, "at least two classes"),
    ("given", {"y": np.ones(10, int), "beta": np.full((10, 2), 0.5)}, "exactly two classes"),
    ("ssl", {"y": np.r_[0, 1, -np.ones(8)].astype(int), "beta": np.full((10, 2), 0.5)},
     "only used with init='given'"),
    ("proportions", {"bags": np.zeros(10), "proportions": [0.5, 0.5]}, "one entry per bag"),
    ("proportions", {"bags": np.zeros(10), "proportions": [1.5]}, r"lie in \[0, 1\]"),
    ("ssl", {"y": np.r_[1, 1, -np.ones(8)].astype(int)}, "-1 marks the unlabeled points"),
    # ProportionSVM's order, fit(X, bags, proportions): the bag ids went into `y`
    ("proportions", {"y": np.repeat([0, 1], 5), "proportions": [0.2, 0.8]},
     r"Got a 1-D `y` with `proportions` and no `bags`: pass the bag ids as `bags=`"),
    ("proportions", {"y": np.repeat([0, 1], 5), "beta": [0.2, 0.8]},
     r"Got a 1-D `y` with `beta` and no `bags`: pass the bag ids as `bags=`"),
])
def test_bad_init_arguments(init, kwargs, match):
    X, _ = _blobs(17, n=10)
    with pytest.raises(ValueError, match=match):
        wc.BetaSVM(init=init).fit(X, **kwargs)


def test_bad_params():
    X, y = _blobs(18, n=10)
    with pytest.raises(ValueError, match="init"):
        wc.BetaSVM(init="magic").fit(X, y)
    with pytest.raises(ValueError, match="n_neighbors"):
        wc.BetaSVM(init="knn", n_neighbors=10).fit(X, y)


# --------------------------------------------------------------------------------------------
# scikit-learn contract

EXPECTED_FAILED_CHECKS = {
    # y = -1 marks unlabeled points under init="ssl" (scikit-learn's semi-supervised
    # convention), so targets must be numeric: string labels cannot carry the marker
    "check_classifiers_classes": "string class labels cannot carry the -1 unlabeled marker",
}


@parametrize_with_checks([wc.BetaSVM(max_iter=3)],
                         expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _cv_bag_error(estimator, X, targets, cv):
    """Mean bag error of ``estimator`` over the folds of ``cv``, without GridSearchCV."""
    from sklearn.base import clone

    errors = []
    for train, test in cv.split(X, targets):
        model = clone(estimator).fit(X[train], targets[train])
        errors.append(wc.model_selection.bag_proportion_error(targets[test], None,
                                                              model.predict(X[test])))
    return float(np.mean(errors))


def test_linear_beta_svm_does_not_move_with_the_features():
    """kernel="linear" centres dense features (the offset b is free, so the β-SVM is the
    same): a common offset of 1e4 gives the decision values of the unshifted data, where
    uncentred P1 collapsed to one class (accuracy 0.5 against 0.93)."""
    X, y_true, y_known = wc.datasets.make_two_moons(30, n_labeled=4, random_state=0)
    y = np.where(y_known == 0, -1, (y_known > 0).astype(int))
    plain = wc.BetaSVM(kernel="linear").fit(X, y)
    shifted = wc.BetaSVM(kernel="linear").fit(X + 1e4, y)
    # the centred kernels differ by rounding only: the two fits agree to the P1 tolerance
    np.testing.assert_allclose(shifted.decision_function(X + 1e4), plain.decision_function(X),
                               atol=F_ATOL)
    assert np.mean(shifted.predict(X + 1e4) == (y_true > 0)) > 0.85


def test_default_cost_of_labeled_rows_is_scaled_by_their_share():
    """``C=None``: ``KERNEL_C`` times ``min(1, LABELED_SHARE · n / n_labeled)``: unchanged up
    to a fifth of the rows labeled, ``KERNEL_C · LABELED_SHARE`` when every row is labeled
    (``init="knn"``, or ``"ssl"`` without -1); a given ``C`` or ``C_unlabeled`` is kept."""
    X, y = _blobs(31, n=100)
    labels = (y > 0).astype(int)
    few = np.where(np.arange(100) % 10 == 0, labels, -1)          # 10 of 100 labeled
    half = np.where(np.arange(100) % 2 == 0, labels, -1)          # 50 of 100 labeled
    assert wc.BetaSVM().fit(X, few).costs_ == pytest.approx((KERNEL_C, KERNEL_C * 0.1))
    C_half = KERNEL_C * LABELED_SHARE * 100 / 50
    assert wc.BetaSVM().fit(X, half).costs_ == pytest.approx((C_half, C_half * 0.5))
    every = KERNEL_C * LABELED_SHARE
    assert wc.BetaSVM().fit(X, labels).costs_ == pytest.approx((every, every))
    assert wc.BetaSVM(init="knn").fit(X, labels).costs_ == pytest.approx((every, every))
    assert wc.BetaSVM(C=10.0).fit(X, labels).costs_ == (10.0, 10.0)
    assert wc.BetaSVM(C_unlabeled=3.0).fit(X, half).costs_ == pytest.approx((C_half, 3.0))


def test_default_follows_svc_on_flipped_labels():
    """20% of the training labels flipped, every row labeled, standardized UCI sets (seeds
    2620-2621, held out of the choice of LABELED_SHARE): the default is within 0.015 of
    ``SVC()`` on the mean test accuracy. With the unscaled ``C = 10`` it was 0.036 below on
    eight sets (seeds 2600-2602; docs/methods/beta.rst), as is ``SVC(C=10)``."""
    from sklearn.model_selection import train_test_split

    beta_acc, svc_acc = [], []
    for name in ("heart", "australian", "german", "housevotes"):
        X, y = wc.datasets.load_uci(name)[:2]
        y = (y == np.max(y)).astype(int)
        for seed in (2620, 2621):
            Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, stratify=y,
                                                  random_state=seed)
            scaler = StandardScaler().fit(Xtr)
            Xtr, Xte = scaler.transform(Xtr), scaler.transform(Xte)
            flip = np.random.RandomState(seed).rand(len(ytr)) < 0.2
            noisy = np.where(flip, 1 - ytr, ytr)
            beta_acc.append(np.mean(wc.BetaSVM(random_state=0).fit(Xtr, noisy).predict(Xte)
                                    == yte))
            svc_acc.append(np.mean(SVC().fit(Xtr, noisy).predict(Xte) == yte))
    assert np.mean(beta_acc) >= np.mean(svc_acc) - 0.015
