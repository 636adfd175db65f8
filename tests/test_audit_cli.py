"""Audit of the ``weakcvx`` command and the data loaders: each test reproduces a defect found by
using them as a new user would (a data file, an option, an output path)."""

import json
import subprocess
import sys

import numpy as np
import pytest

from weakcvx import datasets
from weakcvx.cli import load_data_file, main


def _moons(n=12, n_labeled=3, seed=0):
    X, _, y_known = datasets.make_two_moons(n, n_labeled=n_labeled, random_state=seed)
    return X, y_known


def _exit_code(argv):
    """main()'s status, whether it returns it or argparse exits with it."""
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


# -- a user's data file ----------------------------------------------------------------------
def test_npz_with_x_and_a_label_array_uses_the_label_array_by_default(tmp_path, capsys):
    # the README's NPZ layout: arrays X and a label array. The default --label-column took the
    # last column of X as the labels (here a binary feature, so it ran on the wrong labels).
    X, y_known = _moons()
    X = np.column_stack([X, np.where(np.arange(len(X)) % 3 == 0, 1.0, 0.0)])
    np.savez(tmp_path / "mine.npz", X=X, y=y_known)
    assert main(["compare", "--data", str(tmp_path / "mine.npz"), "--unknown", "0", "-q",
                 "--json", str(tmp_path / "out.json")]) == 0
    name = json.loads((tmp_path / "out.json").read_text())["problem"]
    assert "3 labeled (-1 = '-1', +1 = '1')" in name, name
    X_read, known, classes = load_data_file(tmp_path / "mine.npz", None, "0")
    assert classes == ["-1", "1"]
    np.testing.assert_array_equal(known, y_known)
    assert X_read.shape == X.shape


def test_npz_with_several_label_arrays_asks_which(tmp_path, capsys):
    X, y_known = _moons()
    np.savez(tmp_path / "two.npz", X=X, y=y_known, weights=np.ones(len(X)))
    assert main(["compare", "--data", str(tmp_path / "two.npz"), "--unknown", "0"]) == 2
    err = capsys.readouterr().err
    assert "--label-column" in err and "weights" in err and err.count("\n") == 1


def _write_csv(path, rows, bom):
    text = "\n".join(",".join(map(str, row)) for row in rows) + "\n"
    path.write_bytes(("\ufeff" if bom else "").encode() + text.encode())


def test_csv_with_a_byte_order_mark_keeps_every_row_and_finds_its_header(tmp_path):
    # spreadsheets save "CSV UTF-8" with a byte-order mark: the first row of a file without a
    # header was taken for a header and dropped, and a first header name was not found
    X, y_known = _moons()
    labels = np.where(y_known > 0, "pos", np.where(y_known < 0, "neg", "?"))
    rows = [[f"{a:.6f}", f"{b:.6f}", lab] for (a, b), lab in zip(X, labels)]
    _write_csv(tmp_path / "plain.csv", rows, bom=True)
    X_read, known, _ = load_data_file(tmp_path / "plain.csv", "-1", "?")
    assert X_read.shape == (len(X), 2)
    np.testing.assert_array_equal(known, y_known)

    _write_csv(tmp_path / "header.csv", [["label", "a", "b"]] + [[r[2], r[0], r[1]] for r in rows],
               bom=True)
    X_read, known, _ = load_data_file(tmp_path / "header.csv", "label", "?")
    assert X_read.shape == (len(X), 2)
    np.testing.assert_array_equal(known, y_known)


def test_a_first_row_with_a_missing_value_is_refused_not_dropped_as_a_header(tmp_path, capsys):
    # "0.5,?,pos" has a number among its features: a data row with a missing value, which was
    # taken for a header and silently dropped (with its label)
    path = tmp_path / "missing.csv"
    path.write_text("0.5,?,pos\n1,2,neg\n3,4,?\n5,6,?\n0,1,pos\n")
    assert main(["compare", "--data", str(path), "-q"]) == 2
    err = capsys.readouterr().err
    assert "must be numbers" in err and "'?'" in err and err.count("\n") == 1
    # a header is still recognised, and a header-less numeric file keeps its first row
    (tmp_path / "hdr.csv").write_text("a,b,label\n0.5,1,pos\n1,2,neg\n3,4,?\n")
    assert load_data_file(tmp_path / "hdr.csv", None, "?")[0].shape == (3, 2)
    (tmp_path / "nohdr.csv").write_text("0.5,1,pos\n1,2,neg\n3,4,?\n")
    assert load_data_file(tmp_path / "nohdr.csv", None, "?")[0].shape == (3, 2)


