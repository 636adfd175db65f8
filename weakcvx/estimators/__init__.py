"""scikit-learn estimators: thin wrappers that validate input, build a WeakLabelProblem and call
a solver (:func:`weakcvx.solve` or a method's own module)."""

from .beta import BetaSVM
from .bnb import BranchAndBoundS3VM
from .clustering import MaxMarginClustering
from .mil import MultiInstanceSVM
from .partial import PartialLabelSVM
from .proportion import InvCal, MeanMap, ProportionSVM
from .s3vm import S3VM

__all__ = [
    "S3VM",
    "MaxMarginClustering",
    "BranchAndBoundS3VM",
    "MultiInstanceSVM",
    "ProportionSVM",
    "InvCal",
    "MeanMap",
    "BetaSVM",
    "PartialLabelSVM",
]
