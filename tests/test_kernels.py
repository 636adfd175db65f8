"""weakcvx.kernels helpers against their written-out definitions."""

import numpy as np
import pytest

from weakcvx import kernels


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "duplicates", "unsorted"])
def test_mean_squared_spread_sparse_matches_the_dense_definition(fmt):
    """The sparse path (stored entries, no copy) against mean_i ‖x_i − x̄‖² written out."""
    import scipy.sparse as sp

    X = sp.random(40, 25, density=0.3, format="coo", random_state=3) + 2.0 * sp.eye(40, 25)
    dense = X.toarray()
    expected = np.mean(np.sum((dense - dense.mean(axis=0)) ** 2, axis=1))
    if fmt == "duplicates":  # CSR flagged non-canonical: the blocks-of-rows path
        coo = X.tocoo()
        rows, cols, vals = (np.concatenate([a, a]) for a in (coo.row, coo.col, coo.data))
        S = sp.csr_matrix((vals / 2, (rows, cols)), shape=X.shape)
        S.has_canonical_format = False
    elif fmt == "unsorted":  # CSR, each row's entries reversed and stored twice at half value
        S = _unsorted_duplicates(X.tocsr())
    else:
        S = X.asformat(fmt)
    assert kernels.mean_squared_spread(S) == pytest.approx(expected, rel=1e-12)
    assert kernels.mean_squared_spread(dense) == pytest.approx(expected, rel=1e-12)


def _unsorted_duplicates(csr):
    """The same matrix as CSR with each row's entries reversed and stored twice at half value
    (not canonical: unsorted indices and duplicate entries)."""
    import scipy.sparse as sp

    data, indices, indptr = [], [], [0]
    for r in range(csr.shape[0]):
        row = slice(csr.indptr[r], csr.indptr[r + 1])
        d, j = csr.data[row][::-1] / 2, csr.indices[row][::-1]
        data += [d, d]
        indices += [j, j]
        indptr.append(indptr[-1] + 2 * len(d))
    S = sp.csr_matrix((np.concatenate(data), np.concatenate(indices), np.array(indptr)),
                      shape=csr.shape)
    assert not S.has_canonical_format
    return S


@pytest.mark.parametrize("fmt", ["csr", "unsorted duplicates", "far from the origin"])
def test_rbf_of_sparse_rows_is_the_dense_kernel_and_symmetric(fmt):
    """Sparse rows (the sparse-product path) against the kernel of their dense copies written
    out, exp(−γ Σ_k (x_ik − z_jk)²); the training kernel is symmetric to the bit with a unit
    diagonal, and rows far from the origin (the expansion would lose digits) take the centred
    dense path."""
    import scipy.sparse as sp

    X = sp.random(50, 400, density=0.02, format="csr", random_state=4)
    Z = sp.random(7, 400, density=0.02, format="csr", random_state=5)
    if fmt == "far from the origin":  # a column of 1e4: the mean's norm dwarfs the spread
        X, Z = (sp.hstack([M, sp.csr_matrix(np.full((M.shape[0], 1), 1e4))]).tocsr()
                for M in (X, Z))
        assert not kernels._near_origin(X)
    elif fmt == "unsorted duplicates":
        X, Z = _unsorted_duplicates(X), _unsorted_duplicates(Z)
    dense_X, dense_Z = X.toarray(), Z.toarray()
    gamma = 0.8
    written = np.exp(-gamma * ((dense_X[:, None, :] - dense_Z[None, :, :]) ** 2).sum(-1))
    np.testing.assert_allclose(kernels.rbf(X, Z, gamma=gamma), written, rtol=0, atol=1e-12)
    K = kernels.rbf(X, gamma=gamma)
    assert np.array_equal(K, K.T)
    written = np.exp(-gamma * ((dense_X[:, None, :] - dense_X[None, :, :]) ** 2).sum(-1))
    np.testing.assert_allclose(K, written, rtol=0, atol=1e-12)
    if fmt != "far from the origin":
        np.testing.assert_array_equal(np.diag(K), 1.0)


@pytest.mark.filterwarnings("ignore:Solver terminated early")
@pytest.mark.parametrize("sparse", [False, True])
def test_resolve_gamma_is_exact_above_the_old_subsample_size(sparse):
    """Both data-driven widths on 2,500 rows (the old estimate subsampled 2,000) against the
    written-out definitions: the mean over all pairs i != j of ‖x_i − x_j‖², computed pair by
    pair in blocks, and scikit-learn's own gamma="scale" of an SVC fitted on the same X."""
    import scipy.sparse as sp
    from sklearn.svm import SVC

    rng = np.random.default_rng(0)
    dense = rng.normal(size=(2500, 6)) * np.arange(1, 7) + 3.0
    dense[rng.random(dense.shape) < 0.5] = 0.0
    X = sp.csr_matrix(dense) if sparse else dense
    pair_sum = sum(float(np.sum((dense[i:i + 500, None, :] - dense[None, :, :]) ** 2))
                   for i in range(0, 2500, 500))
    mean_pair = pair_sum / (2500 * 2499)
    assert kernels.resolve_gamma(X, "mean_distance") == pytest.approx(1 / mean_pair, rel=1e-10)
    assert kernels.resolve_gamma(X, "wide") == pytest.approx(1 / (4 * mean_pair), rel=1e-10)
    y = (dense[:, 0] > np.median(dense[:, 0])).astype(int)
    sklearn_gamma = SVC(gamma="scale", max_iter=1).fit(X, y)._gamma
    assert kernels.resolve_gamma(X, "scale") == pytest.approx(sklearn_gamma, rel=1e-10)


