"""Label sets: exact oracles against enumeration, enumeration against the definition of B."""

import itertools
import math

import numpy as np
import pytest
import weakcvx as wc

from weakcvx.labelsets import (
    ENUMERATION_LIMIT,
    Clustering,
    Custom,
    Enumerated,
    LabelSet,
    Proportions,
    SemiSupervised,
)

ORACLE_TOL = 1e-12
SDP_TOL = 1e-9
N_CASES = 30  # random small label sets per kind


def all_sign_vectors(n):
    return np.array(list(itertools.product([-1.0, 1.0], repeat=n)))


def as_set(rows):
    return {tuple(row) for row in np.asarray(rows, dtype=float)}


# -- random small label sets, each with an independent definition of membership ---------------
def random_semisupervised(rng):
    n = int(rng.integers(2, 11))
    n_labeled = int(rng.integers(2, n + 1))
    labeled = rng.choice(n, size=n_labeled, replace=False)
    y_known = np.zeros(n)
    y_known[labeled] = rng.choice([-1.0, 1.0], size=n_labeled)
    y_known[labeled[:2]] = [1.0, -1.0]  # both classes
    u = n - n_labeled
    n_positive = None if rng.random() < 0.5 else int(rng.integers(0, u + 1))
    B = SemiSupervised(y_known, n_positive=n_positive)
    if n_positive is None:
        ratio = np.mean(y_known[labeled] == 1)
        n_positive = math.floor(u * ratio + 0.5)
    unlabeled = y_known == 0

    def member(y):
        return (np.array_equal(y[~unlabeled], y_known[~unlabeled])
                and np.count_nonzero(y[unlabeled] > 0) == n_positive)

    return B, member


def random_semisupervised_range(rng):
    """SemiSupervised.with_positive_range: between ``low`` and ``high`` positives among the
    unlabeled points (membership counted independently)."""
    B, _ = random_semisupervised(rng)
    low, high = np.sort(rng.integers(0, B.n_unlabeled + 1, size=2))
    unlabeled = B.y_known == 0

    def member(y):
        return (np.array_equal(y[~unlabeled], B.y_known[~unlabeled])
                and low <= np.count_nonzero(y[unlabeled] > 0) <= high)

    return B.with_positive_range(int(low), int(high)), member


def random_clustering(rng):
    n = int(rng.integers(1, 11))
    if rng.random() < 0.5:
        beta = int(rng.integers(n % 2, n + 2))
    else:
        beta = float(rng.uniform(n % 2, n + 1))
    B = Clustering(n, beta)
    return B, lambda y: abs(y.sum()) <= beta + 2e-9


def random_proportions(rng, exact=None):
    n = int(rng.integers(1, 11))
    n_bags = int(rng.integers(1, min(n, 4) + 1))
    raw = rng.integers(0, n_bags, size=n)
    raw[:n_bags] = np.arange(n_bags)
    bag_ids = 5 * rng.permutation(raw) + 2  # ids neither contiguous nor starting at 0
    ids, bag_index, sizes = np.unique(bag_ids, return_inverse=True, return_counts=True)
    exact = rng.random() < 0.5 if exact is None else exact
    while True:
        if exact:
            eps = 0.0
            proportions = rng.integers(0, sizes + 1) / sizes
        else:
            eps = float(rng.uniform(0, 0.4))
            proportions = rng.uniform(0, 1, size=n_bags)
        try:
            B = Proportions(bag_ids, proportions, eps=eps)
            break
        except ValueError:
            assert not exact

    def member(y):
        positives = np.bincount(bag_index, weights=y > 0, minlength=n_bags)
        return bool(np.all((positives >= sizes * (proportions - eps) - 1e-9)
                           & (positives <= sizes * (proportions + eps) + 1e-9)))

    return B, member


def random_vector_list(rng):
    n = int(rng.integers(1, 9))
    rows = rng.choice([-1.0, 1.0], size=(int(rng.integers(1, 12)), n))
    if rng.random() < 0.5:
        rows = np.vstack([rows, rows[:2]])  # repeated rows
    return rows


def random_enumerated(rng):
    rows = random_vector_list(rng)
    listed = as_set(rows)
    return Enumerated(rows), lambda y: tuple(y) in listed


def random_custom(rng):
    rows = np.unique(random_vector_list(rng), axis=0)
    listed = as_set(rows)

    def oracle(r):
        return rows[np.argmax(rows @ r)]

    return Custom(rows.shape[1], oracle, enumerate=lambda: rows), lambda y: tuple(y) in listed


FACTORIES = {
    "semisupervised": random_semisupervised,
    "semisupervised range": random_semisupervised_range,
    "clustering": random_clustering,
    "proportions": random_proportions,
    "enumerated": random_enumerated,
    "custom": random_custom,
}
SDP_FACTORIES = ["semisupervised", "semisupervised range", "clustering", "proportions"]
CASES = [(kind, seed) for kind in FACTORIES for seed in range(N_CASES)]


