"""Helpers of the optimization chapter (``dlbook/book/optimization.py``)."""

import re

import numpy as np
import pytest

import dlbook as mx
from dlbook import book as d2l
from dlbook import gluon, init, lr_scheduler, nd
from dlbook.book import optimization
from dlbook.gluon import nn

LOSS_LINE = re.compile(
    r'^loss: (\d\.\d{3}), \d+\.\d{3} sec/epoch$', re.MULTILINE
)


def sgd(params, states, hyperparams):
    for p in params:
        p[:] -= hyperparams['lr'] * p.grad


def best_linear_loss():
    """Half the mean squared error of the least-squares fit."""
    data = optimization.airfoil_like_data()
    data = (data - data.mean(axis=0)) / data.std(axis=0)
    A = np.column_stack([data[:, :-1], np.ones(len(data))])
    w, *_ = np.linalg.lstsq(A, data[:, -1], rcond=None)
    return float(np.mean((A @ w - data[:, -1]) ** 2) / 2)


# -- the data ----------------------------------------------------------------


def test_data_is_the_same_whatever_the_global_seeds():
    np.random.seed(1)
    mx.random.seed(1)
    first = optimization.airfoil_like_data()
    np.random.seed(2)
    mx.random.seed(2)
    assert np.array_equal(first, optimization.airfoil_like_data())
    assert first.shape == (1500, 6) and first.dtype == np.float32


def test_data_has_airfoil_like_ranges():
    data = optimization.airfoil_like_data()
    freq, angle, chord, velocity, thickness, level = data.T
    assert 200 <= freq.min() and freq.max() <= 20000
    assert 0 <= angle.min() and angle.max() <= 22
    np.testing.assert_allclose(
        np.unique(velocity), [31.7, 39.6, 55.5, 71.3], rtol=1e-6
    )
    assert 0 < chord.min() and chord.max() < 0.31
    assert 0 < thickness.min() and thickness.max() < 0.1
    assert 100 < level.mean() < 140


def test_a_linear_model_explains_about_half_the_variance():
    # The chapter's curves are drawn with ylim [0.22, 0.35]: the best
    # loss must sit just above the bottom of that window.
    assert 0.20 < best_linear_loss() < 0.235


def test_get_data_ch11_standardises_and_batches():
    data_iter, feature_dim = d2l.get_data_ch11(batch_size=10)
    assert feature_dim == 5
    assert len(data_iter) == 150
    X, y = next(iter(data_iter))
    assert X.shape == (10, 5) and y.shape == (10,)
    Xs, ys = optimization._full_batch(data_iter)
    assert Xs.shape == (1500, 5) and ys.shape == (1500,)
    both = np.column_stack([Xs.asnumpy(), ys.asnumpy()])
    np.testing.assert_allclose(both.mean(axis=0), 0, atol=1e-4)
    np.testing.assert_allclose(both.std(axis=0), 1, atol=1e-4)


def test_get_data_ch11_fewer_examples_and_bad_n():
    data_iter, _ = d2l.get_data_ch11(batch_size=100, n=300)
    assert len(data_iter) == 3
    with pytest.raises(ValueError, match='1..1500'):
        d2l.get_data_ch11(10, n=2000)


def test_batch_order_follows_mx_random_seed():
    def first_batch():
        data_iter, _ = d2l.get_data_ch11(10)
        return next(iter(data_iter))[1].asnumpy()

    mx.random.seed(3)
    a = first_batch()
    mx.random.seed(3)
    assert np.array_equal(a, first_batch())


# -- the training loops -------------------------------------------------------


def test_train_ch11_minibatch_sgd_reaches_the_best_loss(capsys):
    mx.random.seed(0)
    data_iter, feature_dim = d2l.get_data_ch11(10)
    curve = d2l.train_ch11(
        sgd, None, {'lr': 0.05}, data_iter, feature_dim, num_epochs=2
    )
    times, losses = curve
    # 3000 examples, a point every 200: 15 points, times increasing.
    assert len(losses) == len(times) == 15
    assert all(b >= a for a, b in zip(times, times[1:]))
    assert losses[-1] < best_linear_loss() + 0.01
    assert repr(curve) == (
        f'LossCurve(points=15, final_loss={losses[-1]:.3f})'
    )
    match = LOSS_LINE.search(capsys.readouterr().out)
    assert match and float(match.group(1)) == pytest.approx(
        losses[-1], abs=5e-4
    )


def test_train_ch11_gradient_descent_plots_every_second_epoch():
    # batch 1500: an update per epoch, and 200 divides 1500 k only for
    # even k, as in d2l.
    data_iter, feature_dim = d2l.get_data_ch11(1500)
    times, losses = d2l.train_ch11(
        sgd, None, {'lr': 1}, data_iter, feature_dim, num_epochs=4
    )
    assert len(losses) == 2
    assert losses[-1] < losses[0]


def test_train_ch11_passes_states_and_hyperparams():
    seen = []

    def counting(params, states, hyperparams):
        seen.append((states, hyperparams['t']))
        hyperparams['t'] += 1
        sgd(params, states, hyperparams)

    states = ['state']
    hyperparams = {'lr': 0.01, 't': 1}
    data_iter, feature_dim = d2l.get_data_ch11(100)
    d2l.train_ch11(
        counting, states, hyperparams, data_iter, feature_dim, num_epochs=1
    )
    assert len(seen) == 15
    assert all(s is states for s, _ in seen)
    assert [t for _, t in seen] == list(range(1, 16))


