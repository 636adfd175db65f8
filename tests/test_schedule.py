"""The estimators' short label-generation schedule and the loose-then-exact alternating fits
(docs/design.rst §3.3): what they change must not cost the guarantees of the engine."""

import numpy as np
import pytest
from threadpoolctl import threadpool_info

import weakcvx as wc
from weakcvx._validation import one_blas_thread
from weakcvx.cutting_plane import RoundPolicy, label_generation
from weakcvx.local import alternating


def _problem(seed, n=60):
    rng = np.random.default_rng(seed)
    X, _, y_known = wc.datasets.make_two_moons(n, n_labeled=2 + seed % 3, random_state=seed)
    costs = (float(rng.choice([1.0, 10.0])), float(rng.choice([0.1, 1.0])))
    K = wc.kernels.rbf(X, gamma=float(rng.uniform(0.5, 4.0))) + 1.0
    return wc.WeakLabelProblem(K, wc.labelsets.SemiSupervised(y_known), costs=costs)


@pytest.mark.parametrize("seed", range(6))
def test_alternating_value_is_the_exact_J_of_its_labels(seed):
    """The loop fits loosely, the labels it ends at get an exact J: the reported value is J of
    the labels to the exact fit's tolerance (an independent cold-started fit agrees)."""
    problem = _problem(seed)
    res = alternating(problem)
    value, _ = problem.J(res.labels, tol=1e-8)
    assert res.value == pytest.approx(value, rel=1e-5)
    assert res.value >= value - 1e-9 * max(1.0, value)  # a primal value: an upper bound


@pytest.mark.parametrize("seed", range(6))
def test_alternating_loose_loop_ends_no_worse_than_exact_fits(seed):
    """Same start, loose loop or every fit exact: the loose loop's labels are a local optimum
    of the same relabeling, so their J is within the loose fits' slack of the exact loop's."""
    problem = _problem(seed)
    loose, exact = alternating(problem), alternating(problem, j_tol=1e-8)
    assert problem.labelset.contains(loose.labels)
    assert loose.value <= exact.value * (1 + 1e-2) + 1e-9


@pytest.mark.parametrize("seed", range(6))
def test_label_patience_stops_on_settled_rounded_labels(seed):
    """With ``label_patience=k`` the loop stops once the rounding of the scores has not
    changed in ``k`` rounds, so it never takes more rounds than without, and when that rule
    stops it, it has seen at least ``k + 1`` rounds."""
    problem = _problem(seed)
    rounded = []

    def record(_):
        rounded.append(None)

    full = label_generation(problem, max_iter=10, random_state=0)
    short = label_generation(problem, max_iter=10, label_patience=2, random_state=0,
                             callback=record)
    assert short.n_iter <= full.n_iter
    assert len(rounded) == short.n_iter
    if "rounded labels" in short.message:
        assert short.n_iter >= 3
    assert problem.labelset.contains(short.labels)


@pytest.mark.parametrize("seed", range(6))
def test_estimator_schedule_is_never_above_the_alternating_heuristic(seed):
    """The short schedule keeps the rounding's guarantee: J(labels) is never above the
    alternating heuristic's from the same first label."""
    problem = _problem(seed)
    short = label_generation(problem, max_iter=10, random_state=0, policy=RoundPolicy.estimator())
    heuristic = alternating(problem)
    assert problem.labelset.contains(short.labels)
    assert short.upper_bound <= heuristic.upper_bound * (1 + 1e-9) + 1e-12


@pytest.mark.parametrize("seed", range(4))
def test_s3vm_default_objective_is_never_above_alternating(seed):
    """The estimator's default fit (the short schedule) against its alternating relaxation on
    the same data: objective_ = J(transduction_) is never higher."""
    X, y_true, y_known = wc.datasets.make_two_moons(80, n_labeled=3, random_state=seed)
    y = np.where(y_known == 0, -1, (y_known > 0).astype(int))
    lg = wc.S3VM(random_state=0).fit(X, y)
    alt = wc.S3VM(relaxation="alternating", random_state=0).fit(X, y)
    assert lg.objective_ <= alt.objective_ * (1 + 1e-6)


@pytest.mark.parametrize("name, value, error", [
    ("label_patience", 0, ValueError), ("label_patience", 1.5, ValueError),
    ("label_patience", True, ValueError)])
def test_schedule_options_are_checked(name, value, error):
    problem = _problem(0, n=20)
    with pytest.raises(error, match=name):
        label_generation(problem, **{name: value})


def test_one_blas_thread_limits_blas_and_restores_it():
    """The cached controller limits every BLAS library to one thread inside the block and
    gives back the previous limits after it."""
    before = {(d["filepath"], d["num_threads"]) for d in threadpool_info()
              if d["user_api"] == "blas"}
    with one_blas_thread():
        inside = [d["num_threads"] for d in threadpool_info() if d["user_api"] == "blas"]
    after = {(d["filepath"], d["num_threads"]) for d in threadpool_info()
             if d["user_api"] == "blas"}
    assert inside and all(n == 1 for n in inside)
    assert after == before


@pytest.mark.parametrize("seed", range(4))
def test_alternating_warm_first_fit_ends_where_the_cold_one_does(seed):
    """``alpha0`` only warm-starts the first fit: from the dual solution of an earlier fit of
    the same start the loop takes the same labels (the fits agree to their tolerance) and J."""
    problem = _problem(seed)
    b0 = problem.labelset.initial(random_state=seed)
    _, alpha0 = problem.J(b0, tol=1e-8)
    cold, warm = alternating(problem, initial=b0), alternating(problem, initial=b0, alpha0=alpha0)
    np.testing.assert_array_equal(cold.labels, warm.labels)
    assert warm.value == pytest.approx(cold.value, rel=1e-5)
