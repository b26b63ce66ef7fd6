"""Resize, crop, normalise and pad functions of mx.image: return values,
boxes and sizes as MXNet 1.x computes them."""

import warnings

import numpy as np
import pytest

import dlbook as mx
from dlbook.base import MXNetError
from dlbook.image.transforms import _get_interp_method


def _image(h=6, w=10, c=3, dtype='uint8', seed=0):
    rng = np.random.RandomState(seed)
    return mx.nd.array(rng.randint(0, 256, (h, w, c)), dtype=dtype)


# -- scale_down and interpolation codes ---------------------------------------


def test_scale_down_mxnet_cases():
    assert mx.image.scale_down((640, 480), (720, 120)) == (640, 106)
    assert mx.image.scale_down((360, 1000), (480, 500)) == (360, 375)
    assert mx.image.scale_down((300, 400), (0, 0)) == (0, 0)
    assert mx.image.scale_down((640, 480), (100, 50)) == (100, 50)


def test_get_interp_method():
    for code in range(5):
        assert _get_interp_method(code) == code
    assert _get_interp_method(9) == 2
    assert _get_interp_method(9, (10, 10, 20, 20)) == 2  # enlarge
    assert _get_interp_method(9, (10, 10, 5, 5)) == 3  # shrink
    assert _get_interp_method(9, (10, 10, 20, 5)) == 1  # mixed
    with pytest.raises(ValueError, match='Unknown interp method 7'):
        _get_interp_method(7)


def test_random_interp_is_seeded():
    mx.random.seed(11)
    first = [_get_interp_method(10) for _ in range(20)]
    mx.random.seed(11)
    assert [_get_interp_method(10) for _ in range(20)] == first
    assert set(first) <= {0, 1, 2, 3, 4} and len(set(first)) > 1


# -- imresize and resize_short ------------------------------------------------


@pytest.mark.parametrize('dtype', ['uint8', 'float32', 'float64', 'int32'])
def test_imresize_shape_and_dtype(dtype):
    img = _image(dtype=dtype)
    for interp in (0, 1, 2, 3, 4, 9, 10):
        out = mx.image.imresize(img, 7, 3, interp=interp)
        assert out.shape == (3, 7, 3)
        assert out.dtype == np.dtype(dtype)


def test_imresize_nearest_and_bilinear_values():
    src = np.arange(4, dtype=np.float32).reshape(2, 2, 1)
    near = mx.image.imresize(mx.nd.array(src), 4, 4, interp=0).asnumpy()
    np.testing.assert_array_equal(
        near[:, :, 0], [[0, 0, 1, 1], [0, 0, 1, 1], [2, 2, 3, 3], [2, 2, 3, 3]]
    )
    # bilinear with OpenCV's pixel-centre rule: corners stay, midpoints mix
    lin = mx.image.imresize(mx.nd.array(src), 4, 4, interp=1).asnumpy()
    np.testing.assert_allclose(lin[0, :, 0], [0, 0.25, 0.75, 1])
    flat = mx.nd.full((5, 7, 3), 42, dtype='uint8')
    for interp in range(5):
        out = mx.image.imresize(flat, 11, 2, interp=interp).asnumpy()
        assert (out == 42).all()


def test_imresize_out_and_errors():
    img = _image()
    out = mx.nd.zeros((3, 5, 3), dtype='uint8')
    assert mx.image.imresize(img, 5, 3, out=out) is out
    np.testing.assert_array_equal(
        out.asnumpy(), mx.image.imresize(img, 5, 3).asnumpy()
    )
    with pytest.raises(MXNetError, match='at least 1x1'):
        mx.image.imresize(img, 0, 3)
    with pytest.raises(MXNetError, match=r'\(height, width, channels\)'):
        mx.image.imresize(mx.nd.zeros((4, 4)), 2, 2)
    with pytest.raises(ValueError, match='Unknown interp method'):
        mx.image.imresize(img, 2, 2, interp=5)
    with pytest.raises(TypeError, match='image NDArray'):
        mx.image.imresize([[1, 2]], 2, 2)


def test_imresize_accepts_numpy_images():
    out = mx.image.imresize(np.zeros((4, 6, 3), np.uint8), 3, 2)
    assert isinstance(out, mx.nd.NDArray) and out.shape == (2, 3, 3)


