"""Formulations (docs/formulations.rst): each J_F against an independent CVXPY solve of its
*primal* (the loss written directly), the fast path against the CVXPY path, and the ladder
SDP ≤ hull ≤ exact ≤ J(labels) on random tiny problems, checked by enumeration."""

import warnings

import numpy as np
import pytest

cp = pytest.importorskip("cvxpy")

import weakcvx as wc  # noqa: E402
from weakcvx.formulations import Formulation, Hinge, SquaredHinge  # noqa: E402
from weakcvx.sdp import sdp_cutting_plane, solve_sdp  # noqa: E402

GAMMA, CAP = 0.2, 2.0


class SmoothHinge(Formulation):
    """A user formulation: f = 1ᵀα − (γ/2)‖α‖², A = {0 ≤ α ≤ cap} (the smoothed hinge)."""

    def dual(self, alpha):
        return cp.sum(alpha) - 0.5 * GAMMA * cp.sum_squares(alpha), [alpha >= 0, alpha <= CAP]


def smooth_hinge_loss(z):
    # ℓ(m) = max_{0≤a≤cap} a(1 − m) − (γ/2)a², written directly (z = 1 − m): Huber on z ≥ 0
    return cp.huber(cp.pos(z), GAMMA * CAP) / (2 * GAMMA)


def primal_value(X, y, costs, loss, rho):
    """min_{w, b} ½‖w‖² + b²/(2ρ) + Σ_i loss_i(y_i(x_i·w + b)): the primal, solved by Clarabel."""
    w = cp.Variable(X.shape[1])
    margins = cp.multiply(y, X @ w)
    objective = 0.5 * cp.sum_squares(w)
    if rho:
        b = cp.Variable()
        margins = margins + y * b
        objective += cp.square(b) / (2 * rho)
    z = 1 - margins
    if loss == "hinge":
        objective += costs @ cp.pos(z)
    elif loss == "squared":
        objective += costs @ cp.square(cp.pos(z))
    else:
        objective += cp.sum(smooth_hinge_loss(z))
    prob = cp.Problem(cp.Minimize(objective))
    prob.solve(solver="CLARABEL")
    return prob.value


def tiny_data(seed, n=10):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    y_known = np.zeros(n)
    y_known[np.flatnonzero(y > 0)[0]] = 1
    y_known[np.flatnonzero(y < 0)[0]] = -1
    return X, y, y_known


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("offset", [False, True])
@pytest.mark.parametrize("loss", ["hinge", "squared", "smooth"])
def test_J_equals_the_primal_written_directly(loss, offset, seed):
    X, y, y_known = tiny_data(seed)
    labelset = wc.labelsets.SemiSupervised(y_known)
    C = (3.0, 0.5)
    costs = labelset.per_point_costs(C)
    if loss == "hinge":
        formulation = Hinge(C=C, offset=offset)
    elif loss == "squared":
        formulation = SquaredHinge(C=C, offset=offset)
    else:
        if offset:
            pytest.skip("the user formulation is written without an offset")
        formulation = SmoothHinge()
    rho = wc.formulations.OFFSET_RHO if offset else 0.0
    reference = primal_value(X, y, costs, loss, rho)
    for problem in (wc.WeakLabelProblem(features=X, labelset=labelset, formulation=formulation),
                    wc.WeakLabelProblem(X @ X.T, labelset, formulation=formulation)):
        value, alpha = problem.J(y)
        # the fast path returns a primal value at projected-gradient tolerance 1e-6 (an upper
        # bound); the CVXPY path Clarabel's optimum: both within 1e-5 relative of the primal
        assert value == pytest.approx(reference, rel=1e-5, abs=1e-6)
        assert value >= reference - 1e-6 * max(1.0, reference) or not problem.fast


