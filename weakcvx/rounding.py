"""Rounding and supervised starts (docs/design.rst §3.3): real scores rounded to a feasible
labeling by the label set's oracle (the lowest ``J`` among candidates kept), the scores of the
SVM of the fixed labels only (the first label of every search) and its cross-validated
accuracy, and the tolerance of the loose SVM fits that searches make before an exact ``J``.

The label-generation driver (:mod:`weakcvx.cutting_plane`), the local heuristics
(:mod:`weakcvx.local`) and the SDP rounding (:mod:`weakcvx.sdp`) all start from here, so none of
them imports another for it.
"""

from __future__ import annotations

import numbers
import time
import warnings

import numpy as np
import scipy.linalg
from scipy.sparse.linalg import LinearOperator, eigsh
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from .svm import solve_box_qp

__all__ = ["round_scores", "supervised_scores", "labeled_cv_accuracy", "best_of_starts",
           "initial_labelings", "principal_directions", "principal_labelings", "POLISH_TOL"]

#: Projected-gradient tolerance of the loose SVM fits of a search (the alternating heuristic's
#: loop, the rounding's polish); the labels it ends at get an exact ``J`` afterwards.
POLISH_TOL = 1e-3


def supervised_scores(problem, tol=1e-4):
    """Scores of an SVM (no offset) trained on the fixed labels of the label set only.

    Returns ``None`` when the label set fixes no label (e.g. clustering).

    Examples
    --------
    >>> import numpy as np
    >>> import weakcvx as wc
    >>> X, y_true, y_known = wc.datasets.make_two_moons(20, n_labeled=2, random_state=0)
    >>> problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0),
    ...                               wc.labelsets.SemiSupervised(y_known), costs=10.0)
    >>> scores = supervised_scores(problem)
    >>> known = np.flatnonzero(y_known)
    >>> scores.shape, bool(np.all(np.sign(scores[known]) == y_known[known]))
    ((20,), True)
    >>> clustering = wc.WeakLabelProblem(wc.kernels.rbf(X), wc.labelsets.Clustering(20, beta=0))
    >>> supervised_scores(clustering) is None
    True
    """
    fixed = _fixed_labels(problem)
    if fixed is None:
        return None
    return _fixed_labels_svm(problem, fixed, np.flatnonzero(fixed != 0), tol)


def _fixed_labels(problem):
    """The label set's fixed labels (+1 / −1, 0 free), or ``None`` when it fixes none."""
    cc = problem.labelset.count_constraints()
    if cc is None:
        return None
    fixed = np.asarray(cc[0])
    return fixed if np.any(fixed != 0) else None


def _fixed_labels_svm(problem, fixed, train, tol):
    """Scores on every point of the SVM (no offset) trained on the fixed labels of ``train``."""
    with warnings.catch_warnings():
        # only a start for the search (its labels are rounded and then improved by the driver):
        # a loose α here changes no result, so its epoch limit is not the user's warning
        # (haberman, 31 labeled points with duplicates: gap 2.5e-4 after 1000 epochs)
        warnings.filterwarnings("ignore", message="solve_box_qp", category=ConvergenceWarning)
        # without a fast path, the hinge SVM with unit costs gives the start
        costs = problem.costs[train] if problem.fast else np.ones(train.size)
        sol = solve_box_qp(problem.box_factor, train.astype(np.int64),
                           fixed[train].astype(float), costs, tol=tol, gram=problem.gram,
                           shift=None if problem.shift is None else problem.shift[train])
    coef = np.zeros(problem.n_samples)
    coef[train] = sol.alpha * fixed[train]
    return np.asarray(problem.kernel_dot(coef)).ravel()


