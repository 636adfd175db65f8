"""Shared parts of the kernel estimators: parameter constraints, the kernel/feature problem and
the decision function ``f(x) = Σ_i β_i k(x_i, x)``."""

from __future__ import annotations

import contextlib
import logging
import math
import re
import sys
import warnings
from fractions import Fraction
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, InvalidParameterError, StrOptions
from sklearn.utils import check_random_state
from sklearn.utils.extmath import row_norms
from sklearn.utils.sparsefuncs import mean_variance_axis
from sklearn.utils.validation import check_is_fitted

from .. import kernels
from .._validation import (ESTIMATOR_ADVICE, block_rows, check_dense_size, constant_columns,
                           dense_fits, format_bytes, memory_budget, validate_X, warn)
from ..ladder import EXACT_TIME_LIMIT  # default time_limit of relaxation="exact"
from ..problem import append_constant_feature
from ..svm import GRAM_LIMIT

logger = logging.getLogger("weakcvx")

#: ``max_i ‖x_i‖²`` above which the linear kernel estimators warn that the features look
#: unscaled; standardized features give ``n_features``. Chosen ten times below the smallest
#: scale that broke S3VM on gap clusters (docs/user_guide.rst, "Scaling the features").
UNSCALED_LINEAR_DIAGONAL = 1e10

#: Largest rank of the factor used when the dense kernel does not fit the memory budget (and
#: for the RBF kernel above ``RBF_FACTOR_MIN_ROWS`` rows).
LOW_RANK_MAX = 1000
#: Default ranks below which a factor cut by the memory budget warns: S3VM, 5% labeled, two
#: seeds, ranks 10 / 30 / 100 / 300 / 1000: magic (10,000 rows) 0.636 / 0.729 / 0.815 / 0.829
#: / 0.833, spambase 0.763 / 0.815 / 0.817 / 0.886 / 0.904 (dense kernel 0.904).
LOW_RANK_WARN = 300
#: n × rank float64 arrays the default rank of the low-rank path keeps within the memory
#: budget: the peak of a whole fit on the factor, by ``tracemalloc``, rounded up
#: (docs/design.rst §7).
LOW_RANK_COPIES = 4
#: Rows above which the RBF kernel enters through that factor even when the dense kernel fits
#: the budget: beyond ``weakcvx.svm.GRAM_LIMIT`` the solvers would factor the dense kernel to
#: its numerical rank, about n columns for the RBF kernel, and the fit jumps from seconds to
#: minutes; the rank-``LOW_RANK_MAX`` factor kept the accuracy (docs/design.rst §7).
RBF_FACTOR_MIN_ROWS = GRAM_LIMIT


KERNEL_CONSTRAINTS = {
    "kernel": [StrOptions({"linear", "rbf", "poly", "precomputed"})],
    "gamma": [StrOptions({"mean_distance", "scale", "wide"}),
              Interval(Real, 0, None, closed="neither")],
    "degree": [Interval(Integral, 1, None, closed="left")],
    "coef0": [Interval(Real, None, None, closed="neither")],
    "intercept_scaling": [Interval(Real, 0, None, closed="left")],
}


@contextlib.contextmanager
def round_cap_is_the_stopping_rule(active):
    """While ``active``: a solve that stops at its iteration cap raises no ConvergenceWarning,
    because an estimator's default round cap is then its documented stopping rule (the rounded
    labels stop changing before the relaxation's value does), not a failure. An explicit
    ``max_iter`` from the user keeps the warning."""
    with warnings.catch_warnings():
        if active:
            warnings.filterwarnings("ignore", message=".*stopped with status 'max_iter'",
                                    category=ConvergenceWarning)
        yield


@contextlib.contextmanager
def verbose_logging(verbose):
    """Make ``verbose > 0`` visible: while active, INFO records of the ``"weakcvx"`` logger go
    to stderr. Nothing changes when the user has configured logging: a handler other than the
    library's ``NullHandler`` on the ``"weakcvx"`` logger, or root handlers that already
    receive its INFO records (e.g. ``logging.basicConfig(level=logging.INFO)``).

    Use it around the body of ``fit``::

        with verbose_logging(self.verbose):
            result = solve(problem, ..., verbose=self.verbose)

    Parameters
    ----------
    verbose : int or bool
        Nothing is changed when it is 0 / False.
    """
    lib = logging.getLogger("weakcvx")
    configured = (any(not isinstance(h, logging.NullHandler) for h in lib.handlers)
                  or (logging.getLogger().handlers and lib.getEffectiveLevel() <= logging.INFO))
    if not verbose or configured:
        yield
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    level = lib.level
    lib.addHandler(handler)
    if lib.getEffectiveLevel() > logging.INFO:
        lib.setLevel(logging.INFO)
    try:
        yield
    finally:
        lib.removeHandler(handler)
        lib.setLevel(level)


