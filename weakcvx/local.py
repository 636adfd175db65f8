r"""Local heuristics: alternating optimisation to a local optimum (docs/design.rst §3.3, §3.6).

Alternating minimisation of the MIP's primal ``½‖w‖² + Σ_i c_i max(0, 1 − b_i w·φ(x_i))``:

1. labels fixed: the SVM (box QP) gives ``w`` and the scores ``f(x_i) = w·φ(x_i)``;
2. ``w`` fixed: the best labeling in B is exactly ``labelset.argmax(δ)`` with
   ``δ_i = c_i[max(0, 1 + f_i) − max(0, 1 − f_i)]`` (the loss of −1 minus the loss of +1), since
   ``Σ_i c_i loss_i(b_i) = const − ½ Σ_i b_i δ_i``.

Each step can only decrease the objective, so ``J`` of the labels is non-increasing and the loop
stops at a labeling that the relabeling step cannot improve: a local optimum.
"""

from __future__ import annotations

import logging
import numbers
import time

import numpy as np

from ._validation import check_integer, check_nonnegative, warn
from .formulations import Hinge
from .rounding import POLISH_TOL, supervised_scores
from .result import SolveResult
from .svm import EPOCH_CAPS

__all__ = ["alternating", "relabel_scores", "proportion_label_update", "proportion_ranked_labels",
           "alter_proportion_svm",
           "bag_mean_keys", "positive_bags_start", "multi_instance_alternating"]

logger = logging.getLogger("weakcvx")


def relabel_scores(scores, costs):
    """``δ_i = c_i[hinge(−f_i) − hinge(f_i)]``: maximise ``Σ b_i δ_i`` to relabel exactly.

    Examples
    --------
    >>> import numpy as np
    >>> from weakcvx.labelsets import Clustering
    >>> delta = relabel_scores(np.array([2.0, -0.5, 0.5, -2.0]), np.ones(4))
    >>> delta
    array([ 3., -1.,  1., -3.])
    >>> Clustering(4, beta=0).argmax(delta)   # the best balanced labels for these scores
    array([ 1., -1.,  1., -1.])
    """
    return costs * (np.maximum(0.0, 1.0 + scores) - np.maximum(0.0, 1.0 - scores))


def _relabel(problem, scores):
    """The best labeling in B for fixed scores: the label set's own ``relabel`` (bags), or
    ``argmax_b Σ b_i δ_i`` with ``δ_i = ℓ_i(−f_i) − ℓ_i(f_i)`` from the formulation's loss (the
    hinge's in closed form, :func:`relabel_scores`; the unit-cost hinge's for a formulation that
    declares no loss: then a heuristic step, which the loop accepts only when ``J`` decreases)."""
    labelset = problem.labelset
    costs = problem.costs if problem.fast else np.ones(len(scores))
    if hasattr(labelset, "relabel"):
        return labelset.relabel(scores, costs)
    formulation = problem.formulation
    loss_pos = None if isinstance(formulation, Hinge) else formulation.loss(scores)
    if loss_pos is None:
        return labelset.argmax(relabel_scores(scores, costs))
    return labelset.argmax(formulation.loss(-scores) - loss_pos)


def _check_alternating_options(max_iter, tol, j_tol, random_state):
    """Refuse what :func:`alternating` would misread: a negative or fractional ``max_iter``
    (``-1`` ran no alternation, ``1.5`` failed inside ``range``), a negative ``tol``, a
    non-positive ``j_tol``, a ``random_state`` that seeds nothing."""
    from sklearn.utils import check_random_state

    check_integer(max_iter, "max_iter", 0)
    check_nonnegative(tol, "tol")
    if j_tol is not None and (isinstance(j_tol, bool) or not isinstance(j_tol, numbers.Real)
                              or not 0 < j_tol < np.inf):
        raise ValueError(f"`j_tol` must be a positive number or None. Got {j_tol!r} instead.")
    try:
        check_random_state(random_state)
    except ValueError as exc:
        raise ValueError(f"`random_state` must be None, an integer or a "
                         f"numpy.random.RandomState. Got {random_state!r} instead.") from exc


