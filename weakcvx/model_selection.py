r"""Model selection without instance labels: bag-level scorers and bag-preserving splitters.

In learning with label proportions only the fraction of positives of each bag is known, so
parameters are tuned on validation *bags* (Yu et al. 2013, eq. 23):

.. math::

    \mathrm{err} = \sum_{k \in \text{validation}} |\hat p_k - p_k|, \qquad
    \hat p_k = \frac{1}{n_k} \sum_{i \in I_k} [\hat y_i = 1].

scikit-learn's ``GridSearchCV`` splits ``X`` and ``y`` row by row, so the bag structure travels
in ``y`` as a two-column array from :func:`bag_targets` (bag id, proportion of the row's bag);
the proportion estimators accept it as ``fit(X, targets)``, :class:`BagKFold` keeps bags whole
and :func:`bag_error_scorer` scores on it.

Examples
--------
>>> import numpy as np
>>> from sklearn.model_selection import GridSearchCV
>>> import weakcvx as wc
>>> X, y_true, bags, p = wc.datasets.make_llp_toy(20, random_state=0)
>>> X = np.vstack([X, X + 0.01]); bags = np.concatenate([bags, bags + 2])
>>> p = np.concatenate([p, p])
>>> search = GridSearchCV(wc.MeanMap(), {"lam": [0.1, 1.0]}, scoring=bag_error_scorer,
...                       cv=BagKFold(2, random_state=0))
>>> search = search.fit(X, bag_targets(bags, p))
>>> search.best_params_, round(float(search.best_score_), 3)   # minus the bag error
({'lam': 0.1}, -0.4)
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np
from sklearn.model_selection import BaseCrossValidator
from sklearn.utils import check_random_state

from ._validation import as_real_array, check_ids, check_integer, check_real, warn

__all__ = ["bag_targets", "check_bags", "check_bag_ids", "bag_proportion_error", "bag_error_scorer", "BagKFold"]


def _as_mapping(proportions):
    """``proportions`` as a dict ``{bag id: p}`` when it is mapping-like, else None.

    Mapping-like: a :class:`collections.abc.Mapping`, or a labelled 1-D container such as a
    pandas Series (an ``index`` attribute that is not a method, and ``to_dict`` or ``items``),
    duck-typed so that pandas is not needed.
    """
    if isinstance(proportions, Mapping):
        return dict(proportions)
    index = getattr(proportions, "index", None)
    if (index is None or callable(index) or isinstance(proportions, np.ndarray)
            or not (hasattr(proportions, "to_dict") or hasattr(proportions, "items"))):
        return None
    if getattr(proportions, "ndim", 1) != 1:
        raise ValueError(f"`proportions` must be 1-D (one proportion per bag id). Got a "
                         f"{type(proportions).__name__} of shape "
                         f"{getattr(proportions, 'shape', '?')} instead.")
    keys = list(index)
    values = as_real_array(proportions, "proportions").ravel()
    if len(set(keys)) != len(keys):
        seen, duplicated = set(), []
        for key in keys:
            if key in seen:
                duplicated.append(key)
            seen.add(key)
        raise ValueError(f"`proportions` must give one proportion per bag id: its index has "
                         f"duplicated bag ids {duplicated[:5]}.")
    return dict(zip(keys, values))


def _natural_key(text):
    """Sort key reading runs of digits as numbers: ``"bag2" < "bag10"``."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part)
            for part in re.split(r"(\d+)", str(text)) if part]


def _warn_unnatural_string_order(ids):
    """Warn when positional proportions meet string bag ids whose sorted (lexicographic)
    order is not their natural order, e.g. ``"bag10" < "bag2"``."""
    if ids.dtype.kind not in "US" and not (ids.dtype == object and all(
            isinstance(i, str) for i in ids.tolist())):
        return
    names = [str(i) for i in ids.tolist()]
    natural = sorted(names, key=_natural_key)
    if natural != names:
        first = next(i for i, (a, b) in enumerate(zip(names, natural)) if a != b)
        warn(f"`proportions` is read in the order of the sorted bag ids, and the bag "
             f"ids are strings whose sorted order is not their natural order "
             f"(position {first} is {names[first]!r}, not {natural[first]!r}). "
             f"Pass `proportions` as a mapping {{bag id: proportion}} (a dict or a "
             f"pandas Series indexed by bag id) to avoid any ambiguity.",
             UserWarning)


