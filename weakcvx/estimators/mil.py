"""Multi-instance SVM: WellSVM's label generation (§4.2) and the MI-SVM / mi-SVM heuristics."""

from __future__ import annotations

import logging
import numbers
import time
from numbers import Integral, Real
import numpy as np
from scipy.linalg import solve_triangular
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .. import kernels
from .._validation import (check_classes, check_not_continuous, check_real, ravel_column,
                           warn)
from ..api import solve
from ..cutting_plane import LARGE_N
from ..labelsets import InstanceLabels, KeyInstances
from ..local import bag_mean_keys, multi_instance_alternating, positive_bags_start
from ..problem import WeakLabelProblem
from ._base import (KERNEL_CONSTRAINTS, KernelModelMixin, affordable_rank, integer_seed,
                    linear_center, round_cap_is_the_stopping_rule, rounded_labels_model,
                    spread_scaled_cost, verbose_logging)

__all__ = ["MultiInstanceSVM", "check_bags", "select_gamma"]

logger = logging.getLogger("weakcvx")

#: Default label-generation rounds (see ``MultiInstanceSVM``'s ``max_iter``).
MIL_ROUNDS = 3
#: Default ratio ``C_positive / C`` (see ``MultiInstanceSVM``'s ``C_positive``).
POSITIVE_COST_RATIO = 4.0
#: Default ``C`` with the RBF or polynomial kernel (see ``MultiInstanceSVM``'s ``C``).
KERNEL_C = 2.0
#: With the linear kernel ``C=None`` is ``LINEAR_C_DIAGONAL / (mean_i ‖x_i − x̄‖² + s²)``: the
#: product of ``C`` and the mean kernel diagonal of the RBF default (2 × (1 + 1)), so that the
#: cost does not grow with the number of features (docs/methods/mil.rst).
LINEAR_C_DIAGONAL = 4.0
#: Master settings with the low-rank factor: 3 MKL alternations a round, tolerance 1e-2
#: (chosen on Musk2 for time, same test accuracy; ``weakcvx.bench.mil``).
LARGE_MIL_MASTER = {"max_alternations": 3, "master_tol": 1e-2}
#: Master settings on a dense kernel of at most ``LARGE_N`` instances (above, the driver's
#: large-problem policy): up to 5 MKL alternations a round to a saddle gap of 1e-3 (chosen on
#: Musk1, CV seeds 10-19, for time at the accuracy of 20 alternations to 1e-4;
#: ``weakcvx.bench.mil``).
MIL_MASTER = {"max_alternations": 5, "master_tol": 1e-3}
#: Widths among which ``gamma="select"`` chooses, as multiples of ``"scale"`` (chosen on
#: Musk1, Musk2, Elephant and ``make_mil_roi``, CV seeds 10-19; ``weakcvx.bench.mil``).
GAMMA_MULTIPLES = (0.5, 1.0, 1.5)
#: Narrower widths ``gamma="select"`` falls back on, as multiples of ``"scale"``, when an SVM on
#: key instances classifies the held-out bags significantly better with one of them than with
#: the width the bag AUC chose (:func:`select_gamma`). With many features of which few inform,
#: the kernel of ``"scale"`` is nearly flat between instances: the MI-SVM then fits its training
#: bags by the kernel's diagonal and calls every new bag negative (docs/methods/mil.rst, "The
#: kernel width"). Chosen on synthetic high-dimensional bags, make_mil_roi, digit bags and CV
#: seeds 10-11 of Musk1 and Elephant, where the fallback never fired.
NARROW_MULTIPLES = (0.03, 0.1)
#: Instances (about, at most) on which the fallback runs: above, whole bags drawn at random
#: (:func:`selection_bags`), so that its SVCs see a precomputed kernel (narrow widths slowed
#: libsvm on Musk2's 6,000 instances: the selection took 6.3 s instead of 2.4 s).
NARROW_MAX_INSTANCES = kernels.EXACT_FACTOR_LIMIT
#: The fallback's test: McNemar's statistic ``(n01 - n10) / sqrt(n01 + n10)`` over the held-out
#: bags above this (``n01`` bags right with the narrower width only, ``n10`` the reverse).
NARROW_Z = 2.0
#: Inner folds (stratified, over the training bags) of ``gamma="select"``.
GAMMA_FOLDS = 3
#: Instances (about, at most) on which ``gamma="select"`` runs: above, the inner folds draw
#: whole bags at random up to that many instances (:func:`selection_bags`). Its SVC fits grow
#: faster than linearly in the instances (24,000 instances: 60 of the fit's 77 s); the limit is
#: above the shipped benchmarks (Musk2: 6,598 instances), whose choices it leaves unchanged.
GAMMA_MAX_INSTANCES = 8000
#: ``max_rank=None``: the factor's columns grow with the training instances, ``n //
#: RANK_INSTANCES`` between ``RANK_MIN`` and ``RANK_MAX``. A fixed 300 (chosen on Musk2, 6,598
#: instances, where the rule still gives 300) let the bag accuracy fall as the data grew
#: (bags of 10 of ``make_classification``, 10% positive instances: 0.94 at 3,000 instances,
#: 0.80 at 20,000, 0.67 at 30,000, where most bags came out positive; 0.84 / 0.86 with 667 /
#: 1,000 columns; docs/methods/mil.rst, "Many instances").
RANK_MIN, RANK_MAX, RANK_INSTANCES = 300, 1000, 30


