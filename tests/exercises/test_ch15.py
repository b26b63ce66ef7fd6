"""Checkers of chapter 15: references pass, typical mistakes explained,
and the notebook's NumPy mode is left as it was."""

import dlbook as mx
from dlbook import nd, np, npx
from dlbook.exercises.checker import run_check

from .failing import fails as _fails


def cross_entropy(y_hat, y):
    return -np.log(y_hat[range(len(y_hat)), y])


def test_cross_entropy_reference_passes_and_mode_is_restored():
    assert not npx.is_np_array()
    assert run_check('ch15.cross_entropy', cross_entropy).passed
    assert not npx.is_np_array() and not npx.is_np_shape()
    npx.set_np()
    try:
        assert run_check('ch15.cross_entropy', cross_entropy).passed
        assert npx.is_np_array() and npx.is_np_shape()
    finally:
        npx.reset_np()


def test_cross_entropy_mistakes():
    _fails(
        'ch15.cross_entropy',
        lambda y_hat, y: np.log(y_hat[range(len(y_hat)), y]),
        'MINUS the log',
    )
    _fails(
        'ch15.cross_entropy',
        lambda y_hat, y: -np.log(y_hat),
        'one value per class',
    )
    _fails(
        'ch15.cross_entropy',
        lambda y_hat, y: (
            -nd.pick(y_hat.as_nd_ndarray(), y.as_nd_ndarray()).log()
        ),
        'legacy NDArray',
    )


def accuracy(y_hat, y):
    cmp = y_hat.argmax(axis=1).astype(y.dtype) == y
    return float(cmp.astype(y.dtype).sum())


def test_accuracy_reference_passes():
    assert run_check('ch15.accuracy', accuracy).passed


def test_accuracy_mistakes():
    _fails(
        'ch15.accuracy',
        lambda y_hat, y: accuracy(y_hat, y) / len(y),
        'that is the fraction',
    )
    _fails(
        'ch15.accuracy',
        lambda y_hat, y: (y_hat.argmax(axis=1).astype(y.dtype) == y).sum(),
        'expected a Python float',
        'float(...)',
    )


def masked_mean(x, mask):
    return x[mask].mean()


def test_masked_mean_reference_passes():
    assert run_check('ch15.masked_mean', masked_mean).passed


def test_masked_mean_multiplying_is_explained():
    _fails(
        'ch15.masked_mean',
        lambda x, mask: (x * mask).mean(),
        'masked ones counted as 0',
    )
    _fails('ch15.masked_mean', lambda x, mask: x[mask], 'expected a 0-d array')


def load_legacy(fname):
    with mx.util.np_array(False):
        with mx.util.np_shape(False):
            loaded = nd.load(fname)
    return {k: v.as_np_ndarray() for k, v in loaded.items()}


def test_load_legacy_reference_passes():
    assert run_check('ch15.load_legacy', load_legacy).passed


def test_load_legacy_mistakes():
    _fails(
        'ch15.load_legacy',
        lambda fname: nd.load(fname) and dict(nd.load(fname)),
        'legacy NDArray',
    )

    def switching_off(fname):
        npx.reset_np()
        return {k: v.as_np_ndarray() for k, v in nd.load(fname).items()}

    _fails('ch15.load_legacy', switching_off, 'np mode is off')
    _fails(
        'ch15.load_legacy',
        lambda fname: list(npx.load(fname)),
        'expected a dict',
    )
