"""weakcvx: learning from weakly labeled data with large-margin models and their convex
relaxations.

Every weak-label setting is one mixed-integer problem ``min_{y ∈ B} J(y)`` (docs/design.rst §1); the
modelling layer (:class:`WeakLabelProblem`, :mod:`weakcvx.labelsets`, :func:`solve`,
:func:`compare`) bounds it from below (SDP, convex hull by label generation) and above (any
feasible labeling), and the scikit-learn estimators wrap it.
"""

import logging

from . import datasets, formulations, kernels, labelsets, ladder, model_selection
from ._validation import MemoryBudgetError, get_config, set_config
from .api import solve
from .estimators import (S3VM, BetaSVM, BranchAndBoundS3VM, InvCal, MaxMarginClustering, MeanMap,
                         MultiInstanceSVM, PartialLabelSVM, ProportionSVM)
from .ladder import compare
from . import preprocessing
from .problem import WeakLabelProblem
from ._solvers import SolverFallbackWarning
from .result import SolveResult, SolverError

__version__ = "0.1.0"

logging.getLogger("weakcvx").addHandler(logging.NullHandler())

__all__ = [
    "WeakLabelProblem",
    "solve",
    "compare",
    "SolveResult",
    "SolverError",
    "SolverFallbackWarning",
    "MemoryBudgetError",
    "set_config",
    "get_config",
    "S3VM",
    "BetaSVM",
    "MaxMarginClustering",
    "MultiInstanceSVM",
    "BranchAndBoundS3VM",
    "PartialLabelSVM",
    "ProportionSVM",
    "InvCal",
    "MeanMap",
    "model_selection",
    "preprocessing",
    "datasets",
    "kernels",
    "labelsets",
]
