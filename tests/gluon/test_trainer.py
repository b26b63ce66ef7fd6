"""Gluon Trainer: updates equal hand-written NumPy rules with the
``1 / batch_size`` scaling; data-parallel replicas stay identical and
match single-device training; stale gradients, learning rates, states,
lr_mult / wd_mult and the error messages."""

import os

import numpy as np
import pytest

import dlbook as mx
from dlbook import autograd, nd
from dlbook import optimizer as opt
from dlbook.base import DLBookError
from dlbook.gluon import nn
from dlbook.gluon.loss import L2Loss, SoftmaxCrossEntropyLoss
from dlbook.gluon.trainer import Trainer
from dlbook.gluon.utils import split_and_load
from dlbook.lr_scheduler import FactorScheduler

BATCH = 6
RNG = np.random.RandomState(0)
X = RNG.normal(size=(BATCH, 4))
Y = RNG.normal(size=(BATCH, 2))
W0 = RNG.normal(size=(2, 4)) * 0.5
B0 = RNG.normal(size=(2,)) * 0.5


def make_net(ctx=None):
    """A Dense(4 -> 2) with fixed initial weights on ``ctx``."""
    net = nn.Dense(2, in_units=4)
    net.initialize(ctx=ctx)
    net.weight.set_data(nd.array(W0))
    net.bias.set_data(nd.array(B0))
    return net


def gradients(w, b, x=X, y=Y):
    """d/dw and d/db of sum over the batch of L2Loss (hand-written)."""
    residual = x @ w.T + b - y  # d(0.5 r^2)/dr, mean over 2 outs
    dw = residual.T @ x / 2
    db = residual.sum(axis=0) / 2
    return dw, db


def train_step(net, trainer, ctx=None):
    x = nd.array(X, ctx=ctx)
    y = nd.array(Y, ctx=ctx)
    with autograd.record():
        loss = L2Loss()(net(x), y)
    loss.backward()
    trainer.step(BATCH)


def params_of(net):
    return net.weight.data().asnumpy(), net.bias.data().asnumpy()


# -- update rules -------------------------------------------------------------


def test_sgd_step_matches_numpy(ctx):
    net = make_net(ctx)
    trainer = Trainer(
        net.collect_params(), 'sgd', {'learning_rate': 0.1, 'wd': 0.01}
    )
    w, b = W0.copy(), B0.copy()
    for _ in range(3):
        train_step(net, trainer, ctx)
        dw, db = gradients(w, b)
        # MXNet: weight = weight - lr * (grad / batch_size + wd * weight)
        w = w - 0.1 * (dw / BATCH + 0.01 * w)
        b = b - 0.1 * (db / BATCH + 0.01 * b)
    got_w, got_b = params_of(net)
    np.testing.assert_allclose(got_w, w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_b, b, rtol=1e-5, atol=1e-6)


def test_momentum_step_matches_numpy(ctx):
    net = make_net(ctx)
    trainer = Trainer(
        net.collect_params(),
        'sgd',
        {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 0.01},
    )
    w, b = W0.copy(), B0.copy()
    mw, mb = np.zeros_like(w), np.zeros_like(b)
    for _ in range(3):
        train_step(net, trainer, ctx)
        dw, db = gradients(w, b)
        mw = 0.9 * mw - 0.1 * 0.01 * w - 0.1 * dw / BATCH
        mb = 0.9 * mb - 0.1 * 0.01 * b - 0.1 * db / BATCH
        w, b = w + mw, b + mb
    got_w, got_b = params_of(net)
    np.testing.assert_allclose(got_w, w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_b, b, rtol=1e-5, atol=1e-6)


def test_adam_step_matches_numpy(ctx):
    net = make_net(ctx)
    trainer = Trainer(
        net.collect_params(), 'adam', {'learning_rate': 0.01, 'wd': 0.001}
    )
    w, b = W0.copy(), B0.copy()
    state = {'w': [0, 0], 'b': [0, 0]}
    for t in range(1, 4):
        train_step(net, trainer, ctx)
        dw, db = gradients(w, b)
        lr_t = 0.01 * np.sqrt(1 - 0.999**t) / (1 - 0.9**t)
        new = {}
        for name, p, g in (('w', w, dw), ('b', b, db)):
            g = g / BATCH + 0.001 * p
            m, v = state[name]
            m = 0.9 * m + 0.1 * g
            v = 0.999 * v + 0.001 * g * g
            state[name] = [m, v]
            new[name] = p - lr_t * m / (np.sqrt(v) + 1e-8)
        w, b = new['w'], new['b']
    got_w, got_b = params_of(net)
    np.testing.assert_allclose(got_w, w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_b, b, rtol=1e-5, atol=1e-6)


