"""Convolution by hand and the CNN blocks of chapters 8 and 9."""

import numpy as np
import pytest

import dlbook as mx
from dlbook import autograd, gluon, nd
from dlbook.book import cnn
from dlbook.gluon import nn


def _np(x):
    return x.asnumpy()


# -- corr2d and friends ------------------------------------------------------


def test_corr2d_matches_the_book():
    X = nd.array([[0, 1, 2], [3, 4, 5], [6, 7, 8]])
    K = nd.array([[0, 1], [2, 3]])
    np.testing.assert_array_equal(_np(cnn.corr2d(X, K)), [[19, 25], [37, 43]])


def test_corr2d_agrees_with_the_convolution_operator():
    rng = np.random.RandomState(0)
    X, K = rng.normal(size=(6, 7)), rng.normal(size=(3, 2))
    got = cnn.corr2d(nd.array(X), nd.array(K))
    ref = nd.Convolution(
        nd.array(X).reshape((1, 1, 6, 7)),
        nd.array(K).reshape((1, 1, 3, 2)),
        no_bias=True,
        kernel=(3, 2),
        num_filter=1,
    )
    np.testing.assert_allclose(_np(got), _np(ref)[0, 0], rtol=1e-5, atol=1e-5)


def test_corr2d_detects_a_vertical_edge():
    X = nd.ones((6, 8))
    X[:, 2:6] = 0
    Y = cnn.corr2d(X, nd.array([[1, -1]]))
    expected = np.zeros((6, 7))
    expected[:, 1], expected[:, 5] = 1, -1
    np.testing.assert_array_equal(_np(Y), expected)
    # a horizontal kernel does not see a vertical edge
    assert not _np(cnn.corr2d(X.T, nd.array([[1, -1]]))).any()


def test_multi_channel_cross_correlations():
    X = nd.array(
        [[[0, 1, 2], [3, 4, 5], [6, 7, 8]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]]]
    )
    K = nd.array([[[0, 1], [2, 3]], [[1, 2], [3, 4]]])
    np.testing.assert_array_equal(
        _np(cnn.corr2d_multi_in(X, K)), [[56, 72], [104, 120]]
    )
    K3 = nd.stack(K, K + 1, K + 2)
    Y = cnn.corr2d_multi_in_out(X, K3)
    assert Y.shape == (3, 2, 2)
    np.testing.assert_array_equal(_np(Y[0]), [[56, 72], [104, 120]])
    np.testing.assert_array_equal(_np(Y[1]), [[76, 100], [148, 172]])


def test_1x1_convolution_is_a_matrix_product():
    X = nd.random.normal(shape=(3, 3, 3))
    K = nd.random.normal(shape=(2, 3, 1, 1))
    np.testing.assert_allclose(
        _np(cnn.corr2d_multi_in_out_1x1(X, K)),
        _np(cnn.corr2d_multi_in_out(X, K)),
        rtol=1e-5,
        atol=1e-5,
    )


def test_pool2d_max_and_avg():
    X = nd.arange(9).reshape((3, 3))
    np.testing.assert_array_equal(_np(cnn.pool2d(X, (2, 2))), [[4, 5], [7, 8]])
    np.testing.assert_array_equal(
        _np(cnn.pool2d(X, (2, 2), 'avg')), [[2, 3], [5, 6]]
    )
    with pytest.raises(ValueError, match="'max' or 'avg'"):
        cnn.pool2d(X, (2, 2), 'sum')


# -- output shapes -----------------------------------------------------------


@pytest.mark.parametrize(
    'n, k, p, s',
    [
        (8, 3, 1, 1),
        (8, 3, 0, 1),
        (8, 5, 2, 1),
        (8, 3, 1, 2),
        (8, 3, 0, 3),
        (28, 5, 2, 1),
        (7, 2, 0, 2),
        ((8, 6), (5, 3), (0, 1), (3, 4)),
    ],
)
def test_conv_output_shape_agrees_with_conv2d(n, k, p, s):
    n2 = n if isinstance(n, tuple) else (n, n)
    conv = nn.Conv2D(1, kernel_size=k, padding=p, strides=s)
    got = cnn.comp_conv2d(conv, nd.random.uniform(shape=n2)).shape
    assert cnn.conv_output_shape(n, k, padding=p, strides=s) == got