def test_scratch_and_concise_sgd_agree():
    # The same model, loss, data order and update: the same final loss.
    mx.random.seed(5)
    data_iter, feature_dim = d2l.get_data_ch11(10)
    _, scratch = d2l.train_ch11(
        sgd, None, {'lr': 0.05}, data_iter, feature_dim, num_epochs=2
    )
    mx.random.seed(5)
    data_iter, _ = d2l.get_data_ch11(10)
    _, concise = d2l.train_concise_ch11(
        'sgd', {'learning_rate': 0.05}, data_iter, num_epochs=2
    )
    assert concise[-1] == pytest.approx(scratch[-1], abs=0.01)


@pytest.mark.parametrize(
    'name, hyperparams',
    [
        ('sgd', {'learning_rate': 0.005, 'momentum': 0.9}),
        ('adagrad', {'learning_rate': 0.1}),
        ('rmsprop', {'learning_rate': 0.01, 'gamma1': 0.9}),
        ('adadelta', {'rho': 0.9}),
        ('adam', {'learning_rate': 0.01}),
    ],
)
def test_train_concise_ch11_every_optimizer_converges(
    name, hyperparams, capsys
):
    mx.random.seed(0)
    data_iter, _ = d2l.get_data_ch11(10)
    times, losses = d2l.train_concise_ch11(
        name, hyperparams, data_iter, num_epochs=2
    )
    assert len(losses) == 15
    assert losses[-1] < best_linear_loss() + 0.015
    assert LOSS_LINE.search(capsys.readouterr().out)


# -- 2-D traces ---------------------------------------------------------------


def test_train_2d_gradient_descent_matches_d2l(capsys):
    eta = 0.1

    def gd_2d(x1, x2, s1, s2, f_grad):
        g1, g2 = f_grad(x1, x2)
        return (x1 - eta * g1, x2 - eta * g2, 0, 0)

    results = d2l.train_2d(gd_2d, f_grad=lambda x1, x2: (2 * x1, 4 * x2))
    assert len(results) == 21 and results[0] == (-5, -2)
    # d2l prints exactly this for f = x1^2 + 2 x2^2 and eta = 0.1.
    assert (
        capsys.readouterr().out == 'epoch 20, x1: -0.057646, x2: -0.000073\n'
    )


def test_train_2d_without_f_grad_and_with_state():
    def momentum_2d(x1, x2, v1, v2):
        v1 = 0.5 * v1 + 0.2 * x1
        v2 = 0.5 * v2 + 4 * x2
        return x1 - 0.6 * v1, x2 - 0.6 * v2, v1, v2

    results = d2l.train_2d(momentum_2d, steps=5)
    assert len(results) == 6
    assert abs(results[-1][1]) < 2


def test_plots_draw_without_errors():
    import matplotlib.pyplot as plt

    d2l.show_trace([10.0, 6.0, 3.6], lambda x: x**2)
    d2l.show_trace_2d(
        lambda x1, x2: x1**2 + 2 * x2**2, [(-5, -2), (-4, -1.2), (-3.2, -0.7)]
    )
    assert plt.gca().get_xlabel() == 'x1'
    plt.close('all')


# -- training with a schedule -------------------------------------------------


def blobs(n=200, seed=0):
    r = np.random.RandomState(seed)
    y = r.randint(0, 3, size=n)
    centers = np.array([[3.0, 0.0], [-3.0, 0.0], [0.0, 3.0]])
    X = centers[y] + r.normal(scale=0.5, size=(n, 2))
    data = gluon.data.ArrayDataset(nd.array(X), nd.array(y, dtype='int32'))
    return gluon.data.DataLoader(data, batch_size=20, shuffle=True)


def small_net():
    net = nn.Sequential()
    net.add(nn.Dense(8, activation='relu'), nn.Dense(3))
    net.initialize(init.Xavier())
    return net


def test_train_with_scheduler_sets_the_rate_per_epoch(capsys):
    mx.random.seed(0)
    net = small_net()
    trainer = gluon.Trainer(
        net.collect_params(), 'sgd', {'learning_rate': 0.5}
    )
    rates = []

    def schedule(epoch):
        rates.append(epoch)
        return 0.5 / epoch

    loader = blobs()
    result = d2l.train_with_scheduler(
        net,
        loader,
        loader,
        3,
        gluon.loss.SoftmaxCrossEntropyLoss(),
        trainer,
        mx.cpu(),
        schedule,
    )
    assert rates == [1, 2, 3]  # epoch e trains with schedule(e)
    assert trainer.learning_rate == pytest.approx(0.5 / 3)
    assert result.test_acc > 0.9
    assert re.search(
        r'^train loss \d\.\d{3}, train acc \d\.\d{3}, '
        r'test acc \d\.\d{3}$',
        capsys.readouterr().out,
        re.MULTILINE,
    )


def test_train_with_scheduler_and_a_per_update_scheduler():
    mx.random.seed(0)
    net = small_net()
    loader = blobs()
    scheduler = lr_scheduler.CosineScheduler(
        max_update=2 * len(loader),
        warmup_steps=len(loader),
        base_lr=0.5,
        final_lr=0.01,
    )
    trainer = gluon.Trainer(
        net.collect_params(), 'sgd', {'lr_scheduler': scheduler}
    )
    result = d2l.train_with_scheduler(
        net,
        loader,
        loader,
        2,
        gluon.loss.SoftmaxCrossEntropyLoss(),
        trainer,
        mx.cpu(),
    )
    assert trainer.learning_rate == pytest.approx(0.01)
    assert result.train_acc > 0.8
