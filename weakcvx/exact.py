r"""Exact solution of the MIP ``min_{y ∈ B} J(y)`` (docs/design.rst §3.5).

- :func:`enumerate_optimum` evaluates ``J`` on every element of B with warm starts: the ground
  truth for tests and for tiny problems (up to ~16 unknown labels).
- :func:`branch_and_bound`: depth-first branch and bound over partial labelings for the label
  sets described by counts (semi-supervised, clustering, proportions), with the SVM on the
  assigned points as the certified lower bound (Chapelle, Sindhwani & Keerthi 2006) or, with
  ``bound="hull"``, a certified bound of the node's convex-hull relaxation on top of it, or,
  with ``bound="sdp"``, a certified bound of the node's SDP relaxation (:class:`_NodeSDP`).
- :func:`depth_first` and :func:`search_summary`: the search loop (limits, Ctrl-C, progress)
  and its summary, shared with :func:`weakcvx.bnb_s3vm.branch_and_bound_s3vm`.

Timings and the measurements behind the defaults: ``weakcvx bench bnb`` and
docs/methods/s3vm.rst.
"""

from __future__ import annotations

import logging
import math
import time
import warnings
from numbers import Integral, Real

import numba
import numpy as np
import scipy.linalg
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from ._validation import warn
from .cutting_plane import label_generation
from .result import SolveResult, SolverError
from .rounding import best_of_starts

__all__ = ["enumerate_optimum", "branch_and_bound", "depth_first", "search_summary"]

logger = logging.getLogger("weakcvx")


def enumerate_optimum(problem, limit=None, tol=1e-8, verbose=0):
    """Global optimum of ``min_{b∈B} J(b)`` by enumerating B.

    Every ``J(b)`` is an SVM box QP solved to ``tol`` and warm-started from the previous α
    (consecutive elements differ in few labels). For symmetric sets (clustering) only one of
    ``b``, ``−b`` is solved. A labeling whose dual is unbounded (a hard margin, α without an
    upper bound, on a labeling the kernel cannot separate: the primal is infeasible) has
    ``J(b) = +∞`` and is skipped.

    Parameters
    ----------
    problem : WeakLabelProblem
    limit : int, optional
        Refuse label sets larger than this (default: the label set's enumeration limit).
    tol : float
        Box-QP tolerance.

    Returns
    -------
    SolveResult
        ``value = upper_bound = min J``, ``certified=True``, ``extra["values"]`` all ``J(b)``.

    Raises
    ------
    SolverError
        When ``J(b)`` is unbounded for every element of B (status ``"unbounded"``), or a solve
        fails otherwise.

    Examples
    --------
    >>> import numpy as np, weakcvx as wc
    >>> X = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    >>> problem = wc.WeakLabelProblem(features=X,
    ...     labelset=wc.labelsets.SemiSupervised(np.array([-1, 0, 0, 1])))
    >>> enumerate_optimum(problem).labels
    array([-1., -1.,  1.,  1.])
    """
    start = time.perf_counter()
    labelset = problem.labelset
    elements = labelset.enumerate() if limit is None else labelset.enumerate(limit=limit)
    values = np.full(len(elements), np.inf)
    alpha = None
    seen = {}
    for k, b in enumerate(elements):
        if getattr(labelset, "symmetric", False):
            key = (-b).tobytes()
            if key in seen:
                values[k] = values[seen[key]]
                continue
            seen[b.tobytes()] = k
        try:
            values[k], alpha_k = problem.J(b, alpha0=alpha, tol=tol)
        except SolverError as exc:
            if not exc.status.startswith("unbounded"):
                raise
            continue               # J(b) = +∞: no classifier of that formulation fits b
        alpha = alpha_k if alpha is None or alpha_k.shape == alpha.shape else None
    if not np.isfinite(values).any():
        raise SolverError("exact", "unbounded", f"J(b) is unbounded (+∞) for every labeling of "
                          f"the label set ({len(elements)} enumerated): "
                          f"{type(problem.formulation).__name__}.dual() has no finite optimum on "
                          "any of them (e.g. a hard margin the kernel cannot meet): bound α (a "
                          "finite C)")
    j = int(np.argmin(values))
    best_value, best_alpha = problem.J(elements[j], tol=tol)
    return SolveResult(method="exact", value=best_value, labels=elements[j].copy(),
                       upper_bound=best_value, certified=True, status="optimal",
                       message=f"enumerated all {len(elements)} labelings", n_iter=len(elements),
                       seconds=time.perf_counter() - start,
                       history=[{"iteration": len(elements), "value": best_value}],
                       alpha=best_alpha, mu=np.ones(1), working_set=[elements[j].copy()],
                       extra={"values": values, "n_nodes": len(elements)})

# ---------------------------------------------------------------------------------------------
# Branch and bound (docs/design.rst §3.5; Chapelle, Sindhwani & Keerthi 2006)
# ---------------------------------------------------------------------------------------------

#: Progress lines of a search (verbose >= 1): every second for its first PROGRESS_QUIET_AFTER
#: seconds, then every PROGRESS_INTERVAL seconds.
PROGRESS_QUIET_AFTER = 10.0
PROGRESS_INTERVAL = 5.0

#: Label-generation rounds of the default incumbent seed (the rounding of the convex-hull
#: relaxation): kept cheap, the depth-first search finds better leaves within its first nodes
#: (docs/methods/s3vm.rst).
SEED_MAX_ITER = 5

BOUNDS = ("svm", "hull", "sdp")

#: With ``polish``, every this many nodes the node's classifier is rounded to a feasible
#: labeling and descended locally (:meth:`_BranchAndBound.complete`, :func:`_polish`): about
#: half the nodes of polishing leaves only (docs/methods/s3vm.rst).
COMPLETE_EVERY = 50

#: ``bound="hull"`` is computed only at nodes whose SVM bound is within this relative distance
#: of the pruning threshold: farther ones it almost never prunes (the gate keeps nearly all
#: the nodes saved at a fraction of the time, docs/methods/s3vm.rst).
HULL_GATE = 0.1

#: ``bound="sdp"`` (:meth:`_BranchAndBound.sdp_bound`): computed at nodes whose SVM bound is
#: within ``SDP_GATE`` (relative) of the pruning threshold; at most ``SDP_POINTS`` free
#: points (those nearest the node's margin) enter its SDP; ``SDP_EVALUATIONS`` evaluations
#: of the smoothed dual function at the soft-minimum temperatures ``SDP_TEMPERATURES``
#: (relative to the bound's size). Measurements in docs/methods/s3vm.rst.
SDP_GATE = 0.05
SDP_POINTS = 150
SDP_EVALUATIONS = 60
SDP_TEMPERATURES = (1e-2, 1e-3)


@numba.njit(cache=True)
def _node_cd(K, idx, y, c, alpha, f, tol, max_steps, stop_at, dual):
    """Greedy coordinate ascent on a node's box QP, in place on ``alpha`` and ``f``.

    Maximises ``D(α) = 1ᵀα − ½ αᵀQα`` over ``0 ≤ α_i ≤ c_i`` for ``i ∈ idx`` (``α`` is zero
    elsewhere), ``Q_ij = y_i y_j K_ij``. ``f = K(α ∘ y)`` is kept for *all* points: it is the
    node's classifier, which the branching rule reads on the unassigned points. Each step takes
    the coordinate of largest projected gradient (Gauss–Southwell) and maximises exactly along
    it; ``dual`` grows by the step's exact increase. Stops when every projected gradient is
    below ``tol`` (converged), as soon as ``dual ≥ stop_at`` (every iterate is dual-feasible, so
    the node can then be pruned) or after ``max_steps``.
    """
    m = idx.shape[0]
    n = K.shape[0]
    steps = 0
    while steps < max_steps:
        best = -1
        best_pg = tol
        for s in range(m):
            i = idx[s]
            g = y[i] * f[i] - 1.0
            a = alpha[i]
            if a <= 0.0:
                pg = -g
            elif a >= c[i]:
                pg = g
            else:
                pg = abs(g)
            if pg > best_pg:
                best_pg = pg
                best = i
        if best < 0:
            return steps, dual, True
        i = best
        g = y[i] * f[i] - 1.0
        qii = K[i, i]
        a = alpha[i]
        new = min(max(a - g / qii, 0.0), c[i]) if qii > 0.0 else c[i]
        delta = new - a
        dual -= g * delta + 0.5 * qii * delta * delta
        alpha[i] = new
        coef = delta * y[i]
        for j in range(n):
            f[j] += coef * K[i, j]
        steps += 1
        if dual >= stop_at:
            return steps, dual, False
    return steps, dual, False