def test_conv_output_shape_rejects_a_window_that_does_not_fit():
    with pytest.raises(ValueError, match='does not fit'):
        cnn.conv_output_shape((2, 2), 5)


def test_comp_conv2d_works_for_pooling_and_keeps_trained_weights():
    pool = nn.MaxPool2D(pool_size=3, padding=1, strides=2)
    assert cnn.comp_conv2d(pool, nd.ones((8, 8))).shape == (4, 4)
    conv = nn.Conv2D(1, kernel_size=3, padding=1)
    cnn.comp_conv2d(conv, nd.ones((8, 8)))
    before = _np(conv.weight.data()).copy()
    cnn.comp_conv2d(conv, nd.ones((8, 8)))
    np.testing.assert_array_equal(_np(conv.weight.data()), before)


def test_learning_the_edge_kernel_with_conv2d():
    """The d2l experiment: a 1x2 kernel learned from X and Y = corr2d(X, K)."""
    X = nd.ones((6, 8))
    X[:, 2:6] = 0
    Y = cnn.corr2d(X, nd.array([[1, -1]]))
    conv2d = nn.Conv2D(1, kernel_size=(1, 2), use_bias=False)
    conv2d.initialize()
    X, Y = X.reshape((1, 1, 6, 8)), Y.reshape((1, 1, 6, 7))
    for _ in range(10):
        with autograd.record():
            loss = (conv2d(X) - Y) ** 2
        loss.backward()
        conv2d.weight.data()[:] -= 3e-2 * conv2d.weight.grad()
    final = float(loss.sum().asscalar())
    assert final < 0.05
    np.testing.assert_allclose(
        _np(conv2d.weight.data()).ravel(), [1, -1], atol=0.1
    )


# -- modern CNN blocks -------------------------------------------------------


def test_vgg_and_nin_blocks_shapes():
    blk = cnn.vgg_block(2, 8)
    blk.initialize()
    assert blk(nd.ones((1, 3, 16, 16))).shape == (1, 8, 8, 8)
    net = cnn.vgg(((1, 8), (1, 16)), fc_units=32)
    net.initialize()
    assert net(nd.ones((2, 1, 16, 16))).shape == (2, 10)
    nin = cnn.nin_block(8, kernel_size=5, strides=1, padding=2)
    nin.initialize()
    assert nin(nd.ones((1, 1, 8, 8))).shape == (1, 8, 8, 8)
    assert len(nin) == 3


def test_batch_norm_training_normalizes_per_channel():
    X = nd.random.normal(loc=3, scale=2, shape=(8, 3, 4, 4))
    gamma, beta = nd.ones((1, 3, 1, 1)), nd.zeros((1, 3, 1, 1))
    mean0, var0 = nd.zeros((1, 3, 1, 1)), nd.ones((1, 3, 1, 1))
    with autograd.train_mode():
        Y, mean, var = cnn.batch_norm(
            X, gamma, beta, mean0, var0, eps=1e-5, momentum=0.9
        )
    y = _np(Y)
    np.testing.assert_allclose(y.mean(axis=(0, 2, 3)), 0, atol=1e-5)
    np.testing.assert_allclose(y.var(axis=(0, 2, 3)), 1, atol=1e-3)
    x = _np(X)
    np.testing.assert_allclose(
        _np(mean).ravel(), 0.1 * x.mean(axis=(0, 2, 3)), rtol=1e-5
    )
    np.testing.assert_allclose(
        _np(var).ravel(), 0.9 + 0.1 * x.var(axis=(0, 2, 3)), rtol=1e-5
    )


