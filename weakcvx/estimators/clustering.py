"""Maximum margin clustering: the weak-label MIP with no labels at all."""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClusterMixin, _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions

from .._validation import warn
from ..api import solve
from ..rounding import initial_labelings
from ..labelsets import Clustering
from ..problem import WeakLabelProblem
from ._base import (EXACT_TIME_LIMIT, KERNEL_CONSTRAINTS, KernelModelMixin, integer_seed,
                    linear_center, round_cap_is_the_stopping_rule, rounded_labels_model,
                    verbose_logging)
from .s3vm import check_sdp_size

#: Label-generation rounds per start when ``max_iter=None`` (the stopping rule; see ``max_iter``).
MMC_ROUNDS = 5


def kmeans_start(X, labelset, random_state):
    """The labeling of one k-means run (a single init), rounded into ``labelset``: the score of a
    point is its squared distance to the first centre minus that to the second, so the
    balance constraint moves the points nearest the boundary first."""
    from sklearn.cluster import KMeans

    with warnings.catch_warnings():
        # duplicate points: fewer distinct clusters than 2 is still a usable start
        warnings.simplefilter("ignore", ConvergenceWarning)
        d = KMeans(n_clusters=2, n_init=1, random_state=random_state).fit_transform(X) ** 2
    return labelset.initial(scores=d[:, 0] - d[:, 1])


def clustering_starts(X, problem, n_init, random_state):
    """The ``n_init`` starting labelings of :class:`MaxMarginClustering`: one k-means run's
    labeling (when the features ``X`` are given, i.e. not a precomputed kernel), then the signs
    of the kernel's leading principal directions, then random balanced labelings."""
    starts = [] if X is None else [kmeans_start(X, problem.labelset, random_state)]
    if n_init > len(starts):
        starts += initial_labelings(problem, n_init - len(starts), random_state)
    return starts[:n_init]


def agreeing_offset(scores, positive):
    """The offset ``b`` nearest 0 with which ``scores + b > 0`` agrees with ``positive`` on the
    most points.

    With the scores sorted, cutting after the ``k`` lowest calls those negative and the others
    positive; the cuts of greatest agreement are kept and, among them, the threshold ``t``
    (``b = −t``) nearest 0: 0 itself when it lies in the cut's interval, else the interval's
    midpoint (one unit below the lowest score, or above the highest, at the ends).

    Examples
    --------
    >>> import numpy as np
    >>> float(agreeing_offset(np.array([0.5, 1.0, 2.0, 3.0]), np.array([False, False, True, True])))
    -1.5
    >>> float(agreeing_offset(np.array([-1.0, 2.0]), np.array([False, True])))
    0.0
    """
    order = np.argsort(scores, kind="stable")
    f, pos = np.asarray(scores, dtype=float)[order], np.asarray(positive, dtype=bool)[order]
    n = f.shape[0]
    agree = (np.concatenate([[0], np.cumsum(~pos)])
             + pos.sum() - np.concatenate([[0], np.cumsum(pos)]))  # cut after k = 0..n
    low = np.concatenate([[-np.inf], f])
    high = np.concatenate([f, [np.inf]])
    best_t = None
    for k in np.flatnonzero(agree == agree.max()):
        if low[k] == high[k]:
            continue  # tied scores: no threshold falls between them
        if low[k] <= 0.0 < high[k]:
            return 0.0
        t = (low[k] + high[k]) / 2 if 0 < k < n else (high[k] - 1.0 if k == 0 else low[k] + 1.0)
        if best_t is None or abs(t) < abs(best_t):
            best_t = t
    return -float(best_t) if best_t is not None else 0.0


