"""``bench scale``'s real-data table: the estimators' defaults on UCI MAGIC Gamma Telescope.

The other tables of ``bench scale`` run on generated data; this one runs on the largest real
binary set shipped with weakcvx (:func:`weakcvx.datasets.load_uci`, ``"magic"``: 19,020 rows,
10 features, standardized; +1 = hadron, 35%), at its full size, where every kernel estimator
is past its switch to a feature space or a factor (docs/design.rst §7; S3VM's switch depends on
the memory budget, and the default 8 GiB does not hold its four 19,020² kernels). Per seed (a stratified
draw of the labeled rows, or a random cut into bags):

- semi-supervised, 1% of the rows labeled (a stratified draw,
  :func:`weakcvx.bench.peers.labeled_mask`): ``S3VM()`` and ``BetaSVM()``, accuracy on the
  unlabeled rows, beside ``SVC()`` trained on the labeled rows only;
- label proportions, random bags of 16: ``ProportionSVM()`` (linear) and, in the full run,
  ``ProportionSVM(kernel="rbf")``, accuracy on the training rows, beside ``InvCal`` with the
  same kernel and ``MeanMap()``.

A second table runs ``S3VM()`` and ``MaxMarginClustering()`` on random subsets of 6,000 and
10,000 rows, between ``RBF_FACTOR_MIN_ROWS`` (5,000) and the memory budget, where the RBF
kernel enters through the rank-1,000 factor although the dense kernel would fit (before that
switch a default fit took 75-490 s there, docs/design.rst §7): ``S3VM()`` with 1% labeled
(stratified), accuracy on the other rows of magic beside ``SVC()`` on the labeled rows;
``MaxMarginClustering()`` beside ``KMeans(2, n_init=10)``, clustering accuracy on the subset.

Seconds are wall time of one fit (one BLAS thread when run by ``weakcvx bench``); the figures
are means over the seeds with their range.
"""

from __future__ import annotations

import time
import warnings

import numpy as np

#: Seeds of the full run (quick: the first only).
SEEDS = (0, 1, 2)
#: Labeled fraction of the semi-supervised rows (a stratified draw, as in ``bench peers``).
LABELED_FRACTION = 0.01
#: Bag size of the label-proportion rows.
BAG_SIZE = 16
#: Rows of the random subsets of the second table (quick: the first only).
SUBSET_SIZES = (6000, 10000)
TABLE = "Scale: defaults on real data, UCI magic (no paper figure)"


