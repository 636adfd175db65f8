"""Solver faults injected with monkeypatch (issue 10, docs/design.rst §5): a failure status, an
exception inside the solver, an iteration limit, Ctrl-C. Each must end in ``weakcvx.SolverError``
naming the solver and its status, or in a ``ConvergenceWarning`` plus a usable result marked as such
— never a silent wrong answer.

"Usable" is checked, not assumed: the labels are feasible, ``upper_bound`` is ``J(labels)``
recomputed independently, and any lower bound reported stays below the optimum found by
enumeration.
"""

import cvxopt.solvers
import cvxpy as cp
import numpy as np
import pytest
import scipy.optimize
from sklearn.exceptions import ConvergenceWarning

import weakcvx as wc
from weakcvx import exact
from weakcvx.cli import main

from conftest import leq


def _ssl_problem(n=12, seed=0):
    X, y_true, y_known = wc.datasets.make_two_moons(n, n_labeled=2, random_state=seed)
    K = wc.kernels.rbf(X, gamma=2.0)
    return wc.WeakLabelProblem(K, wc.labelsets.SemiSupervised(y_known), costs=10.0,
                               y_true=y_true)


def _optimum(problem):
    return exact.enumerate_optimum(problem).value


def _assert_usable(problem, result):
    """Feasible labels; upper_bound = J(labels) (recomputed); a certified or exact-search
    value below it (a label-generation value over a truncated working set is an estimate from
    above, docs/design.rst §4, and may exceed J of the rounded labels)."""
    assert problem.labelset.contains(result.labels)
    J, _ = problem.J(result.labels, tol=1e-8)
    assert abs(result.upper_bound - J) <= 1e-5 * max(1.0, abs(J))
    if result.certified or result.method == "exact":
        assert leq(result.value, result.upper_bound)


# --- CVXPY solvers: a failure status, and an exception ------------------------------------

def _status_only(status):
    """Replace ``Problem.solve`` by a solver that returns ``status`` and no solution."""
    def solve(self, *args, **kwargs):
        self._status = status
        return None
    return solve


def _raises(*args, **kwargs):
    raise cp.error.SolverError("injected: the solver crashed")


CVXPY_CALLS = {
    "master SOCP": lambda: wc.solve(_ssl_problem(), master="cvxpy", max_iter=3),
    "SDP": lambda: wc.solve(_ssl_problem(), method="sdp"),
    "box QP reference": lambda: wc.svm.box_qp_cvxpy(np.eye(3), np.ones(3), solver="CLARABEL"),
    "PL-CCCP": lambda: wc.PartialLabelSVM(solver="cccp", max_iter=2).fit(
        np.random.default_rng(0).standard_normal((9, 2)), np.arange(9) % 3),
    "beta P2 LP (CVXPY model)": lambda: wc.beta.p2_step(
        np.array([1.0, -0.5, 0.3]), np.full((3, 2), 0.5), solver="SCIPY"),
}


@pytest.mark.parametrize("status", ["infeasible", "unbounded", "solver_error"])
@pytest.mark.parametrize("call", sorted(CVXPY_CALLS))
def test_cvxpy_failure_status_raises_solver_error_naming_solver_and_status(monkeypatch, call,
                                                                           status):
    monkeypatch.setattr(cp.Problem, "solve", _status_only(status))
    with pytest.raises(wc.SolverError, match=f"solver '.+' failed with status '{status}'") as e:
        CVXPY_CALLS[call]()
    assert e.value.status == status and e.value.solver


@pytest.mark.parametrize("call", sorted(CVXPY_CALLS))
def test_cvxpy_exception_raises_solver_error(monkeypatch, call):
    monkeypatch.setattr(cp.Problem, "solve", _raises)
    with pytest.raises(wc.SolverError, match="injected: the solver crashed") as e:
        CVXPY_CALLS[call]()
    assert e.value.solver