@pytest.mark.parametrize(
    'hw, size, expected',
    [
        ((480, 640), 240, (240, 320)),  # wide: height is the short side
        ((640, 480), 240, (320, 240)),  # tall
        ((375, 500), 224, (224, 298)),  # 224 * 500 // 375 = 298
        ((500, 375), 224, (298, 224)),
        ((300, 300), 100, (100, 100)),
    ],
)
def test_resize_short_keeps_aspect_ratio_as_mxnet(hw, size, expected):
    img = mx.nd.zeros(hw + (3,), dtype='uint8')
    assert mx.image.resize_short(img, size).shape == expected + (3,)


# -- crops --------------------------------------------------------------------


def test_fixed_crop_values_copy_and_resize():
    img = _image()
    out = mx.image.fixed_crop(img, 2, 1, 5, 3)
    np.testing.assert_array_equal(out.asnumpy(), img.asnumpy()[1:4, 2:7])
    out[:] = 0  # a copy: the source is untouched
    assert img.asnumpy()[1:4, 2:7].any()
    resized = mx.image.fixed_crop(img, 2, 1, 5, 3, size=(10, 6))
    assert resized.shape == (6, 10, 3)
    same = mx.image.fixed_crop(img, 2, 1, 5, 3, size=[5, 3])
    np.testing.assert_array_equal(same.asnumpy(), img.asnumpy()[1:4, 2:7])
    with pytest.raises(MXNetError, match='does not fit'):
        mx.image.fixed_crop(img, 8, 0, 5, 3)
    with pytest.raises(MXNetError, match='does not fit'):
        mx.image.fixed_crop(img, -1, 0, 5, 3)


def test_center_crop_mxnet_docstring_example():
    img = mx.nd.zeros((2321, 3482, 3), dtype='uint8')
    out, box = mx.image.center_crop(img, (1000, 500))
    assert out.shape == (500, 1000, 3)
    assert box == (1241, 910, 1000, 500)


def test_center_crop_values_and_upsampling():
    img = _image(h=6, w=10)
    out, (x0, y0, w, h) = mx.image.center_crop(img, (4, 2))
    assert (x0, y0, w, h) == (3, 2, 4, 2)
    np.testing.assert_array_equal(out.asnumpy(), img.asnumpy()[2:4, 3:7])
    # larger than the image: the biggest window of that aspect, resized up
    out, box = mx.image.center_crop(img, (20, 20))
    assert box == (2, 0, 6, 6)
    assert out.shape == (20, 20, 3)


def test_random_crop_box_and_values():
    img = _image(h=12, w=16)
    boxes = set()
    for _ in range(30):
        out, (x0, y0, w, h) = mx.image.random_crop(img, (5, 4))
        assert (w, h) == (5, 4) and out.shape == (4, 5, 3)
        assert 0 <= x0 <= 11 and 0 <= y0 <= 8
        np.testing.assert_array_equal(
            out.asnumpy(), img.asnumpy()[y0 : y0 + 4, x0 : x0 + 5]
        )
        boxes.add((x0, y0))
    assert len(boxes) > 5
    out, box = mx.image.random_crop(img, (32, 24))  # upsampled
    assert box == (0, 0, 16, 12) and out.shape == (24, 32, 3)


def test_random_crop_is_seeded():
    img = _image(h=12, w=16)
    mx.random.seed(5)
    first = [mx.image.random_crop(img, (5, 4))[1] for _ in range(5)]
    mx.random.seed(5)
    assert [mx.image.random_crop(img, (5, 4))[1] for _ in range(5)] == first


def test_random_size_crop_ratio_and_area():
    img = _image(h=40, w=50)
    center = mx.image.center_crop(img, (50, 40))[1]
    for _ in range(20):
        out, (x0, y0, w, h) = mx.image.random_size_crop(
            img, (24, 24), area=0.08, ratio=(0.75, 1.0)
        )
        assert out.shape == (24, 24, 3)
        assert x0 + w <= 50 and y0 + h <= 40
        if (x0, y0, w, h) != center:
            assert 0.75 - 0.05 <= w / h <= 1.0 + 0.05
            assert w * h >= 0.08 * 2000 * 0.8


def test_random_size_crop_fallback_and_keywords():
    img = _image(h=10, w=10)
    # an area of 2-3 times the image never fits: centre crop instead
    _, box = mx.image.random_size_crop(img, (4, 4), (2.0, 3.0), (1, 1))
    assert box == mx.image.center_crop(img, (4, 4))[1]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        mx.image.random_size_crop(
            img, (4, 4), None, (0.75, 1.33), min_area=0.5
        )
    assert any('deprecated' in str(w.message) for w in caught)
    with pytest.raises(TypeError, match='unexpected keyword'):
        mx.image.random_size_crop(img, (4, 4), 0.5, (1, 1), bogus=1)