@pytest.mark.parametrize("text, message", [
    # a spreadsheet's export with semicolons or tabs: one field per row, which the reader took
    # for a file without feature columns
    ("x1;x2;label\n0.5;1.3;yes\n1.5;0.3;no\n2;3;?\n",
     r"only comma-separated files are read, and its first row is a single field with "
     r"semicolons \('x1;x2;label'\)"),
    ("0.5\t1.3\tyes\n1.5\t0.3\tno\n2\t3\t?\n", r"only comma-separated .* with tabs"),
    # decimal commas: the header is one field, the data rows three ("row 2 has 3 fields")
    ("x1;x2;label\n0,51;1,36;no\n1,5;0,3;yes\n", r"only comma-separated .* with semicolons"),
    # ... and without a header the fields split at the decimal commas
    ("0,51;1,36;no\n1,5;0,3;yes\n2,1;3,1;?\n",
     r"must be numbers: line 1 of the file \(data row 0, counting from 0\), column 1 "
     r"\(counting from 0\) holds '51;1'; only comma-separated files are read"),
    # a header and no data: said to have no feature columns
    ("x1,x2,label\n", "holds a header row but no data rows"),
    # a missing value: float('') without a row or a column
    ("x1,x2,label\n0.5,1,yes\n1,,no\n3,4,?\n",
     r"must be numbers: line 3 of the file \(data row 1, counting from 0\), column 'x2' is "
     r"empty \(a missing value\)"),
    ("0.5,1,yes\n1,2,no\n3, ,?\n",
     r"must be numbers: line 3 of the file \(data row 2, counting from 0\), "
     r"column 1 \(counting from 0\) is empty"),
    ("a,b,label\n0.5,1,yes\nn/a,2,no\n3,4,?\n",
     r"must be numbers: line 3 of the file \(data row 1, counting from 0\), column 'a' holds "
     r"'n/a'"),
], ids=["semicolons", "tabs", "decimal-commas", "decimal-commas-no-header", "header-only",
        "missing-value", "blank-value-no-header", "word"])
def test_csv_errors_say_what_is_wrong_and_where(tmp_path, capsys, text, message):
    path = tmp_path / "mine.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        load_data_file(path, None, "?")
    assert main(["compare", "--data", str(path), "-q"]) == 2
    err = capsys.readouterr().err
    assert "mine.csv" in err and err.count("\n") == 1


# -- options that were silently ignored or clipped -------------------------------------------
def test_uci_labeled_beyond_n_is_an_error_not_clipped(capsys):
    # two-moons refused --labeled > --n; a UCI set labeled every point without a word
    assert main(["compare", "--dataset", "heart", "--n", "8", "--labeled", "20", "-q"]) == 2
    err = capsys.readouterr().err
    assert "--labeled" in err and "20" in err and err.count("\n") == 1


