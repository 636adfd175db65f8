r"""Learning from label proportions: the solver side of conv-∝SVM, InvCal and MeanMap
(docs/design.rst §3.6).

- :class:`EigenProportions`: the label set :class:`~weakcvx.labelsets.Proportions` with
  conv-∝SVM's eigen heuristic as its violated-label search (Yu et al. 2013, eq. 19–21).
- :func:`recover_classifier`: conv-∝SVM's recovery from a label-generation result (eq. 22),
  against the SVM of the result's feasible labels, chosen by the training bag error.
- :func:`invcal`: Rüping's inverse calibration, an ε-insensitive SVR of the proportions' logits
  on the bag means (:func:`svr_dual_cvxopt` is its dense interior-point solver).
- :func:`mean_map`: the binary linear MeanMap of Quadrianto et al. (2009).

alter-∝SVM, the alternating heuristic, is :func:`weakcvx.local.alter_proportion_svm`. The
estimators of :mod:`weakcvx.estimators.proportion` validate the input, call these and store
the results. Measurements behind the defaults: docs/methods/llp.rst.
"""

from __future__ import annotations


import numpy as np
import scipy.optimize
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from ._validation import warn
from ._solvers import cvxopt_qp
from .labelsets import Proportions
from .result import SolverError

__all__ = ["EigenProportions", "bag_error", "bag_mean_kernel", "bag_means_matrix",
           "recover_classifier", "svr_dual_cvxopt", "invcal", "mean_map_statistic", "mean_map",
           "INVCAL_DENSE_MAX_BAGS"]

#: Largest number of bags for which ``invcal(solver="auto")`` solves the bag-level SVR dual
#: with CVXOPT's dense interior point (O(n_bags³), insensitive to the feature scale); LIBSVM's
#: SMO above it (chosen by timing both, docs/methods/llp.rst).
INVCAL_DENSE_MAX_BAGS = 1000


def bag_error(bag_index, bag_sizes, proportions, positive):
    """Bag-level error ``Σ_k |p̂_k − p_k|`` of boolean predictions ``positive`` (eq. 23).

    Examples
    --------
    >>> import numpy as np
    >>> bags, sizes, p = np.array([0, 0, 1, 1]), np.array([2, 2]), np.array([0.5, 1.0])
    >>> bag_error(bags, sizes, p, np.array([True, False, True, False]))   # |½ − ½| + |½ − 1|
    0.5
    """
    counts = np.bincount(bag_index, weights=positive.astype(float), minlength=len(bag_sizes))
    return float(np.abs(counts / bag_sizes - proportions).sum())


def bag_means_matrix(bag_index, n_bags):
    """``A`` (n_bags, n) with ``A[k, i] = 1/n_k`` for ``i`` in bag ``k``: bag means ``= A X``.

    Examples
    --------
    >>> import numpy as np
    >>> A = bag_means_matrix(np.array([0, 0, 1]), 2)
    >>> A.toarray()
    array([[0.5, 0.5, 0. ],
           [0. , 0. , 1. ]])
    >>> (A @ np.array([[1.0], [3.0], [5.0]])).ravel()   # the mean of each bag
    array([2., 5.])
    """
    n = bag_index.shape[0]
    sizes = np.bincount(bag_index, minlength=n_bags)
    return sp.csr_matrix((1.0 / sizes[bag_index], (bag_index, np.arange(n))),
                         shape=(n_bags, n))


# ---------------------------------------------------------------------------------------------
# conv-∝SVM
# ---------------------------------------------------------------------------------------------


