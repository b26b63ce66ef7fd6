"""Helpers of the optimization chapter (d2l chapter 11).

``get_data_ch11``
    A regression data set standing in for NASA's airfoil self-noise data,
    which d2l downloads: generated here, deterministically, so the
    chapter runs offline.
``train_ch11``, ``train_concise_ch11``
    Train a linear regression with a hand-written optimizer (a function
    ``trainer_fn(params, states, hyperparams)``) or with a
    ``gluon.Trainer``, plotting the loss as training goes.
``train_2d``, ``show_trace_2d``, ``show_trace``
    Run an optimizer on a function of one or two variables and draw the
    path it takes.
``train_with_scheduler``
    Train a classifier with an optional learning-rate schedule.

The names and signatures are those of d2l (d2l-en 0.17, ``d2l/mxnet.py``)
so that the book's code runs as printed.
"""
from collections import namedtuple

import numpy as np

from .. import autograd, gluon, init, nd
from ..gluon import nn
from ..widgets import Animator, Timer, plot, set_figsize
from .devices import try_gpu
from .scratch import linreg, squared_loss
from .training import fit_classifier


class LossCurve(namedtuple('LossCurve', ['times', 'losses'])):
    """What ``train_ch11`` returns: ``(times, losses)``, as in d2l.

    ``times`` are cumulative training seconds and ``losses`` the losses
    on the whole data set at the plotted points. It unpacks and zips like
    d2l's pair of lists; its repr is short and stable (the times vary
    from run to run), so a notebook cell ending with the call shows
    ``LossCurve(points=15, final_loss=0.243)``.
    """

    __slots__ = ()

    def __repr__(self):
        final = f'{self.losses[-1]:.3f}' if self.losses else None
        return f'LossCurve(points={len(self.losses)}, final_loss={final})'


#: Seed of the data set: the same 1,500 examples on every machine.
DATA_SEED = 11

AIRFOIL_FEATURES = ('frequency', 'angle of attack', 'chord length',
                    'free-stream velocity', 'displacement thickness')


def airfoil_like_data(n=1500, seed=DATA_SEED):
    """Generate an airfoil-self-noise-like data set as a NumPy array.

    NASA's data (d2l's ``airfoil_self_noise.dat``) measures the sound
    pressure level of airfoil sections in a wind tunnel. This stand-in
    draws five features with the same meaning and similar ranges
    (frequency in Hz, angle of attack in degrees, chord length and
    displacement thickness in metres, velocity in m/s) and computes the
    level from a smooth, partly non-linear formula plus noise, so that a
    linear model explains about half of the variance, as on the real
    data.

    Parameters
    ----------
    n : int
        Number of examples.
    seed : int
        Seed of the private random generator (the global seeds are not
        touched, and do not change the data).

    Returns
    -------
    numpy.ndarray
        Shape ``(n, 6)``, float32: five features, then the target.
        Not standardised.
    """
    rng = np.random.RandomState(seed)
    freq = np.exp(rng.uniform(np.log(200), np.log(20000), n))
    angle = np.clip(rng.gamma(1.5, 4.0, n), 0, 22)
    chord = rng.choice([0.0254, 0.0508, 0.1016, 0.1524, 0.2286, 0.3048], n)
    velocity = rng.choice([31.7, 39.6, 55.5, 71.3], n)
    thickness = (0.002 * np.exp(0.12 * angle) * np.sqrt(chord / 0.1)
                 * rng.uniform(0.7, 1.3, n))
    log_f = np.log(freq)
    level = (130 - 1.6 * (log_f - 8.0) ** 2 - 1.2 * (log_f - 7.5)
             - 25 * chord + 0.06 * velocity - 300 * thickness
             + 0.2 * angle + rng.normal(0, 2.0, n))
    data = np.column_stack([freq, angle, chord, velocity, thickness, level])
    return data.astype(np.float32)


def get_data_ch11(batch_size=10, n=1500):
    """Load the chapter's regression data into a shuffled ``DataLoader``.

    Each column is standardised to mean 0 and variance 1, as d2l does
    with the airfoil data. The data are the same everywhere (see
    ``airfoil_like_data``); the order of the batches follows
    ``mx.random.seed``.

    Parameters
    ----------
    batch_size : int
        Examples per mini-batch (1500 gives full-batch gradient descent).
    n : int
        Number of examples, at most 1500.

    Returns
    -------
    data_iter : gluon.data.DataLoader
        Batches ``(X, y)`` of shapes ``(batch_size, 5)`` and
        ``(batch_size,)``, float32.
    feature_dim : int
        5, the number of features.

    Examples
    --------
    >>> data_iter, feature_dim = d2l.get_data_ch11(10)
    >>> X, y = next(iter(data_iter))
    >>> X.shape, y.shape
    ((10, 5), (10,))
    """
    if not 1 <= n <= 1500:
        raise ValueError(f'get_data_ch11: n must be in 1..1500, got {n}')
    data = airfoil_like_data()
    data = (data - data.mean(axis=0)) / data.std(axis=0)
    features, labels = nd.array(data[:n, :-1]), nd.array(data[:n, -1])
    data_iter = gluon.data.DataLoader(
        gluon.data.ArrayDataset(features, labels), batch_size,
        shuffle=True)
    return data_iter, data.shape[1] - 1


