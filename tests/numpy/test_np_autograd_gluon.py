"""NumPy mode with autograd and Gluon: one tape, np parameters and
batches, MXNet's file format, mixing with legacy arrays."""

import os
import struct

import numpy as onp
import pytest

import dlbook as mx
from dlbook import autograd, gluon, init, nd, np, npx
from dlbook.gluon import nn


@pytest.fixture(autouse=True)
def np_mode():
    npx.set_np()
    yield
    npx.reset_np()


def test_d2l_autograd_example():
    x = np.arange(4.0)
    x.attach_grad()
    with autograd.record():
        y = 2 * np.dot(x, x)
    y.backward()
    # MXNet 1.9.1 gives array(28.) and array([ 0.,  4.,  8., 12.])
    assert repr(y) == 'array(28.)'
    assert repr(x.grad) == 'array([ 0.,  4.,  8., 12.])'
    assert isinstance(x.grad, np.ndarray)


def test_gradient_through_masks_indexing_and_cumsum():
    x = np.arange(6.0).reshape(2, 3)
    x.attach_grad()
    with autograd.record():
        z = (x[x > 2] ** 2).sum() + x[1, 2] * 3 + x.cumsum(axis=1).mean()
    z.backward()
    onp.testing.assert_allclose(
        x.grad.asnumpy(),
        [[3 / 6, 2 / 6, 1 / 6], [6 + 3 / 6, 8 + 2 / 6, 10 + 3 + 1 / 6]],
        rtol=1e-6,
    )


def test_gradient_of_0d_results_matches_numeric():
    x = np.array([[0.5, -1.0], [2.0, 0.25]])
    x.attach_grad()
    with autograd.record():
        y = np.sqrt((x * x).sum()) + x.max() + np.linalg.norm(x[0])
    y.backward()
    a = x.asnumpy().astype('float64')
    want = a / onp.sqrt((a * a).sum())
    want[1, 0] += 1
    want[0] += a[0] / onp.linalg.norm(a[0])
    onp.testing.assert_allclose(x.grad.asnumpy(), want, rtol=1e-5)


def test_mixing_types_gives_np():
    a, b = np.ones(3), nd.ones(3)
    assert type(a + b) is np.ndarray and type(b + a) is np.ndarray
    assert type(nd.relu(a)) is np.ndarray
    assert type(b.as_np_ndarray()) is np.ndarray
    assert type(a.as_nd_ndarray()) is nd.NDArray


def test_state_switches_and_use_np():
    assert npx.is_np_array() and npx.is_np_shape()
    npx.reset_np()
    assert not npx.is_np_array() and not npx.is_np_shape()

    @mx.util.use_np
    def inside():
        return npx.is_np_array(), npx.is_np_shape()

    assert inside() == (True, True) and not npx.is_np_array()

    @mx.util.use_np
    class Net(nn.Block):
        def forward(self, x):
            return npx.is_np_array()

    assert Net()(np.ones(1)) and not npx.is_np_array()
    with mx.util.np_shape(True):
        assert npx.is_np_shape() and not npx.is_np_array()
    npx.set_np()


def test_parameters_and_outputs_are_np():
    net = nn.Sequential()
    net.add(nn.Dense(4, activation='relu'), nn.Dense(2))
    net.initialize()
    out = net(np.ones((3, 5)))
    assert type(out) is np.ndarray and out.shape == (3, 2)
    w = net[0].weight
    assert type(w.data()) is np.ndarray and type(w.grad()) is np.ndarray
    w.set_data(np.zeros((4, 5)))
    assert type(w.data()) is np.ndarray and float(w.data().sum()) == 0


