"""scikit-learn's bundled handwritten digits, shaped like the tutorial's 28x28 MNIST input."""
import numpy as np


def load_digits_28(test_fraction=0.2, seed=0):
    """(x_train, y_train, x_test, y_test): float32 images (N, 1, 28, 28) in [0, 1] and labels.

    The 8x8 digits (values 0..16) are upscaled 3x by pixel repetition to 24x24 and padded
    with a 2-pixel border to 28x28. The split is stratified by class and fixed by ``seed``.
    """
    from sklearn.datasets import load_digits
    digits = load_digits()
    images = np.kron(digits.images / 16.0, np.ones((3, 3)))
    images = np.pad(images, ((0, 0), (2, 2), (2, 2)))[:, None].astype(np.float32)
    labels = digits.target.astype(np.float32)
    train, test = _stratified_split(digits.target, test_fraction, seed)
    return images[train], labels[train], images[test], labels[test]


def _stratified_split(labels, test_fraction, seed):
    """Index arrays (train, test) with ``test_fraction`` of every class in the test part."""
    rng = np.random.RandomState(seed)
    test = []
    for c in np.unique(labels):
        idx = rng.permutation(np.flatnonzero(labels == c))
        test.extend(idx[:int(round(len(idx) * test_fraction))])
    test = np.sort(np.array(test))
    train = np.setdiff1d(np.arange(len(labels)), test)
    return rng.permutation(train), test
