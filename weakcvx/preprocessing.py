r"""Preprocessing of bags: an instance-level scikit-learn transformer applied bag by bag.

Multi-instance data are a list of 2-D arrays, which scikit-learn's scalers do not take, so a
``Pipeline(StandardScaler(), MultiInstanceSVM())`` fails on bags. :class:`BagTransformer`
fits any transformer on the instances of all training bags stacked,

.. math::

    T = \mathrm{fit}\big(\textstyle\bigcup_i X_i\big), \qquad X_i \mapsto T(X_i),

and returns the transformed bags, so preprocessing sits inside a pipeline and is refitted on
each training split of a cross-validation: the test bags never inform it.

Examples
--------
>>> from sklearn.model_selection import GridSearchCV
>>> from sklearn.pipeline import make_pipeline
>>> from sklearn.preprocessing import QuantileTransformer, StandardScaler
>>> import weakcvx as wc
>>> bags, y, _ = wc.datasets.make_mil_roi(n_bags=30, random_state=0)
>>> pipe = make_pipeline(BagTransformer(), wc.MultiInstanceSVM(relaxation="alternating"))
>>> grid = {"bagtransformer__transformer": [StandardScaler(), QuantileTransformer(
...     n_quantiles=50, output_distribution="normal")]}
>>> search = GridSearchCV(pipe, grid, cv=3).fit(bags, y)
>>> search.predict(bags[:3]).shape
(3,)
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.preprocessing import StandardScaler
from sklearn.utils.validation import check_is_fitted

from .estimators.mil import check_bags

__all__ = ["BagTransformer"]


class BagTransformer(TransformerMixin, BaseEstimator):
    r"""Apply an instance-level transformer to every bag.

    ``fit(bags)`` fits a clone of ``transformer`` on the instances of all bags stacked;
    ``transform(bags)`` transforms the instances and splits them back into bags of the same
    sizes. This puts scaling (or any row-wise transformer) inside a scikit-learn pipeline in
    front of :class:`weakcvx.MultiInstanceSVM`, so that ``GridSearchCV`` refits it on each
    training split and can choose between preprocessings.

    Parameters
    ----------
    transformer : scikit-learn transformer, default=None
        Any object with ``fit`` and ``transform`` that maps ``n`` rows to ``n`` rows.
        ``None``: :class:`sklearn.preprocessing.StandardScaler`. For heavy-tailed features a
        :class:`~sklearn.preprocessing.QuantileTransformer` with
        ``output_distribution="normal"`` keeps a few extreme values from dominating an RBF
        kernel's distances (``weakcvx bench mil``: Elephant).

    Attributes
    ----------
    transformer_ : the fitted clone of ``transformer``.
    n_features_in_ : int
        Features of each instance seen in ``fit``.

    See Also
    --------
    weakcvx.MultiInstanceSVM : the estimator this feeds.
    weakcvx.model_selection : splitters and scorers for bags of label proportions.

    Examples
    --------
    >>> import numpy as np
    >>> bags = [np.array([[0.0, 1.0], [2.0, 3.0]]), np.array([[4.0, 5.0]])]
    >>> scaled = BagTransformer().fit_transform(bags)
    >>> [b.shape for b in scaled], np.vstack(scaled).mean(axis=0).round(12).tolist()
    ([(2, 2), (1, 2)], [0.0, 0.0])
    """

    def __init__(self, transformer=None):
        self.transformer = transformer

    def _transformer(self):
        if self.transformer is None:
            return StandardScaler()
        missing = [m for m in ("fit", "transform") if not callable(
            getattr(self.transformer, m, None))]
        if missing:
            raise TypeError("`transformer` must be a scikit-learn transformer with fit and "
                            f"transform. Got {type(self.transformer).__name__}, which has no "
                            f"{' or '.join(missing)}.")
        return clone(self.transformer)

    def fit(self, bags, y=None):
        """Fit the transformer on the instances of all bags.

        Parameters
        ----------
        bags : list of array-like of shape (n_i, n_features)
        y : ignored

        Returns
        -------
        self
        """
        X, _ = check_bags(bags)
        self.transformer_ = self._transformer().fit(X)
        self.n_features_in_ = X.shape[1]
        return self

    def transform(self, bags):
        """Transform every bag with the fitted transformer.

        Parameters
        ----------
        bags : list of array-like of shape (n_i, n_features)

        Returns
        -------
        list of ndarray of shape (n_i, n_features_out)
            The bags in order, each with as many rows as it came with.
        """
        check_is_fitted(self, "transformer_")
        X, sizes = check_bags(bags, n_features=self.n_features_in_)
        Z = self.transformer_.transform(X)
        if hasattr(Z, "toarray"):
            Z = Z.toarray()
        Z = np.asarray(Z, dtype=np.float64)
        if Z.ndim != 2 or Z.shape[0] != X.shape[0]:
            raise ValueError(f"`transformer` ({type(self.transformer_).__name__}) must return "
                             f"one row per instance. Got shape {Z.shape} for {X.shape[0]} "
                             "instances.")
        return np.split(Z, np.cumsum(sizes)[:-1])

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        return tags
