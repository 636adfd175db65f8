"""Learning from label proportions: alter-∝SVM, conv-∝SVM, InvCal, MeanMap (issue 6)."""

import itertools
import pickle

import numpy as np
import pytest
from sklearn.base import clone

import weakcvx as wc
from weakcvx.estimators.proportion import EigenProportions
from weakcvx.local import alter_proportion_svm, proportion_label_update


def _brute_force_update(loss_neg, loss_pos, bag_index, p, C_star, C_p, eps):
    """Minimum of the label-update objective over all 2^n labelings."""
    n = len(loss_neg)
    sizes = np.bincount(bag_index)
    best = np.inf
    for y in itertools.product((-1.0, 1.0), repeat=n):
        y = np.array(y)
        loss = np.where(y > 0, loss_pos, loss_neg).sum()
        p_tilde = np.bincount(bag_index, weights=(y > 0).astype(float)) / sizes
        value = C_star * loss + C_p * np.maximum(0, np.abs(p_tilde - p) - eps).sum()
        best = min(best, value)
    return best


def _update_value(y, loss_neg, loss_pos, bag_index, p, C_star, C_p, eps):
    p_tilde = np.bincount(bag_index, weights=(y > 0).astype(float)) / np.bincount(bag_index)
    return (C_star * np.where(y > 0, loss_pos, loss_neg).sum()
            + C_p * np.maximum(0, np.abs(p_tilde - p) - eps).sum())


@pytest.mark.parametrize("seed", range(12))
def test_label_update_is_optimal_against_brute_force(seed):
    """Prop. 1: sorting per bag attains the minimum over all labelings (n ≤ 10, 2^10 checks)."""
    rng = np.random.RandomState(seed)
    n = rng.randint(3, 11)
    bag_index = np.sort(rng.randint(0, rng.randint(1, 4), size=n))
    bag_index = np.unique(bag_index, return_inverse=True)[1].ravel()
    scores = rng.randn(n) * 2
    loss_neg, loss_pos = np.maximum(0, 1 + scores), np.maximum(0, 1 - scores)
    p = rng.rand(bag_index.max() + 1)
    C_star, C_p = 10 ** rng.uniform(-2, 1), 10 ** rng.uniform(-1, 2)
    eps = [0.0, 0.1][seed % 2]
    y = proportion_label_update(loss_neg, loss_pos, bag_index, p, C_star, C_p, eps)
    assert set(np.unique(y)) <= {-1.0, 1.0}
    ours = _update_value(y, loss_neg, loss_pos, bag_index, p, C_star, C_p, eps)
    ref = _brute_force_update(loss_neg, loss_pos, bag_index, p, C_star, C_p, eps)
    assert ours == pytest.approx(ref, rel=1e-12, abs=1e-12)


@pytest.fixture(scope="module")
def toy():
    return wc.datasets.make_llp_toy(n_per_bag=30, random_state=0)


def test_fig1_toy_proportion_svm_succeeds_where_bag_mean_methods_fail(toy):
    """Yu et al. Fig. 1: the bag means lie on the wrong side of the true boundary."""
    X, y_true, bags, p = toy
    truth = (y_true > 0).astype(int)
    for clf in [wc.ProportionSVM(random_state=0),
                wc.ProportionSVM(relaxation="label_generation", random_state=0),
                wc.ProportionSVM(relaxation="label_generation", oracle="eigen", random_state=0)]:
        acc = np.mean(clf.fit(X, bags, p).predict(X) == truth)
        assert acc >= 0.95, (clf, acc)
    for clf in [wc.InvCal(), wc.MeanMap()]:
        acc = np.mean(clf.fit(X, bags, p).predict(X) == truth)
        assert acc <= 0.1, (clf, acc)


def test_alter_restarts_identical_for_n_jobs_1_and_2(toy):
    X, _, bags, p = toy
    K = X @ X.T
    one = alter_proportion_svm(K, bags, p, C=1.0, C_p=10.0, n_init=4, random_state=3, n_jobs=1)
    two = alter_proportion_svm(K, bags, p, C=1.0, C_p=10.0, n_init=4, random_state=3, n_jobs=2)
    np.testing.assert_array_equal(one["values"], two["values"])
    np.testing.assert_array_equal(one["labels"], two["labels"])
    np.testing.assert_array_equal(one["beta"], two["beta"])


