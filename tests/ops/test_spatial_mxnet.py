"""The spatial operators (``GridGenerator``, ``BilinearSampler``,
``SpatialTransformer``, ``contrib.BilinearResize2D``,
``contrib.AdaptiveAvgPooling2D``, ``contrib.ROIAlign``, ``Crop``,
``Correlation``) against values printed by MXNet 1.9.1 (recorded here;
MXNet is not imported), their symbol forms run by an executor, and their
error messages.

Each recorded entry holds MXNet's output ``y`` and the input gradients
for the head gradient ``1, 2, ..., y.size`` in ``y``'s shape.
"""

import numpy as np
import pytest

import dlbook as mx
from dlbook import autograd, nd
from dlbook.base import DLBookError

# fmt: off
AFFINE = {"y": [[[[-1.1, -0.1, 0.9], [-0.7, 0.3, 1.3]], [[-0.45, -0.75, -1.05], [1.15, 0.85, 0.55]]]], "grads": [[[4.0, 9.0, 21.0, 4.0, 9.0, 57.0]]]}
WARP = {"y": [[[[-1.5, -0.4, 0.7], [-1.2, -0.1, 1.0]], [[-0.8, -0.6, -0.4], [1.8, 2.0, 2.2]]]], "grads": [[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[14.0, 16.0, 18.0], [20.0, 22.0, 24.0]]]]]}
SAMPLER = {"y": [[[[0.0, 0.545, 0.7575], [0.43, 0.429, 0.504]]]], "grads": [[[[[1.0, 0.0, 0.72, 1.68], [0.0, 1.71, 2.17875, 3.66125], [3.78, 0.19, 0.87625, 0.73375]]]], [[[[0.15, 0.3, 0.45], [0.6, -5.85, 6.48]], [[0.4, 0.8, 1.2], [1.6, 1.1, -3.36]]]]]}
TRANSFORMER = {"y": [[[[0.2275, 0.3025, 0.3775], [0.8175, 0.8925, 0.888]]]], "grads": [[[[[0.41625, 0.72375, 1.01625, 1.74375], [0.63375, 0.85125, 1.23375, 2.52375], [2.375, 2.525, 2.9, 3.6075]]]], [[-8.94, -8.19, -6.39, 1.42, 3.42, 8.22]]]}
RESIZE = {"y": [[[[0.0, 0.75, 1.5, 2.25, 3.0], [8.0, 8.75, 9.5, 10.25, 11.0]]]], "grads": [[[[[1.5, 3.0, 4.5, 6.0], [0.0, 0.0, 0.0, 0.0], [7.75, 9.25, 10.75, 12.25]]]]]}
RESIZE_HALF = {"y": [[[[1.0, 1.7, 2.5, 3.3, 4.0], [7.0, 7.7, 8.5, 9.3, 10.0]]]], "grads": [[[[[1.2, 2.175, 3.225, 4.65], [2.425, 2.95, 3.65, 4.725], [6.075, 6.675, 7.725, 9.525]]]]]}
RESIZE_LIKE = {"y": [[[[0.0, 3.0], [2.66667, 5.66667], [5.33333, 8.33333], [8.0, 11.0]]]], "grads": [[[[[2.0, 0.0, 0.0, 3.33333], [5.33333, 0.0, 0.0, 6.66667], [8.66667, 0.0, 0.0, 10.0]]]], [[[[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]]]]}
ADAPTIVE = {"y": [[[[3.0, 4.5, 6.0], [8.0, 9.5, 11.0]]]], "grads": [[[[[0.25, 0.58333, 0.33333, 1.08333, 0.75], [1.25, 2.41667, 1.16667, 3.41667, 2.25], [1.0, 1.83333, 0.83333, 2.33333, 1.5]]]]]}
ROI = {"y": [[[[7.425, 8.775], [12.925, 14.275]], [[27.425, 28.775], [32.925, 34.275]]]], "grads": [[[[[0.00102, 0.00828, 0.01508, 0.01312, 0.0], [0.05891, 0.48031, 0.87453, 0.76125, 0.0], [0.17977, 1.46578, 2.05133, 1.64063, 0.0], [0.08531, 0.69563, 0.93406, 0.735, 0.0]], [[0.00508, 0.04141, 0.05164, 0.03937, 0.0], [0.29453, 2.40156, 2.99516, 2.28375, 0.0], [0.47633, 3.88391, 4.72039, 3.55688, 0.0], [0.19906, 1.62313, 1.95781, 1.47, 0.0]]]], [[0.0, 0.0, 0.0, 0.0, 0.0]]]}
ROI_ALIGNED = {"y": [[[[7.175, 8.525]], [[27.175, 28.525]]]], "grads": [[[[[0.04141, 0.12187, 0.16641, 0.04531, 0.0], [0.14906, 0.43875, 0.59906, 0.16313, 0.0], [0.14078, 0.41438, 0.56578, 0.15406, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0]], [[0.12422, 0.32656, 0.33359, 0.09063, 0.0], [0.44719, 1.17562, 1.20094, 0.32625, 0.0], [0.42234, 1.11031, 1.13422, 0.30813, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0]]]], [[0.0, 0.0, 0.0, 0.0, 0.0]]]}
CROP = {"y": [[[[6.0, 7.0, 8.0], [11.0, 12.0, 13.0]]]], "grads": [[[[[0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 2.0, 3.0, 0.0], [0.0, 4.0, 5.0, 6.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0]]]], [[[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]]]}
CORR = {"y": [[[[0.0, 0.0, 0.0], [0.0, 0.86, 0.89], [0.0, 0.89, 0.86]], [[0.0, 0.0, 0.0], [0.735, 0.775, 0.795], [0.795, 0.775, 0.735]], [[0.0, 0.0, 0.0], [0.66, 0.69, 0.0], [0.69, 0.66, 0.0]], [[0.0, 0.485, 0.545], [0.0, 0.605, 0.605], [0.0, 0.545, 0.485]], [[0.36, 0.43, 0.48], [0.51, 0.52, 0.51], [0.48, 0.43, 0.36]], [[0.315, 0.375, 0.0], [0.435, 0.435, 0.0], [0.375, 0.315, 0.0]], [[0.0, 0.32, 0.35], [0.0, 0.35, 0.32], [0.0, 0.0, 0.0]], [[0.225, 0.265, 0.285], [0.285, 0.265, 0.225], [0.0, 0.0, 0.0]], [[0.18, 0.21, 0.0], [0.21, 0.18, 0.0], [0.0, 0.0, 0.0]]]], "grads": [[[[[160.5, 216.14999, 129.90001], [163.35001, 212.84999, 123.75], [77.1, 97.35, 54.9]], [[61.5, 77.1, 43.5], [43.2, 46.8, 22.5], [15.9, 15.0, 6.3]]]], [[[[4.4, 12.5, 14.6], [22.8, 49.8, 47.1], [47.0, 85.4, 69.2]], [[42.2, 82.69999, 70.4], [120.00001, 215.85001, 171.3], [138.8, 236.60001, 179.0]]]]]}
CORR_ABS = {"y": [[[[0.29444, 0.45], [0.47222, 0.78333]], [[0.31111, 0.33333], [0.53333, 0.51111]], [[0.45, 0.33889], [0.82778, 0.49444]], [[0.33333, 0.6], [0.4, 0.53333]], [[0.4, 0.4], [0.4, 0.4]], [[0.64444, 0.37778], [0.57778, 0.44444]], [[0.47222, 0.91667], [0.42778, 0.51667]], [[0.66667, 0.64444], [0.44444, 0.46667]], [[0.96111, 0.49444], [0.51667, 0.47222]]]], "grads": [[[[[-2.61111, -13.83333, -0.77778], [-8.66667, -37.0, -3.66667], [2.83333, 1.5, 4.66667]], [[8.5, 17.5, 9.0], [18.0, 37.0, 19.0], [9.5, 19.5, 10.0]]]], [[[[12.22222, 13.33333, 14.44444], [15.33333, 16.44444, 17.55556], [18.44444, 19.55556, 20.66667]], [[4.88889, -0.22222, 1.44444], [-5.55556, -16.44444, -10.88889], [-5.55556, -16.22222, -20.66667]]]]]}
# fmt: on


def check(expected, f, *inputs):
    """Run ``f`` on ``inputs`` (lists) recording gradients and compare
    with ``expected`` (MXNet's ``y`` and ``grads``)."""
    arrays = [nd.array(a) for a in inputs]
    for a in arrays:
        a.attach_grad()
    with autograd.record():
        y = f(*arrays)
    head = nd.array(np.arange(1, y.size + 1).reshape(y.shape))
    y.backward(head)
    np.testing.assert_allclose(
        y.asnumpy(), expected['y'], rtol=1e-5, atol=2e-5
    )
    for a, g in zip(arrays, expected['grads']):
        np.testing.assert_allclose(a.grad.asnumpy(), g, rtol=1e-5, atol=2e-5)
    return y


DATA = np.arange(12).reshape(1, 1, 3, 4) / 10
GRID = [[[[-1, -0.3, 0.45], [0.8, 1.3, -1.2]],
         [[-1, 0.1, 0.35], [-0.6, 0.2, 1.1]]]]  # fmt: skip
IMAGE = np.arange(12).reshape(1, 1, 3, 4)
FEATURES = np.arange(40).reshape(1, 2, 4, 5)
A = np.arange(18).reshape(1, 2, 3, 3) / 10
B = np.arange(18)[::-1].reshape(1, 2, 3, 3) / 10


def test_grid_generator():
    y = check(
        AFFINE,
        lambda t: nd.GridGenerator(
            t, transform_type='affine', target_shape=(2, 3)
        ),
        [[1, 0.2, 0.1, -0.3, 0.8, 0.05]],
    )
    assert y.shape == (1, 2, 2, 3) and y.dtype == np.float32
    check(
        WARP,
        lambda f: nd.GridGenerator(f, transform_type='warp'),
        np.arange(12).reshape(1, 2, 2, 3) / 10 - 0.5,
    )
    # the identity matrix gives the plain grid, a zero flow too
    same = nd.GridGenerator(
        nd.array([[1, 0, 0, 0, 1, 0]]),
        transform_type='affine',
        target_shape=(2, 3),
    )
    still = nd.GridGenerator(nd.zeros((1, 2, 2, 3)), transform_type='warp')
    assert (
        same.asnumpy().tolist()
        == still.asnumpy().tolist()
        == [[[[-1, 0, 1], [-1, 0, 1]], [[-1, -1, -1], [1, 1, 1]]]]
    )


def test_bilinear_sampler_reads_zeros_outside():
    # points on pixel centres, between them, and outside (x = 1.3: zero)
    check(SAMPLER, nd.BilinearSampler, DATA, GRID)
    y = nd.BilinearSampler(
        nd.array(DATA, dtype='float64'), nd.array(GRID, dtype='float64')
    )
    assert y.dtype == np.float64


def test_spatial_transformer_is_generator_then_sampler():
    loc = [[0.9, 0.1, 0.05, -0.15, 0.7, 0.1]]
    attrs = {
        'target_shape': (2, 3),
        'transform_type': 'affine',
        'sampler_type': 'bilinear',
    }
    check(
        TRANSFORMER,
        lambda d, l: nd.SpatialTransformer(d, l, **attrs),
        DATA,
        loc,
    )
    grid = nd.GridGenerator(
        nd.array(loc), transform_type='affine', target_shape=(2, 3)
    )
    np.testing.assert_allclose(
        nd.BilinearSampler(nd.array(DATA), grid).asnumpy(),
        TRANSFORMER['y'],
        atol=1e-6,
    )


def test_bilinear_resize_modes_and_corners():
    # align_corners=True (the default): first and last pixels line up
    check(
        RESIZE,
        lambda x: nd.contrib.BilinearResize2D(x, height=2, width=5),
        IMAGE,
    )
    check(
        RESIZE_HALF,
        lambda x: nd.contrib.BilinearResize2D(
            x, height=2, width=5, align_corners=False
        ),
        IMAGE,
    )
    check(
        RESIZE_LIKE,
        lambda x, like: nd.contrib.BilinearResize2D(x, like, mode='like'),
        IMAGE,
        np.zeros((1, 1, 4, 2)),
    )
    # output sizes MXNet 1.9.1 gives for a 5 x 7 and a 4 x 6 input
    odd, even = nd.zeros((1, 1, 5, 7)), nd.zeros((1, 1, 4, 6))
    resize = nd.contrib.BilinearResize2D
    assert resize(odd, scale_height=1.5, scale_width=0.5).shape[2:] == (7, 3)
    assert resize(odd, height=3).shape[2:] == (3, 1)  # width defaults to 1
    for x, mode, scale, want in [
        (odd, 'odd_scale', 2, (9, 13)),
        (odd, 'odd_scale', 0.5, (3, 4)),
        (even, 'odd_scale', 2, (8, 12)),
        (even, 'odd_scale', 0.5, (2, 3)),
        (odd, 'to_even_down', None, (4, 6)),
        (odd, 'to_even_up', None, (6, 8)),
        (even, 'to_even_up', None, (4, 6)),
        (odd, 'to_odd_down', None, (5, 7)),
        (even, 'to_odd_down', None, (3, 5)),
        (even, 'to_odd_up', None, (5, 7)),
    ]:
        got = resize(x, mode=mode, scale_height=scale, scale_width=scale)
        assert got.shape[2:] == want, (mode, scale)
    # a size-1 output reads the first row in both conventions (MXNet)
    one = resize(nd.array(IMAGE), height=1, width=2, align_corners=False)
    assert one.asnumpy().tolist() == [[[[0.5, 2.5]]]]


def test_adaptive_average_pooling_overlapping_bins():
    check(
        ADAPTIVE,
        lambda x: nd.contrib.AdaptiveAvgPooling2D(x, output_size=(2, 3)),
        np.arange(15).reshape(1, 1, 3, 5),
    )
    x = nd.zeros((2, 3, 5, 7))
    assert nd.contrib.AdaptiveAvgPooling2D(x).shape == (2, 3, 1, 1)
    assert nd.contrib.AdaptiveAvgPooling2D(x, output_size=3).shape == (
        2,
        3,
        3,
        3,
    )


def test_roi_align():
    check(
        ROI,
        lambda d, r: nd.contrib.ROIAlign(
            d, r, pooled_size=(2, 2), spatial_scale=1.0
        ),
        FEATURES,
        [[0, 0.5, 0.7, 3.2, 2.9]],
    )
    check(
        ROI_ALIGNED,
        lambda d, r: nd.contrib.ROIAlign(
            d,
            r,
            pooled_size=(1, 2),
            spatial_scale=0.5,
            sample_ratio=2,
            aligned=True,
        ),
        FEATURES,
        [[0, 1, 1.4, 6.4, 5.8]],
    )


def test_roi_align_negative_batch_gives_zeros():
    # MXNet 1.9.1 documents such rows as ignored but fills them with
    # whatever memory holds (and may spoil other rows); dlbook gives 0
    rois = nd.array([[-1, 0, 0, 2, 2], [0, 0, 0, 2, 2]])
    y = nd.contrib.ROIAlign(
        nd.ones((1, 3, 4, 4)), rois, pooled_size=(2, 2), spatial_scale=1.0
    )
    assert y.asnumpy()[0].tolist() == np.zeros((3, 2, 2)).tolist()
    assert y.asnumpy()[1].tolist() == np.ones((3, 2, 2)).tolist()


def test_roi_align_position_sensitive_channels():
    # channel (c ph + i) pw + j of the input feeds output channel c, bin (i, j)
    data = nd.array(np.arange(8).reshape(1, 8, 1, 1) * np.ones((1, 8, 2, 2)))
    y = nd.contrib.ROIAlign(
        data,
        nd.array([[0, 0, 0, 1, 1]]),
        pooled_size=(2, 2),
        spatial_scale=1.0,
        position_sensitive=True,
    )
    assert y.asnumpy().tolist() == [[[[0, 1], [2, 3]], [[4, 5], [6, 7]]]]


def test_crop():
    check(
        CROP,
        lambda d, like: nd.Crop(d, like, offset=(1, 1)),
        np.arange(20).reshape(1, 1, 4, 5),
        np.zeros((1, 1, 2, 3)),
    )
    x = nd.array(np.arange(35).reshape(1, 1, 5, 7))
    y = nd.Crop(x, h_w=(2, 3), center_crop=True)
    assert y.asnumpy().tolist() == [[[[9, 10, 11], [16, 17, 18]]]]


def test_correlation():
    check(
        CORR,
        lambda a, b: nd.Correlation(a, b, max_displacement=1, pad_size=1),
        A,
        B,
    )
    check(
        CORR_ABS,
        lambda a, b: nd.Correlation(
            a,
            b,
            kernel_size=3,
            max_displacement=1,
            pad_size=2,
            stride1=2,
            is_multiply=False,
        ),
        A,
        B,
    )
    x = nd.zeros((2, 3, 5, 7))
    assert nd.Correlation(x, x).shape == (2, 9, 3, 5)
    big = nd.Correlation(
        x,
        x,
        kernel_size=3,
        max_displacement=2,
        stride1=2,
        stride2=1,
        pad_size=2,
    )
    assert big.shape == (2, 25, 2, 3)
    wide = nd.Correlation(x, x, max_displacement=4, stride2=2, pad_size=4)
    assert wide.shape == (2, 25, 5, 7)


# -- symbols -------------------------------------------------------------------


def test_spatial_transformer_network_as_a_symbol():
    """A localisation layer feeding SpatialTransformer, then a resize and
    an adaptive pooling: shapes inferred, and the executor matches nd."""
    data = mx.sym.var('data')
    loc = mx.sym.FullyConnected(mx.sym.flatten(data), num_hidden=6, name='loc')
    st = mx.sym.SpatialTransformer(
        data,
        loc,
        target_shape=(4, 4),
        transform_type='affine',
        sampler_type='bilinear',
        name='st',
    )
    up = mx.sym.contrib.BilinearResize2D(st, height=6, width=6)
    out = mx.sym.contrib.AdaptiveAvgPooling2D(up, output_size=(3, 2))
    arg_shapes, out_shapes, _ = out.infer_shape(data=(2, 3, 5, 5))
    assert dict(zip(out.list_arguments(), arg_shapes))['loc_weight'] == (6, 75)
    assert out_shapes == [(2, 3, 3, 2)]

    rng = np.random.RandomState(0)
    values = {
        'data': rng.uniform(-1, 1, (2, 3, 5, 5)),
        'loc_weight': rng.uniform(-0.01, 0.01, (6, 75)),
        'loc_bias': np.array([0.8, 0.1, 0.05, -0.1, 0.9, 0.0]),
    }
    args = {k: nd.array(v) for k, v in values.items()}
    grads = {k: nd.zeros(v.shape) for k, v in values.items()}
    exe = out.bind(mx.cpu(), args, args_grad=grads)
    (y,) = exe.forward(is_train=True)
    exe.backward(nd.ones(y.shape))

    eager = {k: nd.array(v) for k, v in values.items()}
    for v in eager.values():
        v.attach_grad()
    with autograd.record():
        theta = nd.FullyConnected(
            nd.flatten(eager['data']),
            eager['loc_weight'],
            eager['loc_bias'],
            num_hidden=6,
        )
        z = nd.SpatialTransformer(
            eager['data'],
            theta,
            target_shape=(4, 4),
            transform_type='affine',
            sampler_type='bilinear',
        )
        z = nd.contrib.AdaptiveAvgPooling2D(
            nd.contrib.BilinearResize2D(z, height=6, width=6),
            output_size=(3, 2),
        )
    z.backward(nd.ones(z.shape))
    np.testing.assert_allclose(y.asnumpy(), z.asnumpy(), rtol=1e-6, atol=1e-7)
    for k in values:
        np.testing.assert_allclose(
            grads[k].asnumpy(),
            eager[k].grad.asnumpy(),
            rtol=1e-5,
            atol=1e-7,
            err_msg=k,
        )


def test_symbol_shapes_of_roi_align_crop_and_correlation():
    data, rois = mx.sym.var('data'), mx.sym.var('rois')
    roi = mx.sym.contrib.ROIAlign(
        data, rois, pooled_size=(2, 3), spatial_scale=0.5
    )
    assert roi.list_arguments() == ['data', 'rois']
    assert roi.infer_shape(data=(1, 4, 8, 8), rois=(7, 5))[1] == [(7, 4, 2, 3)]
    crop = mx.sym.Crop(data, mx.sym.var('like'), num_args=2, center_crop=True)
    assert crop.infer_shape(data=(1, 4, 8, 8), like=(1, 1, 5, 6))[1] == [
        (1, 4, 5, 6)
    ]
    a, b = mx.sym.var('a'), mx.sym.var('b')
    corr = mx.sym.Correlation(a, b, max_displacement=2, stride2=2)
    assert corr.infer_shape(a=(1, 3, 9, 9), b=(1, 3, 9, 9))[1] == [
        (1, 9, 5, 5)
    ]
    like = mx.sym.contrib.BilinearResize2D(
        data, mx.sym.var('ref'), mode='like'
    )
    assert like.list_arguments() == ['data', 'ref']
    assert mx.sym.contrib.BilinearResize2D(
        data, height=2
    ).list_arguments() == ['data']


# -- errors --------------------------------------------------------------------


@pytest.mark.parametrize(
    'call,message',
    [
        (
            lambda: nd.GridGenerator(
                nd.zeros((2, 4)), transform_type='affine', target_shape=(3, 3)
            ),
            r'\(batch, 6\).*\(2, 4\)',
        ),
        (
            lambda: nd.GridGenerator(
                nd.zeros((2, 6)), transform_type='affine'
            ),
            'target_shape must be',
        ),
        (
            lambda: nd.GridGenerator(nd.zeros((2, 6)), transform_type='shift'),
            "'affine' or 'warp'",
        ),
        (
            lambda: nd.GridGenerator(
                nd.zeros((1, 3, 4, 4)), transform_type='warp'
            ),
            r'flow \(batch, 2, h, w\)',
        ),
        (
            lambda: nd.BilinearSampler(
                nd.zeros((2, 3, 4, 4)), nd.zeros((1, 2, 3, 3))
            ),
            r'grid must have shape \(batch, 2, h_out, w_out\)',
        ),
        (
            lambda: nd.BilinearSampler(
                nd.zeros((3, 4, 4)), nd.zeros((3, 2, 3, 3))
            ),
            'data must be 4-D',
        ),
        (
            lambda: nd.SpatialTransformer(
                nd.zeros((2, 3, 4, 4)),
                nd.zeros((2, 4)),
                target_shape=(3, 3),
                transform_type='affine',
                sampler_type='bilinear',
            ),
            r'loc must be \(batch, 6\)',
        ),
        (
            lambda: nd.SpatialTransformer(
                nd.zeros((2, 3, 4, 4)),
                nd.zeros((2, 6)),
                target_shape=(3, 3),
                transform_type='affine',
                sampler_type='nearest',
            ),
            "sampler_type must be 'bilinear'",
        ),
        (
            lambda: nd.contrib.BilinearResize2D(
                nd.zeros((3, 4, 4)), height=2, width=2
            ),
            'data must be 4-D',
        ),
        (
            lambda: nd.contrib.BilinearResize2D(
                nd.zeros((1, 1, 4, 4)), mode='big'
            ),
            'mode must be one of',
        ),
        (
            lambda: nd.contrib.BilinearResize2D(
                nd.zeros((1, 1, 4, 4)), mode='odd_scale'
            ),
            'needs scale_height',
        ),
        (
            lambda: nd.contrib.AdaptiveAvgPooling2D(
                nd.zeros((1, 1, 4, 4)), output_size=(1, 2, 3)
            ),
            'output_size must be',
        ),
        (
            lambda: nd.contrib.ROIAlign(
                nd.zeros((1, 2, 4, 4)),
                nd.zeros((3, 4)),
                pooled_size=(2, 2),
                spatial_scale=1.0,
            ),
            r'rois must be \(num_rois, 5\)',
        ),
        (
            lambda: nd.contrib.ROIAlign(
                nd.zeros((1, 6, 4, 4)),
                nd.zeros((3, 5)),
                pooled_size=(2, 2),
                spatial_scale=1.0,
                position_sensitive=True,
            ),
            'multiple of ph \\* pw = 4',
        ),
        (
            lambda: nd.contrib.ROIAlign(
                nd.zeros((1, 2, 4, 4)),
                nd.zeros((3, 5)),
                pooled_size=(2, 2),
                spatial_scale=2.0,
            ),
            r'spatial_scale must be in \[0, 1\]',
        ),
        (
            lambda: nd.Crop(nd.zeros((1, 1, 4, 4)), h_w=(3, 3), offset=(2, 0)),
            r'3x3 window at offset \(2, 0\) does not fit',
        ),
        (
            lambda: nd.Correlation(
                nd.zeros((1, 2, 4, 4)), nd.zeros((1, 3, 4, 4))
            ),
            'one shape',
        ),
        (
            lambda: nd.Correlation(
                nd.zeros((1, 2, 4, 4)), nd.zeros((1, 2, 4, 4)), kernel_size=2
            ),
            'kernel_size must be odd',
        ),
        (
            lambda: nd.Correlation(
                nd.zeros((1, 2, 4, 4)),
                nd.zeros((1, 2, 4, 4)),
                max_displacement=3,
            ),
            'too small',
        ),
    ],
)
def test_clear_errors(call, message):
    with pytest.raises(DLBookError, match=message):
        call()
