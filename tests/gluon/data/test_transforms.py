"""Image transforms (mxnet.gluon.data.vision.transforms)."""

import pickle

import numpy as np
import pytest

import dlbook as mx
from dlbook import nd
from dlbook.base import DLBookError
from dlbook.gluon.data.vision import transforms as T


def _image(h=6, w=5, c=3, seed=0):
    rng = np.random.RandomState(seed)
    return rng.randint(0, 256, (h, w, c)).astype(np.uint8)


def _reference_bilinear(img, out_w, out_h):
    """OpenCV's INTER_LINEAR rule, one pixel at a time, in float64."""
    in_h, in_w = img.shape[:2]
    out = np.zeros((out_h, out_w, img.shape[2]))

    def coord(d, scale, size):
        f = (d + 0.5) * scale - 0.5
        s = int(np.floor(f))
        f -= s
        if s < 0:
            f, s = 0.0, 0
        if s >= size - 1:
            f, s = 0.0, size - 1
        return s, min(s + 1, size - 1), f

    for y in range(out_h):
        y0, y1, fy = coord(y, in_h / out_h, in_h)
        for x in range(out_w):
            x0, x1, fx = coord(x, in_w / out_w, in_w)
            top = img[y0, x0] * (1 - fx) + img[y0, x1] * fx
            bottom = img[y1, x0] * (1 - fx) + img[y1, x1] * fx
            out[y, x] = top * (1 - fy) + bottom * fy
    return out


def test_to_tensor():
    img = _image()
    out = T.ToTensor()(nd.array(img, dtype='uint8'))
    assert isinstance(out, nd.NDArray)
    assert out.shape == (3, 6, 5) and out.dtype == np.float32
    np.testing.assert_allclose(
        out.asnumpy(), img.transpose(2, 0, 1) / 255.0, rtol=1e-6
    )
    batch = T.ToTensor()(nd.array(np.stack([img, img]), dtype='uint8'))
    assert batch.shape == (2, 3, 6, 5)
    with pytest.raises(DLBookError, match=r'\(H, W, C\)'):
        T.ToTensor()(nd.ones((4, 4)))


def test_numpy_input_stays_numpy():
    out = T.ToTensor()(_image())
    assert isinstance(out, np.ndarray) and out.shape == (3, 6, 5)


def test_normalize():
    x = np.random.RandomState(0).rand(3, 4, 4).astype(np.float32)
    out = T.Normalize((0.1, 0.2, 0.3), (0.5, 1.0, 2.0))(nd.array(x))
    expect = (x - np.array([0.1, 0.2, 0.3])[:, None, None]) / np.array(
        [0.5, 1.0, 2.0]
    )[:, None, None]
    np.testing.assert_allclose(out.asnumpy(), expect, rtol=1e-6)
    assert out.dtype == np.float32
    scalar = T.Normalize(0.5, 0.25)(nd.array(x))
    np.testing.assert_allclose(scalar.asnumpy(), (x - 0.5) / 0.25, rtol=1e-6)
    with pytest.raises(DLBookError, match='2 values but the input has 3'):
        T.Normalize((0.1, 0.2))(nd.array(x))


def test_cast():
    out = T.Cast('float16')(nd.array(_image(), dtype='uint8'))
    assert out.dtype == np.float16
    assert T.Cast()(nd.ones((1, 1, 1), dtype='int32')).dtype == np.float32


@pytest.mark.parametrize('size', [(3, 4), (8, 9), (5, 6), (1, 1), (11, 2)])
def test_resize_matches_the_opencv_rule(size):
    img = _image(6, 5)
    out = T.Resize(size)(nd.array(img, dtype='uint8'))
    assert out.shape == (size[1], size[0], 3) and out.dtype == np.uint8
    expect = np.clip(
        np.rint(_reference_bilinear(img.astype(np.float64), *size)), 0, 255
    )
    np.testing.assert_allclose(out.asnumpy(), expect, atol=1)
    fimg = img.astype(np.float32)
    fout = T.Resize(size)(nd.array(fimg))
    np.testing.assert_allclose(
        fout.asnumpy(), _reference_bilinear(fimg, *size), rtol=1e-5, atol=1e-3
    )


