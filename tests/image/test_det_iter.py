"""mx.image.ImageDetIter and the detection augmenters: label parsing and
padding, batches and last-batch handling from .lst / list / .rec sources,
the box arithmetic of flips, crops and pads, CreateDetAugmenter, and the
errors.  Expected values were recorded with MXNet 1.9.1 (random draws
differ: MXNet uses Python's ``random``, dlbook ``mx.random``'s NumPy
generator, so random augmentations are checked by invariants)."""

import io
import json

import numpy as np
import pytest

import dlbook as mx
from dlbook import recordio
from dlbook.base import DLBookError

pytest.importorskip('PIL')

SHAPE = (3, 8, 8)
# raw labels: [header_width, object_width, (header...), objects...]
LABELS = [
    [2, 5, 0, 0.1, 0.1, 0.5, 0.5],
    [2, 5, 1, 0.2, 0.3, 0.6, 0.9, 2, 0.5, 0.5, 0.9, 0.8],
    # the third object has xmax == xmin: dropped
    [
        2,
        5,
        0,
        0.1,
        0.1,
        0.4,
        0.4,
        1,
        0.5,
        0.5,
        0.6,
        0.6,
        3,
        0.3,
        0.3,
        0.3,
        0.9,
    ],
    [3, 5, 99, 2, 0, 0, 1, 1],  # a header of 3
    [2, 5, -1, 0.1, 0.1, 0.5, 0.5],  # class -1 only: image skipped
    [2, 5, 4, 0.25, 0.5, 0.75, 1],
]
# the objects of each image in the batch label (image 4 never appears)
OBJECTS = {
    0: [[0, 0.1, 0.1, 0.5, 0.5]],
    1: [[1, 0.2, 0.3, 0.6, 0.9], [2, 0.5, 0.5, 0.9, 0.8]],
    2: [[0, 0.1, 0.1, 0.4, 0.4], [1, 0.5, 0.5, 0.6, 0.6]],
    3: [[2, 0, 0, 1, 1]],
    5: [[4, 0.25, 0.5, 0.75, 1]],
}
# (image ids, pad) of each batch per epoch, from MXNet 1.9.1 (batch 2)
EPOCHS = {
    'pad': [[([0, 1], 0), ([2, 3], 0), ([5, 0], 1)]] * 2,
    'discard': [[([0, 1], 0), ([2, 3], 0)]] * 2,
    'roll_over': [
        [([0, 1], 0), ([2, 3], 0)],
        [([5, 0], 1), ([1, 2], 0), ([3, 5], 0)],
    ],
}


def _image(i):
    """8x8 image ``i``: every pixel ``(10i, 10i+1, 10i+2)`` except the
    left half of the top row, white (to see flips)."""
    a = np.empty((8, 8, 3), np.uint8)
    a[...] = (10 * i, 10 * i + 1, 10 * i + 2)
    a[0, :4] = 255
    return a


def _png(array):
    from PIL import Image

    out = io.BytesIO()
    Image.fromarray(array).save(out, format='PNG')
    return out.getvalue()


@pytest.fixture
def det_data(tmp_path):
    """The images as PNG files, a .lst list and an indexed .rec file."""
    rec = recordio.MXIndexedRecordIO(
        str(tmp_path / 'd.idx'), str(tmp_path / 'd.rec'), 'w'
    )
    with open(tmp_path / 'd.lst', 'w') as lst:
        for i, label in enumerate(LABELS):
            data = _png(_image(i))
            (tmp_path / f'img{i}.png').write_bytes(data)
            fields = [str(i)] + [str(float(v)) for v in label]
            lst.write('\t'.join(fields + [f'img{i}.png']) + '\n')
            header = recordio.IRHeader(
                len(label), np.array(label, np.float32), i, 0
            )
            rec.write_idx(i, recordio.pack(header, data))
    rec.close()
    return tmp_path


