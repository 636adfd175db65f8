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
        rows.append({"paper": TABLE, "quantity": f"magic, {name}: accuracy (seed mean)",
                     "paper_value": None, "ours": float(np.mean(accuracy)),
                     "seconds": float(np.mean(seconds)),
                     "note": f"range {min(accuracy):.3f}-{max(accuracy):.3f} over seeds "
                             f"{list(seeds)}; {baseline} "
                             f"{np.mean([run[baseline][1] for run in runs]):.3f}",
                     "raw": {"seeds": list(seeds), "runs": [run[name] for run in runs]}})
