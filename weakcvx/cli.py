"""The ``weakcvx`` command: ``weakcvx compare`` (the ladder of bounds) and ``weakcvx bench``."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import warnings
import zipfile

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ._validation import standardize_columns
from .ladder import EXACT_TIME_LIMIT  # default --time-limit of the exact rung

__all__ = ["main"]

SYNTHETIC = ("two-moons", "blobs", "gap-clusters")


def _datasets():
    """Built-in problems: the generators, then every shipped UCI set (subsampled)."""
    from .datasets import list_uci

    return SYNTHETIC + tuple(list_uci())


def _uci_subsample(name, n, n_labeled, seed):
    """``n`` points of a shipped UCI set drawn at random (stratified), ``n_labeled`` of them
    labeled (at least one per class), standardized features; ±1 labels. Also the drawn rows'
    indices in the set and its two class names (for -1 and +1)."""
    from sklearn.model_selection import train_test_split

    from .datasets import load_uci

    X, y = load_uci(name)
    if not 4 <= n <= len(y):
        raise ValueError(f"`--n` must be between 4 and {len(y)} for {name!r}. Got {n}.")
    rows = np.arange(len(y))
    if n < len(y):
        X, _, y, _, rows, _ = train_test_split(X, y, rows, train_size=n, stratify=y,
                                               random_state=seed)
    classes = [str(c) for c in np.unique(y)]
    y_true = np.where(y == np.unique(y)[1], 1.0, -1.0)
    rng = np.random.default_rng(seed)
    first = [rng.choice(np.flatnonzero(y_true == s)) for s in (1.0, -1.0)]
    rest = rng.permutation(np.setdiff1d(np.arange(n), first))[: max(0, n_labeled - 2)]
    y_known = np.zeros(n)
    lab = np.concatenate([first, rest]).astype(int)
    y_known[lab] = y_true[lab]
    return X, y_true, y_known, rows, classes


class DataFileError(ValueError):
    """A user's data file that cannot be turned into a semi-supervised problem."""


def _column_index(name_or_index, header, n_columns, path):
    """Index of the label column given by name (CSV header, NPZ key) or by position."""
    if header is not None and name_or_index in header:
        return header.index(name_or_index)
    try:
        index = int(name_or_index)
    except ValueError:
        columns = f"columns are {', '.join(header)}" if header else f"{n_columns} unnamed columns"
        raise DataFileError(f"label column {name_or_index!r} not found in {path} ({columns})")
    if not -n_columns <= index < n_columns:
        raise DataFileError(f"label column {index} out of range: {path} has {n_columns} columns")
    return index % n_columns


def _read_csv(path, label_column, notes=None):
    """Features (float) and labels (str) from a CSV file, with or without a header row.

    A header whose first cell is empty is the index column of ``pandas.DataFrame.to_csv``: that
    column is left out (label column positions count without it), the file read as if written
    with ``index=False``. What was left out, or a numeric first row taken for a header, is
    said in one line appended to ``notes`` (a list)."""
    import csv

    if label_column is None:
        label_column = "-1"
    notes = [] if notes is None else notes

    # utf-8-sig: a spreadsheet's "CSV UTF-8" starts with a byte-order mark, which would
    # otherwise stick to the first cell (a header name not found, a first data row taken
    # for a header and dropped)
    with open(path, newline="", encoding="utf-8-sig") as fh:
        rows = [row for row in csv.reader(fh) if row and any(cell.strip() for cell in row)]
    if not rows:
        raise DataFileError(f"{path} holds no rows")
    _check_commas(path, rows[0])
    first = [cell.strip() for cell in rows[0]]
    # pandas' index: an empty first header cell (a data row with an empty first cell is a
    # missing value, refused below: its other cells are numbers, no header)
    kind = (_header_kind(first[1:], label_column, [row[1:] for row in rows])
            if len(first) > 1 and not first[0] else None)
    index = kind is not None
    kind = kind or _header_kind(first, label_column, rows)
    header, rows = (first, rows[1:]) if kind else (None, rows)
    if not rows:
        raise DataFileError(f"{path} holds a header row but no data rows")
    width = len(header or rows[0])
    bad = [i for i, row in enumerate(rows) if len(row) != width]
    if bad:
        raise DataFileError(f"{path}: line {bad[0] + 1 + (header is not None)} of the file "
                            f"(data row {bad[0]}, counting from 0) has {len(rows[bad[0]])} "
                            f"fields, expected {width}")
    if index:
        header, rows, width = header[1:], [row[1:] for row in rows], width - 1
        by_position = str(label_column).lstrip("+").isdigit() and label_column not in header
        notes.append("the first column (empty header: pandas' index) left out"
                     + ("; --label-column positions count without it" if by_position else ""))
    if kind == "numbers":
        notes.append(f"first row {','.join(header)!r} (pandas' column numbers) read as the "
                     "header")
    try:
        col = _column_index(label_column, header, width, path)
    except DataFileError as exc:
        left_out = ("; its first column (empty header: pandas' index) is left out" if index
                    else "")
        raise DataFileError(f"{exc}{left_out}") from None
    labels = np.array([row[col].strip() for row in rows])
    try:
        X = np.array([[float(c) for j, c in enumerate(row) if j != col] for row in rows])
    except ValueError:
        raise DataFileError(_not_a_number(path, rows, header, col)) from None
    return X, labels