def labeled_cv_accuracy(problem, n_folds=5, random_state=0, tol=1e-4):
    r"""Cross-validated accuracy of :func:`supervised_scores`' SVM on the fixed labels.

    The fixed points are split into ``k = min(n_folds, n₊, n₋)`` folds stratified by class
    (each class shuffled, then dealt round the folds); the SVM trained on the other folds
    predicts each fold, ``sign(s_i)`` with a score of 0 counted as wrong, and the accuracy is
    the fraction of fixed points predicted right:

    .. math::

        \hat a = \frac{1}{|L|} \sum_{i \in L} [\, y_i\, s^{(-f(i))}_i > 0 \,].

    Returns ``None`` when there are fewer than two fixed points of either class (no fold
    split has both classes to train on) or when the label set fixes none.

    Parameters
    ----------
    problem : WeakLabelProblem
    n_folds : int, default=5
    random_state : int, default=0
        Seed of the shuffle.
    tol : float, default=1e-4
        Tolerance of each fold's SVM, as :func:`supervised_scores`.

    Returns
    -------
    float or None

    Examples
    --------
    >>> import weakcvx as wc
    >>> X, y_true, y_known = wc.datasets.make_two_moons(60, n_labeled=12, random_state=0)
    >>> problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0),
    ...                               wc.labelsets.SemiSupervised(y_known), costs=10.0)
    >>> 0.0 <= labeled_cv_accuracy(problem) <= 1.0
    True
    """
    fixed = _fixed_labels(problem)
    if fixed is None:
        return None
    positives, negatives = np.flatnonzero(fixed > 0), np.flatnonzero(fixed < 0)
    k = min(int(n_folds), positives.size, negatives.size)
    if k < 2:
        return None
    rng = np.random.default_rng(random_state)
    fold = np.full(problem.n_samples, -1)
    for members in (positives, negatives):
        fold[rng.permutation(members)] = np.arange(members.size) % k
    right = 0
    for f in range(k):
        held_out = np.flatnonzero(fold == f)
        scores = _fixed_labels_svm(problem, fixed, np.flatnonzero((fold >= 0) & (fold != f)), tol)
        right += int(np.sum(fixed[held_out] * scores[held_out] > 0))
    return right / (positives.size + negatives.size)


def round_scores(problem, scores, candidates=()):
    """Round real scores to a feasible labeling: ``labelset.argmax(scores)``; among it and the
    optional ``candidates`` keep the one with the lowest ``J``. Returns ``(labels, J, alpha)``.

    Examples
    --------
    >>> import numpy as np
    >>> import weakcvx as wc
    >>> X, y_true, y_known = wc.datasets.make_two_moons(20, n_labeled=2, random_state=0)
    >>> problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0),
    ...                               wc.labelsets.SemiSupervised(y_known), costs=10.0)
    >>> scores = supervised_scores(problem)
    >>> labels, value, alpha = round_scores(problem, scores)
    >>> problem.labelset.contains(labels), bool(np.isclose(value, problem.J(labels)[0]))
    (True, True)
    >>> round_scores(problem, -scores, candidates=[labels])[1] <= value   # the lowest J is kept
    True
    """
    best = None
    seen = []
    for b in [problem.labelset.argmax(scores), *candidates]:
        if any(np.array_equal(b, s) for s in seen):
            continue
        seen.append(b)
        value, alpha = problem.J(b)
        if best is None or value < best[1]:
            best = (b, value, alpha)
    return best


def _centred_eigenpairs(K, k):
    """Eigenpairs of ``H K H`` (``H = I − 11ᵀ/n``): all of them by dense ``eigh`` up to 200
    points; above, the ``k`` largest by Lanczos with ``H K H v = K v − 1 (cᵀv) − c (1ᵀv) +
    c̄ (1ᵀv)`` (``c`` the column means, ``c̄`` their mean) applied without forming ``H K H``
    (each n × n temporary of the explicit centring costs more than the Lanczos products)."""
    n = K.shape[0]
    col_mean = K.mean(axis=0)
    grand_mean = col_mean.mean()
    if n <= 200:
        return np.linalg.eigh(K - col_mean[None, :] - col_mean[:, None] + grand_mean)

    def centred_product(v):
        v = np.asarray(v).reshape(n, -1)
        total = v.sum(axis=0)
        return K @ v - (col_mean @ v)[None, :] - np.outer(col_mean, total) + grand_mean * total

    operator = LinearOperator((n, n), matvec=centred_product, matmat=centred_product,
                              dtype=float)
    return eigsh(operator, k=min(k, n - 1), which="LA",
                 v0=np.random.default_rng(0).standard_normal(n))