@numba.njit(cache=True)
def _hull_cd(absK, U, fU, cU, gid, a_lo, a_hi, alpha, n_passes):
    """Coordinate ascent on ``Φ(α_U, τ)`` of :meth:`_BranchAndBound.hull_bound` (in place on
    ``alpha``, indexed like ``U``).

    ``Φ = Σ_j [α_j − |α_j f_j − τ_{g(j)}|] − Σ_g max(τ_g a_hi_g, τ_g a_lo_g) − ½ α_Uᵀ|K_UU|α_U``
    is jointly concave; ``max_τ Φ(α, τ) = φ(α)``. Each pass sets every ``τ_g`` to its exact
    maximiser (a breakpoint of a piecewise-linear function: a weighted-median search) and then
    maximises exactly along each ``α_j`` (three candidates of a concave piecewise quadratic, and
    the box ends). Ascent on ``φ`` is monotone; it may stall at a kink, which costs tightness,
    never validity (the caller evaluates the bound exactly at the final ``α``).
    """
    m = U.shape[0]
    n_groups = a_lo.shape[0]
    v = np.zeros(m)  # |K_UU| α_U
    for s in range(m):
        if alpha[s] != 0.0:
            for t in range(m):
                v[t] += absK[U[s], U[t]] * alpha[s]
    tau = np.zeros(n_groups)
    r = np.empty(m)
    for _ in range(n_passes):
        # τ_g ← argmin_τ Σ_{j∈g} |r_j − τ| + max(τ a_hi, τ a_lo): candidates 0 and every r_j
        for s in range(m):
            r[s] = alpha[s] * fU[s]
        for g in range(n_groups):
            best_t = 0.0
            best_val = np.inf
            for cand in range(-1, m):
                if cand >= 0 and gid[cand] != g:
                    continue
                t = 0.0 if cand < 0 else r[cand]
                val = max(t * a_hi[g], t * a_lo[g])
                for s in range(m):
                    if gid[s] == g:
                        val += abs(r[s] - t)
                if val < best_val:
                    best_val = val
                    best_t = t
            tau[g] = best_t
        # α_j ← argmax over [0, c_j] of p a − ½ q a² − |a f_j − τ|
        for s in range(m):
            j = U[s]
            q = absK[j, j]
            a_old = alpha[s]
            p = 1.0 - (v[s] - q * a_old)
            f = fU[s]
            t = tau[gid[s]]
            best_a = 0.0
            best_val = -abs(t)
            for k in range(5):
                if k == 0:
                    a = cU[s]
                elif q <= 0.0:
                    continue
                elif k == 1:
                    a = (p - f) / q
                elif k == 2:
                    a = (p + f) / q
                elif k == 3:
                    if f == 0.0:
                        continue
                    a = t / f
                else:
                    a = a_old
                a = min(max(a, 0.0), cU[s])
                val = p * a - 0.5 * q * a * a - abs(a * f - t)
                if val > best_val:
                    best_val = val
                    best_a = a
            delta = best_a - a_old
            if delta != 0.0:
                alpha[s] = best_a
                for t2 in range(m):
                    v[t2] += absK[j, U[t2]] * delta
    return alpha


def _gain(v, s, c):
    """Increase of ``max_a a·v − ½ a² s`` over ``0 ≤ a ≤ c`` (0 when ``v ≤ 0``), vectorised."""
    s = np.maximum(s, 1e-300)
    a = np.clip(v / s, 0.0, c)
    return a * v - 0.5 * a * a * s


class _Node:
    """A partial labeling and its SVM: ``labels`` (0 = unassigned), ``alpha``, ``f = K(α∘y)``,
    per-group positives assigned ``pos`` and unassigned ``rem``, and the certified ``bound``."""

    __slots__ = ("labels", "alpha", "f", "pos", "rem", "bound", "depth", "converged",
                 "hull_alpha", "dual", "sdp_state")

    def __init__(self, labels, alpha, f, pos, rem, bound, depth, converged=False,
                 hull_alpha=None, sdp_state=None):
        self.labels, self.alpha, self.f = labels, alpha, f
        self.pos, self.rem = pos, rem
        self.bound, self.depth, self.converged = bound, depth, converged
        self.hull_alpha = hull_alpha
        self.sdp_state = sdp_state  # bound="sdp": the warm start of the children (_NodeSDP)
        self.dual = 0.0  # D_S at the node's α: the SVM bound itself


