"""Label spaces B and their exact linear oracles (pure NumPy).

PROTOCOL (the contract every solver relies on; see docs/design.rst §3.1)
------------------------------------------------------------------------
A label set ``B`` is an object with:

``n_samples`` : int
    Number of training points the labels refer to.
``argmax(r) -> b``
    Exact linear oracle ``argmax_{b in B} r^T b`` (O(n log n), by sorting). Applied to a
    relaxation's real-valued score it is also the rounding to a feasible labeling.
``contains(b) -> bool``
    Membership of a ±1 vector in ``B``.
``initial(scores=None, random_state=None) -> b``
    A feasible starting element: ``argmax(scores)`` when scores are given, otherwise a rule of
    the set (random feasible labeling drawn from ``random_state``).
``cardinality() -> int``
    ``|B|`` as an exact Python int.
``enumerate(limit=ENUMERATION_LIMIT) -> ndarray (|B|, n)``
    All elements, refusing (``ValueError`` naming the count) above ``limit``.
``per_point_costs(costs) -> ndarray (m,)``
    Resolve the user's ``costs`` (scalar, array, or a pair for ``SemiSupervised``) into one cost
    per dual variable.
``support(b) -> (rows, signs)``
    The label kernel of ``b`` is ``Q_b = diag(signs) K[rows][:, rows] diag(signs)``, i.e. its
    factor is ``signs[:, None] * R[rows]``. For sign vectors ``rows = arange(n)`` and
    ``signs = b``. (Multi-instance sets pick rows: super-instances.)
``count_constraints() -> (fixed, groups) or None``
    ``fixed``: int array (n,) with +1/-1 for fixed labels and 0 for free ones; ``groups``: list of
    ``(indices, min_positive, max_positive)`` over free points; every free point is in exactly one
    group. ``None`` when the set has no such description (``Enumerated``, ``Custom``).
``symmetric`` : bool
    True when ``b`` and ``-b`` are both in B and give the same label kernel (clustering).
"""

from __future__ import annotations

import copy
import itertools
import math
import numbers

import numpy as np
from sklearn.utils import check_random_state

from ._validation import as_real_array, check_ids, check_real, warn

__all__ = [
    "ENUMERATION_LIMIT",
    "COUNT_TOLERANCE",
    "LabelSet",
    "SemiSupervised",
    "Clustering",
    "Proportions",
    "Enumerated",
    "Custom",
    "KeyInstances",
    "InstanceLabels",
]

def _describe_returned(value):
    """What a user's callable returned, as written (type, dtype, shape and a few values)."""
    if value is None:
        return "None"
    if isinstance(value, np.ndarray):
        head = np.array2string(value.ravel()[:6], threshold=6)[:-1]
        more = " ..." if value.size > 6 else ""
        return f"a {value.dtype} array of shape {value.shape} ({head}{more}])"
    return f"{type(value).__name__} {value!r}"[:200]


#: How a LabelSet subclass provides what a solver asked for (the NotImplementedError messages).
_HOOKS_HINT = ("define its hooks: _argmax(r) (the oracle), _random_element(rng), cardinality() "
               "and _enumerate() for enumeration, or describe it by counts with "
               "_set_count_constraints (docs/custom_labelset.rst).")

#: Largest ``|B|`` that ``enumerate()`` returns by default (exact methods on tiny problems).
ENUMERATION_LIMIT = 2**16

#: Slack used when a real bound on a count (``n_k p_k``, ``(n + beta) / 2``) is turned into an
#: integer, so that a bound that is an integer up to floating-point error
#: (``0.7 * 10 = 7.000000000000001``) is not lost by ``floor``/``ceil``.
COUNT_TOLERANCE = 1e-9



# -- input checks -----------------------------------------------------------------------------
def _check_n_samples(n_samples):
    if (isinstance(n_samples, (bool, np.bool_)) or not isinstance(n_samples, numbers.Integral)
            or n_samples < 1):
        raise ValueError(f"`n_samples` must be a positive integer. Got {n_samples!r} instead.")
    return int(n_samples)


def _as_float_array(x, name):
    return as_real_array(x, name)


def _check_finite_real(x, name, minimum=None):
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real) or not math.isfinite(x):
        raise ValueError(f"`{name}` must be a finite real number. Got {x!r} instead.")
    if minimum is not None and x < minimum:
        raise ValueError(f"`{name}` must be >= {minimum}. Got {x!r} instead.")
    return float(x)


def _is_sign_vector(b, n):
    try:
        b = np.asarray(b, dtype=float)
    except (TypeError, ValueError):
        return False
    return b.shape == (n,) and bool(np.all((b == 1.0) | (b == -1.0)))


def _check_sign_matrix(V, name, n=None):
    """``V`` as a float (N, n) array of ±1, with a ValueError naming ``name`` otherwise."""
    V = _as_float_array(V, name)
    if V.ndim != 2 or V.shape[0] == 0 or (n is not None and V.shape[1] != n):
        expected = "(N, n_samples)" if n is None else f"(N, {n})"
        raise ValueError(f"`{name}` must be a non-empty array of shape {expected}. "
                         f"Got shape {V.shape} instead.")
    bad = ~((V == 1.0) | (V == -1.0))
    if bad.any():
        raise ValueError(f"`{name}` must contain only -1 and +1. Got {V[bad][:5]} instead.")
    return V


def _unique_rows(V):
    """The distinct rows of ``V`` in order of first appearance."""
    _, first = np.unique(V, axis=0, return_index=True)
    return V[np.sort(first)]


def _costs_array(costs, m, accepted):
    """``costs`` (a scalar or an array of shape (m,)) as a positive finite array of shape (m,)."""
    kind = np.asarray(costs).dtype.kind
    if kind not in "iuf":
        raise ValueError(f"`costs` must be numeric: {accepted} or an array of shape ({m},) of "
                         f"positive numbers. Got {costs!r} (dtype {np.asarray(costs).dtype}) "
                         "instead.")
    c = _as_float_array(costs, "costs")
    if c.ndim == 0:
        c = np.full(m, float(c))
    elif c.shape != (m,):
        raise ValueError(f"`costs` must be {accepted} or an array of shape ({m},). "
                         f"Got shape {c.shape} instead.")
    if not np.all(np.isfinite(c) & (c > 0)):
        raise ValueError(f"`costs` must be positive and finite. Got {np.asarray(costs)!r} "
                         "instead.")
    return c


def _check_bag_ids(bag_ids, name):
    """A non-empty 1-D array of bag ids without NaN/inf, with a ValueError naming ``name``."""
    bag_ids = np.asarray(check_real(bag_ids, name))
    if bag_ids.ndim != 1 or bag_ids.size == 0:
        raise ValueError(f"`{name}` must be a non-empty 1-D array. Got shape {bag_ids.shape} "
                         "instead.")
    if bag_ids.dtype.kind in "fc" and not np.all(np.isfinite(bag_ids)):
        raise ValueError(f"`{name}` must not contain NaN or inf. Got "
                         f"{bag_ids[~np.isfinite(bag_ids)][:5]} instead.")
    return bag_ids


def _index_bags(bag_ids, name):
    """``(sorted unique ids, index of each point's bag, bag sizes)``."""
    bags, index = check_ids(bag_ids, name)
    return bags, index, np.bincount(index, minlength=len(bags))


def _log_comb(n, m):
    return math.lgamma(n + 1) - math.lgamma(m + 1) - math.lgamma(n - m + 1)