def alternating(problem, initial=None, max_iter=100, tol=1e-8, verbose=0, random_state=0,
                j_tol=None, alpha0=None):
    """Alternate SVM fit and exact relabeling by the label set's oracle, to a local optimum.

    Parameters
    ----------
    problem : WeakLabelProblem
    initial : array or None
        Starting labeling; default the supervised SVM's scores rounded by the label set, or the
        label set's own initial rule (random for clustering, seeded by ``random_state``).
    max_iter : int
    tol : float
        Stop when ``J`` decreases by less than ``tol`` (relative).
    j_tol : float or None
        Projected-gradient tolerance of each SVM fit (:meth:`WeakLabelProblem.J`). ``None``:
        the fits of the loop are loose (``POLISH_TOL``, 1e-3: the relabeling needs only the
        signs of the scores) and the labels it ends at get an exact ``J`` (1e-6), warm-started;
        the loose loop gave the same labels as exact fits on the SSL sets of ``weakcvx bench
        peers`` at a third of the time. A number: every fit at that tolerance, with no exact
        ``J`` at the end (``value`` is then the primal value of a loose fit, still an upper
        bound of ``J(labels)``), for searches that compute it themselves.
    alpha0 : ndarray or None
        Warm start of the first fit (e.g. the dual solution of an earlier fit of ``initial``).

    Returns
    -------
    SolveResult
        ``value = upper_bound = J(labels)``, ``certified=False``.

    Examples
    --------
    >>> import weakcvx as wc
    >>> X, y_true, y_known = wc.datasets.make_two_moons(40, n_labeled=2, random_state=0)
    >>> problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0),
    ...                               wc.labelsets.SemiSupervised(y_known), costs=10.0)
    >>> res = alternating(problem)
    >>> res.value == res.upper_bound
    True
    """
    start = time.perf_counter()
    _check_alternating_options(max_iter, tol, j_tol, random_state)
    labelset = problem.labelset
    if initial is None:
        b = labelset.check_own_element(
            labelset.initial(scores=supervised_scores(problem), random_state=random_state),
            "the start: its oracle's rounding of the supervised scores")
    else:
        b = labelset.check_element(initial, "initial")
    loop_tol = POLISH_TOL if j_tol is None else j_tol
    value, alpha = problem.J(b, alpha0=alpha0, tol=loop_tol)
    history = [{"iteration": 0, "value": value, "seconds": time.perf_counter() - start}]
    status, message = "max_iter", f"stopped after max_iter={max_iter} alternations"
    it = 0
    for it in range(1, max_iter + 1):
        scores = problem.decision_scores(alpha, [b], np.ones(1))
        b_new = _relabel(problem, scores)
        if np.array_equal(b_new, b):
            status, message = "converged", "labels unchanged"
            break
        new_value, new_alpha = problem.J(b_new, alpha0=alpha, tol=loop_tol)
        history.append({"iteration": it, "value": new_value,
                        "seconds": time.perf_counter() - start})
        if verbose:
            logger.info("alternating it=%d J=%.6g", it, new_value)
        if new_value >= value - tol * max(1.0, abs(value)):
            if new_value < value:
                b, value, alpha = b_new, new_value, new_alpha
            status, message = "converged", "objective stopped decreasing"
            break
        b, value, alpha = b_new, new_value, new_alpha
    if j_tol is None:  # the loop's fits were loose: the exact J of the labels it ends at
        value, alpha = problem.J(b, alpha0=alpha)
    return SolveResult(method="alternating", value=value, labels=b, upper_bound=value,
                       certified=False, status=status, message=message, n_iter=it,
                       seconds=time.perf_counter() - start, history=history, alpha=alpha,
                       mu=np.ones(1), working_set=[b])


# -- label proportions (alter-∝SVM) -----------------------------------------------------------
def proportion_label_update(loss_neg, loss_pos, bag_index, proportions, C_star, C_p, eps=0.0):
    r"""Exact label update of alter-∝SVM (Yu et al. 2013, Prop. 1), bag by bag.

    With the classifier fixed, minimise over ``y ∈ {−1, +1}^n``

    .. math::

        C^* \sum_i \ell_i(y_i) + C_p \sum_k \max\Big(0, \Big| \frac{m_k(y)}{n_k} - p_k \Big|
            - \varepsilon\Big),
        \qquad m_k(y) = |\{i \in I_k : y_i = +1\}|.

    Bags are independent. In bag ``k`` start from all −1; flipping point ``i`` to +1 lowers the
    loss by ``δ_i = ℓ_i(−1) − ℓ_i(+1)``. For a fixed count ``m`` the best labeling flips the
    ``m`` largest ``δ_i``, so one sort and a cumulative sum give the best labeling for every
    ``m = 0..n_k``; the smallest objective over ``m`` is the exact optimum (O(n_k log n_k)).
    All bags are handled at once: one sort by (bag, −δ), one cumulative sum, and per-bag
    minima by ``reduceat`` (ties go to the smallest ``m``, then to the lowest index).

    Parameters
    ----------
    loss_neg, loss_pos : ndarray of shape (n,)
        ``ℓ_i(−1)`` and ``ℓ_i(+1)`` (e.g. hinge losses of the current scores).
    bag_index : ndarray of int, shape (n,)
        Bag of each point, in ``0..n_bags-1`` (every bag non-empty).
    proportions : ndarray of shape (n_bags,)
    C_star, C_p : float
        Weights of the instance loss and of the proportion loss.
    eps : float, default=0.0
        Insensitive zone of the proportion loss (0: the paper's absolute loss).

    Returns
    -------
    y : ndarray of shape (n,), values ±1

    Examples
    --------
    >>> import numpy as np
    >>> y = proportion_label_update(np.array([2.0, 0.0, 1.0, 0.5]), np.zeros(4),
    ...                             np.array([0, 0, 1, 1]), np.array([0.5, 0.5]), 1.0, 10.0)
    >>> y.tolist()
    [1.0, -1.0, 1.0, -1.0]
    """
    n = len(loss_neg)
    n_bags = len(proportions)
    delta = loss_neg - loss_pos
    order = np.lexsort((-delta, bag_index))  # by bag, then by decreasing δ (stable)
    bag_sorted = bag_index[order]
    sizes = np.bincount(bag_index, minlength=n_bags)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    base = np.bincount(bag_index, weights=loss_neg, minlength=n_bags)  # Σ ℓ(−1), m = 0
    gains = np.cumsum(delta[order])
    gains -= np.concatenate([[0.0], gains[starts[1:] - 1]])[bag_sorted]  # Σ of the top-m δ
    m = np.arange(1, n + 1) - starts[bag_sorted]  # m = 1..n_k along each bag
    objective = C_star * (base[bag_sorted] - gains) + C_p * np.maximum(
        0.0, np.abs(m / sizes[bag_sorted] - proportions[bag_sorted]) - eps)
    objective_0 = C_star * base + C_p * np.maximum(0.0, proportions - eps)
    best = np.minimum.reduceat(objective, starts)
    first = np.minimum.reduceat(np.where(objective == best[bag_sorted], m, n + 1), starts)
    m_best = np.where(objective_0 <= best, 0, first)
    y = -np.ones(n)
    y[order[m <= m_best[bag_sorted]]] = 1.0
    return y