def test_optimizer_instance_and_its_params():
    net = make_net()
    sgd = opt.SGD(learning_rate=0.5)
    trainer = Trainer(net.collect_params(), sgd)
    assert trainer.optimizer is sgd
    assert sgd.param_dict[0] is net.bias  # sorted keys: bias < weight
    with pytest.raises(AssertionError, match='optimizer_params must be'):
        Trainer(net.collect_params(), sgd, {'learning_rate': 0.1})


def test_params_as_dict_list_and_shared():
    net = make_net()
    by_dict = Trainer({'b': net.weight, 'a': net.bias}, 'sgd')
    assert by_dict._params == [net.bias, net.weight]
    by_list = Trainer([net.weight, net.bias, net.weight], 'sgd')
    assert by_list._params == [net.weight, net.bias]
    with pytest.raises(ValueError, match='list or dict of Parameters'):
        Trainer(net.weight, 'sgd')
    with pytest.raises(ValueError, match='list or dict of Parameters'):
        Trainer([net.weight, 'bias'], 'sgd')


# -- learning rate, lr_mult, wd_mult ---------------------------------------


def test_set_learning_rate():
    net = make_net()
    trainer = Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    assert trainer.learning_rate == 0.1
    trainer.set_learning_rate(0.5)
    assert trainer.learning_rate == 0.5
    train_step(net, trainer)
    dw, _ = gradients(W0, B0)
    np.testing.assert_allclose(
        params_of(net)[0], W0 - 0.5 * dw / BATCH, rtol=1e-5, atol=1e-6
    )


def test_lr_scheduler_in_optimizer_params():
    net = make_net()
    sched = FactorScheduler(step=1, factor=0.5, base_lr=0.2)
    trainer = Trainer(net.collect_params(), 'sgd', {'lr_scheduler': sched})
    assert trainer.learning_rate == pytest.approx(0.2)
    for _ in range(3):
        train_step(net, trainer)
    assert trainer.learning_rate < 0.2
    with pytest.raises(UserWarning, match='LRScheduler'):
        trainer.set_learning_rate(0.1)


def test_lr_mult_and_wd_mult():
    net = make_net()
    trainer = Trainer(
        net.collect_params(), 'sgd', {'learning_rate': 0.1, 'wd': 0.1}
    )
    # set after the Trainer exists: the optimizer reads them at each step
    net.weight.lr_mult = 0.0
    net.bias.wd_mult = 0.0
    net.bias.lr_mult = 2.0
    train_step(net, trainer)
    _, db = gradients(W0, B0)
    got_w, got_b = params_of(net)
    np.testing.assert_allclose(got_w, W0.astype(np.float32))
    np.testing.assert_allclose(
        got_b, B0 - 0.2 * db / BATCH, rtol=1e-5, atol=1e-6
    )


# -- stale gradients ----------------------------------------------------------


class TwoHeads(nn.Block):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.used = nn.Dense(2, in_units=4)
            self.unused = nn.Dense(2, in_units=4)

    def forward(self, x):
        return self.used(x)


def test_stale_gradient_raises_mxnet_message():
    net = TwoHeads()
    net.initialize()
    trainer = Trainer(net.collect_params(), 'sgd')
    with autograd.record():
        loss = L2Loss()(net(nd.array(X)), nd.array(Y))
    loss.backward()
    before = net.used.weight.data().asnumpy()
    with pytest.raises(UserWarning) as err:
        trainer.step(BATCH)
    message = str(err.value)
    assert message.startswith(
        f'Gradient of Parameter `{net.unused.bias.name}` on context cpu(0) '
        f'has not been updated by backward since last `step`.'
    )
    assert (
        'call step with ignore_stale_grad=True to suppress this '
        'warning and skip updating of Parameters with stale gradient'
        in message
    )
    # nothing was updated or marked used by the failed step
    np.testing.assert_array_equal(net.used.weight.data().asnumpy(), before)
    assert net.used.weight.data()._fresh_grad