def check_bags(bags, n_features=None):
    """Validate a container of bags and stack it.

    Parameters
    ----------
    bags : list, tuple or pandas Series of array-like of shape (n_i, n_features), or a 3-D array
        One 2-D array per bag, one row per instance; bags may differ in length.
    n_features : int, optional
        Expected width (at prediction time).

    Returns
    -------
    X : ndarray of shape (sum n_i, n_features)
        The instances, bag after bag (a pandas DataFrame with their columns when every bag
        is a DataFrame with the same columns).
    sizes : ndarray of int, shape (n_bags,)

    Raises
    ------
    TypeError
        When ``bags`` is not a list, tuple or array of bags (e.g. a single 2-D array).
    ValueError
        When there is no bag, a bag is not 2-D, empty, or holds NaN/inf, or the bags differ in
        their number of features.

    Examples
    --------
    >>> import numpy as np
    >>> X, sizes = check_bags([np.zeros((2, 3)), np.ones((1, 3))])
    >>> X.shape, sizes.tolist()
    ((3, 3), [2, 1])
    """
    if isinstance(bags, np.ndarray) and bags.dtype != object:
        if bags.ndim != 3:
            raise TypeError("`bags` must be a list of 2-D arrays (one per bag, one row per "
                            f"instance) or a 3-D array. Got an array of shape {bags.shape}; for "
                            "single instances use predict_instances.")
        bags = list(bags)
    elif hasattr(bags, "iloc") and np.ndim(bags) == 1:  # a pandas Series of bags
        bags = list(bags)
    elif not isinstance(bags, (list, tuple, np.ndarray)):
        raise TypeError("`bags` must be a list of 2-D arrays (one per bag, one row per instance). "
                        f"Got {type(bags).__name__} instead.")
    if len(bags) == 0:
        raise ValueError("`bags` must hold at least one bag. Got an empty container.")
    columns = _bag_columns(bags)
    arrays = []
    for i, bag in enumerate(bags):
        check_real(bag, f"bags[{i}]")
        try:
            a = np.asarray(bag.toarray() if hasattr(bag, "toarray") else bag, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"`bags[{i}]` must be a numeric 2-D array. Got "
                             f"{type(bag).__name__} that does not convert.") from exc
        if a.ndim != 2:
            raise ValueError(f"`bags[{i}]` must be a 2-D array (n_instances, n_features). Got "
                             f"shape {a.shape} instead.")
        if a.shape[0] == 0:
            raise ValueError(f"`bags[{i}]` is empty: every bag needs at least one instance.")
        if not np.all(np.isfinite(a)):
            raise ValueError(f"`bags[{i}]` must contain only finite values. Got NaN or inf.")
        arrays.append(a)
    widths = {a.shape[1] for a in arrays}
    if len(widths) > 1:
        raise ValueError("All bags must have the same number of features. Got widths "
                         f"{sorted(widths)}.")
    width = widths.pop()
    if n_features is not None and width != n_features:
        raise ValueError(f"`bags` must have {n_features} features, as in fit. Got {width}.")
    X = np.vstack(arrays)
    if columns is not None:  # DataFrame bags: the instances keep their column names
        import pandas as pd

        X = pd.DataFrame(X, columns=columns)
    return X, np.array([a.shape[0] for a in arrays], dtype=np.int64)


def _bag_columns(bags):
    """The column names that every bag, a DataFrame, shares (scikit-learn's
    ``feature_names_in_`` then follows them); None when some bag is not a DataFrame."""
    if not all(hasattr(bag, "columns") for bag in bags):
        return None
    columns = bags[0].columns
    for i, bag in enumerate(bags):
        if list(bag.columns) != list(columns):
            raise ValueError(f"All bags must have the same columns. Got {list(columns)} in "
                             f"bags[0] and {list(bag.columns)} in bags[{i}].")
    return columns


def _check_bag_target(y, n_bags):
    """``(classes, bag_labels ±1)`` from one label per bag, exactly two classes."""
    if y is None:
        raise ValueError("This estimator requires y to be passed: one class per bag.")
    y = np.asarray(check_real(ravel_column(y), "y"))
    if y.ndim != 1 or y.shape[0] != n_bags:
        raise ValueError(f"`y` must be a 1-D array with one entry per bag ({n_bags}). Got shape "
                         f"{y.shape}.")
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError("`y` must not contain NaN or inf.")
    check_not_continuous(y)
    classes = check_classes(y, "y")
    if classes.size > 2:
        raise ValueError("Only binary classification is supported: `y` must contain exactly two "
                         f"classes. Got classes {classes.tolist()}.")
    if classes.size < 2:
        only = classes[0].item() if classes.size else None
        kind = {1: "negative", 0: "positive", -1: "positive"}.get(only, "negative or positive") \
            if isinstance(only, numbers.Real) else "negative or positive"
        raise ValueError(f"`y` must contain a positive and a negative bag (two classes). Got "
                         f"only class {only!r}: no {kind} bag.")
    _warn_if_positive_class_is_a_guess(classes)
    return classes, np.where(y == classes[1], 1.0, -1.0)


def _warn_if_positive_class_is_a_guess(classes):
    """Warn when the classes are not numbers or booleans: the positive class, whose bags hold at
    least one positive instance (the two classes are not symmetric), is then ``classes_[1]``
    by the order of the labels' names alone ("bird" / "none": "none" would be positive)."""
    if all(isinstance(c, (numbers.Real, np.bool_)) for c in classes.tolist()):
        return
    negative, positive = classes.tolist()
    warn(f"MultiInstanceSVM: the classes of `y` are not numbers, so the positive class (bags "
         f"with at least one positive instance; every instance of a negative bag is negative) "
         f"is classes_[1] = {positive!r}, the label that sorts last, and {negative!r} is the "
         f"negative class. If {negative!r} marks the bags with a positive instance, pass "
         f"y == {negative!r} (True for the positive bags) instead.")