class EigenProportions(Proportions):
    r"""``Proportions`` whose violated-label search is conv-∝SVM's eigen heuristic.

    The most violated label of the cutting-plane driver maximises the convex function
    ``b ↦ αᵀQ_bα = ‖Σ_i α_i b_i u_i‖²`` (Yu et al. 2013, eq. 18) with ``u_i`` eigen-features of
    the kernel (``K = U Uᵀ``). The paper replaces the squared ℓ2 norm by the ℓ1 norm over the
    leading eigen-dimensions that keep ``variance`` of the spectrum (eq. 19–20):

    .. math::

        \max_{b \in B} \sum_j \Big|\sum_i \alpha_i b_i u_{ij}\Big|
        \;\ge\; \max_j \max_{\sigma = \pm 1} \max_{b \in B} \sigma \sum_i \alpha_i u_{ij} b_i,

    and each inner problem is the linear oracle of :class:`Proportions` (sorting per bag,
    eq. 21). The ``2d`` candidates are scored by the true ``αᵀQ_bα`` and the best is returned.
    The driver calls :meth:`most_violated` in place of its own sorting search.

    Parameters
    ----------
    bag_ids, proportions, eps :
        As for :class:`~weakcvx.labelsets.Proportions`.
    variance : float in (0, 1], default=0.9
        Fraction of the kernel's spectrum kept (the paper's 90%).

    Examples
    --------
    >>> import numpy as np
    >>> import weakcvx as wc
    >>> X, y, bags, p = wc.datasets.make_llp_toy(10, random_state=0)
    >>> B = EigenProportions(bags, p)
    >>> problem = wc.WeakLabelProblem(features=np.hstack([X, np.ones((20, 1))]), labelset=B)
    >>> res = wc.solve(problem, method="label_generation")
    >>> B.contains(res.labels)
    True
    """

    def __init__(self, bag_ids, proportions, eps=0.0, variance=0.9):
        super().__init__(bag_ids, proportions, eps)
        if not 0 < variance <= 1:
            raise ValueError(f"`variance` must lie in (0, 1]. Got {variance!r} instead.")
        self.variance = float(variance)
        self._features = None

    def eigen_features(self, factor):
        """Leading eigen-features ``U S`` of ``K = R Rᵀ`` keeping ``variance`` of the spectrum
        (computed once per factor)."""
        if self._features is None or self._features[0] is not factor:
            R = factor.toarray() if sp.issparse(factor) else np.asarray(factor)
            U, s, _ = np.linalg.svd(R, full_matrices=False)
            energy = np.cumsum(s ** 2) / max(np.sum(s ** 2), np.finfo(float).tiny)
            d = int(np.searchsorted(energy, self.variance - 1e-12) + 1)
            self._features = (factor, U[:, :d] * s[:d])
        return self._features[1]

    def most_violated(self, problem, alpha, b_hat, scores):
        """The paper's violated label: best of the per-dimension, per-sign sorting solutions."""
        F = self.eigen_features(problem.factor)
        tiebreak = 1e-6 * problem.costs * scores
        best_b, best_q = b_hat, problem.quadratic(alpha, b_hat)
        for j in range(F.shape[1]):
            r = alpha * F[:, j]
            for sign in (1.0, -1.0):
                b = self.argmax(sign * r + tiebreak)
                q = problem.quadratic(alpha, b)
                if q > best_q:
                    best_b, best_q = b, q
        return best_b