def test_random_size_crop_is_seeded():
    img = _image(h=30, w=30)
    mx.random.seed(2)
    first = mx.image.random_size_crop(img, (8, 8), 0.1, (0.75, 1.33))
    mx.random.seed(2)
    again = mx.image.random_size_crop(img, (8, 8), 0.1, (0.75, 1.33))
    assert first[1] == again[1]
    np.testing.assert_array_equal(first[0].asnumpy(), again[0].asnumpy())


# -- color_normalize ----------------------------------------------------------


def test_color_normalize_math_in_place():
    rng = np.random.RandomState(0)
    mean = rng.rand(3) * 255
    std = rng.rand(3) + 1
    src = rng.rand(7, 9, 3) * 255
    img = mx.nd.array(src)
    out = mx.image.color_normalize(img, mx.nd.array(mean), mx.nd.array(std))
    assert out is img  # in place, as MXNet
    np.testing.assert_allclose(out.asnumpy(), (src - mean) / std, atol=1e-3)


def test_color_normalize_variants():
    src = np.full((2, 3, 3), 10.0)
    out = mx.image.color_normalize(mx.nd.array(src), [1.0, 2.0, 3.0])
    np.testing.assert_allclose(out.asnumpy()[0, 0], [9, 8, 7])
    out = mx.image.color_normalize(mx.nd.array(src), None, np.array([2.0]))
    np.testing.assert_allclose(out.asnumpy(), 5.0)
    out = mx.image.color_normalize(
        mx.nd.array(src, dtype='float64'), mx.nd.array([10.0]), 2.0
    )
    assert out.dtype == np.float64 and (out.asnumpy() == 0).all()


def test_color_normalize_errors():
    with pytest.raises(MXNetError, match="astype\\('float32'\\)"):
        mx.image.color_normalize(
            mx.nd.zeros((2, 2, 3), dtype='uint8'), mx.nd.array([1.0, 2.0, 3.0])
        )
    with pytest.raises(MXNetError, match='one per channel'):
        mx.image.color_normalize(mx.nd.zeros((2, 2, 3)), [1.0, 2.0])


# -- copyMakeBorder -----------------------------------------------------------


def _row(values):
    return mx.nd.array(np.array(values, np.float32).reshape(1, -1, 1))


@pytest.mark.parametrize(
    'border, expected',
    [
        (1, [1, 0, 0, 1, 2, 3, 3, 2]),  # BORDER_REFLECT   ba|abcd|dc
        (2, [2, 1, 0, 1, 2, 3, 2, 1]),  # BORDER_REFLECT_101 cb|abcd|cb
        (3, [0, 0, 0, 1, 2, 3, 3, 3]),  # BORDER_REPLICATE aa|abcd|dd
        (4, [2, 3, 0, 1, 2, 3, 0, 1]),  # BORDER_WRAP      cd|abcd|ab
    ],
)
def test_copy_make_border_types(border, expected):
    out = mx.image.copyMakeBorder(_row([0, 1, 2, 3]), 0, 0, 2, 2, type=border)
    np.testing.assert_array_equal(out.asnumpy()[0, :, 0], expected)


def test_copy_make_border_constant():
    img = mx.nd.zeros((4, 5, 3), dtype='uint8') + 9
    out = mx.image.copyMakeBorder(img, 1, 2, 3, 4, type=0, values=[10, 20, 30])
    assert out.shape == (7, 12, 3) and out.dtype == np.uint8
    np.testing.assert_array_equal(out.asnumpy()[0, 0], [10, 20, 30])
    np.testing.assert_array_equal(out.asnumpy()[1:5, 3:8], img.asnumpy())
    one = mx.image.copyMakeBorder(img, 1, 1, 1, 1, value=300)
    np.testing.assert_array_equal(one.asnumpy()[0, 0], [255, 255, 255])
    zero = mx.image.copyMakeBorder(img, 1, 1, 1, 1)
    assert zero.asnumpy()[0].sum() == 0
    out_arr = mx.nd.zeros((7, 12, 3), dtype='uint8')
    assert mx.image.copyMakeBorder(img, 1, 2, 3, 4, out=out_arr) is out_arr


def test_copy_make_border_errors():
    img = mx.nd.zeros((4, 5, 3))
    with pytest.raises(MXNetError, match='unknown border type 7'):
        mx.image.copyMakeBorder(img, 1, 1, 1, 1, type=7)
    with pytest.raises(MXNetError, match='>= 0'):
        mx.image.copyMakeBorder(img, -1, 1, 1, 1)
    with pytest.raises(MXNetError, match='2 entries'):
        mx.image.copyMakeBorder(img, 1, 1, 1, 1, values=(1, 2))
