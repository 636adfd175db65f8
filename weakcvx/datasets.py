"""Toy generators, weak-label corruptions and offline loaders (docs/design.rst §6).

Generators build the problems the papers use to show their point (two moons of Chapelle et al.
2006, the two-bag toy of Yu et al. 2013 Fig. 1, clusters where a supervised SVM or k-means is
misled); corruptions turn any labeled data into weak labels (bags with proportions, partial
labels, label noise); loaders read the small benchmark files shipped in ``weakcvx/data/`` (see
the README there for sources, licences and the conversion). Nothing here touches the network.

Label conventions: binary generators and ``load_uci`` return labels in {-1, +1};
semi-supervised generators return ``y_known`` in {-1, 0, +1} with 0 for unknown (the modelling
layer's convention, docs/design.rst §4); multi-instance bag labels are {0, 1} (the estimators'
convention); multiclass labels are 0..k-1.
"""

from __future__ import annotations

import numbers
from pathlib import Path

import numpy as np
from sklearn.utils import check_random_state

from ._validation import standardize_columns

__all__ = [
    "make_two_moons",
    "make_gap_clusters",
    "make_clustering_blobs",
    "make_elongated_clusters",
    "make_topic_text",
    "make_llp_toy",
    "make_mil_roi",
    "make_mil_digits",
    "make_mil_sparse",
    "make_bags",
    "make_partial_labels",
    "make_label_noise",
    "load_uci",
    "list_uci",
    "load_multiclass",
    "list_multiclass",
    "load_mil",
    "list_mil",
]

DATA_DIR = Path(__file__).resolve().parent / "data"

# The class of each binary set that load_uci maps to +1: the minority class in every file.
UCI_POSITIVE_CLASS = {
    "australian": "1",  # "+" in UCI, 307 of 690
    "bupa": "1",  # UCI selector field 1, 145 of 345 (see data/README.md)
    "chess": "nowin",  # white cannot win, 1527 of 3196
    "crx": "positive",  # "+" in UCI, 296 of 653
    "german": "2",  # bad credit risk, 300 of 1000
    "haberman": "positive",  # died within 5 years, 81 of 306
    "heart": "2",  # heart disease present, 120 of 270
    "housevotes": "republican",  # 108 of 232
    "ionosphere": "b",  # bad radar return, 126 of 351
    "magic": "h",  # hadron (background) shower, 6688 of 19020
    "pima": "tested_positive",  # diabetes, 268 of 768
    "sonar": "R",  # rock, 97 of 208
    "spambase": "1",  # spam, 1812 of 4597
    "wdbc": "M",  # malignant, 212 of 569
}
UCI_ALIASES = {
    "liver": "bupa",
    "liver-disorders": "bupa",
    "kr-vs-kp": "chess",
    "krvskp": "chess",
    "diabetes": "pima",
    "house-votes": "housevotes",
    "vote": "housevotes",
    "credit-a": "crx",
    "heart-statlog": "heart",
    "magic-gamma": "magic",
    "magic04": "magic",
}
MULTICLASS_SETS = ("letter", "penbased", "satimage", "segment")
MIL_SETS = ("elephant", "musk1", "musk2")


# --------------------------------------------------------------------------------------------
# argument checks (docs/design.rst §5: name the argument, what was expected, what was found)


def _check_int(name, value, low, high=None):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise ValueError(f"`{name}` must be an integer. Got {value!r} instead.")
    if value < low or (high is not None and value > high):
        bound = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise ValueError(f"`{name}` must be an integer {bound}. Got {value!r} instead.")
    return int(value)


def _check_real(name, value, low, high=None):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"`{name}` must be a real number. Got {value!r} instead.")
    if not np.isfinite(value) or value < low or (high is not None and value > high):
        bound = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise ValueError(f"`{name}` must be a finite number {bound}. Got {value!r} instead.")
    return float(value)


def _check_bool(name, value):
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"`{name}` must be True or False. Got {value!r} instead.")
    return bool(value)


def _check_range(name, value, low):
    """An int or an inclusive (min, max) pair of ints, both >= low."""
    if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
        value = (value, value)
    if (
        not isinstance(value, (tuple, list))
        or len(value) != 2
        or not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in value)
        or value[0] < low
        or value[0] > value[1]
    ):
        raise ValueError(
            f"`{name}` must be an integer >= {low} or a pair (min, max) of such integers with "
            f"min <= max. Got {value!r} instead."
        )
    return int(value[0]), int(value[1])


def _check_labels(name, y, n_samples=None):
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"`{name}` must be a 1-D array of labels. Got shape {y.shape} instead.")
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError(f"`{name}` must contain only finite values. Got NaN or inf.")
    if n_samples is not None and len(y) != n_samples:
        raise ValueError(
            f"`{name}` must have one label per row of `X` ({n_samples}). Got {len(y)} instead."
        )
    return y


def _split_counts(n):
    """(n_positive, n_negative) for n points split evenly; the negative class gets the extra."""
    return n // 2, n - n // 2


def _round_half_up(x):
    return int(np.floor(x + 0.5))


def _known_labels(y_true, labeled_pos, labeled_neg):
    y_known = np.zeros_like(y_true)
    y_known[labeled_pos] = 1
    y_known[labeled_neg] = -1
    return y_known


# --------------------------------------------------------------------------------------------
# semi-supervised and clustering generators


