"""Semi-supervised SVM (S3VM): WellSVM's label generation, SDP, exact and alternating."""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context, clone
from sklearn.utils._param_validation import Interval, StrOptions

from .. import kernels
from .._validation import check_not_continuous, count_missing, ravel_column, warn
from ..api import solve
from ..beta import nearest_other_rows
from ..cutting_plane import RoundPolicy, is_large
from ..rounding import labeled_cv_accuracy, supervised_scores
from ..labelsets import SemiSupervised
from ..problem import WeakLabelProblem
from ._base import (EXACT_TIME_LIMIT, KERNEL_CONSTRAINTS, KernelModelMixin, OneVsRestMixin,
                    integer_seed, linear_center, logger, n_positive_from_fraction,
                    round_cap_is_the_stopping_rule, rounded_labels_model, spread_scaled_cost,
                    verbose_logging)


def as_target_array(y):
    """``np.asarray(y)``, except that a list or tuple holding strings keeps its integer ``-1``
    (the unlabeled marker): NumPy would make an array of strings, ``'-1'`` included, which then
    reads as a third class. Such a list becomes an array of ``dtype=object``, the form
    :func:`check_semi_supervised_target` takes for string classes."""
    if isinstance(y, (list, tuple)):
        array = np.asarray(y)
        if array.dtype.kind in "US" and array.ndim == 1:
            return np.asarray(y, dtype=object)
        return array
    return np.asarray(y)


def unlabeled_mask(y):
    """Boolean mask of the rows of ``y`` marked unlabeled: the integer ``-1`` (scikit-learn's
    semi-supervised convention; for ``dtype=object`` labels too, where the other entries may
    be strings)."""
    y = as_target_array(y)
    if y.dtype.kind == "O":
        return np.array([isinstance(v, Real) and not isinstance(v, bool) and v == -1
                         for v in y.ravel()], dtype=bool).reshape(y.shape)
    return y == -1


def check_semi_supervised_target(y, n_samples):
    """Validate scikit-learn's semi-supervised targets: ``-1`` marks unlabeled points, the other
    values form exactly two classes. Returns ``(classes, y_known)`` with ``y_known`` in
    {+1 (classes[1]), −1 (classes[0]), 0 (unlabeled)}.

    The checks are those of :func:`check_semi_supervised_classes`, which takes more than two
    classes.
    """
    classes, codes = check_semi_supervised_classes(y, n_samples, max_classes=2)
    return classes, one_vs_rest_known(codes, 1)


def one_vs_rest_known(codes, k):
    """``y_known`` of class ``k`` against the rest: +1 where ``codes == k``, −1 on the other
    labeled rows, 0 on the unlabeled ones (``codes == -1``)."""
    return np.where(codes < 0, 0.0, np.where(codes == k, 1.0, -1.0))


def check_semi_supervised_classes(y, n_samples, max_classes=None):
    """Validate scikit-learn's semi-supervised targets: ``-1`` marks unlabeled points, the other
    values form at least two classes (at most ``max_classes``). Returns ``(classes, codes)``
    with ``codes[i]`` the index of row i's class in ``classes`` and −1 for unlabeled rows.

    As in :class:`sklearn.semi_supervised.SelfTrainingClassifier`, string class labels are
    accepted in an array of ``dtype=object`` whose unlabeled entries are the integer ``-1``
    (a list such as ``["yes", "no", -1]`` is read as one); an array of strings (``dtype`` str)
    is refused, since it cannot hold that integer.

    Warns (``UserWarning``) when ``y`` looks like the modelling layer's ``y_known`` (exactly
    the values -1, 0, +1 with 0 in more than two thirds of the rows: there 0 is unknown, here -1 is
    unlabeled) and when no row is unlabeled; a NaN in ``y`` is refused with the hint to mark
    unlabeled rows with -1, and so is the string ``'-1'`` among string classes (a CSV read as
    text), which would otherwise be a class. As scikit-learn's classifiers, a column vector
    (n, 1) is raveled with a ``DataConversionWarning`` and a regression target (non-integer
    floats) is refused ("Unknown label type").
    """
    if y is None:
        raise ValueError("This estimator requires y to be passed, but the target y is None: "
                         "give the class of each point and -1 for unlabeled points.")
    y = as_target_array(ravel_column(y))
    if y.ndim != 1 or y.shape[0] != n_samples:
        raise ValueError(f"`y` must be a 1-D array with one entry per row of X ({n_samples}). "
                         f"Got shape {y.shape}.")
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError(f"`y` must not contain NaN or inf.{_nan_hint(y)}")
    check_not_continuous(y)
    if y.dtype.kind in "US":
        # y.astype(object) alone keeps a string '-1', which is then a third class
        fix = ("y = y.astype(object); y[y == '-1'] = -1" if np.any(y == y.dtype.type("-1"))
               else "y = y.astype(object), with the integer -1 for unlabeled points")
        raise ValueError("`y` must be numeric, or of dtype object for string classes, with the "
                         "integer -1 marking unlabeled points (scikit-learn's semi-supervised "
                         f"convention). Got dtype {y.dtype}: use {fix}.")
    if y.dtype.kind not in "iufO":
        fix = (": a boolean array cannot hold that -1; use y = y.astype(int) (False -> 0, "
               "True -> 1) and set the unlabeled rows to -1" if y.dtype.kind == "b" else "")
        raise ValueError("`y` must be numeric, or of dtype object for string classes, with -1 "
                         "marking unlabeled points (scikit-learn's semi-supervised convention). "
                         f"Got dtype {y.dtype}{fix}.")
    if y.dtype.kind == "O" and any(isinstance(v, str) and v.strip() == "-1" for v in y):
        raise ValueError("`y` holds the string '-1', which would be a class: the unlabeled "
                         "points are marked by the integer -1 (scikit-learn's semi-supervised "
                         "convention; a CSV read as text gives strings). Use y = "
                         "y.astype(object); y[y == '-1'] = -1 (for a pandas Series: "
                         "y = y.astype(object).where(y != '-1', -1)).")
    missing = count_missing(y) if y.dtype.kind == "O" else 0
    if missing:
        raise ValueError(f"`y` must not contain missing values (None, NaN or pandas.NA): "
                         f"{missing} of {y.size} entries are missing. If they mark the "
                         "unlabeled rows, mark them with the integer -1 instead, in an array of "
                         "dtype object (scikit-learn's semi-supervised convention).")
    labeled = ~unlabeled_mask(y)
    try:
        classes = np.unique(y[labeled])
    except TypeError:  # object labels that do not sort together (e.g. str and float)
        kinds = sorted({type(v).__name__ for v in y[labeled]})
        raise ValueError("`y` must hold class labels of one kind (all numbers or all strings) "
                         f"besides the -1 of unlabeled points. Got types {kinds}.") from None
    if y.dtype.kind == "O" and any(isinstance(v, float) and not np.isfinite(v)
                                   for v in classes):
        raise ValueError("`y` must not contain NaN or inf.")
    if max_classes is not None and classes.size > max_classes:
        raise ValueError("Only binary classification is supported: `y` must contain exactly two "
                         "classes among labeled points (entries other than -1). Got classes "
                         f"{classes.tolist()}.")
    if classes.size < 2:
        expected = "exactly two" if max_classes == 2 else "at least two"
        signs = (" -1 marks the unlabeled points, so labels in {-1, +1} leave a single class: "
                 "if -1 and +1 are your two classes, encode them as, e.g., 0/1 and the "
                 "unlabeled points as -1; if -1 already marks your unlabeled points, label "
                 "at least one point of the other class."
                 if y.dtype.kind in "iuf" and set(np.unique(y).tolist()) == {-1, 1} else "")
        raise ValueError(f"`y` must contain {expected} classes among labeled points (entries "
                         f"other than -1). Got classes {classes.tolist()}.{signs}")
    _warn_about_conventions(y, labeled, classes)
    codes = np.full(n_samples, -1, dtype=np.intp)
    codes[labeled] = np.searchsorted(classes, y[labeled])
    return classes, codes


