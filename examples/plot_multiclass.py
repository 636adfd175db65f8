"""
More than two classes: ten digits with a few labels
===================================================

The label sets of weakcvx are sign vectors, so each of its semi-supervised problems has two
classes. Given more, :class:`weakcvx.S3VM` and :class:`weakcvx.BetaSVM` fit one problem per
class, that class against the others, on all the unlabeled points, and predict the class of
the largest decision value, as scikit-learn's ``SVC(decision_function_shape="ovr")`` reports
one score per class. Both then fit one problem per pair of classes, on the unlabeled points
that the first step gave to either and with its share of each, and count the pairs' votes
(``multi_class="ovo"``, their default). Here: scikit-learn's 8 x 8 digits (ten classes, 1,797 images,
standardized), a stratified 2%, 5% or 10% of the images labeled, accuracy on the unlabeled
ones, mean over two draws, beside the SVC of the labeled images and label spreading (the
figures over more sets and seeds are in ``weakcvx bench peers`` and
docs/methods/s3vm.rst, "More than two classes").
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.preprocessing import StandardScaler
from sklearn.semi_supervised import LabelSpreading
from sklearn.svm import SVC

import weakcvx as wc

X, y = load_digits(return_X_y=True)
X = StandardScaler().fit_transform(X)
fractions = [0.02, 0.05, 0.1]
methods = {
    "S3VM()": lambda: wc.S3VM(random_state=0),
    "BetaSVM()": lambda: wc.BetaSVM(),
    "LabelSpreading(kernel='knn')": lambda: LabelSpreading(kernel="knn"),
}
curves = {name: [] for name in ["SVC() on the labeled rows", *methods]}
for fraction in fractions:
    scores = {name: [] for name in curves}
    for seed in (0, 1):
        split = StratifiedShuffleSplit(n_splits=1, train_size=fraction, random_state=seed)
        labeled = np.zeros(len(y), dtype=bool)
        labeled[next(split.split(X, y))[0]] = True
        y_semi = np.where(labeled, y, -1)          # -1: unlabeled (scikit-learn's convention)
        svc = SVC().fit(X[labeled], y[labeled])
        scores["SVC() on the labeled rows"].append(np.mean(svc.predict(X[~labeled])
                                                           == y[~labeled]))
        for name, make in methods.items():
            model = make().fit(X, y_semi)
            scores[name].append(np.mean(model.predict(X[~labeled]) == y[~labeled]))
    for name in curves:
        curves[name].append(np.mean(scores[name]))

clf = wc.S3VM(random_state=0).fit(X, y_semi)
print("decision_function:", clf.decision_function(X).shape, "- one column per class;",
      len(clf.estimators_), "two-class S3VMs in estimators_")
print(f"{'labeled':<30}" + "".join(f"{f:>8.0%}" for f in fractions))
for name, acc in curves.items():
    print(f"{name:<30}" + "".join(f"{a:>8.3f}" for a in acc))

fig, ax = plt.subplots(figsize=(6, 4))
for name, acc in curves.items():
    ax.plot([100 * f for f in fractions], acc, marker="o", label=name)
ax.set_xlabel("labeled images (%)")
ax.set_ylabel("accuracy on the unlabeled images")
ax.set_title("digits, ten classes (mean of two stratified draws)")
ax.legend()
plt.show()
