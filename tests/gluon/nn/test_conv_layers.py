"""Convolution, transposed convolution, pooling and padding layers against
direct NumPy loops, with gradient checks, reprs, names and layouts."""

import itertools

import numpy as np
import pytest

from dlbook import initializer as init
from dlbook import nd
from dlbook.gluon import nn
from dlbook.name import NameManager
from dlbook.test_utils import assert_almost_equal

from ._helpers import check_gradients, rand, value

TOL = {'rtol': 1e-4, 'atol': 1e-5}


# -- NumPy references: one loop over output (or input) positions ------------


def np_conv(x, w, b, stride, pad, dilate, groups):
    """y[n, f, o] = b[f] + sum_{c,k} w[f, c, k] x_pad[n, g*Cg+c, o*s+k*d]."""
    nd_ = x.ndim - 2
    x = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    kernel = w.shape[2:]
    out = [
        (x.shape[2 + i] - dilate[i] * (kernel[i] - 1) - 1) // stride[i] + 1
        for i in range(nd_)
    ]
    y = np.zeros((x.shape[0], w.shape[0]) + tuple(out))
    cg, fg = w.shape[1], w.shape[0] // groups
    for o in itertools.product(*[range(n) for n in out]):
        window = tuple(
            slice(
                o[i] * stride[i],
                o[i] * stride[i] + dilate[i] * (kernel[i] - 1) + 1,
                dilate[i],
            )
            for i in range(nd_)
        )
        for g in range(groups):
            patch = x[(slice(None), slice(g * cg, (g + 1) * cg)) + window]
            wg = w[g * fg : (g + 1) * fg]
            y[(slice(None), slice(g * fg, (g + 1) * fg)) + o] = (
                patch.reshape(len(x), -1) @ wg.reshape(fg, -1).T
            )
    if b is not None:
        y += b.reshape((1, -1) + (1,) * nd_)
    return y


def np_deconv(x, w, b, stride, pad, dilate, adj, groups):
    """Each x[n, c, i] adds x * w[c, f, k] to y[n, f, i*s + k*d - p]."""
    nd_ = x.ndim - 2
    kernel = w.shape[2:]
    cg, fg = x.shape[1] // groups, w.shape[1]
    full = [
        (x.shape[2 + i] - 1) * stride[i]
        + dilate[i] * (kernel[i] - 1)
        + 1
        + adj[i]
        for i in range(nd_)
    ]
    y = np.zeros((x.shape[0], fg * groups) + tuple(full))
    for i in itertools.product(*[range(n) for n in x.shape[2:]]):
        window = tuple(
            slice(
                i[a] * stride[a],
                i[a] * stride[a] + dilate[a] * (kernel[a] - 1) + 1,
                dilate[a],
            )
            for a in range(nd_)
        )
        for g in range(groups):
            xs = x[(slice(None), slice(g * cg, (g + 1) * cg)) + i]
            contrib = np.einsum(
                'nc,cf...->nf...', xs, w[g * cg : (g + 1) * cg]
            )
            y[(slice(None), slice(g * fg, (g + 1) * fg)) + window] += contrib
    crop = tuple(slice(p, n - p) for p, n in zip(pad, full))
    y = y[(slice(None), slice(None)) + crop]
    if b is not None:
        y += b.reshape((1, -1) + (1,) * nd_)
    return y


