"""Limits, scoring, rounding, logging and input checks of S3VM, BranchAndBoundS3VM,
MaxMarginClustering, WeakLabelProblem and compare (audit of the estimator layer)."""

import logging
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import cross_val_score

import weakcvx as wc
from weakcvx.estimators._base import n_positive_from_fraction, verbose_logging
from weakcvx.estimators.bnb import BranchAndBoundS3VM


def _blobs(n=40, n_labeled=6, seed=1, std=1.0):
    X, y = make_blobs(n, centers=2, random_state=seed, cluster_std=std)
    yy = np.full(n, -1)
    yy[:n_labeled] = y[:n_labeled]
    return X, y, yy


def _hard_problem(n=60):
    """Overlapping blobs, few labels: the branch and bound needs many nodes."""
    X, y, yy = _blobs(n, 4, seed=3, std=4.0)
    y_known = np.where(yy == -1, 0.0, np.where(yy == 1, 1.0, -1.0))
    K = wc.kernels.rbf(X, gamma="mean_distance") + 1.0
    return wc.WeakLabelProblem(K, wc.labelsets.SemiSupervised(y_known), costs=(1.0, 0.1))


# -- 1. limits of relaxation="exact" -------------------------------------------------------

@pytest.mark.parametrize("Estimator", [wc.S3VM, wc.MaxMarginClustering, BranchAndBoundS3VM])
def test_exact_has_a_finite_default_time_limit(Estimator):
    assert Estimator().get_params()["time_limit"] == 60.0


def test_s3vm_exact_node_limit_warns_and_keeps_a_certified_bound():
    X, y, yy = _blobs(40, 4, seed=3, std=4.0)
    with pytest.warns(ConvergenceWarning, match="max_nodes=3"):
        clf = wc.S3VM(relaxation="exact", max_nodes=3, random_state=0).fit(X, yy)
    assert clf.result_.status == "node_limit" and not clf.result_.certified
    assert clf.result_.n_iter == 3
    assert clf.lower_bound_ <= clf.objective_ + 1e-9


def test_s3vm_exact_time_limit_reaches_the_branch_and_bound():
    X, y, yy = _blobs(40, 4, seed=3, std=4.0)
    with pytest.warns(ConvergenceWarning, match="time_limit=1e-06 s"):
        clf = wc.S3VM(relaxation="exact", time_limit=1e-6, random_state=0).fit(X, yy)
    assert clf.result_.status == "time_limit"
    assert np.isin(clf.transduction_, clf.classes_).all()


def test_clustering_exact_time_limit_warns():
    X, _ = make_blobs(30, centers=2, random_state=0, cluster_std=3.0)
    with pytest.warns(ConvergenceWarning, match="time_limit"):
        mmc = wc.MaxMarginClustering(relaxation="exact", time_limit=1e-6, n_init=1,
                                     random_state=0).fit(X)
    assert mmc.result_.status == "time_limit"
    assert set(mmc.labels_.tolist()) <= {0, 1}


@pytest.mark.parametrize("params, match", [({"time_limit": 0}, "time_limit"),
                                           ({"max_nodes": 0}, "max_nodes")])
def test_bad_limits_are_rejected(params, match):
    X, y, yy = _blobs()
    with pytest.raises(ValueError, match=match):
        wc.S3VM(relaxation="exact", **params).fit(X, yy)


def test_compare_limits_the_exact_rung_and_reports_it():
    problem = _hard_problem()
    with pytest.warns(ConvergenceWarning, match="compare, rung 'exact'.*time_limit"):
        table = wc.compare(problem, methods=["alternating", "exact"], time_limit=1e-6)
    rung = table["exact"]
    assert rung.result.status == "time_limit"
    # the value column holds the search's certified bound, and the table says so
    assert rung.kind in ("lower bound", "best found") and rung.kind != "optimum"
    if rung.kind == "lower bound":
        assert table.best_lower_bound >= rung.lower_bound
    assert rung.warnings and "time_limit" in rung.warnings[0]
    text = str(table)
    assert "time_limit" in text and "note [exact]" in text
    # the stopped search's value is still a certified lower bound
    assert rung.result.value <= rung.result.upper_bound + 1e-9


