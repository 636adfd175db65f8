r"""Formulations: the inner large-margin problem of a weak-label MIP (docs/formulations.rst).

Every method of weakcvx bounds

.. math::

    \min_{b \in B} J_F(b), \qquad
    J_F(b) = \max_{\alpha \in A} \; f(\alpha) - \tfrac12 \alpha^\top Q_b \alpha ,

with ``f`` concave, ``A`` convex and ``Q_b`` the label kernel of ``b`` (``K ∘ bbᵀ`` for sign
vectors). ``G(α, Q) = f(α) − ½ αᵀQα`` is linear in ``Q``, so the minimax step
``min_b max_α G ≥ max_α min_{M ∈ conv} G`` and the whole ladder (SDP ≤ convex hull ≤ exact ≤
J(labels)) hold for every formulation.

A :class:`Formulation` declares ``f`` and ``A`` once, in CVXPY (:meth:`Formulation.dual`): that is
the readable reference every α-step can use (``J``, enumeration, the master problem of label
generation, the SDP rung). A formulation whose ``A`` is a box, after a diagonal shift of the
label kernel, declares it in :meth:`Formulation.box` and gets the fast coordinate-descent and
MKLGL engines; the two paths are tested against each other.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["Formulation", "Hinge", "SquaredHinge", "OFFSET_RHO"]

#: ``ρ`` of the regularised constant kernel ``K + ρ11ᵀ`` that models an offset (the weight of
#: a constant feature of value √ρ, penalised like the others, as in LIBLINEAR). 1 matches the
#: unit diagonal of an RBF kernel and of standardised features' scale.
OFFSET_RHO = 1.0


def _check_offset(offset):
    if isinstance(offset, (bool, np.bool_)):
        return OFFSET_RHO if offset else 0.0
    if not isinstance(offset, numbers.Real) or not np.isfinite(offset) or offset < 0:
        raise ValueError("`offset` must be True/False or a non-negative finite ρ (the weight of "
                         f"the constant kernel K + ρ11ᵀ). Got {offset!r} instead.")
    return float(offset)


class Formulation:
    r"""Base class: the inner problem ``J_F(b) = max_{α ∈ A} f(α) − ½ αᵀQ_bα``.

    A subclass implements :meth:`dual`. Optional: :meth:`box` (a fast path), :meth:`loss`
    (the primal loss, for the alternating heuristic's exact relabeling) and :meth:`bind` (to
    resolve per-point parameters from the label set).

    Parameters
    ----------
    offset : bool or float, default=False
        Add an offset through the regularised constant kernel ``K + ρ11ᵀ`` (``True``:
        ``ρ = OFFSET_RHO``; a number: that ``ρ``). The kernel changes, ``f`` and ``A`` do not.

    Examples
    --------
    A hinge loss whose dual variables are capped at 1, written from scratch:

    >>> import cvxpy as cp
    >>> import numpy as np
    >>> import weakcvx as wc
    >>> class CappedHinge(wc.formulations.Formulation):
    ...     def dual(self, alpha):
    ...         return cp.sum(alpha), [alpha >= 0, alpha <= 1]
    >>> X = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    >>> problem = wc.WeakLabelProblem(features=X,
    ...     labelset=wc.labelsets.SemiSupervised([-1, 0, 0, 1]), formulation=CappedHinge())
    >>> value, alpha = problem.J(np.array([-1.0, -1.0, 1.0, 1.0]))
    >>> round(value, 3)   # the hard-margin SVM through ±1: ½‖w‖² with w = 1
    0.5
    """

    def __init__(self, offset=False):
        self.offset = _check_offset(offset)

    def dual(self, alpha):
        """``(f(α), constraints of A)`` for a ``cvxpy.Variable`` ``alpha`` of length m.

        Returns
        -------
        objective : cvxpy expression, concave in ``alpha``
        constraints : list of cvxpy constraints
        """
        raise NotImplementedError(f"{type(self).__name__} must implement dual(alpha) -> "
                                  "(objective, constraints).")

    def bind(self, labelset):
        """The formulation for the dual variables of ``labelset`` (default: itself)."""
        return self

    def box(self):
        """Fast path, or ``None``: ``(upper, shift)`` such that
        ``J_F(b) = max_{0 ≤ α ≤ upper} 1ᵀα − ½ αᵀ(Q_b + diag(shift))α`` (``shift`` may be
        ``None``). Only valid once bound (see :meth:`bind`)."""
        return None

    def loss(self, margins):
        """The primal loss ``Σ_i ℓ_i(m_i)`` per point at margins ``m_i = b_i f(x_i)``, or
        ``None`` when the formulation does not declare it."""
        return None

    def __repr__(self):
        return f"{type(self).__name__}(offset={self.offset:g})"


class _CostFormulation(Formulation):
    """A formulation with per-point costs ``c`` resolved by the label set."""

    def __init__(self, C=1.0, offset=False):
        super().__init__(offset=offset)
        self.C = C
        self.costs = None

    def bind(self, labelset):
        bound = type(self).__new__(type(self))
        bound.__dict__.update(self.__dict__)
        bound.costs = np.asarray(labelset.per_point_costs(self.C), dtype=float)
        return bound

    def _costs(self):
        if self.costs is None:
            raise ValueError(f"{type(self).__name__}(C=...) is not bound to a label set: pass it "
                             "to WeakLabelProblem(formulation=...), which binds it.")
        return self.costs

    def __repr__(self):
        C = self.C if np.ndim(self.C) == 0 or isinstance(self.C, tuple) else "array"
        return f"{type(self).__name__}(C={C!r}, offset={self.offset:g})"


class Hinge(_CostFormulation):
    r"""The hinge loss: ``f(α) = 1ᵀα``, ``A = {0 ≤ α ≤ c}``.

    The dual of the SVM without offset ``½‖w‖² + Σ_i c_i max(0, 1 − b_i w·φ(x_i))``: the model
    of WellSVM and of every built-in estimator. Fast path: the box QP itself.

    Parameters
    ----------
    C : float, array of shape (m,), or pair
        Per-point costs ``c_i``; for :class:`~weakcvx.labelsets.SemiSupervised` a pair
        ``(c_labeled, c_unlabeled)``.
    offset : bool or float, default=False
        See :class:`Formulation`.

    Examples
    --------
    >>> import numpy as np
    >>> import weakcvx as wc
    >>> labelset = wc.labelsets.SemiSupervised([-1, 0, 1])
    >>> wc.formulations.Hinge(C=(1.0, 0.5)).bind(labelset).costs
    array([1. , 0.5, 1. ])
    """

    def dual(self, alpha):
        c = self._costs()
        return _cvxpy().sum(alpha), [alpha >= 0, alpha <= c]

    def box(self):
        return self._costs(), None

    def loss(self, margins):
        return self._costs() * np.maximum(0.0, 1.0 - margins)


class SquaredHinge(_CostFormulation):
    r"""The squared hinge loss: ``f(α) = 1ᵀα − Σ_i α_i²/(4c_i)``, ``A = {α ≥ 0}``.

    The dual of ``½‖w‖² + Σ_i c_i max(0, 1 − b_i w·φ(x_i))²`` (Chapelle et al.'s S3VM loss).
    Fast path: the box QP of ``Q_b + diag(1/(2c))``. Its box, ``α_i ≤ u_i = 2√(c_i Σ_j c_j)``,
    never binds at an optimum: there ``αᵀ(Q + D)α = 1ᵀα`` (complementarity), so
    ``Σ α_i²/(2c_i) ≤ Σ α_i ≤ (2Σc)^{1/2} (Σ α_i²/(2c_i))^{1/2}`` and ``α_i² ≤ 4 c_i Σc``, for
    every ``Q ⪰ 0`` (a label kernel, a convex combination of them, or ``K ∘ M`` for ``M ⪰ 0``).

    Parameters
    ----------
    C : float, array of shape (m,), or pair
        Per-point costs ``c_i`` (see :class:`Hinge`).
    offset : bool or float, default=False
        See :class:`Formulation`.

    Examples
    --------
    >>> import numpy as np
    >>> import weakcvx as wc
    >>> labelset = wc.labelsets.Clustering(4, beta=0)
    >>> upper, shift = wc.formulations.SquaredHinge(C=2.0).bind(labelset).box()
    >>> upper[0], shift[0]
    (np.float64(8.0), np.float64(0.25))
    """

    def dual(self, alpha):
        cp = _cvxpy()
        c = self._costs()
        return cp.sum(alpha) - cp.sum(cp.multiply(1.0 / (4.0 * c), cp.square(alpha))), \
            [alpha >= 0]

    def box(self):
        c = self._costs()
        return 2.0 * np.sqrt(c * c.sum()), 1.0 / (2.0 * c)

    def loss(self, margins):
        return self._costs() * np.maximum(0.0, 1.0 - margins) ** 2


def _cvxpy():
    import cvxpy

    return cvxpy
