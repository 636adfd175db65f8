"""The Dask example (examples/dask_grid.py): the grid runs on a LocalCluster through joblib's
dask backend and gives the same results as the local run. Skipped without ``distributed``."""

import importlib.util
import pathlib

import joblib
import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "dask_grid.py"


def _load_example():
    spec = importlib.util.spec_from_file_location("dask_grid", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_grid_on_local_cluster_matches_local_run():
    ex = _load_example()
    X, y, truth = ex.make_data(n_samples=80, n_labeled=15)
    grid = {"C": [0.3, 1.0], "gamma": [2.0]}
    local = ex.grid_search(grid).set_params(n_jobs=1).fit(X, y)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client, \
            distributed.get_task_stream(client) as stream:
        search = ex.grid_search(grid)
        with joblib.parallel_backend("dask"):
            search.fit(X, y)
    # the fits went through the cluster's scheduler, not local processes
    assert len(stream.data) >= len(grid["C"]) * 3
    # independent fits with fixed seeds: the same scores as the sequential run
    np.testing.assert_allclose(search.cv_results_["mean_test_score"],
                               local.cv_results_["mean_test_score"], atol=1e-12)
    assert search.best_params_ == local.best_params_
    # the tuned model learns from the unlabeled points: above the majority class
    unlabeled = y == -1
    acc = np.mean(search.best_estimator_.transduction_[unlabeled] == truth[unlabeled])
    assert acc > 0.8


def test_labeled_accuracy_ignores_unlabeled_points():
    ex = _load_example()
    X, y, truth = ex.make_data(n_samples=60, n_labeled=10)

    class Constant:
        def predict(self, X):
            return np.ones(len(X), dtype=int)

    known = y != -1
    assert ex.labeled_accuracy(Constant(), X, y) == pytest.approx(np.mean(y[known] == 1))