def test_compare_default_exact_rung_gets_the_default_limit(monkeypatch):
    import weakcvx.ladder as ladder

    seen = {}

    def fake_solve(problem, method, **options):
        seen[method] = options
        raise ValueError("not run")

    monkeypatch.setattr(ladder, "solve", fake_solve)
    table = wc.compare(_hard_problem(20), methods=["exact", ("mine", "exact", {"time_limit": 5})])
    assert seen["exact"]["time_limit"] == 5  # the rung's own option wins
    assert all(r.failure for r in table.rungs)
    assert ("exact", "exact", {}) in ladder.default_methods(_hard_problem(20))


def test_compare_rejects_a_bad_time_limit():
    with pytest.raises(ValueError, match="`time_limit` must be None or a positive"):
        wc.compare(_hard_problem(20), methods=["exact"], time_limit=-1)


# -- 3. score ignores unlabeled rows ---------------------------------------------------------

@pytest.mark.parametrize("Estimator", [wc.S3VM, BranchAndBoundS3VM])
def test_score_ignores_unlabeled_rows(Estimator):
    X, y, yy = _blobs(60, 10)
    clf = Estimator().fit(X, yy)
    labeled = yy != -1
    expected = np.mean(clf.predict(X[labeled]) == yy[labeled])
    assert clf.score(X, yy) == pytest.approx(expected)
    assert clf.score(X, y) == pytest.approx(np.mean(clf.predict(X) == y))
    with pytest.raises(ValueError, match="at least one labeled row"):
        clf.score(X, np.full(60, -1))


def test_cross_val_score_measures_the_labeled_accuracy():
    from sklearn.model_selection import StratifiedKFold

    X, y = make_blobs(90, centers=2, random_state=0)
    yy = np.full(90, -1)
    yy[::3] = y[::3]
    cv = StratifiedKFold(3)
    scores = cross_val_score(wc.S3VM(kernel="linear"), X, yy, cv=cv)
    expected = []
    for train, test in cv.split(X, yy):
        clf = wc.S3VM(kernel="linear").fit(X[train], yy[train])
        labeled = test[yy[test] != -1]
        expected.append(np.mean(clf.predict(X[labeled]) == yy[labeled]))
    np.testing.assert_allclose(scores, expected)
    # the old score counted the unlabeled rows as a class never predicted: at most 1/3
    assert scores.mean() >= 0.85


# -- 4. WeakLabelProblem with an array instead of a label set --------------------------------

def test_problem_names_labelset_when_given_an_array():
    K = np.eye(4)
    with pytest.raises(TypeError, match=r"`labelset` must be a weakcvx.labelsets.LabelSet.*"
                                        r"SemiSupervised\(y_known\).*Got ndarray"):
        wc.WeakLabelProblem(K, np.array([1, -1, 0, 0]))


# -- 5. one rounding rule for the positive count ---------------------------------------------

def test_positive_fraction_rounds_half_up_like_the_default():
    assert n_positive_from_fraction(0.5, 5) == 3      # Python's round gives 2
    assert n_positive_from_fraction(0.5, 7) == 4
    assert n_positive_from_fraction(0.29, 50) == 15   # 14.5 exactly, not 14.4999...
    assert n_positive_from_fraction(0.3, 10) == 3
    # the default rule of SemiSupervised: labeled ratio 1/2 on 5 unlabeled points
    assert wc.labelsets.SemiSupervised([1, -1, 0, 0, 0, 0, 0]).n_positive == 3


@pytest.mark.parametrize("Estimator, kw", [(wc.S3VM, {"relaxation": "alternating"}),
                                           (BranchAndBoundS3VM, {})])
def test_estimators_use_the_half_up_rule(Estimator, kw):
    X, y, yy = _blobs(9, 4)   # 5 unlabeled points
    clf = Estimator(positive_fraction=0.5, **kw).fit(X, yy)
    assert np.sum(clf.transduction_[yy == -1] == clf.classes_[1]) == 3


# -- 6. verbose prints ------------------------------------------------------------------------

