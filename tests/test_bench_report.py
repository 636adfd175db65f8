"""The reproduction report: ``weakcvx bench all`` runner and REPRODUCTION.md writer."""

import json

import numpy as np
import pytest

from weakcvx import cli
from weakcvx.bench import BENCHMARKS, report
from weakcvx.bench.llp import BAG_SIZES, PAPER_TABLE2


def tiny_bench(quick=False):
    """A real (small) benchmark: one SVC fit, one plot; records with a paper figure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sklearn.datasets import make_classification
    from sklearn.svm import SVC

    X, y = make_classification(200, random_state=0)
    acc = SVC().fit(X[:100], y[:100]).score(X[100:], y[100:])
    print(f"tiny accuracy {acc:.3f} (quick={quick})")
    fig, ax = plt.subplots()
    ax.plot([0, 1], [acc, acc])
    fig.savefig("tiny.png")
    plt.close(fig)
    return [{"paper": "Tiny et al. 2024", "quantity": "accuracy", "paper_value": 0.5,
             "ours": np.float64(acc), "seconds": 0.1, "note": ""}]


def broken_bench(quick=False):
    raise RuntimeError("solver exploded")


@pytest.fixture
def registered(monkeypatch):
    monkeypatch.setitem(BENCHMARKS, "tiny", (f"{__name__}:tiny_bench", "a tiny benchmark"))
    monkeypatch.setitem(BENCHMARKS, "broken", (f"{__name__}:broken_bench", "always fails"))
    monkeypatch.setitem(report.ROWS, "tiny", report.ROWS["scale"])


def test_run_all_writes_tables_plots_and_failures(tmp_path, registered):
    out = tmp_path / "REPRODUCTION.md"
    status = report.run_all(quick=True, path=str(out), plot_dir=str(tmp_path / "rep"),
                            only=["tiny", "broken"])
    assert status["tiny"]["error"] is None
    assert "solver exploded" in status["broken"]["error"]
    text = out.read_text()
    stored = json.loads((tmp_path / "rep" / "quick" / "tiny.json").read_text())
    acc = stored["records"][0]["ours"]
    assert isinstance(acc, float) and acc > 0.5  # numpy floats are stored as JSON numbers
    # the paper's table: paper figure, ours, the difference ours - paper
    assert "## Tiny et al. 2024" in text
    assert f"| {acc:.3f} | {acc - 0.5:+.3f} |" in text
    # the plot drawn in the benchmark's working directory is linked, the failure named
    assert (tmp_path / "rep" / "quick" / "tiny.png").exists()
    assert "](rep/quick/tiny.png)" in text
    assert "**Failed or not rendered:** broken" in text
    assert "Machine:" in text and "Quick protocols" in text
    assert f"tiny accuracy {acc:.3f}" in text  # the printed output is kept


def test_rerun_of_one_keeps_the_others(tmp_path, registered):
    out, rep = tmp_path / "R.md", str(tmp_path / "rep")
    report.run_all(quick=True, path=str(out), plot_dir=rep, only=["broken"])
    report.run_all(quick=True, path=str(out), plot_dir=rep, only=["tiny"])
    text = out.read_text()
    assert "`broken`" in text and "## Tiny et al. 2024" in text


def test_unknown_names_are_rejected(tmp_path, capsys):
    with pytest.raises(ValueError, match="only: expected names"):
        report.run_all(quick=True, path=str(tmp_path / "R.md"), plot_dir=str(tmp_path),
                       only=["no-such-bench"])
    assert cli.main(["bench", "all", "--quick", "--only", "no-such-bench"]) == 2
    assert "--only expects names" in capsys.readouterr().err


def test_every_benchmark_with_rows_is_registered():
    assert set(report.ROWS) <= set(BENCHMARKS)


def test_llp_rows_carry_the_papers_table():
    records = [{"dataset": "heart", "bag_size": bs, "split": s, "method": m, "accuracy": 0.8,
                "seconds": 1.0, "params": {}} for bs in (4, 32) for s in (0, 1)
               for m in ("MeanMap", "conv-pSVM")]
    records.append({"parallel_seconds": {}, "identical": True})
    rows = report.ROWS["llp"](records)
    assert len(rows) == 4
    for row in rows:
        _, method, bags = row["quantity"].split(", ")
        bs = int(bags.split()[-1])
        assert row["paper_value"] == PAPER_TABLE2["heart"][method][BAG_SIZES.index(bs)] / 100
        assert report._difference(row) == f"{0.8 - row['paper_value']:+.3f}"


def test_pl_rows_count_the_papers_ordering_claim():
    def rec(m, a):
        return {"set": "digits", "n_labeled": 100, "n_partial": 100, "seed": 0, "method": m,
                "accuracy": a, "seconds": 0.1}

    ok = [rec("SVM", 0.8), rec("PL-SVM |Y|=2", 0.9), rec("SVM-All", 0.95)]
    bad = [dict(r, n_partial=400) for r in ok[:1]] + [
        dict(rec("PL-SVM |Y|=2", 0.7), n_partial=400), dict(rec("SVM-All", 0.95),
                                                            n_partial=400)]
    rows = report.ROWS["pl"](ok + bad)
    assert rows[-1]["ours"] == "1/2"


def test_clustering_accuracy_and_rows():
    from weakcvx.bench.clustering import PAPER_TABLE11, clustering_accuracy, paper_balance

    y = np.array([1, 1, 1, -1, -1, -1])
    # a clustering is the same with its two cluster names swapped
    assert clustering_accuracy([1, 1, 0, 0, 0, 0], y) == clustering_accuracy([0, 0, 1, 1, 1, 1], y)
    assert clustering_accuracy([1, 1, 0, 0, 0, 0], y) == pytest.approx(5 / 6)
    assert paper_balance(y) == 0.03 and paper_balance([1, 1, 1, 1, -1, -1]) == 0.3
    rec = {"data": "heart", "n": 270, "balance": 0.03, "kmeans": 0.6, "defaults": 0.7,
           "seconds": 1.0, "best": 0.8, "best_setting": "rbf x1 C=1", "grid_seconds": 1.0,
           "paper_km": PAPER_TABLE11["heart"][0], "paper_wellsvm": PAPER_TABLE11["heart"][1]}
    rows = report.ROWS["clustering"]([rec, dict(rec, best=None)])
    assert len(rows) == 3  # defaults and best of grid, then defaults only
    assert all(r["paper_value"] == 0.81 for r in rows)
    assert report._difference(rows[1]) == f"{0.8 - 0.81:+.3f}"


def test_machine_description_names_cores():
    assert "logical cores" in report.machine_description()


def test_pl_loader_standardizes_digits_and_loads_every_set():
    """bench pl's data: digits with every column centred and of unit variance (constant
    columns 0), and the shipped multiclass sets with one label per row and several classes."""
    from weakcvx.bench.partial import _load

    X, y = _load("digits")
    std = X.std(axis=0)
    np.testing.assert_allclose(X.mean(axis=0), 0.0, atol=1e-12)
    assert np.all((np.abs(std - 1.0) < 1e-12) | (std == 0.0))
    assert (std == 0.0).any()  # digits has blank pixels: the constant-column rule is exercised
    for name in ("segment", "satimage", "penbased", "letter"):
        X, y = _load(name)
        assert X.shape[0] == y.shape[0] and np.unique(y).size >= 3


def test_heldout_sets_are_binary_standardized_and_seeded():
    """bench heldout's data: every set two classes in {0, 1}, columns standardized (constant
    pixel columns 0); generated sets follow the seed, shipped ones do not; an unknown name is
    refused with the names it accepts."""
    from weakcvx.bench.heldout import (CLUSTERING_SETS, LLP_SETS, SSL_SETS, load_heldout)

    for name in sorted(set(SSL_SETS) | set(CLUSTERING_SETS) | set(LLP_SETS)):
        X, y = load_heldout(name, 0)
        assert set(np.unique(y)) == {0, 1} and len(X) == len(y)
        np.testing.assert_allclose(X.mean(axis=0), 0.0, atol=1e-9)
        assert np.all(np.isclose(X.std(axis=0), 1.0) | np.isclose(X.std(axis=0), 0.0))
    assert not np.array_equal(load_heldout("classif", 0)[0], load_heldout("classif", 1)[0])
    assert np.array_equal(load_heldout("wine 0/2", 0)[0], load_heldout("wine 0/2", 1)[0])
    with pytest.raises(ValueError, match="`name` must be one of"):
        load_heldout("mnist", 0)


def test_heldout_headline_reads_every_table():
    """The README line of bench heldout: means over the sets of each table, and the count of
    clustering sets where MaxMarginClustering is at or above k-means."""
    from weakcvx.bench.readme import HEADLINES

    def rec(data, accuracy, **extra):
        return {"data": data, **extra,
                "accuracy": {m: {"mean": a, "min": a, "max": a} for m, a in accuracy.items()},
                "ratio": dict.fromkeys(accuracy, 2.0),
                "per_seed": {m: [a, a] for m, a in accuracy.items()}}

    ssl = dict.fromkeys(("S3VM", "S3VM alt", "BetaSVM", "SVC (labeled)", "self-training",
                         "LabelSpreading"), 0.5)
    mil = dict.fromkeys(("MultiInstanceSVM", "MI-SVM (alt)", "NSK", "NSK (misvm)"), 0.7)
    llp = dict.fromkeys(("alter-pSVM", "conv-pSVM", "InvCal", "MeanMap"), 0.6)
    result = {"ssl": [rec("a", dict(ssl, S3VM=0.9)), rec("b", dict(ssl, S3VM=0.7))],
              "clustering": [rec("a", {"MaxMarginClustering": 0.8, "k-means": 0.7}),
                             rec("b", {"MaxMarginClustering": 0.6, "k-means": 0.7})],
              "mil": [rec("a", mil)], "llp": [rec("a", llp, bag_size=16)]}
    line = HEADLINES["heldout"][1](result)
    assert "2 seeds" in line and "S3VM **0.800**" in line
    assert "MaxMarginClustering **0.700** vs k-means 0.700, at or above it on 1" in line
    assert "bags of 16" in line


def test_bnb_sweep_drops_a_seed_at_its_first_uncertified_size(monkeypatch):
    """bench bnb: a seed that does not certify at n leaves the bound's sweep, the others go on;
    "every seed" stops at the last size all certified, "per seed" at each seed's own."""
    from weakcvx.bench import exact

    fails = {(40, 1), (80, 0)}
    runs = []

    def fake_run(bound, n, seed, limit):
        runs.append((bound, n, seed))
        return {"bound": bound, "n": n, "seed": seed, "nodes": 1, "seconds": 0.0,
                "certified": (n, seed) not in fails}

    monkeypatch.setattr(exact, "_bnb_run", fake_run)
    out = exact.bench_bnb(seeds=[0, 1, 2], bounds=["svm"], sizes=(20, 40, 60, 80, 100))
    assert out["largest_certified"] == {"svm": 20}
    assert out["largest_per_seed"] == {"svm": {0: 60, 1: 20, 2: 100}}
    assert ("svm", 60, 1) not in runs and ("svm", 100, 0) not in runs
    assert ("svm", 100, 2) in runs


def test_bnb_headline_names_every_seed_and_each_seed():
    from weakcvx.bench.readme import HEADLINES

    result = {"largest_certified": {"svm": 250}, "largest_per_seed": {"svm": {"0": 400,
                                                                            "1": 250}},
              "records": [{"certified": True}, {"certified": False}]}
    line = HEADLINES["bnb"][1](result)
    assert "bound 'svm': n=250" in line and "seed 0 400, seed 1 250" in line
