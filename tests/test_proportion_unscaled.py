"""alter-∝SVM on unscaled features: the SMO work of a fit stays bounded, and says so.

On raw features a warm-started SMO fit needed up to 10⁶ pair updates (the SMO's own cap) where
the same fit on standardised features needed a few hundred; ``ProportionSVM`` then caps each fit
at :data:`weakcvx.local.SMO_PASSES` passes over the data (docs/methods/llp.rst, "Feature
scale"). The SMO work is counted at :func:`weakcvx._smo.svm_offset_solve`, not timed.
"""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

import weakcvx as wc
import weakcvx._smo as smo
from weakcvx.local import SMO_PASSES, alter_proportion_svm

N_ROWS = 240


@pytest.fixture(scope="module")
def raw_cancer():
    """240 rows of breast_cancer as given (max ‖x‖² ≈ 1e7), bags of 8 with their true
    proportions."""
    X, y = load_breast_cancer(return_X_y=True)
    rows = np.random.default_rng(0).permutation(len(y))[:N_ROWS]
    bags = np.arange(N_ROWS) // 8
    return X[rows], y[rows], bags, np.bincount(bags, weights=y[rows]) / np.bincount(bags)


@pytest.fixture
def smo_work(monkeypatch):
    """Pair updates of every SMO fit made while the test runs, and how many stopped at a cap."""
    work = {"updates": [], "capped": 0}
    solve = smo.svm_offset_solve

    def counted(*args, **kwargs):
        out = solve(*args, **kwargs)
        work["updates"].append(out[3])
        work["capped"] += not out[4]
        return out

    monkeypatch.setattr(smo, "svm_offset_solve", counted)
    return work


def test_raw_features_keep_the_smo_work_bounded_and_warn(raw_cancer, smo_work):
    X, y, bags, p = raw_cancer
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # C = 1, the paper's: the default C divides by the spread of the raw rows (C ≈ 5e-6
        # here), at which SMO converges without the caps this test is about
        clf = wc.ProportionSVM(C=1.0, n_init=2, random_state=0,
                               standardize=False).fit(X, bags, p)
    # no fit but the returned model's own runs past the caps (max(SMO_PASSES) = 500 passes
    # over the data); before them 16 of 91 fits did, 4 of them up to the SMO's own cap of 10⁶
    # updates (4167 passes), and the fit made 10.5M updates in all (now 1.1M)
    updates = np.array(smo_work["updates"])
    assert np.sum(updates > max(SMO_PASSES) * N_ROWS) <= 1
    assert updates.sum() <= 3e6
    convergence = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert len(convergence) == 1
    assert "weakcvx._smo.svm_offset_solve" in str(convergence[0].message)
    assert "StandardScaler" in str(convergence[0].message)
    # the unscaled-feature warning is still there, and the model is still a model
    assert any("features look unscaled" in str(w.message) for w in caught)
    assert np.isfinite(clf.objective_)
    assert np.mean(clf.predict(X) == y) > 0.85


def test_capped_fits_are_counted_in_the_result(raw_cancer, smo_work):
    X, y, bags, p = raw_cancer
    with pytest.warns(ConvergenceWarning, match="stopped at its iteration cap"):
        res = alter_proportion_svm(X @ X.T, bags, p, C=1.0, C_p=10.0, n_init=1, random_state=0,
                                   smo_passes=SMO_PASSES)
    assert res["n_smo_iter"] == sum(smo_work["updates"])
    assert res["n_smo_capped"] == smo_work["capped"] > 0
    assert set(res) >= {"converged", "labels", "beta", "intercept", "value"}
    assert "svm" not in res


def test_the_caps_never_bind_on_standardized_features(raw_cancer, smo_work):
    """The same fit with and without the caps: identical (no fit reaches them)."""
    X, y, bags, p = raw_cancer
    Z = StandardScaler().fit_transform(X)
    K = Z @ Z.T
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        capped = alter_proportion_svm(K, bags, p, C=1.0, C_p=10.0, n_init=3, random_state=0,
                                      smo_passes=SMO_PASSES)
    assert smo_work["capped"] == capped["n_smo_capped"] == 0
    plain = alter_proportion_svm(K, bags, p, C=1.0, C_p=10.0, n_init=3, random_state=0)
    np.testing.assert_array_equal(capped["labels"], plain["labels"])
    assert capped["value"] == plain["value"]
    assert capped["n_smo_iter"] == plain["n_smo_iter"]


def test_standardized_estimator_fit_does_not_warn(raw_cancer):
    X, y, bags, p = raw_cancer
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        wc.ProportionSVM(n_init=2, random_state=0).fit(StandardScaler().fit_transform(X), bags,
                                                        p)


@pytest.mark.parametrize("kernel, relaxation", [("linear", "alternating"),
                                                ("rbf", "alternating"),
                                                ("linear", "label_generation")])
def test_default_standardization_is_the_fit_on_standardized_rows(raw_cancer, kernel, relaxation):
    """``standardize=True`` (the default) is the fit on ``StandardScaler`` rows, written back
    to the features as given: the same scores on raw rows as the standardized fit on scaled
    rows, ``coef_`` divided by the scales; on raw breast_cancer no unscaled-feature warning,
    no capped SMO fit, and the accuracy of the standardized fit."""
    X, y, bags, p = raw_cancer
    params = {"kernel": kernel, "relaxation": relaxation, "n_init": 2, "random_state": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        warnings.simplefilter("error", ConvergenceWarning)
        clf = wc.ProportionSVM(**params).fit(X, bags, p)
    scaler = StandardScaler().fit(X)
    ref = wc.ProportionSVM(**params, standardize=False).fit(scaler.transform(X), bags, p)
    np.testing.assert_allclose(clf.decision_function(X[:50]),
                               ref.decision_function(scaler.transform(X[:50])), atol=1e-6)
    if kernel == "linear":
        np.testing.assert_allclose(clf.coef_, ref.coef_ / scaler.scale_, rtol=1e-6,
                                   atol=1e-12)
    np.testing.assert_allclose(clf.mean_, scaler.mean_)
    assert np.mean(clf.predict(X) == y) > 0.9