def make_two_moons(n_samples=100, n_labeled=2, noise=0.1, random_state=None):
    """Two interleaving half-circles, the S3VM benchmark of Chapelle et al. (2006).

    Class +1 is the upper half-circle of radius 1 centred at the origin,
    ``(cos t, sin t)``; class -1 is the same half-circle turned upside down and shifted,
    ``(1 - cos t, 0.5 - sin t)``, so that each moon reaches into the other's hollow. The
    angles ``t`` are uniform on [0, pi] and isotropic Gaussian noise of standard deviation
    ``noise`` is added to both coordinates.

    Parameters
    ----------
    n_samples : int, default=100
        Total number of points, split evenly between the moons (the -1 moon gets the extra
        point when ``n_samples`` is odd).
    n_labeled : int, default=2
        Number of points whose label is revealed in ``y_known``, split evenly between the
        classes (the -1 class gets the extra one when odd); at least 2 so that each class has
        a labeled point.
    noise : float, default=0.1
        Standard deviation of the Gaussian noise.
    random_state : int, RandomState instance or None, default=None
        Seed or generator, through :func:`sklearn.utils.check_random_state`.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
        The points, in random order.
    y_true : ndarray of shape (n_samples,)
        Labels in {-1, +1}.
    y_known : ndarray of shape (n_samples,)
        ``y_true`` on the ``n_labeled`` revealed points, 0 elsewhere.

    Notes
    -----
    Chapelle, Sindhwani & Keerthi (2006) draw 100 realisations with 50 unlabeled points per
    moon (the benchmark's usual one labeled point per class is the default here) and use an
    RBF kernel of width sigma = 0.5 (``gamma = 1 / (2 sigma^2) = 2``) with C = 10: the exact
    S3VM optimum (branch and bound) has 0% test error while the local S3VM solvers of the time
    reach 35-66%. The paper gives no formula for the moons; this one is the common
    construction (also scikit-learn's ``make_moons``), with random angles.

    References
    ----------
    O. Chapelle, V. Sindhwani and S. S. Keerthi. Branch and bound for semi-supervised support
    vector machines. NIPS 2006.

    Examples
    --------
    >>> from weakcvx.datasets import make_two_moons
    >>> X, y_true, y_known = make_two_moons(n_samples=100, n_labeled=2, random_state=0)
    >>> X.shape, int((y_true == 1).sum()), int((y_known != 0).sum())
    ((100, 2), 50, 2)
    >>> sorted(y_known[y_known != 0].tolist())
    [-1, 1]
    """
    n_samples = _check_int("n_samples", n_samples, 2)
    n_labeled = _check_int("n_labeled", n_labeled, 2, n_samples)
    noise = _check_real("noise", noise, 0.0)
    rng = check_random_state(random_state)

    n_pos, n_neg = _split_counts(n_samples)
    t_pos = rng.uniform(0.0, np.pi, n_pos)
    t_neg = rng.uniform(0.0, np.pi, n_neg)
    X = np.vstack(
        [
            np.column_stack([np.cos(t_pos), np.sin(t_pos)]),
            np.column_stack([1.0 - np.cos(t_neg), 0.5 - np.sin(t_neg)]),
        ]
    )
    X += noise * rng.standard_normal(X.shape)
    y_true = np.concatenate([np.ones(n_pos, dtype=np.int64), -np.ones(n_neg, dtype=np.int64)])

    order = rng.permutation(n_samples)
    X, y_true = X[order], y_true[order]
    n_lab_pos, n_lab_neg = _split_counts(n_labeled)
    labeled_pos = rng.choice(np.flatnonzero(y_true == 1), n_lab_pos, replace=False)
    labeled_neg = rng.choice(np.flatnonzero(y_true == -1), n_lab_neg, replace=False)
    return X, y_true, _known_labels(y_true, labeled_pos, labeled_neg)


# Geometry of the parallel elongated clusters: narrow across (e_1), long along (e_2).
_ACROSS_STD = 0.5
_ALONG_STD = 4.0


def _parallel_clusters(n_samples, n_features, gap, rng):
    """Two Gaussian clusters elongated along e_2, side by side along e_1.

    Across (e_1) the Gaussian is truncated at 3 sigma, so the clusters' edges are exactly
    ``gap`` apart: centres at +-(gap/2 + 3 * 0.5) e_1.
    """
    n_pos, n_neg = _split_counts(n_samples)
    scale = np.full(n_features, _ACROSS_STD)
    scale[1] = _ALONG_STD
    Z = rng.standard_normal((n_samples, n_features))
    outside = np.abs(Z[:, 0]) > 3.0
    while outside.any():  # truncation by rejection keeps the gap empty
        Z[outside, 0] = rng.standard_normal(int(outside.sum()))
        outside = np.abs(Z[:, 0]) > 3.0
    X = Z * scale
    offset = gap / 2.0 + 3.0 * _ACROSS_STD
    X[:n_pos, 0] += offset
    X[n_pos:, 0] -= offset
    y = np.concatenate([np.ones(n_pos, dtype=np.int64), -np.ones(n_neg, dtype=np.int64)])
    order = rng.permutation(n_samples)
    return X[order], y[order]


def make_gap_clusters(n_samples=200, n_features=2, n_labeled=4, gap=1.0, random_state=None):
    """Two elongated parallel clusters that mislead a supervised SVM trained on few labels.

    Both classes are Gaussian clusters with standard deviation 4 along the second axis and
    0.5 along every other axis (truncated at 3 standard deviations along the first axis),
    centred at +-(gap/2 + 1.5) on the first axis, so an empty gap of width ``gap`` separates
    them. The
    revealed labels are the points at the clusters' far ends: the +1 points with the largest
    second coordinate and the -1 points with the smallest. A supervised separator of the
    labeled points is therefore almost perpendicular to the gap and misclassifies about half
    of the unlabeled points, while the S3VM objective (with the class balance constraint)
    prefers the separator through the gap, which is the classic case where S3VM wins clearly.

    Parameters
    ----------
    n_samples : int, default=200
        Total number of points, split evenly between the classes.
    n_features : int, default=2
        Dimension, at least 2; the extra dimensions are isotropic noise of std 0.5.
    n_labeled : int, default=4
        Number of revealed labels, split evenly (the -1 class gets the extra one when odd).
    gap : float, default=1.0
        Width of the empty gap between the clusters, >= 0.
    random_state : int, RandomState instance or None, default=None
        Seed or generator, through :func:`sklearn.utils.check_random_state`.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y_true : ndarray of shape (n_samples,)
        Labels in {-1, +1}; the true boundary is the hyperplane ``X[:, 0] = 0``.
    y_known : ndarray of shape (n_samples,)
        ``y_true`` on the ``n_labeled`` revealed points, 0 elsewhere.

    See Also
    --------
    make_elongated_clusters : the same geometry without labels, for clustering.

    Examples
    --------
    >>> import numpy as np
    >>> from weakcvx.datasets import make_gap_clusters
    >>> X, y_true, y_known = make_gap_clusters(random_state=0)
    >>> X.shape, int((y_known != 0).sum())
    ((200, 2), 4)
    >>> bool(np.all(np.sign(X[:, 0]) == y_true))  # the gap separates the classes
    True
    """
    n_samples = _check_int("n_samples", n_samples, 2)
    n_features = _check_int("n_features", n_features, 2)
    n_labeled = _check_int("n_labeled", n_labeled, 2, n_samples)
    gap = _check_real("gap", gap, 0.0)
    rng = check_random_state(random_state)

    X, y_true = _parallel_clusters(n_samples, n_features, gap, rng)
    n_lab_pos, n_lab_neg = _split_counts(n_labeled)
    pos, neg = np.flatnonzero(y_true == 1), np.flatnonzero(y_true == -1)
    # far ends: top of the +1 cluster, bottom of the -1 cluster, so the labeled pairs differ
    # mostly along the long axis and a supervised separator is tilted across the clusters
    labeled_pos = pos[np.argsort(-X[pos, 1], kind="stable")[:n_lab_pos]]
    labeled_neg = neg[np.argsort(X[neg, 1], kind="stable")[:n_lab_neg]]
    return X, y_true, _known_labels(y_true, labeled_pos, labeled_neg)