def test_alter_keeps_lowest_objective_and_is_a_label_fixed_point(toy):
    """The kept restart has the smallest objective, and its labels cannot be improved by the
    exact label update at C* = C (the end state of the alternation)."""
    X, _, bags, p = toy
    K = X @ X.T
    res = alter_proportion_svm(K, bags, p, C=1.0, C_p=10.0, n_init=5, random_state=0)
    assert res["value"] == pytest.approx(res["values"].min())
    scores = K @ res["beta"] + res["intercept"]
    loss_neg, loss_pos = np.maximum(0, 1 + scores), np.maximum(0, 1 - scores)
    y = proportion_label_update(loss_neg, loss_pos, bags, p, 1.0, 10.0)
    kept = _update_value(res["labels"], loss_neg, loss_pos, bags, p, 1.0, 10.0, 0.0)
    best = _update_value(y, loss_neg, loss_pos, bags, p, 1.0, 10.0, 0.0)
    assert kept <= best + 1e-6 * max(1.0, abs(best))


def test_alter_svm_agrees_with_svc_objective(toy):
    """The alter objective at the final labels equals the primal of an independent SVC fit."""
    from sklearn.svm import SVC

    X, _, bags, p = toy
    K = X @ X.T
    res = alter_proportion_svm(K, bags, p, C=1.0, C_p=10.0, n_init=2, random_state=0)
    y = res["labels"]
    svc = SVC(kernel="linear", C=1.0, tol=1e-6).fit(X, y)
    f = svc.decision_function(X)
    primal = 0.5 * svc.coef_[0] @ svc.coef_[0] + np.maximum(0, 1 - y * f).sum()
    p_tilde = np.bincount(bags, weights=(y > 0).astype(float)) / np.bincount(bags)
    total = primal + 10.0 * np.abs(p_tilde - p).sum()
    # libsvm at tol 1e-3 inside the fit vs 1e-6 here
    assert res["value"] == pytest.approx(total, rel=1e-2)


def test_eigen_oracle_returns_a_feasible_label_at_least_as_violated(toy):
    X, _, bags, p = toy
    B = EigenProportions(bags, p, eps=0.05)
    problem = wc.WeakLabelProblem(features=np.hstack([X, np.ones((len(X), 1))]), labelset=B)
    rng = np.random.RandomState(0)
    alpha = rng.rand(len(X))
    b_hat = B.initial(random_state=0)
    b = B.most_violated(problem, alpha, b_hat, np.zeros(len(X)))
    assert B.contains(b)
    assert problem.quadratic(alpha, b) >= problem.quadratic(alpha, b_hat) - 1e-12
    # the eigen-features keep at least 90% of the spectrum of K = R Rᵀ
    F = B.eigen_features(problem.factor)
    assert np.sum(F ** 2) >= 0.9 * np.sum(problem.factor ** 2) - 1e-9


def test_meanmap_matches_cvxpy_reference(toy):
    cp = pytest.importorskip("cvxpy")
    X, _, bags, p = toy
    clf = wc.MeanMap(lam=0.5).fit(X, bags, p)
    Xa, mu_xy, _ = clf.mean_map_statistic(X, bags, p)
    w = cp.Variable(Xa.shape[1])
    t = Xa @ w
    # log 2cosh(t) = t + log(1 + e^{-2t})
    objective = cp.sum(t + cp.logistic(-2 * t)) - mu_xy @ w + 0.5 * cp.sum_squares(w)
    prob = cp.Problem(cp.Minimize(objective))
    prob.solve(solver="CLARABEL")
    assert clf.objective_ == pytest.approx(prob.value, rel=1e-5, abs=1e-5)