class _BranchAndBound:
    """State and steps of one branch-and-bound run (see :func:`branch_and_bound`)."""

    #: Projected-gradient tolerance of the node SVMs (inner nodes, leaves). Any iterate gives a
    #: certified bound; the tolerance only decides how tight it is, and leaves (whose primal
    #: value is an incumbent J) are solved tightly; inner 1e-3 gives the node counts of 1e-7
    #: in far fewer steps (docs/methods/s3vm.rst).
    qp_tol = (1e-3, 1e-9)
    #: Coordinate steps allowed per node SVM, per assigned point.
    steps_per_point = 20000

    def __init__(self, problem, bound="svm"):
        labelset = problem.labelset
        cc = labelset.count_constraints()
        self.problem = problem
        self.n = n = problem.n_samples
        # the bounds must refer to the kernel J uses: the Gram matrix when the solvers work on
        # it, else K = R Rᵀ (not problem.kernel, from which a factor may drop tiny eigenvalues)
        if problem.gram is not None:
            K = problem.gram
        else:
            R = problem.factor
            K = R @ R.T
        self.K = np.ascontiguousarray(K.toarray() if hasattr(K, "toarray") else K, dtype=float)
        self.diag = np.ascontiguousarray(np.diag(self.K))
        self.absK = np.abs(self.K) if bound == "hull" else None
        self.c = np.ascontiguousarray(problem.costs, dtype=float)
        fixed, groups = cc
        self.fixed = np.asarray(fixed, dtype=float)
        self.lo = np.array([lo for _, lo, _ in groups], dtype=np.int64)
        self.hi = np.array([hi for _, _, hi in groups], dtype=np.int64)
        self.members = [np.asarray(idx, dtype=np.int64) for idx, _, _ in groups]
        self.group_of = np.full(n, -1, dtype=np.int64)
        for g, idx in enumerate(self.members):
            self.group_of[idx] = g
        self.n_steps = 0
        self.symmetric = bool(getattr(labelset, "symmetric", False))

    # -- counts -------------------------------------------------------------------------------
    def _assign(self, node, points, values, groups=()):
        """Assign labels in place, then fill every group whose count leaves one choice.

        Returns the list of newly assigned points, or ``None`` when a count can no longer be
        met (the node is infeasible)."""
        new = list(points)
        touched = set(groups)
        for i, v in zip(points, values):
            node.labels[i] = v
            g = self.group_of[i]
            if g >= 0:
                node.rem[g] -= 1
                node.pos[g] += v > 0
                touched.add(g)
        for g in touched:
            if node.pos[g] > self.hi[g] or node.pos[g] + node.rem[g] < self.lo[g]:
                return None
            if node.rem[g] == 0:
                continue
            if node.pos[g] == self.hi[g]:
                value = -1.0
            elif node.pos[g] + node.rem[g] == self.lo[g]:
                value = 1.0
            else:
                continue
            idx = self.members[g]
            free = idx[node.labels[idx] == 0]
            node.labels[free] = value
            node.pos[g] += len(free) if value > 0 else 0
            node.rem[g] = 0
            new.extend(free.tolist())
        return new

    # -- the node's SVM -----------------------------------------------------------------------
    def solve(self, node, stop_at, leaf):
        """Solve the node's box QP warm (in place); returns ``node.bound`` (certified)."""
        tol = self.qp_tol[1] if leaf else self.qp_tol[0]
        idx = np.flatnonzero(node.labels)
        if idx.size == 0:
            node.bound, node.converged, node.dual = max(node.bound, 0.0), True, 0.0
            return node.bound
        y = node.labels
        dual = float(node.alpha.sum() - 0.5 * np.dot(node.alpha * y, node.f))
        steps_left = self.steps_per_point * idx.size
        while True:
            steps, dual, converged = _node_cd(self.K, idx, y, self.c, node.alpha, node.f, tol,
                                              steps_left, stop_at, dual)
            self.n_steps += steps
            steps_left -= steps
            # exact dual value at the final α (the running value carries rounding)
            ay = node.alpha[idx] * y[idx]
            node.f = self.K[:, idx] @ ay
            dual = float(node.alpha[idx].sum() - 0.5 * np.dot(ay, node.f[idx]))
            if converged or dual >= stop_at or steps_left <= 0:
                break
        node.converged = converged
        node.dual = dual
        node.bound = max(node.bound, dual)
        return node.bound

    def primal(self, node):
        """SVM primal at ``w = Σ α_i y_i φ(x_i)`` on a complete labeling: an upper bound of J."""
        y, f = node.labels, node.f
        return float(0.5 * np.dot(node.alpha * y, f)
                     + np.dot(self.c, np.maximum(0.0, 1.0 - y * f)))

    # -- the stronger bound ------------------------------------------------------------------
    #: Coordinate-ascent passes of the hull bound per node.
    hull_passes = 8

    def hull_bound(self, node):
        r"""A certified lower bound of the node's convex-hull relaxation (``bound="hull"``).

        With the node's SVM ``α_S`` (classifier ``f = K(α∘y)``) and any ``0 ≤ α_U ≤ c_U``,
        for every completion ``b`` of the node (``y_U = b``), weak duality gives

        .. math::

            J(y) \ge D(α) = D_S(α_S) + 1^\top α_U - \sum_{j∈U} α_j b_j f_j
                 - \tfrac12 \Big\|\sum_{j∈U} α_j b_j φ(x_j)\Big\|^2
                 \ge D_S(α_S) + 1^\top α_U - \max_{b ∈ B_U} \sum_{j∈U} α_j f_j b_j
                 - \tfrac12 α_U^\top |K_{UU}| α_U

        (``|K|`` element-wise: ``b_j b_k K_jk ≤ |K_jk|``). The max is a linear oracle over the
        node's remaining counts, solved exactly by sorting. This is
        ``1ᵀα − ½ U(α)`` with ``U(α) ≥ max_{b∈B_node} αᵀQ_bα``, the certified form of the
        hull value of the node; at ``α_U = 0`` it is the SVM bound. It sees what the SVM bound
        ignores: points inside the node classifier's margin, and the counts (points the
        classifier would put on the side that is already full). ``α_U`` is found by coordinate
        ascent (:func:`_hull_cd`, warm-started from the parent's) and the bound is evaluated
        exactly at the result.
        """
        U = np.flatnonzero(node.labels == 0)
        if U.size == 0:
            return -np.inf
        gid = self.group_of[U]
        groups = np.unique(gid)
        gid = np.searchsorted(groups, gid)
        # remaining positives needed among U in each group: [need_lo, need_hi]
        need_lo = np.maximum(self.lo[groups] - node.pos[groups], 0)
        need_hi = np.minimum(self.hi[groups] - node.pos[groups], node.rem[groups])
        size = node.rem[groups]
        a_lo = (2 * need_lo - size).astype(float)  # range of Σ_{j∈U_g} b_j
        a_hi = (2 * need_hi - size).astype(float)
        fU = np.ascontiguousarray(node.f[U])
        cU = np.ascontiguousarray(self.c[U])
        alpha = np.zeros(U.size) if node.hull_alpha is None else node.hull_alpha[U].copy()
        _hull_cd(self.absK, U, fU, cU, gid, a_lo, a_hi, alpha, self.hull_passes)
        full = np.zeros(self.n)
        full[U] = alpha
        node.hull_alpha = full
        # the certified value, evaluated exactly at α_U
        r = alpha * fU
        linear = 0.0
        for g in range(len(groups)):
            rg = np.sort(r[gid == g])[::-1]
            top = 2.0 * np.concatenate([[0.0], np.cumsum(rg)]) - rg.sum()  # m positives
            linear += top[need_lo[g]:need_hi[g] + 1].max()
        Kabs = self.absK[np.ix_(U, U)]
        return node.dual + float(alpha.sum()) - linear - 0.5 * float(alpha @ Kabs @ alpha)

    def sdp_bound(self, node, points=None, evaluations=None, temperatures=None):
        r"""A certified bound of the node's SDP relaxation (``bound="sdp"``, :class:`_NodeSDP`).

        The node's SDP: ``max_α 1ᵀα − ½ φ_node(H_α)`` with ``φ_node`` the SDP over
        ``M ⪰ 0``, ``diag M = 1``, ``M_SS = y_S y_Sᵀ`` (the assigned labels) and the node's
        remaining counts; it is below every completion's ``J`` and at ``α_U = 0`` equals the
        SVM bound. Here ``α`` is kept on the assigned points and the ``points`` free points of
        smallest ``|f(x_j)|`` (``W``; the others at 0, which only weakens the bound), the
        counts enter as the norm constraints of :class:`_NodeSDP` (with ``W = U`` and exact
        counts, the node's SDP itself), and ``(α, y, μ)`` ascend the smoothed dual function
        for ``evaluations`` evaluations from the parent's point. The value is the exact
        certificate at the final point: valid whatever the ascent did. Returns ``-inf`` at a
        leaf.
        """
        points = SDP_POINTS if points is None else points
        evaluations = SDP_EVALUATIONS if evaluations is None else evaluations
        temperatures = SDP_TEMPERATURES if temperatures is None else temperatures
        U = np.flatnonzero(node.labels == 0)
        if U.size == 0:
            return -np.inf
        W = U[np.argsort(np.abs(node.f[U]), kind="stable")[:points]]
        model = _NodeSDP(self, node, W)
        x = model.ascend(model.start(node, node.sdp_state), evaluations, temperatures)
        node.sdp_state = model.state(x)
        return model.certify(x)

    def complete(self, node):
        """A feasible completion of the node: its classifier's labels, rounded by the label set
        (the relabeling scores of :func:`weakcvx.local.relabel_scores` on the free points, the
        assigned labels kept by scores of overwhelming size)."""
        from .local import relabel_scores

        scores = relabel_scores(node.f, self.c)
        big = 1e6 * (1.0 + float(np.abs(scores).max()))
        return self.problem.labelset.argmax(np.where(node.labels != 0, big * node.labels,
                                                     scores))

    # -- branching ---------------------------------------------------------------------------
    def branch(self, node):
        """Eq. 7 of Chapelle et al. adapted to the hinge without offset.

        For an unassigned ``x`` with label ``y``, ``v = 1 − y f(x)``; if ``x`` joined the free
        support vectors F (their set unchanged), the SVM value would grow by
        ``max_{0≤a≤c_x} a v − ½ a² S_x`` with the Schur complement ``S_x = K_xx − k_Fᵀ K_FF⁻¹
        k_F`` (add-one-in). Branch on the point whose worse label would raise it most; explore
        its other label first. Returns ``(point, first_label, gains)`` with the certified
        one-coordinate gains ``(gain(+1), gain(−1))`` computed with ``S_x = K_xx``."""
        U = np.flatnonzero(node.labels == 0)
        idx = np.flatnonzero(node.labels)
        a = node.alpha[idx]
        free = idx[(a > 1e-10 * self.c[idx]) & (a < self.c[idx] * (1 - 1e-10))]
        fU = node.f[U]
        S = self.diag[U].copy()
        if free.size:
            KFF = self.K[np.ix_(free, free)]
            jitter = 1e-10 * max(1.0, float(np.max(np.diag(KFF))))
            try:
                L = np.linalg.cholesky(KFF + jitter * np.eye(free.size))
                Z = scipy.linalg.solve_triangular(L, self.K[np.ix_(free, U)], lower=True,
                                                  check_finite=False)
                S = np.maximum(S - np.einsum("ij,ij->j", Z, Z), 1e-12 * self.diag[U])
            except np.linalg.LinAlgError:
                pass
        cU = self.c[U]
        g_pos = _gain(1.0 - fU, S, cU)
        g_neg = _gain(1.0 + fU, S, cU)
        k = int(np.argmax(np.maximum(g_pos, g_neg)))
        x = int(U[k])
        first = 1.0 if g_pos[k] < g_neg[k] or (g_pos[k] == g_neg[k] and fU[k] >= 0) else -1.0
        d = self.diag[x]
        cheap = (float(_gain(1.0 - fU[k], d, cU[k])), float(_gain(1.0 + fU[k], d, cU[k])))
        return x, first, cheap