def _fit(make, *args):
    """``(model, seconds)`` of ``make().fit(*args)``, warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        model = make().fit(*args)
    return model, time.perf_counter() - t0


def semi_supervised_run(X, y01, seed):
    """``S3VM()`` and ``BetaSVM()`` on one draw of labeled rows: seconds and accuracy on the
    unlabeled rows of each, and of ``SVC()`` on the labeled rows."""
    from sklearn.svm import SVC

    from weakcvx import S3VM, BetaSVM

    from .peers import labeled_mask

    labeled = labeled_mask(y01, LABELED_FRACTION, seed)
    unlabeled = ~labeled
    y_semi = np.where(labeled, y01, -1)
    s3vm, s3vm_seconds = _fit(lambda: S3VM(random_state=0), X, y_semi)
    beta, beta_seconds = _fit(BetaSVM, X, y_semi)
    svc, _ = _fit(SVC, X[labeled], y01[labeled])
    truth = y01[unlabeled]
    return {"S3VM()": (s3vm_seconds, float(np.mean(s3vm.transduction_[unlabeled] == truth))),
            "BetaSVM()": (beta_seconds, float(np.mean(beta.predict(X[unlabeled]) == truth))),
            "SVC() labeled": (None, float(np.mean(svc.predict(X[unlabeled]) == truth)))}


def proportion_run(X, y01, seed, kernels=("linear", "rbf")):
    """``ProportionSVM(kernel)`` and ``InvCal(kernel)`` for each kernel, and ``MeanMap()``, on
    one random cut into bags of :data:`BAG_SIZE`: seconds and accuracy on the training rows."""
    from weakcvx import InvCal, MeanMap, ProportionSVM
    from weakcvx.datasets import make_bags

    bags, p = make_bags(X, y01, BAG_SIZE, random_state=seed)
    out = {}
    for kernel in kernels:
        for name, make in ((f"ProportionSVM({kernel})",
                            lambda: ProportionSVM(kernel=kernel, random_state=seed)),
                           (f"InvCal({kernel})", lambda: InvCal(kernel=kernel))):
            model, seconds = _fit(make, X, bags, p)
            out[name] = (seconds, float(np.mean(model.predict(X) == y01)))
    model, seconds = _fit(MeanMap, X, bags, p)
    out["MeanMap()"] = (seconds, float(np.mean(model.predict(X) == y01)))
    return out


def _cell(values, fmt):
    values = [v for v in values if v is not None]
    if not values:
        return "—"
    return f"{np.mean(values):{fmt}} ({min(values):{fmt}}-{max(values):{fmt}})"


def _report_row(what, name, baseline, runs, seeds):
    """The report row of estimator ``name`` over ``runs`` (one dict per seed), ``baseline``'s
    mean accuracy in its note."""
    seconds = [run[name][0] for run in runs]
    accuracy = [run[name][1] for run in runs]
    return {"paper": TABLE, "quantity": f"{what}: accuracy (seed mean)", "paper_value": None,
            "ours": float(np.mean(accuracy)), "seconds": float(np.mean(seconds)),
            "note": f"range {min(accuracy):.3f}-{max(accuracy):.3f} over seeds {list(seeds)}; "
                    f"{baseline} {np.mean([run[baseline][1] for run in runs]):.3f}",
            "raw": {"seeds": list(seeds), "runs": [run[name] for run in runs]}}


def print_real_scale(rows, quick=False):
    """Run and print the table (seeds :data:`SEEDS`; quick: seed 0, no RBF label-proportion
    rows); one report row per estimator of weakcvx, appended to ``rows``."""
    from weakcvx.datasets import load_uci

    X, y = load_uci("magic")
    y01 = (y > 0).astype(int)
    seeds = SEEDS[:1] if quick else SEEDS
    kernels = ("linear",) if quick else ("linear", "rbf")
    runs = [{**semi_supervised_run(X, y01, seed), **proportion_run(X, y01, seed, kernels)}
            for seed in seeds]
    print(f"\nReal data: UCI magic, {X.shape[0]} x {X.shape[1]} standardized; semi-supervised "
          f"rows: {LABELED_FRACTION:.0%} labeled (stratified), accuracy on the unlabeled rows; "
          f"label proportions: bags of {BAG_SIZE}, accuracy on the training rows; seeds "
          f"{list(seeds)}, mean (min-max)")
    print(f"{'estimator':<22}{'seconds':>20}{'accuracy':>26}")
    for name in runs[0]:
        seconds = [run[name][0] for run in runs]
        accuracy = [run[name][1] for run in runs]
        print(f"{name:<22}{_cell(seconds, '.1f'):>20}{_cell(accuracy, '.3f'):>26}")
        if not name.startswith(("ProportionSVM", "S3VM", "BetaSVM")):
            continue
        baseline = ("SVC() labeled" if name in ("S3VM()", "BetaSVM()")
                    else name.replace("ProportionSVM", "InvCal"))
        rows.append(_report_row(f"magic, {name}", name, baseline, runs, seeds))


def subset_run(X, y01, n, seed):
    """``S3VM()`` and ``MaxMarginClustering()`` on a random subset of ``n`` rows (one draw per
    seed): seconds and accuracy, beside ``SVC()`` on the labeled rows and ``KMeans``."""
    from sklearn.cluster import KMeans
    from sklearn.svm import SVC

    from weakcvx import S3VM, MaxMarginClustering

    from .peers import labeled_mask

    rows = np.random.RandomState(seed).permutation(X.shape[0])
    subset, rest = rows[:n], rows[n:]
    Xs, ys = X[subset], y01[subset]
    labeled = labeled_mask(ys, LABELED_FRACTION, seed)
    s3vm, s3vm_seconds = _fit(lambda: S3VM(random_state=0), Xs, np.where(labeled, ys, -1))
    svc, _ = _fit(SVC, Xs[labeled], ys[labeled])
    mmc, mmc_seconds = _fit(lambda: MaxMarginClustering(random_state=seed), Xs)
    kmeans, kmeans_seconds = _fit(lambda: KMeans(2, n_init=10, random_state=seed), Xs)

    def clustering(labels):
        agree = float(np.mean(labels == ys))
        return max(agree, 1.0 - agree)

    return {"S3VM()": (s3vm_seconds, float(np.mean(s3vm.predict(X[rest]) == y01[rest]))),
            "SVC() labeled": (None, float(np.mean(svc.predict(X[rest]) == y01[rest]))),
            "MaxMarginClustering()": (mmc_seconds, clustering(mmc.labels_)),
            "KMeans(n_init=10)": (kmeans_seconds, clustering(kmeans.labels_))}


def print_subsets(rows, quick=False):
    """Run and print the subset table (:data:`SUBSET_SIZES` x :data:`SEEDS`; quick: 6,000
    rows, seed 0); one report row per estimator of weakcvx and size, appended to ``rows``."""
    from weakcvx.datasets import load_uci

    X, y = load_uci("magic")
    y01 = (y > 0).astype(int)
    seeds = SEEDS[:1] if quick else SEEDS
    sizes = SUBSET_SIZES[:1] if quick else SUBSET_SIZES
    print(f"\nReal data, subsets of magic (RBF kernel through the rank-1000 factor although "
          f"the dense kernel fits): S3VM() with {LABELED_FRACTION:.0%} labeled (stratified), "
          f"accuracy on the rows outside the subset; MaxMarginClustering() and KMeans, "
          f"clustering accuracy on the subset; seeds {list(seeds)}, mean (min-max)")
    print(f"{'estimator':<22}{'rows':>7}{'seconds':>20}{'accuracy':>26}")
    for n in sizes:
        runs = [subset_run(X, y01, n, seed) for seed in seeds]
        for name in runs[0]:
            seconds = [run[name][0] for run in runs]
            accuracy = [run[name][1] for run in runs]
            print(f"{name:<22}{n:>7}{_cell(seconds, '.1f'):>20}{_cell(accuracy, '.3f'):>26}")
            if name not in ("S3VM()", "MaxMarginClustering()"):
                continue
            baseline = "SVC() labeled" if name == "S3VM()" else "KMeans(n_init=10)"
            rows.append(_report_row(f"magic {n} rows, {name}", name, baseline, runs, seeds))
