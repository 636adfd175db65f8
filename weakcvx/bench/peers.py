"""``weakcvx bench peers``: weakcvx beside the peer methods on the same data, seeds and splits.

Semi-supervised learning (the six sets of the core issue: wdbc/breast cancer, heart, ionosphere,
australian, pima, sonar; all rows standardized): 5% and 10% of the rows labeled by a stratified
draw per seed, accuracy on the unlabeled rows, for ``S3VM()`` (label generation, the default),
``S3VM(relaxation="alternating")``, ``BetaSVM()`` (β-risk, ``init="ssl"``), ``SVC()`` on the
labeled rows, scikit-learn's ``SelfTrainingClassifier(SVC(probability=True))`` and
``LabelSpreading(kernel="knn")`` (its default RBF width, 20, is meant for unit-scale inputs and
labels nearly nothing on standardized features). The estimators' defaults were chosen on split
seeds 0-9; this benchmark reports seeds 10-19 (quick: 10-12). Times are ratios to one
``SVC().fit`` on the same rows with all labels, timed in the same run (the best of three).
A second table draws the labels at random (not stratified) with 20% and 50% of the rows
labeled, on all thirteen shipped UCI sets (at most 600 rows drawn a seed), for ``S3VM()``, its
alternating search and ``SVC()`` on the labeled rows; the unlabeled cost's rule was chosen on
other seeds (docs/methods/s3vm.rst, "The cost of unlabeled points"). A third table runs them,
with ``S3VM(gamma="mean_distance")`` (the width ``gamma="select"`` starts from), on data that
meet the cluster assumption (two moons, noisier moons, circles: 600 generated rows, accuracy on
2,000 fresh ones; digits 3 vs 8 standardized), 2% and 5% labeled (docs/methods/s3vm.rst, "The
RBF width"). A fourth runs ``S3VM()`` and ``BetaSVM()`` with more than two classes (one against
the rest) beside the SVC, self-training and label spreading on iris, wine, digits and three
shipped multi-class UCI sets (segment, satimage, penbased; at most 1,500 rows), 5% and 10%
labeled by a stratified draw, split seeds 10-14 (quick: 10-11); no multi-class default was
chosen (docs/methods/s3vm.rst, "More than two classes").

The engine table runs label generation twice on each problem at the old default costs
(C = 1, C_u = 0.1): with :meth:`RoundPolicy.paper` (WellSVM Algorithm 1 as published, the
engine before this benchmark existed) and with the default :class:`RoundPolicy`, and prints
rounds, seconds, the final master value and ``J(labels)`` of both.

Multi-instance learning: ``MultiInstanceSVM()`` beside its alternating MI-SVM and mi-SVM and the
normalized set kernel (NSK: an SVC on ``k(B, B') = Σ_{a∈B, b∈B'} k(a, b)`` normalised to unit
diagonal, Gärtner et al. 2002) on Musk1, 10-fold CV over CV seeds 0-9 (quick: Musk1, seeds 0-1),
features standardized on each training fold. Learning from label proportions: ``ProportionSVM``
(both relaxations; and alter-∝SVM with ``init="random"``, the paper's restarts only, the default
before the MeanMap start) beside ``InvCal`` and ``MeanMap`` with their defaults on heart,
ionosphere and australian, bags of 8, split seeds 10-14 (quick: 10-11); ProportionSVM's defaults
were chosen on other UCI sets (bupa, german, haberman, housevotes, pima, sonar, wdbc; split
seeds 0-4), see docs/methods/llp.rst.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from tqdm.auto import tqdm

SSL_SETS = ("wdbc", "heart", "ionosphere", "australian", "pima", "sonar")
#: Split seeds reported (the defaults were chosen on seeds 0-9).
REPORT_SEEDS = tuple(range(10, 20))


#: The random-draw table: every shipped UCI set, at most ``RANDOM_MAX_ROWS`` rows a seed, with
#: more labels than the core issue's protocol.
RANDOM_SETS = ("australian", "bupa", "crx", "german", "haberman", "heart", "housevotes",
               "ionosphere", "pima", "sonar", "wdbc", "chess", "spambase")
RANDOM_MAX_ROWS = 600
RANDOM_FRACTIONS = (0.2, 0.5)


def labeled_mask(y, fraction, seed):
    """A stratified draw of ``fraction`` of the rows (at least one per class)."""
    from sklearn.model_selection import StratifiedShuffleSplit

    n_labeled = max(2, int(round(fraction * len(y))))
    split = StratifiedShuffleSplit(n_splits=1, train_size=n_labeled, random_state=seed)
    index, _ = next(split.split(np.zeros(len(y)), y))
    mask = np.zeros(len(y), dtype=bool)
    mask[index] = True
    return mask


def _svc_seconds(X, y):
    """The best of three ``SVC().fit`` times on all rows with all labels (the time unit)."""
    from sklearn.svm import SVC

    best = np.inf
    for _ in range(3):
        t0 = time.perf_counter()
        SVC().fit(X, y)
        best = min(best, time.perf_counter() - t0)
    return best


def _ssl_methods():
    from sklearn.semi_supervised import LabelSpreading, SelfTrainingClassifier
    from sklearn.svm import SVC

    from weakcvx import S3VM, BetaSVM

    def supervised(X, y_semi, labeled, seed):
        return SVC().fit(X[labeled], y_semi[labeled])

    return {
        "S3VM": lambda X, y_semi, labeled, seed: S3VM(random_state=seed).fit(X, y_semi),
        "S3VM alt": lambda X, y_semi, labeled, seed: S3VM(
            relaxation="alternating", random_state=seed).fit(X, y_semi),
        "BetaSVM": lambda X, y_semi, labeled, seed: BetaSVM(random_state=seed).fit(X, y_semi),
        "SVC (labeled)": supervised,
        "self-training": lambda X, y_semi, labeled, seed: SelfTrainingClassifier(
            SVC(probability=True, random_state=seed)).fit(X, y_semi),
        "LabelSpreading": lambda X, y_semi, labeled, seed: LabelSpreading(
            kernel="knn").fit(X, y_semi),
    }


def _warm_up(methods):
    """One fit of every method on a small problem, so that no timed fit pays for loading the
    compiled kernels (numba's cache) or first imports."""
    from weakcvx import datasets

    X, y = datasets.load_uci("heart")
    y01 = (y > 0).astype(int)
    labeled = labeled_mask(y01, 0.2, 0)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for fit in methods.values():
            fit(X, np.where(labeled, y01, -1), labeled, 0)


def _print_table(records, methods, digits):
    """One row of ``mean (min-max)`` accuracies and one of median time ratios per data set."""
    width = 2 * digits + 16
    print(f"{'data':<12}" + "".join(f"{m:>{width}}" for m in methods))
    for r in records:
        print(f"{r['data']:<12}" + "".join(
            f"{r['accuracy'][m]['mean']:>{width - 2 * digits - 6}.3f} "
            f"({r['accuracy'][m]['min']:.{digits}f}-{r['accuracy'][m]['max']:.{digits}f})"
            for m in methods))
        print(f"{'ratio':<12}" + "".join(f"{r['ratio'][m]:>{width - 1}.1f}x" for m in methods))


def _summary(values):
    values = np.asarray(values, dtype=float)
    return {"mean": float(values.mean()), "min": float(values.min()),
            "max": float(values.max())}


def _fit_methods(methods, X, y01, labeled, seed, unit, acc, ratio, test=None):
    """Fit every method on one draw; append its accuracy on the unlabeled rows (or on
    ``test = (X_test, y_test)``) to ``acc`` and its time over ``unit`` seconds to ``ratio``."""
    y_semi = np.where(labeled, y01, -1)
    X_test, y_test = test if test is not None else (X[~labeled], y01[~labeled])
    for method, fit in methods.items():
        # peers warn about their own numerics (label spreading divides by zero rows of
        # unreachable points): the table reports what they predict
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            t0 = time.perf_counter()
            model = fit(X, y_semi, labeled, seed)
            seconds = time.perf_counter() - t0
            predicted = model.predict(X_test)
        acc[method].append(np.mean(predicted == y_test))
        ratio[method].append(seconds / unit)


def _ssl_record(acc, ratio):
    return {"accuracy": {m: _summary(v) for m, v in acc.items()},
            "ratio": {m: float(np.median(v)) for m, v in ratio.items()},
            "per_seed": {m: [float(a) for a in v] for m, v in acc.items()}}


def bench_ssl(seeds, fractions=(0.05, 0.1), sets=SSL_SETS):
    """The semi-supervised table: per set and fraction, accuracy (mean, range over seeds) and
    median time ratio to one SVC fit, for every method of :func:`_ssl_methods`."""
    from weakcvx import datasets

    methods = _ssl_methods()
    _warm_up(methods)
    records = []
    for name in tqdm(sets, desc="ssl sets", leave=False):
        X, y = datasets.load_uci(name)
        y01 = (y > 0).astype(int)
        unit = _svc_seconds(X, y01)
        for fraction in fractions:
            acc = {m: [] for m in methods}
            ratio = {m: [] for m in methods}
            for seed in seeds:
                labeled = labeled_mask(y01, fraction, seed)
                _fit_methods(methods, X, y01, labeled, seed, unit, acc, ratio)
            records.append({"data": name, "n": len(y), "fraction": fraction,
                            "svc_seconds": unit, **_ssl_record(acc, ratio)})
    _print_ssl(records, list(methods), seeds)
    return records


def random_rows_and_labels(y, fraction, seed, max_rows=RANDOM_MAX_ROWS):
    """At most ``max_rows`` rows drawn at random, and a uniform draw of ``fraction`` of them
    labeled (redrawn until both classes occur): ``(rows, labeled mask over those rows)``."""
    rng = np.random.default_rng(seed)
    rows = rng.permutation(len(y))[:max_rows]
    n = len(rows)
    n_labeled = max(2, int(round(fraction * n)))
    while True:
        index = rng.choice(n, n_labeled, replace=False)
        if len(np.unique(y[rows][index])) == 2:
            break
    mask = np.zeros(n, dtype=bool)
    mask[index] = True
    return rows, mask


def bench_ssl_random(seeds, fractions=RANDOM_FRACTIONS, sets=RANDOM_SETS):
    """S3VM (both searches) against the SVC of the labeled rows with labels drawn at random,
    not stratified, and 20-50% of the rows labeled (docs/methods/s3vm.rst, "The cost of
    unlabeled points"): accuracy on the unlabeled rows, time ratio to one SVC fit on the rows
    drawn with all labels."""
    from weakcvx import datasets

    methods = {m: f for m, f in _ssl_methods().items() if m in ("S3VM", "S3VM alt",
                                                                "SVC (labeled)")}
    _warm_up(methods)
    records = []
    for name in tqdm(sets, desc="random-draw sets", leave=False):
        X_all, y = datasets.load_uci(name)
        y_all = (y > 0).astype(int)
        for fraction in fractions:
            acc = {m: [] for m in methods}
            ratio = {m: [] for m in methods}
            for seed in seeds:
                rows, labeled = random_rows_and_labels(y_all, fraction, seed)
                X, y01 = X_all[rows], y_all[rows]
                _fit_methods(methods, X, y01, labeled, seed, _svc_seconds(X, y01), acc, ratio)
            records.append({"data": name, "n": len(rows), "fraction": fraction,
                            **_ssl_record(acc, ratio)})
    print(f"\nRandom draws (not stratified), at most {RANDOM_MAX_ROWS} rows a seed:")
    _print_ssl(records, list(methods), seeds)
    return records


#: The manifold table: data where the classes follow low-dimensional structure separated by
#: low-density gaps (the cluster assumption), none of them used to choose ``S3VM``'s defaults
#: at these seeds (``gamma="select"`` was chosen on seeds 0-9 of the same generators).
MANIFOLD_SETS = ("two moons", "noisy moons", "circles", "digits 3/8")
MANIFOLD_FRACTIONS = (0.02, 0.05)
#: Rows a generated set trains on; its accuracy is measured on ``MANIFOLD_TEST`` fresh rows.
MANIFOLD_ROWS = 600
MANIFOLD_TEST = 2000


def manifold_data(name, seed):
    """``(X, y01, X_test, y_test)`` of a manifold-table set: generated rows and fresh test rows,
    or (digits 3 vs 8, standardized) the rows themselves and ``None``."""
    from sklearn.datasets import load_digits, make_circles
    from sklearn.preprocessing import StandardScaler

    from weakcvx import datasets

    n = MANIFOLD_ROWS + MANIFOLD_TEST
    if name in ("two moons", "noisy moons"):
        X, y, _ = datasets.make_two_moons(n, noise=0.1 if name == "two moons" else 0.15,
                                          random_state=seed)
        y = (y > 0).astype(int)
    elif name == "circles":
        X, y = make_circles(n, factor=0.5, noise=0.1, random_state=seed)
    else:
        digits = load_digits()
        rows = np.isin(digits.target, (3, 8))
        return (StandardScaler().fit_transform(digits.data[rows]),
                (digits.target[rows] == 3).astype(int), None, None)
    return X[:MANIFOLD_ROWS], y[:MANIFOLD_ROWS], X[MANIFOLD_ROWS:], y[MANIFOLD_ROWS:]


def bench_ssl_manifold(seeds, fractions=MANIFOLD_FRACTIONS, sets=MANIFOLD_SETS):
    """S3VM's default width (``gamma="select"``) against the width it starts from
    (``"mean_distance"``) and the peers, on data that meet the cluster assumption: accuracy on
    fresh test rows (digits: on the unlabeled rows), time ratio to one SVC fit."""
    from weakcvx import S3VM

    peers = _ssl_methods()
    methods = {"S3VM": peers["S3VM"],
               "S3VM mean_dist": lambda X, y_semi, labeled, seed: S3VM(
                   gamma="mean_distance", random_state=seed).fit(X, y_semi),
               **{m: f for m, f in peers.items() if m in (
                   "S3VM alt", "SVC (labeled)", "self-training", "LabelSpreading")}}
    _warm_up(methods)
    records = []
    for name in tqdm(sets, desc="manifold sets", leave=False):
        for fraction in fractions:
            acc = {m: [] for m in methods}
            ratio = {m: [] for m in methods}
            for seed in seeds:
                X, y01, X_test, y_test = manifold_data(name, seed)
                labeled = labeled_mask(y01, fraction, seed)
                unit = _svc_seconds(X, y01)
                _fit_methods(methods, X, y01, labeled, seed, unit, acc, ratio,
                             test=None if X_test is None else (X_test, y_test))
            records.append({"data": name, "n": len(y01), "fraction": fraction,
                            **_ssl_record(acc, ratio)})
    print("\nManifold data: two moons (noise 0.1 / 0.15) and circles, 600 rows; digits 3 vs 8, "
          "357 rows:")
    _print_ssl(records, list(methods), seeds,
               where="on 2,000 fresh rows (digits: on the unlabeled rows)")
    return records


#: The multi-class table: scikit-learn's iris, wine and digits and three shipped multi-class UCI
#: sets (at most ``MULTICLASS_ROWS`` rows drawn a seed), none used to choose a default.
MULTICLASS_SETS = ("iris", "wine", "digits", "segment", "satimage", "penbased")
MULTICLASS_ROWS = 1500
MULTICLASS_SEEDS = tuple(range(10, 15))


def multiclass_data(name, seed, max_rows=MULTICLASS_ROWS):
    """``(X, y)`` of a multi-class table set, standardized, at most ``max_rows`` rows drawn."""
    from sklearn import datasets as sk_datasets
    from sklearn.preprocessing import StandardScaler

    from weakcvx import datasets

    loaders = {"iris": sk_datasets.load_iris, "wine": sk_datasets.load_wine,
               "digits": sk_datasets.load_digits}
    if name in loaders:
        X, y = loaders[name](return_X_y=True)
        X = StandardScaler().fit_transform(X)
    else:
        X, y = datasets.load_multiclass(name)
    rows = np.random.default_rng(seed).permutation(len(y))[:max_rows]
    return X[rows], y[rows]


def bench_ssl_multiclass(seeds=MULTICLASS_SEEDS, fractions=(0.05, 0.1), sets=MULTICLASS_SETS):
    """``S3VM()`` and ``BetaSVM()`` (one per class against the rest, then one per pair of
    classes on that transduction) and the first step alone (``multi_class="ovr"``) with more
    than two classes, beside the SVC of the labeled rows, self-training and label spreading:
    stratified draws, accuracy on the unlabeled rows, time ratio to one SVC fit with all
    labels."""
    from weakcvx import S3VM, BetaSVM

    methods = {m: f for m, f in _ssl_methods().items()
               if m in ("S3VM", "BetaSVM", "SVC (labeled)", "self-training", "LabelSpreading")}
    methods = {"S3VM": methods.pop("S3VM"),
               "S3VM ovr": lambda X, y_semi, labeled, seed: S3VM(
                   multi_class="ovr", random_state=seed).fit(X, y_semi),
               "BetaSVM": methods.pop("BetaSVM"),
               "BetaSVM ovr": lambda X, y_semi, labeled, seed: BetaSVM(
                   multi_class="ovr", random_state=seed).fit(X, y_semi), **methods}
    _warm_up(methods)
    records = []
    for name in tqdm(sets, desc="multi-class sets", leave=False):
        for fraction in fractions:
            acc = {m: [] for m in methods}
            ratio = {m: [] for m in methods}
            for seed in seeds:
                X, y = multiclass_data(name, seed)
                labeled = labeled_mask(y, fraction, seed)
                _fit_methods(methods, X, y, labeled, seed, _svc_seconds(X, y), acc, ratio)
            records.append({"data": name, "n": len(y), "classes": int(np.unique(y).size),
                            "fraction": fraction, **_ssl_record(acc, ratio)})
    print(f"\nMore than two classes (iris, wine, digits; segment, satimage, penbased at most "
          f"{MULTICLASS_ROWS} rows), stratified draws:")
    _print_ssl(records, list(methods), seeds)
    return records


def _print_ssl(records, methods, seeds, where="on the unlabeled rows"):
    print(f"\nSemi-supervised, accuracy {where}: mean over split seeds "
          f"{seeds[0]}-{seeds[-1]} (min-max); time: median ratio to one SVC().fit with all "
          "labels")
    for fraction in sorted({r["fraction"] for r in records}):
        print(f"\n{fraction:.0%} labeled")
        print(f"{'data':<12}" + "".join(f"{m:>22}" for m in methods))
        rows = [r for r in records if r["fraction"] == fraction]
        for r in rows:
            cells = "".join(
                f"{r['accuracy'][m]['mean']:>7.3f} ({r['accuracy'][m]['min']:.2f}-"
                f"{r['accuracy'][m]['max']:.2f})" for m in methods)
            print(f"{r['data']:<12}{cells}")
        means = "".join(f"{np.mean([r['accuracy'][m]['mean'] for r in rows]):>22.4f}"
                        for m in methods)
        print(f"{'mean':<12}{means}")
        ratios = "".join(f"{np.median([r['ratio'][m] for r in rows]):>21.1f}x" for m in methods)
        print(f"{'time ratio':<12}{ratios}")
        for other in methods[1:]:
            print(_paired_line(rows, methods[0], other))


def paired_difference(first, second):
    """Mean of the paired differences ``first - second`` (one per draw: a data set and a
    split seed) and its 95% Student-t interval, with the draws where ``first`` is ahead and
    behind: ``(mean, low, high, ahead, behind, n)``. A mean whose interval holds 0 is a
    difference these draws do not resolve.

    Examples
    --------
    >>> mean, low, high, ahead, behind, n = paired_difference([0.8, 0.9, 0.7], [0.7, 0.9, 0.6])
    >>> round(mean, 3), ahead, behind, n, low < mean < high
    (0.067, 2, 0, 3, True)
    """
    from scipy import stats

    d = np.asarray(first, dtype=float) - np.asarray(second, dtype=float)
    n = d.size
    mean = float(d.mean())
    half = float(stats.t.ppf(0.975, n - 1) * d.std(ddof=1) / np.sqrt(n)) if n > 1 else np.inf
    return mean, mean - half, mean + half, int(np.sum(d > 0)), int(np.sum(d < 0)), n


def paired_over_records(rows, first, other):
    """:func:`paired_difference` of ``first`` and ``other`` over every draw (data set and
    split seed) of the table records ``rows``."""
    return paired_difference([a for r in rows for a in r["per_seed"][first]],
                             [a for r in rows for a in r["per_seed"][other]])


def _paired_line(rows, first, other):
    """``first`` against ``other`` over every draw of ``rows``, as a line of the table."""
    mean, low, high, ahead, behind, n = paired_over_records(rows, first, other)
    return (f"  {first} minus {other}: {mean:+.4f} (95% interval {low:+.4f} to {high:+.4f}, "
            f"paired over {n} draws; ahead on {ahead}, behind on {behind})")


def bench_engine(seeds, sets=SSL_SETS, fraction=0.1):
    """Label generation at costs (1, 0.1), on the same problems: WellSVM Algorithm 1 as
    published (:meth:`RoundPolicy.paper`), the engine's default policy (``solve``'s), and the
    short schedule of ``S3VM``'s default fit (:meth:`RoundPolicy.estimator`, at most
    ``S3VM_ROUNDS`` rounds)."""
    import weakcvx as wc
    from weakcvx.cutting_plane import RoundPolicy, label_generation
    from weakcvx.estimators.s3vm import S3VM_ROUNDS

    runs = (("paper", {"policy": RoundPolicy.paper()}), ("default", {}),
            ("estimator", {"policy": RoundPolicy.estimator(), "max_iter": S3VM_ROUNDS}))
    records = []
    for name in tqdm(sets, desc="engine sets", leave=False):
        X, y = wc.datasets.load_uci(name)
        y01 = (y > 0).astype(int)
        K = wc.kernels.rbf(X, gamma="mean_distance") + 1.0  # the S3VM kernel with its offset
        for seed in seeds:
            labeled = labeled_mask(y01, fraction, seed)
            y_known = np.where(labeled, 2.0 * y01 - 1.0, 0.0)
            problem = wc.WeakLabelProblem(K, wc.labelsets.SemiSupervised(y_known),
                                          costs=(1.0, 0.1))
            row = {"data": name, "seed": seed}
            for label, options in runs:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    res = label_generation(problem, random_state=seed, **options)
                row[label] = {"rounds": res.n_iter, "seconds": res.seconds,
                              "master_value": res.value, "J": res.upper_bound}
            records.append(row)
    _print_engine(records, [label for label, _ in runs], fraction, seeds)
    return records


def _print_engine(records, labels, fraction, seeds):
    """Per problem: rounds, seconds, master value and ``J(labels)`` of every run; then each
    run against the published schedule (relative master value and J, median speed-up)."""
    print(f"\nLabel generation engine at costs (1, 0.1), {fraction:.0%} labeled, seeds "
          f"{seeds[0]}-{seeds[-1]}: " + " / ".join(labels))
    print(f"{'data':<12}{'seed':>5}{'rounds':>18}{'seconds':>24}{'master value':>33}"
          f"{'J(labels)':>33}")
    for r in records:
        print(f"{r['data']:<12}{r['seed']:>5}"
              + "".join(f"{r[k]['rounds']:>6}" for k in labels)
              + "".join(f"{r[k]['seconds']:>8.2f}" for k in labels)
              + "".join(f"{r[k]['master_value']:>11.4f}" for k in labels)
              + "".join(f"{r[k]['J']:>11.4f}" for k in labels))
    base = labels[0]
    for k in labels[1:]:
        rel_v = [r[k]["master_value"] / r[base]["master_value"] - 1 for r in records]
        rel_j = [r[k]["J"] / r[base]["J"] - 1 for r in records]
        speed = [r[base]["seconds"] / r[k]["seconds"] for r in records]
        print(f"{k} vs {base}: master value {np.mean(rel_v):+.2%} (range {min(rel_v):+.2%} to "
              f"{max(rel_v):+.2%}), J(labels) {np.mean(rel_j):+.2%} ({min(rel_j):+.2%} to "
              f"{max(rel_j):+.2%}), median speed-up {np.median(speed):.1f}x")


def bench_mil_peers(cv_seeds, names=("musk1",), n_splits=10):
    """The MIL table of :func:`weakcvx.bench.mil.seeds_table`: ``MultiInstanceSVM()`` beside
    the alternating MI-SVM and mi-SVM and the normalized set kernel, 10-fold CV bag accuracy
    (mean over CV seeds, with the range of the per-seed means) and the median time ratio to
    one ``SVC().fit`` on the fold's training instances, features standardized per fold."""
    from .mil import print_seeds_table, seeds_table

    records = [seeds_table(name, cv_seeds, n_splits=n_splits)
               for name in tqdm(names, desc="mil sets", leave=False)]
    print_seeds_table(records, cv_seeds, n_splits)
    return records


#: The label-proportion methods of :func:`bench_llp_peers` (names of ``bench llp``'s
#: ``make_estimator``).
LLP_METHODS = ("alter-pSVM", "alter-pSVM random", "conv-pSVM", "InvCal", "MeanMap")


def bench_llp_peers(seeds, sets=("heart", "ionosphere", "australian"), bag_size=8,
                    methods=LLP_METHODS, load=None):
    """Learning from label proportions with every method's defaults (``bench llp``'s
    ``make_estimator``): 80/20 split per seed, the training rows in random bags of
    ``bag_size``, accuracy on the test instances (mean over seeds, min-max) and the median
    time ratio to one ``SVC().fit`` on the training rows with their labels. ``load(name,
    seed) -> (X, y)`` replaces the shipped UCI sets (``y > 0`` is the positive class)."""
    from sklearn.model_selection import train_test_split

    from weakcvx import datasets

    from .llp import make_estimator

    if load is None:
        def load(name, seed):
            return datasets.load_uci(name)

    records = []
    for name in tqdm(sets, desc="llp sets", leave=False):
        acc = {m: [] for m in methods}
        ratio = {m: [] for m in methods}
        for seed in seeds:
            X, y = load(name, seed)
            y01 = (y > 0).astype(int)
            X_tr, X_te, y_tr, y_te = train_test_split(X, y01, test_size=0.2, random_state=seed,
                                                      stratify=y01)
            bags, proportions = datasets.make_bags(X_tr, y_tr, bag_size, random_state=seed)
            unit = _svc_seconds(X_tr, y_tr)
            for method in methods:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    t0 = time.perf_counter()
                    model = make_estimator(method, seed).fit(X_tr, bags, proportions)
                    ratio[method].append((time.perf_counter() - t0) / unit)
                    acc[method].append(float(np.mean(model.predict(X_te) == y_te)))
        records.append({"data": name, "bag_size": bag_size,
                        "accuracy": {m: _summary(v) for m, v in acc.items()},
                        "ratio": {m: float(np.median(v)) for m, v in ratio.items()}})
    print(f"\nLabel proportions, bags of {bag_size}, defaults, test accuracy: mean over split "
          f"seeds {seeds[0]}-{seeds[-1]} (min-max); time: median ratio to one SVC().fit on the "
          "training rows")
    _print_table(records, methods, digits=2)
    return records


def bench_peers(quick=False):
    """Run the peer comparisons (see the module docstring)."""
    seeds = REPORT_SEEDS[:3] if quick else REPORT_SEEDS
    out = {"ssl": bench_ssl(seeds)}
    out["ssl_random"] = bench_ssl_random(seeds)
    out["ssl_manifold"] = bench_ssl_manifold(seeds)
    out["ssl_multiclass"] = bench_ssl_multiclass(MULTICLASS_SEEDS[:2] if quick
                                                 else MULTICLASS_SEEDS)
    out["engine"] = bench_engine(seeds[:2] if quick else seeds[:3])
    out["mil"] = bench_mil_peers(tuple(range(2)) if quick else tuple(range(10)))
    out["llp"] = bench_llp_peers(seeds[:2] if quick else seeds[:5])
    return out
