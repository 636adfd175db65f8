"""The reproduction report: ``weakcvx bench all [--quick]`` runs every benchmark and writes
``REPRODUCTION.md``.

Every benchmark of :data:`weakcvx.bench.BENCHMARKS` runs in turn (a progress bar counts them);
its printed table goes to ``<plot_dir>/<mode>/<name>.txt``, its records to
``<mode>/<name>.json`` and the plots it draws into ``<mode>/`` (the benchmarks write their
figures to the working directory, which is that folder while they run). The report is then
rendered from the stored records of *every* benchmark present in that folder, so a subset can be
re-run (``--only``) without losing the others.

For each paper the report holds one table: the quantity, the paper's figure, ours, the
difference (ours − paper, when both are numbers) and seconds. The extraction of those rows from a
benchmark's records is the function registered for it in :data:`ROWS`; a benchmark without one
(or one that failed) still gets its printed output in the report.
"""

from __future__ import annotations

import contextlib
import datetime
import io
import json
import os
import platform
import sys
import time
import traceback

import numpy as np

__all__ = ["ROWS", "run_all", "write_report", "machine_description"]


# ---------------------------------------------------------------------------------------------
# rows: benchmark records -> (paper, quantity, paper figure, ours, seconds, note)
# ---------------------------------------------------------------------------------------------

def _row(paper, quantity, paper_value, ours, seconds=None, note=""):
    return {"paper": paper, "quantity": quantity, "paper_value": paper_value, "ours": ours,
            "seconds": seconds, "note": note}


def _mean(values):
    values = [v for v in values if v is not None]
    return float(np.mean(values)) if values else None


def _rows_ssl_uci(records):
    paper = "Li et al. 2013 (WellSVM), Table 3, 10% labeled, accuracy"
    rows = []
    for r in records:
        rows.append(_row(paper, f"{r['data']}: SVM (labeled only)", r["paper_svm"], r["svm"]))
        rows.append(_row(paper, f"{r['data']}: WellSVM / S3VM", r["paper_wellsvm"], r["s3vm"],
                         r["fit_seconds"], "seconds: mean S3VM fit"))
    return rows


def _rows_two_moons(records):
    from weakcvx.bench.two_moons import PAPER_BB_SECONDS, PAPER_TABLE1

    paper = "Chapelle, Sindhwani & Keerthi 2006, Table 1 (two moons), test error"
    rows = []
    for method in dict.fromkeys(r["method"] for r in records):
        rs = [r for r in records if r["method"] == method]
        ref = PAPER_TABLE1["BB"][0] / 100 if method == "BranchAndBoundS3VM" else None
        note = f"{len(rs)} realisations"
        if "optimal" in rs[0]:
            note += f", certified optimal {sum(r['optimal'] for r in rs)}/{len(rs)}; paper " \
                    f"~{PAPER_BB_SECONDS:.0f} s per run (Matlab)"
        rows.append(_row(paper, f"{method}: test error", ref,
                         _mean([r["test_error"] for r in rs]),
                         _mean([r["seconds"] for r in rs]), note))
    return rows


def _rows_bnb(result):
    paper = "Chapelle, Sindhwani & Keerthi 2006 (branch and bound), two moons"
    rows = []
    for bound, n in result["largest_certified"].items():
        rs = [r for r in result["records"] if r["bound"] == bound]
        rows.append(_row(paper, f"largest n certified, bound={bound!r}", None, n,
                         sum(r["seconds"] for r in rs), "paper: n = 102 solved"))
    return rows


def _rows_sdp(records):
    paper = "SDP relaxation (Bie & Cristianini 2006; WellSVM §2), two moons"
    return [_row(paper, f"{r['problem']} n={r['n']} {r['solver']}: {r['status']}", None,
                 r.get("value"), r.get("seconds"), "ours: certified lower bound")
            for r in records]