def test_invcal_matches_cvxpy_svr_reference(toy):
    cp = pytest.importorskip("cvxpy")
    X, _, bags, p = toy
    clf = wc.InvCal(C=2.0, eps=0.1).fit(X, bags, p)
    means = np.vstack([X[bags == k].mean(axis=0) for k in range(2)])
    t = clf.logit_targets_
    w, b = cp.Variable(2), cp.Variable()
    obj = 0.5 * cp.sum_squares(w) + 2.0 * cp.sum(cp.pos(cp.abs(means @ w + b - t) - 0.1))
    prob = cp.Problem(cp.Minimize(obj))
    prob.solve(solver="CLARABEL")
    ours = (0.5 * clf.coef_ @ clf.coef_
            + 2.0 * np.maximum(0, np.abs(means @ clf.coef_ + clf.intercept_ - t) - 0.1).sum())
    assert ours == pytest.approx(prob.value, rel=1e-3, abs=1e-4)


def test_accuracy_above_majority_on_heart_bags():
    """heart with bags of 8: alter-∝SVM and conv-∝SVM beat the majority class clearly."""
    X, y = wc.datasets.load_uci("heart")
    y = (y > 0).astype(int)
    bags, p = wc.datasets.make_bags(X, y, 8, random_state=0)
    majority = max(y.mean(), 1 - y.mean())
    for clf in [wc.ProportionSVM(n_init=3, random_state=0),
                wc.ProportionSVM(relaxation="label_generation", random_state=0)]:
        acc = np.mean(clf.fit(X, bags, p).predict(X) == y)
        assert acc >= majority + 0.15, (clf, acc, majority)


def test_same_seed_same_result(toy):
    X, _, bags, p = toy
    a = wc.ProportionSVM(n_init=3, random_state=7).fit(X, bags, p)
    b = wc.ProportionSVM(n_init=3, random_state=7).fit(X, bags, p)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


@pytest.mark.parametrize("est", [wc.ProportionSVM(n_init=2, random_state=0), wc.InvCal(),
                                 wc.MeanMap(), wc.ProportionSVM(kernel="rbf", n_init=2)])
def test_clone_pickle_params(est, toy):
    X, _, bags, p = toy
    c = clone(est)
    assert c.get_params() == est.get_params()
    fitted = c.fit(X, bags, p)
    again = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(again.predict(X), fitted.predict(X))
    assert set(np.unique(fitted.predict(X))) <= {0, 1}


def test_fit_accepts_dict_and_bag_targets(toy):
    X, _, bags, p = toy
    a = wc.MeanMap().fit(X, bags, p)
    b = wc.MeanMap().fit(X, bags, {0: p[0], 1: p[1]})
    c = wc.MeanMap().fit(X, wc.model_selection.bag_targets(bags, p))
    np.testing.assert_allclose(a.coef_, b.coef_)
    np.testing.assert_allclose(a.coef_, c.coef_)


@pytest.mark.parametrize("Est", [wc.ProportionSVM, wc.InvCal, wc.MeanMap])
def test_bad_input(Est, toy):
    X, _, bags, p = toy
    with pytest.raises(ValueError, match="proportions.*\\[0, 1\\]"):
        Est().fit(X, bags, [0.5, 1.5])
    with pytest.raises(ValueError, match="proportions.*\\[0, 1\\]"):
        Est().fit(X, bags, [0.5, np.nan])
    with pytest.raises(ValueError, match="one entry per bag"):
        Est().fit(X, bags, [0.5, 0.5, 0.5])  # an extra proportion
    with pytest.raises(ValueError, match="one entry per bag"):
        Est().fit(X, bags, [0.5])  # a bag with no proportion
    with pytest.raises(ValueError, match="no proportion"):
        Est().fit(X, bags, {0: 0.5})
    with pytest.raises(ValueError, match="empty bags"):
        Est().fit(X, bags, {0: 0.5, 1: 0.5, 7: 0.2})
    with pytest.raises(ValueError, match="one bag id per row"):
        Est().fit(X, bags[:-1], p)


def test_bad_eps_and_infeasible_proportions(toy):
    X, _, bags, p = toy
    with pytest.raises(ValueError, match="eps"):
        wc.ProportionSVM(eps=-0.1).fit(X, bags, p)
    with pytest.raises(ValueError, match="eps"):
        wc.InvCal(eps=-0.1).fit(X, bags, p)
    # 30 points per bag: 0.51 * 30 = 15.3 positives is no integer unless eps >= 0.01
    with pytest.raises(ValueError, match="admits no labeling.*eps"):
        wc.ProportionSVM(relaxation="label_generation").fit(X, bags, [0.51, 0.4])