def test_dataset_and_data_together_is_an_error(tmp_path, capsys):
    X, y_known = _moons()
    np.savez(tmp_path / "mine.npz", X=X, y=y_known)
    argv = ["compare", "--dataset", "heart", "--data", str(tmp_path / "mine.npz"), "--unknown",
            "0", "-q"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--dataset" in err and "--data" in err and err.count("\n") == 1


@pytest.mark.parametrize("argv, option", [
    (["--dataset", "blobs", "--n", "6", "--labeled", "3"], "--labeled"),
    (["--n", "6", "--unknown", "NA"], "--unknown"),
    (["--n", "6", "--label-column", "label"], "--label-column"),
])
def test_options_that_do_not_apply_are_reported(argv, option, capsys):
    assert main(["compare", *argv, "-q"]) == 0
    err = capsys.readouterr().err
    assert option in err and "ignored" in err


def test_labeled_with_a_data_file_is_reported(tmp_path, capsys):
    X, y_known = _moons(n=6, n_labeled=2)
    np.savez(tmp_path / "mine.npz", X=X, y=y_known)
    assert main(["compare", "--data", str(tmp_path / "mine.npz"), "--label-column", "y",
                 "--unknown", "0", "--labeled", "1", "-q"]) == 0
    err = capsys.readouterr().err
    assert "--labeled" in err and "ignored" in err


def test_bench_options_of_all_only_are_reported(capsys):
    assert main(["bench", "list", "--output", "elsewhere.md", "--only", "mkl"]) == 0
    err = capsys.readouterr().err
    assert "--output" in err and "--only" in err and "ignored" in err


@pytest.mark.parametrize("option, value", [("--seed", "-1"), ("--C", "0"), ("--C", "-1"),
                                           ("--gamma", "-2"), ("--gamma", "inf")])
def test_bad_numbers_name_the_option(option, value, capsys):
    assert _exit_code(["compare", option, value, "-q"]) == 2
    err = capsys.readouterr().err
    assert option in err and value in err and "Traceback" not in err


# -- output files ----------------------------------------------------------------------------
@pytest.mark.parametrize("option", ["--plot", "--json", "--csv"])
def test_an_output_path_that_is_a_directory_is_refused_up_front(option, tmp_path, capsys):
    assert main(["compare", "--n", "6", "-q", option, str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert "directory" in captured.err and captured.err.count("\n") == 1
    assert "Ladder of bounds" not in captured.out  # refused before any computation


def test_an_unknown_plot_format_is_refused_up_front(tmp_path, capsys):
    assert main(["compare", "--n", "6", "-q", "--plot", str(tmp_path / "ladder.xyz")]) == 2
    captured = capsys.readouterr()
    assert "ladder.xyz" in captured.err and ".png" in captured.err
    assert captured.err.count("\n") == 1 and "Ladder of bounds" not in captured.out


def test_plot_without_extension_is_a_png_at_the_given_path(tmp_path, capsys):
    target = tmp_path / "ladder"
    assert main(["compare", "--n", "6", "-q", "--plot", str(target)]) == 0
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not (tmp_path / "ladder.png").exists()
    assert f"plot saved to {target}" in capsys.readouterr().out


def test_a_failed_write_is_one_line_not_a_traceback(tmp_path, capsys, monkeypatch):
    import weakcvx.cli as cli

    def refuse(path, *args):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(cli, "_write_csv", refuse)
    assert main(["compare", "--n", "6", "-q", "--csv", str(tmp_path / "t.csv")]) == 2
    err = capsys.readouterr().err
    assert "Permission denied" in err and "t.csv" in err and err.count("\n") == 1


def test_a_closed_pipe_is_not_an_error_message():
    # `weakcvx bench list | head -1`: the reader leaves before the output is written
    proc = subprocess.Popen([sys.executable, "-m", "weakcvx.cli", "bench", "list"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=120)
    assert "Traceback" not in err and "Exception ignored" not in err, err


# -- loaders ---------------------------------------------------------------------------------
@pytest.mark.parametrize("load, name", [(datasets.load_uci, "heart"),
                                        (datasets.load_multiclass, "segment")])
@pytest.mark.parametrize("value", ["no", None, 0.5])
def test_standardize_must_be_a_boolean(load, name, value):
    # standardize="no" used to standardize (a truthy string), silently
    with pytest.raises(ValueError, match="`standardize` must be True or False"):
        load(name, standardize=value)
    raw, _ = load(name, standardize=False)
    scaled, _ = load(name, standardize=True)
    assert not np.allclose(raw, scaled)


def test_make_bags_reads_only_the_rows_of_X():
    """make_bags uses X for its number of rows only (its docstring): missing feature values are
    not its business, and a 1-D X is refused by name."""
    from weakcvx.datasets import make_bags

    X = np.random.default_rng(0).random((20, 2))
    X[0, 0] = np.nan
    y = np.repeat([0, 1], 10)
    bag_ids, proportions = make_bags(X, y, bag_size=5, random_state=0)
    clean_ids, clean_proportions = make_bags(np.zeros((20, 2)), y, bag_size=5, random_state=0)
    np.testing.assert_array_equal(bag_ids, clean_ids)
    np.testing.assert_allclose(proportions, [y[bag_ids == k].mean() for k in range(4)])
    with pytest.raises(ValueError, match="`X` must be 2-D"):
        make_bags(np.zeros(20), y, bag_size=5)


def test_kernel_function_says_a_data_dependent_gamma_needs_the_data():
    import weakcvx as wc

    with pytest.raises(ValueError, match="`X_fit` is needed"):
        wc.kernels.kernel_function("rbf", gamma="scale")
    with pytest.raises(ValueError, match="`X` is needed"):
        wc.kernels.resolve_gamma(None, "mean_distance")
    k, g = wc.kernels.kernel_function("rbf", gamma=0.5)
    assert g == 0.5
