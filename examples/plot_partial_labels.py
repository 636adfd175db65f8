"""
Partial labels: learning from candidate sets
============================================

Every partially labeled point comes with a set of candidate classes, one of which is true
(Nguyen & Caruana 2008). :class:`weakcvx.PartialLabelSVM` maximises the margin between the best
candidate and the best non-candidate (PL-Pegasos). On scikit-learn's digits, with 100 fully
labeled points plus a growing number of points that carry 2 candidates, it is compared with the
SVM on the labeled points only (below) and the SVM that sees all true labels (above).
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits

import weakcvx as wc

X, y = load_digits(return_X_y=True)  # raw pixels 0..16: PartialLabelSVM standardizes them
rng = np.random.default_rng(0)
order = rng.permutation(len(y))
labeled, test = order[:100], order[1000:]
sizes = [0, 100, 200, 400, 800]
curves = {"SVM (labeled only)": [], "PL-SVM, 2 candidates": [], "SVM-All (true labels)": []}
for n_partial in sizes:
    rows = np.concatenate([labeled, order[100:100 + n_partial]])
    partial = wc.datasets.make_partial_labels(y[rows], n_candidates=2, random_state=0)
    partial[:100] = np.eye(10, dtype=bool)[y[labeled]]       # the labeled points: one candidate
    exact = np.eye(10, dtype=bool)[y[rows]]
    fits = {"SVM (labeled only)": (X[labeled], exact[:100]),
            "PL-SVM, 2 candidates": (X[rows], partial),
            "SVM-All (true labels)": (X[rows], exact)}
    for name, (Xf, candidates) in fits.items():
        clf = wc.PartialLabelSVM(random_state=0).fit(Xf, candidates)
        curves[name].append(clf.score(X[test], y[test]))
for name, acc in curves.items():
    print(f"{name:<24}" + " ".join(f"{a:.3f}" for a in acc))

fig, ax = plt.subplots(figsize=(6, 4))
for name, acc in curves.items():
    ax.plot(sizes, acc, marker="o", label=name)
ax.set_xlabel("partially labeled points |PL| (plus 100 labeled)")
ax.set_ylabel("test accuracy")
ax.set_title("digits: PL-SVM between SVM and SVM-All")
ax.legend()
plt.show()