def _nan_hint(y):
    """The hint of the NaN error of :func:`check_semi_supervised_classes`: mark the unlabeled
    rows with -1, and when -1 is already a class, recode the classes first."""
    if not np.isnan(y).any():
        return ""
    finite = y[np.isfinite(y)]
    if np.any(finite == -1):
        return (" If NaN marks the unlabeled rows: -1 is the unlabeled marker (scikit-learn's "
                "semi-supervised convention) and already one of your classes, so recode the "
                "classes first, e.g. y = np.where(np.isnan(y), -1, (y > 0).astype(int)) for "
                "classes -1/+1.")
    return (" If NaN marks the unlabeled rows, mark them with -1 instead (scikit-learn's "
            "semi-supervised convention): y = np.where(np.isnan(y), -1, y) (a pandas Series: "
            "y = y.fillna(-1)).")


def _warn_about_conventions(y, labeled, classes):
    """The two traps of a semi-supervised target: the modelling layer's {-1, 0, +1} (0 =
    unknown) given to an estimator (-1 = unlabeled), and a target with nothing unlabeled.

    Classes 0 and 1 with -1 for unlabeled rows are a legitimate scikit-learn target too; what
    tells the modelling layer's target apart is that its 0 (unknown) is most of the rows, as
    the unlabeled points of a semi-supervised problem usually are, where in a scikit-learn
    target 0 is one labeled class. The bound is two thirds of the rows: with half, a
    scikit-learn target of mostly labeled rows whose class 0 is the majority (73% labeled,
    class 0 53% of the rows) drew the warning.
    """
    if (y.dtype.kind in "iuf" and (~labeled).any() and classes.tolist() == [0, 1]
            and 3 * np.sum(y == 0) > 2 * y.size):
        warn(
            "`y` holds exactly the values -1, 0 and +1, with 0 in more than two thirds of the "
            "rows. "
            "The estimators "
            "read -1 as unlabeled "
            "and 0 and +1 as the two classes (scikit-learn's convention); the modelling layer "
            "(weakcvx.labelsets.SemiSupervised, WeakLabelProblem) reads 0 as unknown and -1/+1 "
            "as the classes. If 0 marks your unlabeled points, convert: "
            "y = np.where(y_known == 0, -1, (y_known > 0).astype(int)).",
            UserWarning)
    if labeled.all():
        warn(
            "`y` marks no row as unlabeled (-1): every point is labeled, so the fit is "
            "supervised (no unlabeled point to add). Mark the unlabeled rows with -1 "
            "(scikit-learn's semi-supervised convention).",
            UserWarning)


def check_sdp_size(estimator, n_samples):
    """Refuse ``relaxation="sdp"`` above the SDP's size limit with a message naming what the
    estimator's user can do (the estimators take no ``max_n``)."""
    from ..sdp import DEFAULT_MAX_N

    if n_samples > DEFAULT_MAX_N:
        name = type(estimator).__name__
        raise ValueError(
            f"{name}(relaxation='sdp') handles at most {DEFAULT_MAX_N} points: the SDP has "
            f"O(n²) variables (SCS takes 12-30 s at n = {DEFAULT_MAX_N}). Got n_samples="
            f"{n_samples}. Use {name}(relaxation='label_generation') (the convex-hull "
            "relaxation, which scales), or, to run the SDP anyway, build the problem and call "
            "weakcvx.solve(problem, method='sdp', max_n=...).")


class SemiSupervisedScoreMixin:
    """``score`` for semi-supervised classifiers: accuracy on the labeled rows only."""

    def score(self, X, y, sample_weight=None):
        """Accuracy on the rows of ``y`` that carry a class; rows marked ``-1`` (unlabeled, the
        convention of ``fit``) are ignored.

        So that :func:`sklearn.model_selection.cross_val_score` and
        :class:`~sklearn.model_selection.GridSearchCV` can be given the semi-supervised target
        of ``fit``: a test fold's unlabeled rows have no class to compare with and are skipped.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            True classes, ``-1`` for rows to ignore.
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        float
            Mean accuracy of ``predict(X)`` on the labeled rows (weighted by
            ``sample_weight``).

        Raises
        ------
        ValueError
            When every row of ``y`` is ``-1``.
        """
        from sklearn.metrics import accuracy_score

        y = as_target_array(y)
        labeled = ~unlabeled_mask(y)
        if y.ndim != 1 or not labeled.any():
            raise ValueError("`y` must hold at least one labeled row (an entry other than -1) "
                             f"to score. Got {int(labeled.sum())} labeled rows of {y.size}.")
        if sample_weight is not None:
            sample_weight = np.asarray(sample_weight)[labeled]
        X_labeled = X[labeled] if hasattr(X, "shape") else \
            [row for row, keep in zip(X, labeled) if keep]
        return accuracy_score(y[labeled], self.predict(X_labeled), sample_weight=sample_weight)


#: ``S3VM`` warns when the imposed fraction of positives and the one that a supervised SVM
#: predicts on the unlabeled points differ by more than this.
BALANCE_WARNING_GAP = 0.25

#: Weight of the supervised SVM's predicted fraction in the default balance when the labeled
#: points hold as many of each class, once there are ``2 + PREDICTED_FRACTION_RAMP`` or more (the
#: labeled class ratio has the rest), chosen over 0, 1/6, 1/3, 1/2 and 1, then 1 over 1/2 with
#: imbalanced classes labeled per class (docs/methods/s3vm.rst, "The balance").
PREDICTED_FRACTION_WEIGHT = 1.0

#: Labeled points beyond two over which that weight grows from 0 (one labeled point per class:
#: the labeled ratio alone) to ``PREDICTED_FRACTION_WEIGHT``.
PREDICTED_FRACTION_RAMP = 8

#: Folds of the cross-validation of the labeled points' SVM whose error rate weighs its
#: predicted fraction against the labeled class ratio when the labeled counts differ
#: (:func:`predicted_fraction_weight`); with fewer labeled points than this in a class the
#: labeled ratio is kept (a cross-validation of so few labels misjudged digits 3/8 with 7
#: labels: docs/methods/s3vm.rst, "The balance").
BALANCE_CV_FOLDS = 5

#: Default ``C`` of :class:`S3VM` with the RBF, polynomial or a precomputed kernel.
KERNEL_C = 2.0