def n_positive_from_fraction(fraction, n_unlabeled):
    """Number of positives among ``n_unlabeled`` points for a ``positive_fraction``:
    ``fraction · n_unlabeled`` rounded half up (0.5 · 5 → 3), the rule of
    :class:`weakcvx.labelsets.SemiSupervised` for the default labeled class ratio.

    The product is computed exactly from the decimal value of ``fraction`` (so ``0.29 · 50``
    is 14.5 and gives 15, although the float product is 14.499999999999998).

    Parameters
    ----------
    fraction : float in [0, 1]
    n_unlabeled : int

    Returns
    -------
    int

    Examples
    --------
    >>> n_positive_from_fraction(0.5, 5), n_positive_from_fraction(0.5, 7)
    (3, 4)
    """
    product = Fraction(repr(float(fraction))) * int(n_unlabeled)
    return int(math.floor(product + Fraction(1, 2)))


def rounded_labels_model(problem, result):
    r"""The model an estimator predicts with: the SVM of the result's feasible ``labels``.

    For ``"exact"``, ``"alternating"`` and ``"sdp"`` the result already is that SVM (its
    working set is ``[labels]``). For ``"label_generation"`` the result holds the relaxation,
    the MKL mixture ``f = Σ_t μ_t Σ_i α_i b_{ti} k(x_i, ·)`` over the working set, and its
    rounding ``labels``; the estimators predict with the SVM of ``labels`` instead
    (``α`` from ``J(labels)``), so that ``predict`` on the training points, ``transduction_`` /
    ``labels_`` and ``objective_ = J(labels)`` describe one classifier. The mixture spreads
    ``μ`` over labelings that disagree, and its sign on a training point often differs from the
    rounding's label. The SVM of the rounded labels also generalises better: chosen on the
    test accuracy of S3VM (9 sets) and MaxMarginClustering (7 sets) with their defaults; the
    figures are in docs/methods/s3vm.rst ("The classifier").

    Returns
    -------
    object with ``alpha``, ``working_set`` and ``mu``
    """
    from types import SimpleNamespace

    if result.method != "label_generation":
        return result
    labels = np.asarray(result.labels, dtype=float)
    alpha = result.extra.get("labels_alpha")  # the rounding solved J(labels) already
    if alpha is None:
        _, alpha = problem.J(labels)
    return SimpleNamespace(alpha=alpha, working_set=[labels], mu=np.ones(1))


def warn_if_unscaled(estimator, statistic, value, threshold, consequence):
    """One warning for every estimator whose solvers crawl on unscaled features.

    Parameters
    ----------
    estimator : str
        Name in the message.
    statistic : str
        What ``value`` is, e.g. ``"max_i k(x_i, x_i)"``.
    value, threshold : float
        Warn when ``value > threshold`` (each estimator measures its own threshold).
    consequence : str
        What happens on such features (with the measurement behind the threshold).
    """
    if value > threshold:
        warn(f"{estimator}: {statistic} = {value:.3g} exceeds {threshold:.0e}: the "
             f"features look unscaled, and {consequence}. Standardize the features "
             "first (sklearn.preprocessing.StandardScaler).", UserWarning)


#: Kernel estimators on their features as given warn when the widest feature's standard
#: deviation exceeds this many times the median feature's (constant features left out): the RBF
#: and polynomial kernels then follow the widest features. Chosen on 15 raw sets (the 14 shipped
#: UCI sets and digits 3/8, S3VM() at 10% labels, split seeds 1200-1201): it flags the 7 where
#: standardizing gained 0.04-0.21 (heart, pima, german, spambase, wdbc, australian, crx; ratios
#: 8-19,000) and none of those within 0.012 either way (digits 1.5, musk, elephant; magic at 3.2
#: gained 0.006); sonar (1.8) and bupa (2.8) gained 0.06 / 0.05 unflagged.
FEATURE_SCALE_RATIO = 5.0


def warn_if_scales_differ(estimator, X, kernel):
    """Warn when the features of ``X`` (dense or sparse) are on very different scales for the
    ``kernel`` (``FEATURE_SCALE_RATIO``): an RBF or polynomial kernel on such features is
    decided by the widest few, whatever the others say."""
    if X.shape[0] < 2 or X.shape[1] < 2:
        return
    variance = mean_variance_axis(X, axis=0)[1] if sp.issparse(X) else X.var(axis=0)
    std = np.sqrt(variance[variance > 0])
    if std.size < 2:
        return
    ratio = float(std.max() / np.median(std))
    if ratio > FEATURE_SCALE_RATIO:
        warn(f"{estimator}: the widest feature of `X` (column {int(np.argmax(variance))}"
             f") has a standard deviation {ratio:.3g} times the median feature's, so the "
             f"{kernel!r} kernel follows the widest features and hardly sees the others "
             "(measured with S3VM on raw UCI sets: 0.04-0.21 accuracy below the same data "
             "standardized). Standardize the features first "
             "(sklearn.preprocessing.StandardScaler) unless their units mean something.",
             UserWarning)


def affordable_rank(n):
    """Columns of an n-row kernel factor that the memory budget holds, ``LOW_RANK_COPIES`` copies
    of it (the factor, its construction and the solver's copies) included."""
    return memory_budget() // (LOW_RANK_COPIES * 8 * (n + 1))