class LabelSet:
    r"""Base class of the label sets: the shared parts of the protocol.

    A subclass either describes ``B`` by counts (call :meth:`_set_count_constraints` in
    ``__init__``; then ``argmax``, ``contains``, ``initial``, ``cardinality`` and ``enumerate``
    come for free) or overrides ``_argmax``, ``_contains``, ``_random_element``,
    ``cardinality`` and ``_enumerate``.

    Parameters
    ----------
    n_samples : int
        Number of training points the labels refer to.

    Attributes
    ----------
    n_samples : int
    symmetric : bool
        True when ``b`` and ``-b`` are both in ``B`` (they give the same label kernel).

    Notes
    -----
    A *count description* of ``B`` fixes some labels and splits the free points into disjoint
    groups :math:`G_1, \dots, G_K` with bounds on the number of positives in each:

    .. math::

        B = \{ y \in \{-1, +1\}^n : y_i = f_i \ (f_i \ne 0),\;
              \mathrm{lo}_k \le |\{ j \in G_k : y_j = +1 \}| \le \mathrm{hi}_k \}.

    The linear oracle is then exact by sorting. On a group, with positives :math:`P \subseteq G`,
    :math:`\sum_{j \in G} r_j y_j = 2 \sum_{j \in P} r_j - \sum_{j \in G} r_j`; for a fixed
    :math:`|P| = m` the best :math:`P` is the :math:`m` largest :math:`r_j`, and going from
    :math:`m` to :math:`m + 1` adds twice the :math:`(m+1)`-th largest :math:`r_j`. So the
    optimum takes the :math:`\mathrm{lo}` largest scores, then keeps adding while
    :math:`r_j > 0`, up to :math:`\mathrm{hi}`. Groups are disjoint, so they are solved
    independently, and :math:`|B| = \prod_k \sum_{m=\mathrm{lo}_k}^{\mathrm{hi}_k}
    \binom{|G_k|}{m}`. Ties in ``r`` are broken by index (stable sort), and a zero score is
    not added (same value either way).

    Examples
    --------
    >>> from weakcvx.labelsets import Clustering
    >>> B = Clustering(4, beta=0)
    >>> isinstance(B, LabelSet), B.cardinality()
    (True, 6)
    """

    symmetric = False

    @property
    def identity_support(self):
        """Whether every element's label kernel is ``K ∘ bbᵀ`` on all points in order (the
        dual variables are the points; :meth:`support` is not overridden)."""
        return type(self).support is LabelSet.support

    def __init__(self, n_samples):
        self.n_samples = _check_n_samples(n_samples)
        self._fixed = None
        self._groups = None

    # -- count description ------------------------------------------------------------------
    def _checked_count_description(self, fixed, groups):
        """``(fixed, groups)`` checked against the protocol of :meth:`count_constraints`:
        ``fixed`` one value in {-1, 0, +1} per point; every group a 1-D array of point indices
        (integers) with real bounds ``lo`` and ``hi``; the groups disjoint and covering exactly
        the free points (``fixed == 0``). A ValueError names what breaks it."""
        n = self.n_samples
        fixed = np.asarray(fixed)
        if fixed.shape != (n,) or fixed.dtype == bool or not np.all(np.isin(fixed, (-1, 0, 1))):
            found = (f"shape {fixed.shape}" if fixed.shape != (n,) else
                     f"values {sorted(set(np.unique(fixed).tolist()))[:6]}")
            raise ValueError(f"`fixed` (count description of {type(self).__name__}) must hold "
                             f"one value in {{-1, 0, +1}} per point ({n}): -1/+1 fixed, 0 free. "
                             f"Got {found} instead.")
        covered = np.zeros(n, dtype=np.int64)
        checked = []
        for k, group in enumerate(groups):
            idx, lo, hi = group
            idx = np.asarray(idx)
            if idx.ndim != 1 or idx.dtype == bool or (idx.size and idx.dtype.kind not in "iu"):
                raise ValueError(f"group {k} of {type(self).__name__}'s count description must "
                                 f"list point indices (a 1-D integer array; for a boolean mask "
                                 f"use np.flatnonzero(mask)). Got dtype {idx.dtype}, shape "
                                 f"{idx.shape} instead.")
            if idx.size and (idx.min() < 0 or idx.max() >= n):
                raise ValueError(f"group {k} of {type(self).__name__}'s count description must "
                                 f"hold indices in [0, {n}). Got indices from {idx.min()} to "
                                 f"{idx.max()}.")
            for name, bound in (("lo", lo), ("hi", hi)):
                if isinstance(bound, (bool, np.bool_)) or not isinstance(bound, numbers.Real) \
                        or not np.isfinite(bound):
                    raise ValueError(f"group {k}'s `{name}` (count of positives) must be a "
                                     f"finite number. Got {bound!r} instead.")
            np.add.at(covered, idx, 1)
            checked.append((idx.astype(np.int64), lo, hi))
        overlap = np.flatnonzero(covered > 1)
        if overlap.size:
            raise ValueError(f"The groups of {type(self).__name__}'s count description must be "
                             f"disjoint. Got point(s) {overlap[:5].tolist()} in several groups.")
        wrong = np.flatnonzero((covered == 1) != (fixed == 0))
        if wrong.size:
            i = int(wrong[0])
            state = "fixed" if fixed[i] != 0 else "free"
            where = "in a group" if covered[i] else "in no group"
            raise ValueError(f"The groups of {type(self).__name__}'s count description must "
                             f"cover exactly the free points (fixed == 0). Got {wrong.size} "
                             f"point(s) that break it, e.g. point {i}: {state} and {where}.")
        return fixed.astype(np.int64), checked

    def _set_count_constraints(self, fixed, groups):
        """Store ``(fixed, groups)`` and the arrays the vectorised oracle needs.

        Bounds beyond a group (``lo < 0``, ``hi > |G|``) bind nothing and are stored as
        ``max(lo, 0)`` and ``min(hi, |G|)``, the same set.

        Raises
        ------
        ValueError
            When a group allows no count, ``max(lo, 0) > min(hi, |G|)``: ``B`` would be empty.
        """
        fixed, groups = self._checked_count_description(fixed, groups)
        # counts are integers: lo rounds up and hi down (up to COUNT_TOLERANCE)
        bounds = [(max(math.ceil(lo - COUNT_TOLERANCE), 0),
                   min(math.floor(hi + COUNT_TOLERANCE), len(idx))) for idx, lo, hi in groups]
        for k, ((idx, lo, hi), (low, high)) in enumerate(zip(groups, bounds)):
            if low > high:
                raise ValueError(f"The count constraints leave {type(self).__name__} empty: "
                                 f"group {k} ({len(idx)} points) must hold between {lo} and "
                                 f"{hi} positives. Expected lo <= hi, lo <= {len(idx)} and "
                                 "hi >= 0.")
        self._fixed = np.asarray(fixed, dtype=np.int64)
        self._groups = [(np.asarray(idx, dtype=np.int64), low, high)
                        for (idx, _, _), (low, high) in zip(groups, bounds)]
        sizes = np.array([len(idx) for idx, _, _ in self._groups], dtype=np.int64)
        self._free = np.concatenate([idx for idx, _, _ in self._groups] + [np.zeros(0, np.int64)])
        self._group_of_free = np.repeat(np.arange(len(self._groups)), sizes)
        self._group_start = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        self._group_lo = np.array([lo for _, lo, _ in self._groups], dtype=np.int64)
        self._group_hi = np.array([hi for _, _, hi in self._groups], dtype=np.int64)

    def count_constraints(self):
        """``(fixed, groups)`` describing ``B`` by counts, or ``None`` (see the protocol).

        Returns
        -------
        fixed : ndarray of int, shape (n,)
            +1/-1 for fixed labels, 0 for free ones.
        groups : list of (indices, min_positive, max_positive)
            Disjoint groups covering the free points.
        """
        if self._groups is None:
            return None
        return self._fixed.copy(), [(idx.copy(), lo, hi) for idx, lo, hi in self._groups]

    # -- protocol ---------------------------------------------------------------------------
    def argmax(self, r):
        """Exact linear oracle ``argmax_{b in B} rᵀb``.

        Parameters
        ----------
        r : array-like of shape (n_samples,)
            Finite scores.

        Returns
        -------
        b : ndarray of shape (n_samples,), float64 with values ±1
        """
        return self._argmax(self._check_scores(r, "r"))

    def contains(self, b):
        """Whether ``b`` is an element of ``B`` (False for anything that is not a ±1 vector)."""
        if not _is_sign_vector(b, self.n_samples):
            return False
        return bool(self._contains(np.asarray(b, dtype=float)))

    def check_own_element(self, b, how):
        """``b``, a labeling this set's own oracle returned (``initial``/``argmax``, drawn
        ``how``), after ``contains(b)``: a ValueError names the set's callbacks, which disagree
        (a user's set), instead of an argument the user never passed.

        Examples
        --------
        >>> B = SemiSupervised([1.0, -1.0, 0.0, 0.0])
        >>> B.check_own_element(B.initial(random_state=0), "a random element").shape
        (4,)
        """
        if not self.contains(b):
            raise ValueError(f"{type(self).__name__}.initial() returned a labeling that its own "
                             f"contains() rejects ({how}). The oracle (argmax / random element) "
                             "must return elements of the set it describes.")
        return b

    def check_element(self, b, name="initial"):
        """``b`` as a float ±1 vector when it is an element of ``B``; else a ValueError naming
        ``name`` and what is wrong: its shape, values other than ±1 (e.g. 0/1 labels, which
        ``2 * y - 1`` converts), or the label set's constraints.

        Examples
        --------
        >>> B = SemiSupervised([1.0, -1.0, 0.0, 0.0])
        >>> B.check_element([1, -1, 1, -1])
        array([ 1., -1.,  1., -1.])
        """
        arr = np.asarray(b)
        if arr.shape != (self.n_samples,):
            raise ValueError(f"`{name}` must be a labeling of the {self.n_samples} points of "
                             f"{type(self).__name__} (shape ({self.n_samples},)). Got shape "
                             f"{arr.shape} instead.")
        if not _is_sign_vector(arr, self.n_samples):
            values = sorted(set(np.unique(arr).tolist()), key=repr)[:6]
            hint = " (0/1 labels: pass 2 * y - 1)" if set(values) <= {0, 1} else ""
            raise ValueError(f"`{name}` must hold labels in {{-1, +1}}. Got values {values}"
                             f"{hint}.")
        if not self.contains(arr):
            raise ValueError(f"`{name}` must be an element of the label set: it breaks the "
                             f"constraints of {type(self).__name__} (fixed labels or counts). "
                             "Got an infeasible labeling.")
        return arr.astype(float)

    def initial(self, scores=None, random_state=None):
        """A feasible starting labeling.

        Parameters
        ----------
        scores : array-like of shape (n_samples,), optional
            When given, the result is ``argmax(scores)`` (the rounding of the scores).
        random_state : int, RandomState instance or None
            Used when ``scores`` is None to draw a random element of ``B`` (uniformly, for the
            sets described by counts).

        Returns
        -------
        b : ndarray of shape (n_samples,), float64 with values ±1
        """
        if scores is not None:
            return self._argmax(self._check_scores(scores, "scores"))
        return self._random_element(check_random_state(random_state))

    def cardinality(self):
        """``|B|`` as an exact Python int."""
        if self._groups is None:
            raise NotImplementedError(f"{type(self).__name__} does not define cardinality(): "
                                      + _HOOKS_HINT)
        count = 1
        for idx, lo, hi in self._groups:
            count *= _sum_of_binomials(len(idx), lo, hi)
        return count

    def enumerate(self, limit=ENUMERATION_LIMIT):
        """All elements of ``B`` as the rows of an (``|B|``, n) float array.

        Parameters
        ----------
        limit : int
            Refuse (``ValueError``) when ``|B|`` is larger.

        Returns
        -------
        ndarray of shape (cardinality(), n_samples)
        """
        count = self.cardinality()
        if count > limit:
            raise ValueError(
                f"{self!r} has {_format_count(count)} elements, more than `limit`={limit}: "
                "enumeration is for tiny problems only."
            )
        return self._enumerate()

    def per_point_costs(self, costs):
        """One hinge cost per dual variable from a scalar or an array of shape (n_samples,).

        Raises
        ------
        ValueError
            When ``costs`` has the wrong shape or is not positive and finite.
        """
        return _costs_array(costs, self.n_samples, "a positive scalar")

    def support(self, b):
        """``(rows, signs)`` of the label kernel of ``b``: ``(arange(n), b)`` for sign vectors."""
        return np.arange(self.n_samples), np.asarray(b, dtype=float)

    def sdp_constraints(self, M):
        r"""The linear constraints on ``M ≈ yyᵀ`` implied by ``B`` beyond ``M ⪰ 0, diag M = 1``.

        Generic, from the count description (fixed labels ``y_L`` and groups ``G`` with
        ``s_G = 1ᵀy_G = 2n₊(G) − |G| ∈ [a_G, b_G]``), each an identity of ``M = yyᵀ``:

        .. math::

            M_{LL} = y_L y_L^\top, \qquad
            a_G \le y_i M_{iG} 1 \le b_G \ (i \in L), \qquad
            |M_{iG} 1| \le \max(|a_G|, |b_G|) \ (i \in G), \qquad
            1^\top M_{GH} 1 \in \{s_G s_H\} \text{'s range}.

        A set without a count description adds nothing (``M`` ranges over the elliptope, still
        a relaxation of ``conv{yyᵀ : y ∈ B}``); :class:`Custom` sets may declare their own.
        The built-in sets override this with the same constraints in fewer rows.

        Parameters
        ----------
        M : cvxpy expression of shape (n_samples, n_samples), symmetric

        Returns
        -------
        list of cvxpy constraints
        """
        self._check_sdp_variable(M)
        if self._groups is None:
            return []
        return _count_sdp_constraints(M, self._fixed, self._groups)

    def __repr__(self):
        return f"{type(self).__name__}(n_samples={self.n_samples})"

    # -- helpers ----------------------------------------------------------------------------
    def _check_scores(self, r, name):
        r = _as_float_array(r, name)
        if r.shape != (self.n_samples,):
            raise ValueError(f"`{name}` must have shape ({self.n_samples},). Got shape {r.shape} "
                             "instead.")
        if not np.all(np.isfinite(r)):
            raise ValueError(f"`{name}` must contain only finite values. Got NaN or inf.")
        return r

    def _check_sdp_variable(self, M):
        n = self.n_samples
        if tuple(M.shape) != (n, n):
            raise ValueError(f"`M` must have shape ({n}, {n}). Got shape {tuple(M.shape)} instead.")

    def _argmax(self, r):
        if self._groups is None:
            raise NotImplementedError(f"{type(self).__name__} does not define argmax() (_argmax): "
                                      + _HOOKS_HINT)
        b = self._fixed.astype(float)
        r_free = r[self._free]
        # sort by group, then by decreasing score; lexsort is stable, so ties go by index
        order = np.lexsort((-r_free, self._group_of_free))
        group = self._group_of_free[order]
        rank = np.arange(len(order)) - self._group_start[group]
        positive = (rank < self._group_lo[group]) | (
            (rank < self._group_hi[group]) & (r_free[order] > 0))
        b[self._free[order]] = np.where(positive, 1.0, -1.0)
        return b

    def _contains(self, b):
        if self._groups is None:
            return bool(np.any(np.all(self.enumerate() == b, axis=1)))
        fixed = self._fixed != 0
        if np.any(b[fixed] != self._fixed[fixed]):
            return False
        return all(lo <= np.count_nonzero(b[idx] > 0) <= hi for idx, lo, hi in self._groups)

    def _random_element(self, rng):
        """An element drawn uniformly from ``B`` (groups are independent)."""
        if self._groups is None:
            raise NotImplementedError(f"{type(self).__name__} does not define initial() "
                                      "(_random_element): " + _HOOKS_HINT)
        b = self._fixed.astype(float)
        for idx, lo, hi in self._groups:
            counts = np.arange(lo, hi + 1)
            log_w = np.array([_log_comb(len(idx), m) for m in counts])
            w = np.exp(log_w - log_w.max())
            m = rng.choice(counts, p=w / w.sum())
            b[idx] = -1.0
            b[rng.choice(idx, size=m, replace=False)] = 1.0
        return b

    def _enumerate(self):
        if self._groups is None:
            raise NotImplementedError(f"{type(self).__name__} does not define enumerate() "
                                      "(_enumerate): " + _HOOKS_HINT)
        rows = self._fixed.astype(float)[None, :]
        for idx, lo, hi in self._groups:
            block = _count_block(len(idx), lo, hi)
            # Cartesian product: every current row combined with every labeling of the group
            rows = np.repeat(rows, len(block), axis=0)
            rows[:, idx] = np.tile(block, (len(rows) // len(block), 1))
        return rows


def _format_count(count):
    """``count`` in full, or as a power of ten when printing it would flood the message."""
    if count.bit_length() <= 64:
        return str(count)
    return f"over 10^{math.floor((count.bit_length() - 1) * math.log10(2))}"


def _sum_of_binomials(n, lo, hi):
    """``Σ_{m=lo}^{hi} C(n, m)`` exactly, by the recurrence ``C(n, m+1) = C(n, m)(n−m)/(m+1)``."""
    term = math.comb(n, lo)
    total = 0
    for m in range(lo, hi + 1):
        total += term
        term = term * (n - m) // (m + 1)
    return total


def _count_block(size, lo, hi):
    """All ±1 vectors of length ``size`` with between ``lo`` and ``hi`` entries equal to +1."""
    block = []
    for m in range(lo, hi + 1):
        for positives in itertools.combinations(range(size), m):
            row = -np.ones(size)
            row[list(positives)] = 1.0
            block.append(row)
    return np.array(block).reshape(len(block), size)


#: Start of the warning of :class:`SemiSupervised` on a target that looks like scikit-learn's
#: (the estimators, which convert scikit-learn's target themselves, do not raise it).
SCIKIT_LEARN_TARGET_WARNING = "`y_known` holds exactly the values -1, 0 and +1"


def _warn_if_scikit_learn_target(y):
    """Warn when ``y_known`` looks like scikit-learn's semi-supervised target (classes 0 and 1,
    -1 for unlabeled rows): the three values with -1 in more than half of the points, as the
    unlabeled points of a semi-supervised problem usually are, where here -1 is a labeled
    class (the mirror of the estimators' check, docs/user_guide.rst "Two conventions")."""
    if np.isin((-1.0, 0.0, 1.0), y).all() and np.sum(y == -1) > y.size / 2:
        warn(f"{SCIKIT_LEARN_TARGET_WARNING}, with -1 in more than half of the "
             "points. SemiSupervised reads -1 and +1 as the two classes (fixed labels) and 0 as "
             "unknown; scikit-learn's semi-supervised target reads -1 as unlabeled and 0 and 1 "
             "as the classes. If -1 marks your unlabeled points, convert: y_known = "
             "np.where(y == -1, 0, np.where(y > 0, 1, -1)).", UserWarning)


class SemiSupervised(LabelSet):
    r"""Semi-supervised labels: labeled points fixed, a given number of positives elsewhere.

    Parameters
    ----------
    y_known : array-like of shape (n_samples,)
        +1 / -1 for labeled points, 0 for unlabeled ones. Without ``n_positive``, both classes
        must occur among the labeled points; with it, the labeled points may all be of one
        class (positive-unlabeled learning, see Notes). This is not scikit-learn's
        semi-supervised target (class labels, -1 for unlabeled rows), which would read here
        as fixed negatives and cannot be told apart from it in general (classes 0 and 1 use
        the same three values; a ``UserWarning`` when -1 is more than half of the points, as
        unlabeled points usually are): convert one with
        ``weakcvx.estimators.s3vm.check_semi_supervised_target(y, n)``, which returns the
        classes and this ``y_known``; the estimators take scikit-learn's target themselves.
    n_positive : int, optional
        Number of positives among the ``u`` unlabeled points, in ``[0, u]``. Default: the
        labeled class ratio times ``u``, rounded half up.
    check_convention : bool, default=True
        Warn when ``y_known`` looks like scikit-learn's target (above). ``False`` for a
        ``y_known`` converted from one, as the estimators do: a scikit-learn target whose
        class 0 is more than half of the rows (mostly labeled rows) becomes a ``y_known`` with
        -1 in more than half of the points, and the warning would name an argument its user
        never passed.

    Attributes
    ----------
    y_known : ndarray of int, shape (n_samples,)
    labeled, unlabeled : ndarray of int
        Indices of the labeled and unlabeled points.
    n_labeled, n_unlabeled, n_positive : int

    Raises
    ------
    ValueError
        When ``y_known`` contains NaN or values other than -1, 0, +1, when fewer than two
        classes occur among the labeled points and ``n_positive`` is not given (the count
        cannot be inferred), or when ``n_positive`` is not an integer in ``[0, u]``.

    Notes
    -----
    With labeled points :math:`L`, unlabeled points :math:`U` (:math:`u = |U|`) and
    :math:`n_+` positives among them,

    .. math::

        B = \{ y \in \{-1, +1\}^n : y_L = \hat y_L,\; |\{ j \in U : y_j = +1 \}| = n_+ \},
        \qquad |B| = \binom{u}{n_+}.

    Oracle (WellSVM eq. 17): the :math:`n_+` largest :math:`r_j`, :math:`j \in U`, get +1,
    the rest -1. SDP constraints (De Bie & Cristianini 2006), with :math:`s = 1^\top y_U =
    2 n_+ - u`: :math:`M_{LL} = \hat y_L \hat y_L^\top` (off the diagonal),
    :math:`M_{LU} 1 = s \hat y_L` (row :math:`i` of :math:`yy^\top` times :math:`1_U` is
    :math:`y_i s`), :math:`1^\top M_{UU} 1 = s^2`. They hold for :math:`yy^\top` exactly when
    :math:`y` or :math:`-y` is in ``B``. A set without unlabeled points is allowed
    (``|B| = 1``).

    **Positive-unlabeled learning** (PU) is the case where every labeled point is positive and
    the class prior is known: ``n_positive`` = prior × ``n_samples`` − (labeled positives).
    The set above is then well defined (only the labeled ratio, which would say "all
    positive", cannot be used), and every method of :func:`weakcvx.solve` applies to it.

    Examples
    --------
    >>> import numpy as np
    >>> from weakcvx.labelsets import SemiSupervised
    >>> B = SemiSupervised([1, -1, 0, 0, 0, 0])
    >>> B.n_positive, B.cardinality()
    (2, 6)
    >>> B.argmax(np.array([0.0, 0.0, 0.3, -1.0, 2.0, 0.1]))
    array([ 1., -1.,  1., -1.,  1., -1.])

    Positive-unlabeled learning: five labeled positives on two moons, the rest unlabeled,
    and a known class prior of one half (20 positives in 40 points, so 15 among the
    unlabeled):

    >>> import weakcvx as wc
    >>> X, y_true, _ = wc.datasets.make_two_moons(40, n_labeled=2, random_state=0)
    >>> y_known = np.zeros(40, dtype=int)
    >>> y_known[np.flatnonzero(y_true == 1)[:5]] = 1
    >>> pu = SemiSupervised(y_known, n_positive=15)
    >>> problem = wc.WeakLabelProblem(wc.kernels.rbf(X), pu)
    >>> result = wc.solve(problem, method="alternating")
    >>> bool(pu.contains(result.labels)), float(np.mean(result.labels == y_true)) >= 0.85
    (True, True)
    """

    def __init__(self, y_known, n_positive=None, *, check_convention=True):
        y = _as_float_array(y_known, "y_known")
        if y.ndim != 1 or y.size == 0:
            raise ValueError(f"`y_known` must be a non-empty 1-D array. Got shape {y.shape} "
                             "instead.")
        if np.isnan(y).any():
            raise ValueError("`y_known` must use +1/-1 for labeled and 0 for unlabeled points. "
                             "Got NaN instead.")
        bad = ~np.isin(y, (-1.0, 0.0, 1.0))
        if bad.any():
            raise ValueError("`y_known` must use +1/-1 for labeled and 0 for unlabeled points. "
                             f"Got values {np.unique(y[bad])[:5]} instead.")
        super().__init__(y.size)
        if check_convention:
            _warn_if_scikit_learn_target(y)
        self.y_known = y.astype(np.int64)
        self.labeled = np.flatnonzero(self.y_known != 0)
        self.unlabeled = np.flatnonzero(self.y_known == 0)
        self.n_labeled, self.n_unlabeled = len(self.labeled), len(self.unlabeled)
        classes = np.unique(self.y_known[self.labeled])
        if len(classes) < 2 and n_positive is None:
            raise ValueError("`y_known` must contain labeled points of both classes (+1 and -1) "
                             "when `n_positive` is not given (the count of positives among the "
                             "unlabeled points is inferred from the labeled class ratio). Got "
                             f"labeled classes {classes.tolist()} instead; for "
                             "positive-unlabeled learning give `n_positive`, the number of "
                             "positives among the unlabeled points"
                             + ("; here 0 marks an unlabeled point, so 0/1 class labels read "
                                "as positives and unlabeled points: pass 2 * y - 1 (and 0 for "
                                "the unlabeled ones)" if classes.tolist() == [1]
                                and self.n_unlabeled > 0 else "") + ".")
        u = self.n_unlabeled
        if n_positive is None:
            n_positive_labeled = int(np.count_nonzero(self.y_known == 1))
            # round(u · n₊(L) / |L|) half up, in exact integer arithmetic
            n_positive = (2 * u * n_positive_labeled + self.n_labeled) // (2 * self.n_labeled)
        elif (isinstance(n_positive, (bool, np.bool_))
              or not isinstance(n_positive, numbers.Real)
              or not float(n_positive).is_integer() or not 0 <= n_positive <= u):
            raise ValueError(f"`n_positive` must be an integer in [0, {u}] (the number of "
                             f"unlabeled points). Got {n_positive!r} instead.")
        self.n_positive = int(n_positive)
        self._set_count_constraints(self.y_known, [(self.unlabeled, self.n_positive,
                                                    self.n_positive)])

    def per_point_costs(self, costs):
        """Costs from a scalar, an array of shape (n_samples,), or a tuple ``(c_labeled,
        c_unlabeled)`` (a tuple of two is always read as such a pair).

        Raises
        ------
        ValueError
            When ``costs`` has the wrong shape or is not positive and finite.
        """
        if isinstance(costs, tuple) and len(costs) == 2:
            c_labeled, c_unlabeled = costs
            for value in costs:
                if (isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real)
                        or not math.isfinite(value) or value <= 0):
                    raise ValueError("`costs` as a pair (c_labeled, c_unlabeled) must hold two "
                                     f"positive finite numbers. Got {costs!r} instead.")
            return np.where(self.y_known != 0, float(c_labeled), float(c_unlabeled))
        return super().per_point_costs(costs)

    def with_positive_range(self, low, high):
        r"""This label set with a range of positives among the unlabeled points instead of
        exactly ``n_positive``:

        .. math::

            B' = \{ y \in \{-1, +1\}^n : y_L = \hat y_L,\;
                 \mathrm{low} \le |\{ j\in U : y_j = +1 \}| \le \mathrm{high} \}.

        The oracle is the count description's (:class:`LabelSet`, Notes): the ``low`` largest
        scores, then every positive one up to ``high``. ``n_positive`` keeps the count the
        range was widened from. :class:`~weakcvx.S3VM` polishes its principal challengers in
        such a set when the default balance is uncertain (docs/methods/s3vm.rst,
        "Principal-direction challengers").

        Parameters
        ----------
        low, high : int
            ``0 <= low <= high <= n_unlabeled``.

        Returns
        -------
        SemiSupervised

        Raises
        ------
        ValueError
            When ``low`` or ``high`` is not an integer or they are not ordered in
            ``[0, n_unlabeled]``.

        Examples
        --------
        >>> import numpy as np
        >>> B = SemiSupervised(np.array([1, -1, 0, 0, 0, 0]), n_positive=2)
        >>> B = B.with_positive_range(1, 3)
        >>> B.argmax(np.array([0.0, 0.0, 0.5, -0.2, 0.3, 0.1])).tolist()
        [1.0, -1.0, 1.0, -1.0, 1.0, 1.0]
        >>> B.cardinality()  # 4 + 6 + 4 labelings with 1, 2 or 3 positives
        14
        """
        u = self.n_unlabeled
        for name, value in (("low", low), ("high", high)):
            if (isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real)
                    or not float(value).is_integer()):
                raise ValueError(f"`{name}` must be an integer. Got {value!r} instead.")
        if not 0 <= low <= high <= u:
            raise ValueError(f"`low` and `high` must satisfy 0 <= low <= high <= {u} (the number "
                             f"of unlabeled points). Got low={low!r}, high={high!r} instead.")
        widened = copy.copy(self)
        widened._set_count_constraints(self.y_known, [(self.unlabeled, int(low), int(high))])
        return widened

    def sdp_constraints(self, M):
        """SDP constraints of :class:`SemiSupervised` (see Notes of the class); those of the
        count description (:meth:`LabelSet.sdp_constraints`) for a range of positives
        (:meth:`with_positive_range`)."""
        (_, low, high), = self._groups
        if low != high:
            return super().sdp_constraints(M)
        self._check_sdp_variable(M)
        L, U = self.labeled, self.unlabeled
        y_L = self.y_known[L].astype(float)
        s = 2 * low - self.n_unlabeled  # s = 1ᵀ y_U (low = n_positive unless widened)
        # M_LL = y_L y_Lᵀ off the diagonal (the diagonal is the caller's diag(M) = 1)
        i, j = np.triu_indices(len(L), 1)
        constraints = [M[L[i], L[j]] == y_L[i] * y_L[j]]
        if len(U):
            constraints += [
                M[np.ix_(L, U)] @ np.ones(len(U)) == s * y_L,  # y_i 1ᵀy_U = s y_i, i ∈ L
                _cp().sum(M[np.ix_(U, U)]) == s**2,            # (1ᵀy_U)² = s²
            ]
        return constraints

    def __repr__(self):
        (_, low, high), = self._groups
        count = f"n_positive={low}" if low == high == self.n_positive else \
            f"positives in [{low}, {high}]"
        return f"SemiSupervised(n_samples={self.n_samples}, n_labeled={self.n_labeled}, {count})"