def _warn_block_order(ids, index):
    """Warn when positional proportions meet rows grouped bag by bag in an order other than
    the sorted bag ids' (rows of bags 3, 3, 1, 1, 2, 2): the proportions may have been listed
    in the order the bags appear, and would then be read for the wrong bags."""
    if len(ids) < 2:
        return
    starts = np.flatnonzero(np.r_[True, index[1:] != index[:-1]])
    if len(starts) != len(ids):  # some bag's rows are not contiguous: no order to misread
        return
    order = index[starts]
    if np.all(np.diff(order) > 0):
        return
    shown = ", ".join(repr(i) for i in ids[order[:4]].tolist())
    warn(f"`proportions` is read in the order of the sorted bag ids "
         f"({', '.join(repr(i) for i in ids[:4].tolist())}{', ...' if len(ids) > 4 else ''}), "
         f"but the rows of X come bag by bag in another order ({shown}"
         f"{', ...' if len(ids) > 4 else ''}). If the proportions follow the rows' order, they "
         f"are assigned to the wrong bags: pass `proportions` as a mapping {{bag id: "
         f"proportion}} (a dict or a pandas Series indexed by bag id) to make the order "
         f"explicit.", UserWarning)


def _bag_proportions_from_dict(bags, proportions):
    """Proportions given as ``{bag id: p}``: one entry per bag, no bag without rows."""
    present = set(np.unique(bags).tolist())
    keys = set(proportions)
    missing = sorted(present - keys, key=repr)
    if missing:
        raise ValueError(f"`proportions` must give a proportion for every bag id in `bags` "
                         f"(a mapping or a Series is matched by its keys / index, not by "
                         f"position). Bag ids {missing[:5]} have no proportion.")
    empty = sorted(keys - present, key=repr)
    if empty:
        raise ValueError(f"`proportions` names bags with no rows (empty bags): {empty[:5]}. "
                         "Every bag must hold at least one row of X.")
    return as_real_array([proportions[k] for k in sorted(present)], "proportions")