def selection_bags(bag_index, n_bags, max_instances=GAMMA_MAX_INSTANCES, random_state=0):
    """The bags on which :func:`select_gamma` runs: all of them up to ``max_instances``
    instances, else bags drawn at random (whole bags, in a random order) while their instances
    number at most ``max_instances`` (at least one bag).

    Returns
    -------
    ndarray of int
        Sorted bag indices.

    Examples
    --------
    >>> import numpy as np
    >>> bag_index = np.repeat(np.arange(10), 3)          # ten bags of three instances
    >>> keep = selection_bags(bag_index, 10, max_instances=12)
    >>> len(keep), int(np.isin(bag_index, keep).sum())
    (4, 12)
    """
    sizes = np.bincount(bag_index, minlength=n_bags)
    if sizes.sum() <= max_instances:
        return np.arange(n_bags)
    order = np.random.default_rng(random_state).permutation(n_bags)
    count = np.searchsorted(np.cumsum(sizes[order]), max_instances, side="right")
    return np.sort(order[:max(1, count)])


def select_gamma(X, bag_index, bag_labels, base, multiples=GAMMA_MULTIPLES,
                 n_splits=GAMMA_FOLDS, random_state=0, max_instances=GAMMA_MAX_INSTANCES,
                 narrow=NARROW_MULTIPLES, costs=(POSITIVE_COST_RATIO * KERNEL_C, KERNEL_C)):
    r"""An RBF width for multi-instance learning, chosen by inner cross-validation over bags.

    For each candidate :math:`\gamma = m \cdot \text{base}` (``m`` in ``multiples``), an SVC
    (C = 1, its own offset) is trained on every instance of the inner training bags labeled
    with its bag's label, and each held-out bag is scored by its best instance,
    :math:`F(B) = \max_{x \in B} f(x)` (the MIL rule). The width with the largest mean bag
    AUC over ``n_splits`` stratified folds of the bags wins; ties go to the multiple nearest 1
    (``base`` itself first).

    That proxy ranks bags, and a ranking can survive where the MI-SVM does not: with many
    features of which few inform, the kernel of every candidate is nearly flat between
    distinct instances, the MI-SVM fits its training bags by the kernel's diagonal and
    predicts one class for every new bag. So the chosen width ``m_0`` is then compared with the
    ``narrow`` widths by one MI-SVM step in the same folds: the witness of each inner training
    bag is its best instance under that width's instance SVC, an SVC is trained on the
    witnesses of the positive bags (cost ``C_1``) and every instance of the negative bags
    (cost ``C_2``), and each held-out bag is classified by :math:`F(B) > 0`. A narrow width
    ``m`` replaces ``m_0`` when McNemar's statistic over the held-out bags,

    .. math::

        z = \frac{n_{01} - n_{10}}{\sqrt{n_{01} + n_{10}}} > \texttt{NARROW\_Z} = 2,

    (:math:`n_{01}` bags right with ``m`` only, :math:`n_{10}` with ``m_0`` only), the
    largest such :math:`z` winning.

    Parameters
    ----------
    X : ndarray of shape (n_instances, n_features)
    bag_index : ndarray of int, shape (n_instances,)
        Bag of each instance, ``0 .. n_bags - 1``.
    bag_labels : ndarray of shape (n_bags,), ±1
    base : float
        The reference width (``"scale"`` resolved on ``X``).
    multiples : sequence of float
    n_splits : int
    random_state : int
        Seed of the shuffled folds (and of the bags drawn above ``max_instances``).
    max_instances : int
        Above this many instances the folds run on bags drawn at random
        (:func:`selection_bags`).
    narrow : sequence of float
        Multiples of ``base`` tried as the fallback above (empty: the bag AUC alone decides).
        Above ``NARROW_MAX_INSTANCES`` (3,000) instances the fallback's folds run on bags
        drawn at random up to that many instances.
    costs : (float, float)
        ``(C_1, C_2)`` of the fallback's SVM on key instances: a positive bag's witness, a
        negative instance.

    Returns
    -------
    float
        The chosen width; ``base`` when a class has fewer than ``n_splits`` bags (no
        stratified split) or a single candidate is given.

    Examples
    --------
    >>> import numpy as np, weakcvx as wc
    >>> bags, y, _ = wc.datasets.make_mil_roi(n_bags=30, random_state=0)
    >>> X = np.vstack(bags); ids = np.repeat(np.arange(30), [len(b) for b in bags])
    >>> g = select_gamma(X, ids, np.where(y > 0, 1.0, -1.0), base=0.5)
    >>> g in (0.25, 0.5, 0.75)
    True
    """
    X, bag_index, bag_labels = _drawn_bags(X, bag_index, np.asarray(bag_labels),
                                           max_instances, random_state)
    folds = _inner_folds(X, bag_index, bag_labels, base, n_splits, random_state)
    if len(multiples) < 2 or folds is None:
        return float(base)
    order = sorted(multiples, key=lambda m: (abs(np.log(m)), m))  # tie-break: nearest 1 first
    best, best_auc = order[0], -np.inf
    for m in order:
        auc = folds.bag_auc(m)
        if auc > best_auc:
            best, best_auc = m, auc
    if len(narrow) and X.shape[0] > NARROW_MAX_INSTANCES:  # the fallback on fewer bags
        folds = _inner_folds(*_drawn_bags(X, bag_index, bag_labels, NARROW_MAX_INSTANCES,
                                          random_state), base, n_splits, random_state)
        if folds is None:
            return float(best * base)
    return float(_narrow_fallback(folds, best, narrow, costs) * base)


def _drawn_bags(X, bag_index, bag_labels, max_instances, random_state):
    """``(X, bag_index, bag_labels)`` of the bags :func:`selection_bags` draws (all of them up
    to ``max_instances`` instances), the bags renumbered, the instances in bag order."""
    if X.shape[0] <= max_instances:
        return X, bag_index, bag_labels
    keep = selection_bags(bag_index, len(bag_labels), max_instances, random_state)
    rows = np.isin(bag_index, keep)
    return X[rows], np.searchsorted(keep, bag_index[rows]), bag_labels[keep]