def test_fast_path_agrees_with_its_cvxpy_reference():
    X, y, y_known = tiny_data(3)
    labelset = wc.labelsets.SemiSupervised(y_known)
    K = wc.kernels.rbf(X, gamma=0.5)
    for formulation in (Hinge(C=2.0), SquaredHinge(C=2.0), SquaredHinge(C=(2.0, 0.3), offset=True)):
        problem = wc.WeakLabelProblem(K, labelset, formulation=formulation)
        assert problem.fast
        for b in (y, -y, np.where(np.arange(10) % 2, 1.0, -1.0)):
            fast, _ = problem.J(b)
            ref, _ = problem.J_cvxpy(b)
            assert fast == pytest.approx(ref, rel=1e-5)


def _ill_conditioned(seed, n, d, scale):
    """Two classes around ±1.2 on d features, scaled by ``scale`` (unstandardized features:
    kernel entries of ``scale²``), and their labeling."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.permutation(n) < n // 2, 1.0, -1.0)
    return (rng.standard_normal((n, d)) + 1.2 * y[:, None]) * scale, y


@pytest.mark.parametrize("scale, d, formulation", [
    (54.0, 2, Hinge(C=109.0)),                      # rank 2, entries ~6e4: the descent crawls
    (400.0, 2, SquaredHinge(C=(386.0, 601.0))),     # entries ~2e6, a tiny diagonal shift
    (0.06, 3, Hinge(C=780.0, offset=True)),         # a large C on a well-scaled kernel
    (1.0, 3, Hinge(C=1000.0)),
])
def test_J_is_the_svm_optimum_on_ill_conditioned_kernels_and_large_costs(scale, d, formulation):
    """``problem.J(b)`` is a primal value (an upper bound of J(b)); it must also be J(b) to
    1e-6 of ``max(1, J)`` against the interior-point reference ``J_cvxpy``, on the kernels a user
    gets from unstandardized features and large costs (found by fuzzing: 34% above on the
    first case, where coordinate descent does not converge in 500,000 epochs and polishing the
    reference's α raised its primal value; 1e-5 to 3e-3 above on the others, the projected
    gradient tolerance being absolute)."""
    for seed in range(3):
        X, y = _ill_conditioned(seed, 12, d, scale)
        y_known = np.zeros(12)
        y_known[[np.flatnonzero(y > 0)[0], np.flatnonzero(y < 0)[0]]] = [1.0, -1.0]
        labelset = wc.labelsets.SemiSupervised(y_known)
        for b in (y, np.where((np.arange(12) % 3 == 0) | (y_known > 0), 1.0, -1.0)):
            b[y_known != 0] = y_known[y_known != 0]
            problem = wc.WeakLabelProblem(X @ X.T, labelset, formulation=formulation)
            value, _ = problem.J(b)
            reference, _ = problem.J_cvxpy(b)
            assert abs(value - reference) <= 1e-6 * max(1.0, abs(reference))


class SquaredHingeWithoutFastPath(SquaredHinge):
    def box(self):
        return None


def test_label_generation_for_a_formulation_without_fast_path_matches_the_fast_one():
    X, y, y_known = tiny_data(4)
    labelset = wc.labelsets.SemiSupervised(y_known)
    K = wc.kernels.rbf(X, gamma=0.5)
    fast = wc.WeakLabelProblem(K, labelset, formulation=SquaredHinge(C=2.0))
    slow = wc.WeakLabelProblem(K, labelset, formulation=SquaredHingeWithoutFastPath(C=2.0))
    assert fast.fast and not slow.fast
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = wc.solve(fast, method="label_generation", oracle="exact")
        b = wc.solve(slow, method="label_generation", oracle="exact")
    # both certified hull values of the same problem (CVXPY masters at solver tolerance)
    assert a.certified and b.certified
    assert a.value == pytest.approx(b.value, rel=1e-4)
    exact = min(fast.J(v)[0] for v in labelset.enumerate())
    assert b.value <= exact + 1e-6


def ladder_problem(seed, kind, formulation):
    X, y, y_known = tiny_data(seed, n=9)
    K = wc.kernels.rbf(X, gamma=0.5)
    labelset = {"ssl": lambda: wc.labelsets.SemiSupervised(y_known),
                "clustering": lambda: wc.labelsets.Clustering(9, beta=1),
                "proportions": lambda: wc.labelsets.Proportions(np.repeat([0, 1, 2], 3),
                                                                [1 / 3, 2 / 3, 1 / 3])}[kind]()
    formulation = {"hinge": Hinge(C=1.0), "squared": SquaredHinge(C=1.0, offset=True),
                   "user": SmoothHinge()}[formulation]
    return wc.WeakLabelProblem(K, labelset, formulation=formulation)


@pytest.mark.parametrize("seed", [0, pytest.param(1, marks=pytest.mark.slow)])
@pytest.mark.parametrize("formulation", ["hinge", "squared", "user"])
@pytest.mark.parametrize("kind", ["ssl", "clustering", "proportions"])
def test_the_ladder_holds_for_every_formulation(kind, formulation, seed):
    problem = ladder_problem(seed, kind, formulation)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sdp = wc.solve(problem, method="sdp")
        hull = wc.solve(problem, method="label_generation", oracle="exact")
        exact = wc.solve(problem, method="exact", algorithm="enumerate")
        alt = wc.solve(problem, method="alternating")
    optimum = min(problem.J(v)[0] for v in problem.labelset.enumerate())
    scale = max(1.0, abs(optimum))
    # J at projected-gradient tolerance 1e-6 is an upper bound within ~1e-5 (relative) of
    # J, the CVXPY path within Clarabel's tolerance; SDP ≤ hull up to the tolerance of the
    # hull's CVXPY master (1e-4 relative)
    assert sdp.value <= hull.value + 1e-4 * scale, problem
    assert hull.value <= optimum + 1e-5 * scale, problem
    assert exact.value == pytest.approx(optimum, rel=1e-5)
    for res in (sdp, hull, exact, alt):
        assert problem.labelset.contains(res.labels)
        assert res.upper_bound >= optimum - 1e-5 * scale


def test_sdp_for_any_formulation_agrees_with_the_schur_model_on_the_hinge():
    X, y, y_known = tiny_data(5, n=10)
    problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=0.5),
                                  wc.labelsets.Clustering(10, beta=2), costs=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        schur = solve_sdp(problem, solver="CLARABEL")
        kelley = sdp_cutting_plane(problem, tol=1e-6)
    # Kelley's bracket [L, U] holds V_sdp; the Schur model's certified value is below V_sdp
    assert schur.value <= kelley.extra["master_value"] + 1e-6
    assert kelley.value == pytest.approx(schur.value, rel=1e-3)


def test_inexact_solves_of_the_rounds_warn_only_when_the_value_is_not_certified(monkeypatch):
    """The cutting-plane SDP's value is the weak-duality certificate at its best α, valid
    whatever the rounds' solvers returned: an ``optimal_inaccurate`` oracle solve is noted in
    ``message``, not warned about; without a certificate the warning reaches the user."""
    import weakcvx.sdp as sdp_module
    from sklearn.exceptions import ConvergenceWarning

    X, y, y_known = tiny_data(7, n=10)
    problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=0.5),
                                  wc.labelsets.SemiSupervised(y_known), formulation=SmoothHinge())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clean = sdp_cutting_plane(problem, tol=1e-6)
    original = sdp_module._ElliptopeOracle.__call__

    def inexact(self, H):  # the same answer, reported as CVXPY reports an inexact one
        out = original(self, H)
        warnings.warn("the SDP oracle: solver CLARABEL returned 'optimal_inaccurate'",
                      ConvergenceWarning)
        return out

    monkeypatch.setattr(sdp_module._ElliptopeOracle, "__call__", inexact)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        noted = sdp_cutting_plane(problem, tol=1e-6)
    assert noted.certified and clean.certified
    assert not [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert "inexact" in noted.message and "optimal_inaccurate" in noted.message
    assert noted.value == pytest.approx(clean.value, rel=1e-9)
    monkeypatch.setattr(sdp_module, "_certified_value",
                        lambda problem, alpha, estimate: (float(estimate), False))
    with pytest.warns(ConvergenceWarning, match="optimal_inaccurate"):
        sdp_cutting_plane(problem, tol=1e-6)


def test_solve_passes_the_cutting_plane_sdp_its_options_and_warns_at_max_iter():
    """A formulation without box() takes the cutting-plane SDP through solve: its max_iter and
    tol are accepted there (they were refused as unknown options of the CVXPY model), a stop
    at max_iter is a ConvergenceWarning, and the value stays below the converged one's master
    value (Kelley's bracket [L, U] holds V_sdp at every round)."""
    from sklearn.exceptions import ConvergenceWarning

    X, y, y_known = tiny_data(7, n=10)
    problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=0.5),
                                  wc.labelsets.SemiSupervised(y_known), formulation=SmoothHinge())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = wc.solve(problem, method="sdp", tol=1e-6)
    with pytest.warns(ConvergenceWarning, match="'sdp' stopped with status 'max_iter'"):
        short = wc.solve(problem, method="sdp", max_iter=1)
    assert short.status == "max_iter" and short.n_iter == 1 and full.status == "converged"
    assert short.value <= full.extra["master_value"] + 1e-6
    with pytest.raises(TypeError, match="unknown option.*'polish'.*sdp_cutting_plane"):
        wc.solve(problem, method="sdp", polish=3)


