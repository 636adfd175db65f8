"""The SDP relaxation (docs/design.rst §3.4): the ladder, the two formulations, the reduced model
against the full one, the certificate, rounding and errors."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import weakcvx as wc
from weakcvx.result import SolverError
from weakcvx.sdp import _Certificate, _Face, _build, solve_sdp

from conftest import J_RTOL, MASTER_RTOL, leq, random_clustering_problem, random_ssl_problem

cp = pytest.importorskip("cvxpy")

#: Tolerances of the SDP tests, written once:
#: - ``value`` is a certified lower bound (weak duality at an exactly evaluated dual point, with
#:   a rounding margin), so "SDP ≤ exact" needs no tolerance beyond the J_RTOL of the exact
#:   value itself, and "SDP ≤ hull" only the hull's own error: label generation with the exact
#:   oracle reports a certified hull bound within MASTER_RTOL of the hull value.
#: - Two runs that should give the same SDP optimum (formulations, reduced vs full model) each
#:   return a certified value within the interior-point accuracy of Clarabel (~1e-7 relative;
#:   measured differences ≤ 2e-6): SDP_RTOL.
#: - The full (unreduced) model has no strictly feasible point: a residual ε in its linear
#:   constraints lets M leave the face by O(√ε), so its value is only accurate to about the
#:   square root of Clarabel's 1e-8 feasibility tolerance (measured: up to 7.5e-5 relative,
#:   always from below): FULL_MODEL_RTOL.
SDP_RTOL = 1e-5
FULL_MODEL_RTOL = 3e-4
ACCURATE = {"solver": "CLARABEL"}


def random_proportions_problem(seed, eps=0.0):
    rng = np.random.default_rng(seed)
    bags = np.repeat([0, 1, 2], [4, 4, 3])
    X = rng.standard_normal((len(bags), 2)) + 1.5 * bags[:, None]
    labelset = wc.labelsets.Proportions(bags, [0.25, 0.5, 2 / 3], eps=eps)
    return wc.WeakLabelProblem(wc.kernels.rbf(X), labelset, costs=1.0)


def _hull(problem):
    return wc.solve(problem, method="label_generation", oracle="exact", epsilon=1e-6, tol=1e-9,
                    master_tol=1e-8, n_init=1)


# -- the ladder -----------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("make", [random_ssl_problem, random_clustering_problem])
def test_sdp_below_hull_and_exact(seed, make):
    problem = make(seed, n=10 + seed % 3)
    sdp = solve_sdp(problem, **ACCURATE)
    exact = wc.solve(problem, method="exact", algorithm="enumerate")
    hull = _hull(problem)
    assert sdp.certified and hull.certified and exact.certified
    assert leq(sdp.value, exact.value, J_RTOL)
    assert leq(sdp.value, hull.value, MASTER_RTOL)
    # feasible rounded labels, and their J is the upper bound
    assert problem.labelset.contains(sdp.labels)
    J, _ = problem.J(sdp.labels, tol=1e-9)
    assert sdp.upper_bound == pytest.approx(J, rel=J_RTOL)
    assert leq(exact.value, sdp.upper_bound, J_RTOL)


@pytest.mark.parametrize("seed", range(2))
def test_sdp_ladder_linear_kernel_and_proportions(seed):
    # linear kernel: K ∘ M is singular, the Schur LMI covers it
    for problem in (random_ssl_problem(seed, n=10, kernel="linear"),
                    random_proportions_problem(seed)):
        sdp = solve_sdp(problem, **ACCURATE)
        exact = wc.solve(problem, method="exact", algorithm="enumerate")
        assert leq(sdp.value, exact.value, J_RTOL)
        assert leq(sdp.value, _hull(problem).value, MASTER_RTOL)
        assert problem.labelset.contains(sdp.labels)


def test_solve_dispatches_to_sdp():
    problem = random_ssl_problem(0, n=10)
    res = wc.solve(problem, method="sdp", solver="CLARABEL")
    assert res.method == "sdp"
    assert res.value == pytest.approx(solve_sdp(problem, **ACCURATE).value, rel=SDP_RTOL)
    assert set(res.extra) >= {"M", "solver", "status"}
    assert res.extra["solver"] == "CLARABEL" and res.extra["status"] == "optimal"
    M = res.extra["M"]
    assert M.shape == (10, 10)
    assert np.allclose(np.diag(M), 1.0, atol=1e-6)
    assert np.linalg.eigvalsh(M)[0] > -1e-6
    # the classifier is the SVM on the rounded labels, as for the other methods
    assert len(res.working_set) == 1 and np.array_equal(res.working_set[0], res.labels)
    Q = problem.label_kernel(res.labels)
    dual = res.alpha.sum() - 0.5 * res.alpha @ Q @ res.alpha
    assert dual == pytest.approx(res.upper_bound, rel=J_RTOL)
    assert problem.dual_coef(res.alpha, res.working_set, res.mu).shape == (10,)


def test_estimators_run_the_sdp_relaxation():
    X, y_true, y_known = wc.datasets.make_two_moons(24, n_labeled=2, random_state=0)
    y = np.where(y_known == 0, -1, (y_known > 0).astype(int))
    model = wc.S3VM(relaxation="sdp", kernel="rbf", gamma=2.0, C=10.0).fit(X, y)
    assert model.lower_bound_ <= model.objective_
    assert model.predict(X).shape == (24,)
    clusters = wc.MaxMarginClustering(relaxation="sdp").fit(X)
    assert set(np.unique(clusters.labels_)) <= {0, 1}


# -- formulations and the reduced model -----------------------------------------------------------
@pytest.mark.parametrize("make", [random_ssl_problem, random_clustering_problem,
                                  random_proportions_problem])
@pytest.mark.parametrize("seed", range(2))
def test_schur_and_matrix_frac_agree(make, seed):
    problem = make(seed)
    schur = solve_sdp(problem, formulation="schur", **ACCURATE)
    frac = solve_sdp(problem, formulation="matrix_frac", **ACCURATE)
    assert schur.value == pytest.approx(frac.value, rel=SDP_RTOL)


CASES = {
    "ssl": lambda: random_ssl_problem(1, n=9),
    "ssl, 3 labeled": lambda: random_ssl_problem(2, n=10, n_labeled=3),
    "ssl, n_positive = u": lambda: wc.WeakLabelProblem(
        random_ssl_problem(0, n=8).kernel,
        wc.labelsets.SemiSupervised([1, 0, 0, 0, 0, 0, 0, -1], n_positive=6)),
    "clustering beta'=0": lambda: random_clustering_problem(0, n=10, beta=0),
    "clustering beta'=2": lambda: random_clustering_problem(1, n=10, beta=2),
    "proportions, fixed counts": lambda: random_proportions_problem(0),
    "proportions, eps": lambda: random_proportions_problem(1, eps=0.2),
    "proportions, unanimous bags": lambda: wc.WeakLabelProblem(
        random_proportions_problem(2).kernel,
        wc.labelsets.Proportions(np.repeat([0, 1, 2], [4, 4, 3]), [0.0, 0.5, 1.0])),
}


@pytest.mark.parametrize("case", list(CASES))
def test_reduced_model_equals_full_model(case):
    problem = CASES[case]()
    reduced = solve_sdp(problem, **ACCURATE)
    with warnings.catch_warnings():
        # the full model has no strictly feasible point: Clarabel may report inaccuracy
        warnings.simplefilter("ignore", ConvergenceWarning)
        full = solve_sdp(problem, reduce=False, **ACCURATE)
    # both values are certified lower bounds of the same optimum, the reduced one accurate
    assert leq(full.value, reduced.value, SDP_RTOL)
    assert leq(reduced.value, full.value, FULL_MODEL_RTOL)
    # the reduced model's M satisfies every constraint of the label set, dropped ones included
    M = cp.Variable(reduced.extra["M"].shape)
    M.value = reduced.extra["M"]
    for con in problem.labelset.sdp_constraints(M):
        assert con.violation().max(initial=0.0) < 1e-6


def test_face_null_vectors():
    # SemiSupervised: the lifted null vector is [−s; 1_U] (normalised), s = 2n₊ − u
    labelset = wc.labelsets.SemiSupervised([1, 0, 0, 0, 0, -1], n_positive=3)
    face = _Face(labelset)
    assert face.dim == 5 and face.null.shape == (5, 1)
    e = np.array([-2.0, 1, 1, 1, 1])
    assert np.allclose(np.abs(face.null[:, 0]), np.abs(e) / np.linalg.norm(e))
    # N is an orthonormal basis of the complement; G maps it back to n × n
    N = face.basis()
    assert np.allclose(N.T @ N, np.eye(4)) and np.allclose(N.T @ face.null, 0.0)
    y = np.array([1.0, 1, -1, 1, 1, -1])  # in B: M = yyᵀ lies on the face
    G = face.expand(N)
    X = np.linalg.lstsq(G, y, rcond=None)[0]
    assert np.allclose(G @ X, y)


# -- the certificate ------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [random_ssl_problem, random_clustering_problem])
def test_certified_value_is_a_lower_bound_even_when_the_solver_stops_early(make):
    problem = make(3, n=10)
    optimum = solve_sdp(problem, **ACCURATE).value
    with pytest.warns(ConvergenceWarning, match="optimal_inaccurate"):
        early = solve_sdp(problem, solver="SCS", solver_options={"max_iters": 5}, polish=0)
    assert early.certified
    assert leq(early.value, optimum, 1e-9)
    # polishing from the same point raises the bound, never past the optimum
    with pytest.warns(ConvergenceWarning):
        polished = solve_sdp(problem, solver="SCS", solver_options={"max_iters": 5})
    assert early.value <= polished.value
    assert leq(polished.value, optimum, 1e-9)


def test_certificate_is_tight_at_an_accurate_solution():
    for problem in (random_ssl_problem(0, n=10), random_clustering_problem(0, n=10)):
        res = solve_sdp(problem, polish=0, **ACCURATE)
        assert abs(res.extra["certificate_gap"]) < 1e-5 * max(1.0, res.value)


def test_certificate_gradient_matches_finite_differences():
    problem = random_clustering_problem(1, n=8, beta=2)  # α, y and inequality multipliers
    face = _Face(problem.labelset)
    prob, handles = _build(problem, face, "schur")
    prob.solve(solver="CLARABEL")
    cert = _Certificate(problem, face, handles)
    rng = np.random.default_rng(0)
    x = cert.pack(np.clip(handles["lam_nonneg"].dual_value, 0.1, 0.9), cert.y0,
                  [np.maximum(m, 0.1) for m in cert.mu0])  # interior: no clipping
    temperature = 0.05
    _, value, grad = cert.evaluate(x, temperature)
    direction = rng.standard_normal(x.shape) * 1e-2
    h = 1e-5
    plus = cert.evaluate(x + h * direction, temperature)[1]
    minus = cert.evaluate(x - h * direction, temperature)[1]
    assert (plus - minus) / (2 * h) == pytest.approx(grad @ direction, rel=1e-4, abs=1e-8)
    assert cert.evaluate(x)[0] >= value  # the smoothed bound is below the exact one


# -- rounding and results -------------------------------------------------------------------------
def test_rounding_keeps_the_labeled_points_and_tries_both_signs():
    problem = random_ssl_problem(0, n=12, n_labeled=4)
    res = solve_sdp(problem, **ACCURATE)
    known = problem.labelset.labeled
    assert np.array_equal(res.labels[known], problem.labelset.y_known[known])
    clustering = random_clustering_problem(2, n=10)
    res = solve_sdp(clustering, **ACCURATE)
    v = np.linalg.eigh(res.extra["M"])[1][:, -1]
    candidates = [clustering.labelset.argmax(v), clustering.labelset.argmax(-v)]
    assert res.upper_bound == pytest.approx(min(clustering.J(b)[0] for b in candidates),
                                            rel=J_RTOL)


def test_default_scs_run():
    problem = random_ssl_problem(1, n=12)
    res = solve_sdp(problem)
    assert res.extra["solver"] == "SCS" and res.certified
    assert leq(res.value, solve_sdp(problem, **ACCURATE).value, 1e-9)
    assert res.value <= res.upper_bound


# -- errors ---------------------------------------------------------------------------------------
def test_label_set_of_selected_rows_is_refused():
    bags = [np.array([[0.0], [1.0]]), np.array([[2.0]])]
    labelset = wc.labelsets.KeyInstances([0, 0, 1], [1, -1])
    problem = wc.WeakLabelProblem(features=np.vstack(bags), labelset=labelset)
    with pytest.raises(ValueError, match="KeyInstances selects rows"):
        solve_sdp(problem)


def test_a_set_without_constraints_gets_the_elliptope_rung_below_its_optimum():
    # Enumerated declares no SDP constraints: M ranges over the elliptope, a weaker but valid
    # relaxation of conv{yyᵀ : y ∈ B}
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 2))
    V = np.sign(rng.normal(size=(5, 6)))
    V[V == 0] = 1.0
    problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=1.0), wc.labelsets.Enumerated(V),
                                  costs=2.0)
    res = solve_sdp(problem)
    exact = min(problem.J(v)[0] for v in V)
    assert res.certified and res.value <= exact + 1e-6


def test_too_many_points():
    problem = random_ssl_problem(0, n=12)
    with pytest.raises(ValueError, match=r"n_samples=12 is above `max_n`=10.*"
                                         r"method=\"label_generation\""):
        solve_sdp(problem, max_n=10)
    X = np.random.default_rng(0).standard_normal((201, 2))
    big = wc.WeakLabelProblem(features=X, labelset=wc.labelsets.Clustering(201, beta=1))
    with pytest.raises(ValueError, match=r"above `max_n`=200.*limit: n = 200"):
        solve_sdp(big)


@pytest.mark.parametrize("kwargs, match", [
    ({"formulation": "dual"}, "`formulation` must be one of"),
    ({"solver": "NOPE"}, "`solver` must be one of the installed"),
    ({"solver_options": 3}, "`solver_options` must be a dict"),
    ({"polish": -1}, "`polish` must be a non-negative integer"),
    ({"max_n": 0}, "`max_n` must be a positive integer or None"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        solve_sdp(random_ssl_problem(0, n=8), **kwargs)


def test_solver_failure_raises_solver_error(monkeypatch):
    problem = random_ssl_problem(0, n=8)
    # a contradictory constraint (diag M = 1 is part of every model) makes the SDP infeasible
    monkeypatch.setattr(problem.labelset, "sdp_constraints", lambda M: [M[0, 0] == 2])
    with pytest.raises(SolverError, match="CLARABEL.*infeasible"):
        solve_sdp(problem, reduce=False, **ACCURATE)


def test_rank_r_problem_sdp_bounds_the_mip_the_solvers_see():
    """``WeakLabelProblem(K, rank=r)``: every fast path, ``J`` and branch and bound work on
    ``R Rᵀ``, so the CVXPY SDP rung must too. Reference: the same problem built from the
    kernel ``R Rᵀ`` itself; and the rung stays below the enumerated optimum of ``J``."""
    rng = np.random.default_rng(3)
    n = 12
    X = rng.standard_normal((n, 2))
    K = wc.kernels.rbf(X, gamma=0.5)
    y_known = np.zeros(n, dtype=int)
    y_known[[0, 1]] = [1, -1]
    low = wc.WeakLabelProblem(K, wc.labelsets.SemiSupervised(y_known), costs=1.0, rank=4)
    R = low.factor
    np.testing.assert_allclose(low.kernel_matrix(), R @ R.T, atol=1e-12)
    exact = wc.WeakLabelProblem(R @ R.T, wc.labelsets.SemiSupervised(y_known), costs=1.0)
    full = wc.WeakLabelProblem(K, wc.labelsets.SemiSupervised(y_known), costs=1.0)
    v_low = solve_sdp(low, solver="CLARABEL").value
    assert abs(v_low - solve_sdp(exact, solver="CLARABEL").value) <= 1e-5 * max(1.0, abs(v_low))
    # R Rᵀ ⪯ K: the rank-4 rung is at least the exact kernel's, and here strictly above it
    assert v_low > solve_sdp(full, solver="CLARABEL").value + 1e-3
    mip = wc.solve(low, method="exact", algorithm="enumerate").value
    assert leq(v_low, mip, J_RTOL)
