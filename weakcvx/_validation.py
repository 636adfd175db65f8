"""Library-wide configuration and the memory guard of dense kernels.

A dense ``n × m`` kernel of float64 takes ``8 n m`` bytes: 20 GB at n = m = 50,000. Before any
such matrix is built (:mod:`weakcvx.kernels`), :func:`check_dense_size` compares its size with
the memory budget and, above it, stops with a :class:`MemoryBudgetError` that gives the size and
the options (a low-rank factor, the linear kernel, a larger budget), instead of letting the
operating system kill the process. The kernel estimators switch to a pivoted-Cholesky factor on
their own when the training kernel would not fit (docs/design.rst §7).

The budget is, in order of precedence: :func:`set_config` (``memory_budget=...``), the
environment variable ``WEAKCVX_MEMORY_BUDGET`` (bytes, or with a suffix ``K``, ``M``, ``G``),
and by default half of the physical memory, at most 8 GiB.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import warnings
from numbers import Integral, Real

import numpy as np

__all__ = ["set_config", "get_config", "memory_budget", "block_rows", "check_dense_size",
           "MemoryBudgetError",
           "format_bytes", "validate_X", "check_real", "as_real_array", "check_ids",
           "check_classes", "count_missing", "warn", "one_blas_thread", "ravel_column",
           "check_not_continuous"]


def _package_dirs():
    """The directories of weakcvx and of scikit-learn, each ending in a separator."""
    dirs = [os.path.dirname(os.path.abspath(__file__))]
    spec = importlib.util.find_spec("sklearn")
    if spec is not None and spec.submodule_search_locations:
        dirs += list(spec.submodule_search_locations)
    return tuple(os.path.join(d, "") for d in dirs)


#: Frames in these directories are skipped by :func:`warn`.
_PACKAGE_DIRS = _package_dirs()

ENV_VAR = "WEAKCVX_MEMORY_BUDGET"
_DEFAULT_CAP = 8 * 2**30
_config = {"memory_budget": None}
_SUFFIXES = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


_blas_controller = []


def one_blas_thread():
    """A context manager that limits BLAS to one thread (threadpoolctl), for the many small
    products of a small solve, where a second thread costs more in synchronisation than it
    gains.

    The libraries are looked up once per process (``threadpoolctl.ThreadpoolController``):
    ``threadpool_limits`` scans the loaded libraries on every call, a tenth of a small S3VM fit
    (docs/design.rst §3.3).
    """
    if not _blas_controller:
        from threadpoolctl import ThreadpoolController

        _blas_controller.append(ThreadpoolController())
    return _blas_controller[0].limit(limits=1, user_api="blas")


class MemoryBudgetError(MemoryError):
    """A dense matrix would exceed the memory budget (see :func:`weakcvx.set_config`).

    Examples
    --------
    >>> import numpy as np
    >>> import weakcvx as wc
    >>> wc.set_config(memory_budget="1M")
    >>> try:   # a 1000 x 1000 kernel of float64 needs 7.6 MiB
    ...     wc.kernels.linear(np.ones((1000, 2)))
    ... except wc.MemoryBudgetError as exc:
    ...     print(type(exc).__name__, isinstance(exc, MemoryError))
    MemoryBudgetError True
    >>> wc.set_config(memory_budget=None)
    """


def format_bytes(n_bytes):
    """``1536 -> '1.5 KiB'``."""
    size = float(n_bytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:.3g} {unit}"
        size /= 1024
    return f"{size:.3g} TiB"  # pragma: no cover


def _parse_budget(value, name):
    """A positive number of bytes from an int/float or a string such as ``"2G"``."""
    if isinstance(value, str):
        text = value.strip().upper().removesuffix("B").removesuffix("I")
        scale = _SUFFIXES.get(text[-1:], 1) if text else 1
        number = text[:-1] if text[-1:] in _SUFFIXES else text
        try:
            value = float(number) * scale
        except ValueError:
            raise ValueError(f"`{name}` must be a number of bytes, optionally with a suffix K, M, "
                             f"G or T (e.g. '2G'). Got {value!r} instead.") from None
    if isinstance(value, bool) or not isinstance(value, Real) or not value > 0 \
            or value == float("inf"):
        raise ValueError(f"`{name}` must be a positive finite number of bytes. "
                         f"Got {value!r} instead.")
    return int(value)


def set_config(memory_budget=None):
    """Set library-wide options.

    Parameters
    ----------
    memory_budget : int, float, str or None
        Largest dense matrix, in bytes (``"512M"``, ``"2G"`` accepted), that weakcvx builds:
        above it a kernel estimator uses a low-rank factor of the kernel and the functions of
        :mod:`weakcvx.kernels` raise :class:`MemoryBudgetError`. ``None`` restores the default
        (``WEAKCVX_MEMORY_BUDGET`` or half of the physical memory, at most 8 GiB).

    Examples
    --------
    >>> import weakcvx as wc
    >>> wc.set_config(memory_budget="1G")
    >>> wc.get_config()["memory_budget"]
    1073741824
    >>> wc.set_config(memory_budget=None)
    """
    _config["memory_budget"] = None if memory_budget is None else \
        _parse_budget(memory_budget, "memory_budget")


def get_config():
    """The current options, with the memory budget resolved to bytes.

    Examples
    --------
    >>> import weakcvx as wc
    >>> wc.get_config()["memory_budget"] > 0
    True
    """
    return {"memory_budget": memory_budget()}


def memory_budget():
    """The memory budget in bytes (see :func:`set_config`)."""
    if _config["memory_budget"] is not None:
        return _config["memory_budget"]
    env = os.environ.get(ENV_VAR)
    if env:
        return _parse_budget(env, ENV_VAR)
    try:
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        physical = 2 * _DEFAULT_CAP
    return int(min(_DEFAULT_CAP, physical // 2))


def dense_fits(n_rows, n_cols, itemsize=8, copies=1):
    """Whether ``copies`` dense ``n_rows × n_cols`` arrays fit in the memory budget."""
    return copies * int(n_rows) * int(n_cols) * itemsize <= memory_budget()


#: Bytes of one block of kernel values computed at a time where the whole array is not needed
#: (predictions ``k(X, X_fit) β``, InvCal's bag-mean kernel). Larger blocks only cost memory:
#: 30,000 × 20,000 RBF values times a vector took 9.4 s and 2 GiB traced in blocks of 13,000
#: rows (half the budget), 3.1-3.7 s and 31-122 MiB in blocks of 100-400 rows
#: (docs/design.rst §7).
KERNEL_BLOCK_BYTES = 32 * 2**20


def block_rows(n_cols, itemsize=8):
    """Rows of a block of an ``n_cols``-wide array computed at a time: about
    :data:`KERNEL_BLOCK_BYTES`, within half the memory budget, at least 1.

    Examples
    --------
    >>> block_rows(20_000)
    209
    """
    width = itemsize * max(int(n_cols), 1)
    return max(1, min(memory_budget() // (2 * width), KERNEL_BLOCK_BYTES // width))


#: What to do instead of a dense kernel above the memory budget, for a user of the
#: estimators and of the modelling layer (:class:`weakcvx.WeakLabelProblem`) alike.
DENSE_ADVICE = ("Use the linear kernel on the features or on a low-rank factor of the kernel "
                "(estimators: kernel='linear' on sklearn.kernel_approximation.Nystroem features "
                "of X; WeakLabelProblem: features=R from weakcvx.kernels.nystrom or "
                "pivoted_cholesky), fewer points")

#: The same for a user of the estimators, who passes ``X`` and a ``kernel`` name.
ESTIMATOR_ADVICE = ("Use kernel='linear' on the features (for an approximate RBF kernel, on "
                    "sklearn.kernel_approximation.Nystroem features of X), fewer rows")


def check_dense_size(n_rows, n_cols, what="kernel matrix", itemsize=8, copies=1,
                     advice=DENSE_ADVICE):
    """Raise :class:`MemoryBudgetError` when a dense ``n_rows × n_cols`` array would exceed the
    memory budget; the message gives the size and the options.

    Parameters
    ----------
    n_rows, n_cols : int
    what : str
        The array, for the message.
    itemsize : int
    copies : float
        How many such arrays are alive at once at the peak of the computation that needs it
        (a kernel fit holds the kernel, its checks and the solver's workspace: see the
        estimators' ``_fit_kernel_copies``, set from ``tracemalloc`` peaks, docs/design.rst §7).
        The budget bounds that peak, not one array.
    advice : str
        What to do instead, for the message (:data:`DENSE_ADVICE`; the estimators' own
        checks give :data:`ESTIMATOR_ADVICE`); the budget's settings follow it.

    Examples
    --------
    >>> check_dense_size(100, 100)   # 78 KiB: fine
    """
    one = int(n_rows) * int(n_cols) * itemsize
    size = int(copies * one)
    budget = memory_budget()
    if size > budget:
        peak = "" if copies == 1 else (f" at the peak ({copies:g} arrays of "
                                       f"{format_bytes(one)}: the kernel, its checks and the "
                                       "solver's workspace)")
        raise MemoryBudgetError(
            f"Building the dense {n_rows} × {n_cols} {what} needs {format_bytes(size)}{peak}, "
            f"above the memory budget of {format_bytes(budget)}. {advice}, or raise the budget "
            "with "
            f"weakcvx.set_config(memory_budget=...) or the environment variable {ENV_VAR}.")


def check_real(x, name):
    """Refuse complex input: converting it to float64 would keep only its real part (NumPy
    merely warns with a ``ComplexWarning``).

    Parameters
    ----------
    x : array-like, sparse matrix or scalar
    name : str
        The argument's name, for the message.

    Returns
    -------
    x, unchanged.

    Raises
    ------
    ValueError
        When ``x`` has a complex dtype or holds complex Python numbers.

    Examples
    --------
    >>> check_real([1.0, 2.0], "proportions")
    [1.0, 2.0]
    >>> check_real([0.5 + 1j], "proportions")
    Traceback (most recent call last):
    ...
    ValueError: `proportions` must be real-valued. Got complex values (dtype complex128) ...
    """
    dtype = getattr(x, "dtype", None)
    if not isinstance(dtype, np.dtype) or dtype == object:  # pandas extension dtypes too
        if isinstance(x, complex):
            raise ValueError(f"`{name}` must be real-valued. Got the complex number {x!r} "
                             "instead.")
        try:
            dtype = np.asarray(x).dtype
        except (TypeError, ValueError):  # ragged input: the caller's conversion reports it
            return x
        if dtype == object:
            flat = np.asarray(x, dtype=object).ravel()
            if any(isinstance(v, (complex, np.complexfloating)) for v in flat):
                dtype = np.dtype(complex)
    if dtype.kind == "c":
        raise ValueError(f"`{name}` must be real-valued. Got complex values (dtype {dtype}) "
                         "instead; pass the real part (`.real`) explicitly if the imaginary "
                         "part is meant to be dropped.")
    return x


def check_integer(value, name, low):
    """Refuse anything but an integer ``>= low`` (``bool`` included), naming the argument."""
    if isinstance(value, bool) or not isinstance(value, Integral) or value < low:
        raise ValueError(f"`{name}` must be an integer >= {low}. Got {value!r} instead.")


def check_nonnegative(value, name):
    """Refuse anything but a real number ``>= 0`` (NaN and ``bool`` included), naming it."""
    if isinstance(value, bool) or not isinstance(value, Real) or not value >= 0:
        raise ValueError(f"`{name}` must be a non-negative number. Got {value!r} instead.")


def as_real_array(x, name, dtype=float):
    """``np.asarray(x, dtype)`` after :func:`check_real`, with a ValueError naming ``name``
    when ``x`` is not numeric.

    Examples
    --------
    >>> as_real_array([1, 2], "costs")
    array([1., 2.])
    """
    check_real(x, name)
    try:
        return np.asarray(x, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"`{name}` must be numeric. Got {x!r} instead.") from exc


def check_ids(ids, name, what="ids"):
    """Refuse ids that cannot be sorted together (ints mixed with strings) or are complex,
    and return ``np.unique(ids, return_inverse=True)`` with a flat inverse.

    Parameters
    ----------
    ids : ndarray of shape (n,)
    name : str
    what : str
        What the values are, for the message (``"ids"``, ``"class labels"``).

    Returns
    -------
    unique : ndarray
    inverse : ndarray of int, shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> check_ids(np.array([0, 1, "a"], dtype=object), "bags")
    Traceback (most recent call last):
    ...
    ValueError: `bags` must hold ids of one sortable kind (all numbers or all strings). ...
    """
    check_real(ids, name)
    try:
        unique, inverse = np.unique(ids, return_inverse=True)
    except TypeError as exc:
        kinds = sorted({type(v).__name__ for v in np.asarray(ids, dtype=object).ravel()})
        raise ValueError(f"`{name}` must hold {what} of one sortable kind (all numbers or all "
                         f"strings). Got {what} of types {kinds} instead.") from exc
    return unique, inverse.ravel()


def _internal_frame(filename):
    """A frame of weakcvx itself or of scikit-learn's wrappers around ``fit`` (``_fit_context``,
    the output-set wrappers), which a warning's location should skip."""
    return filename.startswith(_PACKAGE_DIRS)