def test_generic_count_constraints_give_the_built_in_sdp_value():
    X, y, y_known = tiny_data(6, n=10)
    K = wc.kernels.rbf(X, gamma=0.5)
    built_in = wc.labelsets.Proportions(np.repeat([0, 1], 5), [0.4, 0.6])

    class Counts(wc.labelsets.LabelSet):  # the same B, declared by counts only
        def __init__(self):
            super().__init__(10)
            self._set_count_constraints(np.zeros(10, dtype=int),
                                        [(np.arange(5), 2, 2), (np.arange(5, 10), 3, 3)])

    values = []
    for labelset in (built_in, Counts()):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            values.append(solve_sdp(wc.WeakLabelProblem(K, labelset, costs=1.0),
                                    solver="CLARABEL", reduce=False).value)
    assert values[1] == pytest.approx(values[0], rel=1e-3)


def test_custom_sdp_hook_tightens_the_rung_and_stays_below_the_optimum():
    X, y, y_known = tiny_data(7, n=8)
    K = wc.kernels.rbf(X, gamma=0.5)
    pairs = [(0, 1), (2, 3)]  # must-link: y_0 = y_1, y_2 = y_3, and a balanced split

    def oracle(r):
        best, best_b = -np.inf, None
        for b in elements():
            if r @ b > best:
                best, best_b = r @ b, b
        return best_b

    def elements():
        from itertools import product
        out = [np.array(v, dtype=float) for v in product([-1, 1], repeat=8)
               if v[0] == v[1] and v[2] == v[3] and sum(v) == 0]
        return np.array(out)

    def hook(M):
        return [M[i, j] == 1 for i, j in pairs] + [M @ np.ones(8) == 0]

    plain = wc.labelsets.Custom(8, oracle, enumerate=elements, symmetric=True)
    hooked = wc.labelsets.Custom(8, oracle, enumerate=elements, symmetric=True,
                                 sdp_constraints=hook)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        v_plain = solve_sdp(wc.WeakLabelProblem(K, plain, costs=1.0), solver="CLARABEL").value
        problem = wc.WeakLabelProblem(K, hooked, costs=1.0)
        v_hook = solve_sdp(problem, solver="CLARABEL").value
    optimum = min(problem.J(v)[0] for v in elements())
    assert v_plain < v_hook - 1e-3  # the hook's constraints cut the elliptope
    assert v_hook <= optimum + 1e-6


