"""The bad-input matrix (issue 10, docs/design.rst §5): every public estimator and function, every class
of bad input, gives a ValueError/TypeError that names the argument — never a silent fit, a crash
deep inside a solver, or a wrong answer.

Inputs are tiny (12 points) so that a case which wrongly fits still runs in well under a second.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.utils._param_validation import (Interval, StrOptions, generate_invalid_param_val,
                                             make_constraint)

import weakcvx as wc
from weakcvx.cli import main

N = 12
_rng = np.random.default_rng(0)
X = _rng.standard_normal((N, 2))
X[: N // 2] += 2.0
Y_CLASS = np.r_[np.ones(N // 2, int), np.zeros(N // 2, int)]
Y_SSL = Y_CLASS.copy()
Y_SSL[[1, 2, 3, 4, 7, 8, 9, 10]] = -1          # -1 = unlabeled, two labeled points per class
BAGS = np.repeat(np.arange(4), 3)
PROPS = np.array([1.0, 2 / 3, 1 / 3, 0.0])
CANDIDATES = np.zeros((N, 3), bool)
CANDIDATES[np.arange(N), np.arange(N) // 4] = True
CANDIDATES[::2, 0] = True
MIL_BAGS = [X[3 * k: 3 * k + 3] for k in range(4)]
MIL_Y = np.array([1, 1, 0, 0])


def _make(name, **params):
    """Each estimator with its smallest settings."""
    small = {
        "S3VM": lambda: wc.S3VM(max_iter=3, random_state=0),
        "BranchAndBoundS3VM": lambda: wc.BranchAndBoundS3VM(max_nodes=20),
        "MaxMarginClustering": lambda: wc.MaxMarginClustering(n_init=1, max_iter=3,
                                                              random_state=0),
        "BetaSVM": lambda: wc.BetaSVM(max_iter=2),
        "ProportionSVM": lambda: wc.ProportionSVM(n_init=1, max_iter=3, random_state=0),
        "InvCal": lambda: wc.InvCal(),
        "MeanMap": lambda: wc.MeanMap(),
        "PartialLabelSVM": lambda: wc.PartialLabelSVM(max_iter=5, random_state=0),
        "MultiInstanceSVM": lambda: wc.MultiInstanceSVM(max_iter=3, random_state=0),
    }[name]()
    return small.set_params(**params)


#: the fit arguments after X, per estimator (MultiInstanceSVM takes bags instead of X)
REST = {
    "S3VM": (Y_SSL,),
    "BranchAndBoundS3VM": (Y_SSL,),
    "MaxMarginClustering": (),
    "BetaSVM": (Y_SSL,),
    "ProportionSVM": (BAGS, PROPS),
    "InvCal": (BAGS, PROPS),
    "MeanMap": (BAGS, PROPS),
    "PartialLabelSVM": (CANDIDATES,),
}
X_ESTIMATORS = sorted(REST)
ALL_ESTIMATORS = X_ESTIMATORS + ["MultiInstanceSVM"]
#: estimators that need dense X (the kernel estimators take sparse X: the linear kernel keeps
#: it sparse, the others compute from a dense copy)
def _cut(a, stop):
    return a[:stop] if isinstance(a, np.ndarray) else a


X_CASES = {
    "nan": lambda: X + np.where(np.arange(X.size).reshape(X.shape) == 3, np.nan, 0.0),
    "inf": lambda: X + np.where(np.arange(X.size).reshape(X.shape) == 3, np.inf, 0.0),
    "1-D": lambda: X[:, 0],
    "3-D": lambda: X[:, :, None],
    "strings": lambda: np.full(X.shape, "a"),
    "object strings": lambda: np.array([["1", "x"]] * N, dtype=object),
    "complex": lambda: X + 1j,
    "zero features": lambda: X[:, :0],
}


@pytest.mark.parametrize("case", sorted(X_CASES))
@pytest.mark.parametrize("name", X_ESTIMATORS)
def test_bad_X_is_refused_naming_X(name, case):
    with pytest.raises((ValueError, TypeError), match=r"X|array"):
        _make(name).fit(X_CASES[case](), *REST[name])


@pytest.mark.parametrize("name", X_ESTIMATORS)
@pytest.mark.parametrize("n_rows", [0, 1])
def test_empty_or_single_sample_is_refused(name, n_rows):
    args = tuple(_cut(a, n_rows) for a in REST[name])
    with pytest.raises(ValueError, match=r"`X`.*sample"):
        _make(name).fit(X[:n_rows], *args)


@pytest.mark.parametrize("name", sorted(set(X_ESTIMATORS) - {"MaxMarginClustering"}))
def test_mismatched_lengths_are_refused(name):
    with pytest.raises(ValueError, match=r"`(y|bags|candidates)`.*row"):
        _make(name).fit(X[:-1], *REST[name])


@pytest.mark.parametrize("name", sorted(X_ESTIMATORS))
def test_sparse_accepted_gives_the_dense_answer(name):
    """Not a bad input: the linear kernel keeps sparse X sparse, the other kernels compute from
    a dense copy, with the same model either way (fit and predict on sparse rows)."""
    dense = _make(name).fit(X, *REST[name]).decision_function(X)
    sparse = _make(name).fit(sp.csr_matrix(X), *REST[name]).decision_function(sp.csr_matrix(X))
    # alter-∝SVM's SVMs are libsvm's SMO stopped at a KKT violation of 1e-3 (its eps): dense
    # rows (centred) and sparse rows (scaled only) are two kernels of one problem, whose SMO
    # runs stop at different points within that tolerance (8e-4 apart at its default C)
    tol = 2e-3 if name == "ProportionSVM" else 1e-6
    np.testing.assert_allclose(sparse, dense, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", ["S3VM", "MaxMarginClustering", "BetaSVM"])
def test_sparse_rows_too_wide_for_a_dense_copy_are_refused_by_the_budget(name):
    """The RBF kernel's dense copy of sparse X counts against the memory budget: above it, a
    MemoryBudgetError that names the copy and the linear kernel, not a silent blow-up."""
    wide = sp.random(N, 5000, density=0.01, format="csr", random_state=0) + sp.csr_matrix(
        np.c_[X, np.zeros((N, 4998))])
    wc.set_config(memory_budget=N * 5000 * 8 - 1)
    try:
        with pytest.raises(wc.MemoryBudgetError, match="sparse `X`.*linear kernel"):
            _make(name).fit(wide.tocsr(), *REST[name])
    finally:
        wc.set_config(memory_budget=None)


# --- targets: wrong label values, one class only, infeasible constraints -------------------

_Y_ONE_CLASS = np.where(Y_SSL == 0, -1, Y_SSL)
_NAN = np.full(N, np.nan)
TARGET_CASES = [
    ("S3VM", (_Y_ONE_CLASS,), {}, "`y` must contain at least two classes"),
    ("BranchAndBoundS3VM", (np.where(Y_SSL == 0, 3, Y_SSL) + (np.arange(N) == 2) * 6,), {},
     "`y`.*two"),
    ("S3VM", (_NAN,), {}, "`y` must not contain NaN"),
    ("S3VM", (np.array(["a"] * N),), {}, "`y` must be numeric"),
    ("S3VM", (np.c_[Y_SSL, Y_SSL],), {}, "`y` must be a 1-D"),
    ("S3VM", (None,), {}, "requires y"),
    ("BranchAndBoundS3VM", (_Y_ONE_CLASS,), {}, "`y` must contain exactly two classes"),
    ("BranchAndBoundS3VM", (_NAN,), {}, "`y` must not contain NaN"),
    ("BetaSVM", (_Y_ONE_CLASS,), {}, "`y` must contain at least two classes"),
    ("BetaSVM", (np.ones(N, int),), {"init": "knn"}, "`y` must contain at least two classes"),
    ("BetaSVM", (Y_CLASS,), {"init": "knn", "n_neighbors": 50}, "`n_neighbors`"),
    ("BetaSVM", (None,), {"init": "given"}, "`beta`"),
    ("BetaSVM", (None, np.full((N, 2), 0.7)), {"init": "given"}, "`beta`.*sum to 1"),
    ("BetaSVM", (None, np.full((N, 2), np.nan)), {"init": "given"}, "`beta` must be finite"),
    ("BetaSVM", (None, None, BAGS, 2 * PROPS), {"init": "proportions"}, "`proportions`"),
    ("ProportionSVM", (BAGS, 2 * PROPS), {}, "`proportions` must lie in"),
    ("ProportionSVM", (BAGS, -PROPS), {}, "`proportions` must lie in"),
    ("ProportionSVM", (BAGS, PROPS[:3]), {}, "`proportions` must have one entry per bag"),
    ("ProportionSVM", (BAGS, np.r_[PROPS[:3], np.nan]), {}, "`proportions`.*NaN"),
    ("ProportionSVM", (BAGS, None), {}, "`proportions` is required"),
    ("ProportionSVM", (np.full(N, np.nan), PROPS), {}, "`bags` must not contain NaN"),
    ("ProportionSVM", (BAGS, {0: 1.0, 1: 0.5, 2: 0.2, 7: 0.1}), {}, "`proportions`.*bag id"),
    ("ProportionSVM", (BAGS, np.ones(4)), {}, "`proportions` must allow both classes"),
    ("ProportionSVM", (BAGS, np.zeros(4)), {"relaxation": "label_generation"},
     "`proportions` must allow both classes"),
    ("ProportionSVM", (BAGS, np.full(4, 0.5)), {"relaxation": "label_generation"},
     "admits no labeling.*`eps`"),
    ("InvCal", (BAGS, 2 * PROPS), {}, "`proportions` must lie in"),
    ("InvCal", (BAGS, np.ones(4)), {}, "`proportions` must allow both classes"),
    ("InvCal", (BAGS, np.full(4, 0.5)), {}, "`proportions` must take at least two distinct"),
    ("MeanMap", (BAGS, np.full(4, 0.25)), {}, "`proportions` must take at least two distinct"),
    ("MeanMap", (np.zeros(N, int), np.array([0.5])), {}, "`proportions` must take at least two"),
    ("PartialLabelSVM", (np.zeros((N, 3), bool),), {}, "`candidates` must have at least one True"),
    ("PartialLabelSVM", (CANDIDATES[:, :1],), {}, "`candidates` must have at least two columns"),
    ("PartialLabelSVM", (CANDIDATES * 0.5,), {}, "`candidates` must be boolean-like"),
    ("PartialLabelSVM", (CANDIDATES, ["a", "b"]), {}, "`classes` must hold 3 distinct"),
    ("PartialLabelSVM", (np.full((N, 3), np.nan),), {}, "`candidates`"),
    ("PartialLabelSVM", (CANDIDATES[:, [0, 0]],), {}, "`candidates` must have at least one"),
]


@pytest.mark.parametrize("name, rest, params, match", TARGET_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(TARGET_CASES)])
def test_bad_targets_are_refused(name, rest, params, match):
    with pytest.raises(ValueError, match=match):
        _make(name, **params).fit(X, *rest)


MIL_CASES = [
    (MIL_BAGS, np.ones(4, int), "`y` must contain a positive and a negative bag"),
    (MIL_BAGS[:3] + [X[:0]], MIL_Y, r"`bags\[3\]` is empty"),
    (MIL_BAGS[:3] + [np.full((3, 2), np.nan)], MIL_Y, r"`bags\[3\]` must contain only finite"),
    (MIL_BAGS, MIL_Y[:3], "`y` must be a 1-D array with one entry per bag"),
    ([], [], "`bags` must hold at least one bag"),
    (X, MIL_Y, "`bags` must be a list of 2-D arrays"),
    (MIL_BAGS[:3] + [X[:3, :1]], MIL_Y, "same number of features"),
    (MIL_BAGS, np.array([1, 1, 0, 5]), "`y` must contain exactly two classes"),
    (MIL_BAGS, np.array([np.nan, 1, 0, 0]), "`y` must not contain NaN"),
    ([np.full((3, 2), "a")] * 4, MIL_Y, r"`bags\[0\]` must be a numeric"),
    ([b[:, 0] for b in MIL_BAGS], MIL_Y, r"`bags\[0\]` must be a 2-D array"),
]


@pytest.mark.parametrize("bags, y, match", MIL_CASES, ids=[str(i) for i in range(len(MIL_CASES))])
def test_bad_multi_instance_input_is_refused(bags, y, match):
    with pytest.raises((ValueError, TypeError), match=match):
        _make("MultiInstanceSVM").fit(bags, y)


# --- out-of-range parameters: generated from each estimator's declared constraints ---------

def _invalid_params():
    cases = []
    for name in ALL_ESTIMATORS:
        est = _make(name)
        for param, constraints in type(est)._parameter_constraints.items():
            if param not in est.get_params():  # InvCal fixes intercept_scaling (class attr.)
                continue
            for c in constraints:
                c = make_constraint(c)
                if isinstance(c, (Interval, StrOptions)):
                    try:
                        cases.append((name, param, generate_invalid_param_val(c)))
                    except NotImplementedError:
                        pass
            cases.append((name, param, object()))  # the wrong type altogether
    return cases


INVALID_PARAMS = _invalid_params()


@pytest.mark.parametrize("name, param, value", INVALID_PARAMS,
                         ids=[f"{n}-{p}-{i}" for i, (n, p, _) in enumerate(INVALID_PARAMS)])
def test_out_of_range_parameters_are_refused_naming_the_parameter(name, param, value):
    est = _make(name, **{param: value})
    args = (MIL_BAGS, MIL_Y) if name == "MultiInstanceSVM" else (X, *REST[name])
    with pytest.raises((ValueError, TypeError), match=f"'{param}' parameter"):
        est.fit(*args)


def test_balance_of_one_is_refused_it_admits_the_one_cluster_labeling():
    """Silent failure found: balance=1 let MaxMarginClustering return one cluster."""
    with pytest.raises(ValueError, match="'balance' parameter"):
        _make("MaxMarginClustering", balance=1.0).fit(X)


# --- prediction-time input -------------------------------------------------------------------

@pytest.mark.parametrize("name", X_ESTIMATORS)
def test_predict_refuses_bad_X_and_needs_a_fit(name):
    with pytest.raises(NotFittedError):
        _make(name).predict(X)
    est = _make(name).fit(X, *REST[name])
    with pytest.raises(ValueError, match="X has 3 features"):
        est.predict(np.hstack([X, X[:, :1]]))
    with pytest.raises(ValueError, match="`X`.*NaN"):
        est.predict(np.where(X > 1, np.nan, X))


def test_multi_instance_predict_refuses_bags_of_another_width():
    est = _make("MultiInstanceSVM").fit(MIL_BAGS, MIL_Y)
    with pytest.raises(ValueError, match="`bags` must have 2 features"):
        est.predict([b[:, :1] for b in MIL_BAGS])


# --- the modelling layer: WeakLabelProblem, label sets, solve, compare ---------------------

K = wc.kernels.rbf(X, gamma=1.0)
Y_KNOWN = np.where(Y_SSL == -1, 0.0, np.where(Y_SSL == 1, 1.0, -1.0))
SSL = wc.labelsets.SemiSupervised(Y_KNOWN)

MODEL_CASES = [
    (lambda: wc.WeakLabelProblem(np.where(K > 0.9, np.nan, K), SSL), "`kernel`.*finite"),
    (lambda: wc.WeakLabelProblem(K[:, :5], SSL), "`kernel` must be a square"),
    (lambda: wc.WeakLabelProblem(K + np.triu(K, 1), SSL), "`kernel` must be symmetric"),
    (lambda: wc.WeakLabelProblem(K - 2 * np.eye(N), SSL), "`kernel` must be positive semi"),
    (lambda: wc.WeakLabelProblem(K, None), "`labelset` is required"),
    (lambda: wc.WeakLabelProblem(K, SSL, costs=-1.0), "`costs` must be positive"),
    (lambda: wc.WeakLabelProblem(K, SSL, costs=np.ones(3)), "`costs` must be"),
    (lambda: wc.WeakLabelProblem(K[:6, :6], SSL), "n_samples|points|rows"),
    (lambda: wc.WeakLabelProblem(features=np.where(X > 1, np.inf, X), labelset=SSL),
     "`features` must contain only finite"),
    (lambda: wc.WeakLabelProblem(features=X[:, 0], labelset=SSL), "`features` must be 2-D"),
    (lambda: wc.labelsets.SemiSupervised(np.r_[Y_KNOWN[:-1], 2.0]), "`y_known` must use"),
    (lambda: wc.labelsets.SemiSupervised(np.abs(Y_KNOWN)), "`y_known` must contain labeled"),
    (lambda: wc.labelsets.SemiSupervised([]), "`y_known` must be a non-empty"),
    (lambda: wc.labelsets.SemiSupervised(Y_KNOWN, n_positive=99), "`n_positive`"),
    (lambda: wc.labelsets.Clustering(N, -1.0), "`beta` must be >= 0"),
    (lambda: wc.labelsets.Clustering(N, float("nan")), "`beta` must be a finite"),
    (lambda: wc.labelsets.Clustering(0, 1.0), "`n_samples` must be a positive"),
    (lambda: wc.labelsets.Proportions(BAGS, 1.5 * PROPS), "`proportions` must lie in"),
    (lambda: wc.labelsets.Proportions(BAGS, np.full(4, 0.5)), "admits no labeling"),
    (lambda: wc.labelsets.KeyInstances(BAGS, MIL_Y, n_key=5), "`n_key` must be at most"),
    (lambda: wc.labelsets.InstanceLabels(BAGS, np.ones(4)), "`bag_labels` must contain"),
    (lambda: wc.labelsets.Custom(N, oracle="not callable"), "`oracle` must be callable"),
    (lambda: wc.solve("problem"), "`problem` must be a WeakLabelProblem"),
    (lambda: wc.solve(wc.WeakLabelProblem(K, SSL), method="simplex"), "`method` must be one"),
    (lambda: wc.solve(wc.WeakLabelProblem(K, SSL), n_init=0), "`n_init` must be a positive"),
    (lambda: wc.solve(wc.WeakLabelProblem(K, SSL), n_init=2.5), "`n_init` must be a positive"),
    (lambda: wc.solve(wc.WeakLabelProblem(K, SSL), method="exact", algorithm="dfs"),
     "`algorithm` must be"),
    (lambda: wc.solve(wc.WeakLabelProblem(K, SSL), tolerance=1e-3), "tolerance"),
    (lambda: wc.compare(K), "`problem` must be a WeakLabelProblem"),
    (lambda: wc.compare(wc.WeakLabelProblem(K, SSL), methods=["simplex"]), "`methods` must"),
    (lambda: wc.set_config(memory_budget=-1), "`memory_budget` must be a positive"),
    (lambda: wc.set_config(memory_budget="lots"), "`memory_budget` must be a number"),
    (lambda: wc.kernels.rbf(X, gamma=-1.0), "`gamma` must be a positive"),
    (lambda: wc.kernels.rbf(X, gamma="auto"), "`gamma` must be"),
    (lambda: wc.kernels.factor(K - 2 * np.eye(N)), "`kernel` must be positive semi-definite"),
]


@pytest.mark.parametrize("build, match", MODEL_CASES, ids=[str(i) for i in range(len(MODEL_CASES))])
def test_modelling_layer_refuses_bad_input(build, match):
    with pytest.raises((ValueError, TypeError), match=match):
        build()


# --- the command line --------------------------------------------------------------------------

@pytest.mark.parametrize("argv, message", [
    (["compare", "--n", "2"], "--n must be at least 4"),
    (["compare", "--labeled", "1"], "--labeled must be at least 2"),
    (["compare", "--dataset", "heart", "--n", "100000"], "`--n` must be between"),
    (["bench", "no-such-benchmark"], "unknown benchmark"),
    (["compare", "--dataset", "nope"], "unknown dataset 'nope'"),
])
def test_cli_bad_arguments_exit_2_with_a_message(capsys, argv, message):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["compare", "--n", "many"], ["compare", "--C", "x"],
                                  ["frobnicate"]])
def test_cli_unparseable_arguments_exit_2(capsys, argv):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert "invalid" in capsys.readouterr().err


# --- property-based: random corruption of valid input --------------------------------------

@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(i=st.integers(0, N - 1), j=st.integers(0, 1),
       bad=st.sampled_from([np.nan, np.inf, -np.inf]),
       name=st.sampled_from(["S3VM", "ProportionSVM", "PartialLabelSVM", "MeanMap"]))
def test_any_non_finite_entry_of_X_is_refused(i, j, bad, name):
    Xb = X.copy()
    Xb[i, j] = bad
    with pytest.raises(ValueError, match="`X`.*(NaN|infinity)"):
        _make(name).fit(Xb, *REST[name])


@settings(max_examples=40, deadline=None)
@given(p=hnp.arrays(np.float64, 4, elements=st.one_of(st.floats(-2, 3),
                                                      st.sampled_from([np.nan, 0.0, 1.0]))))
def test_proportions_outside_the_unit_interval_are_refused(p):
    """Any proportion vector: refused naming `proportions` unless valid — never clipped."""
    valid = np.all((p >= 0) & (p <= 1)) and not (np.all(p == p[0]) and p[0] in (0.0, 1.0))
    if valid:
        est = wc.ProportionSVM(n_init=1, max_iter=2, random_state=0).fit(X, BAGS, p)
        assert set(np.unique(est.predict(X))) <= {0, 1}
    else:
        with pytest.raises(ValueError, match="`proportions`"):
            wc.ProportionSVM(n_init=1, max_iter=2).fit(X, BAGS, p)


@settings(max_examples=40, deadline=None)
@given(y=hnp.arrays(np.int64, N, elements=st.integers(-3, 3)))
def test_semi_supervised_targets_fit_or_name_y(y):
    """Any integer target: with two classes or more among the non −1 entries it fits and the
    transduction keeps every given label; otherwise a ValueError names `y`."""
    classes = np.unique(y[y != -1])
    if classes.size >= 2:
        est = wc.S3VM(max_iter=2, random_state=0, kernel="linear").fit(X, y)
        assert np.array_equal(est.transduction_[y != -1], y[y != -1])
        assert set(np.unique(est.predict(X))) <= set(classes)
    else:
        with pytest.raises(ValueError, match="`y`"):
            wc.S3VM(max_iter=2).fit(X, y)


@settings(max_examples=30, deadline=None)
@given(C=hnp.arrays(np.int64, (N, 3), elements=st.integers(0, 2)))
def test_candidate_matrices_fit_or_name_candidates(C):
    # a matrix whose rows are all the same set carries no information (check_informative)
    ok = C.max() <= 1 and np.all(C.sum(axis=1) >= 1) and not np.all(C == C[0])
    if ok:
        est = wc.PartialLabelSVM(max_iter=2, random_state=0).fit(X, C)
        assert set(np.unique(est.predict(X))) <= {0, 1, 2}
    else:
        with pytest.raises(ValueError, match="`candidates`"):
            wc.PartialLabelSVM(max_iter=2).fit(X, C)


# --- memory guard: dense n × n kernels against the budget -------------------------------------

@pytest.fixture
def small_budget():
    wc.set_config(memory_budget="60K")
    yield 60 * 1024
    wc.set_config(memory_budget=None)


def test_dense_kernel_above_the_budget_stops_with_size_and_options(small_budget):
    Xl = np.random.default_rng(0).standard_normal((120, 2))
    with pytest.raises(wc.MemoryBudgetError, match=r"120 × 120 .* 112 KiB, above the memory "
                                                    r"budget of 60 KiB.*nystrom.*set_config"):
        wc.kernels.rbf(Xl)
    with pytest.raises(wc.MemoryBudgetError, match="120 × 120 linear kernel"):
        wc.kernels.linear(Xl)
    with pytest.raises(wc.MemoryBudgetError, match="training kernel of BetaSVM") as info:
        wc.BetaSVM().fit(Xl, np.r_[0, 1, np.full(118, -1)])
    wc.kernels.rbf(Xl[:60])  # 28 KiB: within the budget
    # an estimator's user cannot pass WeakLabelProblem(features=R): the message says what
    # the estimator takes instead
    assert "kernel='linear'" in str(info.value) and "Nystroem" in str(info.value)
    assert "WeakLabelProblem" not in str(info.value)
    with pytest.raises(wc.MemoryBudgetError, match="training kernel of BranchAndBoundS3VM.*"
                                                   "fewer rows") as info:
        wc.BranchAndBoundS3VM().fit(Xl, np.r_[0, 1, np.full(118, -1)])
    assert "WeakLabelProblem" not in str(info.value)


def test_budget_from_the_environment_and_set_config(monkeypatch):
    monkeypatch.setenv("WEAKCVX_MEMORY_BUDGET", "50K")
    assert wc.get_config()["memory_budget"] == 50 * 1024
    wc.set_config(memory_budget=2**20)
    try:
        assert wc.get_config()["memory_budget"] == 2**20  # set_config wins over the variable
    finally:
        wc.set_config(memory_budget=None)
    monkeypatch.setenv("WEAKCVX_MEMORY_BUDGET", "plenty")
    with pytest.raises(ValueError, match="`WEAKCVX_MEMORY_BUDGET` must be a number of bytes"):
        wc.get_config()


def test_estimator_above_the_budget_switches_to_a_low_rank_factor():
    """S3VM on 80 points with a 30 KiB budget (the kernel needs 50 KiB): a pivoted-Cholesky
    factor replaces the kernel (no n × n matrix is built: the budget check would raise), the
    fit agrees with the dense fit on the transduction, and the prediction by blocks of rows
    equals the prediction in one piece."""
    Xm, _, y_known = wc.datasets.make_gap_clusters(80, n_labeled=4, random_state=0)
    y = np.where(y_known > 0, 1, 0)
    y[y_known == 0] = -1
    wc.set_config(memory_budget="30K")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            low = wc.S3VM(max_iter=10, random_state=0).fit(Xm, y)
        scores_blocked = low.decision_function(Xm)
    finally:
        wc.set_config(memory_budget=None)
    np.testing.assert_allclose(low.decision_function(Xm), scores_blocked, rtol=1e-10,
                               atol=1e-10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        dense = wc.S3VM(max_iter=10, random_state=0).fit(Xm, y)
    assert np.mean(low.transduction_ == dense.transduction_) >= 0.9
