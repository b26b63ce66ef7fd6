"""DataLoader: batching rules, samplers, worker processes and failures."""

import os
import re
import signal
import time

import numpy as np
import pytest

import dlbook as mx
from dlbook import gluon, nd
from dlbook.base import DLBookError
from dlbook.gluon.data import ArrayDataset, DataLoader, SimpleDataset
from dlbook.gluon.data.dataloader import default_batchify_fn
from dlbook.gluon.data.vision import transforms


def slow_path(samples):
    """The default batchify, but hidden from the whole-batch fast path."""
    return default_batchify_fn(samples)


def _as_numpy(batch):
    if isinstance(batch, list):
        return [_as_numpy(b) for b in batch]
    return batch.asnumpy(), batch.dtype, batch.context


def _assert_same_batches(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        x, y = _as_numpy(x), _as_numpy(y)
        if not isinstance(x, list):
            x, y = [x], [y]
        for (xa, xd, xc), (ya, yd, yc) in zip(x, y):
            assert xd == yd and xc == yc
            np.testing.assert_array_equal(xa, ya)


# ------------------------------------------------------------ batchify


def test_default_batchify_rules():
    samples = [
        (nd.ones((2, 3)) * i, np.int32(i), float(i), i) for i in range(4)
    ]
    X, y, f, n = default_batchify_fn(samples)
    assert isinstance(X, nd.NDArray) and X.shape == (4, 2, 3)
    assert X.dtype == np.float32
    np.testing.assert_array_equal(X.asnumpy()[:, 0, 0], [0, 1, 2, 3])
    assert y.dtype == np.int32 and y.shape == (4,)  # dtype kept
    assert f.dtype == np.float64 and n.dtype == np.int64
    images = [np.full((2, 2), i, dtype=np.uint8) for i in range(3)]
    batch = default_batchify_fn(images)
    assert batch.dtype == np.uint8 and batch.shape == (3, 2, 2)


def test_default_batchify_mixed_contexts_raise():
    with pytest.raises(DLBookError):
        default_batchify_fn([nd.ones((2,)), nd.ones((2,), ctx=mx.cpu(1))])


def test_default_batchify_keeps_the_context():
    batch = default_batchify_fn([nd.ones((2,), ctx=mx.cpu(1))] * 3)
    assert batch.context == mx.cpu(1)


# ------------------------------------------------------------ in process


def test_loader_batches_and_len():
    X = nd.array(np.arange(20).reshape(10, 2))
    y = np.arange(10, dtype=np.int32)
    loader = DataLoader(ArrayDataset(X, y), batch_size=4)
    assert len(loader) == 3
    batches = list(loader)
    assert [b[0].shape for b in batches] == [(4, 2), (4, 2), (2, 2)]
    assert all(b[1].dtype == np.int32 for b in batches)
    np.testing.assert_array_equal(batches[2][1].asnumpy(), [8, 9])
    assert len(DataLoader(ArrayDataset(X), 4, last_batch='discard')) == 2
    roll = DataLoader(ArrayDataset(X), 4, last_batch='rollover')
    assert len(list(roll)) == 2 and len(list(roll)) == 3
    it = iter(loader)
    assert len(it) == 3


def test_fast_path_equals_sample_by_sample():
    X = nd.array(np.random.RandomState(0).rand(23, 3, 2))
    y = nd.array(np.arange(23), dtype='int32')
    z = np.arange(23, dtype=np.float64)
    for fields in [(X,), (X, y), (X, y, z), (z, [i * 2 for i in range(23)])]:
        ds = ArrayDataset(*fields)
        mx.random.seed(3)
        fast = list(DataLoader(ds, 5, shuffle=True))
        mx.random.seed(3)
        slow = list(DataLoader(ds, 5, shuffle=True, batchify_fn=slow_path))
        assert len(fast) == 5
        _assert_same_batches(fast, slow)


def test_transform_first_batches_whole_batches_identically():
    rng = np.random.RandomState(1)
    images = nd.array(rng.randint(0, 256, (9, 6, 5, 3)), dtype='uint8')
    labels = rng.randint(0, 10, 9).astype(np.int32)
    trans = transforms.Compose(
        [
            transforms.Resize((4, 3)),
            transforms.ToTensor(),
            transforms.Normalize((0.1, 0.2, 0.3), (1.0, 2.0, 3.0)),
        ]
    )
    ds = ArrayDataset(images, labels).transform_first(trans)
    fast = list(DataLoader(ds, 4))
    slow = list(DataLoader(ds, 4, batchify_fn=slow_path))
    _assert_same_batches(fast, slow)
    assert fast[0][0].shape == (4, 3, 3, 4)


@pytest.mark.parametrize('num_workers', [0, 2])
def test_pin_memory_puts_batches_on_cpu_pinned(num_workers):
    data = np.arange(20, dtype=np.float32).reshape(10, 2)
    ds = ArrayDataset(data, np.arange(10, dtype=np.float32))
    loader = DataLoader(
        ds,
        batch_size=4,
        pin_memory=True,
        pin_device_id=1,
        num_workers=num_workers,
    )
    batches = list(loader)
    assert all(
        x.context == mx.cpu_pinned(1) and y.context == mx.cpu_pinned(1)
        for x, y in batches
    )
    np.testing.assert_array_equal(
        np.concatenate([x.asnumpy() for x, _ in batches]), data
    )
    plain = next(iter(DataLoader(ds, batch_size=4)))[0]
    assert plain.context == mx.cpu(0)


@pytest.mark.parametrize('hybridize', [False, True])
def test_pinned_batches_train_a_network_on_cpu(hybridize):
    # As in MXNet, cpu_pinned(0) arrays use the parameters on cpu(0).
    ds = ArrayDataset(
        np.random.RandomState(0).rand(8, 4).astype('f4'), np.arange(8) % 3
    )
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(3, in_units=4))
    net.initialize(ctx=mx.cpu(0))
    if hybridize:
        net.hybridize()
    before = net[0].weight.data().asnumpy()
    trainer = gluon.Trainer(
        net.collect_params(), 'sgd', {'learning_rate': 0.1}
    )
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    for X, y in DataLoader(ds, batch_size=4, pin_memory=True):
        with mx.autograd.record():
            l = loss(net(X), y)
        l.backward()
        trainer.step(4)
    assert l.context == mx.cpu_pinned(0)
    assert net[0].weight.grad().context == mx.cpu(0)
    assert not np.allclose(net[0].weight.data().asnumpy(), before)


