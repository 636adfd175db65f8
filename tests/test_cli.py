"""The ``weakcvx`` command: the ladder it prints and saves, and its errors."""

import json

import numpy as np
import pytest

from weakcvx.cli import main


@pytest.mark.parametrize("dataset, n, loss", [("two-moons", 12, []), ("heart", 12, []),
                                              ("blobs", 10, []),
                                              ("two-moons", 12, ["--loss", "squared-hinge",
                                                                 "--offset"])])
def test_compare_writes_a_consistent_ladder_and_plot(tmp_path, capsys, dataset, n, loss):
    plot, out = tmp_path / "ladder.png", tmp_path / "ladder.json"
    code = main(["compare", "--dataset", dataset, "--n", str(n), "--labeled", "3",
                 "--plot", str(plot), "--json", str(out), *loss])
    assert code == 0
    assert plot.stat().st_size > 1000 and plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    data = json.loads(out.read_text())
    rungs = {r["method"]: r for r in data["rungs"]}
    assert {"sdp", "label_generation", "exact", "alternating"} <= set(rungs)
    slack = 1e-5 * max(1.0, abs(data["best_upper_bound"]))
    # the ladder: every certified lower bound <= the optimum <= every J(labels)
    optimum = rungs["exact"]["value"]
    for r in data["rungs"]:
        if r["certified"] and r["kind"] == "lower bound":
            assert r["value"] <= optimum + slack
        assert optimum <= r["J_labels"] + slack
    assert data["best_lower_bound"] <= data["best_upper_bound"] + slack
    printed = capsys.readouterr().out
    assert "best certified lower bound" in printed


def test_compare_rejects_bad_sizes(capsys):
    assert main(["compare", "--n", "2"]) == 2
    assert "--n must be at least 4" in capsys.readouterr().err
    assert main(["compare", "--dataset", "heart", "--n", "100000"]) == 2
    assert "`--n` must be between 4 and" in capsys.readouterr().err
    assert main(["compare", "--labeled", "1"]) == 2
    assert "--labeled must be at least 2" in capsys.readouterr().err


def test_bench_list_and_unknown_name(capsys):
    assert main(["bench", "list"]) == 0
    listed = capsys.readouterr().out
    for name in ("mkl", "linear", "ssl-uci", "two-moons", "sdp", "bnb"):
        assert name in listed
    assert main(["bench", "no-such-bench"]) == 2
    assert "unknown benchmark" in capsys.readouterr().err


# -- a user's own data file ------------------------------------------------------------------
def _moons_file_rows(n=12, n_labeled=3, seed=0):
    import numpy as np

    import weakcvx as wc

    X, y_true, y_known = wc.datasets.make_two_moons(n, n_labeled=n_labeled, random_state=seed)
    names = np.where(y_known > 0, "pos", np.where(y_known < 0, "neg", "?"))
    return X, y_known, names


def _independent_optimum(X, y_known):
    """The exact optimum of the same problem built in memory (standardized, mean_distance, C=1)."""
    import weakcvx as wc

    Xs = (X - X.mean(0)) / X.std(0)
    problem = wc.WeakLabelProblem(wc.kernels.rbf(Xs, gamma="mean_distance"),
                                  wc.labelsets.SemiSupervised(y_known), costs=1.0)
    return wc.solve(problem, method="exact").value


def test_compare_reads_a_csv_and_saves_json_and_csv(tmp_path, capsys):
    import csv

    X, y_known, names = _moons_file_rows()
    data = tmp_path / "mine.csv"
    with open(data, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["x1", "label", "x2"])              # label column in the middle, by name
        w.writerows([[a, lab, b] for (a, b), lab in zip(X, names)])
    out_json, out_csv = tmp_path / "t.json", tmp_path / "t.csv"
    code = main(["compare", "--data", str(data), "--label-column", "label", "--unknown", "?",
                 "--json", str(out_json), "--csv", str(out_csv)])
    assert code == 0, capsys.readouterr().err
    rungs = json.loads(out_json.read_text())["rungs"]
    with open(out_csv, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["method"] for r in rows] == [r["method"] for r in rungs]
    for row, rung in zip(rows, rungs):
        assert float(row["J_labels"]) == pytest.approx(rung["J_labels"], rel=1e-12)
    # "neg" sorts before "pos": neg -> -1, pos -> +1, as in y_known; the file path and the
    # in-memory model must be the same problem, so the same MIP optimum
    optimum = {r["method"]: r for r in rungs}["exact"]["value"]
    assert optimum == pytest.approx(_independent_optimum(X, y_known), rel=1e-6)


