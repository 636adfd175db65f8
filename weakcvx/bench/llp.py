"""Yu et al. (ICML 2013), Table 2: learning from label proportions on UCI sets, linear kernel.

Protocol (the paper's, scaled to this machine): each split holds out 20% of the rows as test
instances (the paper: 5-fold cross-validation, so also 80/20); the training rows are cut into
random bags of a fixed size (:func:`weakcvx.datasets.make_bags`) and only the bags and their
proportions are given to the learners. Parameters are tuned on the training bags by an inner
bag-preserving cross-validation (:class:`weakcvx.model_selection.BagKFold`) scored by the
bag-level error Σ_k |p̂_k − p_k| (:func:`weakcvx.model_selection.bag_error_scorer`; no
instance label is used), then the best setting is refitted on all training bags and its
accuracy on the test instances is reported (mean over splits).

Scaled down from the paper to fit ~20 minutes on 2 shared cores: grids of three values
(alter-∝SVM: C_p ∈ {1, 10, 100} at C = 1, with 3 restarts during tuning and the paper's 10
for the final fit; conv-∝SVM: C ∈ {0.1, 1, 10}; InvCal: C ∈ {0.1, 1, 10} at ε = 0; MeanMap:
λ ∈ {0.1, 1, 10}) and a 2-fold inner split (the paper tunes two parameters on finer grids).
Data are standardised (the paper scales to [−1, 1]). BLAS runs single-threaded: on this
loaded 2-core machine a multi-threaded 690×690 matrix-vector product was measured 100× slower.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from tqdm.auto import tqdm

#: Table 2 of the paper (linear kernel), mean accuracy (%) for bag sizes 2, 4, 8, 16, 32, 64.
PAPER_TABLE2 = {
    "heart": {
        "MeanMap": [81.85, 80.39, 79.63, 79.46, 79.00, 76.06],
        "InvCal": [81.78, 80.98, 79.45, 76.94, 73.76, 73.04],
        "alter-pSVM": [83.41, 81.80, 79.91, 79.69, 77.80, 76.58],
        "conv-pSVM": [83.33, 80.61, 81.00, 80.72, 79.32, 79.40],
    },
    "housevotes": {  # the paper's "vote"
        "MeanMap": [87.76, 91.90, 90.84, 88.72, 87.63, 88.42],
        "InvCal": [95.57, 95.57, 94.43, 94.00, 91.47, 91.13],
        "alter-pSVM": [95.62, 96.09, 95.56, 94.23, 91.97, 92.12],
        "conv-pSVM": [91.66, 90.80, 89.55, 88.87, 88.95, 89.07],
    },
    "australian": {
        "MeanMap": [86.03, 85.62, 84.08, 83.70, 83.96, 82.90],
        "InvCal": [85.42, 85.80, 84.99, 83.14, 80.28, 80.53],
        "alter-pSVM": [85.42, 85.60, 85.49, 84.96, 85.29, 84.47],
        "conv-pSVM": [85.51, 85.54, 85.90, 85.67, 85.67, 85.47],
    },
}
BAG_SIZES = (2, 4, 8, 16, 32, 64)
METHODS = ("MeanMap", "InvCal", "alter-pSVM", "conv-pSVM")


def _methods(seed, tuning):
    from weakcvx import InvCal, MeanMap, ProportionSVM

    return {
        "MeanMap": (MeanMap(), {"lam": [0.1, 1.0, 10.0]}),
        "InvCal": (InvCal(kernel="linear"), {"C": [0.1, 1.0, 10.0]}),
        "alter-pSVM": (ProportionSVM(kernel="linear", C=1.0, n_init=3 if tuning else 10,
                                     random_state=seed),
                       {"C_p": [1.0, 10.0, 100.0]}),
        "conv-pSVM": (ProportionSVM(relaxation="label_generation", kernel="linear",
                                    random_state=seed),
                      {"C": [0.1, 1.0, 10.0]}),
    }


def _tune_and_fit(name, X, bags, p, seed):
    """Grid search on training bags by the bag-level error, then refit on all of them."""
    from sklearn.base import clone
    from sklearn.model_selection import GridSearchCV

    from weakcvx.model_selection import BagKFold, bag_error_scorer, bag_targets

    est, grid = _methods(seed, tuning=True)[name]
    targets = bag_targets(bags, p)
    n_bags = len(np.unique(bags))
    best = {k: v[len(v) // 2] for k, v in grid.items()}
    if n_bags >= 4:
        search = GridSearchCV(est, grid, scoring=bag_error_scorer,
                              cv=BagKFold(2, random_state=seed), refit=False, error_score="raise")
        search.fit(X, targets)
        best = search.best_params_
    final, _ = _methods(seed, tuning=False)[name]
    final = clone(final).set_params(**best)
    t0 = time.perf_counter()
    final.fit(X, bags, p)
    return final, best, time.perf_counter() - t0


def _restart_parallelism(X, y, seed=0):
    """Wall time of alter-∝SVM with n_init=10, n_jobs=1 vs n_jobs=-1 (same result)."""
    from weakcvx import ProportionSVM
    from weakcvx.datasets import make_bags

    bags, p = make_bags(X, y, 8, random_state=seed)
    out = {}
    for n_jobs in (1, -1):
        clf = ProportionSVM(kernel="linear", C_p=10.0, n_init=10, random_state=seed,
                            n_jobs=n_jobs)
        t0 = time.perf_counter()
        clf.fit(X, bags, p)
        out[n_jobs] = (time.perf_counter() - t0, clf.decision_function(X))
    same = np.array_equal(out[1][1], out[-1][1])
    return out[1][0], out[-1][0], same


def bench_llp(quick=False):
    """∝SVM paper protocol: MeanMap, InvCal, alter-∝SVM and conv-∝SVM on UCI bags.

    Parameters
    ----------
    quick : bool
        heart only, bag sizes 4 and 32, 2 splits (about 2 minutes) instead of heart and
        housevotes (vote), bag sizes 2–64, 5 splits.

    Returns
    -------
    list of dict
        One record per (dataset, bag size, split, method): accuracy, fit seconds, parameters.
    """
    from threadpoolctl import threadpool_limits

    from weakcvx.datasets import load_uci, make_bags

    datasets = ("heart",) if quick else ("heart", "housevotes")
    bag_sizes = (4, 32) if quick else BAG_SIZES
    n_splits = 2 if quick else 5
    print("Learning from label proportions (Yu et al. 2013, Table 2 protocol, linear kernel): "
          f"{n_splits} random 80/20 splits, bags of the training rows, parameters tuned by "
          "the bag-level error on 2-fold BagKFold; accuracy (%) on test instances")
    records = []
    start = time.perf_counter()
    with threadpool_limits(limits=1, user_api="blas"):
        for ds in datasets:
            X, y = load_uci(ds)
            y = (np.asarray(y) > 0).astype(int)
            cells = [(bs, s) for bs in bag_sizes for s in range(n_splits)]
            for bs, split in tqdm(cells, desc=ds, leave=False):
                rng = np.random.RandomState(1000 * split + bs)
                perm = rng.permutation(len(y))
                n_test = len(y) // 5
                test, train = perm[:n_test], perm[n_test:]
                bags, p = make_bags(X[train], y[train], bs, random_state=split)
                for name in METHODS:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", ConvergenceWarning)
                        clf, params, seconds = _tune_and_fit(name, X[train], bags, p, split)
                    acc = float(np.mean(clf.predict(X[test]) == y[test]))
                    records.append({"dataset": ds, "bag_size": bs, "split": split,
                                    "method": name, "accuracy": acc, "seconds": seconds,
                                    "params": params})

        for ds in datasets:
            print(f"\n{ds} (n = {len(load_uci(ds)[1])})")
            print(f"{'method':<12}" + "".join(f"{'bag ' + str(b):>16}" for b in bag_sizes)
                  + f"{'fit s':>8}")
            for name in METHODS:
                row, secs = f"{name:<12}", []
                for bs in bag_sizes:
                    rs = [r for r in records if r["dataset"] == ds and r["bag_size"] == bs
                          and r["method"] == name]
                    accs = 100 * np.array([r["accuracy"] for r in rs])
                    secs += [r["seconds"] for r in rs]
                    paper = PAPER_TABLE2[ds][name][BAG_SIZES.index(bs)]
                    row += f"{accs.mean():>7.1f}±{accs.std():<4.1f}({paper:>5.1f})"
                print(row + f"{np.mean(secs):>8.2f}")
        print("(in parentheses: the paper's Table 2; fit s: mean seconds of the final fit, "
              "tuning excluded)")

        X, y = load_uci("heart")
        y = (np.asarray(y) > 0).astype(int)
        t1, t2, same = _restart_parallelism(X, y)
        print(f"\nalter-pSVM restarts, heart, bags of 8, n_init=10: n_jobs=1 {t1:.2f} s, "
              f"n_jobs=-1 {t2:.2f} s (x{t1 / t2:.2f}); identical decision function: {same}")
    print(f"total {time.perf_counter() - start:.0f} s")
    records.append({"parallel_seconds": {"n_jobs=1": t1, "n_jobs=-1": t2}, "identical": same})
    return records
