"""
Learning from label proportions: the bag-mean trap
==================================================

Two bags and only the fraction of positives in each (60% and 40%). The toy of Yu et al. (2013,
Fig. 1) is built so that the bag means lie on the wrong side of the true boundary: methods that
reason on bag means (MeanMap, InvCal) learn the reversed classifier, while the proportion SVM
(alter-∝SVM), which labels every instance subject to the proportions, recovers the truth.
"""

import matplotlib.pyplot as plt
import numpy as np

import weakcvx as wc

X, y_true, bags, proportions = wc.datasets.make_llp_toy(50, random_state=0)
models = {
    "MeanMap": wc.MeanMap(),
    "InvCal": wc.InvCal(kernel="linear"),
    "alter-∝SVM": wc.ProportionSVM(kernel="linear", random_state=0),
}
truth = (y_true > 0).astype(int)
xx, yy = np.meshgrid(np.linspace(-6, 6, 200), np.linspace(-3.5, 3.5, 120))
fig, axes = plt.subplots(1, 3, figsize=(11, 3.4), sharey=True)
for ax, (name, model) in zip(axes, models.items()):
    model.fit(X, bags, proportions)
    accuracy = np.mean(model.predict(X) == truth)
    print(f"{name:<12} instance accuracy {accuracy:.2f}")
    ax.contourf(xx, yy, model.predict(np.c_[xx.ravel(), yy.ravel()]).reshape(xx.shape),
                levels=[-0.5, 0.5, 1.5], colors=["#f4c7c3", "#c6dbef"], alpha=0.8)
    for k, marker in [(0, "o"), (1, "s")]:
        inside = bags == k
        ax.scatter(*X[inside].T, c=truth[inside], cmap="coolwarm", marker=marker, s=14,
                   label=f"bag {k} (p = {proportions[k]:.1f})")
    ax.set_title(f"{name}: accuracy {accuracy:.2f}")
axes[0].legend(loc="lower left", fontsize=8)
fig.tight_layout()
plt.show()
