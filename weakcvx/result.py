"""One result object for every method, and the library's exceptions."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["SolveResult", "SolverError"]


class SolverError(RuntimeError):
    """A solver failed and no usable answer exists.

    The message names the solver and the status it returned.

    Examples
    --------
    >>> import numpy as np
    >>> import weakcvx as wc
    >>> from weakcvx.mkl import master_cvxpy
    >>> R, rows, signs = np.array([[1.0], [1.0]]), np.array([[0, 1]]), np.array([[1.0, -1.0]])
    >>> try:   # a solver that is not installed, and no fallback to the others
    ...     master_cvxpy(R, rows, signs, np.ones(2), solver="NO_SUCH_SOLVER", fallback=False)
    ... except wc.SolverError as exc:
    ...     print(exc.solver, exc.status, isinstance(exc, RuntimeError))
    NO_SUCH_SOLVER error True
    """

    def __init__(self, solver: str, status: str, detail: str = ""):
        self.solver = solver
        self.status = status
        msg = f"solver {solver!r} failed with status {status!r}"
        if detail:
            msg += f": {detail}"
        super().__init__(msg)


@dataclass
class SolveResult:
    """The answer of :func:`weakcvx.solve` for one method.

    Attributes
    ----------
    method : str
        ``"label_generation"``, ``"sdp"``, ``"exact"`` or ``"alternating"``.
    value : float
        The method's objective: a lower bound of the MIP for ``"sdp"``, the master value over the
        final working set for ``"label_generation"`` (a certified lower bound when the violated
        label search was exact), the MIP optimum for ``"exact"``, ``J(labels)`` for
        ``"alternating"``.
    labels : ndarray
        A feasible element of the label set (for sign-vector sets, ``+1``/``-1`` per point).
    upper_bound : float
        ``J(labels)``: the SVM objective of the feasible labeling, an upper bound of the MIP.
        Computed by the method's own SVM solve, so it agrees with
        ``problem.J(labels)[0]`` to that solve's tolerance (measured: within 6e-6 relative
        over ~600 results of every method on small problems), not to the last digit; up to 300
        dual variables ``problem.J`` itself is ``J(labels)`` to about 1e-7 of
        ``max(1, J)``, large costs and ill-conditioned kernels included.
    certified : bool
        Whether ``value`` is certified: a proven lower bound (``"sdp"`` with a built-in
        formulation, a ``box()``, or a label set described by exact counts;
        ``"label_generation"`` with ``oracle="exact"``) or a proven optimum (``"exact"`` that
        finished). ``False``: an estimate (:func:`weakcvx.solve` says which methods give one).
    status : str
        ``"optimal"``, ``"converged"``, ``"max_iter"``, ``"time_limit"``, ``"node_limit"``...
    message : str
        Human-readable explanation of the status.
    n_iter : int
        Iterations (cutting-plane rounds, alternations, nodes...).
    seconds : float
        Wall-clock time of the solve.
    history : list of dict
        Progress records (method-specific keys, always including ``"value"``): one per round
        of label generation, the cutting-plane SDP and alternating; the CVXPY SDP one record
        of its solve, branch and bound one per new incumbent (its seed, each better labeling,
        the end), so there ``len(history)`` is less than ``n_iter``.
    alpha, mu, working_set :
        Dual variables, kernel weights and the final working set (label-generation methods).
    extra : dict
        Anything else the method reports (e.g. ``n_nodes``, the SDP matrix ``M``).

    Examples
    --------
    >>> import weakcvx as wc
    >>> X, y_true, y_known = wc.datasets.make_two_moons(12, n_labeled=2, random_state=0)
    >>> problem = wc.WeakLabelProblem(wc.kernels.rbf(X, gamma=2.0),
    ...                               wc.labelsets.SemiSupervised(y_known), costs=10.0)
    >>> res = wc.solve(problem, method="exact")
    >>> res.method, res.status, res.certified, res.gap < 1e-6
    ('exact', 'optimal', True, True)
    >>> problem.labelset.contains(res.labels), res.labels.shape
    (True, (12,))
    """

    method: str
    value: float
    labels: np.ndarray
    upper_bound: float
    certified: bool = False
    status: str = "optimal"
    message: str = ""
    n_iter: int = 0
    seconds: float = 0.0
    history: list = field(default_factory=list)
    alpha: np.ndarray | None = None
    mu: np.ndarray | None = None
    working_set: list | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def gap(self) -> float:
        """``upper_bound - value``: the certified duality gap when ``certified``."""
        return float(self.upper_bound - self.value)

    def __repr__(self) -> str:
        kind = "certified" if self.certified else "not certified"
        return (
            f"SolveResult(method={self.method!r}, value={self.value:.6g} ({kind}), "
            f"upper_bound={self.upper_bound:.6g}, status={self.status!r}, "
            f"n_iter={self.n_iter}, seconds={self.seconds:.3g})"
        )
