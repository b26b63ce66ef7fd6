"""mx.image.imread / imdecode: HWC uint8 NDArrays on cpu(0), RGB by
default, as MXNet's OpenCV-based functions return them."""

import subprocess
import sys

import numpy as np
import pytest

import dlbook as mx
from dlbook.base import MXNetError

from .conftest import encode, write

pytest.importorskip('PIL')

LUMA = np.array([0.299, 0.587, 0.114])


def test_imread_png_is_rgb_uint8_hwc(tmp_path, rgb_image):
    path = write(tmp_path / 'a.png', rgb_image)
    img = mx.image.imread(path)
    assert isinstance(img, mx.nd.NDArray)
    assert img.shape == (6, 10, 3)
    assert img.dtype == np.uint8
    assert img.context == mx.cpu(0)
    np.testing.assert_array_equal(img.asnumpy(), rgb_image)
    assert repr(img).endswith('<NDArray 6x10x3 @cpu(0)>')


def test_imread_flag0_is_one_channel_luma(tmp_path, rgb_image):
    img = mx.image.imread(write(tmp_path / 'a.png', rgb_image), flag=0)
    assert img.shape == (6, 10, 1) and img.dtype == np.uint8
    expected = np.rint(rgb_image @ LUMA)
    assert np.abs(img.asnumpy()[:, :, 0] - expected).max() <= 1


def test_imread_to_rgb_false_gives_bgr(tmp_path, rgb_image):
    path = write(tmp_path / 'a.png', rgb_image)
    bgr = mx.image.imread(path, to_rgb=False)
    np.testing.assert_array_equal(bgr.asnumpy(), rgb_image[:, :, ::-1])
    # a greyscale image has no channel order
    grey = mx.image.imread(path, flag=0, to_rgb=False)
    np.testing.assert_array_equal(
        grey.asnumpy(), mx.image.imread(path, flag=0).asnumpy()
    )


def test_imread_grey_and_rgba_files(tmp_path, rgb_image):
    grey = rgb_image[:, :, 0]
    img = mx.image.imread(write(tmp_path / 'g.png', grey))
    assert img.shape == (6, 10, 3)
    for c in range(3):
        np.testing.assert_array_equal(img.asnumpy()[:, :, c], grey)
    rgba = np.dstack([rgb_image, np.full((6, 10), 255, np.uint8)])
    img = mx.image.imread(write(tmp_path / 'a.png', rgba))
    np.testing.assert_array_equal(img.asnumpy(), rgb_image)


def test_imread_jpeg(tmp_path):
    smooth = np.zeros((16, 24, 3), np.uint8)
    smooth[...] = (200, 120, 40)
    path = write(tmp_path / 'a.jpg', smooth, fmt='JPEG')
    img = mx.image.imread(path)
    assert img.shape == (16, 24, 3) and img.dtype == np.uint8
    assert np.abs(img.asnumpy().astype(int) - smooth).max() <= 3


def test_imread_accepts_pathlike_and_out(tmp_path, rgb_image):
    path = tmp_path / 'a.png'
    write(path, rgb_image)
    out = mx.nd.zeros((6, 10, 3), dtype='uint8')
    result = mx.image.imread(path, out=out)
    assert result is out
    np.testing.assert_array_equal(out.asnumpy(), rgb_image)
    with pytest.raises(MXNetError, match='shape'):
        mx.image.imread(path, out=mx.nd.zeros((2, 2, 3), dtype='uint8'))


def test_imread_missing_file():
    with pytest.raises(MXNetError, match='no_such_image.jpg'):
        mx.image.imread('/nonexistent_dir/no_such_image.jpg')


@pytest.mark.parametrize('flag', [-1, 2, 'color'])
def test_wrong_flag(tmp_path, rgb_image, flag):
    path = write(tmp_path / 'a.png', rgb_image)
    with pytest.raises(MXNetError, match='flag must be 1'):
        mx.image.imread(path, flag=flag)
    with pytest.raises(MXNetError, match='flag must be 1'):
        mx.image.imdecode(encode(rgb_image), flag=flag)


def test_imdecode_matches_imread_for_every_buffer_type(tmp_path, rgb_image):
    data = encode(rgb_image)
    expected = mx.image.imread(write(tmp_path / 'a.png', rgb_image))
    buffers = [
        data,
        bytearray(data),
        np.frombuffer(data, np.uint8),
        mx.nd.array(np.frombuffer(data, np.uint8), dtype='uint8'),
    ]
    for buf in buffers:
        img = mx.image.imdecode(buf)
        assert img.shape == (6, 10, 3) and img.dtype == np.uint8
        assert img.context == mx.cpu(0)
        np.testing.assert_array_equal(img.asnumpy(), expected.asnumpy())


def test_imdecode_flag_and_to_rgb(rgb_image):
    data = encode(rgb_image)
    assert mx.image.imdecode(data, flag=0).shape == (6, 10, 1)
    np.testing.assert_array_equal(
        mx.image.imdecode(data, to_rgb=0).asnumpy(), rgb_image[:, :, ::-1]
    )
    np.testing.assert_array_equal(
        mx.image.imdecode(data, 1, True).asnumpy(), rgb_image
    )


def test_imdecode_errors():
    with pytest.raises(ValueError, match='convert to bytes'):
        mx.image.imdecode('not bytes')
    with pytest.raises(MXNetError, match='empty'):
        mx.image.imdecode(b'')
    with pytest.raises(MXNetError, match='cannot decode'):
        mx.image.imdecode(b'clearly not image content')
    with pytest.raises(MXNetError, match='uint8'):
        mx.image.imdecode(mx.nd.array([1.0, 2.0]))


def test_import_dlbook_does_not_load_pillow():
    code = "import dlbook, sys; assert 'PIL' not in sys.modules"
    subprocess.run([sys.executable, '-c', code], check=True)


def test_mx_img_alias():
    assert mx.img is mx.image
    assert mx.image.imread is mx.image.io.imread
