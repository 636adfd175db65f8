"""The ``weakcvx`` command: ``weakcvx compare`` (the ladder of bounds) and ``weakcvx bench``."""

from __future__ import annotations

import argparse
import json
import logging
import sys

import numpy as np

__all__ = ["main"]

SYNTHETIC = ("two-moons", "blobs", "gap-clusters")


def _datasets():
    """Built-in problems: the generators, then every shipped UCI set (subsampled)."""
    from .datasets import list_uci

    return SYNTHETIC + tuple(list_uci())


def _uci_subsample(name, n, n_labeled, seed):
    """``n`` points of a shipped UCI set drawn at random (stratified), ``n_labeled`` of them
    labeled (at least one per class), standardized features; ±1 labels."""
    from sklearn.model_selection import train_test_split

    from .datasets import load_uci

    X, y = load_uci(name)
    if not 4 <= n <= len(y):
        raise ValueError(f"`--n` must be between 4 and {len(y)} for {name!r}. Got {n}.")
    if n < len(y):
        X, _, y, _ = train_test_split(X, y, train_size=n, stratify=y, random_state=seed)
    y_true = np.where(y == np.unique(y)[1], 1.0, -1.0)
    rng = np.random.default_rng(seed)
    first = [rng.choice(np.flatnonzero(y_true == s)) for s in (1.0, -1.0)]
    rest = rng.permutation(np.setdiff1d(np.arange(n), first))[: max(0, n_labeled - 2)]
    y_known = np.zeros(n)
    lab = np.concatenate([first, rest]).astype(int)
    y_known[lab] = y_true[lab]
    return X, y_true, y_known


def _build_problem(args):
    import weakcvx as wc

    rng_seed = args.seed
    if args.dataset == "two-moons":
        X, y_true, y_known = wc.datasets.make_two_moons(args.n, n_labeled=args.labeled,
                                                        random_state=rng_seed)
        gamma = 2.0 if args.gamma is None else args.gamma  # Chapelle et al. 2006: sigma = 0.5
        C = 10.0 if args.C is None else args.C
        labelset = wc.labelsets.SemiSupervised(y_known)
        name = f"two moons, n={args.n}, {args.labeled} labeled, RBF gamma={gamma:g}, C={C:g}"
    elif args.dataset == "gap-clusters":
        X, y_true, y_known = wc.datasets.make_gap_clusters(args.n, n_labeled=args.labeled,
                                                           random_state=rng_seed)
        gamma = args.gamma if args.gamma is not None else "mean_distance"
        C = 1.0 if args.C is None else args.C
        labelset = wc.labelsets.SemiSupervised(y_known)
        name = f"gap clusters, n={args.n}, {args.labeled} labeled"
    elif args.dataset == "blobs":
        X, y_true = wc.datasets.make_clustering_blobs(args.n, random_state=rng_seed)
        gamma = args.gamma if args.gamma is not None else "mean_distance"
        C = 1.0 if args.C is None else args.C
        labelset = wc.labelsets.Clustering(args.n, max(0.1 * args.n, args.n % 2))
        name = f"clustering blobs, n={args.n}"
    else:
        X, y_true, y_known = _uci_subsample(args.dataset, args.n, args.labeled, rng_seed)
        gamma = args.gamma if args.gamma is not None else "mean_distance"
        C = 1.0 if args.C is None else args.C
        labelset = wc.labelsets.SemiSupervised(y_known)
        name = f"UCI {args.dataset}, n={args.n} (subsampled), {args.labeled} labeled"
    K = wc.kernels.rbf(X, gamma=gamma)
    return wc.WeakLabelProblem(K, labelset, costs=C, y_true=y_true, name=name)


def _cmd_compare(args):
    import weakcvx as wc

    if args.n < 4:
        print(f"weakcvx compare: --n must be at least 4 (got {args.n})", file=sys.stderr)
        return 2
    if args.labeled < 2:
        print(f"weakcvx compare: --labeled must be at least 2 (got {args.labeled})",
              file=sys.stderr)
        return 2
    try:
        problem = _build_problem(args)
    except ValueError as exc:
        print(f"weakcvx compare: {exc}", file=sys.stderr)
        return 2
    print(f"{problem!r}", flush=True)
    table = wc.ladder.compare(problem, random_state=args.seed, verbose=args.verbose)
    print(table)
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        ax = table.plot()
        ax.figure.savefig(args.plot, dpi=120)
        print(f"plot saved to {args.plot}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"problem": problem.name, "rungs": table.to_records(),
                       "best_lower_bound": table.best_lower_bound,
                       "best_upper_bound": table.best_upper_bound}, fh, indent=2)
        print(f"results saved to {args.json}")
    return 0


def _cmd_bench(args):
    from .bench import BENCHMARKS, run_benchmark

    if args.name == "list":
        for name, (_, doc) in sorted(BENCHMARKS.items()):
            print(f"{name:<12} {doc}")
        return 0
    if args.name not in BENCHMARKS:
        print(f"weakcvx bench: unknown benchmark {args.name!r}; choose from "
              f"{', '.join(sorted(BENCHMARKS))}", file=sys.stderr)
        return 2
    run_benchmark(args.name, quick=args.quick)
    return 0


def main(argv=None):
    """Entry point of the ``weakcvx`` command."""
    parser = argparse.ArgumentParser(
        prog="weakcvx",
        description="Weakly labeled large-margin learning and the ladder of bounds.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("compare", help="run every method on one problem and print the ladder "
                       "of bounds (SDP <= convex hull <= optimum <= J(labels))")
    p.add_argument("--dataset", choices=_datasets(), default="two-moons", metavar="NAME",
                   help="built-in problem: two-moons (default), blobs (clustering), "
                   "gap-clusters, or a shipped UCI set subsampled to --n points ("
                   + ", ".join(_datasets()[len(SYNTHETIC):]) + ")")
    p.add_argument("--n", type=int, default=16, help="number of points (default 16)")
    p.add_argument("--labeled", type=int, default=2,
                   help="labeled points for semi-supervised sets (default 2)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--C", type=float, default=None, help="SVM cost (default: per dataset)")
    p.add_argument("--gamma", type=float, default=None, help="RBF width (default: per dataset)")
    p.add_argument("--plot", metavar="FILE", default=None, help="save the ladder plot (PNG)")
    p.add_argument("--json", metavar="FILE", default=None, help="save the table as JSON")
    p.add_argument("-v", "--verbose", action="count", default=0)
    p.set_defaults(func=_cmd_compare)

    b = sub.add_parser("bench", help="run a benchmark ('weakcvx bench list' lists them)")
    b.add_argument("name", help="benchmark name, or 'list'")
    b.add_argument("--quick", action="store_true", help="smaller sizes (minutes)")
    b.set_defaults(func=_cmd_bench)

    args = parser.parse_args(argv)
    if getattr(args, "verbose", 0):
        logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