def test_branch_and_bound_needs_a_box():
    X, y, y_known = tiny_data(8)
    problem = wc.WeakLabelProblem(features=X, labelset=wc.labelsets.SemiSupervised(y_known),
                                  formulation=SmoothHinge())
    from weakcvx.exact import branch_and_bound

    with pytest.raises(ValueError, match="box containing 0"):
        branch_and_bound(problem)


def test_squared_hinge_branch_and_bound_finds_the_enumerated_optimum():
    X, y, y_known = tiny_data(9, n=12)
    problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=0.5),
                                  wc.labelsets.SemiSupervised(y_known),
                                  formulation=SquaredHinge(C=2.0))
    from weakcvx.exact import branch_and_bound

    res = branch_and_bound(problem)
    optimum = min(problem.J(v)[0] for v in problem.labelset.enumerate())
    assert res.certified and res.value == pytest.approx(optimum, rel=1e-6)


def test_bad_formulation_arguments_are_refused():
    X, y, y_known = tiny_data(0)
    labelset = wc.labelsets.SemiSupervised(y_known)
    with pytest.raises(TypeError, match="`formulation` must be a weakcvx.formulations"):
        wc.WeakLabelProblem(features=X, labelset=labelset, formulation="hinge")
    with pytest.raises(ValueError, match="either as `costs=`"):
        wc.WeakLabelProblem(features=X, labelset=labelset, costs=2.0, formulation=Hinge())
    with pytest.raises(ValueError, match="`offset` must be"):
        Hinge(offset=-1.0)
    with pytest.raises(ValueError, match="not bound to a label set"):
        Hinge().box()