def test_mean_squared_spread_keeps_a_small_spread_under_a_large_offset():
    """Rows 1e8 + (0 or 1): the spread is 1/4; ‖x‖² − ‖x̄‖² in floating point loses it."""
    X = 1e8 + np.array([[0.0], [1.0]] * 50)
    assert kernels.mean_squared_spread(X) == pytest.approx(0.25, rel=1e-9)
    assert kernels.resolve_gamma(X) == pytest.approx(1 / (2 * 100 / 99 * 0.25), rel=1e-9)


@pytest.mark.parametrize("offset", [0.0, 1e8])
def test_rbf_keeps_the_distances_of_rows_far_from_the_origin(offset):
    """The RBF kernel of rows moved by ``offset`` against exp(−γ‖x − z‖²) with the
    differences formed pair by pair (no expansion): ‖x‖² + ‖z‖² − 2xᵀz of rows at 1e8 loses
    every digit of their distances (each entry came out 1). Also between two sets of rows,
    as at prediction, and exactly symmetric on one set."""
    rng = np.random.default_rng(0)
    X, Z = rng.normal(size=(30, 3)) + offset, rng.normal(size=(7, 3)) + offset
    for A, B in ((X, X), (Z, X)):
        expected = np.exp(-0.5 * np.sum((A[:, None, :] - B[None, :, :]) ** 2, axis=2))
        # the inputs themselves carry a rounding of 1e8 * 2^-52 ≈ 1.5e-8 per coordinate
        np.testing.assert_allclose(kernels.rbf(A, None if B is A else B, gamma=0.5), expected,
                                   rtol=0, atol=1e-12 + 1e-15 * offset)
    K = kernels.rbf(X, gamma=0.5)
    assert np.array_equal(K, K.T)


def test_factor_above_the_exact_limit_is_the_blocked_pivoted_cholesky(monkeypatch):
    """Above EXACT_FACTOR_LIMIT ``factor`` takes the blocked pivoted Cholesky (fast path); to
    the numerical rank it reproduces K as the column-by-column reference does, and at a fixed
    rank its residual trace stays near the greedy reference's (the blocked pivots are greedy
    up to the factor ``accept = 0.5``)."""
    monkeypatch.setattr(kernels, "EXACT_FACTOR_LIMIT", 50)
    X = np.random.default_rng(3).standard_normal((200, 3))
    K = kernels.rbf(X, gamma=0.5)
    R = kernels.factor(K)
    reference = kernels.pivoted_cholesky(np.diag(K), lambda j: K[:, j], 200)
    assert np.array_equal(R, kernels.pivoted_cholesky_blocked(np.diag(K), lambda idx: K[:, idx],
                                                              200))
    assert np.abs(K - R @ R.T).max() <= 1e-6
    assert np.abs(K - reference @ reference.T).max() <= 1e-6
    residual = np.trace(K) - np.sum(kernels.factor(K, rank=20) ** 2)
    greedy = np.trace(K) - np.sum(kernels.pivoted_cholesky(np.diag(K), lambda j: K[:, j], 20) ** 2)
    assert 0.0 <= residual <= 1.5 * greedy


@pytest.mark.parametrize("block", [2.5, True, 0])
def test_blocked_cholesky_refuses_a_block_that_is_not_a_positive_integer(block):
    K = kernels.rbf(np.random.default_rng(4).standard_normal((20, 2)))
    with pytest.raises(ValueError, match=f"`block` must be a positive integer. Got {block!r}"):
        kernels.pivoted_cholesky_blocked(np.diag(K), lambda idx: K[:, idx], 5, block=block)


@pytest.mark.parametrize("gamma", ["mean_distance", "scale", "wide"])
def test_a_spread_that_overflows_is_an_error_naming_X(gamma):
    """A row at 1e155 makes ‖x‖² overflow: the width would be 1/inf = 0 (every kernel entry
    1); a ValueError naming X instead of one naming the resolved gamma later."""
    X = np.r_[np.random.default_rng(0).random((20, 2)), [[1e155, 1e155]]]
    with pytest.raises(ValueError, match=r"`X` has entries too large.*overflows"):
        kernels.resolve_gamma(X, gamma)


@pytest.mark.parametrize("kernel", ["rbf", "poly"])
@pytest.mark.parametrize("gamma", ["mean_distance", "scale", "wide"])
def test_named_widths_make_the_kernel_independent_of_the_features_unit(kernel, gamma):
    """A named width is resolved on the data, so the kernel of features in other units (x
    100) is the same matrix: for the RBF kernel of γ‖x − y‖², for the polynomial kernel of
    γ xᵀy (with γ = 1 the polynomial kernel grew with the unit as its cube)."""
    X = np.random.default_rng(0).standard_normal((30, 4))
    k, g = kernels.kernel_function(kernel, gamma=gamma, X_fit=X)
    k100, g100 = kernels.kernel_function(kernel, gamma=gamma, X_fit=100 * X)
    assert g100 == pytest.approx(g / 1e4, rel=1e-12)
    np.testing.assert_allclose(k100(100 * X), k(X), rtol=1e-10)
    assert g == kernels.resolve_gamma(X, gamma)