def test_hybrid_forward_with_F_np_and_forward_style():
    class HF(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.npx.relu(F.np.square(x) - 1)

    class Fwd(nn.HybridBlock):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(2, in_units=3)

        def forward(self, x):
            return npx.relu(self.dense(x))

    x = np.array([[0.5, 2.0, -3.0]])
    assert HF()(x).tolist() == [[0.0, 3.0, 8.0]]
    net = Fwd()
    net.initialize()
    net.hybridize()
    assert net(x).shape == (1, 2) and type(net(x)) is np.ndarray


def test_hybridized_sequential_gives_np():
    net = nn.HybridSequential()
    net.add(nn.Dense(3, activation='relu'), nn.Dense(1))
    net.initialize()
    x = np.ones((2, 4))
    eager = net(x)
    net.hybridize()
    hybrid = net(x)
    assert type(hybrid) is np.ndarray
    onp.testing.assert_allclose(hybrid.asnumpy(), eager.asnumpy(), rtol=1e-6)


def test_npx_save_load_and_parameters_use_np_shape_files(tmp_path):
    f = str(tmp_path / 'a.params')
    npx.save(f, {'a': np.ones((2,)), 'b': np.array(3.0)})
    raw = open(f, 'rb').read()
    # MXNet 1.9.1 writes magic 0xf993faca (np shape) and 118 bytes
    assert struct.unpack('<I', raw[24:28])[0] == 0xF993FACA
    assert len(raw) == 118
    loaded = npx.load(f)
    assert repr(loaded) == "{'a': array([1., 1.]), 'b': array(3.)}"
    net = nn.Dense(2, in_units=3)
    net.initialize()
    p = str(tmp_path / 'net.params')
    net.save_parameters(p)
    net2 = nn.Dense(2, in_units=3)
    net2.load_parameters(p)
    assert type(net2.weight.data()) is np.ndarray
    onp.testing.assert_array_equal(
        net2.weight.data().asnumpy(), net.weight.data().asnumpy()
    )


def test_linear_regression_from_scratch_d2l_style():
    """d2l 0.17, chapter_linear-networks/linear-regression-scratch."""
    mx.random.seed(0)

    def synthetic_data(w, b, num_examples):
        X = np.random.normal(0, 1, (num_examples, len(w)))
        y = np.dot(X, w) + b
        y += np.random.normal(0, 0.01, y.shape)
        return X, y.reshape((-1, 1))

    true_w, true_b = np.array([2, -3.4]), 4.2
    features, labels = synthetic_data(true_w, true_b, 1000)
    w = np.random.normal(0, 0.01, (2, 1))
    b = np.zeros(1)
    w.attach_grad()
    b.attach_grad()

    def data_iter(batch_size, features, labels):
        indices = list(range(len(features)))
        for i in range(0, len(features), batch_size):
            j = np.array(indices[i : min(i + batch_size, len(features))])
            yield features[j], labels[j]

    def linreg(X, w, b):
        return np.dot(X, w) + b

    def squared_loss(y_hat, y):
        return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2

    def sgd(params, lr, batch_size):
        for param in params:
            param[:] = param - lr * param.grad / batch_size

    for epoch in range(3):
        for X, y in data_iter(10, features, labels):
            with autograd.record():
                l = squared_loss(linreg(X, w, b), y)
            l.backward()
            sgd([w, b], 0.03, 10)
        train_l = squared_loss(linreg(features, w, b), labels)
    assert float(train_l.mean()) < 1e-3
    assert float(np.abs(true_w - w.reshape(true_w.shape)).max()) < 0.01
    assert abs(true_b - float(b)) < 0.01
    assert type(train_l.mean()) is np.ndarray and train_l.mean().shape == ()


def test_fashion_mnist_mlp_trains_under_set_np():
    root = os.path.join(os.environ.get('DLBOOK_DATA', ''), 'fashion-mnist')
    if not os.path.isfile(os.path.join(root, 'train-images-idx3-ubyte.gz')):
        pytest.skip('needs Fashion-MNIST under $DLBOOK_DATA')
    mx.random.seed(1)
    ds = gluon.data.vision.FashionMNIST(root=root, train=True)
    image, label = ds[0]
    assert type(image) is np.ndarray and image.shape == (28, 28, 1)
    trans = gluon.data.vision.transforms.ToTensor()
    assert type(trans(image)) is np.ndarray
    small = gluon.data.SimpleDataset([ds[i] for i in range(512)])
    loader = gluon.data.DataLoader(
        small.transform_first(trans), batch_size=64, shuffle=True
    )
    net = nn.Sequential()
    net.add(nn.Dense(64, activation='relu'), nn.Dense(10))
    net.initialize(init.Normal(0.01))
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(
        net.collect_params(), 'sgd', {'learning_rate': 0.5}
    )
    metric = mx.metric.Accuracy()
    losses = []
    for epoch in range(8):
        metric.reset()
        total = 0.0
        for X, y in loader:
            assert type(X) is np.ndarray and type(y) is np.ndarray
            with autograd.record():
                l = loss(net(X), y)
            l.backward()
            trainer.step(X.shape[0])
            total += float(l.sum())
            metric.update(y, net(X))
        losses.append(total / 512)
    assert type(l) is np.ndarray and l.shape == (X.shape[0],)
    assert losses[-1] < 0.7 * losses[0]
    assert metric.get()[1] > 0.5
