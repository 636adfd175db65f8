r"""The generic label-generation driver: WellSVM Algorithm 1 (docs/design.rst §3.3).

.. code-block:: text

    C ← {b₀}
    repeat
        (α, μ) ← master(C)
        b̂ ← argmax_{b∈C} αᵀQ_bα ;  r ← linearisation of αᵀQ_bα at b̂
        b* ← labelset.argmax(r)                       # sorting oracle
        violated ⇔ αᵀQ_{b*}α > αᵀQ_{b̂}α + 2ε
    until not violated, or relative decrease of the master value < tol, or max_iter

The sorting oracle maximises the linearisation ``b ↦ 2 b̂ᵀH b`` of the convex function
``b ↦ bᵀHb`` (``H = K ∘ ααᵀ``) exactly, so it always returns a label at least as violated as
``b̂`` (WellSVM Prop. 4) but not necessarily the most violated one. ``oracle="exact"`` enumerates B
(tiny problems) and then ``1ᵀα − ½ max_{b∈B} αᵀQ_bα`` is a certified lower bound of the convex-hull
relaxation, hence of the MIP (minimax theorem).
"""

from __future__ import annotations

import functools
import logging
import time
from dataclasses import dataclass, replace

import numpy as np

from ._validation import check_integer, check_nonnegative, one_blas_thread
from .local import alternating
from .mkl import solve_master
from .result import SolveResult
from .rounding import POLISH_TOL, principal_labelings, round_scores, supervised_scores

__all__ = ["label_generation", "RoundPolicy", "is_large", "round_relaxation"]

#: Relative decrease of ``J`` below which the polish of a principal challenger stops.
CHALLENGER_TOL = 0.05

#: Above this many points the driver uses the large-problem defaults (see ``label_generation``):
#: a round then costs T passes over an n×n label kernel per alternation. Chosen on the time and
#: accuracy of two moons and chess at n = 2000 (docs/design.rst §3.3).
LARGE_N = 1000
#: The same for the linear kernel on features, whose rounds cost ``T`` passes over the sparse
#: rows; chosen on the time of 5,000 sparse rows (docs/design.rst §3.3).
LARGE_LINEAR_N = 5000

logger = logging.getLogger("weakcvx")


def is_large(problem):
    """Whether ``problem`` takes the large-problem defaults of :class:`RoundPolicy`: more than
    ``LARGE_N`` kernel points, or ``LARGE_LINEAR_N`` rows of features.

    Examples
    --------
    >>> import numpy as np
    >>> import weakcvx as wc
    >>> LARGE_N, LARGE_LINEAR_N
    (1000, 5000)
    >>> y_known = np.zeros(6000, dtype=int); y_known[:2] = [1, -1]
    >>> X = np.random.default_rng(0).standard_normal((6000, 3))
    >>> is_large(wc.WeakLabelProblem(features=X, labelset=wc.labelsets.SemiSupervised(y_known)))
    True
    >>> is_large(wc.WeakLabelProblem(wc.kernels.rbf(X[:20]),             # 20 kernel points
    ...                              labelset=wc.labelsets.SemiSupervised(y_known[:20])))
    False
    """
    return problem.n_samples > (LARGE_LINEAR_N if problem.kernel is None else LARGE_N)


def _master_factor(problem, master):
    """The factor the master needs: none for MKLGL on the Gram matrix, else ``problem.factor``."""
    return problem.box_factor if master == "mklgl" and problem.gram is not None \
        else problem.factor


def _eigen_directions(problem, alpha, k=2):
    """Scores of all points along the leading eigen-directions of ``H = diag(α) K diag(α)``
    (the top right singular vectors ``u`` of ``diag(α) R``, extended to every point as ``R u``)."""
    import scipy.sparse as sp
    from scipy.sparse.linalg import svds

    if problem.gram is not None:
        # u: top eigenvectors of H = diag(α) K diag(α) = A Aᵀ; the right singular vectors of
        # A = diag(α) R are v = Aᵀu / s, so R v = K (α ∘ u) / s (the scale does not matter)
        n = alpha.shape[0]
        k = min(k, n - 1)
        if k < 1 or not np.any(alpha):
            return []
        # randomized subspace iteration (Halko et al. 2011) on H through K: the directions only
        # seed the ascent, so four products with K [n × (k+4)] are plenty, and much cheaper
        # than an ARPACK solve to any tolerance
        K = problem.gram
        rng = np.random.default_rng(0)
        Y = rng.standard_normal((n, k + 4))
        for _ in range(4):
            Y, _ = np.linalg.qr(alpha[:, None] * (K @ (alpha[:, None] * Y)))
        B = Y.T @ (alpha[:, None] * (K @ (alpha[:, None] * Y)))
        _, V = np.linalg.eigh(0.5 * (B + B.T))
        U = Y @ V[:, -k:]
        return [np.asarray(problem.kernel_dot(alpha * U[:, j])).ravel()
                for j in range(U.shape[1] - 1, -1, -1)]
    R = problem.factor
    A = sp.diags(alpha) @ R if sp.issparse(R) else alpha[:, None] * R
    k = min(k, min(A.shape) - 1)
    if k < 1:
        return []
    try:
        if sp.issparse(A) or min(A.shape) > 60:
            _, _, Vt = svds(A, k=k, tol=1e-4, maxiter=200, random_state=0)
        else:
            _, _, Vt = np.linalg.svd(A, full_matrices=False)
            Vt = Vt[:k]
    except Exception:  # ARPACK failure: the other starts remain
        return []
    return [np.asarray(R @ v).ravel() for v in Vt]