def _header_kind(first, label_column, rows):
    """How the stripped cells ``first`` of the first row of ``rows`` read: ``'names'`` (a header
    row of names), ``'numbers'`` (a header of column numbers, as ``pandas.DataFrame(X)`` names
    its columns) or None (a data row)."""
    try:
        label_index = int(label_column) % len(first)
    except ValueError:  # a column name: the row that holds it is the header
        if label_column in first:
            return "names"
        label_index = None
    # a header row is one whose *feature* cells are not numbers: the label cell does not
    # count, since labels may be words ("benign", "?") in a file without a header, and *none*
    # of them is a number: a data row with one missing or mistyped value ("?", "NA") is data,
    # to be refused later, not a header to drop
    features = [cell for j, cell in enumerate(first) if cell and j != label_index]
    if features and not any(_is_number(cell) for cell in features):
        return "names"
    # every cell its own 0-based position: pandas' numbered header ("0,1,2"), whatever the
    # label cell ("2" may also be a class: classes 1/2 with -1 for unknown)
    if first == [str(j) for j in range(len(first))]:
        return "numbers"
    if label_index is not None and _numbered_header(features, first[label_index], rows,
                                                    label_index):
        return "numbers"
    return None


def _check_commas(path, first):
    """Refuse a file whose first row is a single field holding semicolons or tabs: a file
    separated by them (a spreadsheet's export in a locale with decimal commas), which the
    csv reader sees as one column."""
    separators = [name for sep, name in ((";", "semicolons"), ("\t", "tabs"))
                  if sep in first[0]]
    if len(first) == 1 and separators:
        raise DataFileError(f"{path}: only comma-separated files are read, and its first row "
                            f"is a single field with {' and '.join(separators)} "
                            f"({first[0][:40]!r}); save it with commas between the fields")


def _not_a_number(path, rows, header, label_col):
    """The message for the first feature cell of ``rows`` that is not a number: its line in
    the file (header counted) and data row (from 0, as ``--labels-out`` counts), and its
    column (name, or position from 0, as ``--label-column`` counts)."""
    for i, row in enumerate(rows):
        for j, cell in enumerate(row):
            if j == label_col or _is_number(cell):
                continue
            column = repr(header[j]) if header is not None else f"{j} (counting from 0)"
            where = (f"line {i + 1 + (header is not None)} of the file (data row {i}, counting "
                     f"from 0), column {column}")
            what = "is empty (a missing value)" if not cell.strip() else f"holds {cell!r}"
            hint = ("; only comma-separated files are read (decimal commas? semicolons or tabs "
                    "between the fields?)" if any(sep in cell for sep in ";\t") else "")
            return f"{path}: feature columns must be numbers: {where} {what}{hint}"
    return f"{path}: feature columns must be numbers"


def _read_npz(path, label_column):
    """Features and labels from an NPZ file: arrays ``X`` and the label array named
    ``label_column``, or one 2-D array whose column ``label_column`` holds the labels.
    Without ``label_column`` (None): the file's only 1-D array if it has one, else the last
    column of its single 2-D array."""
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    if label_column is None:
        vectors = [k for k, a in arrays.items() if a.ndim == 1]
        if len(vectors) > 1:
            raise DataFileError(f"{path} holds several 1-D arrays ({', '.join(sorted(vectors))})"
                                "; name the label array with --label-column")
        label_column = vectors[0] if vectors else "-1"
    if label_column in arrays and arrays[label_column].ndim == 1:
        labels = arrays[label_column]
        others = [k for k, a in arrays.items() if a.ndim == 2]
        key = "X" if "X" in arrays else (others[0] if len(others) == 1 else None)
        if key is None:
            raise DataFileError(f"{path}: expected a 2-D feature array 'X' beside "
                                f"{label_column!r}; found arrays {sorted(arrays)}")
        X = arrays[key]
    else:
        matrices = [k for k, a in arrays.items() if a.ndim == 2]
        if len(matrices) != 1:
            raise DataFileError(f"label column {label_column!r} not found in {path} (arrays "
                                f"{sorted(arrays)}; give the name of a 1-D label array, or "
                                "a column index of its single 2-D array)")
        table = arrays[matrices[0]]
        col = _column_index(label_column, None, table.shape[1], path)
        labels, X = table[:, col], np.delete(table, col, axis=1)
    if len(X) != len(labels):
        raise DataFileError(f"{path}: {len(X)} feature rows but {len(labels)} labels")
    try:
        X = np.asarray(X, dtype=float)
    except ValueError as exc:
        raise DataFileError(f"{path}: features must be numbers ({exc})") from None
    return X, np.array([str(v).strip() for v in labels])