def test_compare_reads_npz_in_both_layouts(tmp_path, capsys):
    import numpy as np

    X, y_known, _ = _moons_file_rows(seed=1)
    labels = np.where(y_known == 0, np.nan, y_known)      # unknown marker: nan
    np.savez(tmp_path / "xy.npz", X=X, target=labels)
    np.savez(tmp_path / "table.npz", data=np.column_stack([labels, X]))
    expected = _independent_optimum(X, y_known)
    for path, column in [("xy.npz", "target"), ("table.npz", "0")]:
        out = tmp_path / f"{path}.json"
        code = main(["compare", "--data", str(tmp_path / path), "--label-column", column,
                     "--unknown", "nan", "--json", str(out)])
        assert code == 0, capsys.readouterr().err
        rungs = {r["method"]: r for r in json.loads(out.read_text())["rungs"]}
        assert rungs["exact"]["value"] == pytest.approx(expected, rel=1e-6)


def _bad_inputs(tmp_path):
    (tmp_path / "ok.csv").write_text("a,b,label\n0,1,x\n1,0,y\n2,2,?\n")
    (tmp_path / "text.csv").write_text("a,b,label\n0,one,x\n1,0,y\n2,2,?\n")
    (tmp_path / "oneclass.csv").write_text("a,b,label\n0,1,x\n1,0,x\n2,2,?\n")
    (tmp_path / "ragged.csv").write_text("a,b,label\n0,1,x\n1,0\n")
    (tmp_path / "broken.npz").write_bytes(b"PK\x03\x04 not a zip archive")
    (tmp_path / "binary.csv").write_bytes(bytes(range(256)) * 4)
    data = ["compare", "--data"]
    return [
        (data + [str(tmp_path / "missing.csv")], "cannot read"),
        (data + [str(tmp_path)], "cannot read"),                          # a directory
        (data + [str(tmp_path / "broken.npz")], "cannot read"),
        (data + [str(tmp_path / "binary.csv")], "cannot read"),
        (data + [str(tmp_path / "ok.csv"), "--label-column", "class"], "label column 'class' "
         "not found"),
        (data + [str(tmp_path / "ok.csv"), "--label-column", "7"], "out of range"),
        (data + [str(tmp_path / "text.csv"), "--label-column", "label"], "must be numbers"),
        (data + [str(tmp_path / "oneclass.csv")], "exactly two classes"),
        (data + [str(tmp_path / "ragged.csv")], "expected 3"),
        (["compare", "--dataset", "no-such-set"], "unknown dataset 'no-such-set'"),
        (["compare", "--csv", str(tmp_path / "nodir" / "t.csv")], "no directory"),
    ]


def test_bad_files_and_names_give_one_line_and_status_2(tmp_path, capsys):
    for argv, message in _bad_inputs(tmp_path):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert message in err, (argv, err)
        assert err.count("\n") == 1 and "Traceback" not in err, err


def test_the_installed_command_exits_without_traceback(tmp_path):
    import subprocess
    import sys

    for argv, message in _bad_inputs(tmp_path)[:1] + _bad_inputs(tmp_path)[-2:-1]:
        proc = subprocess.run([sys.executable, "-m", "weakcvx.cli", *argv], capture_output=True,
                              text=True, timeout=120)
        assert proc.returncode == 2
        assert message in proc.stderr and "Traceback" not in proc.stderr
        assert proc.stderr.count("\n") == 1


def test_help_lists_every_command_and_option(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    top = capsys.readouterr().out
    assert "compare" in top and "bench" in top and "COMMAND --help" in top
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    compare_help = capsys.readouterr().out
    for option in ("--dataset", "--data", "--label-column", "--unknown", "--n", "--labeled",
                   "--seed", "--C", "--gamma", "--plot", "--json", "--csv", "--verbose"):
        assert option in compare_help, option
    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    assert "--quick" in capsys.readouterr().out


# -- the README ------------------------------------------------------------------------------
def _readme():
    from pathlib import Path

    return (Path(__file__).resolve().parent.parent / "README.md").read_text()


def test_readme_python_blocks_run(tmp_path, monkeypatch):
    """In the default run (~10 s): the ladder of 16 points, an S3VM, a clustering, a MIL fit."""
    import re

    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)  # the modelling example saves ladder.png
    blocks = re.findall(r"```python\n(.*?)```", _readme(), flags=re.S)
    assert blocks, "the README has no python example"
    namespace = {}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)
    # the modelling example: its ladder brackets the optimum
    table = namespace["table"]
    assert table.best_lower_bound <= table.best_upper_bound * (1 + 1e-6)
    assert (tmp_path / "ladder.png").read_bytes()[:4] == b"\x89PNG"


