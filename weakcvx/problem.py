"""WeakLabelProblem: the one object every solver takes (docs/design.rst §1)."""

from __future__ import annotations

import copy
import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from . import kernels
from ._validation import check_real
from ._solvers import SOCP_ORDER, solve_model
from .formulations import Formulation, Hinge
from .result import SolverError
from .svm import (GRAM_LIMIT, _canonical_csr, box_qp_cvxpy, gram_dot, solve_box_qp,
                  solve_box_qp_newton)

__all__ = ["WeakLabelProblem", "append_constant_feature"]

#: Largest number of dual variables for which :meth:`WeakLabelProblem.J` always refines a
#: coordinate descent that stopped at ``max_epochs``, falling back on the interior-point
#: reference (:func:`~weakcvx.svm.box_qp_cvxpy`), chosen by the reference's cost
#: (docs/design.rst §3.2).
J_REFERENCE_LIMIT = 300
#: Above ``J_REFERENCE_LIMIT`` dual variables, a stopped descent is refined only when its
#: duality gap exceeds this fraction of ``max(1, |primal value|)``; chosen above the gaps
#: of the descents stopped in ProportionSVM label generation (docs/design.rst §3.2).
J_LOOSE_GAP = 1e-2
#: Up to ``J_REFERENCE_LIMIT`` dual variables, :meth:`WeakLabelProblem.J` continues a converged
#: descent with a tolerance 100 times smaller (at most ``J_TIGHTEN_ROUNDS`` times) while its
#: duality gap exceeds this fraction of ``max(1, |primal value|)``: the projected-gradient
#: tolerance is absolute, so the gap grows with the costs (up to ``2 Σ_i c_i tol``) and a
#: large ``C`` left the value 1e-5 to 3e-3 relative above ``J(b)``.
J_TIGHT_GAP = 1e-7
J_TIGHTEN_ROUNDS = 3


def append_constant_feature(X, value):
    """``[X, value·1]``: the features with a constant column (an offset modelled as a regularised
    weight, as in LIBLINEAR), as a canonical float64 CSR matrix for sparse ``X`` (duplicate
    entries summed).

    The sparse result is written in one pass into arrays of its final size: ``scipy.sparse.hstack``
    concatenates and then copies again, two copies of ``X`` alive at once, the peak of a whole
    linear S3VM fit (docs/design.rst §7).

    Parameters
    ----------
    X : ndarray of shape (n, d) or scipy.sparse matrix
    value : float

    Returns
    -------
    ndarray or scipy.sparse.csr_matrix of shape (n, d + 1)

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> append_constant_feature(sp.csr_matrix([[0.0, 2.0], [3.0, 0.0]]), 1.0).toarray()
    array([[0., 2., 1.],
           [3., 0., 1.]])
    """
    if not sp.issparse(X):
        return np.hstack([X, np.full((X.shape[0], 1), value)])
    if X.format != "csr" or X.dtype != np.float64:
        X = sp.csr_matrix(X, dtype=np.float64)
    canonical = X.has_canonical_format  # else the result is sorted in place: no second copy
    n, d = X.shape
    indptr = X.indptr.astype(np.int64) + np.arange(n + 1)  # one more entry per row
    index_dtype = np.int32 if max(d, indptr[-1]) < np.iinfo(np.int32).max else np.int64
    last = indptr[1:] - 1  # where each row's constant goes: after its sorted columns
    keep = np.ones(indptr[-1], dtype=bool)
    keep[last] = False
    data = np.empty(indptr[-1])
    data[keep] = X.data[:X.indptr[-1]]  # arrays may hold spare room past the last row
    data[last] = value
    indices = np.empty(indptr[-1], dtype=index_dtype)
    indices[keep] = X.indices[:X.indptr[-1]]
    indices[last] = d
    F = sp.csr_matrix((data, indices, indptr.astype(index_dtype, copy=False)), shape=(n, d + 1))
    if canonical:
        F.has_sorted_indices = True
        F.has_canonical_format = True
    else:
        F.sum_duplicates()  # sorts each row; the constant, in column d, stays last
    return F


def _resolve_formulation(formulation, costs):
    """The formulation of a problem: ``formulation``, or ``Hinge(C=costs)`` (``costs`` is the
    shorthand for the hinge loss; default 1)."""
    if formulation is None:
        return Hinge(C=1.0 if costs is None else costs)
    if not isinstance(formulation, Formulation):
        raise TypeError("`formulation` must be a weakcvx.formulations.Formulation (e.g. "
                        f"Hinge(C=1.0), SquaredHinge(C=1.0)). Got {type(formulation).__name__}.")
    if costs is not None:
        raise ValueError("Give the costs either as `costs=` (the hinge loss) or inside "
                         f"`formulation=`, not both. Got costs={costs!r} and "
                         f"formulation={formulation!r}.")
    return formulation