@pytest.mark.parametrize("status", [2, 3, 4])
def test_beta_p2_linprog_failure_raises_solver_error_naming_solver_and_status(monkeypatch,
                                                                             status):
    import scipy.optimize

    def failing(*args, **kwargs):
        return scipy.optimize.OptimizeResult(status=status, x=None, message="injected")

    monkeypatch.setattr(scipy.optimize, "linprog", failing)
    with pytest.raises(wc.SolverError, match=f"solver 'highs-ds' failed with status "
                                             f"'{status}'.*injected"):
        wc.BetaSVM(init="knn", max_iter=2, n_neighbors=3).fit(
            np.random.default_rng(0).standard_normal((12, 2)), np.arange(12) % 2)


def _failing_for(name, status):
    """``Problem.solve`` that fails with ``status`` for solver ``name`` only."""
    original = cp.Problem.solve

    def solve(self, *args, solver=None, **kwargs):
        if solver == name:
            self._status = status
            return None
        return original(self, *args, solver=solver, **kwargs)
    return solve


@pytest.mark.parametrize("status", ["solver_error", "infeasible"])
def test_sdp_falls_back_to_the_next_solver_with_a_warning(monkeypatch, status):
    """SCS fails: Clarabel (the next of SDP_ORDER) solves the same SDP; the warning names SCS and
    its status, and the certified value equals a direct Clarabel solve (reference)."""
    problem = _ssl_problem()
    reference = wc.sdp.solve_sdp(problem, solver="CLARABEL")
    monkeypatch.setattr(cp.Problem, "solve", _failing_for("SCS", status))
    with pytest.warns(wc.SolverFallbackWarning, match=f"SCS '{status}' failed; solved with "
                                                      "CLARABEL"):
        res = wc.solve(problem, method="sdp")
    assert res.extra["solver"] == "CLARABEL"
    assert res.value == pytest.approx(reference.value, rel=1e-6)
    _assert_usable(problem, res)
    assert leq(res.value, _optimum(problem))


def test_sdp_without_fallback_raises_for_the_requested_solver(monkeypatch):
    monkeypatch.setattr(cp.Problem, "solve", _failing_for("SCS", "solver_error"))
    with pytest.raises(wc.SolverError, match="solver 'SCS' failed with status 'solver_error'"):
        wc.sdp.solve_sdp(_ssl_problem(), fallback=False)


def test_master_socp_falls_back_and_agrees_with_mklgl(monkeypatch):
    """Clarabel fails on the master SOCP: SCS (next of SOCP_ORDER) solves it, and the value
    agrees with the MKLGL master (independent solver) to SCS's accuracy."""
    problem = _ssl_problem()
    ws = [problem.labelset.initial(random_state=s) for s in range(3)]
    rows, signs = problem.stack(ws)
    ref = wc.mkl.master_mklgl(problem.factor, rows, signs, problem.costs, tol=1e-8,
                              max_alternations=2000)
    monkeypatch.setattr(cp.Problem, "solve", _failing_for("CLARABEL", "solver_error"))
    with pytest.warns(wc.SolverFallbackWarning, match="CLARABEL 'solver_error' failed"):
        sol = wc.mkl.master_cvxpy(problem.factor, rows, signs, problem.costs, solver="CLARABEL")
    assert sol.value == pytest.approx(ref.value, rel=1e-3)  # SCS default eps 1e-4 relative


def test_every_solver_failing_names_the_first_and_lists_the_fallbacks(monkeypatch):
    monkeypatch.setattr(cp.Problem, "solve", _status_only("solver_error"))
    with pytest.raises(wc.SolverError, match="solver 'SCS' failed with status 'solver_error'.*"
                                             "fallbacks also failed: CLARABEL 'solver_error'"):
        wc.solve(_ssl_problem(), method="sdp")


def test_inaccurate_sdp_warns_and_keeps_a_certified_usable_bound(monkeypatch):
    """SCS stopping early ('optimal_inaccurate'): the SDP value is still a certified lower
    bound (it is a dual value), so a warning and the result — which stays below the optimum."""
    problem = _ssl_problem()
    original = cp.Problem.solve

    def inaccurate(self, *args, **kwargs):
        value = original(self, *args, **kwargs)
        self._status = cp.OPTIMAL_INACCURATE
        return value

    monkeypatch.setattr(cp.Problem, "solve", inaccurate)
    with pytest.warns(ConvergenceWarning, match="optimal_inaccurate"):
        result = wc.solve(problem, method="sdp")
    monkeypatch.undo()
    _assert_usable(problem, result)
    assert leq(result.value, _optimum(problem), rtol=2e-3)