def test_resize_sizes_and_modes():
    img = nd.array(_image(6, 4), dtype='uint8')
    assert T.Resize(10)(img).shape == (10, 10, 3)
    assert T.Resize(8, keep_ratio=True)(img).shape == (12, 8, 3)
    wide = nd.array(_image(4, 6), dtype='uint8')
    assert T.Resize(8, keep_ratio=True)(wide).shape == (8, 12, 3)
    same = T.Resize((4, 6))(img)
    np.testing.assert_array_equal(same.asnumpy(), img.asnumpy())
    nearest = T.Resize((2, 3), interpolation=0)(img).asnumpy()
    np.testing.assert_array_equal(nearest, img.asnumpy()[::2, ::2])
    batch = nd.array(
        np.stack([_image(6, 4, seed=s) for s in range(3)]), dtype='uint8'
    )
    out = T.Resize((3, 5))(batch)
    assert out.shape == (3, 5, 3, 3)
    np.testing.assert_array_equal(
        out.asnumpy()[1], T.Resize((3, 5))(batch[1]).asnumpy()
    )


def test_center_crop():
    img = _image(8, 6)
    out = T.CenterCrop((4, 2))(nd.array(img, dtype='uint8'))
    np.testing.assert_array_equal(out.asnumpy(), img[3:5, 1:5])
    square = T.CenterCrop(4)(nd.array(img, dtype='uint8'))
    np.testing.assert_array_equal(square.asnumpy(), img[2:6, 1:5])
    bigger = T.CenterCrop(10)(nd.array(img, dtype='uint8'))
    assert bigger.shape == (10, 10, 3)
    crop = T.CropResize(1, 2, 3, 4)(nd.array(img, dtype='uint8'))
    np.testing.assert_array_equal(crop.asnumpy(), img[2:6, 1:4])


def test_outputs_never_alias_the_input():
    src = nd.array(_image(8, 6), dtype='uint8')
    keep = src.asnumpy().copy()
    for t in [
        T.CenterCrop((6, 4)),
        T.RandomFlipLeftRight(p=0.0),
        T.RandomCrop(6),
    ]:
        out = t(src)
        out[:] = 0
        np.testing.assert_array_equal(src.asnumpy(), keep)


def test_random_resized_crop_and_random_crop():
    img = nd.array(_image(20, 16), dtype='uint8')
    mx.random.seed(0)
    a = T.RandomResizedCrop(8)(img)
    mx.random.seed(0)
    b = T.RandomResizedCrop(8)(img)
    assert a.shape == (8, 8, 3)
    np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    out = T.RandomResizedCrop((5, 7), scale=(0.5, 0.5), ratio=(1, 1))(img)
    assert out.shape == (7, 5, 3)
    crop = T.RandomCrop(4, pad=2)(img)
    assert crop.shape == (4, 4, 3)
    padded = T.RandomCrop((20, 24), pad=2)(img)
    assert padded.shape == (24, 20, 3)


def test_flips():
    img = _image()
    x = nd.array(img, dtype='uint8')
    np.testing.assert_array_equal(
        T.RandomFlipLeftRight(p=1)(x).asnumpy(), img[:, ::-1]
    )
    np.testing.assert_array_equal(
        T.RandomFlipTopBottom(p=1)(x).asnumpy(), img[::-1]
    )
    np.testing.assert_array_equal(T.RandomFlipLeftRight(p=0)(x).asnumpy(), img)
    mx.random.seed(1)
    flips = [
        np.array_equal(T.RandomFlipLeftRight()(x).asnumpy(), img[:, ::-1])
        for _ in range(40)
    ]
    assert 5 < sum(flips) < 35


