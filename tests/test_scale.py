"""The scale benchmark's building blocks (weakcvx/bench/scale.py), on small sizes."""

import numpy as np
import pytest

import weakcvx as wc
from weakcvx.bench import BENCHMARKS
from weakcvx.bench.scale import GAMMA, linear_at_scale, rank_cost, rbf_factor, rbf_problem


def test_registered():
    assert BENCHMARKS["scale"][0] == "weakcvx.bench.scale:bench_scale"


def test_column_factor_matches_the_problem_rank_factor():
    # rbf_factor never forms K; it must do as well as the greedy pivoted Cholesky of the dense
    # K, and as WeakLabelProblem(kernel=K, rank=r) (whose blocked pivots are greedy up to a
    # factor 0.5 of the largest residual diagonal)
    X, _, y_known, gamma = rbf_problem(300)
    K = wc.kernels.rbf(X, gamma=gamma) + 1.0
    labelset = wc.labelsets.SemiSupervised(y_known)
    for rank in (10, 40):
        R = rbf_factor(X, gamma, rank)
        greedy = wc.kernels.pivoted_cholesky(np.diag(K), lambda j: K[:, j], rank)
        problem = wc.WeakLabelProblem(K, labelset, rank=rank).factor
        assert R.shape == greedy.shape == problem.shape
        # a pivoted Cholesky factor is a Nystrom factor: K - R Rᵀ is PSD
        assert np.linalg.eigvalsh(K - R @ R.T).min() > -1e-8
        # the same greedy rule: the residual trace agrees with the dense path (near-ties of
        # the pivot choice under different rounding of the columns may swap a pivot)
        err, err_greedy = np.trace(K - R @ R.T), np.trace(K - greedy @ greedy.T)
        assert err == pytest.approx(err_greedy, rel=0.1)
        assert np.trace(K - problem @ problem.T) <= 1.5 * err_greedy


def test_full_rank_factor_gives_the_exact_svm_objective():
    # features=R is the kernel R Rᵀ: at full rank, J(y) equals the dense-kernel problem's J(y)
    X, y_true, y_known, gamma = rbf_problem(120)
    K = wc.kernels.rbf(X, gamma=gamma) + 1.0
    labelset = wc.labelsets.SemiSupervised(y_known)
    R = rbf_factor(X, gamma, 120)
    low = wc.WeakLabelProblem(features=R, labelset=labelset, costs=(1.0, 0.1))
    exact = wc.WeakLabelProblem(K, labelset, costs=(1.0, 0.1))
    v_low, v_exact = low.J(y_true)[0], exact.J(y_true)[0]
    # both are box-QP optima at the solver's tolerance (1e-6 relative)
    assert v_low == pytest.approx(v_exact, rel=1e-4)


def test_rank_cost_trace_error_and_objective():
    records = rank_cost(n=150, ranks=(5, 150))
    exact, low, high = records
    assert exact["rank"] is None and exact["trace_error"] == 0.0
    assert low["trace_error"] > high["trace_error"] >= 0.0
    # the full-rank factor is the kernel (to the pivoting tolerance): its labeling is as good,
    # under the exact kernel's J, as the exact run's, up to the driver's tolerance (1e-2)
    assert high["trace_error"] < 1e-8
    assert abs(high["J_excess"]) < 2e-2


def test_gamma_makes_the_rank_matter():
    # the benchmark's width: a rank-25 factor is visibly inexact, rank 200 nearly exact
    X, *_ = rbf_problem(1000)
    err = [1 - np.sum(rbf_factor(X, GAMMA, r) ** 2) / (2 * 1000) for r in (25, 200)]
    assert err[0] > 1e-2 > 1e-4 > err[1]


def test_linear_at_scale_small():
    r = linear_at_scale(n_rows=3000, n_features=50, nnz_per_row=10, time_limit=120.0)
    assert r["status"] == "ok" and r["rows"] > 2500
    # a planted separator with a margin: S3VM from 1% labels far above chance
    assert r["accuracy"] > 0.75