def _tie_weights(problem):
    """Per-point weights of the oracles' tie-break: the box (costs), or ones without one."""
    return problem.costs if problem.fast else np.ones(problem.n_samples)


def _violated_by_sorting(problem, alpha, working_set, quadratics, scores, n_starts=4,
                         eigen_starts=True):
    r"""Candidate violated labels by sorting oracles only (no enumeration).

    WellSVM's step linearises ``bᵀHb`` at ``b̂ = argmax_{b∈C} αᵀQ_bα`` and sorts once. That can
    stall at labels that follow the current classifier. Here the linearise-and-sort step is
    iterated to a fixed point (monotone in ``αᵀQ_bα``) from several starts: ``b̂``, the next
    labels of C by ``αᵀQ_bα``, and the signs of the leading eigen-directions of H (whose
    tie-break follows the direction itself).

    Returns the distinct end points and their values ``αᵀQ_bα``, the most violated first (the
    earlier start first among ties: labels that differ only where α = 0 have the same value up
    to the rounding of the block product, and the earlier starts follow the working set;
    chosen on gap clusters, docs/design.rst §3.3).
    """
    labelset = problem.labelset
    if hasattr(labelset, "most_violated"):
        t_hat = int(np.argmax(quadratics))
        b = labelset.most_violated(problem, alpha, working_set[t_hat], scores)
        return [b], np.array([problem.quadratic(alpha, b)])
    starts = [(working_set[t], scores) for t in np.argsort(-np.asarray(quadratics))[:n_starts]]
    directions = _eigen_directions(problem, alpha, k=1 if n_starts == 1 else 2) \
        if eigen_starts else []
    for v in directions:
        for direction in (v, -v):
            b0 = labelset.argmax(alpha * direction + 1e-6 * _tie_weights(problem) * direction)
            starts.append((b0, direction))
    labels, values = _ascend_block(problem, alpha, starts)
    distinct, kept = [], []
    remaining = list(range(len(labels)))
    while remaining:
        top = max(values[j] for j in remaining)
        j = next(j for j in remaining if values[j] >= top - 1e-10 * max(1.0, abs(top)))
        remaining.remove(j)
        if not any(np.array_equal(labels[j], b) for b in distinct):
            distinct.append(labels[j])
            kept.append(values[j])
    return distinct, np.array(kept)


def _ascend_block(problem, alpha, starts, max_steps=10):
    """Linearise-and-sort ascent on the convex function ``b ↦ αᵀQ_bα`` from several
    ``(b, tiebreak)`` starts at once: repeat ``b ← argmax_{b'∈B} (H b)ᵀb'`` to a fixed point (at
    most ``max_steps``); no step decreases ``αᵀQ_bα`` (WellSVM Prop. 4:
    ``(b'−b)ᵀH(b'−b) ≥ 0``). For sign-vector label sets, where ``H b = α ∘ K(α ∘ b)`` (WellSVM
    eq. 16). Points with ``α_i = 0`` would get ``(H b)_i = 0`` and be labelled arbitrarily; a
    tie-break of ``1e-6 · c_i · tiebreak_i`` makes them follow the start's scores. Each step is
    one product ``K [α∘b_1, …, α∘b_k]`` over the unfinished starts, which gives both
    ``αᵀQ_{b_j}α = (α∘b_j)ᵀK(α∘b_j)`` and the linearisations (one pass over ``K`` for all starts
    instead of two per start and step, which had cost a tenth of a fit: docs/design.rst §3.3).

    Returns the final labels and their values ``αᵀQ_bα``, in the order of ``starts``."""
    labelset = problem.labelset
    labels = [np.asarray(b, dtype=float) for b, _ in starts]
    values = np.full(len(starts), -np.inf)
    pending = list(range(len(starts)))
    for step in range(max_steps + 1):
        if not pending:
            break
        V = np.stack([alpha * labels[j] for j in pending], axis=1)
        KV = np.asarray(problem.kernel_dot(V)).reshape(V.shape)
        still = []
        for col, j in enumerate(pending):
            values[j] = float(V[:, col] @ KV[:, col])
            if step == max_steps:
                continue
            r = alpha * KV[:, col] + 1e-6 * _tie_weights(problem) * starts[j][1]
            b_new = labelset.argmax(r)
            if not np.array_equal(b_new, labels[j]):
                labels[j] = np.asarray(b_new, dtype=float)
                still.append(j)
        pending = still
    return labels, values


