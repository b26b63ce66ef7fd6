"""Accuracy, evaluation and the training loops of d2l's chapters 3, 6, 13.

Every loop draws its curves with ``dlbook.widgets.Animator``: a live plot
in JupyterLab (updated in place, no flicker), a few text lines in a
terminal, and in both cases one final figure and one summary line. The
loops return their final numbers as a ``TrainResult``, so tests and
notebooks can check them; unlike d2l's ``train_ch3`` they assert nothing
(d2l-ai/d2l-en#1701: checks belong in tests, not in a reusable loop).
"""
from collections import namedtuple

from .. import autograd, gluon, init
from ..widgets import Accumulator, Animator, Timer, show_images
from .data import get_fashion_mnist_labels
from .devices import try_all_gpus, try_gpu

LEGEND = ['train loss', 'train acc', 'test acc']


class TrainResult(namedtuple('TrainResult',
                             ['train_loss', 'train_acc', 'test_acc'])):
    """Final numbers of a training run: a tuple with a rounded repr.

    Unpack it like d2l's numbers, ``train_loss, train_acc, test_acc =
    result``; its repr shows three decimals, the precision at which
    two runs on different machines can be expected to agree.
    """

    __slots__ = ()

    def __repr__(self):
        return (f'TrainResult(train_loss={self.train_loss:.3f}, '
                f'train_acc={self.train_acc:.3f}, '
                f'test_acc={self.test_acc:.3f})')


def _epoch_xlim(num_epochs):
    # matplotlib warns about an empty range [1, 1] for a single epoch.
    return [1, num_epochs] if num_epochs > 1 else None


def accuracy(y_hat, y):
    """Count the correct predictions (a float, not a fraction).

    Parameters
    ----------
    y_hat : NDArray
        Scores of shape ``(n, num_classes)``, or predicted classes ``(n,)``.
    y : NDArray
        True classes, shape ``(n,)``.

    Returns
    -------
    float
        How many rows of ``y_hat`` have their largest score at ``y``.
        Divide by ``y.size`` for the fraction, as ``evaluate_accuracy``
        does over a whole data set.
    """
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.astype(y.dtype) == y
    return float(cmp.astype(y.dtype).sum().asscalar())


def evaluate_accuracy(net, data_iter):
    """Fraction of correct predictions of ``net`` over ``data_iter``."""
    metric = Accumulator(2)         # correct predictions, predictions
    for X, y in data_iter:
        metric.add(accuracy(net(X), y), y.size)
    return metric[0] / metric[1]


def _first_param_contexts(net):
    params = list(net.collect_params().values())
    if not params:
        raise ValueError(f'{type(net).__name__} has no parameters, so its '
                         f'device is unknown; pass device=... explicitly')
    return params[0].list_ctx()


def evaluate_accuracy_gpu(net, data_iter, device=None):
    """Accuracy of a Gluon ``net`` on ``device`` (where its parameters are).

    Parameters
    ----------
    net : gluon.Block
    data_iter : iterable of (X, y)
    device : Context, optional
        Default: the device of the network's first parameter. Each batch
        is copied there before the forward pass.

    Returns
    -------
    float
    """
    if device is None:
        device = _first_param_contexts(net)[0]
    metric = Accumulator(2)
    for X, y in data_iter:
        X, y = X.as_in_context(device), y.as_in_context(device)
        metric.add(accuracy(net(X), y), y.size)
    return metric[0] / metric[1]


def evaluate_loss(net, data_iter, loss):
    """Mean of ``loss(net(X), y)`` over every example of ``data_iter``."""
    metric = Accumulator(2)         # sum of losses, number of losses
    for X, y in data_iter:
        l = loss(net(X), y)
        metric.add(l.sum().asscalar(), l.size)
    return metric[0] / metric[1]


def train_epoch_ch3(net, train_iter, loss, updater):
    """Train for one epoch (chapter 3).

    Parameters
    ----------
    net : callable
        A Gluon block or a function ``net(X)``.
    train_iter : iterable of (X, y)
    loss : callable
        Returns one loss per example.
    updater : gluon.Trainer or callable
        A Trainer (its ``step`` is used) or a function
        ``updater(batch_size)``, such as one calling ``d2l.sgd``.

    Returns
    -------
    train_loss, train_acc : float
        Mean loss and accuracy over the epoch.
    """
    if isinstance(updater, gluon.Trainer):
        updater = updater.step
    metric = Accumulator(3)         # sum of losses, correct, examples
    for X, y in train_iter:
        with autograd.record():
            y_hat = net(X)
            l = loss(y_hat, y)
        l.backward()                # the gradient of l.sum()
        updater(X.shape[0])
        metric.add(l.sum().asscalar(), accuracy(y_hat, y), y.size)
    return metric[0] / metric[2], metric[1] / metric[2]