def test_verbose_logging_attaches_a_handler_only_while_active():
    lib = logging.getLogger("weakcvx")
    before = list(lib.handlers)
    with verbose_logging(0):
        assert lib.handlers == before
    with verbose_logging(1):
        if not logging.getLogger().handlers:
            assert len(lib.handlers) == len(before) + 1
        assert lib.getEffectiveLevel() <= logging.INFO
    assert lib.handlers == before


@pytest.mark.parametrize("make", [
    lambda: wc.S3VM(verbose=1, relaxation="exact"),
    lambda: BranchAndBoundS3VM(verbose=1),
    lambda: wc.MaxMarginClustering(verbose=1, n_init=1, relaxation="exact"),
])
def test_verbose_estimators_log_progress(make, capsys):
    """The "weakcvx" logger is left at its default (WARNING) level: verbose alone shows it."""
    X, y, yy = _blobs(16, 4)
    est = make()
    est.fit(X) if isinstance(est, wc.MaxMarginClustering) else est.fit(X, yy)
    err = capsys.readouterr().err
    assert "optimal" in err and ("branch_and_bound" in err or "bnb_s3vm" in err), err


def test_quiet_estimators_print_nothing(capsys, caplog):
    X, y, yy = _blobs(16, 4)
    with caplog.at_level(logging.INFO, logger="weakcvx"):
        wc.S3VM(relaxation="exact").fit(X, yy)
    assert not [r for r in caplog.records if r.name == "weakcvx"]
    assert capsys.readouterr().err == ""


def test_a_configured_logger_is_left_alone(capsys, caplog):
    """With the user's own INFO handler the records go there, not twice to stderr."""
    X, y, yy = _blobs(16, 4)
    with caplog.at_level(logging.INFO, logger="weakcvx"):
        BranchAndBoundS3VM(verbose=1).fit(X, yy)
    assert any(r.name == "weakcvx" and "optimal" in r.getMessage() for r in caplog.records)
    assert capsys.readouterr().err == ""


# -- 7. messages name what the estimator's user can do ---------------------------------------

@pytest.mark.parametrize("Estimator", [wc.S3VM, wc.MaxMarginClustering])
def test_sdp_size_message_names_the_estimator_options(Estimator):
    X, y, yy = _blobs(250, 6)
    with pytest.raises(ValueError, match=r"relaxation='sdp'\) handles at most 200 points.*"
                                         r"relaxation='label_generation'.*max_n"):
        Estimator(relaxation="sdp").fit(X, yy) if Estimator is wc.S3VM \
            else Estimator(relaxation="sdp").fit(X)


# -- 9. string classes -------------------------------------------------------------------------

def test_object_string_labels_with_integer_minus_one():
    X, y, yy = _blobs(40, 6)
    names = np.array(["cat", "dog"])
    ys = np.array([-1 if v == -1 else names[v] for v in yy], dtype=object)
    clf = wc.S3VM(kernel="linear").fit(X, ys)
    assert clf.classes_.tolist() == ["cat", "dog"]
    ref = wc.S3VM(kernel="linear").fit(X, yy)
    np.testing.assert_array_equal(clf.transduction_, names[ref.transduction_])
    assert clf.score(X, ys) == ref.score(X, yy)


def test_str_dtype_labels_are_refused_with_a_hint():
    X, y, yy = _blobs(20, 6)
    ys = np.where(yy == -1, "-1", np.where(yy == 1, "dog", "cat"))
    with pytest.raises(ValueError, match="dtype object"):
        wc.S3VM().fit(X, ys)


def test_mixed_object_labels_are_refused():
    X, y, yy = _blobs(20, 6)
    yo = np.array([-1 if v == -1 else ("dog" if v == 1 else 2.5) for v in yy], dtype=object)
    with pytest.raises(ValueError, match="one kind"):
        wc.S3VM().fit(X, yo)


# -- the default balance against a supervised SVM ----------------------------------------------