# ---------------------------------------------------------------------------------------------
# bound="sdp": a certified SDP bound of a node, restricted to the free points nearest its margin
# ---------------------------------------------------------------------------------------------
class _NodeSDP:
    r"""The dual function of a node's SDP relaxation on ``S ∪ W`` (``bound="sdp"``).

    ``S``: the assigned points (labels ``y_S``, merged into the lifted row ``τ``); ``W``: the
    free points kept (``d = 1 + |W|`` lifted rows); the other free points ``Z`` keep
    ``α_Z = 0``. Variables ``x = (α_S, α_W, y ∈ R^d, μ ≥ 0)``; with ``u = α_S ∘ y_S``,

    .. math::

        \tilde H = \begin{pmatrix} u^\top K_{SS} u & (α_W ∘ K_{WS} u)^\top \\
            α_W ∘ K_{WS} u & D_{α_W} K_{WW} D_{α_W} \end{pmatrix},\qquad
        \mathrm{LB}(x) = 1^\top α_S + 1^\top α_W - \tfrac12\Big(\textstyle\sum_i y_i
            + \sum_g μ_g r_g^2 - d\,λ_{\min}\big(N^\top(\mathrm{Diag}\,y
            + \sum_g μ_g a_g a_g^\top - \tilde H)N\big)\Big).

    Each group ``g`` of free points with ``[lo_g, hi_g]`` positives still needed among its
    free points ``U_g`` gives ``a_g = (s_g, −1_{W_g})`` with ``s_g`` the middle of the range
    of ``1ᵀy_{U_g}`` and ``r_g = |Z_g| + (range width)/2``: every completion ``b`` satisfies
    ``|a_gᵀ(1, b_W)| ≤ r_g``, i.e. ``a_gᵀM̃a_g ≤ r_g²`` for ``M̃ = (1, b_W)(1, b_W)ᵀ``. Groups
    with ``r_g = 0`` (exact count, all free points in ``W``) are equations ``M̃a_g = 0``: ``N``
    is an orthonormal basis of the complement of those ``a_g`` (no Slater point otherwise), the
    others enter with ``μ_g``. ``LB(x) ≤ J(y_S, b)`` for every completion ``b`` and *every*
    ``x`` (weak duality twice: ``tr M̃ = d`` on the relaxation, see
    :func:`weakcvx.lowrank_sdp.certify`), so any iterate is certified once ``λ_min`` is
    computed exactly; the ascent maximises a soft minimum ``−τ log Σ e^{−λ_i/τ} ≤ λ_min``.
    """

    def __init__(self, bb, node, W):
        self.bb, self.W = bb, W
        labels = node.labels
        self.S = S = np.flatnonzero(labels)
        self.yS = labels[S]
        self.K_SS = bb.K[np.ix_(S, S)]
        self.K_WS = bb.K[np.ix_(W, S)]
        self.K_WW = bb.K[np.ix_(W, W)]
        self.d = d = 1 + W.size
        pos = np.full(bb.n, -1, dtype=np.int64)
        pos[W] = 1 + np.arange(W.size)
        null, rows, radii = [], [], []
        for g, members in enumerate(bb.members):
            free = members[labels[members] == 0]
            inW = pos[free][pos[free] >= 0]
            if inW.size == 0:  # |s_g| ≤ r_g always: no constraint on W
                continue
            lo = 2 * max(bb.lo[g] - node.pos[g], 0) - free.size
            hi = 2 * min(bb.hi[g] - node.pos[g], node.rem[g]) - free.size
            a = np.zeros(d)
            a[0], a[inW] = 0.5 * (lo + hi), -1.0
            radius = free.size - inW.size + 0.5 * (hi - lo)
            if radius == 0:
                null.append(a)
            else:
                rows.append(a)
                radii.append(radius)
        if null:
            Q, _ = np.linalg.qr(np.array(null).T, mode="complete")
            self.N = Q[:, len(null):]
        else:
            self.N = np.eye(d)
        self.A = np.array(rows).reshape(len(rows), d)
        self.r2 = np.square(np.array(radii, dtype=float))
        self.c = np.concatenate([bb.c[S], bb.c[W]])
        self.sizes = (S.size, W.size, d, len(rows))

    def split(self, x):
        s, w, d, _ = self.sizes
        return x[:s], x[s:s + w], x[s + w:s + w + d], x[s + w + d:]

    def matrix(self, x):
        """``(aS, aW, y, μ, Nᵀ(Diag y + Σμ_g a_g a_gᵀ − H̃)N)`` and ``K_{SS}u``, ``f_W``."""
        aS, aW, y, mu = self.split(x)
        u = aS * self.yS
        Ku = self.K_SS @ u
        fW = self.K_WS @ u
        H = np.empty((self.d, self.d))
        H[0, 0] = u @ Ku
        H[0, 1:] = H[1:, 0] = aW * fW
        H[1:, 1:] = aW[:, None] * self.K_WW * aW[None, :]
        M = (self.A.T * mu) @ self.A - H
        M[np.diag_indices_from(M)] += y
        return aS, aW, y, mu, self.N.T @ M @ self.N, Ku, fW

    def negative(self, x, tau):
        """``−LB`` with the soft minimum at temperature ``tau``, and its gradient."""
        aS, aW, y, mu, S, Ku, fW = self.matrix(x)
        lam, U = np.linalg.eigh(S)
        z = np.exp(-(lam - lam[0]) / tau)
        soft = lam[0] - tau * np.log(z.sum())
        NU = self.N @ (U * np.sqrt(z / z.sum()))
        P = NU @ NU.T  # ∂ soft / ∂(the unrestricted matrix)
        d = self.d
        value = aS.sum() + aW.sum() - 0.5 * (y.sum() + mu @ self.r2 - d * soft)
        g_aS = 1.0 - d * self.yS * (P[0, 0] * Ku + self.K_WS.T @ (P[0, 1:] * aW))
        g_aW = 1.0 - d * (P[0, 1:] * fW + (P[1:, 1:] * self.K_WW) @ aW)
        g_y = -0.5 + 0.5 * d * np.diag(P)
        g_mu = -0.5 * self.r2 + 0.5 * d * np.einsum("gi,ij,gj->g", self.A, P, self.A)
        return -value, -np.concatenate([g_aS, g_aW, g_y, g_mu])

    def certify(self, x):
        """The certified ``LB(x)``: exact smallest eigenvalue less a rounding margin."""
        aS, aW, y, mu, S, _, _ = self.matrix(x)
        lam = float(scipy.linalg.eigh(S, eigvals_only=True, subset_by_index=[0, 0],
                                      check_finite=False)[0])
        lam -= 10 * S.shape[0] * np.finfo(float).eps * float(np.linalg.norm(S))
        return float(aS.sum() + aW.sum() - 0.5 * (y.sum() + mu @ self.r2 - self.d * lam))

    def start(self, node, state):
        """The node's SVM ``α_S`` (where ``LB`` is the SVM bound), or the parent's point."""
        S, W = self.S, self.W
        aS = node.alpha[S]
        u = aS * self.yS
        y = np.zeros(self.d)
        y[0] = u @ (self.K_SS @ u)
        aW = np.zeros(W.size)
        mu = np.zeros(self.sizes[3])
        if state is not None:
            aW = state["alpha"][W]
            y[1:] = state["y"][W]
            y[0] = max(y[0], state["y0"])
        return np.concatenate([aS, aW, y, mu])

    def ascend(self, x, evaluations, temperatures):
        """L-BFGS-B on the smoothed ``LB`` over the box of ``α`` and ``μ ≥ 0``."""
        import scipy.optimize

        s, w, d, m = self.sizes
        bounds = [(0.0, ci) for ci in self.c] + [(None, None)] * d + [(0.0, None)] * m
        per = max(2, evaluations // len(temperatures))
        scale = max(1.0, float(x[:s].sum()))  # the size of LB (≈ 1ᵀα_S − ½ u ᵀK u)
        for t in temperatures:
            res = scipy.optimize.minimize(self.negative, x, args=(t * scale / d,), jac=True,
                                          method="L-BFGS-B", bounds=bounds,
                                          options={"maxfun": per, "maxiter": per})
            x = res.x
        lo = np.concatenate([np.zeros(s + w), np.full(d, -np.inf), np.zeros(m)])
        hi = np.concatenate([self.c, np.full(d + m, np.inf)])
        return np.clip(x, lo, hi)

    def state(self, x):
        """The warm start handed to the children: ``α`` and ``y`` by point, ``y_τ``."""
        aS, aW, y, _ = self.split(x)
        alpha = np.zeros(self.bb.n)
        alpha[self.W] = aW
        yy = np.zeros(self.bb.n)
        yy[self.W] = y[1:]
        return {"alpha": alpha, "y": yy, "y0": float(y[0])}


def _seed(problem, incumbent, random_state):
    """Initial incumbent ``(labels, value, source)``: given labels, or the rounding of the
    convex-hull relaxation (label generation), or none."""
    labelset = problem.labelset
    if isinstance(incumbent, str) and incumbent == "none":
        return None, np.inf, "none"
    if incumbent is None:
        with warnings.catch_warnings():  # the seed's J is an upper bound either way
            warnings.simplefilter("ignore", ConvergenceWarning)
            res = best_of_starts(label_generation, problem, random_state=random_state,
                                 max_iter=SEED_MAX_ITER)
        return np.asarray(res.labels, dtype=float), float(res.upper_bound), "label_generation"
    if isinstance(incumbent, SolveResult):
        labels, source = incumbent.labels, f"SolveResult({incumbent.method})"
    else:
        labels, source = incumbent, "given"
    labels = np.asarray(labels, dtype=float)
    if not labelset.contains(labels):
        raise ValueError("`incumbent` must be an element of the label set (a feasible "
                         "labeling), a SolveResult, None or 'none'. Got an infeasible labeling.")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        value, _ = problem.J(labels, tol=1e-8)
    return labels, float(value), source


def _polish(problem, labels, value):
    """Local descent from a new incumbent (:func:`weakcvx.local.alternating`: SVM fit and exact
    relabeling by the label set's oracle). Returns ``(labels, value)``, improved or not; the
    value is a primal SVM value, so an upper bound of ``J(labels)`` either way."""
    from .local import alternating

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        res = alternating(problem, initial=labels, max_iter=20)
    if res.upper_bound < value:
        return np.asarray(res.labels, dtype=float), float(res.upper_bound)
    return labels, value




def _check_limit(value, name, kind):
    if value is None:
        return None
    if kind is int:
        ok = (isinstance(value, Integral) and not isinstance(value, bool) and value >= 1)
    else:
        ok = (isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value)
              and value > 0)
    if not ok:
        what = "a positive integer" if kind is int else "a positive finite number of seconds"
        raise ValueError(f"`{name}` must be None or {what}. Got {value!r} instead.")
    return value