def test_shuffle_is_reproducible_and_complete():
    ds = SimpleDataset(list(range(50)))
    mx.random.seed(7)
    first = np.concatenate(
        [b.asnumpy() for b in DataLoader(ds, 8, shuffle=True)]
    )
    mx.random.seed(7)
    again = np.concatenate(
        [b.asnumpy() for b in DataLoader(ds, 8, shuffle=True)]
    )
    np.testing.assert_array_equal(first, again)
    assert sorted(first.tolist()) == list(range(50))


def test_argument_checks():
    ds = SimpleDataset(list(range(5)))
    with pytest.raises(ValueError, match='batch_size must be specified'):
        DataLoader(ds)
    with pytest.raises(ValueError, match='shuffle must not be specified'):
        DataLoader(
            ds, 2, shuffle=True, sampler=gluon.data.SequentialSampler(5)
        )
    batches = gluon.data.BatchSampler(gluon.data.SequentialSampler(5), 2)
    with pytest.raises(
        ValueError, match='must not be specified if batch_sampler'
    ):
        DataLoader(ds, 2, batch_sampler=batches)
    assert [b.shape for b in DataLoader(ds, batch_sampler=batches)] == [
        (2,),
        (2,),
        (1,),
    ]


def test_custom_batchify_fn():
    ds = SimpleDataset(list(range(6)))
    loader = DataLoader(ds, 4, batchify_fn=lambda xs: sum(xs))
    assert list(loader) == [6, 9]


# ------------------------------------------------------------ workers


class Squares(gluon.data.Dataset):
    """Sample i is (i * ones(3), i ** 2); can fail on purpose."""

    def __init__(self, n, fail_at=None, kill_at=None, sleep_at=None):
        self.n, self.fail_at, self.kill_at = n, fail_at, kill_at
        self.sleep_at = sleep_at

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i == self.fail_at:
            raise KeyError(f'no sample {i}')
        if i == self.kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        if i == self.sleep_at:
            time.sleep(30)
        return nd.ones((3,)) * i, np.int32(i * i)