def _same_box(first, second):
    """Whether two ``Formulation.box()`` values (``None`` or ``(upper, shift)``) are equal."""
    if first is None or second is None:
        return first is None and second is None
    return all((a is None and b is None) or (a is not None and b is not None
                                             and np.array_equal(a, b))
               for a, b in zip(first, second))


#: Up to this many points, a user formulation with a ``box()`` is checked against its own
#: ``dual()`` once, on the label set's first labeling (one CVXPY solve): the two must describe
#: the same J, else every rung would bound another problem than the one declared.
BOX_CHECK_MAX_N = 200
#: Relative tolerance of that check (the CVXPY solve and the box QP each agree with J to far
#: less; a box that contradicts the dual moves J by far more).
BOX_CHECK_RTOL = 1e-3


def _check_box(formulation, box, m):
    """Refuse a ``box()`` whose upper bounds or shift are not finite, non-negative and of one
    value or one per dual variable (``m``)."""
    name = type(formulation).__name__
    for what, value in (("upper bound", box[0]), ("shift", box[1])):
        if value is None and what == "shift":
            continue
        arr = np.asarray(check_real(value, f"{name}.box() {what}"), dtype=float)
        if arr.ndim > 1 or not np.all(np.isfinite(arr)) or np.any(arr < 0):
            raise ValueError(f"{name}.box() must return (upper, shift) with finite, "
                             f"non-negative values, one or one per dual variable ({m} points). "
                             f"Got {'an' if what[0] == 'u' else 'a'} {what} of shape "
                             f"{arr.shape} with values in "
                             f"[{np.min(arr) if arr.size else np.nan:.3g}, "
                             f"{np.max(arr) if arr.size else np.nan:.3g}].")


def _check_dual(formulation, m):
    """Refuse a formulation whose ``dual`` does not return ``(concave scalar, constraints)``
    for a variable of length ``m`` (else the first CVXPY solve would fail far from here)."""
    import cvxpy as cp

    name = type(formulation).__name__
    out = formulation.dual(cp.Variable(m))
    if not (isinstance(out, tuple) and len(out) == 2):
        raise TypeError(f"{name}.dual(alpha) must return a pair (objective, constraints). "
                        f"Got {type(out).__name__} instead.")
    f, constraints = out
    if not isinstance(f, cp.Expression) or f.size != 1 or not f.is_concave():
        raise ValueError(f"{name}.dual(alpha): the objective f(α) must be a concave scalar "
                         f"CVXPY expression (DCP). Got {f!r} instead.")
    if not isinstance(constraints, (list, tuple)) or not all(
            isinstance(c, cp.constraints.constraint.Constraint) and c.is_dcp()
            for c in constraints):
        raise ValueError(f"{name}.dual(alpha): the constraints of A must be a list of DCP "
                         f"CVXPY constraints. Got {constraints!r} instead.")


