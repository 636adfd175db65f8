"""The ladder table a user reads: values that say what they are, every certified bound in the
summary, skipped rungs listed, the plot in ladder order, and the table's exports."""

import csv
import io
import json

import numpy as np
import pytest

import weakcvx as wc
from weakcvx.ladder import LadderTable, Rung
from weakcvx.result import SolveResult


def _result(method, value, upper, certified, status="converged", **extra):
    return SolveResult(method=method, value=value, labels=np.ones(4), upper_bound=upper,
                       certified=certified, status=status, extra=extra)


def _stopped_table():
    """A branch and bound stopped by its time limit (value = its certified bound, not the
    optimum), an estimate from label generation, and an alternating run."""
    return LadderTable(rungs=[
        Rung("label_generation", _result("label_generation", 14.7, 49.9, False)),
        Rung("exact", _result("exact", 6.8, 47.5, False, status="time_limit", lower_bound=6.8)),
        Rung("alternating", _result("alternating", 49.9, 49.9, False)),
    ], problem_name="toy", skipped=[("sdp", "n = 569 points, above the SDP's size limit")])


def test_a_stopped_exact_rung_gives_its_bound_to_the_summary_and_json():
    table = _stopped_table()
    exact = table["exact"]
    assert exact.kind == "lower bound" and exact.lower_bound == 6.8
    assert table.best_lower_bound == 6.8 and table.optimum is None
    text = str(table)
    assert "no certified lower bound" not in text
    assert "best certified lower bound 6.8" in text
    data = json.loads(table.to_json())
    assert data["best_lower_bound"] == 6.8 and data["best_upper_bound"] == 47.5
    rec = {r["method"]: r for r in data["rungs"]}
    assert rec["exact"]["certified"] and rec["exact"]["kind"] == "lower bound"
    assert not rec["label_generation"]["certified"]


def test_skipped_rungs_are_listed_with_their_reason():
    table = _stopped_table()
    text = str(table)
    assert "sdp" in text and "above the SDP's size limit" in text
    rec = {r["method"]: r for r in table.to_records()}
    assert rec["sdp"]["kind"] == "skipped" and "size limit" in rec["sdp"]["status"]


def test_compare_lists_the_rungs_it_does_not_run():
    X, y_true, y_known = wc.datasets.make_two_moons(40, n_labeled=2, random_state=0)
    problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0),
                                  wc.labelsets.SemiSupervised(y_known), costs=10.0)
    import weakcvx.ladder as ladder

    methods, skipped = ladder._default_plan(problem)
    names = [m[0] for m in methods] + [s[0] for s in skipped]
    # every default rung is either run or listed as skipped, none vanishes
    assert {"sdp", "label_generation", "label_generation (exact oracle)", "exact",
            "alternating"} <= set(names)
    reasons = dict(skipped)
    assert "SMALL_LABELSET" in reasons["label_generation (exact oracle)"]


def test_a_formulation_without_fast_path_is_named_as_the_reason_exact_is_skipped():
    """SemiSupervised is described by counts; branch and bound is out because a user
    formulation has no box fast path, and the reason says that, not "not described by counts"."""
    import cvxpy as cp

    import weakcvx.ladder as ladder

    class SmoothedHinge(wc.formulations.Formulation):
        def dual(self, alpha):
            return cp.sum(alpha) - 0.25 * cp.sum_squares(alpha), [alpha >= 0, alpha <= 2]

    X, y_true, y_known = wc.datasets.make_two_moons(16, n_labeled=2, random_state=0)
    problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0),
                                  wc.labelsets.SemiSupervised(y_known),
                                  formulation=SmoothedHinge())
    reason = dict(ladder._default_plan(problem)[1])["exact"]
    assert "SmoothedHinge has no box fast path" in reason
    assert "not described by counts" not in reason


def test_an_estimate_above_the_optimum_is_marked():
    table = LadderTable(rungs=[
        Rung("label_generation", _result("label_generation", 7.72, 7.9, False)),
        Rung("exact", _result("exact", 7.07, 7.07, True, status="optimal")),
    ])
    assert table.optimum == 7.07
    assert table.above_optimum(table["label_generation"])
    assert not table.above_optimum(table["exact"])
    assert "estimate > optimum" in str(table)
    assert [r["above_optimum"] for r in table.to_records()] == [True, False]
    fig = table.plot()
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert "estimate above the optimum (not a bound)" in labels


