"""
β-SVM: learning with label confidences under label noise
========================================================

The β-risk (Zantedeschi et al. 2016) gives each point a confidence :math:`\\beta_i =
(\\beta_i^-, \\beta_i^+)` in each label instead of one hard label, and the β-SVM weighs the
hinge loss of each label by it. With ``init="knn"`` the confidences start from the vote of the
4 nearest neighbours, then :class:`weakcvx.BetaSVM` alternates the SVM fit (P1, a QP) and the
update of β (P2, a linear program). This is a small version of the paper's Figure 2:
ionosphere, labels of one class flipped at a growing rate (asymmetric noise), test accuracy of
the β-SVM from the noisy labels taken as they are (``init="given"``), from the 4-nn vote, and of
scikit-learn's SVC, on one 70/30 split.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC

import weakcvx as wc

X, y = wc.datasets.load_uci("ionosphere")
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y,
                                                    random_state=0)
gamma = 1.0 / np.mean(np.sum((X_train[:, None] - X_train) ** 2, axis=-1))
rates = [0.0, 0.1, 0.2, 0.3, 0.4]
curves = {"β-SVM, given labels": [], "β-SVM, 4-nn": [], "SVC": []}
for rate in rates:
    y_noisy = wc.datasets.make_label_noise(y_train, rate, kind="asymmetric", random_state=0)
    models = {"β-SVM, given labels": wc.BetaSVM(init="given", random_state=0),
              "β-SVM, 4-nn": wc.BetaSVM(init="knn", random_state=0),
              "SVC": SVC(C=10.0, gamma=gamma)}
    one_hot = np.eye(2)[(y_noisy > 0).astype(int)]        # columns: (-1, +1)
    for name, model in models.items():
        if name == "β-SVM, given labels":
            model.fit(X_train, y_noisy, beta=one_hot)
        else:
            model.fit(X_train, y_noisy)
        curves[name].append(model.score(X_test, y_test))
for name, acc in curves.items():
    print(f"{name:<22}" + " ".join(f"{a:.3f}" for a in acc))

fig, ax = plt.subplots(figsize=(6, 4))
for name, acc in curves.items():
    ax.plot(rates, acc, marker="o", label=name)
ax.set_xlabel("rate of flipped labels in one class")
ax.set_ylabel("test accuracy")
ax.set_title("ionosphere with asymmetric label noise")
ax.legend()
plt.show()
