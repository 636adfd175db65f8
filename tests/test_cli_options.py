"""Every option of ``weakcvx compare`` added for issue 20, run as a user runs it: the command
(``python -m weakcvx``, and the installed script) in a subprocess, its files read back. A few
commands, each with several options, are run once per module (a subprocess costs seconds of
imports); each test checks one option on their outputs. Option errors are checked in-process,
through the same ``main``."""

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


def _moons_csv(path, n=30, n_labeled=6, seed=0):
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


@pytest.fixture(scope="module")
def own_file(tmp_path_factory):
    """``--data`` with ``--n``, ``--methods``, ``--max-iter``, ``--labels-out``, ``--json``."""
    cwd = tmp_path_factory.mktemp("own_file")
    given = _moons_csv(cwd / "mine.csv")
    code, out, err = run("compare", "--data", "mine.csv", "--label-column", "diagnosis",
                         "--n", "12", "--methods", "label_generation,alternating",
                         "--max-iter", "1", "-q", "--labels-out", "labels.csv",
                         "--json", "ladder.json", cwd=cwd)
    assert code == 0, err
    return {"given": given, "labels": _read_labels(cwd / "labels.csv"), "out": out,
            "json": json.loads((cwd / "ladder.json").read_text())}


@pytest.fixture(scope="module")
def built_in(tmp_path_factory):
    """A built-in UCI set with ``--labels-from``, ``--tol`` and the exact-oracle rung."""
    cwd = tmp_path_factory.mktemp("built_in")
    argv = ["compare", "--dataset", "heart", "--n", "12", "--labeled", "4", "--methods",
            "label_generation,alternating,label_generation_exact", "--labels-from",
            "alternating", "-q", "--labels-out", "labels.csv", "--json", "ladder.json"]
    code, out, err = run(*argv, "--tol", "0.5", cwd=cwd)
    assert code == 0, err
    return {"argv": argv, "labels": _read_labels(cwd / "labels.csv"),
            "json": json.loads((cwd / "ladder.json").read_text())}


def test_labels_out_gives_the_rows_in_the_users_class_names(own_file):
    rows, given = own_file["labels"], own_file["given"]
    numbers = [int(r["row"]) for r in rows]
    # --n 12 of 30: the file's own data-row numbers, each once
    assert len(numbers) == 12 == len(set(numbers)) and max(numbers) < len(given)
    assert {r["label"] for r in rows} <= {"benign", "malignant"}
    for r in rows:  # the rows labeled in the file keep their label and say so
        assert (r["labeled"] == "yes") == (given[int(r["row"])] != "?")
        if r["labeled"] == "yes":
            assert r["label"] == given[int(r["row"])]


def test_labels_come_from_the_best_rung_by_default(own_file):
    ladder = own_file["json"]
    best = min((r for r in ladder["rungs"] if r["J_labels"] is not None),
               key=lambda r: r["J_labels"])
    assert {r["rung"] for r in own_file["labels"]} == {best["method"]}
    assert ladder["labels"]["rung"] == best["method"] == ladder["best_labels_from"]
    assert ladder["labels"]["labels"] == [r["label"] for r in own_file["labels"]]
    assert ladder["labels"]["J_labels"] == pytest.approx(ladder["best_upper_bound"])


def test_methods_runs_exactly_the_named_rungs(own_file, built_in):
    assert [r["method"] for r in own_file["json"]["rungs"]] == ["label_generation",
                                                               "alternating"]
    rungs = built_in["json"]["rungs"]
    assert [r["method"] for r in rungs] == ["label_generation", "alternating",
                                            "label_generation (exact oracle)"]
    assert rungs[2]["certified"] and rungs[2]["kind"] == "lower bound"


def test_max_iter_limits_label_generation(own_file):
    rung = own_file["json"]["rungs"][0]
    assert rung["n_iter"] <= 1 and rung["status"] in ("max_iter", "converged")


def test_labels_from_chooses_the_rung(built_in):
    assert {r["rung"] for r in built_in["labels"]} == {"alternating"}
    rung = next(r for r in built_in["json"]["rungs"] if r["method"] == "alternating")
    assert built_in["json"]["labels"]["J_labels"] == pytest.approx(rung["J_labels"])


def test_json_holds_the_labels_in_the_data_sets_class_names(built_in):
    labels = built_in["json"]["labels"]
    X, y = wc.datasets.load_uci("heart")
    names = {str(c) for c in np.unique(y)}
    assert set(labels["labels"]) <= names and set(labels["classes"].values()) == names
    assert len(labels["rows"]) == 12 and max(labels["rows"]) < len(y)
    assert sum(labels["labeled"]) == 4


def test_tol_loosens_label_generation(built_in, tmp_path, monkeypatch):
    # the same command in-process with a tight tolerance: never fewer rounds than --tol 0.5
    monkeypatch.chdir(tmp_path)
    assert main(built_in["argv"] + ["--tol", "1e-6"]) == 0
    tight = json.loads((tmp_path / "ladder.json").read_text())["rungs"][0]
    loose = built_in["json"]["rungs"][0]
    assert loose["method"] == tight["method"] == "label_generation"
    assert loose["n_iter"] <= tight["n_iter"]


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
                         "--plot", "s.png", cwd=tmp_path)
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
    assert (tmp_path / "s.png").read_bytes()[:4] == b"\x89PNG"


def test_labels_from_must_name_a_rung_that_runs(capsys):
    assert main(["compare", "--n", "10", "--methods", "alternating", "--labels-from", "sdp"]) == 2
    assert "--labels-from sdp is not among --methods" in capsys.readouterr().err
    assert main(["compare", "--labels-from", "simplex"]) == 2
    assert "--labels-from expects one of" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["sdp,simplex", "exact,exact", ","])
def test_methods_refuses_unknown_or_repeated_names(value, capsys):
    assert main(["compare", "--methods", value]) == 2
    err = capsys.readouterr().err
    assert "--methods expects distinct names from" in err and repr(value) in err


@pytest.mark.parametrize("option, value", [("--max-iter", "0"), ("--max-iter", "2.5"),
                                           ("--tol", "-1"), ("--tol", "nan")])
def test_bad_iteration_options_name_the_option(option, value, capsys):
    with pytest.raises(SystemExit) as info:
        main(["compare", option, value])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert option in err and repr(value) in err