def principal_directions(problem, k=2):
    r"""The ``k`` leading principal directions of the kernel: eigenvectors of the centred kernel
    ``H K H`` (``H = I − 11ᵀ/n``) with the largest eigenvalues, scaled by the square roots of
    those eigenvalues (kernel PCA scores), largest first.

    From the Gram matrix (dense ``eigh`` up to 200 points, Lanczos above) or from a dense
    factor ``R`` (the left singular vectors of the centred factor, ``H K H = (HR)(HR)ᵀ``).
    Returns an ``(n, j)`` array with ``j ≤ k``; ``j = 0`` for a sparse factor (no dense
    centring of it is formed).

    Examples
    --------
    >>> import numpy as np
    >>> import weakcvx as wc
    >>> X, y = wc.datasets.make_clustering_blobs(20, random_state=0)
    >>> problem = wc.WeakLabelProblem(wc.kernels.rbf(X), wc.labelsets.Clustering(20, beta=0))
    >>> V = principal_directions(problem, k=2)
    >>> V.shape, bool(np.linalg.norm(V[:, 0]) >= np.linalg.norm(V[:, 1]))
    ((20, 2), True)
    >>> float(abs(np.mean(np.sign(V[:, 0]) * y)))   # the first one splits the two blobs
    1.0
    """
    n = problem.n_samples
    if problem.gram is not None:
        vals, vecs = _centred_eigenpairs(problem.gram, k)
        order = np.argsort(vals)[::-1][:k]
        return vecs[:, order] * np.sqrt(np.maximum(vals[order], 0.0))
    R = problem.factor
    if problem.kernel is not None or not hasattr(R, "tocsr"):
        # with the kernel held, a sparse factor (a low rank and a shifted formulation's
        # [R, diag(√shift)]) is no larger dense than the kernel
        return _leading_centred_scores(R.toarray() if hasattr(R, "toarray") else np.asarray(R),
                                       k)
    return np.zeros((n, 0))


def _leading_centred_scores(R, k):
    """``U_j s_j`` for the ``k`` leading singular pairs of the centred factor ``R_c = R − 1 r̄ᵀ``
    (largest first), from the smaller of the Gram matrices ``R_cᵀ R_c`` (then ``U_j s_j = R_c
    v_j``) and ``R_c R_cᵀ`` by a partial ``eigh``: one product and a few eigenpairs instead of
    the thin SVD (at 8,000 × 1,000, one thread, 0.36 s against 1.6 s). Each direction's sign
    puts its largest entry positive."""
    Rc = R - R.mean(axis=0)
    n, r = Rc.shape
    j = min(k, n, r)
    if j == 0:
        return np.zeros((n, 0))
    if r <= n:
        vals, V = scipy.linalg.eigh(Rc.T @ Rc, subset_by_index=[r - j, r - 1])
        scores = Rc @ V[:, ::-1]
    else:
        vals, U = scipy.linalg.eigh(Rc @ Rc.T, subset_by_index=[n - j, n - 1])
        scores = U[:, ::-1] * np.sqrt(np.maximum(vals[::-1], 0.0))
    largest = scores[np.argmax(np.abs(scores), axis=0), np.arange(j)]
    return scores * np.where(largest < 0, -1.0, 1.0)


def principal_labelings(problem, k=2, flipped=False):
    """The label set's roundings of the ``k`` leading principal directions
    (:func:`principal_directions`), each with the sign that agrees with the fixed labels
    (``sign Σ_i fixed_i v_i``; ``+`` without fixed labels): the labelings that follow the
    largest-variance splits of the data in feature space, whatever the labeled points say.
    ``flipped=True``: pairs ``(b, b')`` with ``b'`` the rounding of the opposite sign.

    Examples
    --------
    >>> import numpy as np
    >>> import weakcvx as wc
    >>> X, y = wc.datasets.make_clustering_blobs(20, random_state=0)
    >>> problem = wc.WeakLabelProblem(wc.kernels.rbf(X), wc.labelsets.Clustering(20, beta=0))
    >>> labelings = principal_labelings(problem, k=2)
    >>> len(labelings), all(problem.labelset.contains(b) for b in labelings)
    (2, True)
    >>> float(abs(np.mean(labelings[0] * y)))   # the blobs, up to the sign
    1.0
    >>> b, b_opposite = principal_labelings(problem, k=1, flipped=True)[0]
    >>> bool(np.array_equal(b_opposite, -b))   # balanced clusters: the opposite labels
    True
    """
    cc = problem.labelset.count_constraints()
    fixed = np.zeros(problem.n_samples) if cc is None else np.asarray(cc[0], dtype=float)
    labelings = []
    for v in principal_directions(problem, k).T:
        v = -v if fixed @ v < 0 else v
        b = problem.labelset.initial(scores=v)
        labelings.append((b, problem.labelset.initial(scores=-v)) if flipped else b)
    return labelings