def branch_and_bound(problem, bound="svm", max_nodes=None, time_limit=None, incumbent=None,
                     tol=1e-6, verbose=0, random_state=0, *, polish=True):
    r"""Global optimum of ``min_{y ∈ B} J(y)`` by depth-first branch and bound.

    For label sets described by counts (:class:`~weakcvx.labelsets.SemiSupervised`,
    :class:`~weakcvx.labelsets.Clustering`, :class:`~weakcvx.labelsets.Proportions`: fixed
    labels plus groups with a range of positives). Other label sets are enumerated
    (:func:`enumerate_optimum`).

    Parameters
    ----------
    problem : WeakLabelProblem
    bound : {"svm", "hull", "sdp"}, default="svm"
        Lower bound at a node (see Notes). ``"svm"``: the SVM value on the assigned points
        (Chapelle et al. 2006 §4). ``"hull"``: additionally a certified lower bound of the
        node's convex-hull relaxation, computed when the SVM bound does not prune but is
        within ``HULL_GATE`` (relative) of the pruning threshold. ``"sdp"``: additionally a
        certified bound of the node's SDP relaxation (:meth:`_BranchAndBound.sdp_bound`),
        computed within ``SDP_GATE``. ``"svm"`` stays the default: on two moons the other
        two save a few per cent of the nodes and cost more time than they save
        (``weakcvx bench bnb``, docs/methods/s3vm.rst).
    max_nodes : int, optional
        Stop after this many nodes (nodes whose SVM was solved).
    time_limit : float, optional
        Stop after this many seconds (wall clock of the whole call, the seed included).
    incumbent : array-like, SolveResult, None or "none"
        Initial best labeling (an element of B, or a result whose ``labels`` is used).
        ``None``: the rounding of the convex-hull relaxation, i.e. the labels of
        :func:`weakcvx.solve` with ``method="label_generation"`` (``max_iter=SEED_MAX_ITER``).
        ``"none"``: start without one.
    tol : float, default=1e-6
        Relative optimality tolerance: a node is pruned when its certified bound is at least
        ``incumbent − tol·max(1, |incumbent|)``.
    verbose : int, default=0
        ``1``: progress lines on ``logging.getLogger("weakcvx")`` (INFO, every second, every
        ``PROGRESS_INTERVAL`` = 5 s after the first 10 s);
        ``2``: also a ``tqdm`` bar.
    random_state : int, RandomState or None
        Passed to the label-generation seed.
    polish : bool, default=True
        Run the local descent of :func:`weakcvx.local.alternating` (a few SVM solves) from the
        seed, from every new incumbent found at a leaf, and every ``COMPLETE_EVERY`` nodes
        from the rounding of the node's classifier: a lower upper bound prunes more (see
        ``COMPLETE_EVERY``).

    Returns
    -------
    SolveResult
        ``method="exact"``, ``labels`` the best labeling found, ``upper_bound = J(labels)``.
        When the search finished: ``status="optimal"``, ``certified=True`` and
        ``value = upper_bound``, the optimum (to ``tol``). When a limit stopped it:
        ``status="node_limit"``, ``"time_limit"``, ``"interrupted"`` (Ctrl-C: the search
        stops and returns its incumbent) or ``"solver_error"`` (a node's solver failed: the
        message names it), ``certified=False``, a
        :class:`~sklearn.exceptions.ConvergenceWarning`, and ``value`` a certified global lower
        bound (the smallest bound over the open nodes and the closed part of the tree), so
        ``value ≤ optimum ≤ upper_bound``. ``extra``: ``n_nodes``, ``incumbent`` (its J),
        ``lower_bound``, ``root_bound``, ``seed`` (source, J before and after polishing, and
        seconds of the initial incumbent),
        ``n_pruned``, ``n_steps`` (coordinate steps), ``sdp_nodes``, ``sdp_pruned`` and
        ``sdp_seconds`` (``bound="sdp"``: nodes where the SDP bound was computed, those it
        pruned, its time; 0 otherwise); ``history``: one record per incumbent
        improvement (``iteration`` = nodes so far, ``value``, ``lower_bound``, ``seconds``).

    Raises
    ------
    ValueError
        For an unknown ``bound``, bad limits, or an infeasible ``incumbent``.

    Notes
    -----
    A node is a partial labeling: the fixed labels of B plus labels assigned on the way down,
    on the set S of assigned points; the others (U) are free. Its lower bound is the SVM on S,

    .. math::

        J_S = \max_{0 \le \alpha_S \le c_S} 1^\top\alpha_S - \tfrac12 \alpha_S^\top
              (K_{SS} \circ y_S y_S^\top) \alpha_S \;\le\; J(y) \quad
              \text{for every completion } y \in B \text{ of } y_S,

    because ``α = (α_S, 0)`` is feasible in the dual of ``J(y)`` and its dual value does not
    depend on ``y_U`` (the terms of U all carry ``α_U = 0``): weak duality gives
    ``J(y) ≥ D(α_S, 0) = D_S(α_S)`` for *any* feasible ``α_S``, in particular for the solver's
    current iterate. So the bound is certified without solving the node exactly (Chapelle,
    Sindhwani & Keerthi 2006, §4, with zeros for the unlabeled points), and a node's solve stops
    as soon as its dual value reaches the pruning threshold. Bounds grow down the tree
    (``J_S ≤ J_{S'}`` for ``S ⊂ S'``), and a child starts from its parent's α (new points at
    0) with an exact increase for free: the one-coordinate step on the new point,
    ``max_{0≤a≤c_x} a(1 − y f(x)) − ½ a² K_xx`` with the parent's classifier f, is also
    certified and prunes some children before their SVM is solved.

    Pruning: by bound (above), and by counts (a group whose positives can no longer reach its
    range). When a group's count leaves one choice (its maximum of positives reached, or all its
    remaining points needed as positives) its unassigned points are labeled at once. For a
    symmetric set (clustering, ``y`` and ``−y`` equivalent) one point — the one of largest
    kernel row sum — is fixed to +1 at the root.

    Branching, Chapelle et al. eq. 7 for the hinge loss without offset: for an unassigned
    ``x`` and label ``y``, ``v = 1 − y f(x)``; if ``x`` joined the free support vectors F
    unchanged, the SVM value would grow by ``max_{0≤a≤c_x} a v − ½ a² S_x`` with the Schur
    complement ``S_x = K_xx − k_Fᵀ K_FF⁻¹ k_F`` (add-one-in, Proposition 1 of the paper without
    the offset row and with the box of the L1 hinge). Branch on the point whose worse label
    would raise the value most, explore its other label first, depth first.

    The node SVM is a dedicated solver (greedy coordinate ascent on the dense kernel, numba,
    keeping ``f = K(α∘y)`` on all points); its reference twin is
    :func:`weakcvx.svm.solve_box_qp` (tests check they agree).

    ``bound="hull"`` (beyond the paper): when the SVM bound does not prune (but comes within
    ``HULL_GATE`` of the threshold), the node also gets the certified bound of
    :meth:`_BranchAndBound.hull_bound`,

    .. math::

        D_S(α_S) + 1^\top α_U - \max_{b ∈ B_U} \sum_{j∈U} α_j f(x_j) b_j
        - \tfrac12 α_U^\top |K_{UU}| α_U \;\le\; \min_{b ∈ B_U} J(y_S, b),

    i.e. ``1ᵀα − ½ U(α)`` with ``U(α) ≥ max_{b∈B_node} αᵀQ_bα`` (the cross terms between
    assigned and free points are kept exactly, by the sorting oracle over the node's remaining
    counts; only the free–free block is over-estimated by ``|K|``): a certified lower bound of
    the node's convex-hull value, equal to the SVM bound at ``α_U = 0``. What is *not* used:
    the label-generation (master) value of the node, which with the sorting oracle is an
    estimate from above and would not certify anything; and the SDP, which is below the hull
    value. On two moons ``"hull"`` saves a few percent of the nodes at about the same total
    time: the convex hull is far below the MIP there, and the SVM bound is cheap
    (``weakcvx bench bnb``; measurements in docs/methods/s3vm.rst).

    ``bound="sdp"``: at a node the SVM bound does not prune (but within ``SDP_GATE`` of the
    threshold), a certified value of the node's SDP relaxation, the SDP rung of
    docs/design.rst §3.10 with the assigned labels pinned (``M_SS = y_S y_Sᵀ``) and the
    node's remaining counts:

    .. math::

        1^\top α - \tfrac12\Big(\textstyle\sum_i y_i + \sum_g μ_g r_g^2
        - d\,λ_{\min}\big(N^\top(\mathrm{Diag}\,y + \textstyle\sum_g μ_g a_g a_g^\top
        - \tilde H_α)N\big)\Big) \;\le\; \min_{b ∈ B_U} J(y_S, b)

    for every ``α`` supported on the assigned points and a set ``W`` of free points, every
    ``y`` and ``μ ≥ 0`` (weak duality; ``H̃_α`` is ``diag(α)Kdiag(α)`` with the assigned rows
    merged, ``a_g``, ``r_g`` the counts as norm constraints, ``N`` the equations among them:
    :class:`_NodeSDP`). ``(α, y, μ)`` ascend a soft minimum of it for ``SDP_EVALUATIONS``
    evaluations (L-BFGS-B, from the node's SVM ``α``, where it equals the SVM bound, and the
    parent's ``α_W``, ``y``), and the value is the exact certificate at the end point. With
    ``W`` all free points and a long ascent it is the node's SDP value (tests check it against
    the CVXPY model of :mod:`weakcvx.sdp`).

    References
    ----------
    O. Chapelle, V. Sindhwani, S. S. Keerthi. Branch and bound for semi-supervised support
    vector machines. NIPS 2006.

    Examples
    --------
    >>> import weakcvx as wc
    >>> X, y_true, y_known = wc.datasets.make_two_moons(20, n_labeled=2, random_state=0)
    >>> problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0),
    ...                               wc.labelsets.SemiSupervised(y_known), costs=10.0)
    >>> res = branch_and_bound(problem)
    >>> res.certified, res.value == res.upper_bound
    (True, True)
    """
    start = time.perf_counter()
    if bound not in BOUNDS:
        raise ValueError(f"`bound` must be one of {BOUNDS}. Got {bound!r} instead.")
    max_nodes = _check_limit(max_nodes, "max_nodes", int)
    time_limit = _check_limit(time_limit, "time_limit", float)
    if not isinstance(tol, Real) or not math.isfinite(tol) or tol < 0:
        raise ValueError(f"`tol` must be a non-negative float. Got {tol!r} instead.")
    if not problem.fast:
        # the node bound sets the α of unassigned points to 0: A must be a box containing 0
        raise ValueError(f"branch_and_bound needs a formulation whose A is a box containing 0 "
                         f"(a fast path, Formulation.box()); {problem.formulation!r} declares "
                         "none. Use solve(problem, method='exact', algorithm='enumerate') on "
                         "tiny problems.")
    labelset = problem.labelset
    cc = labelset.count_constraints()
    if cc is None or getattr(labelset, "is_sign_set", True) is False:
        logger.info("branch_and_bound: %s has no count description; enumerating it",
                    type(labelset).__name__)
        return enumerate_optimum(problem, verbose=verbose)

    # the node problems are tiny: threaded BLAS only adds latency (docs/methods/s3vm.rst)
    with threadpool_limits(limits=1, user_api="blas"):
        inc_labels, inc_value, source = _seed(problem, incumbent, random_state)
        seed_value = inc_value
        if polish and inc_labels is not None:
            inc_labels, polished_value = _polish(problem, inc_labels, inc_value)
            if polished_value < inc_value:
                inc_value, source = polished_value, source + " + alternating"
        seed = {"source": source, "value": seed_value, "polished": inc_value,
                "seconds": time.perf_counter() - start}
        return _search(problem, bound, max_nodes, time_limit, tol, verbose, random_state,
                       start, inc_labels, inc_value, seed, polish)


