"""The README's figures, generated from the benchmark records so that they cannot drift.

``python -m weakcvx.bench.readme`` reads the records that ``weakcvx bench all`` stores under
``reproduction/full/`` (one ``NAME.json`` per benchmark) and rewrites the block of ``README.md``
between the markers ``<!-- figures:start -->`` and ``<!-- figures:end -->``: when the committed
report was made, and one table row per benchmark with its headline figure. ``--check`` only
compares, exits 1 when the README differs from the records (the test suite runs it). A new
benchmark gets a row by adding a function to :data:`HEADLINES`; a benchmark without one is
listed with its wall time.

Examples
--------
>>> from weakcvx.bench.readme import figures_block
>>> block = figures_block("reproduction/full")  # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys

import numpy as np

from .report import _load_runs

__all__ = ["figures_block", "update_readme", "HEADLINES", "START", "END"]

START = "<!-- figures:start -->"
END = "<!-- figures:end -->"


def _mean(values):
    return float(np.mean([v for v in values if v is not None]))


def _mkl(records):
    by_n = {r["n"]: r for r in records}
    big = by_n[max(by_n)]
    same = " and ".join(f"{r['rel_diff']:.2g} (n={n})" for n, r in sorted(by_n.items()))
    return (f"MKLGL equals the CVXPY/Clarabel SOCP to {same} relative; n={max(by_n)}: "
            f"{big['mklgl_seconds']:.2f} s against {big['ref_seconds']:.0f} s "
            f"(**{big['speedup']:.0f}x**)")


def _linear(r):
    if "summary" not in r:  # a record of the single-generator benchmark
        return (f"{r['n']:,} x {r['d']:,} sparse rows: S3VM {r['s3vm_seconds']:.1f} s vs "
                f"LinearSVC {r['svc_seconds']:.2f} s in the same run = **{r['ratio']:.1f}x**, "
                f"peak extra memory **{r['memory_ratio']:.2f}x** X, transductive accuracy "
                f"{r['accuracy']:.3f}")
    parts = []
    for generator, stats in r["summary"].items():
        seeds = sorted({run["seed"] for run in r["runs"] if run["generator"] == generator})
        parts.append(
            f"{generator} rows (seeds {seeds[0]}–{seeds[-1]}): S3VM **{stats['ratio'][0]:.1f}x** "
            f"one fit of the bench's LinearSVC ({stats['ratio'][1]:.1f}–{stats['ratio'][2]:.1f}), "
            f"{stats['ratio_default'][0]:.1f}x one LinearSVC(random_state=0), peak extra "
            f"memory **{stats['memory_ratio'][0]:.2f}x** X, accuracy {stats['accuracy'][0]:.3f} "
            f"vs {stats['supervised_accuracy'][0]:.3f} / "
            f"{stats['supervised_default_accuracy'][0]:.3f} for the bench's / the default "
            "LinearSVC on the labeled rows")
    targets = r.get("targets", {})
    return (f"{r['n']:,} x {r['d']:,} sparse rows, 1% labeled, default S3VM(kernel='linear'): "
            + "; ".join(parts) + f" (targets ≤ {targets.get('ratio', 10):g}x, "
            f"≤ {targets.get('memory_ratio', 2):g}x)")


def _scale(records):
    parts = []
    for r in records:
        seconds = f", {r['seconds']:.1f} s" if r.get("seconds") is not None else ""
        ours = r["ours"]
        if isinstance(ours, float):
            ours = f"{ours:.3f}" if ours < 10 else f"{ours:.1f}"
        parts.append(f"{r['quantity']}: {ours}{seconds}")
    return "; ".join(parts)


def _ssl_uci(records):
    fit = [r["fit_seconds"] for r in records]
    return (f"mean accuracy S3VM {_mean(r['s3vm'] for r in records):.3f}, SVM "
            f"{_mean(r['svm'] for r in records):.3f} (paper "
            f"{_mean(r['paper_wellsvm'] for r in records):.3f} / "
            f"{_mean(r['paper_svm'] for r in records):.3f}) on {len(records)} sets; S3VM fit "
            f"{min(fit):.1f}–{max(fit):.1f} s")


def _two_moons(records):
    out = []
    for method in dict.fromkeys(r["method"] for r in records):
        rs = [r for r in records if r["method"] == method]
        text = (f"{method} {100 * _mean(r['test_error'] for r in rs):.1f}% test error, "
                f"{_mean(r['seconds'] for r in rs):.2f} s per run")
        if "optimal" in rs[0]:
            text += (f", optimum proven {sum(bool(r['optimal']) for r in rs)}/{len(rs)}, "
                     f"{_mean(r['nodes'] for r in rs):,.0f} nodes per run (paper: 0.0% error, "
                     "~60 s per run in Matlab)")
        out.append(text)
    return f"{len(records) // max(len(out), 1)} realisations: " + "; ".join(out)


def _sdp(records):
    parts = [f"{r['problem']} n={r['n']} {r['solver']} {r['status']} {r['seconds']:.1f} s"
             for r in records if r.get("seconds") is not None]
    return "; ".join(parts)


def _bnb(result):
    largest = ", ".join(f"bound {b!r}: n={n}" for b, n in result["largest_certified"].items())
    rs = result["records"]
    certified = sum(bool(r.get("certified")) for r in rs)
    text = f"largest n with every seed certified: {largest}"
    per_seed = result.get("largest_per_seed")  # records before the per-seed sweep lack it
    if per_seed:
        text += "; per seed: " + "; ".join(
            f"bound {b!r}: " + ", ".join(f"seed {s} {n}" for s, n in seeds.items())
            for b, seeds in per_seed.items())
    return f"{text}; {certified} of {len(rs)} runs certified"


def _mil(records):
    from .mil import PAPER

    seed0, seeds = {}, {}
    for r in records:
        if r["method"] == "label_generation" and r.get("preprocessing") == "select":
            if "seed_accuracies" in r:
                seeds[r["dataset"]] = r["seed_accuracies"]
            else:
                seed0[r["dataset"]] = r["accuracy"]
    parts = []
    for ds, acc in seed0.items():
        if ds in seeds:  # the mean over CV seeds leads; CV seed 0 alone is one draw of it
            values = 100 * np.asarray(seeds[ds])
            text = (f"{ds} **{values.mean():.1f}%** over CV seeds 0–{len(values) - 1} "
                    f"({values.min():.1f}–{values.max():.1f})")
        else:
            text = f"{ds} {100 * acc:.1f}% (CV seed 0 only)"
        parts.append(f"{text} (paper mi-SVM {PAPER['mi-SVM'][ds]:.1f}, MI-SVM "
                     f"{PAPER['MI-SVM'][ds]:.1f})")
    return ("label generation, preprocessing chosen by inner CV: " + "; ".join(parts))


def _llp(records):
    from .llp import BAG_SIZES, PAPER_TABLE2

    method = "alter-pSVM"
    cells = {}
    for r in records:
        if r.get("method") == method:
            cells.setdefault((r["dataset"], r["bag_size"]), []).append(r["accuracy"])
    diffs = {k: 100 * (np.mean(v) - PAPER_TABLE2[k[0]][method][BAG_SIZES.index(k[1])] / 100)
             for k, v in cells.items()}
    # cells the paper's table does not have are NaN
    small = {k: d for k, d in diffs.items() if k[1] <= 8 and np.isfinite(d)}
    lo, hi = min(small, key=small.get), max(small, key=small.get)
    large = {k: 100 * np.mean(v) for k, v in cells.items() if k[1] >= 32}
    text = (f"alter-∝SVM minus Table 2 at bags of 2–8, {len(small)} cells: from "
            f"{small[lo]:+.1f} points ({lo[0]}, bags of {lo[1]}) to {small[hi]:+.1f} "
            f"({hi[0]}, bags of {hi[1]}), median {np.median(list(small.values())):+.1f}")
    if large:
        text += (f"; at bags of 32–64 {min(large.values()):.0f}–{max(large.values()):.0f}% "
                 f"({', '.join(sorted({k[0] for k in large}))})")
    return text


def _clustering(records):
    with_grid = [r for r in records if r.get("best") is not None]
    return (f"best of grid mean {_mean(r['best'] for r in with_grid):.3f} on {len(with_grid)} "
            f"sets (paper {_mean(r['paper_wellsvm'] for r in with_grid):.3f}); "
            f"MaxMarginClustering defaults {_mean(r['defaults'] for r in records):.3f} against "
            f"k-means {_mean(r['kmeans'] for r in records):.3f} on {len(records)} sets")


def _pl(records):
    from .report import _rows_pl

    rows = _rows_pl(records)
    return f"PL-SVM between SVM and SVM-All in {rows[-1]['ours']} cells"


def _beta_ssl(records):
    names = (("beta", "β-SVM", 2), ("svm", "SVM", 0), ("well", "WellSVM", 1))
    return "; ".join(f"mean {name} {_mean(r[key] for r in records):.3f} (paper "
                     f"{_mean(r['paper'][i] for r in records):.2f})" for key, name, i in names)


def _beta_noise(records):
    figure = [r for r in records if r["kind"] != "defaults"]
    above = sum(r["knn"] > r["given"] for r in figure)
    text = (f"4-nn relabeling above the given noisy labels at {above} of {len(figure)} noise "
            "levels (the paper's Fig. 2 has it above at all)")
    defaults = [r for r in records if r["kind"] == "defaults"]
    names = ("BetaSVM(init='knn')", "BetaSVM()", "SVC()")
    if defaults:
        cells = "; ".join(f"{r['noise']}%: " + ", ".join(
            f"{name} {r['accuracy'][name]['mean']:.3f} ({r['accuracy'][name]['min']:.3f}–"
            f"{r['accuracy'][name]['max']:.3f})" for name in names) for r in defaults)
        text += f"; defaults on flipped labels (8 UCI sets, range over the seeds: {cells})"
    return text


def _by_fraction(records):
    """``(fraction, rows, mean)`` per labeled fraction of a table's records, ``mean(method)``
    the mean over those rows of the method's mean accuracy."""
    for fraction in sorted({r["fraction"] for r in records}):
        rows = [r for r in records if r["fraction"] == fraction]

        def mean(method, rows=rows):
            return _mean(r["accuracy"][method]["mean"] for r in rows)

        yield fraction, rows, mean