def np_pool(
    x, kernel, stride, pad, pool_type, ceil_mode=False, count_include_pad=True
):
    """Max or average over each window; padding is -inf for max."""
    nd_ = x.ndim - 2
    fill = -np.inf if pool_type == 'max' else 0
    out = []
    for a in range(nd_):
        span = x.shape[2 + a] + 2 * pad[a] - kernel[a]
        out.append(
            (-(-span // stride[a]) if ceil_mode else span // stride[a]) + 1
        )
    # extra room at the end for windows that ceil_mode pushes past it
    after = [
        max(
            pad[a],
            (out[a] - 1) * stride[a] + kernel[a] - x.shape[2 + a] - pad[a],
        )
        for a in range(nd_)
    ]
    xp = np.pad(
        x, [(0, 0), (0, 0)] + list(zip(pad, after)), constant_values=fill
    )
    ones = np.pad(np.ones(x.shape[2:]), list(zip(pad, after)))
    y = np.zeros(x.shape[:2] + tuple(out))
    for o in itertools.product(*[range(n) for n in out]):
        window = tuple(
            slice(o[a] * stride[a], o[a] * stride[a] + kernel[a])
            for a in range(nd_)
        )
        patch = xp[(slice(None), slice(None)) + window]
        if pool_type == 'max':
            y[(slice(None), slice(None)) + o] = patch.reshape(
                x.shape[:2] + (-1,)
            ).max(-1)
            continue
        if count_include_pad:
            # windows are cut at the end of the padded input
            count = np.prod(
                [
                    min(
                        o[a] * stride[a] + kernel[a],
                        x.shape[2 + a] + 2 * pad[a],
                    )
                    - o[a] * stride[a]
                    for a in range(nd_)
                ]
            )
        else:
            count = ones[window].sum()
        y[(slice(None), slice(None)) + o] = (
            patch.reshape(x.shape[:2] + (-1,)).sum(-1) / count
        )
    return y


def params_of(layer, ctx):
    w = value(layer.weight, ctx).astype('float64')
    b = None if layer.bias is None else value(layer.bias, ctx)
    return w, b


def init_layer(layer, ctx):
    layer.initialize(init.Uniform(0.5), ctx=ctx)
    if layer.bias is not None:
        layer.bias.initialize(init.Uniform(0.5), ctx=ctx, force_reinit=True)


# -- convolution -------------------------------------------------------------

CONV_CASES = {
    # name: (factory, input shape, stride, pad, dilate, groups)
    'conv1d': (lambda: nn.Conv1D(4, 3), (2, 3, 7), (1,), (0,), (1,), 1),
    'conv1d_strided': (
        lambda: nn.Conv1D(2, 2, strides=2, padding=1, use_bias=False),
        (1, 2, 5),
        (2,),
        (1,),
        (1,),
        1,
    ),
    'conv2d': (
        lambda: nn.Conv2D(3, (2, 3), strides=(2, 1), padding=1),
        (2, 2, 5, 4),
        (2, 1),
        (1, 1),
        (1, 1),
        1,
    ),
    'conv2d_dilated_groups': (
        lambda: nn.Conv2D(4, 2, dilation=2, groups=2, in_channels=4),
        (1, 4, 5, 5),
        (1, 1),
        (0, 0),
        (2, 2),
        2,
    ),
    'conv3d': (
        lambda: nn.Conv3D(2, 2, padding=(1, 0, 0)),
        (1, 2, 3, 3, 3),
        (1, 1, 1),
        (1, 0, 0),
        (1, 1, 1),
        1,
    ),
}


@pytest.mark.parametrize('case', sorted(CONV_CASES))
def test_convolution(ctx, case):
    make, shape, stride, pad, dilate, groups = CONV_CASES[case]
    layer = make()
    init_layer(layer, ctx)
    x, x_np = rand(shape, ctx)
    y = layer(x)
    w, b = params_of(layer, ctx)
    want = np_conv(x_np.astype('float64'), w, b, stride, pad, dilate, groups)
    assert y.shape == want.shape
    assert_almost_equal(y.asnumpy(), want, **TOL)
    check_gradients(layer, rand(shape, ctx, seed=1)[1], ctx)


def test_convolution_with_activation(ctx):
    layer = nn.Conv2D(2, 3, padding=1, activation='relu')
    init_layer(layer, ctx)
    x, x_np = rand((1, 2, 4, 4), ctx)
    y = layer(x)
    w, b = params_of(layer, ctx)
    want = np.maximum(
        np_conv(x_np.astype('float64'), w, b, (1, 1), (1, 1), (1, 1), 1), 0
    )
    assert_almost_equal(y.asnumpy(), want, **TOL)


DECONV_CASES = {
    # name: (factory, input shape, stride, pad, dilate, adj, groups)
    'deconv1d': (
        lambda: nn.Conv1DTranspose(3, 3, strides=2),
        (2, 2, 4),
        (2,),
        (0,),
        (1,),
        (0,),
        1,
    ),
    'deconv2d': (
        lambda: nn.Conv2DTranspose(
            2, 3, strides=2, padding=1, output_padding=1
        ),
        (1, 3, 3, 3),
        (2, 2),
        (1, 1),
        (1, 1),
        (1, 1),
        1,
    ),
    'deconv2d_groups': (
        lambda: nn.Conv2DTranspose(4, 2, groups=2, dilation=2, use_bias=False),
        (1, 2, 3, 3),
        (1, 1),
        (0, 0),
        (2, 2),
        (0, 0),
        2,
    ),
    'deconv3d': (
        lambda: nn.Conv3DTranspose(2, 2, strides=(1, 2, 1)),
        (1, 2, 2, 2, 2),
        (1, 2, 1),
        (0, 0, 0),
        (1, 1, 1),
        (0, 0, 0),
        1,
    ),
}


@pytest.mark.parametrize('case', sorted(DECONV_CASES))
def test_transposed_convolution(ctx, case):
    make, shape, stride, pad, dilate, adj, groups = DECONV_CASES[case]
    layer = make()
    init_layer(layer, ctx)
    x, x_np = rand(shape, ctx)
    y = layer(x)
    w, b = params_of(layer, ctx)
    # weight (in_channels, channels / groups, *kernel)
    assert w.shape[0] == shape[1]
    want = np_deconv(
        x_np.astype('float64'), w, b, stride, pad, dilate, adj, groups
    )
    assert y.shape == want.shape
    assert_almost_equal(y.asnumpy(), want, **TOL)
    check_gradients(layer, rand(shape, ctx, seed=1)[1], ctx)


def test_conv_repr_names_and_deferred_shape(ctx):
    with NameManager():
        conv = nn.Conv2D(6, kernel_size=5, activation='relu')
        pool = nn.MaxPool2D()
        deconv = nn.Conv2DTranspose(4, 3)
    assert repr(conv) == (
        'Conv2D(None -> 6, kernel_size=(5, 5), '
        'stride=(1, 1), Activation(relu))'
    )
    assert list(conv.collect_params()) == ['conv0_weight', 'conv0_bias']
    assert conv.act.prefix == 'conv0_relu_'
    assert pool.prefix == 'pool0_' and deconv.prefix == 'conv1_'
    assert conv.weight.shape == (6, 0, 5, 5)
    conv.initialize(ctx=ctx)
    conv(nd.ones((1, 1, 8, 8), ctx=ctx))
    assert conv.weight.shape == (6, 1, 5, 5)
    assert repr(conv) == (
        'Conv2D(1 -> 6, kernel_size=(5, 5), stride=(1, 1), Activation(relu))'
    )
    assert deconv.weight.shape == (0, 4, 3, 3)
    deconv.initialize(ctx=ctx)
    deconv(nd.ones((1, 2, 3, 3), ctx=ctx))
    assert deconv.weight.shape == (2, 4, 3, 3)


def test_conv_repr_shows_only_non_defaults():
    layer = nn.Conv2D(
        8,
        3,
        strides=2,
        padding=1,
        dilation=2,
        groups=2,
        use_bias=False,
        in_channels=4,
    )
    assert repr(layer) == (
        'Conv2D(2 -> 8, kernel_size=(3, 3), '
        'stride=(2, 2), padding=(1, 1), '
        'dilation=(2, 2), groups=2, bias=False)'
    )
    assert repr(nn.Conv1D(4, 3)) == (
        'Conv1D(None -> 4, kernel_size=(3,), stride=(1,))'
    )
    assert repr(nn.Conv3D(2, 1, in_channels=3)) == (
        'Conv3D(3 -> 2, kernel_size=(1, 1, 1), stride=(1, 1, 1))'
    )
    # MXNet maps weight.shape[1] -> weight.shape[0] for transposed layers
    # too, and never prints output_padding
    assert repr(
        nn.Conv2DTranspose(4, 2, strides=2, output_padding=1, in_channels=3)
    ) == ('Conv2DTranspose(4 -> 3, kernel_size=(2, 2), stride=(2, 2))')


def test_channels_last_layouts():
    # MXNet 1.9.1: Conv2D(4, 3, layout='NHWC', in_channels=2) has weight
    # (4, 3, 3, 2) and maps (2, 5, 5, 2) to (2, 3, 3, 4); its repr reads
    # weight.shape[1] (a kernel size here), as MXNet's does
    conv = nn.Conv2D(4, 3, layout='NHWC', in_channels=2)
    assert conv.weight.shape == (4, 3, 3, 2)
    assert repr(conv) == 'Conv2D(3 -> 4, kernel_size=(3, 3), stride=(1, 1))'
    conv.initialize()
    assert conv(nd.ones((2, 5, 5, 2))).shape == (2, 3, 3, 4)
    deferred = nn.Conv3D(4, 3, layout='NDHWC')
    deferred.initialize()
    assert deferred(nd.ones((2, 5, 5, 5, 2))).shape == (2, 3, 3, 3, 4)
    assert deferred.weight.shape == (4, 3, 3, 3, 2)
    assert nn.MaxPool1D(layout='NWC')(nd.ones((2, 6, 3))).shape == (2, 3, 3)
    assert nn.GlobalAvgPool2D(layout='NHWC')(nd.ones((2, 5, 5, 2))).shape == (
        2,
        1,
        1,
        2,
    )
    # MXNet 1.9.1 asserts these
    with pytest.raises(AssertionError, match="Only supports 'NCW' layout"):
        nn.Conv1D(2, 3, layout='NWC')
    with pytest.raises(AssertionError, match="Only supports 'NCW' layout"):
        nn.Conv1DTranspose(2, 3, layout='NWC')
    with pytest.raises(AssertionError):
        nn.Conv2D(2, 3, layout='CHWN')


# -- pooling ---------------------------------------------------------------

POOL_CASES = {
    # name: (factory, input shape, kernel, stride, pad, type, ceil, incl)
    'max1d': (
        lambda: nn.MaxPool1D(),
        (2, 2, 6),
        (2,),
        (2,),
        (0,),
        'max',
        False,
        True,
    ),
    'max2d': (
        lambda: nn.MaxPool2D(3, strides=2, padding=1),
        (1, 2, 5, 5),
        (3, 3),
        (2, 2),
        (1, 1),
        'max',
        False,
        True,
    ),
    'max2d_ceil': (
        lambda: nn.MaxPool2D(2, ceil_mode=True),
        (1, 1, 5, 3),
        (2, 2),
        (2, 2),
        (0, 0),
        'max',
        True,
        True,
    ),
    'max3d': (
        lambda: nn.MaxPool3D(2, strides=1),
        (1, 1, 3, 3, 3),
        (2, 2, 2),
        (1, 1, 1),
        (0, 0, 0),
        'max',
        False,
        True,
    ),
    'avg1d': (
        lambda: nn.AvgPool1D(3, 2, 1),
        (1, 2, 6),
        (3,),
        (2,),
        (1,),
        'avg',
        False,
        True,
    ),
    'avg2d': (
        lambda: nn.AvgPool2D(3, strides=1, padding=1),
        (1, 2, 4, 4),
        (3, 3),
        (1, 1),
        (1, 1),
        'avg',
        False,
        True,
    ),
    'avg2d_exclude_pad': (
        lambda: nn.AvgPool2D(3, strides=2, padding=1, count_include_pad=False),
        (1, 1, 5, 5),
        (3, 3),
        (2, 2),
        (1, 1),
        'avg',
        False,
        False,
    ),
    'avg2d_ceil': (
        lambda: nn.AvgPool2D(2, ceil_mode=True),
        (1, 1, 5, 5),
        (2, 2),
        (2, 2),
        (0, 0),
        'avg',
        True,
        True,
    ),
    'avg3d': (
        lambda: nn.AvgPool3D(),
        (1, 2, 4, 2, 2),
        (2, 2, 2),
        (2, 2, 2),
        (0, 0, 0),
        'avg',
        False,
        True,
    ),
}


@pytest.mark.parametrize('case', sorted(POOL_CASES))
def test_pooling(ctx, case):
    make, shape, kernel, stride, pad, kind, ceil, incl = POOL_CASES[case]
    layer = make()
    x, x_np = rand(shape, ctx)
    want = np_pool(
        x_np.astype('float64'), kernel, stride, pad, kind, ceil, incl
    )
    y = layer(x)
    assert y.shape == want.shape
    assert_almost_equal(y.asnumpy(), want, **TOL)
    check_gradients(layer, rand(shape, ctx, seed=1)[1], ctx)


GLOBAL_CASES = {
    'GlobalMaxPool1D': (np.max, (2, 3, 4)),
    'GlobalMaxPool2D': (np.max, (2, 3, 3, 2)),
    'GlobalMaxPool3D': (np.max, (1, 2, 2, 2, 3)),
    'GlobalAvgPool1D': (np.mean, (2, 3, 4)),
    'GlobalAvgPool2D': (np.mean, (2, 3, 3, 2)),
    'GlobalAvgPool3D': (np.mean, (1, 2, 2, 2, 3)),
}


@pytest.mark.parametrize('name', sorted(GLOBAL_CASES))
def test_global_pooling(ctx, name):
    reduce, shape = GLOBAL_CASES[name]
    layer = getattr(nn, name)()
    x, x_np = rand(shape, ctx)
    axes = tuple(range(2, len(shape)))
    y = layer(x)
    assert_almost_equal(
        y.asnumpy(), reduce(x_np, axis=axes, keepdims=True), **TOL
    )
    check_gradients(layer, rand(shape, ctx, seed=1)[1], ctx)


def test_pooling_reprs():
    assert repr(nn.MaxPool2D()) == (
        'MaxPool2D(size=(2, 2), stride=(2, 2), padding=(0, 0), '
        'ceil_mode=False, global_pool=False, pool_type=max, layout=NCHW)'
    )
    assert repr(nn.MaxPool2D(pool_size=3, strides=2)) == (
        'MaxPool2D(size=(3, 3), stride=(2, 2), padding=(0, 0), '
        'ceil_mode=False, global_pool=False, pool_type=max, layout=NCHW)'
    )
    assert repr(nn.AvgPool1D(3, padding=1, ceil_mode=True)) == (
        'AvgPool1D(size=(3,), stride=(3,), padding=(1,), '
        'ceil_mode=True, global_pool=False, pool_type=avg, layout=NCW)'
    )
    assert repr(nn.GlobalAvgPool2D()) == (
        'GlobalAvgPool2D(size=(1, 1), stride=(1, 1), padding=(0, 0), '
        'ceil_mode=True, global_pool=True, pool_type=avg, layout=NCHW)'
    )
    assert repr(nn.GlobalMaxPool3D()) == (
        'GlobalMaxPool3D(size=(1, 1, 1), stride=(1, 1, 1), '
        'padding=(0, 0, 0), ceil_mode=True, global_pool=True, '
        'pool_type=max, layout=NCDHW)'
    )


# -- padding -----------------------------------------------------------------


def test_reflection_pad(ctx):
    layer = nn.ReflectionPad2D(2)
    x, x_np = rand((1, 2, 3, 4), ctx)
    want = np.pad(x_np, [(0, 0), (0, 0), (2, 2), (2, 2)], mode='reflect')
    assert_almost_equal(layer(x).asnumpy(), want)
    check_gradients(layer, rand((1, 1, 3, 3), ctx, seed=1)[1], ctx)
    uneven = nn.ReflectionPad2D((0, 0, 0, 0, 1, 0, 0, 2))
    assert uneven(x).shape == (1, 2, 4, 6)