def warn(message, category=UserWarning):
    """``warnings.warn`` at the first frame outside weakcvx and scikit-learn: the user's own
    line, however deep in the package the warning arose (a fixed ``stacklevel`` points into
    scikit-learn's ``_fit_context`` wrapper once ``fit`` is decorated, and into weakcvx when the
    same helper is reached through another caller). So the printed location and filters such
    as ``-W error::UserWarning:__main__`` see the caller's code.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn("look here")
    >>> caught[0].filename.startswith(_PACKAGE_DIRS)
    False
    """
    frame, level = sys._getframe(1), 2
    while frame is not None and _internal_frame(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


def _is_missing(value):
    """None, NaN or ``pandas.NA`` (a missing entry of an object or string column)."""
    if value is None or (isinstance(value, (float, np.floating)) and value != value):
        return True
    return type(value).__name__ == "NAType"


def count_missing(y):
    """Number of missing entries of the array ``y``: NaN and inf in a float array; None, NaN
    and ``pandas.NA`` in an object array; none otherwise."""
    if y.dtype.kind == "f":
        return int(np.sum(~np.isfinite(y)))
    if y.dtype.kind == "O":
        return sum(_is_missing(v) for v in y.ravel())
    return 0


def check_classes(y, name="y"):
    """The sorted distinct class labels of ``y``, refusing what cannot be a class: missing
    entries (None, NaN, ``pandas.NA``: the usual marking of unknown rows in a DataFrame) and
    labels of kinds that do not sort together (numbers mixed with strings).

    Parameters
    ----------
    y : ndarray of shape (n,)
    name : str
        The argument's name, for the message.

    Returns
    -------
    classes : ndarray

    Examples
    --------
    >>> import numpy as np
    >>> check_classes(np.array(["b", "a", "b"], dtype=object)).tolist()
    ['a', 'b']
    >>> check_classes(np.array(["a", None], dtype=object))
    Traceback (most recent call last):
    ...
    ValueError: `y` must not contain missing values (None, NaN or pandas.NA): 1 of 2 entries are missing.
    """
    y = np.asarray(y)
    missing = count_missing(y)
    if missing:
        raise ValueError(f"`{name}` must not contain missing values (None, NaN or pandas.NA): "
                         f"{missing} of {y.size} entries are missing.")
    return check_ids(y, name, what="class labels")[0]


def ravel_column(y, name="y"):
    """``y`` as given, except that a column vector of shape (n, 1) becomes 1-D with a
    :class:`~sklearn.exceptions.DataConversionWarning`, as scikit-learn's classifiers do
    (``column_or_1d(y, warn=True)``); other shapes are left for the caller to refuse.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     ravel_column(np.array([[0], [1], [-1]])).tolist()
    [0, 1, -1]
    >>> caught[0].category.__name__
    'DataConversionWarning'
    """
    from sklearn.exceptions import DataConversionWarning

    if hasattr(y, "shape") or isinstance(y, (list, tuple)):
        try:
            shape = np.shape(y)
        except ValueError:  # a ragged list: the caller's own check refuses it
            return y
        if len(shape) == 2 and shape[1] == 1:
            # scikit-learn's own words, which its estimator checks look for
            warn(f"A column-vector {name} was passed when a 1d array was expected. Please "
                 f"change the shape of {name} to (n_samples, ), for example using ravel().",
                 DataConversionWarning)
            if isinstance(y, (list, tuple)):  # a flat list: the entries keep their types
                return [row[0] for row in y]
            return np.asarray(y).ravel()
    return y


def check_not_continuous(y, name="y"):
    """Refuse a regression target given to a classifier: a float ``y`` whose values are not
    all integers (scikit-learn's ``type_of_target`` "continuous"), with the message prefix
    scikit-learn's classifiers use ("Unknown label type").

    Examples
    --------
    >>> import numpy as np
    >>> check_not_continuous(np.array([0.0, 1.0, -1.0]))
    >>> check_not_continuous(np.array([0.5, 1.25, 2.0]))
    Traceback (most recent call last):
    ...
    ValueError: Unknown label type: continuous. `y` must hold class labels; got non-integer floats such as 0.5.
    """
    y = np.asarray(y)
    if y.dtype.kind != "f":
        return
    finite = y[np.isfinite(y)]
    fractional = finite[finite != np.round(finite)]
    if fractional.size:
        raise ValueError(f"Unknown label type: continuous. `{name}` must hold class labels; "
                         f"got non-integer floats such as {fractional[0]:g}.")


def validate_X(estimator, X, **kwargs):
    """:func:`sklearn.utils.validation.validate_data` for the samples ``X``, with every error
    naming the argument (``"`X`: ..."``) and non-numeric input reported as such. Dense ``X``
    comes back C-ordered (``order="C"`` unless given): the same values in Fortran order (a
    pandas DataFrame's block, ``np.asfortranarray``) rounded the kernel products differently,
    which moved the non-convex searches (MultiInstanceSVM: another local optimum on 4 of 6
    musk1 draws)."""
    from sklearn.utils.validation import validate_data

    kwargs.setdefault("order", "C")
    try:
        return validate_data(estimator, X, **kwargs)
    except ValueError as exc:
        if "could not convert" in str(exc):
            raise ValueError(f"`X` must be numeric (convertible to float64). Got an array of "
                             f"dtype {np.asarray(X).dtype}: {exc}") from exc
        raise ValueError(f"`X`: {exc}") from exc


def constant_columns(var, mean, n_samples):
    """Columns whose variance is within rounding of 0 (scikit-learn StandardScaler's bound).

    A column that is constant in the data can have a computed variance of ~1e-32 instead of 0
    (the mean is rounded), and dividing by its ~1e-16 deviation turns rounding noise into a
    feature of scale 1 (37 of the Elephant benchmark's 120 constant columns in one training
    fold). Such columns are left unscaled: they become 0 after centring.
    """
    eps = np.finfo(np.float64).eps
    return var <= n_samples * eps * var + (n_samples * mean * eps) ** 2


def standardize_columns(X):
    """``(X - mean) / std`` per column, with constant columns (:func:`constant_columns`) set
    to 0 rather than divided by ~0."""
    mean, var = X.mean(axis=0), X.var(axis=0)
    constant = constant_columns(var, mean, X.shape[0])
    centred = X - mean
    centred[:, constant] = 0.0
    return centred / np.where(constant, 1.0, np.sqrt(var))