def warn_if_rows_identical(estimator, X):
    """Warn when every row of ``X`` (dense or sparse) is the same point: no model can tell
    such rows apart, so whatever labels the fit returns (one class, or a split with no support
    in the data) are arbitrary. Two passes over ``X`` (column maxima and minima), no copy."""
    if X.shape[0] < 2:
        return
    spread = X.max(axis=0) - X.min(axis=0)
    spread = spread.toarray() if sp.issparse(spread) else np.asarray(spread)
    if not np.any(spread):
        warn(f"{estimator}: all {X.shape[0]} rows of `X` are the same point, so no model can "
             "tell them apart and the fit's labels are arbitrary. Check the features (a "
             "column selection or a fill value may have erased them).", UserWarning)


def spread_scaled_cost(product, X, intercept_scaling):
    """``product / (mean_i ‖x_i − x̄‖² + s²)``: the linear-kernel cost whose product with the
    mean centred kernel diagonal (offset feature ``s`` included) is ``product``, so that it
    does not grow with the number of features (the linear defaults of :class:`S3VM` and
    :class:`MultiInstanceSVM`)."""
    spread = kernels.mean_squared_spread(X) + float(intercept_scaling) ** 2
    return product / max(spread, np.finfo(float).tiny)


def linear_center(X):
    r"""The mean :math:`\bar x` on which the linear kernel estimators centre dense rows ``X``
    (the offset, a regularised constant feature or a free ``b``, then need not make up for a
    common offset of the features), or ``None``: for sparse rows (centring would make them
    dense) and for rows already centred, :math:`\|\bar x\|^2 \le 10^{-12}` times their mean
    squared distance to it (standardized features: centring would only copy ``X``).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1e4, 1.0], [1e4 + 2, -1.0]])
    >>> linear_center(X)
    array([10001.,     0.])
    >>> linear_center(X - X.mean(axis=0)) is None
    True
    """
    if sp.issparse(X):
        return None
    center = X.mean(axis=0)
    if float(center @ center) <= 1e-12 * kernels.mean_squared_spread(X):
        return None
    return center


def rows_normalized(X, rtol=1e-6):
    """Whether every non-zero row of ``X`` has the same Euclidean norm (to ``rtol``): rows a
    user normalized, such as scikit-learn's ``TfidfVectorizer`` output, whose scale lives in
    the row norm; standardizing each column of them gives the rarest columns the largest
    weights.

    Examples
    --------
    >>> import numpy as np
    >>> rows_normalized(np.array([[0.6, 0.8], [1.0, 0.0], [0.0, 0.0]]))
    True
    >>> rows_normalized(np.array([[1.0, 1.0], [1.0, 0.0]]))
    False
    """
    squares = (np.asarray(X.multiply(X).sum(axis=1)).ravel() if sp.issparse(X)
               else np.einsum("ij,ij->i", X, X))
    squares = squares[squares > 0]
    return squares.size > 1 and bool(squares.max() - squares.min() <= 2 * rtol * squares.max())


def standardize_wanted(X, standardize):
    """What a ``standardize`` parameter (``True``, ``False`` or ``"auto"``) asks for on the
    training rows ``X``: ``"auto"`` standardizes unless the rows are normalized
    (:func:`rows_normalized`)."""
    return not rows_normalized(X) if standardize == "auto" else bool(standardize)


def standardization(X):
    """``(mean, scale)`` of the columns of ``X`` for ``(X − mean) / scale``: the means, and the
    standard deviations with 1 for constant columns (:func:`standardized` scales sparse ``X``
    only, so that it stays sparse).

    Examples
    --------
    >>> import numpy as np
    >>> mean, scale = standardization(np.array([[0.0, 5.0], [2.0, 5.0]]))
    >>> mean.tolist(), scale.tolist()
    ([1.0, 5.0], [1.0, 1.0])
    """
    n = X.shape[0]
    if sp.issparse(X):
        mean, var = mean_variance_axis(X, axis=0)
    else:
        mean, var = X.mean(axis=0), X.var(axis=0)
    return mean, np.where(constant_columns(var, mean, n), 1.0, np.sqrt(var))


def standardized(X, mean, scale):
    """``(X − mean) / scale`` (:func:`standardization`); sparse ``X`` is scaled only."""
    if sp.issparse(X):
        return (X @ sp.diags(1.0 / scale)).tocsr()
    return (X - mean) / scale


def integer_seed(random_state):
    """An int seed for the solvers from ``random_state`` (None, int or RandomState): an int is
    kept, otherwise one draw from :func:`sklearn.utils.check_random_state` (so that a
    RandomState instance works and None gives fresh randomness)."""
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        return int(random_state)
    return int(check_random_state(random_state).randint(2**31 - 1))


