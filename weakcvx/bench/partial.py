"""Nguyen & Caruana (KDD 2008), Figures 6–7: accuracy against the amount of partially labeled
data.

Protocol of the paper: from each set draw ``|L|`` fully labeled and ``|PL|`` partially labeled
training points (``|L|, |PL|`` in {100, 200, 400, 800}); every partial point gets its true class
plus ``|Y_i| − 1`` random others (``|Y_i|`` in {2, 3, 4, 5}); compare

- SVM: the multiclass SVM on ``L`` only (ignores the partial points),
- PL-SVM with candidate sets of size 2, 3, 4, 5,
- SVM-All: the multiclass SVM on ``L ∪ PL`` with the true labels revealed (an upper bound).

The paper selects λ in {10⁻³, …, 10³} and the polynomial degree in 1..5 by two-fold
cross-validation on ``L``; here every method uses the estimator's defaults (RBF kernel,
λ = 1/(3n), 20 epochs of PL-Pegasos, averaged) so that the comparison isolates the labels.
The SVMs are the same estimator with singleton candidate sets (Crammer–Singer); scikit-learn's
``SVC(C=3)`` (one-vs-one, the same cost per point) is fitted on the SVM-All data in the same run
for a timing and accuracy reference. Test points: the rest of the set, at most 2000. mnist and usps
are not shipped: scikit-learn's digits (8×8) stands in for both.

The paper reports its curves only as figures (no table): its claims are that PL-SVM lies
between SVM and SVM-All on all six sets, that it gains more with more partial data, and less
with larger candidate sets. The table prints those three checks beside the accuracies.

Measured with the former defaults (linear kernel, λ = 1e-2; ``weakcvx bench pl``, 3 draws,
2026-11-25, with ``PartialLabelSVM``'s internal standardization and step floor; the record of
the present defaults is in REPRODUCTION.md): PL-SVM lies between SVM and SVM-All in 33 of 40
(set, |L|, |PL|) cells, the 7 others within 0.3 points of SVM at |Y| = 4–5 (|L| = 400, where
SVM and SVM-All differ by under a point); at |L| = 100, |PL| = 800, |Y| = 2 the accuracy is
digits 96.5 (SVM 89.3, SVM-All 96.2), segment 92.1 (87.3, 91.7), satimage 83.6 (81.1, 83.9),
penbased 91.9 (83.2, 92.4), letter 69.8 (42.3, 70.0); a PL-SVM fit takes 0.04–0.05 s. Mean
over the 40 cells, |Y| = 2: 84.8 (before standardization 84.5; SVM 80.6, SVM-All 85.2).
With the present defaults (RBF, λ = 1/(3n), batches of 16; 2026-11-29): between SVM and
SVM-All in 32 of 40 cells, the 8 others within 0.3 points below SVM (mostly at |Y| = 4-5;
segment |L| = 400, |PL| = 200 at every |Y|); at |L| = 100,
|PL| = 800, |Y| = 2 digits 97.8 (SVM 90.9, SVM-All 97.9), segment 91.3, satimage 85.8,
penbased 97.4, letter 75.3; mean over the 40 cells, |Y| = 2: 87.6 (the three draws' means
87.4-87.8; SVM 82.6, SVM-All 88.2,
``SVC(C=3)`` on the same rows 89.3); a PL-SVM fit takes 0.06-0.25 s.
"""

from __future__ import annotations

import time

import numpy as np
from tqdm.auto import tqdm

SIZES = (2, 3, 4, 5)
MAX_TEST = 2000


def _load(name):
    from sklearn.datasets import load_digits

    from weakcvx._validation import standardize_columns
    from weakcvx.datasets import load_multiclass

    if name == "digits":
        X, y = load_digits(return_X_y=True)
        return standardize_columns(X.astype(float)), y
    return load_multiclass(name)


def _run_one(X, y, n_labeled, n_partial, seed):
    """All methods on one draw; returns {method: (accuracy, seconds)}."""
    from sklearn.svm import SVC

    from weakcvx.datasets import make_partial_labels
    from weakcvx.estimators.partial import DEFAULT_C, PartialLabelSVM

    rng = np.random.RandomState(seed)
    perm = rng.permutation(len(y))
    lab, part = perm[:n_labeled], perm[n_labeled:n_labeled + n_partial]
    test = perm[n_labeled + n_partial:][:MAX_TEST]
    train = np.concatenate([lab, part])
    k = int(y.max()) + 1
    out = {}

    def fit(name, rows, candidates):
        clf = PartialLabelSVM(random_state=seed)
        t0 = time.perf_counter()
        clf.fit(X[rows], candidates, classes=np.arange(k))
        out[name] = (clf.score(X[test], y[test]), time.perf_counter() - t0)

    onehot = np.eye(k, dtype=bool)
    fit("SVM", lab, onehot[y[lab]])
    for size in SIZES:
        if size > k:
            continue
        C = make_partial_labels(y[train], size, 1.0, random_state=seed)
        C[:n_labeled] = onehot[y[lab]]
        fit(f"PL-SVM |Y|={size}", train, C)
    fit("SVM-All", train, onehot[y[train]])
    svc = SVC(C=DEFAULT_C)
    t0 = time.perf_counter()
    svc.fit(X[train], y[train])
    out["SVC-All"] = (svc.score(X[test], y[test]), time.perf_counter() - t0)
    return out