# --- CVXOPT and LIBSVM (β-SVM) --------------------------------------------------------------

def test_cvxopt_without_solution_raises_and_stalled_cvxopt_warns(monkeypatch):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((12, 2))
    y = np.arange(12) % 2
    monkeypatch.setattr(cvxopt.solvers, "qp", lambda *a, **k: {"status": "unknown", "x": None})
    with pytest.raises(wc.SolverError, match="solver 'cvxopt' failed with status 'unknown'"):
        wc.BetaSVM(init="knn", solver="cvxopt", max_iter=2, n_neighbors=3).fit(X, y)
    monkeypatch.undo()
    original = cvxopt.solvers.qp

    def stalled(*args, **kwargs):
        sol = original(*args, **kwargs)
        sol["status"] = "unknown"
        return sol

    monkeypatch.setattr(cvxopt.solvers, "qp", stalled)
    with pytest.warns(ConvergenceWarning, match="cvxopt.*unknown"):
        est = wc.BetaSVM(init="knn", solver="cvxopt", max_iter=2, n_neighbors=3).fit(X, y)
    assert set(np.unique(est.predict(X))) <= {0, 1}


def test_libsvm_iteration_limit_falls_back_to_cvxopt_with_the_same_model(monkeypatch):
    """LIBSVM stopped at max_iter -> SolverError('libsvm', 'max_iter') inside; the estimator
    falls back to CVXOPT (documented) and warns; the model is the CVXOPT model."""
    from sklearn import svm as sk_svm

    rng = np.random.default_rng(2)
    X = rng.standard_normal((16, 2))
    y = (X[:, 0] > 0).astype(int)
    reference = wc.BetaSVM(init="knn", solver="cvxopt", n_neighbors=3, max_iter=3).fit(X, y)
    original = sk_svm.SVC.__init__

    def capped(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self.max_iter = 1  # LIBSVM stops after one iteration and warns

    monkeypatch.setattr(sk_svm.SVC, "__init__", capped)
    with pytest.warns(ConvergenceWarning, match="'libsvm'.*'max_iter'.*later P1 steps with "
                                                "'cvxopt'"):
        est = wc.BetaSVM(init="knn", solver="libsvm", n_neighbors=3, max_iter=3).fit(X, y)
    np.testing.assert_allclose(est.decision_function(X), reference.decision_function(X),
                               atol=1e-8)


def test_mean_map_optimizer_failure_warns(monkeypatch):
    original = scipy.optimize.minimize

    def one_step(*args, **kwargs):
        kwargs["options"] = {**kwargs.get("options", {}), "maxiter": 1}
        return original(*args, **kwargs)

    monkeypatch.setattr(scipy.optimize, "minimize", one_step)
    X = np.random.default_rng(0).standard_normal((12, 2))
    with pytest.warns(ConvergenceWarning, match="MeanMap: L-BFGS-B stopped with status"):
        wc.MeanMap().fit(X, np.repeat(np.arange(4), 3), [1.0, 2 / 3, 1 / 3, 0.0])


# --- iteration limits: a warning and a usable result marked as such ------------------------

def test_box_qp_iteration_limit_warns_and_stays_in_the_box():
    rng = np.random.default_rng(0)
    R = rng.standard_normal((30, 3))
    rows = np.arange(30)[None, :]
    signs = np.where(rng.random(30) > 0.5, 1.0, -1.0)[None, :]
    c = np.full(30, 5.0)
    with pytest.warns(ConvergenceWarning, match="solve_box_qp.*max_epochs=1"):
        sol = wc.svm.solve_box_qp(R, rows, signs, c, max_epochs=1, tol=1e-12)
    assert np.all(sol.alpha >= 0) and np.all(sol.alpha <= c)
    assert sol.dual_value <= sol.primal_value + 1e-9  # weak duality: a valid bracket


@pytest.mark.parametrize("method", ["label_generation", "alternating"])
def test_iteration_limit_warns_and_marks_the_result(method):
    """Silent failure found: a run cut by max_iter returned status 'max_iter' without a word."""
    problem = _ssl_problem(n=14, seed=3)
    initial = problem.labelset.initial(random_state=0)
    with pytest.warns(ConvergenceWarning, match=f"'{method}' stopped with status 'max_iter'"):
        result = wc.solve(problem, method=method, max_iter=1, initial=initial)
    assert result.status == "max_iter" and not result.certified
    _assert_usable(problem, result)
    assert leq(_optimum(problem), result.upper_bound)


def test_estimator_iteration_limit_warns():
    X, _, y_known = wc.datasets.make_two_moons(14, n_labeled=2, random_state=3)
    y = np.where(y_known > 0, 1, 0)
    y[y_known == 0] = -1
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        est = wc.S3VM(max_iter=1, C=10.0, gamma=2.0, random_state=0).fit(X, y)
    assert est.result_.status == "max_iter"
    assert set(np.unique(est.predict(X))) <= {0, 1}


@pytest.mark.parametrize("limit", [{"max_nodes": 2}, {"time_limit": 1e-9}])
def test_branch_and_bound_limits_warn_and_keep_a_certified_bracket(limit):
    problem = _ssl_problem(n=14, seed=1)
    with pytest.warns(ConvergenceWarning, match="not proven optimal"):
        result = wc.solve(problem, method="exact", algorithm="branch_and_bound", **limit)
    assert result.status in ("node_limit", "time_limit") and not result.certified
    _assert_usable(problem, result)
    optimum = _optimum(problem)
    assert leq(result.value, optimum) and leq(optimum, result.upper_bound)


def test_bnb_s3vm_node_limit_warns_and_is_marked():
    X, _, y_known = wc.datasets.make_two_moons(14, n_labeled=2, random_state=0)
    y = np.where(y_known > 0, 1, 0)
    y[y_known == 0] = -1
    with pytest.warns(ConvergenceWarning):
        est = wc.BranchAndBoundS3VM(max_nodes=1).fit(X, y)
    assert not est.optimal_ and est.lower_bound_ <= est.objective_ + 1e-9


# --- Ctrl-C ---------------------------------------------------------------------------------

def _fail_after(monkeypatch, owner, name, calls, error):
    """``owner.name`` raises ``error`` from its call number ``calls + 1`` on."""
    original = getattr(owner, name)
    count = {"n": 0}

    def wrapped(*args, **kwargs):
        count["n"] += 1
        if count["n"] > calls:
            raise error
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, wrapped)