def votes_of_pairs(confidences, n_classes):
    r"""One column per class from the decisions of the class pairs :math:`(i, j)`, :math:`i < j`
    in that order (positive: class :math:`j`), as scikit-learn's
    ``SVC(decision_function_shape="ovr")`` reports its one-against-one votes: the votes
    :math:`v_k` of class :math:`k` plus its summed confidence :math:`c_k` (the decisions for
    it minus those against it) mapped into :math:`(-\tfrac13, \tfrac13)`,

    .. math::

        s_k = v_k + \frac{c_k}{3\,(|c_k| + 1)},

    so the confidence breaks ties of votes and never overturns a vote; the class of the
    largest :math:`s_k` wins.

    Examples
    --------
    >>> import numpy as np
    >>> votes_of_pairs(np.array([[1.0, 2.0, -0.5]]), 3)   # pairs (0, 1), (0, 2), (1, 2)
    array([[-0.25,  2.2 ,  1.2 ]])
    """
    confidences = np.asarray(confidences, dtype=float)
    votes = np.zeros((confidences.shape[0], n_classes))
    summed = np.zeros_like(votes)
    pair = 0
    for i in range(n_classes):
        for j in range(i + 1, n_classes):
            decision = confidences[:, pair]
            votes[:, j] += decision > 0
            votes[:, i] += decision <= 0
            summed[:, j] += decision
            summed[:, i] -= decision
            pair += 1
    return votes + summed / (3.0 * (np.abs(summed) + 1.0))


#: Problems named, at most, in a warning that several of them gave (:func:`_reissue_warnings`).
NAMED_PROBLEMS = 8


def _reissue_warnings(records, n_problems, one, several):
    """Re-issue the warnings of the two-class problems of a fit with more than two classes,
    named (a warning of one class's problem is otherwise a puzzle) and once per kind: the
    problems whose warnings differ only in their numbers are named together, with how many of
    the ``n_problems`` gave it and the first one's message (26 classes against the rest on
    letter drifted to one class in 14 problems: one warning, not 14). ``one`` and ``several``
    are formats of the problems' names, e.g. ``"class {} against the rest"``."""
    groups = {}
    for problem, caught in records:
        shape = re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "#", str(caught.message))
        groups.setdefault((caught.category, shape), []).append((problem, caught))
    for (category, _), items in groups.items():
        names = [problem for problem, _ in items]
        if len(names) == 1:
            prefix = one.format(names[0])
        else:
            listed = ", ".join(names[:NAMED_PROBLEMS]) + (", ..." if len(names) > NAMED_PROBLEMS
                                                           else "")
            prefix = (f"{several.format(listed)} ({len(names)} of {n_problems} problems; the "
                      f"first one's message)")
        # the user's call: this function, the loop, the estimator's step, fit, its wrapper
        warnings.warn(f"{prefix}: {items[0][1].message}", category, stacklevel=6)


#: Scores against the rest within this fraction of ``max(1, |largest|)`` of the largest are a
#: tie (:meth:`OneVsRestMixin._first_step_assignment`): the first step's rows on the margins
#: of several classes differ by solver noise, 1e-8 (box QP) to 1e-5 (LIBSVM).
TIE_TOL = 1e-4