def test_ignore_stale_grad_skips_unused_parameters():
    net = TwoHeads()
    net.initialize()
    trainer = Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    unused = net.unused.weight.data().asnumpy()
    used = net.used.weight.data().asnumpy()
    with autograd.record():
        loss = L2Loss()(net(nd.array(X)), nd.array(Y))
    loss.backward()
    trainer.step(BATCH, ignore_stale_grad=True)
    np.testing.assert_array_equal(net.unused.weight.data().asnumpy(), unused)
    assert not np.array_equal(net.used.weight.data().asnumpy(), used)
    # the used gradients are now stale too: a second step must complain
    with pytest.raises(UserWarning, match='has not been updated'):
        trainer.step(BATCH)
    after = net.used.weight.data().asnumpy()
    trainer.step(BATCH, ignore_stale_grad=True)  # nothing fresh: no-op
    np.testing.assert_array_equal(net.used.weight.data().asnumpy(), after)


def test_null_grad_req_parameters_are_skipped():
    net = make_net()
    net.weight.grad_req = 'null'
    trainer = Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    train_step(net, trainer)
    np.testing.assert_allclose(params_of(net)[0], W0.astype(np.float32))


# -- split form: allreduce_grads + update --------------------------------


def test_allreduce_grads_then_update_equals_step():
    net_a, net_b = make_net(), make_net()
    trainer_a = Trainer(
        net_a.collect_params(), 'sgd', {'learning_rate': 0.1, 'momentum': 0.9}
    )
    trainer_b = Trainer(
        net_b.collect_params(), 'sgd', {'learning_rate': 0.1, 'momentum': 0.9}
    )
    for _ in range(2):
        train_step(net_a, trainer_a)
        with autograd.record():
            loss = L2Loss()(net_b(nd.array(X)), nd.array(Y))
        loss.backward()
        trainer_b.allreduce_grads()
        trainer_b.update(BATCH)
    for a, b in zip(params_of(net_a), params_of(net_b)):
        np.testing.assert_array_equal(a, b)


# -- several devices ----------------------------------------------------------

CTXS = [mx.cpu(0), mx.cpu(1)]


def train_data_parallel(trainer, net, steps=3):
    loss_fn = SoftmaxCrossEntropyLoss()
    rng = np.random.RandomState(3)
    for _ in range(steps):
        x = nd.array(rng.normal(size=(8, 4)))
        y = nd.array(rng.randint(0, 2, size=(8,)))
        xs, ys = split_and_load(x, CTXS), split_and_load(y, CTXS)
        with autograd.record():
            losses = [loss_fn(net(a), b) for a, b in zip(xs, ys)]
        for loss in losses:
            loss.backward()
        trainer.step(8)


def train_single(optimizer, optimizer_params, steps=3):
    net = make_net()
    trainer = Trainer(net.collect_params(), optimizer, optimizer_params)
    loss_fn = SoftmaxCrossEntropyLoss()
    rng = np.random.RandomState(3)
    for _ in range(steps):
        x = nd.array(rng.normal(size=(8, 4)))
        y = nd.array(rng.randint(0, 2, size=(8,)))
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(8)
    return params_of(net)


@pytest.mark.parametrize(
    'optimizer,optimizer_params,kvstore,on_kv',
    [
        (
            'sgd',
            {'learning_rate': 0.5, 'momentum': 0.9, 'wd': 0.01},
            'device',
            None,
        ),
        ('sgd', {'learning_rate': 0.5}, 'local', False),
        ('adam', {'learning_rate': 0.05}, 'device', None),
        ('adam', {'learning_rate': 0.05}, 'local', True),
        ('adam', {'learning_rate': 0.05}, 'kvstore-object', True),
    ],
)
def test_replicas_stay_identical_and_match_one_device(
    optimizer, optimizer_params, kvstore, on_kv
):
    if kvstore == 'kvstore-object':
        kvstore = mx.kvstore.create('device')
    net = make_net(CTXS)
    trainer = Trainer(
        net.collect_params(),
        optimizer,
        optimizer_params,
        kvstore=kvstore,
        update_on_kvstore=on_kv,
    )
    train_data_parallel(trainer, net)
    for param in (net.weight, net.bias):
        copies = [a.asnumpy() for a in param.list_data()]
        assert [a.context for a in param.list_data()] == CTXS
        np.testing.assert_array_equal(copies[0], copies[1])
    want = train_single(optimizer, optimizer_params)
    for param, w in zip((net.weight, net.bias), want):
        np.testing.assert_allclose(
            param.data(mx.cpu(1)).asnumpy(), w, rtol=1e-5, atol=1e-6
        )


