"""``weakcvx bench heldout``: every estimator's defaults on data no recorded measurement used.

The defaults of weakcvx were chosen, and many design choices measured, on the shipped UCI, Musk
and Elephant sets and on a list of generated and scikit-learn sets (the "chosen on" lines of
the docstrings, docs/methods). This benchmark runs the defaults, unchanged, beside the same
peers as ``weakcvx bench peers`` on data that appear in none of those measurements: generator
settings not used before (the families ``make_classification``, ``make_blobs``,
``make_moons`` and ``make_circles`` were, with other settings), class pairs of scikit-learn's
shipped digits and wine data not used before (digits 1/7, 3/8, 4/9, 2/3, 5/6, 0/8 and wine
0/1, 1/2, 0/rest were), and the digit bags of :func:`weakcvx.datasets.make_mil_digits`
(the multi-instance defaults were chosen on Musk, Elephant and ``make_mil_roi``); seeds
100-104 (quick: 100-101), never used. Every table gives the mean over the seeds with its
range and the median time ratio to a baseline fitted in the same run.

- Semi-supervised (10% of the rows labeled, stratified; all rows standardized; accuracy on the
  unlabeled rows): ``S3VM()``, ``S3VM(relaxation="alternating")``, ``BetaSVM()``, ``SVC()`` on
  the labeled rows, self-training and label spreading; time over one ``SVC().fit`` with all
  labels.
- Clustering (labels removed, accuracy ``max(acc, 1 − acc)``, standardized):
  ``MaxMarginClustering()`` against ``KMeans(2, n_init=10)``; time over one k-means fit.
- Multi-instance (bags of 6-12 digits, positive when they hold the target digit; 5-fold
  stratified CV over the bags, features standardized on each training fold): the methods of
  ``bench mil``'s seeds table; time over one ``SVC().fit`` on the fold's training instances
  labeled with their bag's label.
- Label proportions (``bench peers``' protocol: 80/20 split, training rows in random bags of
  16, accuracy on the test rows): ``ProportionSVM()`` (alternating and label generation),
  ``InvCal()``, ``MeanMap()``; time over one ``SVC().fit`` on the training rows.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from tqdm.auto import tqdm

from .peers import (_fit_methods, _print_table, _ssl_methods, _summary, _svc_seconds, _warm_up,
                    bench_llp_peers, labeled_mask)

#: Seeds of the data draws, splits and estimators (quick: the first two).
SEEDS = tuple(range(100, 105))
#: Labeled fraction of the semi-supervised table.
SSL_FRACTION = 0.1
#: Bag size of the label-proportion table.
LLP_BAG_SIZE = 16
#: Folds of the multi-instance table.
MIL_FOLDS = 5


def _classes(loader, first, second):
    """Two classes of a scikit-learn data set, ``second`` as 1."""
    X, t = loader(return_X_y=True)
    keep = np.isin(t, [first, second])
    return X[keep], (t[keep] == second).astype(int)


def load_heldout(name, seed):
    """``(X standardized, y in {0, 1})`` of one held-out set; generated sets are drawn with
    ``seed``, the shipped ones do not depend on it.

    Examples
    --------
    >>> X, y = load_heldout("wine 0/2", 0)
    >>> X.shape, int(y.sum())
    ((107, 13), 48)
    """
    from sklearn import datasets as sk
    from sklearn.preprocessing import StandardScaler

    makers = {
        "classif": lambda: sk.make_classification(800, 15, n_informative=6, n_redundant=3,
                                                  random_state=seed),
        "imbalanced": lambda: sk.make_classification(800, 12, n_informative=5, weights=[0.7],
                                                     random_state=seed),
        "flipped": lambda: sk.make_classification(800, 10, n_informative=3, flip_y=0.15,
                                                  class_sep=0.7, random_state=seed),
        "blobs": lambda: sk.make_blobs(400, centers=2, cluster_std=2.5, random_state=seed),
        "sheared": lambda: _sheared_blobs(seed),
        "moons": lambda: sk.make_moons(400, noise=0.1, random_state=seed),
        "circles": lambda: sk.make_circles(400, noise=0.05, factor=0.5, random_state=seed),
        "separated": lambda: sk.make_classification(500, 10, n_informative=3, n_redundant=0,
                                                    class_sep=2.0, random_state=seed),
        "digits 2/7": lambda: _classes(sk.load_digits, 2, 7),
        "digits 5/9": lambda: _classes(sk.load_digits, 5, 9),
        "wine 0/2": lambda: _classes(sk.load_wine, 0, 2),
    }
    if name not in makers:
        raise ValueError(f"`name` must be one of {sorted(makers)}. Got {name!r} instead.")
    X, y = makers[name]()
    return StandardScaler().fit_transform(X), np.asarray(y, dtype=int)


def _sheared_blobs(seed):
    from sklearn.datasets import make_blobs

    X, y = make_blobs(400, centers=2, cluster_std=1.5, random_state=seed)
    return X @ np.array([[0.6, -0.6], [-0.4, 0.8]]), y


SSL_SETS = ("classif", "imbalanced", "flipped", "digits 2/7", "digits 5/9", "wine 0/2")
CLUSTERING_SETS = ("blobs", "sheared", "moons", "circles", "separated", "digits 2/7",
                   "digits 5/9", "wine 0/2")
#: name -> keyword arguments of :func:`weakcvx.datasets.make_mil_digits`.
MIL_SETS = {
    "1-2 nines": {"n_bags": 100, "n_key": (1, 2), "target": 9},
    "2-4 nines": {"n_bags": 80, "n_key": (2, 4), "target": 9},
    "4-6 nines": {"n_bags": 60, "n_key": (4, 6), "target": 9},
    "1-2 threes": {"n_bags": 100, "n_key": (1, 2), "target": 3},
}
LLP_SETS = ("classif", "imbalanced", "digits 2/7", "digits 5/9")
LLP_METHODS = ("alter-pSVM", "conv-pSVM", "InvCal", "MeanMap")


def _record(name, acc, ratio, **extra):
    return {"data": name, **extra, "accuracy": {m: _summary(v) for m, v in acc.items()},
            "ratio": {m: float(np.median(v)) for m, v in ratio.items()},
            "per_seed": {m: [float(a) for a in v] for m, v in acc.items()}}


def _print_means(records, methods):
    width = 20
    print(f"{'mean':<12}" + "".join(
        f"{np.mean([r['accuracy'][m]['mean'] for r in records]):>{width}.4f}" for m in methods))


def heldout_ssl(seeds, sets=SSL_SETS, fraction=SSL_FRACTION):
    """The semi-supervised table (module docstring)."""
    methods = _ssl_methods()
    _warm_up(methods)
    records = []
    for name in tqdm(sets, desc="heldout ssl", leave=False):
        acc = {m: [] for m in methods}
        ratio = {m: [] for m in methods}
        for seed in seeds:
            X, y = load_heldout(name, seed)
            unit = _svc_seconds(X, y)
            _fit_methods(methods, X, y, labeled_mask(y, fraction, seed), seed, unit, acc, ratio)
        records.append(_record(name, acc, ratio, n=len(y), fraction=fraction))
    print(f"\nSemi-supervised, {fraction:.0%} labeled, accuracy on the unlabeled rows: mean over "
          f"seeds {seeds[0]}-{seeds[-1]} (min-max); ratio: median fit time over one SVC().fit "
          "with all labels")
    _print_table(records, list(methods), digits=2)
    _print_means(records, list(methods))
    return records


def heldout_clustering(seeds, sets=CLUSTERING_SETS):
    """The clustering table (module docstring)."""
    from sklearn.cluster import KMeans

    from weakcvx import MaxMarginClustering

    methods = {"MaxMarginClustering": lambda seed: MaxMarginClustering(random_state=seed),
               "k-means": lambda seed: KMeans(2, n_init=10, random_state=seed)}
    X, _ = load_heldout("blobs", 0)
    for make in methods.values():  # warm up (compiled kernels, first imports)
        make(0).fit(X)
    records = []
    for name in tqdm(sets, desc="heldout clustering", leave=False):
        acc = {m: [] for m in methods}
        seconds = {m: [] for m in methods}
        for seed in seeds:
            X, y = load_heldout(name, seed)
            for method, make in methods.items():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    t0 = time.perf_counter()
                    labels = make(seed).fit(X).labels_
                    seconds[method].append(time.perf_counter() - t0)
                agree = float(np.mean(labels == y))
                acc[method].append(max(agree, 1.0 - agree))
        ratio = {m: np.array(seconds[m]) / np.array(seconds["k-means"]) for m in methods}
        records.append(_record(name, acc, ratio, n=len(y)))
    print(f"\nClustering, accuracy max(acc, 1 - acc): mean over seeds {seeds[0]}-{seeds[-1]} "
          "(min-max); ratio: median fit time over one KMeans(2, n_init=10) fit")
    _print_table(records, list(methods), digits=2)
    _print_means(records, list(methods))
    wins = sum(r["accuracy"]["MaxMarginClustering"]["mean"] >= r["accuracy"]["k-means"]["mean"]
               for r in records)
    print(f"MaxMarginClustering at or above k-means on {wins} of {len(records)} sets")
    return records


def heldout_mil(seeds, sets=MIL_SETS, n_splits=MIL_FOLDS):
    """The multi-instance table (module docstring)."""
    from sklearn.model_selection import StratifiedKFold

    from weakcvx.datasets import make_mil_digits

    from .mil import _fold_fits, peer_methods

    methods = peer_methods()
    records = []
    for name, options in tqdm(sets.items(), desc="heldout mil", leave=False):
        acc = {m: [] for m in methods}
        ratio = {m: [] for m in methods}
        for seed in seeds:
            bags, y, _ = make_mil_digits(random_state=seed, **options)
            correct = dict.fromkeys(methods, 0)
            folds = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed)
            for train, test in folds.split(np.zeros(len(y)), y):
                right, secs, unit = _fold_fits(bags, y, train, test, methods, seed)
                for m in methods:
                    correct[m] += right[m]
                    ratio[m].append(secs[m] / unit)
            for m in methods:
                acc[m].append(correct[m] / len(y))
        records.append(_record(name, acc, ratio, **options))
    print(f"\nMulti-instance, digit bags (make_mil_digits, 6-12 images a bag), {n_splits}-fold CV "
          f"bag accuracy: mean over seeds {seeds[0]}-{seeds[-1]} (min-max); ratio: median fit "
          "time over one SVC().fit on the fold's training instances")
    _print_table(records, list(methods), digits=2)
    _print_means(records, list(methods))
    return records


def heldout_llp(seeds, sets=LLP_SETS, bag_size=LLP_BAG_SIZE):
    """The label-proportion table (module docstring): ``bench peers``' protocol on these sets."""
    records = bench_llp_peers(seeds, sets, bag_size, methods=LLP_METHODS, load=load_heldout)
    _print_means(records, list(LLP_METHODS))
    return records


def bench_heldout(quick=False):
    """Run the four held-out tables (see the module docstring)."""
    seeds = SEEDS[:2] if quick else SEEDS
    print("Defaults on data no recorded measurement used (scikit-learn generators with new "
          f"settings, unused class pairs of its shipped sets, digit bags), seeds "
          f"{seeds[0]}-{seeds[-1]}")
    return {"ssl": heldout_ssl(seeds), "clustering": heldout_clustering(seeds),
            "mil": heldout_mil(seeds), "llp": heldout_llp(seeds)}