def test_default_balance_warns_when_labeled_points_are_not_stratified():
    """1 positive and 9 negative labeled points on two separable blobs: the labeled ratio (0.1)
    forced on the unlabeled points contradicts the supervised SVM (about half positive)."""
    X, y = make_blobs(200, centers=2, random_state=1)
    idx = np.r_[np.flatnonzero(y == 1)[:1], np.flatnonzero(y == 0)[:9]]
    yy = np.full(200, -1)
    yy[idx] = y[idx]
    with pytest.warns(UserWarning, match="not a random sample.*positive_fraction"):
        wc.S3VM(random_state=0).fit(X, yy)
    # the advice works: with the predicted fraction the blobs are recovered
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        clf = wc.S3VM(positive_fraction=0.5, random_state=0).fit(X, yy)
    assert np.mean(clf.predict(X) == y) > 0.95


def _imbalanced_blobs_fit(n_positive, n_negative):
    """Blobs of 90 (class 0) and 30 (class 1) points, the first labeled points of each class,
    and a default S3VM fitted on them."""
    X, y = make_blobs([90, 30], centers=[[0, 0], [4, 4]], cluster_std=1.0, random_state=0)
    labeled = np.r_[np.flatnonzero(y == 1)[:n_positive], np.flatnonzero(y == 0)[:n_negative]]
    yy = np.full(120, -1)
    yy[labeled] = y[labeled]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        clf = wc.S3VM(random_state=0).fit(X, yy)
    return X, y, yy, labeled, clf


def test_default_balance_with_as_many_labels_per_class_blends_in_the_svm_prediction():
    """Six labeled points of each class on imbalanced blobs (90 / 30): the transduction holds
    exactly the default count, the positive fraction of the labeled rows' SVM (no offset:
    kernel k + 1, C = 2; with 12 labeled points the labeled ratio's weight has fallen to 0), solved here by the CVXPY reference,
    on the unlabeled rows, rounded half up; it recovers the blobs, which the labeled ratio
    alone (a 54 / 54 split of the unlabeled points) cannot."""
    from weakcvx.estimators._base import n_positive_from_fraction
    from weakcvx.estimators.s3vm import default_positive_fraction
    from weakcvx.svm import box_qp_cvxpy

    X, y, yy, labeled, clf = _imbalanced_blobs_fit(n_positive=6, n_negative=6)
    K = wc.kernels.rbf(X, gamma="mean_distance") + 1.0  # intercept_scaling 1: k + 1
    y_known = np.zeros(120)
    y_known[labeled] = np.where(y[labeled] == 1, 1.0, -1.0)
    signs = y_known[labeled]
    Q = signs[:, None] * K[np.ix_(labeled, labeled)] * signs[None, :]
    _, alpha = box_qp_cvxpy(Q, 2.0)
    unlabeled = np.setdiff1d(np.arange(120), labeled)
    scores = K[:, labeled] @ (alpha * signs)
    assert np.min(np.abs(scores[unlabeled])) > 0.05  # no sign decided by solver tolerance
    fraction = default_positive_fraction(y_known, scores)
    predicted = np.mean(scores[unlabeled] > 0)
    assert fraction == pytest.approx(predicted)      # 12 labeled points: w = min(1, 10 / 8)
    assert int(np.sum(clf.transduction_[unlabeled] == 1)) == n_positive_from_fraction(fraction,
                                                                                      108)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        ratio = wc.S3VM(positive_fraction=0.5, random_state=0).fit(X, yy)
    accuracy = np.mean(clf.transduction_[unlabeled] == y[unlabeled])
    assert accuracy > np.mean(ratio.transduction_[unlabeled] == y[unlabeled]) + 0.1