def _rows_mkl(records):
    paper = "WellSVM master problem: MKLGL vs CVXPY (Clarabel) reference"
    return [_row(paper, f"n={r['n']} T={r['T']}: relative difference of values", None,
                 r["rel_diff"], r["mklgl_seconds"],
                 f"no paper figure; reference {r['ref_seconds']:.1f} s ({r['speedup']:.0f}x)")
            for r in records]


def _rows_linear(record):
    paper = "Li et al. 2013 (WellSVM), linear kernel on sparse text rows"
    return [_row(paper, f"S3VM seconds / LinearSVC seconds on {record['n']} x {record['d']}",
                 None, record["ratio"], record["s3vm_seconds"],
                 f"transductive accuracy {record['accuracy']:.3f}; peak memory "
                 f"{record['memory_ratio']:.2f} x size of X"),
            _row(paper, "RCV1: 677k rows in under 1000 s (paper)", 1000.0,
                 record["s3vm_seconds"], record["s3vm_seconds"],
                 f"ours on {record['n']} synthetic rows, not RCV1")]


def _rows_llp(records):
    from weakcvx.bench.llp import BAG_SIZES, PAPER_TABLE2

    paper = "Yu et al. 2013 (∝SVM), Table 2, linear kernel, accuracy"
    rows = []
    cells = [r for r in records if "method" in r]
    for key in dict.fromkeys((r["dataset"], r["method"], r["bag_size"]) for r in cells):
        ds, method, bs = key
        rs = [r for r in cells if (r["dataset"], r["method"], r["bag_size"]) == key]
        rows.append(_row(paper, f"{ds}, {method}, bags of {bs}",
                         PAPER_TABLE2[ds][method][BAG_SIZES.index(bs)] / 100,
                         _mean([r["accuracy"] for r in rs]), _mean([r["seconds"] for r in rs]),
                         f"{len(rs)} splits"))
    return rows


def _rows_mil(records):
    from weakcvx.bench.mil import PAPER

    paper = "Andrews et al. 2003, Table 1 (10-fold CV bag accuracy)"
    rows = []
    for r in records:
        if r["dataset"] in ("roi_toy", "sparse_bags"):
            continue
        if r["method"].startswith("mi-SVM"):
            ref, note = PAPER["mi-SVM"][r["dataset"]], ""
        elif r["method"].startswith("MI-SVM"):
            ref, note = PAPER["MI-SVM"][r["dataset"]], ""
        else:
            ref = max(PAPER["mi-SVM"][r["dataset"]], PAPER["MI-SVM"][r["dataset"]])
            note = "paper: best of mi-SVM / MI-SVM"
        prep = r.get("preprocessing", "standardize")
        prep = "preprocessing by inner CV" if prep == "select" else prep
        if "seed_accuracies" in r:
            prep += f", mean over CV seeds 0-{len(r['seed_accuracies']) - 1}"
        if "seed_accuracies" in r:
            note += (f"; seeds range {min(r['seed_accuracies']):.3f}-"
                     f"{max(r['seed_accuracies']):.3f}")
        rows.append(_row(paper, f"{r['dataset']}: {r['method']}, {prep}", ref / 100,
                         r["accuracy"], r["seconds"], note))
    return rows


def _rows_pl(records):
    paper = "Nguyen & Caruana 2008, Figs. 6-7 (curves only), accuracy"
    rows = []
    cells = dict.fromkeys((r["set"], r["n_labeled"], r["n_partial"]) for r in records)
    between = 0
    for cell in cells:
        rs = [r for r in records if (r["set"], r["n_labeled"], r["n_partial"]) == cell]
        acc = {}
        for r in rs:
            acc.setdefault(r["method"], []).append(r["accuracy"])
        acc = {m: float(np.mean(v)) for m, v in acc.items()}
        pl = [a for m, a in acc.items() if m.startswith("PL-SVM")]
        between += all(acc["SVM"] <= a <= acc["SVM-All"] + 0.005 for a in pl)
        secs = _mean([r["seconds"] for r in rs if r["method"] == "PL-SVM |Y|=2"])
        rows.append(_row(paper, f"{cell[0]} |L|={cell[1]} |PL|={cell[2]}: PL-SVM |Y|=2", None,
                         acc.get("PL-SVM |Y|=2"), secs,
                         f"SVM {acc['SVM']:.3f}, SVM-All {acc['SVM-All']:.3f}"))
    rows.append(_row(paper, "cells with SVM <= PL-SVM <= SVM-All (+0.005)", "all",
                     f"{between}/{len(cells)}"))
    return rows


