"""End-to-end training on the real data sets (../shared/data in CI).

These are the numbers the books publish: a two-conv LeNet reaches at
least 97 % MNIST test accuracy after one epoch, and Fashion-MNIST softmax
regression lands in d2l's band (0.82-0.86 test accuracy after 10 epochs,
lr 0.1, batch 256).  They take a minute or two on two cores.
"""

import os

import pytest

import dlbook as mx
from dlbook import autograd, gluon
from dlbook.gluon import nn
from dlbook.gluon.data.vision import MNIST, FashionMNIST, transforms

pytestmark = pytest.mark.slow

DATA = os.environ.get('DLBOOK_DATA')
needs_data = pytest.mark.skipif(
    not DATA or not os.path.isdir(os.path.join(DATA, 'mnist')),
    reason='real MNIST files not found (set DLBOOK_DATA)',
)


def accuracy(net, loader):
    correct = total = 0
    for X, y in loader:
        pred = net(X).argmax(axis=1)
        correct += (pred == y.astype('float32')).sum().asscalar()
        total += y.shape[0]
    return correct / total


@needs_data
def test_lenet_mnist_one_epoch_reaches_97_percent():
    mx.random.seed(42)
    to_tensor = transforms.ToTensor()
    train = MNIST(train=True).transform_first(to_tensor)
    test = MNIST(train=False).transform_first(to_tensor)
    train_iter = gluon.data.DataLoader(train, batch_size=128, shuffle=True)
    test_iter = gluon.data.DataLoader(test, batch_size=1000)
    net = nn.HybridSequential()
    net.add(
        nn.Conv2D(20, kernel_size=5, activation='relu'),
        nn.MaxPool2D(pool_size=2, strides=2),
        nn.Conv2D(50, kernel_size=5, activation='relu'),
        nn.MaxPool2D(pool_size=2, strides=2),
        nn.Dense(500, activation='relu'),
        nn.Dense(10),
    )
    net.initialize(mx.init.Xavier())
    net.hybridize()
    trainer = gluon.Trainer(
        net.collect_params(), 'sgd', {'learning_rate': 0.05, 'momentum': 0.9}
    )
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    for X, y in train_iter:
        with autograd.record():
            l = loss(net(X), y)
        l.backward()
        trainer.step(X.shape[0])
    assert accuracy(net, test_iter) >= 0.97


@needs_data
def test_fashion_mnist_softmax_regression_in_published_band():
    mx.random.seed(1)
    to_tensor = transforms.ToTensor()
    train = FashionMNIST(train=True).transform_first(to_tensor)
    test = FashionMNIST(train=False).transform_first(to_tensor)
    train_iter = gluon.data.DataLoader(train, batch_size=256, shuffle=True)
    test_iter = gluon.data.DataLoader(test, batch_size=1000)
    net = nn.Sequential()
    net.add(nn.Dense(10))
    net.initialize(mx.init.Normal(sigma=0.01))
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(
        net.collect_params(), 'sgd', {'learning_rate': 0.1}
    )
    for _ in range(10):
        for X, y in train_iter:
            with autograd.record():
                l = loss(net(X), y)
            l.backward()
            trainer.step(X.shape[0])
    acc = accuracy(net, test_iter)
    assert 0.82 <= acc <= 0.86, acc