def _inner_folds(X, bag_index, bag_labels, base, n_splits, random_state):
    """The :class:`_InnerFolds` of ``n_splits`` stratified folds of the bags, or None when a
    class has fewer bags than folds."""
    from sklearn.model_selection import StratifiedKFold

    if min(np.sum(bag_labels > 0), np.sum(bag_labels <= 0)) < n_splits:
        return None
    folds = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=random_state)
    splits = list(folds.split(np.zeros(len(bag_labels)), bag_labels))
    return _InnerFolds(X, bag_index, bag_labels, base, splits)


def _narrow_fallback(folds, chosen, narrow, costs):
    """The multiple among ``chosen`` and ``narrow`` that :func:`select_gamma` keeps: a narrow
    one only when its key-instance SVM classifies significantly more held-out bags right
    (McNemar's z above ``NARROW_Z``)."""
    if not len(narrow):
        return chosen
    right = folds.key_svm_right(chosen, costs)
    best, best_z = chosen, NARROW_Z
    for m in narrow:
        other = folds.key_svm_right(m, costs)
        n01, n10 = int(np.sum(other & ~right)), int(np.sum(right & ~other))
        z = (n01 - n10) / np.sqrt(n01 + n10) if n01 + n10 else 0.0
        if z > best_z:
            best, best_z = m, z
    if best != chosen:
        logger.info("MultiInstanceSVM: gamma='select' falls back from %g to %g times 'scale' "
                    "(McNemar z = %.1f over the held-out bags of an SVM on key instances)",
                    chosen, best, best_z)
    return best


def _auc(scores, positive):
    """The area under the ROC curve, Mann-Whitney's statistic: the share of (positive,
    negative) pairs ranked right, ties counting one half (scikit-learn's ``roc_auc_score``
    without its input checks, which cost more than the sum here)."""
    from scipy.stats import rankdata

    n_positive = int(positive.sum())
    n_negative = len(positive) - n_positive
    ranks = rankdata(scores)
    return float((ranks[positive].sum() - n_positive * (n_positive + 1) / 2)
                 / (n_positive * n_negative))


class _InnerFolds:
    r"""The inner folds of :func:`select_gamma` and their SVCs. Up to
    ``EXACT_FACTOR_LIMIT`` instances through the log-kernel of width ``base``, computed once:
    the kernel of width :math:`m\gamma` is :math:`e^{m \log K}` (one exponential per entry
    of a fold's blocks, never a power); above, on the features."""

    def __init__(self, X, bag_index, bag_labels, base, splits):
        self.X, self.bag_index, self.bag_labels, self.base = X, bag_index, bag_labels, base
        self.log_kernel = None
        if X.shape[0] <= kernels.EXACT_FACTOR_LIMIT:
            self.log_kernel = kernels.rbf(X, gamma=base)
            with np.errstate(divide="ignore"):  # exp(-745) underflows to 0: log 0 = -inf
                np.log(self.log_kernel, out=self.log_kernel)
        self.rows = [np.flatnonzero(np.isin(bag_index, train)) for train, _ in splits]
        self.held = [np.flatnonzero(np.isin(bag_index, test)) for _, test in splits]  # bag order
        self._instance = {}  # m -> per fold (held-out bag AUC, decision function)

    def _blocks(self, m, rows, held):
        """``(training × training, held-out × training)`` kernels of width ``m · base``, or
        the features when no kernel is precomputed."""
        if self.log_kernel is None:
            return self.X[rows], self.X[held]
        blocks = self.log_kernel[np.ix_(rows, rows)], self.log_kernel[np.ix_(held, rows)]
        for block in blocks:
            block *= m
            np.exp(block, out=block)
        return blocks

    def _svc(self, m, train, labels, keep=None, weight=None, C=1.0):
        """An SVC of width ``m · base`` on the rows ``keep`` of the training block ``train``
        (all when None); returns its decision function on blocks whose columns are the
        training rows."""
        from sklearn.svm import SVC

        keep = slice(None) if keep is None else keep
        if self.log_kernel is None:
            svc = SVC(C=C, gamma=m * self.base).fit(train[keep], labels, sample_weight=weight)
            return svc.decision_function
        svc = SVC(C=C, kernel="precomputed").fit(train[keep][:, keep], labels,
                                                 sample_weight=weight)
        support = np.arange(train.shape[1])[keep][svc.support_]
        coef, offset = svc.dual_coef_[0], float(svc.intercept_[0])
        return lambda block: block[:, support] @ coef + offset

    def _bag_scores(self, scores, held):
        r"""The held-out bags (sorted) and their scores :math:`\max_{x \in B} f(x)`."""
        bags, starts = np.unique(self.bag_index[held], return_index=True)
        return bags, np.maximum.reduceat(scores, starts)

    def _fold(self, m, k, costs=None):
        """Fold ``k`` at width ``m``: the instance SVC's held-out bag AUC (its fit kept, once
        per width), and with ``costs`` whether the key-instance SVM classifies each held-out
        bag right."""
        rows, held = self.rows[k], self.held[k]
        train, test = self._blocks(m, rows, held)
        ids = self.bag_index[rows]
        if k not in self._instance.setdefault(m, {}):
            f = self._svc(m, train, self.bag_labels[ids])
            bags, scores = self._bag_scores(f(test), held)
            self._instance[m][k] = (_auc(scores, self.bag_labels[bags] > 0), f)
        if costs is None:
            return self._instance[m][k][0]
        # the witness of a positive training bag: its best instance under the instance SVC
        # (scored on the positive bags' rows only: above the kernel limit a kernel evaluation)
        positive = np.flatnonzero(self.bag_labels[ids] > 0)
        scores = self._instance[m][k][1](train[positive])
        order = positive[np.lexsort((-scores, ids[positive]))]
        witness = order[np.unique(ids[order], return_index=True)[1]]
        keep = np.union1d(np.flatnonzero(self.bag_labels[ids] <= 0), witness)
        labels = self.bag_labels[ids[keep]]
        C_positive, C = costs
        f = self._svc(m, train, labels, keep, np.where(labels > 0, C_positive / C, 1.0), C)
        bags, scores = self._bag_scores(f(test), held)
        return (scores > 0) == (self.bag_labels[bags] > 0)

    def bag_auc(self, m):
        """Mean over the folds of the instance SVC's held-out bag AUC at width ``m · base``."""
        return float(np.mean([self._fold(m, k) for k in range(len(self.rows))]))

    def key_svm_right(self, m, costs):
        """Per held-out bag (all folds, concatenated): classified right by the SVM (width
        ``m · base``, costs ``(C_1, C_2)``) on the witnesses of the positive training bags and
        every instance of the negative ones."""
        return np.concatenate([self._fold(m, k, costs) for k in range(len(self.rows))])