class MaxMarginClustering(KernelModelMixin, ClusterMixin, BaseEstimator):
    r"""Maximum margin clustering (Xu et al. 2005; WellSVM §4.3).

    Finds the balanced two-way split of the data with the largest SVM margin:

    .. math::

        \min_{y \in \{\pm1\}^n,\ |1^\top y| \le \beta} \min_w
            \tfrac12\|w\|^2 + C \sum_i \max(0, 1 - y_i f(x_i)),
        \qquad \beta = \text{balance} \cdot n.

    The class balance constraint excludes the trivial one-cluster solution. Labels ``y`` and
    ``−y`` describe the same clustering. The problem has no labeled point, so it is non-convex in
    practice even through the relaxation: ``n_init`` starts (one k-means run's labeling, the
    leading principal directions, then random balanced labelings) are run and the one whose
    labels have the lowest SVM objective ``J(labels)`` is kept.

    Parameters
    ----------
    relaxation : {"label_generation", "alternating", "exact", "sdp"}, default="label_generation"
    balance : float in [0, 1), default=0.3
        Allowed imbalance ``|n₊ − n₋| ≤ balance · n`` (for odd n a difference of one is always
        allowed, since a perfect split does not exist): the smaller cluster holds at least 35%
        of the points by default (WellSVM §5.3 uses 0.03 for balanced and 0.3 for imbalanced
        classes). The objective favours unequal splits, so the clustering often sits exactly
        on this bound (the smaller cluster holds 35% of the points): when the cluster sizes
        are roughly known, set ``balance`` from them. The default, for users who do not know
        the class ratio, was chosen by measurement (docs/methods/s3vm.rst,
        "Maximum-margin clustering defaults").
    kernel : {"rbf", "linear", "poly", "precomputed"}, default="rbf"
        With ``"linear"`` dense features are centred on their mean in ``fit`` (the model has
        no offset of its own, so its hyperplane would otherwise pass through the origin and the
        clustering would move with the data; ``predict`` takes uncentred points, the mean is
        folded into ``intercept_``); sparse features are not centred (a warning says so when
        ``intercept_scaling = 0``).
    C : float, default=0.3
        Cost per point. Once ``C ≤ 1 / max_i Σ_j |K_ij|`` every ``α_i`` is ``C`` and
        ``J(y) = Cn − ½C² yᵀKy``, a kernel k-means-like criterion; a larger ``C`` weighs the
        margin. Chosen by measurement (docs/methods/s3vm.rst, "Maximum-margin
        clustering defaults").
    gamma : "mean_distance", "scale", "wide" or float, default="mean_distance"
        RBF width (:func:`weakcvx.kernels.resolve_gamma`), ``1 / mean squared distance``;
        chosen with ``C`` (docs/methods/s3vm.rst, "Maximum-margin clustering defaults").
    degree, coef0 : polynomial kernel parameters.
    intercept_scaling : float, default=0.0
        Constant feature modelling an offset; 0 (no offset) as in Xu et al. and WellSVM.
    n_init : int, default=3
        Starts, in this order: one k-means run (a single init, ``random_state``), the two
        leading principal directions of the kernel, then random balanced labelings (with
        ``kernel="precomputed"`` no k-means start). Chosen by measurement
        (docs/methods/s3vm.rst, "Maximum-margin clustering defaults").
    tol : float, default=1e-3
    max_iter : int or None, default=None
        Maximum cutting-plane rounds per start (or alternations). ``None``: ``MMC_ROUNDS`` (5)
        label-generation rounds, and reaching them is the stopping rule (no
        ConvergenceWarning); 50 alternations. Without labels the relaxation is loose: its
        value keeps falling while μ spreads over balanced labelings, but the rounded
        labeling, which is the clustering, stops changing long before. Chosen by measurement
        (docs/methods/s3vm.rst, "Maximum-margin clustering defaults").
    time_limit : float or None, default=60.0
        ``relaxation="exact"`` only: stop the branch and bound after this many seconds. The
        best clustering found is kept, ``result_.status`` is ``"time_limit"`` (not proven
        optimal) and a :class:`~sklearn.exceptions.ConvergenceWarning` says so. ``None``: no
        limit (the search is exponential in the worst case).
    max_nodes : int or None, default=None
        ``relaxation="exact"`` only: stop after this many branch-and-bound nodes. ``None``: no
        limit.
    random_state : int, RandomState or None
    verbose : int
        ``0`` silent; ``1`` progress lines through ``logging.getLogger("weakcvx")``, printed to
        stderr during ``fit`` unless that logger is configured by the user.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,) in {0, 1}
        The rounded clustering. ``predict`` uses the SVM of these labels (``α`` from
        ``J(labels_)``), not the relaxation's mixture over the working set (kept in
        ``result_``), which predicts held-out points better
        (:func:`weakcvx.estimators._base.rounded_labels_model`; docs/methods/s3vm.rst, "The
        mathematics").
    intercept_ : float
        The offset of ``decision_function``: the model's own (``intercept_scaling``) plus the
        threshold of :func:`agreeing_offset`, the one nearest 0 with which the training scores
        reproduce the most of ``labels_`` (0 when the SVM of the labels already reproduces
        them), so that ``predict`` on the training points gives ``labels_`` back. Without it a
        kernel with a large constant part (e.g. an RBF kernel in many dimensions, every
        off-diagonal value near ``e⁻¹``) and clusters of unequal size can put every point on
        the side of the larger one (measured in docs/methods/s3vm.rst, "The mathematics").
    objective_ : float
        SVM objective of the clustering.
    kernel_rank_ : int or None
        Columns of the pivoted-Cholesky factor the kernel entered through, None for the dense
        kernel (as :class:`weakcvx.S3VM`).
    n_iter_ : int
    history_ : list of dict
    result_ : SolveResult

    Examples
    --------
    >>> import weakcvx as wc
    >>> X, y_true = wc.datasets.make_clustering_blobs(40, random_state=0)
    >>> mmc = wc.MaxMarginClustering(random_state=0).fit(X)
    >>> sorted(set(mmc.labels_.tolist()))
    [0, 1]
    """

    _parameter_constraints = {
        "relaxation": [StrOptions({"label_generation", "alternating", "exact", "sdp"})],
        # balance >= 1 admits the one-cluster labeling the constraint exists to exclude
        "balance": [Interval(Real, 0, 1, closed="left")],
        "C": [Interval(Real, 0, None, closed="neither")],
        "n_init": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "time_limit": [Interval(Real, 0, None, closed="neither"), None],
        "max_nodes": [Interval(Integral, 1, None, closed="left"), None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        **KERNEL_CONSTRAINTS,
    }

    def __init__(self, relaxation="label_generation", balance=0.3, kernel="rbf", C=0.3,
                 gamma="mean_distance", degree=3, coef0=1.0, intercept_scaling=0.0, n_init=3,
                 tol=1e-3, max_iter=None, time_limit=EXACT_TIME_LIMIT, max_nodes=None,
                 random_state=None, verbose=0):
        self.relaxation = relaxation
        self.balance = balance
        self.kernel = kernel
        self.C = C
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.intercept_scaling = intercept_scaling
        self.n_init = n_init
        self.tol = tol
        self.max_iter = max_iter
        self.time_limit = time_limit
        self.max_nodes = max_nodes
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Cluster ``X`` into two groups.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self

        Raises
        ------
        ValueError
            For ``relaxation="sdp"`` on more than ``weakcvx.sdp.DEFAULT_MAX_N`` points.
        """
        X = self._validate_X(X)
        center = self._linear_center(X)
        if center is not None:
            X = X - center
        n = X.shape[0]
        if self.relaxation == "sdp":
            check_sdp_size(self, n)
        beta = max(self.balance * n, float(n % 2))
        problem = WeakLabelProblem(labelset=Clustering(n, beta), costs=self.C,
                                   **self._problem_inputs(X))
        seed = integer_seed(self.random_state)
        with verbose_logging(self.verbose), round_cap_is_the_stopping_rule(  # see max_iter
                self.max_iter is None and self.relaxation == "label_generation"):
            if self.relaxation in ("label_generation", "alternating"):
                result = self._solve_from_starts(X, problem, seed)
            else:
                options = ({"time_limit": self.time_limit, "max_nodes": self.max_nodes}
                           if self.relaxation == "exact" else {})
                result = solve(problem, method=self.relaxation, random_state=seed,
                               verbose=self.verbose, **options)
        self.result_ = result
        # the classifier is the SVM of the rounded labels, not the relaxation's mixture
        model = rounded_labels_model(problem, result)
        self._store_model(X, problem, model)
        self.labels_ = (np.asarray(result.labels) > 0).astype(int)
        # predict on the training points gives labels_ back (as KMeans does), see intercept_
        scores = problem.decision_scores(model.alpha, model.working_set, model.mu)
        self.intercept_ += agreeing_offset(scores, self.labels_ == 1)
        if center is not None:  # f(x) = w·(x − center) + b on uncentred points
            self.intercept_ -= float(center @ self.coef_)
        self.objective_ = float(result.upper_bound)
        self.n_iter_ = int(result.n_iter)
        self.history_ = list(result.history)
        return self

    def _linear_center(self, X):
        """The mean the linear kernel's dense features are centred on (see ``kernel``,
        :func:`~weakcvx.estimators._base.linear_center`); None for the other kernels, for
        sparse features and for features already centred."""
        if self.kernel != "linear":
            return None
        if sp.issparse(X):
            if self.intercept_scaling == 0:
                warn("MaxMarginClustering(kernel='linear') does not centre sparse "
                     "features: with intercept_scaling=0 its hyperplane passes "
                     "through the origin. Centre X (as a dense array) or set "
                     "intercept_scaling if the clusters are not on either side of "
                     "the origin.", UserWarning)
            return None
        return linear_center(X)

    def _solve_from_starts(self, X, problem, seed):
        """One local search from each of :func:`clustering_starts`; keep the run whose rounded
        labels have the lowest ``J(labels)`` (docs/design.rst §3.3: the master value is not a
        reliable selector across runs)."""
        max_iter = self.max_iter if self.max_iter is not None else \
            (MMC_ROUNDS if self.relaxation == "label_generation" else 50)
        best, seconds = None, 0.0
        starts = clustering_starts(None if self.kernel == "precomputed" else X, problem,
                                   self.n_init, seed)
        for k, b0 in enumerate(starts):
            res = solve(problem, method=self.relaxation, initial=b0, max_iter=max_iter,
                        tol=self.tol, random_state=seed, verbose=self.verbose)
            res.extra["start"] = k
            seconds += res.seconds
            if best is None or res.upper_bound < best.upper_bound:
                best = res
        best.extra["n_init"] = len(starts)
        best.seconds = seconds
        return best

    def predict(self, X):
        """Cluster index in {0, 1} of new points (the side of the max-margin separator)."""
        return (self.decision_function(X) > 0).astype(int)