def check_bags(bags, proportions, n_samples):
    """Validate ``(bags, proportions)`` of a label-proportion problem.

    Parameters
    ----------
    bags : array-like of shape (n_samples,) or (n_samples, 2)
        Bag id of each row; or the two-column targets of :func:`bag_targets` (then
        ``proportions`` must be None).
    proportions : array-like of shape (n_bags,), mapping or None
        Fraction of positives of each bag: a mapping ``{bag id: proportion}`` (a ``dict``, any
        :class:`collections.abc.Mapping`, or a labelled 1-D container such as a pandas
        ``Series`` whose index holds the bag ids, in any order), or a plain sequence / array
        read *positionally* in the order of the sorted unique bag ids (``np.unique``). With
        string ids that order is lexicographic (``"bag10"`` before ``"bag2"``): a
        ``UserWarning`` is raised when it differs from the natural order; pass a mapping then.
        A ``UserWarning`` also when the rows come bag by bag in an order other than the sorted
        ids' (bags ``3, 3, 1, 1``), where proportions listed in the rows' order would be
        misread.
    n_samples : int

    Returns
    -------
    bag_ids : ndarray (n_bags,)
        Sorted unique bag ids.
    bag_index : ndarray of int (n_samples,)
        Index into ``bag_ids`` of each row.
    proportions : ndarray (n_bags,)

    Raises
    ------
    ValueError
        Wrong shapes, NaN, a proportion outside [0, 1], a bag id with no proportion, an extra
        proportion, an empty bag, or rows of one bag with different proportions in the targets.

    Examples
    --------
    >>> ids, index, p = check_bags([3, 1, 3], {1: 0.0, 3: 0.5}, 3)
    >>> ids.tolist(), index.tolist(), p.tolist()
    ([1, 3], [1, 0, 1], [0.0, 0.5])
    >>> check_bags(["b2", "b10", "b2"], {"b10": 1.0, "b2": 0.5}, 3)[2].tolist()
    [1.0, 0.5]
    """
    if bags is None:
        raise ValueError("`bags` is required: the bag id of each row of X (or the two-column "
                         "targets of weakcvx.model_selection.bag_targets).")
    arr = np.asarray(bags)
    if arr.ndim == 2 and arr.shape != (n_samples, 2):
        raise ValueError(f"`bags` must be one bag id per row of X, shape ({n_samples},), or the "
                         f"two-column targets of bag_targets, shape ({n_samples}, 2). Got shape "
                         f"{arr.shape} instead.")
    if arr.ndim == 2:
        if proportions is not None:
            raise ValueError("`proportions` must be None when `bags` is the two-column array "
                             f"of bag_targets. Got bags of shape {arr.shape} and proportions.")
        arr = as_real_array(arr, "bags")
        if not np.all(np.isfinite(arr)):
            raise ValueError("`bags` (bag targets) must not contain NaN or inf.")
        ids, index = np.unique(arr[:, 0], return_inverse=True)
        index = index.ravel()
        p = np.zeros(len(ids))
        p[index] = arr[:, 1]
        if not np.allclose(p[index], arr[:, 1], rtol=0, atol=1e-12):
            raise ValueError("`bags` (bag targets) must give the same proportion to every row "
                             "of a bag. Got rows of one bag with different proportions.")
        _check_proportion_values(p)
        return ids, index, p
    if proportions is None and arr.ndim == 1 and arr.shape[0] == n_samples:
        raise ValueError("`proportions` is required: the fraction of positives of each bag.")
    ids, index = check_bag_ids(arr, n_samples)
    mapping = _as_mapping(proportions)
    if mapping is not None:
        p = _bag_proportions_from_dict(arr, mapping)
    else:
        _warn_unnatural_string_order(ids)
        _warn_block_order(ids, index)
        p = as_real_array(proportions, "proportions")
        if p.ndim != 1 or p.shape[0] != len(ids):
            raise ValueError(f"`proportions` must have one entry per bag ({len(ids)} bags, in "
                             f"the order of the sorted bag ids, or a mapping {{bag id: "
                             f"proportion}}). Got shape {p.shape} instead"
                             f"{_missing_ids_hint(ids)}.")
    _check_proportion_values(p)
    return ids, index, p


def _missing_ids_hint(ids):
    """``"; ids 3, 9 ... have no rows"`` when integer bag ids skip values between their
    smallest and largest (a bag left without rows, e.g. after filtering), else ``""``."""
    if ids.dtype.kind not in "iuf" or not np.all(np.mod(ids, 1) == 0):
        return ""
    low, high = int(ids.min()), int(ids.max())
    if high - low + 1 == ids.size or high - low > 10 * ids.size:
        return ""
    missing = np.setdiff1d(np.arange(low, high + 1), ids.astype(np.int64))
    shown = ", ".join(str(int(b)) for b in missing[:5]) + (", ..." if missing.size > 5 else "")
    what = f"bag {shown} has" if missing.size == 1 else f"bags {shown} have"
    return f"; the bag ids run from {low} to {high} but {what} no rows"


def check_bag_ids(bags, n_samples, name="bags"):
    """Validate one bag id per row: 1-D of length ``n_samples``, no NaN/inf, not complex, of
    one sortable kind (all numbers or all strings).

    Parameters
    ----------
    bags : array-like of shape (n_samples,)
    n_samples : int
    name : str
        The argument's name, for the messages.

    Returns
    -------
    bag_ids : ndarray (n_bags,)
        Sorted unique bag ids.
    bag_index : ndarray of int (n_samples,)
        Index into ``bag_ids`` of each row.

    Examples
    --------
    >>> ids, index = check_bag_ids(["b", "a", "b"], 3)
    >>> ids.tolist(), index.tolist()
    (['a', 'b'], [1, 0, 1])
    """
    arr = np.asarray(check_real(bags, name))
    if arr.ndim != 1 or arr.shape[0] != n_samples:
        raise ValueError(f"`{name}` must be a 1-D array with one bag id per row of X "
                         f"({n_samples}). Got shape {arr.shape} instead.")
    if arr.dtype.kind == "f":
        finite = np.isfinite(arr)
    elif arr.dtype == object:
        finite = np.array([not isinstance(v, (float, np.floating)) or bool(np.isfinite(v))
                           for v in arr], dtype=bool)
    else:
        finite = np.ones(arr.shape, dtype=bool)
    if not finite.all():
        raise ValueError(f"`{name}` must not contain NaN or inf. Got {arr[~finite][:5]} "
                         "instead.")
    return check_ids(arr, name)