# ---------------------------------------------------------------------------------------------
# The depth-first loop, shared with weakcvx.bnb_s3vm: limits, Ctrl-C, progress, the summary
# ---------------------------------------------------------------------------------------------


class _Progress:
    """Progress of a search: a line on the ``"weakcvx"`` logger with ``verbose >= 1``, at most
    once a second for the first ``PROGRESS_QUIET_AFTER`` seconds and once every
    ``PROGRESS_INTERVAL`` seconds after (a 60 s search printed 60 lines), and a ``tqdm`` bar of
    the nodes with ``verbose >= 2``."""

    def __init__(self, name, verbose, start):
        self.name, self.verbose, self.start = name, verbose, start
        self.last = time.perf_counter()
        self.bar = None
        if verbose >= 2:
            from tqdm.auto import tqdm

            self.bar = tqdm(desc=name.replace("_", " "), unit=" nodes")

    def node(self, tree):
        """One more node problem solved."""
        if self.bar is not None:
            self.bar.update(1)
        now = time.perf_counter()
        interval = 1.0 if now - self.start < PROGRESS_QUIET_AFTER else PROGRESS_INTERVAL
        if self.verbose and now - self.last >= interval:
            depth, incumbent, lower = tree.progress()
            logger.info("%s: %d nodes, %d open, depth %d, incumbent %.8g, lower bound %.8g, "
                        "%.1f s", self.name, tree.n_nodes, len(tree.stack), depth, incumbent,
                        lower, now - self.start)
            if self.bar is not None:
                self.bar.set_postfix(incumbent=f"{incumbent:.6g}", open=len(tree.stack))
            self.last = now

    def close(self):
        if self.bar is not None:
            self.bar.close()