def _all_quadratics(problem, alpha, elements):
    """``αᵀQ_bα`` for every element of an enumerated label set."""
    if getattr(problem.labelset, "is_sign_set", True) and elements.shape[1] == alpha.shape[0]:
        if problem.gram is not None:
            A = elements * alpha  # (N, n)
            return np.einsum("nj,nj->n", A @ problem.gram, A)
        R = problem.factor
        V = np.asarray(R.T @ (elements * alpha).T).T  # (N, r)
        return np.einsum("nr,nr->n", V, V)
    return np.array([problem.quadratic(alpha, b) for b in elements])


def round_relaxation(problem, alpha, working_set, mu, polish=True, polish_iter=20,
                     eigen_candidates=True, start=None, start_exact=True, principal=0,
                     principal_ratio=0.5, principal_labelset=None):
    r"""Feasible labels from the convex-hull solution ``M = Σ_t μ_t b_t b_tᵀ``.

    Candidates: the rounding of the prediction scores ``f(x_i)``, of the leading eigenvector of
    M (both signs; the rank-1 recovery of docs/design.rst §3.6; skipped with ``eigen_candidates=False``),
    the heaviest label of C, and ``start`` (the search's first label, e.g. the supervised SVM's
    rounding). With ``polish``, *each* distinct candidate is polished by alternating (SVM fit /
    exact relabeling, at most ``polish_iter`` fits), which can only lower its ``J``; the
    labeling with the lowest ``J`` is returned. ``start`` is polished exactly as
    :func:`weakcvx.local.alternating` does (``start_exact``, the default), so the result's
    ``J`` is never above the alternating heuristic's from that start; with
    ``start_exact=False`` it is polished like the other candidates (large problems).
    With ``principal = k > 0``, the roundings of the kernel's ``k`` leading principal
    directions (:func:`weakcvx.rounding.principal_labelings`) are polished the same way and
    one replaces the result only when its ``J`` is below ``principal_ratio`` times the
    result's (:func:`_principal_challenge`); with ``principal_labelset`` (a wider label set
    over the same points, e.g. :meth:`~weakcvx.labelsets.SemiSupervised.with_positive_range`)
    they are rounded and polished in that set, and the result is then an element of it.
    Every candidate is polished, not only
    the best one: where the relaxation's optimum is (nearly) not unique the candidates lie in
    different basins of ``J``, and ``J`` before polishing does not tell which basin is best
    (``tests/test_solve.py::test_rounding_reaches_the_true_labeling_on_separated_clusters``).

    Returns
    -------
    labels : ndarray
    value : float
        ``J(labels)``.
    alpha : ndarray
        The dual solution of ``J(labels)`` (the SVM of the labels).

    Examples
    --------
    >>> import numpy as np
    >>> import weakcvx as wc
    >>> X, y_true, y_known = wc.datasets.make_two_moons(20, n_labeled=2, random_state=0)
    >>> problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0),
    ...                               wc.labelsets.SemiSupervised(y_known), costs=10.0)
    >>> res = label_generation(problem)
    >>> labels, value, alpha = round_relaxation(problem, res.alpha, res.working_set, res.mu)
    >>> problem.labelset.contains(labels), bool(np.isclose(value, problem.J(labels)[0]))
    (True, True)
    """
    labelset = problem.labelset
    scores = problem.decision_scores(alpha, working_set, mu)
    candidates = [labelset.argmax(scores), working_set[int(np.argmax(mu))]]
    if eigen_candidates and getattr(labelset, "is_sign_set", True) and len(working_set) > 1:
        Y = np.stack(working_set) * np.sqrt(mu)[:, None]  # M = Yᵀ Y
        u = np.linalg.svd(Y, full_matrices=False)[2][0]
        u = u + 1e-9 * scores  # points every label agrees on are tied; follow f
        candidates += [labelset.argmax(u), labelset.argmax(-u)]
    distinct = []
    for b in candidates:
        if not any(np.array_equal(b, seen) for seen in distinct):
            distinct.append(b)
    if not polish:
        return round_scores(problem, scores, distinct[1:])
    best, ends = None, []
    if start is not None and start_exact:
        # exactly the alternating heuristic from `start`, so the result is never above it
        res = alternating(problem, initial=start)
        best = (res.labels, res.upper_bound, res.alpha)
        ends.append(res.labels)
        # a candidate equal to the start (often the heaviest label of C is b₀ itself) would
        # repeat that path with loose fits
        distinct = [b for b in distinct if not np.array_equal(b, start)]
    elif start is not None and not any(np.array_equal(start, b) for b in distinct):
        distinct.append(np.asarray(start, dtype=float))
    # polish with loose SVM fits (the labels only need the scores' signs); a loose fit brackets
    # J(b) between its dual value 1ᵀα − ½αᵀQ_bα (weak duality, α in the box) and its primal
    # value, so only the end points whose bracket reaches below the best J so far need an
    # exact J (warm-started), in the order of their loose values
    brackets = []
    for b in distinct:
        res = alternating(problem, initial=b, max_iter=polish_iter, j_tol=POLISH_TOL)
        if any(np.array_equal(res.labels, e) for e in ends):
            continue
        ends.append(res.labels)
        lower = problem.dual_value(res.alpha, res.labels)
        brackets.append((res.upper_bound, lower, len(brackets), res.labels, res.alpha))
    for _, lower, _, labels, alpha0 in sorted(brackets, key=lambda t: t[:3]):
        if best is not None and lower >= best[1]:
            continue
        value, alpha = problem.J(labels, alpha0=alpha0)
        if best is None or value < best[1]:
            best = (labels, value, alpha)
    if principal and getattr(labelset, "is_sign_set", True):
        if principal_labelset is not None:
            problem = problem.with_labelset(principal_labelset)
        best = _principal_challenge(problem, best, principal, principal_ratio, polish_iter)
    return best