def _check_proportion_values(p):
    if np.isnan(p).any() or np.any((p < 0) | (p > 1)):
        bad = p[np.isnan(p) | (p < 0) | (p > 1)]
        raise ValueError(f"`proportions` must lie in [0, 1] (no NaN). Got {bad[:5]} instead.")


def bag_targets(bags, proportions):
    """Two-column targets ``[bag id, proportion of the row's bag]`` for scikit-learn tools.

    ``GridSearchCV`` and ``cross_val_score`` split ``y`` row by row; this array carries the bag
    structure through such splits.

    Parameters
    ----------
    bags : array-like of shape (n_samples,), numeric bag ids
    proportions : array-like of shape (n_bags,) or dict
        As for :func:`check_bags`.

    Returns
    -------
    ndarray of shape (n_samples, 2)

    Examples
    --------
    >>> bag_targets([0, 1, 0], [0.5, 1.0]).tolist()
    [[0.0, 0.5], [1.0, 1.0], [0.0, 0.5]]
    """
    arr = np.asarray(bags)
    if arr.dtype.kind not in "iuf":
        raise ValueError(f"`bags` must hold numeric bag ids for bag_targets. Got dtype "
                         f"{arr.dtype}.")
    ids, index, p = check_bags(arr, proportions, arr.shape[0] if arr.ndim else -1)
    return np.column_stack([arr.astype(float), p[index]])


def bag_proportion_error(bags, proportions, y_pred):
    r"""Bag-level error ``Σ_k |p̂_k − p_k|`` (Yu et al. 2013, eq. 23).

    Parameters
    ----------
    bags, proportions :
        As for :func:`check_bags` (``proportions=None`` with two-column targets).
    y_pred : array-like of shape (n_samples,)
        Predicted labels; ``1`` (or ``True``) is positive, anything else negative (so {0, 1}
        and {−1, +1} both work).

    Returns
    -------
    float

    Examples
    --------
    >>> bag_proportion_error([0, 0, 1, 1], [0.5, 1.0], [1, 0, 1, 0])
    0.5
    """
    y_pred = np.asarray(y_pred)
    ids, index, p = check_bags(bags, proportions, y_pred.shape[0])
    positive = (y_pred == 1).astype(float)
    p_hat = np.bincount(index, weights=positive, minlength=len(ids)) / np.bincount(index)
    return float(np.abs(p_hat - p).sum())


def warn_if_bags_cut(name, fitted_bags, fitted_sizes, targets):
    """Warn when the two-column bag targets scored hold a bag that ``fit`` saw with another
    number of rows: the split cut bags in two (``cross_val_score(..., cv=3)`` splits rows, not
    bags), and the bag error then compares the proportion of the whole bag with the
    predictions on part of it. ``fitted_sizes``: rows of each of ``fitted_bags`` in ``fit``
    (``None``: nothing to compare, no warning).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_if_bags_cut("model", np.array([0, 1]), np.array([4, 4]),
    ...                      bag_targets(np.array([0, 0, 1]), [0.5, 0.5]))
    >>> "cut bags" in str(caught[0].message)
    True
    """
    if fitted_sizes is None:
        return
    fitted = dict(zip(np.asarray(fitted_bags).tolist(), np.asarray(fitted_sizes).tolist()))
    scored, counts = np.unique(np.asarray(targets)[:, 0], return_counts=True)
    cut = [b for b, c in zip(scored.tolist(), counts.tolist()) if b in fitted and fitted[b] != c]
    if cut:
        shown = ", ".join(f"{b:g}" if isinstance(b, float) else str(b) for b in cut[:5])
        warn(f"{name}: {len(cut)} of the {scored.size} bags scored (ids {shown}"
             f"{', ...' if len(cut) > 5 else ''}) were fitted with another number of rows: "
             f"the split cut bags between training and test (an integer `cv` splits rows, not "
             f"bags), so the bag error compares a whole bag's proportion with predictions on "
             f"part of it. Split by bag: cv=weakcvx.model_selection.BagKFold(...).",
             UserWarning)


