"""The single-process KVStore: init, push (sum), pull, pushpull,
optimizers on the store, states, and the stores that are refused."""

import numpy as np
import pytest

import dlbook as mx
from dlbook import autograd, kvstore, nd
from dlbook import optimizer as opt
from dlbook.base import DLBookError

SHAPE = (2, 3)
CTXS = [mx.cpu(0), mx.cpu(1)]


def devices(ctx):
    """The device under test plus a second one (cpu(1))."""
    return [ctx, mx.cpu(1)]


@pytest.mark.parametrize('name', ['local', 'device', 'nccl'])
def test_create_and_describe(name):
    kv = kvstore.create(name)
    assert isinstance(kv, kvstore.KVStore)
    assert isinstance(kv, kvstore.KVStoreBase)
    assert kv.type == name
    assert kv.rank == 0
    assert kv.num_workers == 1
    assert kv.is_capable(kvstore.KVStoreBase.OPTIMIZER)
    kv.barrier()


def test_default_is_local():
    assert kvstore.create().type == 'local'


@pytest.mark.parametrize('name', ['horovod', 'byteps'])
def test_other_multi_machine_stores_are_refused(name):
    with pytest.raises(DLBookError, match='not provided by dlbook'):
        kvstore.create(name)


@pytest.mark.parametrize(
    'name', ['dist_sync', 'dist_device_sync', 'dist_async']
)
def test_dist_stores_outside_a_launcher_have_one_worker(name, monkeypatch):
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
    with pytest.warns(UserWarning, match='1 worker'):
        kv = kvstore.create(name)
    assert (kv.type, kv.rank, kv.num_workers) == (name, 0, 1)


def test_unknown_store_and_bad_name():
    with pytest.raises(DLBookError, match='Unknown KVStore type'):
        kvstore.create('cloud')
    with pytest.raises(TypeError, match='must be a string'):
        kvstore.create(3)


@pytest.mark.parametrize('key', [3, 'weight'])
def test_init_pull(ctx, key):
    kv = kvstore.create('device')
    kv.init(key, nd.ones(SHAPE, ctx=ctx) * 2)
    out = nd.zeros(SHAPE, ctx=ctx)
    kv.pull(key, out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.full(SHAPE, 2.0))


def test_push_sums_values_from_all_devices(ctx):
    kv = kvstore.create('device')
    kv.init(3, nd.zeros(SHAPE, ctx=ctx))
    kv.push(
        3,
        [nd.ones(SHAPE, ctx=c) * (i + 1) for i, c in enumerate(devices(ctx))],
    )
    outs = [nd.zeros(SHAPE, ctx=c) for c in devices(ctx)]
    kv.pull(3, out=outs)
    for out, c in zip(outs, devices(ctx)):
        assert out.context == c
        np.testing.assert_array_equal(out.asnumpy(), np.full(SHAPE, 3.0))


def test_push_replaces_the_stored_value():
    kv = kvstore.create('local')
    kv.init('a', nd.ones(SHAPE) * 10)
    kv.push('a', nd.ones(SHAPE))
    kv.push('a', nd.ones(SHAPE) * 4)
    out = nd.zeros(SHAPE)
    kv.pull('a', out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.full(SHAPE, 4.0))


def test_stored_value_is_a_copy():
    kv = kvstore.create('device')
    value = nd.ones(SHAPE)
    kv.init(0, value)
    pushed = nd.ones(SHAPE) * 5
    kv.push(0, pushed)
    value[:] = 7
    pushed[:] = 9
    out = nd.zeros(SHAPE)
    kv.pull(0, out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.full(SHAPE, 5.0))


def test_local_store_keeps_values_on_cpu0():
    kv = kvstore.create('local')
    kv.init(0, nd.ones(SHAPE, ctx=mx.cpu(1)))
    assert kv._store[0].context == mx.cpu(0)
    device = kvstore.create('device')
    device.init(0, nd.ones(SHAPE, ctx=mx.cpu(1)))
    assert device._store[0].context == mx.cpu(1)


def test_lists_of_keys():
    kv = kvstore.create('device')
    keys = [5, 7, 9]
    kv.init(keys, [nd.ones(SHAPE) * k for k in keys])
    # one list of values (one per device) per key
    kv.push(keys, [[nd.ones(SHAPE, ctx=c) for c in CTXS]] * len(keys))
    outs = [[nd.zeros(SHAPE, ctx=c) for c in CTXS] for _ in keys]
    kv.pull(keys, out=outs)
    for per_key in outs:
        for out in per_key:
            np.testing.assert_array_equal(out.asnumpy(), np.full(SHAPE, 2.0))
    with pytest.raises(DLBookError, match='3 keys but 2 values'):
        kv.push(keys, [nd.ones(SHAPE)] * 2)


def test_pushpull_writes_back_into_values_or_out():
    kv = kvstore.create('device')
    kv.init(1, nd.zeros(SHAPE))
    grads = [nd.ones(SHAPE, ctx=c) * (i + 1) for i, c in enumerate(CTXS)]
    kv.pushpull(1, grads)
    for g in grads:
        np.testing.assert_array_equal(g.asnumpy(), np.full(SHAPE, 3.0))
    out = nd.zeros(SHAPE, ctx=mx.cpu(1))
    kv.pushpull(1, [nd.ones(SHAPE)], out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.ones(SHAPE))