def test_allreduce_writes_the_sum_to_every_device():
    net = make_net(CTXS)
    trainer = Trainer(net.collect_params(), 'sgd')
    xs = split_and_load(nd.array(X), CTXS)
    ys = split_and_load(nd.array(Y), CTXS)
    with autograd.record():
        losses = [L2Loss()(net(a), b) for a, b in zip(xs, ys)]
    for loss in losses:
        loss.backward()
    trainer.allreduce_grads()
    dw, _ = gradients(W0, B0)
    for g in net.weight.list_grad():
        np.testing.assert_allclose(g.asnumpy(), dw, rtol=1e-5, atol=1e-6)


def test_no_kvstore_means_no_allreduce():
    net = make_net(CTXS)
    trainer = Trainer(net.collect_params(), 'sgd', kvstore=None)
    xs = split_and_load(nd.array(X), CTXS)
    ys = split_and_load(nd.array(Y), CTXS)
    with autograd.record():
        losses = [L2Loss()(net(a), b) for a, b in zip(xs, ys)]
    for loss in losses:
        loss.backward()
    trainer.allreduce_grads()
    g0, g1 = (g.asnumpy() for g in net.weight.list_grad())
    assert not np.allclose(g0, g1)


def test_update_on_kvstore_needs_no_aggregating_optimizer():
    net = make_net(CTXS)
    with pytest.raises(ValueError, match='aggregate_num'):
        Trainer(net.collect_params(), 'sgd', update_on_kvstore=True)
    trainer = Trainer(net.collect_params(), 'adam', update_on_kvstore=True)
    with pytest.raises(AssertionError, match='update_on_kvstore'):
        trainer.allreduce_grads()


def test_dist_kvstore_outside_a_launcher_is_one_worker(monkeypatch):
    from dlbook.kvstore import _mpi

    for var in (
        'PMI_SIZE',
        'PMI_RANK',
        'OMPI_COMM_WORLD_SIZE',
        'PMIX_RANK',
        'SLURM_STEP_NUM_TASKS',
    ):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(_mpi, '_warned_single', False)
    net = make_net(CTXS)
    with pytest.warns(UserWarning, match='1 worker'):
        trainer = Trainer(net.collect_params(), 'adam', kvstore='dist_sync')
    # MXNet: a dist store runs the optimizer unless aggregate_num > 1
    assert trainer._kvstore.type == 'dist_sync'
    assert trainer._update_on_kvstore


def test_2bit_compression_with_several_devices():
    # MXNet 1.9.1 gives [[0.9, 0.9]] on both devices: each device's
    # gradient [1, 2] is sent as [0.5, 0.5] (threshold
    # 0.5); the sum over 2 devices is [1, 1]; SGD lr 0.1 moves 1 -> 0.9.
    from dlbook import autograd, gluon

    net = gluon.nn.Dense(1, in_units=2, use_bias=False)
    net.initialize(mx.init.One(), ctx=CTXS)
    trainer = Trainer(
        net.collect_params(),
        'sgd',
        {'learning_rate': 0.1},
        compression_params={'type': '2bit', 'threshold': 0.5},
    )
    with autograd.record():
        ys = [net(mx.nd.array([[1, 2]], ctx=c)) for c in CTXS]
    for y in ys:
        y.backward()
    trainer.step(1)
    for c in CTXS:
        np.testing.assert_allclose(
            net.weight.data(c).asnumpy(), [[0.9, 0.9]], rtol=1e-6
        )


# -- context and initialization errors -------------------------------------


def test_uninitialized_parameters_raise():
    net = nn.Dense(2, in_units=4)
    with pytest.raises(DLBookError, match='has not been initialized'):
        Trainer(net.collect_params(), 'sgd')


def test_parameters_on_different_contexts_raise():
    a = nn.Dense(2, in_units=4)
    a.initialize(ctx=mx.cpu(0))
    b = nn.Dense(2, in_units=4)
    b.initialize(ctx=CTXS)
    params = a.collect_params()
    params.update(b.collect_params())
    with pytest.raises(DLBookError, match='same set of contexts'):
        Trainer(params, 'sgd')