#: Projected-gradient tolerance of the SVM on every instance whose scores rank the instances of
#: each positive bag in :func:`_first_keys`; 1e-2 let the ranking move with the solver's error
#: (chosen on CV seeds 20-29, docs/methods/mil.rst).
FIRST_KEYS_TOL = 1e-4


def _first_keys(problem, X, inputs, costs):
    """The start of the key search: of two key choices, the one with the lower ``J`` (MI-SVM
    objective): the instance nearest each positive bag's mean (Andrews et al.'s centroid
    start) and the best-scoring instance of each positive bag under an SVM trained on every
    instance with its bag's label (mi-SVM's start). Either alone can trap the search: a key
    inside the negative cloud that its own cost keeps scoring above the bag's true witness."""
    labelset = problem.labelset
    starts = [bag_mean_keys(labelset, X)]
    instances = InstanceLabels(labelset.bag_index, labelset.bag_labels)
    everything = WeakLabelProblem(labelset=instances, costs=costs, **inputs)
    b = positive_bags_start(instances)
    _, alpha = everything.J(b, tol=FIRST_KEYS_TOL)
    starts.append(labelset.argmax(everything.decision_scores(alpha, [b], np.ones(1))))
    if np.array_equal(starts[0], starts[1]):
        return starts[0]
    return min(starts, key=lambda keys: problem.J(keys, tol=1e-3)[0])