def test_squared_hinge_primal_bound_of_the_box_qp_is_valid_and_tight():
    # the box QP of K + diag(1/2c) under the never-binding box: with `shift` its primal value is
    # the squared-hinge primal (an upper bound of the optimum, tight near it); the hinge primal
    # with the large box alone is loose at a loose tolerance
    from weakcvx.svm import solve_box_qp

    X, y, y_known = tiny_data(10, n=40)
    problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=0.5),
                                  wc.labelsets.SemiSupervised(y_known),
                                  formulation=SquaredHinge(C=1.0))
    optimum, _ = problem.J_cvxpy(y)
    rows = np.arange(40)
    for tol in (1e-2, 1e-6):
        with_shift = solve_box_qp(None, rows, y, problem.costs, tol=tol, gram=problem.gram,
                                  shift=problem.shift)
        without = solve_box_qp(None, rows, y, problem.costs, tol=tol, gram=problem.gram)
        assert with_shift.dual_value <= optimum + 1e-6 <= with_shift.primal_value + 2e-6
        assert with_shift.primal_value <= without.primal_value + 1e-12
    assert with_shift.primal_value == pytest.approx(optimum, rel=1e-5)


def test_a_formulation_that_is_not_a_concave_program_is_refused_at_construction():
    X, y, y_known = tiny_data(0)
    labelset = wc.labelsets.SemiSupervised(y_known)

    class NotAPair(Formulation):
        def dual(self, alpha):
            return cp.sum(alpha)

    class Convex(Formulation):
        def dual(self, alpha):
            return cp.sum_squares(alpha), [alpha >= 0]

    class BadConstraints(Formulation):
        def dual(self, alpha):
            return cp.sum(alpha), [cp.sum_squares(alpha) >= 1]

    for formulation, error, match in ((NotAPair(), TypeError, "must return a pair"),
                                      (Convex(), ValueError, "must be a concave scalar"),
                                      (BadConstraints(), ValueError, "list of DCP")):
        with pytest.raises(error, match=match):
            wc.WeakLabelProblem(features=X, labelset=labelset, formulation=formulation)


def test_alternating_relabels_by_the_declared_loss_without_a_fast_path():
    # B = {b₁ = (1, 1, −1, −1), b₂ = −b₁} and scores f = (1, 1, 3, −0.9): b₁ wins when
    # δ₁ + δ₂ > δ₃ + δ₄, with δ = ℓ(−f) − ℓ(f): 4 > 2.2 for the hinge, 8 < 12.4 for the
    # squared hinge. The relabeling step must use the declared loss, with or without the fast
    # path (without it, it once fell back on the hinge's δ)
    from weakcvx.local import _relabel

    X = np.arange(4.0)[:, None]
    b1 = np.array([1.0, 1.0, -1.0, -1.0])
    labelset = wc.labelsets.Enumerated([b1, -b1])
    scores = np.array([1.0, 1.0, 3.0, -0.9])
    for formulation in (SquaredHinge(C=1.0), SquaredHingeWithoutFastPath(C=1.0)):
        problem = wc.WeakLabelProblem(features=X, labelset=labelset, formulation=formulation)
        np.testing.assert_array_equal(_relabel(problem, scores), -b1)
    hinge = wc.WeakLabelProblem(features=X, labelset=labelset, costs=1.0)
    np.testing.assert_array_equal(_relabel(hinge, scores), b1)