def _reference_cv_accuracy(K, y_known, C, n_folds=5, random_state=0):
    """Cross-validated accuracy of the labeled points' SVM (no offset), each fold's SVM solved
    by the CVXPY reference, on the folds :func:`weakcvx.rounding.labeled_cv_accuracy`
    documents (each class shuffled by ``default_rng(random_state)``, then dealt round)."""
    from weakcvx.svm import box_qp_cvxpy

    positives, negatives = np.flatnonzero(y_known > 0), np.flatnonzero(y_known < 0)
    k = min(n_folds, positives.size, negatives.size)
    rng = np.random.default_rng(random_state)
    fold = np.full(y_known.size, -1)
    for members in (positives, negatives):
        fold[rng.permutation(members)] = np.arange(members.size) % k
    right, margins = 0, []
    for f in range(k):
        train, held = np.flatnonzero((fold >= 0) & (fold != f)), np.flatnonzero(fold == f)
        signs = y_known[train]
        _, alpha = box_qp_cvxpy(signs[:, None] * K[np.ix_(train, train)] * signs[None, :], C)
        scores = K[np.ix_(held, train)] @ (alpha * signs)
        right += int(np.sum(y_known[held] * scores > 0))
        margins.append(np.abs(scores))
    return right / (positives.size + negatives.size), np.min(np.concatenate(margins))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_labeled_cv_accuracy_agrees_with_the_cvxpy_reference(seed):
    """The fast path (the box-QP solver on each fold) against each fold's SVM solved by CVXPY:
    the same predictions, so the same accuracy (held-out scores away from 0 by more than the
    solvers' tolerances can move them)."""
    from weakcvx.rounding import labeled_cv_accuracy

    X, y = make_blobs(80, centers=2, cluster_std=3.0, random_state=seed)
    y_known = np.zeros(80)
    labeled = np.random.default_rng(seed).choice(80, 25, replace=False)
    y_known[labeled] = np.where(y[labeled] == 1, 1.0, -1.0)
    K = wc.kernels.rbf(X, gamma="mean_distance") + 1.0
    problem = wc.WeakLabelProblem(K, wc.labelsets.SemiSupervised(y_known), costs=2.0)
    expected, margin = _reference_cv_accuracy(K, y_known, 2.0, random_state=seed)
    assert margin > 1e-3
    assert labeled_cv_accuracy(problem, random_state=seed) == expected
    assert 0.5 < expected < 1.0  # overlapping blobs: the check compares real mistakes


def test_labeled_cv_accuracy_needs_two_points_of_each_class():
    from weakcvx.rounding import labeled_cv_accuracy

    y_known = np.array([1.0, -1.0, -1.0, -1.0, 0.0, 0.0])
    problem = wc.WeakLabelProblem(np.eye(6) + 1.0, wc.labelsets.SemiSupervised(y_known),
                                  costs=1.0)
    assert labeled_cv_accuracy(problem) is None


def test_default_balance_with_unequal_counts_weighs_the_ratio_by_the_svm_error():
    """5 positive and 10 negative labeled points on imbalanced blobs (90 / 30): the imposed
    count is the blend of the labeled ratio (1/3, against 1/4 in the blobs) and the labeled
    SVM's predicted fraction with ``w = σ_L² / (σ_L² + (1 − â)²)``, computed here from the
    CVXPY reference SVM and its reference cross-validation; the blobs are separated, so the
    count follows the SVM, away from the labeled ratio's 35 of 105."""
    from weakcvx.estimators._base import n_positive_from_fraction
    from weakcvx.svm import box_qp_cvxpy

    X, y, yy, labeled, clf = _imbalanced_blobs_fit(n_positive=5, n_negative=10)
    K = wc.kernels.rbf(X, gamma="mean_distance") + 1.0
    y_known = np.zeros(120)
    y_known[labeled] = np.where(y[labeled] == 1, 1.0, -1.0)
    accuracy, _ = _reference_cv_accuracy(K, y_known, 2.0, random_state=0)
    signs = y_known[labeled]
    _, alpha = box_qp_cvxpy(signs[:, None] * K[np.ix_(labeled, labeled)] * signs[None, :], 2.0)
    unlabeled = np.setdiff1d(np.arange(120), labeled)
    predicted = np.mean(K[np.ix_(unlabeled, labeled)] @ (alpha * signs) > 0)
    variance = (1 / 3) * (2 / 3) / 15
    weight = variance / (variance + (1 - accuracy) ** 2)
    fraction = (1 - weight) * (1 / 3) + weight * predicted
    n_positive = int(np.sum(clf.transduction_[unlabeled] == 1))
    assert n_positive == n_positive_from_fraction(fraction, 105)
    assert abs(n_positive - 35) >= 5


