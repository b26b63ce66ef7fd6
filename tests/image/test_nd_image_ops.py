"""``nd.image`` / ``sym.image``: the ``_image_*`` operators, against
values printed by MXNet 1.9.1 (where MXNet is right: its flip of an
odd-width image is not)."""

import numpy as np
import pytest

import dlbook as mx
from dlbook import autograd, nd
from dlbook.base import DLBookError
from dlbook.gluon.data.vision import transforms

HWC = np.arange(2 * 3 * 3).reshape(2, 3, 3)


def image(dtype='float32', ctx=None):
    return nd.array(HWC, dtype=dtype, ctx=ctx)


def test_to_tensor_and_normalize_as_mxnet(ctx):
    t = nd.image.to_tensor(image('uint8', ctx))
    assert t.shape == (3, 2, 3) and t.dtype == np.float32
    np.testing.assert_allclose(
        t.asnumpy()[0],
        [[0, 0.01176471, 0.02352941], [0.03529412, 0.04705882, 0.05882353]],
        rtol=1e-6,
    )
    y = nd.image.normalize(t, mean=(0.1, 0.2, 0.3), std=(1, 2, 3))
    np.testing.assert_allclose(
        y.asnumpy()[:, 0],
        [
            [-0.1, -0.0882353, -0.07647059],
            [-0.09803922, -0.09215686, -0.08627451],
            [-0.09738562, -0.09346405, -0.08954249],
        ],
        rtol=1e-6,
    )
    scalar = nd.image.normalize(t, mean=0.5, std=2).asnumpy()[:, 0, 0]
    np.testing.assert_allclose(scalar, [-0.25, -0.24803922, -0.24607843])


def test_a_batch_goes_through_as_its_images(ctx):
    batch = nd.stack(image(ctx=ctx), image(ctx=ctx) + 1)
    tensors = nd.image.to_tensor(batch)
    assert tensors.shape == (2, 3, 2, 3)
    np.testing.assert_array_equal(
        tensors[1].asnumpy(), nd.image.to_tensor(image(ctx=ctx) + 1).asnumpy()
    )
    flipped = nd.image.flip_left_right(batch)
    np.testing.assert_array_equal(
        flipped[0].asnumpy(),
        nd.image.flip_left_right(image(ctx=ctx)).asnumpy(),
    )


def test_flips_and_their_gradients(ctx):
    x = image(ctx=ctx)
    np.testing.assert_array_equal(
        nd.image.flip_left_right(x).asnumpy(), HWC[:, ::-1]
    )
    np.testing.assert_array_equal(
        nd.image.flip_top_bottom(x).asnumpy(), HWC[::-1]
    )
    even = np.arange(2 * 4 * 3).reshape(2, 4, 3)
    np.testing.assert_array_equal(  # MXNet 1.9.1's result
        nd.image.flip_left_right(nd.array(even, ctx=ctx)).asnumpy()[0],
        [[9, 10, 11], [6, 7, 8], [3, 4, 5], [0, 1, 2]],
    )
    x.attach_grad()
    dy = np.random.RandomState(0).rand(2, 3, 3)
    for op, flip in (
        (nd.image.flip_left_right, lambda a: a[:, ::-1]),
        (nd.image.flip_top_bottom, lambda a: a[::-1]),
    ):
        with autograd.record():
            y = op(x)
        y.backward(nd.array(dy, ctx=ctx))
        np.testing.assert_allclose(x.grad.asnumpy(), flip(dy), rtol=1e-6)


def test_normalize_gradient_divides_by_std(ctx):
    t = nd.image.to_tensor(image(ctx=ctx))
    t.attach_grad()
    with autograd.record():
        y = nd.image.normalize(t, mean=(0.1, 0.2, 0.3), std=(1, 2, 4))
    y.backward()
    np.testing.assert_allclose(t.grad.asnumpy()[:, 0, 0], [1, 0.5, 0.25])


def test_crop_and_its_gradient(ctx):
    x = image(ctx=ctx)
    np.testing.assert_array_equal(
        nd.image.crop(x, x=1, y=0, width=2, height=1).asnumpy(),
        [[[3, 4, 5], [6, 7, 8]]],
    )
    x.attach_grad()
    with autograd.record():
        y = nd.image.crop(x, x=1, y=1, width=2, height=1)
    y.backward(nd.ones_like(y) * 3)
    expected = np.zeros((2, 3, 3))
    expected[1, 1:3] = 3
    np.testing.assert_array_equal(x.grad.asnumpy(), expected)
    with pytest.raises(DLBookError, match='leaves the image'):
        nd.image.crop(x, x=2, y=0, width=2, height=1)
    with pytest.raises(DLBookError, match='needs x, y, width and height'):
        nd.image.crop(x, x=0, y=0)