def depth_first(tree, start, max_nodes=None, time_limit=None, verbose=0, *,
                name="branch_and_bound", solve_root=False):
    """The depth-first loop of a branch and bound, with its node solver as a parameter.

    ``tree`` holds the open entries in ``tree.stack`` (the last one is expanded first) and the
    number of node problems solved so far in ``tree.n_nodes``, and answers

    - ``tree.expand(entry)``: prune, solve and branch one popped entry (its children go on
      ``tree.stack``); true when it solved a node problem;
    - ``tree.interrupted(entry)``: Ctrl-C struck, or a node's solver failed
      (:class:`~weakcvx.SolverError`), while ``entry`` was being expanded (``None`` between
      entries): keep its subtree in the lower bound; false when the search has nothing to
      return yet (the exception is then raised again);
    - ``tree.progress()``: ``(depth, incumbent, lower bound)`` for the progress line.

    Before each entry the limits are checked: ``max_nodes`` node problems, ``time_limit``
    seconds since ``start`` (with ``solve_root``, only once a node has been solved).

    Returns
    -------
    str
        ``"optimal"`` (no open entry left), ``"node_limit"``, ``"time_limit"``,
        ``"interrupted"`` or ``"solver_error"`` (the error is kept in ``tree.failure``: the
        search stops there, since a node it cannot solve leaves its subtree open, and the
        incumbent with the certified bound of the open entries is still an answer).

    Examples
    --------
    A toy tree, the 0/1 strings of length 3, where every entry is one node problem:

    >>> import time
    >>> class Strings:
    ...     def __init__(self):
    ...         self.stack, self.n_nodes, self.leaves = [()], 0, []
    ...     def expand(self, entry):
    ...         self.n_nodes += 1
    ...         if len(entry) == 3:
    ...             self.leaves.append(entry)
    ...         else:
    ...             self.stack += [entry + (1,), entry + (0,)]   # the 0 branch first
    ...         return True
    ...     def interrupted(self, entry):
    ...         return False
    ...     def progress(self):
    ...         return 0, 0.0, 0.0
    >>> tree = Strings()
    >>> depth_first(tree, time.perf_counter()), tree.n_nodes, tree.leaves[:2]
    ('optimal', 15, [(0, 0, 0), (0, 0, 1)])
    >>> tree = Strings()
    >>> depth_first(tree, time.perf_counter(), max_nodes=4), tree.n_nodes, len(tree.stack)
    ('node_limit', 4, 3)
    """
    progress = _Progress(name, verbose, start)
    status, entry = "optimal", None
    try:
        while tree.stack:
            if max_nodes is not None and tree.n_nodes >= max_nodes:
                status = "node_limit"
                break
            if (time_limit is not None and (tree.n_nodes or not solve_root)
                    and time.perf_counter() - start >= time_limit):
                status = "time_limit"
                break
            entry = tree.stack.pop()
            solved = tree.expand(entry)
            entry = None
            if solved:
                progress.node(tree)
    except KeyboardInterrupt:
        if not tree.interrupted(entry):
            raise
        status = "interrupted"
    except SolverError as error:
        if not tree.interrupted(entry):
            raise
        status, tree.failure = "solver_error", error
    finally:
        progress.close()
    return status


def search_summary(name, status, n_nodes, upper, lower, max_nodes, time_limit, start,
                   verbose=0, detail="", failure=None):
    """``(value, message, seconds)`` of a finished or stopped search.

    ``value`` is the optimum ``upper`` when the search finished, else the certified lower
    bound ``lower``; a search stopped by a limit, or by a node solver's ``failure``
    (``status="solver_error"``), warns (ConvergenceWarning) that its labels are not proven
    optimal. With ``verbose``, the message goes to the ``"weakcvx"`` logger.

    Examples
    --------
    >>> import time, warnings
    >>> start = time.perf_counter()
    >>> search_summary("my_search", "optimal", 15, 2.5, 2.5, None, None, start)[:2]
    (2.5, 'optimal: 15 nodes, certified lower bound 2.5')
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     value, message, _ = search_summary("my_search", "node_limit", 4, 3.0, 2.0, 4, None,
    ...                                        start)
    >>> value, message   # stopped: the certified lower bound, not the best J
    (2.0, 'stopped by max_nodes=4 after 4 nodes: best J 3, certified lower bound 2 (gap 1)')
    >>> caught[0].category.__name__
    'ConvergenceWarning'
    """
    seconds = time.perf_counter() - start
    if status == "optimal":
        value = upper
        message = f"optimal: {n_nodes} nodes, certified lower bound {lower:.10g}{detail}"
    else:
        value = lower
        limit = {"node_limit": f"max_nodes={max_nodes}", "interrupted": "Ctrl-C (interrupted)",
                 "time_limit": f"time_limit={time_limit} s",
                 "solver_error": f"a node it could not solve ({failure})"}[status]
        message = (f"stopped by {limit} after {n_nodes} nodes: best J {upper:.8g}, certified "
                   f"lower bound {lower:.8g} (gap {upper - lower:.3g})")
        warn(f"{name} {message}; the labels are not proven optimal.",
             ConvergenceWarning)
    if verbose:
        logger.info("%s: %s (%.2f s)", name, message, seconds)
    return value, message, seconds


# ---------------------------------------------------------------------------------------------
# The tree of branch_and_bound
# ---------------------------------------------------------------------------------------------


def _leaf_incumbent(problem, node, value, polish):
    """A leaf that beats the incumbent: its labels and primal value, polished by the
    alternating heuristic when ``polish`` (kept only if that lowers the value). Returns
    ``(labels, value, alpha or None, source)``."""
    labels, alpha, found_by = node.labels.copy(), node.alpha.copy(), "leaf"
    if polish:
        polished, polished_value = _polish(problem, labels, value)
        if polished_value < value:
            return polished, polished_value, None, "leaf + alternating"
    return labels, value, alpha, found_by


def _root(bb, labelset):
    """The root node: the fixed labels, a symmetric set's pinned point (the one with the
    largest kernel row sum: y and −y give the same J), and the counts that leave one choice."""
    n = bb.n
    root = _Node(bb.fixed.copy(), np.zeros(n), np.zeros(n),
                 np.zeros(len(bb.members), dtype=np.int64),
                 np.array([len(m) for m in bb.members], dtype=np.int64), 0.0, 0)
    pinned = []
    if bb.symmetric and np.any(bb.group_of >= 0):
        free = np.flatnonzero(bb.group_of >= 0)
        pinned = [int(free[np.argmax(bb.K[free].sum(axis=1))])]
    if bb._assign(root, pinned, [1.0] * len(pinned), groups=range(len(bb.members))) is None:
        raise ValueError(f"{labelset!r} has no feasible labeling.")  # the label sets forbid it
    return root, pinned