def proportion_ranked_labels(scores, bag_index, proportions):
    """Labels with the count of each bag nearest ``n_k·p_k``, given to its highest scores.

    The exact label update :func:`proportion_label_update` with linear losses
    ``ℓ_i(∓1) = ±s_i`` and a proportion cost that dominates them: a start for alter-∝SVM from a
    bag-mean model's scores.

    Examples
    --------
    >>> import numpy as np
    >>> proportion_ranked_labels(np.array([0.3, -1.0, 2.0, 0.1]), np.array([0, 0, 1, 1]),
    ...                          np.array([0.5, 1.0])).tolist()
    [1.0, -1.0, 1.0, 1.0]
    """
    scores = np.asarray(scores, dtype=float)
    scale = float(np.abs(scores).sum()) or 1.0
    # C_p / C* above 2 Σ|s_i|·max n_k: one count step off the nearest costs more than any ranking
    sizes = np.bincount(bag_index)
    return proportion_label_update(scores, -scores, bag_index, np.asarray(proportions, float),
                                   1.0, 4.0 * scale * float(sizes.max()))


def _hinge_losses(scores):
    """``(ℓ(−1), ℓ(+1))`` of the hinge loss at the scores ``f(x_i)``."""
    return np.maximum(0.0, 1.0 + scores), np.maximum(0.0, 1.0 - scores)


class _OffsetSVM:
    """The SVM with offset of one alter-∝SVM restart, warm-started from its previous solution
    across relabelings and annealing steps (:func:`weakcvx._smo.warm_start`). ``max_iter`` caps
    the next solves (None: :func:`~weakcvx._smo.svm_offset_solve`'s own cap); ``converged`` is
    the last solve's, ``n_iter`` and ``n_capped`` count SMO pair updates and capped solves."""

    def __init__(self, K, tol):
        self.K, self.tol = K, tol
        n = K.shape[0]
        self.alpha, self.y, self.C = np.zeros(n), None, None
        self.scores = np.zeros(n)
        self.max_iter = None
        self.converged, self.n_iter, self.n_capped = True, 0, 0

    def fit(self, y, C):
        """Solve for labels ``y`` at cost ``C``; returns ``(scores, ½‖w‖²)``."""
        from ._smo import svm_offset_solve, warm_start

        if np.all(y == y[0]):  # one class: w = 0, b = ±1, no hinge loss
            self.alpha[:] = 0.0
            self.y, self.C, self.rho = y, C, -float(y[0])
            self.scores = np.full(len(y), float(y[0]))
            self.converged = True
            return self.scores, 0.0
        if self.y is None:
            alpha, grad = np.zeros(len(y)), -np.ones(len(y))
        else:
            alpha, grad = warm_start(self.K, self.y, y, self.alpha, self.C, C, self.scores)
        alpha, grad, rho, n_iter, converged = svm_offset_solve(
            self.K, y, C, alpha, grad, tol=self.tol, max_iter=self.max_iter)
        self.n_iter += n_iter
        self.converged = converged
        self.n_capped += not converged  # one line per restart says how many (verbose)
        self.alpha, self.y, self.C, self.rho = alpha, y, C, rho
        self.scores = y * (grad + 1.0) - rho  # f = K(α∘y) − ρ, and G = y∘K(α∘y) − 1
        return self.scores, 0.5 * float(alpha @ (grad + 1.0))  # ½αᵀQα

    @property
    def beta(self):
        return self.alpha * self.y