def _cp():
    import cvxpy

    return cvxpy


def _count_sdp_constraints(M, fixed, groups):
    """The SDP constraints of a count description (see :meth:`LabelSet.sdp_constraints`)."""
    cp = _cp()
    L = np.flatnonzero(fixed != 0)
    y_L = fixed[L].astype(float)
    constraints = []
    if len(L) > 1:
        i, j = np.triu_indices(len(L), 1)
        constraints.append(M[L[i], L[j]] == y_L[i] * y_L[j])
    a = np.array([2 * lo - len(idx) for idx, lo, _ in groups], dtype=float)
    b = np.array([2 * hi - len(idx) for idx, _, hi in groups], dtype=float)
    sums = []
    for k, (idx, _, _) in enumerate(groups):
        row_sums = M[:, idx] @ np.ones(len(idx))  # y_i s_G for M = yyᵀ
        sums.append(row_sums)
        bound = max(abs(a[k]), abs(b[k]))
        constraints += [row_sums[idx] <= bound, row_sums[idx] >= -bound]
        if len(L):
            signed = cp.multiply(y_L, row_sums[L])  # = s_G for every fixed i
            constraints += ([signed == a[k]] if a[k] == b[k]
                            else [signed >= a[k], signed <= b[k]])
    for k, (idx_k, _, _) in enumerate(groups):
        for l in range(k, len(groups)):
            block = cp.sum(sums[l][groups[k][0]])  # 1ᵀ M_{G_k G_l} 1 = s_k s_l
            corners = [a[k] * a[l], a[k] * b[l], b[k] * a[l], b[k] * b[l]]
            lo, hi = min(corners), max(corners)
            if k == l:
                straddles = a[k] <= 0 <= b[k]
                lo = float(len(idx_k) % 2) if straddles else min(a[k] ** 2, b[k] ** 2)
            constraints += [block == lo] if lo == hi else [block >= lo, block <= hi]
    return constraints