def _rows_beta_ssl(records):
    paper = "Zantedeschi et al. 2016 (β-SVM), supplementary table, accuracy"
    rows = []
    for r in records:
        for i, (key, name) in enumerate((("svm", "SVM"), ("well", "WellSVM"),
                                         ("beta", "β-SVM"))):
            rows.append(_row(paper, f"{r['data']} {r['pct']}% labeled: {name}", r["paper"][i],
                             r[key], r[f"seconds_{key}"]))
    return rows


def _rows_beta_noise(records):
    paper = "Zantedeschi et al. 2016 (β-SVM), Figure 2 (curves only), ionosphere accuracy"
    return [_row(paper, f"{r['kind']} noise {r['noise']}%: β-SVM given / 4-nn", None,
                 f"{r['given']:.3f} / {r['knn']:.3f}", r["seconds_given"] + r["seconds_knn"],
                 f"SVC {r['svc']:.3f}") for r in records if r["kind"] != "defaults"]


def _rows_scale(records):
    return [_row(r["paper"], r["quantity"], r.get("paper_value"), r["ours"], r.get("seconds"),
                 r.get("note", "")) for r in records]


#: benchmark name -> function turning its records into report rows
def _rows_clustering(records):
    paper = "Li et al. 2013 (WellSVM), Table 11, clustering accuracy"
    rows = []
    for r in records:
        rows.append(_row(paper, f"{r['data']}: MaxMarginClustering defaults", r["paper_wellsvm"],
                         r["defaults"], r["seconds"], f"k-means {r['kmeans']:.3f} "
                         f"(paper KM {r['paper_km']:.2f}); balance {r['balance']:g} n"))
        if r.get("best") is not None:
            rows.append(_row(paper, f"{r['data']}: best of grid ({r['best_setting']})",
                             r["paper_wellsvm"], r["best"], r["grid_seconds"],
                             "best test accuracy over the grid, as the paper reports"))
    return rows


ROWS = {
    "clustering": _rows_clustering,
    "ssl-uci": _rows_ssl_uci,
    "two-moons": _rows_two_moons,
    "bnb": _rows_bnb,
    "sdp": _rows_sdp,
    "mkl": _rows_mkl,
    "linear": _rows_linear,
    "llp": _rows_llp,
    "mil": _rows_mil,
    "pl": _rows_pl,
    "beta-ssl": _rows_beta_ssl,
    "beta-noise": _rows_beta_noise,
    "scale": _rows_scale,
}


# ---------------------------------------------------------------------------------------------
# running
# ---------------------------------------------------------------------------------------------

class _Tee(io.TextIOBase):
    """Write to several streams (the benchmark's table goes to the terminal and to a file)."""

    def __init__(self, *streams):
        self.streams = streams

    def write(self, text):
        for s in self.streams:
            s.write(text)
        return len(text)

    def flush(self):
        for s in self.streams:
            s.flush()


def _jsonable(obj):
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, (np.bool_, bool)):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        return None if not np.isfinite(obj) else float(obj)
    if obj is None or isinstance(obj, (int, str)):
        return obj
    return str(obj)


def machine_description():
    """One line naming the machine: host, CPU model, cores, memory, OS and Python.

    Examples
    --------
    >>> from weakcvx.bench.report import machine_description
    >>> "Python" in machine_description()
    True
    """
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = ""
    try:
        with open("/proc/meminfo") as fh:
            kib = int(fh.readline().split()[1])
        mem = f", {kib / 2**20:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return (f"{platform.node()}: {cpu}, {os.cpu_count()} logical cores{mem}, "
            f"{platform.system()} {platform.release()}, Python {platform.python_version()}")