class _LinearOffsetFit:
    """The SVM with offset of one alter-∝SVM restart on the feature matrix (``engine``, a
    :class:`weakcvx.svm.LinearOffsetSVM` of its own), warm-started as :class:`_OffsetSVM`:
    ``α`` scaled by ``C_new / C_old``, a point whose label flipped at ``C_new`` inside its new
    margin and at 0 outside, the offset kept. Same interface as :class:`_OffsetSVM`
    (``n_iter`` counts epochs, ``max_iter`` caps them)."""

    def __init__(self, engine, tol):
        self.engine = engine
        self.tol = tol
        n = engine.R.shape[0]
        self.alpha, self.y, self.C = np.zeros(n), None, None
        self.scores, self.rho = np.zeros(n), 0.0
        self.max_iter = None
        self.converged, self.n_iter, self.n_capped = True, 0, 0

    def fit(self, y, C):
        """Solve for labels ``y`` at cost ``C``; returns ``(scores, ½‖w‖²)``."""
        alpha = None
        if self.y is not None:
            alpha = np.minimum(self.alpha * (C / self.C), C)
            flipped = y != self.y
            alpha[flipped] = np.where(y[flipped] * self.scores[flipped] < 1.0, C, 0.0)
        engine = self.engine
        engine.tol = self.tol
        engine.max_epochs = EPOCH_CAPS[0] if self.max_iter is None else int(self.max_iter)
        engine.fit(y, C, alpha0=alpha, offset0=-self.rho)
        self.n_iter += engine.n_epochs
        self.converged = engine.converged
        self.n_capped += not engine.converged  # one line per restart says how many (verbose)
        self.alpha, self.y, self.C, self.rho = engine.alpha, y, C, -engine.offset
        self.scores = engine.training_scores()
        return self.scores, 0.5 * float(engine.w @ engine.w)

    @property
    def beta(self):
        return self.alpha * self.y


def _proportion_loss(y, bag_index, proportions, sizes, eps):
    """``Σ_k (|p̃_k(y) − p_k| − ε)₊``."""
    p_tilde = np.bincount(bag_index, weights=(y > 0).astype(float),
                          minlength=len(proportions)) / sizes
    return float(np.maximum(0.0, np.abs(p_tilde - proportions) - eps).sum())


def _proportion_objective(half_norm, scores, y, bag_index, proportions, sizes, C_star, C_p,
                          eps):
    """alter-∝SVM objective ``½‖w‖² + C* Σ_i hinge(y_i f_i) + C_p Σ_k (|p̃_k(y) − p_k| − ε)₊``."""
    hinge = np.maximum(0.0, 1.0 - y * scores).sum()
    return half_norm + C_star * hinge + C_p * _proportion_loss(y, bag_index, proportions, sizes,
                                                               eps)


#: ``smo_passes`` of :func:`alter_proportion_svm` on unscaled features: the SMO cap of each SVM
#: fit, in passes over the data (``passes · n`` pair updates), while ``C* < C`` and at
#: ``C* = C``. Standardised features never needed more than 35 and 228 passes; raw
#: breast_cancer's fits after a relabeling at ``C* ≥ 0.1·C`` a median 1,700 (the SMO's own cap
#: is 1,757 there: docs/methods/llp.rst, "SMO caps on unscaled features").
SMO_PASSES = (100, 500)

#: With ``smo_passes``, an alternation loop ends once this many of its fits stopped at the cap.
SMO_CAPPED_PER_STEP = 2


def _alter_proportion_run(make_svm, bag_index, proportions, C, C_p, eps, seed, C_start, growth,
                          tol, max_iter, svm_tol, anneal_tol=None, initial=None,
                          smo_passes=None):
    """One restart of alter-∝SVM (Yu et al. 2013, Algorithm 1) from uniform random labels
    (or from ``initial``); ``make_svm(svm_tol)`` builds its SVM (:class:`_OffsetSVM` on a
    kernel matrix or :class:`_LinearOffsetFit` on the features)."""
    start = time.perf_counter()
    rng = np.random.RandomState(seed)
    n = len(bag_index)
    y = np.where(rng.rand(n) < 0.5, 1.0, -1.0)  # docs/design.rst §3.6: uniform start
    if initial is not None:
        y = np.asarray(initial, dtype=float).copy()
    sizes = np.bincount(bag_index, minlength=len(proportions))
    svm = make_svm(svm_tol)
    C_star = C_start * C
    n_fits = 0
    history = []
    while True:
        value = np.inf
        svm.tol = svm_tol if (C_star >= C or anneal_tol is None) else max(svm_tol, anneal_tol)
        svm.max_iter = None if smo_passes is None else smo_passes[C_star >= C] * n
        capped = 0
        for _ in range(max_iter):
            scores, half_norm = svm.fit(y, C_star)
            n_fits += 1
            capped += not svm.converged
            loss_neg, loss_pos = _hinge_losses(scores)
            y_new = proportion_label_update(loss_neg, loss_pos, bag_index, proportions, C_star,
                                            C_p, eps)
            new_value = _proportion_objective(half_norm, scores, y_new, bag_index, proportions,
                                              sizes, C_star, C_p, eps)
            changed = not np.array_equal(y_new, y)
            y = y_new
            decrease = value - new_value
            value = new_value
            if (not changed or decrease < tol * max(1.0, abs(value))
                    or (smo_passes is not None and capped >= SMO_CAPPED_PER_STEP)):
                break
        history.append({"C_star": C_star, "value": value, "n_fits": n_fits})
        if C_star >= C:
            break
        C_star = min(growth * C_star, C)
    # the model that goes with the final labels (warm: nothing to do if they did not change)
    svm.tol = svm_tol
    scores, half_norm = svm.fit(y, C)
    value = _proportion_objective(half_norm, scores, y, bag_index, proportions, sizes, C, C_p,
                                  eps)
    beta, intercept = svm.beta, -svm.rho
    # ½‖w‖² and the hinge terms do not change under (w, b, y) → (−w, −b, −y): the mirrored
    # solution differs only in its proportion term, so it is a free candidate. It wins when
    # the proportion term was too weak to orient the labels (small C_p / C: the labels then
    # follow the margin, whichever side is called positive).
    mirror = value + C_p * (_proportion_loss(-y, bag_index, proportions, sizes, eps)
                            - _proportion_loss(y, bag_index, proportions, sizes, eps))
    mirrored = mirror < value
    if mirrored:
        y, beta, intercept, value = -y, -beta, -intercept, mirror
    logger.info("alter-proportion-SVM: %s done in %.1f s, objective %.6g, %d SVM fits (%d "
                "stopped at their iteration cap)", "the start's run" if initial is not None
                else f"restart seed={seed}", time.perf_counter() - start, value, n_fits + 1,
                svm.n_capped)
    return {"labels": y, "beta": beta, "intercept": intercept, "value": value,
            "n_fits": n_fits + 1, "history": history, "seed": seed, "mirrored": mirrored,
            "alpha": svm.alpha, "converged": svm.converged, "n_smo_iter": svm.n_iter,
            "n_smo_capped": svm.n_capped}