def recover_classifier(problem, result, bag_index, proportions):
    r"""conv-∝SVM's classifier from a label-generation result over ``Proportions``.

    Two candidates ``f(x) = Σ_i β_i k(x_i, x)``; the one with the lower training bag error
    ``Σ_k |p̂_k − p_k|`` is kept (the first, the paper's, on ties):

    - ``"rank1"`` (eq. 22): ``ỹ`` the rank-1 approximation of ``M = Σ_t μ_t y_t y_tᵀ`` (the top
      singular vector of the weighted working set), ``β = α ∘ ỹ``, with the sign whose
      training-bag proportions match best (M cannot tell ``y`` from ``−y``);
    - ``"labels"``: the SVM of the feasible labels ``y = result.labels``, ``β = α ∘ y`` with
      ``α`` the dual solution of ``J(y)``. On imbalanced bags every ``y_t`` shares a large mean
      part, ``ỹ`` follows it and the rank-1 predictor calls nearly every point negative; this
      candidate does not.

    Parameters
    ----------
    problem : WeakLabelProblem
        The problem ``result`` solved (its label set a ``Proportions``).
    result : SolveResult
        Of ``method="label_generation"``.
    bag_index : ndarray of int (n,)
        Bag of each point, ``0..n_bags−1``.
    proportions : ndarray (n_bags,)

    Returns
    -------
    dict
        ``recovery`` (``"rank1"`` or ``"labels"``), ``errors`` (training bag error of each
        candidate), ``beta`` and ``scores`` (training decision values) of the one kept.

    Examples
    --------
    >>> import numpy as np
    >>> import weakcvx as wc
    >>> X, y, bags, p = wc.datasets.make_llp_toy(10, random_state=0)
    >>> problem = wc.WeakLabelProblem(features=np.hstack([X, np.ones((20, 1))]),
    ...                               labelset=EigenProportions(bags, p))
    >>> res = wc.solve(problem, method="label_generation")
    >>> out = recover_classifier(problem, res, bags, p)
    >>> out["errors"][out["recovery"]] == min(out["errors"].values())
    True
    >>> float(np.mean(np.sign(out["scores"]) == y))   # the bag means' trap avoided
    1.0
    """
    sizes = problem.labelset.bag_sizes
    p = proportions
    candidates = {}  # recovery -> (β, training scores), in order of preference on ties
    Y = np.stack(result.working_set) * np.sqrt(np.maximum(result.mu, 0))[:, None]
    _, s, Vt = np.linalg.svd(Y, full_matrices=False)  # M = YᵀY ≈ s₀² v vᵀ
    y_tilde = s[0] * Vt[0]
    if np.dot(y_tilde, result.labels) < 0:  # start from the side of the rounded labels
        y_tilde = -y_tilde
    beta = result.alpha * y_tilde
    scores = problem.decision_scores(result.alpha, [y_tilde], np.ones(1))
    if bag_error(bag_index, sizes, p, -scores > 0) < bag_error(bag_index, sizes, p, scores > 0):
        beta, scores = -beta, -scores
    candidates["rank1"] = (beta, scores)
    _, alpha_labels = problem.J(result.labels)
    beta = problem.dual_coef(alpha_labels, [result.labels], np.ones(1))
    candidates["labels"] = (beta, np.asarray(problem.kernel_dot(beta)).ravel())
    errors = {name: bag_error(bag_index, sizes, p, f > 0) for name, (_, f) in candidates.items()}
    recovery = min(errors, key=errors.get)
    beta, scores = candidates[recovery]
    return {"recovery": recovery, "errors": errors, "beta": beta, "scores": scores}


# ---------------------------------------------------------------------------------------------
# InvCal (Rüping 2010)
# ---------------------------------------------------------------------------------------------


