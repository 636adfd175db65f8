"""
A new formulation in 30 lines: the smoothed hinge, and its ladder of bounds
===========================================================================

A weak-label problem in weakcvx is a label set ``B`` *and* a formulation: the inner
large-margin problem that scores one labeling,

.. math::

    J_F(b) = \\max_{\\alpha \\in A} f(\\alpha) - \\tfrac12 \\alpha^\\top Q_b \\alpha,
    \\qquad Q_b = K \\circ bb^\\top ,

with :math:`f` concave and :math:`A` convex. The built-ins are the hinge loss (:math:`f =
1^\\top\\alpha`, :math:`A = \\{0 \\le \\alpha \\le c\\}`) and the squared hinge. Here we write
the *smoothed hinge* :math:`\\ell(m) = \\max_{0 \\le a \\le c}\\, a(1 - m) - \\tfrac{\\gamma}{2}
a^2` (quadratic near the margin, linear beyond) by its dual alone:
:math:`f(\\alpha) = 1^\\top\\alpha - \\tfrac{\\gamma}{2}\\|\\alpha\\|^2`, :math:`0 \\le \\alpha
\\le c`. That is all weakcvx needs to build every rung of the ladder for it.

**Why the ladder holds for any formulation.** :math:`G(\\alpha, Q) = f(\\alpha) -
\\tfrac12\\alpha^\\top Q \\alpha` is linear in :math:`Q`, so for every :math:`\\alpha \\in A`,
:math:`\\min_{b \\in B} G(\\alpha, Q_b) = \\min_{\\mu \\in \\Delta(B)} G(\\alpha, \\sum_b \\mu_b
Q_b)`, and swapping min and max can only lower the value (the minimax inequality):

.. math::

    \\min_{b \\in B} \\max_{\\alpha \\in A} G(\\alpha, Q_b) \\;\\ge\\;
    \\max_{\\alpha \\in A} \\min_{\\mu \\in \\Delta(B)} G\\Big(\\alpha, \\sum_b \\mu_b Q_b\\Big)
    \\;\\ge\\; \\max_{\\alpha \\in A} \\min_{M \\in \\mathcal M} G(\\alpha, K \\circ M),

the convex-hull value (label generation) and, over the larger set :math:`\\mathcal M \\supseteq
\\operatorname{conv}\\{bb^\\top\\}` of the SDP, a smaller one. Nothing there depends on
:math:`f` or :math:`A`: the formulation only changes the α-steps, which weakcvx solves from the
CVXPY model below (a box formulation may also declare a fast path, see
:meth:`weakcvx.formulations.Formulation.box`).
"""

import cvxpy as cp
import matplotlib.pyplot as plt
import numpy as np

import weakcvx as wc


class SmoothedHinge(wc.formulations.Formulation):
    """f(α) = 1ᵀα − (γ/2)‖α‖², A = {0 ≤ α ≤ C}: the dual of the smoothed hinge."""

    def __init__(self, C=2.0, gamma=0.5):
        super().__init__()
        self.C, self.gamma = C, gamma

    def dual(self, alpha):
        f = cp.sum(alpha) - 0.5 * self.gamma * cp.sum_squares(alpha)
        return f, [alpha >= 0, alpha <= self.C]


X, y_true, y_known = wc.datasets.make_two_moons(12, n_labeled=2, random_state=3)
problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma="mean_distance"),
                              wc.labelsets.SemiSupervised(y_known),
                              formulation=SmoothedHinge(), y_true=y_true,
                              name="two moons, 12 points, smoothed hinge")
table = wc.compare(problem)
print(table)

# %%
# Every rung bounds the same mixed-integer problem: the SDP (here by cutting planes over
# :math:`\mathcal M`, since the formulation has no fast path) and the convex hull with the
# exact oracle from below, enumeration's optimum, and each method's labeling from above.
fig = table.plot()

# %%
# The same data with the two built-in losses
# ------------------------------------------
# ``Hinge`` and ``SquaredHinge`` declare a fast path (a box QP), so they get the coordinate
# descent, MKLGL and branch and bound; the ladder is the same object.
rows = []
for formulation in (wc.formulations.Hinge(C=2.0), wc.formulations.SquaredHinge(C=2.0),
                    SmoothedHinge()):
    p = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma="mean_distance"),
                            wc.labelsets.SemiSupervised(y_known), formulation=formulation)
    sdp = wc.solve(p, method="sdp")
    hull = wc.solve(p, method="label_generation", oracle="exact")
    exact = wc.solve(p, method="exact")
    rows.append((type(formulation).__name__, sdp.value, hull.value, exact.value))
    print(f"{rows[-1][0]:>14}:  SDP {sdp.value:.4f}  ≤  hull {hull.value:.4f}  ≤  "
          f"exact {exact.value:.4f}")

fig, ax = plt.subplots(figsize=(6, 3))
for k, (name, *values) in enumerate(rows):
    ax.plot(values, [k] * 3, "-", color="0.7", zorder=0)
    ax.scatter(values, [k] * 3, c=["tab:blue", "tab:orange", "tab:green"], zorder=1)
ax.set_yticks(range(len(rows)), [r[0] for r in rows])
ax.set_xlabel("value (SDP, hull, exact optimum)")
ax.set_title("the ladder for three formulations")
fig.tight_layout()