def _paired(rows, first, other):
    """``first - other`` paired over the draws of ``rows``, with its 95% interval."""
    from .peers import paired_over_records

    mean, low, high, _, _, n = paired_over_records(rows, first, other)
    return f"{mean:+.4f} (95% interval {low:+.4f} to {high:+.4f} over {n} paired draws)"


def _peers(result):
    parts = []
    for fraction, rows, mean in _by_fraction(result["ssl"]):
        ratio = float(np.median([r["ratio"]["S3VM"] for r in rows]))
        parts.append(f"{fraction:.0%} labeled, six UCI sets, held-out split seeds: S3VM "
                     f"**{mean('S3VM'):.3f}** vs SVC on the labeled rows {mean('SVC (labeled)'):.3f}, "
                     f"alternating {mean('S3VM alt'):.3f}, BetaSVM {mean('BetaSVM'):.3f}, "
                     f"self-training "
                     f"{mean('self-training'):.3f}, label spreading {mean('LabelSpreading'):.3f}; "
                     f"S3VM fit {ratio:.0f}x one SVC fit; S3VM minus alternating "
                     + _paired(rows, "S3VM", "S3VM alt"))
    for fraction in sorted({r["fraction"] for r in result.get("ssl_random", [])}):
        rows = [r for r in result["ssl_random"] if r["fraction"] == fraction]
        s3vm = _mean(r["accuracy"]["S3VM"]["mean"] for r in rows)
        svc = _mean(r["accuracy"]["SVC (labeled)"]["mean"] for r in rows)
        below = sum(r["accuracy"]["S3VM"]["mean"] < r["accuracy"]["SVC (labeled)"]["mean"] - 0.01
                    for r in rows)
        parts.append(f"{fraction:.0%} labeled at random, {len(rows)} UCI sets: S3VM "
                     f"**{s3vm:.3f}** vs SVC on the labeled rows {svc:.3f} (more than 0.01 below "
                     f"it on {below})")
    for fraction, rows, mean in _by_fraction(result.get("ssl_manifold", [])):
        parts.append(f"{fraction:.0%} labeled, data with low-density gaps (two moons, noisier "
                     f"moons, circles, digits 3/8): S3VM **{mean('S3VM'):.3f}** vs "
                     f"S3VM(gamma=\"mean_distance\") {mean('S3VM mean_dist'):.3f}, SVC on the "
                     f"labeled rows {mean('SVC (labeled)'):.3f}, self-training "
                     f"{mean('self-training'):.3f}, label spreading {mean('LabelSpreading'):.3f}")
    for fraction, rows, mean in _by_fraction(result.get("ssl_multiclass", [])):
        pairs = "S3VM ovr" in rows[0]["accuracy"]
        parts.append(f"{fraction:.0%} labeled, {len(rows)} sets of 3-10 classes ("
                     + ("one per class against the rest, then per pair of classes"
                        if pairs else "one S3VM per class against the rest")
                     + f"): S3VM **{mean('S3VM'):.3f}** vs SVC on the "
                     f"labeled rows {mean('SVC (labeled)'):.3f}"
                     + (f", S3VM(multi_class=\"ovr\") {mean('S3VM ovr'):.3f}" if pairs else "")
                     + (f", BetaSVM {mean('BetaSVM'):.3f}" if "BetaSVM" in rows[0]["accuracy"]
                        else "")
                     + (f", BetaSVM(multi_class=\"ovr\") {mean('BetaSVM ovr'):.3f}"
                        if "BetaSVM ovr" in rows[0]["accuracy"] else "")
                     + f", self-training "
                     f"{mean('self-training'):.3f}, label spreading {mean('LabelSpreading'):.3f}")
    for r in result.get("mil", []):
        acc = r["accuracy"]
        parts.append(f"{r['data']} 10-fold CV over {len(r['per_seed']['NSK'])} CV seeds: "
                     f"MultiInstanceSVM **{acc['MultiInstanceSVM']['mean']:.3f}** "
                     f"({acc['MultiInstanceSVM']['min']:.3f}–{acc['MultiInstanceSVM']['max']:.3f})"
                     f", NSK {acc['NSK']['mean']:.3f}"
                     + (f", NSK with misvm's defaults {acc['NSK (misvm)']['mean']:.3f}"
                        if "NSK (misvm)" in acc else "")
                     + f", mi-SVM {acc['mi-SVM (alt)']['mean']:.3f}, "
                     f"MI-SVM {acc['MI-SVM (alt)']['mean']:.3f}")
    llp = result.get("llp", [])
    if llp:
        names = ("alter-pSVM", "conv-pSVM", "InvCal", "MeanMap")
        means = {m: _mean(r["accuracy"][m]["mean"] for r in llp) for m in names}
        parts.append(f"label proportions, bags of {llp[0]['bag_size']}, {len(llp)} sets, defaults: "
                     + ", ".join(f"{m} {means[m]:.3f}" for m in names))
    return "; ".join(parts)


