"""ImageIter over a .lst list + image folder, a Python list and RecordIO
files: batch shapes, labels, last-batch handling as MXNet, reset, errors."""

import numpy as np
import pytest

import dlbook as mx
from dlbook import recordio
from dlbook.base import MXNetError

from .conftest import encode, solid

pytest.importorskip('PIL')

SHAPE = (3, 8, 8)


def _ids(batch):
    """Which solid image (``solid(10 * i)``) sits at each batch position."""
    data = batch.data[0].asnumpy()
    return [int(round(d[0, 0, 0])) // 10 for d in data]


def _write_lst(path, items, label_width=1):
    with open(path, 'w') as f:
        for k, (label, name) in enumerate(items):
            labels = '\t'.join(
                str(float(label + j)) for j in range(label_width)
            )
            f.write(f'{k}\t{labels}\t{name}\n')
    return str(path)


def _lst_iter(image_folder, batch_size=3, **kwargs):
    folder, items = image_folder
    lst = _write_lst(folder / 'list.lst', items)
    return mx.image.ImageIter(
        batch_size, SHAPE, path_imglist=lst, path_root=str(folder), **kwargs
    )


def _write_rec(folder, count=16, indexed=True):
    rec, idx = str(folder / 'data.rec'), str(folder / 'data.idx')
    writer = (
        recordio.MXIndexedRecordIO(idx, rec, 'w')
        if indexed
        else recordio.MXRecordIO(rec, 'w')
    )
    for i in range(count):
        record = recordio.pack(
            recordio.IRHeader(0, i % 5, i, 0), encode(solid(10 * i))
        )
        if indexed:
            writer.write_idx(i, record)
        else:
            writer.write(record)
    writer.close()
    return rec, idx


# -- list file and folder -----------------------------------------------------


def test_lst_batches_shapes_labels_and_order(image_folder):
    it = _lst_iter(image_folder)
    assert isinstance(it, mx.io.DataIter)
    assert it.provide_data == [('data', (3, 3, 8, 8))]
    assert it.provide_label == [('softmax_label', (3,))]
    batches = list(it)
    assert len(batches) == 6
    first = batches[0]
    assert isinstance(first, mx.io.DataBatch)
    assert first.data[0].shape == (3, 3, 8, 8)
    assert first.data[0].dtype == np.float32
    assert first.label[0].dtype == np.float32
    assert _ids(first) == [0, 1, 2]
    np.testing.assert_array_equal(first.label[0].asnumpy(), [0, 1, 2])
    # the RGB channels of image i are 10 i, 10 i + 1, 10 i + 2
    np.testing.assert_array_equal(
        first.data[0].asnumpy()[1, :, 0, 0], [10, 11, 12]
    )


def test_pad_discard_roll_over_as_mxnet(image_folder):
    # MXNet's _test_imageiter_last_batch with 16 images, batch size 3.
    batches = list(_lst_iter(image_folder, last_batch_handle='pad'))
    assert len(batches) == 6
    assert [b.pad for b in batches] == [0, 0, 0, 0, 0, 2]
    assert _ids(batches[5]) == [15, 0, 1]
    np.testing.assert_array_equal(
        batches[0].data[0].asnumpy()[:2], batches[5].data[0].asnumpy()[1:]
    )

    assert len(list(_lst_iter(image_folder, last_batch_handle='discard'))) == 5

    it = _lst_iter(image_folder, last_batch_handle='roll_over')
    assert len(list(it)) == 5
    it.reset()
    first = it.next()
    assert _ids(first) == [15, 0, 1]
    assert first.pad == 2  # MXNet reports the old shortfall
    for _ in it:
        pass
    it.reset()
    second = it.next()
    assert _ids(second) == [14, 15, 0]
    assert second.pad == 1
    assert 1 + len(list(it)) == 6


def test_reset_starts_again_and_epochs_repeat(image_folder):
    it = _lst_iter(image_folder, batch_size=4)
    first = [_ids(b) for b in it]
    assert sum(first, []) == list(range(16))
    it.reset()
    assert [_ids(b) for b in it] == first
    # As in MXNet: after a padded last batch the iterator stays exhausted
    # until reset(); when the images filled the last batch exactly, the
    # end of the epoch already rewound it.
    assert len(list(it)) == 4
    padded = _lst_iter(image_folder, batch_size=5)
    assert len(list(padded)) == 4
    assert list(padded) == []
    padded.reset()
    assert len(list(padded)) == 4


def test_shuffle_is_seeded_and_complete(image_folder):
    def epoch(seed):
        mx.random.seed(seed)
        it = _lst_iter(image_folder, batch_size=4, shuffle=True)
        return sum((_ids(b) for b in it), [])

    order = epoch(3)
    assert sorted(order) == list(range(16)) and order != list(range(16))
    assert epoch(3) == order
    assert epoch(4) != order


def test_label_width_two(image_folder):
    folder, items = image_folder
    lst = _write_lst(folder / 'two.lst', items, label_width=2)
    it = mx.image.ImageIter(
        4, SHAPE, label_width=2, path_imglist=lst, path_root=str(folder)
    )
    assert it.provide_label == [('softmax_label', (4, 2))]
    batch = it.next()
    np.testing.assert_array_equal(
        batch.label[0].asnumpy(), [[0, 1], [1, 2], [2, 3], [3, 4]]
    )


@pytest.mark.parametrize('dtype', ['int32', 'float32', 'int64', 'float64'])
def test_python_imglist_and_label_dtype(image_folder, dtype):
    folder, items = image_folder
    imglist = [[label, str(folder / name)] for label, name in items]
    it = mx.image.ImageIter(
        5, SHAPE, imglist=imglist, path_root='', dtype=dtype
    )
    assert sorted(it.imglist)[:2] == ['1', '10']  # MXNet's string keys
    assert it.imglist['1'][0].dtype == np.dtype(dtype)
    batch = it.next()
    assert _ids(batch) == [0, 1, 2, 3, 4]
    np.testing.assert_array_equal(batch.label[0].asnumpy(), [0, 1, 2, 3, 4])
    assert batch.label[0].dtype == np.float32


def test_augmentation_kwargs_and_aug_list(image_folder):
    it = _lst_iter(
        image_folder,
        batch_size=2,
        resize=16,
        rand_crop=True,
        rand_mirror=True,
        mean=True,
        std=True,
    )
    assert [type(a).__name__ for a in it.auglist] == [
        'ResizeAug',
        'RandomCropAug',
        'HorizontalFlipAug',
        'CastAug',
        'ColorNormalizeAug',
    ]
    batch = it.next()
    expected = (0 - 123.68) / 58.395
    np.testing.assert_allclose(
        batch.data[0].asnumpy()[0, 0], expected, rtol=1e-5
    )
    it = _lst_iter(
        image_folder, batch_size=2, aug_list=[mx.image.ForceResizeAug((8, 8))]
    )
    assert it.next().data[0].shape == (2, 3, 8, 8)


def test_partition(image_folder):
    parts = [
        sum(
            (
                _ids(b)
                for b in _lst_iter(
                    image_folder, batch_size=2, num_parts=3, part_index=p
                )
            ),
            [],
        )
        for p in range(3)
    ]
    assert parts == [
        list(range(0, 5)) + [0],
        list(range(5, 10)) + [5],
        list(range(10, 15)) + [10],
    ]


def test_works_with_other_data_shapes(image_folder):
    it = mx.image.ImageIter(
        2,
        (3, 4, 6),
        path_imglist=_write_lst(image_folder[0] / 'l.lst', image_folder[1]),
        path_root=str(image_folder[0]),
    )
    assert it.next().data[0].shape == (2, 3, 4, 6)


# -- RecordIO -----------------------------------------------------------------


def test_rec_without_index_reads_in_order(tmp_path):
    rec, _ = _write_rec(tmp_path, count=7, indexed=False)
    it = mx.image.ImageIter(3, SHAPE, path_imgrec=rec)
    batches = list(it)
    assert [_ids(b) for b in batches] == [[0, 1, 2], [3, 4, 5], [6, 0, 1]]
    assert [b.pad for b in batches] == [0, 0, 2]
    np.testing.assert_array_equal(batches[1].label[0].asnumpy(), [3, 4, 0])
    it.reset()
    assert _ids(it.next()) == [0, 1, 2]


def test_rec_with_index_shuffle_and_discard(tmp_path):
    rec, idx = _write_rec(tmp_path, count=10)
    mx.random.seed(1)
    it = mx.image.ImageIter(
        4,
        SHAPE,
        path_imgrec=rec,
        path_imgidx=idx,
        shuffle=True,
        last_batch_handle='discard',
    )
    batches = list(it)
    assert len(batches) == 2
    ids = sum((_ids(b) for b in batches), [])
    assert len(set(ids)) == 8 and ids != list(range(8))
    for b in batches:  # labels travel with the images
        np.testing.assert_array_equal(
            b.label[0].asnumpy(), [i % 5 for i in _ids(b)]
        )


def test_rec_labels_from_a_list_file(tmp_path):
    rec, idx = _write_rec(tmp_path, count=4)
    lst = _write_lst(
        tmp_path / 'l.lst', [(100 + i, f'x{i}.png') for i in range(4)]
    )
    it = mx.image.ImageIter(
        4, SHAPE, path_imgrec=rec, path_imgidx=idx, path_imglist=lst
    )
    np.testing.assert_array_equal(
        it.next().label[0].asnumpy(), [100, 101, 102, 103]
    )


def test_rec_from_pack_img_is_rgb(tmp_path):
    rng = np.random.RandomState(0)
    rgb = rng.randint(0, 256, (8, 8, 3)).astype(np.uint8)
    rec = str(tmp_path / 'img.rec')
    with recordio.MXRecordIO(rec, 'w') as writer:
        # pack_img takes OpenCV's BGR order, as in MXNet
        writer.write(
            recordio.pack_img(
                recordio.IRHeader(0, 3, 0, 0), rgb[:, :, ::-1], img_fmt='.png'
            )
        )
    batch = mx.image.ImageIter(1, SHAPE, path_imgrec=rec).next()
    np.testing.assert_array_equal(
        batch.data[0].asnumpy()[0], rgb.transpose(2, 0, 1)
    )
    assert batch.label[0].asnumpy()[0] == 3


def test_rec_multi_labels(tmp_path):
    rec = str(tmp_path / 'multi.rec')
    with recordio.MXRecordIO(rec, 'w') as writer:
        for i in range(2):
            writer.write(
                recordio.pack(
                    recordio.IRHeader(0, [i, i + 0.5], i, 0),
                    encode(solid(10 * i)),
                )
            )
    it = mx.image.ImageIter(2, SHAPE, label_width=2, path_imgrec=rec)
    np.testing.assert_array_equal(
        it.next().label[0].asnumpy(), [[0, 0.5], [1, 1.5]]
    )


# -- errors -------------------------------------------------------------------


def test_argument_errors(image_folder, tmp_path):
    folder, items = image_folder
    lst = _write_lst(folder / 'l.lst', items)
    with pytest.raises(ValueError, match='give path_imgrec'):
        mx.image.ImageIter(2, SHAPE)
    with pytest.raises(ValueError, match='length 3'):
        mx.image.ImageIter(2, (8, 8), path_imglist=lst)
    with pytest.raises(ValueError, match='3 channels'):
        mx.image.ImageIter(2, (1, 8, 8), path_imglist=lst)
    with pytest.raises(ValueError, match='label not supported'):
        mx.image.ImageIter(2, SHAPE, path_imglist=lst, dtype='uint8')
    with pytest.raises(ValueError, match='last_batch_handle'):
        mx.image.ImageIter(
            2, SHAPE, path_imglist=lst, last_batch_handle='keep'
        )
    with pytest.raises(ValueError, match='part_index'):
        mx.image.ImageIter(
            2, SHAPE, path_imglist=lst, num_parts=2, part_index=2
        )
    rec, _ = _write_rec(tmp_path, count=2, indexed=False)
    with pytest.raises(ValueError, match='path_imgidx'):
        mx.image.ImageIter(2, SHAPE, path_imgrec=rec, shuffle=True)
    with pytest.raises(MXNetError, match='missing.rec'):
        mx.image.ImageIter(2, SHAPE, path_imgrec=str(tmp_path / 'missing.rec'))
    with pytest.raises(TypeError):
        mx.image.ImageIter(2, SHAPE, path_imglist=lst, not_an_option=1)


def test_bad_list_line(tmp_path):
    lst = tmp_path / 'bad.lst'
    lst.write_text('0\t1.0\ta.png\nnot a line\n')
    with pytest.raises(MXNetError, match='line 2'):
        mx.image.ImageIter(2, SHAPE, path_imglist=str(lst))


def test_missing_and_broken_images(image_folder):
    folder, _ = image_folder
    lst = _write_lst(folder / 'l.lst', [(0, 'img00.png'), (1, 'gone.png')])
    it = mx.image.ImageIter(2, SHAPE, path_imglist=lst, path_root=str(folder))
    with pytest.raises(FileNotFoundError, match='gone.png'):
        it.next()
    (folder / 'broken.png').write_bytes(b'not an image')
    lst = _write_lst(folder / 'l2.lst', [(0, 'broken.png')])
    it = mx.image.ImageIter(1, SHAPE, path_imglist=lst, path_root=str(folder))
    with pytest.raises(MXNetError, match='Broken image filename: broken.png'):
        it.next()


def test_wrong_augmented_size_and_label_width(image_folder):
    folder, items = image_folder
    it = mx.image.ImageIter(
        2,
        (3, 4, 4),
        path_imglist=_write_lst(folder / 'l.lst', items),
        path_root=str(folder),
        aug_list=[],
    )
    with pytest.raises(MXNetError, match='data_shape'):
        it.next()
    lst = _write_lst(folder / 'w.lst', items, label_width=3)
    it = mx.image.ImageIter(
        2, SHAPE, label_width=2, path_imglist=lst, path_root=str(folder)
    )
    with pytest.raises(MXNetError, match='label_width is 2'):
        it.next()


def test_feeds_module_fit_and_predict(image_folder):
    it = _lst_iter(image_folder, batch_size=5)
    net = mx.sym.FullyConnected(
        mx.sym.flatten(mx.sym.var('data')), num_hidden=5
    )
    mod = mx.mod.Module(mx.sym.SoftmaxOutput(net, name='softmax'))
    mod.fit(it, num_epoch=1, optimizer_params={'learning_rate': 1e-4})
    assert mod.predict(it).shape == (16, 5)  # padding removed