#: With those kernels ``C_unlabeled=None`` means ``C · min(1, UNLABELED_COST_LABELS / l)`` for
#: ``l`` labeled points: ``C`` up to 20 labels, then less as the labels alone fix the SVM
#: better (docs/methods/s3vm.rst, "The cost of unlabeled points").
UNLABELED_COST_LABELS = 20

#: Default ``C`` of :class:`S3VM` with ``kernel="linear"``: ``LINEAR_C_DIAGONAL / (mean_i
#: ‖x_i − x̄‖² + s²)``, the RBF default's product of ``C`` and the kernel's diagonal (2 × 2),
#: about 2 on rows of unit norm (text) and smaller as dense rows widen; and the default ratio
#: ``C_unlabeled / C`` there, WellSVM's C₂ / C₁ = 0.1 (docs/methods/s3vm.rst, "Defaults with
#: the linear kernel").
LINEAR_C_DIAGONAL = 4.0
LINEAR_UNLABELED_RATIO = 0.1


def _uncertain_balance(labelset, y_known):
    """The default balance's label set widened to every count between the labeled class ratio's
    and the default estimate's (:func:`default_positive_fraction`), where the principal
    challengers are polished; ``None`` when the two counts agree.

    The balance is imposed exactly, and the gap between two clusters is feasible only with the
    clusters' own count: on ``make_gap_clusters(200, n_labeled=4)`` (two labels a class, a
    blend weight of 1/4) an estimate a few points off the labeled ratio's 1/2 left the split
    through the gap at 0.5-0.6 times the search's ``J``, above the challengers' ratio
    (docs/methods/s3vm.rst, "Principal-direction challengers")."""
    labeled_ratio = SemiSupervised(y_known, check_convention=False).n_positive
    if labeled_ratio == labelset.n_positive:
        return None
    return labelset.with_positive_range(min(labeled_ratio, labelset.n_positive),
                                        max(labeled_ratio, labelset.n_positive))


def as_many_per_class(y_known):
    """Whether the labeled points (``y_known ≠ 0``) hold as many of each class."""
    labeled = y_known[y_known != 0]
    return 2 * int(np.sum(labeled > 0)) == labeled.size


def predicted_fraction_weight(y_known, cv_accuracy=None):
    r"""``w`` of :func:`default_positive_fraction`.

    When the labeled points hold as many of each class, ``min(1, (|L| − 2) / 8)`` (the labeled
    ratio 1/2 then says nothing about the classes). Otherwise the two estimates of the
    fraction are weighted by their precisions: the labeled ratio :math:`p_L` has the binomial
    variance of a random sample, and the fraction that the labeled points' SVM predicts is
    given the square of that SVM's cross-validated error rate :math:`1 - \hat a`
    (:func:`weakcvx.rounding.labeled_cv_accuracy`),

    .. math::

        w = \frac{\sigma_L^2}{\sigma_L^2 + (1 - \hat a)^2}, \qquad
        \sigma_L^2 = \frac{p_L (1 - p_L)}{|L|},

    so an SVM that is often wrong leaves the labeled ratio in place and one that is rarely
    wrong replaces it; ``w = 0`` when ``cv_accuracy`` is ``None`` (:class:`S3VM` runs the
    cross-validation only with ``BALANCE_CV_FOLDS`` = 5 or more labeled points of each class).

    Examples
    --------
    >>> import numpy as np
    >>> y_known = np.array([1, 1, 1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 0])
    >>> round(predicted_fraction_weight(y_known, cv_accuracy=0.9), 4)  # σ_L² = 0.25 · 0.75 / 12
    0.6098
    >>> predicted_fraction_weight(y_known, cv_accuracy=None)
    0.0
    """
    labeled = y_known[y_known != 0]
    if as_many_per_class(y_known):
        extra = max(0, labeled.size - 2)
        return PREDICTED_FRACTION_WEIGHT * min(1.0, extra / PREDICTED_FRACTION_RAMP)
    if cv_accuracy is None:
        return 0.0
    ratio = float(np.mean(labeled > 0))
    variance = ratio * (1.0 - ratio) / labeled.size
    return variance / (variance + (1.0 - float(cv_accuracy)) ** 2)


def default_positive_fraction(y_known, scores, weight=None, cv_accuracy=None):
    r"""The default balance of :class:`S3VM`: the fraction of positives imposed on the
    unlabeled points when ``positive_fraction`` is not given,

    .. math::

        \hat p = (1 - w)\, p_L + w\, \frac{\#\{j \in U : s_j > 0\}}{|U|},

    the labeled class ratio :math:`p_L` (WellSVM eq. 17, right on average when the labeled
    points are a random or stratified sample) blended with the fraction that the SVM trained on
    the labeled points (scores ``s``, :func:`weakcvx.rounding.supervised_scores`) predicts on the
    unlabeled points, with the weight ``w`` of :func:`predicted_fraction_weight`. As many
    labeled points of each class is what labeling a fixed number per class gives, and then
    :math:`p_L = \tfrac12` says nothing about the classes, so ``w`` grows with the labels
    alone; otherwise :math:`p_L` is a binomial estimate (a standard deviation of 0.065 with 60
    labels of balanced classes) and ``w`` weighs it against the SVM's cross-validated error
    rate. Chosen by measurement (docs/methods/s3vm.rst, "The balance").

    Parameters
    ----------
    y_known : ndarray (n,)
        +1 / -1 labeled, 0 unlabeled (at least one of each).
    scores : ndarray (n,)
    weight : float in [0, 1] or None
        ``w``; ``None``: :func:`predicted_fraction_weight` with ``cv_accuracy``.
    cv_accuracy : float in [0, 1] or None
        Cross-validated accuracy of the labeled points' SVM
        (:func:`weakcvx.rounding.labeled_cv_accuracy`); used when ``weight`` is ``None``.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> y_known = np.array([1, -1, 0, 0, 0, 0])
    >>> scores = np.array([1.0, -1.0, 0.5, -0.2, -0.3, -0.4])
    >>> default_positive_fraction(y_known, scores)  # two labeled points: w = 0
    0.5
    >>> y_known = np.array([1, 1, 1, -1, -1, -1, 0, 0, 0, 0])
    >>> scores = np.array([1, 1, 1, -1, -1, -1, 1, -1, -1, -1.0])
    >>> default_positive_fraction(y_known, scores)  # 3 + 3 labeled: w = 4/8, (1/2 + 1/4) / 2
    0.375
    >>> y_known = np.array([1, -1, -1, -1, 0, 0, 0, 0])
    >>> scores = np.array([1, -1, -1, -1, 1, 1, -1, -1.0])
    >>> default_positive_fraction(y_known, scores, cv_accuracy=1.0)  # a flawless SVM: w = 1
    0.5
    """
    unlabeled = y_known == 0
    labeled_ratio = float(np.mean(y_known[~unlabeled] > 0))
    if weight is None:
        weight = predicted_fraction_weight(y_known, cv_accuracy)
    predicted = float(np.mean(scores[unlabeled] > 0))
    return (1.0 - weight) * labeled_ratio + weight * predicted