def bag_error_scorer(estimator, X, y):
    """Scorer for ``GridSearchCV(scoring=...)``: minus the bag-level error on validation bags.

    ``y`` is the two-column array of :func:`bag_targets`; no instance label is used. Greater is
    better, as scikit-learn expects.

    Examples
    --------
    >>> import weakcvx as wc
    >>> X, y_true, bags, p = wc.datasets.make_llp_toy(20, random_state=0)
    >>> clf = wc.ProportionSVM(kernel="linear", n_init=2, random_state=0).fit(X, bags, p)
    >>> bag_error_scorer(clf, X, bag_targets(bags, p)) <= 0
    True
    """
    final = estimator[-1] if hasattr(estimator, "steps") else estimator  # a Pipeline's model
    check = getattr(final, "_warn_if_bags_split", None)  # weakcvx's proportion estimators
    if check is not None:
        check(y)
    return -bag_proportion_error(y, None, estimator.predict(X))


class BagKFold(BaseCrossValidator):
    """K-fold over bags: every bag lies wholly in one test fold.

    Bag ids come from ``groups`` when given, otherwise from the first column of the two-column
    ``y`` of :func:`bag_targets`. The bags are shuffled (``shuffle=True``, seeded by
    ``random_state``) and dealt into ``n_splits`` folds of nearly equal numbers of bags.

    Parameters
    ----------
    n_splits : int, default=5
        At least 2, at most the number of bags.
    shuffle : bool, default=True
    random_state : int, RandomState or None

    Examples
    --------
    >>> import numpy as np
    >>> bags = np.repeat(np.arange(4), 3)
    >>> folds = list(BagKFold(2, random_state=0).split(np.zeros((12, 1)), groups=bags))
    >>> all(set(bags[test]).isdisjoint(bags[train]) for train, test in folds)
    True
    """

    def __init__(self, n_splits=5, shuffle=True, random_state=None):
        check_integer(n_splits, "n_splits", 2)
        self.n_splits = int(n_splits)
        self.shuffle = shuffle
        self.random_state = random_state

    def _bag_ids(self, X, y, groups):
        if groups is not None:
            return np.asarray(groups)
        if y is None:
            raise ValueError("BagKFold needs the bags: pass `groups` (bag id per row) or `y` "
                             "from weakcvx.model_selection.bag_targets.")
        y = np.asarray(y)
        if y.ndim != 2 or y.shape[1] != 2:
            raise ValueError("`y` must be the two-column array of bag_targets when `groups` is "
                             f"not given. Got shape {y.shape}. (For MultiInstanceSVM, whose "
                             "samples are whole bags, any scikit-learn splitter such as cv=5 "
                             "already keeps bags whole.)")
        return y[:, 0]

    def _iter_test_indices(self, X=None, y=None, groups=None):
        ids = self._bag_ids(X, y, groups)
        unique, index = np.unique(ids, return_inverse=True)
        index = index.ravel()
        if len(unique) < self.n_splits:
            raise ValueError(f"`n_splits`={self.n_splits} is more than the number of bags "
                             f"({len(unique)}).")
        order = np.arange(len(unique))
        if self.shuffle:
            order = check_random_state(self.random_state).permutation(len(unique))
        for fold in np.array_split(order, self.n_splits):
            yield np.flatnonzero(np.isin(index, fold))

    def get_n_splits(self, X=None, y=None, groups=None):
        """Number of folds, ``n_splits``."""
        return self.n_splits