def _heldout(result):
    def means(table, methods):
        rows = result[table]
        return {m: _mean(r["accuracy"][m]["mean"] for r in rows) for m in methods}, len(rows)

    def ratio(table, method):
        return float(np.median([r["ratio"][method] for r in result[table]]))

    ssl, n_ssl = means("ssl", ("S3VM", "S3VM alt", "BetaSVM", "SVC (labeled)", "self-training",
                               "LabelSpreading"))
    clus, n_clus = means("clustering", ("MaxMarginClustering", "k-means"))
    wins = sum(r["accuracy"]["MaxMarginClustering"]["mean"] >= r["accuracy"]["k-means"]["mean"]
               for r in result["clustering"])
    mil, n_mil = means("mil", ("MultiInstanceSVM", "MI-SVM (alt)", "NSK", "NSK (misvm)"))
    llp, n_llp = means("llp", ("alter-pSVM", "conv-pSVM", "InvCal", "MeanMap"))
    seeds = len(result["ssl"][0]["per_seed"]["S3VM"])
    return (f"data no recorded measurement used, {seeds} seeds: SSL, 10% labeled, {n_ssl} sets: "
            f"S3VM **{ssl['S3VM']:.3f}** vs SVC on the labeled rows {ssl['SVC (labeled)']:.3f}, "
            f"alternating {ssl['S3VM alt']:.3f}, BetaSVM {ssl['BetaSVM']:.3f}, self-training "
            f"{ssl['self-training']:.3f}, "
            f"label spreading {ssl['LabelSpreading']:.3f} (S3VM {ratio('ssl', 'S3VM'):.0f}x one "
            f"SVC fit); clustering, {n_clus} sets: MaxMarginClustering "
            f"**{clus['MaxMarginClustering']:.3f}** vs k-means {clus['k-means']:.3f}, at or "
            f"above it on {wins} ({ratio('clustering', 'MaxMarginClustering'):.0f}x one k-means "
            f"fit); digit bags, {n_mil} sets: MultiInstanceSVM **{mil['MultiInstanceSVM']:.3f}** "
            f"vs MI-SVM {mil['MI-SVM (alt)']:.3f}, NSK {mil['NSK']:.3f}, NSK with misvm's "
            f"defaults {mil['NSK (misvm)']:.3f}; label proportions, bags of "
            f"{result['llp'][0]['bag_size']}, {n_llp} sets: alter-pSVM "
            f"**{llp['alter-pSVM']:.3f}**, conv-pSVM {llp['conv-pSVM']:.3f}, InvCal "
            f"{llp['InvCal']:.3f}, MeanMap {llp['MeanMap']:.3f}")