def test_a_shifted_formulation_on_a_low_rank_kernel_without_fixed_labels_solves():
    """SquaredHinge's factor is the sparse [R, diag(√shift)]; the principal-direction starts of
    a label set without fixed labels took it for a dense array (an AxisError in every search)."""
    X, _, _ = wc.datasets.make_two_moons(12, random_state=0)
    problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0), wc.labelsets.Clustering(12, 2),
                                  formulation=SquaredHinge(C=1.0), rank=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exact = wc.solve(problem, method="exact")
        hull = wc.solve(problem, method="label_generation", oracle="exact")
        alt = wc.solve(problem, method="alternating")
    optimum = min(problem.J(b)[0] for b in problem.labelset.enumerate())  # brute force
    assert exact.upper_bound == pytest.approx(optimum, rel=1e-6)
    assert hull.certified and hull.value <= optimum + 1e-6
    assert alt.upper_bound >= optimum - 1e-6


def test_a_box_that_contradicts_its_dual_or_is_negative_is_refused():
    """A user's box() is the fast path of its dual(): one that describes another J (bounds of
    0.05 for a domain of α ≤ 10) would make every rung bound another problem; a negative bound
    would fail deep inside a solver. A consistent box (the smoothed hinge) is accepted."""
    X, _, _ = tiny_data(3, n=12)
    K = wc.kernels.rbf(X, gamma=0.5)

    class Contradicts(Formulation):
        def dual(self, alpha):
            return cp.sum(alpha), [alpha >= 0, alpha <= 10]

        def box(self):
            return np.full(12, 0.05), None

    class Negative(Contradicts):
        def box(self):
            return -np.ones(12), None

    class Smooth(Formulation):  # 1ᵀα − (γ/2)‖α‖² on [0, cap]: box (cap, shift γ)
        def dual(self, alpha):
            return cp.sum(alpha) - 0.5 * GAMMA * cp.sum_squares(alpha), [alpha >= 0,
                                                                           alpha <= CAP]

        def box(self):
            return np.full(12, CAP), np.full(12, GAMMA)

    labelset = wc.labelsets.Clustering(12, 2)
    with pytest.raises(ValueError, match=r"Contradicts.box\(\) and Contradicts.dual\(\) describe "
                                         r"different problems"):
        wc.WeakLabelProblem(K, labelset, formulation=Contradicts())
    with pytest.raises(ValueError, match=r"Negative.box\(\) must return \(upper, shift\) with "
                                         r"finite, non-negative values"):
        wc.WeakLabelProblem(K, labelset, formulation=Negative())
    problem = wc.WeakLabelProblem(K, labelset, formulation=Smooth())
    b = labelset.initial(random_state=1)
    assert problem.J(b)[0] == pytest.approx(problem.J_cvxpy(b)[0], rel=1e-5)


def test_an_empty_or_unbounded_dual_is_blamed_on_the_formulation():
    """J_cvxpy's solver failure names the formulation when the model itself is at fault: an
    empty domain A, or f unbounded on A (a hard margin on a labeling the kernel cannot
    separate: two copies of one point with opposite labels)."""
    class Empty(Formulation):
        def dual(self, alpha):
            return cp.sum(alpha), [alpha >= 1, alpha <= 0]

    class HardMargin(Formulation):
        def dual(self, alpha):
            return cp.sum(alpha), [alpha >= 0]

    twins = np.ones((2, 2))  # the linear kernel of two copies of the point (1)
    b = np.array([1.0, -1.0])
    for formulation, match in [(Empty(), r"infeasible.*domain A of Empty.dual\(\) is empty"),
                               (HardMargin(), r"unbounded.*HardMargin.dual\(\) is unbounded")]:
        problem = wc.WeakLabelProblem(twins, wc.labelsets.Clustering(2, 0),
                                      formulation=formulation)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(wc.SolverError, match=match):
                problem.J_cvxpy(b)