class MultiInstanceSVM(KernelModelMixin, ClassifierMixin, BaseEstimator):
    r"""Multi-instance SVM: a bag is positive when its best instance scores positive.

    Solves the MI-SVM mixed-integer problem (WellSVM eq. 18–19; Andrews et al. 2003) over
    the label set :class:`weakcvx.labelsets.KeyInstances` (one key instance per positive bag,
    every instance of a negative bag negative)

    .. math::

        \min_{b \in B} \min_w \tfrac12\|w\|^2 + C_1 \sum_{i \le p} \ell(w\cdot\phi(x_{i,b_i}))
            + C_2 \sum_{j \in N_-} \ell(-w\cdot\phi(x_j)), \qquad \ell(t) = \max(0, 1 - t),

    with ``C_1 = C_positive`` and ``C_2 = C``,

    by ``relaxation``:

    - ``"label_generation"`` (default): WellSVM (Li et al. 2013, Algorithm 3), the convex-hull
      relaxation by cutting planes over key choices and multiple kernel learning, rounded to
      one feasible key choice (:func:`weakcvx.cutting_plane.round_relaxation`); the classifier
      is the SVM trained on that key choice (see Notes for why not the relaxation's mixture).
    - ``"alternating"``: the local heuristics of Andrews et al. (2003),
      :func:`weakcvx.local.multi_instance_alternating`.

    ``variant`` picks the label set: ``"MI"`` (one witness per positive bag, above) or ``"mi"``
    (:class:`weakcvx.labelsets.InstanceLabels`: a label per instance, at least one positive
    per positive bag; every instance is then an example).

    Parameters
    ----------
    relaxation : {"label_generation", "alternating"}, default="label_generation"
    variant : {"MI", "mi"}, default="MI"
    kernel : {"rbf", "linear", "poly"}, default="rbf"
        With ``"linear"`` and an offset (``intercept_scaling > 0``) dense instances are
        centred on their mean in ``fit`` (the offset is a regularised constant feature, which
        a common offset of the features dwarfs); ``predict`` takes uncentred instances, the
        mean is folded into ``intercept_``.
    C : float or None, default=None
        Hinge cost of every negative instance, the paper's ``C_2`` (eq. 18). ``None``:
        ``KERNEL_C`` = 2 with the RBF or polynomial kernel; with ``kernel="linear"``,
        ``LINEAR_C_DIAGONAL / (mean ‖x − x̄‖² + s²)`` over the training instances (``s`` the
        ``intercept_scaling``), so that ``C`` times the mean kernel diagonal is 4, as with the
        RBF default, whatever the number of features. Chosen by 10-fold CV on Musk1, Musk2 and
        Elephant (:doc:`/methods/mil`, "The mathematics" and "The linear kernel's cost").
    C_positive : float or None, default=None
        Hinge cost of each key slot of a positive bag, the paper's ``C_1`` (with
        ``variant="mi"``: of each instance of a positive bag); ``None``: ``POSITIVE_COST_RATIO
        · C`` = ``4 C`` for ``variant="MI"``, ``C`` for ``variant="mi"``. Chosen with ``C``
        from WellSVM §5.2's grid ``{C, 4C, 10C}`` (:doc:`/methods/mil`, "The mathematics").
    gamma : "select", "scale", "mean_distance" or float, default="select"
        RBF width. ``"scale"`` is ``2 / mean squared distance`` (scikit-learn's default);
        ``"select"`` chooses among ``GAMMA_MULTIPLES`` (0.5, 1, 1.5) times ``"scale"`` by the
        bag AUC of an instance-level SVC in ``GAMMA_FOLDS`` (3) inner folds of the training
        bags, then falls back on a narrower width (``NARROW_MULTIPLES``, 0.03 or 0.1 times
        ``"scale"``) when an SVM on key instances classifies significantly more held-out bags
        right with it (:func:`select_gamma`). Chosen by 10-fold CV on Musk1, Musk2 and
        Elephant, on which no fixed width is best for all three, and on bags of many features
        of which few inform, where the kernel of ``"scale"`` is nearly flat
        (:doc:`/methods/mil`, "The kernel width").
    degree, coef0 : polynomial kernel parameters.
    intercept_scaling : float, default=1.0
        Value ``s`` of the constant feature that models the offset (kernel ``k + s²``; 0 for
        no offset). Chosen by 10-fold CV on Musk1 (:doc:`/methods/mil`, "The mathematics").
    n_key : int, default=1
        Key instances per positive bag (``variant="MI"``; ``variant="mi"`` takes only 1): one
        witness, the MIL assumption. Where positive bags hold many positive instances a larger
        ``n_key`` can do better; 1 was kept after measuring 2 (:doc:`/methods/mil`, "Data sets
        the defaults never saw").
    max_rank : int or None, default=None
        Above ``weakcvx.kernels.EXACT_FACTOR_LIMIT`` training instances (and for
        non-linear kernels), the kernel enters through a pivoted-Cholesky factor with at most
        this many columns (:func:`weakcvx.kernels.pivoted_cholesky_blocked`): O(n · max_rank)
        memory, never n × n; prediction then uses the factor's (Nyström) kernel, the one the
        model was trained on. ``None``: ``n // 30`` columns for ``n`` instances
        (``RANK_INSTANCES``), at least 300 and at most 1,000 (above 300 only as far as the
        memory budget holds the factor). Chosen on Musk2 and on larger synthetic bags
        (:doc:`/methods/mil`, "Many instances").
    tol : float, default=1e-3
        Relative tolerance of the cutting-plane loop (or of the alternation).
    max_iter : int or None, default=None
        Maximum cutting-plane rounds (or alternations). ``None``: ``MIL_ROUNDS`` (3)
        label-generation rounds (reaching them is then the stopping rule and raises no
        ConvergenceWarning), 100 alternations. Chosen by 10-fold CV on Musk1, Musk2 and
        Elephant (:doc:`/methods/mil`, "What else was tried for Musk1").
    random_state : int, RandomState or None
    verbose : int

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``classes_[1]`` is the positive class.
    key_instances_ : ndarray of int
        For each positive training bag, in order, the index within that bag of its key
        instance (shape (p, n_key) when ``n_key > 1``). For ``variant="mi"``: the positive
        instance with the largest score.
    objective_ : float
        ``J`` of the returned labels: the MIP objective of a feasible key choice.
    costs_ : tuple of float
        ``(C_positive, C)`` as used, the defaults resolved (:meth:`costs`).
    lower_bound_ : float
        NaN (label generation with the sorting oracle certifies no bound).
    n_iter_ : int
    history_ : list of dict
    result_ : SolveResult
        The solver's answer; for label generation the relaxation itself (its working set,
        ``mu`` and ``alpha``, and master value) and its rounding ``labels``, the key choice
        whose SVM is the classifier.
    dual_coef_ : ndarray of shape (n_fit,)
        ``f(x) = Σ_i dual_coef_[i] k(X_fit_[i], x) + intercept_``.
    X_fit_ : ndarray of shape (n_fit, n_features)
        The training instances, or with the low-rank factor its ``max_rank`` pivots (the
        model is then the one trained on the factor's kernel; see ``max_rank``).
    gamma_ : float or None
        The RBF width the model uses (``gamma`` resolved, or chosen by ``"select"``); None for
        the linear kernel.
    n_features_in_ : int

    See Also
    --------
    weakcvx.labelsets.KeyInstances : the label set.
    weakcvx.local.multi_instance_alternating : MI-SVM / mi-SVM.

    Notes
    -----
    A bag's score is :math:`F(B) = \max_j f(x_j)` (the MIL assumption); ``predict`` returns
    ``classes_[1]`` when it is positive. The features are taken as given: scale them on the
    training bags' instances, in a pipeline with :class:`weakcvx.preprocessing.BagTransformer`
    (on heavy-tailed features a quantile map can beat standardization, see
    :doc:`/methods/mil`).

    The relaxation chooses the keys (its rounding, polished by alternating, is the feasible
    labeling with the lowest ``J`` found, never above MI-SVM's from the same start) and the
    classifier is the SVM of that labeling, not the relaxation's mixture
    ``f = Σ_t μ_t f_t`` (Algorithm 3, step 7): in the master (eq. 21–22) a positive bag's
    margin is met by a μ-weighted sum over *different* instances of the bag, which no single
    instance attains (:doc:`/methods/mil`). Both relaxations start from the key choice with the
    lower ``J`` of two: the instance nearest each positive bag's mean, and the best-scoring
    instance of each positive bag under an SVM on every instance labeled with its bag's label.
    The offset is a constant feature (``k + s²``), so the SVM without offset of
    docs/design.rst §1 stays exact. With one instance per bag, ``B`` has a single element and
    the fit is the supervised SVM on the instances.

    References
    ----------
    Li, Tsang, Kwok, Zhou. Convex and scalable weakly labeled SVMs. JMLR 14, 2013, §4.2.
    Andrews, Tsochantaridis, Hofmann. Support vector machines for multiple-instance learning.
    NIPS 2003.

    Examples
    --------
    >>> import weakcvx as wc
    >>> bags, y, key_mask = wc.datasets.make_mil_roi(n_bags=20, random_state=0)
    >>> clf = wc.MultiInstanceSVM().fit(bags, y)
    >>> clf.predict(bags[:4]).shape, len(clf.key_instances_) == int(y.sum())
    ((4,), True)
    """

    _parameter_constraints = {
        "relaxation": [StrOptions({"label_generation", "alternating"})],
        "variant": [StrOptions({"MI", "mi"})],
        "C": [Interval(Real, 0, None, closed="neither"), None],
        "C_positive": [Interval(Real, 0, None, closed="neither"), None],
        "n_key": [Interval(Integral, 1, None, closed="left")],
        "max_rank": [Interval(Integral, 1, None, closed="left"), None],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        **KERNEL_CONSTRAINTS,
        "kernel": [StrOptions({"linear", "rbf", "poly"})],
        "gamma": [StrOptions({"select", "mean_distance", "scale", "wide"}),
                  Interval(Real, 0, None, closed="neither")],
    }

    def __init__(self, relaxation="label_generation", variant="MI", kernel="rbf", C=None,
                 C_positive=None, gamma="select", degree=3, coef0=1.0, intercept_scaling=1.0,
                 n_key=1, max_rank=None, tol=1e-3, max_iter=None, random_state=None,
                 verbose=0):
        self.relaxation = relaxation
        self.variant = variant
        self.kernel = kernel
        self.C = C
        self.C_positive = C_positive
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.intercept_scaling = intercept_scaling
        self.n_key = n_key
        self.max_rank = max_rank
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.two_d_array = False
        return tags

    def costs(self, X=None):
        """``(C_positive, C)``: the cost of a positive bag's key slot (``variant="mi"``: of an
        instance of a positive bag) and of a negative instance, with the defaults resolved
        (see the parameters). With the linear kernel and ``C=None`` the cost depends on the
        training instances: ``X``, or, after ``fit``, those of the fit."""
        C = self.C
        if C is None and self.kernel != "linear":
            C = KERNEL_C
        elif C is None:
            if X is None:
                check_is_fitted(self, "costs_")
                return self.costs_
            C = spread_scaled_cost(LINEAR_C_DIAGONAL, X, self.intercept_scaling)
        C_positive = self.C_positive
        if C_positive is None:  # the key slots against every negative instance
            C_positive = POSITIVE_COST_RATIO * C if self.variant == "MI" else C
        return float(C_positive), float(C)

    def _gamma_to_resolve(self):
        """The width chosen in ``fit`` for ``gamma="select"`` (``"scale"`` for a polynomial
        kernel, for which no width is chosen), else ``gamma``."""
        if self.gamma != "select":
            return self.gamma
        return self._selected_gamma if self.kernel == "rbf" else "scale"

    def _problem_inputs(self, X):
        """As :class:`KernelModelMixin`, but above ``EXACT_FACTOR_LIMIT`` instances a low-rank
        pivoted-Cholesky factor computed by blocks of columns (the n × n kernel is never
        formed); its pivots are kept for prediction (:meth:`_predict_in_factor_space`)."""
        self._pivots = None
        if self.kernel == "linear" or X.shape[0] <= kernels.EXACT_FACTOR_LIMIT:
            return super()._problem_inputs(X)
        R, self._pivots = self._kernel_factor(X, self._max_rank(X.shape[0]))
        s = float(self.intercept_scaling)
        return {"features": np.hstack([R, np.full((X.shape[0], 1), s)]) if s > 0 else R}

    def _kernel_inputs(self, X, labelset, seed):
        """The width (``gamma="select"``) and the problem's kernel or factor, each logged with
        its time at ``verbose`` (on many instances they take a good part of the fit)."""
        self._selected_gamma = None
        if self.gamma == "select" and self.kernel == "rbf":
            start, base = time.perf_counter(), kernels.resolve_gamma(X, "scale")
            self._selected_gamma = select_gamma(X, labelset.bag_index, labelset.bag_labels,
                                                base, random_state=seed, costs=self.costs(X))
            logger.info("MultiInstanceSVM: gamma='select' chose %.4g (%g times 'scale') in "
                        "%.1f s", self._selected_gamma, self._selected_gamma / base,
                        time.perf_counter() - start)
        start = time.perf_counter()
        inputs = self._problem_inputs(X)
        if self._pivots is not None:
            logger.info("MultiInstanceSVM: a rank-%d pivoted-Cholesky factor of the kernel of "
                        "%d instances in %.1f s", len(self._pivots), X.shape[0],
                        time.perf_counter() - start)
        return inputs

    def _max_rank(self, n):
        """The factor's column cap for ``n`` training instances (``max_rank``; ``None``: ``n //
        RANK_INSTANCES`` clipped to ``[RANK_MIN, RANK_MAX]``)."""
        if self.max_rank is not None:
            return int(self.max_rank)
        # beyond RANK_MIN only as far as the memory budget holds the factor and its copies
        return int(min(RANK_MAX, max(RANK_MIN, min(n // RANK_INSTANCES, affordable_rank(n)))))

    def _predict_in_factor_space(self, X, problem):
        r"""With the low-rank factor, predict with the kernel the model was trained on.

        Training sees the Nyström kernel of the pivots P, :math:`\tilde k(x, x') = k(x, P)
        K_{PP}^{-1} k(P, x')` (``R Rᵀ``, ``R[P] = L`` lower triangular, ``K_{PP} = L Lᵀ``), so
        :math:`f(x) = \sum_i \beta_i \tilde k(x_i, x) = k(x, P)\, v` with
        :math:`v = L^{-\top} R^\top \beta`: a kernel expansion over the ``rank`` pivots only.
        Predicting with the exact kernel instead evaluates a function that was never trained
        (measured on Musk2, rank 300, 10-fold label generation: the exact-kernel prediction
        called 45-60% of the test bags positive for 30-40% true positives, 0.81 accuracy;
        the factor's own prediction 0.84).
        """
        r = len(self._pivots)
        R = problem.factor[:, :r]
        w = R.T @ self.dual_coef_
        self.dual_coef_ = solve_triangular(R[self._pivots], w, lower=True, trans="T")
        self.X_fit_ = X[self._pivots]

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, bags, y):
        """Fit on labeled bags.

        Parameters
        ----------
        bags : list of array-like of shape (n_i, n_features)
            One 2-D array per bag (one row per instance); bags may differ in length.
        y : array-like of shape (n_bags,)
            Class of each bag, exactly two classes; ``classes_[1]`` (the larger) is positive:
            its bags hold at least one positive instance (a ``UserWarning`` names it when the
            classes are not numbers or booleans, e.g. strings, whose order is their names').

        Returns
        -------
        self
        """
        X, sizes = check_bags(bags)
        self.classes_, bag_labels = _check_bag_target(y, len(sizes))
        if self.variant == "mi" and self.n_key != 1:
            raise ValueError(f"`n_key` applies to variant='MI' (key instances per positive bag); "
                             f"variant='mi' labels every instance. Got n_key={self.n_key!r} "
                             "with variant='mi'.")
        X = self._validate_X(X)
        linear = self.kernel == "linear" and self.intercept_scaling > 0
        center = linear_center(X) if linear else None  # see kernel
        if center is not None:
            X = X - center
        bag_ids = np.repeat(np.arange(len(sizes)), sizes)
        labelset = KeyInstances(bag_ids, bag_labels, n_key=self.n_key) \
            if self.variant == "MI" else InstanceLabels(bag_ids, bag_labels)
        seed = integer_seed(self.random_state)
        with verbose_logging(self.verbose):
            inputs = self._kernel_inputs(X, labelset, seed)
        self.gamma_ = self._gamma
        # the label sets read a pair as (cost of a positive bag's slot, of a negative instance)
        self.costs_ = self.costs(X)
        problem = WeakLabelProblem(labelset=labelset, costs=self.costs_, **inputs)
        initial = _first_keys(problem, X, inputs, self.costs_) if self.variant == "MI" else \
            positive_bags_start(labelset)
        large = "features" in inputs and self.kernel != "linear"
        max_iter = self.max_iter if self.max_iter is not None else \
            (MIL_ROUNDS if self.relaxation == "label_generation" else 100)
        if self.relaxation == "label_generation":
            options = LARGE_MIL_MASTER if large else \
                (MIL_MASTER if problem.n_samples <= LARGE_N else {})
            with round_cap_is_the_stopping_rule(self.max_iter is None), \
                    verbose_logging(self.verbose):  # see max_iter
                result = solve(problem, method="label_generation", initial=initial,
                               max_iter=max_iter, tol=self.tol, random_state=seed,
                               verbose=self.verbose, **options)
        else:
            with verbose_logging(self.verbose):
                result = multi_instance_alternating(problem, initial=initial,
                                                    max_iter=max_iter, tol=self.tol,
                                                    random_state=seed, verbose=self.verbose)
        self.result_ = result
        labels = np.asarray(result.labels)
        # the classifier is the SVM of the rounded key choice, not the relaxation's mixture
        # (see Notes): J(labels) = objective_ is this model's objective
        model = rounded_labels_model(problem, result)
        self._store_model(X, problem, model)
        if center is not None:  # f(x) = w·(x − center) + b on uncentred instances
            self.intercept_ -= float(center @ self.coef_)
        if self._pivots is not None:
            self._predict_in_factor_space(X, problem)
        if self.variant == "MI":
            self.key_instances_ = labelset.keys(labels)
        else:
            # training scores through the factor: O(n r), never the n × n kernel
            scores = problem.decision_scores(model.alpha, model.working_set, model.mu)
            scores = np.where(labels > 0, scores, -np.inf)
            self.key_instances_ = np.array(
                [int(np.argmax(scores[labelset.members[k]])) for k in labelset.positive_bags],
                dtype=np.int64)
        self.objective_ = float(result.upper_bound)
        self.lower_bound_ = float(result.value) if result.certified else float("nan")
        self.n_iter_ = int(result.n_iter)
        self.history_ = list(result.history)
        return self

    def predict_instances(self, X):
        """Class of each instance (``classes_[1]`` where ``f(x) > 0``).

        Parameters
        ----------
        X : array-like of shape (n_instances, n_features)

        Returns
        -------
        ndarray of shape (n_instances,)
        """
        if isinstance(X, (list, tuple)) and X and np.ndim(X[0]) == 2:
            raise TypeError("`X` must be a 2-D array of instances (one row each). Got a list "
                            "of 2-D arrays: for bags use predict(bags).")
        scores = KernelModelMixin.decision_function(self, X)
        return self.classes_[(scores > 0).astype(np.intp)]

    def decision_function(self, bags):
        """Score of each bag: ``F(B) = max_j f(x_j)``; positive means ``classes_[1]``.

        Parameters
        ----------
        bags : list of array-like of shape (n_i, n_features)

        Returns
        -------
        ndarray of shape (n_bags,)
        """
        check_is_fitted(self, "dual_coef_")
        X, sizes = check_bags(bags, n_features=self.n_features_in_)
        scores = KernelModelMixin.decision_function(self, X)
        return np.maximum.reduceat(scores, np.concatenate([[0], np.cumsum(sizes)[:-1]]))

    def predict(self, bags):
        """Class of each bag (``classes_[1]`` when its best instance scores positive)."""
        scores = self.decision_function(bags)
        return self.classes_[(scores > 0).astype(np.intp)]