def _full_batch(data_iter):
    """All of ``data_iter``'s examples as one ``(X, y)`` pair.

    The loss is evaluated on the whole data set 15 times per epoch; doing
    it in one batch instead of, say, 1,500 batches of one example keeps
    even stochastic gradient descent quick.
    """
    Xs, ys = zip(*data_iter)
    return nd.concat(*Xs, dim=0), nd.concat(*ys, dim=0)


def _report(animator, timer, num_epochs):
    animator.finish()
    loss = animator.Y[0][-1]
    print(f'loss: {loss:.3f}, {timer.sum() / num_epochs:.3f} sec/epoch')


def train_ch11(trainer_fn, states, hyperparams, data_iter, feature_dim,
               num_epochs=2):
    """Train a linear regression with a hand-written optimizer.

    The model is ``X w + b`` with the squared loss (halved, averaged over
    the batch). After every 200 examples the loss over the whole data set
    is added to a live plot; at the end one line reports the final loss
    and the time per epoch, as in d2l::

        loss: 0.243, 0.021 sec/epoch

    Parameters
    ----------
    trainer_fn : callable
        ``trainer_fn(params, states, hyperparams)`` updates ``params =
        [w, b]`` in place from their ``.grad`` (the mean loss's gradient,
        so no division by the batch size is needed).
    states : object
        The optimizer's state (momentum, accumulated squares...), passed
        back to ``trainer_fn`` unchanged; built for ``feature_dim``
        features, e.g. ``init_momentum_states(feature_dim)``.
    hyperparams : dict
        E.g. ``{'lr': 0.05}``, given to ``trainer_fn``; it may keep a step
        counter in it (``hyperparams['t']`` for Adam).
    data_iter : iterable of (X, y)
        From ``get_data_ch11``.
    feature_dim : int
    num_epochs : int

    Returns
    -------
    LossCurve
        ``(times, losses)``: cumulative training time (seconds) at each
        plotted point, and the plotted losses.
    """
    w = nd.random.normal(scale=0.01, shape=(feature_dim, 1))
    b = nd.zeros(1)
    w.attach_grad()
    b.attach_grad()
    X_all, y_all = _full_batch(data_iter)

    def net(X):
        return linreg(X, w, b)

    animator = Animator(xlabel='epoch', ylabel='loss', legend=['loss'],
                        xlim=[0, num_epochs], ylim=[0.22, 0.35])
    n, timer = 0, Timer()
    num_batches = len(data_iter)
    for _ in range(num_epochs):
        for X, y in data_iter:
            with autograd.record():
                l = squared_loss(net(X), y).mean()
            l.backward()
            trainer_fn([w, b], states, hyperparams)
            n += X.shape[0]
            if n % 200 == 0:
                timer.stop()
                loss = squared_loss(net(X_all), y_all).mean().asscalar()
                animator.add(n / X.shape[0] / num_batches, (float(loss),))
                timer.start()
    _report(animator, timer, num_epochs)
    return LossCurve(timer.cumsum(), animator.Y[0])


def train_concise_ch11(trainer_name, hyperparams, data_iter, num_epochs=4):
    """Train a linear regression with a ``gluon.Trainer``.

    The same experiment as ``train_ch11`` with Gluon: a ``Dense(1)``
    layer, ``L2Loss`` and ``gluon.Trainer(params, trainer_name,
    hyperparams)``.

    Parameters
    ----------
    trainer_name : str or Optimizer
        ``'sgd'``, ``'adam'``, ... or an optimizer object.
    hyperparams : dict
        Optimizer parameters, e.g. ``{'learning_rate': 0.01}``.
    data_iter : iterable of (X, y)
    num_epochs : int

    Returns
    -------
    LossCurve
        As for ``train_ch11``.
    """
    net = nn.Sequential()
    net.add(nn.Dense(1))
    net.initialize(init.Normal(sigma=0.01))
    trainer = gluon.Trainer(net.collect_params(), trainer_name, hyperparams)
    loss = gluon.loss.L2Loss()
    X_all, y_all = _full_batch(data_iter)
    animator = Animator(xlabel='epoch', ylabel='loss', legend=['loss'],
                        xlim=[0, num_epochs], ylim=[0.22, 0.35])
    n, timer = 0, Timer()
    num_batches = len(data_iter)
    for _ in range(num_epochs):
        for X, y in data_iter:
            with autograd.record():
                l = loss(net(X), y)
            l.backward()
            trainer.step(X.shape[0])
            n += X.shape[0]
            if n % 200 == 0:
                timer.stop()
                # L2Loss is already halved: the same number as train_ch11.
                value = loss(net(X_all), y_all).mean().asscalar()
                animator.add(n / X.shape[0] / num_batches, (float(value),))
                timer.start()
    _report(animator, timer, num_epochs)
    return LossCurve(timer.cumsum(), animator.Y[0])