def _sdp_lowrank(records):
    def cell(r):
        return (f"{r['problem']} n={r['n']}: {100 * r['gap']:.2f}% gap in {r['seconds']:.0f} s"
                + (f" (1% at {r['seconds_to_1pct']:.0f} s)" if r.get("seconds_to_1pct") else ""))
    return ("certified low-rank SDP on two moons, one thread, one starting factor (random_state "
            "0; other seeds: docs/methods/lowrank_sdp.rst): " + "; ".join(map(cell, records)))


#: benchmark name -> (what it measures, function of its records -> the headline figure)
HEADLINES = {
    "mkl": ("MKL master, 8 labels, rank-200 RBF factor", _mkl),
    "linear": ("linear S3VM on sparse rows", _linear),
    "scale": ("low-rank RBF, label proportions, β-SVM and the linear path at scale", _scale),
    "ssl-uci": ("WellSVM Table 3, 10% labeled, 10 splits, default parameters", _ssl_uci),
    "two-moons": ("Chapelle et al. Table 1, with the paper's C = 10 and σ = 0.5 (gamma = 2), "
                  "not the estimators' default widths", _two_moons),
    "sdp": ("SDP on two moons, SCS eps 1e-3", _sdp),
    "sdp-lowrank": ("the SDP rung at scale, with a certificate", _sdp_lowrank),
    "bnb": ("branch and bound on two moons, 3 seeds per size", _bnb),
    "mil": ("Andrews et al. Table 1, 10-fold CV", _mil),
    "llp": ("Yu et al. Table 2, 5 splits", _llp),
    "clustering": ("WellSVM Table 11", _clustering),
    "pl": ("Nguyen & Caruana Figs. 6–7", _pl),
    "beta-ssl": ("β-risk supplementary SSL table", _beta_ssl),
    "beta-noise": ("β-risk Fig. 2, label noise", _beta_noise),
    "peers": ("weakcvx beside peer methods, means over seeds", _peers),
    "heldout": ("defaults on data no measurement used, means over seeds", _heldout),
}


