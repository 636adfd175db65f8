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
        csr = X.tocsr()
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
    else:
        S = X.asformat(fmt)
    assert kernels.mean_squared_spread(S) == pytest.approx(expected, rel=1e-12)
    assert kernels.mean_squared_spread(dense) == pytest.approx(expected, rel=1e-12)