def train_ch3(net, train_iter, test_iter, loss, num_epochs, updater):
    """Train a model and plot loss and accuracies per epoch (chapter 3).

    Parameters
    ----------
    net, train_iter, loss, updater
        As for ``train_epoch_ch3``.
    test_iter : iterable of (X, y)
        Evaluated with ``evaluate_accuracy`` after every epoch.
    num_epochs : int

    Returns
    -------
    TrainResult
        ``(train_loss, train_acc, test_acc)`` after the last epoch.
    """
    animator = Animator(xlabel='epoch', xlim=_epoch_xlim(num_epochs),
                        ylim=[0.3, 0.9], legend=LEGEND)
    for epoch in range(num_epochs):
        train_loss, train_acc = train_epoch_ch3(net, train_iter, loss,
                                                updater)
        test_acc = evaluate_accuracy(net, test_iter)
        animator.add(epoch + 1, (train_loss, train_acc, test_acc))
    animator.finish()
    return TrainResult(train_loss, train_acc, test_acc)


def predict_ch3(net, test_iter, n=6):
    """Show the first ``n`` test images with true and predicted labels."""
    for X, y in test_iter:
        break
    trues = get_fashion_mnist_labels(y[:n])
    preds = get_fashion_mnist_labels(net(X[:n]).argmax(axis=1))
    titles = [true + '\n' + pred for true, pred in zip(trues, preds)]
    show_images(X[:n].reshape((n, 28, 28)), 1, n, titles=titles)


def _plot_every(num_batches):
    """Five points per epoch, as d2l (at least one batch apart)."""
    return max(num_batches // 5, 1)


def train_ch6(net, train_iter, test_iter, num_epochs, lr, device=None):
    """Train a classifier on one device with SGD (chapter 6).

    Re-initialises ``net`` with Xavier on ``device``, trains with softmax
    cross-entropy, and prints d2l's two lines::

        loss 0.469, train acc 0.823, test acc 0.779
        55296.2 examples/sec on cpu(0)

    Parameters
    ----------
    net : gluon.Block
    train_iter, test_iter : iterable of (X, y)
    num_epochs : int
    lr : float
        Learning rate.
    device : Context, optional
        Default ``try_gpu()``. The timer covers the batch loop only.

    Returns
    -------
    TrainResult
    """
    if device is None:
        device = try_gpu()
    net.initialize(force_reinit=True, ctx=device, init=init.Xavier())
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), 'sgd',
                            {'learning_rate': lr})
    result, speed = fit_classifier(net, train_iter, test_iter, num_epochs,
                                   loss, trainer, device)
    print(f'loss {result.train_loss:.3f}, train acc {result.train_acc:.3f}, '
          f'test acc {result.test_acc:.3f}')
    print(f'{speed:.1f} examples/sec on {device}')
    return result


def fit_classifier(net, train_iter, test_iter, num_epochs, loss, trainer,
                   device, scheduler=None):
    """The classification training loop of chapters 6 and 11.

    For every batch: move it to ``device``, record the forward pass and
    the loss, ``backward()``, ``trainer.step``; five points per epoch on a
    live plot of training loss and accuracy, and the test accuracy after
    every epoch.  With ``scheduler``, epoch ``e`` (from 0) first sets the
    rate ``scheduler(e + 1)``.

    Returns
    -------
    (TrainResult, float)
        The final numbers, and the examples per second of the batch loop
        (the timer covers the batches only, not the evaluation).
    """
    animator = Animator(xlabel='epoch', xlim=_epoch_xlim(num_epochs),
                        legend=LEGEND)
    timer, num_batches = Timer(), len(train_iter)
    every = _plot_every(num_batches)
    for epoch in range(num_epochs):
        if scheduler:
            trainer.set_learning_rate(scheduler(epoch + 1))
        metric = Accumulator(3)     # sum of losses, correct, examples
        for i, (X, y) in enumerate(train_iter):
            timer.start()
            X, y = X.as_in_context(device), y.as_in_context(device)
            with autograd.record():
                y_hat = net(X)
                l = loss(y_hat, y)
            l.backward()
            trainer.step(X.shape[0])
            # asscalar() waits for the device, so the timer is honest.
            metric.add(l.sum().asscalar(), accuracy(y_hat, y), X.shape[0])
            timer.stop()
            train_l = metric[0] / metric[2]
            train_acc = metric[1] / metric[2]
            if (i + 1) % every == 0 or i == num_batches - 1:
                animator.add(epoch + (i + 1) / num_batches,
                             (train_l, train_acc, None))
        test_acc = evaluate_accuracy_gpu(net, test_iter, device)
        animator.add(epoch + 1, (None, None, test_acc))
    animator.finish()
    speed = metric[2] * num_epochs / timer.sum()
    return TrainResult(train_l, train_acc, test_acc), speed