class Clustering(LabelSet):
    r"""Balanced two-cluster labelings: ``B = {y ∈ {±1}^n : |1ᵀy| ≤ beta}``.

    Parameters
    ----------
    n_samples : int
    beta : float
        Class-balance slack, ``beta >= 0``. With ``n`` odd, ``beta >= 1`` is needed.

    Attributes
    ----------
    n_samples : int
    beta : float
    min_positive, max_positive : int
        Bounds on the number of positives.
    symmetric : bool
        Always True: ``y`` and ``-y`` are both in ``B``.

    Raises
    ------
    ValueError
        When ``beta`` is negative or not finite, or when no labeling meets it.

    Notes
    -----
    :math:`1^\top y = 2 n_+ - n`, so

    .. math::

        B = \{ y : \lceil (n - \beta)/2 \rceil \le n_+ \le \lfloor (n + \beta)/2 \rfloor \},

    (bounds computed with a slack of ``COUNT_TOLERANCE``; ``min_positive = n - max_positive``
    exactly). Oracle: sort ``r`` descending, take ``min_positive`` points, keep adding while
    :math:`r_j > 0` up to ``max_positive``. SDP constraints (Xu et al. 2005):
    :math:`-\beta' \le M 1 \le \beta'` element-wise, where
    :math:`\beta' = 2\,\mathrm{max\_positive} - n \le \beta` is ``beta`` rounded down to the
    values :math:`|1^\top y|` can take (same integer points, slightly tighter relaxation).

    Examples
    --------
    >>> import numpy as np
    >>> from weakcvx.labelsets import Clustering
    >>> B = Clustering(5, beta=1)
    >>> B.min_positive, B.max_positive, B.cardinality()
    (2, 3, 20)
    >>> B.argmax(np.array([3.0, -1.0, 2.0, 0.5, -2.0]))
    array([ 1., -1.,  1.,  1., -1.])
    """

    symmetric = True

    def __init__(self, n_samples, beta):
        super().__init__(n_samples)
        self.beta = _check_finite_real(beta, "beta", minimum=0)
        n = self.n_samples
        self.max_positive = min(n, math.floor((n + self.beta) / 2 + COUNT_TOLERANCE))
        self.min_positive = n - self.max_positive  # = ⌈(n − β)/2⌉, symmetric by construction
        if self.min_positive > self.max_positive:
            raise ValueError(
                f"`beta`={beta!r} admits no labeling of n_samples={n} points: the number of "
                f"positives would have to lie in [{self.min_positive}, {self.max_positive}]. "
                f"Use beta >= {n % 2}."
            )
        self._set_count_constraints(np.zeros(n, dtype=np.int64),
                                    [(np.arange(n), self.min_positive, self.max_positive)])

    def sdp_constraints(self, M):
        """SDP constraints of :class:`Clustering`: ``-β' ≤ M 1 ≤ β'`` (see Notes)."""
        self._check_sdp_variable(M)
        beta_integral = 2 * self.max_positive - self.n_samples
        row_sums = M @ np.ones(self.n_samples)  # y_i 1ᵀy for M = yyᵀ
        return [row_sums <= beta_integral, row_sums >= -beta_integral]

    def __repr__(self):
        return f"Clustering(n_samples={self.n_samples}, beta={self.beta:g})"


