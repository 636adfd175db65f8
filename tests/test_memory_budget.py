"""The memory budget bounds the peak of the whole fit (issue 21): the kernel, its copies and
checks, and the solver's workspace. A fit whose dense path would not fit takes the low-rank
path, or stops with MemoryBudgetError before allocating; checked with the address space of a
child process capped (RLIMIT_AS) at the budget plus a margin, so that an allocation beyond it
fails for real instead of being estimated."""

import subprocess
import sys
import textwrap
import tracemalloc
import warnings

import numpy as np
import pytest

import weakcvx as wc
from weakcvx import kernels

resource = pytest.importorskip("resource")

#: Run in a child: warm up (imports, numba compilation, BLAS threads) on 60 points, then cap
#: the address space at its current size + the budget + a margin and fit each estimator on
#: ``n`` points under its budget; one line of outcome per estimator.
CHILD = textwrap.dedent("""
    import resource, sys, warnings
    import numpy as np
    import weakcvx as wc
    from weakcvx._validation import _parse_budget

    warnings.simplefilter("ignore")
    n, cap_budget, margin = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    cases = [case.split(":") for case in sys.argv[4:]]        # name:budget
    rng = np.random.default_rng(0)

    def data(name, m):
        X = rng.standard_normal((m, 10))
        y = np.full(m, -1)
        y[:3], y[3:6] = 1, 0
        return (X, y) if name != "MaxMarginClustering" else (X,)

    def make(name):
        return {"S3VM": lambda: wc.S3VM(random_state=0, max_iter=3),
                "MaxMarginClustering": lambda: wc.MaxMarginClustering(
                    random_state=0, n_init=1, max_iter=3),
                "BetaSVM": lambda: wc.BetaSVM(kernel="rbf", max_iter=2),
                "BetaSVM-libsvm": lambda: wc.BetaSVM(kernel="rbf", max_iter=2,
                                                     solver="libsvm")}[name]()

    for name, _ in cases:
        make(name).fit(*data(name, 60))
    inputs = {name: data(name, n) for name, _ in cases}
    status = next(line for line in open("/proc/self/status") if line.startswith("VmSize"))
    cap = int(status.split()[1]) * 1024 + _parse_budget(cap_budget, "budget") \\
        + _parse_budget(margin, "margin")
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    for name, budget in cases:
        wc.set_config(memory_budget=budget)
        try:
            make(name).fit(*inputs[name])
        except wc.MemoryBudgetError as exc:
            print(name, "MemoryBudgetError", str(exc).replace("\\n", " "))
        except MemoryError as exc:
            print(name, "MemoryError", exc)
        else:
            print(name, "fit")
""")


