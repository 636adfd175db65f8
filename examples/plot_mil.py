"""
Multi-instance learning: finding the key instances
==================================================

Each bag is a set of points; a bag is positive when at least one of its instances lies in a
target region. Only the bag labels are given. :class:`weakcvx.MultiInstanceSVM` chooses one key
instance per positive bag (the label set :class:`weakcvx.labelsets.KeyInstances`) and trains an
SVM on the keys against every instance of the negative bags (WellSVM §4.2).
"""

import matplotlib.pyplot as plt
import numpy as np

import weakcvx as wc

bags, y, key_mask = wc.datasets.make_mil_roi(n_bags=30, random_state=0)
clf = wc.MultiInstanceSVM(random_state=0).fit(bags, y)
positive = np.flatnonzero(y > 0)
hits = [key_mask[b][k] for b, k in zip(positive, clf.key_instances_)]
print(f"bag accuracy (training): {np.mean(clf.predict(bags) == y):.2f}; "
      f"key instance inside the target region for {np.mean(hits):.0%} of positive bags")

X = np.vstack(bags)
xx, yy = np.meshgrid(np.linspace(X[:, 0].min() - 0.5, X[:, 0].max() + 0.5, 150),
                     np.linspace(X[:, 1].min() - 0.5, X[:, 1].max() + 0.5, 150))
scores = clf.decision_function([np.array([p]) for p in np.c_[xx.ravel(), yy.ravel()]])
fig, ax = plt.subplots(figsize=(5.5, 4.5))
ax.contourf(xx, yy, scores.reshape(xx.shape), levels=[-1e9, 0, 1e9],
            colors=["#f4c7c3", "#c6dbef"], alpha=0.7)
ax.add_patch(plt.Circle((2, 2), 0.75, fill=False, ls="--", color="k"))
for bag, label in zip(bags, y):
    ax.scatter(*bag.T, s=12, color="tab:blue" if label > 0 else "tab:red", alpha=0.6)
keys = np.array([bags[b][k] for b, k in zip(positive, clf.key_instances_)])
ax.scatter(*keys.T, marker="*", s=160, color="gold", edgecolor="k", label="chosen key instances")
ax.set_title("MultiInstanceSVM: bag classifier and key instances")
ax.legend(loc="lower left", fontsize=8)
plt.show()