class Proportions(LabelSet):
    r"""Learning with label proportions: a fraction of positives per bag, up to ``eps``.

    Parameters
    ----------
    bag_ids : array-like of shape (n_samples,)
        Bag of each point (any sortable values). Bags are indexed by their sorted unique ids.
    proportions : array-like of shape (n_bags,)
        Fraction of positives ``p_k`` in [0, 1] of each bag, in the order of the sorted ids.
    eps : float, default=0.0
        Tolerance on each proportion, ``eps >= 0``.

    Attributes
    ----------
    bags : ndarray of shape (n_bags,)
        The sorted unique bag ids.
    bag_index : ndarray of int, shape (n_samples,)
        Index into ``bags`` of each point.
    bag_sizes, min_positive, max_positive : ndarray of int, shape (n_bags,)
        ``n_k`` and the bounds on the number of positives ``m_k`` of each bag.
    proportions : ndarray of shape (n_bags,)
    eps : float
    symmetric : bool
        True when every bag's interval is symmetric (``min + max = n_k``), e.g. all ``p_k = ½``.

    Raises
    ------
    ValueError
        When ``proportions`` has NaN, values outside [0, 1] or a length other than the number
        of bags, when ``eps < 0``, or when a bag admits no integer count of positives.

    Notes
    -----
    With :math:`I_k` the points of bag :math:`k` and :math:`n_k = |I_k|` (conv-∝SVM's set),

    .. math::

        B = \{ y : \mathrm{lo}_k \le m_k \le \mathrm{hi}_k \ \forall k \}, \quad
        m_k = |\{ i \in I_k : y_i = +1 \}|,

        \mathrm{lo}_k = \max(0, \lceil n_k (p_k - \varepsilon) \rceil), \quad
        \mathrm{hi}_k = \min(n_k, \lfloor n_k (p_k + \varepsilon) \rfloor),

    with a slack of ``max(COUNT_TOLERANCE, RELATIVE_TOLERANCE·n_k)`` (``1e-6·n_k``) in the
    rounding, so that proportions given in float32 keep their count. **Rounded proportions.**
    With ``eps = 0``, a bag whose interval holds no integer but whose ``p_k``, written with
    ``d`` decimals (its shortest representation), is the rounding of ``m/n_k`` for the nearest
    integer ``m`` (``|m/n_k − p_k| ≤ ½·10^{−d}``) gets exactly ``m`` positives (with a
    ``UserWarning``): ``p_k = 0.17`` or ``0.167`` on a bag of 6 means one positive. Otherwise
    (``p_k = 0.51`` on 30 points: 15.3 positives) it is an error; with ``eps > 0`` the
    interval is taken as given. Oracle: per bag, the rule of
    :class:`Clustering`. SDP constraints, for :math:`M = yy^\top`, with
    :math:`s_k = \sum_{j \in I_k} y_j = 2 m_k - n_k \in S_k = \{a_k, a_k + 2, \dots, b_k\}`,
    :math:`a_k = 2\mathrm{lo}_k - n_k`, :math:`b_k = 2\mathrm{hi}_k - n_k`:

    - rows, :math:`i \in I_k`: :math:`(M_{i, I_k} 1) = y_i s_k \in S_k \cup (-S_k)`, whose
      convex hull gives :math:`|M_{i, I_k} 1| \le \beta_k = \max(|a_k|, |b_k|)` (the
      Clustering constraint per bag). The sign of :math:`y_i` is unknown, so the tighter-looking
      :math:`a_k \le M_{i, I_k} 1 \le b_k` is not valid unless :math:`a_k = -b_k`: with
      :math:`n_k = 4, p_k = 3/4`, the negative point has :math:`y_i s_k = -2 \notin [2, 2]`;
    - blocks: :math:`1^\top M_{I_k I_l} 1 = s_k s_l`, between the smallest and largest corner
      product of :math:`[a_k, b_k] \times [a_l, b_l]` for :math:`k \ne l`, and
      :math:`\min_{s \in S_k} s^2 \le 1^\top M_{I_k I_k} 1 \le \max(a_k^2, b_k^2)`.

    With ``eps = 0`` the block constraints hold for :math:`yy^\top` exactly when ``y`` or
    ``-y`` is in ``B``.

    Examples
    --------
    >>> import numpy as np
    >>> from weakcvx.labelsets import Proportions
    >>> B = Proportions([0, 0, 0, 1, 1], proportions=[2 / 3, 0.5])
    >>> B.min_positive, B.max_positive, B.cardinality()
    (array([2, 1]), array([2, 1]), 6)
    >>> B.argmax(np.array([0.1, -0.2, 0.3, -1.0, -2.0]))
    array([ 1., -1.,  1.,  1., -1.])
    """

    #: Relative slack on the counts: ``n_k(p_k ± eps)`` within ``1e-6·n_k`` of an integer counts
    #: as that integer (proportions stored as float32 are exact to ~6e-8).
    RELATIVE_TOLERANCE = 1e-6

    def __init__(self, bag_ids, proportions, eps=0.0):
        bag_ids = _check_bag_ids(bag_ids, "bag_ids")
        super().__init__(bag_ids.size)
        self.bags, self.bag_index, self.bag_sizes = _index_bags(bag_ids, "bag_ids")
        n_bags = len(self.bags)
        p = _as_float_array(proportions, "proportions")
        if p.ndim == 0:
            p = p[None]
        if p.shape != (n_bags,):
            raise ValueError(f"`proportions` must have one entry per bag ({n_bags} bags, in the "
                             f"order of the sorted bag ids). Got shape {p.shape} instead.")
        if np.isnan(p).any() or np.any((p < 0) | (p > 1)):
            raise ValueError(f"`proportions` must lie in [0, 1]. Got {p!r} instead.")
        self.proportions = p
        self.eps = _check_finite_real(eps, "eps", minimum=0)

        n_k = self.bag_sizes
        # float32 proportions (1/3 → 0.33333334) miss the count by ~1e-7·n_k
        slack = np.maximum(COUNT_TOLERANCE, self.RELATIVE_TOLERANCE * n_k)
        self.min_positive = np.maximum(
            0, np.ceil(n_k * (p - self.eps) - slack)).astype(np.int64)
        self.max_positive = np.minimum(
            n_k, np.floor(n_k * (p + self.eps) + slack)).astype(np.int64)
        for k in np.flatnonzero(self.min_positive > self.max_positive):
            target = n_k[k] * p[k]
            nearest = round(target)
            if self.eps == 0 and abs(nearest / n_k[k] - p[k]) <= self._half_last_decimal(p[k]) \
                    and abs(target - nearest) < 0.5:
                # p_k written with d decimals is the rounding of nearest / n_k (see Notes)
                warn(
                    f"Proportions: bag {self.bags[k].item()!r} ({n_k[k]} points) has p_k = "
                    f"{float(p[k])!r}, i.e. {target:.10g} positives; read as the rounding of "
                    f"{nearest}/{n_k[k]}.", UserWarning)
                self.min_positive[k] = self.max_positive[k] = nearest
                continue
            needed = min(target - math.floor(target), math.ceil(target) - target) / n_k[k]
            raise ValueError(
                f"Bag {self.bags[k].item()!r} ({n_k[k]} points) admits no labeling: its "
                f"number of positives must lie in [n_k(p_k − eps), n_k(p_k + eps)] = "
                f"[{n_k[k] * (p[k] - self.eps):.10g}, {n_k[k] * (p[k] + self.eps):.10g}] "
                f"(p_k={float(p[k])!r}, eps={self.eps:g}), which holds no integer. Check "
                f"`proportions` or use `eps` >= {needed:.3g}."
            )
        self.symmetric = bool(np.all(self.min_positive + self.max_positive == n_k))
        order = np.argsort(self.bag_index, kind="stable")
        members = np.split(order, np.cumsum(n_k)[:-1])
        self._set_count_constraints(
            np.zeros(self.n_samples, dtype=np.int64),
            list(zip(members, self.min_positive, self.max_positive)))

    @staticmethod
    def _half_last_decimal(value):
        """Half a unit in the last decimal of ``value``'s shortest representation:
        ``0.17 → 0.005``, ``0.5 → 0.05``, ``1/3 → 5e-17``."""
        digits = np.format_float_positional(float(value), unique=True, trim="-")
        return 0.5 * 10.0 ** -len(digits.partition(".")[2])

    @property
    def n_bags(self):
        return len(self.bags)

    def sdp_constraints(self, M):
        """SDP constraints of :class:`Proportions`: row and block bounds (see Notes)."""
        self._check_sdp_variable(M)
        cp = _cp()
        n_k = self.bag_sizes
        a = 2 * self.min_positive - n_k  # s_k = 1ᵀ y_{I_k} ∈ {a_k, a_k + 2, ..., b_k}
        b = 2 * self.max_positive - n_k
        A = np.zeros((self.n_samples, self.n_bags))
        A[np.arange(self.n_samples), self.bag_index] = 1.0
        constraints = []

        # rows: M_{i, I_k} 1 = y_i s_k ∈ S_k ∪ (−S_k), i ∈ I_k; only |·| ≤ β_k is convex-valid
        beta = np.maximum(np.abs(a), np.abs(b)).astype(float)
        same_bag = A @ A.T
        own_bag_sums = cp.sum(cp.multiply(M, same_bag), axis=1)
        beta_i = beta[self.bag_index]
        constraints += [own_bag_sums <= beta_i, own_bag_sums >= -beta_i]

        # blocks: 1ᵀ M_{I_k I_l} 1 = s_k s_l
        corners = np.stack([np.outer(a, a), np.outer(a, b), np.outer(b, a), np.outer(b, b)])
        lower, upper = corners.min(axis=0).astype(float), corners.max(axis=0).astype(float)
        # diagonal: s_k² over S_k, whose values have the parity of n_k
        straddles = (a <= 0) & (b >= 0)
        np.fill_diagonal(lower, np.where(straddles, n_k % 2, np.minimum(a**2, b**2)))
        np.fill_diagonal(upper, np.maximum(a**2, b**2))
        k, l = np.triu_indices(self.n_bags)
        block_sums = (A.T @ M @ A)[k, l]
        fixed = lower[k, l] == upper[k, l]
        if fixed.any():
            constraints.append(block_sums[np.flatnonzero(fixed)] == lower[k, l][fixed])
        if not fixed.all():
            free = np.flatnonzero(~fixed)
            constraints += [block_sums[free] >= lower[k, l][~fixed],
                            block_sums[free] <= upper[k, l][~fixed]]
        return constraints

    def __repr__(self):
        return (f"Proportions(n_samples={self.n_samples}, n_bags={self.n_bags}, "
                f"eps={self.eps:g})")


