"""Benchmarks: ``weakcvx bench NAME`` prints figures (seconds, ratios against a baseline run in
the same process, memory). Timing lives here, never in tests."""

from __future__ import annotations

import importlib

__all__ = ["BENCHMARKS", "run_benchmark"]

#: name -> (module:function, one-line description)
BENCHMARKS = {
    "mkl": ("weakcvx.bench.core:bench_mkl",
            "MKLGL master vs the CVXPY SOCP reference at n = 300, 1000"),
    "linear": ("weakcvx.bench.core:bench_linear",
               "S3VM linear kernel on 100k x 20k sparse rows vs one LinearSVC fit"),
    "ssl-uci": ("weakcvx.bench.core:bench_ssl_uci",
                "WellSVM Table 3 protocol (10% labeled) on shipped UCI sets"),
    "two-moons": ("weakcvx.bench.two_moons:bench_two_moons",
                  "Chapelle et al. 2006 Table 1: exact S3VM by branch and bound on two moons"),
    "sdp": ("weakcvx.bench.sdp:bench_sdp",
            "SDP relaxation: SCS / Clarabel / CVXOPT at n = 50, 100, 200"),
    "bnb": ("weakcvx.bench.exact:bench_bnb",
            "branch and bound on two moons: paper's node bound vs the convex-hull bound"),
    "llp": ("weakcvx.bench.llp:bench_llp",
            "Yu et al. 2013 Table 2: MeanMap, InvCal, alter-/conv-proportion SVM on UCI bags"),
}
BENCHMARKS["beta-ssl"] = ("weakcvx.bench.beta:bench_beta_ssl",
                          "beta-SVM supplementary table: 5/10/15% labeled, SVM/WellSVM/beta-SVM")
BENCHMARKS["beta-noise"] = ("weakcvx.bench.beta:bench_beta_noise",
                            "beta-SVM Figure 2: ionosphere label noise, given vs 4-nn vs SVC")
BENCHMARKS["mil"] = ("weakcvx.bench.mil:bench_mil",
                     "MIL 10-fold CV on Musk1/Musk2/Elephant vs Andrews et al. 2003; ROI toy")
BENCHMARKS["pl"] = ("weakcvx.bench.partial:bench_pl",
                    "PL-SVM Figs. 6-7: accuracy vs |PL|, |Y| = 2..5, vs SVM and SVM-All")


def run_benchmark(name, quick=False):
    """Import and run one benchmark; it prints its own table and returns its records."""
    target, _ = BENCHMARKS[name]
    module, func = target.split(":")
    return getattr(importlib.import_module(module), func)(quick=quick)
BENCHMARKS["scale"] = ("weakcvx.bench.scale:bench_scale",
                       "RBF at 20k+ points through a rank-200 factor (rank cost vs exact at 3000);"
                       " linear S3VM on ~515k sparse rows")
BENCHMARKS["clustering"] = ("weakcvx.bench.clustering:bench_clustering",
                            "WellSVM Table 11: maximum margin clustering on UCI sets vs k-means")
BENCHMARKS["peers"] = ("weakcvx.bench.peers:bench_peers",
                       "S3VM beside SVC, self-training and label spreading on six UCI sets (5% "
                       "and 10% labeled, held-out split seeds); the label-generation engine "
                       "before/after")
BENCHMARKS["heldout"] = ("weakcvx.bench.heldout:bench_heldout",
                         "every estimator's defaults beside its peers on data no recorded "
                         "measurement used: new generator settings, unused digits/wine class "
                         "pairs, digit bags")
BENCHMARKS["sdp-lowrank"] = ("weakcvx.bench.sdp_lowrank:bench_sdp_lowrank",
                             "low-rank SDP with certificate: two moons SSL/clustering at n = 200, "
                             "1000, 5000 (also printed by `bench sdp`)")