def split_batch(X, y, devices):
    """Split ``X`` and ``y`` into one slice per device (chapter 13).

    Returns
    -------
    X_shards, y_shards : list of NDArray
        ``gluon.utils.split_and_load`` of each, in the order of
        ``devices``.
    """
    if X.shape[0] != y.shape[0]:
        raise ValueError(f'split_batch: X has {X.shape[0]} examples but y '
                         f'has {y.shape[0]}')
    return (gluon.utils.split_and_load(X, devices),
            gluon.utils.split_and_load(y, devices))


def train_batch_ch13(net, features, labels, loss, trainer, devices,
                     split_f=split_batch):
    """Train one mini-batch split over several devices (chapter 13).

    Returns
    -------
    train_loss_sum, train_acc_sum : float
        Summed over the examples of the batch.
    """
    X_shards, y_shards = split_f(features, labels, devices)
    with autograd.record():
        pred_shards = [net(X_shard) for X_shard in X_shards]
        ls = [loss(pred_shard, y_shard)
              for pred_shard, y_shard in zip(pred_shards, y_shards)]
    for l in ls:
        l.backward()
    # ignore_stale_grad: parameters unused by this batch (fine-tuning)
    # must not stop the step.
    trainer.step(labels.shape[0], ignore_stale_grad=True)
    train_loss_sum = sum(l.sum().asscalar() for l in ls)
    train_acc_sum = sum(accuracy(pred_shard, y_shard)
                        for pred_shard, y_shard in zip(pred_shards, y_shards))
    return float(train_loss_sum), train_acc_sum


def evaluate_accuracy_gpus(net, data_iter, split_f=split_batch):
    """Accuracy of ``net`` with every batch split over its devices."""
    devices = _first_param_contexts(net)
    metric = Accumulator(2)         # correct predictions, predictions
    for features, labels in data_iter:
        X_shards, y_shards = split_f(features, labels, devices)
        pred_shards = [net(X_shard) for X_shard in X_shards]
        metric.add(sum(accuracy(pred_shard, y_shard) for pred_shard, y_shard
                       in zip(pred_shards, y_shards)), labels.size)
    return metric[0] / metric[1]


def train_ch13(net, train_iter, test_iter, loss, trainer, num_epochs,
               devices=None, split_f=split_batch):
    """Train with data parallelism over ``devices`` (chapter 13).

    Each batch is split with ``split_f`` (one slice per device), every
    device computes its slice's loss and gradient, and the ``trainer``
    sums the gradients (``initialize(ctx=devices)`` put one copy of the
    parameters on each device). Prints d2l's lines::

        loss 0.155, train acc 0.946, test acc 0.880
        1200.3 examples/sec on [gpu(0), gpu(1)]

    Parameters
    ----------
    net : gluon.Block
        Initialised on ``devices``.
    train_iter, test_iter : iterable of (X, y)
    loss : gluon.loss.Loss
    trainer : gluon.Trainer
    num_epochs : int
    devices : list of Context, optional
        Default ``try_all_gpus()``. ``[mx.cpu(0), mx.cpu(1)]`` runs the
        same code on a machine without GPUs.
    split_f : callable, optional
        ``split_f(X, y, devices) -> (X_shards, y_shards)``.

    Returns
    -------
    TrainResult
    """
    if devices is None:
        devices = try_all_gpus()
    timer, num_batches = Timer(), len(train_iter)
    every = _plot_every(num_batches)
    animator = Animator(xlabel='epoch', xlim=_epoch_xlim(num_epochs),
                        ylim=[0, 1], legend=LEGEND)
    for epoch in range(num_epochs):
        # sum of losses, correct, examples, predictions
        metric = Accumulator(4)
        for i, (features, labels) in enumerate(train_iter):
            timer.start()
            l, acc = train_batch_ch13(net, features, labels, loss, trainer,
                                      devices, split_f)
            metric.add(l, acc, labels.shape[0], labels.size)
            timer.stop()
            if (i + 1) % every == 0 or i == num_batches - 1:
                animator.add(epoch + (i + 1) / num_batches,
                             (metric[0] / metric[2], metric[1] / metric[3],
                              None))
        test_acc = evaluate_accuracy_gpus(net, test_iter, split_f)
        animator.add(epoch + 1, (None, None, test_acc))
    animator.finish()
    train_loss, train_acc = metric[0] / metric[2], metric[1] / metric[3]
    print(f'loss {train_loss:.3f}, train acc {train_acc:.3f}, '
          f'test acc {test_acc:.3f}')
    print(f'{metric[2] * num_epochs / timer.sum():.1f} examples/sec on '
          f'{devices}')
    return TrainResult(train_loss, train_acc, test_acc)