def random_scores(rng, n):
    """Scores with many ties (a few integers, zeros included) and continuous ones."""
    yield np.zeros(n)
    for _ in range(6):
        yield rng.integers(-2, 3, size=n).astype(float)
    for _ in range(4):
        yield rng.standard_normal(n)
    yield np.abs(rng.standard_normal(n))


def make(kind, seed):
    rng = np.random.default_rng([seed, list(FACTORIES).index(kind)])
    B, member = FACTORIES[kind](rng)
    return B, member, rng


# -- properties on random small sets ----------------------------------------------------------
@pytest.mark.parametrize("kind, seed", CASES)
def test_oracle_matches_enumeration(kind, seed):
    B, member, rng = make(kind, seed)
    elements = B.enumerate()
    for r in random_scores(rng, B.n_samples):
        b = B.argmax(r)
        assert b.dtype == np.float64 and b.shape == (B.n_samples,)
        assert B.contains(b) and member(b)
        assert abs(r @ b - np.max(elements @ r)) <= ORACLE_TOL


@pytest.mark.parametrize("kind, seed", CASES)
def test_enumeration_is_the_set(kind, seed):
    B, member, _ = make(kind, seed)
    elements = B.enumerate()
    assert elements.dtype == np.float64 and elements.shape[1] == B.n_samples
    assert len(elements) == B.cardinality()
    assert isinstance(B.cardinality(), int)
    assert len(as_set(elements)) == len(elements)  # distinct
    everything = all_sign_vectors(B.n_samples)
    by_definition = [y for y in everything if member(y)]
    assert as_set(elements) == as_set(by_definition)
    for y in everything:
        assert B.contains(y) == member(y)


@pytest.mark.parametrize("kind, seed", CASES)
def test_initial_is_feasible_and_seeded(kind, seed):
    B, member, rng = make(kind, seed)
    for state in range(5):
        b = B.initial(random_state=state)
        assert b.dtype == np.float64 and B.contains(b) and member(b)
        np.testing.assert_array_equal(b, B.initial(random_state=state))
    r = rng.standard_normal(B.n_samples)
    np.testing.assert_array_equal(B.initial(scores=r), B.argmax(r))


@pytest.mark.parametrize("kind, seed", [c for c in CASES if c[0] in SDP_FACTORIES])
def test_count_constraints_describe_the_set(kind, seed):
    B, member, _ = make(kind, seed)
    fixed, groups = B.count_constraints()
    assert fixed.shape == (B.n_samples,)
    free = np.concatenate([idx for idx, _, _ in groups])
    np.testing.assert_array_equal(np.sort(free), np.flatnonzero(fixed == 0))  # a partition

    def described(y):
        return (np.all(y[fixed != 0] == fixed[fixed != 0])
                and all(lo <= np.count_nonzero(y[idx] > 0) <= hi for idx, lo, hi in groups))

    for y in all_sign_vectors(B.n_samples):
        assert described(y) == member(y)


@pytest.mark.parametrize("kind", ["enumerated", "custom"])
def test_no_count_constraints(kind):
    B, _, _ = make(kind, 0)
    assert B.count_constraints() is None


def test_count_oracle_on_many_groups_against_sorting_reference():
    # Larger sets than enumeration allows: per group, the best value over every count m
    rng = np.random.default_rng(0)
    bag_ids = rng.integers(0, 40, size=600)
    proportions = rng.uniform(0, 1, size=40)
    for B in [Proportions(bag_ids, proportions, eps=0.1), Clustering(500, beta=30),
              SemiSupervised(np.r_[1, -1, np.zeros(300)], n_positive=120)]:
        fixed, groups = B.count_constraints()
        for _ in range(5):
            r = rng.integers(-3, 4, size=B.n_samples) * rng.random()
            best = r @ fixed
            for idx, lo, hi in groups:
                top = np.sort(r[idx])[::-1]
                sums = np.concatenate([[0.0], np.cumsum(top)])
                best += max(2 * sums[m] - sums[-1] for m in range(lo, hi + 1))
            b = B.argmax(r)
            assert B.contains(b)
            assert r @ b == pytest.approx(best, abs=1e-9)


def test_initial_reaches_every_element():
    B = Clustering(4, beta=0)
    drawn = as_set([B.initial(random_state=s) for s in range(300)])
    assert drawn == as_set(B.enumerate())


# -- SDP constraints --------------------------------------------------------------------------
def sdp_satisfied(constraints, M, y):
    M.value = np.outer(y, y)
    return all(np.max(np.abs(c.violation()), initial=0.0) <= SDP_TOL for c in constraints)


@pytest.mark.parametrize("kind, seed", [c for c in CASES if c[0] in SDP_FACTORIES])
def test_sdp_constraints_hold_for_every_element(kind, seed):
    cp = pytest.importorskip("cvxpy")
    B, _, _ = make(kind, seed)
    M = cp.Variable((B.n_samples, B.n_samples), symmetric=True)
    constraints = B.sdp_constraints(M)
    assert constraints and all(isinstance(c, cp.constraints.constraint.Constraint)
                               for c in constraints)
    for y in B.enumerate():
        assert sdp_satisfied(constraints, M, y)