def show_trace(results, f):
    """Plot ``f`` and the points ``results`` an optimizer visited (1-D).

    Parameters
    ----------
    results : list of float
        Successive values of ``x``.
    f : callable
        The objective, applied to NumPy arrays.
    """
    n = max(abs(min(results)), abs(max(results)))
    f_line = np.arange(-n, n, 0.01)
    results = np.asarray(results, dtype=float)
    set_figsize()
    plot([f_line, results], [f(f_line), f(results)], 'x', 'f(x)',
         fmts=['-', '-o'])


def train_2d(trainer, steps=20, f_grad=None):
    """Run a 2-D optimizer from ``(-5, -2)`` and record its path.

    Parameters
    ----------
    trainer : callable
        ``trainer(x1, x2, s1, s2)`` (or ``trainer(x1, x2, s1, s2,
        f_grad)``) returning the new ``(x1, x2, s1, s2)``; ``s1`` and
        ``s2`` are state (momentum, accumulated squares), starting at 0.
    steps : int
    f_grad : callable, optional
        ``f_grad(x1, x2) -> (g1, g2)``, passed on to ``trainer``.

    Returns
    -------
    list of (float, float)
        The ``steps + 1`` points visited. The last one is printed as in
        d2l: ``epoch 20, x1: -0.057646, x2: -0.000073``.
    """
    x1, x2, s1, s2 = -5, -2, 0, 0
    results = [(x1, x2)]
    for _ in range(steps):
        if f_grad:
            x1, x2, s1, s2 = trainer(x1, x2, s1, s2, f_grad)
        else:
            x1, x2, s1, s2 = trainer(x1, x2, s1, s2)
        results.append((float(x1), float(x2)))
    print(f'epoch {steps}, x1: {float(x1):f}, x2: {float(x2):f}')
    return results


def show_trace_2d(f, results):
    """Draw the contour lines of ``f`` and the path ``results`` on them.

    Parameters
    ----------
    f : callable
        ``f(x1, x2)`` on NumPy arrays (a grid).
    results : list of (float, float)
        From ``train_2d``.
    """
    import matplotlib.pyplot as plt
    set_figsize()
    plt.plot(*zip(*results), '-o', color='#ff7f0e')
    x1, x2 = np.meshgrid(np.arange(-5.5, 1.0, 0.1),
                         np.arange(-3.0, 1.0, 0.1))
    plt.contour(x1, x2, f(x1, x2), colors='#1f77b4')
    plt.xlabel('x1')
    plt.ylabel('x2')


def train_with_scheduler(net, train_iter, test_iter, num_epochs, loss,
                         trainer, device=None, scheduler=None):
    """Train a classifier, optionally changing the rate every epoch.

    d2l's ``train`` from the learning-rate scheduling section. With
    ``scheduler``, the schedule counts *epochs*: epoch ``e`` (from 0)
    trains with the rate ``scheduler(e + 1)``, set with
    ``trainer.set_learning_rate``. The ``+ 1`` is the optimizer's own
    convention: it calls its scheduler with ``num_update``, which is 1
    for the first update, so a warm-up that starts at rate 0 never wastes
    a step. A scheduler given to the Trainer instead
    (``{'lr_scheduler': scheduler}``) counts *updates* (batches); then
    leave ``scheduler`` out here.

    Parameters
    ----------
    net : gluon.Block
        Initialised on ``device``.
    train_iter, test_iter : iterable of (X, y)
    num_epochs : int
    loss : gluon.loss.Loss
    trainer : gluon.Trainer
    device : Context, optional
        Default ``try_gpu()``.
    scheduler : callable, optional
        ``scheduler(epoch_number) -> lr``, ``epoch_number`` from 1.

    Returns
    -------
    TrainResult
        Prints ``train loss 0.355, train acc 0.869, test acc 0.860``.
    """
    if device is None:
        device = try_gpu()
    result, _ = fit_classifier(net, train_iter, test_iter, num_epochs, loss,
                               trainer, device, scheduler)
    print(f'train loss {result.train_loss:.3f}, train acc '
          f'{result.train_acc:.3f}, test acc {result.test_acc:.3f}')
    return result
