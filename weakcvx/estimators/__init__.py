"""scikit-learn estimators: thin wrappers that validate input, build a WeakLabelProblem and call
:func:`weakcvx.solve`."""

from .beta import BetaSVM
from .bnb import BranchAndBoundS3VM
from .clustering import MaxMarginClustering
from .partial import PartialLabelSVM
from .proportion import InvCal, MeanMap, ProportionSVM
from .s3vm import S3VM

__all__ = ["S3VM", "MaxMarginClustering", "BranchAndBoundS3VM"]
__all__ += ["BetaSVM"]
__all__ += ["ProportionSVM", "InvCal", "MeanMap"]
__all__ += ["PartialLabelSVM"]
