"""β-SVM (Zantedeschi, Emonet & Sebban 2016): one learner for semi-supervised, noisy,
proportion and multi-expert labels."""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.extmath import row_norms

from .. import kernels
from .._validation import (check_classes, check_not_continuous, check_real, constant_columns,
                           dense_fits, ravel_column, warn)
from ..beta import (beta_from_knn, beta_from_proportions, beta_iterate, beta_semi_supervised,
                    check_beta)
from ..model_selection import bag_proportion_error, check_bag_ids, warn_if_bags_cut
from ._base import (KERNEL_CONSTRAINTS, KernelModelMixin, OneVsRestMixin, linear_center,
                    verbose_logging, warn_if_unscaled)
from .s3vm import SemiSupervisedScoreMixin, check_semi_supervised_classes, one_vs_rest_known


#: Default ``C`` of :class:`BetaSVM` with a non-linear (or precomputed) kernel.
KERNEL_C = 10.0

#: With ``C=None`` the default cost of the labeled rows is scaled by ``min(1, LABELED_SHARE · n /
#: n_labeled)``, so that their total cost is at most ``C · n · LABELED_SHARE``: ``KERNEL_C`` was
#: chosen with 10% of the rows labeled, and with every row labeled (``init="knn"``, ``"given"``,
#: ``"proportions"``, or noisy labels under ``"ssl"``) it let the fit follow the flipped labels
#: (docs/methods/beta.rst, "Measurements behind the defaults").
LABELED_SHARE = 0.2

#: Default ``C`` of :class:`BetaSVM` with ``kernel="linear"``: ``LINEAR_C_DIAGONAL / mean_i
#: ‖x_i − x̄‖²``, invariant to the scale of the features (the offset is free): about 16 on rows
#: of unit norm (text), 16 / d on d standardized features (2 on pima's 8, 0.27 on sonar's 60);
#: docs/methods/beta.rst.
LINEAR_C_DIAGONAL = 16.0


def _spread_of_rows(X):
    """``mean_i ‖x_i − x̄‖²`` (:func:`weakcvx.kernels.mean_squared_spread`), or 0 when it is
    within rounding of 0 (the bound of :func:`weakcvx._validation.constant_columns` on the
    sum over the columns): rows that are all the same give ~1e-30 rather than 0 (a constant
    0.1 on 40 rows: 8.7e-33), and dividing by it made the default linear ``C`` ~1e31 or
    inf. With rows that do not vary every ``w`` adds the same constant to every score, so
    any ``C`` gives the same model."""
    n = X.shape[0]
    spread = kernels.mean_squared_spread(X)
    mean = np.asarray(X.sum(axis=0)).ravel() / n
    return 0.0 if constant_columns(spread, np.linalg.norm(mean), n) else spread


def _two_class_target(y, n_samples):
    """Classes and ±1 labels of a fully labeled binary target."""
    classes, codes = _class_codes(y, n_samples, max_classes=2)
    return classes, np.where(codes == 1, 1.0, -1.0)


def _class_codes(y, n_samples, max_classes=None):
    """Classes of a fully labeled target (at least two, at most ``max_classes``) and every
    row's index into them. Warns when ``-1``, the unlabeled marker of ``init="ssl"``, is one
    of more than two classes."""
    y = np.asarray(check_real(ravel_column(y), "y"))
    if y.ndim != 1 or y.shape[0] != n_samples:
        raise ValueError(f"`y` must be a 1-D array with one entry per row of X ({n_samples}). "
                         f"Got shape {y.shape}.")
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError(f"`y` must hold class labels, without NaN or inf (NaN is not a class). "
                         f"Got {y[~np.isfinite(y)][:5]} instead.")
    check_not_continuous(y)
    classes = check_classes(y, "y")
    if classes.size < 2 or (max_classes is not None and classes.size > max_classes):
        expected = "exactly two" if max_classes == 2 else "at least two"
        raise ValueError(f"`y` must contain {expected} classes. Got classes "
                         f"{classes.tolist()}.")
    if classes.size > 2 and y.dtype.kind in "iuf" and np.any(y == -1):
        warn("`y` holds -1 among more than two classes: it is read as a class, one of "
             f"{classes.size}, since every row is labeled with this init. If -1 marks "
             "unlabeled rows (scikit-learn's semi-supervised convention), use init='ssl'.",
             UserWarning)
    return classes, np.searchsorted(classes, y)


def _ssl_target(y, n_samples):
    """:func:`check_semi_supervised_target`, with a hint when y looks like ±1 labels."""
    classes, codes = _ssl_classes(y, n_samples, max_classes=2)
    return classes, one_vs_rest_known(codes, 1)