@pytest.mark.parametrize("kind", ["semisupervised", "clustering", "exact proportions"])
@pytest.mark.parametrize("seed", range(8))
def test_sdp_constraints_are_exact_on_rank_one_matrices(kind, seed):
    # yyᵀ satisfies them exactly when y or -y is in B (the constraints lose only the sign)
    cp = pytest.importorskip("cvxpy")
    rng = np.random.default_rng([seed, 99])
    if kind == "exact proportions":
        B, member = random_proportions(rng, exact=True)
    else:
        B, member = FACTORIES[kind](rng)
    M = cp.Variable((B.n_samples, B.n_samples), symmetric=True)
    constraints = B.sdp_constraints(M)
    for y in all_sign_vectors(B.n_samples):
        assert sdp_satisfied(constraints, M, y) == (member(y) or member(-y))


def test_proportions_sdp_rows_allow_negative_points():
    # a bag of 4 with 3 positives: y_i Σ_j y_j = -2 for its negative point, outside [a, b] = [2, 2]
    cp = pytest.importorskip("cvxpy")
    B = Proportions([0, 0, 0, 0], [0.75])
    M = cp.Variable((4, 4), symmetric=True)
    constraints = B.sdp_constraints(M)
    assert sdp_satisfied(constraints, M, np.array([1.0, 1.0, 1.0, -1.0]))
    assert not sdp_satisfied(constraints, M, np.array([1.0, 1.0, -1.0, -1.0]))


def test_clustering_sdp_uses_the_integral_beta():
    cp = pytest.importorskip("cvxpy")
    B = Clustering(6, beta=3.5)  # |1ᵀy| is even, so the bound is 2
    M = cp.Variable((6, 6), symmetric=True)
    M.value = np.full((6, 6), 0.5) + 0.5 * np.eye(6)  # row sums 3.5
    assert not all(np.max(c.violation()) <= SDP_TOL for c in B.sdp_constraints(M))


@pytest.mark.parametrize("kind", ["enumerated", "custom"])
def test_sdp_constraints_without_a_count_description_leave_the_elliptope(kind):
    cp = pytest.importorskip("cvxpy")
    B, _, _ = make(kind, 0)
    M = cp.Variable((B.n_samples, B.n_samples), symmetric=True)
    assert B.sdp_constraints(M) == []


def test_custom_sdp_hook_is_used_and_checked():
    cp = pytest.importorskip("cvxpy")
    B = Custom(3, lambda r: np.where(r >= 0, 1.0, -1.0),
               sdp_constraints=lambda M: [M[0, 1] == 1])
    M = cp.Variable((3, 3), symmetric=True)
    (con,) = B.sdp_constraints(M)
    M.value = np.ones((3, 3))
    assert np.max(con.violation()) <= SDP_TOL
    M.value = np.eye(3)
    assert np.max(con.violation()) > 0.5
    bad = Custom(3, lambda r: np.where(r >= 0, 1.0, -1.0), sdp_constraints=lambda M: M[0, 1] == 1)
    with pytest.raises(TypeError, match="must return a list"):
        bad.sdp_constraints(M)


def test_custom_sdp_hook_errors_name_the_hook():
    cp = pytest.importorskip("cvxpy")
    oracle = lambda r: np.where(r >= 0, 1.0, -1.0)  # noqa: E731
    M = cp.Variable((3, 3), symmetric=True)
    not_constraints = Custom(3, oracle, sdp_constraints=lambda M: [M[0, 1] == 1, True])
    with pytest.raises(TypeError, match=r"`sdp_constraints` of Custom.*1 other item\(s\): bool"):
        not_constraints.sdp_constraints(M)
    wrong_shape = Custom(3, oracle, sdp_constraints=lambda M: [M[0] @ np.ones(2) == 0])
    with pytest.raises(ValueError, match=r"`sdp_constraints` of Custom.*raised ValueError on M "
                                         r"\(a cvxpy expression of shape \(3, 3\)\)"):
        wrong_shape.sdp_constraints(M)


def test_contradictory_sdp_hook_is_named_when_the_sdp_is_infeasible():
    cp = pytest.importorskip("cvxpy")
    import weakcvx as wc

    # Σ M ≤ n² for unit-diagonal PSD M: Σ M ≥ 100 at n = 8 admits no M
    B = Custom(8, lambda r: np.where(r >= 0, 1.0, -1.0),
               sdp_constraints=lambda M: [cp.sum(M) >= 100])
    X = np.random.default_rng(0).normal(size=(8, 2))
    with pytest.raises(wc.SolverError, match=r"infeasible.*Custom\.sdp_constraints, 1 of them"):
        wc.solve(wc.WeakLabelProblem(features=X, labelset=B), method="sdp")