def test_readme_quick_start_matches_ci():
    from pathlib import Path

    ci = (Path(__file__).resolve().parent.parent / ".ci" / "run").read_text()
    readme = _readme()
    test_line = ('python3 -m venv .venv && .venv/bin/pip install ".[test]" && '
                 '.venv/bin/python -m pytest -q -m "not slow" -n 2')
    assert test_line in readme and test_line in ci.replace("pip install -q", "pip install")
    assert "weakcvx compare --dataset two-moons --plot ladder.png" in readme


# -- header detection, time limit, progress -------------------------------------------------

def _labeled_rows(n=12, seed=0):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(-2, 1, size=(n // 2, 2)), rng.normal(2, 1, size=(n // 2, 2))])
    labels = ["benign"] * (n // 2) + ["malignant"] * (n // 2)
    for i in list(range(1, n // 2)) + list(range(n // 2 + 1, n)):
        labels[i] = "?"
    return X, labels


def test_csv_without_header_and_string_labels_keeps_every_row(tmp_path):
    from weakcvx.cli import load_data_file

    X, labels = _labeled_rows()
    path = tmp_path / "nohdr.csv"
    path.write_text("".join(f"{a},{b},{lab}\n" for (a, b), lab in zip(X, labels)))
    Xr, y_known, classes = load_data_file(path, "-1", "?")
    assert Xr.shape == (12, 2)  # the first row is data, not a header
    assert classes == ["benign", "malignant"] and y_known[0] == -1 and y_known[6] == 1
    # the label column by index at the front
    path.write_text("".join(f"{lab},{a},{b}\n" for (a, b), lab in zip(X, labels)))
    assert load_data_file(path, "0", "?")[0].shape == (12, 2)


def test_csv_with_header_drops_only_the_header(tmp_path):
    from weakcvx.cli import load_data_file

    X, labels = _labeled_rows()
    path = tmp_path / "hdr.csv"
    path.write_text("x1,x2,diagnosis\n"
                    + "".join(f"{a},{b},{lab}\n" for (a, b), lab in zip(X, labels)))
    for column in ("diagnosis", "-1", "2"):
        Xr, y_known, classes = load_data_file(path, column, "?")
        assert Xr.shape == (12, 2) and classes == ["benign", "malignant"]


def test_csv_with_numbered_columns_drops_the_header(tmp_path):
    """``pandas.DataFrame(X).to_csv(index=False)`` names the feature columns 0, 1, ...: that
    row is a header (its label cell is no row's label), not a row of class "label"; a first
    data row whose features happen to read 0, 1 stays data."""
    from weakcvx.cli import load_data_file

    X, labels = _labeled_rows()
    path = tmp_path / "numbered.csv"
    path.write_text("0,1,label\n" + "".join(f"{a},{b},{lab}\n" for (a, b), lab in zip(X, labels)))
    Xr, y_known, classes = load_data_file(path, "-1", "?")
    assert Xr.shape == (12, 2) and classes == ["benign", "malignant"]
    rows = [f"{a},{b},{lab}\n" for (a, b), lab in zip(X, labels)]
    path.write_text("0,1,benign\n" + "".join(rows))
    Xr, _, classes = load_data_file(path, "-1", "?")
    assert Xr.shape == (13, 2) and classes == ["benign", "malignant"]


def test_compare_time_limit_and_progress(capsys):
    code = main(["compare", "--n", "40", "--time-limit", "1e-6"])
    assert code == 0
    captured = capsys.readouterr()
    assert "time_limit" in captured.out and "note [exact]" in captured.out
    exact_row = next(line for line in captured.out.splitlines() if line.startswith("exact "))
    # stopped by its limit: the value column holds the search's certified bound, not an optimum
    assert "optimum" not in exact_row and ("lower bound" in exact_row or "best found" in exact_row)
    # progress on stderr: each method as it starts and ends, with the exact rung's limit
    assert "running exact (time limit 1e-06 s)" in captured.err
    assert "exact time_limit in" in captured.err


def test_compare_quiet_prints_no_progress(capsys):
    assert main(["compare", "--n", "12", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("value", ["0", "-3", "soon", "inf"])
def test_compare_rejects_a_bad_time_limit(value, capsys):
    with pytest.raises(SystemExit):
        main(["compare", "--time-limit", value])
    assert "must be a positive number of seconds or 'none'" in capsys.readouterr().err


# -- files written by pandas -----------------------------------------------------------------
def _pandas_frame(n=30, classes=(0, 1), unknown=-1, seed=0, numbered=False):
    """Two moons as a pandas user has them: features f1, f2 and the label (``classes``,
    ``unknown`` for the unlabeled rows; two labeled per class); with ``numbered`` the columns
    0, 1, 2 of ``pd.DataFrame(X)`` with the label added as column 2."""
    import pandas as pd

    import weakcvx as wc

    X, y_true, y_known = wc.datasets.make_two_moons(n, n_labeled=4, random_state=seed)
    df = pd.DataFrame(X)
    df[2] = np.where(y_known > 0, classes[1], np.where(y_known < 0, classes[0], unknown))
    if not numbered:
        df.columns = ["f1", "f2", "label"]
    return df, y_known


def test_pandas_index_column_is_left_out_and_said(tmp_path, capsys):
    # df.to_csv() writes the index as a first column with an empty header (",f1,f2,label"): it
    # was read as a third feature, silently; the file must read as if written with index=False
    from weakcvx.cli import load_data_file

    df, y_known = _pandas_frame()
    df.to_csv(tmp_path / "plain.csv", index=False)
    df.to_csv(tmp_path / "index.csv")
    assert (tmp_path / "index.csv").read_text().startswith(",f1,f2,label\n")
    X_plain, known_plain, classes = load_data_file(tmp_path / "plain.csv", "label", "-1")
    X_index, known_index, _ = load_data_file(tmp_path / "index.csv", "label", "-1")
    np.testing.assert_array_equal(X_index, X_plain)
    np.testing.assert_array_equal(known_index, known_plain)
    np.testing.assert_array_equal(known_index, y_known)
    notes = []
    load_data_file(tmp_path / "index.csv", "label", "-1", notes=notes)
    assert notes == ["the first column (empty header: pandas' index) left out"]
    # the command: the same ladder, and the note printed with the data summary
    values = []
    for name in ("plain.csv", "index.csv"):
        out = tmp_path / f"{name}.json"
        assert main(["compare", "--data", str(tmp_path / name), "--unknown", "-1", "-q",
                     "--methods", "alternating", "--json", str(out)]) == 0
        values.append(json.loads(out.read_text())["rungs"][0]["J_labels"])
        printed = capsys.readouterr().out
        assert ("note: the first column (empty header: pandas' index) left out" in printed) == \
            (name == "index.csv")
    assert values[0] == values[1]
    # a named index ("id") is a column like any other: no guessing
    df.rename_axis("id").to_csv(tmp_path / "named.csv")
    assert load_data_file(tmp_path / "named.csv", "label", "-1")[0].shape == (30, 3)
    # a first data row with an empty first cell is a missing value, not an index's header
    (tmp_path / "blank.csv").write_text(",0.5,yes\n1,2,no\n3,4,?\n5,6,yes\n")
    with pytest.raises(ValueError, match=r"line 1 of the file \(data row 0, counting from "
                                         r"0\), column 0 \(counting from 0\) is empty"):
        load_data_file(tmp_path / "blank.csv", None, "?")


@pytest.mark.parametrize("classes, index", [((1, 2), False), ((0, 1), False), ((0, 1), True)],
                         ids=["classes-1-2", "classes-0-1", "with-index"])
def test_pandas_numbered_header_is_a_header(tmp_path, capsys, classes, index):
    # pd.DataFrame(X) with the label in column 2 writes the header "0,1,2" (",0,1,2" with the
    # index): it was read as a data row labeled "2" (31 rows, 5 labeled; --labels-out shifted),
    # refused as a third class '2' with classes 0/1, or refused as a missing value
    df, y_known = _pandas_frame(classes=classes, numbered=True)
    path = tmp_path / "numbered.csv"
    df.to_csv(path, index=index)
    assert path.read_text().startswith(",0,1,2\n" if index else "0,1,2\n")
    labels = tmp_path / "labels.csv"
    code = main(["compare", "--data", str(path), "--unknown", "-1", "-q", "--methods",
                 "alternating", "--labels-out", str(labels)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "30 rows, 4 labeled" in captured.out
    assert "note: first row '0,1,2' (pandas' column numbers) read as the header" in captured.out
    import csv

    with open(labels, newline="") as fh:
        written = list(csv.DictReader(fh))
    assert [int(r["row"]) for r in written] == list(range(30))
    assert [r["labeled"] == "yes" for r in written] == list(y_known != 0)
    names = [str(c) for c in classes]
    given = [r["label"] for r, k in zip(written, y_known) if k != 0]
    assert given == [names[1] if k > 0 else names[0] for k in y_known if k != 0]


@pytest.mark.parametrize("unknown", [["--unknown", "nan"], []], ids=["nan", "default"])
def test_empty_label_cells_suggest_unknown_empty(tmp_path, capsys, unknown):
    # pandas writes NaN labels as empty cells: "--unknown nan" (offered by --help) and the
    # default '?' were refused with "found ['0.0', '1.0', '']" and no word on the empty cells
    from weakcvx.cli import load_data_file

    df, y_known = _pandas_frame(unknown=np.nan)
    path = tmp_path / "nan.csv"
    df.to_csv(path, index=False)
    assert main(["compare", "--data", str(path), "-q", *unknown]) == 2
    err = capsys.readouterr().err
    assert "26 rows have an empty label cell" in err and "give --unknown ''" in err
    assert err.count("\n") == 1
    np.testing.assert_array_equal(load_data_file(path, None, "")[1], y_known)
    # nor is an empty cell a class beside one other class
    (tmp_path / "one.csv").write_text("a,b,label\n0,1,yes\n1,0,\n2,2,?\n3,1,yes\n")
    with pytest.raises(ValueError, match=r"1 row has an empty label cell.*--unknown ''"):
        load_data_file(tmp_path / "one.csv", None, "?")


def test_a_subset_that_loses_a_class_names_n_and_seed(tmp_path, capsys):
    # --n draws rows at random: a subset that lost a class was refused as if the file held one
    df, _ = _pandas_frame(unknown=np.nan)
    path = tmp_path / "nan.csv"
    df.to_csv(path, index=False)
    argv = ["compare", "--data", str(path), "--unknown", "", "-q", "--methods", "alternating"]
    assert main(argv + ["--n", "10", "--seed", "1"]) == 2     # this draw holds one '0.0' only
    err = capsys.readouterr().err
    assert "exactly two classes" in err and "found ['0.0']" in err and err.count("\n") == 1
    assert ("--n 10 drew 10 of the file's 30 rows (--seed 1): 1 labeled '0.0', 0 labeled "
            "'1.0' and 9 unknown, against 2, 2 and 26 in the whole file; give a larger --n or "
            "another --seed") in err
    assert main(argv + ["--n", "10", "--seed", "0"]) == 0     # this one holds both classes
    assert main(argv) == 0


def test_loss_and_offset_are_in_the_saved_problem_name(tmp_path, capsys):
    # with --loss squared-hinge --offset the title, the CSV and the JSON read like a hinge run
    import csv

    df, _ = _pandas_frame()
    df.to_csv(tmp_path / "mine.csv", index=False)
    for source in (["--n", "12"], ["--data", str(tmp_path / "mine.csv"), "--unknown", "-1"]):
        names = {}
        for loss in ([], ["--loss", "squared-hinge", "--offset"], ["--offset"]):
            out_json, out_csv = tmp_path / "t.json", tmp_path / "t.csv"
            assert main(["compare", *source, *loss, "-q", "--methods", "alternating",
                         "--json", str(out_json), "--csv", str(out_csv)]) == 0
            name = json.loads(out_json.read_text())["problem"]
            with open(out_csv, newline="") as fh:
                assert next(csv.DictReader(fh))["problem"] == name
            assert f"Ladder of bounds — {name}" in capsys.readouterr().out
            names[" ".join(loss)] = name
        assert not names[""].endswith(("loss", "offset"))
        assert names["--loss squared-hinge --offset"] == names[""] + ", squared-hinge loss, offset"
        assert names["--offset"] == names[""] + ", offset"