class OneVsRestMixin:
    """More than two classes, one against the rest (scikit-learn's
    ``SVC(decision_function_shape="ovr")`` reports the same shape): ``estimators_[k]`` is the
    estimator's own two-class fit of class ``classes_[k]`` (its class 1) against the other
    labeled classes (0); :meth:`KernelModelMixin.decision_function` then has one column per
    class, and the class of the largest column is predicted. :meth:`_fit_pairs` then may
    refine it one pair of classes against the other (``pair_estimators_``)."""

    #: Attributes of a two-class fit that a fit one against the rest does not have.
    _two_class_attributes = ("dual_coef_", "X_fit_", "coef_", "intercept_", "result_",
                             "history_", "beta_", "converged_", "status_")
    #: Attributes of the pairwise step (:meth:`_fit_pairs`).
    _pair_attributes = ("pair_estimators_", "_pair_rows")

    def _fit_one_vs_rest(self, X, classes, fit_class):
        """Fit ``estimators_``: ``fit_class(binary, k)`` fits ``binary`` (an unfitted clone)
        for class ``k`` against the rest and returns it. Returns the scores on the rows ``X``
        (validated), one column per class."""
        fraction = getattr(self, "positive_fraction", None)
        if fraction is not None and not isinstance(fraction, str):  # "auto" is per class
            estimator = type(self).__name__
            raise ValueError(
                f"`positive_fraction` is the fraction of classes_[1] among the unlabeled points, "
                f"for two classes; `y` holds {classes.size} ({classes.tolist()}), fitted one "
                f"against the rest with each class's own default count. Got positive_fraction="
                f"{fraction!r}: leave the default, or fit {estimator}(positive_fraction=p) per class "
                "on a two-class target (class k as 1, the others 0, -1 unlabeled).")
        for name in self._two_class_attributes + self._pair_attributes:
            self.__dict__.pop(name, None)  # of an earlier fit
        self.classes_, self.n_classes_ = classes, classes.size
        self.estimators_, caught = [], []
        for k in range(classes.size):
            self._log("%s: class %s against the rest (%d of %d)", classes[k], k + 1,
                      classes.size)
            with self._recorded_warnings(caught, str(classes[k])):
                binary = fit_class(self._binary_clone(), k)
            binary.classes_ = np.array([0, 1])
            self.estimators_.append(binary)
        _reissue_warnings(caught, classes.size, "class {} against the rest",
                          "classes {} against the rest")
        self.n_iter_ = np.array([e.n_iter_ for e in self.estimators_])
        self.costs_ = self.estimators_[0].costs_  # they depend on the labeled rows alone
        return self._decision_validated(X)

    def _first_step_assignment(self, X, codes, scores):
        """Every row's class code for the pairs: its label, else the largest score against the
        rest. Scores within ``TIE_TOL · max(1, |top|)`` of the largest tie (the first step's
        searches leave rows on the margins of several classes, at −1, up to solver noise);
        a tie goes to the tied class of the nearest labeled row (the kernel's similarity with
        ``kernel="precomputed"``, else the Euclidean distance), not to the first class, so
        that renaming the classes does not move rows between pairs."""
        from sklearn.metrics.pairwise import euclidean_distances

        top = scores.max(axis=1, keepdims=True)
        tied = scores >= top - TIE_TOL * np.maximum(1.0, np.abs(top))
        assigned = np.where(codes >= 0, codes, scores.argmax(axis=1))
        rows = np.flatnonzero((codes < 0) & (tied.sum(axis=1) > 1))
        labeled = np.flatnonzero(codes >= 0)
        if rows.size == 0 or labeled.size == 0:
            return assigned
        if self.kernel == "precomputed":
            similarity = np.asarray(X[np.ix_(rows, labeled)], dtype=float)
        else:
            similarity = -euclidean_distances(X[rows], X[labeled], squared=True)
        for r, row in enumerate(rows):
            allowed = tied[row, codes[labeled]]
            if allowed.any():
                assigned[row] = codes[labeled[allowed][np.argmax(similarity[r, allowed])]]
        return assigned

    def _fit_pairs(self, X, codes, assigned, fit_pair):
        """Fit ``pair_estimators_``, one per pair of classes ``i < j`` (scikit-learn's order):
        ``fit_pair(binary, rows, y_known, n_positive)`` fits ``binary`` (an unfitted clone) on
        the ``rows`` that are labeled ``i`` or ``j`` (``codes``, −1 unlabeled) or assigned to
        either (``assigned``: every row's class code after the fit against the rest), with
        ``y_known`` = +1 for ``j``, −1 for ``i``, 0 unlabeled, and ``n_positive`` the unlabeled
        rows assigned to ``j``; returns it. Returns the scores on the rows ``X`` (validated),
        one column per class (:func:`votes_of_pairs`)."""
        self.pair_estimators_, self._pair_rows, caught = [], [], []
        n_pairs = self.n_classes_ * (self.n_classes_ - 1) // 2
        for i in range(self.n_classes_):
            for j in range(i + 1, self.n_classes_):
                rows = np.flatnonzero((assigned == i) | (assigned == j))
                y_known = np.where(codes[rows] == j, 1, np.where(codes[rows] == i, -1, 0))
                n_positive = int(np.sum((y_known == 0) & (assigned[rows] == j)))
                names = f"{self.classes_[i]} and {self.classes_[j]}"
                self._log("%s: classes %s (%d of %d)", names, len(self.pair_estimators_) + 1,
                          n_pairs)
                with self._recorded_warnings(caught, names):
                    binary = fit_pair(self._binary_clone(), rows, y_known, n_positive)
                binary.classes_ = np.array([0, 1])
                self.pair_estimators_.append(binary)
                self._pair_rows.append(rows)
        _reissue_warnings(caught, n_pairs, "classes {}", "class pairs {}")
        return self._decision_validated(X)

    def _binary_clone(self):
        """An unfitted clone for one two-class problem, with this fit's features."""
        from sklearn.base import clone

        # verbose=1 logs one line per problem (with 26 classes a fit's own lines were 2,010)
        binary = clone(self).set_params(verbose=max(0, int(self.verbose) - 1))
        binary.n_features_in_ = self.n_features_in_
        if hasattr(self, "feature_names_in_"):
            binary.feature_names_in_ = self.feature_names_in_
        binary.classes_ = np.array([0, 1])  # read by S3VM's fit; BetaSVM's sets its own
        # one problem of several: its scores are compared across problems, not signed
        # (BetaSVM's collapse warning reads it)
        binary._one_of_many = True
        return binary

    def _log(self, message, *args):
        """A progress line of the per-class loops when ``verbose``."""
        if self.verbose:
            with verbose_logging(self.verbose):
                logger.info(message, type(self).__name__, *args)

    @staticmethod
    @contextlib.contextmanager
    def _recorded_warnings(records, problem):
        """Record the warnings of one two-class problem as ``(problem, warning)`` in
        ``records``, for :func:`_reissue_warnings`."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield
        records.extend((problem, caught_warning) for caught_warning in caught)

    def _forget_one_vs_rest(self):
        """Drop the attributes of an earlier fit with more than two classes."""
        for name in ("estimators_", "n_classes_") + self._pair_attributes:
            self.__dict__.pop(name, None)


class KernelModelMixin:
    """Kernel handling for estimators whose model is ``f(x) = Σ_i β_i k(x_i, x)``.

    An offset is modelled, as in LIBLINEAR, by a constant feature of value ``intercept_scaling``
    (``k ← k + intercept_scaling²``): the SVM without offset of docs/design.rst §1 stays exact, and the
    offset is regularised like the other weights.

    The memory budget bounds the peak of the whole fit, not the kernel alone: ``fit`` holds
    ``_fit_kernel_copies`` dense n × n arrays at its peak (the kernel, its symmetry and PSD
    checks, the solver's workspace), set per estimator from ``tracemalloc`` peaks
    (docs/design.rst §7). Above the
    budget the estimators that can use a low-rank factor do (:meth:`_problem_inputs`; with the
    RBF kernel already above :data:`RBF_FACTOR_MIN_ROWS` rows); the others stop with
    :class:`~weakcvx.MemoryBudgetError` (:meth:`_dense_problem_inputs`).
    """

    #: Dense n × n float64 arrays alive at the peak of ``fit`` on the dense kernel path: the
    #: ``tracemalloc`` peak of S3VM and MaxMarginClustering, rounded up (docs/design.rst §7).
    _fit_kernel_copies = 4
    #: Whether :meth:`_problem_inputs` warns on unscaled features with the linear kernel
    #: (estimators with a check of their own turn it off).
    _warn_unscaled_linear = True
    #: Kernels that take sparse ``X`` as it is (the others get a dense copy in
    #: :meth:`_validate_X`): the linear kernel everywhere; an estimator whose every use of the
    #: rows goes through :func:`weakcvx.kernels.rbf` adds ``"rbf"`` (sparse products, only the
    #: kernel itself dense).
    _sparse_kernels = ("linear",)

    def _validate_params(self):
        """scikit-learn's parameter check, and ``gamma`` not a bool (an ``Interval`` of reals
        lets ``True`` through, and the kernel then failed with a list of widths that omitted
        this estimator's own options)."""
        super()._validate_params()
        if isinstance(self.gamma, (bool, np.bool_)):
            options = sorted(next(c for c in self._parameter_constraints["gamma"]
                                  if isinstance(c, StrOptions)).options)
            raise InvalidParameterError(
                f"The 'gamma' parameter of {type(self).__name__} must be one of "
                f"{options} or a positive number. Got {self.gamma!r} instead.")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # see _validate_X
        return tags

    def _validate_X(self, X, reset=True):
        """``X`` checked as scikit-learn does; sparse ``X`` stays sparse (CSR) with the kernels
        of ``_sparse_kernels`` (the linear kernel), and the other kernels, computed from dense
        rows, get a dense copy within the memory budget (``MemoryBudgetError`` above it, naming
        the linear kernel)."""
        X = validate_X(self, X, reset=reset, accept_sparse="csr", dtype=np.float64,
                       ensure_min_samples=2 if reset else 1)
        if reset and self.kernel != "precomputed":
            warn_if_rows_identical(type(self).__name__, X)
            if self.kernel in ("rbf", "poly") and not getattr(self, "standardize", False) \
                    and not getattr(self, "_one_of_many", False):  # once, not per problem
                warn_if_scales_differ(type(self).__name__, X, self.kernel)
        if self.kernel not in self._sparse_kernels and sp.issparse(X):
            check_dense_size(X.shape[0], X.shape[1], what="copy of the sparse `X` (the "
                             f"{self.kernel!r} kernel is computed from dense rows)",
                             advice="Use the linear kernel (kernel='linear'), which keeps "
                                    "X sparse, fewer rows")
            X = X.toarray()
        return X

    def _problem_inputs(self, X, dense_only=False):
        """Return kwargs for :class:`WeakLabelProblem` (``kernel=`` or ``features=``) and keep
        what prediction needs. ``dense_only``: never the low-rank factor (the caller has
        checked the memory budget). ``kernel_rank_``: the factor's columns, None without one."""
        s = float(self.intercept_scaling)
        self.kernel_rank_ = None
        if self.kernel == "linear":
            self._gamma = None
            if self._warn_unscaled_linear and X.shape[0]:
                sq_norms = row_norms(X, squared=True)  # X.multiply(X) would copy X twice
                warn_if_unscaled(type(self).__name__, "max_i ‖x_i‖² with kernel='linear'",
                                 float(sq_norms.max()), UNSCALED_LINEAR_DIAGONAL,
                                 "the offset feature (intercept_scaling) vanishes beside "
                                 "them and the solvers lose precision (measured with S3VM on "
                                 "make_gap_clusters: transductive accuracy 1.0 up to "
                                 "max ‖x‖² = 1.1e11, 0.58 from 1.3e12)")
            return {"features": append_constant_feature(X, s) if s > 0 else X}
        if self.kernel == "precomputed":
            if X.shape[0] != X.shape[1]:
                raise ValueError(f"`X` must be a square kernel matrix when kernel='precomputed'. "
                                 f"Got shape {X.shape}.")
            K = kernels.check_kernel_matrix(X, name="X", psd=True)
            self._gamma = None
        else:
            self._resolve_gamma(X)
            if self._use_low_rank(X.shape[0], dense_only):
                features = self._low_rank_features(X, s)
                self.kernel_rank_ = features.shape[1] - (s > 0)
                return {"features": features}
            K = self._kernel(X)
            K += s * s  # K is ours: no second n × n array
            # an RBF kernel plus a constant is PSD by construction (polynomial kernels are
            # checked: coef0 < 0 or a fractional degree can make them indefinite)
            return {"kernel": K, "check_psd": self.kernel != "rbf"}
        return {"kernel": K + s * s, "check_psd": False}  # checked as `X` above

    def _resolve_gamma(self, X):
        """``_gamma``, the RBF / polynomial width of :meth:`_gamma_to_resolve` resolved on the
        training rows ``X``."""
        _, self._gamma = kernels.kernel_function(
            self.kernel, gamma=self._gamma_to_resolve(), degree=self.degree, coef0=self.coef0,
            X_fit=X)

    def _gamma_to_resolve(self):
        """The ``gamma`` that :func:`weakcvx.kernels.kernel_function` resolves on the training
        data: the parameter itself (an estimator that chooses its width in ``fit`` returns the
        width it chose)."""
        return self.gamma

    def _use_low_rank(self, n, dense_only=False):
        """Whether the kernel of ``n`` training rows enters through the low-rank factor: when
        its dense form exceeds the memory budget, or for the RBF kernel above
        :data:`RBF_FACTOR_MIN_ROWS` rows."""
        if dense_only:
            return False
        if not dense_fits(n, n, copies=self._fit_kernel_copies):
            logger.info("%s: the dense %d x %d kernel exceeds the memory budget; using a "
                        "low-rank factor", type(self).__name__, n, n)
            return True
        if self.kernel == "rbf" and n > RBF_FACTOR_MIN_ROWS:
            logger.info("%s: %d rows, above RBF_FACTOR_MIN_ROWS = %d; using a low-rank factor "
                        "of the RBF kernel", type(self).__name__, n, RBF_FACTOR_MIN_ROWS)
            return True
        return False

    def _dense_problem_inputs(self, X):
        """:meth:`_problem_inputs` for estimators that need the dense kernel: above the memory
        budget they stop with a message instead of switching to a factor."""
        if self.kernel in ("rbf", "poly"):
            check_dense_size(X.shape[0], X.shape[0],
                             f"training kernel of {type(self).__name__} (it needs the dense "
                             "kernel)", copies=self._fit_kernel_copies,
                             advice=ESTIMATOR_ADVICE)
        return self._problem_inputs(X, dense_only=True)

    def _low_rank_features(self, X, s, rank=None, return_pivots=False, tol=1e-10):
        """Pivoted-Cholesky factor ``R`` (``K ≈ R Rᵀ``) and the offset column, computed column
        by column (the n × n kernel is never formed); used when the dense kernel would exceed
        the memory budget, and for the RBF kernel above ``RBF_FACTOR_MIN_ROWS`` rows
        (docs/design.rst §7). Default rank: ``LOW_RANK_COPIES`` factors fit in the
        budget (the factor, its construction and the solver's copies), at most
        ``LOW_RANK_MAX`` columns. With ``return_pivots`` also the pivots ``P`` (``R[P]`` is
        lower triangular: ``R = K[:, P] R[P]⁻ᵀ``, the Nyström factor of the pivots). ``tol``:
        fewer columns once the residual trace is below ``tol`` times the kernel's trace
        (:func:`weakcvx.kernels.pivoted_cholesky_blocked`)."""
        n = X.shape[0]
        budget_cut = False
        if rank is None:
            rank = int(min(n, LOW_RANK_MAX, max(1, affordable_rank(n))))
            budget_cut = rank < min(n, LOW_RANK_WARN)
            logger.info("%s: a rank-%d pivoted Cholesky factor of the %d x %d kernel",
                        type(self).__name__, rank, n, n)
        if self.kernel == "rbf":
            diagonal = np.ones(n)
        else:
            diagonal = (self._gamma * np.einsum("ij,ij->i", X, X) + self.coef0) ** self.degree
        # kernel columns by blocks (BLAS-3), faster than column by column (docs/design.rst §7)
        R, pivots = kernels.pivoted_cholesky_blocked(
            diagonal, lambda idx: self._kernel(X, X[idx]), rank, tol=tol, return_pivots=True)
        if budget_cut and R.shape[1] == rank:  # the budget, not the kernel, stopped the factor
            warn(f"{type(self).__name__}: the memory budget of {format_bytes(memory_budget())} "
                 f"allows a rank-{rank} factor of the {n} x {n} kernel (up to {LOW_RANK_MAX} "
                 f"columns, {format_bytes(LOW_RANK_COPIES * 8 * (n + 1))} of budget each): a "
                 "coarse approximation of the kernel, which can cost accuracy. Raise the "
                 "budget with weakcvx.set_config(memory_budget=...) or use fewer rows.",
                 UserWarning)
        R = np.hstack([R, np.full((n, 1), s)]) if s > 0 else R
        return (R, pivots) if return_pivots else R

    def _kernel_factor(self, X, rank, tol=1e-10):
        """``(R, pivots)``: a pivoted-Cholesky factor of at most ``rank`` columns of the RBF or
        polynomial kernel (width resolved on ``X``; fewer once the residual trace is below
        ``tol`` times the trace), for fits in the kernel's feature space
        (:meth:`_store_nystrom` turns their ``w`` into a kernel expansion)."""
        self._resolve_gamma(X)
        return self._low_rank_features(X, 0.0, rank=min(X.shape[0], rank), return_pivots=True,
                                       tol=tol)

    def _store_nystrom(self, X, R, pivots, w, intercept):
        r"""Model of a linear fit ``(w, b)`` on the factor ``R = K[:, P] R[P]⁻ᵀ``: the Nyström
        features ``r(x) = k(x, X_P) R[P]⁻ᵀ`` give ``f(x) = r(x)·w + b
        = Σ_{j∈P} γ_j k(x_j, x) + b``, ``γ = R[P]⁻ᵀ w``: a kernel expansion on the pivots,
        equal on the training rows to the scores the fit saw. ``w`` of shape ``(r, k)`` and
        ``b`` of shape ``(k,)``: one such model per column (a multiclass fit). Returns those
        scores."""
        import scipy.linalg

        gamma = scipy.linalg.solve_triangular(R[pivots], w, trans="T", lower=True)
        self.dual_coef_ = gamma
        self.intercept_ = np.asarray(intercept, dtype=float) if np.ndim(intercept) \
            else float(intercept)
        self.X_fit_ = X[pivots]
        return R @ w + self.intercept_

    def _kernel(self, X, Y=None):
        """The fitted kernel (gamma resolved on the training data); picklable, unlike a closure."""
        if self.kernel == "rbf":
            return kernels.rbf(X, Y, gamma=self._gamma)
        return kernels.polynomial(X, Y, degree=self.degree, gamma=self._gamma, coef0=self.coef0)

    def _store_model(self, X, problem, result):
        """Keep the classifier ``f = Σ_i β_i k(x_i, ·)`` of a solver's result (see
        :func:`rounded_labels_model` for label generation)."""
        beta = problem.dual_coef(result.alpha, result.working_set, result.mu)
        self.dual_coef_ = beta
        s = float(self.intercept_scaling)
        if self.kernel == "linear":
            self.coef_ = np.asarray(X.T @ beta).ravel()
            self.intercept_ = s * s * beta.sum()
        else:
            self.X_fit_ = X if self.kernel != "precomputed" else None
            self.intercept_ = s * s * beta.sum()

    def decision_function(self, X):
        """Signed distance-like score ``f(x) = Σ_i β_i k(x_i, x)`` (+ offset); positive means
        ``classes_[1]``. With more than two classes (:class:`weakcvx.S3VM`,
        :class:`weakcvx.BetaSVM`) one column per class, scikit-learn's
        ``decision_function_shape="ovr"``: the score of ``estimators_[k]`` (one class against
        the rest), or with ``pair_estimators_`` the pairs' votes (:func:`votes_of_pairs`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_train) kernel values
            for ``kernel="precomputed"``.

        Returns
        -------
        ndarray of shape (n_samples,), or (n_samples, n_classes) with more than two classes
        """
        if not hasattr(self, "estimators_"):
            check_is_fitted(self, "dual_coef_")
        return self._decision_validated(self._validate_X(X, reset=False))

    def _decision_validated(self, X):
        """:meth:`decision_function` on rows already validated (in ``fit``, where validating
        again would warn about a DataFrame's feature names)."""
        if hasattr(self, "pair_estimators_"):  # pairs of classes: their votes per class
            precomputed = self.kernel == "precomputed"  # a pair's columns: its training rows
            return votes_of_pairs(np.column_stack([
                e._decision_validated(X[:, rows] if precomputed else X)
                for e, rows in zip(self.pair_estimators_, self._pair_rows)]), self.n_classes_)
        if hasattr(self, "estimators_"):  # one against the rest: a column per class
            return np.column_stack([e._decision_validated(X) for e in self.estimators_])
        if self.kernel == "linear":
            return np.asarray(X @ self.coef_).ravel() + self.intercept_
        if self.kernel == "precomputed":
            if X.shape[1] != self.dual_coef_.shape[0]:
                raise ValueError(f"`X` must have one column per training point "
                                 f"({self.dual_coef_.shape[0]}) for kernel='precomputed'. "
                                 f"Got {X.shape[1]}.")
            return X @ self.dual_coef_ + self.intercept_
        return self._chunked_kernel_dot(X) + self.intercept_

    def _chunked_kernel_dot(self, X):
        """``k(X, X_fit_) @ dual_coef_`` (a vector, or one column per class) by blocks of rows
        of about :data:`weakcvx._validation.KERNEL_BLOCK_BYTES`, over the support only.

        A training row whose coefficient is 0 adds nothing to the sum, so the kernel is
        evaluated on the rows with a nonzero coefficient (the support vectors): an SVM keeps few
        of them (S3VM on 50,000 rows of two moons: 598), and prediction then costs
        ``O(n_test · n_support)`` instead of ``O(n_test · n_train)`` (there, predicting the
        50,000 training rows: 11 s before, 0.1 s)."""
        coef = self.dual_coef_
        nonzero = np.any(coef != 0, axis=1) if coef.ndim == 2 else coef != 0
        if nonzero.all():
            support = self.X_fit_
        else:
            index = np.flatnonzero(nonzero)
            support, coef = self.X_fit_[index], coef[index]
        if support.shape[0] == 0:  # every coefficient 0: f is the offset alone
            return np.zeros((X.shape[0],) + coef.shape[1:])
        block = block_rows(support.shape[0])
        if block >= X.shape[0]:
            return self._kernel(X, support) @ coef
        return np.concatenate([self._kernel(X[i:i + block], support) @ coef
                               for i in range(0, X.shape[0], block)])