def _when(runs):
    """When the records were made: first and last finishing day, and benchmark time."""
    days = sorted({run["finished"][:10] for run in runs.values() if run.get("finished")})
    total = sum(run["seconds"] for run in runs.values()) / 60
    span = f"on {days[0]}" if len(days) == 1 else f"from {days[0]} to {days[-1]}"
    return (f"The records were made {span} ({total:.0f} min of benchmark time in all; "
            "REPRODUCTION.md says on which machine, at which commits and which benchmarks "
            "shared the cores).")


def figures_block(records_dir):
    """The markdown between the markers: the date line and the table of headline figures.

    Parameters
    ----------
    records_dir : str
        A directory of ``NAME.json`` records written by ``weakcvx bench``.

    Returns
    -------
    str
    """
    runs = _load_runs(records_dir)
    if not runs:
        raise ValueError(f"`records_dir` must hold benchmark records (NAME.json). Found none "
                         f"in {records_dir!r}.")
    lines = [_when(runs), "", "| benchmark | figure (from `reproduction/full/NAME.json`) |",
             "|---|---|"]
    for name, run in runs.items():
        if run.get("error") or run.get("records") is None:
            lines.append(f"| `bench {name}` | no record: {run.get('error') or 'not run'} |")
            continue
        what, headline = HEADLINES.get(name, (None, None))
        figure = headline(run["records"]) if headline else "(no headline figure defined)"
        label = f"`bench {name}`" + (f" ({what})" if what else "")
        minutes = run["seconds"] / 60
        took = f"{minutes:.0f} min" if minutes >= 1 else f"{run['seconds']:.0f} s"
        lines.append(f"| {label} | {figure.replace('|', '/')}; whole benchmark {took} |")
    return "\n".join(lines)