def _collect(loader):
    return [(X.asnumpy(), y.asnumpy()) for X, y in loader]


@pytest.mark.parametrize('thread_pool', [False, True])
def test_workers_give_the_same_batches_in_order(thread_pool):
    ds = Squares(37)
    expected = _collect(DataLoader(ds, 5))
    loader = DataLoader(ds, 5, num_workers=2, thread_pool=thread_pool)
    for _ in range(2):  # two epochs
        got = _collect(loader)
        assert len(got) == len(expected)
        for (a, b), (c, d) in zip(got, expected):
            np.testing.assert_array_equal(a, c)
            np.testing.assert_array_equal(b, d)
    X, y = next(iter(loader))
    assert X.context == mx.cpu(0) and y.dtype == np.int32


def test_workers_with_mnist_like_pipeline_and_prefetch():
    images = nd.array(
        np.random.RandomState(0).randint(0, 255, (30, 8, 8, 1)), dtype='uint8'
    )
    ds = ArrayDataset(images, np.arange(30, dtype=np.int32))
    ds = ds.transform_first(transforms.ToTensor())
    expected = _collect(DataLoader(ds, 7))
    got = _collect(DataLoader(ds, 7, num_workers=2, prefetch=1))
    for (a, b), (c, d) in zip(got, expected):
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(b, d)


def _nested_batch(samples):
    """A batch of every container kind, with one field big enough for the
    workers to pass it through shared memory (64 KiB and more)."""
    xs = nd.stack(*[x for x, _ in samples])
    ys = np.array([y for _, y in samples], dtype=np.int32)
    big = nd.stack(*[nd.ones((128, 128)) * y for _, y in samples])
    return {'x': xs, 'pair': (ys, [big, xs * 2])}


@pytest.mark.parametrize('thread_pool', [False, True])
def test_workers_keep_nested_batches(thread_pool):
    ds = Squares(9)
    loaders = [
        DataLoader(ds, 4, batchify_fn=_nested_batch),
        DataLoader(
            ds,
            4,
            batchify_fn=_nested_batch,
            num_workers=2,
            thread_pool=thread_pool,
        ),
    ]
    expected, got = [list(loader) for loader in loaders]
    assert len(got) == len(expected) == 3
    for g, e in zip(got, expected):
        assert set(g) == {'x', 'pair'}
        assert isinstance(g['pair'], tuple) and isinstance(g['pair'][1], list)
        assert g['pair'][1][0].asnumpy().nbytes >= 1 << 16
        leaves = [g['x'], g['pair'][0], *g['pair'][1]]
        want = [e['x'], e['pair'][0], *e['pair'][1]]
        for a, b in zip(leaves, want):
            # NDArrays come back on cpu(0); a NumPy leaf stays NumPy
            assert type(a) is type(b) and a.dtype == b.dtype
            if isinstance(a, nd.NDArray):
                assert a.context == mx.cpu(0)
                a, b = a.asnumpy(), b.asnumpy()
            np.testing.assert_array_equal(a, b)


def test_random_augmentation_in_workers_is_reproducible_and_varied():
    images = nd.array(
        np.arange(16 * 4 * 4 * 3).reshape(16, 4, 4, 3) % 251, dtype='uint8'
    )
    ds = SimpleDataset(images).transform(transforms.RandomFlipLeftRight())

    def run():
        mx.random.seed(11)
        return np.concatenate(
            [b.asnumpy() for b in DataLoader(ds, 4, num_workers=2)]
        )

    first, again = run(), run()
    np.testing.assert_array_equal(first, again)
    flipped = [
        not np.array_equal(first[i], images[i].asnumpy()) for i in range(16)
    ]
    assert 0 < sum(flipped) < 16  # workers do not repeat one draw


