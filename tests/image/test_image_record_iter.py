"""mx.io.ImageRecordIter and its variants on small .rec files of PNG
images written with mx.recordio.  Expected values (labels, pads, epoch
order, pixel sums) were recorded with MXNet 1.9.1 on the same files."""

import numpy
import pytest

import dlbook as mx
from dlbook.base import DLBookError

pytest.importorskip('PIL')  # the test images are packed as PNG

SIZES = [(6, 8), (8, 6), (5, 5), (7, 9), (6, 6)]
# MXNet 1.9.1: per-image sums of the (3, 4, 4) centre crops
SUMS = [5136.0, 6912.0, 6816.0, 8064.0, 7168.0]


def _image(i, h, w):
    y, x, c = numpy.meshgrid(
        numpy.arange(h), numpy.arange(w), numpy.arange(3), indexing='ij'
    )
    return ((x * 7 + y * 13 + c * 50 + i * 31) % 256).astype(numpy.uint8)


def _write(tmp_path, name, indexed=False, label_width=1):
    rec = str(tmp_path / f'{name}.rec')
    idx = str(tmp_path / f'{name}.idx')
    if indexed:
        writer = mx.recordio.MXIndexedRecordIO(idx, rec, 'w')
    else:
        writer = mx.recordio.MXRecordIO(rec, 'w')
    for i, (h, w) in enumerate(SIZES):
        label = float(i) if label_width == 1 else [float(i), 10.0 + i]
        header = mx.recordio.IRHeader(0, label, i, 0)
        bgr = _image(i, h, w)[:, :, ::-1]
        s = mx.recordio.pack_img(header, bgr, img_fmt='.png')
        if indexed:
            writer.write_idx(i, s)
        else:
            writer.write(s)
    writer.close()
    return rec, idx


def _epochs(it, n):
    out = []
    for _ in range(n):
        epoch = []
        for batch in it:
            data = batch.data[0].asnumpy()
            epoch.append(
                (
                    batch.label[0].asnumpy().tolist(),
                    batch.pad,
                    data.reshape(len(data), -1).sum(1).tolist(),
                )
            )
        out.append(epoch)
        it.reset()
    return out


def test_centre_crop_layout_and_round_batch(tmp_path):
    rec, _ = _write(tmp_path, 'a')
    it = mx.io.ImageRecordIter(
        path_imgrec=rec, data_shape=(3, 4, 4), batch_size=3
    )
    assert it.provide_data[0].shape == (3, 3, 4, 4)
    assert it.provide_data[0].dtype == numpy.float32
    assert it.provide_label[0].shape == (3,)
    batch = it.next()
    data = batch.data[0].asnumpy()
    assert data.dtype == numpy.float32
    # RGB, centre crop at x0 = (8 - 4) // 2, y0 = (6 - 4) // 2
    expected = _image(0, 6, 8)[1:5, 2:6].transpose(2, 0, 1)
    numpy.testing.assert_array_equal(data[0], expected)
    it.reset()
    # MXNet 1.9.1: an incomplete batch is completed from the next pass
    # and the next epoch continues after those images
    epochs = _epochs(it, 4)
    assert [[(lab, pad) for lab, pad, _ in e] for e in epochs] == [
        [([0.0, 1.0, 2.0], 0), ([3.0, 4.0, 0.0], 1)],
        [([1.0, 2.0, 3.0], 0), ([4.0, 0.0, 1.0], 2)],
        [([2.0, 3.0, 4.0], 0)],
        [([0.0, 1.0, 2.0], 0), ([3.0, 4.0, 0.0], 1)],
    ]
    assert epochs[0][0][2] == SUMS[:3]


def test_round_batch_false_pads_with_zeros(tmp_path):
    rec, _ = _write(tmp_path, 'a')
    it = mx.io.ImageRecordIter(
        path_imgrec=rec, data_shape=(3, 4, 4), batch_size=3, round_batch=False
    )
    for _ in range(2):
        epoch = _epochs(it, 1)[0]
        assert len(epoch) == 2
        # dlbook reports the pad (MXNet 1.9.1 reports 0 here)
        assert epoch[1][1] == 1
        assert epoch[1][2] == SUMS[3:] + [0.0]