def test_parameters_moved_after_trainer_creation_keep_training():
    # As MXNet 1.9.1 (which re-creates its kvstore): reset_ctx after the
    # Trainer was made does not stop training; the step equals that of a
    # Trainer created after the move, momentum carried over.
    nets, trainers = [make_net(), make_net()], []
    for net in nets:
        trainers.append(
            Trainer(
                net.collect_params(),
                'sgd',
                {'learning_rate': 0.1, 'momentum': 0.9},
            )
        )
        with autograd.record():
            loss = net(nd.array(X)).sum()
        loss.backward()
        trainers[-1].step(BATCH)
        net.collect_params().reset_ctx(CTXS)
    fresh = Trainer(
        nets[1].collect_params(),
        'sgd',
        {'learning_rate': 0.1, 'momentum': 0.9},
    )
    fresh._updaters[0].states = trainers[1]._updaters[0].states
    fresh._updaters[0].states_synced = dict.fromkeys(
        fresh._updaters[0].states, False
    )
    fresh._updaters[1].states = {
        k: v.copyto(CTXS[1]) for k, v in fresh._updaters[0].states.items()
    }
    fresh._updaters[1].states_synced = dict.fromkeys(
        fresh._updaters[1].states, True
    )
    for net, trainer in zip(nets, (trainers[0], fresh)):
        x = split_and_load(nd.array(X), CTXS)
        with autograd.record():
            losses = [net(part).sum() for part in x]
        for loss in losses:
            loss.backward()
        trainer.step(BATCH)
    for p0, p1 in zip(
        nets[0].collect_params().values(), nets[1].collect_params().values()
    ):
        assert p0.list_ctx() == CTXS
        for a, b in zip(p0.list_data(), p1.list_data()):
            np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6)


def test_deferred_parameters_are_fine_after_the_first_forward():
    net = nn.Dense(2)
    net.initialize()
    trainer = Trainer(net.collect_params(), 'sgd')
    with autograd.record():
        loss = L2Loss()(net(nd.array(X)), nd.array(Y))
    loss.backward()
    trainer.step(BATCH)
    assert net.weight.shape == (2, 4)


# -- saving and loading states ------------------------------------------------


@pytest.mark.parametrize(
    'optimizer,optimizer_params',
    [
        ('sgd', {'learning_rate': 0.1, 'momentum': 0.9}),
        ('adam', {'learning_rate': 0.01}),
    ],
)
def test_save_load_states_round_trip(tmp_path, optimizer, optimizer_params):
    net = make_net()
    trainer = Trainer(net.collect_params(), optimizer, optimizer_params)
    for _ in range(2):
        train_step(net, trainer)
    fname = str(tmp_path / 'trainer.states')
    trainer.save_states(fname)
    saved_w, saved_b = params_of(net)
    train_step(net, trainer)
    want = params_of(net)

    # never a pickle: a zip (.npz) archive read without pickle support
    with open(fname, 'rb') as f:
        assert f.read(2) == b'PK'
    assert os.listdir(tmp_path) == ['trainer.states']  # no temporary left

    other = make_net()
    other.weight.set_data(nd.array(saved_w))
    other.bias.set_data(nd.array(saved_b))
    trainer2 = Trainer(
        other.collect_params(), optimizer, {'learning_rate': 123.0}
    )
    trainer2.load_states(fname)
    assert trainer2.learning_rate == optimizer_params['learning_rate']
    assert trainer2.optimizer.param_dict[0] is other.bias
    train_step(other, trainer2)
    for a, b in zip(params_of(other), want):
        np.testing.assert_array_equal(a, b)


def test_save_load_states_with_several_devices(tmp_path):
    net = make_net(CTXS)
    trainer = Trainer(
        net.collect_params(), 'sgd', {'learning_rate': 0.1, 'momentum': 0.9}
    )
    train_data_parallel(trainer, net, steps=1)
    fname = str(tmp_path / 'multi.states')
    trainer.save_states(fname)
    trainer.load_states(fname)
    train_data_parallel(trainer, net, steps=1)
    w0, w1 = (a.asnumpy() for a in net.weight.list_data())
    np.testing.assert_array_equal(w0, w1)
