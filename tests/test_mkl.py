"""The MKLGL fast master against the CVXPY SOCP reference (docs/design.rst §3.2)."""

import numpy as np
import pytest

from weakcvx import kernels
from weakcvx.mkl import master_cvxpy, master_mklgl

from conftest import MASTER_RTOL


def _working_set(rng, n, T):
    Y = np.where(rng.random((T, n)) < 0.5, 1.0, -1.0)
    return np.tile(np.arange(n), (T, 1)), Y


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("T", [1, 3, 6])
def test_mklgl_matches_cvxpy_reference(seed, T):
    rng = np.random.default_rng(seed)
    n = 25
    X = rng.standard_normal((n, 3))
    R = kernels.factor(kernels.rbf(X))
    rows, signs = _working_set(rng, n, T)
    c = rng.uniform(0.5, 2.0, n)
    ref = master_cvxpy(R, rows, signs, c, solver="CLARABEL")
    fast = master_mklgl(R, rows, signs, c, tol=1e-5, max_alternations=5000)
    assert fast.converged
    # the certified bracket of the fast path contains the reference saddle value
    assert fast.lower <= ref.value * (1 + MASTER_RTOL) + 1e-9
    assert fast.value >= ref.value * (1 - MASTER_RTOL) - 1e-9
    assert fast.value == pytest.approx(ref.value, rel=MASTER_RTOL)
    assert fast.mu.sum() == pytest.approx(1.0)
    assert np.all(fast.alpha >= 0) and np.all(fast.alpha <= c + 1e-12)


def test_mklgl_linear_features_sparse_and_dense_agree():
    import scipy.sparse as sp

    rng = np.random.default_rng(1)
    X = sp.random(40, 15, density=0.3, random_state=1, format="csr")
    rows, signs = _working_set(rng, 40, 4)
    c = np.ones(40)
    a = master_mklgl(X, rows, signs, c, tol=1e-7)
    b = master_mklgl(X.toarray(), rows, signs, c, tol=1e-7)
    ref = master_cvxpy(X.toarray(), rows, signs, c, solver="CLARABEL")
    assert a.value == pytest.approx(b.value, rel=MASTER_RTOL)
    assert a.value == pytest.approx(ref.value, rel=MASTER_RTOL)


def test_master_of_one_label_is_the_svm_value():
    from weakcvx.svm import box_qp_cvxpy

    rng = np.random.default_rng(2)
    X = rng.standard_normal((20, 2))
    K = kernels.rbf(X)
    R = kernels.factor(K)
    y = np.where(rng.random(20) < 0.5, 1.0, -1.0)
    fast = master_mklgl(R, np.arange(20)[None], y[None], np.ones(20), tol=1e-8)
    value, _ = box_qp_cvxpy(K * np.outer(y, y), np.ones(20), solver="CLARABEL")
    assert fast.value == pytest.approx(value, rel=1e-5)


def test_master_rejects_bad_mu0():
    R = np.eye(3)
    with pytest.raises(ValueError, match="mu0"):
        master_mklgl(R, np.tile(np.arange(3), (2, 1)), np.ones((2, 3)), np.ones(3),
                     mu0=np.array([-1.0, 2.0]))