def test_custom_batchify_in_workers_returns_ndarrays_on_cpu0():
    ds = Squares(8)
    loader = DataLoader(
        ds,
        4,
        num_workers=2,
        batchify_fn=lambda xs: nd.stack(*[x for x, _ in xs]),
    )
    batches = list(loader)
    assert all(isinstance(b, nd.NDArray) for b in batches)
    assert batches[1].context == mx.cpu(0)
    np.testing.assert_array_equal(batches[1].asnumpy()[:, 0], [4, 5, 6, 7])
    numpy_loader = DataLoader(
        ds,
        4,
        num_workers=2,
        batchify_fn=lambda xs: np.array([y for _, y in xs]),
    )
    out = list(numpy_loader)
    assert isinstance(out[0], np.ndarray)
    np.testing.assert_array_equal(out[1], [16, 25, 36, 49])


@pytest.mark.parametrize('thread_pool', [False, True])
def test_worker_exception_names_the_batch(thread_pool):
    loader = DataLoader(
        Squares(20, fail_at=13), 4, num_workers=2, thread_pool=thread_pool
    )
    with pytest.raises(DLBookError) as info:
        list(loader)
    message = str(info.value)
    assert 'batch 3' in message and '13' in message
    assert 'KeyError' in message
    assert isinstance(info.value.__cause__, KeyError)


def test_killed_worker_raises_instead_of_hanging():
    loader = DataLoader(Squares(20, kill_at=9), 4, num_workers=2, timeout=60)
    start = time.time()
    with pytest.raises(DLBookError) as info:
        list(loader)
    assert time.time() - start < 30
    message = str(info.value)
    # batch 2 (samples 8-11) kills its worker; it is among those in flight
    in_flight = re.search(r'batches in flight \(([\d, ]+);', message)
    assert 'died unexpectedly' in message and in_flight
    assert '2' in in_flight.group(1).split(', ')
    assert 'SIGKILL' in message


@pytest.mark.parametrize('thread_pool', [False, True])
def test_timeout_is_honoured(thread_pool):
    loader = DataLoader(
        Squares(12, sleep_at=5),
        4,
        num_workers=2,
        timeout=1,
        thread_pool=thread_pool,
    )
    start = time.time()
    with pytest.raises(DLBookError, match='timed out after 1 seconds'):
        list(loader)
    assert time.time() - start < 10


def test_abandoned_epoch_then_new_epoch():
    loader = DataLoader(Squares(40), 4, num_workers=2)
    for i, _ in enumerate(loader):
        if i == 1:
            break
    assert len(_collect(loader)) == 10


def test_spawned_workers_receive_a_pickled_dataset(monkeypatch):
    # macOS and Windows start workers fresh ('spawn'); check that path too.
    import multiprocessing

    from dlbook.gluon.data import _workers

    monkeypatch.setattr(
        _workers, '_mp_context', lambda: multiprocessing.get_context('spawn')
    )
    images = nd.array(
        np.arange(10 * 4 * 4 * 1).reshape(10, 4, 4, 1) % 256, dtype='uint8'
    )
    ds = ArrayDataset(images, np.arange(10, dtype=np.int32))
    ds = ds.transform_first(transforms.ToTensor())
    expected = _collect(DataLoader(ds, 4))
    got = _collect(DataLoader(ds, 4, num_workers=2))
    for (a, b), (c, d) in zip(got, expected):
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(b, d)


def test_batchify_stack_pad_tuple():
    from dlbook.gluon.data import batchify

    fn = batchify.Tuple(
        batchify.Pad(pad_val=-1, ret_length=True), batchify.Stack()
    )
    (data, lengths), labels = fn(
        [(np.array([1, 2, 3]), np.int32(0)), (np.array([4, 5]), np.int32(1))]
    )
    np.testing.assert_array_equal(data.asnumpy(), [[1, 2, 3], [4, 5, -1]])
    np.testing.assert_array_equal(lengths.asnumpy(), [3, 2])
    assert labels.dtype == np.int32 and labels.shape == (2,)
    padded = batchify.Pad(axis=1, round_to=4)(
        [nd.ones((2, 1)), nd.ones((2, 3))]
    )
    assert padded.shape == (2, 2, 4) and padded.dtype == np.float32
    with pytest.raises(ValueError, match='should contain 2 elements'):
        fn([(1, 2, 3)])
    loader = DataLoader(
        SimpleDataset([(np.arange(n), n) for n in (1, 3)]),
        2,
        batchify_fn=batchify.Tuple(batchify.Pad(), batchify.Stack()),
    )
    ((data, sizes),) = list(loader)
    assert data.shape == (2, 3)