def _solve_kept_model(K, run, bag_index, proportions, C, C_p, eps, svm_tol):
    """The kept restart's SVM on its final labels, continued from its capped fit at
    :func:`weakcvx._smo.svm_offset_solve`'s own cap (the run unchanged if that fit converged).
    ``β = α∘y`` and the offset hold for the mirrored labels too (``α`` is shared)."""
    from ._smo import svm_offset_solve

    y = run["labels"]
    if run["converged"]:
        return run
    alpha = run["alpha"].copy()
    grad = y * (K @ (alpha * y)) - 1.0
    alpha, grad, rho, n_iter, converged = svm_offset_solve(K, y, C, alpha, grad, tol=svm_tol)
    sizes = np.bincount(bag_index, minlength=len(proportions))
    value = _proportion_objective(0.5 * float(alpha @ (grad + 1.0)), y * (grad + 1.0) - rho, y,
                                  bag_index, proportions, sizes, C, C_p, eps)
    return dict(run, beta=alpha * y, intercept=-rho, value=value, alpha=alpha,
                converged=converged, n_smo_iter=run["n_smo_iter"] + n_iter,
                n_smo_capped=run["n_smo_capped"] + (not converged))


def _solve_kept_linear(shared, run, bag_index, proportions, C, C_p, eps, svm_tol):
    """The linear path's :func:`_solve_kept_model`: the kept restart's SVM on its final labels
    continued with ``EPOCH_CAPS[1]`` passes (the run unchanged if its fit converged)."""
    if run["converged"]:
        return run
    y = run["labels"]
    engine = shared.spawn(tol=svm_tol, max_epochs=EPOCH_CAPS[1])
    engine.fit(y, C, alpha0=np.minimum(run["alpha"], C), offset0=run["intercept"])
    scores = engine.training_scores()
    sizes = np.bincount(bag_index, minlength=len(proportions))
    value = _proportion_objective(0.5 * float(engine.w @ engine.w), scores, y, bag_index,
                                  proportions, sizes, C, C_p, eps)
    return dict(run, beta=engine.alpha * y, intercept=engine.offset, value=value,
                alpha=engine.alpha, converged=engine.converged,
                n_smo_iter=run["n_smo_iter"] + engine.n_epochs,
                n_smo_capped=run["n_smo_capped"] + (not engine.converged))


def _warn_capped(n_capped, n_fits, converged, n, smo_passes):
    """ConvergenceWarning naming the SVM solver when some fits of alter-∝SVM stopped at their
    cap (``smo_passes`` None: the linear path's coordinate descent)."""
    from sklearn.exceptions import ConvergenceWarning

    from ._smo import default_max_iter

    if smo_passes is None:
        solver = ("linear SVM (weakcvx.svm.LinearOffsetSVM, LIBLINEAR's dual coordinate "
                  f"descent) stopped at its cap of {EPOCH_CAPS[0]} passes over the {n} points")
        final = f"at {EPOCH_CAPS[1]} passes"
    else:
        solver = (f"SMO solver (weakcvx._smo.svm_offset_solve, libsvm's algorithm) stopped at "
                  f"its iteration cap ({smo_passes[0]:g} passes over the {n} points while "
                  f"C* < C, {smo_passes[1]:g} at C* = C)")
        final = f"at the SMO's own cap (max_iter={default_max_iter(n)})"
    warn(
        f"alter-proportion-SVM: its {solver} in {n_capped} of {n_fits} SVM fits: the labels "
        "come from approximate fits"
        + ("" if converged else f", and the returned model did not converge either {final}")
        + ". The SVM's iterations grow with C·max_i k(x_i, x_i): standardize the features "
        "(sklearn.preprocessing.StandardScaler) or lower C.", ConvergenceWarning)