def test_broadcast_initializes_and_pulls():
    kv = kvstore.create('device')
    outs = [nd.zeros(SHAPE, ctx=c) for c in CTXS]
    kv.broadcast('w', nd.ones(SHAPE) * 6, out=outs)
    for out in outs:
        np.testing.assert_array_equal(out.asnumpy(), np.full(SHAPE, 6.0))


def test_values_with_gradients_are_not_recorded():
    kv = kvstore.create('device')
    x = nd.ones(SHAPE, ctx=mx.cpu(1))
    x.attach_grad()
    kv.init(0, nd.zeros(SHAPE))
    with autograd.record():
        kv.push(0, [x])
    out = nd.zeros(SHAPE)
    kv.pull(0, out=out)
    assert out._node is None


def test_set_optimizer_updates_the_stored_weight(ctx):
    kv = kvstore.create('device')
    weight = np.arange(6.0).reshape(SHAPE)
    kv.init(0, nd.array(weight, ctx=ctx))
    kv.set_optimizer(opt.create('test', rescale_grad=0.5))
    kv.push(0, [nd.ones(SHAPE, ctx=c) for c in devices(ctx)])
    out = nd.zeros(SHAPE, ctx=ctx)
    kv.pull(0, out=out)
    # Test optimizer: weight += rescale_grad * (sum of pushed grads)
    np.testing.assert_allclose(out.asnumpy(), weight + 0.5 * 2)


def test_sgd_on_the_store_matches_the_rule():
    kv = kvstore.create('local')
    weight = np.arange(6.0).reshape(SHAPE)
    kv.init(0, nd.array(weight))
    kv.set_optimizer(opt.SGD(learning_rate=0.1, momentum=0.9, wd=0.01))
    mom = np.zeros(SHAPE)
    for step in range(2):
        grad = np.full(SHAPE, step + 1.0)
        kv.push(0, [nd.array(grad / 2, ctx=c) for c in CTXS])
        mom = 0.9 * mom - 0.1 * 0.01 * weight - 0.1 * grad
        weight = weight + mom
    out = nd.zeros(SHAPE)
    kv.pull(0, out=out)
    np.testing.assert_allclose(out.asnumpy(), weight, rtol=1e-6)


def test_custom_updater():
    kv = kvstore.create('local')
    kv.init(3, nd.ones(SHAPE))
    seen = []

    def update(key, merged, stored):
        seen.append(key)
        stored += merged * 2

    kv._set_updater(update)
    kv.push(3, nd.ones(SHAPE))
    out = nd.zeros(SHAPE)
    kv.pull(3, out=out)
    assert seen == [3]
    np.testing.assert_array_equal(out.asnumpy(), np.full(SHAPE, 3.0))


def test_save_and_load_optimizer_states(tmp_path):
    fname = str(tmp_path / 'kv.states')

    def run(kv, steps):
        for _ in range(steps):
            kv.push(0, nd.ones(SHAPE))
        out = nd.zeros(SHAPE)
        kv.pull(0, out=out)
        return out.asnumpy()

    kv = kvstore.create('local')
    kv.init(0, nd.ones(SHAPE))
    kv.set_optimizer(opt.SGD(learning_rate=0.1, momentum=0.9))
    middle = run(kv, 2)
    kv.save_optimizer_states(fname, dump_optimizer=True)
    want = run(kv, 1)

    other = kvstore.create('local')
    other.init(0, nd.array(middle))
    other.set_optimizer(opt.SGD(learning_rate=0.1, momentum=0.9))
    other.load_optimizer_states(fname)
    np.testing.assert_array_equal(run(other, 1), want)


def test_errors():
    kv = kvstore.create('device')
    with pytest.raises(DLBookError, match='has not been initialized'):
        kv.pull(0, out=nd.zeros(SHAPE))
    kv.init(0, nd.zeros(SHAPE))
    with pytest.raises(DLBookError, match='duplicate init'):
        kv.init(0, nd.zeros(SHAPE))
    with pytest.raises(DLBookError, match=r'shape \(3, 2\)'):
        kv.push(0, nd.zeros((3, 2)))
    with pytest.raises(DLBookError, match='cannot pull'):
        kv.pull(0, out=nd.zeros((6,)))
    with pytest.raises(DLBookError, match='must be int or str'):
        kv.init(1.5, nd.zeros(SHAPE))
    with pytest.raises(DLBookError, match='compression is not supported'):
        kvstore.create('local').set_gradient_compression(
            {'type': '2bit', 'threshold': 0.5}
        )
    with pytest.raises(DLBookError, match='no optimizer'):
        kv.save_optimizer_states('never-written.states')
    with pytest.raises(DLBookError, match='row_ids'):
        kv.row_sparse_pull(0, out=nd.zeros(SHAPE))