def svr_dual_cvxopt(K, t, C, eps):
    r"""ε-insensitive SVR with offset on a precomputed kernel, by CVXOPT's dense QP.

    Solves the dual (with ``a = a⁺ − a⁻``, ``a⁺, a⁻ ∈ [0, C]``; when ``eps = 0`` the single
    variable ``a ∈ [−C, C]``)

    .. math::

        \min_a \tfrac12 a^\top K a - t^\top a + \varepsilon \|a\|_1
        \quad \text{s.t.} \quad 1^\top a = 0,\ |a_k| \le C,

    whose interior-point iterations do not depend on the scale of ``K`` (the objective is
    divided by ``max_k K_kk``), unlike SMO, whose tolerance is on the gradient ``Ka − t``.
    The offset is the multiplier of ``1ᵀa = 0``, and ``f = K a + b``.

    Returns
    -------
    a : ndarray (m,)
    intercept : float
    status : str

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0.0], [1.0], [2.0]]); K = x @ x.T; t = np.array([-1.0, 0.0, 1.0])
    >>> a, intercept, status = svr_dual_cvxopt(K, t, C=10.0, eps=0.0)
    >>> status, bool(np.allclose(K @ a + intercept, t, atol=1e-6)), bool(abs(a.sum()) < 1e-8)
    ('optimal', True, True)
    """
    m = len(t)
    if eps > 0:
        P = np.block([[K, -K], [-K, K]])
        q = np.concatenate([eps - t, eps + t])
        A = np.concatenate([np.ones(m), -np.ones(m)])[None, :]
        lower = 0.0
    else:
        P, q, A, lower = K, -t, np.ones((1, m)), -C
    n = P.shape[0]
    scale = max(float(np.max(np.abs(np.diag(K)))), np.finfo(float).tiny)
    G = np.vstack([np.eye(n), -np.eye(n)])
    h = np.concatenate([np.full(n, float(C)), np.full(n, -lower)])
    sol = cvxopt_qp(0.5 * (P + P.T) / scale, q / scale, G, h, A, np.zeros(1),
                    {"show_progress": False}, "the bag-level SVR dual of InvCal")
    status = sol["status"]
    if sol["x"] is None:
        raise SolverError("cvxopt", status, "the bag-level SVR dual of InvCal returned no "
                          "solution")
    if status != "optimal":
        warn(f"InvCal: solver 'cvxopt' stopped with status {status!r} on the "
             "bag-level SVR dual; using its last iterate.", ConvergenceWarning)
    x = np.array(sol["x"]).ravel()
    a = x[:m] - x[m:] if eps > 0 else x
    return a, float(sol["y"][0]) * scale, status


def bag_mean_kernel(X, bag_index, n_bags, kernel=None, block_rows=None):
    """The bag-mean kernel ``A K Aᵀ`` (``A`` = :func:`bag_means_matrix`) without the n × n
    kernel: ``(A X)(A X)ᵀ`` for the linear kernel (``kernel=None``; ``X`` dense or sparse),
    else ``Σ_B A[:, B] (k(X_B, X) Aᵀ)`` over blocks ``B`` of ``block_rows`` rows
    (``kernel(X_B, X)`` a callable), in ``O(block_rows · n + n_bags²)`` memory.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.arange(8.0).reshape(4, 2)
    >>> bag_mean_kernel(X, np.array([0, 0, 1, 1]), 2).round(1).tolist()
    [[5.0, 17.0], [17.0, 61.0]]
    """
    A = bag_means_matrix(bag_index, n_bags)
    if kernel is None:
        means = A @ X
        means = means.toarray() if sp.issparse(means) else np.asarray(means)
        K_bags = means @ means.T
    else:
        n = X.shape[0]
        block_rows = n if block_rows is None else max(1, int(block_rows))
        columns = A.tocsc()
        K_bags = np.zeros((n_bags, n_bags))
        for start in range(0, n, block_rows):
            rows = slice(start, min(n, start + block_rows))
            # A[:, B] K[B, :] Aᵀ = A[:, B] (A K[:, B])ᵀ, K[:, B] = k(X, X_B)
            K_bags += np.asarray(columns[:, rows] @ np.asarray(A @ kernel(X, X[rows])).T)
    return 0.5 * (K_bags + K_bags.T)


