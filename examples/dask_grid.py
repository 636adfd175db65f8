"""
A cross-validation grid on a Dask cluster
=========================================

Independent fits -- restarts, cross-validation folds, the cells of a parameter grid -- go through
joblib in weakcvx and scikit-learn. joblib's ``"dask"`` backend sends them to a Dask cluster
instead of local processes, so a grid that outgrows one machine moves to many by changing one
line: the ``with joblib.parallel_backend("dask"):`` around ``fit``.

Here a :class:`~weakcvx.S3VM` is tuned (``C`` and the RBF ``gamma``) on semi-supervised two
moons by 3-fold cross-validation, scored on the labeled points of each validation fold (the
unlabeled ones, ``y == -1``, have no label to score against). The cluster is a
``dask.distributed.LocalCluster``; for a real cluster pass the scheduler's address to
``Client("tcp://scheduler:8786")`` instead -- nothing else changes.

Needs the optional extra: ``pip install weakcvx[distributed]``. Run it with
``python examples/dask_grid.py``.
"""

import joblib
import numpy as np
from sklearn.model_selection import GridSearchCV, StratifiedKFold

import weakcvx as wc

PARAM_GRID = {"C": [0.3, 1.0], "gamma": [1.0, 2.0]}


def labeled_accuracy(estimator, X, y):
    """Accuracy on the labeled points of a validation fold (``y == -1`` marks unlabeled ones)."""
    known = y != -1
    return float(np.mean(estimator.predict(X[known]) == y[known]))


def make_data(n_samples=300, n_labeled=30, random_state=0):
    """Two moons with ``n_labeled`` labeled points: ``y`` in {0, 1}, ``-1`` for unlabeled."""
    X, y_true, y_known = wc.datasets.make_two_moons(n_samples, n_labeled=n_labeled,
                                                    random_state=random_state)
    y = np.where(y_known > 0, 1, 0)
    y[y_known == 0] = -1
    return X, y, (y_true > 0).astype(int)


def grid_search(param_grid=PARAM_GRID, n_splits=3):
    """The grid: every (parameters, fold) pair is one independent joblib task."""
    return GridSearchCV(wc.S3VM(random_state=0), param_grid, scoring=labeled_accuracy,
                        cv=StratifiedKFold(n_splits, shuffle=True, random_state=0), n_jobs=-1)


def main():
    from dask.distributed import Client, LocalCluster

    X, y, truth = make_data()
    with LocalCluster(n_workers=2, threads_per_worker=1) as cluster, Client(cluster) as client:
        print(f"dashboard: {client.dashboard_link}")
        search = grid_search()
        with joblib.parallel_backend("dask"):  # the one line: fits run on the cluster
            search.fit(X, y)
    for params, score in zip(search.cv_results_["params"],
                             search.cv_results_["mean_test_score"]):
        print(f"{params}  labeled-fold accuracy {score:.3f}")
    unlabeled = y == -1
    accuracy = np.mean(search.best_estimator_.transduction_[unlabeled] == truth[unlabeled])
    print(f"best {search.best_params_}: transductive accuracy {accuracy:.3f}")


if __name__ == "__main__":
    main()
