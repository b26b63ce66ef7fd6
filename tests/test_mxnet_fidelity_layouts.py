"""Channels-last layouts (NWC, NHWC, NDHWC) of Convolution, Pooling and
BatchNorm(axis=...), with values recorded from MXNet 1.9.1.

MXNet 1.9.1's CPU build computes channels-last average and global
pooling and 1-D max pooling, and infers every shape; its NHWC
convolution and 2-D max pooling need a GPU.  For those the expected
values are MXNet's NCHW results on the transposed arrays (what its GPU
kernels compute).
"""

import numpy as np

import dlbook as mx
from dlbook import nd

X = np.arange(2 * 5 * 5 * 2).reshape(2, 5, 5, 2) / 100.0
W = (np.arange(4 * 3 * 3 * 2).reshape(4, 3, 3, 2) - 30) / 100.0


def test_nhwc_convolution_values_and_gradient():
    x, w = nd.array(X), nd.array(W)
    b = nd.array([0.1, 0.2, 0.3, 0.4])
    x.attach_grad()
    w.attach_grad()
    with mx.autograd.record():
        y = nd.Convolution(
            x,
            w,
            b,
            kernel=(3, 3),
            num_filter=4,
            stride=(2, 1),
            pad=(1, 0),
            layout='NHWC',
        )
    assert y.shape == (2, 3, 3, 4)
    # MXNet 1.9.1 (NCHW on transposed arrays), y[1, 1, 2, :]
    np.testing.assert_allclose(
        y.asnumpy()[1, 1, 2],
        [-2.7833002, -0.2047, 2.3739, 4.9525003],
        rtol=1e-5,
        atol=1e-6,
    )
    y.backward()
    # the gradients equal the channels-first ones, moved back
    xf = nd.array(X.transpose(0, 3, 1, 2))
    wf = nd.array(W.transpose(0, 3, 1, 2))
    xf.attach_grad()
    wf.attach_grad()
    with mx.autograd.record():
        yf = nd.Convolution(
            xf, wf, b, kernel=(3, 3), num_filter=4, stride=(2, 1), pad=(1, 0)
        )
    yf.backward()
    np.testing.assert_allclose(
        x.grad.asnumpy(), xf.grad.asnumpy().transpose(0, 2, 3, 1), rtol=1e-6
    )
    np.testing.assert_allclose(
        w.grad.asnumpy(), wf.grad.asnumpy().transpose(0, 2, 3, 1), rtol=1e-6
    )


def test_channels_last_pooling_values():
    x = nd.array(X)
    # MXNet 1.9.1 values
    avg = nd.Pooling(
        x,
        kernel=(3, 3),
        stride=(2, 2),
        pad=(1, 1),
        pool_type='avg',
        layout='NHWC',
    )
    np.testing.assert_allclose(
        avg.asnumpy()[1, 1, 2], [0.51333332, 0.52], rtol=1e-6
    )
    excl = nd.Pooling(
        x,
        kernel=(3, 3),
        stride=(2, 2),
        pad=(1, 1),
        pool_type='avg',
        count_include_pad=False,
        layout='NHWC',
    )
    np.testing.assert_allclose(
        excl.asnumpy()[1, 0, 0], [0.56, 0.57], rtol=1e-6
    )
    gmax = mx.gluon.nn.GlobalMaxPool2D(layout='NHWC')(x)
    np.testing.assert_allclose(
        gmax.asnumpy().ravel(), [0.48, 0.49, 0.98, 0.99], rtol=1e-6
    )
    gavg = mx.gluon.nn.GlobalAvgPool2D(layout='NHWC')(x)
    np.testing.assert_allclose(
        gavg.asnumpy().ravel(), [0.24, 0.25, 0.74, 0.75], rtol=1e-5
    )
    one = mx.gluon.nn.MaxPool1D(layout='NWC')(
        nd.array(np.arange(36).reshape(2, 6, 3))
    )
    assert one.asnumpy()[0].tolist() == [[3, 4, 5], [9, 10, 11], [15, 16, 17]]
    # MXNet's own 2-D max pooling in NHWC needs a GPU; channels-first on
    # moved axes gives these
    mp = mx.gluon.nn.MaxPool2D(layout='NHWC')(x)
    np.testing.assert_allclose(
        mp.asnumpy().ravel()[:4], [0.12, 0.13, 0.16, 0.17], rtol=1e-6
    )


def test_channels_last_symbol_shapes():
    data = mx.sym.var('data')
    conv = mx.sym.Convolution(
        data, kernel=(3, 3), num_filter=4, layout='NHWC', name='c'
    )
    # MXNet 1.9.1
    assert conv.infer_shape(data=(2, 5, 5, 2)) == (
        [(2, 5, 5, 2), (4, 3, 3, 2), (4,)],
        [(2, 3, 3, 4)],
        [],
    )
    deconv = mx.sym.Deconvolution(
        data,
        kernel=(3, 3),
        num_filter=4,
        layout='NHWC',
        name='d',
        stride=(2, 2),
    )
    assert deconv.infer_shape(data=(2, 5, 5, 2)) == (
        [(2, 5, 5, 2), (2, 3, 3, 4)],
        [(2, 11, 11, 4)],
        [],
    )
    assert mx.gluon.nn.Conv2DTranspose(
        4, 3, layout='NHWC', in_channels=2
    ).weight.shape == (2, 3, 3, 4)
    pool = mx.sym.Pooling(data, kernel=(2, 2), stride=(2, 2), layout='NHWC')
    assert pool.infer_shape(data=(2, 5, 5, 2)) == (
        [(2, 5, 5, 2)],
        [(2, 2, 2, 2)],
        [],
    )


def test_hybridized_nhwc_network_matches_eager():
    net = mx.gluon.nn.HybridSequential()
    net.add(
        mx.gluon.nn.Conv2D(3, 3, layout='NHWC', padding=1),
        mx.gluon.nn.BatchNorm(axis=3),
        mx.gluon.nn.MaxPool2D(layout='NHWC'),
        mx.gluon.nn.Dense(2),
    )
    net.initialize()
    x = nd.array(X)
    eager = net(x)
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), eager.asnumpy(), rtol=1e-5)


def test_batchnorm_on_the_last_axis():
    bn = mx.gluon.nn.BatchNorm(axis=3)
    bn.initialize()
    x = nd.array(X)
    with mx.autograd.record():
        y = bn(x)
    # MXNet 1.9.1: gamma (2,), y[0, 0, 0] in training
    assert bn.gamma.shape == (2,)
    np.testing.assert_allclose(
        y.asnumpy()[0, 0, 0], [-1.6976476, -1.6976476], rtol=1e-5
    )