def invcal(K, bag_index, proportions, C=1.0, eps=0.0, solver="auto", bag_kernel=None):
    r"""Inverse calibration: ε-insensitive SVR of the proportions' logits on the bag means.

    Bag ``k`` becomes its mean ``m_k = (1/n_k) Σ_{i∈I_k} φ(x_i)`` with target
    ``t_k = log(p_k / (1 − p_k))`` (``p_k`` moved to ``[1/(2n_k), 1 − 1/(2n_k)]``: half a point
    from the edge; a bag of one row as a bag of two, ``[1/4, 3/4]``, since half of its one point
    is the middle and would make every target 0), and

    .. math::

        \min_{w, b} \tfrac12\|w\|^2 + C \sum_k \max(0, |w\cdot m_k + b - t_k| - \varepsilon)

    is solved in its dual over the bag-mean kernel ``A K Aᵀ`` (``A`` = :func:`bag_means_matrix`),
    so ``f(x) = Σ_i β_i k(x_i, x) + b`` with ``β = Aᵀβ_bags``.

    Parameters
    ----------
    K : ndarray (n, n) or None
        Training kernel; None with ``bag_kernel``.
    bag_index : ndarray of int (n,)
    proportions : ndarray (n_bags,)
    C, eps : float
    solver : {"auto", "cvxopt", "libsvm"}
        ``"auto"``: CVXOPT (:func:`svr_dual_cvxopt`) up to :data:`INVCAL_DENSE_MAX_BAGS` bags,
        scikit-learn's ``SVR`` (LIBSVM, ``tol=1e-4``) above.
    bag_kernel : ndarray (n_bags, n_bags) or None
        ``A K Aᵀ`` itself (:func:`bag_mean_kernel`), when the n × n kernel is not formed.

    Returns
    -------
    dict
        ``beta`` (n,), ``intercept``, ``targets`` (the logits ``t``), ``solver`` (the one used).

    Examples
    --------
    >>> import numpy as np
    >>> import weakcvx as wc
    >>> X, y = wc.datasets.make_clustering_blobs(40, random_state=0)
    >>> bags, p = wc.datasets.make_bags(X, y, bag_size=5, random_state=0)
    >>> res = invcal(X @ X.T, bags, p, C=10.0)
    >>> res["solver"], bool(np.isclose(res["targets"][0], np.log(p[0] / (1 - p[0]))))
    ('cvxopt', True)
    >>> float(np.mean(np.sign(X @ X.T @ res["beta"] + res["intercept"]) == y))
    1.0
    """
    from sklearn.svm import SVR

    p = proportions
    A = bag_means_matrix(bag_index, len(p))
    half = 0.5 / np.maximum(np.bincount(bag_index), 2)
    t = np.log(np.clip(p, half, 1 - half)) - np.log(np.clip(1 - p, half, 1 - half))
    if (K is None) == (bag_kernel is None):
        raise ValueError("Give the kernel `K` or the bag-mean kernel `bag_kernel`, not both "
                         "nor neither.")
    if bag_kernel is None:
        K_bags = np.asarray(A @ (A @ K).T)
        K_bags = 0.5 * (K_bags + K_bags.T)
    else:
        K_bags = np.asarray(bag_kernel, dtype=np.float64)
    if solver == "auto":
        solver = "cvxopt" if len(p) <= INVCAL_DENSE_MAX_BAGS else "libsvm"
    if solver == "cvxopt":
        beta_bags, intercept, _ = svr_dual_cvxopt(K_bags, t, float(C), float(eps))
    else:
        svr = SVR(kernel="precomputed", C=C, epsilon=eps, tol=1e-4).fit(K_bags, t)
        beta_bags = np.zeros(len(p))
        beta_bags[svr.support_] = svr.dual_coef_[0]
        intercept = svr.intercept_[0]
    beta = np.asarray(A.T @ beta_bags).ravel()
    return {"beta": beta, "intercept": intercept, "targets": t, "solver": solver}


# ---------------------------------------------------------------------------------------------
# MeanMap (Quadrianto et al. 2009)
# ---------------------------------------------------------------------------------------------


def _log2cosh(t):
    """``log(2 cosh t)`` without overflow."""
    a = np.abs(t)
    return a + np.log1p(np.exp(-2 * a))