def test_resize_sizes_and_uint8_values():
    u = image('uint8')
    assert nd.image.resize(u, size=(4, 2)).shape == (2, 4, 3)
    assert nd.image.resize(u, size=4).shape == (4, 4, 3)
    assert nd.image.resize(u, size=4, keep_ratio=True).shape == (4, 6, 3)
    out = nd.image.resize(u, size=(4, 3))
    assert out.dtype == np.uint8
    # MXNet (OpenCV's fixed-point arithmetic) gives [5, 6, 9, 11] in the
    # middle row: one grey level apart where a value ends in .5
    mxnet = np.array([[0, 2, 4, 6], [5, 6, 9, 11], [9, 11, 13, 15]])
    assert np.abs(out.asnumpy()[:, :, 0].astype(int) - mxnet).max() <= 1
    with pytest.raises(DLBookError, match='needs size'):
        nd.image.resize(u)


def test_lighting_and_random_colour_changes_keep_dtype_and_shape():
    lit = nd.image.adjust_lighting(
        nd.ones((1, 1, 3)) * 100, alpha=(0.1, 0.2, 0.3)
    )
    np.testing.assert_allclose(
        lit.asnumpy().ravel(), [97.68028, 96.494225, 96.24193], rtol=1e-6
    )
    u = image('uint8')
    mx.random.seed(3)
    for name, attrs in (
        ('random_brightness', dict(min_factor=0.5, max_factor=1.5)),
        ('random_contrast', dict(min_factor=0.5, max_factor=1.5)),
        ('random_saturation', dict(min_factor=0.5, max_factor=1.5)),
        ('random_hue', dict(min_factor=-0.1, max_factor=0.1)),
        ('random_color_jitter', dict(brightness=0.3, saturation=0.2)),
        ('random_lighting', dict(alpha_std=0.1)),
        ('random_flip_left_right', {}),
        ('random_flip_top_bottom', {}),
    ):
        out = getattr(nd.image, name)(u, **attrs)
        assert out.shape == u.shape and out.dtype == np.uint8, name
    factor = nd.image.random_brightness(
        nd.ones((2, 2, 3)), min_factor=2.0, max_factor=2.0
    )
    np.testing.assert_array_equal(factor.asnumpy(), 2.0)


def test_random_flip_follows_the_seed():
    x = nd.array(np.random.RandomState(1).rand(4, 5, 3))
    runs = []
    for _ in range(2):
        mx.random.seed(7)
        runs.append(
            [nd.image.random_flip_left_right(x).asnumpy() for _ in range(6)]
        )
    for a, b in zip(*runs):
        np.testing.assert_array_equal(a, b)
    flipped = [np.array_equal(a, x.asnumpy()[:, ::-1]) for a in runs[0]]
    assert any(flipped) and not all(flipped)


def test_symbol_forms_run_in_an_executor():
    data = mx.sym.var('data')
    net = mx.sym.image.normalize(
        mx.sym.image.to_tensor(data), mean=(0.5, 0.5, 0.5), std=(0.25,)
    )
    u = image('uint8')
    out = net.eval(ctx=mx.cpu(), data=u)[0]
    expected = (np.moveaxis(HWC, -1, 0) / 255 - 0.5) / 0.25
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-6)


def test_transforms_and_operators_agree():
    u = image('uint8')
    t = transforms.ToTensor()(u)
    np.testing.assert_array_equal(t.asnumpy(), nd.image.to_tensor(u).asnumpy())
    norm = transforms.Normalize((0.1, 0.2, 0.3), (1, 2, 3))(t)
    np.testing.assert_array_equal(
        norm.asnumpy(),
        nd.image.normalize(t, mean=(0.1, 0.2, 0.3), std=(1, 2, 3)).asnumpy(),
    )


def test_shape_errors_name_the_operator():
    with pytest.raises(DLBookError, match=r'image.to_tensor expects'):
        nd.image.to_tensor(nd.ones((3, 3)))
    with pytest.raises(DLBookError, match='mean has 2 values'):
        nd.image.normalize(nd.ones((3, 2, 2)), mean=(0.1, 0.2), std=1)