def make_clustering_blobs(n_samples=100, n_features=2, random_state=None):
    """Two well-separated isotropic Gaussian blobs, the easy case for clustering.

    The blobs have standard deviation 0.5 and centres +-2.5 e_1, 10 standard deviations apart.

    Parameters
    ----------
    n_samples : int, default=100
        Total number of points, split evenly between the blobs.
    n_features : int, default=2
        Dimension, at least 1.
    random_state : int, RandomState instance or None, default=None
        Seed or generator, through :func:`sklearn.utils.check_random_state`.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y_true : ndarray of shape (n_samples,)
        Labels in {-1, +1} (+1 for the blob on the positive side of the first axis).

    Examples
    --------
    >>> from weakcvx.datasets import make_clustering_blobs
    >>> X, y = make_clustering_blobs(n_samples=10, random_state=0)
    >>> X.shape, sorted(set(y.tolist()))
    ((10, 2), [-1, 1])
    """
    n_samples = _check_int("n_samples", n_samples, 2)
    n_features = _check_int("n_features", n_features, 1)
    rng = check_random_state(random_state)
    n_pos, n_neg = _split_counts(n_samples)
    X = 0.5 * rng.standard_normal((n_samples, n_features))
    X[:n_pos, 0] += 2.5
    X[n_pos:, 0] -= 2.5
    y = np.concatenate([np.ones(n_pos, dtype=np.int64), -np.ones(n_neg, dtype=np.int64)])
    order = rng.permutation(n_samples)
    return X[order], y[order]


def make_elongated_clusters(n_samples=100, n_features=2, gap=1.0, random_state=None):
    """Two parallel elongated clusters, where max-margin clustering succeeds and k-means fails.

    The geometry of :func:`make_gap_clusters`: Gaussian clusters with standard deviation 4
    along the second axis and 0.5 across (truncated at 3 standard deviations), side by side
    with an empty gap of width ``gap``. k-means prefers to cut both clusters across their long
    axis (that split leaves a smaller within-cluster sum of squares, about 10 n against 16 n
    for the true split at the default ``gap``), while the largest-margin balanced split goes
    through the gap.

    Parameters
    ----------
    n_samples : int, default=100
        Total number of points, split evenly between the clusters.
    n_features : int, default=2
        Dimension, at least 2; the extra dimensions are isotropic noise of std 0.5.
    gap : float, default=1.0
        Width of the empty gap between the clusters, >= 0.
    random_state : int, RandomState instance or None, default=None
        Seed or generator, through :func:`sklearn.utils.check_random_state`.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y_true : ndarray of shape (n_samples,)
        Labels in {-1, +1}; the true boundary is ``X[:, 0] = 0``.

    Examples
    --------
    >>> import numpy as np
    >>> from weakcvx.datasets import make_elongated_clusters
    >>> X, y = make_elongated_clusters(random_state=0)
    >>> X.shape, bool(np.all(np.sign(X[:, 0]) == y))
    ((100, 2), True)
    """
    n_samples = _check_int("n_samples", n_samples, 2)
    n_features = _check_int("n_features", n_features, 2)
    gap = _check_real("gap", gap, 0.0)
    rng = check_random_state(random_state)
    return _parallel_clusters(n_samples, n_features, gap, rng)


# Shape of the document lengths of make_topic_text: 1 + Poisson(Gamma(shape, mean / shape)), a
# negative binomial with coefficient of variation about 1/sqrt(shape) for long documents.
_LENGTH_SHAPE = 2.0


def _zipf_cdf(n_words, exponent):
    """Cumulative probabilities of ranks 1..n_words under Zipf's law ``p_r ∝ r^-exponent``."""
    p = np.arange(1, n_words + 1, dtype=np.float64) ** -exponent
    cdf = np.cumsum(p)
    return cdf / cdf[-1]


def _check_labeled_count(n_labeled, labeled_fraction, n_samples):
    """The number of revealed labels from exactly one of ``n_labeled`` / ``labeled_fraction``
    (both ``None``: 1%), at least 2 so that each class has one."""
    if n_labeled is not None and labeled_fraction is not None:
        raise ValueError("Give `n_labeled` or `labeled_fraction`, not both. Got "
                         f"n_labeled={n_labeled!r}, labeled_fraction={labeled_fraction!r}.")
    if n_labeled is not None:
        return _check_int("n_labeled", n_labeled, 2, n_samples)
    fraction = 0.01 if labeled_fraction is None else labeled_fraction
    fraction = _check_real("labeled_fraction", fraction, 0.0, 1.0)
    return min(n_samples, max(2, _round_half_up(fraction * n_samples)))


