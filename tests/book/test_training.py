"""Accuracy, evaluation and the training loops, on tiny data."""

import re

import numpy as np
import pytest

import dlbook as mx
from dlbook import book as d2l
from dlbook import gluon, init, nd
from dlbook.book import devices
from dlbook.gluon import nn

from .conftest import needs_fashion_mnist

LOSS_LINE = re.compile(
    r'^loss \d+\.\d{3}, train acc \d\.\d{3}, '
    r'test acc \d\.\d{3}$',
    re.MULTILINE,
)


def blobs(n=240, seed=0):
    """Three well separated classes of 2-D points (easy to learn)."""
    r = np.random.RandomState(seed)
    y = r.randint(0, 3, size=n)
    centers = np.array([[3.0, 0.0], [-3.0, 0.0], [0.0, 3.0]])
    X = centers[y] + r.normal(scale=0.5, size=(n, 2))
    return nd.array(X), nd.array(y, dtype='int32')


def loaders(batch_size=32):
    X, y = blobs()
    return (
        d2l.load_array((X[:160], y[:160]), batch_size),
        d2l.load_array((X[160:], y[160:]), batch_size, is_train=False),
    )


def test_accuracy_counts_correct_rows():
    y_hat = nd.array([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5], [0.9, 0.05, 0.05]])
    y = nd.array([2, 0, 0], dtype='int32')
    assert d2l.accuracy(y_hat, y) == 2.0
    assert isinstance(d2l.accuracy(y_hat, y), float)
    # already predicted classes
    assert d2l.accuracy(nd.array([2, 2, 0]), y) == 2.0


def test_evaluate_accuracy_matches_hand_count():
    X, y = blobs(n=50)
    scores = nd.array(np.eye(3)[[0, 1, 2, 0, 1] * 10])
    batches = [(X[i : i + 10], y[i : i + 10]) for i in range(0, 50, 10)]
    outputs = iter([scores[i : i + 10] for i in range(0, 50, 10)])

    def net(X_batch):
        return next(outputs)

    expected = (np.array([0, 1, 2, 0, 1] * 10) == y.asnumpy()).mean()
    assert d2l.evaluate_accuracy(net, batches) == pytest.approx(expected)


def test_evaluate_accuracy_gpu_uses_the_parameters_device():
    train_iter, test_iter = loaders()
    net = nn.Dense(3)
    net.initialize(ctx=mx.cpu(1))
    acc = d2l.evaluate_accuracy_gpu(net, test_iter)
    assert 0.0 <= acc <= 1.0
    assert d2l.evaluate_accuracy_gpu(net, test_iter, mx.cpu(1)) == acc


def test_evaluate_loss_is_the_mean():
    X = nd.array([[1.0], [2.0], [3.0]])
    y = nd.array([[0.0], [0.0], [0.0]])

    def identity(X_batch):
        return X_batch

    loss = gluon.loss.L2Loss()
    value = d2l.evaluate_loss(identity, [(X[:2], y[:2]), (X[2:], y[2:])], loss)
    assert value == pytest.approx((0.5 + 2.0 + 4.5) / 3)


def test_train_ch3_with_a_trainer_learns_and_returns_numbers(capsys):
    mx.random.seed(0)
    train_iter, test_iter = loaders()
    net = nn.Dense(3)
    net.initialize(init.Normal(0.01))
    trainer = gluon.Trainer(
        net.collect_params(), 'sgd', {'learning_rate': 0.1}
    )
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    result = d2l.train_ch3(net, train_iter, test_iter, loss, 3, trainer)
    train_loss, train_acc, test_acc = result
    assert train_loss < 0.5 and train_acc > 0.9 and test_acc > 0.9
    assert repr(result) == (
        f'TrainResult(train_loss={train_loss:.3f}, '
        f'train_acc={train_acc:.3f}, '
        f'test_acc={test_acc:.3f})'
    )
    out = capsys.readouterr().out
    assert re.search(
        r'^epoch 3: train loss \d\.\d{3}, train acc \d\.\d{3}, '
        r'test acc \d\.\d{3}$',
        out,
        re.MULTILINE,
    )


def test_train_ch3_with_a_scratch_updater():
    mx.random.seed(0)
    train_iter, test_iter = loaders()
    W = nd.random.normal(scale=0.01, shape=(2, 3))
    b = nd.zeros(3)
    W.attach_grad()
    b.attach_grad()

    def net(X):
        return nd.dot(X, W) + b

    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    result = d2l.train_ch3(
        net,
        train_iter,
        test_iter,
        loss,
        2,
        lambda batch_size: d2l.sgd([W, b], 0.1, batch_size),
    )
    assert result.test_acc > 0.9


def test_train_epoch_ch3_returns_mean_loss_and_accuracy():
    train_iter, _ = loaders()
    net = nn.Dense(3)
    net.initialize(init.Zero())
    trainer = gluon.Trainer(
        net.collect_params(), 'sgd', {'learning_rate': 0.0}
    )
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    train_loss, train_acc = d2l.train_epoch_ch3(net, train_iter, loss, trainer)
    assert train_loss == pytest.approx(np.log(3), rel=1e-5)  # uniform
    assert 0 <= train_acc <= 1


