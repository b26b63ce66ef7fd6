"""Data helpers: fast mode, Fashion-MNIST loaders, linear regression."""

import subprocess
import sys

import numpy as np
import pytest

import dlbook as mx
from dlbook import autograd, gluon, nd
from dlbook import book as d2l
from dlbook.gluon.data.vision import FashionMNIST

from .conftest import needs_fashion_mnist


@pytest.mark.parametrize(
    'value, expected',
    [('1', True), ('true', True), ('0', False), ('', False), ('no', False)],
)
def test_fast_mode_reads_the_environment_at_call_time(
    monkeypatch, value, expected
):
    monkeypatch.setenv('DLBOOK_FAST', value)
    assert d2l.fast_mode() is expected
    assert d2l.scale(10, 2) == (2 if expected else 10)


def test_fast_mode_off_without_variable(full):
    assert not d2l.fast_mode()
    assert d2l.scale('full', 'fast') == 'full'


def test_import_is_light():
    code = (
        'import sys, dlbook.book, dlbook.exercises; '
        'print([m for m in ("matplotlib", "IPython", "ipywidgets", '
        '"nbclient") if m in sys.modules])'
    )
    out = subprocess.run(
        [sys.executable, '-c', code],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.strip() == '[]'


@needs_fashion_mnist
def test_fast_loaders_use_a_fixed_subset(fast):
    train_iter, test_iter = d2l.load_data_fashion_mnist(256)
    assert len(train_iter) == 8 and len(test_iter) == 4  # 2000, 1000
    X, y = next(iter(test_iter))
    assert X.shape == (256, 1, 28, 28) and X.dtype == np.float32
    assert y.shape == (256,) and y.dtype == np.int32
    assert 0 <= X.min().asscalar() and X.max().asscalar() <= 1
    # the test subset is the first images, in order
    images, labels = FashionMNIST(train=False)[0:256]
    np.testing.assert_array_equal(y.asnumpy(), labels)
    np.testing.assert_allclose(
        X.asnumpy()[:, 0], images.asnumpy()[..., 0] / 255.0, atol=1e-6
    )
    total = sum(batch_y.shape[0] for _, batch_y in train_iter)
    assert total == 2000


@needs_fashion_mnist
def test_full_loaders_and_resize(full):
    train_iter, test_iter = d2l.load_data_fashion_mnist(1000, resize=32)
    assert len(train_iter) == 60 and len(test_iter) == 10
    X, y = next(iter(test_iter))
    assert X.shape == (1000, 1, 32, 32) and X.dtype == np.float32


@needs_fashion_mnist
def test_train_loader_shuffles(fast):
    train_iter, _ = d2l.load_data_fashion_mnist(2000)
    first = next(iter(train_iter))[1].asnumpy()
    second = next(iter(train_iter))[1].asnumpy()
    assert sorted(first) == sorted(second)
    assert (first != second).any()


def test_get_fashion_mnist_labels():
    assert d2l.get_fashion_mnist_labels([0, 9, 5]) == [
        't-shirt',
        'ankle boot',
        'sandal',
    ]
    assert d2l.get_fashion_mnist_labels(nd.array([1, 8])) == ['trouser', 'bag']


def test_show_fashion_mnist_draws_one_row():
    images = nd.random.uniform(shape=(3, 1, 28, 28))
    axes = d2l.show_fashion_mnist(images, ['a', 'b', 'c'])
    assert len(axes) == 3
    assert [ax.get_title() for ax in axes] == ['a', 'b', 'c']
    axes = d2l.show_fashion_mnist([images[0], images[1]], ['x', 'y'])
    assert len(axes) == 2


def test_synthetic_data_follows_the_model():
    mx.random.seed(1)
    true_w = nd.array([2, -3.4])
    X, y = d2l.synthetic_data(true_w, 4.2, 1000)
    assert X.shape == (1000, 2) and y.shape == (1000, 1)
    residual = y.asnumpy()[:, 0] - (X.asnumpy() @ [2, -3.4] + 4.2)
    assert abs(residual.std() - 0.01) < 0.002
    assert abs(residual.mean()) < 0.002


def test_load_array_batches_and_shuffle():
    X = nd.arange(20).reshape((10, 2))
    y = nd.arange(10)
    ordered = d2l.load_array((X, y), 4, is_train=False)
    assert [b[0].shape for b in ordered] == [(4, 2), (4, 2), (2, 2)]
    np.testing.assert_array_equal(
        np.concatenate([b[1].asnumpy() for b in ordered]), np.arange(10)
    )
    mx.random.seed(0)
    shuffled = d2l.load_array((X, y), 10)
    labels = next(iter(shuffled))[1].asnumpy()
    assert sorted(labels) == list(range(10)) and list(labels) != list(
        range(10)
    )


def test_linreg_and_squared_loss():
    X = nd.array([[1, 2], [3, 4]])
    w = nd.array([[1], [-1]])
    y_hat = d2l.linreg(X, w, nd.array([0.5]))
    np.testing.assert_allclose(y_hat.asnumpy(), [[-0.5], [-0.5]])
    loss = d2l.squared_loss(y_hat, nd.array([0.5, 1.5]))
    assert loss.shape == (2, 1)
    np.testing.assert_allclose(loss.asnumpy(), [[0.5], [2.0]])


def test_sgd_updates_in_place():
    w = nd.array([1.0, 2.0])
    w.attach_grad()
    with autograd.record():
        l = (w * w).sum()
    l.backward()  # grad = 2w = [2, 4]
    before = id(w)
    d2l.sgd([w], lr=0.5, batch_size=2)
    assert id(w) == before
    np.testing.assert_allclose(w.asnumpy(), [0.5, 1.0])


def test_get_dataloader_workers():
    assert d2l.get_dataloader_workers() == 0


def test_reexports_from_widgets():
    from dlbook import widgets

    for name in [
        'Animator',
        'Timer',
        'Accumulator',
        'plot',
        'set_figsize',
        'show_images',
        'use_svg_display',
    ]:
        assert getattr(d2l, name) is getattr(widgets, name)
    assert gluon is not None
