"""The dlbook workloads of the GPU scripts, written once.

``bench_vs_torch.py`` times them against PyTorch, ``profile_ops.py``
shows where their time goes and ``conv_breakdown.py`` splits the
convolution into its steps.  Each function returns ``step()``, one
training step (or one convolution forward and backward) on ``ctx``.
"""

import contextlib
import os

import dlbook as mx
from dlbook import autograd, gluon, nd
from dlbook.gluon import nn, rnn


@contextlib.contextmanager
def without_cudnn():
    """Convolutions as im2col + cuBLAS inside the block
    (``DLBOOK_CUDNN=0``), to time them against cuDNN's; the variable is
    put back as it was."""
    before = os.environ.get('DLBOOK_CUDNN')
    os.environ['DLBOOK_CUDNN'] = '0'
    try:
        yield
    finally:
        if before is None:
            del os.environ['DLBOOK_CUDNN']
        else:
            os.environ['DLBOOK_CUDNN'] = before


def conv_step(ctx, cin, cout, size, k, s, batch):
    """``nd.Convolution`` forward and backward, ``k x k`` kernel, stride
    ``s``, "same" padding, no bias."""
    x = nd.random.uniform(shape=(batch, cin, size, size), ctx=ctx)
    w = nd.random.uniform(shape=(cout, cin, k, k), ctx=ctx)
    x.attach_grad()
    w.attach_grad()

    def step():
        with autograd.record():
            y = nd.Convolution(
                x,
                w,
                kernel=(k, k),
                stride=(s, s),
                pad=(k // 2, k // 2),
                num_filter=cout,
                no_bias=True,
            )
        y.backward()

    return step


def train_step(
    ctx, net, shape, classes, batch, hybridize=False, optimizer='sgd'
):
    """A classifier's training step on random images: softmax
    cross-entropy, SGD with momentum 0.9 (or ``optimizer`` with its
    default settings and a learning rate of 0.001)."""
    net.initialize(ctx=ctx, init=mx.init.Xavier(), force_reinit=True)
    if hybridize:
        net.hybridize(static_alloc=True, static_shape=True)
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    settings = {'learning_rate': 0.001}
    if optimizer == 'sgd':
        settings = {'learning_rate': 0.01, 'momentum': 0.9}
    trainer = gluon.Trainer(net.collect_params(), optimizer, settings)
    X = nd.random.uniform(shape=(batch,) + shape, ctx=ctx)
    y = nd.array([i % classes for i in range(batch)], ctx=ctx)

    def step():
        with autograd.record():
            l = loss(net(X), y)
        l.backward()
        trainer.step(batch)

    return step


def resnet18_step(ctx, size, batch, hybridize=False, optimizer='sgd'):
    """ResNet-18 (the model zoo's ``resnet18_v1``, 10 classes) training
    step on ``size x size`` images."""
    from dlbook.gluon.model_zoo import vision

    return train_step(
        ctx,
        vision.resnet18_v1(classes=10),
        (3, size, size),
        10,
        batch,
        hybridize=hybridize,
        optimizer=optimizer,
    )


def lenet():
    """d2l's LeNet (sigmoid, average pooling) for 1x28x28 images."""
    net = nn.HybridSequential()
    net.add(
        nn.Conv2D(6, 5, padding=2, activation='sigmoid'),
        nn.AvgPool2D(2, 2),
        nn.Conv2D(16, 5, activation='sigmoid'),
        nn.AvgPool2D(2, 2),
        nn.Dense(120, activation='sigmoid'),
        nn.Dense(84, activation='sigmoid'),
        nn.Dense(10),
    )
    return net


def lstm_step(ctx, steps, hidden, vocab, batch, cell='LSTM'):
    """Chapter 10's language-model step: an LSTM (or ``cell='GRU'``) and
    a dense output over ``steps`` one-hot-sized inputs, SGD with gradient
    clipping."""
    layer = getattr(rnn, cell)(hidden)
    dense = nn.Dense(vocab, flatten=False)
    layer.initialize(ctx=ctx)
    dense.initialize(ctx=ctx)
    params = layer.collect_params()
    params.update(dense.collect_params())
    trainer = gluon.Trainer(
        params, 'sgd', {'learning_rate': 1.0, 'clip_gradient': 1.0}
    )
    X = nd.random.uniform(shape=(steps, batch, vocab), ctx=ctx)
    y = nd.array([[i % vocab] * batch for i in range(steps)], ctx=ctx)
    lossf = gluon.loss.SoftmaxCrossEntropyLoss()

    def step():
        with autograd.record():
            l = lossf(dense(layer(X)), y)
        l.backward()
        trainer.step(batch)

    return step