class WeakLabelProblem:
    r"""A weak-label large-margin problem: ``min_{y ∈ B} J(y)``.

    .. math::

        J(b) = \max_{0 \le \alpha \le c} \; 1^\top\alpha - \tfrac12 \alpha^\top Q_b \alpha,
        \qquad Q_b = \operatorname{diag}(s_b)\, K[\mathrm{rows}_b, \mathrm{rows}_b]\,
        \operatorname{diag}(s_b),

        \text{for sign vectors } Q_y = K \circ y y^\top,

    the dual of the SVM without offset ``½‖w‖² + Σ_i c_i max(0, 1 − y_i w·φ(x_i))`` trained on
    the labeling ``b`` (the default formulation, :class:`~weakcvx.formulations.Hinge`). Any
    :class:`~weakcvx.formulations.Formulation` replaces ``1ᵀα`` and the box by its own concave
    ``f`` and convex ``A``: ``J_F(b) = max_{α ∈ A} f(α) − ½ αᵀQ_bα`` (docs/formulations.rst).
    The kernel enters only through a factor ``R`` with ``K ≈ R Rᵀ``.

    Parameters
    ----------
    kernel : ndarray of shape (n, n) or None
        A precomputed PSD kernel matrix. Use ``features=`` instead for the linear kernel on a
        feature matrix (dense or sparse; never squared into n×n).
    labelset : LabelSet
        The feasible labelings B (see :mod:`weakcvx.labelsets`).
    costs : float, array of shape (m,), or pair, default=1.0
        Per-point hinge costs ``c_i``; for :class:`~weakcvx.labelsets.SemiSupervised` a pair
        ``(c_labeled, c_unlabeled)`` is accepted. Shorthand for ``formulation=Hinge(C=costs)``.
    formulation : Formulation, optional
        The inner problem (:mod:`weakcvx.formulations`); bound to ``labelset`` here (its
        per-point parameters resolved). Not together with ``costs``.
    features : array-like or sparse matrix of shape (n, d), optional
        Feature matrix for the linear kernel ``K = X Xᵀ``; its rows are the factor.
    rank : int, optional
        Use a rank-``rank`` pivoted-Cholesky factor of ``kernel`` (large n).
    y_true : array of shape (n,), optional
        True ±1 labels when known (for error reporting in :func:`weakcvx.compare`).
    name : str, optional
    check_psd : bool, default=True
        Refuse a clearly indefinite ``kernel`` (a Cholesky factorisation of ``K + δI``,
        :func:`weakcvx.kernels.check_psd`). ``False`` for a kernel that is positive
        semi-definite by construction or already checked (the estimators' RBF kernels and
        checked precomputed ones): the check is O(n³), a few percent of a small fit.

    Attributes
    ----------
    factor : ndarray (n, r) or scipy.sparse.csr_matrix (n, d)
        Built on first access when ``gram`` is set (the solvers then never need it).
    kernel : ndarray (n, n) or None
    gram : ndarray (n, n) or None
        ``K`` when the factor would be exact and ``n ≤ weakcvx.svm.GRAM_LIMIT``: the solvers
        work on ``K`` itself (explicit label kernels in :func:`~weakcvx.svm.solve_box_qp`,
        ``K v`` products in the oracles), and the kernel is checked positive semi-definite by a
        Cholesky factorisation instead of an eigendecomposition.
    costs : ndarray (m,) or None
        The box of the fast path (``Hinge``: ``c``; ``SquaredHinge``: a box that never binds);
        ``None`` for a formulation without one (every α-step is then a CVXPY solve).
    shift : ndarray (n,) or None
        The fast path's diagonal shift, folded into ``kernel``/``gram``/``factor`` (the solvers
        see ``K + ρ11ᵀ + diag(shift)``; ``decision_scores`` removes it).
    formulation : Formulation
        The bound formulation.
    n_samples : int

    Examples
    --------
    >>> import numpy as np
    >>> import weakcvx as wc
    >>> X = np.array([[-2.0, 0.1], [-1.5, 0.0], [1.5, 0.2], [2.0, -0.1]])
    >>> y_known = np.array([-1, 0, 0, 1])
    >>> problem = wc.WeakLabelProblem(features=X, labelset=wc.labelsets.SemiSupervised(y_known))
    >>> value, alpha = problem.J(np.array([-1, -1, 1, 1]))
    >>> round(value, 3)
    0.222
    """

    def __init__(self, kernel=None, labelset=None, costs=None, *, formulation=None,
                 features=None, rank=None, y_true=None, name=None, check_psd=True):
        from .labelsets import LabelSet

        if labelset is None:
            raise ValueError("`labelset` is required: a weakcvx.labelsets.LabelSet instance.")
        if not isinstance(labelset, LabelSet):
            hint = (" (for semi-supervised labels y_known in {+1, -1, 0}: "
                    "weakcvx.labelsets.SemiSupervised(y_known))"
                    if isinstance(labelset, (np.ndarray, list, tuple)) else "")
            raise TypeError("`labelset` must be a weakcvx.labelsets.LabelSet, e.g. "
                            f"SemiSupervised(y_known){hint}. Got {type(labelset).__name__} "
                            "instead.")
        if (kernel is None) == (features is None):
            raise ValueError(
                "Exactly one of `kernel` (an (n, n) kernel matrix) and `features` (an (n, d) "
                f"feature matrix) must be given. Got kernel={type(kernel).__name__}, "
                f"features={type(features).__name__}."
            )
        if rank is not None:
            if features is not None:
                raise ValueError("`rank` applies to `kernel` (a low-rank factor of the kernel "
                                 "matrix); with `features` the factor is the feature matrix "
                                 f"itself. Got rank={rank!r} with features: leave it None.")
            if (isinstance(rank, (bool, np.bool_)) or not isinstance(rank, numbers.Integral)
                    or rank < 1):
                raise ValueError(f"`rank` must be None or a positive integer. Got {rank!r} "
                                 "instead.")
            rank = int(rank)
        formulation = _resolve_formulation(formulation, costs)
        if features is not None:
            check_real(features, "features")
            if sp.issparse(features):
                X = _canonical_csr(features)  # no copy of a float64 CSR matrix
                if not np.all(np.isfinite(X.data)):
                    raise ValueError("`features` must contain only finite values. Got NaN or inf.")
            else:
                X = np.asarray(features, dtype=float)
                if X.ndim != 2:
                    raise ValueError(f"`features` must be 2-D (n, d). Got shape {X.shape}.")
                if not np.all(np.isfinite(X)):
                    raise ValueError("`features` must contain only finite values. Got NaN or inf.")
                X = np.ascontiguousarray(X)
            if formulation.offset:  # K + ρ11ᵀ: a constant feature √ρ
                X = append_constant_feature(X, np.sqrt(formulation.offset))
            self._factor = X
            self.kernel = None
            self.gram = None
        else:
            K = kernels.check_kernel_matrix(kernel)
            if formulation.offset:
                K = K + formulation.offset
            self.kernel = K
            self._rank = rank
            # the solvers use K itself when the factor would be exact and K is small enough; the
            # factor is then built only if asked for (its eigendecomposition costs 10x a
            # Cholesky, as much as a whole fit: docs/design.rst §7)
            if rank is None and K.shape[0] <= GRAM_LIMIT:
                if check_psd:
                    kernels.check_psd(K)
                self.gram = K
                self._factor = None
            else:
                self.gram = None
                self._factor = kernels.factor(K, rank=rank)
        self.n_samples = K.shape[0] if features is None else self.factor.shape[0]
        if labelset.n_samples != self.n_samples:
            raise ValueError(
                f"`labelset` has {labelset.n_samples} points but the kernel/features have "
                f"{self.n_samples} rows."
            )
        self.labelset = labelset
        self.formulation = formulation.bind(labelset)
        self._set_box()
        self._check_box_matches_dual()
        if y_true is not None:
            y_true = np.asarray(check_real(y_true, "y_true"), dtype=float)
            if y_true.shape != (self.n_samples,) or not np.all(np.isin(y_true, (-1.0, 1.0))):
                raise ValueError(
                    f"`y_true` must be a ±1 vector of length {self.n_samples}. Got shape "
                    f"{y_true.shape} with values {np.unique(y_true)[:5]}."
                )
        self.y_true = y_true
        self.name = name or type(labelset).__name__

    def _check_box_matches_dual(self):
        """A user formulation's fast path (``box()``) and its CVXPY ``dual()`` must give the
        same ``J``: compared once on the label set's first labeling, up to
        :data:`BOX_CHECK_MAX_N` points (the built-in formulations are tested instead)."""
        if self.costs is None or self.n_samples > BOX_CHECK_MAX_N or \
                type(self.formulation).__module__ == "weakcvx.formulations":
            return
        b = self.labelset.initial(random_state=0)
        fast, reference = self.J(b)[0], self.J_cvxpy(b)[0]
        if abs(fast - reference) > BOX_CHECK_RTOL * max(1.0, abs(reference)):
            name = type(self.formulation).__name__
            raise ValueError(f"`formulation`: {name}.box() and {name}.dual() describe different "
                             f"problems: on the label set's first labeling J = {fast:.6g} by the "
                             f"box QP of box() and {reference:.6g} by the CVXPY model of dual(). "
                             "box() must return the bounds (and shift) of dual()'s domain and "
                             "objective, or None.")

    def with_labelset(self, labelset):
        """This problem with another label set whose bound formulation has the same fast path
        (box and shift), e.g. another count of positives for the same labeled points: the
        kernel, its factor and the box are shared, not rebuilt.

        Raises
        ------
        ValueError
            When ``labelset`` has another number of points or changes the box or the shift
            (build a new :class:`WeakLabelProblem` then).
        """
        changed = copy.copy(self)
        changed.labelset = labelset
        changed.formulation = self.formulation.bind(labelset)
        if labelset.n_samples != self.n_samples or not _same_box(
                self.formulation.box(), changed.formulation.box()):
            raise ValueError("`labelset` must keep the problem's points and box (the costs and "
                             "shift of its formulation); build a new WeakLabelProblem instead. "
                             f"Got {labelset!r}.")
        return changed

    def _set_box(self):
        """The fast path of the formulation: ``costs`` (the box) and the diagonal ``shift``
        folded into the kernel (``Q_b + diag(shift)`` is the label kernel of ``K + diag(shift)``
        when the dual variables are the points themselves); ``costs = None`` without one."""
        box = self.formulation.box()
        self.shift = None
        self._base_factor = None
        if box is None:
            m = self.n_samples if self.labelset.identity_support else \
                len(self.support(self.labelset.initial(random_state=0))[0])
            _check_dual(self.formulation, m)
        if box is not None and box[1] is not None and not self.labelset.identity_support:
            box = None  # the shift would depend on b: the CVXPY path
        if box is None:
            self.costs = None
            return
        _check_box(self.formulation, box, self.n_samples)
        upper, shift = box
        self.costs = np.asarray(upper, dtype=float)
        if shift is None:
            return
        self.shift = np.asarray(shift, dtype=float)
        self._base_factor = self._factor  # the factor of K without the shift, when built
        if self.gram is not None:
            self.gram = self.gram + np.diag(self.shift)
            self.kernel = self.gram
            return
        if self.kernel is not None:
            self.kernel = self.kernel + np.diag(self.shift)
        # [R, diag(√shift)] (n, r + n), sparse: R Rᵀ + diag(shift)
        R = self._factor
        self._factor = sp.hstack([sp.csr_matrix(R), sp.diags(np.sqrt(self.shift))],
                                 format="csr")

    @property
    def fast(self):
        """Whether the formulation has a box fast path (else every α-step is a CVXPY solve)."""
        return self.costs is not None

    @property
    def factor(self):
        """``R`` with ``K ≈ R Rᵀ``: the features (linear kernel), the exact eigen-factor of
        ``K``, or its rank-``rank`` pivoted Cholesky; built on first access when the solvers
        work on ``gram``."""
        if self._factor is None:
            self._factor = kernels.factor(self.kernel, rank=self._rank)
        return self._factor

    @property
    def box_factor(self):
        """The factor to hand to :func:`~weakcvx.svm.solve_box_qp` beside ``gram``: ``None``
        when the solvers can work on ``gram`` alone and the factor has not been built."""
        return self._factor if self.gram is not None else self.factor

    def kernel_dot(self, v):
        """``K v`` for a vector or an (n, k) block: ``gram @ v``, or ``R (Rᵀ v)`` in
        ``O(n·r)`` without forming ``K``."""
        if self.gram is not None:
            return gram_dot(self.gram, v)
        R = self.factor
        return np.asarray(R @ np.asarray(R.T @ v))

    # -- label kernels ------------------------------------------------------------------------
    def support(self, b):
        """``(rows, signs)`` of the label kernel of ``b`` (see the label-set protocol)."""
        rows, signs = self.labelset.support(b)
        return np.asarray(rows, dtype=np.int64), np.asarray(signs, dtype=float)

    def stack(self, working_set):
        """Stack the supports of a list of labelings into ``(rows (T, m), signs (T, m))``."""
        supports = [self.support(b) for b in working_set]
        rows = np.ascontiguousarray(np.stack([s[0] for s in supports]))
        signs = np.ascontiguousarray(np.stack([s[1] for s in supports]))
        return rows, signs

    def kernel_matrix(self):
        """The dense kernel the solvers use (small problems only): ``K`` itself, or ``R Rᵀ``
        when the problem was built with ``rank=r`` or from features. The fast paths, ``J`` and
        branch and bound all work on ``R Rᵀ`` then, so the CVXPY models built from this matrix
        (the SDP rung, the references of the tests) bound the same mixed-integer problem
        rather than the one of the exact kernel (``R Rᵀ ⪯ K``: its SDP would be looser)."""
        if self.gram is not None:
            return self.gram
        if self.kernel is not None and self._rank is None:
            return self.kernel
        R = self.factor
        K = R @ R.T
        return K.toarray() if sp.issparse(K) else np.asarray(K)

    def label_kernel(self, b):
        """Dense ``Q_b`` (small problems, tests and CVXPY references only)."""
        rows, signs = self.support(b)
        K = self.kernel_matrix()
        return signs[:, None] * K[np.ix_(rows, rows)] * signs[None, :]

    def quadratic(self, alpha, b):
        """``αᵀ Q_b α = ‖R_bᵀ α‖² = aᵀ K a`` (``a = Σ_i α_i s_i e_{rows_i}``) without forming
        Q_b."""
        rows, signs = self.support(b)
        coef = np.bincount(rows, weights=alpha * signs, minlength=self.n_samples)
        if self.gram is not None:
            return float(coef @ gram_dot(self.gram, coef))
        v = np.asarray(self.factor.T @ coef).ravel()
        return float(np.dot(v, v))

    # -- the SVM value of one labeling ---------------------------------------------------------
    def J(self, b, alpha0=None, tol=None, max_epochs=5000):
        """SVM objective ``J(b)`` of a labeling and the dual solution.

        Returns the primal value at the solver's solution (an upper estimate of ``J(b)`` whose
        gap is below the solver tolerance), so it is a valid upper bound of the MIP whatever the
        tolerance. ``tol`` (projected gradient) defaults to 1e-6, or 1e-3 above 20,000 points
        where the last digits cost most of the time. A descent that reaches ``max_epochs`` is
        continued without shrinking and, on up to ``J_REFERENCE_LIMIT`` dual variables,
        restarted from the interior-point reference's α (whose own primal value and a Newton
        polish of it compete too): its primal value would otherwise be a loose upper bound,
        not ``J(b)``. Above ``J_REFERENCE_LIMIT`` dual variables this is done only when the
        duality gap exceeds ``J_LOOSE_GAP`` (relative), where the refinement would cost more
        than the fit. Up to ``J_REFERENCE_LIMIT`` dual variables a converged descent whose gap
        exceeds ``J_TIGHT_GAP · max(1, |value|)`` continues at a smaller tolerance (large
        costs), so that ``value`` is ``J(b)`` to about 1e-7 of ``max(1, J)`` there.

        Parameters
        ----------
        b : array-like of shape (n_samples,)
            A labeling: a ±1 vector (an element of the label set gives an upper bound of the
            MIP).

        Returns
        -------
        value : float
        alpha : ndarray (m,)

        Raises
        ------
        ValueError
            When ``b`` is not a ±1 vector of shape (n_samples,).
        """
        self._check_labeling(b)
        if not self.fast:
            return self.J_cvxpy(b)
        rows, signs = self.support(b)
        if tol is None:
            tol = 1e-6 if self.n_samples <= 20000 else 1e-3
        with warnings.catch_warnings():
            # at max_epochs the primal value is still a valid upper bound of J(b)
            warnings.simplefilter("ignore", ConvergenceWarning)
            sol = solve_box_qp(self.box_factor, rows, signs, self.costs, alpha0=alpha0, tol=tol,
                               max_epochs=max_epochs, gram=self.gram, shift=self.shift)
            if not sol.converged and (
                    len(rows) <= J_REFERENCE_LIMIT
                    or sol.gap > J_LOOSE_GAP * max(1.0, abs(sol.primal_value))):
                sol = self._refine(b, rows, signs, sol, tol, max_epochs)
            if len(rows) <= J_REFERENCE_LIMIT:
                sol = self._tighten(rows, signs, sol, tol, max_epochs)
        return float(sol.primal_value), sol.alpha

    def label_factor(self, b):
        """``G_b`` with ``Q_b = G_b G_bᵀ`` (without the fast path's diagonal shift), dense
        (m, r) or sparse: ``diag(s) R[rows]``
        (CVXPY models; the dense factor of ``gram`` is built on first use)."""
        rows, signs = self.support(b)
        R = self.factor if self.shift is None else self._unshifted_factor()
        return sp.diags(signs) @ R[rows] if sp.issparse(R) else signs[:, None] * R[rows]

    def _unshifted_factor(self):
        """A factor of the kernel without the fast path's diagonal shift (for the CVXPY
        reference, whose ``f`` carries that term itself)."""
        if self._base_factor is None:
            self._base_factor = kernels.factor(self.kernel - np.diag(self.shift))
        return self._base_factor

    def J_cvxpy(self, b, solver=None):
        r"""``J_F(b) = max_{α ∈ A} f(α) − ½‖G_bᵀα‖²`` as a CVXPY problem: the readable
        reference of every α-step, for any formulation (the fast path is tested against it).

        Returns the solver's optimal value (exact up to the solver's tolerance) and α.

        Raises
        ------
        SolverError
            When no installed solver returns an optimal solution.
        """
        self._check_labeling(b)
        prob, alpha, sign = self._J_model(b)
        if sign is not None:
            sign.value = np.asarray(b, dtype=float)
        try:
            solve_model(prob, solver, SOCP_ORDER, "J_F(b) (WeakLabelProblem.J_cvxpy)")
        except SolverError as exc:
            raise self._formulation_error(exc) from exc
        return float(prob.value), np.asarray(alpha.value, dtype=float).ravel()

    def _formulation_error(self, exc):
        """``exc`` with the formulation named when its status says the model itself is at
        fault: an empty domain A (infeasible), or f unbounded on A for this labeling."""
        name = type(self.formulation).__name__
        if exc.status.startswith("infeasible"):
            hint = (f"the domain A of {name}.dual() is empty (its constraints admit no α); "
                    "check them")
        elif exc.status.startswith("unbounded"):
            hint = (f"the objective of {name}.dual() is unbounded on its domain for this "
                    "labeling, e.g. a hard margin (α without an upper bound) on a labeling the "
                    "kernel cannot separate: bound α (a finite C)")
        else:
            return exc
        return SolverError(exc.solver, exc.status, f"J_F(b) (WeakLabelProblem.J_cvxpy): {hint}")

    def _J_model(self, b):
        """The CVXPY model of ``J_F(b)``: built once with the labels as a parameter when the
        label kernels are ``K ∘ bbᵀ`` (re-solved without recompiling), else per call."""
        import cvxpy as cp

        if self.labelset.identity_support:
            if getattr(self, "_J_cache", None) is None:
                alpha, sign = cp.Variable(self.n_samples), cp.Parameter(self.n_samples)
                f, constraints = self.formulation.dual(alpha)
                R = self.factor if self.shift is None else self._unshifted_factor()
                w = R.T @ cp.multiply(sign, alpha)  # R_bᵀα with R_b = diag(b) R
                prob = cp.Problem(cp.Maximize(f - 0.5 * cp.sum_squares(w)), constraints)
                self._J_cache = (prob, alpha, sign)
            return self._J_cache
        alpha = cp.Variable(len(self.support(b)[0]))
        f, constraints = self.formulation.dual(alpha)
        G = self.label_factor(b)
        prob = cp.Problem(cp.Maximize(f - 0.5 * cp.sum_squares(G.T @ alpha)), constraints)
        return prob, alpha, None

    def dual_value(self, alpha, b):
        """``G(α, Q_b) = f(α) − ½ αᵀQ_bα`` at a given α (``f`` evaluated through CVXPY for
        formulations without a fast path)."""
        return self.f(alpha) - 0.5 * self.quadratic(alpha, b)

    def f(self, alpha):
        """``f(α)`` of the formulation (``1ᵀα`` on the fast path, where the shift is in the
        kernel)."""
        if self.fast:
            return float(np.sum(alpha))
        import cvxpy as cp

        a = cp.Variable(len(alpha))
        a.value = np.asarray(alpha, dtype=float)
        objective, _ = self.formulation.dual(a)
        return float(objective.value)

    def _check_labeling(self, b):
        """Refuse a ``b`` that is not a ±1 vector of shape (n_samples,): its "label kernel"
        would be that of no labeling (``np.zeros(n)`` gave ``J = Σ c_i``)."""
        check_real(b, "b")
        try:
            values = np.asarray(b, dtype=float)
        except (TypeError, ValueError):
            values = None
        if values is None or values.shape != (self.n_samples,) \
                or not np.all((values == 1.0) | (values == -1.0)):
            found = f"shape {np.shape(b)}" if values is None or values.shape != (
                self.n_samples,) else f"values {np.unique(values)[:5]}"
            raise ValueError(f"`b` must be a labeling: a vector of +1/-1 of shape "
                             f"({self.n_samples},). Got {found} instead.")

    def _refine(self, b, rows, signs, sol, tol, max_epochs):
        """A coordinate descent stopped by ``max_epochs`` can leave its primal value far above
        ``J(b)`` (shrinking can strand it). Up to ``J_REFERENCE_LIMIT`` dual variables, start
        again from the interior-point reference's α and polish it without shrinking; above,
        continue without shrinking, warm. The order was chosen on ProportionSVM label
        generation (docs/design.rst §3.2). On features or a built factor R the reference models
        ½‖Gᵀα‖², G = diag(s) R[rows].
        Returns the solution with the smallest primal value (each is an upper bound of J)."""
        if len(rows) > J_REFERENCE_LIMIT:
            more = solve_box_qp(self.box_factor, rows, signs, self.costs, alpha0=sol.alpha,
                                tol=tol, max_epochs=4 * max_epochs, shrinking=False,
                                gram=self.gram, shift=self.shift)
            return min(sol, more, key=lambda s: s.primal_value)
        alpha_ref = self._reference_alpha(b, rows, signs)
        if alpha_ref is None:
            alpha_ref = sol.alpha
        alpha_ref = np.clip(alpha_ref, 0.0, self.costs)
        box = {"gram": self.gram, "shift": self.shift}
        # the reference's own bounds: a descent from it can end with a larger primal value
        at_reference = solve_box_qp(self.box_factor, rows, signs, self.costs, alpha0=alpha_ref,
                                    max_epochs=0, **box)
        polished = solve_box_qp(self.box_factor, rows, signs, self.costs, alpha0=alpha_ref,
                                tol=tol, max_epochs=max_epochs, shrinking=False, **box)
        candidates = [sol, at_reference, polished]
        try:  # Newton steps on the free face, whatever the conditioning (Q ⪰ 0 may be singular)
            newton = solve_box_qp_newton(self.label_kernel(b), self.costs, alpha0=alpha_ref,
                                         tol=tol)
        except (np.linalg.LinAlgError, ValueError):
            newton = None
        if newton is not None:  # its bounds as every solution here has them (shift included)
            candidates.append(solve_box_qp(self.box_factor, rows, signs, self.costs,
                                           alpha0=np.clip(newton.alpha, 0.0, self.costs),
                                           max_epochs=0, **box))
        return min(candidates, key=lambda s: s.primal_value)

    def _reference_alpha(self, b, rows, signs):
        """The interior-point solution α of ``J(b)``'s box QP, or None when no model solves:
        on ``Q = G Gᵀ``, ``G = diag(s) R[rows]``, when a factor of fewer columns than dual
        variables is at hand (d, not m², quadratic entries), else on ``Q`` itself, then on
        the other form (CLARABEL failed on ``Q`` of a rank-2 kernel with entries of 6e4 that
        the factor form solves)."""
        # the features or a factor given with the problem; not a factor a solve built on the
        # way (box_factor), so that a solve does not depend on the ones before it
        R = self._factor if self.gram is None else None

        def on_factor():  # with gram, a factor of this call only (not stored: see R)
            F = R if R is not None else kernels.factor(self.kernel, rank=self._rank)
            G = sp.diags(signs) @ F[rows] if sp.issparse(F) else signs[:, None] * F[rows]
            return box_qp_cvxpy(None, self.costs, factor=G)[1]

        def on_kernel():
            return box_qp_cvxpy(self.label_kernel(b), self.costs)[1]

        models = (on_factor, on_kernel) if R is not None and R.shape[1] < len(rows) \
            else (on_kernel, on_factor)
        for model in models:
            try:
                return model()
            except SolverError:
                continue
        return None

    def _tighten(self, rows, signs, sol, tol, max_epochs):
        """Continue a converged descent, warm, with a 100 times smaller tolerance while its gap
        exceeds ``J_TIGHT_GAP`` (relative; see there); the smallest primal value is kept."""
        for _ in range(J_TIGHTEN_ROUNDS):
            if not sol.converged or sol.gap <= J_TIGHT_GAP * max(1.0, abs(sol.primal_value)):
                break
            tol = tol / 100.0
            more = solve_box_qp(self.box_factor, rows, signs, self.costs, alpha0=sol.alpha,
                                tol=tol, max_epochs=max_epochs, gram=self.gram,
                                shift=self.shift)
            if more.primal_value >= sol.primal_value:
                break
            sol = more
        return sol

    def dual_coef(self, alpha, working_set, mu):
        """Coefficients ``β`` over the training points with ``f(x) = Σ_i β_i k(x_i, x)``:
        ``β = Σ_t μ_t Σ_j α_j s_tj e_{rows_tj}`` (WellSVM's prediction function)."""
        beta = np.zeros(self.n_samples)
        for mu_t, b in zip(mu, working_set):
            rows, signs = self.support(b)
            np.add.at(beta, rows, mu_t * alpha * signs)
        return beta

    def decision_scores(self, alpha, working_set, mu):
        """Training scores ``f(x_j) = Σ_t μ_t Σ_i α_i s_ti k(x_{rows_ti}, x_j)`` for all points
        (the kernel with its offset ``ρ``, without the squared hinge's diagonal shift)."""
        beta = self.dual_coef(alpha, working_set, mu)
        scores = np.asarray(self.kernel_dot(beta)).ravel()
        if self.shift is not None:
            scores = scores - self.shift * beta
        return scores

    def __repr__(self):
        kind = "linear features" if self.kernel is None else "kernel"
        return (f"WeakLabelProblem(name={self.name!r}, n_samples={self.n_samples}, {kind}, "
                f"labelset={type(self.labelset).__name__})")
