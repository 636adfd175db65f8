"""Every option of ``weakcvx compare`` added for issue 20, run as a user runs it: the installed
command (or ``python -m weakcvx``) in a subprocess, its files read back."""

import csv
import json
import os
import subprocess
import sys
from importlib.metadata import version

import numpy as np
import pytest

import weakcvx as wc
from weakcvx.cli import main

ENV = {**os.environ, "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}


def run(*argv, cwd=None):
    """``python -m weakcvx ARGV`` as a subprocess: (exit code, stdout, stderr)."""
    done = subprocess.run([sys.executable, "-m", "weakcvx", *argv], capture_output=True,
                          text=True, env=ENV, cwd=cwd, timeout=600)
    return done.returncode, done.stdout, done.stderr


def _moons_csv(path, n=14, n_labeled=4, seed=0):
    """A user's file: two moons, labels 'benign'/'malignant', '?' for unknown rows."""
    X, y_true, y_known = wc.datasets.make_two_moons(n, n_labeled=n_labeled, random_state=seed)
    names = np.where(y_known > 0, "malignant", np.where(y_known < 0, "benign", "?"))
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["x1", "x2", "diagnosis"])
        for row, name in zip(X, names):
            writer.writerow([f"{row[0]:.6f}", f"{row[1]:.6f}", name])
    return names