def _ssl_classes(y, n_samples, max_classes=None):
    """:func:`check_semi_supervised_classes`, with a hint when y looks like ±1 labels."""
    try:
        return check_semi_supervised_classes(y, n_samples, max_classes=max_classes)
    except ValueError as exc:
        values = np.asarray(y) if y is not None else np.array([])
        if values.dtype.kind in "iuf" and set(np.unique(values).tolist()) <= {-1, 1}:
            # the message already says that {-1, +1} leaves one class when both occur
            why = "" if "leave a single class" in str(exc) else (
                " With init='ssl', -1 is the marker of unlabeled points, so labels in {-1, +1} "
                "leave a single class: encode the classes as, e.g., 0/1 and the unlabeled "
                "points as -1.")
            raise ValueError(f"{exc}{why} Or use init='knn' for fully labeled, possibly noisy, "
                             "data.") from exc
        raise


#: ``C · median(diag K)`` above which a linear or polynomial kernel is taken for unscaled
#: features: standardized features give ``C·n_features`` (300 on breast_cancer with C = 10);
#: the raw breast_cancer features give 1e7, where LIBSVM needs ~1.7e7 SMO iterations per fit.
UNSCALED_KERNEL_SCALE = 1e6

#: Training predictions with fewer than this fraction in one class count as collapsed.
COLLAPSE_FRACTION = 0.01

#: Rows from which ``kernel="linear"`` solves P1 on ``X`` itself
#: (:func:`weakcvx.beta.beta_svm_features`) instead of LIBSVM on the 2n × 2n duplicated kernel;
#: the crossover in time (docs/methods/beta.rst, "At scale").
LINEAR_FEATURE_MIN_ROWS = 1000

#: Rows from which the RBF kernel solves P1 on a pivoted-Cholesky factor of
#: :data:`FACTOR_RANK` columns (the model a kernel expansion on its pivots): a few thousand
#: points, as for the other kernel estimators (docs/design.rst §7).
FACTOR_MIN_ROWS = 5000

#: P2 steps of the first step's problems (each class against the rest) with
#: ``multi_class="ovo"``, where that step only gives the unlabeled rows to the pairs: chosen
#: among 0, 2, 5 and ``max_iter`` (20) on six multi-class sets, the same accuracy at three
#: quarters of the time (docs/methods/beta.rst, "More than two classes"); None: ``max_iter``.
FIRST_STEP_MAX_ITER = 2

#: Columns of that factor; chosen among 200, 500, 1000 beside the dense path
#: (docs/methods/beta.rst, "At scale").
FACTOR_RANK = 500
#: Residual trace (a fraction of the RBF kernel's, n) above which the factor goes on past
#: :data:`FACTOR_RANK` columns (until it is below), chosen over 2% and 5% on seed 0 of five
#: data sets (docs/methods/beta.rst, "At scale").
FACTOR_TRACE_TOL = 0.05
#: Most columns of that factor (the library's ``LOW_RANK_MAX``).
FACTOR_MAX_RANK = 1000


