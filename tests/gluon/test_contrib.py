"""gluon.contrib.nn: branch containers and pixel shuffling, against NumPy
definitions, eager and hybridized."""

import numpy as np
import pytest

import dlbook as mx
from dlbook import nd
from dlbook.gluon import nn
from dlbook.gluon.contrib import nn as contrib_nn


def shuffle_reference(x, factors):
    """y[n, c, h*f1 + i, ...] = x[n, ((c*f1 + i)*f2 + j)..., h, ...]."""
    n, channels = x.shape[:2]
    spatial = x.shape[2:]
    d = len(factors)
    c = channels // int(np.prod(factors))
    y = x.reshape((n, c) + tuple(factors) + spatial)
    # (N, C, f1..fd, S1..Sd) -> (N, C, S1, f1, ..., Sd, fd)
    order = [0, 1] + [a for i in range(d) for a in (2 + d + i, 2 + i)]
    y = y.transpose(order)
    return y.reshape((n, c) + tuple(s * f for s, f in zip(spatial, factors)))


@pytest.mark.parametrize(
    'layer, shape, factors',
    [
        (contrib_nn.PixelShuffle1D(3), (2, 6, 5), (3,)),
        (contrib_nn.PixelShuffle2D((2, 3)), (2, 12, 4, 5), (2, 3)),
        (contrib_nn.PixelShuffle2D(2), (1, 8, 3, 3), (2, 2)),
        (contrib_nn.PixelShuffle3D((2, 1, 3)), (2, 12, 2, 3, 4), (2, 1, 3)),
    ],
)
def test_pixel_shuffle_matches_the_definition(layer, shape, factors):
    x = np.random.RandomState(0).rand(*shape).astype(np.float32)
    want = shuffle_reference(x, factors)
    np.testing.assert_array_equal(layer(nd.array(x)).asnumpy(), want)
    layer.hybridize()
    np.testing.assert_array_equal(layer(nd.array(x)).asnumpy(), want)


def test_pixel_shuffle_gradient_is_the_inverse_shuffle():
    layer = contrib_nn.PixelShuffle2D(2)
    x = nd.array(np.random.RandomState(1).rand(1, 8, 2, 3))
    x.attach_grad()
    head = np.random.RandomState(2).rand(1, 2, 4, 6).astype(np.float32)
    with mx.autograd.record():
        y = layer(x)
    y.backward(nd.array(head))
    # every input element lands in exactly one output element
    np.testing.assert_allclose(
        (x.grad.asnumpy() * x.asnumpy()).sum(),
        (head * y.asnumpy()).sum(),
        rtol=1e-5,
    )


def test_pixel_shuffle_repr_and_bad_factor():
    assert repr(contrib_nn.PixelShuffle2D(2)) == 'PixelShuffle2D((2, 2))'
    assert repr(contrib_nn.PixelShuffle1D(3)) == 'PixelShuffle1D(3)'
    with pytest.raises(ValueError, match='wrong length 2 of factor'):
        contrib_nn.PixelShuffle3D((2, 2))


@pytest.mark.parametrize(
    'container', [contrib_nn.Concurrent, contrib_nn.HybridConcurrent]
)
def test_concurrent_concatenates_its_branches(container):
    net = container(axis=1)
    with net.name_scope():
        net.add(
            nn.Dense(3, in_units=4),
            nn.Dense(2, in_units=4),
            contrib_nn.Identity(),
        )
    net.initialize()
    x = nd.array(np.random.RandomState(3).rand(5, 4))
    out = net(x).asnumpy()
    dense_a, dense_b = net[0], net[1]
    want = np.concatenate(
        [dense_a(x).asnumpy(), dense_b(x).asnumpy(), x.asnumpy()], axis=1
    )
    np.testing.assert_allclose(out, want, rtol=1e-6)
    if container is contrib_nn.HybridConcurrent:
        net.hybridize()
        np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-6)