def update_readme(readme="README.md", records_dir="reproduction/full", check=False):
    """Rewrite the figures block of ``readme`` from ``records_dir``; with ``check``, only
    compare. Returns True when the file already held the generated block."""
    with open(readme, encoding="utf-8") as fh:
        text = fh.read()
    if text.count(START) != 1 or text.count(END) != 1 or text.index(START) > text.index(END):
        raise ValueError(f"`readme` must hold one {START} ... {END} block. Got {readme!r} with "
                         f"{text.count(START)} start and {text.count(END)} end markers.")
    head, rest = text.split(START)
    _, tail = rest.split(END)
    new = f"{head}{START}\n{figures_block(records_dir)}\n{END}{tail}"
    if new == text:
        return True
    if not check:
        with open(readme, "w", encoding="utf-8") as fh:
            fh.write(new)
    return False


def main(argv=None):
    """``python -m weakcvx.bench.readme [--check] [--readme PATH] [--records DIR]``."""
    parser = argparse.ArgumentParser(prog="python -m weakcvx.bench.readme",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--readme", default="README.md")
    parser.add_argument("--records", default=os.path.join("reproduction", "full"))
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when the README's figures differ from the records")
    args = parser.parse_args(argv)
    same = update_readme(args.readme, args.records, check=args.check)
    if args.check and not same:
        print(f"{args.readme}: the figures block differs from {args.records}; run "
              "python -m weakcvx.bench.readme", file=sys.stderr)
        return 1
    print(f"{args.readme}: figures block {'unchanged' if same else 'rewritten'} "
          f"({datetime.date.today()})")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