def _principal_challenge(problem, best, k, ratio, polish_iter):
    r"""Replace ``best = (labels, J, α)`` by a polished rounding of one of the kernel's ``k``
    leading principal directions when its ``J`` is below ``ratio · J(labels)``.

    The search starts from the SVM of the few labeled points and can stay in that basin of
    ``J`` when the classes are clusters split by a low-density gap, where the split along a
    principal direction has a far lower ``J``; on real data the lower ``J`` of other basins
    comes with a lower accuracy, so only a large decrease counts (the ratio and the polish's
    stop were chosen on split seeds 0-9: docs/methods/s3vm.rst, "Principal-direction
    challengers"). Each direction is tried with the sign that agrees with the fixed labels,
    and, when it wins, with the other sign too (labeled points at the far ends of elongated
    clusters can agree with a direction along the clusters).
    """
    threshold = ratio * best[1]
    for b, flipped in principal_labelings(problem, k, flipped=True):
        won = _challenger(problem, b, best[1], threshold, ratio, polish_iter)
        if won is not None:
            best = won
            best = _challenger(problem, flipped, best[1], threshold, ratio, polish_iter) or best
    return best


def _challenger(problem, start, current, threshold, ratio, polish_iter):
    """``start`` polished, as ``(labels, J, α)``, when its ``J`` ends below
    ``min(threshold, current)``; else ``None``. Polished only from a rounding whose ``J`` is
    below ``current / ratio`` (the winners on gap clusters start at most 1.83 times above the
    search's, the polishes on real data that cost most start higher), and only while a fit
    lowers ``J`` by ``CHALLENGER_TOL``."""
    first, alpha0 = problem.J(start, tol=POLISH_TOL)
    if first >= current / ratio:
        return None
    res = alternating(problem, initial=start, max_iter=polish_iter, tol=CHALLENGER_TOL,
                      j_tol=POLISH_TOL, alpha0=alpha0)
    bar = min(threshold, current)
    if res.upper_bound >= bar:  # a loose fit's primal value bounds J(res.labels) from above
        return None
    value, alpha = problem.J(res.labels, alpha0=res.alpha)
    return (res.labels, value, alpha) if value < bar else None


def _blas_threads(problem):
    """One BLAS thread for a small problem (at most ``LARGE_N`` kernel points), the library's
    default above. A small solve is thousands of small products, where a second BLAS thread
    costs more in synchronisation than it gains, and much more when another process holds the
    other core. Chosen on S3VM fits of 300 to 2,000 points, with and without another busy
    process (docs/design.rst §3.3)."""
    from contextlib import nullcontext

    if problem.n_samples > LARGE_N:
        return nullcontext()
    return one_blas_thread()


def _small_problem_blas(func):
    """Run ``func(problem, ...)`` under :func:`_blas_threads` of its problem."""
    @functools.wraps(func)
    def wrapper(problem, *args, **kwargs):
        with _blas_threads(problem):
            return func(problem, *args, **kwargs)
    return wrapper