def _sources(folder):
    return {
        'lst': dict(path_imglist=str(folder / 'd.lst'), path_root=str(folder)),
        'list': dict(
            imglist=[lab + [f'img{i}.png'] for i, lab in enumerate(LABELS)],
            path_root=str(folder),
        ),
        'rec': dict(path_imgrec=str(folder / 'd.rec')),
        'rec+idx': dict(
            path_imgrec=str(folder / 'd.rec'),
            path_imgidx=str(folder / 'd.idx'),
        ),
    }


def _expected_label(ids, count=2):
    out = np.full((len(ids), count, 5), -1, np.float32)
    for k, i in enumerate(ids):
        out[k, : len(OBJECTS[i])] = OBJECTS[i]
    return out


def _ids(batch):
    return [int(d[0, 7, 7]) // 10 for d in batch.data[0].asnumpy()]


# -- the iterator ------------------------------------------------------------


@pytest.mark.parametrize('source', ['lst', 'list', 'rec', 'rec+idx'])
@pytest.mark.parametrize('handle', ['pad', 'discard', 'roll_over'])
def test_batches_as_mxnet(det_data, source, handle):
    it = mx.image.ImageDetIter(
        2, SHAPE, last_batch_handle=handle, **_sources(det_data)[source]
    )
    assert it.label_shape == (2, 5)
    assert it.provide_label == [('label', (2, 2, 5))]
    assert it.provide_data == [('data', (2, 3, 8, 8))]
    for epoch in EPOCHS[handle]:
        got = []
        for batch in it:
            ids = _ids(batch)
            got.append((ids, batch.pad))
            np.testing.assert_allclose(
                batch.label[0].asnumpy(), _expected_label(ids), rtol=1e-6
            )
            data = batch.data[0].asnumpy()
            assert data.dtype == np.float32
            np.testing.assert_array_equal(
                data[0].transpose(1, 2, 0), _image(ids[0])
            )
        assert got == epoch
        it.reset()


def test_mirror_moves_boxes_and_pixels_as_mxnet(det_data):
    augs = [
        mx.image.DetHorizontalFlipAug(1),
        mx.image.DetBorrowAug(mx.image.CastAug()),
    ]
    it = mx.image.ImageDetIter(
        2, SHAPE, aug_list=augs, **_sources(det_data)['lst']
    )
    batch = it.next()
    np.testing.assert_allclose(
        batch.label[0].asnumpy(),
        [
            [[0, 0.5, 0.1, 0.9, 0.5], [-1] * 5],
            [[1, 0.4, 0.3, 0.8, 0.9], [2, 0.1, 0.5, 0.5, 0.8]],
        ],
        rtol=1e-6,
    )
    assert batch.data[0].asnumpy()[0, 0, 0].tolist() == [0] * 4 + [255] * 4


def test_default_augmenters_resize_to_data_shape(det_data):
    it = mx.image.ImageDetIter(
        3,
        (3, 12, 10),
        rand_crop=1,
        rand_pad=1,
        rand_mirror=True,
        mean=True,
        std=True,
        **_sources(det_data)['rec'],
    )
    names = [type(a).__name__ for a in it.auglist]
    assert names == [
        'DetRandomSelectAug',
        'DetHorizontalFlipAug',
        'DetRandomSelectAug',
        'DetBorrowAug',
        'DetBorrowAug',
        'DetBorrowAug',
    ]
    mx.random.seed(3)
    for batch in it:
        assert batch.data[0].shape == (3, 3, 12, 10)
        label = batch.label[0].asnumpy()
        objects = label[label[:, :, 0] >= 0]
        assert len(objects) > 0
        assert (objects[:, 1:] >= 0).all() and (objects[:, 1:] <= 1).all()
        assert (objects[:, 3] > objects[:, 1]).all()
        assert (objects[:, 4] > objects[:, 2]).all()
        # rows are objects first, then -1 padding
        for rows in label:
            pad = rows[:, 0] < 0
            assert (rows[pad] == -1).all()
            assert not pad[: int((~pad).sum())].any()


def test_random_augmentation_is_reproducible(det_data):
    def run():
        mx.random.seed(11)
        it = mx.image.ImageDetIter(
            2,
            SHAPE,
            rand_crop=0.7,
            rand_pad=0.5,
            rand_mirror=True,
            **_sources(det_data)['lst'],
        )
        return [b.label[0].asnumpy() for b in it]

    for a, b in zip(run(), run()):
        np.testing.assert_array_equal(a, b)


def test_reshape_and_sync_label_shape(det_data):
    sources = _sources(det_data)
    train = mx.image.ImageDetIter(2, SHAPE, **sources['lst'])
    val = mx.image.ImageDetIter(
        2, SHAPE, imglist=[LABELS[0] + ['img0.png']], path_root=str(det_data)
    )
    assert val.label_shape == (1, 5)
    assert train.sync_label_shape(val) is val
    assert val.label_shape == (2, 5) and train.label_shape == (2, 5)
    assert val.provide_label == [('label', (2, 2, 5))]
    val.reshape(label_shape=(4, 5))
    assert val.next().label[0].shape == (2, 4, 5)
    train.sync_label_shape(val)
    assert train.label_shape == (4, 5)
    with pytest.raises(ValueError, match='reduce label count from 4 to 3'):
        train.reshape(label_shape=(3, 5))
    with pytest.raises(ValueError, match='object width inconsistent'):
        train.reshape(label_shape=(4, 6))
    with pytest.raises(ValueError, match='length 2'):
        train.check_label_shape((4,))
    with pytest.raises(ValueError, match='3 channels'):
        train.reshape(data_shape=(1, 8, 8))
    train.reshape(data_shape=(3, 16, 16))
    assert train.provide_data == [('data', (2, 3, 16, 16))]


def test_extra_object_columns_are_kept(det_data):
    imglist = [
        [2, 6, 0, 0.1, 0.2, 0.3, 0.4, 0.9, 'img0.png'],
        [2, 6, 1, 0.5, 0.5, 0.7, 0.8, 0.5, 2, 0, 0, 1, 1, 0.25, 'img1.png'],
    ]
    it = mx.image.ImageDetIter(
        2, SHAPE, imglist=imglist, path_root=str(det_data)
    )
    assert it.label_shape == (2, 6)
    label = it.next().label[0].asnumpy()
    np.testing.assert_allclose(label[1, 1], [2, 0, 0, 1, 1, 0.25])
    assert (label[0, 1] == -1).all()


def test_draw_next(det_data):
    it = mx.image.ImageDetIter(
        1,
        SHAPE,
        imglist=[[2, 5, 0, 0.25, 0.25, 0.75, 0.75, 'img1.png']],
        path_root=str(det_data),
    )
    images = list(it.draw_next(color=(255, 0, 0), thickness=1))
    assert len(images) == 1
    image = images[0]
    assert image.dtype == np.uint8 and image.shape == (8, 8, 3)
    # BGR: red is (0, 0, 255); the box outline runs from pixel 2 to 6
    assert image[2, 2:7].tolist() == [[0, 0, 255]] * 5
    assert image[2:7, 6].tolist() == [[0, 0, 255]] * 5
    assert image[4, 4].tolist() == [12, 11, 10]  # inside: the image, BGR
    with pytest.raises(DLBookError, match='std must be'):
        next(it.draw_next(std=np.ones((2, 2))))


# -- bad input ----------------------------------------------------------------


@pytest.mark.parametrize(
    'label, match',
    [
        ([2, 5, 0, 0.1, 0.1], 'has 5 values'),
        ([2, 5, 0, 0.1, 0.1, 0.5, 0.5, 1], 'not a multiple of object_width=5'),
        ([2, 4, 0, 0.1, 0.1, 0.5, 0.5, 1], 'object_width=4'),
        ([2, 5, 0, 0.5, 0.1, 0.5, 0.5], 'no valid box'),
    ],
)
def test_bad_labels_name_the_image(det_data, label, match):
    with pytest.raises(DLBookError, match=match) as err:
        mx.image.ImageDetIter(
            1, SHAPE, imglist=[label + ['img0.png']], path_root=str(det_data)
        )
    assert 'img0.png' in str(err.value)


def test_mixed_object_widths_are_refused(det_data):
    imglist = [
        [2, 5, 0, 0.1, 0.1, 0.5, 0.5, 'img0.png'],
        [2, 6, 0, 0.1, 0.1, 0.5, 0.5, 1, 'img1.png'],
    ]
    with pytest.raises(DLBookError, match='img1.png has object_width 6'):
        mx.image.ImageDetIter(
            1, SHAPE, imglist=imglist, path_root=str(det_data)
        )


def test_augmented_image_of_wrong_size_is_an_error(det_data):
    augs = [mx.image.DetBorrowAug(mx.image.ForceResizeAug((4, 4)))]
    it = mx.image.ImageDetIter(
        1, SHAPE, aug_list=augs, **_sources(det_data)['lst']
    )
    with pytest.raises(DLBookError, match=r'img0.png\) has shape \(3, 4, 4\)'):
        it.next()


# -- augmenters -----------------------------------------------------------------

LABEL = np.array(
    [
        [0, 0.1, 0.2, 0.5, 0.6, 7],
        [1, 0.4, 0.1, 0.9, 0.95, 8],
        [2, 0.05, 0.7, 0.2, 0.9, 9],
    ]
)


def test_flip_as_mxnet():
    img = mx.nd.array(np.arange(72).reshape(4, 6, 3), dtype='uint8')
    out, label = mx.image.DetHorizontalFlipAug(1)(img, LABEL.copy())
    np.testing.assert_allclose(
        label,
        [
            [0, 0.5, 0.2, 0.9, 0.6, 7],
            [1, 0.1, 0.1, 0.6, 0.95, 8],
            [2, 0.8, 0.7, 0.95, 0.9, 9],
        ],
    )
    np.testing.assert_array_equal(out.asnumpy(), img.asnumpy()[:, ::-1])
    out, label = mx.image.DetHorizontalFlipAug(0)(img, LABEL.copy())
    assert out is img
    np.testing.assert_array_equal(label, LABEL)


def test_crop_label_arithmetic_as_mxnet():
    aug = mx.image.DetRandomCropAug(
        min_object_covered=0.3, min_eject_coverage=0.4
    )
    np.testing.assert_allclose(
        aug._update_labels(LABEL, (20, 10, 50, 60), 100, 80),
        [
            [0, 0, 1 / 6, 0.4, 5 / 6, 7],
            [1, 0.24, 0, 1, 1, 8],
        ],
    )
    assert aug._update_labels(LABEL, (0, 0, 2, 2), 100, 80) is None
    for (x, y, w, h), ok in [
        ((20, 10, 50, 60), True),
        ((0, 0, 80, 100), True),
        ((60, 0, 20, 20), False),
        ((0, 0, 1, 1), False),
    ]:
        assert (
            aug._check_satisfy_constraints(LABEL, x, y, x + w, y + h, 80, 100)
            == ok
        )


def test_pad_label_arithmetic_as_mxnet():
    aug = mx.image.DetRandomPadAug()
    np.testing.assert_allclose(
        aug._update_labels(LABEL, (5, 10, 30, 40), 20, 16),
        [
            [0, 0.22, 0.35, 0.43333333, 0.55, 7],
            [1, 0.38, 0.3, 0.64666667, 0.725, 8],
            [2, 0.19333333, 0.6, 0.27333333, 0.7, 9],
        ],
    )


def _boxes_in_pixels(label, height, width):
    return label[:, 1:5] * [width, height, width, height]


def test_random_crop_keeps_boxes_on_the_same_pixels():
    rng = np.random.RandomState(0)
    img = mx.nd.array(rng.randint(0, 256, (60, 80, 3)), dtype='uint8')
    aug = mx.image.DetRandomCropAug(area_range=(0.3, 0.6))
    mx.random.seed(5)
    cropped = 0
    for _ in range(20):
        out, label = aug(img, LABEL.copy())
        if out.shape == img.shape:
            continue
        cropped += 1
        h, w = out.shape[:2]
        assert 0.3 * 4800 <= h * w <= 0.6 * 4800
        assert ((label[:, 1:5] >= 0) & (label[:, 1:5] <= 1)).all()
        assert set(label[:, 5]) <= {7, 8, 9}  # extra columns carried along
        # find the window: the crop is a sub-array of the image
        src = img.asnumpy()
        matches = [
            (x, y)
            for y in range(61 - h)
            for x in range(81 - w)
            if (src[y, x] == out.asnumpy()[0, 0]).all()
            and (src[y : y + h, x : x + w] == out.asnumpy()).all()
        ]
        assert len(matches) == 1
        x, y = matches[0]
        # a kept box, back in image pixels, is the original clipped
        for row in label:
            orig = LABEL[LABEL[:, 5] == row[5]][0]
            back = row[1:5] * [w, h, w, h] + [x, y, x, y]
            clipped = np.clip(
                orig[1:5] * [80, 60, 80, 60],
                [x, y, x, y],
                [x + w, y + h, x + w, y + h],
            )
            np.testing.assert_allclose(back, clipped, atol=1e-9)
    assert cropped > 5


def test_random_pad_keeps_boxes_on_the_same_pixels():
    img = mx.nd.array(np.full((10, 20, 3), 200), dtype='uint8')
    aug = mx.image.DetRandomPadAug(area_range=(1.5, 2.5), pad_val=(1, 2, 3))
    mx.random.seed(2)
    out, label = aug(img, LABEL.copy())
    h, w = out.shape[:2]
    assert h >= 12 and w >= 22 and 1.5 * 200 <= h * w <= 2.5 * 200 * 1.2
    data = out.asnumpy()
    inside = np.argwhere((data == 200).all(axis=2))
    (y0, x0), (y1, x1) = inside.min(0), inside.max(0)
    assert (y1 - y0 + 1, x1 - x0 + 1) == (10, 20)
    assert (data[data[:, :, 0] != 200] == [1, 2, 3]).all()
    np.testing.assert_allclose(
        _boxes_in_pixels(label, h, w),
        _boxes_in_pixels(LABEL, 10, 20) + [x0, y0, x0, y0],
    )


def test_random_select_and_borrow():
    img = mx.nd.zeros((4, 4, 3))
    flip = mx.image.DetHorizontalFlipAug(1)
    never = mx.image.DetRandomSelectAug([flip], skip_prob=1)
    assert never(img, LABEL.copy())[1].tolist() == LABEL.tolist()
    always = mx.image.DetRandomSelectAug(flip)
    assert always(img, LABEL.copy())[1][0, 1] == 0.5
    assert mx.image.DetRandomSelectAug([]).skip_prob == 1
    with pytest.raises(ValueError, match='DetAugmenters only'):
        mx.image.DetRandomSelectAug([mx.image.CastAug()])
    with pytest.raises(TypeError, match='DetHorizontalFlipAug'):
        mx.image.DetBorrowAug(flip)
    borrowed = mx.image.DetBorrowAug(mx.image.CastAug())
    out, label = borrowed(mx.nd.zeros((2, 2, 3), dtype='uint8'), LABEL)
    assert out.dtype == np.float32 and label is LABEL


def test_dumps_as_mxnet():
    crop = mx.image.DetRandomCropAug(
        min_object_covered=0.3, min_eject_coverage=0.4
    )
    assert json.loads(crop.dumps()) == [
        'detrandomcropaug',
        {
            'min_object_covered': 0.3,
            'aspect_ratio_range': [0.75, 1.33],
            'area_range': [0.05, 1.0],
            'min_eject_coverage': 0.4,
            'max_attempts': 50,
        },
    ]
    assert json.loads(mx.image.DetRandomPadAug().dumps()) == [
        'detrandompadaug',
        {
            'aspect_ratio_range': [0.75, 1.33],
            'area_range': [1.0, 3.0],
            'max_attempts': 50,
            'pad_val': [128, 128, 128],
        },
    ]
    borrow = mx.image.DetBorrowAug(mx.image.ForceResizeAug((3, 4)))
    assert borrow.dumps() == [
        'detborrowaug',
        '["forceresizeaug", {"size": [3, 4], "interp": 2}]',
    ]


def test_create_det_augmenter_as_mxnet():
    augs = mx.image.CreateDetAugmenter(
        (3, 30, 40),
        resize=50,
        rand_crop=0.5,
        rand_pad=0.4,
        rand_mirror=True,
        mean=True,
        std=True,
        brightness=0.1,
        hue=0.1,
        pca_noise=0.1,
        rand_gray=0.2,
    )
    dumps = [a.dumps() for a in augs]
    crop = (
        '["detrandomcropaug", {"min_object_covered": 0.1, '
        '"aspect_ratio_range": [0.75, 1.33], "area_range": [0.05, 3.0], '
        '"min_eject_coverage": 0.3, "max_attempts": 50}]'
    )
    pad = (
        '["detrandompadaug", {"aspect_ratio_range": [0.75, 1.33], '
        '"area_range": [1.0, 3.0], "max_attempts": 50, '
        '"pad_val": [127, 127, 127]}]'
    )
    assert dumps[:6] == [
        ['detborrowaug', '["resizeaug", {"size": 50, "interp": 2}]'],
        ['detrandomselectaug', [crop]],
        '["dethorizontalflipaug", {"p": 0.5}]',
        ['detrandomselectaug', [pad]],
        [
            'detborrowaug',
            '["forceresizeaug", {"size": [40, 30], "interp": 2}]',
        ],
        ['detborrowaug', '["castaug", {"type": "float32"}]'],
    ]
    assert [type(a.augmenter).__name__ for a in augs[6:]] == [
        'ColorJitterAug',
        'HueJitterAug',
        'LightingAug',
        'RandomGrayAug',
        'ColorNormalizeAug',
    ]
    assert augs[1].skip_prob == 0.5 and augs[3].skip_prob == 0.6


def test_create_multi_rand_crop_augmenter():
    aug = mx.image.CreateMultiRandCropAugmenter(
        min_object_covered=[0.1, 0.5], area_range=(0.2, 1.0), skip_prob=0.3
    )
    assert [a.min_object_covered for a in aug.aug_list] == [0.1, 0.5]
    assert [a.area_range for a in aug.aug_list] == [(0.2, 1.0)] * 2
    assert aug.skip_prob == 0.3
    # as in MXNet, a list of two numbers is two fixed aspect ratios
    two = mx.image.CreateMultiRandCropAugmenter(aspect_ratio_range=[0.5, 1.0])
    assert [a.aspect_ratio_range for a in two.aug_list] == [
        (0.5, 0.5),
        (1.0, 1.0),
    ]
    with pytest.raises(DLBookError, match="'max_attempts': 3"):
        mx.image.CreateMultiRandCropAugmenter(
            min_object_covered=[0.1, 0.5], max_attempts=[1, 2, 3]
        )


@pytest.mark.parametrize(
    'make, match',
    [
        (
            lambda: mx.image.DetRandomCropAug(area_range=(0.5, 0.2)),
            'DetRandomCropAug: area_range',
        ),
        (
            lambda: mx.image.DetRandomCropAug(aspect_ratio_range=(0, 1)),
            'DetRandomCropAug: aspect_ratio_range',
        ),
        (
            lambda: mx.image.DetRandomPadAug(area_range=(0.5, 1.0)),
            'DetRandomPadAug: area_range',
        ),
        (
            lambda: mx.image.DetRandomPadAug(aspect_ratio_range='wide'),
            'DetRandomPadAug: aspect_ratio_range',
        ),
    ],
)
def test_bad_augmenter_settings(make, match):
    with pytest.raises(DLBookError, match=match):
        make()


def test_submodule_names():
    assert mx.image.detection.ImageDetIter is mx.image.ImageDetIter
    assert mx.img.CreateDetAugmenter is mx.image.CreateDetAugmenter
    assert mx.image.det is mx.image.detection