def test_plot_is_a_ladder_and_keeps_the_optimum_and_a_zero_gap_visible():
    import matplotlib

    matplotlib.use("Agg")
    table = LadderTable(rungs=[
        Rung("alternating", _result("alternating", 5.0, 5.0, False)),
        Rung("exact", _result("exact", 4.0, 4.0, True, status="optimal")),
        Rung("label_generation (exact oracle)", _result("label_generation", 4.0, 4.5, True)),
        Rung("sdp", _result("sdp", 3.0, 4.2, True)),
    ], skipped=[("label_generation", "for the test")])
    fig = table.plot()
    ax = fig.axes[0]
    rows = [t.get_text() for t in ax.get_yticklabels()]
    # bottom to top: lower bounds by value, the optimum, J(labels), then the skipped rung
    assert rows == ["sdp", "label_generation (exact oracle)", "exact", "alternating",
                    "label_generation"]
    # the optimum's star is drawn under the J(labels) cross, not hidden by it
    star = [ln for ln in ax.lines if ln.get_marker() == "*"]
    cross = [ln for ln in ax.lines if ln.get_marker() == "x" and ln.get_ydata()[0] == 2]
    assert star and cross and star[0].get_markersize() > cross[0].get_markersize()
    assert star[0].get_zorder() < cross[0].get_zorder()
    # the bracket [4, 4] has width 0: its ends are drawn as lines at x = 4
    vlines = [ln for ln in ax.lines
              if list(ln.get_xdata()) == [4.0, 4.0] and ln.get_linestyle() == "--"]
    assert len(vlines) == 2
    assert isinstance(fig, matplotlib.figure.Figure)


@pytest.mark.parametrize("suffix", ["png", "svg", "csv", "json"])
def test_save_writes_the_format_of_the_extension(tmp_path, suffix):
    import matplotlib

    matplotlib.use("Agg")
    table = _stopped_table()
    path = tmp_path / f"ladder.{suffix}"
    table.save(path)
    data = path.read_bytes()
    if suffix == "png":
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
    elif suffix == "svg":
        assert b"<svg" in data[:500]
    elif suffix == "json":
        assert json.loads(data)["best_lower_bound"] == 6.8
    else:
        rows = list(csv.DictReader(io.StringIO(data.decode())))
        assert [r["method"] for r in rows] == ["label_generation", "exact", "alternating", "sdp"]
        assert rows[1]["kind"] == "lower bound" and rows[3]["kind"] == "skipped"


def test_to_csv_and_to_json_return_text_without_a_path():
    table = _stopped_table()
    assert table.to_csv().startswith("problem,method,value")
    assert json.loads(table.to_json())["problem"] == "toy"


def test_heart_ladder_marks_the_estimate_above_the_optimum(tmp_path, capsys):
    """The issue's case: on heart (16 points, 2 labeled) label generation's sorting-oracle
    value lies above the certified optimum; the table, the JSON and the note say so."""
    from weakcvx.cli import main

    out = tmp_path / "heart.json"
    assert main(["compare", "--dataset", "heart", "-q", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["optimum"] is not None
    for r in data["rungs"]:
        above = r["kind"] == "estimate" and r["value"] > data["optimum"] * (1 + 1e-6)
        assert r["above_optimum"] == above
        if above:
            assert f"note [{r['method']}]: its value" in printed
        if r["kind"] == "lower bound":  # and no certified bound lies above the optimum
            assert r["value"] <= data["optimum"] * (1 + 1e-6)


def test_a_rung_whose_user_oracle_raises_is_listed_as_failed_and_the_ladder_goes_on():
    """compare's promise: a failing method is listed with its failure. A bug in a user's oracle
    (here ZeroDivisionError) fails each rung that calls it, with a RuntimeWarning naming it,
    and the comparison goes on to the next rung instead of stopping at the first."""
    X, _, _ = wc.datasets.make_two_moons(10, random_state=0)

    def broken(scores):
        return 1 / 0

    labelset = wc.labelsets.Custom(10, broken)
    problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0), labelset)
    with pytest.warns(RuntimeWarning, match="raised ZeroDivisionError"):
        table = wc.compare(problem, methods=["label_generation", "sdp"])
    assert [r.name for r in table.rungs] == ["label_generation", "sdp"]
    assert all(r.failure.startswith("ZeroDivisionError") for r in table.rungs)


@pytest.mark.parametrize("methods", ["sdp", []])
def test_methods_must_be_a_non_empty_list(methods):
    X, _, _ = wc.datasets.make_two_moons(10, random_state=0)
    problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0), wc.labelsets.Clustering(10, 2))
    with pytest.raises(ValueError, match="`methods` must be a non-empty list"):
        wc.compare(problem, methods=methods)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_exact_oracle_rung_bounds_the_hull_from_one_start(seed):
    """The exact-oracle rung runs one start (the hull is convex): its certified value stays
    below the optimum and within 1e-3 (relative; the cutting planes' stopping rule) of the
    value of ``solve``'s ten starts on a clustering problem, and its labels' J is theirs."""
    X, _ = wc.datasets.make_clustering_blobs(12, random_state=seed)
    problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=0.5), wc.labelsets.Clustering(12, 2),
                                  costs=1.0)
    table = wc.compare(problem)  # the default rungs: |B| is small, the exact oracle runs
    rung = table["label_generation (exact oracle)"]
    starts = wc.solve(problem, method="label_generation", oracle="exact")  # ten starts
    optimum = table["exact"].value
    assert rung.result.certified and rung.value <= optimum + 1e-9
    assert rung.value == pytest.approx(starts.value, rel=1e-3)
    assert rung.result.upper_bound == pytest.approx(starts.upper_bound, rel=1e-6)