def alter_proportion_svm(K, bag_index, proportions, C=1.0, C_p=1.0, eps=0.0, n_init=10,
                         random_state=0, n_jobs=None, C_start=1e-5, growth=1.5, tol=1e-4,
                         max_iter=50, svm_tol=1e-3, verbose=0, initial=None,
                         initial_C_start=0.1, initial_ratio=1.25, smo_passes=None,
                         features=None):
    r"""alter-∝SVM: alternating optimisation with annealing and random restarts.

    Minimises (Yu et al. 2013, eq. 4 with the absolute proportion loss; docs/design.rst §3.6)

    .. math::

        \min_{y, w, b} \tfrac12\|w\|^2 + C^* \sum_i \max(0, 1 - y_i (w\cdot\phi(x_i) + b))
            + C_p \sum_k \max(0, |\tilde p_k(y) - p_k| - \varepsilon)

    (``ε = 0``: the paper) by alternating an SVM fit with offset (``y`` fixed) and the exact
    label update :func:`proportion_label_update` (``w, b`` fixed), until the objective
    decreases by less than ``tol`` (relative); ``C*`` is annealed from ``C_start·C`` by
    ``×growth`` up to ``C``. Each of the ``n_init`` restarts starts from labels drawn uniformly
    at random; each restart ends with the better of its solution and the mirrored one
    ``(−w, −b, −y)``; the restart with the lowest final objective is kept.

    With ``initial`` (labels, e.g. :func:`proportion_ranked_labels` of a bag-mean model's
    scores) one more run starts from them, annealing from ``initial_C_start·C``, and it is kept
    unless the best random restart reaches an objective below ``1/initial_ratio`` of its own:
    on seven UCI sets the two objectives were within a factor 0.5-2.9 (above 2 in 3 of 77,
    at ``C = 1``) while the start's labels predicted better, and a start caught in a bag-mean
    trap (Yu et al. Fig. 1) ends 1.1-16 times above the random restarts that escape it, the
    less the smaller ``C`` (1.25 chosen with ``ProportionSVM``'s default ``C``:
    docs/methods/llp.rst, "The linear kernel's cost").

    The SVM is libsvm's SMO (:mod:`weakcvx._smo`, numba) warm-started from the previous
    solution, since consecutive solves differ by a ×1.5 step of ``C*`` or by a few labels,
    and solved to ``max(svm_tol, 1e-2)`` while ``C* < C`` (the labels, not the exact
    ``α``, are what an annealing step passes on; ``svm_tol`` at ``C* = C``); chosen against
    cold libsvm solves on heart, australian and german (docs/methods/llp.rst, "Measurements
    behind the defaults"). With ``features`` (the linear kernel) the SVM runs on the feature
    matrix instead, :class:`weakcvx.svm.LinearOffsetSVM` (LIBLINEAR's coordinate descent
    with proximal steps on the offset; same problem, same warm starts and tolerances), in
    ``O(n·d)`` memory: no ``n × n`` kernel. Both solvers release the GIL, so the restarts run
    in joblib threads (``prefer="threads"``, no process start-up nor copy of ``K``; a joblib
    backend set by the caller, e.g. Dask, still applies). Their seeds are drawn from
    ``random_state`` before dispatch, so the result does not depend on ``n_jobs``.

    Parameters
    ----------
    K : ndarray of shape (n, n) or None
        Kernel matrix; None with ``features``.
    bag_index : ndarray of int, shape (n,)
        Bag of each point in ``0..n_bags-1`` (every bag non-empty).
    proportions : ndarray of shape (n_bags,)
    C, C_p : float
    eps : float
        Insensitive zone of the proportion loss.
    n_init : int
    random_state : int, RandomState or None
    n_jobs : int or None
        joblib's ``n_jobs`` for the restarts.
    C_start, growth : float
        Annealing schedule of ``C*`` (paper: ``1e-5`` and ``1.5``).
    tol : float
    max_iter : int
        Alternations per value of ``C*``.
    svm_tol : float
        SMO stopping tolerance (libsvm's ``eps``).
    initial : ndarray of shape (n,) or None
        Labels (±1) of one more start.
    initial_C_start : float
        Annealing start of that run (``initial_C_start·C``; from ``1e-5`` the first
        relabelings forget the start).
    initial_ratio : float
        The random restarts replace the ``initial`` run only when their best objective is
        below ``1/initial_ratio`` of its objective.
    smo_passes : (float, float) or None
        SMO iteration cap of each SVM fit in passes over the data (``passes · n``), while
        ``C* < C`` and at ``C* = C``; an alternation loop then ends after
        :data:`SMO_CAPPED_PER_STEP` capped fits, the kept run's model is solved on at the SMO's
        own cap, and a ``ConvergenceWarning`` names the solver when a cap was reached (e.g.
        :data:`SMO_PASSES`, what ``ProportionSVM`` uses on unscaled features). None: every fit
        at the SMO's own cap, ``max(10⁶, 100 n)``. Not used with ``features``: each linear
        fit stops at ``EPOCH_CAPS[0]`` passes (counted in ``n_smo_capped``), the kept model
        is solved on up to ``EPOCH_CAPS[1]``, and a ``ConvergenceWarning`` names the solver
        when that one did not converge.
    features : ndarray or scipy.sparse matrix of shape (n, d) or None
        The feature matrix of the linear kernel ``K = X Xᵀ``: the SVM fits run on it
        (:class:`weakcvx.svm.LinearOffsetSVM`) and ``K`` must be None.

    Returns
    -------
    dict
        ``labels``, ``beta`` (``f(x) = Σ_i β_i k(x_i, x) + intercept``), ``intercept``,
        ``value`` (objective at ``C* = C``), ``values`` (of every restart), ``n_fits``,
        ``history``, ``seed`` and ``mirrored`` of the kept restart (``mirrored``: the restart
        ended on ``(−w, −b, −y)`` of its annealed solution, whose objective was lower: the two
        share ½‖w‖² and every hinge loss, only the proportion term tells them apart);
        ``initial_value`` (objective of the ``initial`` run, NaN without one) and ``start``
        (``"initial"`` or ``"random"``, the kept run's); ``converged`` (the SMO of the returned
        model met ``svm_tol``), ``n_smo_iter`` and ``n_smo_capped`` (SMO pair updates, or
        coordinate-descent passes with ``features``, and fits stopped at their cap, over all
        runs).

    Examples
    --------
    >>> import numpy as np
    >>> from weakcvx.datasets import make_llp_toy
    >>> X, y_true, bags, p = make_llp_toy(20, random_state=0)
    >>> res = alter_proportion_svm(X @ X.T, bags, p, C=1.0, C_p=10.0, n_init=3)
    >>> float(np.mean(res["labels"] == y_true)) > 0.9
    True
    """
    from joblib import Parallel, delayed
    from sklearn.utils import check_random_state
    from threadpoolctl import threadpool_limits

    rng = check_random_state(random_state)
    seeds = rng.randint(np.iinfo(np.int32).max, size=n_init)
    if (features is None) == (K is None):
        raise ValueError("Give the kernel matrix `K` or the linear kernel's `features`, not "
                         f"both nor neither. Got K={'None' if K is None else 'an array'} and "
                         f"features={'None' if features is None else 'an array'}.")
    if features is None:
        K = np.ascontiguousarray(K, dtype=np.float64)
        n = K.shape[0]

        def make_svm(svm_tol):
            return _OffsetSVM(K, svm_tol)
    else:
        from .svm import LinearOffsetSVM

        n, smo_passes = features.shape[0], None
        shared = LinearOffsetSVM(features, tol=svm_tol, max_epochs=EPOCH_CAPS[0])

        def make_svm(svm_tol):  # each restart its own state, one copy of the features
            return _LinearOffsetFit(shared.spawn(), svm_tol)
    bag_index = np.asarray(bag_index, dtype=np.intp)
    proportions = np.asarray(proportions, dtype=np.float64)
    # single-threaded BLAS: restarts are the parallel unit, and a multi-threaded n×n
    # matrix-vector product is far slower on a loaded machine (docs/methods/llp.rst)
    with threadpool_limits(limits=1, user_api="blas"):
        runs = Parallel(n_jobs=n_jobs, prefer="threads")(
            delayed(_alter_proportion_run)(make_svm, bag_index, proportions, C, C_p, eps,
                                           int(seed), C_start, growth, tol, max_iter, svm_tol,
                                           max(svm_tol, 1e-2), smo_passes=smo_passes)
            for seed in seeds)
        start = None if initial is None else _alter_proportion_run(
            make_svm, bag_index, proportions, C, C_p, eps, 0, initial_C_start, growth, tol,
            max_iter, svm_tol, max(svm_tol, 1e-2), initial=initial, smo_passes=smo_passes)
    values = np.array([r["value"] for r in runs])
    best = dict(runs[int(np.argmin(values))])  # first minimiser: independent of n_jobs
    best["start"] = "random"
    if start is not None and not best["value"] * initial_ratio < start["value"]:
        best = dict(start, start="initial")
    kept = best
    if features is not None:
        kept = _solve_kept_linear(shared, best, bag_index, proportions, C, C_p, eps, svm_tol)
    elif smo_passes is not None:
        with threadpool_limits(limits=1, user_api="blas"):
            kept = _solve_kept_model(K, best, bag_index, proportions, C, C_p, eps, svm_tol)
    every = runs + ([] if start is None else [start])
    for key in ("n_smo_iter", "n_smo_capped"):  # over every run, plus the kept model's solve
        kept[key] += sum(r[key] for r in every) - best[key]
    # the linear path's capped intermediate fits are counted, not warned about: a few
    # standardised fits need more than EPOCH_CAPS[0] passes, and only labels come of them
    if (kept["n_smo_capped"] if features is None and smo_passes is not None
            else features is not None and not kept["converged"]):
        _warn_capped(kept["n_smo_capped"], sum(r["n_fits"] for r in every) + (kept is not best),
                     kept["converged"], n, smo_passes)
    best = kept
    del best["alpha"]
    best["values"] = values
    best["initial_value"] = np.nan if start is None else start["value"]
    if verbose:
        logger.info("alter-proportion-SVM: restart objectives %s, initial start %.6g, kept "
                    "%.6g (%s)", np.array2string(values, precision=4), best["initial_value"],
                    best["value"], best["start"])
    return best


