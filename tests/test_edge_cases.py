"""Numerical edge cases (issue 10): duplicate points, constant features, extreme C (1e-6, 1e6),
1:100 class imbalance, a precomputed kernel that is only nearly PSD. Each estimator either fits
— and then the fit is checked for a property that can fail — or stops with a clear message.
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

import weakcvx as wc

N = 16
_rng = np.random.default_rng(0)
X = _rng.standard_normal((N, 2)) * 0.5
X[: N // 2, 0] += 3.0                     # two well-separated clusters: class 1 then class 0
Y = np.r_[np.ones(N // 2, int), np.zeros(N // 2, int)]
LABELED = np.r_[0, 1, N // 2, N // 2 + 1]


def _targets(name, y):
    """Fit arguments after X for labels ``y`` (1/0) of the rows of X."""
    n = y.shape[0]
    if name in ("S3VM", "BranchAndBoundS3VM", "BetaSVM"):
        ys = np.full(n, -1)
        first = [np.flatnonzero(y == c)[:2] for c in (1, 0)]
        lab = np.concatenate(first)
        ys[lab] = y[lab]
        return (ys,)
    if name == "MaxMarginClustering":
        return ()
    if name in ("ProportionSVM", "InvCal", "MeanMap"):
        bags = np.arange(n) % 4
        props = np.array([y[bags == k].mean() for k in range(4)])
        order = np.argsort(-y, kind="stable")          # bags of different purity
        bags = np.empty(n, int)
        bags[order] = np.arange(n) * 4 // n
        props = np.array([y[bags == k].mean() for k in range(4)])
        return bags, props
    if name == "PartialLabelSVM":
        C = np.zeros((n, 2), bool)
        C[np.arange(n), y] = True
        C[::3] = True                                  # every third point: both candidates
        return (C,)
    raise KeyError(name)


ESTIMATORS = {
    "S3VM": lambda **p: wc.S3VM(random_state=0, **p),
    "BranchAndBoundS3VM": lambda **p: wc.BranchAndBoundS3VM(max_nodes=300, **p),
    "MaxMarginClustering": lambda **p: wc.MaxMarginClustering(n_init=1, random_state=0, **p),
    "BetaSVM": lambda **p: wc.BetaSVM(max_iter=5, **p),
    "ProportionSVM": lambda **p: wc.ProportionSVM(n_init=2, random_state=0, **p),
    "InvCal": lambda **p: wc.InvCal(**p),
    "MeanMap": lambda **p: wc.MeanMap(**p),
    "PartialLabelSVM": lambda **p: wc.PartialLabelSVM(random_state=0, **p),
}
NAMES = sorted(ESTIMATORS)


def _fit(name, Xf, y, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # limits are tested in test_faults
        return ESTIMATORS[name](**params).fit(Xf, *_targets(name, y))


def _agreement(name, pred, y):
    """Accuracy, up to the swap of the two clusters for clustering."""
    acc = np.mean(pred == y)
    return max(acc, 1 - acc) if name == "MaxMarginClustering" else acc


# --- duplicate points ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_duplicate_points_fit_and_get_one_decision(name):
    """Every point twice (a singular kernel): fits, copies get the same score, and the two
    well-separated clusters are still found."""
    Xd, yd = np.vstack([X, X]), np.r_[Y, Y]
    est = _fit(name, Xd, yd)
    scores = est.decision_function(Xd)
    np.testing.assert_allclose(scores[:N], scores[N:], rtol=1e-10, atol=1e-10)
    assert _agreement(name, est.predict(X), Y) >= 0.9


def test_duplicate_points_multi_instance():
    bags = [X[k:k + 2] for k in range(0, N, 2)]
    y = np.array([1] * 4 + [0] * 4)
    est = wc.MultiInstanceSVM(random_state=0).fit(bags + bags, np.r_[y, y])
    assert np.array_equal(est.predict(bags), y)


# --- constant features ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_a_constant_feature_fits_and_changes_nothing_for_rbf(name):
    Xc = np.hstack([X, np.full((N, 1), 7.0)])
    est = _fit(name, Xc, Y)
    assert _agreement(name, est.predict(Xc), Y) >= 0.9
    if getattr(est, "kernel", None) == "rbf":  # distances, hence the kernel, are unchanged
        ref = _fit(name, X, Y)
        np.testing.assert_allclose(est.decision_function(Xc), ref.decision_function(X),
                                   rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", NAMES)
def test_all_features_constant_fits_a_constant_model_or_says_why(name):
    """Identical points carry no information: a constant prediction (one class for all) or a
    ValueError that names X — never NaN scores."""
    Xc = np.full((N, 2), 3.0)
    try:
        est = _fit(name, Xc, Y)
    except ValueError as exc:
        assert "X" in str(exc)
        return
    scores = est.decision_function(Xc)
    assert np.all(np.isfinite(scores))
    assert np.unique(est.predict(Xc)).size == 1


@pytest.mark.parametrize("name", [n for n in NAMES if n != "MeanMap"])
@pytest.mark.parametrize("sparse", [False, True])
def test_identical_rows_are_named_in_a_warning(name, sparse):
    """Rows that are all the same point: the fit's labels are arbitrary, and a UserWarning
    says so, naming X (MeanMap, a closed form on the bag means, is left out)."""
    import scipy.sparse as sp

    Xc = np.full((N, 2), 3.0)
    Xc = sp.csr_matrix(Xc) if sparse else Xc
    params = {"kernel": "linear"} if sparse else {}
    with pytest.warns(UserWarning, match="rows of `X` are the same point"):
        try:
            _fit(name, Xc, Y, **params)
        except ValueError:
            pass  # test_all_features_constant_fits_a_constant_model_or_says_why


def test_rows_that_differ_in_one_entry_do_not_warn():
    Xc = np.full((N, 2), 3.0)
    Xc[5, 1] = 3.5
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _fit("S3VM", Xc, Y)
    assert not [w for w in caught if "same point" in str(w.message)]


# --- extreme C ---------------------------------------------------------------------------------

C_ESTIMATORS = ["S3VM", "BranchAndBoundS3VM", "MaxMarginClustering", "BetaSVM",
                "ProportionSVM", "InvCal"]


@pytest.mark.parametrize("C", [1e-6, 1e6])
@pytest.mark.parametrize("name", C_ESTIMATORS)
def test_extreme_C_fits_with_finite_scores(name, C):
    # alter-∝SVM weighs the proportion loss by C_p against C (Yu et al. 2013, eq. 4): at
    # C = 1e6 with the default C_p = 10 the proportions no longer count and one class wins
    params = {"C_p": 10 * C} if name == "ProportionSVM" else {}
    est = _fit(name, X, Y, C=C, **params)
    scores = est.decision_function(X)
    assert np.all(np.isfinite(scores))
    assert set(np.unique(est.predict(X))) <= {0, 1}
    if C == 1e6 and name != "InvCal":  # hard margin on separable clusters: no training error
        assert _agreement(name, est.predict(X), Y) == 1.0


@pytest.mark.parametrize("C", [1e-6, 1e6])
def test_s3vm_with_every_point_labeled_matches_svc_at_extreme_C(C):
    """All points labeled: the S3VM is a plain SVM. Without offset (intercept_scaling=0) its
    decision function must match scikit-learn's SVC on the kernel (SVC's free offset ~0 for a
    symmetric problem; compared on the sign and the ranking, SVC being independent)."""
    est = wc.S3VM(kernel="linear", C=C, intercept_scaling=0.0, random_state=0).fit(X - X.mean(0),
                                                                                    Y)
    ref = SVC(kernel="linear", C=C).fit(X - X.mean(0), Y)
    if C == 1e6:
        assert np.array_equal(est.predict(X - X.mean(0)), ref.predict(X - X.mean(0)))
    # the weight direction agrees (cosine) — C=1e-6: both tiny, w ∝ Σ y_i x_i
    w, w_ref = est.coef_, ref.coef_.ravel()
    assert w @ w_ref / (np.linalg.norm(w) * np.linalg.norm(w_ref)) > 0.99


# --- 1:100 imbalance ---------------------------------------------------------------------------

def _imbalanced(n_minor=2, ratio=100, seed=0):
    rng = np.random.default_rng(seed)
    Xi = rng.standard_normal((n_minor * (ratio + 1), 2)) * 0.5
    Xi[:n_minor, 0] += 4.0
    yi = np.r_[np.ones(n_minor, int), np.zeros(n_minor * ratio, int)]
    return Xi, yi


def test_s3vm_imbalance_1_to_100_keeps_the_minority():
    """2 positives among 202 points, one labeled; positive_fraction gives the class prior
    (the labeled ratio cannot: one labeled point per class would say 1:1)."""
    Xi, yi = _imbalanced()
    ys = np.full(yi.size, -1)
    ys[[0, 2, 3]] = yi[[0, 2, 3]]
    est = wc.S3VM(kernel="linear", positive_fraction=1 / 199, random_state=0).fit(Xi, ys)
    assert est.transduction_[1] == 1 and est.transduction_.sum() == 2


@pytest.mark.parametrize("name", ["BetaSVM", "ProportionSVM", "InvCal", "MeanMap",
                                  "PartialLabelSVM"])
def test_imbalance_1_to_100_fits_and_predicts_labels(name):
    Xi, yi = _imbalanced()
    if name == "BetaSVM":
        ys = np.full(yi.size, -1)
        ys[[0, 2, 3, 4]] = yi[[0, 2, 3, 4]]
        est = _fit_args(name, Xi, ys)
    elif name == "PartialLabelSVM":
        C = np.zeros((yi.size, 2), bool)
        C[np.arange(yi.size), yi] = True
        est = _fit_args(name, Xi, C)
    else:  # bag 0 holds the two positives among 20 points; the other bags are negative
        bags = np.minimum(np.arange(yi.size) // 20, 9)
        props = np.array([yi[bags == k].mean() for k in range(10)])
        est = _fit_args(name, Xi, bags, props)
    pred = est.predict(Xi)
    assert set(np.unique(pred)) <= {0, 1}
    assert np.mean(pred == yi) >= 0.95  # the majority baseline is 0.99: no collapse below


def _fit_args(name, Xf, *rest):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return ESTIMATORS[name]().fit(Xf, *rest)


def test_multi_instance_one_positive_bag_among_100():
    rng = np.random.default_rng(1)
    neg = [rng.standard_normal((3, 2)) for _ in range(100)]
    pos = rng.standard_normal((3, 2))
    pos[0] += [6.0, 0.0]
    est = wc.MultiInstanceSVM(random_state=0).fit([pos] + neg, np.r_[1, np.zeros(100, int)])
    assert est.key_instances_[0] == 0
    assert est.predict([pos])[0] == 1


# --- a precomputed kernel that is only nearly PSD ---------------------------------------------

def _perturbed_kernel(relative):
    """The RBF kernel with its smallest eigenvalue moved to ``-relative · λ_max``."""
    K = wc.kernels.rbf(X, gamma=0.5)
    vals, vecs = np.linalg.eigh(K)
    v = vecs[:, 0]
    return K - (vals[0] + relative * vals[-1]) * np.outer(v, v)


PRECOMPUTED = ["S3VM", "BranchAndBoundS3VM", "MaxMarginClustering", "BetaSVM",
               "ProportionSVM", "InvCal"]


@pytest.mark.parametrize("name", PRECOMPUTED)
def test_nearly_psd_precomputed_kernel_fits_like_the_psd_one(name):
    """Rounding-size negative eigenvalue (-1e-10 relative): fits, same predictions as the
    kernel clipped to PSD."""
    K_near, K_psd = _perturbed_kernel(1e-10), _perturbed_kernel(0.0)
    near = _fit(name, K_near, Y, kernel="precomputed")
    psd = _fit(name, K_psd, Y, kernel="precomputed")
    assert np.array_equal(near.predict(K_near), psd.predict(K_psd))


@pytest.mark.parametrize("name", PRECOMPUTED)
def test_indefinite_precomputed_kernel_is_refused(name):
    """Silent failure found: BranchAndBoundS3VM, BetaSVM, ProportionSVM and InvCal fitted an
    indefinite kernel (the dual is then not concave); now all refuse it by name."""
    with pytest.raises(ValueError, match="`X` must be positive semi-definite.*eigenvalue"):
        _fit(name, _perturbed_kernel(1e-3), Y, kernel="precomputed")


def test_features_on_very_different_scales_warn_once_for_the_rbf_kernel():
    """Raw pima (insulin's standard deviation 7-8 times the median feature's): the RBF
    estimators that take the features as given warn once, naming the column; standardized
    features, the linear kernel and the estimators that standardize inside fit do not."""
    import warnings

    from sklearn.preprocessing import StandardScaler

    X, y = wc.datasets.load_uci("pima", standardize=False)
    X, y = X[:150], (y[:150] > 0).astype(int)
    y_semi = np.where(np.arange(150) % 10 == 0, y, -1)

    def messages(fit):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fit()
        return [str(w.message) for w in caught if "widest feature" in str(w.message)]

    std = X.std(axis=0)
    ratio = f"{std.max() / np.median(std[std > 0]):.3g}"  # 7.32 on these 150 rows
    for est in (wc.S3VM(random_state=0), wc.BetaSVM(random_state=0)):
        found = messages(lambda: est.fit(X, y_semi))
        assert len(found) == 1 and "(column 4)" in found[0] and f"{ratio} times" in found[0]
    three = np.where(np.arange(150) % 10 == 0, np.arange(150) % 3, -1)
    assert len(messages(lambda: wc.BetaSVM(random_state=0).fit(X, three))) == 1
    assert messages(lambda: wc.MaxMarginClustering(random_state=0).fit(X))
    Z = StandardScaler().fit_transform(X)
    assert not messages(lambda: wc.S3VM(random_state=0).fit(Z, y_semi))
    assert not messages(lambda: wc.S3VM(kernel="linear", random_state=0).fit(X, y_semi))
    candidates = np.c_[y == 0, y == 1] | (np.arange(150) % 2 == 0)[:, None]
    assert not messages(lambda: wc.PartialLabelSVM(random_state=0).fit(X, candidates))