def test_default_balance_keeps_the_labeled_ratio_below_five_labels_of_a_class():
    """4 positive and 8 negative labeled points: too few for five folds, so the labeled ratio
    (1/3 of 108 = 36) is imposed as WellSVM does, whatever the SVM predicts (about 1/4)."""
    _, _, yy, _, clf = _imbalanced_blobs_fit(n_positive=4, n_negative=8)
    assert int(np.sum(clf.transduction_[yy == -1] == 1)) == 36


def test_default_balance_corrects_a_labeled_ratio_off_by_chance():
    """Two separated blobs of 100 points, 20 labeled with 5 positives (the labeled ratio 0.25
    against 0.5, as a random draw can give): the SVM of the labeled points is flawless in
    cross-validation, so the count follows its prediction and the blobs are recovered; the
    labeled ratio alone (the rule before, ``positive_fraction=0.25``) forces a quarter of the
    points positive."""
    X, y = make_blobs([100, 100], centers=[[0, 0], [5, 5]], cluster_std=1.0, random_state=3)
    labeled = np.r_[np.flatnonzero(y == 1)[:5], np.flatnonzero(y == 0)[:15]]
    yy = np.full(200, -1)
    yy[labeled] = y[labeled]
    unlabeled = yy == -1
    default = wc.S3VM(random_state=0).fit(X, yy)
    ratio = wc.S3VM(positive_fraction=0.25, random_state=0).fit(X, yy)
    assert np.mean(default.transduction_[unlabeled] == y[unlabeled]) > 0.95
    assert np.mean(ratio.transduction_[unlabeled] == y[unlabeled]) < 0.8


def test_default_balance_is_silent_on_a_stratified_sample():
    X, y_true, y_known = wc.datasets.make_two_moons(100, n_labeled=2, random_state=0)
    yy = np.where(y_known == 0, -1, (y_known > 0).astype(int))
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        wc.S3VM(random_state=0).fit(X, yy)


def test_default_balance_with_unequal_counts_is_the_label_sets_own_count():
    """1 positive and 5 negative labeled points, 3 unlabeled: the labeled ratio times u is
    exactly 1/2, which the label set rounds up to 1 (exact fractions); going through the float
    ratio 1/6 would give 0.49999... and 0."""
    from weakcvx.labelsets import SemiSupervised

    X = np.random.default_rng(0).normal(size=(9, 2))
    yy = np.array([1, 0, 0, 0, 0, 0, -1, -1, -1])
    y_known = np.array([1, -1, -1, -1, -1, -1, 0, 0, 0], dtype=float)
    assert SemiSupervised(y_known).n_positive == 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        clf = wc.S3VM(random_state=0).fit(X, yy)
    assert int(np.sum(clf.transduction_[6:] == 1)) == 1


def test_with_labelset_shares_the_box_and_refuses_another():
    """Another count of positives on the same labeled points: ``J`` of a labeling equals that
    of a problem built afresh; labeled points that change the costs are refused."""
    from weakcvx.labelsets import SemiSupervised

    X, _, y_known = wc.datasets.make_two_moons(40, n_labeled=4, random_state=0)
    problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0), SemiSupervised(y_known),
                                  costs=(2.0, 0.5))
    other = SemiSupervised(y_known, n_positive=problem.labelset.n_positive + 3)
    shared = problem.with_labelset(other)
    fresh = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0), other, costs=(2.0, 0.5))
    labels = other.initial(random_state=0)
    value, alpha = shared.J(labels)
    fresh_value, fresh_alpha = fresh.J(labels)
    assert value == pytest.approx(fresh_value, rel=1e-6)
    np.testing.assert_allclose(alpha, fresh_alpha, atol=1e-6)
    assert problem.labelset is not other  # the original is untouched
    moved = y_known.copy()
    moved[np.flatnonzero(y_known == 0)[0]] = 1.0  # one more labeled point: another box
    with pytest.raises(ValueError, match="`labelset` must keep"):
        problem.with_labelset(SemiSupervised(moved))