def run_all(quick=False, path="REPRODUCTION.md", plot_dir="reproduction", only=None):
    """Run the benchmarks and write the reproduction report.

    Parameters
    ----------
    quick : bool
        Each benchmark's ``quick`` protocol (minutes in all) instead of the full one (hours).
    path : str
        The markdown report to write.
    plot_dir : str
        Folder of the outputs; this run's go to ``plot_dir/quick`` or ``plot_dir/full``.
    only : list of str or None
        Names of the benchmarks to (re-)run; the report still includes every benchmark whose
        stored records are in the folder. ``None`` runs all of :data:`BENCHMARKS`.

    Returns
    -------
    dict
        name -> {"seconds", "error"} of the benchmarks run.

    Examples
    --------
    >>> from weakcvx.bench.report import run_all
    >>> run_all(quick=True, only=["mkl"], path="/tmp/R.md", plot_dir="/tmp/rep")  # doctest: +SKIP
    """
    from tqdm.auto import tqdm

    from weakcvx.bench import BENCHMARKS, run_benchmark

    names = list(BENCHMARKS) if only is None else list(only)
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        raise ValueError(f"only: expected names from {sorted(BENCHMARKS)}, found {unknown}")
    mode = "quick" if quick else "full"
    out_dir = os.path.abspath(os.path.join(plot_dir, mode))
    os.makedirs(out_dir, exist_ok=True)
    status = {}
    bar = tqdm(names, desc=f"weakcvx bench all ({mode})", unit="benchmark")
    for name in bar:
        bar.set_postfix_str(name)
        log = io.StringIO()
        start = time.perf_counter()
        error = None
        with contextlib.chdir(out_dir), contextlib.redirect_stdout(_Tee(sys.stdout, log)):
            print(f"\n=== weakcvx bench {name}{' --quick' if quick else ''}")
            try:
                records = run_benchmark(name, quick=quick)
            except Exception:  # the report says which benchmark failed and goes on
                error = traceback.format_exc()
                print(error)
                records = None
        seconds = time.perf_counter() - start
        with open(os.path.join(out_dir, f"{name}.txt"), "w") as fh:
            fh.write(log.getvalue())
        with open(os.path.join(out_dir, f"{name}.json"), "w") as fh:
            json.dump({"name": name, "quick": quick, "seconds": seconds, "error": error,
                       "finished": datetime.datetime.now().isoformat(timespec="seconds"),
                       "records": _jsonable(records)}, fh, indent=1)
        status[name] = {"seconds": seconds, "error": error}
    write_report(path, out_dir, quick=quick)
    return status


# ---------------------------------------------------------------------------------------------
# the markdown
# ---------------------------------------------------------------------------------------------

def _fmt(value):
    if value is None or (isinstance(value, (float, np.floating)) and np.isnan(value)):
        return "—"  # no figure (e.g. a data set the paper's table does not have)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return str(value)
    if isinstance(value, (float, np.floating)):
        if abs(value) >= 1000:
            return f"{value:.0f}"
        return f"{value:.3g}" if 0 < abs(value) < 1e-3 else f"{value:.3f}"
    return str(value).replace("|", "\\|")


def _difference(row):
    a, b = row["ours"], row["paper_value"]
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(
            a, bool) and not isinstance(b, bool):
        return f"{a - b:+.3f}"
    return "—"


def _load_runs(out_dir):
    from weakcvx.bench import BENCHMARKS

    runs = {}
    for name in BENCHMARKS:
        file = os.path.join(out_dir, f"{name}.json")
        if os.path.exists(file):
            with open(file) as fh:
                runs[name] = json.load(fh)
    return runs