def _interrupt_after(monkeypatch, owner, name, calls):
    _fail_after(monkeypatch, owner, name, calls, KeyboardInterrupt)


def test_ctrl_c_in_branch_and_bound_returns_the_incumbent_not_certified(monkeypatch):
    problem = _ssl_problem(n=16, seed=2)
    optimum = _optimum(problem)
    _interrupt_after(monkeypatch, exact._BranchAndBound, "solve", calls=4)
    with pytest.warns(ConvergenceWarning, match="Ctrl-C"):
        result = wc.solve(problem, method="exact", algorithm="branch_and_bound", polish=False)
    assert result.status == "interrupted" and not result.certified
    _assert_usable(problem, result)
    assert leq(result.value, optimum) and leq(optimum, result.upper_bound)


# --- a node solver that fails deep in a search -------------------------------------------------


def test_node_failure_in_branch_and_bound_returns_the_incumbent_with_a_valid_bound(
        monkeypatch):
    """A node solver failing after the root stops the search like a limit: the incumbent, a
    lower bound that keeps the failed node's subtree open (so it still brackets the optimum),
    a warning naming the solver and its status; not a lost fit."""
    problem = _ssl_problem(n=16, seed=2)
    optimum = _optimum(problem)
    _fail_after(monkeypatch, exact._BranchAndBound, "solve", calls=4,
                error=wc.SolverError("node QP", "max_iter"))
    with pytest.warns(ConvergenceWarning, match="node QP.*max_iter"):
        result = wc.solve(problem, method="exact", algorithm="branch_and_bound", polish=False)
    assert result.status == "solver_error" and not result.certified
    _assert_usable(problem, result)
    assert leq(result.value, optimum) and leq(optimum, result.upper_bound)


