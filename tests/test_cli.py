"""The ``weakcvx`` command: the ladder it prints and saves, and its errors."""

import json

import pytest

from weakcvx.cli import main


@pytest.mark.parametrize("dataset, n", [("two-moons", 12), ("heart", 12), ("blobs", 10)])
def test_compare_writes_a_consistent_ladder_and_plot(tmp_path, capsys, dataset, n):
    plot, out = tmp_path / "ladder.png", tmp_path / "ladder.json"
    code = main(["compare", "--dataset", dataset, "--n", str(n), "--labeled", "3",
                 "--plot", str(plot), "--json", str(out)])
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