@dataclass(frozen=True)
class RoundPolicy:
    """How much work each round of :func:`label_generation` does: the defaults that depend on
    the problem's size, in one place (docs/design.rst §3.3: the inner solves dominate the
    cost, so a round solves its master loosely, warm-started, and the master over the final
    working set is solved further, to ``final_tol``).

    Attributes
    ----------
    tol : float
        Stop when the master value decreased by less than ``tol`` (relative) in ``patience``
        rounds in a row.
    max_alternations, master_tol, inner_tol :
        MKLGL alternation cap, saddle-gap tolerance and box-QP tolerance of a round's master
        (``inner_tol=None``: the master's own tolerance, clipped to [1e-8, 1e-2]; a number is
        used in the final master too).
    final_alternations, final_tol :
        The same for the master over the final working set, whose value is reported.
    n_starts : int
        Labels of C (by ``αᵀQ_bα``) that start the linearise-and-sort ascent.
    eigen_starts : bool
        Also start from the signs of the leading eigen-directions of ``H = K ∘ ααᵀ``.
    cuts : int
        Violated labels added per round: the most violated distinct end points of the ascent
        (several cutting planes per round; fewer rounds for the same master value).
    prune : float
        Drop the labels whose weight fell below ``prune · max μ`` before the next round.
    polish_iter : int
        SVM fits per rounding candidate in :func:`round_relaxation`.
    polish_start_exactly : bool
        Polish the first label of the search exactly as ``alternating`` does (then ``J(labels)``
        is never above the heuristic's); off on large problems, where it is polished like the
        other candidates (at most ``polish_iter`` loose fits).
    eigen_candidates : bool
        Rounding candidates from the leading eigenvector of ``M = Σ μ_t b_t b_tᵀ``.
    next_weights : bool
        Start each round's master from MKLGL's next weights at the last α
        (``MasterSolution.mu_next``) rather than from the weights that α was solved for; with
        one alternation a round the weights move only this way.
    principal_candidates : int
        Also polish the roundings of the kernel's this many leading principal directions, one
        replacing the rounded labels only when its ``J`` is below ``principal_ratio`` times
        theirs (:func:`round_relaxation`); 0: none.
    principal_ratio : float
        See ``principal_candidates``.
    label_patience : int or None
        Stop when the rounding of the prediction scores, ``labelset.argmax(f(x))``, is the same
        in this many rounds in a row (the rounded labels settle before the master value does);
        ``None``: only the value tests and the round cap stop the loop.

    Examples
    --------
    >>> import weakcvx as wc
    >>> X, y_true, y_known = wc.datasets.make_two_moons(20, n_labeled=2, random_state=0)
    >>> problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0),
    ...                               wc.labelsets.SemiSupervised(y_known), costs=10.0)
    >>> policy = RoundPolicy.for_problem(problem)          # 20 points: the small-problem defaults
    >>> policy.cuts, RoundPolicy.for_problem(problem, oracle="exact").cuts, RoundPolicy.paper().cuts
    (3, 1, 1)
    >>> res = label_generation(problem, policy=RoundPolicy.paper())
    >>> res.value <= res.upper_bound
    True
    """

    tol: float = 1e-2
    max_alternations: int = 2
    master_tol: float = 1e-2
    inner_tol: float | None = None
    final_alternations: int = 5
    final_tol: float = 1e-4
    n_starts: int = 2
    eigen_starts: bool = True
    cuts: int = 3
    prune: float = 0.0
    polish_iter: int = 20
    polish_start_exactly: bool = True
    eigen_candidates: bool = True
    principal_candidates: int = 0
    principal_ratio: float = 0.5
    label_patience: int | None = None
    next_weights: bool = True

    @classmethod
    def for_problem(cls, problem, oracle="sorting", **overrides):
        """The policy for ``problem``: the defaults above up to ``LARGE_N`` kernel points
        (``LARGE_LINEAR_N`` rows of features), a leaner one above (one start, one cut,
        pruning at 1%, short polish: a round there costs ``T`` passes over all points; on
        features, also two loose alternations a round, four rounds and no relabeling in the
        polish, chosen on seed 0 of ``weakcvx bench linear``), the certified settings with ``oracle="exact"`` (tight master in every round, one cut, no
        pruning, since the certificate is only as tight as the master's α). ``overrides``
        with value ``None`` are ignored."""
        large = is_large(problem)
        fields = {}
        if large:
            # the inner SVMs at 1e-2 in every master, the final one too: tighter was much
            # slower for the same labels (docs/design.rst §3.3)
            fields.update(n_starts=1, eigen_starts=False, cuts=1, prune=0.01, polish_iter=5,
                          eigen_candidates=False, final_alternations=6, inner_tol=1e-2,
                          polish_start_exactly=False)
        if large and problem.kernel is None:
            # feature rows: a round's α only seeds the oracle (two loose alternations), C keeps
            # the labels above 5% of the heaviest weight, four rounds (tol=1 counts every round
            # as stalled), no relabeling in the polish; chosen on seed 0 of `weakcvx bench
            # linear`, which tells the measurements
            fields.update(max_alternations=2, inner_tol=1.0, final_alternations=1,
                          final_tol=1.0, polish_iter=0, tol=1.0, prune=0.05,
                          next_weights=False)
        if oracle == "exact":
            fields.update(tol=1e-3, max_alternations=20, master_tol=1e-4, inner_tol=None,
                          cuts=1, prune=0.0)
        fields.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**fields)

    @classmethod
    def estimator(cls):
        """The short schedule of an estimator's default fit (``S3VM``) on a problem that is not
        :func:`is_large`: one MKLGL alternation a round, no eigen-direction starts or rounding
        candidates, and a stop once the rounded labels are the same as in the previous round.
        The estimator returns the rounded labels, which settle before the master value does
        (so the master value is that of a smaller working set: a looser estimate of the hull).
        Chosen on split seeds 0-9 of ``weakcvx bench peers``: the same labels' accuracy as the
        default policy at under half its time. Two principal challengers at ratio 0.5
        (``principal_candidates``): the short schedule from the supervised start misses a
        low-density gap the default policy finds; chosen on seeds 0-9 of gap clusters, two
        moons and the peers protocol. No final master beyond the last round's (one more
        alternation only when that master stopped above its saddle gap, ``final_tol=1``): the
        rounding polishes its candidates anyway; on the same seeds the same accuracy and J at
        about 12% less time than two final alternations to 1e-3 (docs/design.rst §3.3)."""
        return cls(max_alternations=1, final_alternations=1, final_tol=1.0,
                   eigen_starts=False, eigen_candidates=False, label_patience=1,
                   principal_candidates=2, principal_ratio=0.5)

    @classmethod
    def paper(cls):
        """WellSVM Algorithm 1 as published (Li et al. 2013, §4.1): one violated label a round,
        every master solved to a saddle gap of 1e-4 (up to 20 alternations a round), the
        relative-decrease test at 1e-3; the reference :func:`label_generation`'s defaults are
        compared with (``weakcvx bench peers``)."""
        return cls(tol=1e-3, max_alternations=20, master_tol=1e-4, inner_tol=None,
                   final_alternations=200, final_tol=1e-4, cuts=1)