def _warn_if_balance_disagrees(problem, y_known, scores):
    """Warn when the imposed count of positives disagrees with what an SVM trained on the
    labeled points predicts on the unlabeled points, when that SVM classifies every labeled
    point correctly: the default balance then rests on two estimates far apart
    (docs/methods/s3vm.rst, "The balance"). ``scores`` are that SVM's
    (:func:`weakcvx.rounding.supervised_scores`).
    """
    unlabeled = y_known == 0
    if not unlabeled.any() or scores is None:
        return
    labeled_ratio = float(np.mean(y_known[~unlabeled] > 0))
    imposed = problem.labelset.n_positive / int(unlabeled.sum())
    predicted = float(np.mean(scores[unlabeled] > 0))
    # only a supervised SVM that classifies every labeled point correctly is a credible
    # witness (on overlapping, imbalanced classes, e.g. haberman, it predicts the majority
    # class almost everywhere while the labeled ratio is right)
    separable = bool(np.all(y_known[~unlabeled] * scores[~unlabeled] > 0))
    if separable and abs(predicted - imposed) > BALANCE_WARNING_GAP:
        warn(
            f"S3VM: the balance constraint puts {problem.labelset.n_positive} of the "
            f"{int(unlabeled.sum())} unlabeled points in the positive class (labeled class "
            f"ratio {labeled_ratio:.2f}), while an SVM trained on the "
            f"{int((~unlabeled).sum())} labeled points predicts {predicted:.2f} of them "
            "positive. If the labeled points are not a random sample of the classes, pass "
            f"`positive_fraction` (e.g. positive_fraction={predicted:.2f}).",
            UserWarning)


#: Default cutting-plane rounds of ``S3VM(relaxation="label_generation")`` with the short
#: schedule (:meth:`weakcvx.cutting_plane.RoundPolicy.estimator`); chosen over 3-10 rounds on
#: split seeds 0-9 of ``weakcvx bench peers`` (docs/methods/s3vm.rst, "Defaults").
S3VM_ROUNDS = 6
#: The same on problems above the engine's large-problem sizes
#: (:func:`weakcvx.cutting_plane.is_large`), which run the engine's lean large-problem policy.
S3VM_LARGE_ROUNDS = 10


#: Widths among which ``gamma="select"`` chooses, as multiples of ``"mean_distance"``; the
#: first is the width kept unless a narrower one wins (chosen with the two thresholds below on
#: split seeds 0-9 of eleven UCI sets and 0-4 of generated manifold data, docs/methods/s3vm.rst,
#: "The RBF width").
GAMMA_MULTIPLES = (1.0, 2.0, 4.0)
#: Neighbours of each point in the graph whose cut edges ``gamma="select"`` counts.
GAMMA_NEIGHBOURS = 5
#: A narrower width must cut fewer than this fraction of the edges the first one cuts.
GAMMA_CUT_RATIO = 0.75
#: Ridge of the leave-one-out test on the labeled rows (:func:`labeled_loo_accuracy`).
GAMMA_RIDGE = 0.5
#: Labeled rows drawn (at most) for that test, one l × l inverse a width.
GAMMA_MAX_LABELED = 1000
#: Rows (at most) on which ``S3VM`` chooses its width: above, a random draw of that many rows,
#: at most half of them labeled (the graph and the alternating searches then cost what they
#: cost on 2,000 rows; :func:`selection_rows`).
GAMMA_MAX_ROWS = 2000


def labeled_loo_accuracy(X, y, gammas, ridge=GAMMA_RIDGE):
    r"""Leave-one-out accuracy of a kernel ridge classifier on labeled rows, for each width.

    For the RBF kernel :math:`K` of width :math:`\gamma` plus 1 (the offset of
    :class:`S3VM`'s kernel at its default ``intercept_scaling=1``),
    :math:`A = K + \lambda I` and :math:`\alpha = A^{-1} y` with :math:`y \in \{-1, 1\}^l`,
    the prediction at row :math:`i` of the model fitted without it is, in closed form (no
    refit),

    .. math::

        f_{-i}(x_i) = y_i - \frac{\alpha_i}{(A^{-1})_{ii}},

    and the accuracy is the fraction of rows with :math:`\operatorname{sign} f_{-i}(x_i) = y_i`.
    Deterministic (no folds to draw) and one l × l inverse a width. The kernel of the first
    width is computed once; that of :math:`\gamma_j` is its power
    :math:`(e^{-\gamma_0 d^2})^{\gamma_j/\gamma_0}`.

    Parameters
    ----------
    X : ndarray of shape (l, n_features)
        The labeled rows.
    y : ndarray of shape (l,)
        Their labels, ±1.
    gammas : sequence of float
    ridge : float
        :math:`\lambda`; the default is :math:`1/C` at ``S3VM``'s ``C = 2``, chosen with the
        rest of ``gamma="select"`` (docs/methods/s3vm.rst, "The RBF width").

    Returns
    -------
    ndarray of shape (len(gammas),)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.r_[np.zeros((3, 1)), np.ones((3, 1))]; y = np.r_[-np.ones(3), np.ones(3)]
    >>> labeled_loo_accuracy(X, y, [1.0, 2.0]).tolist()
    [1.0, 1.0]
    """
    gammas = np.asarray(gammas, dtype=float)
    y = np.where(np.asarray(y) > 0, 1.0, -1.0)
    K = kernels.rbf(X, gamma=gammas[0])
    accuracy = np.zeros(len(gammas))
    for j, gamma in enumerate(gammas):
        A_inv = np.linalg.inv(K ** (gamma / gammas[0]) + 1.0 + ridge * np.eye(len(y)))
        loo = y - (A_inv @ y) / np.diag(A_inv)
        accuracy[j] = np.mean(np.sign(loo) == y)
    return accuracy


def neighbour_graph(X, n_neighbors=GAMMA_NEIGHBOURS, max_rows=GAMMA_MAX_ROWS, random_state=0):
    """The edges of the ``n_neighbors``-nearest-neighbour graph (Euclidean) of the rows of
    ``X``, from at most ``max_rows`` query rows drawn at random.

    Returns
    -------
    rows, neighbours : ndarray of shape (q,) and (q, n_neighbors)
        Query rows and the indices of their nearest other rows.
    """
    n = X.shape[0]
    rows = np.arange(n) if n <= max_rows else np.sort(
        np.random.default_rng(random_state).choice(n, max_rows, replace=False))
    return rows, nearest_other_rows(X, min(n_neighbors, n - 1), rows=rows)


def cut_fraction(labels, rows, neighbours):
    r"""Fraction of the graph's edges whose ends carry different labels,
    :math:`\frac{1}{qk}\sum_{i}\sum_{j \in N(i)} [y_i \ne y_j]`.

    Examples
    --------
    >>> import numpy as np
    >>> cut_fraction(np.array([1, 1, -1]), np.arange(3), np.array([[1], [0], [1]]))
    0.3333333333333333
    """
    labels = np.asarray(labels)
    return float(np.mean(labels[neighbours] != labels[rows][:, None]))