class BetaSVM(OneVsRestMixin, KernelModelMixin, ClassifierMixin, BaseEstimator):
    r"""β-SVM: an SVM whose points carry label confidences β, refined iteratively.

    Every point i has a row ``β_i = (β_i⁻, β_i⁺)`` on the simplex (column order ``classes_``)
    and costs ``c_i``. P1 fits the soft-margin β-SVM

    .. math::

        \min_{θ, b} \tfrac12\|θ\|^2 + \sum_i c_i \sum_σ β_i^σ \max(0, 1 − σ(θ·φ(x_i) + b)),

    P2 re-estimates the free rows of β by the linear program of the paper's §3 (see
    :func:`weakcvx.beta.p2_step`), and the two alternate until the hypothesis stabilises
    (ε = 1e−5 + tol·‖h‖) or ``max_iter`` P2 steps.

    ``init`` says where β comes from and which rows P2 may change:

    - ``"ssl"``: ``y`` with ``-1`` for unlabeled points; labeled rows one-hot and fixed,
      unlabeled rows ½ and free; cost ``C`` on labeled and ``C_unlabeled`` on unlabeled points.
    - ``"knn"``: ``y`` are (possibly noisy) labels; ``β_i^σ`` = fraction of the
      ``n_neighbors`` nearest other points labeled σ; all rows free. The paper's start, kept
      as stated; under label noise a plain ``SVC`` was more accurate
      (docs/methods/beta.rst, "Measurements behind the defaults").
    - ``"proportions"``: ``fit(X, bags=..., proportions=...)``, or ``fit(X, targets)`` with
      the two-column targets of :func:`weakcvx.model_selection.bag_targets` (what
      ``GridSearchCV`` with ``BagKFold`` and ``bag_error_scorer`` splits); ``β_i⁺ = p_k`` in
      bag k; ``classes_ = [0, 1]``. The paper's suggestion, kept as stated: on label
      proportions :class:`~weakcvx.ProportionSVM` is more accurate
      (docs/methods/beta.rst, "Measurements behind the defaults").
    - ``"given"``: ``fit(X, y=None, beta=...)``; all rows free (``beta_from_votes`` turns an
      expert vote matrix into β).

    More than two classes (``"ssl"`` and ``"knn"``), as :class:`~weakcvx.S3VM`: first one
    β-SVM per class against the rest, ``estimators_[k]`` for class ``classes_[k]`` (its class
    1) against the others (0), each with the defaults above (with ``multi_class="ovo"`` at
    most ``FIRST_STEP_MAX_ITER`` = 2 P2 steps), and each unlabeled row goes to the
    class of the largest score; then (``multi_class="ovo"``, the default) one β-SVM per pair of
    classes :math:`i < j` (``pair_estimators_``) on the rows labeled :math:`i` or :math:`j`
    and the unlabeled rows given to either, with the fraction of :math:`j` among those as its
    ``positive_fraction`` (when that is ``"auto"``; ``None`` stays the paper's P2);
    ``decision_function`` has one column per class (the pairs' votes,
    :func:`weakcvx.estimators._base.votes_of_pairs`) and ``predict`` takes the largest
    (docs/methods/beta.rst, "More than two classes").

    Parameters
    ----------
    init : {"ssl", "knn", "proportions", "given"}, default="ssl"
        Where β comes from and which rows P2 may change (above).
    kernel : {"rbf", "linear", "poly", "precomputed"}, default="rbf"
        With ``"linear"`` dense features are centred on their mean in ``fit`` (the same β-SVM:
        its offset ``b`` is free), so that features far from the origin do not make the kernel
        nearly constant and P1 collapse to one class; ``predict`` takes uncentred points, the
        mean is folded into ``intercept_``.
    C : float or None, default=None
        Cost ``c₁`` of every point (of labeled points under ``"ssl"``; the paper tunes it by
        grid search). ``None``: ``KERNEL_C`` = 10, or with ``kernel="linear"``
        ``LINEAR_C_DIAGONAL / mean_i ‖x_i − x̄‖²`` (= 16 / mean squared distance to the mean
        row, so the default does not depend on the scale of the features; 16 when the rows
        are all the same, where every ``C`` gives the same model), times
        ``min(1, LABELED_SHARE · n / n_labeled)`` (0.2 n / n_labeled: 2 with the RBF kernel
        when every row is labeled, as under ``init="knn"``). Chosen on UCI sets and text-like
        rows with 10% labeled, the scaling on UCI sets with 20-100% labeled and 10-30% of the
        labels flipped (docs/methods/beta.rst, "Measurements behind the defaults").
    C_unlabeled : float or None, default=None
        Cost of unlabeled points under ``"ssl"``; ``None`` means the paper's
        ``c₂ = C · n_labeled / n``.
    gamma : "mean_distance", "scale" or float, default="mean_distance"
        RBF width; ``1 / mean squared pairwise distance`` (the paper fixes the width to the mean
        distance between instances).
    degree, coef0 : polynomial kernel parameters.
    n_neighbors : int, default=4
        Neighbours of the ``"knn"`` initialisation (the paper's 4-nn).
    max_iter : int, default=20
        Maximum P2 steps (the paper's 20).
    tol : float, default=1e-3
        Relative part of the stopping threshold ε = 1e−5 + tol·‖h‖.
    solver : {"smo", "libsvm", "cvxopt"}, default="smo"
        P1 solver: the fast path, LIBSVM, or the CVXOPT reference QP; they agree to ~1e−5 in
        decision values (tests/test_beta.py, tests/test_beta_features.py). The fast path is
        libsvm's SMO on the kernel matrix, warm-started from the previous P1
        (:func:`weakcvx.beta.beta_svm_smo`; ``"libsvm"``: scikit-learn's SVC on the 2n × 2n
        duplicated kernel, cold every step), and in a feature space
        (:func:`weakcvx.beta.beta_svm_features`, no n × n array) from
        ``LINEAR_FEATURE_MIN_ROWS`` = 1000 rows with the linear kernel (on ``X``, sparse kept
        sparse) and from ``FACTOR_MIN_ROWS`` = 5000 rows with the RBF kernel (on a
        pivoted-Cholesky factor of ``FACTOR_RANK`` = 500 columns, up to ``FACTOR_MAX_RANK`` =
        1000 while more than ``FACTOR_TRACE_TOL`` = 5% of the kernel's trace is left; the
        polynomial kernel only above the memory budget); these thresholds were chosen against
        the dense path (docs/methods/beta.rst, "At scale").
        Fallback: when the SMO or LIBSVM stops at its iteration limit
        (:data:`weakcvx.beta.LIBSVM_MAX_ITER`) that P1 step and the later ones are solved with
        CVXOPT, with a ``ConvergenceWarning`` saying so. A ``UserWarning`` says when
        ``C · median(diag K)`` exceeds 1e6 (a polynomial kernel or an explicit linear ``C`` on
        unscaled features, where the solvers crawl: standardize the features).
    positive_fraction : "auto", float in [0, 1] or None, default="auto"
        Class balance that P2 may not move away from: P2 keeps the number of positives among
        the free rows between ``positive_fraction · m`` and its current value (see
        :func:`weakcvx.beta.p2_step`). ``"auto"`` uses the labeled class ratio under
        ``"ssl"`` and the mean initial ``β⁺`` of the free rows otherwise; ``None`` is the
        paper's P2 (a number: two classes only). ``"auto"`` was chosen on breast_cancer with
        few labels (docs/methods/beta.rst, "Measurements behind the defaults").
    multi_class : {"ovo", "ovr"}, default="ovo"
        More than two classes only: ``"ovr"`` one β-SVM per class against the rest, ``"ovo"``
        then one per pair of classes (above), which makes ``"ovr"`` the faster. ``"ovo"`` was
        chosen on six multi-class sets (docs/methods/beta.rst, "More than two classes").
    random_state : None, int or RandomState
        Unused: the algorithm is deterministic. Kept for the common estimator interface.
    verbose : int, default=0
        Log one line per iteration on the ``"weakcvx"`` logger when positive (with more than
        two classes, ``1`` one line per two-class problem, ``2`` also their iterations).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    costs_ : tuple of float
        ``(C, C_unlabeled)`` as resolved by ``fit`` (``(C, C)`` unless ``init="ssl"``).
    estimators_ : list of BetaSVM
        Only with more than two classes: ``estimators_[k]`` separates ``classes_[k]`` (1)
        from the rest (0) and holds the attributes below for its problem (``beta_``,
        ``dual_coef_``, ``intercept_``, ``coef_``, ``converged_``, ``status_`` and
        ``history_`` are there only).
    pair_estimators_ : list of BetaSVM
        Only with more than two classes and ``multi_class="ovo"``: one per pair
        ``(classes_[i], classes_[j])``, ``i < j`` in that order, separating ``classes_[j]``
        (its class 1) from ``classes_[i]`` (0) on the rows given to either.
    n_classes_ : int
        Only with more than two classes.
    beta_ : ndarray of shape (n_samples, 2)
        The final β (the one the final hypothesis was trained on); labeled rows stay one-hot
        under ``"ssl"``.
    dual_coef_ : ndarray of shape (n_samples,)
        ``α⁺ − α⁻``; on the factor path (RBF from ``FACTOR_MIN_ROWS`` rows) the
        coefficients of the kernel expansion on the factor's pivots ``X_fit_`` instead.
    intercept_ : float
    coef_ : ndarray of shape (n_features,)
        Primal weights (linear kernel only).
    n_iter_ : int, or ndarray of shape (n_classes,) with more than two classes
        P1 fits performed (P2 steps + 1).
    converged_ : bool
        Whether the alternation met ε. When ``max_iter`` stopped it a ``ConvergenceWarning``
        names the final change and ε; a cycle (``status_ == "cycle"``) is an end of the
        paper's alternation, kept without a warning (:func:`weakcvx.beta.beta_iterate`).
    status_ : str
        ``"converged"``, ``"max_iter"`` or ``"cycle"`` (see :func:`weakcvx.beta.beta_iterate`).
    history_ : list of dict
        Per iteration: ``change`` ‖hᵗ − hᵗ⁻¹‖, ``eps``, ``beta_change``, dual ``objective``,
        cumulative ``seconds``.

    See Also
    --------
    weakcvx.beta.beta_iterate : the algorithm on a kernel matrix.
    weakcvx.beta.beta_from_votes : multi-expert votes to β.
    weakcvx.S3VM : WellSVM for the semi-supervised setting.

    Notes
    -----
    With one-hot β the β-SVM is the standard SVM with offset (scikit-learn's ``SVC``); a row
    β = ½ has loss ``(c/2)(max(0, 1−f) + max(0, 1+f)) = c·max(1, |f|)``, flat on the margin
    band, so such points do not move a separator that keeps them inside its margin.

    References
    ----------
    Zantedeschi, Emonet, Sebban. β-risk: a new surrogate risk for learning from weakly labeled
    data. NIPS 2016.

    Examples
    --------
    >>> import numpy as np
    >>> import weakcvx as wc
    >>> X, y = wc.datasets.load_uci("ionosphere")
    >>> y01 = (y > 0).astype(int)
    >>> y_semi = np.full_like(y01, -1); y_semi[::10] = y01[::10]
    >>> clf = wc.BetaSVM(init="ssl").fit(X, y_semi)
    >>> clf.beta_.shape, bool(np.all(clf.beta_[::10].max(axis=1) == 1))
    ((351, 2), True)
    """

    @property
    def _fit_kernel_copies(self):
        """Peak of ``fit`` in n × n arrays, rounded up (see KernelModelMixin; docs/design.rst
        §7): 1.35 with the SMO on the kernel itself, 5.7 with LIBSVM, which trains on the
        duplicated 2n × 2n kernel, at n = 1500 (the CVXOPT reference, for small n, keeps the
        former 6)."""
        return 2 if self.solver == "smo" else 6
    #: BetaSVM warns on unscaled features itself (``UNSCALED_KERNEL_SCALE``).
    _warn_unscaled_linear = False

    _parameter_constraints = {
        "init": [StrOptions({"ssl", "knn", "proportions", "given"})],
        "C": [Interval(Real, 0, None, closed="neither"), None],
        "C_unlabeled": [Interval(Real, 0, None, closed="neither"), None],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "solver": [StrOptions({"smo", "libsvm", "cvxopt"})],
        "positive_fraction": [StrOptions({"auto"}), Interval(Real, 0, 1, closed="both"), None],
        "multi_class": [StrOptions({"ovo", "ovr"})],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        **{k: v for k, v in KERNEL_CONSTRAINTS.items() if k != "intercept_scaling"},
    }

    #: The offset is the β-SVM's own b, so the mixin's constant-feature offset stays off.
    intercept_scaling = 0.0

    def __init__(self, init="ssl", kernel="rbf", C=None, C_unlabeled=None, gamma="mean_distance",
                 degree=3, coef0=1.0, n_neighbors=4, max_iter=20, tol=1e-3, solver="smo",
                 positive_fraction="auto", multi_class="ovo", random_state=None, verbose=0):
        self.init = init
        self.kernel = kernel
        self.C = C
        self.C_unlabeled = C_unlabeled
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.n_neighbors = n_neighbors
        self.max_iter = max_iter
        self.tol = tol
        self.solver = solver
        self.positive_fraction = positive_fraction
        self.multi_class = multi_class
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True  # init "ssl" and "knn": one against the rest
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    def _initial_beta(self, X, K, y, beta, bags, proportions, C, checked=None):
        """β⁰, the free rows, the costs, classes_ and the cost ``C`` of labeled rows for
        ``init`` (``C`` resolved by :meth:`_cost`, then, when it is the default, scaled by
        ``min(1, LABELED_SHARE · n / n_labeled)``); ``checked``: ``(classes, codes)`` of ``y``
        when ``fit`` has checked it already."""
        n = X.shape[0]
        if self.init == "proportions" and bags is None and y is not None and np.ndim(y) == 2:
            bags = y                                # fit(X, bag_targets(...))
        needs = {"ssl": "y", "knn": "y", "proportions": "bags` and `proportions",
                 "given": "beta"}[self.init]
        missing = {"ssl": y is None, "knn": y is None, "given": beta is None,
                   "proportions": bags is None or (proportions is None
                                                   and np.ndim(bags) != 2)}[self.init]
        if missing and needs == "y":
            raise ValueError(f"init={self.init!r} requires y to be passed, but the target y is "
                             "None.")
        if missing and self.init == "proportions" and bags is None and np.ndim(y) == 1:
            # ProportionSVM's fit(X, bags, p)
            given = "".join(f" with `{name}`" for name, value in
                            (("proportions", proportions),
                             ("beta", beta)) if value is not None)
            raise ValueError(f"init={self.init!r} requires `bags` and `proportions` to be passed "
                             f"to fit. Got a 1-D `y`{given} and no `bags`: pass the bag ids as "
                             "`bags=`, fit(X, bags=bags, proportions=proportions) (`y` is "
                             "ignored with init='proportions').")
        if missing:
            hint = (" (or the two-column targets of weakcvx.model_selection.bag_targets as "
                    "`y`)" if self.init == "proportions" else "")
            raise ValueError(f"init={self.init!r} requires `{needs}` to be passed to fit"
                             f"{hint}. Got None instead.")
        if beta is not None and self.init != "given":
            raise ValueError(f"`beta` is only used with init='given'. Got init={self.init!r}.")
        if self.init != "proportions" and (bags is not None or proportions is not None):
            given = " and ".join(f"`{name}`" for name, value in
                                 (("bags", bags), ("proportions", proportions))
                                 if value is not None)
            raise ValueError(f"`bags` and `proportions` are only used with init='proportions'. "
                             f"Got {given} with init={self.init!r}.")
        free = np.ones(n, bool)
        self._bag_sizes = None  # set for init="proportions" below
        if self.init == "ssl":
            classes, y_known = _ssl_target(y, n) if checked is None else \
                (checked[0], one_vs_rest_known(checked[1], 1))
            beta0, free = beta_semi_supervised(y_known)
        elif self.init == "knn":
            classes, y_pm = _two_class_target(y, n) if checked is None else \
                (checked[0], np.where(checked[1] == 1, 1.0, -1.0))
            if self.n_neighbors >= n:
                raise ValueError(f"`n_neighbors` must be below n_samples ({n}). Got "
                                 f"{self.n_neighbors}.")
            if self.kernel == "precomputed":
                d = np.diag(K)
                D = np.sqrt(np.maximum(d[:, None] + d[None, :] - 2 * K, 0.0))
                beta0 = beta_from_knn(D, y_pm, self.n_neighbors, metric="precomputed")
            else:
                beta0 = beta_from_knn(X, y_pm, self.n_neighbors)
        elif self.init == "proportions":
            if np.shape(bags)[0] != n:
                raise ValueError(f"`bags` must give one bag id per row of X ({n}). Got shape "
                                 f"{np.shape(bags)}.")
            beta0 = beta_from_proportions(bags, proportions)
            classes = np.array([0, 1])
            # the bags' sizes, for score's check that a split did not cut them
            self._fit_bags, index = check_bag_ids(
                np.asarray(bags)[:, 0] if np.ndim(bags) == 2 else bags, n)
            self._bag_sizes = np.bincount(index, minlength=self._fit_bags.size)
        else:
            beta0 = check_beta(beta, n)
            classes = np.array([0, 1]) if y is None else _two_class_target(y, n)[0]
        # every row carries supervision except the unlabeled rows of "ssl" (free elsewhere
        # means that P2 may move a row's β, which it may for every row)
        n_labeled = n - int(free.sum()) if self.init == "ssl" else n
        if self.C is None:  # the default's labeled points cost C·n·LABELED_SHARE at most
            C *= min(1.0, LABELED_SHARE * n / max(n_labeled, 1))
        costs = np.full(n, C)
        if self.init == "ssl":
            costs[free] = C * n_labeled / n if self.C_unlabeled is None else self.C_unlabeled
        return beta0, free, costs, classes, C

    def _cost(self, X):
        """``C`` with its default resolved on the training rows ``X``: ``LINEAR_C_DIAGONAL /
        mean ‖x − x̄‖²`` for the linear kernel (``LINEAR_C_DIAGONAL`` when the rows do not
        vary, :func:`_spread_of_rows`), ``KERNEL_C`` otherwise."""
        if self.C is not None:
            return float(self.C)
        if self.kernel == "linear":
            spread = _spread_of_rows(X)
            return LINEAR_C_DIAGONAL / spread if spread > 0 else LINEAR_C_DIAGONAL
        return KERNEL_C

    def _initial_fraction(self, beta0, free):
        """Class balance of the supervision: the labeled class ratio (SSL) or mean β⁰⁺ of the
        free rows (all rows when none is free)."""
        rows = ~free if self.init == "ssl" else (free if free.any() else slice(None))
        return float(beta0[rows, 1].mean())

    def _warn_unscaled(self, X, K, C):
        if self.kernel not in ("linear", "poly"):
            return
        if K is not None:
            diagonal = np.diag(K)
        else:                                   # the feature path: diag K from the rows
            diagonal = row_norms(X, squared=True)
            if self.kernel == "poly":
                diagonal = (self._gamma * diagonal + self.coef0) ** self.degree
        warn_if_unscaled("BetaSVM", f"C · median(diag K) with kernel={self.kernel!r}",
                         C * float(np.median(diagonal)), UNSCALED_KERNEL_SCALE,
                         "the P1 solver may need millions of iterations per step")

    def _p1_features(self, X):
        """``(features, pivots)`` in which P1 is solved, or ``(None, None)`` for the kernel
        matrix: ``X`` for the linear kernel from :data:`LINEAR_FEATURE_MIN_ROWS` rows, a
        pivoted-Cholesky factor (:meth:`_factor`) and its pivots for the RBF kernel from
        :data:`FACTOR_MIN_ROWS` rows and for the polynomial kernel above the memory budget
        only (measured with ``gamma=1``, the polynomial kernel's former width, when ``(x·z + 1)³`` spanned diagonals of 10²-10⁵ on standardized
        features: coordinate descent on its factor stopped far from the P1 optimum, 3,703
        against 1,744, and the fit fell from 0.757 to 0.559 at 2,000 rows); only with the fast
        P1 solver (``solver="smo"``: LIBSVM and the CVXOPT reference need the kernel matrix)."""
        n = X.shape[0]
        if self.solver != "smo":
            return None, None
        if self.kernel == "linear" and n >= LINEAR_FEATURE_MIN_ROWS:
            return X, None
        if (self.kernel == "rbf" and n >= FACTOR_MIN_ROWS) or (
                self.kernel == "poly" and not dense_fits(n, n, copies=self._fit_kernel_copies)):
            return self._factor(X)
        return None, None

    def _factor(self, X):
        """The P1 factor: :data:`FACTOR_RANK` columns of the kernel; for the RBF kernel
        (diagonal 1, trace n), when their residual trace is above :data:`FACTOR_TRACE_TOL`
        times n, computed again up to :data:`FACTOR_MAX_RANK` columns, stopping at the first
        block of columns (:func:`weakcvx.kernels.pivoted_cholesky_blocked` tests the residual
        every block, up to 64 columns) after which it is below. The second pass recomputes the
        first :data:`FACTOR_RANK` columns: about a quarter of its own cost (O(n r²)), paid only
        where the kernel needs more columns."""
        n = X.shape[0]
        R, pivots = self._kernel_factor(X, FACTOR_RANK)
        if self.kernel == "rbf" and FACTOR_MAX_RANK > R.shape[1] == min(FACTOR_RANK, n):
            residual = 1.0 - float(np.einsum("ij,ij->", R, R)) / n
            if residual > FACTOR_TRACE_TOL:
                R, pivots = self._kernel_factor(X, FACTOR_MAX_RANK, tol=FACTOR_TRACE_TOL)
        return R, pivots

    @staticmethod
    def _feature_scale(X):
        """``1 / √(mean ‖x − x̄‖²)``: P1 on ``X`` runs on ``X · scale`` with the costs over
        ``scale²`` (the same β-SVM, ``w`` over ``scale``), so that the solver's constant offset
        column is on the scale of the rows (at 1e-3 times standardized rows the descent
        crawled and the fit collapsed to one class; 1 when the rows do not vary)."""
        spread = _spread_of_rows(X)
        return 1.0 / np.sqrt(spread) if spread > 0 else 1.0

    def _warn_collapse(self, scores, initial):
        """Warn when the training predictions fall in one class although β⁰ had both; not for
        the two-class problems of a fit with more classes, whose scores are compared, not
        signed (:meth:`_warn_unpredicted_classes` checks that fit's predictions)."""
        if getattr(self, "_one_of_many", False) or \
                not COLLAPSE_FRACTION < initial < 1 - COLLAPSE_FRACTION:
            return
        positive = float(np.mean(scores > 0))
        minority = min(positive, 1.0 - positive)
        if minority < COLLAPSE_FRACTION:
            advice = "Label more points or lower C_unlabeled" + (
                "" if self.positive_fraction == "auto" else
                f", or set positive_fraction='auto' (got {self.positive_fraction!r})")
            warn(f"BetaSVM predicts {100 * (1 - minority):.1f}% of the training points "
                 f"as one class although the initial β has both (positive fraction "
                 f"{initial:.2f}): the β updates drifted to one class. {advice}.",
                 UserWarning)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, beta=None, bags=None, proportions=None):
        """Fit the iterative β-SVM.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), sparse with the linear kernel, or an
            (n_samples, n_samples) kernel matrix with ``kernel="precomputed"``.
        y : array-like of shape (n_samples,) or None
            ``"ssl"``: classes with ``-1`` for unlabeled points; ``"knn"``: (noisy) labels;
            two classes or more (more: one β-SVM per class against the rest); ``"given"``:
            optional, two classes, only fixes ``classes_``; ``"proportions"``: ignored.
            With ``"proportions"`` ``y`` may be the two-column targets of
            :func:`weakcvx.model_selection.bag_targets` instead of ``bags`` and ``proportions``.
        beta : array-like of shape (n_samples, 2) or None
            ``"given"`` only: rows on the simplex, columns ordered as ``classes_``.
        bags : array-like of shape (n_samples,) or (n_samples, 2) or None
            ``"proportions"`` only: bag id of every row, or the bag targets.
        proportions : array-like of shape (n_bags,), mapping or None
            ``"proportions"`` only: fraction of ``classes_[1]`` per bag, by sorted bag id or as
            a mapping bag id → proportion (read by
            :func:`weakcvx.model_selection.check_bags`).

        Returns
        -------
        self
        """
        X = self._validate_X(X)
        checked = None  # the target checked once (its warnings given once)
        if self.init in ("ssl", "knn") and y is not None and beta is None and bags is None \
                and proportions is None:
            checked = (_ssl_classes if self.init == "ssl" else _class_codes)(y, X.shape[0])
            if checked[0].size > 2:
                return self._fit_beta_one_vs_rest(X, *checked)
        self._forget_one_vs_rest()
        center = linear_center(X) if self.kernel == "linear" else None  # see kernel
        if center is not None:
            X = X - center
        features, pivots = self._p1_features(X)
        K = None
        if features is None:
            inputs = self._dense_problem_inputs(X)
            K = inputs["kernel"] if "kernel" in inputs else kernels.linear(inputs["features"])
        beta0, free, costs, self.classes_, C = self._initial_beta(
            X, K, y, beta, bags, proportions, self._cost(X), checked)
        self.costs_ = (C, float(costs[free].min()) if self.init == "ssl" and free.any() else C)
        self._warn_unscaled(X, K, C)
        initial = self._initial_fraction(beta0, free)
        target = None if self.positive_fraction is None or not free.any() else (
            initial if self.positive_fraction == "auto" else float(self.positive_fraction))
        # the fallback to CVXOPT when LIBSVM hits its iteration limit lives in beta_iterate
        scale = self._feature_scale(X) if features is not None and pivots is None else 1.0
        with verbose_logging(self.verbose):
            res = beta_iterate(K, beta0, costs / scale**2, free=free, max_iter=self.max_iter,
                               tol=self.tol, solver=self.solver, verbose=self.verbose,
                               positive_fraction=target,
                               features=features if scale == 1.0 else X * scale)
        self.beta_ = res.beta
        self.dual_coef_ = res.solution.dual_coef * scale**2
        self.intercept_ = float(res.solution.intercept)
        if pivots is not None:
            self._store_nystrom(X, features, pivots, res.solution.coef, self.intercept_)
        elif self.kernel == "linear":
            self.coef_ = (res.solution.coef * scale if res.solution.coef is not None
                          else np.asarray(X.T @ self.dual_coef_).ravel())
            if center is not None:  # f(x) = w·(x − center) + b on uncentred points
                self.intercept_ -= float(center @ self.coef_)
        else:
            self.X_fit_ = X if self.kernel != "precomputed" else None
        self.n_iter_ = res.n_iter + 1
        self.converged_ = res.converged
        self.status_ = res.status
        self._warn_collapse(res.scores, initial)
        self.history_ = res.history
        return self

    def _fit_beta_one_vs_rest(self, X, classes, codes):
        """More than two classes (``init`` "ssl" or "knn"): one β-SVM per class against the
        rest, on the validated rows ``X`` (``estimators_``); with ``multi_class="ovo"`` then
        one per pair of classes on the rows that step gives to either (``pair_estimators_``)."""
        def two_classes(binary, X_rows, codes_rows, positive):
            # classes 1 and 2 (positive): a 0/1 target would read as the modelling layer's
            # convention when class 0 outnumbers the unlabeled rows
            target = np.where(codes_rows == positive, 2, 1)
            return binary.fit(X_rows, np.where(codes_rows < 0, -1, target)
                              if self.init == "ssl" else target)

        def first_step(binary, k):
            if self.multi_class != "ovo" or FIRST_STEP_MAX_ITER is None or \
                    self.max_iter <= FIRST_STEP_MAX_ITER:
                return two_classes(binary, X, codes, k)
            # the step only gives the unlabeled rows to the pairs: a few P2 steps do that, and
            # stopping there is the design, not a failure to report
            binary.set_params(max_iter=FIRST_STEP_MAX_ITER)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                return two_classes(binary, X, codes, k)

        scores = self._fit_one_vs_rest(X, classes, first_step)
        if self.multi_class == "ovo":
            precomputed = self.kernel == "precomputed"

            def fit_pair(binary, rows, y_known, n_positive):
                unlabeled = int(np.sum(y_known == 0))
                if unlabeled and self.positive_fraction == "auto":  # None: the paper's P2
                    # the first step's share of class j among the pair's unlabeled rows
                    binary.set_params(positive_fraction=n_positive / unlabeled)
                X_pair = X[np.ix_(rows, rows)] if precomputed else X[rows]
                pair_codes = np.where(y_known == 0, -1, (y_known > 0).astype(int))  # j is 1
                return two_classes(binary, X_pair, pair_codes, 1)
            scores = self._fit_pairs(X, codes, self._first_step_assignment(X, codes, scores),
                                     fit_pair)
        self._warn_unpredicted_classes(scores.argmax(axis=1), codes)
        return self

    def _warn_unpredicted_classes(self, predicted, codes):
        """Warn when a class with labeled rows is predicted for no training row (the fit with
        more than two classes; ``codes``: each row's class index, −1 unlabeled). A two-class
        problem whose scores all fall on one side is no failure here (the class of the largest
        score wins): one that never wins is."""
        missing = np.setdiff1d(np.unique(codes[codes >= 0]), predicted)
        if missing.size:
            names = ", ".join(map(str, self.classes_[missing].tolist()))
            advice = ("Label more points of it or lower C_unlabeled" if self.init == "ssl" else
                      "Check its labels, or fit SVC, which keeps every given label")
            warn(f"BetaSVM predicts no training point as class {names} ({missing.size} of "
                 f"{self.classes_.size} classes) although it has labeled points: the β "
                 f"updates drifted to the other classes. {advice}.", UserWarning)

    def predict(self, X):
        """Class labels: ``classes_[1]`` where ``decision_function > 0``; with more than two
        classes, the class of the largest score."""
        scores = self.decision_function(X)  # checks the fit first
        if scores.ndim == 2:
            return self.classes_[scores.argmax(axis=1)]
        return self.classes_[(scores > 0).astype(np.intp)]

    def _warn_if_bags_split(self, targets):
        """:func:`weakcvx.model_selection.warn_if_bags_cut` for the bags of ``fit``
        (``init="proportions"``)."""
        warn_if_bags_cut(type(self).__name__, getattr(self, "_fit_bags", None),
                         getattr(self, "_bag_sizes", None), targets)

    def score(self, X, y, sample_weight=None):
        """Score on the kind of target ``fit`` takes for ``init``, so that
        ``cross_val_score`` and ``GridSearchCV`` can be given that target.

        - ``init="ssl"``: the accuracy on the labeled rows of ``y``; rows marked ``-1``
          (unlabeled, the convention of ``fit``) are skipped, as in :meth:`weakcvx.S3VM.score`.
        - ``init="proportions"`` with the two-column targets of
          :func:`weakcvx.model_selection.bag_targets`: minus the bag-level error
          ``Σ_k |p̂_k − p_k|`` (:func:`weakcvx.model_selection.bag_error_scorer`; no instance
          label is used).
        - otherwise: the accuracy on the class labels ``y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), or (n_samples, 2) bag targets
        sample_weight : array-like of shape (n_samples,), optional
            Weights of the accuracy (not supported with bag targets).

        Returns
        -------
        float
        """
        if self.init == "proportions" and np.ndim(y) == 2 and np.shape(y)[1] == 2:
            if sample_weight is not None:
                raise ValueError("`sample_weight` is not supported when `y` is the two-column "
                                 "bag targets (the bag error weighs every bag alike).")
            self._warn_if_bags_split(y)
            return -bag_proportion_error(np.asarray(y), None, self.predict(X))
        if self.init == "ssl":
            return SemiSupervisedScoreMixin.score(self, X, y, sample_weight=sample_weight)
        return super().score(X, y, sample_weight=sample_weight)