def _check_driver_options(oracle, max_iter, tol, epsilon, cuts, label_patience=None):
    if oracle not in ("sorting", "exact"):
        raise ValueError(f"`oracle` must be 'sorting' or 'exact'. Got {oracle!r} instead.")
    for name, number in (("max_iter", max_iter), ("cuts", cuts),
                         ("label_patience", label_patience)):
        if number is not None or name == "max_iter":
            check_integer(number, name, 1)
    for name, number in (("tol", tol), ("epsilon", epsilon)):
        if number is not None:
            check_nonnegative(number, name)


def _first_label(problem, initial, random_state):
    """``b₀``: the supervised SVM's scores rounded by the label set (or its own initial rule),
    or the user's ``initial``, which must be feasible."""
    labelset = problem.labelset
    if initial is None:
        return labelset.check_own_element(
            labelset.initial(scores=supervised_scores(problem), random_state=random_state),
            "the first label: its oracle's rounding of the supervised scores")
    return labelset.check_element(initial, "initial")


def _master(problem, working_set, alpha, mu, master, policy, random_state, final=False,
            master_tol=None):
    """The master over the working set, warm-started from ``(alpha, mu)``."""
    rows, signs = problem.stack(working_set)
    tol = master_tol if master_tol is not None else \
        (policy.final_tol if final else policy.master_tol)
    return solve_master(_master_factor(problem, master), rows, signs, problem.costs,
                        master=master, alpha0=alpha, mu0=mu, tol=tol,
                        max_alternations=policy.final_alternations if final
                        else policy.max_alternations,
                        inner_tol=policy.inner_tol,
                        solver="CLARABEL" if problem.n_samples <= 300 else "SCS",
                        random_state=random_state, gram=getattr(problem, "gram", None),
                        dual=None if problem.fast else problem.formulation.dual,
                        shift=problem.shift)


def _violated(problem, sol, working_set, scores, policy, elements):
    """Candidate violated labels at the master's α, the most violated first, with their
    ``αᵀQ_bα``: by enumeration of B (``elements``) or by the sorting ascent."""
    alpha = sol.alpha
    if elements is not None:
        q_all = _all_quadratics(problem, alpha, elements)
        j = int(np.argmax(q_all))
        return [elements[j]], np.array([float(q_all[j])])
    labels, values = _violated_by_sorting(problem, alpha, working_set, sol.quadratics, scores,
                                          n_starts=policy.n_starts,
                                          eigen_starts=policy.eigen_starts)
    # the block ascent's values are exact up to rounding; the top one is recomputed directly
    values = np.array(values, dtype=float)
    values[0] = problem.quadratic(alpha, labels[0])
    return labels, values


def _grow(working_set, mu, cuts, values, threshold, policy):
    """Prune the light labels, then add the violated labels not yet in C (at most
    ``policy.cuts``), each entering with weight ``1/|C|``."""
    if policy.prune > 0 and len(working_set) > 1:
        keep = np.flatnonzero(mu >= policy.prune * mu.max())
        working_set = [working_set[t] for t in keep]
        mu = mu[keep] / mu[keep].sum()
    added = 0
    for b, q in zip(cuts, values):
        if added == policy.cuts or q <= threshold:
            break
        if any(np.array_equal(b, w) for w in working_set):
            continue
        working_set = [*working_set, np.asarray(b, dtype=float)]
        mu = np.append(mu * (1 - 1 / len(working_set)), 1 / len(working_set))
        added += 1
    return working_set, mu