def test_normalisation_matches_mxnet(tmp_path):
    rec, _ = _write(tmp_path, 'a')
    it = mx.io.ImageRecordIter(
        path_imgrec=rec,
        data_shape=(3, 4, 4),
        batch_size=5,
        mean_r=10,
        mean_g=20,
        mean_b=30,
        std_r=2,
        std_g=4,
        std_b=8,
        scale=0.5,
        preprocess_threads=4,
    )
    data = it.next().data[0].asnumpy()
    numpy.testing.assert_allclose(
        data.reshape(5, -1).sum(1), [489.0, 748.0, 734.0, 1044.0, 1084.0]
    )
    raw = _image(0, 6, 8)[1:5, 2:6].transpose(2, 0, 1).astype(numpy.float32)
    mean = numpy.array([10, 20, 30.0]).reshape(3, 1, 1)
    std = numpy.array([2, 4, 8.0]).reshape(3, 1, 1)
    numpy.testing.assert_allclose(data[0], (raw - mean) * 0.5 / std)


def test_resize_and_small_images(tmp_path):
    rec, _ = _write(tmp_path, 'a')
    it = mx.io.ImageRecordIter(
        path_imgrec=rec, data_shape=(3, 4, 4), batch_size=5, resize=5
    )
    data = it.next().data[0].asnumpy()
    # MXNet 1.9.1 (OpenCV's fixed-point bilinear differs by <= 1 level)
    mxnet = [4756.0, 6708.0, 6816.0, 7896.0, 7693.0]
    assert numpy.abs(data.reshape(5, -1).sum(1) - mxnet).max() <= 48
    # images smaller than data_shape are enlarged to cover it
    it = mx.io.ImageRecordIter(
        path_imgrec=rec, data_shape=(3, 7, 7), batch_size=5
    )
    data = it.next().data[0].asnumpy()
    assert data.shape == (5, 3, 7, 7)
    mxnet = [15711.0, 21099.0, 22327.0, 23190.0, 22100.0]
    assert numpy.abs(data.reshape(5, -1).sum(1) - mxnet).max() <= 147


def test_uint8_int8_and_label_width(tmp_path):
    rec, _ = _write(tmp_path, 'a')
    kw = dict(path_imgrec=rec, data_shape=(3, 4, 4), batch_size=5)
    data = mx.io.ImageRecordUInt8Iter(**kw).next().data[0].asnumpy()
    assert data.dtype == numpy.uint8
    assert data.reshape(5, -1).sum(1).tolist() == SUMS
    it = mx.io.ImageRecordInt8Iter(**kw)
    assert it.provide_data[0].dtype == numpy.int8
    data = it.next().data[0].asnumpy()
    assert data.dtype == numpy.int8
    # MXNet 1.9.1: values above 127 saturate
    assert data.reshape(5, -1).astype(int).sum(1).tolist() == [
        4643,
        5549,
        5510,
        5396,
        4623,
    ]
    for cls in (mx.io.ImageRecordIter_v1, mx.io.ImageRecordUInt8Iter_v1):
        assert cls(**kw).next().data[0].shape == (5, 3, 4, 4)
    rec2, _ = _write(tmp_path, 'c', label_width=2)
    it = mx.io.ImageRecordIter(
        path_imgrec=rec2, data_shape=(3, 4, 4), batch_size=5, label_width=2
    )
    assert it.provide_label[0].shape == (5, 2)
    assert it.next().label[0].asnumpy().tolist() == [
        [float(i), 10.0 + i] for i in range(5)
    ]