class Enumerated(LabelSet):
    r"""A label set given by the list of its elements.

    Parameters
    ----------
    vectors : array-like of shape (N, n_samples)
        The ±1 labelings of ``B``. Repeated rows are kept once (``B`` is a set).

    Attributes
    ----------
    vectors : ndarray of shape (``|B|``, n_samples)
        The distinct elements, in order of first appearance.
    symmetric : bool
        True when ``-b`` is listed for every listed ``b``.

    Raises
    ------
    ValueError
        When ``vectors`` is empty, not 2-D, or has entries other than ±1.

    Notes
    -----
    The oracle evaluates :math:`r^\top b` for every listed :math:`b`
    (:math:`O(|B|\,n)`) and returns the first maximiser.

    Examples
    --------
    >>> import numpy as np
    >>> from weakcvx.labelsets import Enumerated
    >>> B = Enumerated([[1, 1, -1], [1, -1, 1]])
    >>> B.argmax(np.array([0.0, -1.0, 2.0]))
    array([ 1., -1.,  1.])
    >>> B.contains([1, 1, 1])
    False
    """

    def __init__(self, vectors):
        V = _unique_rows(_check_sign_matrix(vectors, "vectors"))
        super().__init__(V.shape[1])
        self.vectors = V
        listed = {row.tobytes() for row in V}
        self.symmetric = all((-row).tobytes() in listed for row in V)

    def cardinality(self):
        return len(self.vectors)

    def _argmax(self, r):
        return self.vectors[np.argmax(self.vectors @ r)].copy()

    def _contains(self, b):
        return bool(np.any(np.all(self.vectors == b, axis=1)))

    def _random_element(self, rng):
        return self.vectors[rng.randint(len(self.vectors))].copy()

    def _enumerate(self):
        return self.vectors.copy()

    def __repr__(self):
        return f"Enumerated(n_samples={self.n_samples}, n_vectors={len(self.vectors)})"


class Custom(LabelSet):
    r"""A label set defined by user functions.

    Parameters
    ----------
    n_samples : int
    oracle : callable
        ``oracle(r) -> b``: an exact maximiser of ``rᵀb`` over ``B``, a ±1 vector of shape
        (n_samples,).
    contains : callable, optional
        ``contains(b) -> bool`` for a ±1 vector ``b``. Without it, membership is tested
        against ``enumerate`` when given, else with the oracle: ``b ∈ B`` exactly when
        ``oracle(b) = b``, since ``bᵀb' = n`` for the ±1 vector ``b' = b`` alone.
    initial : callable, optional
        ``initial(random_state) -> b`` (a ``numpy.random.RandomState``), a random element.
        Without it, ``initial()`` rounds random Gaussian scores with ``oracle``.
    enumerate : callable, optional
        ``enumerate() -> array (N, n_samples)``: all elements (tiny sets only).
    symmetric : bool, default=False
        Declare that ``-b`` is in ``B`` whenever ``b`` is.
    sdp_constraints : callable, optional
        ``sdp_constraints(M) -> list`` of CVXPY constraints on ``M ≈ yyᵀ`` valid for every
        ``y ∈ B`` (identities of ``yyᵀ``, linear in ``M``), added to the SDP rung
        (``M ⪰ 0, diag M = 1``); without it the SDP ranges over the whole elliptope.

    Raises
    ------
    TypeError
        When ``oracle`` or a given optional argument is not callable.
    ValueError
        When a user function returns something that is not a ±1 vector of the right shape.

    Notes
    -----
    The driver trusts ``oracle`` to be exact; a heuristic oracle still gives feasible labels
    but the label-generation value is then no longer a certified bound. ``cardinality()`` and
    ``enumerate()`` need ``enumerate``; ``contains`` uses ``contains``, ``enumerate`` or the
    oracle, in that order.

    Examples
    --------
    >>> import numpy as np
    >>> from weakcvx.labelsets import Custom
    >>> def at_most_one_positive(r):  # B = {y : at most one +1}
    ...     b = -np.ones(len(r))
    ...     if r.max() > 0:
    ...         b[np.argmax(r)] = 1.0
    ...     return b
    >>> B = Custom(3, at_most_one_positive, contains=lambda b: (b > 0).sum() <= 1)
    >>> B.argmax(np.array([-1.0, 2.0, 0.5]))
    array([-1.,  1., -1.])
    >>> B.contains([1, 1, -1])
    False
    """

    def __init__(self, n_samples, oracle, contains=None, initial=None, enumerate=None, *,
                 symmetric=False, sdp_constraints=None):
        super().__init__(n_samples)
        for name, fn in [("oracle", oracle), ("contains", contains), ("initial", initial),
                         ("enumerate", enumerate), ("sdp_constraints", sdp_constraints)]:
            if not callable(fn) and not (fn is None and name != "oracle"):
                raise TypeError(f"`{name}` must be callable. Got {fn!r} instead.")
        self.oracle = oracle
        self._contains_fn = contains
        self._initial_fn = initial
        self._enumerate_fn = enumerate
        self._sdp_fn = sdp_constraints
        self.symmetric = bool(symmetric)

    def sdp_constraints(self, M):
        """The user's ``sdp_constraints(M)``, or none (the elliptope)."""
        self._check_sdp_variable(M)
        if self._sdp_fn is None:
            return []
        from cvxpy.constraints.constraint import Constraint

        name = f"The `sdp_constraints` of {self!r}"
        try:
            constraints = self._sdp_fn(M)
        except Exception as exc:   # the user's code: say which hook, keep its own traceback
            raise ValueError(f"{name} raised {type(exc).__name__} on M (a cvxpy expression of "
                             f"shape {M.shape}): {exc}") from exc
        if not isinstance(constraints, (list, tuple)):
            raise TypeError(f"{name} must return a list of cvxpy constraints. Got "
                            f"{type(constraints).__name__} instead.")
        wrong = [type(c).__name__ for c in constraints if not isinstance(c, Constraint)]
        if wrong:
            raise TypeError(f"{name} must return a list of cvxpy constraints (e.g. "
                            f"`cp.sum(M[0, :3]) >= 1`). Got {len(wrong)} other item(s): "
                            f"{', '.join(sorted(set(wrong)))}.")
        return list(constraints)

    def _check_returned(self, returned, name):
        try:
            b = np.asarray(returned, dtype=float)
        except (TypeError, ValueError):
            b = np.asarray(returned, dtype=object)
        if b.shape != (self.n_samples,) or not _is_sign_vector(b, self.n_samples):
            raise ValueError(f"`{name}` must return a ±1 vector of shape ({self.n_samples},). "
                             f"Got {_describe_returned(returned)} instead.")
        return b

    def _argmax(self, r):
        return self._check_returned(self.oracle(r.copy()), "oracle")

    def _contains(self, b):
        if self._contains_fn is not None:
            return bool(self._contains_fn(b))
        if self._enumerate_fn is not None:
            return bool(np.any(np.all(self._all_elements() == b, axis=1)))
        # an exact oracle maximises bᵀb' over B; the only ±1 vector with bᵀb' = n is b itself
        return bool(np.array_equal(self._argmax(np.asarray(b, dtype=float)), b))

    def _random_element(self, rng):
        if self._initial_fn is not None:
            return self._check_returned(self._initial_fn(rng), "initial")
        return self._argmax(rng.standard_normal(self.n_samples))

    def _all_elements(self):
        if self._enumerate_fn is None:
            raise NotImplementedError("Custom.cardinality and Custom.enumerate need `enumerate`: "
                                      "pass enumerate= (a callable returning every labeling) "
                                      "to Custom for method='exact', oracle='exact' or "
                                      "enumeration.")
        return _unique_rows(_check_sign_matrix(self._enumerate_fn(), "enumerate",
                                               self.n_samples))

    def cardinality(self):
        return len(self._all_elements())

    def enumerate(self, limit=ENUMERATION_LIMIT):
        elements = self._all_elements()
        if len(elements) > limit:
            raise ValueError(
                f"{self!r} has {len(elements)} elements, more than `limit`={limit}: enumeration "
                "is for tiny problems only."
            )
        return elements

    def __repr__(self):
        return f"Custom(n_samples={self.n_samples}, oracle={getattr(self.oracle, '__name__', '?')})"