@_small_problem_blas
def label_generation(problem, oracle="sorting", initial=None, epsilon=1e-3, tol=None,
                     max_iter=100, master=None, master_tol=None, max_alternations=None,
                     enumeration_limit=None, patience=3, prune=None, cuts=None, policy=None,
                     label_patience=None, principal_labelset=None, verbose=0, random_state=0,
                     callback=None):
    r"""WellSVM's convex relaxation by label generation (cutting planes + MKL).

    Solves ``min_{μ ∈ Δ(B)} max_{α ∈ A} 1ᵀα − ½αᵀ(Σ_b μ_b Q_b)α`` by growing a working set C:
    each round solves the master over C (MKLGL, loosely and warm-started), finds violated
    labels by the label set's sorting oracle, and adds up to ``cuts`` of them. The master over
    the final C is then solved to ``final_tol`` (:class:`RoundPolicy`), and the relaxation is
    rounded to feasible labels (:func:`round_relaxation`).

    Parameters
    ----------
    problem : WeakLabelProblem
    oracle : {"sorting", "exact"}
        ``"sorting"``: the label set's linear oracle on the linearisation (fast, not certified);
        ``"exact"``: enumerate B (tiny problems); the result's ``value`` is then the certified
        lower bound ``1ᵀα − ½ max_{b∈B} αᵀQ_bα``.
    initial : array or None
        First label in the working set; default: the supervised SVM's scores rounded by the label
        set (SSL), or the label set's own initial rule.
    epsilon : float
        Violation threshold, relative: stop when ``αᵀQ_{b*}α ≤ αᵀQ_{b̂}α + 2ε·max(1, value)``.
    tol : float or None
        Stop when the master value decreases by less than ``tol`` (relative) in ``patience``
        consecutive rounds. ``None``: :class:`RoundPolicy`'s (1e-2; 1e-3 with the exact oracle).
    max_iter : int
        Maximum cutting-plane rounds.
    master : {"mklgl", "cvxpy"} or None
        Master solver. Default: ``"mklgl"`` (fast alternation) with the sorting oracle;
        ``"cvxpy"`` (the SOCP, Clarabel up to 300 points, SCS above) with ``oracle="exact"``.
    master_tol, max_alternations, prune, cuts, label_patience :
        Override the round's fields of :class:`RoundPolicy` (``None``: its defaults for this
        problem's size). ``master_tol`` also sets the final master's tolerance.
    policy : RoundPolicy or None
        The whole policy, e.g. :meth:`RoundPolicy.paper` (WellSVM Algorithm 1 as published:
        one cut a round, every master solved to 1e-4); the overrides above still apply.
    patience : int
        Stalled rounds in a row before the ``tol`` test stops the loop.
    principal_labelset : LabelSet or None
        The label set the policy's principal challengers are rounded and polished in
        (:func:`round_relaxation`; default: the problem's), a wider set over the same points:
        ``S3VM`` passes its balance widened to the range between the labeled class ratio and
        its default estimate (docs/methods/s3vm.rst, "Principal-direction challengers"). The
        result's ``labels`` are then an element of that set, and ``upper_bound`` bounds the
        problem over it, not necessarily over the problem's own set.
    verbose : int
        Log one line per round at INFO level on ``logging.getLogger("weakcvx")`` when > 0.
    callback : callable, optional
        Called with the history record after each round.

    Returns
    -------
    SolveResult
        ``value``: master value over the final working set (certified lower bound of the MIP when
        ``oracle="exact"``); ``labels``: the rounding of the relaxation
        (:func:`round_relaxation`); ``upper_bound = J(labels)``.

    Examples
    --------
    >>> import weakcvx as wc
    >>> X, y_true, y_known = wc.datasets.make_two_moons(40, n_labeled=2, random_state=0)
    >>> K = wc.kernels.rbf(X, gamma=2.0)
    >>> problem = wc.WeakLabelProblem(K, wc.labelsets.SemiSupervised(y_known), costs=10.0)
    >>> res = label_generation(problem)
    >>> res.value <= res.upper_bound
    True
    """
    _check_driver_options(oracle, max_iter, tol, epsilon, cuts, label_patience)
    start = time.perf_counter()
    overrides = {k: v for k, v in dict(tol=tol, master_tol=master_tol, prune=prune, cuts=cuts,
                                         max_alternations=max_alternations,
                                         label_patience=label_patience).items()
                 if v is not None}
    if policy is None:
        policy = RoundPolicy.for_problem(problem, oracle, **overrides)
    elif not isinstance(policy, RoundPolicy):
        raise TypeError(f"`policy` must be a RoundPolicy. Got {type(policy).__name__} instead.")
    else:
        policy = replace(policy, **overrides)
    if master_tol is not None:
        policy = replace(policy, final_tol=master_tol)
    if master is None:
        master = "cvxpy" if oracle == "exact" or not problem.fast else "mklgl"
    elif master == "mklgl" and not problem.fast:
        raise ValueError(f"`master`='mklgl' needs a formulation with a box fast path; "
                         f"{problem.formulation!r} has none: use master='cvxpy' (or None).")
    elements = None
    if oracle == "exact":
        elements = problem.labelset.enumerate(
            **({} if enumeration_limit is None else {"limit": enumeration_limit}))
    b0 = _first_label(problem, initial, random_state)
    working_set = [b0]
    alpha = mu = sol = None
    history = []
    status, message = "max_iter", f"stopped after max_iter={max_iter} rounds"
    best_value, stalled, certified_value, tight_retry = np.inf, 0, -np.inf, False
    round_tol = None
    it, rounded, settled = 0, None, 0
    for it in range(1, max_iter + 1):
        sol = _master(problem, working_set, alpha, mu, master, policy, random_state,
                      master_tol=round_tol)
        alpha, value = sol.alpha, sol.value
        # the weights the next round starts from: MKLGL's next alternation at this α
        mu = sol.mu_next if policy.next_weights and sol.mu_next is not None else sol.mu
        q_hat = float(np.max(sol.quadratics))
        scores = problem.decision_scores(alpha, working_set, sol.mu)
        cuts_found, q_cuts = _violated(problem, sol, working_set, scores, policy, elements)
        if elements is not None:
            # any α of the box certifies 1ᵀα − ½ max_{b∈B} αᵀQ_bα ≤ hull value (minimax): keep
            # the best over the rounds, the last α need not be the best one
            certified_value = max(certified_value, problem.f(alpha) - 0.5 * float(q_cuts[0]))
        violation = float(q_cuts[0]) - q_hat
        record = {"iteration": it, "value": value, "lower": sol.lower, "violation": violation,
                  "working_set_size": len(working_set), "alternations": sol.n_alternations,
                  "seconds": time.perf_counter() - start}
        history.append(record)
        if verbose:
            logger.info("label_generation it=%d value=%.6g violation=%.3g |C|=%d", it, value,
                        violation, len(working_set))
        if callback is not None:
            callback(record)
        threshold = q_hat + 2 * epsilon * max(1.0, abs(value))
        if q_cuts[0] <= threshold:
            status, message = "converged", "no violated label (WellSVM Algorithm 1 test)"
            break
        if policy.label_patience is not None and elements is None:
            new_rounded = problem.labelset.argmax(scores)
            settled = settled + 1 if rounded is not None and np.array_equal(new_rounded, rounded) \
                else 0
            rounded = new_rounded
            if settled >= policy.label_patience:
                status, message = "converged", (f"the rounded labels did not change in "
                                                f"{settled} rounds")
                break
        # The paper's second test ("the decrease of the objective is below a threshold") alone
        # stops too early: a freshly added label may not lower the master value at once while
        # the violation is still large. Stop only after `patience` stalled rounds in a row,
        # judged against the best value so far (with pruning the value can rise for a round).
        stalled = stalled + 1 if best_value - value < policy.tol * max(1.0, abs(best_value)) \
            else 0
        # with the exact oracle the bound is only the hull value once no label is violated
        if stalled >= patience and oracle != "exact":
            status, message = "converged", (f"relative decrease of the master value below tol "
                                            f"for {patience} rounds")
            break
        if all(any(np.array_equal(b, w) for w in working_set)
               for b, q in zip(cuts_found, q_cuts) if q > threshold):
            # every violated label found is already in C: the master is inexact at this α;
            # with the exact oracle solve it tighter once before giving up
            if oracle == "exact" and policy.master_tol > 1e-9 and not tight_retry:
                tight_retry = True
                round_tol = policy.master_tol * 1e-2
                continue
            status, message = "converged", "the oracle returned a label already in the working set"
            break
        best_value = min(best_value, value)
        if it == max_iter:
            break  # the master over the final working set is the one just solved
        working_set, mu = _grow(working_set, mu, cuts_found, q_cuts, threshold, policy)
    return _finish(problem, policy, master, working_set, sol, random_state, elements,
                   certified_value, status, message, it, history, start, b0,
                   principal_labelset)