# -- multi-instance heuristics (Andrews et al. 2003) -------------------------------------------
def bag_mean_keys(labelset, X):
    """Start of MI-SVM: in each positive bag, the instance nearest the bag's mean.

    Andrews et al. (2003) start MI-SVM from the bag centroids; the nearest instance is the
    element of :class:`~weakcvx.labelsets.KeyInstances` closest to that start (chosen on Musk1
    over a random key: docs/design.rst §3.1).

    Parameters
    ----------
    labelset : KeyInstances
    X : ndarray of shape (n_instances, d)
        Instance coordinates: the features, or the rows of a kernel factor (then "nearest" is
        in the kernel's feature space).

    Returns
    -------
    b : ndarray of shape (n_instances,), an element of ``labelset``

    Examples
    --------
    >>> import numpy as np
    >>> from weakcvx.labelsets import KeyInstances
    >>> B = KeyInstances([0, 0, 0, 1], bag_labels=[1, 0])
    >>> bag_mean_keys(B, np.array([[0.0], [1.1], [3.0], [5.0]])).tolist()
    [-1.0, 1.0, -1.0, -1.0]
    """
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)
    scores = np.zeros(labelset.n_samples)
    for k in labelset.positive_bags:
        rows = labelset.members[k]
        scores[rows] = -np.sum((X[rows] - X[rows].mean(axis=0)) ** 2, axis=1)
    return labelset.argmax(scores)