class _Tree:
    """The search state of :func:`branch_and_bound` for :func:`depth_first`: open entries
    ``(certified bound, parent, node, point, label)``, the incumbent, the bound of the closed
    part of the tree, and the counters."""

    def __init__(self, problem, bb, bound, tol, polish, verbose, start, inc_labels, inc_value,
                 seed):
        self.problem, self.bb, self.bound, self.tol = problem, bb, bound, tol
        self.polish, self.verbose, self.start = polish, verbose, start
        self.inc_labels, self.inc_value, self.inc_alpha = inc_labels, inc_value, None
        self.root, self.pinned = _root(bb, problem.labelset)
        self.stack = [(0.0, None, self.root, None, None)]
        self.n_nodes, self.n_pruned, self.closed = 0, 0, np.inf
        self.failure = None  # the SolverError that stopped the search, if one did
        self.root_bound, self.depth = None, 0
        self.sdp = {"nodes": 0, "pruned": 0, "seconds": 0.0}
        self.history = [{"iteration": 0, "value": inc_value, "lower_bound": -np.inf,
                         "source": seed["source"], "seconds": time.perf_counter() - start}]

    def threshold(self):
        """Prune at or above: the incumbent less the relative tolerance."""
        inc = self.inc_value
        return inc - self.tol * max(1.0, abs(inc)) if np.isfinite(inc) else np.inf

    def open_bound(self):
        return min((e[0] for e in self.stack), default=np.inf)

    def lower(self):
        return min(self.closed, self.open_bound(), self.inc_value)

    def progress(self):
        return self.depth, self.inc_value, self.lower()

    def interrupted(self, entry):
        # the bound of the entry being expanded stays in the certified lower bound
        if entry is not None:
            self.closed = min(self.closed, entry[0])
        return True

    def _new_incumbent(self, labels, value, alpha, source):
        self.inc_labels, self.inc_value, self.inc_alpha = labels, value, alpha
        self.history.append({"iteration": self.n_nodes, "value": value,
                             "lower_bound": self.lower(), "source": source,
                             "seconds": time.perf_counter() - self.start})

    def expand(self, entry):
        """Prune ``entry`` or solve its node: a leaf may become the incumbent, an inner node
        is branched (eq. 7). True when a node's SVM was solved."""
        bb = self.bb
        lb, parent, node, x, label = entry
        thr = self.threshold()
        if lb >= thr:
            self.closed = min(self.closed, lb)
            self.n_pruned += 1
            return False
        if node is None:  # build the child of `parent` that labels x
            node = _Node(parent.labels.copy(), parent.alpha.copy(), parent.f.copy(),
                         parent.pos.copy(), parent.rem.copy(), lb, parent.depth + 1,
                         hull_alpha=parent.hull_alpha, sdp_state=parent.sdp_state)
            if bb._assign(node, [x], [label]) is None:
                return False  # no completion meets the counts: prune (contributes no bound)
        leaf = not np.any(node.rem)
        self.n_nodes += 1
        self.depth = node.depth
        bound_value = bb.solve(node, thr, leaf)
        if self.root_bound is None:
            self.root_bound = bound_value
        if (self.bound == "hull" and not leaf
                and thr - HULL_GATE * max(1.0, abs(thr)) <= bound_value < thr):
            bound_value = max(bound_value, bb.hull_bound(node))
            node.bound = bound_value
        if (self.bound == "sdp" and not leaf
                and thr - SDP_GATE * max(1.0, abs(thr)) <= bound_value < thr):
            bound_value = node.bound = max(bound_value, self._sdp(node, thr))
        if bound_value >= thr:
            self.closed = min(self.closed, bound_value)
            self.n_pruned += 1
        elif leaf:
            self.closed = min(self.closed, bound_value)
            value = bb.primal(node)
            if value < self.inc_value:
                self._new_incumbent(*_leaf_incumbent(self.problem, node, value, self.polish))
                if self.verbose:
                    logger.info("branch_and_bound: node %d new incumbent J=%.8g", self.n_nodes,
                                self.inc_value)
        else:
            self._branch(node)
        return True

    def _sdp(self, node, thr):
        """:meth:`_BranchAndBound.sdp_bound` of ``node``, counted and timed."""
        t0 = time.perf_counter()
        value = self.bb.sdp_bound(node)
        self.sdp["nodes"] += 1
        self.sdp["pruned"] += value >= thr
        self.sdp["seconds"] += time.perf_counter() - t0
        return value

    def _branch(self, node):
        """Every ``COMPLETE_EVERY`` nodes (with ``polish``) try the node's rounded classifier as
        incumbent; then push the two children of the eq. 7 point, the likelier label last."""
        bb = self.bb
        if self.polish and self.n_nodes % COMPLETE_EVERY == 1:
            labels, value = _polish(self.problem, bb.complete(node), np.inf)
            if value < self.inc_value:
                self._new_incumbent(labels, value, None, "node completion + alternating")
        x, first, cheap = bb.branch(node)
        # certified: the child's dual at (α_S, one exact step on x); the node's own bound
        bounds = [max(node.bound, node.dual + step) for step in cheap[:2]]  # (+1, −1)
        for child in (-first, first):  # pushed last, explored first: the likelier label
            self.stack.append((bounds[0] if child > 0 else bounds[1], node, None, x, child))

    def result(self, status, max_nodes, time_limit, seed, random_state):
        """The :class:`SolveResult`: the incumbent's exact ``J`` (an upper bound), the
        certified lower bound (closed and open nodes), the message and, when a limit stopped
        the search, the ConvergenceWarning."""
        problem, labelset = self.problem, self.problem.labelset
        inc_labels, inc_value = self.inc_labels, self.inc_value
        if inc_labels is None:  # a limit struck before any leaf and without a seed
            f = self.root.f
            inc_labels = labelset.initial(scores=f if np.any(f) else None,
                                          random_state=random_state)
            inc_value = np.inf
        with warnings.catch_warnings():  # the primal value is an upper bound of J at any α
            warnings.simplefilter("ignore", ConvergenceWarning)
            J_value, J_alpha = problem.J(inc_labels, alpha0=self.inc_alpha, tol=1e-8)
        upper = min(inc_value, float(J_value))
        lower = min(self.closed, self.open_bound(), upper)
        value, message, seconds = search_summary(
            "branch_and_bound", status, self.n_nodes, upper, lower, max_nodes, time_limit,
            self.start, self.verbose, detail=f" (relative tolerance {self.tol:g})",
            failure=self.failure)
        self.history.append({"iteration": self.n_nodes, "value": upper, "lower_bound": lower,
                             "source": "end", "seconds": seconds})
        labels = np.asarray(inc_labels, dtype=float)
        return SolveResult(
            method="exact", value=float(value), labels=labels, upper_bound=float(upper),
            certified=status == "optimal", status=status, message=message,
            n_iter=self.n_nodes, seconds=seconds, history=self.history, alpha=J_alpha,
            mu=np.ones(1), working_set=[labels],
            extra={"n_nodes": self.n_nodes, "n_pruned": self.n_pruned,
                   "incumbent": float(upper), "lower_bound": float(lower),
                   "root_bound": self.root_bound, "seed": seed, "bound": self.bound,
                   "n_steps": self.bb.n_steps, "pinned": self.pinned,
                   "sdp_nodes": self.sdp["nodes"], "sdp_pruned": self.sdp["pruned"],
                   "sdp_seconds": self.sdp["seconds"]})


def _search(problem, bound, max_nodes, time_limit, tol, verbose, random_state, start,
            inc_labels, inc_value, seed, polish):
    """The depth-first search of :func:`branch_and_bound` (arguments already checked)."""
    tree = _Tree(problem, _BranchAndBound(problem, bound), bound, tol, polish, verbose, start,
                 inc_labels, inc_value, seed)
    status = depth_first(tree, start, max_nodes, time_limit, verbose, name="branch_and_bound")
    return tree.result(status, max_nodes, time_limit, seed, random_state)