def test_train_ch6_prints_d2l_lines(capsys):
    mx.random.seed(0)
    train_iter, test_iter = loaders()
    net = nn.Sequential()
    net.add(nn.Dense(8, activation='relu'), nn.Dense(3))
    result = d2l.train_ch6(net, train_iter, test_iter, 2, 0.5, mx.cpu())
    out = capsys.readouterr().out
    assert LOSS_LINE.search(out)
    assert re.search(r'^\d+\.\d examples/sec on cpu\(0\)$', out, re.MULTILINE)
    assert (
        f'loss {result.train_loss:.3f}, train acc '
        f'{result.train_acc:.3f}, test acc {result.test_acc:.3f}' in out
    )
    assert result.test_acc > 0.8


def test_train_ch6_default_device_is_try_gpu(monkeypatch, capsys):
    monkeypatch.setattr(devices, 'num_gpus', lambda: 0)
    monkeypatch.setattr(devices, '_reported', set())
    train_iter, test_iter = loaders(batch_size=80)  # fewer than 5 batches
    net = nn.Dense(3)
    d2l.train_ch6(net, train_iter, test_iter, 1, 0.1)
    out = capsys.readouterr().out
    assert 'try_gpu: using cpu(0) instead of gpu(0)' in out
    assert 'examples/sec on cpu(0)' in out


def test_split_batch():
    X = nd.arange(12).reshape((6, 2))
    y = nd.arange(6)
    devices_ = [mx.cpu(0), mx.cpu(1)]
    X_shards, y_shards = d2l.split_batch(X, y, devices_)
    assert [s.shape for s in X_shards] == [(3, 2), (3, 2)]
    assert [s.context for s in X_shards] == devices_
    assert [s.context for s in y_shards] == devices_
    np.testing.assert_array_equal(y_shards[1].asnumpy(), [3, 4, 5])
    with pytest.raises(ValueError, match='X has 6 examples but y has 5'):
        d2l.split_batch(X, y[:5], devices_)


def test_train_ch13_on_two_cpu_devices(capsys):
    mx.random.seed(0)
    train_iter, test_iter = loaders()
    devices_ = [mx.cpu(0), mx.cpu(1)]
    net = nn.Sequential()
    net.add(nn.Dense(8, activation='relu'), nn.Dense(3))
    net.initialize(init.Xavier(), ctx=devices_)
    trainer = gluon.Trainer(
        net.collect_params(), 'sgd', {'learning_rate': 0.5}
    )
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    result = d2l.train_ch13(
        net, train_iter, test_iter, loss, trainer, 2, devices_
    )
    out = capsys.readouterr().out
    assert LOSS_LINE.search(out)
    assert re.search(
        r'examples/sec on \[cpu\(0\), cpu\(1\)\]$', out, re.MULTILINE
    )
    assert result.test_acc > 0.8
    assert d2l.evaluate_accuracy_gpus(net, test_iter) == result.test_acc


def test_train_batch_ch13_sums_over_the_batch():
    X, y = blobs(n=8)
    devices_ = [mx.cpu(0), mx.cpu(1)]
    net = nn.Dense(3)
    net.initialize(init.Zero(), ctx=devices_)
    trainer = gluon.Trainer(
        net.collect_params(), 'sgd', {'learning_rate': 0.0}
    )
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    loss_sum, acc_sum = d2l.train_batch_ch13(
        net, X, y, loss, trainer, devices_
    )
    assert loss_sum == pytest.approx(8 * np.log(3), rel=1e-5)
    assert 0 <= acc_sum <= 8


def test_predict_ch3_titles():
    images = nd.random.uniform(shape=(8, 1, 28, 28))
    labels = nd.array([0, 1, 2, 3, 4, 5, 6, 7], dtype='int32')

    def net(X):
        return nd.one_hot(nd.array([9] * X.shape[0]), 10)

    import matplotlib.pyplot as plt

    plt.close('all')
    d2l.predict_ch3(net, [(images, labels)], n=4)
    titles = [ax.get_title() for ax in plt.gcf().axes]
    assert titles == [
        't-shirt\nankle boot',
        'trouser\nankle boot',
        'pullover\nankle boot',
        'dress\nankle boot',
    ]


@needs_fashion_mnist
def test_train_ch3_on_fast_fashion_mnist(fast):
    mx.random.seed(0)
    train_iter, test_iter = d2l.load_data_fashion_mnist(256)
    net = nn.Dense(10)
    net.initialize(init.Normal(0.01))
    trainer = gluon.Trainer(
        net.collect_params(), 'sgd', {'learning_rate': 0.1}
    )
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    result = d2l.train_ch3(net, train_iter, test_iter, loss, 2, trainer)
    assert 0.4 < result.test_acc < 0.9