@pytest.mark.parametrize("error", [wc.SolverError("bnb_s3vm node SVM", "max_newton"),
                                   np.linalg.LinAlgError("Singular matrix")])
@pytest.mark.parametrize("calls", [20, 100])  # before / after the first leaf (depth 38)
def test_node_failure_in_bnb_s3vm_returns_the_incumbent_with_a_valid_bound(monkeypatch, error,
                                                                           calls):
    """As above for the S3VM search; before any leaf the labels are the last node's scores
    rounded to the count, solved cold when the warm start fails as well."""
    from weakcvx import bnb_s3vm

    X, _, y_known = wc.datasets.make_two_moons(40, n_labeled=2, random_state=0)
    K = wc.kernels.rbf(X, gamma=2.0)
    full = bnb_s3vm.branch_and_bound_s3vm(K, y_known, C=10.0)
    assert full.status == "optimal" and full.extra["n_nodes"] > 20
    _fail_after(monkeypatch, bnb_s3vm._Solver, "extend", calls=calls, error=error)
    with pytest.warns(ConvergenceWarning, match="bnb_s3vm node SVM"):
        res = bnb_s3vm.branch_and_bound_s3vm(K, y_known, C=10.0)
    assert res.status == "solver_error" and not res.extra["optimal"]
    assert leq(res.value, full.upper_bound) and leq(full.upper_bound, res.upper_bound)
    known = y_known != 0
    assert np.all(res.labels[known] == y_known[known])
    assert np.sum(res.labels[~known] > 0) == np.sum(full.labels[~known] > 0)  # the count


def test_node_failure_at_the_root_of_bnb_s3vm_still_raises(monkeypatch):
    """Before any node is solved there is nothing to return: the error itself."""
    from weakcvx import bnb_s3vm

    X, _, y_known = wc.datasets.make_two_moons(20, n_labeled=2, random_state=0)
    _fail_after(monkeypatch, bnb_s3vm._Solver, "solve", calls=0,
                error=wc.SolverError("bnb_s3vm node SVM", "max_newton"))
    with pytest.raises(wc.SolverError, match="max_newton"):
        bnb_s3vm.branch_and_bound_s3vm(wc.kernels.rbf(X, gamma=2.0), y_known, C=10.0)


def test_ctrl_c_in_compare_keeps_the_rungs_done(monkeypatch):
    import weakcvx.ladder as ladder

    problem = _ssl_problem()
    _interrupt_after(monkeypatch, ladder, "solve", calls=1)
    table = wc.compare(problem, methods=["alternating", "label_generation", "exact"])
    assert table.interrupted
    done, stopped, skipped = table.rungs
    assert done.result is not None and problem.labelset.contains(done.result.labels)
    assert stopped.failure == "interrupted" and skipped.failure == "not run (interrupted)"
    assert "interrupted (Ctrl-C)" in str(table)


def test_ctrl_c_in_the_cli_prints_the_best_result_so_far(monkeypatch, capsys, tmp_path):
    import weakcvx.ladder as ladder

    _interrupt_after(monkeypatch, ladder, "solve", calls=2)
    out = tmp_path / "ladder.json"
    code = main(["compare", "--n", "12", "--json", str(out)])
    assert code == 130
    printed = capsys.readouterr().out
    assert "interrupted (Ctrl-C): the best results so far" in printed
    assert "best J(labels)" in printed or "best certified lower bound" in printed
    import json

    data = json.loads(out.read_text())
    assert data["interrupted"] and data["best_upper_bound"] is not None


def test_ctrl_c_in_branch_and_bound_inside_the_cli(monkeypatch, capsys):
    """The exact rung catches Ctrl-C itself: its incumbent is printed and the ladder stops."""
    _interrupt_after(monkeypatch, exact._BranchAndBound, "solve", calls=3)
    code = main(["compare", "--n", "12"])
    assert code == 130
    printed = capsys.readouterr().out
    assert "interrupted" in printed
    exact_row = next(line for line in printed.splitlines() if line.startswith("exact "))
    # the incumbent's search was cut: its value is a bound or the best found, never an optimum
    assert "interrupted" in exact_row and "optimum" not in exact_row
