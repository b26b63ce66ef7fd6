"""mx.image.imrotate / random_rotate and the Gluon rotation transforms.

Expected values were computed with MXNet 1.9.1 (``mx.image.imrotate`` on
the same input)."""

import numpy
import pytest

import dlbook as mx
from dlbook.base import DLBookError
from dlbook.gluon.data.vision import transforms


def _src():
    values = numpy.arange(2 * 2 * 3 * 5, dtype=numpy.float32)
    return mx.nd.array((values.reshape(2, 2, 3, 5) * 7 % 23))


# MXNet 1.9.1: imrotate(src, 30)[0, 0]
A30 = [
    [0.7202, 7.251288, 16.02628, 13.507042, 11.923392],
    [1.875645, 12.397115, 3.0, 15.062178, 10.287186],
    [7.980761, 12.411542, 11.433013, 11.133974, 2.450017],
]
# imrotate(src, 30, zoom_in=True)[1, 1]
ZOOM_IN = [
    [1.736145, 7.846096, 11.625638, 7.535998, 6.140326],
    [5.064223, 11.901923, 19.0, 11.058305, 10.196155],
    [9.428077, 11.003774, 11.33459, 10.693674, 11.792709],
]
# imrotate(src, 30, zoom_out=True)[0, 1]
ZOOM_OUT = [
    [0.0, 0.0, 5.255521, 9.393697, 0.0],
    [0.221308, 15.044659, 16.0, 13.497965, 0.323449],
    [0.0, 6.42265, 9.823895, 0.0, 0.0],
]
# imrotate(src, nd.array([10, -70]), zoom_out=True)[1, 0]
PER_IMAGE = [
    [0.0, 1.905655, 8.61671, 0.0, 0.0],
    [0.0, 2.779024, 6.0, 1.356836, 0.0],
    [0.0, 0.0, 11.372709, 3.81131, 0.0],
]


def test_imrotate_matches_mxnet():
    src = _src()
    out = mx.image.imrotate(src, 30)
    assert out.shape == (2, 2, 3, 5) and out.dtype == numpy.float32
    numpy.testing.assert_allclose(out.asnumpy()[0, 0], A30, atol=1e-5)
    single = mx.image.imrotate(src[0], 30)
    numpy.testing.assert_allclose(
        single.asnumpy(), out.asnumpy()[0], atol=1e-6
    )
    out = mx.image.imrotate(src, 30, zoom_in=True)
    numpy.testing.assert_allclose(out.asnumpy()[1, 1], ZOOM_IN, atol=1e-5)
    out = mx.image.imrotate(src, 30, zoom_out=True)
    numpy.testing.assert_allclose(out.asnumpy()[0, 1], ZOOM_OUT, atol=1e-5)
    out = mx.image.imrotate(src, mx.nd.array([10, -70]), zoom_out=True)
    numpy.testing.assert_allclose(out.asnumpy()[1, 0], PER_IMAGE, atol=1e-5)


def test_imrotate_zero_and_full_turn_are_identity():
    src = _src()
    numpy.testing.assert_allclose(
        mx.image.imrotate(src, 0).asnumpy(), src.asnumpy(), atol=1e-5
    )
    numpy.testing.assert_allclose(
        mx.image.imrotate(src, 360).asnumpy(), src.asnumpy(), atol=1e-4
    )


def test_imrotate_bad_input():
    src = _src()
    with pytest.raises(DLBookError, match='float32'):
        mx.image.imrotate(src.astype('uint8'), 30)
    with pytest.raises(DLBookError, match='zoom_in and zoom_out'):
        mx.image.imrotate(src, 30, zoom_in=True, zoom_out=True)
    with pytest.raises(DLBookError, match='need 2 rotation angles'):
        mx.image.imrotate(src, mx.nd.array([1, 2, 3]))
    with pytest.raises(DLBookError, match='must be a number'):
        mx.image.imrotate(src[0], mx.nd.array([1]))
    with pytest.raises(DLBookError, match=r'\(3, 5\)'):
        mx.image.imrotate(src[0, 0], 30)


def test_random_rotate_is_seeded_and_in_limits():
    src = _src()
    mx.random.seed(3)
    a = mx.image.random_rotate(src, (-20, 20)).asnumpy()
    mx.random.seed(3)
    b = mx.image.random_rotate(src, (-20, 20)).asnumpy()
    numpy.testing.assert_array_equal(a, b)
    # a range of one angle is that angle
    out = mx.image.random_rotate(src[0], (30, 30))
    numpy.testing.assert_allclose(out.asnumpy()[0], A30, atol=1e-5)


def test_rotate_transforms():
    src = _src()
    out = transforms.Rotate(30, zoom_in=True)(src)
    numpy.testing.assert_allclose(out.asnumpy()[1, 1], ZOOM_IN, atol=1e-5)
    # NumPy in, NumPy out
    out = transforms.Rotate(30)(src.asnumpy()[0])
    assert isinstance(out, numpy.ndarray)
    numpy.testing.assert_allclose(out[0], A30, atol=1e-5)
    with pytest.raises(DLBookError, match='ToTensor'):
        transforms.Rotate(30)(mx.nd.zeros((4, 4, 3), dtype='uint8'))
    never = transforms.RandomRotation((-10, 10), rotate_with_proba=0)
    assert never(src) is src
    with pytest.raises(DLBookError, match='ordered'):
        transforms.RandomRotation((10, -10))
    with pytest.raises(DLBookError, match='rotate_with_proba'):
        transforms.RandomRotation((-10, 10), rotate_with_proba=2)
    # after ToTensor in a Compose
    image = mx.nd.ones((4, 6, 3), dtype='uint8') * 255
    pipeline = transforms.Compose(
        [transforms.ToTensor(), transforms.RandomRotation((-5, 5))]
    )
    assert pipeline(image).shape == (3, 4, 6)
    assert repr(transforms.Rotate(10)) == 'Rotate(\n\n)'


def test_random_apply_and_sequential():
    seq = transforms.Sequential()
    seq.add(transforms.Resize(8), transforms.ToTensor())
    assert len(seq) == 2
    image = mx.nd.zeros((4, 4, 3), dtype='uint8')
    assert seq(image).shape == (3, 8, 8)
    hseq = transforms.HybridSequential()
    hseq.add(transforms.ToTensor())
    hseq.hybridize()
    assert hseq(image).shape == (3, 4, 4)
    assert isinstance(transforms.Compose([]), transforms.Sequential)
    # MXNet 1.9.1's printed form
    assert repr(transforms.RandomApply(transforms.Resize(3), p=0.5)) == (
        'RandomApply(\n  (transforms): Resize(\n  \n  )\n)'
    )
    assert repr(seq) == (
        'Sequential(\n  (0): Resize(\n  \n  )\n  (1): ToTensor(\n  \n  )\n)'
    )
    always = transforms.RandomApply(transforms.Normalize(1.0, 2.0), p=1)
    never = transforms.HybridRandomApply(transforms.Normalize(1.0, 2.0), p=0)
    x = mx.nd.ones((3, 2, 2))
    numpy.testing.assert_array_equal(
        always(x).asnumpy(), numpy.zeros((3, 2, 2))
    )
    assert never(x) is x
    pipeline = transforms.Compose([transforms.ToTensor(), always])
    assert pipeline(image).shape == (3, 4, 4)
    with pytest.raises(DLBookError, match='callable'):
        transforms.RandomApply(3)
    with pytest.raises(DLBookError, match='callable'):
        seq.add(3)