# -- multi-instance learning ------------------------------------------------------------------
def _check_bag_labels(bag_labels, n_bags):
    """Bag labels as a ±1 float array of shape (n_bags,); accepts {-1, +1} or {0, 1}."""
    y = _as_float_array(bag_labels, "bag_labels")
    if y.ndim == 0:
        y = y[None]
    if y.shape != (n_bags,):
        raise ValueError(f"`bag_labels` must have one entry per bag ({n_bags} bags, in the order "
                         f"of the sorted bag ids). Got shape {y.shape} instead.")
    values = set(np.unique(y).tolist())
    if not (values <= {-1.0, 1.0} or values <= {0.0, 1.0}):
        raise ValueError("`bag_labels` must hold +1/-1 (or 1/0), 1 for a positive bag. Got values "
                         f"{sorted(values)[:5]} instead.")
    y = np.where(y == 1.0, 1.0, -1.0)
    if not (np.any(y > 0) and np.any(y < 0)):
        raise ValueError("`bag_labels` must contain at least one positive and one negative bag. "
                         f"Got {int(np.sum(y > 0))} positive and {int(np.sum(y < 0))} negative.")
    return y


class _BagLabelSet(LabelSet):
    """Shared parsing of the multi-instance label sets: instances grouped into labeled bags.

    Every instance of a negative bag is fixed to -1; each positive bag is a group whose count of
    positives lies in ``[min_positive, max_positive]`` (set by the subclass).
    """

    def __init__(self, bags, bag_labels, min_positive, max_positive):
        bag_ids = _check_bag_ids(bags, "bags")
        super().__init__(bag_ids.size)
        self.bags, self.bag_index, self.bag_sizes = _index_bags(bag_ids, "bags")
        self.bag_labels = _check_bag_labels(bag_labels, len(self.bags))
        self.positive_bags = np.flatnonzero(self.bag_labels > 0)
        order = np.argsort(self.bag_index, kind="stable")
        self.members = np.split(order, np.cumsum(self.bag_sizes)[:-1])
        negative = self.bag_labels[self.bag_index] < 0
        self.negative_rows = np.flatnonzero(negative)
        fixed = np.where(negative, -1, 0).astype(np.int64)
        self._set_count_constraints(
            fixed, [(self.members[k], min_positive(k), max_positive(k))
                    for k in self.positive_bags])

    @property
    def n_bags(self):
        return len(self.bags)

    def _pair_costs(self, costs, positive_part):
        """Costs from a pair ``(c_positive, c_negative)``: ``positive_part`` entries of the first,
        then one per negative instance of the second."""
        for value in costs:
            if (isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real)
                    or not math.isfinite(value) or value <= 0):
                raise ValueError("`costs` as a pair (c_positive, c_negative) must hold two "
                                 f"positive finite numbers. Got {costs!r} instead.")
        return np.concatenate([np.full(positive_part, float(costs[0])),
                               np.full(len(self.negative_rows), float(costs[1]))])


