"""Learning from label proportions: ProportionSVM (alter-∝SVM, conv-∝SVM), InvCal, MeanMap.

All three take ``fit(X, bags, proportions)``: ``bags`` the bag id of each row, ``proportions``
the fraction of positives of each bag (in the order of the sorted bag ids, or a dict), or
``fit(X, targets)`` with the two-column targets of :func:`weakcvx.model_selection.bag_targets`
(what ``GridSearchCV`` splits). They predict {0, 1}.

The estimators validate the input, build the problem and store the results; the numerics are
:func:`weakcvx.local.alter_proportion_svm` (alter-∝SVM), :func:`weakcvx.solve` with
:func:`weakcvx.proportion.recover_classifier` (conv-∝SVM), :func:`weakcvx.proportion.invcal`
and :func:`weakcvx.proportion.mean_map`. ``EigenProportions`` and ``INVCAL_DENSE_MAX_BAGS`` are
re-exported from :mod:`weakcvx.proportion`.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._validation import (ESTIMATOR_ADVICE, block_rows, check_dense_size, dense_fits,
                           validate_X, warn)
from ..api import solve
from ..labelsets import Proportions
from ..local import SMO_PASSES, alter_proportion_svm, proportion_ranked_labels
from ..model_selection import (bag_proportion_error, check_bag_ids, check_bags,
                               warn_if_bags_cut)
from ..problem import WeakLabelProblem
from ..proportion import (INVCAL_DENSE_MAX_BAGS, EigenProportions, bag_mean_kernel, invcal,
                          mean_map, mean_map_statistic, recover_classifier)
from ..result import SolverError
from ._base import (KERNEL_CONSTRAINTS, KernelModelMixin, integer_seed, spread_scaled_cost,
                    standardization, standardize_wanted, standardized, verbose_logging,
                    warn_if_unscaled)

__all__ = ["ProportionSVM", "InvCal", "MeanMap", "EigenProportions",
           "INVCAL_DENSE_MAX_BAGS", "LARGE_KERNEL_DIAGONAL", "PRIMAL_MIN_ROWS",
           "FACTOR_MIN_ROWS", "FACTOR_RANK", "KERNEL_C", "LINEAR_C_DIAGONAL"]


#: ``max_i k(x_i, x_i)`` above which ``ProportionSVM`` warns that the features look unscaled
#: (linear and precomputed kernels; standardised features give about ``n_features``): SMO's
#: tolerance is on the margin scale 1 while the scores reach ``C·k(x, x)`` (timings:
#: docs/methods/llp.rst).
LARGE_KERNEL_DIAGONAL = 1e5
#: Default ``C`` of :class:`ProportionSVM` with the RBF, polynomial or a precomputed kernel
#: (the middle of Yu et al.'s grid 0.1, 1, 10).
KERNEL_C = 1.0
#: alter-∝SVM with the linear kernel: ``C=None`` is ``LINEAR_C_DIAGONAL / (mean_i ‖x_i −
#: x̄‖² + s²)`` (``s`` the ``intercept_scaling``): the product of ``C`` and the mean kernel
#: diagonal of the RBF default (1 × (1 + 1)), so that the cost does not grow with the number
#: of features (docs/methods/llp.rst, "The linear kernel's cost").
LINEAR_C_DIAGONAL = 2.0

#: Dense n × n arrays alive at the peak of a fit on the dense kernel (alter-∝SVM, InvCal), by
#: ``tracemalloc`` (docs/methods/llp.rst). The memory budget bounds that peak (see
#: KernelModelMixin).
DENSE_KERNEL_FIT_COPIES = 2


#: Rows from which alter-∝SVM with the linear kernel fits on the feature matrix
#: (:class:`weakcvx.svm.LinearOffsetSVM`, ``O(n·d)`` memory) instead of SMO on the dense
#: kernel: the two took the same time at 500 rows, and the feature path 1.2-2.6 times less
#: at 1,000 (5, 20 and 100 features; docs/methods/llp.rst, "At scale").
PRIMAL_MIN_ROWS = 1000


#: Rows from which alter-∝SVM with the RBF kernel fits on a pivoted-Cholesky factor of
#: :data:`FACTOR_RANK` columns (the Nyström features of its pivots) instead of SMO on the
#: dense kernel: at 5,000 rows the factor fit took 12.8 s against 42 s on the dense kernel, at
#: 20,000 rows 132 s against more than 600 s (docs/methods/llp.rst, "At scale"). The
#: polynomial kernel takes the factor only above the memory budget.
FACTOR_MIN_ROWS = 5000

#: Columns of that factor (rank 500 took twice the time of 200 for +0.002-0.006 accuracy).
FACTOR_RANK = 200


#: Columns of the kernel factor on which alter-∝SVM's MeanMap start runs (kernels other than
#: the linear one): a start needs the leading directions only, in ``n × 200`` memory.
MEAN_MAP_START_RANK = 200


#: ``ProportionSVM`` warns when its training labels and their complement fit the bag
#: proportions within this mean absolute error of each other: the proportions then hardly tell
#: the classes apart (every bag near one half), and the classifier's sign is not determined by
#: them (two moons in 7 bags of 64 with proportions 0.44-0.55: an inverted classifier, test
#: accuracy 0.13, bag error 0.036 against 0.038 for its complement).
ORIENTATION_MARGIN = 0.02

#: Proportions within this distance of one half are "near one half" in that warning's
#: explanation (the two moons example above: 0.44-0.55).
NEAR_HALF = 0.1


def orientation_margin(labels, bag_index, p):
    """Mean absolute bag-proportion error of the complement of ``labels`` (in {0, 1}) minus
    that of ``labels`` itself: how much the proportions prefer the labeling to its mirror.

    Examples
    --------
    >>> import numpy as np
    >>> bag_index = np.array([0, 0, 1, 1])
    >>> round(orientation_margin(np.array([1, 1, 0, 0]), bag_index, np.array([1.0, 0.0])), 3)
    1.0
    >>> round(orientation_margin(np.array([1, 0, 0, 1]), bag_index, np.array([0.5, 0.5])), 3)
    0.0
    """
    counts = np.bincount(bag_index)
    fitted = np.bincount(bag_index, weights=labels) / counts
    return float(np.mean(np.abs(1.0 - fitted - p)) - np.mean(np.abs(fitted - p)))


class _ProportionFitMixin:
    """Shared ``fit`` preamble and prediction of the proportion estimators."""

    classes_ = np.array([0, 1])
    #: ProportionSVM warns on unscaled features itself (``LARGE_KERNEL_DIAGONAL``).
    _warn_unscaled_linear = False

    #: Whether the estimator needs two distinct proportions (InvCal, MeanMap: with a single
    #: value the bag statistics cannot tell the classes apart and the model is constant).
    _needs_distinct_proportions = False
    #: Whether the model is fitted on the bags' mean rows alone (InvCal, MeanMap).
    _fits_bag_means = False

    def _validate_bags(self, X, bags, proportions):
        ids, index, p = check_bags(bags, proportions, X.shape[0])
        if np.all(p == p[0]) and p[0] in (0.0, 1.0):
            raise ValueError("`proportions` must allow both classes: some bag needs a proportion "
                             f"above 0 and some bag one below 1. Got every proportion equal to "
                             f"{p[0]:g} (one class only).")
        if self._needs_distinct_proportions and np.all(p == p[0]):
            raise ValueError(f"`proportions` must take at least two distinct values for "
                             f"{type(self).__name__} (with equal proportions the bag statistics "
                             f"cannot separate the classes). Got every proportion equal to "
                             f"{p[0]:g}; use ProportionSVM instead.")
        self.bags_ = ids
        self._bag_sizes = np.bincount(index, minlength=ids.size)
        self.classes_ = np.array([0, 1])
        return index, p

    def _warn_if_bags_split(self, targets):
        """:func:`weakcvx.model_selection.warn_if_bags_cut` for the bags of ``fit``."""
        warn_if_bags_cut(type(self).__name__, self.bags_, getattr(self, "_bag_sizes", None),
                         targets)

    def _check_training_scores(self, scores, objective=0.0, solver=None):
        """Refuse a non-finite model (:class:`~weakcvx.SolverError`) and warn when every
        training point falls in one class: the proportions always need both (``fit`` refuses
        all-0 and all-1 proportions), so such a model is degenerate. Seen with a huge ``C``
        (1e300: ``C·Σ hinge`` dominates and the one-class labeling, with no hinge loss, wins)
        and with features of scale 1e-6 (the kernel is ~1e-12: the SVM term vanishes)."""
        scores = np.asarray(scores, dtype=float)
        name = type(self).__name__
        if not (np.all(np.isfinite(scores)) and np.isfinite(objective)):
            raise SolverError(solver or name, "non-finite model",
                              f"{name} produced NaN or inf scores or objective (objective "
                              f"{objective!r}); C={self._fitted_cost()!r} is likely too "
                              "large for float64 at this kernel scale: lower C or standardize "
                              "the features.")
        positive = float(np.mean(scores > 0))
        if positive in (0.0, 1.0):
            causes = []
            if getattr(self, "kernel", None) == "linear":
                causes.append("a minority class with no linear boundary (the hinge loss is "
                              "cheapest with every point on the majority side: try "
                              "kernel='rbf')")
            if not getattr(self, "standardized_", False):
                causes.append("features of tiny scale (a kernel of tiny scale makes the margin "
                              "term vanish: standardize them if they are not)")
            if hasattr(self, "C"):
                causes.append(f"C={self._fitted_cost()!r} (with a huge C one class, without "
                              "hinge loss, is the cheapest labeling; with a tiny C the data "
                              "term no longer counts)")
            if self._fits_bag_means:
                causes.append("bag means too alike to carry the classes (the model sees only "
                              "the bags' mean rows; ProportionSVM uses every row)")
            warn(f"{name} predicts class {int(positive)} for every training point although "
                 f"the bag proportions need both classes: the fit is degenerate. Possible "
                 f"causes: {'; '.join(causes)}.", UserWarning)

    def _fitted_cost(self):
        """The instance cost of the fit in progress (``C`` with its default resolved), for
        messages; ``None`` for estimators without one."""
        return getattr(self, "_fit_C", getattr(self, "C", None))

    def _warn_if_orientation_undetermined(self, scores, bag_index, p):
        """Warn when the training predictions fit the bag proportions hardly better than their
        complement (:func:`orientation_margin` below :data:`ORIENTATION_MARGIN`)."""
        labels = (np.asarray(scores) > 0).astype(float)
        if labels.min() == labels.max():
            return  # one class for every point: _check_training_scores has said so
        margin = orientation_margin(labels, bag_index, p)
        if margin >= ORIENTATION_MARGIN:
            return
        p = np.asarray(p, dtype=float)
        if np.max(np.abs(p - 0.5)) <= NEAR_HALF:
            why = (f"the proportions, all within {NEAR_HALF} of one half "
                   f"({p.min():.2f}-{p.max():.2f}), barely tell the classes apart, so the "
                   "classifier's sign may be inverted. Smaller bags or bags of more varied "
                   "proportions determine it; InvCal and MeanMap read the same weak signal "
                   "through the bag means.")
        else:
            why = (f"the proportions vary ({p.min():.2f}-{p.max():.2f}) but the predictions "
                   "do not follow them, so the features hardly separate the bags' classes "
                   "and the classifier's sign may be inverted. Check the features and their "
                   "scale; InvCal and MeanMap fit the bag means directly.")
        warn(f"{type(self).__name__}: the training predictions fit the bag proportions "
             f"hardly better than their complement (the complement's mean bag error exceeds "
             f"theirs by {margin:.3g}, less than {ORIENTATION_MARGIN}): {why}", UserWarning)

    def _dense_kernel(self, X):
        """The training kernel (without the constant of the offset) as a dense matrix."""
        check_dense_size(X.shape[0], X.shape[0], f"training kernel of {type(self).__name__}",
                         copies=DENSE_KERNEL_FIT_COPIES,
                         advice=ESTIMATOR_ADVICE if self.kernel != "linear" else "Use fewer rows")
        if self.kernel == "linear":
            K = X @ X.T
            return K.toarray() if sp.issparse(K) else np.asarray(K)
        if self.kernel == "precomputed":
            return np.asarray(self._problem_inputs(X)["kernel"]) - self.intercept_scaling ** 2
        self._resolve_gamma(X)
        return self._kernel(X)

    def _store_dual(self, X, beta, intercept):
        """Model ``f(x) = Σ_i β_i k(x_i, x) + intercept`` in the attributes the kernel mixin's
        ``decision_function`` reads."""
        self.dual_coef_ = np.asarray(beta, dtype=float)
        self.intercept_ = float(intercept)
        if self.kernel == "linear":
            self.coef_ = np.asarray(X.T @ self.dual_coef_).ravel()
        elif self.kernel != "precomputed":
            self.X_fit_ = X

    def predict(self, X):
        """Instance labels in {0, 1} (1 where ``decision_function > 0``)."""
        return (self.decision_function(X) > 0).astype(np.int64)

    def score(self, X, y, sample_weight=None):
        """Accuracy on instance labels, or minus the bag error on bag targets.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, 2)
            Either instance labels, in {0, 1} or in {−1, +1} (−1 is read as class 0, the
            convention of :func:`weakcvx.datasets.make_llp_toy`), or the two-column targets of
            :func:`weakcvx.model_selection.bag_targets`, what ``cross_val_score`` and
            ``GridSearchCV`` pass when they split bag targets.
        sample_weight : array-like of shape (n_samples,), optional
            Weights of the accuracy (instance labels only).

        Returns
        -------
        float
            With instance labels, the accuracy (the fraction of correct predictions). With bag
            targets, ``−Σ_k |p̂_k − p_k|`` over the bags of ``X``, the same number as
            :func:`weakcvx.model_selection.bag_error_scorer` (greater is better; no instance
            label is used).

        Raises
        ------
        ValueError
            When ``y`` holds other labels than {0, 1} or {−1, +1}, has another shape, or
            comes with ``sample_weight`` as bag targets.
        """
        from sklearn.metrics import accuracy_score

        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 2:
            if sample_weight is not None:
                raise ValueError("`sample_weight` is not supported when `y` is the two-column "
                                 "bag targets (the bag error weighs every bag alike).")
            self._warn_if_bags_split(y)
            return -bag_proportion_error(y, None, self.predict(X))
        if y.ndim != 1:
            raise ValueError(f"`y` must be instance labels of shape (n_samples,) or the "
                             f"two-column bag targets of shape (n_samples, 2). Got shape "
                             f"{y.shape} instead.")
        labels = set(np.unique(y).tolist())
        if labels <= {0, 1}:
            y01 = y.astype(np.int64)
        elif labels <= {-1, 1}:
            y01 = (y == 1).astype(np.int64)
        else:
            raise ValueError(f"`y` must hold instance labels in {{0, 1}} or {{-1, +1}} (or be "
                             f"the two-column bag targets). Got labels "
                             f"{sorted(labels, key=repr)[:5]} instead.")
        return float(accuracy_score(y01, self.predict(X), sample_weight=sample_weight))

    def predict_proportions(self, X, bags):
        """Predicted fraction of positives of each bag (sorted bag ids).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        bags : array-like of shape (n_samples,)
            Bag id of each row, under the rules of ``fit``: no NaN/inf, all numbers or all
            strings.

        Returns
        -------
        bag_ids : ndarray (n_bags,)
        proportions : ndarray (n_bags,)

        Raises
        ------
        ValueError
            When ``bags`` does not hold one valid bag id per row of ``X``.
        """
        y = self.predict(X)
        ids, index = check_bag_ids(bags, y.shape[0])
        return ids, np.bincount(index, weights=y.astype(float)) / np.bincount(index)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.target_tags.required = True
        tags.input_tags.pairwise = getattr(self, "kernel", None) == "precomputed"
        return tags


class ProportionSVM(_ProportionFitMixin, KernelModelMixin, ClassifierMixin, BaseEstimator):
    r"""∝SVM: a large-margin classifier learned from bag label proportions (Yu et al. 2013).

    The model is the MIP over the unknown instance labels ``y``

    .. math::

        \min_{y, w, b} \tfrac12\|w\|^2 + C \sum_i \max(0, 1 - y_i(w\cdot\phi(x_i) + b))
            + C_p \sum_k \max(0, |\tilde p_k(y) - p_k| - \varepsilon),
        \qquad \tilde p_k(y) = \frac{|\{i \in I_k : y_i = 1\}|}{n_k},

    solved by ``relaxation``:

    - ``"alternating"`` (alter-∝SVM, default): SVM fit with offset (libsvm's SMO on the kernel
      matrix, warm-started from the previous solve: :mod:`weakcvx._smo`; with the linear kernel
      from :data:`PRIMAL_MIN_ROWS` rows, LIBLINEAR's coordinate descent on ``X`` itself,
      :class:`weakcvx.svm.LinearOffsetSVM`, in ``O(n·d)`` memory, dense or sparse ``X``;
      with the RBF kernel from :data:`FACTOR_MIN_ROWS` rows (the polynomial kernel above the
      memory budget), the same on a rank-:data:`FACTOR_RANK` pivoted-Cholesky factor, the
      model then a kernel expansion on its pivots) and the exact per-bag label update
      (Prop. 1, by sorting), with ``C*`` annealed from ``1e-5·C`` by ``×1.5`` up to ``C``, from
      ``n_init`` uniformly random labelings (run in parallel with joblib, ``n_jobs``); the
      restart with the lowest objective is kept. With ``init="mean_map"`` (default) one more
      run starts from MeanMap's scores ranked within each bag and is kept unless that
      restart's objective is below ``1/1.25`` of its own. With ``eps = 0`` this is the paper's
      absolute proportion loss.
    - ``"label_generation"`` (conv-∝SVM): the proportion term becomes the hard constraint
      ``|p̃_k(y) − p_k| ≤ ε`` (label set :class:`~weakcvx.labelsets.Proportions`), the offset
      is a constant feature (``intercept_scaling``), and the convex hull of the label kernels is
      solved by label generation (:func:`weakcvx.solve`). Two predictors are built and the
      one with the lower training bag error ``Σ_k |p̂_k − p_k|`` is kept (``recovery_``; see
      Notes): the paper's rank-1 recovery, ``ỹ`` the rank-1 approximation of
      ``M = Σ_t μ_t y_t y_tᵀ`` with the sign whose training-bag proportions match best and
      ``f(x) = Σ_i α_i ỹ_i k(x_i, x)`` (eq. 22), and the SVM of the solver's feasible labels
      ``result_.labels``. ``oracle="eigen"`` is the paper's violated-label heuristic
      (:class:`~weakcvx.proportion.EigenProportions`); ``"sorting"`` the library's
      linearise-and-sort search.

    Standardise the features (``sklearn.preprocessing.StandardScaler``): the costs ``C`` and
    ``C_p`` are balanced for kernels of order 1–100, and on raw features the SVM solvers slow
    down by orders of magnitude. ``fit`` warns when ``max_i k(x_i, x_i)`` exceeds
    :data:`LARGE_KERNEL_DIAGONAL` (1e5) for the linear or a precomputed kernel; alter-∝SVM then
    caps each SMO fit (:data:`weakcvx.local.SMO_PASSES`) and warns when a cap is reached.

    With few large bags (fewer than about 20, proportions near the class prior) the proportion
    term barely tells labelings apart and :class:`InvCal` was the more accurate on held-out
    data (docs/methods/llp.rst, "Held-out check on real data").

    Parameters
    ----------
    relaxation : {"alternating", "label_generation"}, default="alternating"
    kernel : {"linear", "rbf", "poly", "precomputed"}, default="linear"
    C : float or None, default=None
        Cost of the instance hinge losses (the paper's grid: 0.1, 1, 10). ``None``:
        ``KERNEL_C`` = 1, except for alter-∝SVM with ``kernel="linear"``:
        ``LINEAR_C_DIAGONAL / (mean ‖x − x̄‖² + s²)`` over the training rows as fitted
        (standardized by default; ``s`` the ``intercept_scaling``), so that ``C`` times the
        mean kernel diagonal is 2, as with the RBF default, whatever the number of features
        (``2 / (n_features + 1)`` on standardized rows). Chosen on seven UCI sets and synthetic
        data in 50–2,000 dimensions; conv-∝SVM measured no better with it, so keeps 1
        (docs/methods/llp.rst, "The linear kernel's cost").
    C_p : float, default=10.0
        Cost of the proportion loss of alter-∝SVM (paper's grid: 1, 10, 100). The middle of
        the grid, chosen on five UCI sets (docs/methods/llp.rst, "C_p = 10").
    eps : float, default=0.0
        Tolerance on the proportions (``eps >= 0``).
    gamma, degree, coef0 : kernel parameters (``gamma="mean_distance"``: 1 / mean squared
        distance).
    intercept_scaling : float, default=1.0
        Constant feature that models the offset of conv-∝SVM (alter-∝SVM has a true offset).
    standardize : bool or "auto", default="auto"
        Center and scale every feature to unit variance inside ``fit`` (``mean_``,
        ``scale_``; sparse ``X`` is scaled only and stays sparse): ``C`` and ``C_p`` mean the
        same on every data set, and the SVM solvers do not crawl on features of large scale.
        ``"auto"`` does so unless every non-zero row has the same Euclidean norm (rows already
        normalized, e.g. tf-idf: scaling each column would give the rarest terms the largest
        weights; on text-like rows 0.67 against 0.92 as given, docs/methods/llp.rst,
        "Normalized rows"); ``standardized_`` records which.
        ``coef_`` and ``intercept_`` are on the features as given; the RBF and polynomial
        kernels are taken between standardized points. ``False`` uses ``X`` as given (a
        precomputed kernel always is): scaling each feature changes which separator has the
        largest margin, so use it where the units mean something (as in Yu et al.'s Fig. 1
        toy). Adopted after a probe on raw UCI features (docs/methods/llp.rst, "Unscaled
        features").
    n_init : int, default=10
        Random restarts of alter-∝SVM (the paper's 10).
    init : {"mean_map", "random"}, default="mean_map"
        alter-∝SVM: ``"mean_map"`` adds one run started from MeanMap's scores ranked within
        each bag (:func:`weakcvx.local.proportion_ranked_labels`, annealing from ``0.1·C``) and
        keeps it unless a random restart's objective is below ``1/1.25`` of its own (see
        Notes);
        ``"random"``: the paper's uniformly random restarts only. Chosen on seven UCI sets
        outside the reported ones (docs/methods/llp.rst, "alter-∝SVM's MeanMap start").
    oracle : {"sorting", "eigen"}, default="sorting"
        Violated-label search of conv-∝SVM.
    tol : float or None, default=None
        Relative decrease that stops an alternation loop (alter-∝SVM, default 1e-4) or the
        cutting planes (conv-∝SVM, default 1e-2, chosen for time at equal accuracy:
        docs/methods/llp.rst, "conv-∝SVM's stopping rule").
    max_iter : int, default=50
        Alternations per annealing step, or cutting-plane rounds.
    random_state : int, RandomState or None
    n_jobs : int or None
        Parallel restarts (joblib threads: the SMO releases the GIL, and ``K`` is shared, not
        copied); the result does not depend on it.
    verbose : int

    Attributes
    ----------
    classes_ : ndarray [0, 1]
    bags_ : ndarray
        Sorted unique bag ids of the training data.
    standardized_ : bool
        Whether ``fit`` standardized the features (see ``standardize``).
    mean_, scale_ : ndarray (n_features,)
        The standardization of ``standardize`` (zeros and ones without it).
    transduction_ : ndarray (n_samples,)
        Instance labels in {0, 1} found for the training points.
    objective_ : float
        alter-∝SVM: the objective of the kept restart; conv-∝SVM: the master value.
    restart_objectives_ : ndarray (n_init,)
        alter-∝SVM only: objectives of the random restarts.
    start_ : {"initial", "random"}
        alter-∝SVM only: whether the kept run started from MeanMap's ranking or at random.
    dual_coef_, intercept_, coef_ (linear kernel)
        ``f(x) = Σ_i β_i k(x_i, x) + b`` over the training rows ``X_fit_``; on the factor path
        (RBF kernel from :data:`FACTOR_MIN_ROWS` rows, polynomial above the memory budget)
        over the factor's pivots.
    result_ : SolveResult (conv-∝SVM)
    recovery_ : {"rank1", "labels"}
        conv-∝SVM only: the predictor kept, the rank-1 recovery of eq. 22 (``"rank1"``) or the
        SVM ``f = Σ_i α_i y_i k(x_i, ·)`` of the feasible labels ``y = result_.labels`` with
        ``α`` the dual solution of ``J(y)`` (``"labels"``).
    recovery_errors_ : dict
        conv-∝SVM only: training bag error ``Σ_k |p̂_k − p_k|`` of each candidate.

    See Also
    --------
    InvCal, MeanMap : the paper's baselines.
    weakcvx.model_selection.bag_error_scorer : tuning without instance labels.

    Notes
    -----
    **Orientation and large bags.** The hinge term is symmetric under
    ``(w, b, y) → (−w, −b, −y)``; only the proportion term tells the classes apart. When it is
    weak (``C_p`` small against ``C``: a flip moves the proportion term by ``C_p / n_k`` and
    the hinge term by up to ``2C``) the annealed labels follow the margin whichever side is
    called positive, so each restart of alter-∝SVM also scores the mirrored solution and keeps
    the better. The proportion term constrains the *number* of positives per bag, not which
    instances: with few bags whose proportions all lie near the overall class ratio, the
    widest-margin split of the data with the right counts need not be the class split, and it
    can be anti-correlated with it. The optimiser is then right and the model prefers the wrong
    labeling, and so does the bag-level validation error; no rule based on the proportions can
    repair this, and it shows as a large spread over splits (see ``weakcvx bench llp``). Bags
    that differ in their proportions identify the labeling. ``fit`` warns when the training
    predictions fit the proportions hardly better than their complement
    (:func:`orientation_margin` below :data:`ORIENTATION_MARGIN`): there the sign is not
    determined by the proportions.

    **The MeanMap start** (``init="mean_map"``). On real data (overlapping classes, bags near
    the class ratio) the objective ranks labelings poorly: restarts of nearly equal objective
    end on labelings of quite different accuracy, the true labeling's objective lies well above
    the best restart's, and the best random restart is often a worse one. One run started from
    the bag-mean model's ranking stays near MeanMap's consistent estimate while it refines the
    instance labels. On the Fig. 1 toy that start is the trap, and the random restarts that
    escape it end far below its objective; hence the rule: the start is kept unless a random
    restart's objective is below half of its own (measurements: docs/methods/llp.rst,
    "alter-∝SVM's MeanMap start").

    **Recovery of conv-∝SVM on imbalanced bags.** The rank-1 approximation of
    ``M = Σ_t μ_t y_t y_tᵀ`` is the top singular vector of the weighted working set. When
    the labels are imbalanced every ``y_t`` shares a large mean part (most entries −1), the
    top singular vector follows it, and the rank-1 predictor thresholded at 0 calls nearly
    every point negative. ``fit`` therefore also builds the SVM of the feasible labels
    ``result_.labels`` and keeps the candidate with the lower *training bag error* (no instance
    label is used; ties keep the rank-1 model): :func:`weakcvx.proportion.recover_classifier`.

    The measurements behind these choices are in docs/methods/llp.rst.

    References
    ----------
    F. X. Yu, D. Liu, S. Kumar, T. Jebara, S.-F. Chang. ∝SVM for learning with label
    proportions. ICML 2013.

    Examples
    --------
    >>> import numpy as np
    >>> import weakcvx as wc
    >>> X, y_true, bags, p = wc.datasets.make_llp_toy(50, random_state=0)
    >>> clf = wc.ProportionSVM(kernel="linear", random_state=0).fit(X, bags, p)
    >>> float(np.mean(clf.predict(X) == (y_true > 0)))
    1.0
    """

    _parameter_constraints = {
        "relaxation": [StrOptions({"alternating", "label_generation"})],
        "C": [Interval(Real, 0, None, closed="neither"), None],
        "C_p": [Interval(Real, 0, None, closed="left")],
        "eps": [Interval(Real, 0, None, closed="left")],
        "n_init": [Interval(Integral, 1, None, closed="left")],
        "init": [StrOptions({"mean_map", "random"})],
        "oracle": [StrOptions({"sorting", "eigen"})],
        "tol": [Interval(Real, 0, None, closed="neither"), None],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "n_jobs": [Interval(Integral, None, -1, closed="right"),
                   Interval(Integral, 1, None, closed="left"), None],  # joblib: 0 has no meaning
        "verbose": ["verbose"],
        "standardize": ["boolean", StrOptions({"auto"})],
        **KERNEL_CONSTRAINTS,
    }

    def __init__(self, relaxation="alternating", kernel="linear", C=None, C_p=10.0, eps=0.0,
                 gamma="mean_distance", degree=3, coef0=1.0, intercept_scaling=1.0,
                 standardize="auto", n_init=10, init="mean_map", oracle="sorting", tol=None,
                 max_iter=50, random_state=None, n_jobs=None, verbose=0):
        self.relaxation = relaxation
        self.kernel = kernel
        self.C = C
        self.C_p = C_p
        self.eps = eps
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.intercept_scaling = intercept_scaling
        self.standardize = standardize
        self.n_init = n_init
        self.init = init
        self.oracle = oracle
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, bags, proportions=None):
        """Fit from bags and their label proportions.

        Parameters
        ----------
        X : array-like (sparse for the linear kernel) of shape (n_samples, n_features)
        bags : array-like of shape (n_samples,), or (n_samples, 2) bag targets
            Bag id of each row (or :func:`weakcvx.model_selection.bag_targets`).
        proportions : array-like of shape (n_bags,) or dict, optional
            Fraction of positives of each bag, by sorted bag id (None with bag targets).

        Returns
        -------
        self
        """
        X = self._validate_X(X)
        bag_index, p = self._validate_bags(X, bags, proportions)
        X = self._fit_standardization(X)
        self._fit_C = self._instance_cost(X)
        unscaled = self._warn_large_kernel(X)
        if self.relaxation == "label_generation":
            self._fit_convex(X, bag_index, p)
            return self._unstandardize_linear()
        features, pivots = self._alternating_features(X, unscaled)
        K = None if features is not None else self._dense_kernel(X)
        initial = (self._mean_map_start(X, K, bag_index, p, features)
                   if self.init == "mean_map" else None)
        with verbose_logging(self.verbose):
            res = alter_proportion_svm(K, bag_index, p, C=self._fit_C, C_p=self.C_p,
                                       eps=self.eps, n_init=self.n_init,
                                       random_state=self.random_state,
                                       n_jobs=self.n_jobs,
                                       tol=1e-4 if self.tol is None else self.tol,
                                       max_iter=self.max_iter, verbose=self.verbose,
                                       initial=initial, features=features,
                                       smo_passes=SMO_PASSES if unscaled else None)
        if pivots is None:
            self._store_dual(X, res["beta"], res["intercept"])
            scores = (np.asarray(X @ self.coef_).ravel() if features is not None
                      else K @ res["beta"]) + res["intercept"]
        else:
            scores = self._store_nystrom(X, features, pivots, features.T @ res["beta"],
                                         res["intercept"])
        self._check_training_scores(scores, res["value"], "alter-proportion-SVM")
        self._warn_if_orientation_undetermined(scores, bag_index, p)
        self.transduction_ = (res["labels"] > 0).astype(np.int64)
        self.objective_ = float(res["value"])
        self.restart_objectives_ = res["values"]
        self.start_ = res["start"]
        self.n_iter_ = int(res["n_fits"])
        return self._unstandardize_linear()

    def _instance_cost(self, X):
        """``C`` with its default resolved on the rows ``X`` as fitted (standardized by
        default): ``KERNEL_C``, or for alter-∝SVM with the linear kernel
        :func:`~weakcvx.estimators._base.spread_scaled_cost` of ``LINEAR_C_DIAGONAL``."""
        if self.C is not None:
            return float(self.C)
        if self.kernel == "linear" and self.relaxation == "alternating":
            return spread_scaled_cost(LINEAR_C_DIAGONAL, X, self.intercept_scaling)
        return KERNEL_C

    def _fit_standardization(self, X):
        """Set ``standardized_``, ``mean_`` and ``scale_``
        (:func:`~weakcvx.estimators._base.standardization`) and return ``X`` standardized;
        a precomputed kernel, and with ``standardize="auto"`` rows of equal norm
        (:func:`~weakcvx.estimators._base.rows_normalized`), are returned as they are."""
        self.mean_, self.scale_ = np.zeros(X.shape[1]), np.ones(X.shape[1])
        self.standardized_ = (self.kernel != "precomputed"
                              and standardize_wanted(X, self.standardize))
        if not self.standardized_:
            return X
        self.mean_, self.scale_ = standardization(X)
        if sp.issparse(X):  # scaled only (it stays sparse): the offset keeps the mean
            self.mean_ = np.zeros(X.shape[1])
        return standardized(X, self.mean_, self.scale_)

    def _standardized(self, X):
        if not self.standardized_:
            return X
        return standardized(X, self.mean_, self.scale_)

    def _unstandardize_linear(self):
        """With the linear kernel, ``w·(x − m)/σ + b = (w/σ)·x + (b − (w/σ)·m)``: the model on
        the features as given (the kernels' models standardize the rows they score)."""
        if self.kernel == "linear":
            self.coef_ = self.coef_ / self.scale_
            self.intercept_ = float(self.intercept_ - self.coef_ @ self.mean_)
        return self

    def _decision_validated(self, X):
        if self.kernel in ("rbf", "poly"):
            X = self._standardized(X)
        return super()._decision_validated(X)

    def _alternating_features(self, X, unscaled):
        """``(features, pivots)`` on which alter-∝SVM fits in the feature space, or
        ``(None, None)`` for SMO on the dense kernel: ``X`` itself for the linear kernel from
        :data:`PRIMAL_MIN_ROWS` rows (not on unscaled features, where coordinate descent
        crawls); for the RBF kernel from :data:`FACTOR_MIN_ROWS` rows, and for the polynomial
        kernel above the memory budget only, a pivoted-Cholesky factor ``R`` of
        :data:`FACTOR_RANK` columns and its pivots (docs/methods/llp.rst, "At scale": the
        kernel ``(x·z + 1)³`` (``gamma=1``, its former width; not measured again with the
        data's width) on standardized rows kept too little of its trace in 200
        columns, training accuracy 0.822 against 0.906 on the dense kernel at 5,000 rows)."""
        n = X.shape[0]
        if self.kernel == "linear" and not unscaled and n >= PRIMAL_MIN_ROWS:
            return X, None
        if (self.kernel == "rbf" and n >= FACTOR_MIN_ROWS) or (
                self.kernel == "poly" and not dense_fits(n, n, copies=DENSE_KERNEL_FIT_COPIES)):
            return self._kernel_factor(X, FACTOR_RANK)
        return None, None

    def _mean_map_start(self, X, K, bag_index, p, features=None):
        """Labels of alter-∝SVM's extra start: MeanMap's scores ranked within each bag
        (:func:`weakcvx.local.proportion_ranked_labels`). MeanMap runs on the features of the
        kernel: ``X`` for the linear kernel (dense or sparse), else a pivoted-Cholesky factor
        ``R`` with ``K ≈ R Rᵀ`` of at most :data:`MEAN_MAP_START_RANK` columns (its ridge
        penalty is invariant under rotations of the features; the exact eigen-factor doubled
        the fit's peak memory to 4 dense n × n arrays with the RBF kernel at n = 1500): the
        leading columns of the fit's own factor ``features`` when it has one. None when every
        proportion is equal (MeanMap's statistic is then undefined)."""
        if np.all(p == p[0]):
            return None
        from ..kernels import factor

        if self.kernel == "linear":
            features = X
        elif features is not None:  # the fit's own factor: its leading columns
            features = features[:, :MEAN_MAP_START_RANK]
        else:
            features = factor(K, rank=min(K.shape[0], MEAN_MAP_START_RANK))
        with warnings.catch_warnings():  # only a start: the alternation refines it
            warnings.simplefilter("ignore", ConvergenceWarning)
            scores = mean_map(features if sp.issparse(features) else np.asarray(features),
                              bag_index, p)["scores"]
        return proportion_ranked_labels(scores, bag_index, p)

    def _warn_large_kernel(self, X):
        """Warn when ``max_i k(x_i, x_i)`` exceeds :data:`LARGE_KERNEL_DIAGONAL` (linear or
        precomputed kernel): unscaled features, on which the SVM solvers crawl. Returns whether
        it warned (alter-∝SVM then caps its SMO fits: :data:`weakcvx.local.SMO_PASSES`)."""
        if self.kernel == "linear":
            diagonal = (np.asarray(X.multiply(X).sum(axis=1)).ravel() if sp.issparse(X)
                        else np.einsum("ij,ij->i", X, X))
        elif self.kernel == "precomputed":
            diagonal = np.diag(X)
        else:
            return False
        largest = float(np.max(diagonal)) if diagonal.size else 0.0
        warn_if_unscaled("ProportionSVM", "max_i k(x_i, x_i)", largest, LARGE_KERNEL_DIAGONAL,
                         "the SVM solvers need many more iterations (breast_cancer as given: "
                         "100x slower than standardized)")
        return largest > LARGE_KERNEL_DIAGONAL

    def _fit_convex(self, X, bag_index, p):
        """conv-∝SVM: label generation over ``Proportions``, then the recovery of
        :func:`weakcvx.proportion.recover_classifier` (eq. 22)."""
        labelset_cls = EigenProportions if self.oracle == "eigen" else Proportions
        # the user's bag ids (same sorted order as bag_index) so that errors name them
        labelset = labelset_cls(self.bags_[bag_index], p, eps=self.eps)
        problem = WeakLabelProblem(labelset=labelset, costs=self._fit_C,
                                   **self._problem_inputs(X))
        seed = integer_seed(self.random_state)
        # one start: the relaxation is convex (the paper runs conv-∝SVM once). The paper's
        # stopping rule (patience 1) and its SimpleMKL's "less than 5 iterations" (5 MKLGL
        # alternations a round); timed against patience 3 and 20 (docs/methods/llp.rst)
        with verbose_logging(self.verbose):
            result = solve(problem, method="label_generation", n_init=1, max_iter=self.max_iter,
                           tol=1e-2 if self.tol is None else self.tol, patience=1,
                           max_alternations=5, random_state=seed, verbose=self.verbose)
        recovered = recover_classifier(problem, result, bag_index, p)
        self.recovery_ = recovered["recovery"]  # the first on ties: the paper's rank 1
        self.recovery_errors_ = recovered["errors"]
        beta, scores = recovered["beta"], recovered["scores"]
        self._check_training_scores(scores, result.value, "label_generation")
        self._warn_if_orientation_undetermined(scores, bag_index, p)
        s2 = float(self.intercept_scaling) ** 2
        self._store_dual(X, beta, s2 * beta.sum())
        self.transduction_ = (scores > 0).astype(np.int64)
        self.objective_ = float(result.value)
        self.result_ = result
        self.n_iter_ = int(result.n_iter)
        return self


class InvCal(_ProportionFitMixin, KernelModelMixin, ClassifierMixin, BaseEstimator):
    r"""Inverse calibration (Rüping 2010): regression of the bag proportions' logits on bag means.

    Each bag becomes a super-instance, its mean ``m_k = (1/n_k) Σ_{i∈I_k} φ(x_i)``, with the
    soft target ``t_k = log(p_k / (1 − p_k))`` (the inverse of the sigmoid calibration
    ``p = 1 / (1 + e^{−f})``), and an ε-insensitive support vector regression is fitted:

    .. math::

        \min_{w, b} \tfrac12\|w\|^2 + C \sum_k \max(0, |w\cdot m_k + b - t_k| - \varepsilon).

    The kernel between bag means is ``A K Aᵀ`` (``A`` averages over bags), so
    ``f(x) = Σ_k β_k (1/n_k) Σ_{i∈I_k} k(x_i, x) + b`` and an instance is positive when
    ``f(x) > 0``. Proportions of 0 or 1 have infinite logits: they are moved to
    ``1/(2n_k)`` and ``1 − 1/(2n_k)`` (half a point from the edge; 1/4 and 3/4 for a bag of
    one row, which half a point would move to the middle).

    The n × n kernel is formed only when it is needed and fits: the linear kernel goes through
    the bag means of ``X`` (``(A X)(A X)ᵀ``, dense or sparse ``X``), and the RBF and polynomial
    kernels are summed into ``A K Aᵀ`` by blocks of rows when the dense kernel exceeds the
    memory budget (:func:`weakcvx.proportion.bag_mean_kernel`).

    Parameters
    ----------
    kernel : {"linear", "rbf", "poly", "precomputed"}, default="linear"
    C : float, default=1.0
    eps : float, default=0.0
        Width of the insensitive tube on the logits (the paper's grid: 0, 0.01, 0.1).
    gamma, degree, coef0 : kernel parameters.
    solver : {"auto", "cvxopt", "libsvm"}, default="auto"
        Solver of the bag-level SVR dual (a QP with ``n_bags`` variables, twice that when
        ``eps > 0``). ``"cvxopt"``: dense interior point, cost O(n_bags³) and insensitive to
        the scale of the features; ``"libsvm"``: scikit-learn's ``SVR`` (SMO, ``tol=1e-4``),
        fast on standardised features but slow on large raw ones (see Notes). ``"auto"``:
        CVXOPT up to :data:`~weakcvx.proportion.INVCAL_DENSE_MAX_BAGS` (1000) bags, LIBSVM
        above.

    Attributes
    ----------
    dual_coef_ : ndarray (n_samples,)
        Coefficients over training points (``Aᵀβ``).
    intercept_ : float
    coef_ : ndarray (n_features,), linear kernel only
    logit_targets_ : ndarray (n_bags,)
        The regression targets ``t_k``.

    Notes
    -----
    SMO stops when the largest KKT violation, on the gradient ``K_bags a − t``, falls below its
    tolerance; the targets are logits of order 1, so with large bag-mean kernel entries (raw
    features) it needs a tiny relative precision and many millions of iterations, while the
    interior point's iterations do not depend on the scale: hence the default
    (:func:`weakcvx.proportion.invcal`; timings in docs/methods/llp.rst, "InvCal's solver").
    Standardising the features is still advisable: the ridge penalty ``½‖w‖²`` treats all
    features alike.

    References
    ----------
    S. Rüping. SVM classifier estimation from group probabilities. ICML 2010.

    Examples
    --------
    >>> import weakcvx as wc
    >>> X, y, bags, p = wc.datasets.make_llp_toy(50, random_state=0)
    >>> clf = wc.InvCal().fit(X, bags, p)
    >>> clf.predict(X[:3]).shape
    (3,)
    """

    _parameter_constraints = {
        "C": [Interval(Real, 0, None, closed="neither")],
        "eps": [Interval(Real, 0, None, closed="left")],
        "solver": [StrOptions({"auto", "cvxopt", "libsvm"})],
        **KERNEL_CONSTRAINTS,
    }

    intercept_scaling = 0.0  # the SVR has its own offset
    _needs_distinct_proportions = True
    _fits_bag_means = True

    def __init__(self, kernel="linear", C=1.0, eps=0.0, gamma="mean_distance", degree=3,
                 coef0=1.0, solver="auto"):
        self.kernel = kernel
        self.C = C
        self.eps = eps
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.solver = solver

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, bags, proportions=None):
        """Fit on bag means and proportion logits (arguments as :meth:`ProportionSVM.fit`)."""
        X = self._validate_X(X)
        bag_index, p = self._validate_bags(X, bags, proportions)
        K, K_bags = self._invcal_kernels(X, bag_index, len(p))
        res = invcal(K, bag_index, p, C=self.C, eps=self.eps, solver=self.solver,
                     bag_kernel=K_bags)
        self.logit_targets_ = res["targets"]
        self._store_dual(X, res["beta"], res["intercept"])
        scores = (K @ res["beta"] + res["intercept"] if K is not None
                  else self._decision_validated(X))
        self._check_training_scores(scores, 0.0, res["solver"])
        return self

    def _invcal_kernels(self, X, bag_index, n_bags):
        """``(K, None)`` with the dense training kernel (``kernel="precomputed"``), or
        ``(None, A K Aᵀ)`` without it (:func:`weakcvx.proportion.bag_mean_kernel`): the
        linear kernel from the bag means of ``X`` (dense or sparse), the RBF and polynomial
        kernels by blocks of rows at every size (the dense kernel served only the training
        scores: on 19,020 rows of magic it took 3.1 GiB and 9.5 s against 75 MiB and 3.2 s
        by blocks, the same decision values to 3e-14)."""
        n = X.shape[0]
        if self.kernel == "linear":
            return None, bag_mean_kernel(X, bag_index, n_bags)
        if self.kernel == "precomputed":
            return self._dense_kernel(X), None
        self._resolve_gamma(X)
        return None, bag_mean_kernel(X, bag_index, n_bags, kernel=self._kernel,
                                     block_rows=block_rows(n))


class MeanMap(_ProportionFitMixin, ClassifierMixin, BaseEstimator):
    r"""MeanMap (Quadrianto et al. 2009), binary linear form.

    The conditional exponential model ``p(y | x) = e^{y wᵀx} / (2 cosh wᵀx)``, ``y = ±1``, has
    log-likelihood ``Σ_i y_i wᵀx_i − log 2cosh(wᵀx_i)``; its only dependence on the unknown
    labels is ``μ_xy = Σ_i y_i x_i``. MeanMap estimates the class means ``μ₊, μ₋`` from the
    bag means by least squares (``m_k = p_k μ₊ + (1 − p_k) μ₋``, the bags sharing the class
    conditionals), sets ``μ̂_xy = n₊ μ₊ − n₋ μ₋`` with ``n₊ = Σ_k n_k p_k``, and minimises

    .. math::

        \frac{1}{n}\Big(\sum_i \log 2\cosh(w^\top x_i) - w^\top \hat\mu_{xy}\Big)
            + \lambda \|w\|^2,

    a smooth convex problem (L-BFGS). ``x`` carries a constant feature 1 for the offset. With
    the true ``μ_xy`` (e.g. pure bags of equal size) this is exactly L2-regularised logistic
    regression with scores ``2wᵀx``.

    Parameters
    ----------
    lam : float, default=1.0
        Ridge weight λ per instance (the ∝SVM paper's grid: 0.1, 1, 10). Chosen on five UCI
        sets against that grid (docs/methods/llp.rst, "MeanMap's λ = 1").

    Attributes
    ----------
    coef_ : ndarray (n_features,)
    intercept_ : float
    class_means_ : ndarray (2, n_features)
        Estimated ``μ₋`` and ``μ₊`` (with the constant feature dropped).

    Notes
    -----
    docs/design.rst §3.6 and the reference implementation of Patrini et al. (2014) write the
    objective with sums, ``Σ_i log 2cosh(wᵀx_i) − wᵀμ̂_xy + λ'‖w‖²``; here it is divided by ``n``,
    so ``λ' = nλ`` and ``λ`` means the same at every sample size. The estimate ``μ̂_xy`` usually
    lies outside the set ``{Σ_i t_i x_i : |t_i| ≤ 1}`` that true labels can reach; then the
    likelihood term decreases without bound along some direction and only ``λ`` keeps ``w``
    finite: weak regularisation lets the estimation noise of ``μ̂_xy`` pick the direction,
    hence the default ``λ = 1``, i.e. ``λ' = n``, far above the paper's grid read in the sum
    form.

    References
    ----------
    N. Quadrianto, A. J. Smola, T. S. Caetano, Q. V. Le. Estimating labels from label
    proportions. JMLR 10, 2009.
    G. Patrini, R. Nock, P. Rivera, T. Caetano. (Almost) no label no cry. NIPS 2014.

    Examples
    --------
    >>> import weakcvx as wc
    >>> X, y, bags, p = wc.datasets.make_llp_toy(50, random_state=0)
    >>> clf = wc.MeanMap().fit(X, bags, p)
    >>> clf.coef_.shape
    (2,)
    """

    _parameter_constraints = {"lam": [Interval(Real, 0, None, closed="neither")]}
    _needs_distinct_proportions = True
    _fits_bag_means = True

    def __init__(self, lam=1.0):
        self.lam = lam

    def mean_map_statistic(self, X, bag_index, p):
        """``μ̂_xy`` (constant feature last) and the class means, from bag means and ``p``
        (:func:`weakcvx.proportion.mean_map_statistic`)."""
        return mean_map_statistic(X, bag_index, p)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, bags, proportions=None):
        """Fit (arguments as :meth:`ProportionSVM.fit`; sparse ``X`` stays sparse)."""
        X = validate_X(self, X, accept_sparse="csr", dtype=np.float64, ensure_min_samples=2)
        bag_index, p = self._validate_bags(X, bags, proportions)
        res = mean_map(X, bag_index, p, lam=self.lam)
        self._check_training_scores(res["scores"], res["objective"], "L-BFGS-B")
        self.coef_ = res["w"][:-1]
        self.intercept_ = float(res["w"][-1])
        self.objective_ = float(res["objective"])
        self.class_means_ = res["class_means"][::-1, :-1]
        self.n_iter_ = int(res["n_iter"])
        return self

    def decision_function(self, X):
        """``wᵀx + b``; positive means class 1."""
        check_is_fitted(self, "coef_")
        X = validate_X(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return np.asarray(X @ self.coef_).ravel() + self.intercept_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.pairwise = False
        return tags