def bench_pl(quick=False, plot_path="weakcvx-bench-pl.png"):
    """Figures 6–7 of Nguyen & Caruana (2008) on the shipped multiclass sets and digits.

    Parameters
    ----------
    quick : bool
        digits and segment, ``|L| = 100``, ``|PL|`` in {100, 400, 800}, one draw; otherwise all
        five sets, ``|L|`` in {100, 400}, ``|PL|`` in {100, 200, 400, 800}, three draws.
    plot_path : str or None
        Where to save the figure (accuracy against ``|PL|``, one panel per set and ``|L|``).

    Returns
    -------
    list of dict
        One record per (set, |L|, |PL|, draw, method): accuracy and fit seconds.
    """
    sets = ("digits", "segment") if quick else ("digits", "segment", "satimage", "penbased",
                                                "letter")
    labeled_sizes = (100,) if quick else (100, 400)
    partial_sizes = (100, 400, 800) if quick else (100, 200, 400, 800)
    n_draws = 1 if quick else 3
    print(f"Partial labels (Nguyen & Caruana 2008, Figs. 6-7): PartialLabelSVM defaults (RBF, "
          f"lam = 1/(3n)), {n_draws} draw(s); accuracy on at most {MAX_TEST} held-out points")
    records = []
    grid = [(s, nl, npl, seed) for s in sets for nl in labeled_sizes for npl in partial_sizes
            for seed in range(n_draws)]
    data = {name: _load(name) for name in sets}
    for name, nl, npl, seed in tqdm(grid, desc="pl", leave=False):
        X, y = data[name]
        for method, (acc, sec) in _run_one(X, y, nl, npl, seed).items():
            records.append({"set": name, "n_labeled": nl, "n_partial": npl, "seed": seed,
                            "method": method, "accuracy": acc, "seconds": sec})

    methods = ["SVM"] + [f"PL-SVM |Y|={s}" for s in SIZES] + ["SVM-All", "SVC-All"]
    head = "".join(f"{m.replace('PL-SVM ', ''):>10}" for m in methods)
    print(f"{'set':<9}{'|L|':>5}{'|PL|':>6}{head}{'between':>9}{'s PL|2|':>9}{'s SVC':>8}")
    for name in sets:
        for nl in labeled_sizes:
            for npl in partial_sizes:
                rows = [r for r in records if (r["set"], r["n_labeled"], r["n_partial"]) ==
                        (name, nl, npl)]
                acc = {m: np.mean([r["accuracy"] for r in rows if r["method"] == m])
                       for m in methods if any(r["method"] == m for r in rows)}
                sec = {m: np.mean([r["seconds"] for r in rows if r["method"] == m]) for m in acc}
                pl = [acc[m] for m in methods[1:5] if m in acc]
                between = all(acc["SVM"] <= a <= acc["SVM-All"] + 0.005 for a in pl)
                cells = "".join(f"{100 * acc[m]:>10.1f}" if m in acc else f"{'-':>10}"
                                for m in methods)
                print(f"{name:<9}{nl:>5}{npl:>6}{cells}{'yes' if between else 'no':>9}"
                      f"{sec['PL-SVM |Y|=2']:>9.2f}{sec['SVC-All']:>8.2f}")
    print("paper (Figs. 3, 6, 7): SVM <= PL-SVM <= SVM-All on all six sets; PL-SVM improves with "
          "|PL| and degrades with |Y|")
    if plot_path:
        _plot(records, sets, labeled_sizes, methods, plot_path)
        print(f"plot saved to {plot_path}")
    return records


def _plot(records, sets, labeled_sizes, methods, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(labeled_sizes), len(sets), squeeze=False,
                             figsize=(3.2 * len(sets), 2.8 * len(labeled_sizes)))
    styles = {"SVM": "k-+", "SVM-All": "k--x", "SVC-All": "k:"}
    for i, nl in enumerate(labeled_sizes):
        for j, name in enumerate(sets):
            ax = axes[i, j]
            for m in methods:
                rows = [r for r in records if r["set"] == name and r["n_labeled"] == nl and
                        r["method"] == m]
                if not rows:
                    continue
                xs = sorted({r["n_partial"] for r in rows})
                ys = [100 * np.mean([r["accuracy"] for r in rows if r["n_partial"] == x])
                      for x in xs]
                ax.plot(xs, ys, styles.get(m, "o:"), label=m, markersize=4)
            ax.set_title(f"{name}, |L|={nl}", fontsize=9)
            ax.set_xlabel("|PL|", fontsize=8)
            ax.set_ylabel("accuracy %", fontsize=8)
    axes[0, 0].legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
