"""A warning raised in fit, solve or compare points at the caller's line, not at
scikit-learn's ``_fit_context`` wrapper or weakcvx's internals, so its printed location and
module filters (``-W error::UserWarning:mymodule``) see the user's code."""

import os
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import weakcvx as wc
from weakcvx._validation import _PACKAGE_DIRS

X, y_true = wc.datasets.make_two_moons(20, n_labeled=20, random_state=0)[:2]
Y_ALL = (y_true > 0).astype(int)          # every row labeled: S3VM warns "supervised"


def _caught(fit):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit()
    return caught


def test_package_dirs_are_weakcvx_and_sklearn():
    names = {os.path.basename(os.path.dirname(d)) for d in _PACKAGE_DIRS}
    assert names == {"weakcvx", "sklearn"}


@pytest.mark.parametrize("fit", [
    lambda: wc.S3VM().fit(X, Y_ALL),                                         # estimator fit
    lambda: wc.BetaSVM().fit(X, Y_ALL),
    lambda: wc.MaxMarginClustering(max_iter=1, random_state=0).fit(X),       # ConvergenceWarning
])
def test_warnings_from_fit_point_at_this_file(fit):
    caught = _caught(fit)
    assert caught, "the case must warn"
    for w in caught:
        assert os.path.abspath(w.filename) == os.path.abspath(__file__), (w.filename, w.message)


def test_a_module_filter_on_the_callers_module_turns_the_warning_into_an_error():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.filterwarnings("error", category=UserWarning, module=__name__)
        with pytest.raises(UserWarning, match="marks no row as unlabeled"):
            wc.S3VM().fit(X, Y_ALL)


def test_solve_with_a_round_cap_warns_at_the_callers_line():
    K = wc.kernels.rbf(X, gamma=2.0)
    y_known = np.zeros(20)
    pos, neg = np.flatnonzero(y_true > 0)[0], np.flatnonzero(y_true < 0)[0]
    y_known[[pos, neg]] = [1, -1]
    problem = wc.WeakLabelProblem(K, wc.labelsets.SemiSupervised(y_known), costs=10.0)
    caught = _caught(lambda: wc.solve(problem, method="label_generation", max_iter=1,
                                      tol=1e-12))
    assert any(issubclass(w.category, ConvergenceWarning) for w in caught)
    assert all(os.path.abspath(w.filename) == os.path.abspath(__file__) for w in caught)
