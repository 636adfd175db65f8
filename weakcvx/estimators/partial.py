"""Partial-label SVM (Nguyen & Caruana 2008): PL-Pegasos, with a CCCP reference."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted

from .. import kernels
from .._validation import check_classes, check_ids
from ..partial import (check_candidates, check_informative, pl_cccp, pl_pegasos_kernel,
                       pl_pegasos_linear)
from ._base import (KERNEL_CONSTRAINTS, KernelModelMixin, logger, standardization,
                    standardize_wanted, standardized, verbose_logging)

#: Default floor on the number of PL-Pegasos steps (see ``min_steps``).
MIN_STEPS = 1000

#: Default fraction of the PL-Pegasos epochs run on the convex warm-up loss (see ``warmup``).
WARMUP = 0.25

#: Further PL-Pegasos runs (fresh batches from the same random stream) when a run disambiguates
#: no row to a class that is a candidate of some row: on ambiguous data (make_classification,
#: 3 classes, two candidates on every row) such runs sit in a local minimum of higher objective
#: with the class absorbed by the others; the run of lowest objective is kept.
DEAD_CLASS_RESTARTS = 2

#: ``lam=None`` is ``λ = 1 / (DEFAULT_C · n)``: the cost per point of an SVM, chosen among 1, 3
#: and 10 with the RBF kernel on nine multi-class sets (docs/methods/partial.rst).
DEFAULT_C = 3.0


def _dead_classes(labels, C):
    """Classes that are a candidate of some row but that no row is disambiguated to."""
    assigned = np.bincount(labels, minlength=C.shape[1]) > 0
    return np.flatnonzero(C.any(axis=0) & ~assigned)


def _is_set(value):
    return isinstance(value, (set, frozenset))


def _holds_sets(candidates):
    """Whether ``candidates`` is a sequence of Python sets (one candidate set per point): a
    list or tuple, or a 1-D container of dtype object such as a NumPy array or a pandas
    ``Series`` (read as class labels, a Series of sets made every distinct set a class)."""
    if isinstance(candidates, (list, tuple)):
        return any(_is_set(v) for v in candidates)
    if sp.issparse(candidates) or getattr(candidates, "dtype", None) != object or \
            np.ndim(candidates) != 1:
        return False
    return any(_is_set(v) for v in np.asarray(candidates, dtype=object))


def _candidates_from_sets(sets, n_samples, classes, name="candidates"):
    """``(classes_, C)`` from one Python set of class labels per point."""
    sets = list(sets)
    if len(sets) != n_samples:
        raise ValueError(f"`{name}` given as sets must have one set per row of X ({n_samples}). "
                         f"Got {len(sets)} instead.")
    not_sets = [i for i, v in enumerate(sets) if not _is_set(v)]
    if not_sets:
        i = not_sets[0]
        raise ValueError(f"`{name}` given as sets must hold a set for every row. Got "
                         f"{type(sets[i]).__name__} {sets[i]!r} at row {i}.")
    empty = [i for i, v in enumerate(sets) if not v]
    if empty:
        raise ValueError(f"`{name}` must have a non-empty candidate set on every row (the true "
                         f"class is a candidate). Got {len(empty)} empty sets, the first at row "
                         f"{empty[0]}.")
    # an object array keeps 0 and "0" apart (np.array would turn both into strings)
    labels = np.empty(sum(len(v) for v in sets), dtype=object)
    labels[:] = [label for v in sets for label in v]
    found, _ = check_ids(labels, name, what="class labels")
    if found.dtype == object:
        found = np.array(found.tolist())
    classes_ = found if classes is None else np.asarray(classes)
    missing = np.setdiff1d(found, classes_)
    if missing.size:
        raise ValueError(f"`classes` must contain every label of `{name}`. Missing "
                         f"{missing.tolist()}.")
    column = {label: j for j, label in enumerate(classes_.tolist())}
    C = np.zeros((n_samples, classes_.size), dtype=bool)
    for i, v in enumerate(sets):
        C[i, [column[label] for label in v]] = True
    return classes_, C


def _column_names(candidates):
    """The column names of a 2-D DataFrame (e.g. from ``pd.get_dummies``), else None."""
    if not hasattr(candidates, "columns") or np.ndim(candidates) != 2:
        return None
    return np.asarray(candidates.columns)


def _columns_by_name(candidates, classes, name="y"):
    """The values of the DataFrame ``candidates``, its columns reordered by name to
    ``classes``; a class without a column is a column of False (no row has it as a candidate:
    ``pd.get_dummies`` of a fold that lacks the class)."""
    names = _column_names(candidates).tolist()
    column = {label: j for j, label in enumerate(classes.tolist())}
    repeated = sorted({label for label in names if names.count(label) > 1}, key=str)
    if repeated:
        raise ValueError(f"`{name}` given as a DataFrame must name every column once. Got "
                         f"repeated column names {repeated}.")
    extra = [label for label in names if label not in column]
    if extra:
        missing = [label for label in column if label not in names]
        raise ValueError(f"`{name}` given as a DataFrame must have column names among "
                         f"`classes_` {classes.tolist()} (the column names of the DataFrame "
                         f"given to fit). Got columns {extra} that are not classes"
                         + (f"; no column for {missing}" if missing else "") + ".")
    values = np.asarray(candidates)
    full = np.zeros((values.shape[0], classes.size), dtype=values.dtype)
    full[:, [column[label] for label in names]] = values
    return full


def _candidates_from_target(candidates, n_samples, classes):
    """``(classes_, C)`` from a candidate matrix, or from a 1-D vector of class labels (every
    point fully labeled: one True per row)."""
    if candidates is None:
        raise ValueError("This estimator requires y to be passed, but the target y is None: give "
                         "`candidates`, a boolean (n_samples, n_classes) matrix (or class "
                         "labels).")
    if _holds_sets(candidates):
        classes_, C = _candidates_from_sets(candidates, n_samples, classes)
        if classes_.size < 2:
            raise ValueError(f"`candidates` must contain at least two classes. Got "
                             f"{classes_.tolist()}.")
        return classes_, check_informative(C)
    try:
        arr = np.asarray(candidates) if not hasattr(candidates, "toarray") else candidates
    except ValueError as exc:  # ragged nested lists
        raise ValueError("`candidates` must be a boolean (n_samples, n_classes) matrix, class "
                         "labels, or one Python set of labels per row. Got rows of different "
                         f"lengths ({exc}).") from exc
    if getattr(arr, "ndim", 0) == 1:
        if arr.shape[0] != n_samples:
            raise ValueError(f"`candidates` given as class labels must have one entry per row of "
                             f"X ({n_samples}). Got {arr.shape[0]} instead.")
        if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
            raise ValueError("`candidates` given as class labels must not contain NaN or inf.")
        if type_of_target(arr) == "continuous":
            raise ValueError("Unknown label type: continuous. `candidates` given as a 1-D array "
                             "must hold class labels.")
        found = check_classes(arr, "candidates")
        classes_ = found if classes is None else np.asarray(classes)
        missing = np.setdiff1d(found, classes_)
        if missing.size:
            raise ValueError(f"`classes` must contain every label of `candidates`. Missing "
                             f"{missing.tolist()}.")
        if classes_.size < 2:
            raise ValueError(f"`candidates` must contain at least two classes. Got "
                             f"{classes_.tolist()}.")
        C = arr[:, None] == classes_[None, :]
        return classes_, check_informative(C)
    C = check_informative(check_candidates(arr, n_samples=n_samples))
    if classes is None:
        classes = _column_names(candidates)  # a DataFrame (pd.get_dummies): its labels
    if classes is None:
        return np.arange(C.shape[1]), C
    classes_ = np.asarray(classes)
    if classes_.ndim != 1 or classes_.size != C.shape[1] or np.unique(classes_).size != \
            classes_.size:
        raise ValueError(f"`classes` must hold {C.shape[1]} distinct labels, one per column of "
                         f"`candidates`. Got {classes!r}.")
    return classes_, C


class PartialLabelSVM(KernelModelMixin, ClassifierMixin, BaseEstimator):
    r"""Multiclass SVM trained on candidate label sets (PL-SVM, Nguyen & Caruana 2008).

    Point ``i`` comes with a candidate set ``Y_i`` that contains its class (``|Y_i| = 1``: a
    fully labeled point). With Crammer–Singer scores ``s_ic = w_c · φ(x_i)`` the estimator
    minimises

    .. math::

        P(W) = \frac{λ}{2}\sum_c\|w_c\|^2 + \frac1n\sum_i \max\Bigl(0,\ 1 −
               \bigl(\max_{c∈Y_i} s_{ic} − \max_{c∉Y_i} s_{ic}\bigr)\Bigr)

    and predicts ``argmax_c s_c(x)``.

    Parameters
    ----------
    solver : {"pegasos", "cccp"}, default="pegasos"
        ``"pegasos"``: PL-Pegasos (the paper's Algorithm 1), mini-batch stochastic sub-gradient
        with step ``1/(λt)`` and projection on the ball of radius ``1/√λ``; vectorised over the
        batch; sparse input stays sparse with the linear and RBF kernels; the kernel form keeps one
        coefficient per (point, class). ``"cccp"``: the concave-convex procedure with every
        convex step solved in CVXPY — the slow reference for small data (dense features, or a
        factor of the kernel matrix).
    kernel : {"rbf", "linear", "poly"}, default="rbf"
        The paper uses ``(xᵀz + 1)^d`` with ``d`` in 1..5 (``kernel="poly"``, ``gamma=1``).
        From ``RBF_FACTOR_MIN_ROWS`` (5,000) rows, or above the memory budget, the RBF and
        polynomial kernels enter through a pivoted-Cholesky factor of at most 1,000 columns
        (PL-Pegasos on its Nyström features; the same steps as the kernel form, in ``O(n·r)``
        memory). The RBF default was chosen over the linear kernel on nine multi-class sets
        (docs/methods/partial.rst, "Measurements behind the defaults").
    lam : float or None, default=None
        Regularisation λ > 0, on the standardized features when ``standardized_`` is True.
        ``None``: ``λ = 1 / (DEFAULT_C · n)`` on ``n`` training rows, the regularisation of an
        SVM with cost ``C = DEFAULT_C`` = 3 per point (``½‖w‖² + C Σ_i loss_i``, divided by
        ``C n``), so that it does not grow with the data. The value used is ``lam_``. Chosen
        on nine multi-class sets (docs/methods/partial.rst, "Measurements behind the
        defaults").
    standardize : bool or "auto", default="auto"
        Center and scale every feature to unit variance inside ``fit`` (sparse input stays
        sparse: PL-Pegasos centers it implicitly; ``intercept_scaling=0``: scale only, so that
        the model keeps no offset). The linear model is mapped back, so ``coef_``,
        ``intercept_`` and ``decision_function`` are on the features as given; with
        ``kernel="poly"`` or ``"rbf"`` the kernel is taken between standardized points.
        PL-Pegasos' first steps scale with ``max ‖x‖² / λ``: on raw features of large scale
        its default budget can return a near-chance model, and λ means something different
        on every data set (docs/methods/partial.rst, "Using it"). ``False`` uses the
        features as given. ``"auto"`` standardizes unless every non-zero row has the same
        Euclidean norm (rows already normalized, e.g. tf-idf, whose rarest terms per-column
        scaling would weigh the most; docs/methods/partial.rst, "Normalized rows");
        ``standardized_`` records which.
    degree : int, default=3
        Degree of the polynomial kernel.
    gamma : "mean_distance", "scale" or float, default="mean_distance"
        RBF width (``1 / mean squared pairwise distance`` by default); for ``kernel="poly"``
        the same width scales ``xᵀz`` in ``(γ xᵀz + coef0)^degree``, resolved on the
        standardized rows (``gamma=1`` is the paper's kernel). The resolved width was chosen
        on digits and wine (docs/methods/partial.rst, "Measurements behind the defaults").
    coef0 : float, default=1.0
        Constant of the polynomial kernel.
    intercept_scaling : float, default=1.0
        Value of a constant feature that models one offset per class (``k ← k + s²``),
        regularised like the other weights; 0 for no offset.
    max_iter : int, default=20
        Epochs of PL-Pegasos (at least; see ``min_steps``), or maximum CCCP rounds.
    batch_size : int, default=16
        Points per PL-Pegasos step: with the default λ ~ 1/n the steps, not the epochs, bound
        the convergence. ``batch_size ≥ n_samples`` is the paper's full-batch Algorithm 1.
        Chosen on nine multi-class sets (docs/methods/partial.rst, "Measurements behind the
        defaults").
    min_steps : int, default=1000
        Floor on the number of PL-Pegasos steps: when ``max_iter`` epochs hold fewer steps
        (``ceil(n / batch_size)`` per epoch), more epochs are run. PL-Pegasos converges in the
        number of steps, and on small data ``max_iter`` epochs hold too few of them
        (docs/methods/partial.rst, "Using it"). Ignored by CCCP.
    average : bool, default=True
        Return the average of the PL-Pegasos iterates of the second half of the run.
    warmup : float in [0, 1], default=0.25
        Fraction of the PL-Pegasos epochs (the first ones) that minimise the convex upper
        bound of the PL loss with the candidates' mean score in place of their maximum,
        ``max(0, 1 − (mean_{c∈Y_i} s_ic − max_{c∉Y_i} s_ic))``, before the PL loss itself.
        The PL loss is not convex, and from ``W = 0`` its steps favour the candidate of lowest
        index and can leave a class that no point is assigned to (a local minimum of higher
        objective); the warm-up gives every candidate the same push first. 0 is the paper's
        algorithm. Ignored by CCCP. Chosen on nine multi-class sets and ambiguous draws
        (docs/methods/partial.rst, "Measurements behind the defaults").
    tol : float, default=1e-6
        CCCP stops when the objective decreases by less than ``tol · max(1, P)``.
    cccp_solver : str, default="CLARABEL"
        CVXPY solver of the CCCP convex steps.
    random_state : int, RandomState or None, default=None
        Batch order of PL-Pegasos; initial candidate choice of CCCP.
    verbose : int, default=0
        ≥ 1 logs one line per epoch / round on the ``"weakcvx"`` logger.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (n_classes, n_features)
        ``w_c`` on the features as given (linear kernel).
    dual_coef_ : ndarray of shape (n_support, n_classes)
        ``B`` with ``w_c = Σ_i B_ic φ(x_i)`` over the support points ``X_fit_`` (poly, rbf).
    X_fit_ : ndarray of shape (n_support, n_features)
        The support points, standardized when ``standardized_`` is True (poly, rbf).
    intercept_ : ndarray of shape (n_classes,)
    lam_ : float
        The regularisation λ of the fit (``lam``, or its default resolved on the rows).
    kernel_rank_ : int or None
        Columns of the kernel factor on the factor path (see ``kernel``); None otherwise.
    standardized_ : bool
        Whether ``fit`` standardized the features (see ``standardize``).
    mean_, scale_ : ndarray of shape (n_features,)
        The standardization ``(x − mean_) / scale_`` applied inside ``fit`` (zeros and ones
        when it did not; ``mean_`` is 0 when ``intercept_scaling=0`` and with the
        RBF kernel, whose distances a shift does not change; a constant feature keeps
        ``scale_`` 1).
    transduction_ : ndarray of shape (n_samples,)
        The disambiguated class of every training point, ``argmax_{c ∈ Y_i} s_ic``.
    objective_ : float
        ``P(W)`` of the returned model (on the standardized features when
        ``standardized_`` is True).
    n_iter_ : int
        Epochs (pegasos) or rounds (cccp).
    n_restarts_ : int
        Further PL-Pegasos runs made because a run assigned no training row to a class that
        is a candidate of some row (at most ``DEAD_CLASS_RESTARTS`` = 2; the run of lowest
        objective is the model).
    result_ : SolveResult

    See Also
    --------
    sklearn.svm.LinearSVC : ``multi_class="crammer_singer"`` is the fully labeled case.

    Notes
    -----
    The loss of a point is a difference of convex functions,
    ``max(max_{Y_i} s, 1 + max_{∉Y_i} s) − max_{Y_i} s``; it is convex only when ``|Y_i| = 1``.
    The paper calls the problem a convex QP, but it is not: both solvers find stationary
    points. CCCP fixes ``y⁺_i = argmax_{c∈Y_i} s_ic`` and solves the convex Crammer–Singer
    problem of the labels ``y⁺`` against the classes outside ``Y_i``; the objective never
    increases. A candidate set holding every class carries no information (loss 0).

    PL-Pegasos converges in objective as O(1/(λT)) (T steps). The default budget stops far
    from the optimal objective on large data although test accuracy has reached its plateau
    (docs/methods/partial.rst, "Measurements behind the defaults"); raise ``max_iter`` when
    the objective itself matters, or use ``solver="cccp"`` on small data. A
    ``ConvergenceWarning`` says when the returned objective is above that of the zero model
    (``P(0) = 1`` when every candidate set is a proper subset of the classes).

    With two classes ``decision_function`` returns ``s_1 − s_0`` (shape ``(n_samples,)``,
    positive for ``classes_[1]``), the scikit-learn convention.

    The kernel form stores the training kernel matrix (O(n²) memory) below
    ``RBF_FACTOR_MIN_ROWS`` rows and a factor of at most 1,000 columns above; the linear
    and RBF kernels keep sparse input sparse at any size (the RBF kernel from sparse products
    of the rows, scaled without centring, which leaves its distances as they are).

    References
    ----------
    N. Nguyen and R. Caruana. Classification with partial labels. KDD 2008.
    S. Shalev-Shwartz, Y. Singer, N. Srebro. Pegasos: primal estimated sub-gradient solver for
    SVM. ICML 2007.

    Examples
    --------
    >>> import numpy as np
    >>> import weakcvx as wc
    >>> from sklearn.datasets import load_digits
    >>> X, y = load_digits(return_X_y=True)
    >>> candidates = wc.datasets.make_partial_labels(y, n_candidates=2, random_state=0)
    >>> clf = wc.PartialLabelSVM(random_state=0).fit(X[:1000], candidates[:1000])
    >>> bool(clf.score(X[1000:], y[1000:]) > 0.85)
    True

    ``score`` also takes candidate sets: the fraction of predictions inside them.

    >>> bool(clf.score(X[1000:], candidates[1000:]) >= clf.score(X[1000:], y[1000:]))
    True
    """

    #: Peak of ``fit`` in n × n arrays, by ``tracemalloc``, rounded up (see KernelModelMixin;
    #: docs/design.rst §7).
    _fit_kernel_copies = 3
    #: Sparse rows stay sparse with the RBF kernel too: every use of the rows (the width, the
    #: kernel, its factor's columns, prediction) goes through ``kernels.rbf``, and scaling
    #: without centring leaves its distances as they are.
    _sparse_kernels = ("linear", "rbf")

    _parameter_constraints = {
        "solver": [StrOptions({"pegasos", "cccp"})],
        **KERNEL_CONSTRAINTS,
        "kernel": [StrOptions({"linear", "poly", "rbf"})],
        "lam": [Interval(Real, 0, None, closed="neither"), None],
        "standardize": ["boolean", StrOptions({"auto"})],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "min_steps": [Interval(Integral, 0, None, closed="left")],
        "average": ["boolean"],
        "warmup": [Interval(Real, 0, 1, closed="both")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "cccp_solver": [str],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(self, solver="pegasos", kernel="rbf", lam=None, standardize="auto", degree=3,
                 gamma="mean_distance", coef0=1.0, intercept_scaling=1.0, max_iter=20,
                 batch_size=16, min_steps=MIN_STEPS, average=True, warmup=WARMUP, tol=1e-6,
                 cccp_solver="CLARABEL", random_state=None, verbose=0):
        self.solver = solver
        self.kernel = kernel
        self.lam = lam
        self.standardize = standardize
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.intercept_scaling = intercept_scaling
        self.max_iter = max_iter
        self.batch_size = batch_size
        self.min_steps = min_steps
        self.average = average
        self.warmup = warmup
        self.tol = tol
        self.cccp_solver = cccp_solver
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        return tags

    def _check_cccp_solver(self):
        """``cccp_solver`` must name a CVXPY solver installed here: refused before the fit,
        not as a failure of its first convex step."""
        import cvxpy as cp

        installed = cp.installed_solvers()
        if not isinstance(self.cccp_solver, str) or self.cccp_solver.upper() not in installed:
            raise ValueError(f"`cccp_solver` must be the name of an installed CVXPY solver, one "
                             f"of {installed}. Got {self.cccp_solver!r}.")

    def _fit_standardization(self, X):
        """Set ``mean_`` and ``scale_`` from the training ``X`` and return it standardized
        (sparse ``X``: scaled only; the centering is left to the solver, see ``_center``; the
        RBF kernel: scaled only, its distances do not depend on a shift, so that sparse and
        dense rows meet the same stored rows at prediction)."""
        d = X.shape[1]
        self.mean_, self.scale_ = np.zeros(d), np.ones(d)
        self.standardized_ = standardize_wanted(X, self.standardize)
        if not self.standardized_:
            return X
        mean, self.scale_ = standardization(X)
        if float(self.intercept_scaling) > 0 and self.kernel != "rbf":
            self.mean_ = mean  # sparse: PL-Pegasos centers implicitly
        return self._standardized(X)

    def _standardized(self, X):
        if not self.standardized_:
            return X
        return standardized(X, self.mean_, self.scale_)

    def _center(self, F):
        """The centering still to apply to the features ``F`` (offset column included): the
        scaled mean for sparse input (implicit in PL-Pegasos, sparse stays sparse), else none."""
        if not sp.issparse(F):
            return None
        return np.concatenate([self.mean_ / self.scale_, np.zeros(F.shape[1] - len(self.mean_))])

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, candidates, classes=None):
        """Fit on candidate label sets.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        candidates : array-like of shape (n_samples, n_classes), boolean-like; or class labels
            of shape (n_samples,); or a list of n_samples Python sets of class labels
            ``True`` where the class is possible; a row with one True is a fully labeled point.
            A 1-D array of class labels means every point is fully labeled. A list of sets,
            e.g. ``[{0, 1}, {2}, ...]``, gives each point's candidate labels (``classes_``: the
            sorted labels found, or ``classes``). Nested lists are read as the boolean matrix,
            never as lists of labels: ``[[0, 1]] * n`` is a matrix whose rows are all ``{1}``,
            and is refused (below).
        classes : array-like of shape (n_classes,), optional
            Labels of the columns of ``candidates`` (default: the column names of a
            DataFrame, e.g. from ``pd.get_dummies``, else ``0..n_classes-1``), or the labels
            of a list of sets (default: the labels found). When the column names are used,
            ``score`` reads a DataFrame of candidates by its column names too.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            If ``candidates`` is not boolean-like, has an empty candidate set, fewer than two
            columns or classes, a number of rows other than ``X``'s, mixes sets with other
            rows, or carries no information (every row the same candidate set); or, with
            ``solver="cccp"``, if ``cccp_solver`` is not an installed CVXPY solver.
        """
        X = self._validate_X(X)
        if self.solver == "cccp":
            self._check_cccp_solver()
        self.classes_, C = _candidates_from_target(candidates, X.shape[0], classes)
        # score aligns a DataFrame's columns by name only when fit read classes_ from names
        self._classes_from_columns = classes is None and _column_names(candidates) is not None
        rng = check_random_state(self.random_state)
        with verbose_logging(self.verbose):  # the solvers' progress lines reach stderr
            result = self._fit_restarting(X, C, rng)
        self.result_ = result
        self.transduction_ = self.classes_[result.labels]
        self.objective_ = float(result.value)
        self.n_iter_ = int(result.n_iter)
        return self

    def _fit_restarting(self, X, C, rng):
        """``_fit_model``, run again (at most :data:`DEAD_CLASS_RESTARTS` times, PL-Pegasos
        only) while the kept run leaves a candidate class with no row; the run of lowest
        objective is kept, its fitted attributes restored."""
        result = self._fit_model(X, C, rng)
        self.n_restarts_ = 0
        if self.solver != "pegasos":
            return result
        while self.n_restarts_ < DEAD_CLASS_RESTARTS and _dead_classes(result.labels, C).size:
            kept = (result, {k: v for k, v in vars(self).items() if k.endswith("_")})
            dead = self.classes_[_dead_classes(result.labels, C)]
            self.n_restarts_ += 1
            logger.info("PartialLabelSVM: no row disambiguated to class(es) %s (objective "
                        "%.6g); run %d of at most %d", dead.tolist(), result.value,
                        self.n_restarts_ + 1, DEAD_CLASS_RESTARTS + 1)
            result = self._fit_model(X, C, rng)
            if result.value >= kept[0].value:
                restarts = self.n_restarts_
                result = kept[0]
                vars(self).update(kept[1])
                self.n_restarts_ = restarts
        return result

    def _fit_model(self, X, C, rng):
        """Fit the model's coefficients on validated rows ``X`` and candidate matrix ``C``;
        returns the solver's result."""
        Z = self._fit_standardization(X)
        s = float(self.intercept_scaling)
        n = X.shape[0]
        self.lam_ = float(self.lam) if self.lam is not None else 1.0 / (DEFAULT_C * n)
        common = {"lam": self.lam_, "max_iter": self.max_iter, "random_state": rng,
                  "verbose": self.verbose}
        pegasos = {"batch_size": self.batch_size, "average": self.average,
                   "min_steps": self.min_steps, "warmup": self.warmup}
        if self.kernel != "linear" and self.solver == "pegasos" and \
                self._use_low_rank(Z.shape[0]):
            self._resolve_gamma(Z)
            return self._fit_factor(Z, C, s, pegasos, common)
        inputs = self._dense_problem_inputs(Z)
        if self.kernel == "linear":
            F = inputs["features"]
            center = self._center(F)
            if self.solver == "pegasos":
                result = pl_pegasos_linear(F, C, center=center, **pegasos, **common)
            else:  # CCCP works on dense features
                if center is not None:
                    F = F.toarray() - center
                result = pl_cccp(F, C, tol=self.tol, solver=self.cccp_solver, **common)
            W = result.extra["coef"]
            d = X.shape[1]
            # s_c = w_c·(x − m)/σ + b_c: map the model back to the features as given
            self.coef_ = W[:, :d] / self.scale_
            offset = s * W[:, d] if s > 0 else np.zeros(W.shape[0])
            self.intercept_ = offset - self.coef_ @ self.mean_
        else:
            K = inputs["kernel"]
            if self.solver == "pegasos":
                result = pl_pegasos_kernel(K, C, **pegasos, **common)
                B = result.extra["dual_coef"]
            else:
                R = kernels.factor(K)
                result = pl_cccp(R, C, tol=self.tol, solver=self.cccp_solver, **common)
                # w_c = Σ_i B_ic r_i: the optimal W lies in the row space of R
                B = np.linalg.lstsq(R.T, result.extra["coef"].T, rcond=None)[0]
            support = np.flatnonzero(np.any(B != 0, axis=1))
            self.dual_coef_ = B[support]
            self.X_fit_ = Z[support]
            self.support_ = support
            self.intercept_ = s * s * B.sum(axis=0)
        return result

    def _fit_factor(self, Z, C, s, pegasos, common):
        r"""PL-Pegasos in the kernel's feature space, above ``RBF_FACTOR_MIN_ROWS`` rows (or the
        memory budget): on the pivoted-Cholesky factor ``R = K[:, P] R[P]⁻ᵀ`` of the
        standardized rows ``Z`` and the offset column ``s``, the linear steps give ``w_c``;
        with the Nyström features ``r(x) = k(x, Z_P) R[P]⁻ᵀ`` the model is the kernel expansion
        ``s_c(x) = Σ_{j∈P} B_jc k(z_j, x) + b_c``, ``B = R[P]⁻ᵀ W_{:, :r}ᵀ`` (docs/design.rst
        §7), in ``O(n·r)`` memory instead of ``O(n²)``."""
        R, pivots = self._low_rank_features(Z, 0.0, return_pivots=True)
        self.kernel_rank_ = R.shape[1]
        F = np.hstack([R, np.full((R.shape[0], 1), s)]) if s > 0 else R
        result = pl_pegasos_linear(F, C, **pegasos, **common)
        W = result.extra["coef"]
        r = R.shape[1]
        self._store_nystrom(Z, R, pivots, W[:, :r].T,
                            s * W[:, r] if s > 0 else np.zeros(W.shape[0]))
        self.support_ = np.asarray(pivots)
        return result

    def _class_scores(self, X):
        """The (n_samples, n_classes) Crammer–Singer scores ``s_c(x)``."""
        check_is_fitted(self, "intercept_")
        X = self._validate_X(X, reset=False)
        if self.kernel == "linear":
            return np.asarray(X @ self.coef_.T) + self.intercept_
        return self._chunked_kernel_dot(self._standardized(X)) + self.intercept_

    def decision_function(self, X):
        """Class scores ``s_c(x) = w_c · φ(x)`` (+ offset).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes), or (n_samples,) for two classes
            With two classes, ``s_1(x) − s_0(x)``: positive means ``classes_[1]`` (the
            scikit-learn convention, e.g. for ``scoring="roc_auc"``).
        """
        S = self._class_scores(X)
        if S.shape[1] == 2:
            return S[:, 1] - S[:, 0]
        return S

    def predict(self, X):
        """The class of largest score, ``classes_[argmax_c s_c(x)]`` (ties: the first class).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "intercept_")
        return self.classes_[np.argmax(self._class_scores(X), axis=1)]

    def score(self, X, y, sample_weight=None):
        """Accuracy on class labels, or agreement with candidate sets.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), or (n_samples, n_classes) boolean-like, or a list
            of Python sets
            Class labels: the usual accuracy. A candidate matrix (columns in the order of
            ``classes_``) or a list of sets of labels: the fraction of points whose predicted
            class is one of their candidates — what can be computed on partially labeled
            validation data, so ``GridSearchCV`` and ``cross_val_score`` work on candidate
            matrices. Give them a shuffled splitter (``cv=KFold(5, shuffle=True,
            random_state=0)``): scikit-learn reads a candidate matrix as a multilabel target
            and splits an integer ``cv`` into unshuffled folds, which on rows sorted by class
            leave whole classes out of training. It equals the accuracy when every set is a
            singleton, and is never below it.

            When ``fit`` took ``classes_`` from the column names of a DataFrame, a DataFrame
            ``y`` is read by its column names, in any order. A class without a column is a
            class no row has as a candidate (a column of False): ``pd.get_dummies`` of a
            validation fold that lacks a class gives such a frame. A column whose name is not
            in ``classes_`` is an error. Any other candidate matrix (a NumPy array, a sparse
            matrix, or a DataFrame after ``fit`` on unnamed columns or with ``classes``) is
            read by position.
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        float

        Raises
        ------
        ValueError
            If a candidate matrix is not boolean-like, has an empty row, or does not have one
            column per class of ``classes_``; if a DataFrame read by column names has a column
            that is not a class, or two columns of the same name.
        """
        check_is_fitted(self, "intercept_")
        if _holds_sets(y):
            _, C = _candidates_from_sets(y, _num_rows(X), self.classes_, name="y")
        elif sp.issparse(y) or np.ndim(y) == 2:
            if getattr(self, "_classes_from_columns", False) and _column_names(y) is not None:
                y = _columns_by_name(y, self.classes_)
            C = check_candidates(y, n_samples=_num_rows(X), n_classes=len(self.classes_),
                                 name="y")
        else:
            return super().score(X, y, sample_weight=sample_weight)
        predicted = np.argmax(self._class_scores(X), axis=1)
        inside = C[np.arange(C.shape[0]), predicted]
        return float(np.average(inside, weights=sample_weight))


def _num_rows(X):
    return X.shape[0] if hasattr(X, "shape") else len(X)
