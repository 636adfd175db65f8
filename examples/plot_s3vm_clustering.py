"""
Semi-supervised SVM and maximum-margin clustering
=================================================

Two moons with two labeled points. A supervised SVM sees only the two labels and cuts the
plane where they put it. The semi-supervised SVM's problem, the labeling of the unlabeled
points with the widest margin, is solved here twice: by WellSVM's convex relaxation (label
generation, rounded) and exactly, by branch and bound. With two labels the relaxation is too
loose to find the gap between the moons (this draw: 0.62 of the points right, the SVM 0.68);
the exact optimum of the same problem follows it (1.00): the ladder's lesson
(:ref:`sphx_glr_auto_examples_plot_ladder_two_moons.py`) on one picture. Then the same machinery
without any label: maximum-margin clustering of two elongated clusters.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.svm import SVC

import weakcvx as wc

X, y_true, y_known = wc.datasets.make_two_moons(80, n_labeled=2, random_state=0)
y = np.where(y_known == 0, -1, (y_known > 0).astype(int))   # scikit-learn: -1 = unlabeled
s3vm = wc.S3VM(C=10.0, gamma=2.0, random_state=0).fit(X, y)          # the convex relaxation
exact = wc.BranchAndBoundS3VM(C=10.0, gamma=2.0).fit(X, y)           # the same problem, exactly
svm = SVC(C=10.0, gamma=2.0).fit(X[y_known != 0], y[y_known != 0])
truth = (y_true > 0).astype(int)
print(f"transductive accuracy: SVM on the labels {np.mean(svm.predict(X) == truth):.2f}, "
      f"S3VM by the convex hull {np.mean(s3vm.transduction_ == truth):.2f}, "
      f"exact S3VM {np.mean(exact.transduction_ == truth):.2f}")

xx, yy = np.meshgrid(np.linspace(-1.5, 2.5, 150), np.linspace(-1.0, 1.5, 120))
grid = np.c_[xx.ravel(), yy.ravel()]
fig, axes = plt.subplots(1, 3, figsize=(12, 3.6), sharey=True)
for ax, model, title in [(axes[0], svm, "SVM on the 2 labels"),
                         (axes[1], s3vm, "S3VM, convex hull (WellSVM)"),
                         (axes[2], exact, "S3VM, exact (branch and bound)")]:
    ax.contourf(xx, yy, model.decision_function(grid).reshape(xx.shape), levels=[-1e9, 0, 1e9],
                colors=["#c6dbef", "#f4c7c3"], alpha=0.8)  # f < 0: class 0 (blue), f > 0: 1 (red)
    ax.scatter(*X[y_known == 0].T, c=truth[y_known == 0], cmap="coolwarm", s=15)
    ax.scatter(*X[y_known != 0].T, c=truth[y_known != 0], cmap="coolwarm", s=120, marker="*",
               edgecolor="k")
    ax.set_title(title)
fig.tight_layout()

# %%
# Maximum-margin clustering: no label at all, a balance constraint ``|1ᵀy| ≤ β`` rules out
# the trivial one-cluster solution.
Xc, yc = wc.datasets.make_elongated_clusters(40, random_state=0)
mmc = wc.MaxMarginClustering(random_state=0).fit(Xc)
agreement = max(np.mean(mmc.labels_ == (yc > 0)), np.mean(mmc.labels_ != (yc > 0)))
print(f"clustering agreement with the true split: {agreement:.2f}")
fig, ax = plt.subplots(figsize=(4.5, 3.6))
ax.scatter(*Xc.T, c=mmc.labels_, cmap="coolwarm", edgecolor="k", s=30)
ax.set_title("MaxMarginClustering")
plt.show()
