"""
Write your own weak-label problem: must-link and cannot-link
============================================================

A new weak-label setting is a new label set ``B``. Here the only supervision is a list of pairs
of points known to share a class (*must-link*) or to differ (*cannot-link*). The pairs join the
points into groups; inside a group the labels are fixed up to one global sign, so

.. math::

    B = \\{\\, y \\in \\{-1,+1\\}^n : y_i y_j = s_{ij} \\text{ for every linked pair } (i, j) \\,\\},

and every group :math:`G` with reference signs :math:`p` (obtained by walking the links) has
just two labelings, :math:`\\pm p_G`. The solvers need one thing from ``B``: the exact linear
oracle :math:`\\arg\\max_{b \\in B} r^\\top b`, which picks, group by group, the sign of
:math:`\\sum_{i \\in G} r_i p_i`. :class:`weakcvx.labelsets.Custom` wraps it (plus ``enumerate``
for the exact rungs on this tiny problem, and the SDP constraints the links imply,
:math:`M_{ij} = s_{ij}`, for the SDP rung); :func:`weakcvx.solve` and :func:`weakcvx.compare`
then work unchanged. The model itself — from the data to the ladder — is the 30 lines below.
"""

import itertools

import matplotlib.pyplot as plt
import numpy as np
from scipy.sparse.csgraph import breadth_first_order, connected_components

import weakcvx as wc

X, y_true, _ = wc.datasets.make_two_moons(14, random_state=0)
pairs = [(0, 1), (1, 2), (3, 4), (5, 6), (0, 7), (8, 9), (9, 10), (2, 11), (12, 13), (4, 12)]
S = np.zeros((14, 14))                       # s_ij = +1 must-link, -1 cannot-link (from y_true)
for i, j in pairs:
    S[i, j] = S[j, i] = y_true[i] * y_true[j]
n_groups, group = connected_components(np.abs(S), directed=False)
p = np.ones(14)                              # reference signs inside each group
for root in np.unique(group, return_index=True)[1]:
    order, parent = breadth_first_order(np.abs(S), root, directed=False)
    for node in order[1:]:
        p[node] = p[parent[node]] * S[node, parent[node]]


def oracle(r):                               # argmax_{b in B} r'b: best sign per group
    return p * np.where(np.bincount(group, r * p, n_groups) >= 0, 1.0, -1.0)[group]


def enumerate_links():                       # all 2^n_groups elements (tiny problems only)
    return np.array([p * np.array(s)[group] for s in itertools.product([-1, 1], repeat=n_groups)])


def link_constraints(M):                     # M = yy' has M_ij = s_ij on every link: the SDP rung
    return [M[i, j] == S[i, j] for i, j in pairs]


links = wc.labelsets.Custom(14, oracle, contains=lambda b: np.all(np.outer(b, b)[S != 0] == S[S != 0]),
                            enumerate=enumerate_links, symmetric=True,
                            sdp_constraints=link_constraints)
problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0), links, costs=10.0, y_true=y_true,
                              name=f"two moons, 14 points, {len(pairs)} links")
hull = wc.solve(problem, method="label_generation")
print(hull)
table = wc.compare(problem)
print(table)

# %%
# The whole ladder: the SDP over ``{M ⪰ 0, diag M = 1, M_ij = s_ij}`` (from the hook), the
# convex hull with the exact oracle (a certified lower bound), and enumeration's optimum.
fig = table.plot()

# %%
# The labeling found, on the data: links drawn green (must) and red (cannot).
fig, ax = plt.subplots(figsize=(5, 4))
for i, j in pairs:
    ax.plot(*X[[i, j]].T, color="tab:green" if S[i, j] > 0 else "tab:red", lw=1, zorder=0)
ax.scatter(*X.T, c=hull.labels, cmap="coolwarm", edgecolor="k", s=60)
ax.set_title(f"labels from the convex hull, {n_groups} linked groups")

# %%
# A set described by counts: a small subclass
# -------------------------------------------
# When ``B`` fixes some labels and bounds the number of positives in disjoint groups, a
# subclass of :class:`weakcvx.labelsets.LabelSet` only declares those counts; the exact
# sorting oracle, ``contains``, random starts, ``cardinality``, ``enumerate`` and the SDP
# constraints come from the base class. Here: points come in groups of 4, and each group has *at least one* positive
# (a multi-instance flavour), with one labeled negative group.


class AtLeastKPositives(wc.labelsets.LabelSet):
    """At least ``k`` positives in every group; the points of ``negative`` groups are -1."""

    def __init__(self, group_ids, k, negative=()):
        group_ids = np.asarray(group_ids)
        super().__init__(len(group_ids))
        fixed = np.where(np.isin(group_ids, negative), -1, 0)
        groups = [(np.flatnonzero(group_ids == g), k, int(np.sum(group_ids == g)))
                  for g in np.unique(group_ids) if g not in negative]
        self._set_count_constraints(fixed, groups)


group_ids = np.repeat(np.arange(4), 4)
X4, _, _ = wc.datasets.make_two_moons(16, random_state=1)
at_least_one = AtLeastKPositives(group_ids, k=1, negative=(3,))
problem4 = wc.WeakLabelProblem(wc.kernels.rbf(X4, gamma=2.0), at_least_one, costs=10.0,
                               name="16 points, 4 groups, >= 1 positive per group")
print(at_least_one.cardinality(), "labelings in B")
table4 = wc.compare(problem4, methods=["sdp", "label_generation", "exact", "alternating"])
print(table4)
plt.show()