def _finish(problem, policy, master, working_set, sol, random_state, elements,
            certified_value, status, message, it, history, start, b0, principal_labelset=None):
    """Solve the master over the final working set to ``policy.final_tol`` (MKLGL), take the
    certified value with the exact oracle, round the relaxation, and build the result."""
    if master == "mklgl" and (not sol.converged or sol.value - sol.lower
                              > policy.final_tol * max(1.0, abs(sol.value))):
        sol = _master(problem, working_set, sol.alpha, sol.mu, master, policy, random_state,
                      final=True)
        if not sol.converged:
            # not silent: the value is the master's upper value, its certified bracket is
            # [master_lower, master_value]; the message says so
            message += (f"; the MKLGL master over the final working set stopped with saddle gap "
                        f"{sol.value - sol.lower:.3g} above master_tol={policy.final_tol:g} "
                        f"(bracket in extra['master_lower'], extra['master_value'])")
    alpha, mu = sol.alpha, sol.mu
    value = float(sol.value)
    certified = False
    extra = {"master_value": value, "master_lower": float(sol.lower),
             "oracle": "sorting" if elements is None else "exact"}
    if elements is not None:
        q_all = _all_quadratics(problem, alpha, elements)
        value = max(certified_value, problem.f(alpha) - 0.5 * float(q_all.max()))
        certified = True
    labels, upper, labels_alpha = round_relaxation(problem, alpha, working_set, mu,
                                                   polish_iter=policy.polish_iter,
                                                   eigen_candidates=policy.eigen_candidates,
                                                   start=b0,
                                                   start_exact=policy.polish_start_exactly,
                                                   principal=policy.principal_candidates,
                                                   principal_ratio=policy.principal_ratio,
                                                   principal_labelset=principal_labelset)
    extra["scores"] = problem.decision_scores(alpha, working_set, mu)
    extra["labels_alpha"] = labels_alpha  # the SVM of `labels`: α of J(labels)
    return SolveResult(method="label_generation", value=value, labels=labels, upper_bound=upper,
                       certified=certified, status=status, message=message, n_iter=it,
                       seconds=time.perf_counter() - start, history=history, alpha=alpha, mu=mu,
                       working_set=working_set, extra=extra)