def make_topic_text(n_samples=1000, n_features=2000, n_labeled=None, labeled_fraction=None,
                    topic_size=None, topic_weight=0.1, mean_length=60.0, zipf_exponent=1.0,
                    weighting="tfidf", random_state=None):
    """Sparse bag-of-words documents whose two classes have their own topic vocabularies.

    Generative model. The vocabulary is ``n_features`` words. A shared background
    distribution gives the word of popularity rank ``r`` the probability ``∝ r^-zipf_exponent``
    (Zipf's law), the ranks being a random permutation of the words. Each class ``k`` has a
    topic: ``topic_size`` words of its own (the two topics are disjoint), with Zipf
    probabilities of the same exponent within the topic. A document of class ``k`` has length
    ``L = 1 + Poisson(G)``, ``G ~ Gamma(2, (mean_length - 1) / 2)`` (so lengths vary widely, as
    in real text), and each of its ``L`` tokens is drawn from topic ``k`` with probability
    ``topic_weight`` and from the background otherwise. A row holds the word counts ``tf``, or
    ``tf · idf`` with scikit-learn's smoothed ``idf_j = ln((1 + n) / (1 + df_j)) + 1``, scaled
    to unit Euclidean norm.

    Unlike a planted random separator, the class signal sits in a few hundred rare words
    beside a heavy shared vocabulary, and short documents carry almost none of it: a
    classifier trained on a few labeled rows sees few of the topic words, while the
    unlabeled rows show which words occur together.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of documents, split evenly between the classes (the -1 class gets the extra
        one when odd); at least 2.
    n_features : int, default=2000
        Vocabulary size, at least ``2 * topic_size + 1``.
    n_labeled : int or None, default=None
        Number of documents whose label is revealed in ``y_known``, split evenly between the
        classes; at least 2. Give this or ``labeled_fraction``.
    labeled_fraction : float in [0, 1] or None, default=None
        The same as a fraction of ``n_samples`` (rounded half up, at least 2). When both are
        ``None``: 0.01.
    topic_size : int or None, default=None
        Words in each class topic; ``None``: ``max(1, n_features // 20)``.
    topic_weight : float in [0, 1], default=0.1
        Probability that a token comes from its class topic.
    mean_length : float, default=60.0
        Mean number of tokens per document, at least 1.
    zipf_exponent : float, default=1.0
        Exponent of Zipf's law, in the background and within a topic; >= 0 (0: uniform).
    weighting : {"tfidf", "tf"}, default="tfidf"
        Row weighting before the L2 normalisation.
    random_state : int, RandomState instance or None, default=None
        Seed or generator, through :func:`sklearn.utils.check_random_state`.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
        float64 rows of unit norm, sorted int32 column indices, in random order.
    y_true : ndarray of shape (n_samples,)
        Labels in {-1, +1}.
    y_known : ndarray of shape (n_samples,)
        ``y_true`` on the revealed documents, 0 elsewhere.

    Examples
    --------
    >>> import numpy as np
    >>> from weakcvx.datasets import make_topic_text
    >>> X, y_true, y_known = make_topic_text(200, 500, n_labeled=10, random_state=0)
    >>> X.shape, X.format, int((y_known != 0).sum()), int((y_true == 1).sum())
    ((200, 500), 'csr', 10, 100)
    >>> bool(np.allclose(np.sqrt(X.multiply(X).sum(axis=1)), 1.0))
    True
    """
    import scipy.sparse as sp

    n_samples = _check_int("n_samples", n_samples, 2)
    n_labeled = _check_labeled_count(n_labeled, labeled_fraction, n_samples)
    n_features = _check_int("n_features", n_features, 3)
    topic_size = (max(1, n_features // 20) if topic_size is None
                  else _check_int("topic_size", topic_size, 1, (n_features - 1) // 2))
    topic_weight = _check_real("topic_weight", topic_weight, 0.0, 1.0)
    mean_length = _check_real("mean_length", mean_length, 1.0)
    zipf_exponent = _check_real("zipf_exponent", zipf_exponent, 0.0)
    if weighting not in ("tfidf", "tf"):
        raise ValueError(f"`weighting` must be 'tfidf' or 'tf'. Got {weighting!r} instead.")
    rng = check_random_state(random_state)

    words = rng.permutation(n_features)  # words[r]: the word of background rank r
    topics = rng.permutation(n_features)[:2 * topic_size].reshape(2, topic_size)
    n_pos, n_neg = _split_counts(n_samples)
    y_true = rng.permutation(np.concatenate([np.ones(n_pos, dtype=np.int64),
                                             -np.ones(n_neg, dtype=np.int64)]))
    lengths = 1 + rng.poisson(rng.gamma(_LENGTH_SHAPE, (mean_length - 1.0) / _LENGTH_SHAPE,
                                        n_samples))
    doc = np.repeat(np.arange(n_samples), lengths)
    from_topic = rng.random(doc.size) < topic_weight
    token = words[np.searchsorted(_zipf_cdf(n_features, zipf_exponent), rng.random(doc.size))]
    rank = np.searchsorted(_zipf_cdf(topic_size, zipf_exponent),
                           rng.random(int(from_topic.sum())))
    token[from_topic] = topics[(y_true[doc[from_topic]] > 0).astype(np.intp), rank]
    # duplicates (doc, word) are summed: the counts tf
    X = sp.csr_matrix((np.ones(doc.size), (doc, token)), shape=(n_samples, n_features))
    X.sum_duplicates()
    if weighting == "tfidf":
        df = np.bincount(X.indices, minlength=n_features)
        X.data *= (np.log((1.0 + n_samples) / (1.0 + df)) + 1.0)[X.indices]
    norms = np.sqrt(np.add.reduceat(X.data**2, X.indptr[:-1]))  # every row has a token
    X.data /= np.repeat(norms, np.diff(X.indptr))
    X.indices = X.indices.astype(np.int32, copy=False)
    X.indptr = X.indptr.astype(np.int32, copy=False)

    n_lab_pos, n_lab_neg = _split_counts(n_labeled)
    labeled_pos = rng.choice(np.flatnonzero(y_true == 1), n_lab_pos, replace=False)
    labeled_neg = rng.choice(np.flatnonzero(y_true == -1), n_lab_neg, replace=False)
    return X, y_true, _known_labels(y_true, labeled_pos, labeled_neg)


# --------------------------------------------------------------------------------------------
# learning with label proportions


def make_llp_toy(n_per_bag=50, random_state=None):
    """The two-bag toy of Yu et al. (2013), Fig. 1: bag means lie on the wrong side.

    The true boundary is ``x_1 = 0`` (+1 on the right). Bag 0 holds 60% positives close to the
    boundary, around (1, 0), and 40% negatives far from it, around (-4, 0); bag 1 is its mirror
    image (40% positives far, around (4, 0); 60% negatives close, around (-1, 0)). Points
    spread with standard deviation 0.2 across the boundary and 1 along it. The mean of bag 0
    (proportion 0.6) is at x_1 = -1, on the negative side, and the mean of bag 1 (proportion
    0.4) at x_1 = +1: methods that model bags by their means (MeanMap, InvCal) learn the
    reversed boundary and 0% accuracy, while instance-level methods (alter-/conv-proportion
    SVM) recover the true boundary, the only separator that meets both proportions.

    Parameters
    ----------
    n_per_bag : int, default=50
        Points per bag, at least 5 (so the rounded proportions stay strictly between 0.5 and
        0.8 and the trap holds). Bag 0 has ``round(0.6 * n_per_bag)`` positives.
    random_state : int, RandomState instance or None, default=None
        Seed or generator, through :func:`sklearn.utils.check_random_state`.

    Returns
    -------
    X : ndarray of shape (2 * n_per_bag, 2)
        The points, in random order.
    y_true : ndarray of shape (2 * n_per_bag,)
        Instance labels in {-1, +1} (not available to a learner).
    bag_ids : ndarray of shape (2 * n_per_bag,)
        Bag of each point, 0 or 1.
    proportions : ndarray of shape (2,)
        Fraction of positives in bags 0 and 1 (0.6 and 0.4 when ``n_per_bag`` is a multiple
        of 5).

    References
    ----------
    F. X. Yu, D. Liu, S. Kumar, T. Jebara and S.-F. Chang. ∝SVM for learning with label
    proportions. ICML 2013.

    Examples
    --------
    >>> from weakcvx.datasets import make_llp_toy
    >>> X, y_true, bag_ids, proportions = make_llp_toy(n_per_bag=50, random_state=0)
    >>> X.shape, proportions.tolist()
    ((100, 2), [0.6, 0.4])
    >>> float(X[bag_ids == 0, 0].mean()) < 0 < float(X[bag_ids == 1, 0].mean())
    True
    """
    n_per_bag = _check_int("n_per_bag", n_per_bag, 5)
    rng = check_random_state(random_state)

    n_near = _round_half_up(0.6 * n_per_bag)  # positives of bag 0 = negatives of bag 1
    n_far = n_per_bag - n_near
    spread = np.array([0.2, 1.0])

    def cluster(center, size):
        return np.asarray(center, dtype=float) + spread * rng.standard_normal((size, 2))

    X = np.vstack(
        [
            cluster((1.0, 0.0), n_near),  # bag 0, positive, near the boundary
            cluster((-4.0, 0.0), n_far),  # bag 0, negative, far
            cluster((4.0, 0.0), n_far),  # bag 1, positive, far
            cluster((-1.0, 0.0), n_near),  # bag 1, negative, near
        ]
    )
    y_true = np.repeat(np.array([1, -1, 1, -1], dtype=np.int64), [n_near, n_far, n_far, n_near])
    bag_ids = np.repeat(np.array([0, 1], dtype=np.int64), n_per_bag)
    proportions = np.array([n_near, n_far], dtype=np.float64) / n_per_bag
    order = rng.permutation(len(y_true))
    return X[order], y_true[order], bag_ids[order], proportions


def make_bags(X, y, bag_size, random_state=None):
    """Partition labeled data into random bags and report each bag's proportion of positives.

    Turns any binary classification set into a learning-with-label-proportions problem (the
    protocol of Yu et al. 2013): the rows are shuffled and cut into consecutive bags of
    ``bag_size`` rows, the last bag possibly smaller.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
        Data; only its number of rows is used (and checked against ``y``).
    y : array-like of shape (n_samples,)
        Binary labels, either in {-1, +1} or in {0, 1}; 1 is the positive class.
    bag_size : int
        Rows per bag, in [1, n_samples].
    random_state : int, RandomState instance or None, default=None
        Seed or generator, through :func:`sklearn.utils.check_random_state`.

    Returns
    -------
    bag_ids : ndarray of shape (n_samples,)
        Bag of each row, in 0..n_bags-1 with ``n_bags = ceil(n_samples / bag_size)``.
    proportions : ndarray of shape (n_bags,)
        ``proportions[k]`` is the fraction of rows of bag ``k`` whose label is 1.

    Examples
    --------
    >>> import numpy as np
    >>> from weakcvx.datasets import make_bags
    >>> X, y = np.zeros((10, 3)), np.array([1, -1] * 5)
    >>> bag_ids, proportions = make_bags(X, y, bag_size=4, random_state=0)
    >>> np.bincount(bag_ids).tolist(), proportions.shape
    ([4, 4, 2], (3,))
    """
    # only the number of rows is used: missing values in X are the user's business here
    shape = X.shape if hasattr(X, "shape") else np.shape(np.asarray(X, dtype=object))
    if len(shape) != 2:
        raise ValueError(f"`X` must be 2-D, of shape (n_samples, n_features). Got shape "
                         f"{tuple(shape)} instead.")
    n_samples = shape[0]
    y = _check_labels("y", y, n_samples)
    values = set(np.unique(y).tolist())
    if not (values <= {-1, 1} or values <= {0, 1}):
        raise ValueError(
            f"`y` must hold binary labels in {{-1, +1}} or in {{0, 1}}. Got values "
            f"{sorted(values)} instead."
        )
    bag_size = _check_int("bag_size", bag_size, 1, n_samples)
    rng = check_random_state(random_state)

    bag_ids = np.empty(n_samples, dtype=np.int64)
    bag_ids[rng.permutation(n_samples)] = np.arange(n_samples) // bag_size
    positives = np.bincount(bag_ids, weights=(y == 1).astype(np.float64))
    proportions = positives / np.bincount(bag_ids)
    return bag_ids, proportions


# --------------------------------------------------------------------------------------------
# multi-instance learning


def _check_mil_bags(n_bags, bag_size, n_key, positive_fraction):
    """The bag counts of the MIL generators, checked: ``(n_bags, (size_lo, size_hi),
    (key_lo, key_hi), n_positive_bags)``."""
    n_bags = _check_int("n_bags", n_bags, 2)
    size_lo, size_hi = _check_range("bag_size", bag_size, 1)
    key_lo, key_hi = _check_range("n_key", n_key, 1)
    if key_hi > size_lo:
        raise ValueError(
            f"`n_key` must be at most the smallest bag size ({size_lo}). Got {n_key!r} instead."
        )
    positive_fraction = _check_real("positive_fraction", positive_fraction, 0.0, 1.0)
    n_pos = _round_half_up(positive_fraction * n_bags)
    if not 1 <= n_pos <= n_bags - 1:
        raise ValueError(
            f"`positive_fraction` must leave at least one positive and one negative bag among "
            f"{n_bags}. Got {positive_fraction!r} ({n_pos} positive bags) instead."
        )
    return n_bags, (size_lo, size_hi), (key_lo, key_hi), n_pos


def _mil_layout(rng, n_bags, n_pos, sizes, keys):
    """Bag labels (``n_pos`` positive bags at random) and, lazily, each bag's ``(size, number
    of key instances)`` drawn from the inclusive ranges ``sizes`` and ``keys`` (none for a
    negative bag): a bag's layout is drawn when the caller reaches it, so the caller's draws
    for that bag follow it in the generator's stream."""
    y = np.zeros(n_bags, dtype=np.int64)
    y[rng.choice(n_bags, n_pos, replace=False)] = 1

    def layout():
        for label in y:
            size = int(rng.randint(sizes[0], sizes[1] + 1))
            yield size, int(rng.randint(keys[0], keys[1] + 1)) if label else 0

    return y, layout()


def make_mil_roi(
    n_bags=40,
    bag_size=(4, 12),
    n_key=(1, 2),
    n_features=2,
    positive_fraction=0.5,
    random_state=None,
):
    """A region-of-interest multi-instance toy with known key instances.

    Background instances are standard Gaussian, redrawn until they fall outside the target
    region, a ball of radius 0.75 centred at (2, 2, 0, ..., 0) (at 2.5 e_1 in one dimension).
    A positive bag holds between ``n_key[0]`` and ``n_key[1]`` key instances drawn uniformly
    in the target region, the rest background; a negative bag is all background. So a bag is
    positive exactly when it has an instance in the region (the standard MIL assumption), and
    ``key_mask`` tells which instances caused it.

    Parameters
    ----------
    n_bags : int, default=40
        Number of bags, at least 2.
    bag_size : int or (int, int), default=(4, 12)
        Instances per bag, fixed or drawn uniformly from the inclusive range.
    n_key : int or (int, int), default=(1, 2)
        Key instances per positive bag, fixed or drawn uniformly from the inclusive range;
        at least 1 and at most the smallest bag size.
    n_features : int, default=2
        Dimension, at least 1.
    positive_fraction : float, default=0.5
        Fraction of positive bags, in (0, 1); ``round(positive_fraction * n_bags)`` bags are
        positive, at least one and at most ``n_bags - 1``.
    random_state : int, RandomState instance or None, default=None
        Seed or generator, through :func:`sklearn.utils.check_random_state`.

    Returns
    -------
    bags : list of ndarray of shape (n_i, n_features)
        The bags, in random order; key instances sit at random positions.
    y : ndarray of shape (n_bags,)
        Bag labels in {0, 1}.
    key_mask : list of ndarray of shape (n_i,), dtype bool
        True for the key instances (none in negative bags).

    Examples
    --------
    >>> from weakcvx.datasets import make_mil_roi
    >>> bags, y, key_mask = make_mil_roi(n_bags=6, random_state=0)
    >>> len(bags), y.tolist() == [int(m.any()) for m in key_mask]
    (6, True)
    """
    n_bags, (size_lo, size_hi), (key_lo, key_hi), n_pos = _check_mil_bags(
        n_bags, bag_size, n_key, positive_fraction)
    n_features = _check_int("n_features", n_features, 1)
    rng = check_random_state(random_state)

    center = np.zeros(n_features)
    center[: min(n_features, 2)] = 2.0 if n_features >= 2 else 2.5
    radius = 0.75

    def background(size):
        out = rng.standard_normal((size, n_features))
        inside = np.linalg.norm(out - center, axis=1) < radius
        while inside.any():  # rejection: the region holds key instances only
            out[inside] = rng.standard_normal((int(inside.sum()), n_features))
            inside = np.linalg.norm(out - center, axis=1) < radius
        return out

    def keys(size):
        direction = rng.standard_normal((size, n_features))
        direction /= np.linalg.norm(direction, axis=1, keepdims=True)
        r = radius * rng.uniform(0.0, 1.0, size) ** (1.0 / n_features)
        return center + r[:, None] * direction

    y, layout = _mil_layout(rng, n_bags, n_pos, (size_lo, size_hi), (key_lo, key_hi))
    bags, key_mask = [], []
    for size, n_keys in layout:
        instances = np.vstack([keys(n_keys), background(size - n_keys)])
        mask = np.arange(size) < n_keys
        order = rng.permutation(size)
        bags.append(instances[order])
        key_mask.append(mask[order])
    return bags, y, key_mask


def make_mil_sparse(n_bags=200, bag_size=(5, 15), n_key=1, n_features=500, n_informative=20,
                    shift=1.5, positive_fraction=0.5, random_state=None):
    """Multi-instance bags in many dimensions of which few inform, with known key instances.

    Every instance is standard Gaussian in ``n_features`` dimensions; a key instance is moved
    by ``shift`` along each of the first ``n_informative`` coordinates (a mean difference of
    ``shift * sqrt(n_informative)`` standard deviations, linearly separable in practice, but
    a small part of the distance between two instances: text or image features where a few
    words or filters mark the witness). A positive bag holds between ``n_key[0]`` and
    ``n_key[1]`` key instances, a negative bag none. This is where the RBF kernel of width
    ``"scale"`` is nearly flat between distinct instances and an SVM fits its training bags by
    the kernel's diagonal (docs/methods/mil.rst, "The kernel width").

    Parameters
    ----------
    n_bags : int, default=200
        Number of bags, at least 2.
    bag_size : int or (int, int), default=(5, 15)
        Instances per bag, fixed or drawn uniformly from the inclusive range.
    n_key : int or (int, int), default=1
        Key instances per positive bag, at least 1 and at most the smallest bag size.
    n_features : int, default=500
        Dimension, at least 1.
    n_informative : int, default=20
        Coordinates along which key instances are moved, between 1 and ``n_features``.
    shift : float, default=1.5
        The move of a key instance along each informative coordinate, positive.
    positive_fraction : float, default=0.5
        Fraction of positive bags, in (0, 1), as in :func:`make_mil_roi`.
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    bags : list of ndarray of shape (n_i, n_features)
    y : ndarray of shape (n_bags,)
        Bag labels in {0, 1}.
    key_mask : list of ndarray of shape (n_i,), dtype bool
        True for the key instances (none in negative bags).

    Examples
    --------
    >>> from weakcvx.datasets import make_mil_sparse
    >>> bags, y, key_mask = make_mil_sparse(n_bags=6, n_features=50, random_state=0)
    >>> bags[0].shape[1], y.tolist() == [int(m.any()) for m in key_mask]
    (50, True)
    """
    n_bags, (size_lo, size_hi), (key_lo, key_hi), n_pos = _check_mil_bags(
        n_bags, bag_size, n_key, positive_fraction)
    n_features = _check_int("n_features", n_features, 1)
    n_informative = _check_int("n_informative", n_informative, 1, n_features)
    if _check_real("shift", shift, 0.0) == 0.0:
        raise ValueError("`shift` must be positive (key instances that are not moved are "
                         "background). Got 0 instead.")
    rng = check_random_state(random_state)
    y, layout = _mil_layout(rng, n_bags, n_pos, (size_lo, size_hi), (key_lo, key_hi))
    bags, key_mask = [], []
    for size, n_keys in layout:
        instances = rng.standard_normal((size, n_features))
        mask = np.zeros(size, dtype=bool)
        mask[rng.choice(size, n_keys, replace=False)] = True
        instances[np.ix_(mask, np.arange(n_informative))] += float(shift)
        bags.append(instances)
        key_mask.append(mask)
    return bags, y, key_mask


def make_mil_digits(n_bags=100, bag_size=(6, 12), n_key=(1, 2), target=9,
                    positive_fraction=0.5, random_state=None):
    """Bags of handwritten digits, positive when they hold the ``target`` digit ("MNIST-bags").

    The images are scikit-learn's 8 x 8 digits (:func:`sklearn.datasets.load_digits`, 1,797
    images, about 180 of each digit, shipped with scikit-learn: no download). A positive bag
    holds between ``n_key[0]`` and ``n_key[1]`` images of ``target`` and other digits for the
    rest; a negative bag holds no ``target``. Every image is used at most once over all the
    bags, so no image of a test bag also sits in a training bag; the call raises when the
    pools are too small. The multi-instance benchmark of Ilse, Tomczak & Welling (2018), with
    the small digits instead of MNIST; a few keys per bag make it the key-instance setting,
    many keys the setting where a bag's mean already tells the class.

    Parameters
    ----------
    n_bags : int, default=100
        Number of bags, at least 2.
    bag_size : int or (int, int), default=(6, 12)
        Images per bag, fixed or drawn uniformly from the inclusive range.
    n_key : int or (int, int), default=(1, 2)
        Images of ``target`` per positive bag, fixed or drawn uniformly from the inclusive
        range; at least 1 and at most the smallest bag size.
    target : int, default=9
        The digit (0-9) that makes a bag positive.
    positive_fraction : float, default=0.5
        Fraction of positive bags, in (0, 1), as in :func:`make_mil_roi`.
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    bags : list of ndarray of shape (n_i, 64)
        Pixel intensities 0-16, images in random order within a bag.
    y : ndarray of shape (n_bags,)
        Bag labels in {0, 1}.
    key_mask : list of ndarray of shape (n_i,), dtype bool
        True for the images of ``target``.

    Raises
    ------
    ValueError
        When the bags need more images of ``target`` or of the other digits than the data
        hold (with the counts), or an argument is out of range.

    Examples
    --------
    >>> from weakcvx.datasets import make_mil_digits
    >>> bags, y, key_mask = make_mil_digits(n_bags=6, random_state=0)
    >>> bags[0].shape[1], y.tolist() == [int(m.any()) for m in key_mask]
    (64, True)
    """
    from sklearn.datasets import load_digits

    n_bags, (size_lo, size_hi), (key_lo, key_hi), n_pos = _check_mil_bags(
        n_bags, bag_size, n_key, positive_fraction)
    target = _check_int("target", target, 0, 9)
    rng = check_random_state(random_state)
    images, digits = load_digits(return_X_y=True)
    y = np.zeros(n_bags, dtype=np.int64)
    y[rng.choice(n_bags, n_pos, replace=False)] = 1
    sizes = rng.randint(size_lo, size_hi + 1, size=n_bags)
    keys = np.where(y > 0, rng.randint(key_lo, key_hi + 1, size=n_bags), 0)
    key_pool = rng.permutation(np.flatnonzero(digits == target))
    other_pool = rng.permutation(np.flatnonzero(digits != target))
    for need, pool, what in ((keys.sum(), key_pool, f"images of {target}"),
                             ((sizes - keys).sum(), other_pool, "images of other digits")):
        if need > len(pool):
            raise ValueError(
                f"The bags need {need} {what}; the digits data hold {len(pool)}. Lower `n_bags`, "
                f"`bag_size` or `n_key` (got {n_bags}, {bag_size!r}, {n_key!r})."
            )
    bags, key_mask = [], []
    k_used = o_used = 0
    for size, n_keys in zip(sizes, keys):
        rows = np.concatenate([key_pool[k_used:k_used + n_keys],
                               other_pool[o_used:o_used + size - n_keys]])
        k_used, o_used = k_used + n_keys, o_used + size - n_keys
        order = rng.permutation(size)
        bags.append(images[rows[order]])
        key_mask.append((np.arange(size) < n_keys)[order])
    return bags, y, key_mask


# --------------------------------------------------------------------------------------------
# weak-label corruptions


def make_partial_labels(y, n_candidates=2, fraction_partial=1.0, random_state=None):
    """Candidate label sets that contain the true class, for partial-label learning.

    ``round(fraction_partial * n_samples)`` rows, chosen at random, get the true class plus
    ``n_candidates - 1`` other classes drawn uniformly without replacement (the protocol of
    Nguyen & Caruana 2008); the other rows keep their true class alone.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        True labels, any values with at least two distinct classes. Column ``j`` of the result
        stands for ``np.unique(y)[j]`` (class ``j`` when ``y`` holds 0..k-1, as returned by
        :func:`load_multiclass`).
    n_candidates : int, default=2
        Size of each partial candidate set, in [1, n_classes].
    fraction_partial : float, default=1.0
        Fraction of rows that get a partial candidate set, in [0, 1].
    random_state : int, RandomState instance or None, default=None
        Seed or generator, through :func:`sklearn.utils.check_random_state`.

    Returns
    -------
    candidates : ndarray of shape (n_samples, n_classes), dtype bool
        ``candidates[i, j]`` is True when class ``j`` is a candidate for row ``i``.

    References
    ----------
    N. Nguyen and R. Caruana. Classification with partial labels. KDD 2008.

    Examples
    --------
    >>> import numpy as np
    >>> from weakcvx.datasets import make_partial_labels
    >>> y = np.array([0, 1, 2, 3, 0, 1])
    >>> candidates = make_partial_labels(y, n_candidates=3, random_state=0)
    >>> candidates.shape, candidates.sum(axis=1).tolist(), bool(candidates[np.arange(6), y].all())
    ((6, 4), [3, 3, 3, 3, 3, 3], True)
    """
    y = _check_labels("y", y)
    classes, y_index = np.unique(y, return_inverse=True)
    n_classes = len(classes)
    if n_classes < 2:
        raise ValueError(f"`y` must contain at least two classes. Got {classes.tolist()} instead.")
    n_candidates = _check_int("n_candidates", n_candidates, 1, n_classes)
    fraction_partial = _check_real("fraction_partial", fraction_partial, 0.0, 1.0)
    rng = check_random_state(random_state)

    n_samples = len(y)
    candidates = np.zeros((n_samples, n_classes), dtype=bool)
    candidates[np.arange(n_samples), y_index] = True
    rows = rng.choice(n_samples, _round_half_up(fraction_partial * n_samples), replace=False)
    # random keys, the true class forced first: the n_candidates smallest keys are the true
    # class and a uniform random subset of the others
    keys = rng.random((len(rows), n_classes))
    keys[np.arange(len(rows)), y_index[rows]] = -1.0
    chosen = np.argsort(keys, axis=1)[:, :n_candidates]
    candidates[rows[:, None], chosen] = True
    return candidates


def make_label_noise(y, rate, kind="symmetric", random_state=None):
    """Corrupt labels at a given rate, symmetrically or asymmetrically.

    In every class ``c`` exactly ``round(rate * n_c)`` points, chosen at random, get a wrong
    label (so the realised rate per class is ``rate`` up to rounding):

    - ``"symmetric"``: the new label is drawn uniformly among the other classes (for two
      classes, the label is flipped);
    - ``"asymmetric"``: with two classes only the points of the positive class (the larger
      label: +1, 1, or the last in sorted order) are flipped to the other class, the noise of
      Zantedeschi et al. (2016) §5.2 ("changing the labels of instances of one class"); with
      more classes every class moves to the next one, ``classes[(j + 1) % k]`` (pair-flip
      noise).

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels, any values with at least two distinct classes.
    rate : float
        Fraction of each (corrupted) class whose label is changed, in [0, 1].
    kind : {"symmetric", "asymmetric"}, default="symmetric"
        Noise model, see above.
    random_state : int, RandomState instance or None, default=None
        Seed or generator, through :func:`sklearn.utils.check_random_state`.

    Returns
    -------
    y_noisy : ndarray of shape (n_samples,)
        The corrupted labels, with the values and dtype of ``y``.

    Examples
    --------
    >>> import numpy as np
    >>> from weakcvx.datasets import make_label_noise
    >>> y = np.array([-1] * 50 + [1] * 50)
    >>> y_noisy = make_label_noise(y, rate=0.2, random_state=0)
    >>> float(np.mean(y_noisy != y))
    0.2
    >>> y_noisy = make_label_noise(y, rate=0.2, kind="asymmetric", random_state=0)
    >>> int(np.sum(y_noisy[y == -1] != -1)), int(np.sum(y_noisy[y == 1] != 1))
    (0, 10)
    """
    y = _check_labels("y", y)
    classes, y_index = np.unique(y, return_inverse=True)
    n_classes = len(classes)
    if n_classes < 2:
        raise ValueError(f"`y` must contain at least two classes. Got {classes.tolist()} instead.")
    rate = _check_real("rate", rate, 0.0, 1.0)
    if kind not in ("symmetric", "asymmetric"):
        raise ValueError(f"`kind` must be 'symmetric' or 'asymmetric'. Got {kind!r} instead.")
    rng = check_random_state(random_state)

    noisy = y_index.copy()
    for j in range(n_classes):
        if kind == "asymmetric" and n_classes == 2 and j == 0:
            continue  # binary asymmetric: only the positive class is corrupted
        members = np.flatnonzero(y_index == j)
        flipped = rng.choice(members, _round_half_up(rate * len(members)), replace=False)
        if kind == "symmetric":
            noisy[flipped] = (j + rng.randint(1, n_classes, size=len(flipped))) % n_classes
        else:
            noisy[flipped] = (j + 1) % n_classes
    return classes[noisy]


# --------------------------------------------------------------------------------------------
# loaders of the shipped files


def _load_npz(filename):
    with np.load(DATA_DIR / filename, allow_pickle=False) as data:
        return {key: data[key] for key in data.files}


def _check_name(name, known, aliases=None):
    aliases = aliases or {}
    if isinstance(name, str):
        key = name.strip().lower()
        key = aliases.get(key, key)
        if key in known:
            return key
    raise ValueError(f"`name` must be one of {sorted(known)}. Got {name!r} instead.")


def list_uci():
    """Names of the binary UCI sets that :func:`load_uci` reads.

    Returns
    -------
    names : list of str
        Sorted names.

    Examples
    --------
    >>> from weakcvx.datasets import list_uci
    >>> "ionosphere" in list_uci()
    True
    """
    return sorted(UCI_POSITIVE_CLASS)


def load_uci(name, standardize=True):
    """Load a binary UCI benchmark set shipped with weakcvx (no download).

    The sets come from the raw KEEL files (nominal columns one-hot encoded, see
    ``weakcvx/data/README.md`` for sources, licences, conversion and known defects). The
    class mapped to +1 is the minority class of each set:

    ==========  ===================  =====  ========  ======================
    name        +1 class             rows   features  aliases
    ==========  ===================  =====  ========  ======================
    australian  ``1`` (UCI ``+``)    690    38
    bupa        ``1``                345    6         liver, liver-disorders
    chess       ``nowin``            3196   38        kr-vs-kp, krvskp
    crx         ``positive``         653    42        credit-a
    german      ``2`` (bad)          1000   59
    haberman    ``positive`` (died)  306    3
    heart       ``2`` (disease)      270    20        heart-statlog
    housevotes  ``republican``       232    16        house-votes, vote
    ionosphere  ``b`` (bad)          351    33
    magic       ``h`` (hadron)       19020  10        magic-gamma, magic04
    pima        ``tested_positive``  768    8         diabetes
    sonar       ``R`` (rock)         208    60
    spambase    ``1`` (spam)         4597   57
    wdbc        ``M`` (malignant)    569    30
    ==========  ===================  =====  ========  ======================

    Parameters
    ----------
    name : str
        One of :func:`list_uci` or an alias above (case-insensitive).
    standardize : bool, default=True
        Scale every column to zero mean and unit variance (constant columns become 0).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), dtype float64
    y : ndarray of shape (n_samples,)
        Labels in {-1, +1}.

    Examples
    --------
    >>> from weakcvx.datasets import load_uci
    >>> X, y = load_uci("ionosphere")
    >>> X.shape, int((y == 1).sum())
    ((351, 33), 126)
    """
    name = _check_name(name, UCI_POSITIVE_CLASS, UCI_ALIASES)
    standardize = _check_bool("standardize", standardize)
    data = _load_npz(f"uci_{name}.npz")
    X = data["X"].astype(np.float64)
    y = np.where(data["y"] == UCI_POSITIVE_CLASS[name], 1, -1).astype(np.int64)
    return (standardize_columns(X) if standardize else X), y


def _class_order(labels):
    try:
        return sorted(labels, key=float)
    except ValueError:
        return sorted(labels)


def list_multiclass():
    """Names of the multiclass sets that :func:`load_multiclass` reads.

    Returns
    -------
    names : list of str

    Examples
    --------
    >>> from weakcvx.datasets import list_multiclass
    >>> list_multiclass()
    ['letter', 'penbased', 'satimage', 'segment']
    """
    return list(MULTICLASS_SETS)


def load_multiclass(name, standardize=True):
    """Load a multiclass UCI set shipped with weakcvx, for partial-label experiments.

    ========  ======  ========  =======  ==========================================
    name      rows    features  classes  original classes (in the order 0..k-1)
    ========  ======  ========  =======  ==========================================
    letter    20000   16        26       A..Z
    penbased  10992   16        10       digits 0..9
    satimage  6435    36        6        1, 2, 3, 4, 5, 7
    segment   2310    19        7        1..7
    ========  ======  ========  =======  ==========================================

    Parameters
    ----------
    name : str
        One of :func:`list_multiclass` (case-insensitive).
    standardize : bool, default=True
        Scale every column to zero mean and unit variance (constant columns become 0).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), dtype float64
    y : ndarray of shape (n_samples,)
        Class indices 0..k-1: the original class labels sorted (numerically when numeric).

    Examples
    --------
    >>> import numpy as np
    >>> from weakcvx.datasets import load_multiclass
    >>> X, y = load_multiclass("segment")
    >>> X.shape, np.bincount(y).tolist()
    ((2310, 19), [330, 330, 330, 330, 330, 330, 330])
    """
    name = _check_name(name, MULTICLASS_SETS)
    standardize = _check_bool("standardize", standardize)
    data = _load_npz(f"multiclass_{name}.npz")
    X = data["X"].astype(np.float64)
    labels, index = np.unique(data["y"], return_inverse=True)
    order = _class_order(labels.tolist())
    rank = np.array([order.index(label) for label in labels.tolist()])
    y = rank[index]
    return (standardize_columns(X) if standardize else X), y.astype(np.int64)


def list_mil():
    """Names of the multi-instance sets that :func:`load_mil` reads.

    Returns
    -------
    names : list of str

    Examples
    --------
    >>> from weakcvx.datasets import list_mil
    >>> list_mil()
    ['elephant', 'musk1', 'musk2']
    """
    return list(MIL_SETS)


def load_mil(name):
    """Load a multi-instance benchmark shipped with weakcvx (raw features, no scaling).

    ========  =========  ========  ====  =============  ==========
    name      instances  features  bags  positive bags  bag sizes
    ========  =========  ========  ====  =============  ==========
    elephant  1391       230       200   100            2-13
    musk1     476        166       92    47             2-40
    musk2     6598       166       102   39             1-1044
    ========  =========  ========  ====  =============  ==========

    The files carry bag labels only (no instance labels). Fox and Tiger are not shipped.

    Parameters
    ----------
    name : str
        One of :func:`list_mil` (case-insensitive).

    Returns
    -------
    bags : list of ndarray of shape (n_i, n_features), dtype float64
        The bags in the order of their ids in the source file.
    y : ndarray of shape (n_bags,)
        Bag labels in {0, 1}.

    Examples
    --------
    >>> from weakcvx.datasets import load_mil
    >>> bags, y = load_mil("musk1")
    >>> len(bags), bags[0].shape[1], int(y.sum())
    (92, 166, 47)
    """
    name = _check_name(name, MIL_SETS)
    data = _load_npz(f"mil_{name}.npz")
    X, bag_ids = data["X"].astype(np.float64), data["bag_ids"]
    ids, index = np.unique(bag_ids, return_inverse=True)
    order = np.argsort(index, kind="stable")
    bags = np.split(X[order], np.cumsum(np.bincount(index))[:-1])
    return bags, data["bag_labels"].astype(np.int64)