def write_report(path, out_dir, quick=False, notes=()):
    """Render ``REPRODUCTION.md`` from the stored records in ``out_dir``.

    One table per paper with the columns *quantity | paper | ours | difference | seconds |
    note*; then each benchmark's wall time, its plots and its printed output. ``notes``: extra
    paragraphs for the header (e.g. why a benchmark is missing).

    Examples
    --------
    >>> from weakcvx.bench.report import write_report
    >>> write_report("/tmp/R.md", "reproduction/quick", quick=True)  # doctest: +SKIP
    """
    from weakcvx.bench import BENCHMARKS

    runs = _load_runs(out_dir)
    rel = os.path.relpath(out_dir, os.path.dirname(os.path.abspath(path)))
    tables, failures = {}, []
    for name, run in runs.items():
        if run["error"] or run["records"] is None:
            failures.append(name)
            continue
        try:
            rows = ROWS[name](run["records"]) if name in ROWS else []
        except Exception as exc:  # a renamed field must not lose the rest of the report
            failures.append(f"{name} (rows: {type(exc).__name__}: {exc})")
            continue
        for row in rows:
            tables.setdefault(row["paper"], []).append((name, row))

    total = sum(run["seconds"] for run in runs.values())
    last = max((run["finished"] for run in runs.values()), default="never")
    lines = [
        "# Reproduction report",
        "",
        f"Generated by `weakcvx bench all{' --quick' if quick else ''}` "
        f"(last benchmark finished {last}; {total / 60:.0f} min of benchmarks in all).",
        "",
        f"Machine: {machine_description()}.",
        "",
        ("**Quick protocols** (fewer data sets, splits and sizes; each benchmark's docstring "
         "says which). The full protocols (`weakcvx bench all`) take hours on this machine, "
         "a 2-core machine shared with other jobs while this report was made, so seconds are "
         "inflated and only ratios measured in the same run are meaningful."
         if quick else
         "**Full protocols.** Seconds were measured on a shared machine: compare ratios "
         "measured in the same run rather than absolute times."),
        "",
        "Columns: the paper's figure, ours, the difference (ours − paper) and seconds (per fit "
        "unless the note says otherwise). Accuracies and errors are fractions. A dash: the "
        "paper gives no number for it (figures only, or a quantity of this library).",
        "",
    ]
    for note in notes:
        lines += [note, ""]
    if failures:
        lines += [f"**Failed or not rendered:** {', '.join(failures)} (see their output below).",
                  ""]
    for paper, rows in tables.items():
        lines += [f"## {paper}", "",
                  "| benchmark | quantity | paper | ours | difference | seconds | note |",
                  "|---|---|---|---|---|---|---|"]
        for name, row in rows:
            lines.append(f"| `{name}` | {_fmt(row['quantity'])} | {_fmt(row['paper_value'])} | "
                         f"{_fmt(row['ours'])} | {_difference(row)} | "
                         f"{_fmt(row['seconds'])} | {_fmt(row['note'])} |")
        lines.append("")
    plots = sorted(f for f in os.listdir(out_dir) if f.endswith(".png"))
    if plots:
        lines += ["## Plots", ""]
        lines += [f"![{p}]({rel}/{p})" for p in plots]
        lines.append("")
    lines += ["## Benchmarks run", "", "| benchmark | what | wall seconds | status |",
              "|---|---|---|---|"]
    for name, run in runs.items():
        state = "failed" if run["error"] else "ok"
        lines.append(f"| `{name}` | {_fmt(BENCHMARKS[name][1])} | {run['seconds']:.0f} | "
                     f"{state} |")
    missing = [n for n in BENCHMARKS if n not in runs]
    if missing:
        lines += ["", f"Not run: {', '.join(missing)}."]
    lines += ["", "## Printed output", ""]
    for name in runs:
        txt = os.path.join(out_dir, f"{name}.txt")
        body = open(txt).read().strip() if os.path.exists(txt) else ""
        lines += [f"<details><summary><code>weakcvx bench {name}</code></summary>", "",
                  "```", body, "```", "", "</details>", ""]
    with open(path, "w") as fh:
        fh.write("\n".join(lines))
    return path