def test_sdp_constraints_check_the_shape_of_M():
    cp = pytest.importorskip("cvxpy")
    with pytest.raises(ValueError, match=r"`M` must have shape \(4, 4\)"):
        Clustering(4, 0).sdp_constraints(cp.Variable((3, 3), symmetric=True))


# -- the shared protocol ----------------------------------------------------------------------
def test_support_and_costs_defaults():
    B = Clustering(3, beta=1)
    rows, signs = B.support(np.array([1, -1, 1]))
    np.testing.assert_array_equal(rows, [0, 1, 2])
    assert signs.dtype == np.float64
    np.testing.assert_array_equal(signs, [1.0, -1.0, 1.0])
    np.testing.assert_array_equal(B.per_point_costs(2.0), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(B.per_point_costs([1, 2, 3]), [1.0, 2.0, 3.0])
    assert B.symmetric and not SemiSupervised([1, -1, 0]).symmetric
    assert not LabelSet(3).symmetric


@pytest.mark.parametrize("costs, match", [
    (0.0, "positive and finite"),
    (-1.0, "positive and finite"),
    (np.nan, "positive and finite"),
    ([1.0, np.inf, 1.0], "positive and finite"),
    ([1.0, 2.0], r"shape \(3,\)"),
    ("abc", "`costs` must be numeric"),
])
def test_costs_errors(costs, match):
    with pytest.raises(ValueError, match=match):
        Clustering(3, beta=1).per_point_costs(costs)


def test_semisupervised_cost_pair():
    B = SemiSupervised([1, 0, -1, 0, 0])
    np.testing.assert_array_equal(B.per_point_costs((1.0, 0.1)), [1.0, 0.1, 1.0, 0.1, 0.1])
    np.testing.assert_array_equal(B.per_point_costs(0.5), np.full(5, 0.5))
    np.testing.assert_array_equal(B.per_point_costs(np.arange(1.0, 6.0)), np.arange(1.0, 6.0))
    for bad in [(1.0, 0.0), (1.0, np.nan), (-1.0, 1.0)]:
        with pytest.raises(ValueError, match=r"`costs` as a pair \(c_labeled, c_unlabeled\)"):
            B.per_point_costs(bad)
    with pytest.raises(ValueError, match=r"`costs` must be a positive scalar or an array of "
                                         r"shape \(5,\)"):
        B.per_point_costs([1.0, 0.1])  # a list is never a pair


def test_enumerate_refuses_large_sets():
    B = Clustering(30, beta=2)
    count = math.comb(30, 14) + math.comb(30, 15) + math.comb(30, 16)
    assert B.cardinality() == count > ENUMERATION_LIMIT
    with pytest.raises(ValueError,
                       match=f"{count} elements, more than `limit`={ENUMERATION_LIMIT}"):
        B.enumerate()
    with pytest.raises(ValueError, match=r"has over 10\^301 elements"):  # 2^1000 ≈ 1.07e301
        Clustering(1000, beta=1000).enumerate()
    with pytest.raises(ValueError, match="3 elements, more than `limit`=2"):
        Enumerated([[1, 1], [1, -1], [-1, 1]]).enumerate(limit=2)
    with pytest.raises(ValueError, match="2 elements, more than `limit`=1"):
        Custom(1, np.sign, enumerate=lambda: [[1], [-1]]).enumerate(limit=1)


def test_cardinality_is_exact_for_large_sets():
    n = 300
    assert Clustering(n, beta=10).cardinality() == sum(math.comb(n, m) for m in range(145, 156))
    B = SemiSupervised(np.r_[1, -1, np.zeros(n)], n_positive=97)
    assert B.cardinality() == math.comb(n, 97)
    bag_ids = np.repeat([0, 1], [100, 200])
    assert Proportions(bag_ids, [0.3, 0.5], eps=0.01).cardinality() == (
        sum(math.comb(100, m) for m in range(29, 32))
        * sum(math.comb(200, m) for m in range(98, 103)))


@pytest.mark.parametrize("r, match", [
    (np.zeros(3), r"`r` must have shape \(4,\)"),
    (np.zeros((4, 1)), r"`r` must have shape \(4,\)"),
    (np.array([0.0, np.nan, 1.0, 2.0]), "`r` must contain only finite values"),
    (np.array([0.0, np.inf, 1.0, 2.0]), "`r` must contain only finite values"),
])
def test_argmax_checks_scores(r, match):
    for B in [Clustering(4, 0), SemiSupervised([1, -1, 0, 0]), Proportions([0, 0, 1, 1], [0.5, 1]),
              Enumerated([[1, 1, 1, 1]]), Custom(4, np.sign)]:
        with pytest.raises(ValueError, match=match):
            B.argmax(r)
    with pytest.raises(ValueError, match="`scores` must contain only finite values"):
        Clustering(4, 0).initial(scores=[0.0, np.nan, 1.0, 2.0])


def test_contains_rejects_malformed_vectors():
    B = Clustering(3, beta=3)
    assert B.contains([1, -1, 1])
    for b in [[1, -1], [1, 0, 1], [1, -1, np.nan], [[1, -1, 1]], ["a", "b", "c"], [2, -1, 1]]:
        assert not B.contains(b)


# -- SemiSupervised ---------------------------------------------------------------------------
def test_semisupervised_default_positive_count_rounds_half_up():
    assert SemiSupervised([1, -1, 0, 0, 0, 0, 0]).n_positive == 3  # 5 · ½ = 2.5
    assert SemiSupervised([1, 1, -1, 0, 0, 0]).n_positive == 2  # 3 · ⅔
    assert SemiSupervised([1, -1, -1, 0, 0, 0, 0, 0]).n_positive == 2  # 5 · ⅓ = 1.67


def test_semisupervised_oracle_follows_eq_17():
    B = SemiSupervised([1, 0, -1, 0, 0, 0], n_positive=2)
    b = B.argmax(np.array([-5.0, -1.0, 5.0, -3.0, -2.0, -4.0]))  # all unlabeled scores negative
    np.testing.assert_array_equal(b, [1, 1, -1, -1, 1, -1])


def test_semisupervised_without_unlabeled_points():
    B = SemiSupervised([1, -1, 1])
    assert B.n_unlabeled == 0 and B.n_positive == 0 and B.cardinality() == 1
    np.testing.assert_array_equal(B.enumerate(), [[1.0, -1.0, 1.0]])
    np.testing.assert_array_equal(B.argmax(np.array([-1.0, 1.0, -1.0])), [1, -1, 1])
    fixed, groups = B.count_constraints()
    assert len(groups) == 1 and len(groups[0][0]) == 0


@pytest.mark.parametrize("y_known, n_positive, match", [
    ([1, -1, np.nan, 0], None, "`y_known` must use .* Got NaN"),
    ([1, -1, 2, 0], None, r"`y_known` must use \+1/-1 .* Got values \[2.\]"),
    ([1, -1, 0.5, 0], None, r"`y_known` must use \+1/-1"),
    ([1, 1, 0, 0], None, r"both classes .* Got labeled classes \[1\]"),
    ([0, 0, 0], None, r"both classes .* Got labeled classes \[\]"),
    ([[1, -1, 0]], None, "`y_known` must be a non-empty 1-D array"),
    ([], None, "`y_known` must be a non-empty 1-D array"),
    ([1, -1, 0, 0], 3, r"`n_positive` must be an integer in \[0, 2\].* Got 3"),
    ([1, -1, 0, 0], -1, r"`n_positive` must be an integer in \[0, 2\]"),
    ([1, -1, 0, 0], 1.5, r"`n_positive` must be an integer in \[0, 2\]"),
    ([1, -1, 0, 0], "1", r"`n_positive` must be an integer in \[0, 2\]"),
    ([1, -1], 1, r"`n_positive` must be an integer in \[0, 0\]"),
])
def test_semisupervised_errors(y_known, n_positive, match):
    with pytest.raises(ValueError, match=match):
        SemiSupervised(y_known, n_positive=n_positive)


def test_positive_range_keeps_the_points_and_refuses_bad_bounds():
    B = SemiSupervised([1, -1, 0, 0, 0, 0], n_positive=2)
    wide = B.with_positive_range(1, 3)
    assert wide.n_positive == 2 and B.cardinality() == 6 and wide.cardinality() == 14
    np.testing.assert_array_equal(wide.per_point_costs((2.0, 1.0)), B.per_point_costs((2.0, 1.0)))
    assert "positives in [1, 3]" in repr(wide) and "n_positive=2" in repr(B)
    for low, high in [(2, 1), (-1, 2), (0, 5)]:
        with pytest.raises(ValueError, match=r"0 <= low <= high <= 4 .* Got low="):
            B.with_positive_range(low, high)
    with pytest.raises(ValueError, match="`low` must be an integer. Got 1.5"):
        B.with_positive_range(1.5, 3)


def test_semisupervised_accepts_integral_floats():
    assert SemiSupervised([1.0, -1.0, 0.0, 0.0], n_positive=np.float64(1.0)).n_positive == 1
    assert SemiSupervised([1, -1, 0, 0], n_positive=np.int64(2)).n_positive == 2


# -- Clustering -------------------------------------------------------------------------------
def test_clustering_oracle_adds_only_positive_scores():
    B = Clustering(6, beta=4)  # between 1 and 5 positives
    np.testing.assert_array_equal(B.argmax(np.array([-1.0, -2.0, -3.0, -4.0, -5.0, -6.0])),
                                  [1, -1, -1, -1, -1, -1])
    np.testing.assert_array_equal(B.argmax(np.array([0.0, 2.0, 0.0, 3.0, -1.0, 0.0])),
                                  [-1, 1, -1, 1, -1, -1])
    np.testing.assert_array_equal(B.argmax(np.ones(6)), [1, 1, 1, 1, 1, -1])


def test_clustering_counts_and_tolerance():
    B = Clustering(7, beta=2.9)
    assert (B.min_positive, B.max_positive) == (3, 4)
    B = Clustering(10, beta=2 - 2e-16)  # 2 up to floating-point error
    assert (B.min_positive, B.max_positive) == (4, 6)
    B = Clustering(4, beta=100)
    assert (B.min_positive, B.max_positive) == (0, 4) and B.cardinality() == 16


@pytest.mark.parametrize("n_samples, beta, match", [
    (4, -1, "`beta` must be >= 0. Got -1"),
    (4, np.nan, "`beta` must be a finite real number"),
    (4, np.inf, "`beta` must be a finite real number"),
    (4, "1", "`beta` must be a finite real number"),
    (5, 0, r"admits no labeling of n_samples=5 .* \[3, 2\]. Use beta >= 1"),
    (3, 0.5, "admits no labeling of n_samples=3"),
    (0, 1, "`n_samples` must be a positive integer. Got 0"),
    (2.0, 1, "`n_samples` must be a positive integer"),
])
def test_clustering_errors(n_samples, beta, match):
    with pytest.raises(ValueError, match=match):
        Clustering(n_samples, beta)


# -- Proportions ------------------------------------------------------------------------------
def test_proportions_bag_order_and_attributes():
    B = Proportions(["b", "a", "b", "b"], proportions=[1.0, 2 / 3])  # a: 1 point, b: 3 points
    np.testing.assert_array_equal(B.bags, ["a", "b"])
    np.testing.assert_array_equal(B.bag_sizes, [1, 3])
    np.testing.assert_array_equal(B.min_positive, [1, 2])
    assert B.n_bags == 2 and B.cardinality() == 3 and not B.symmetric
    np.testing.assert_array_equal(B.argmax(np.array([5.0, -9.0, -1.0, 2.0])), [1, 1, -1, 1])
    assert Proportions([0, 0, 1, 1], [0.5, 0.5]).symmetric


@pytest.mark.parametrize("n_k, p", [(10, 0.7), (10, 0.1 * 3), (100, 0.29), (3, 1 / 3), (7, 3 / 7),
                                    (49, 1 - 48 / 49)])
def test_proportions_integer_targets_survive_rounding(n_k, p):
    B = Proportions(np.zeros(n_k), [p])
    assert B.min_positive[0] == B.max_positive[0] == round(n_k * p)


def test_proportions_eps_and_clipping():
    B = Proportions(np.zeros(10), [0.95], eps=0.1)  # [8.5, 10.5] → [9, 10]
    assert (B.min_positive[0], B.max_positive[0]) == (9, 10)
    B = Proportions(np.zeros(4), [0.0], eps=0.3)  # [-1.2, 1.2] → [0, 1]
    assert (B.min_positive[0], B.max_positive[0]) == (0, 1)


@pytest.mark.parametrize("bag_ids, proportions, eps, match", [
    ([0, 0, 1], [0.5, np.nan], 0.0, r"`proportions` must lie in \[0, 1\]"),
    ([0, 0, 1], [0.5, 1.5], 0.0, r"`proportions` must lie in \[0, 1\]"),
    ([0, 0, 1], [-0.1, 1.0], 0.0, r"`proportions` must lie in \[0, 1\]"),
    ([0, 0, 1], [0.5], 0.0, r"one entry per bag \(2 bags.* Got shape \(1,\)"),
    ([0, 0, 1], [0.5, 0.5, 0.5], 0.0, r"one entry per bag \(2 bags"),
    ([0, 0, 1], [0.5, 1.0], -0.1, "`eps` must be >= 0"),
    ([0, 0, 1], [0.5, 1.0], np.nan, "`eps` must be a finite real number"),
    ([0, 0, 0, 1], [0.5, 1.0], 0.0, r"Bag 0 \(3 points\) admits no labeling.*`eps` >= 0.167"),
    (["x", "y", "y"], [1.0, 0.5 + 0.1], 0.05, r"Bag 'y' \(2 points\) admits no labeling"),
    ([], [], 0.0, "`bag_ids` must be a non-empty 1-D array"),
    ([0.0, np.nan], [0.5, 0.5], 0.0, "`bag_ids` must not contain NaN"),
])
def test_proportions_errors(bag_ids, proportions, eps, match):
    with pytest.raises(ValueError, match=match):
        Proportions(bag_ids, proportions, eps=eps)


# -- Enumerated and Custom --------------------------------------------------------------------
def test_enumerated_attributes():
    B = Enumerated([[1, -1], [-1, 1], [1, -1]])
    assert B.cardinality() == 2 and B.symmetric and B.n_samples == 2
    assert not Enumerated([[1, -1], [1, 1]]).symmetric
    np.testing.assert_array_equal(B.argmax(np.array([1.0, 1.0])), [1, -1])  # first maximiser


@pytest.mark.parametrize("vectors, match", [
    ([], r"`vectors` must be a non-empty array of shape \(N, n_samples\)"),
    ([1, -1, 1], r"`vectors` must be a non-empty array of shape \(N, n_samples\)"),
    ([[1, 0], [1, 1]], "`vectors` must contain only -1 and \\+1. Got \\[0.\\]"),
    ([[1, np.nan]], "`vectors` must contain only -1 and \\+1"),
    ([[1, -1], [1]], "`vectors` must be numeric"),
])
def test_enumerated_errors(vectors, match):
    with pytest.raises(ValueError, match=match):
        Enumerated(vectors)


def test_custom_checks_what_the_user_returns():
    with pytest.raises(ValueError, match=r"`oracle` must return a ±1 vector of shape \(3,\)"):
        Custom(3, lambda r: np.zeros(3)).argmax(np.ones(3))
    with pytest.raises(ValueError, match=r"`oracle` must return a ±1 vector of shape \(3,\)"):
        Custom(3, lambda r: np.ones(2)).argmax(np.ones(3))
    with pytest.raises(ValueError, match=r"`initial` must return a ±1 vector"):
        Custom(2, np.sign, initial=lambda rng: [1, 3]).initial(random_state=0)
    # the message shows what the user returned, not its conversion to float
    with pytest.raises(ValueError, match=r"Got None instead"):
        Custom(3, lambda r: None).argmax(np.ones(3))
    with pytest.raises(ValueError, match=r"Got a bool array of shape \(3,\)"):
        Custom(3, lambda r: r >= 0).argmax(np.array([1.0, -1.0, 1.0]))
    with pytest.raises(ValueError,
                       match=r"`enumerate` must be a non-empty array of shape \(N, 2\)"):
        Custom(2, np.sign, enumerate=lambda: [[1, 1, 1]]).enumerate()
    with pytest.raises(TypeError, match="`oracle` must be callable"):
        Custom(2, None)
    with pytest.raises(TypeError, match="`contains` must be callable"):
        Custom(2, np.sign, contains=[1, 1])


def test_custom_optional_parts():
    B = Custom(2, lambda r: np.where(r >= 0, 1.0, -1.0),
               contains=lambda b: True, initial=lambda rng: np.array([1.0, -1.0]), symmetric=True)
    assert B.symmetric and B.contains([1, 1]) and not B.contains([1, 0])
    np.testing.assert_array_equal(B.initial(random_state=0), [1, -1])
    with pytest.raises(NotImplementedError, match="need `enumerate`"):
        B.cardinality()
    # without `contains` or `enumerate`, membership by the oracle: b ∈ B iff oracle(b) = b
    def at_most_one_positive(r):
        b = -np.ones(len(r))
        if r.max() > 0:
            b[np.argmax(r)] = 1.0
        return b

    B = Custom(3, at_most_one_positive)
    members = [b for b in itertools.product([-1.0, 1.0], repeat=3) if sum(np.array(b) > 0) <= 1]
    for b in itertools.product([-1.0, 1.0], repeat=3):
        assert B.contains(list(b)) == (b in members)
    b = Custom(3, lambda r: np.where(r >= 0, 1.0, -1.0)).initial(random_state=1)
    assert set(b) <= {-1.0, 1.0}  # rounds random scores with the oracle


def test_wide_gamma_is_a_quarter_of_mean_distance():
    """``gamma="wide"`` is 1 / (4 · mean squared distance over pairs i ≠ j), computed here by
    hand."""
    X = np.random.default_rng(0).normal(size=(30, 3))
    D = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    mean = D.sum() / (30 * 29)
    assert wc.kernels.resolve_gamma(X, "wide") == pytest.approx(1.0 / (4.0 * mean), rel=1e-12)
    assert wc.kernels.resolve_gamma(X, "wide") == pytest.approx(
        wc.kernels.resolve_gamma(X, "mean_distance") / 4.0, rel=1e-12)


def test_count_constraints_that_leave_the_set_empty_are_refused():
    """lo > hi, or more positives than a group has points: B would be empty, and every solver
    would fail on it (a reduction over no labeling) or the SDP return a bound of nothing."""
    from weakcvx.labelsets import LabelSet

    class Between(LabelSet):
        def __init__(self, lo, hi):
            super().__init__(8)
            self._set_count_constraints(np.zeros(8), [(np.arange(4), 0, 4),
                                                      (np.arange(4, 8), lo, hi)])

    assert Between(1, 3).cardinality() == 16 * (4 + 6 + 4)
    # bounds beyond the group bind nothing: the same set as the bounds clipped to it
    wide, clipped = Between(-1, 9), Between(0, 4)
    assert wide.cardinality() == 16 * 16 and wide.count_constraints()[1][1][1:] == (0, 4)
    r = np.random.default_rng(0).standard_normal(8)
    np.testing.assert_array_equal(wide.argmax(r), clipped.argmax(r))
    for lo, hi in [(3, 1), (5, 9), (-2, -1)]:
        with pytest.raises(ValueError, match=rf"leave Between empty: group 1 \(4 points\) must "
                                             rf"hold between {lo} and {hi} positives"):
            Between(lo, hi)


def test_a_subclass_missing_a_hook_is_told_which_hook_to_write():
    """The public methods check their inputs and call the private hooks: the message names the
    hook (_random_element, _argmax, ...) and the count description, not only initial()."""
    from weakcvx.labelsets import LabelSet

    class OnlyArgmax(LabelSet):
        def _argmax(self, r):
            return np.where(r >= 0, 1.0, -1.0)

    with pytest.raises(NotImplementedError, match=r"initial\(\) \(_random_element\): define "
                                                  r"its hooks.*_set_count_constraints"):
        OnlyArgmax(4).initial(random_state=0)
    with pytest.raises(NotImplementedError, match=r"cardinality\(\).*_enumerate\(\)"):
        OnlyArgmax(4).cardinality()


def test_a_malformed_count_description_is_refused_naming_what_breaks_it():
    """The protocol of count_constraints: fixed in {-1, 0, +1} per point, groups of integer
    indices, disjoint, covering exactly the free points; fractional bounds round inwards."""
    from weakcvx.labelsets import LabelSet

    class Counts(LabelSet):
        def __init__(self, fixed, groups):
            super().__init__(8)
            self._set_count_constraints(fixed, groups)

    free = np.zeros(8)
    for fixed, groups, match in [
            (free, [(np.arange(4), 1, 2)], r"cover exactly the free points.*point 4: free and "
                                           r"in no group"),
            (free, [(np.arange(5), 1, 2), (np.arange(4, 8), 0, 4)], r"disjoint.*\[4\]"),
            (free, [(np.arange(8) < 4, 1, 2), (np.arange(4, 8), 0, 4)], r"np.flatnonzero"),
            (np.full(8, 2), [(np.arange(8), 1, 2)], r"`fixed`.*Got values \[2\]"),
            (np.zeros(7), [(np.arange(8), 1, 2)], r"`fixed`.*Got shape \(7,\)"),
            (free, [(np.arange(9), 1, 2)], r"indices in \[0, 8\)"),
            (np.r_[1, 1, np.zeros(6)], [(np.arange(8), 1, 2)], r"point 0: fixed and in a group"),
            (free, [(np.arange(8), np.nan, 2)], r"`lo`.*finite number")]:
        with pytest.raises(ValueError, match=match):
            Counts(fixed, groups)
    between = Counts(free, [(np.arange(8), 2.7, 5.2)])  # 3 to 5 positives of 8
    assert between.count_constraints()[1][0][1:] == (3, 5)
    assert between.cardinality() == 56 + 70 + 56
    for b in between.enumerate():
        assert 3 <= np.sum(b > 0) <= 5


def test_a_start_the_user_never_passed_is_not_blamed_on_initial():
    """A Custom oracle that returns labelings its own contains() rejects: the multi-start's
    error names the label set's initial() and contains(), not an `initial` the user never
    passed; a user's wrong `initial` is told its shape, its values or the constraints."""
    X, _, _ = wc.datasets.make_two_moons(12, random_state=0)
    K = wc.kernels.rbf(X, gamma=2.0)
    mismatched = wc.labelsets.Custom(12, oracle=lambda r: np.where(r >= 0, 1.0, -1.0),
                                     contains=lambda b: np.sum(b > 0) <= 3)
    for method, options in [("label_generation", {}), ("alternating", {}),
                            ("label_generation", {"n_init": 1}),
                            ("alternating", {"n_init": 1})]:
        # one start or many: the first label comes from the set's own oracle too
        with pytest.raises(ValueError, match=r"Custom.initial\(\) returned a labeling that its "
                                             r"own contains\(\) rejects"):
            wc.solve(wc.WeakLabelProblem(K, mismatched, costs=1.0), method=method, **options)
    problem = wc.WeakLabelProblem(K, wc.labelsets.SemiSupervised(np.r_[1.0, -1.0, np.zeros(10)]),
                                  costs=1.0)
    for initial, match in [(np.ones(11), r"`initial` must be a labeling of the 12 points.*"
                                         r"Got shape \(11,\)"),
                           (np.r_[1, 0, np.ones(10)], r"labels in \{-1, \+1\}.*2 \* y - 1"),
                           (-np.ones(12), r"breaks the constraints of SemiSupervised")]:
        for method in ("label_generation", "alternating"):
            with pytest.raises(ValueError, match=match):
                wc.solve(problem, method=method, initial=initial)


def test_zero_one_labels_are_told_that_zero_marks_unlabeled_points():
    with pytest.raises(ValueError, match=r"labeled classes \[1\].*0 marks an unlabeled point.*"
                                         r"2 \* y - 1"):
        SemiSupervised(np.array([0, 1, 1, 0, 1, 0]))
    with pytest.raises(ValueError, match=r"labeled classes \[-1\] instead; for positive-"
                                         r"unlabeled learning give `n_positive`[^;]*\.$"):
        SemiSupervised(np.array([0, -1, -1, 0]))  # no 0/1 hint: these are sign labels