def positive_bags_start(labelset):
    """Start of mi-SVM (Andrews et al. 2003): every instance of a positive bag positive.

    Examples
    --------
    >>> from weakcvx.labelsets import InstanceLabels
    >>> positive_bags_start(InstanceLabels([0, 0, 1], bag_labels=[1, 0])).tolist()
    [1.0, 1.0, -1.0]
    """
    return np.where(labelset.bag_labels[labelset.bag_index] > 0, 1.0, -1.0)


def multi_instance_alternating(problem, features=None, initial=None, max_iter=100, tol=1e-8,
                               verbose=0, random_state=0):
    r"""MI-SVM or mi-SVM (Andrews et al. 2003): alternate SVM fit and exact relabeling.

    The variant is the problem's label set:

    - :class:`~weakcvx.labelsets.KeyInstances`: MI-SVM. One witness per positive bag; with
      ``w`` fixed the best witness is the instance with the largest score (the key's hinge loss
      is non-increasing in its score). Start: :func:`bag_mean_keys`.
    - :class:`~weakcvx.labelsets.InstanceLabels`: mi-SVM. Instance labels, negatives fixed,
      at least one positive per positive bag; with ``w`` fixed the exact relabeling is the sign
      of the score, the best instance forced positive when none is. Start:
      :func:`positive_bags_start`.

    Both are :func:`alternating` on that label set: ``J`` of the labels never increases and the
    loop stops at a local optimum (a local baseline for the convex relaxation).

    Parameters
    ----------
    problem : WeakLabelProblem
        With a ``KeyInstances`` or ``InstanceLabels`` label set.
    features : ndarray (n_instances, d), optional
        Coordinates for the MI-SVM start; default the problem's kernel factor.
    initial : array, optional
        A starting element of the label set (overrides the default start).
    max_iter, tol, verbose, random_state :
        As in :func:`alternating`.

    Returns
    -------
    SolveResult
        ``value = upper_bound = J(labels)``; ``extra["variant"]`` is ``"MI"`` or ``"mi"``.

    Examples
    --------
    >>> import numpy as np, weakcvx as wc
    >>> bags, y, _ = wc.datasets.make_mil_roi(n_bags=10, random_state=0)
    >>> X = np.vstack(bags); ids = np.repeat(np.arange(len(bags)), [len(b) for b in bags])
    >>> B = wc.labelsets.KeyInstances(ids, y)
    >>> problem = wc.WeakLabelProblem(wc.kernels.rbf(X) + 1.0, B, costs=10.0)
    >>> res = multi_instance_alternating(problem, features=X)
    >>> res.extra["variant"], B.contains(res.labels)
    ('MI', True)
    """
    from .labelsets import InstanceLabels, KeyInstances

    labelset = problem.labelset
    if isinstance(labelset, KeyInstances):
        variant = "MI"
        if initial is None:
            initial = bag_mean_keys(labelset, problem.factor if features is None else features)
    elif isinstance(labelset, InstanceLabels):
        variant = "mi"
        if initial is None:
            initial = positive_bags_start(labelset)
    else:
        raise TypeError("`problem.labelset` must be a KeyInstances (MI-SVM) or an InstanceLabels "
                        f"(mi-SVM) label set. Got {type(labelset).__name__} instead.")
    # every fit exact (1e-6): a key-instance choice moves on small score differences, and the
    # loose loop of the SSL relabeling stopped one step early on make_mil_roi data
    result = alternating(problem, initial=initial, max_iter=max_iter, tol=tol, verbose=verbose,
                         random_state=random_state, j_tol=1e-6)
    result.extra["variant"] = variant
    return result
