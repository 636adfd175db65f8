"""
How tight is each rung as the problem grows?
============================================

The :doc:`ladder <../ladder>` orders every method on one mixed-integer problem,
``min_{y ∈ B} J(y)``: the SDP relaxation and WellSVM's convex hull bound it from below, any
feasible labeling from above, and the exact optimum sits in between. Here the ladder is computed
on two moons (Chapelle, Sindhwani & Keerthi, 2006: RBF kernel with σ = 0.5, C = 10, one labeled
point per moon) for growing numbers of points, three draws each, with a real solver on every
rung:

* ``method="sdp"``: the SDP relaxation (CVXPY/SCS), a certified lower bound;
* ``method="label_generation"``: WellSVM's master value over its working set (an estimate of
  the convex hull's value from above) and the ``J`` of its rounded labels;
* ``method="exact"``: branch and bound, the optimum, certified;
* ``method="alternating"``: the local search most S3VM codes use, ``J`` of its labels.

Each value is divided by the optimum of its problem. The left panel shows the two prices of the
problem being hard: the relaxations stay far below the optimum (they are certificates, not
estimates of ``J``), and the local searches end far above it. The right panel shows why the
optimum is worth its cost here: its labels are right where the local searches' are not, which
is Chapelle et al.'s point that the S3VM objective is good and its optimisation is what fails.
"""

import matplotlib.pyplot as plt
import numpy as np

import weakcvx as wc

sizes = [16, 32, 64, 128]
seeds = [0, 1, 2]
rungs = {"SDP (certified)": "sdp", "hull estimate (label generation)": "label_generation",
         "optimum (branch and bound)": "exact", "alternating": "alternating"}
ratio = {name: np.zeros((len(sizes), len(seeds))) for name in rungs}
ratio["J(label generation's labels)"] = np.zeros((len(sizes), len(seeds)))
error = {name: np.zeros((len(sizes), len(seeds)))
         for name in ("optimum", "label generation", "alternating")}

for i, n in enumerate(sizes):
    for j, seed in enumerate(seeds):
        X, y_true, y_known = wc.datasets.make_two_moons(n, n_labeled=2, random_state=seed)
        problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0),
                                      wc.labelsets.SemiSupervised(y_known), costs=10.0)
        results = {name: wc.solve(problem, method=method, random_state=0)
                   for name, method in rungs.items()}
        optimum = results["optimum (branch and bound)"]
        assert optimum.certified  # the search finished: its value is the optimum
        for name, result in results.items():
            ratio[name][i, j] = result.value / optimum.value
        generated = results["hull estimate (label generation)"]
        ratio["J(label generation's labels)"][i, j] = generated.upper_bound / optimum.value
        unlabeled = y_known == 0
        for name, result in (("optimum", optimum), ("label generation", generated),
                             ("alternating", results["alternating"])):
            error[name][i, j] = np.mean(result.labels[unlabeled] != y_true[unlabeled])

print("value / optimum (mean over draws) and error of the labels on the unlabeled points")
print(f"{'n':>4} " + " ".join(f"{name[:22]:>23}" for name in ratio))
for i, n in enumerate(sizes):
    print(f"{n:>4} " + " ".join(f"{ratio[name][i].mean():>23.2f}" for name in ratio))
for name, e in error.items():
    print(f"error of the {name} labels: "
          + ", ".join(f"n={n}: {e[i].mean():.0%}" for i, n in enumerate(sizes)))

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
styles = {"SDP (certified)": ("o-", "C0"), "hull estimate (label generation)": ("s-", "C2"),
          "optimum (branch and bound)": ("*-", "k"),
          "J(label generation's labels)": ("x--", "C2"), "alternating": ("x--", "C3")}
for name, (marker, color) in styles.items():
    values = ratio[name]
    left.errorbar(sizes, values.mean(axis=1),
                  yerr=[values.mean(axis=1) - values.min(axis=1),
                        values.max(axis=1) - values.mean(axis=1)],
                  fmt=marker, color=color, label=name, capsize=3)
left.set_xscale("log", base=2)
left.set_yscale("log")
left.set_yticks([0.2, 0.5, 1, 2, 5], ["0.2", "0.5", "1", "2", "5"])
left.yaxis.set_minor_formatter(plt.NullFormatter())
left.set_xticks(sizes, [str(n) for n in sizes])
left.set_xlabel("points (two of them labeled)")
left.set_ylabel("value / optimum (mean, range over 3 draws)")
left.set_title("lower bounds below 1, labelings above")
left.legend(fontsize=8)
for (name, e), color in zip(error.items(), ("k", "C2", "C3")):
    right.plot(sizes, 100 * e.mean(axis=1), "o-", color=color, label=f"{name} labels")
right.set_xscale("log", base=2)
right.set_xticks(sizes, [str(n) for n in sizes])
right.set_xlabel("points (two of them labeled)")
right.set_ylabel("error on the unlabeled points (%)")
right.set_title("what the labels are worth")
right.legend(fontsize=8)
fig.tight_layout()
plt.show()