def _read_labels(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_labels_out_gives_every_row_in_the_users_class_names(tmp_path):
    data = tmp_path / "mine.csv"
    given = _moons_csv(data)
    code, out, err = run("compare", "--data", str(data), "--label-column", "diagnosis",
                         "--methods", "label_generation,alternating", "-q",
                         "--labels-out", "labels.csv", "--json", "ladder.json", cwd=tmp_path)
    assert code == 0, err
    rows = _read_labels(tmp_path / "labels.csv")
    assert [int(r["row"]) for r in rows] == list(range(len(given)))
    assert {r["label"] for r in rows} <= {"benign", "malignant"}
    for r in rows:  # the rows labeled in the file keep their label and say so
        assert (r["labeled"] == "yes") == (given[int(r["row"])] != "?")
        if r["labeled"] == "yes":
            assert r["label"] == given[int(r["row"])]
    ladder = json.loads((tmp_path / "ladder.json").read_text())
    # by default the labels are those of the rung with the lowest J(labels)
    best = min((r for r in ladder["rungs"] if r["J_labels"] is not None),
               key=lambda r: r["J_labels"])
    assert {r["rung"] for r in rows} == {best["method"]} == {ladder["labels"]["rung"]}
    assert ladder["labels"]["labels"] == [r["label"] for r in rows]


def test_labels_out_with_a_subset_keeps_the_files_row_numbers(tmp_path):
    data = tmp_path / "mine.csv"
    given = _moons_csv(data, n=30, n_labeled=6)
    code, _, err = run("compare", "--data", str(data), "--label-column", "diagnosis",
                       "--n", "12", "--methods", "alternating", "-q",
                       "--labels-out", "labels.csv", cwd=tmp_path)
    assert code == 0, err
    rows = _read_labels(tmp_path / "labels.csv")
    numbers = [int(r["row"]) for r in rows]
    assert len(numbers) == 12 == len(set(numbers)) and max(numbers) < 30
    for r in rows:
        assert (r["labeled"] == "yes") == (given[int(r["row"])] != "?")


def test_labels_from_chooses_the_rung(tmp_path):
    code, _, err = run("compare", "--n", "10", "--methods", "label_generation,alternating",
                       "--labels-from", "alternating", "-q", "--labels-out", "l.csv",
                       "--json", "l.json", cwd=tmp_path)
    assert code == 0, err
    assert {r["rung"] for r in _read_labels(tmp_path / "l.csv")} == {"alternating"}
    ladder = json.loads((tmp_path / "l.json").read_text())
    rung = next(r for r in ladder["rungs"] if r["method"] == "alternating")
    assert ladder["labels"]["J_labels"] == pytest.approx(rung["J_labels"])

def test_labels_from_must_name_a_rung_that_runs(capsys):
    # the errors of the options are checked in-process: the same main() as the command
    assert main(["compare", "--n", "10", "--methods", "alternating", "--labels-from", "sdp"]) == 2
    assert "--labels-from sdp is not among --methods" in capsys.readouterr().err
    assert main(["compare", "--labels-from", "simplex"]) == 2
    assert "--labels-from expects one of" in capsys.readouterr().err


def test_json_holds_the_labels_of_a_built_in_problem(tmp_path):
    code, _, err = run("compare", "--dataset", "heart", "--n", "12", "--labeled", "4",
                       "--methods", "alternating", "-q", "--json", "h.json", cwd=tmp_path)
    assert code == 0, err
    labels = json.loads((tmp_path / "h.json").read_text())["labels"]
    X, y = wc.datasets.load_uci("heart")
    names = {str(c) for c in np.unique(y)}
    # heart's own class names, one per drawn row, rows within the data set
    assert set(labels["labels"]) <= names and set(labels["classes"].values()) == names
    assert len(labels["rows"]) == 12 and max(labels["rows"]) < len(y)
    assert sum(labels["labeled"]) == 4


def test_methods_runs_exactly_the_named_rungs(tmp_path):
    code, _, err = run("compare", "--n", "10", "--methods", "alternating,label_generation_exact",
                       "-q", "--json", "m.json", cwd=tmp_path)
    assert code == 0, err
    rungs = json.loads((tmp_path / "m.json").read_text())["rungs"]
    assert [r["method"] for r in rungs] == ["alternating", "label_generation (exact oracle)"]
    assert rungs[1]["certified"] and rungs[1]["kind"] == "lower bound"


@pytest.mark.parametrize("value", ["sdp,simplex", "exact,exact", ","])
def test_methods_refuses_unknown_or_repeated_names(value, capsys):
    assert main(["compare", "--methods", value]) == 2
    err = capsys.readouterr().err
    assert "--methods expects distinct names from" in err and repr(value) in err


def test_max_iter_limits_label_generation(tmp_path):
    code, _, err = run("compare", "--n", "40", "--methods", "label_generation", "--max-iter",
                       "1", "-q", "--json", "m.json", cwd=tmp_path)
    assert code == 0, err
    rung = json.loads((tmp_path / "m.json").read_text())["rungs"][0]
    assert rung["n_iter"] <= 1 and rung["status"] in ("max_iter", "converged")


@pytest.mark.parametrize("option, value", [("--max-iter", "0"), ("--max-iter", "2.5"),
                                           ("--tol", "-1"), ("--tol", "nan")])
def test_bad_iteration_options_name_the_option(option, value, capsys):
    with pytest.raises(SystemExit) as info:
        main(["compare", option, value])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert option in err and repr(value) in err


def test_tol_loosens_label_generation(tmp_path):
    n_iter = {}
    for tol in ("0.5", "1e-6"):
        code, _, err = run("compare", "--n", "30", "--methods", "label_generation", "--tol",
                           tol, "-q", "--json", f"t{tol}.json", cwd=tmp_path)
        assert code == 0, err
        n_iter[tol] = json.loads((tmp_path / f"t{tol}.json").read_text())["rungs"][0]["n_iter"]
    assert n_iter["0.5"] <= n_iter["1e-6"]


def test_version_and_python_dash_m():
    code, out, _ = run("--version")
    assert code == 0 and out.strip() == f"weakcvx {version('weakcvx')}" == \
        f"weakcvx {wc.__version__}"
    installed = os.path.join(os.path.dirname(sys.executable), "weakcvx")
    if os.path.exists(installed):  # the installed script is the same command
        done = subprocess.run([installed, "--help"], capture_output=True, text=True, env=ENV)
        assert done.returncode == 0 and "--version" in done.stdout and "compare" in done.stdout


def test_plot_json_and_csv_of_a_stopped_exact_rung_agree(tmp_path):
    """The ladder never contradicts itself: the exact rung stopped by its time limit gives
    its certified bound to the JSON's best lower bound and the printed summary."""
    code, out, err = run("compare", "--n", "40", "--methods", "exact,alternating",
                         "--time-limit", "0.05", "-q", "--json", "s.json", "--csv", "s.csv",
                         cwd=tmp_path)
    assert code == 0, err
    data = json.loads((tmp_path / "s.json").read_text())
    exact = data["rungs"][0]
    if exact["kind"] == "optimum":
        pytest.skip("the search finished within 0.05 s on this machine")
    assert exact["status"] == "time_limit" and exact["kind"] == "lower bound"
    assert data["best_lower_bound"] == pytest.approx(exact["lower_bound"])
    assert "no certified lower bound" not in out
    assert f"best certified lower bound {exact['lower_bound']:.5g}" in out
    with open(tmp_path / "s.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert rows[0]["kind"] == "lower bound"