def initial_labelings(problem, n_init, random_state):
    """Starting labelings for problems without fixed labels (clustering): the signs of the
    leading principal directions of the kernel (:func:`principal_directions`), then random
    feasible labelings.

    Examples
    --------
    >>> import numpy as np
    >>> import weakcvx as wc
    >>> X, y = wc.datasets.make_clustering_blobs(20, random_state=0)
    >>> problem = wc.WeakLabelProblem(wc.kernels.rbf(X), wc.labelsets.Clustering(20, beta=0))
    >>> starts = initial_labelings(problem, 4, random_state=0)
    >>> len(starts), all(problem.labelset.contains(b) for b in starts)
    (4, True)
    >>> V = principal_directions(problem, 2)   # the first two starts follow them
    >>> bool(np.array_equal(starts[0], problem.labelset.initial(scores=V[:, 0])))
    True
    """
    rng = check_random_state(random_state)
    labelset = problem.labelset
    starts = [labelset.initial(scores=v) for v in principal_directions(problem, 2).T[:n_init]]
    n_principal = len(starts)
    while len(starts) < n_init:
        starts.append(labelset.initial(random_state=rng))
    for k, b in enumerate(starts[:n_init]):  # a user's set whose oracle and membership differ
        labelset.check_own_element(b, f"start {k}: " + (
            "its oracle's rounding of a principal direction" if k < n_principal else
            "a random element it drew"))
    return starts[:n_init]


def best_of_starts(run, problem, n_init=None, random_state=0, verbose=0, **options):
    """Run a non-convex search (``run``: label generation or the alternating heuristic) from
    ``n_init`` starts and keep the result with the lowest ``J(labels)`` (docs/design.rst §3.3:
    the relaxed master value of runs that stopped at different working sets is no reliable
    selector). ``n_init=None``: 10 starts for a label set that fixes no label (clustering:
    the leading principal directions, then random feasible labelings), else one run from the
    label set's own start; a given ``initial`` in ``options`` is one run.

    The largest certified value over the starts is reported when the runs certify one (every
    start bounds the same hull value from below).

    Examples
    --------
    >>> import numpy as np
    >>> import weakcvx as wc
    >>> X, y = wc.datasets.make_clustering_blobs(20, random_state=0)
    >>> problem = wc.WeakLabelProblem(wc.kernels.rbf(X), wc.labelsets.Clustering(20, beta=0))
    >>> from weakcvx.local import alternating
    >>> best = best_of_starts(alternating, problem, n_init=4)
    >>> values = [alternating(problem, initial=b).upper_bound
    ...           for b in initial_labelings(problem, 4, random_state=0)]
    >>> best.extra["n_init"], bool(np.isclose(best.upper_bound, min(values)))
    (4, True)
    """
    cc = problem.labelset.count_constraints()
    free_start = cc is None or not np.any(np.asarray(cc[0]) != 0)
    if n_init is None:
        n_init = 10 if free_start and "initial" not in options else 1
    if isinstance(n_init, bool) or not isinstance(n_init, numbers.Integral) or n_init < 1:
        raise ValueError(f"`n_init` must be a positive integer. Got {n_init!r} instead.")
    if n_init == 1 or "initial" in options:
        return run(problem, random_state=random_state, verbose=verbose, **options)
    start = time.perf_counter()
    best = None
    bound = -np.inf  # the best certified lower bound over the starts
    for k, b0 in enumerate(initial_labelings(problem, n_init, random_state)):
        res = run(problem, initial=b0, random_state=random_state, verbose=verbose, **options)
        res.extra["start"] = k
        if res.certified:
            bound = max(bound, res.value)
        if best is None or res.upper_bound < best.upper_bound:
            best = res
    if best.certified and bound > best.value:
        # every start's certified value bounds the same hull value from below: report the
        # largest (the labels stay those with the lowest J)
        best.extra["value_of_start"] = best.value
        best.value = bound
    best.extra["n_init"] = n_init
    best.seconds = time.perf_counter() - start
    return best