def selection_rows(y_known, max_rows=GAMMA_MAX_ROWS, random_state=0):
    """The rows on which ``gamma="select"`` runs: all of them up to ``max_rows``, else a
    random draw of ``max_rows`` rows of which at most half are labeled (all labeled rows when
    they are fewer).

    Examples
    --------
    >>> import numpy as np
    >>> y_known = np.r_[np.ones(5), -np.ones(5), np.zeros(90)]
    >>> rows = selection_rows(y_known, max_rows=20)
    >>> len(rows), int(np.sum(y_known[rows] != 0))
    (20, 10)
    """
    n = len(y_known)
    if n <= max_rows:
        return np.arange(n)
    rng = np.random.default_rng(random_state)
    labeled, unlabeled = np.flatnonzero(y_known != 0), np.flatnonzero(y_known == 0)
    labeled = rng.choice(labeled, min(len(labeled), max_rows // 2), replace=False)
    unlabeled = rng.choice(unlabeled, min(len(unlabeled), max_rows - len(labeled)),
                           replace=False)
    return np.sort(np.concatenate([labeled, unlabeled]))


def select_gamma(X, y_known, base, labeling, multiples=GAMMA_MULTIPLES,
                 cut_ratio=GAMMA_CUT_RATIO, random_state=0):
    r"""An RBF width for semi-supervised learning: ``base`` or a narrower multiple of it.

    A width :math:`m\gamma_0` (``m`` in ``multiples[1:]``) replaces
    :math:`\gamma_0 = m_0 \cdot` ``base`` when it passes both tests of the cluster assumption:

    1. it fits the labeled rows better: strictly higher leave-one-out accuracy of a kernel
       ridge classifier on them (:func:`labeled_loo_accuracy`);
    2. the labeling it gives all rows, ``labeling(m γ₀)``, separates the classes through a
       sparser region: it cuts fewer than ``cut_ratio`` times as many edges of the
       nearest-neighbour graph (:func:`neighbour_graph`, :func:`cut_fraction`) as the labeling
       of :math:`\gamma_0`.

    Of the widths that pass, the one that cuts fewest edges wins. Only the labeled rows are
    needed for test 1, so ``labeling`` runs only when some width passes it.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y_known : ndarray of shape (n_samples,)
        ±1 on labeled rows, 0 on unlabeled ones.
    base : float
        The reference width (``"mean_distance"`` resolved on ``X``).
    labeling : callable ``gamma -> ndarray of shape (n_samples,)``
        Labels (±1) of every row under the width ``gamma``: in :class:`S3VM`, those of its
        alternating search.
    multiples : sequence of float
        The first is the width kept by default.
    cut_ratio : float
    random_state : int

    Returns
    -------
    float
        The chosen width.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.svm import SVC
    >>> import weakcvx as wc
    >>> X, y_true, y_known = wc.datasets.make_two_moons(300, n_labeled=30, random_state=0)
    >>> lab = y_known != 0
    >>> svc_labels = lambda g: SVC(gamma=g).fit(X[lab], y_known[lab]).predict(X)
    >>> select_gamma(X, y_known, base=0.5, labeling=svc_labels) > 0.5
    True
    """
    multiples = [float(m) for m in multiples]
    gammas = [m * base for m in multiples]
    labeled = np.flatnonzero(y_known != 0)
    if min(np.sum(y_known > 0), np.sum(y_known < 0)) < 2:  # nothing to hold out
        return float(gammas[0])
    if len(labeled) > GAMMA_MAX_LABELED:
        labeled = np.sort(np.random.default_rng(random_state).choice(
            labeled, GAMMA_MAX_LABELED, replace=False))
    accuracy = labeled_loo_accuracy(X[labeled], y_known[labeled], gammas)
    better = [j for j in range(1, len(gammas)) if accuracy[j] > accuracy[0]]
    if not better:
        return float(gammas[0])
    rows, neighbours = neighbour_graph(X, random_state=random_state)
    cut = {j: cut_fraction(labeling(gammas[j]), rows, neighbours) for j in [0] + better}
    passing = [j for j in better if cut[j] < cut_ratio * cut[0]]
    if not passing:
        return float(gammas[0])
    return float(gammas[min(passing, key=lambda j: (cut[j], j))])



#: ``relaxation`` of the first step (one class against the rest) with ``multi_class="ovo"``
#: and the default label generation: the step only assigns the unlabeled rows to the pairs
#: and fixes their counts, and the alternating search did that as well at half the time
#: (six multi-class sets, split seeds 20-23 and 30-33, docs/methods/s3vm.rst).
FIRST_STEP_RELAXATION = "alternating"


class S3VM(SemiSupervisedScoreMixin, OneVsRestMixin, KernelModelMixin, ClassifierMixin,
           BaseEstimator):
    r"""Semi-supervised SVM with a choice of relaxation.

    Solves the MIP of docs/design.rst §1 for the semi-supervised label set
    (:class:`weakcvx.labelsets.SemiSupervised`: labeled points keep their labels, the unlabeled
    points carry a fixed number of positives)

    .. math::

        \min_{y \in B} \min_w \tfrac12\|w\|^2 + C \sum_{i \in L} \ell(y_i f(x_i))
            + C_u \sum_{i \in U} \ell(y_i f(x_i)), \qquad \ell(t) = \max(0, 1 - t),

    by ``relaxation``:

    - ``"label_generation"`` (default): WellSVM (Li et al. 2013), the convex-hull relaxation solved
      by cutting planes over labelings and multiple kernel learning, rounded to a feasible
      labeling (``transduction_``); predicts with the SVM of that labeling, ``f(x) = Σ_i α_i
      y_i k(x_i, x)`` with ``α`` the solution of ``J(transduction_)``, not with the relaxation's
      mixture ``Σ_t μ_t Σ_i α_i y_ti k(x_i, x)`` (kept in ``result_``): the SVM of the rounded
      labels follows ``transduction_`` and generalises better
      (:func:`weakcvx.estimators._base.rounded_labels_model`; measured in
      docs/methods/s3vm.rst, "The mathematics"). It is a soft margin, so ``predict`` on the
      training rows can differ from ``transduction_`` where that SVM does not fit a label
      (``transduction_`` keeps the balance constraint's count and ``predict`` does not).
    - ``"alternating"``: SVM fit / exact relabeling to a local optimum.
    - ``"exact"``: the global optimum (enumeration or branch and bound; small problems),
      within ``time_limit`` / ``max_nodes``.
    - ``"sdp"``: the SDP relaxation (De Bie & Cristianini 2006), rounded; at most
      ``weakcvx.sdp.DEFAULT_MAX_N`` (200) points.

    More than two classes: first one against the rest. ``estimators_[k]`` is the two-class
    S3VM above for class ``classes_[k]`` (1) against the other labeled classes (0), on all the
    unlabeled points with its own defaults (balance, width), and each unlabeled point goes to
    the class of the largest score. Then (``multi_class="ovo"``, the default) one S3VM per pair
    of classes :math:`i < j`, ``pair_estimators_`` in that order, on the points labeled
    :math:`i` or :math:`j` and the unlabeled points the first step gave to either, with that
    step's count of :math:`j` among them as the balance; ``decision_function`` then counts the
    pairs' votes as scikit-learn's ``SVC(decision_function_shape="ovr")`` does
    (:func:`weakcvx.estimators._base.votes_of_pairs`), and ``predict`` takes the largest
    column (docs/methods/s3vm.rst, "More than two classes").

    Parameters
    ----------
    relaxation : {"label_generation", "alternating", "exact", "sdp"}, default="label_generation"
    kernel : {"rbf", "linear", "poly", "precomputed"}, default="rbf"
        With ``"linear"`` and an offset (``intercept_scaling > 0``) dense features are
        centred on their mean in ``fit``, as :class:`MaxMarginClustering` does: the offset is
        a regularised constant feature, which a common offset of the features (a column
        around 5e4) dwarfs, so that the model could not fit its own labels; ``predict`` takes
        uncentred points, the mean is folded into ``intercept_``. Sparse features are not
        centred (that would make them dense).
    C : float or None, default=None
        Cost of labeled points. ``None``: ``KERNEL_C`` = 2 with the RBF, polynomial and
        precomputed kernels; with ``kernel="linear"``, over the training rows,
        ``LINEAR_C_DIAGONAL / (mean ‖x − x̄‖² + s²)`` (``s`` the ``intercept_scaling``;
        ``LINEAR_C_DIAGONAL = 4``, the RBF default's product of ``C`` and the kernel's
        diagonal, 2 × 2). Chosen by measurement (docs/methods/s3vm.rst, "Defaults"
        and "The linear C follows the rows' spread").
    C_unlabeled : float or None, default=None
        Cost of unlabeled points. ``None``: ``C · min(1, 20 / l)`` with ``l`` labeled points
        (``UNLABELED_COST_LABELS``: ``C``, the top of the paper's grid {0.001, …, 1}·C, up to 20
        labels), and ``LINEAR_UNLABELED_RATIO · C`` = 0.1 C with ``kernel="linear"`` (WellSVM's
        C₂). Chosen by measurement (docs/methods/s3vm.rst, "The cost of unlabeled
        points").
    gamma : "select", "mean_distance", "scale", "wide" or float, default="select"
        RBF width. ``"select"``: ``1 / mean squared pairwise distance`` (``"mean_distance"``),
        or 2 or 4 times it when that narrower width both fits the labeled rows better and its
        alternating-search labeling cuts fewer than 3/4 of the edges of the 5-nearest-neighbour
        graph that the wider one cuts (:func:`select_gamma`, on at most 2,000 rows drawn: a
        boundary through a low-density gap cuts few neighbour pairs). For a polynomial kernel
        ``"select"`` is ``"mean_distance"``. Chosen by measurement
        (docs/methods/s3vm.rst, "The RBF width").
    degree, coef0 : polynomial kernel parameters.
    positive_fraction : float in (0, 1) or None, default=None
        Fraction of positives (``classes_[1]``) among unlabeled points, two classes only;
        ``None``: the labeled class ratio blended with the fraction an SVM trained on the
        labeled points predicts on the unlabeled ones, weighted by the labels alone when they
        hold as many of each class (as labeling k per class gives) and otherwise by the binomial
        variance of the ratio against that SVM's cross-validated error rate
        (:func:`default_positive_fraction`). The number of positives is ``fraction · u``
        rounded half up (``u`` unlabeled points; 0.5 · 5 → 3). It is a hard constraint (WellSVM
        eq. 17): with ``None``, a ``UserWarning`` says when the imposed fraction and the SVM's
        are more than 0.25 apart and that SVM separates the labeled points; the principal
        challengers of label generation may then take any count between the labeled ratio's
        and the imposed one (docs/methods/s3vm.rst, "Principal-direction challengers"). The
        default was chosen by measurement (docs/methods/s3vm.rst, "The balance").
    intercept_scaling : float, default=1.0
        Value of the constant feature that models the offset (0 for no offset).
    tol : float or None, default=None
        Relative tolerance of the cutting-plane loop. ``None``: WellSVM's 1e-3, or 1e-2 above
        1,000 points, where the large-problem defaults of
        :func:`weakcvx.cutting_plane.label_generation` apply, and 1 (four rounds) above 5,000
        rows with the linear kernel (:meth:`~weakcvx.cutting_plane.RoundPolicy.for_problem`);
        for ``"alternating"``, the solver's own default.
    max_iter : int or None, default=None
        Maximum cutting-plane rounds (or alternations). ``None``: label generation stops when
        its rounded labels are the same as in the previous round, after at most ``S3VM_ROUNDS``
        (6) rounds, with the short round schedule
        :meth:`weakcvx.cutting_plane.RoundPolicy.estimator` (``S3VM_LARGE_ROUNDS`` (10) rounds
        of the engine's own policy on large problems); 100 alternations for ``"alternating"``.
        A number: exactly the engine's :class:`~weakcvx.cutting_plane.RoundPolicy`, up to that
        many rounds. The cap was chosen by measurement (docs/methods/s3vm.rst,
        "Defaults").
    oracle : {"sorting", "exact"}, default="sorting"
        Violated-label search of label generation (``"exact"``: enumeration, tiny problems).
    time_limit : float or None, default=60.0
        ``relaxation="exact"`` only: stop the branch and bound after this many seconds (the
        seed included; with more than two classes, for each class's problem). The best
        labeling found is kept, ``lower_bound_`` is then a certified lower bound below
        ``objective_``, ``result_.status`` is ``"time_limit"`` and a
        :class:`~sklearn.exceptions.ConvergenceWarning` says so. ``None``: no limit (the search
        is exponential in the worst case; docs/methods/s3vm.rst, "The mathematics").
    max_nodes : int or None, default=None
        ``relaxation="exact"`` only: stop after this many branch-and-bound nodes (same outcome
        as ``time_limit``). ``None``: no limit.
    multi_class : {"ovo", "ovr"}, default="ovo"
        More than two classes only. ``"ovr"``: one S3VM per class against the rest;
        ``"ovo"``: then one per pair of classes on that step's transduction, combined by votes
        (above); the first step then runs the alternating search in place of the default
        label generation (it only assigns the rows to the pairs). Both chosen by measurement
        (docs/methods/s3vm.rst, "More than two classes").
    random_state : int, RandomState or None
    verbose : int
        ``0`` silent; ``1`` progress lines (label generation rounds, branch-and-bound progress
        every second, every 5 s after 10 s), ``2`` more. They go through
        ``logging.getLogger("weakcvx")``, printed to stderr during ``fit`` unless that logger is
        configured by the user. With more than two classes, ``1`` logs one line per two-class
        problem, ``2`` also their own lines.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    transduction_ : ndarray (n_samples,)
        Class label of every training point (labeled points keep theirs; with more than two
        classes, the unlabeled ones get the class of the largest column of
        ``decision_function``).
    objective_ : float
        ``J(transduction)``, the SVM objective of the returned labeling (with more than two
        classes, the sum over ``estimators_`` of theirs, the problems against the rest).
    estimators_ : list of S3VM
        Only with more than two classes: ``estimators_[k]`` separates ``classes_[k]`` (its
        class 1) from the rest (0); each holds the attributes below for its problem.
    pair_estimators_ : list of S3VM
        Only with more than two classes and ``multi_class="ovo"``: one per pair
        ``(classes_[i], classes_[j])``, ``i < j`` in that order, separating ``classes_[j]``
        (its class 1) from ``classes_[i]`` (0) on the rows given to either.
    n_classes_ : int
        Only with more than two classes.
    costs_ : tuple of float
        ``(C, C_unlabeled)`` as used, the defaults resolved.
    gamma_ : float or None
        The kernel width used (``gamma`` resolved, or chosen by ``"select"``); None for the
        linear and precomputed kernels. With more than two classes an array of one width per
        class (NaN for None).
    kernel_rank_ : int or None
        Columns of the pivoted-Cholesky factor the kernel entered through (RBF above
        ``RBF_FACTOR_MIN_ROWS`` rows, or a kernel above the memory budget; at most
        ``LOW_RANK_MAX``, fewer when the budget allows fewer, with a warning below
        ``LOW_RANK_WARN``); None for the dense kernel. With more than two classes an array,
        as ``gamma_``.
    lower_bound_ : float
        A certified lower bound of the MIP when the method certifies one (``"exact"``, ``"sdp"``,
        ``oracle="exact"``), else NaN. For ``"exact"`` stopped by a limit, the smallest bound
        over the open nodes of the search. With more than two classes, the sum of the
        estimators' bounds (a bound of the sum of their objectives).
    n_iter_ : int, or ndarray of shape (n_classes,) with more than two classes (of
        ``estimators_``)
    history_ : list of dict
        Two classes only (with more, in ``estimators_``), as ``result_`` and ``dual_coef_``.
    result_ : SolveResult
    dual_coef_ : ndarray (n_samples,)

    See Also
    --------
    weakcvx.MaxMarginClustering : the same relaxations with no labels at all.
    weakcvx.BranchAndBoundS3VM : exact S3VM of Chapelle et al. (2006).

    References
    ----------
    Li, Tsang, Kwok, Zhou. Convex and scalable weakly labeled SVMs. JMLR 14, 2013.

    Examples
    --------
    >>> import weakcvx as wc
    >>> X, y_true, y_known = wc.datasets.make_two_moons(60, n_labeled=2, random_state=0)
    >>> y = y_known.copy(); y[y_known == 0] = -1; y[y_known == -1] = 0   # -1 = unlabeled
    >>> clf = wc.S3VM(C=10, gamma=2.0).fit(X, y)
    >>> clf.transduction_.shape
    (60,)

    Three classes, one S3VM per class against the rest, then one per pair of classes:

    >>> import numpy as np
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> y_ssl = np.where(np.arange(150) % 10 == 0, y, -1)     # 15 labeled points
    >>> clf = wc.S3VM(random_state=0).fit(X, y_ssl)
    >>> clf.decision_function(X).shape, len(clf.estimators_), len(clf.pair_estimators_)
    ((150, 3), 3, 3)
    """

    _parameter_constraints = {
        "relaxation": [StrOptions({"label_generation", "alternating", "exact", "sdp"})],
        "C": [Interval(Real, 0, None, closed="neither"), None],
        "C_unlabeled": [Interval(Real, 0, None, closed="neither"), None],
        "positive_fraction": [Interval(Real, 0, 1, closed="neither"), None],
        "tol": [Interval(Real, 0, None, closed="neither"), None],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "oracle": [StrOptions({"sorting", "exact"})],
        "time_limit": [Interval(Real, 0, None, closed="neither"), None],
        "max_nodes": [Interval(Integral, 1, None, closed="left"), None],
        "multi_class": [StrOptions({"ovo", "ovr"})],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        **KERNEL_CONSTRAINTS,
        "gamma": [StrOptions({"select", "mean_distance", "scale", "wide"}),
                  Interval(Real, 0, None, closed="neither")],
    }

    def __init__(self, relaxation="label_generation", kernel="rbf", C=None, C_unlabeled=None,
                 gamma="select", degree=3, coef0=1.0, positive_fraction=None,
                 intercept_scaling=1.0, tol=None, max_iter=None, oracle="sorting",
                 time_limit=EXACT_TIME_LIMIT, max_nodes=None, multi_class="ovo",
                 random_state=None, verbose=0):
        self.relaxation = relaxation
        self.kernel = kernel
        self.C = C
        self.C_unlabeled = C_unlabeled
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.positive_fraction = positive_fraction
        self.intercept_scaling = intercept_scaling
        self.tol = tol
        self.max_iter = max_iter
        self.oracle = oracle
        self.time_limit = time_limit
        self.max_nodes = max_nodes
        self.multi_class = multi_class
        self.random_state = random_state
        self.verbose = verbose

    def _costs(self, n_labeled, X):
        """``(C, C_unlabeled)`` with the defaults resolved for ``n_labeled`` labeled points
        among the rows ``X``: ``(KERNEL_C, C · min(1, UNLABELED_COST_LABELS / n_labeled))``,
        or ``(LINEAR_C_DIAGONAL / (mean ‖x − x̄‖² + s²), LINEAR_UNLABELED_RATIO · C)`` for the
        linear kernel (see the parameters)."""
        linear = self.kernel == "linear"
        if self.C is not None:
            C = float(self.C)
        elif linear:
            C = spread_scaled_cost(LINEAR_C_DIAGONAL, X, self.intercept_scaling)
        else:
            C = KERNEL_C
        if self.C_unlabeled is not None:
            return C, float(self.C_unlabeled)
        if linear:
            return C, LINEAR_UNLABELED_RATIO * C
        return C, C * min(1.0, UNLABELED_COST_LABELS / max(n_labeled, 1))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True  # one against the rest, then pairs
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit on labeled and unlabeled points.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class of each point, ``-1`` for unlabeled points (scikit-learn's convention); two
            classes or more among the others (more than two: one S3VM per class against the
            rest). String classes: an array of ``dtype=object`` with the integer ``-1`` for
            unlabeled points.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            For a bad ``y`` (see :func:`check_semi_supervised_target`), or
            ``relaxation="sdp"`` on more than ``weakcvx.sdp.DEFAULT_MAX_N`` points.
        """
        X = self._validate_X(X)
        classes, codes = check_semi_supervised_classes(y, X.shape[0])
        if classes.size > 2:
            return self._fit_s3vm_one_vs_rest(X, classes, codes)
        self._forget_one_vs_rest()
        self.classes_ = classes
        return self._fit_known(X, one_vs_rest_known(codes, 1))

    def _fit_s3vm_one_vs_rest(self, X, classes, codes):
        """More than two classes: one S3VM per class against the rest (``estimators_[k]``,
        classes 0 = the rest and 1 = ``classes[k]``), on the validated rows ``X``; with
        ``multi_class="ovo"`` then one per pair of classes on the rows the first step gives to
        either (``pair_estimators_``), its count of each class fixed by that step. Before the
        pairs, the default label generation gives way to the alternating search
        (:data:`FIRST_STEP_RELAXATION`): that step only assigns the rows to the pairs."""
        first = self.relaxation
        if self.multi_class == "ovo" and first == "label_generation":
            first = FIRST_STEP_RELAXATION
        scores = self._fit_one_vs_rest(
            X, classes, lambda binary, k: binary.set_params(relaxation=first)._fit_known(
                X, one_vs_rest_known(codes, k)))
        assigned = np.where(codes >= 0, codes, scores.argmax(axis=1))
        if self.multi_class == "ovo":
            assigned = self._first_step_assignment(X, codes, scores)
            precomputed = self.kernel == "precomputed"

            def fit_pair(binary, rows, y_known, n_positive):
                X_pair = X[np.ix_(rows, rows)] if precomputed else X[rows]
                return binary._fit_known(X_pair, y_known, n_positive=n_positive)
            scores = self._fit_pairs(X, codes, assigned, fit_pair)
            assigned = np.where(codes >= 0, codes, scores.argmax(axis=1))
        self.transduction_ = classes[assigned]
        self.objective_ = float(sum(e.objective_ for e in self.estimators_))
        self.lower_bound_ = float(sum(e.lower_bound_ for e in self.estimators_))
        self.gamma_ = np.array([np.nan if e.gamma_ is None else e.gamma_
                                for e in self.estimators_])
        self.kernel_rank_ = np.array([np.nan if e.kernel_rank_ is None else e.kernel_rank_
                                      for e in self.estimators_])
        return self

    def _fit_known(self, X, y_known, n_positive=None):
        """The two-class fit on validated rows ``X`` and ``y_known`` in {+1 (``classes_[1]``),
        −1, 0 (unlabeled)}; ``n_positive``: the count of positives among the unlabeled rows
        (``None``: from ``positive_fraction`` or the default balance)."""
        if self.relaxation == "sdp":
            check_sdp_size(self, X.shape[0])
        linear = self.kernel == "linear" and self.intercept_scaling > 0
        center = linear_center(X) if linear else None  # see kernel
        if center is not None:
            X = X - center
        self._selected_gamma = None
        if self.gamma == "select" and self.kernel == "rbf":
            seed = integer_seed(self.random_state)
            rows = selection_rows(y_known, random_state=seed)
            base = kernels.resolve_gamma(X, "mean_distance")
            self._selected_gamma = select_gamma(
                X[rows], y_known[rows], base, self._alternating_labeling(X[rows], y_known[rows]),
                random_state=seed)
            if self.verbose:  # a quiet fit logs nothing
                with verbose_logging(self.verbose):
                    logger.info("S3VM: gamma='select' chose %.4g, %g times 1 / mean squared "
                                "distance", self._selected_gamma, self._selected_gamma / base)
        u = int(np.sum(y_known == 0))
        if n_positive is None and self.positive_fraction is not None:
            n_positive = n_positive_from_fraction(self.positive_fraction, u)
        labelset = SemiSupervised(y_known, n_positive=n_positive, check_convention=False)
        self.costs_ = self._costs(int(np.sum(y_known != 0)), X)
        problem = WeakLabelProblem(labelset=labelset, costs=self.costs_,
                                   **self._problem_inputs(X))
        self.gamma_ = self._gamma
        search = self.relaxation in ("label_generation", "alternating")
        # the SVM of the labeled points, computed once: the balance check and the searches' start
        scores = supervised_scores(problem) if search or n_positive is None else None
        if n_positive is None and u > 0:
            problem = self._default_balance(problem, y_known, scores)
            labelset = problem.labelset
            _warn_if_balance_disagrees(problem, y_known, scores)
        options = {}
        if search and scores is not None:
            options["initial"] = labelset.initial(scores=scores)
        if search:
            rounds = S3VM_LARGE_ROUNDS if is_large(problem) else S3VM_ROUNDS
            options["max_iter"] = self.max_iter if self.max_iter is not None else \
                (rounds if self.relaxation == "label_generation" else 100)
            if self.tol is not None:
                options["tol"] = self.tol
        if self.relaxation == "label_generation":
            options["oracle"] = self.oracle
            if self.oracle == "sorting" and self.max_iter is None and not is_large(problem):
                options["policy"] = RoundPolicy.estimator()  # see max_iter
                if n_positive is None:
                    options["principal_labelset"] = _uncertain_balance(labelset, y_known)
        if self.relaxation == "exact":
            options.update(time_limit=self.time_limit, max_nodes=self.max_nodes)
        seed = integer_seed(self.random_state)
        with verbose_logging(self.verbose), round_cap_is_the_stopping_rule(  # see max_iter
                self.max_iter is None and self.relaxation == "label_generation"):
            result = solve(problem, method=self.relaxation, random_state=seed,
                           verbose=self.verbose, **options)
        self.result_ = result
        # the classifier is the SVM of the rounded labels, not the relaxation's mixture
        self._store_model(X, problem, rounded_labels_model(problem, result))
        if center is not None:  # f(x) = w·(x − center) + b on uncentred points
            self.intercept_ -= float(center @ self.coef_)
        labels = np.asarray(result.labels)
        self.transduction_ = self.classes_[(labels > 0).astype(np.intp)]
        self.objective_ = float(result.upper_bound)
        # a stopped branch and bound still certifies its value as a lower bound
        certified = result.certified or (
            result.method == "exact"
            and result.status in ("time_limit", "node_limit", "interrupted", "solver_error"))
        self.lower_bound_ = float(result.value) if certified else float("nan")
        self.n_iter_ = int(result.n_iter)
        self.history_ = list(result.history)
        return self

    def _default_balance(self, problem, y_known, scores):
        """``problem`` with the default count of positives (:func:`default_positive_fraction`;
        the label set's own count, exact, when the weight is 0)."""
        accuracy = None
        fewest = min(int(np.sum(y_known > 0)), int(np.sum(y_known < 0)))
        if not as_many_per_class(y_known) and fewest >= BALANCE_CV_FOLDS:
            accuracy = labeled_cv_accuracy(problem, BALANCE_CV_FOLDS,
                                           random_state=integer_seed(self.random_state))
        weight = predicted_fraction_weight(y_known, accuracy)
        if weight == 0:
            return problem
        fraction = default_positive_fraction(y_known, scores, weight=weight)
        n_positive = n_positive_from_fraction(fraction, int(np.sum(y_known == 0)))
        return problem.with_labelset(SemiSupervised(y_known, n_positive=n_positive,
                                                    check_convention=False))

    def _gamma_to_resolve(self):
        """The width chosen in ``fit`` for ``gamma="select"`` (``"mean_distance"`` before the
        choice and for a polynomial kernel, for which no width is chosen), else ``gamma``."""
        if self.gamma != "select":
            return self.gamma
        selected = getattr(self, "_selected_gamma", None)
        return selected if selected is not None and self.kernel == "rbf" else "mean_distance"

    def _alternating_labeling(self, X, y_known):
        """``gamma -> labels (±1) of every row`` from this estimator's alternating search at
        that width (the labelings ``gamma="select"`` compares)."""
        y = np.where(y_known == 0, -1, (y_known > 0).astype(int))

        def labeling(gamma):
            search = clone(self).set_params(gamma=gamma, relaxation="alternating",
                                            max_iter=None, tol=None, verbose=0)
            with warnings.catch_warnings():  # the fit at the chosen width warns the same
                warnings.simplefilter("ignore")
                return np.where(search.fit(X, y).transduction_ > 0, 1, -1)
        return labeling

    def predict(self, X):
        """Class labels: ``classes_[1]`` where ``decision_function > 0``; with more than two
        classes, the class of the largest score."""
        scores = self.decision_function(X)
        if scores.ndim == 2:
            return self.classes_[scores.argmax(axis=1)]
        return self.classes_[(scores > 0).astype(np.intp)]