def load_data_file(path, label_column, unknown, n=None, seed=0, return_rows=False, notes=None):
    """A user's CSV/NPZ file as ``(X, y_known, classes)`` for a semi-supervised problem
    (``(X, y_known, classes, rows)`` with ``return_rows``: the 0-based data-row numbers kept,
    in file order, header not counted).

    Rows whose label equals ``unknown`` (compared as text, or as numbers when both parse) are
    unlabeled; the other labels must form exactly two classes, the first in sorted order
    becoming -1 and the second +1 (an empty label cell is no class: with ``unknown`` other
    than '' it is refused). ``label_column`` None means the last CSV column, or an NPZ
    file's only 1-D array (else the last column of its single 2-D array). A CSV header whose
    first cell is empty (pandas' index) has that column left out. Features are standardized.
    With ``n``, ``n`` rows are drawn at random (``seed``). What the reader left out or took
    for a header is said in one-line notes appended to ``notes`` (a list). Raises
    :class:`DataFileError` (a ``ValueError``) with a one-line message for anything that does
    not fit.
    """
    try:
        if str(path).lower().endswith(".npz"):
            X, labels = _read_npz(path, label_column)
        else:
            X, labels = _read_csv(path, label_column, notes)
    except DataFileError:
        raise
    except (OSError, UnicodeDecodeError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise DataFileError(f"cannot read {path}: {exc}") from None
    if X.ndim != 2 or X.shape[1] == 0:
        raise DataFileError(f"{path}: no feature columns beside the label column")
    if not np.all(np.isfinite(X)):
        raise DataFileError(f"{path}: features contain NaN or inf")

    def same(a, b):
        try:
            fa, fb = float(a), float(b)
            return fa == fb or (np.isnan(fa) and np.isnan(fb))
        except ValueError:
            return a == b

    unlabeled = np.array([same(v, str(unknown)) for v in labels])
    classes = _two_classes(path, labels, unlabeled, unknown)
    rows = np.arange(len(labels))
    if n is not None:
        if not 4 <= n <= len(labels):
            raise DataFileError(f"--n must be between 4 and {len(labels)} for {path}; got {n}")
        keep = np.sort(np.random.default_rng(seed).permutation(len(labels))[:n])
        # a subset may lose a class or every unknown row: say that --n drew it
        drawn = _drawn(n, seed, classes, (labels, unlabeled), (labels[keep], unlabeled[keep]))
        X, labels, unlabeled, rows = X[keep], labels[keep], unlabeled[keep], rows[keep]
        classes = _two_classes(path, labels, unlabeled, unknown, drawn)
    y_known = np.where(unlabeled, 0.0, np.where(labels == classes[1], 1.0, -1.0))
    X = standardize_columns(X)
    return (X, y_known, classes, rows) if return_rows else (X, y_known, classes)


def _two_classes(path, labels, unlabeled, unknown, drawn=""):
    """The two class names of the known ``labels`` (those not ``unlabeled``), sorted (numbers
    by value); a :class:`DataFileError` unless they are two, none is empty and some row is
    unknown. ``drawn``: how ``--n`` drew these rows (:func:`_drawn`), added to the message."""
    classes = sorted(set(labels[~unlabeled].tolist()), key=lambda v: (_as_number(v), v))
    empty = int(np.sum((labels == "") & ~unlabeled))
    if empty:  # pandas writes a missing label (NaN) as an empty cell
        rows = f"{empty} rows have" if empty > 1 else "1 row has"
        raise DataFileError(f"{path}: {rows} an empty label cell, which names no "
                            "class (pandas writes a missing label, NaN, as an empty cell); to "
                            f"mark them unknown give --unknown '' (rows marked {unknown!r} are "
                            f"unknown now; known labels found: {classes[:10]})")
    if len(classes) != 2:
        raise DataFileError(f"{path}: the known labels must form exactly two classes (rows "
                            f"marked {unknown!r} are unknown); found {classes[:10]}{drawn}")
    if not unlabeled.any():
        raise DataFileError(f"{path}: no row is marked unknown ({unknown!r}); nothing to "
                            f"learn{drawn}")
    return classes


def _drawn(n, seed, classes, whole, part):
    """The part of a message saying that ``--n`` drew the rows ``part`` from ``whole`` (each a
    pair: labels, unlabeled mask), with the rows of each class and the unknown rows in both;
    '' when ``--n`` kept every row."""
    if len(part[0]) == len(whole[0]):
        return ""

    def counts(labels, unlabeled):
        return [int(np.sum((labels == c) & ~unlabeled)) for c in classes] + [int(unlabeled.sum())]

    (a, b, u), (wa, wb, wu) = counts(*part), counts(*whole)
    return (f"; --n {n} drew {n} of the file's {len(whole[0])} rows (--seed {seed}): {a} "
            f"labeled {classes[0]!r}, {b} labeled {classes[1]!r} and {u} unknown, against "
            f"{wa}, {wb} and {wu} in the whole file; give a larger --n or another --seed")


def _numbered_header(features, label, rows, label_index):
    """Whether a first row whose feature cells are numbers is still a header: the columns
    numbered in order from 0 or 1 (``pandas.DataFrame(X).to_csv``), at least two of them, and
    a label cell that is no number and no other row's label (a data row's label names a class
    that other rows share). A header numbering every column from 0, the label cell included,
    is recognised by :func:`_header_kind` before this."""
    try:
        numbers = [int(cell) for cell in features]
    except ValueError:
        return False
    if len(numbers) < 2 or numbers[0] not in (0, 1) or \
            numbers != list(range(numbers[0], numbers[0] + len(numbers))):
        return False
    others = {row[label_index].strip() for row in rows[1:] if len(row) > label_index}
    return not _is_number(label) and label not in others


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def _as_number(v):
    try:
        return float(v)
    except ValueError:
        return float("inf")


def _build_problem(args, notes=None):
    """The problem the options describe, the input row number of each of its points, and the
    class names that the labels -1 and +1 stand for. ``notes`` (a list) receives what the
    data file's reader left out or took for a header, one line each."""
    import weakcvx as wc

    if args.data is not None:
        X, y_known, classes, rows = load_data_file(args.data, args.label_column, args.unknown,
                                                   n=args.n, seed=args.seed, return_rows=True,
                                                   notes=notes)
        gamma = args.gamma if args.gamma is not None else "mean_distance"
        C = 1.0 if args.C is None else args.C
        K = wc.kernels.rbf(X, gamma=gamma)
        name = (f"{args.data}: {len(X)} rows, {int(np.sum(y_known != 0))} labeled "
                f"(-1 = {classes[0]!r}, +1 = {classes[1]!r}){_loss_words(args)}")
        labelset = wc.labelsets.SemiSupervised(y_known, check_convention=False)
        problem = wc.WeakLabelProblem(K, labelset, formulation=_formulation(args, C), name=name)
        return problem, rows, classes
    if args.n is None:
        args.n = 16
    if args.dataset != "blobs" and args.labeled > args.n:
        raise ValueError(f"--labeled must be at most --n ({args.n}); got {args.labeled}")

    rng_seed = args.seed
    rows, classes = np.arange(args.n), ["-1", "+1"]
    if args.dataset == "two-moons":
        X, y_true, y_known = wc.datasets.make_two_moons(args.n, n_labeled=args.labeled,
                                                        random_state=rng_seed)
        gamma = 2.0 if args.gamma is None else args.gamma  # Chapelle et al. 2006: sigma = 0.5
        C = 10.0 if args.C is None else args.C
        labelset = wc.labelsets.SemiSupervised(y_known, check_convention=False)
        name = f"two moons, n={args.n}, {args.labeled} labeled, RBF gamma={gamma:g}, C={C:g}"
    elif args.dataset == "gap-clusters":
        X, y_true, y_known = wc.datasets.make_gap_clusters(args.n, n_labeled=args.labeled,
                                                           random_state=rng_seed)
        gamma = args.gamma if args.gamma is not None else "mean_distance"
        C = 1.0 if args.C is None else args.C
        labelset = wc.labelsets.SemiSupervised(y_known, check_convention=False)
        name = f"gap clusters, n={args.n}, {args.labeled} labeled"
    elif args.dataset == "blobs":
        X, y_true = wc.datasets.make_clustering_blobs(args.n, random_state=rng_seed)
        y_known = np.zeros(args.n)
        gamma = args.gamma if args.gamma is not None else "mean_distance"
        C = 1.0 if args.C is None else args.C
        labelset = wc.labelsets.Clustering(args.n, max(0.1 * args.n, args.n % 2))
        name = f"clustering blobs, n={args.n}"
    else:
        X, y_true, y_known, rows, classes = _uci_subsample(args.dataset, args.n, args.labeled,
                                                           rng_seed)
        gamma = args.gamma if args.gamma is not None else "mean_distance"
        C = 1.0 if args.C is None else args.C
        labelset = wc.labelsets.SemiSupervised(y_known, check_convention=False)
        name = f"UCI {args.dataset}, n={args.n} (subsampled), {args.labeled} labeled"
    K = wc.kernels.rbf(X, gamma=gamma)
    return wc.WeakLabelProblem(K, labelset, formulation=_formulation(args, C), y_true=y_true,
                               name=name + _loss_words(args)), rows, classes


def _loss_words(args):
    """The end of a problem's name for ``--loss`` other than the hinge and ``--offset`` (the
    title, the CSV's problem column and the JSON tell such runs from hinge runs)."""
    loss = getattr(args, "loss", "hinge")
    words = ([] if loss == "hinge" else [f"{loss} loss"]) + \
        (["offset"] if getattr(args, "offset", False) else [])
    return "".join(f", {w}" for w in words)


def _formulation(args, C):
    """The inner problem of ``--loss`` and ``--offset`` (docs/formulations.rst)."""
    from . import formulations

    loss = getattr(args, "loss", "hinge")
    cls = formulations.SquaredHinge if loss == "squared-hinge" else formulations.Hinge
    return cls(C=C, offset=bool(getattr(args, "offset", False)))


def _ignored_options(args):
    """Options given on the command line that the chosen problem does not use."""
    ignored = []
    if args.data is None:
        ignored += [f"--{name.replace('_', '-')} applies with --data only"
                    for name in ("label_column", "unknown") if getattr(args, name) is not None]
    if args.labeled is not None and args.data is not None:
        ignored.append("--labeled does not apply with --data (the file's labels are used)")
    elif args.labeled is not None and args.dataset == "blobs":
        ignored.append("--labeled does not apply to blobs (clustering: no labels)")
    return ignored


#: ``--methods`` names: the rungs of :func:`weakcvx.ladder.compare` (display name, method,
#: options), in the order of the default ladder.
RUNGS = {
    "sdp": ("sdp", "sdp", {}),
    "label_generation": ("label_generation", "label_generation", {}),
    "label_generation_exact": ("label_generation (exact oracle)", "label_generation",
                               {"oracle": "exact"}),
    "exact": ("exact", "exact", {}),
    "alternating": ("alternating", "alternating", {}),
}


def _check_outputs(args):
    """An error message for an output option that cannot be written, else None."""
    for option in ("csv", "json", "plot", "labels_out"):
        target = getattr(args, option)
        flag = "--" + option.replace("_", "-")
        parent = os.path.dirname(os.path.abspath(target)) if target else None
        if parent and not os.path.isdir(parent):
            return f"cannot write {flag} {target}: no directory {parent}"
        if target and os.path.isdir(target):
            return f"cannot write {flag} {target}: it is a directory"
    if args.plot and _plot_format(args.plot) is None:
        from matplotlib.backend_bases import FigureCanvasBase

        return (f"cannot write --plot {args.plot}: unknown image format; use one of "
                f".{', .'.join(sorted(FigureCanvasBase.get_supported_filetypes()))}")
    return None


def _check_compare_args(args):
    """Fill the defaults of ``compare``; an error message for an inconsistent choice."""
    if args.data is not None and args.dataset is not None:
        return (f"give either --dataset or --data, not both (got --dataset {args.dataset} and "
                f"--data {args.data})")
    for message in _ignored_options(args):
        print(f"weakcvx compare: note: {message}; ignored", file=sys.stderr)
    args.dataset = "two-moons" if args.dataset is None else args.dataset
    args.labeled = 2 if args.labeled is None else args.labeled
    args.unknown = "?" if args.unknown is None else args.unknown
    if args.n is not None and args.n < 4:
        return f"--n must be at least 4 (got {args.n})"
    if args.data is None and args.dataset not in _datasets():
        return (f"unknown dataset {args.dataset!r}; choose from {', '.join(_datasets())}, or "
                "give your own file with --data")
    if args.labels_from is not None and args.labels_from not in RUNGS:
        return f"--labels-from expects one of {', '.join(RUNGS)}; got {args.labels_from!r}"
    if args.methods is not None:
        names = [m.strip() for m in args.methods.split(",") if m.strip()]
        unknown = [m for m in names if m not in RUNGS]
        if unknown or not names or len(set(names)) != len(names):
            return (f"--methods expects distinct names from {', '.join(RUNGS)}, separated by "
                    f"commas; got {args.methods!r}")
        args.methods = names
        if args.labels_from is not None and args.labels_from not in names:
            return (f"--labels-from {args.labels_from} is not among --methods "
                    f"({', '.join(names)})")
    if args.data is None and args.dataset != "blobs" and args.labeled < 2:
        return f"--labeled must be at least 2 (got {args.labeled})"
    return _check_outputs(args)


def _cmd_compare(args):
    import weakcvx as wc

    message = _check_compare_args(args)
    if message is not None:
        print(f"weakcvx compare: {message}", file=sys.stderr)
        return 2
    notes = []
    try:
        problem, rows, classes = _build_problem(args, notes)
    except ValueError as exc:
        print(f"weakcvx compare: {exc}", file=sys.stderr)
        return 2
    print(f"{problem!r}", flush=True)
    for note in notes:  # what the data file's reader left out or took for a header
        print(f"note: {note}", flush=True)
    from .estimators._base import verbose_logging

    # progress on stderr: each method as it starts and ends, the branch and bound every second
    # (every 5 s after 10 s)
    verbose = 0 if args.quiet else 1 + args.verbose
    methods = None if args.methods is None else [RUNGS[m] for m in args.methods]
    iteration = {k: v for k, v in (("max_iter", args.max_iter), ("tol", args.tol))
                 if v is not None}
    # a solver stopped early is listed under the table ("note [exact]: ..."), not as a warning
    with verbose_logging(verbose), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        table = wc.ladder.compare(problem, methods=methods, random_state=args.seed,
                                  verbose=verbose, time_limit=args.time_limit,
                                  method_options={"label_generation": iteration,
                                                  "alternating": iteration})
    print(table)
    rung = _labels_rung(table, args.labels_from)
    if rung is None and (args.labels_out or args.labels_from):
        wanted = args.labels_from or "any rung"
        print(f"weakcvx compare: no labels to write: {wanted} produced none", file=sys.stderr)
        return 1
    try:
        _save_outputs(args, problem, table, _labels_record(problem, rung, rows, classes))
    except OSError as exc:  # checked up front; what remains: permissions, a full disk
        print(f"weakcvx compare: cannot write {exc.filename or ''}: {exc.strerror or exc}",
              file=sys.stderr)
        return 2
    # Ctrl-C: compare returned the rungs finished so far, printed above (exit code of SIGINT)
    return 130 if table.interrupted else 0


def _labels_rung(table, labels_from):
    """The rung whose labels are reported: ``--labels-from`` (a ``--methods`` name or a
    rung's display name), else the rung with the lowest J(labels)."""
    if labels_from is None:
        return table.best_rung
    name = RUNGS[labels_from][0] if labels_from in RUNGS else labels_from
    try:
        rung = table[name]
    except KeyError:
        return None
    return rung if rung.result is not None else None


def _labels_record(problem, rung, rows, classes):
    """The inferred labels as a JSON-ready dict: for each input row its number, its label in
    the user's class names, and whether it was labeled in the input; None without a rung."""
    if rung is None:
        return None
    labels = np.asarray(rung.result.labels)
    y_known = getattr(problem.labelset, "y_known", np.zeros(len(labels)))
    return {"rung": rung.name, "J_labels": float(rung.result.upper_bound),
            "classes": {"-1": classes[0], "+1": classes[1]},
            "rows": [int(r) for r in rows],
            "labels": [classes[1] if v > 0 else classes[0] for v in labels],
            "labeled": [bool(v != 0) for v in y_known]}


def _plot_format(path):
    """The image format of ``--plot PATH`` (its extension; PNG without one), None if unknown."""
    from matplotlib.backend_bases import FigureCanvasBase

    extension = os.path.splitext(path)[1][1:].lower()
    if not extension:
        return "png"
    return extension if extension in FigureCanvasBase.get_supported_filetypes() else None


def _save_outputs(args, problem, table, labels):
    """The files asked for with --plot, --json, --csv and --labels-out."""
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig = table.plot()
        # an explicit format: without an extension matplotlib would write PATH.png instead
        fig.savefig(args.plot, dpi=120, format=_plot_format(args.plot))
        plt.close(fig)
        print(f"plot saved to {args.plot}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({**table.to_dict(), "labels": labels}, fh, indent=2)
        print(f"results saved to {args.json}")
    if args.csv:
        _write_csv(args.csv, table)
        print(f"table saved to {args.csv}")
    if args.labels_out:
        _write_labels(args.labels_out, labels)
        print(f"labels of {labels['rung']} (J(labels) {labels['J_labels']:.5g}) saved to "
              f"{args.labels_out}")


def _write_csv(path, table):
    """``--csv``: the table, one row per rung (:meth:`LadderTable.to_csv`)."""
    table.to_csv(path)


def _write_labels(path, labels):
    """``--labels-out``: one CSV row per input row: row, label, labeled (yes/no), rung."""
    import csv

    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["row", "label", "labeled", "rung"])
        for row, label, known in zip(labels["rows"], labels["labels"], labels["labeled"]):
            writer.writerow([row, label, "yes" if known else "no", labels["rung"]])


def _cmd_bench(args):
    from .bench import BENCHMARKS, run_benchmark

    if args.name != "all":
        for option in ("output", "only"):
            if getattr(args, option) is not None:
                print(f"weakcvx bench: note: --{option} applies to 'weakcvx bench all' only; "
                      "ignored", file=sys.stderr)
    if args.name == "list":
        for name, (_, doc) in sorted(BENCHMARKS.items()):
            print(f"{name:<12} {doc}")
        return 0
    if args.name == "all":
        from .bench.report import run_all

        only = args.only.split(",") if args.only else None
        if only and any(n not in BENCHMARKS for n in only):
            print(f"weakcvx bench all: --only expects names from {', '.join(sorted(BENCHMARKS))}"
                  f"; found {args.only!r}", file=sys.stderr)
            return 2
        output = args.output or "REPRODUCTION.md"
        status = run_all(quick=args.quick, path=output, only=only)
        print(f"report written to {output}")
        return 1 if any(s["error"] for s in status.values()) else 0
    if args.name not in BENCHMARKS:
        print(f"weakcvx bench: unknown benchmark {args.name!r}; choose from "
              f"{', '.join(sorted(BENCHMARKS))}", file=sys.stderr)
        return 2
    run_benchmark(args.name, quick=args.quick)
    return 0


def _time_limit(text):
    """``--time-limit``: a positive number of seconds, or 'none'."""
    if text.strip().lower() == "none":
        return None
    try:
        return _positive(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds or 'none'; got "
                                         f"{text!r}") from None


def _positive(text):
    """``--C``, ``--gamma``: a positive finite number."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: must be a positive finite "
                                         "number")
    return value


def _seed(text):
    """``--seed``: an integer in [0, 2**32 - 1] (NumPy's seeds)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value < 2**32:
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: must be an integer in "
                                         "[0, 2**32 - 1]")
    return value


def _positive_int(text):
    """``--max-iter``: a positive integer."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: must be a positive integer")
    return value


def _add_compare_parser(sub):
    p = sub.add_parser("compare", help="run every method on one problem and print the ladder "
                       "of bounds (SDP <= convex hull <= optimum <= J(labels))")
    p.add_argument("--dataset", default=None, metavar="NAME",
                   help="built-in problem: two-moons (default), blobs (clustering), "
                   "gap-clusters, or a shipped UCI set subsampled to --n points ("
                   + ", ".join(_datasets()[len(SYNTHETIC):]) + ")")
    p.add_argument("--data", metavar="FILE", default=None,
                   help="your own data instead of --dataset: a CSV file (header row optional; "
                   "a first column with an empty header, pandas' index, is left out) "
                   "or an NPZ file; features are numeric columns, one column holds the labels "
                   "(two classes, and the --unknown marker for unlabeled rows); features are "
                   "standardized, RBF kernel with gamma = 1 / mean squared distance")
    p.add_argument("--label-column", metavar="NAME_OR_INDEX", default=None,
                   help="with --data: the label column, by header name or 0-based index "
                   "(default -1, the last column); for NPZ the name of a 1-D label array "
                   "beside a 2-D array 'X' (default: the file's only 1-D array), or a column "
                   "of the file's single 2-D array")
    p.add_argument("--unknown", metavar="MARKER", default=None,
                   help="with --data: the label value of unlabeled rows (default '?'; e.g. "
                   "0, -1, nan, or '' for empty cells: pandas writes NaN to CSV as an empty "
                   "cell)")
    p.add_argument("--n", type=int, default=None,
                   help="number of points (default 16 for built-in problems; with --data, "
                   "every row unless --n draws a random subset)")
    p.add_argument("--labeled", type=int, default=None,
                   help="labeled points of a built-in semi-supervised problem, at most --n "
                   "(default 2; not for blobs or --data)")
    p.add_argument("--seed", type=_seed, default=0, help="random seed (default 0)")
    p.add_argument("--C", type=_positive, default=None,
                   help="SVM cost (default: per dataset)")
    p.add_argument("--loss", choices=("hinge", "squared-hinge"), default="hinge",
                   help="the inner large-margin problem: the hinge (WellSVM's SVM, default) or "
                        "the squared hinge (docs: Formulations)")
    p.add_argument("--offset", action="store_true",
                   help="add an offset through the regularised constant kernel K + 11'")
    p.add_argument("--gamma", type=_positive, default=None,
                   help="RBF width (default: per dataset)")
    p.add_argument("--methods", metavar="A,B", default=None,
                   help="the rungs to run, comma-separated, from " + ", ".join(RUNGS)
                   + " (label_generation_exact: label generation with the exact oracle, "
                   "tiny problems); default: every rung the problem's size allows, the others "
                   "listed as skipped")
    p.add_argument("--max-iter", type=_positive_int, default=None, metavar="N",
                   help="iteration limit of label_generation (cutting-plane rounds) and "
                   "alternating (default: each method's own)")
    p.add_argument("--tol", type=_positive, default=None,
                   help="stopping tolerance of label_generation (relative decrease of the "
                   "master value) and alternating (default: each method's own)")
    p.add_argument("--time-limit", metavar="SECONDS", type=_time_limit,
                   default=EXACT_TIME_LIMIT,
                   help="time limit of the exact method (branch and bound), default "
                   f"{EXACT_TIME_LIMIT:g}; 'none' for no limit. When it stops the search the "
                   "best labeling found is reported, status time_limit (not proven optimal); "
                   "its value column holds the search's certified lower bound")
    p.add_argument("--plot", metavar="FILE", default=None,
                   help="save the ladder plot (PNG; PDF, SVG, ... by the file's extension)")
    p.add_argument("--json", metavar="FILE", default=None,
                   help="save the table and the inferred labels as JSON")
    p.add_argument("--csv", metavar="FILE", default=None,
                   help="save the table as CSV (one row per method)")
    p.add_argument("--labels-out", metavar="FILE", default=None,
                   help="save the inferred labels as CSV, one row per input row: row (0-based "
                   "data row of the file, header not counted), label (in the file's own class "
                   "names), labeled (yes: given in the input), rung (the method that produced "
                   "them)")
    p.add_argument("--labels-from", metavar="RUNG", default=None,
                   help="the rung whose labels --labels-out and --json report (a --methods "
                   "name); default the rung with the lowest J(labels)")
    p.add_argument("-v", "--verbose", action="count", default=0,
                   help="more progress output (the solvers' own progress lines)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress lines on stderr (by default each method is logged as it "
                   "starts and ends, and the branch and bound every second, every "
                   "5 s after 10 s)")
    p.set_defaults(func=_cmd_compare)


def _add_bench_parser(sub):
    b = sub.add_parser("bench", help="run a benchmark ('weakcvx bench list' lists them; "
                       "'weakcvx bench all' runs them all and writes REPRODUCTION.md)")
    b.add_argument("name", help="benchmark name, 'list', or 'all'")
    b.add_argument("--quick", action="store_true", help="smaller sizes (minutes)")
    b.add_argument("--output", default=None, metavar="FILE",
                   help="with 'all': the report to write (default REPRODUCTION.md; outputs "
                   "and plots go to reproduction/quick or reproduction/full)")
    b.add_argument("--only", default=None, metavar="A,B",
                   help="with 'all': re-run only these benchmarks (the report keeps the "
                   "stored results of the others)")
    b.set_defaults(func=_cmd_bench)


def _parser():
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="weakcvx",
        description="Weakly labeled large-margin learning and the ladder of bounds.",
        epilog="examples:\n"
        "  weakcvx compare --dataset two-moons --plot ladder.png\n"
        "  weakcvx compare --data mine.csv --label-column label --unknown ? --csv ladder.csv\n"
        "  weakcvx compare --data mine.csv --labels-out labels.csv\n"
        "  weakcvx bench list\n"
        "  weakcvx bench two-moons --quick\n"
        "'weakcvx COMMAND --help' lists the options of a command; 'python -m weakcvx' is the "
        "same command.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"weakcvx {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_compare_parser(sub)
    _add_bench_parser(sub)
    return parser


def main(argv=None):
    """Entry point of the ``weakcvx`` command (also ``python -m weakcvx``)."""
    args = _parser().parse_args(argv)
    if getattr(args, "verbose", 0):
        logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        code = args.func(args)
        sys.stdout.flush()  # a closed pipe shows here, not as an error at interpreter exit
        return code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `weakcvx ... | head`: the reader left, no traceback
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
