"""ProportionSVM warns when the bag proportions cannot tell its labeling from the mirrored one
(every bag near one half), the case where a new-user audit found an inverted classifier
without any warning; it stays silent where the proportions vary."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_moons
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

import weakcvx as wc
from weakcvx.estimators.proportion import ORIENTATION_MARGIN, orientation_margin

X, Y = make_moons(600, noise=0.15, random_state=5)
X = StandardScaler().fit_transform(X)


def _fit(bag_size, seed=1, C=None):
    train, test = train_test_split(np.arange(600), test_size=0.3, random_state=seed, stratify=Y)
    bags, props = wc.datasets.make_bags(X[train], Y[train], bag_size, random_state=seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = wc.ProportionSVM(C=C, random_state=seed).fit(X[train], bags, props)
    warned = [w for w in caught if "complement" in str(w.message)]
    return model, warned, bags, props, np.mean(model.predict(X[test]) == Y[test])


def test_seven_bags_near_one_half_warn_that_the_sign_is_undetermined():
    # C = 1, the default when the audit found the case (the linear default is now 2/3 on
    # these two features, where this split happens to come out the right way round)
    model, warned, bags, props, accuracy = _fit(64, C=1.0)
    assert np.all(np.abs(props - 0.5) < 0.07)      # the proportions carry almost no sign
    assert len(warned) == 1
    assert accuracy < 0.5                          # the case is the inverted classifier


def test_bags_of_varied_proportions_do_not_warn():
    model, warned, _, props, accuracy = _fit(8)
    assert warned == [] and accuracy > 0.8


@pytest.mark.parametrize("seed", range(5))
def test_orientation_margin_is_antisymmetric_and_bounded(seed):
    rng = np.random.default_rng(seed)
    bag_index = rng.integers(0, 6, 60)
    bag_index[:6] = np.arange(6)                   # every bag non-empty
    labels = rng.integers(0, 2, 60).astype(float)
    p = rng.random(6)
    margin = orientation_margin(labels, bag_index, p)
    assert orientation_margin(1.0 - labels, bag_index, p) == pytest.approx(-margin)
    assert -1.0 <= margin <= 1.0
    exact = np.bincount(bag_index, weights=labels) / np.bincount(bag_index)
    # labels that fit the proportions exactly: the margin is the mean of |1 - 2p|
    assert orientation_margin(labels, bag_index, exact) == pytest.approx(
        np.mean(np.abs(1.0 - 2.0 * exact)))
    assert ORIENTATION_MARGIN > 0


def test_rows_that_carry_nothing_are_named_not_the_proportions():
    """Identical rows with varied proportions (0.1-0.9): the warnings name `X`, not proportions
    "near one half" that they are not."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wc.ProportionSVM(random_state=0).fit(np.ones((40, 3)), np.repeat(np.arange(5), 8),
                                             [0.1, 0.3, 0.5, 0.7, 0.9])
    messages = [str(w.message) for w in caught]
    assert any("are the same point" in m for m in messages), messages
    assert not any("near" in m and "one half" in m for m in messages), messages