def test_index_parts_and_shuffle(tmp_path):
    rec, idx = _write(tmp_path, 'b', indexed=True)
    kw = dict(path_imgrec=rec, data_shape=(3, 4, 4), batch_size=2)
    for extra in ({'path_imgidx': idx}, {}):
        # MXNet 1.9.1: parts of ceil(5 / 2) = 3 records
        part0 = mx.io.ImageRecordIter(num_parts=2, part_index=0, **kw, **extra)
        part1 = mx.io.ImageRecordIter(num_parts=2, part_index=1, **kw, **extra)
        assert [(lab, pad) for lab, pad, _ in _epochs(part0, 1)[0]] == [
            ([0.0, 1.0], 0),
            ([2.0, 0.0], 1),
        ]
        assert [(lab, pad) for lab, pad, _ in _epochs(part1, 1)[0]] == [
            ([3.0, 4.0], 0)
        ]
    labels = []
    for _ in range(2):
        it = mx.io.ImageRecordIter(
            path_imgidx=idx,
            shuffle=True,
            seed=7,
            batch_size=5,
            path_imgrec=rec,
            data_shape=(3, 4, 4),
        )
        labels.append(it.next().label[0].asnumpy().tolist())
    assert labels[0] == labels[1] and sorted(labels[0]) == [0, 1, 2, 3, 4]


def test_random_augmentations_run(tmp_path):
    rec, _ = _write(tmp_path, 'a')
    mx.random.seed(1)
    it = mx.io.ImageRecordIter(
        path_imgrec=rec,
        data_shape=(3, 4, 4),
        batch_size=5,
        rand_crop=True,
        rand_mirror=True,
        max_rotate_angle=10,
        pad=1,
        brightness=0.1,
        pca_noise=0.1,
    )
    assert it.next().data[0].shape == (5, 3, 4, 4)
    # mirror=True flips every image
    it = mx.io.ImageRecordIter(
        path_imgrec=rec, data_shape=(3, 4, 4), batch_size=5, mirror=True
    )
    expected = _image(0, 6, 8)[1:5, 2:6][:, ::-1].transpose(2, 0, 1)
    numpy.testing.assert_array_equal(it.next().data[0].asnumpy()[0], expected)
    # a fixed rotation fills the uncovered corners with fill_value
    it = mx.io.ImageRecordUInt8Iter(
        path_imgrec=rec, data_shape=(3, 5, 5), batch_size=5, rotate=45
    )
    corner = it.next().data[0].asnumpy()[2, :, 0, 0]
    assert (corner >= 200).all()  # unrotated: 62, 112, 162


def test_bad_parameters(tmp_path):
    rec, _ = _write(tmp_path, 'a')
    kw = dict(path_imgrec=rec, batch_size=2)
    with pytest.raises(DLBookError, match=r'data_shape.*\(1, 4, 4\)'):
        mx.io.ImageRecordIter(data_shape=(1, 4, 4), **kw)
    with pytest.raises(DLBookError, match='max_shear_ratio'):
        mx.io.ImageRecordIter(data_shape=(3, 4, 4), max_shear_ratio=0.1, **kw)
    with pytest.raises(DLBookError, match="unknown parameter 'rand_flip'"):
        mx.io.ImageRecordIter(data_shape=(3, 4, 4), rand_flip=True, **kw)
    with pytest.raises(DLBookError, match='path_imgidx'):
        mx.io.ImageRecordIter(data_shape=(3, 4, 4), shuffle=True, **kw)
    with pytest.raises(DLBookError, match='part_index'):
        mx.io.ImageRecordIter(
            data_shape=(3, 4, 4), num_parts=2, part_index=2, **kw
        )
    with pytest.raises(DLBookError, match='mean_r'):
        mx.io.ImageRecordUInt8Iter(data_shape=(3, 4, 4), mean_r=1, **kw)
    with pytest.raises(DLBookError, match='path_imgrec'):
        mx.io.ImageRecordIter(data_shape=(3, 4, 4), batch_size=2)
    with pytest.raises(DLBookError, match='missing.rec'):
        mx.io.ImageRecordIter(
            path_imgrec=str(tmp_path / 'missing.rec'),
            data_shape=(3, 4, 4),
            batch_size=2,
        )
