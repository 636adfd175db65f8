"""Shared fixtures and the tolerances of the ladder tests, written once.

Each tolerance is tied to how its value is computed:
- box QP values (``J``) come from dual coordinate descent stopped at a projected-gradient
  tolerance of 1e-8 in tests: primal and dual agree to ~1e-7 relative, so J comparisons use
  ``J_RTOL``;
- the MKLGL master stops on a certified saddle gap of 1e-6 relative in tests (``MASTER_RTOL``);
- CVXPY references with Clarabel (interior point) reach ~1e-7 relative; SCS at eps=1e-6 about
  1e-4 (``SCS_RTOL``).
"""

import numpy as np
import pytest

J_RTOL = 1e-5
MASTER_RTOL = 1e-4
SCS_RTOL = 2e-3


def leq(a, b, rtol=J_RTOL):
    """``a ≤ b`` up to a relative tolerance."""
    return a <= b + rtol * max(1.0, abs(a), abs(b))


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def random_ssl_problem(seed, n=10, n_labeled=2, kernel="rbf", C=(1.0, 0.5)):
    """A small random semi-supervised problem (n points, n_labeled of them labeled)."""
    import weakcvx as wc

    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 2))
    X[: n // 2] += 1.5
    y_true = np.where(np.arange(n) < n // 2, 1.0, -1.0)
    y_known = np.zeros(n)
    lab = [0, n - 1] + list(rng.choice(np.arange(1, n - 1), n_labeled - 2, replace=False))
    y_known[lab] = y_true[lab]
    labelset = wc.labelsets.SemiSupervised(y_known)
    if kernel == "linear":
        return wc.WeakLabelProblem(features=X, labelset=labelset, costs=C, y_true=y_true)
    return wc.WeakLabelProblem(wc.kernels.rbf(X), labelset, costs=C, y_true=y_true)


def random_clustering_problem(seed, n=10, beta=2):
    import weakcvx as wc

    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 2))
    X[: n // 2, 0] += 3.0
    y_true = np.where(np.arange(n) < n // 2, 1.0, -1.0)
    return wc.WeakLabelProblem(wc.kernels.rbf(X), wc.labelsets.Clustering(n, beta), costs=1.0,
                               y_true=y_true)