def mean_map_statistic(X, bag_index, proportions):
    """``μ̂_xy`` (constant feature last) and the class means, from bag means and proportions.

    The bags share the class conditionals, so ``m_k = p_k μ₊ + (1 − p_k) μ₋``: least squares
    gives ``μ₊, μ₋``, and ``μ̂_xy = n₊ μ₊ − n₋ μ₋`` with ``n₊ = Σ_k n_k p_k``.

    Returns
    -------
    Xa : ndarray or CSR matrix (n, d + 1)
        ``X`` with a constant feature 1 appended (sparse for sparse ``X``).
    mu_xy : ndarray (d + 1,)
    class_means : ndarray (2, d + 1)
        Rows ``μ₊``, ``μ₋``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0], [3.0], [-1.0], [-3.0]])   # bag 0 all positive, bag 1 all negative
    >>> Xa, mu_xy, class_means = mean_map_statistic(X, np.array([0, 0, 1, 1]), np.array([1.0, 0.0]))
    >>> Xa.shape, class_means.round(6).tolist()
    ((4, 2), [[2.0, 1.0], [-2.0, 1.0]])
    >>> float(mu_xy[0].round(6))   # n₊ μ₊ − n₋ μ₋ = 2 · 2 − 2 · (−2)
    8.0
    """
    p = proportions
    n_bags = len(p)
    ones = np.ones((X.shape[0], 1))
    P = np.column_stack([p, 1 - p])
    A = bag_means_matrix(bag_index, n_bags)
    if sp.issparse(X):
        # sparse stays sparse, and no (n_bags, d) array: the least-squares solution is
        # pinv(P) (A Xa), computed as (pinv(P) A) Xa, a (2, n) then a (2, d + 1) product
        Xa = sp.hstack([X, ones], format="csr")
        row_weights = np.asarray(A.T @ np.linalg.pinv(P).T).T
        class_means = np.asarray(Xa.T @ row_weights.T).T  # rows μ₊, μ₋
    else:
        Xa = np.hstack([X, ones])
        class_means = np.linalg.lstsq(P, np.asarray(A @ Xa), rcond=None)[0]  # rows μ₊, μ₋
    sizes = np.bincount(bag_index, minlength=n_bags)
    n_pos = float(sizes @ p)
    mu_xy = n_pos * class_means[0] - (X.shape[0] - n_pos) * class_means[1]
    return Xa, mu_xy, class_means


def mean_map(X, bag_index, proportions, lam=1.0):
    r"""Binary linear MeanMap: minimise, by L-BFGS,

    .. math::

        \frac{1}{n}\Big(\sum_i \log 2\cosh(w^\top x_i) - w^\top \hat\mu_{xy}\Big)
            + \lambda \|w\|^2

    over ``w`` (constant feature last), with ``μ̂_xy`` from :func:`mean_map_statistic`.

    Returns
    -------
    dict
        ``w`` (d + 1,), ``objective``, ``n_iter``, ``scores`` (``Xa w`` on the training points),
        ``class_means`` (rows ``μ₊``, ``μ₋``, constant feature last).

    Examples
    --------
    >>> import numpy as np
    >>> import weakcvx as wc
    >>> X, y = wc.datasets.make_clustering_blobs(40, random_state=0)
    >>> bags, p = wc.datasets.make_bags(X, y, bag_size=5, random_state=0)
    >>> res = mean_map(X, bags, p)
    >>> res["w"].shape, float(np.mean(np.sign(res["scores"]) == y))
    ((3,), 1.0)
    """
    Xa, mu_xy, class_means = mean_map_statistic(X, bag_index, proportions)
    lam, n = float(lam), X.shape[0]

    def objective(w):
        t = Xa @ w
        value = (_log2cosh(t).sum() - w @ mu_xy) / n + lam * w @ w
        grad = (Xa.T @ np.tanh(t) - mu_xy) / n + 2 * lam * w
        return value, grad

    res = scipy.optimize.minimize(objective, np.zeros(Xa.shape[1]), jac=True,
                                  method="L-BFGS-B", options={"maxiter": 1000, "gtol": 1e-8})
    if not res.success:
        warn(f"MeanMap: L-BFGS-B stopped with status {res.status} "
             f"({res.message}).", ConvergenceWarning)
    return {"w": res.x, "objective": res.fun, "n_iter": res.nit, "scores": Xa @ res.x,
            "class_means": class_means}
