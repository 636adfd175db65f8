"""Exact semi-supervised SVM by branch and bound (Chapelle, Sindhwani & Keerthi, NIPS 2006)."""

from __future__ import annotations

import warnings
from functools import partial
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions

from .. import kernels
from .._validation import check_dense_size
from ..bnb_s3vm import branch_and_bound_s3vm
from ..labelsets import SCIKIT_LEARN_TARGET_WARNING
from ..result import SolverError
from ._base import (EXACT_TIME_LIMIT, KERNEL_CONSTRAINTS, KernelModelMixin,
                    n_positive_from_fraction, verbose_logging, warn_if_unscaled)
from .s3vm import SemiSupervisedScoreMixin, check_semi_supervised_target


#: ``C · max_i k(x_i, x_i)`` (linear kernel: of the centred rows) above which the node SVMs'
#: systems ``K + I/(2C)`` are too ill-conditioned for float64: ``kernel="linear"`` warns that
#: the features look unscaled, and a failing node SVM is explained so. Measured on four two
#: moons sets (30-50 points, 4-6 labeled, default C, features × 10^(k/2), k = 0..16): every
#: search finished up to 2.5e11; the smallest product that failed was 2.4e12 (after 23,931
#: nodes), the other sets failed from 2.4e14-2.4e16. Twenty times below the smallest failure.
ILL_CONDITIONED_PRODUCT = 1e11