@pytest.fixture(scope="module")
def capped_fits():
    """Outcome per estimator of fits on 1500 points with the address space capped at the
    child's size + 40 MiB + a 20 MiB margin. The dense 1500 × 1500 kernel (17 MiB) is within
    the 40 MiB budget, the dense fit (3-4 kernels) is not."""
    import os

    if not sys.platform.startswith("linux"):
        pytest.skip("reads /proc/self/status")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "MALLOC_ARENA_MAX": "2"}
    env.pop("WEAKCVX_MEMORY_BUDGET", None)
    cases = ["S3VM:40M", "MaxMarginClustering:40M", "BetaSVM:60M", "BetaSVM-libsvm:60M"]
    proc = subprocess.run([sys.executable, "-c", CHILD, "1500", "40M", "20M", *cases],
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return dict(line.split(" ", 1) for line in proc.stdout.strip().splitlines())


@pytest.mark.parametrize("name", ["S3VM", "MaxMarginClustering"])
def test_fit_stays_within_the_budget_with_the_address_space_capped(capped_fits, name):
    """The estimator takes the low-rank path and stays within the cap (before: the kernel was
    "within budget" and the fit died with a raw MemoryError)."""
    assert capped_fits[name] == "fit"


def test_dense_only_estimator_refuses_before_allocating_with_the_address_space_capped(
        capped_fits):
    """BetaSVM with LIBSVM needs the dense kernel and LIBSVM's duplicated 2n × 2n one: with
    the kernel within the budget but not the fit, MemoryBudgetError names the peak, not a raw
    MemoryError from deep inside the fit. The default SMO path works on the kernel itself
    (1.35 n × n arrays at its peak): the same budget holds its fit."""
    out = capped_fits["BetaSVM-libsvm"]
    assert out.startswith("MemoryBudgetError") and "at the peak" in out, out
    assert capped_fits["BetaSVM"] == "fit"


def test_rbf_kernel_is_built_in_place_and_exactly_symmetric():
    X = np.random.default_rng(0).standard_normal((2000, 5))
    one = 8 * 2000 * 2000
    tracemalloc.start()
    K = kernels.rbf(X, gamma=0.3)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 1.4 * one           # one n × n array plus row blocks (was 3 arrays)
    assert np.array_equal(K, K.T)
    D = ((X[:300, None, :] - X[None, :, :]) ** 2).sum(-1)
    np.testing.assert_allclose(K[:300], np.exp(-0.3 * D), rtol=1e-12, atol=1e-14)


def test_kernel_checks_do_not_copy_a_symmetric_kernel():
    X = np.random.default_rng(0).standard_normal((2000, 5))
    K = kernels.rbf(X, gamma=0.3)
    one = 8 * 2000 * 2000
    tracemalloc.start()
    checked = kernels.check_kernel_matrix(K)
    kernels.check_psd(K)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert checked is K
    assert peak < 1.25 * one          # the PSD check's one shifted copy (was 4 arrays)


def test_nearly_symmetric_kernel_is_symmetrised_in_a_copy():
    K = np.array([[2.0, 1.0 + 1e-12], [1.0, 2.0]])
    checked = kernels.check_kernel_matrix(K)
    assert checked is not K and np.array_equal(checked, checked.T)
    assert K[0, 1] == 1.0 + 1e-12     # the caller's matrix is left alone


def test_dense_path_is_taken_only_when_the_whole_fit_fits():
    X = np.random.default_rng(0).standard_normal((200, 3))
    y = np.full(200, -1)
    y[:3], y[3:6] = 1, 0
    model = wc.S3VM(random_state=0, max_iter=3)
    inputs = model.set_params()._problem_inputs(model._validate_X(X))
    assert "kernel" in inputs                     # 200² · 8 · 4 = 1.2 MiB: dense
    wc.set_config(memory_budget=4 * 8 * 200 * 200 - 1)
    try:
        inputs = model._problem_inputs(X)
    finally:
        wc.set_config(memory_budget=None)
    assert "features" in inputs and inputs["features"].shape[0] == 200


def test_rbf_kernel_takes_the_factor_above_its_row_limit(monkeypatch):
    """Above RBF_FACTOR_MIN_ROWS the RBF kernel enters through the rank-LOW_RANK_MAX factor
    (the dense kernel would be factored to its numerical rank, ~n columns); the polynomial
    kernel and the dense-only callers keep the dense kernel; on two separated clusters the
    factor's fit labels and predicts as the dense one does."""
    from weakcvx.estimators import _base

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(-2.0, 1.0, (100, 3)), rng.normal(2.0, 1.0, (100, 3))])
    y = np.full(200, -1)
    y[:3], y[100:103] = 0, 1
    X_new = np.vstack([rng.normal(-2.0, 1.0, (50, 3)), rng.normal(2.0, 1.0, (50, 3))])
    dense = wc.S3VM(random_state=0).fit(X, y)
    monkeypatch.setattr(_base, "RBF_FACTOR_MIN_ROWS", 150)
    model = wc.S3VM(random_state=0)
    assert "features" in model._problem_inputs(model._validate_X(X))
    assert "kernel" in model._problem_inputs(X, dense_only=True)
    poly = wc.S3VM(kernel="poly")
    assert "kernel" in poly._problem_inputs(poly._validate_X(X))
    factor = model.fit(X, y)
    assert np.array_equal(factor.transduction_, dense.transduction_)
    assert np.mean(factor.predict(X_new) == dense.predict(X_new)) >= 0.98