class KeyInstances(_BagLabelSet):
    r"""Multi-instance learning: ``b`` picks the key instance(s) of every positive bag.

    Parameters
    ----------
    bags : array-like of shape (n_instances,)
        Bag id of each instance (any sortable values). Bags are indexed by their sorted ids.
    bag_labels : array-like of shape (n_bags,)
        +1 (or 1) for a positive bag, -1 (or 0) for a negative one, in the order of the sorted
        ids. At least one bag of each kind.
    n_key : int, default=1
        Key instances per positive bag, at most the size of the smallest positive bag.

    Attributes
    ----------
    bags : ndarray of shape (n_bags,)
        The sorted unique bag ids.
    bag_index : ndarray of int, shape (n_instances,)
        Index into ``bags`` of each instance.
    bag_sizes : ndarray of int, shape (n_bags,)
    bag_labels : ndarray of shape (n_bags,), ±1
    positive_bags : ndarray of int
        Indices of the positive bags, in order: the order of the super-instances.
    members : list of ndarray of int
        Instances of each bag.
    negative_rows : ndarray of int
        Instances of the negative bags.
    n_key : int
    n_super : int
        Number of super-instances, i.e. of dual variables: ``n_key · p + |negative_rows|``.
    is_sign_set : bool
        Always False: the label kernel of ``b`` is not ``K ∘ bbᵀ``.

    Raises
    ------
    ValueError
        When ``bags`` is empty or holds NaN, when ``bag_labels`` has the wrong length, values
        other than ±1 / 1, 0, or lacks a positive or a negative bag, or when ``n_key`` is not an
        integer in [1, smallest positive bag].

    Notes
    -----
    WellSVM §4.2 (eq. 18–20). An element ``b`` is a ±1 vector over the instances: +1 on the
    ``n_key`` key instances of each positive bag, -1 everywhere else (negative bags are fixed).
    So ``B`` is described by counts (every positive bag a group with exactly ``n_key``
    positives), and the linear oracle is exact by sorting: per positive bag the ``n_key``
    instances with the largest ``r_j`` (:math:`|B| = \prod_{i \le p} \binom{n_i}{n_{key}}`).

    The label kernel is built over *super-instances*: with ``n_key = 1`` positive bag
    :math:`i` contributes :math:`\psi_i = \phi(x_{i, \mathrm{key}})` with label +1 and every
    instance of a negative bag contributes itself with label -1,

    .. math::

        Q_b = \operatorname{diag}(s)\, K[\mathrm{rows}_b, \mathrm{rows}_b]\,
        \operatorname{diag}(s), \quad
        \mathrm{rows}_b = [\mathrm{key}_1, \dots, \mathrm{key}_p, \mathrm{negatives}], \quad
        s = [1_p; -1_{N_-}],

    stored through the rows of the kernel factor (:meth:`support`), never as a matrix per
    ``b``. ``J(b)`` is then MI-SVM's objective (eq. 18, with one slack per negative instance)
    for the witnesses ``b``. With ``n_key > 1`` each key is a positive example of its own
    (``n_key`` slots per positive bag, in instance order), instead of the footnote's sum of the
    key features: the rows/signs protocol represents rows of ``K``, not sums of them.

    :meth:`most_violated` is WellSVM eq. 23–25: the function :math:`b \mapsto \alpha^\top Q_b
    \alpha = \|\sum_i \alpha_i \psi_i(b) - \sum_{j \in N_-} \alpha_j \phi(x_j)\|^2` is convex; its
    linearisation at :math:`\hat b` gives per instance :math:`r_{ij} = \alpha_i\, w_{\hat b}
    \cdot \phi(x_{ij})`, maximised per bag by sorting, and repeated to a fixed point (each step
    cannot decrease the quadratic, WellSVM Prop. 6).

    ``count_constraints()`` returns None: the count description is that of ``b``, but the
    solvers that read it (supervised start, branch and bound, SDP) assume ``Q_b = K ∘ bbᵀ``.

    Examples
    --------
    >>> import numpy as np
    >>> from weakcvx.labelsets import KeyInstances
    >>> B = KeyInstances([0, 0, 0, 1, 1, 2], bag_labels=[1, -1, 1])
    >>> B.cardinality(), B.n_super
    (3, 4)
    >>> b = B.argmax(np.array([0.1, 0.7, -0.2, 0.0, 0.0, 5.0]))
    >>> b
    array([-1.,  1., -1., -1., -1.,  1.])
    >>> rows, signs = B.support(b)
    >>> rows.tolist(), signs.tolist()
    ([1, 5, 3, 4], [1.0, 1.0, -1.0, -1.0])
    """

    is_sign_set = False

    def __init__(self, bags, bag_labels, n_key=1):
        if (isinstance(n_key, (bool, np.bool_)) or not isinstance(n_key, numbers.Integral)
                or n_key < 1):
            raise ValueError(f"`n_key` must be a positive integer. Got {n_key!r} instead.")
        self.n_key = int(n_key)
        # clipped to the bag's size, so that the check below names n_key
        super().__init__(bags, bag_labels, lambda k: min(self.n_key, self.bag_sizes[k]),
                         lambda k: min(self.n_key, self.bag_sizes[k]))
        smallest = int(self.bag_sizes[self.positive_bags].min())
        if self.n_key > smallest:
            raise ValueError(f"`n_key` must be at most the size of the smallest positive bag "
                             f"({smallest}). Got {n_key!r} instead.")
        self.n_super = self.n_key * len(self.positive_bags) + len(self.negative_rows)
        # dual variable (slot) of each positive bag's keys, and of each instance's bag
        self._slot_of_instance = np.full(self.n_samples, -1, dtype=np.int64)
        for slot, k in enumerate(self.positive_bags):
            self._slot_of_instance[self.members[k]] = slot

    def count_constraints(self):
        """None: see the Notes of the class."""
        return None

    def per_point_costs(self, costs):
        """One cost per super-instance from a scalar, an array of shape (n_super,), or a pair
        ``(c_positive, c_negative)``: the cost of each key slot and of each negative instance.

        Raises
        ------
        ValueError
            When ``costs`` has the wrong shape or is not positive and finite.
        """
        if isinstance(costs, tuple) and len(costs) == 2:
            return self._pair_costs(costs, self.n_key * len(self.positive_bags))
        return _costs_array(costs, self.n_super,
                            "a positive scalar, a pair (c_positive, c_negative)")

    def support(self, b):
        """``(rows, signs)``: the key instances of the positive bags in bag order (``n_key`` each,
        in instance order), then the negative instances; signs +1 then -1."""
        b = np.asarray(b, dtype=float)
        keys = np.flatnonzero(b > 0)
        keys = keys[np.argsort(self._slot_of_instance[keys], kind="stable")]
        rows = np.concatenate([keys, self.negative_rows])
        signs = np.concatenate([np.ones(len(keys)), -np.ones(len(self.negative_rows))])
        return rows, signs

    def keys(self, b):
        """Index within its bag of the key instance(s) of each positive bag, in bag order.

        Returns
        -------
        ndarray of int, shape (p,) for ``n_key = 1``, else (p, n_key)
        """
        b = np.asarray(b, dtype=float)
        out = np.array([np.flatnonzero(b[self.members[k]] > 0) for k in self.positive_bags],
                       dtype=np.int64).reshape(len(self.positive_bags), self.n_key)
        return out[:, 0] if self.n_key == 1 else out

    def from_keys(self, keys):
        """The element ``b`` whose key in positive bag ``i`` (in order) is ``keys[i]``, an index
        within that bag (shape (p,) or (p, n_key))."""
        keys = np.asarray(keys)
        if keys.size != self.n_key * len(self.positive_bags) or (
                keys.size and keys.dtype.kind not in "iu"):
            raise ValueError(f"`keys` must hold {self.n_key} integer index(es) for each of the "
                             f"{len(self.positive_bags)} positive bags. Got an array of shape "
                             f"{keys.shape} and dtype {keys.dtype}.")
        keys = keys.astype(np.int64).reshape(len(self.positive_bags), -1)
        sizes = np.array([len(self.members[k]) for k in self.positive_bags])
        outside = np.flatnonzero(((keys < 0) | (keys >= sizes[:, None])).any(axis=1))
        if outside.size:
            i = int(outside[0])
            raise ValueError(f"`keys[{i}]` must index within positive bag {i} "
                             f"({sizes[i]} instances, indices 0..{sizes[i] - 1}). Got "
                             f"{keys[i].tolist()}.")
        b = self._fixed.astype(float)
        for i, k in enumerate(self.positive_bags):
            b[self.members[k]] = -1.0
            b[self.members[k][keys[i]]] = 1.0
        if not self.contains(b):
            raise ValueError(f"`keys` must pick {self.n_key} distinct instance(s) within each "
                             f"positive bag. Got {keys.tolist()} instead.")
        return b

    def linearisation(self, problem, alpha, b):
        r"""``r``: the gradient of ``b ↦ αᵀQ_bα`` at ``b`` per instance, halved:
        ``r_ij = ᾱ_i w_b·φ(x_ij)`` with ``w_b = Σ_k α_k s_k φ(x_{rows_k})`` and ``ᾱ_i`` the
        (mean) dual variable of bag ``i``'s key slot(s) (WellSVM eq. 23, ``τ``-free form)."""
        # w_b·φ(x) at every instance: one kernel product (through the problem, which works on
        # the explicit kernel when it has one and never forms its factor then)
        scores = problem.decision_scores(alpha, [b], np.ones(1))
        slot_alpha = alpha[:self.n_key * len(self.positive_bags)].reshape(-1, self.n_key)
        slot_alpha = slot_alpha.mean(axis=1)
        r = np.zeros(self.n_samples)
        inside = self._slot_of_instance >= 0
        r[inside] = slot_alpha[self._slot_of_instance[inside]] * scores[inside]
        return r

    def most_violated(self, problem, alpha, b_hat, scores, max_steps=20):
        """A violated element for the label-generation driver (WellSVM eq. 24–25, iterated).

        Linearise-and-sort ascent on ``b ↦ αᵀQ_bα`` from ``b_hat`` and from the current
        classifier's keys (``argmax(scores)``); ties of points with zero dual variable follow
        the scores. Returns the element with the larger quadratic.
        """
        tiebreak = 1e-6 * np.asarray(scores, dtype=float)
        best_b, best_q = None, -np.inf
        for b in (np.asarray(b_hat, dtype=float), self.argmax(scores)):
            q = problem.quadratic(alpha, b)
            for _ in range(max_steps):
                b_new = self.argmax(self.linearisation(problem, alpha, b) + tiebreak)
                if np.array_equal(b_new, b):
                    break
                q_new = problem.quadratic(alpha, b_new)
                if q_new <= q:
                    break
                b, q = b_new, q_new
            if q > best_q:
                best_b, best_q = b, q
        return best_b

    def relabel(self, scores, costs=None):
        """Exact best ``b`` for a fixed classifier: the key(s) with the largest score per positive
        bag (the hinge loss of a key is non-increasing in its score). ``costs`` is unused."""
        return self.argmax(scores)

    def __repr__(self):
        return (f"KeyInstances(n_samples={self.n_samples}, n_bags={self.n_bags}, "
                f"n_positive_bags={len(self.positive_bags)}, n_key={self.n_key})")


class InstanceLabels(_BagLabelSet):
    r"""Multi-instance learning by instance labels (mi-SVM's label set, Andrews et al. 2003).

    Parameters
    ----------
    bags : array-like of shape (n_instances,)
        Bag id of each instance (any sortable values).
    bag_labels : array-like of shape (n_bags,)
        +1 (or 1) for a positive bag, -1 (or 0) for a negative one, in the order of the sorted
        ids. At least one bag of each kind.

    Attributes
    ----------
    bags, bag_index, bag_sizes, bag_labels, positive_bags, members, negative_rows :
        As in :class:`KeyInstances`.

    Raises
    ------
    ValueError
        As :class:`KeyInstances` for ``bags`` and ``bag_labels``.

    Notes
    -----
    ``B`` holds the instance labelings consistent with the standard MIL assumption:

    .. math::

        B = \{ y \in \{-1, +1\}^N : y_j = -1 \ (j \text{ in a negative bag}),\;
              \textstyle\sum_{j \in B_i} \tfrac{1 + y_j}{2} \ge 1 \ (B_i \text{ positive}) \},

    a set described by counts (each positive bag a group with between 1 and :math:`n_i`
    positives), so the oracle sorts per bag and every solver for sign vectors applies
    (``Q_y = K ∘ yyᵀ``). Alternating on it is mi-SVM: fit, relabel each positive bag's
    instances by the sign of the score, keep at least the best one positive.

    Examples
    --------
    >>> import numpy as np
    >>> from weakcvx.labelsets import InstanceLabels
    >>> B = InstanceLabels([0, 0, 0, 1, 1], bag_labels=[1, 0])
    >>> B.cardinality()
    7
    >>> B.argmax(np.array([-0.3, -0.1, -2.0, 1.0, 1.0]))
    array([-1.,  1., -1., -1., -1.])
    """

    def __init__(self, bags, bag_labels):
        super().__init__(bags, bag_labels, lambda k: 1, lambda k: int(self.bag_sizes[k]))

    def per_point_costs(self, costs):
        """Costs from a scalar, an array of shape (n_samples,), or a pair ``(c_positive,
        c_negative)``: the cost of each instance of a positive bag and of a negative bag."""
        if isinstance(costs, tuple) and len(costs) == 2:
            positive = self.bag_labels[self.bag_index] > 0
            c = self._pair_costs(costs, int(positive.sum()))
            out = np.empty(self.n_samples)
            out[positive] = c[:int(positive.sum())]
            out[~positive] = c[int(positive.sum()):]
            return out
        return super().per_point_costs(costs)

    def __repr__(self):
        return (f"InstanceLabels(n_samples={self.n_samples}, n_bags={self.n_bags}, "
                f"n_positive_bags={len(self.positive_bags)})")
