"""β-SVM (Zantedeschi, Emonet & Sebban 2016): one learner for semi-supervised, noisy,
proportion and multi-expert labels."""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions

from .. import kernels
from ..beta import (beta_from_knn, beta_from_proportions, beta_iterate, beta_semi_supervised,
                    check_beta)
from ..result import SolverError
from ._base import KERNEL_CONSTRAINTS, KernelModelMixin
from .s3vm import check_semi_supervised_target


def _two_class_target(y, n_samples):
    """Classes and ±1 labels of a fully labeled binary target."""
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n_samples:
        raise ValueError(f"`y` must be a 1-D array with one entry per row of X ({n_samples}). "
                         f"Got shape {y.shape}.")
    classes = np.unique(y)
    if classes.size != 2:
        raise ValueError(f"`y` must contain exactly two classes. Got classes "
                         f"{classes.tolist()}.")
    return classes, np.where(y == classes[1], 1.0, -1.0)


class BetaSVM(KernelModelMixin, ClassifierMixin, BaseEstimator):
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
      ``n_neighbors`` nearest other points labeled σ; all rows free.
    - ``"proportions"``: ``fit(X, bags=..., proportions=...)``; ``β_i⁺ = p_k`` in bag k.
    - ``"given"``: ``fit(X, y=None, beta=...)``; all rows free (``beta_from_votes`` turns an
      expert vote matrix into β).

    Parameters
    ----------
    init : {"ssl", "knn", "proportions", "given"}, default="ssl"
    kernel : {"rbf", "linear", "poly", "precomputed"}, default="rbf"
    C : float, default=10.0
        Cost ``c₁`` of every point (of labeled points under ``"ssl"``; the paper tunes it by
        grid search). Measured on standardized features, 10% labeled, 4 folds, RBF kernel, mean
        test accuracy over ionosphere, sonar, liver, heart, australian, pima: C = 1: 0.702,
        C = 10: 0.727, C = 100: 0.706 (``gamma="scale"`` instead: 0.702, 0.727, 0.701).
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
    solver : {"libsvm", "cvxopt"}, default="libsvm"
        P1 solver: the weighted-SVC fast path or the CVXOPT reference QP; they agree to ~1e−5
        in decision values (tests/test_beta.py) and LIBSVM is 5–12× faster at n = 120.
        Fallback: when LIBSVM stops at its iteration limit (``SolverError`` with status
        ``"max_iter"``) the fit is redone with CVXOPT, with a ``ConvergenceWarning`` saying so.
    random_state : None, int or RandomState
        Unused: the algorithm is deterministic. Kept for the common estimator interface.
    verbose : int, default=0
        Log one line per iteration on the ``"weakcvx"`` logger when positive.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    beta_ : ndarray of shape (n_samples, 2)
        The final β (the one the final hypothesis was trained on); labeled rows stay one-hot
        under ``"ssl"``.
    dual_coef_ : ndarray of shape (n_samples,)
        ``α⁺ − α⁻``.
    intercept_ : float
    coef_ : ndarray of shape (n_features,)
        Primal weights (linear kernel only).
    n_iter_ : int
        P1 fits performed (P2 steps + 1).
    converged_ : bool
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

    _parameter_constraints = {
        "init": [StrOptions({"ssl", "knn", "proportions", "given"})],
        "C": [Interval(Real, 0, None, closed="neither")],
        "C_unlabeled": [Interval(Real, 0, None, closed="neither"), None],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "solver": [StrOptions({"libsvm", "cvxopt"})],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        **{k: v for k, v in KERNEL_CONSTRAINTS.items() if k != "intercept_scaling"},
    }

    #: The offset is the β-SVM's own b, so the mixin's constant-feature offset stays off.
    intercept_scaling = 0.0

    def __init__(self, init="ssl", kernel="rbf", C=10.0, C_unlabeled=None, gamma="mean_distance",
                 degree=3, coef0=1.0, n_neighbors=4, max_iter=20, tol=1e-3, solver="libsvm",
                 random_state=None, verbose=0):
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
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = self.kernel == "linear"
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    def _initial_beta(self, X, K, y, beta, bags, proportions):
        """β⁰, the free rows, the costs and classes_ for ``init``."""
        n = X.shape[0]
        needs = {"ssl": "y", "knn": "y", "proportions": "bags` and `proportions",
                 "given": "beta"}[self.init]
        missing = {"ssl": y is None, "knn": y is None, "given": beta is None,
                   "proportions": bags is None or proportions is None}[self.init]
        if missing and needs == "y":
            raise ValueError(f"init={self.init!r} requires y to be passed, but the target y is "
                             "None.")
        if missing:
            raise ValueError(f"init={self.init!r} requires `{needs}` to be passed to fit. "
                             "Got None instead.")
        if beta is not None and self.init != "given":
            raise ValueError(f"`beta` is only used with init='given'. Got init={self.init!r}.")
        costs = np.full(n, float(self.C))
        free = np.ones(n, bool)
        if self.init == "ssl":
            classes, y_known = check_semi_supervised_target(y, n)
            beta0, free = beta_semi_supervised(y_known)
            n_labeled = int(np.sum(~free))
            c_u = self.C * n_labeled / n if self.C_unlabeled is None else self.C_unlabeled
            costs[free] = c_u
        elif self.init == "knn":
            classes, y_pm = _two_class_target(y, n)
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
            bags = np.asarray(bags)
            if bags.shape != (n,):
                raise ValueError(f"`bags` must give one bag id per row of X ({n}). Got shape "
                                 f"{bags.shape}.")
            beta0 = beta_from_proportions(bags, proportions)
            classes = np.array([0, 1])
        else:
            beta0 = check_beta(beta, n)
            classes = np.array([0, 1]) if y is None else _two_class_target(y, n)[0]
        return beta0, free, costs, classes

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, beta=None, bags=None, proportions=None):
        """Fit the iterative β-SVM.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), sparse with the linear kernel, or an
            (n_samples, n_samples) kernel matrix with ``kernel="precomputed"``.
        y : array-like of shape (n_samples,) or None
            ``"ssl"``: classes with ``-1`` for unlabeled points; ``"knn"``: (noisy) labels of
            two classes; ``"given"``: optional, only fixes ``classes_``; ``"proportions"``:
            ignored.
        beta : array-like of shape (n_samples, 2) or None
            ``"given"`` only: rows on the simplex, columns ordered as ``classes_``.
        bags : array-like of shape (n_samples,) or None
            ``"proportions"`` only: bag id of every row.
        proportions : array-like of shape (n_bags,) or dict or None
            ``"proportions"`` only: fraction of ``classes_[1]`` per bag (sorted bag ids).

        Returns
        -------
        self
        """
        X = self._validate_X(X)
        inputs = self._dense_problem_inputs(X)
        K = inputs["kernel"] if "kernel" in inputs else kernels.linear(inputs["features"])
        beta0, free, costs, self.classes_ = self._initial_beta(X, K, y, beta, bags, proportions)
        try:
            res = beta_iterate(K, beta0, costs, free=free, max_iter=self.max_iter, tol=self.tol,
                               solver=self.solver, verbose=self.verbose)
        except SolverError as exc:
            if self.solver != "libsvm":
                raise
            warnings.warn(f"BetaSVM: {exc}; falling back to solver 'cvxopt'.",
                          ConvergenceWarning, stacklevel=2)
            res = beta_iterate(K, beta0, costs, free=free, max_iter=self.max_iter, tol=self.tol,
                               solver="cvxopt", verbose=self.verbose)
        self.beta_ = res.beta
        self.dual_coef_ = res.solution.dual_coef
        self.intercept_ = float(res.solution.intercept)
        if self.kernel == "linear":
            self.coef_ = np.asarray(X.T @ self.dual_coef_).ravel()
        else:
            self.X_fit_ = X if self.kernel != "precomputed" else None
        self.n_iter_ = res.n_iter + 1
        self.converged_ = res.converged
        self.history_ = res.history
        return self

    def predict(self, X):
        """Class labels: ``classes_[1]`` where ``decision_function > 0``."""
        return np.where(self.decision_function(X) > 0, self.classes_[1], self.classes_[0])
