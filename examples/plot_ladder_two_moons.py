"""
The ladder of bounds on two moons
=================================

Every weak-label problem is ``min_{y ∈ B} J(y)``. Relaxations bound it from below (the SDP, and
WellSVM's convex hull computed by label generation), any feasible labeling bounds it from above,
and on a small problem the exact optimum sits in between. This script computes every rung with a
real solver and draws the ladder.
"""

import matplotlib.pyplot as plt

import weakcvx as wc

X, y_true, y_known = wc.datasets.make_two_moons(16, n_labeled=2, random_state=0)
K = wc.kernels.rbf(X, gamma=2.0)  # sigma = 0.5 as in Chapelle et al. (2006)
problem = wc.WeakLabelProblem(K, wc.labelsets.SemiSupervised(y_known), costs=10.0,
                              y_true=y_true, name="two moons, 16 points, 2 labeled")

table = wc.compare(problem)
print(table)
table.plot()
plt.show()