def test_a_factor_cut_by_the_budget_warns_and_is_recorded(monkeypatch):
    """The budget sets the factor's default rank, budget // (LOW_RANK_COPIES · 8 (n + 1)):
    below LOW_RANK_WARN columns the fit warns (a coarse kernel costs accuracy) and
    ``kernel_rank_`` says how many it got; with room for LOW_RANK_WARN columns, no warning."""
    import warnings

    from weakcvx.estimators import _base

    rng = np.random.default_rng(0)
    X = rng.standard_normal((400, 5))
    y = np.full(400, -1)
    y[:10] = (X[:10, 0] > 0).astype(int)
    y[:2] = [0, 1]
    monkeypatch.setattr(_base, "RBF_FACTOR_MIN_ROWS", 100)
    monkeypatch.setattr(_base, "LOW_RANK_WARN", 60)
    per_column = _base.LOW_RANK_COPIES * 8 * 401
    try:
        wc.set_config(memory_budget=40 * per_column)
        with pytest.warns(UserWarning, match=r"allows a rank-40 factor of the 400 x 400 kernel"):
            model = wc.S3VM(random_state=0).fit(X, y)
        assert model.kernel_rank_ == 40
        clustering = wc.MaxMarginClustering(random_state=0)
        with pytest.warns(UserWarning, match="MaxMarginClustering: the memory budget"):
            clustering.fit(X)
        assert clustering.kernel_rank_ == 40
        wc.set_config(memory_budget=60 * per_column)
        with warnings.catch_warnings():
            warnings.simplefilter("error", UserWarning)
            model = wc.S3VM(random_state=0).fit(X, y)
        assert model.kernel_rank_ == 60
    finally:
        wc.set_config(memory_budget=None)
    assert wc.S3VM(random_state=0).fit(X[:90], y[:90]).kernel_rank_ is None  # dense kernel


def test_predictions_and_bag_kernels_are_computed_in_blocks_of_bounded_size(monkeypatch):
    """k(X, X_fit) β and InvCal's A K Aᵀ by blocks of about KERNEL_BLOCK_BYTES: the same values
    as the whole product, without the whole kernel block in memory."""
    from weakcvx import _validation
    from weakcvx.proportion import bag_mean_kernel

    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 5))
    y_semi = np.where(np.arange(300) % 10 == 0, (X[:, 0] > 0).astype(int), -1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = wc.BetaSVM(max_iter=2).fit(X, y_semi)
    X_new = rng.standard_normal((20_000, 5))                  # the whole block: 46 MiB
    whole = wc.kernels.rbf(X_new, model.X_fit_, gamma=model._gamma) @ model.dual_coef_
    monkeypatch.setattr(_validation, "KERNEL_BLOCK_BYTES", 2**20)
    tracemalloc.start()
    scores = model.decision_function(X_new)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert np.allclose(scores, whole + model.intercept_, rtol=0, atol=1e-12)
    assert peak < 8 * 2**20
    monkeypatch.setattr(_validation, "KERNEL_BLOCK_BYTES", 2**14)      # blocks of 6 rows
    bags = np.arange(300) % 20
    kernel = lambda A, B: wc.kernels.rbf(A, B, gamma=0.3)     # noqa: E731
    blocked = bag_mean_kernel(X, bags, 20, kernel=kernel, block_rows=_validation.block_rows(300))
    dense = bag_mean_kernel(X, bags, 20, kernel=kernel, block_rows=300)
    assert _validation.block_rows(300) == 6 and np.allclose(blocked, dense, atol=1e-13)


def test_class_scores_of_the_kernel_form_are_blocked(monkeypatch):
    from weakcvx import _validation

    rng = np.random.default_rng(1)
    X = rng.standard_normal((120, 4))
    model = wc.PartialLabelSVM(kernel="rbf").fit(X, np.arange(120) % 3)
    X_new = rng.standard_normal((5000, 4))
    whole = model._kernel(model._standardized(X_new), model.X_fit_) @ model.dual_coef_
    monkeypatch.setattr(_validation, "KERNEL_BLOCK_BYTES", 2**12)        # blocks of 4 rows
    tracemalloc.start()
    scores = model.decision_function(X_new)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert np.allclose(scores, whole + model.intercept_, rtol=0, atol=1e-12)
    assert peak < 0.5 * X_new.shape[0] * 120 * 8                       # below the whole block