def test_batch_norm_prediction_uses_the_running_statistics():
    X = nd.random.normal(shape=(4, 2))
    mean, var = nd.array([[1.0, -1.0]]), nd.array([[4.0, 0.25]])
    Y, mean2, var2 = cnn.batch_norm(
        X, nd.ones((1, 2)), nd.zeros((1, 2)), mean, var, eps=0.0, momentum=0.9
    )
    expected = (_np(X) - [1.0, -1.0]) / np.sqrt([4.0, 0.25])
    np.testing.assert_allclose(_np(Y), expected, rtol=1e-5, atol=1e-6)
    assert mean2 is mean and var2 is var


def test_batch_norm_rejects_3d_input_in_training():
    with autograd.train_mode(), pytest.raises(ValueError, match='2-D or 4-D'):
        cnn.batch_norm(nd.ones((2, 3, 4)), 1, 0, 0, 1, 1e-5, 0.9)


def test_scratch_batchnorm_layer_matches_gluon_batchnorm():
    X = nd.random.normal(loc=1, scale=3, shape=(6, 4, 3, 3))
    ours = cnn.BatchNorm(4, num_dims=4)
    theirs = nn.BatchNorm(in_channels=4)
    ours.initialize()
    theirs.initialize()
    for _ in range(2):
        with autograd.record():
            y_ours, y_theirs = ours(X), theirs(X)
        np.testing.assert_allclose(
            _np(y_ours), _np(y_theirs), rtol=1e-4, atol=1e-4
        )
    np.testing.assert_allclose(
        _np(ours.moving_mean).ravel(),
        _np(theirs.running_mean.data()),
        rtol=1e-4,
        atol=1e-5,
    )
    # prediction mode: the running statistics, for both
    np.testing.assert_allclose(
        _np(ours(X)), _np(theirs(X)), rtol=1e-3, atol=1e-3
    )


def test_scratch_batchnorm_learns_gamma_and_beta_only():
    layer = cnn.BatchNorm(3, num_dims=2)
    layer.initialize()
    names = sorted(layer.collect_params().keys())
    assert [n.split('_')[-1] for n in names] == ['beta', 'gamma']
    with autograd.record():
        loss = layer(nd.random.normal(shape=(5, 3))).sum()
    loss.backward()
    assert layer.gamma.grad().shape == (1, 3)
    with pytest.raises(ValueError, match='num_dims'):
        cnn.BatchNorm(3, num_dims=3)


@pytest.mark.parametrize(
    'use_1x1conv, strides, out_shape',
    [(False, 1, (4, 3, 6, 6)), (True, 2, (4, 6, 3, 3))],
)
def test_residual_block_shapes(use_1x1conv, strides, out_shape):
    blk = cnn.Residual(out_shape[1], use_1x1conv=use_1x1conv, strides=strides)
    blk.initialize()
    assert blk(nd.random.uniform(shape=(4, 3, 6, 6))).shape == out_shape


def test_residual_block_hybridizes_to_the_same_output():
    blk = cnn.Residual(4, use_1x1conv=True)
    blk.initialize()
    X = nd.random.uniform(shape=(2, 3, 5, 5))
    eager = _np(blk(X))
    blk.hybridize()
    np.testing.assert_allclose(_np(blk(X)), eager, rtol=1e-5, atol=1e-6)


def test_resnet18_small():
    net = cnn.resnet18(10, base_channels=4)
    net.initialize()
    assert net(nd.random.uniform(shape=(2, 1, 32, 32))).shape == (2, 10)
    stage = cnn.resnet_block(8, 2)
    stage.initialize()
    assert stage(nd.ones((1, 4, 8, 8))).shape == (1, 8, 4, 4)


def test_resnet18_trains_one_step():
    net = cnn.resnet18(10, base_channels=4)
    net.initialize(init=mx.init.Xavier())
    trainer = gluon.Trainer(
        net.collect_params(), 'sgd', {'learning_rate': 0.1}
    )
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    X, y = nd.random.uniform(shape=(4, 1, 16, 16)), nd.array([0, 1, 2, 3])
    with autograd.record():
        l = loss(net(X), y)
    l.backward()
    trainer.step(4)
    assert np.isfinite(_np(l)).all()