def test_color_transforms():
    img = nd.array(_image(), dtype='uint8')
    for t in [
        T.RandomBrightness(0.3),
        T.RandomContrast(0.3),
        T.RandomSaturation(0.3),
        T.RandomHue(0.2),
        T.RandomColorJitter(0.2, 0.2, 0.2, 0.1),
        T.RandomLighting(0.1),
    ]:
        out = t(img)
        assert out.shape == img.shape and out.dtype == np.uint8
    # Zero strength changes nothing.
    for t in [
        T.RandomBrightness(0),
        T.RandomContrast(0),
        T.RandomSaturation(0),
        T.RandomHue(0),
        T.RandomLighting(0),
    ]:
        np.testing.assert_array_equal(t(img).asnumpy(), img.asnumpy())
    grey = nd.array(np.repeat(_image(c=1), 3, axis=2), dtype='float32')
    np.testing.assert_allclose(
        T.RandomSaturation(0.9)(grey).asnumpy(), grey.asnumpy(), atol=1e-3
    )
    # A hue rotation keeps the luma.
    x = np.random.RandomState(0).rand(4, 4, 3).astype(np.float32)
    luma = x @ np.array([0.299, 0.587, 0.114])
    rotated = T.RandomHue(0.5)(nd.array(x)).asnumpy()
    np.testing.assert_allclose(
        rotated @ np.array([0.299, 0.587, 0.114]), luma, atol=2e-3
    )
    # Brightness scales float images by a factor in [1 - b, 1 + b].
    ratio = T.RandomBrightness(0.5)(nd.array(x)).asnumpy() / x
    assert np.allclose(ratio, ratio.flat[0]) and 0.5 <= ratio.flat[0] <= 1.5


def test_color_transforms_on_grey_images():
    img = nd.array(_image(c=1), dtype='uint8')
    for t in [
        T.RandomBrightness(0.3),
        T.RandomContrast(0.3),
        T.RandomSaturation(0.3),
    ]:
        assert t(img).shape == (6, 5, 1)
    np.testing.assert_array_equal(
        T.RandomSaturation(0.5)(img).asnumpy(), img.asnumpy()
    )
    with pytest.raises(DLBookError, match='RandomHue needs RGB'):
        T.RandomHue(0.5)(img)
    with pytest.raises(DLBookError, match='RandomLighting needs RGB'):
        T.RandomLighting(0.5)(img)


def test_compose_and_repr():
    t = T.Compose([T.Resize(4), T.ToTensor(), T.Normalize(0.5, 0.5)])
    out = t(nd.array(_image(), dtype='uint8'))
    assert out.shape == (3, 4, 4) and out.dtype == np.float32
    assert repr(T.ToTensor()) == 'ToTensor(\n\n)'
    assert repr(T.Compose([T.ToTensor(), T.Cast()])) == (
        'Compose(\n  (0): ToTensor(\n  \n  )\n  (1): Cast(\n  \n  )\n)'
    )
    assert len(t) == 3 and isinstance(t[1], T.ToTensor)
    assert t.batchable
    assert not T.Compose([T.ToTensor(), T.RandomFlipLeftRight()]).batchable
    t.hybridize()


def test_transforms_pickle():
    everything = T.Compose(
        [
            T.Resize(4),
            T.CenterCrop(3),
            T.RandomResizedCrop(3),
            T.RandomCrop(3, pad=1),
            T.RandomFlipLeftRight(),
            T.RandomFlipTopBottom(),
            T.RandomColorJitter(0.1, 0.1, 0.1, 0.1),
            T.RandomLighting(0.1),
            T.ToTensor(),
            T.Normalize(0.1, 0.2),
            T.Cast('float64'),
        ]
    )
    clone = pickle.loads(pickle.dumps(everything))
    out = clone(nd.array(_image(), dtype='uint8'))
    assert out.shape == (3, 3, 3) and out.dtype == np.float64