def test_an_unknown_rung_and_an_unknown_file_format_are_named(tmp_path):
    X, y_true, y_known = wc.datasets.make_two_moons(10, n_labeled=2, random_state=0)
    problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0),
                                  wc.labelsets.SemiSupervised(y_known), costs=10.0)
    table = wc.compare(problem, methods=["alternating"])
    with pytest.raises(KeyError, match=r"no rung named 'SDP': the rungs are \['alternating'\]"):
        table["SDP"]
    with pytest.raises(ValueError, match=r"\.json, \.csv or an image format.*png.*\(\.txt\)"):
        table.save(tmp_path / "ladder.txt")
    assert not (tmp_path / "ladder.txt").exists()
    table.save(tmp_path / "ladder.svg")
    assert (tmp_path / "ladder.svg").read_text().lstrip().startswith("<?xml")


def _one_positive_per_group(n_groups=4, size=3):
    """Every labeling with exactly one positive in each group of ``size`` consecutive points."""
    import itertools

    out = []
    for choice in itertools.product(range(size), repeat=n_groups):
        b = -np.ones(n_groups * size)
        b[size * np.arange(n_groups) + np.array(choice)] = 1.0
        out.append(b)
    return np.array(out)


def _groups_problem(enumerate_fn, oracle=None):
    groups = np.repeat(np.arange(4), 3)

    def exact_oracle(scores):           # the best element: the top score of each group
        b = -np.ones(12)
        for g in range(4):
            b[np.flatnonzero(groups == g)[np.argmax(scores[groups == g])]] = 1.0
        return b

    X, _, _ = wc.datasets.make_two_moons(12, random_state=2204)
    labelset = wc.labelsets.Custom(
        12, oracle or exact_oracle, enumerate=enumerate_fn,
        contains=lambda b: all(np.sum(np.asarray(b)[groups == g] > 0) == 1 for g in range(4)))
    return wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0), labelset, costs=3.0)


def test_a_custom_enumerate_that_misses_elements_is_flagged_inconsistent():
    """An enumerate() that lists only the worst element of B makes the 'exact' rung certify a
    value above the alternating search's feasible J(labels): impossible for valid inputs, so
    the table says INCONSISTENT and compare warns, instead of printing a negative gap alone."""
    full = _one_positive_per_group()
    problem = _groups_problem(lambda: full)
    values = [problem.J(b)[0] for b in full]
    worst = full[[int(np.argmax(values))]]
    problem = _groups_problem(lambda: worst)
    with pytest.warns(UserWarning, match="exceeds the best J\\(labels\\)"):
        table = wc.compare(problem, methods=["exact", "alternating"])
    assert table["exact"].lower_bound == pytest.approx(max(values), rel=1e-6)
    assert table["alternating"].value < max(values)     # a feasible J below a certified bound
    assert table.inconsistent and "INCONSISTENT" in str(table)
    valid = wc.compare(_groups_problem(lambda: full), methods=["exact", "alternating"])
    assert not valid.inconsistent and "INCONSISTENT" not in str(valid)


def test_labels_outside_the_label_set_bound_nothing_and_are_flagged():
    """An oracle that ignores the groups (a bug in a user's set): the SDP rung's rounding
    returns its labels, which contains() rejects; the rung is flagged, its J(labels) is left
    out of the best J(labels), and the table's answer is the exact rung's."""
    full = _one_positive_per_group()
    problem = _groups_problem(lambda: full, oracle=lambda r: np.where(r >= 0, 1.0, -1.0))
    with pytest.warns(UserWarning, match="rung 'sdp': its labels are not in the label set B"):
        table = wc.compare(problem, methods=["sdp", "exact"])
    assert not problem.labelset.contains(table["sdp"].result.labels)
    assert table["sdp"].feasible is False and table["exact"].feasible is True
    assert table.best_rung.name == "exact"
    assert table.best_upper_bound == pytest.approx(table["exact"].value)
    assert any("not in the label set B" in note for note in table["sdp"].warnings)
    rows = {row["method"]: row for row in csv.DictReader(io.StringIO(table.to_csv()))}
    assert rows["sdp"]["labels_in_B"] == "False" and rows["exact"]["labels_in_B"] == "True"
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = table.plot()
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert "J(labels) of labels outside B (no bound)" in labels
    plt.close(fig)


def test_a_low_rank_sdp_of_a_weaker_relaxation_says_so_in_the_table():
    """Clustering's balance is a range of counts, which the low-rank SDP leaves out: its
    value is still certified, but of a weaker relaxation than the CVXPY SDP, and the table's
    note says so (the solver's UserWarning alone did not reach the table)."""
    X, _, _ = wc.datasets.make_two_moons(30, random_state=2205)
    problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0), wc.labelsets.Clustering(30, 6),
                                  costs=1.0)
    table = wc.compare(problem, methods=[("sdp (low-rank)", "sdp", {"solver": "lowrank"}),
                                         ("sdp", "sdp", {})])
    low_rank, cvxpy = table["sdp (low-rank)"], table["sdp"]
    assert low_rank.lower_bound <= cvxpy.lower_bound + 1e-6    # the weaker relaxation
    assert any("leaves out" in note and "weaker relaxation" in note
               for note in low_rank.warnings)
    assert not any("leaves out" in note for note in cvxpy.warnings)