class BranchAndBoundS3VM(SemiSupervisedScoreMixin, KernelModelMixin, ClassifierMixin,
                         BaseEstimator):
    r"""Globally optimal semi-supervised SVM by branch and bound (Chapelle et al. 2006).

    Minimises, over the labels :math:`y_U` of the unlabeled points with exactly :math:`n_+`
    positives among them, the squared-hinge SVM objective with an (unregularised) offset:

    .. math::

        \min_{y_U}\ \min_{w, b}\ \tfrac12 \|w\|^2
            + C \sum_{i=1}^{n} \max\big(0, 1 - y_i (w \cdot \phi(x_i) + b)\big)^2
        \quad \text{s.t.} \quad \sum_{i \in U} \max(y_i, 0) = n_+ = r\,u

    (paper eq. 1 with p = 2 and the same cost C on labeled and unlabeled points, and eq. 2).
    Depth-first branch and bound (the paper's Algorithm 1): the lower bound of a node is the
    SVM trained on its labeled points only (eq. 6), solved exactly by a primal Newton /
    active-set method on the bordered support-vector system warm-started from the parent; the
    branching point and label maximise the add-one-in estimate (eq. 7–8); the most likely label
    is explored first. See :mod:`weakcvx.bnb_s3vm` for the algorithm.

    The search is exponential in the worst case: meant for up to a few hundred points, as a
    ground truth for other S3VM methods (:class:`weakcvx.S3VM`). When a limit stops it, the best
    labeling found is kept, ``optimal_`` is False, ``lower_bound_`` is a certified lower bound
    of the optimum and a :class:`~sklearn.exceptions.ConvergenceWarning` names the limit (or
    the node SVM that failed, past the root: the search stops there the same way).

    Parameters
    ----------
    C : float, default=10.0
        Cost of the squared hinge loss, labeled and unlabeled points alike (the paper uses
        C = 10 on two moons).
    kernel : {"rbf", "linear", "precomputed"}, default="rbf"
        With ``"precomputed"``, ``X`` in ``fit`` is the (n, n) kernel matrix of the training
        points and in ``predict`` the (n_test, n) kernel between test and training points.
        With ``"linear"`` the search runs on the rows centred on their mean (the same S3VM:
        the offset is free), so that features far from the origin do not break the node
        solver; ``fit`` warns when ``C · max_i ‖x_i − x̄‖²`` exceeds
        ``ILL_CONDITIONED_PRODUCT`` (1e11): standardize such features.
    gamma : "mean_distance", "scale" or float, default="mean_distance"
        RBF width ``k(x, z) = exp(−γ‖x − z‖²)``: ``1 / mean squared pairwise distance`` by
        default (see :func:`weakcvx.kernels.resolve_gamma`). The paper's two moons use
        σ = 0.5, i.e. ``gamma = 1 / (2σ²) = 2``; there the default, twice as wide, makes the
        search much longer (docs/methods/s3vm.rst, "Branch and bound: measurements behind the
        defaults").
    positive_fraction : float in (0, 1) or None, default=None
        The ratio r of positives among the unlabeled points; ``n_+ = r·u`` rounded half up
        (0.5 · 5 → 3). ``None`` uses the labeled class ratio (rounded half up too), as the
        paper suggests.
    max_nodes : int or None, default=None
        Stop after this many nodes (node SVMs solved). None: no limit.
    time_limit : float or None, default=60.0
        Stop the search after this many seconds (then ``optimal_`` is False and a
        ConvergenceWarning names the limit). None: no limit (the search is exponential in the
        worst case). The limit counts the search only: the kernel comes before it, and when the
        search stopped before any complete labeling the SVM of the returned one (the last
        node's scores rounded to the count) is one more solve on every point after it, so a
        fit can run well past the limit. Far beyond the sizes it certifies it returns such a
        rounding; ``S3VM()`` is the estimator for them. Measured in docs/methods/s3vm.rst,
        "Branch and bound: measurements behind the defaults".
    random_state : int, RandomState instance or None, default=None
        Unused: the search is deterministic. Kept for the common estimator interface.
    verbose : int, default=0
        Progress through ``logging.getLogger("weakcvx")``: at 1 a line at most once a second
        and every new incumbent, at 2 also a ``tqdm`` bar of the nodes. Printed to stderr
        during ``fit`` unless that logger is configured by the user.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``classes_[1]`` is the positive class.
    transduction_ : ndarray of shape (n_samples,)
        Class of every training point (labeled points keep theirs).
    objective_ : float
        Objective of ``transduction_`` (the optimum when ``optimal_``).
    lower_bound_ : float
        Certified lower bound of the optimum: equals ``objective_`` when ``optimal_``, else the
        smallest bound among the open nodes.
    optimal_ : bool
        Whether the search finished, i.e. ``transduction_`` is proven globally optimal.
    n_nodes_ : int
        Nodes explored (node SVMs solved).
    dual_coef_ : ndarray of shape (n_samples,)
        ``β`` with ``f(x) = Σ_i β_i k(x_i, x) + b`` (``β_i = α_i y_i``).
    intercept_ : float
        The offset ``b``.
    coef_ : ndarray of shape (n_features,)
        ``w = Σ_i β_i x_i`` (linear kernel only).
    result_ : SolveResult
        The search's result (``history`` lists every new incumbent).
    n_features_in_ : int

    See Also
    --------
    weakcvx.S3VM : convex relaxations and local search for the (hinge-loss) S3VM.

    Notes
    -----
    The node SVM on a labeled set L satisfies, on its support vectors
    ``sv = {i : y_i f(x_i) < 1}``, the bordered system

    .. math::

        \begin{pmatrix} 0 & 1^\top \\ 1 & K_{sv} + I/(2C) \end{pmatrix}
        \begin{pmatrix} b \\ \beta_{sv} \end{pmatrix}
        = \begin{pmatrix} 0 \\ y_{sv} \end{pmatrix}, \qquad
        s(L) = \tfrac12 \beta_{sv}^\top y_{sv},

    and adding a point :math:`(x, y)` that does not change the support set otherwise gives
    (eq. 8) :math:`s(L \cup \{x, y\}) = s(L) + \max(0, 1 - y f(x))^2 / (2 S_x + 1/C)` with
    :math:`S_x = k(x, x) - v^\top M_{sv}^{-1} v`, :math:`v = (1, k(x_{sv}, x))`, the Schur
    complement of :math:`x` against the bordered matrix :math:`M_{sv}`. The inverse of
    :math:`M_{sv}` is updated by block formulas as points enter and leave the support set.

    Differences from :class:`weakcvx.S3VM`: squared hinge instead of hinge, a true unregularised
    offset instead of a constant feature, one cost C for every point; the objectives of the two
    estimators are not comparable.

    References
    ----------
    O. Chapelle, V. Sindhwani, S. S. Keerthi. Branch and bound for semi-supervised support
    vector machines. NIPS 2006.

    Examples
    --------
    >>> from weakcvx.datasets import make_two_moons
    >>> from weakcvx.estimators.bnb import BranchAndBoundS3VM
    >>> X, y_true, y_known = make_two_moons(42, n_labeled=2, random_state=0)
    >>> y = (y_known > 0).astype(int)     # class 1 = upper moon, class 0 = lower moon
    >>> y[y_known == 0] = -1              # -1 marks unlabeled points
    >>> clf = BranchAndBoundS3VM(C=10.0, gamma=2.0).fit(X, y)
    >>> clf.optimal_, clf.lower_bound_ == clf.objective_
    (True, True)
    >>> float((clf.transduction_ == (y_true > 0)).mean())
    1.0
    """

    _parameter_constraints = {
        "C": [Interval(Real, 0, None, closed="neither")],
        "kernel": [StrOptions({"rbf", "linear", "precomputed"})],
        "gamma": KERNEL_CONSTRAINTS["gamma"],
        "positive_fraction": [Interval(Real, 0, 1, closed="neither"), None],
        "max_nodes": [Interval(Integral, 1, None, closed="left"), None],
        "time_limit": [Interval(Real, 0, None, closed="neither"), None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(self, C=10.0, kernel="rbf", gamma="mean_distance", positive_fraction=None,
                 max_nodes=None, time_limit=EXACT_TIME_LIMIT, random_state=None, verbose=0):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.positive_fraction = positive_fraction
        self.max_nodes = max_nodes
        self.time_limit = time_limit
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Find the globally optimal labeling of the unlabeled points and its SVM.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), sparse allowed for the linear kernel;
            (n_samples, n_samples) kernel matrix for ``kernel="precomputed"``
        y : array-like of shape (n_samples,)
            Class of each point, ``-1`` for unlabeled points (scikit-learn's convention);
            exactly two classes among the others.

        Returns
        -------
        self

        Raises
        ------
        SolverError
            If the root's SVM cannot be solved, or any node's above ``C · max_i k(x_i, x_i)``
            = ``ILL_CONDITIONED_PRODUCT``: the message then says that its systems are too
            ill-conditioned and what to do (standardize the features, lower C). Below it, a
            node that fails past the root stops the search like a limit (``optimal_`` False,
            a ConvergenceWarning naming the failure).
        """
        X = self._validate_X(X)
        self.classes_, y_known = check_semi_supervised_target(y, X.shape[0])
        u = int(np.sum(y_known == 0))
        n_positive = None
        if self.positive_fraction is not None:
            n_positive = n_positive_from_fraction(self.positive_fraction, u)
        K = self._training_kernel(X)
        if self.kernel == "linear":
            warn_if_unscaled("BranchAndBoundS3VM", "C · max_i ‖x_i − x̄‖² with kernel='linear'",
                             self.C * float(np.max(np.diag(K))), ILL_CONDITIONED_PRODUCT,
                             "the node SVMs' linear systems may be too ill-conditioned to "
                             "solve in float64 (SolverError)")
        with verbose_logging(self.verbose), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = branch_and_bound_s3vm(K, y_known, C=self.C, n_positive=n_positive,
                                               max_nodes=self.max_nodes,
                                               time_limit=self.time_limit, verbose=self.verbose)
            except (SolverError, np.linalg.LinAlgError) as exc:
                error = self._ill_conditioned(K, exc)
                if error is None:
                    raise
                raise error from exc
        failure = result.extra["failure"]
        if failure is not None and self._ill_conditioned(K, failure) is not None:
            # past the root too, ill-conditioned systems make the search's bounds unreliable;
            # the explained error replaces the search's warning that it stopped there
            raise self._ill_conditioned(K, failure) from failure
        for record in caught:  # the search's own warnings, where they were raised
            if str(record.message).startswith(SCIKIT_LEARN_TARGET_WARNING):
                continue  # y_known came from scikit-learn's target, converted above
            warnings.warn_explicit(record.message, record.category, record.filename,
                                   record.lineno)
        self.result_ = result
        beta = result.extra["dual_coef"]
        self.dual_coef_ = beta
        self.intercept_ = result.extra["intercept"]
        if self.kernel == "linear":
            self.coef_ = np.asarray(X.T @ beta).ravel()
            # the search ran on centred rows: f(x) = w·(x − center) + b on uncentred points
            self.intercept_ -= float(self._center @ self.coef_)
        self.X_fit_ = X if self.kernel != "precomputed" else None
        self.transduction_ = self.classes_[(result.labels > 0).astype(np.intp)]
        self.objective_ = float(result.upper_bound)
        self.lower_bound_ = float(result.value)
        self.optimal_ = bool(result.extra["optimal"])
        self.n_nodes_ = int(result.extra["n_nodes"])
        return self

    def _training_kernel(self, X):
        if self.kernel == "precomputed":
            if X.shape[0] != X.shape[1]:
                raise ValueError("`X` must be a square kernel matrix when kernel='precomputed'. "
                                 f"Got shape {X.shape}.")
            self._gamma = None
            return kernels.check_kernel_matrix(X, name="X", psd=True)
        # the whole fit's tracemalloc peak is within _fit_kernel_copies (docs/design.rst §7)
        check_dense_size(X.shape[0], X.shape[0], "training kernel of BranchAndBoundS3VM",
                         copies=self._fit_kernel_copies,
                         advice="Branch and bound is exact, for a few hundred rows: use fewer "
                                "rows (weakcvx.S3VM for many)")
        # module-level functions through partial (not kernel_function's lambdas): picklable
        if self.kernel == "linear":
            self._gamma = None
            self._kernel_fn = kernels.linear
            return self._centred_linear_kernel(X)
        self._gamma = kernels.resolve_gamma(X, self.gamma)
        self._kernel_fn = partial(kernels.rbf, gamma=self._gamma)
        return self._kernel_fn(X)

    def _centred_linear_kernel(self, X):
        """The linear kernel of the rows centred on their mean ``_center``: the same S3VM (the
        offset is free and ``Σ_i β_i = 0``, so centring changes ``b`` only), but on rows far
        from the origin the raw kernel is nearly constant and the node systems lose the
        labels to rounding (two moons + 1e4: no convergence in 200 Newton steps; centred, the
        optimum of the uncentred data up to 1e6). Sparse rows stay sparse: their kernel
        matrix is centred instead."""
        self._center = np.asarray(X.sum(axis=0)).ravel() / X.shape[0]  # X.mean copies sparse X
        if not sp.issparse(X):
            return kernels.linear(X - self._center)
        K = kernels.linear(X)
        rows = K.mean(axis=1)
        K -= rows[:, None]
        K -= rows[None, :]
        K += rows.mean()
        return K

    def _ill_conditioned(self, K, exc):
        """The :class:`~weakcvx.SolverError` that replaces ``exc``, the failure of a node SVM,
        with its cause and fix when ``C · max_i k(x_i, x_i)`` exceeds
        :data:`ILL_CONDITIONED_PRODUCT` (the bordered systems ``K + I/(2C)`` are then too
        ill-conditioned to solve in float64); None below it, where the failure is unexpected
        and is raised as it is."""
        product = self.C * float(np.max(np.diag(K)))
        if product <= ILL_CONDITIONED_PRODUCT:
            return None
        fix = {"linear": "the features look unscaled: standardize them "
                         "(sklearn.preprocessing.StandardScaler) or lower C",
               "rbf": "lower C",
               "precomputed": "lower C or rescale the kernel matrix"}[self.kernel]
        what = "‖x_i − x̄‖²" if self.kernel == "linear" else "k(x_i, x_i)"
        return SolverError("bnb_s3vm node SVM", getattr(exc, "status", "singular matrix"),
                           f"C · max_i {what} = {product:.3g} with kernel={self.kernel!r} "
                           f"exceeds {ILL_CONDITIONED_PRODUCT:.0e}: the node SVM's linear "
                           f"systems are too ill-conditioned to solve in float64; {fix}.")

    def predict(self, X):
        """Class labels (``classes_[1]`` where ``decision_function > 0``)."""
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(np.intp)]
