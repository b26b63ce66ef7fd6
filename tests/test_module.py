"""The Module API: fit/score/predict, one hand-checked SGD step, data
parallelism over cpu(0) and cpu(1), fixed parameters, checkpoints,
optimizer states, bucketing and MXNet's log lines."""

import logging
import os
import re

import numpy as np
import pytest

import dlbook as mx
from dlbook import nd, sym
from dlbook.callback import do_checkpoint
from dlbook.io import DataBatch, DataDesc, DataIter, NDArrayIter
from dlbook.model import load_checkpoint, save_checkpoint
from dlbook.module import BucketingModule, Module
from dlbook.module.executor_group import _split_input_slice

CTXS = [mx.cpu(0), mx.cpu(1)]

# MXNet warns about these too: binding without labels, and fit after
# Module.load (parameters already initialized).
pytestmark = [
    pytest.mark.filterwarnings('ignore:Data provided by label_shapes'),
    pytest.mark.filterwarnings('ignore:Parameters already initialized'),
]


# -- fixtures -----------------------------------------------------------------
def blobs(n=400, seed=0):
    """4 Gaussian blobs in 2-D, one class each."""
    rng = np.random.RandomState(seed)
    centers = np.array([[2, 2], [-2, 2], [-2, -2], [2, -2]], 'float32')
    y = rng.randint(0, 4, size=n)
    x = centers[y] + 0.6 * rng.randn(n, 2).astype('float32')
    return x, y.astype('float32')


def mlp(num_hidden=8, num_classes=4):
    data = sym.var('data')
    fc1 = sym.FullyConnected(data, num_hidden=num_hidden, name='fc1')
    act = sym.Activation(fc1, act_type='relu', name='relu1')
    fc2 = sym.FullyConnected(act, num_hidden=num_classes, name='fc2')
    return sym.SoftmaxOutput(fc2, name='softmax')


def fixed_params(num_hidden=8, num_in=2, num_classes=4, seed=1):
    rng = np.random.RandomState(seed)
    return {
        'fc1_weight': nd.array(rng.randn(num_hidden, num_in) * 0.5),
        'fc1_bias': nd.array(rng.randn(num_hidden) * 0.1),
        'fc2_weight': nd.array(rng.randn(num_classes, num_hidden) * 0.5),
        'fc2_bias': nd.array(rng.randn(num_classes) * 0.1),
    }


def numpy_mlp(params, x):
    """Forward pass of :func:`mlp` in float64 NumPy."""
    z1 = x @ params['fc1_weight'].T + params['fc1_bias']
    a1 = np.maximum(z1, 0)
    z2 = a1 @ params['fc2_weight'].T + params['fc2_bias']
    e = np.exp(z2 - z2.max(axis=1, keepdims=True))
    return z1, a1, e / e.sum(axis=1, keepdims=True)


def numpy_grads(params, x, y):
    """Gradients of SoftmaxOutput's loss (summed, not averaged)."""
    z1, a1, prob = numpy_mlp(params, x)
    dz2 = prob.copy()
    dz2[np.arange(len(y)), y.astype(int)] -= 1
    dz1 = (dz2 @ params['fc2_weight']) * (z1 > 0)
    return {
        'fc2_weight': dz2.T @ a1,
        'fc2_bias': dz2.sum(0),
        'fc1_weight': dz1.T @ x,
        'fc1_bias': dz1.sum(0),
    }


def as_numpy(params):
    return {k: v.asnumpy().astype('float64') for k, v in params.items()}


def trained_params(context, x, y, **kwargs):
    """Two epochs of SGD with momentum and weight decay from fixed
    parameters, without shuffling."""
    it = NDArrayIter(x, y, batch_size=20)
    mod = Module(mlp(), context=context, **kwargs)
    mod.fit(
        it,
        num_epoch=2,
        arg_params=fixed_params(),
        optimizer_params={'learning_rate': 0.1, 'momentum': 0.9, 'wd': 0.01},
    )
    return mod


# -- fit, score, predict ------------------------------------------------------
def test_fit_learns_blobs_quickly():
    x, y = blobs()
    train = NDArrayIter(x[:300], y[:300], batch_size=20, shuffle=True)
    val = NDArrayIter(x[300:], y[300:], batch_size=20)
    mod = Module(mlp(16))
    mod.fit(
        train,
        eval_data=val,
        num_epoch=8,
        initializer=mx.init.Xavier(),
        optimizer_params={'learning_rate': 0.1, 'momentum': 0.9},
    )
    ((name, acc),) = mod.score(val, 'acc')
    assert name == 'accuracy'
    assert acc > 0.85


def test_score_matches_manual_accuracy():
    x, y = blobs(50)
    mod = Module(mlp())
    it = NDArrayIter(x, y, batch_size=10)
    mod.bind(it.provide_data, it.provide_label, for_training=False)
    mod.init_params(arg_params=fixed_params())
    _, _, prob = numpy_mlp(as_numpy(fixed_params()), x.astype('float64'))
    expected = np.mean(prob.argmax(1) == y)
    res = mod.score(it, mx.metric.Accuracy())
    assert res[0][0] == 'accuracy'
    assert res[0][1] == pytest.approx(expected)
    assert mod.score(it, ['acc', 'ce'])[1][0] == 'cross-entropy'


def test_predict_strips_padding_and_concatenates():
    x, y = blobs(10)
    it = NDArrayIter(x, y, batch_size=4)  # 3 batches, pad 2
    mod = Module(mlp())
    mod.bind(it.provide_data, it.provide_label, for_training=False)
    mod.init_params(arg_params=fixed_params())
    out = mod.predict(it)
    assert isinstance(out, nd.NDArray) and out.shape == (10, 4)
    _, _, prob = numpy_mlp(as_numpy(fixed_params()), x.astype('float64'))
    np.testing.assert_allclose(out.asnumpy(), prob, rtol=1e-5, atol=1e-6)
    per_batch = mod.predict(it, merge_batches=False)
    assert [b[0].shape[0] for b in per_batch] == [4, 4, 2]
    listed = mod.predict(it, always_output_list=True)
    assert isinstance(listed, list) and listed[0].shape == (10, 4)
    assert len(mod.predict(it, num_batch=1)) == 4
    outs = [(o[0].shape, i) for o, i, _ in mod.iter_predict(it)]
    assert outs == [((4, 4), 0), ((4, 4), 1), ((2, 4), 2)]


def test_predict_an_array():
    x, _ = blobs(4)
    mod = Module(mlp())
    mod.bind([('data', (4, 2))], for_training=False)
    mod.init_params(arg_params=fixed_params())
    out = mod.predict(x)  # a NumPy array
    _, _, prob = numpy_mlp(as_numpy(fixed_params()), x.astype('float64'))
    np.testing.assert_allclose(out.asnumpy(), prob, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('context', [mx.cpu(0), CTXS], ids=['one', 'two'])
def test_forward_reshapes_for_another_batch_size(context):
    x, y = blobs(7)
    mod = Module(mlp(), context=context)
    mod.bind(
        [('data', (10, 2))], [('softmax_label', (10,))], for_training=False
    )
    mod.init_params(arg_params=fixed_params())
    mod.forward(DataBatch([nd.array(x)], [nd.array(y)]))
    assert mod.data_shapes[0].shape == (7, 2)
    assert mod.label_shapes[0].shape == (7,)
    _, _, prob = numpy_mlp(as_numpy(fixed_params()), x.astype('float64'))
    np.testing.assert_allclose(
        mod.get_outputs()[0].asnumpy(), prob, rtol=1e-5, atol=1e-6
    )


def test_names_and_shapes():
    mod = Module(mlp())
    assert mod.data_names == ['data']
    assert mod.label_names == ['softmax_label']
    assert mod.output_names == ['softmax_output']
    mod.bind([('data', (5, 2))], [('softmax_label', (5,))])
    assert mod.data_shapes == [DataDesc('data', (5, 2))]
    assert isinstance(mod.data_shapes[0], DataDesc)
    assert mod.label_shapes[0].shape == (5,)
    assert mod.output_shapes == [('softmax_output', (5, 4))]
    assert mod.symbol is not None
    with pytest.raises(ValueError, match='not found in symbol'):
        Module(mlp(), data_names=['x'])


# -- one step by hand ---------------------------------------------------------
def test_manual_steps_match_numpy_sgd():
    x, y = blobs(6)
    batch = DataBatch([nd.array(x)], [nd.array(y)])
    mod = Module(mlp())
    mod.bind([('data', (6, 2))], [('softmax_label', (6,))])
    mod.init_params(arg_params=fixed_params())
    lr, momentum, wd = 0.1, 0.9, 0.01
    mod.init_optimizer(
        optimizer='sgd',
        optimizer_params=(
            ('learning_rate', lr),
            ('momentum', momentum),
            ('wd', wd),
        ),
    )
    assert mod._optimizer.rescale_grad == pytest.approx(1 / 6)

    w = as_numpy(fixed_params())
    mom = {k: np.zeros_like(v) for k, v in w.items()}
    for _ in range(2):
        mod.forward(batch, is_train=True)
        _, _, prob = numpy_mlp(w, x.astype('float64'))
        np.testing.assert_allclose(
            mod.get_outputs()[0].asnumpy(), prob, rtol=1e-5, atol=1e-6
        )
        mod.backward()
        mod.update()
        grads = numpy_grads(w, x.astype('float64'), y)
        for k in w:
            # The Module convention: no weight decay on biases.
            decay = wd if k.endswith('_weight') else 0.0
            mom[k] = momentum * mom[k] - lr * (grads[k] / 6 + decay * w[k])
            w[k] = w[k] + mom[k]
        got, _ = mod.get_params()
        for k in w:
            np.testing.assert_allclose(
                got[k].asnumpy(), w[k], rtol=1e-5, atol=1e-6, err_msg=k
            )


def test_input_grads_over_two_devices():
    x, y = blobs(6)
    batch = DataBatch([nd.array(x)], [nd.array(y)])
    mod = Module(mlp(), context=CTXS)
    mod.bind(
        [('data', (6, 2))], [('softmax_label', (6,))], inputs_need_grad=True
    )
    mod.init_params(arg_params=fixed_params())
    mod.forward_backward(batch)
    w = as_numpy(fixed_params())
    z1, _, prob = numpy_mlp(w, x.astype('float64'))
    dz2 = prob.copy()
    dz2[np.arange(6), y.astype(int)] -= 1
    dx = ((dz2 @ w['fc2_weight']) * (z1 > 0)) @ w['fc1_weight']
    got = mod.get_input_grads()[0]
    assert got.shape == (6, 2)
    np.testing.assert_allclose(got.asnumpy(), dx, rtol=1e-5, atol=1e-6)


# -- data parallelism ---------------------------------------------------------
def test_split_input_slice():
    assert _split_input_slice(10, [1, 1]) == [slice(0, 5), slice(5, 10)]
    assert _split_input_slice(8, [1, 3]) == [slice(0, 2), slice(2, 8)]
    with pytest.raises(ValueError, match='Too many slices'):
        _split_input_slice(1, [1, 1])


@pytest.mark.parametrize('on_kvstore', ['1', '0'])
def test_two_devices_match_one(monkeypatch, on_kvstore):
    # '1': the store sums the gradients and runs the optimizer;
    # '0': it only sums them, each device runs its own updater.
    monkeypatch.setenv('MXNET_UPDATE_ON_KVSTORE', on_kvstore)
    x, y = blobs(100)
    single, _ = trained_params(mx.cpu(0), x, y).get_params()
    multi_mod = trained_params(CTXS, x, y)
    assert multi_mod._update_on_kvstore == (on_kvstore == '1')
    multi, _ = multi_mod.get_params()
    for k in single:
        np.testing.assert_allclose(
            multi[k].asnumpy(),
            single[k].asnumpy(),
            rtol=1e-5,
            atol=1e-6,
            err_msg=k,
        )
    # Every device holds exactly the same parameters.
    for block in multi_mod._exec_group.param_arrays:
        assert [a.context for a in block] == CTXS
        np.testing.assert_array_equal(block[0].asnumpy(), block[1].asnumpy())


def test_work_load_list_splits_unevenly_and_trains_the_same():
    x, y = blobs(100)
    single, _ = trained_params(mx.cpu(0), x, y).get_params()
    mod = trained_params(CTXS, x, y, work_load_list=[1, 3])
    group = mod._exec_group
    assert group.slices == [slice(0, 5), slice(5, 20)]
    assert [e.arg_dict['data'].shape for e in group.execs] == [(5, 2), (15, 2)]
    multi, _ = mod.get_params()
    for k in single:
        np.testing.assert_allclose(
            multi[k].asnumpy(),
            single[k].asnumpy(),
            rtol=1e-5,
            atol=1e-6,
            err_msg=k,
        )


def test_outputs_merge_over_devices():
    x, y = blobs(8)
    mod = Module(mlp(), context=CTXS)
    mod.bind([('data', (8, 2))], [('softmax_label', (8,))])
    mod.init_params(arg_params=fixed_params())
    mod.forward(DataBatch([nd.array(x)], [nd.array(y)]), is_train=False)
    merged = mod.get_outputs()[0]
    parts = mod.get_outputs(merge_multi_context=False)[0]
    assert [p.shape for p in parts] == [(4, 4), (4, 4)]
    assert [p.context for p in parts] == CTXS
    _, _, prob = numpy_mlp(as_numpy(fixed_params()), x.astype('float64'))
    np.testing.assert_allclose(merged.asnumpy(), prob, rtol=1e-5, atol=1e-6)


# -- fixed parameters ---------------------------------------------------------
def test_fixed_param_names_are_not_updated():
    x, y = blobs(60)
    it = NDArrayIter(x, y, batch_size=20)
    mod = Module(
        mlp(), fixed_param_names=['fc1_weight', 'fc1_bias'], context=CTXS
    )
    mod.fit(
        it,
        num_epoch=2,
        arg_params=fixed_params(),
        optimizer_params={'learning_rate': 0.5, 'wd': 0.1},
    )
    args, _ = mod.get_params()
    start = fixed_params()
    for k in ('fc1_weight', 'fc1_bias'):
        np.testing.assert_array_equal(args[k].asnumpy(), start[k].asnumpy())
    assert not np.allclose(
        args['fc2_weight'].asnumpy(), start['fc2_weight'].asnumpy()
    )
    exe = mod._exec_group.execs[0]
    assert 'fc1_weight' not in exe.grad_dict
    assert 'fc2_weight' in exe.grad_dict
    assert 'data' not in exe.grad_dict


# -- parameters ---------------------------------------------------------------
def test_init_params_missing_and_extra():
    mod = Module(mlp())
    mod.bind([('data', (4, 2))], [('softmax_label', (4,))])
    partial = fixed_params()
    del partial['fc2_bias']
    with pytest.raises(RuntimeError, match='fc2_bias is not presented'):
        mod.init_params(arg_params=partial)
    mod.init_params(mx.init.One(), arg_params=partial, allow_missing=True)
    args, _ = mod.get_params()
    np.testing.assert_array_equal(args['fc2_bias'].asnumpy(), 0)
    np.testing.assert_array_equal(
        args['fc1_weight'].asnumpy(), fixed_params()['fc1_weight'].asnumpy()
    )
    with pytest.warns(UserWarning, match='already initialized'):
        mod.init_params()
    extra = dict(fixed_params(), other=nd.ones((2,)))
    with pytest.raises(ValueError, match='other'):
        mod.set_params(extra, {}, allow_missing=True)
    mod.set_params(extra, {}, allow_missing=True, allow_extra=True)
    bad = dict(fixed_params(), fc1_weight=nd.ones((3, 3)))
    with pytest.raises(ValueError, match='fc1_weight'):
        mod.set_params(bad, {})


def test_default_initializer_by_name():
    mod = Module(mlp())
    mod.bind([('data', (4, 2))], [('softmax_label', (4,))])
    mod.init_params()  # Uniform(0.01)
    args, aux = mod.get_params()
    assert sorted(args) == ['fc1_bias', 'fc1_weight', 'fc2_bias', 'fc2_weight']
    assert aux == {}
    w = args['fc1_weight'].asnumpy()
    assert np.abs(w).max() <= 0.01 and np.abs(w).max() > 0
    np.testing.assert_array_equal(args['fc1_bias'].asnumpy(), 0)


def bn_net():
    data = sym.var('data')
    fc1 = sym.FullyConnected(data, num_hidden=6, name='fc1')
    bn = sym.BatchNorm(fc1, name='bn1')
    act = sym.Activation(bn, act_type='relu')
    fc2 = sym.FullyConnected(act, num_hidden=4, name='fc2')
    return sym.SoftmaxOutput(fc2, name='softmax')


def test_batchnorm_aux_states_train_and_checkpoint(tmp_path):
    x, y = blobs(80)
    it = NDArrayIter(x, y, batch_size=20)
    mod = Module(bn_net(), context=CTXS)
    mod.fit(it, num_epoch=1, initializer=mx.init.Xavier())
    args, aux = mod.get_params()
    assert sorted(aux) == ['bn1_moving_mean', 'bn1_moving_var']
    assert not np.allclose(aux['bn1_moving_mean'].asnumpy(), 0)
    # After fit's epoch end the devices share the averaged statistics.
    for block in mod._exec_group.aux_arrays:
        np.testing.assert_array_equal(block[0].asnumpy(), block[1].asnumpy())
    prefix = str(tmp_path / 'bn')
    mod.save_checkpoint(prefix, 1)
    saved = nd.load(prefix + '-0001.params')
    assert 'aux:bn1_moving_mean' in saved and 'arg:bn1_gamma' in saved
    _, args2, aux2 = load_checkpoint(prefix, 1)
    np.testing.assert_array_equal(
        aux2['bn1_moving_var'].asnumpy(), aux['bn1_moving_var'].asnumpy()
    )


# -- checkpoints --------------------------------------------------------------
def test_checkpoint_round_trip_predicts_identically(tmp_path, caplog):
    x, y = blobs(50)
    it = NDArrayIter(x, y, batch_size=10)
    mod = Module(mlp())
    mod.fit(
        it,
        num_epoch=2,
        initializer=mx.init.Xavier(),
        optimizer_params={'learning_rate': 0.1},
    )
    expected = mod.predict(it).asnumpy()
    prefix = str(tmp_path / 'mlp')
    with caplog.at_level(logging.INFO):
        mod.save_checkpoint(prefix, 3)
    assert sorted(os.listdir(tmp_path)) == [
        'mlp-0003.params',
        'mlp-symbol.json',
    ]
    assert f'Saved checkpoint to "{prefix}-0003.params"' in caplog.messages
    saved = nd.load(prefix + '-0003.params')
    assert sorted(saved) == [
        'arg:fc1_bias',
        'arg:fc1_weight',
        'arg:fc2_bias',
        'arg:fc2_weight',
    ]

    loaded = Module.load(prefix, 3)
    loaded.bind(it.provide_data, for_training=False)
    np.testing.assert_array_equal(loaded.predict(it).asnumpy(), expected)

    net, args, auxs = load_checkpoint(prefix, 3)
    assert net.list_arguments() == mlp().list_arguments()
    assert all(v.context == mx.cpu(0) for v in args.values())
    other = Module(net, context=CTXS)
    other.bind(it.provide_data, it.provide_label, for_training=False)
    other.set_params(args, auxs)
    np.testing.assert_allclose(
        other.predict(it).asnumpy(), expected, rtol=1e-6, atol=1e-7
    )


def test_model_save_checkpoint_from_gpu_free_copies(tmp_path, caplog):
    prefix = str(tmp_path / 'm')
    args = {'w': nd.ones((2, 2), ctx=mx.cpu(1))}
    with caplog.at_level(logging.INFO):
        save_checkpoint(prefix, 12, mlp(), args, {'s': nd.zeros((3,))})
    assert (
        caplog.records[-1].getMessage()
        == f'Saved checkpoint to "{prefix}-0012.params"'
    )
    saved = nd.load(prefix + '-0012.params')
    assert sorted(saved) == ['arg:w', 'aux:s']
    assert saved['arg:w'].context == mx.cpu(0)
    assert mx.model.load_params(prefix, 12)[1]['s'].shape == (3,)
    # No temporary files are left behind by the atomic writes.
    assert sorted(os.listdir(tmp_path)) == ['m-0012.params', 'm-symbol.json']


def test_do_checkpoint_numbers_epochs_from_one(tmp_path):
    x, y = blobs(40)
    it = NDArrayIter(x, y, batch_size=10)
    prefix = str(tmp_path / 'run')
    mod = Module(mlp())
    mod.fit(it, num_epoch=4, epoch_end_callback=[do_checkpoint(prefix, 2)])
    assert sorted(os.listdir(tmp_path)) == [
        'run-0002.params',
        'run-0004.params',
        'run-symbol.json',
    ]
    _, args, _ = load_checkpoint(prefix, 4)
    final, _ = mod.get_params()
    for k in final:
        np.testing.assert_array_equal(args[k].asnumpy(), final[k].asnumpy())


@pytest.mark.parametrize('context', [mx.cpu(0), CTXS], ids=['one', 'two'])
def test_optimizer_states_resume_training(tmp_path, context):
    x, y = blobs(60)
    it = NDArrayIter(x, y, batch_size=20)
    opt_params = {'learning_rate': 0.1, 'momentum': 0.9}
    mod = Module(mlp(), context=context)
    mod.fit(
        it, num_epoch=1, arg_params=fixed_params(), optimizer_params=opt_params
    )
    prefix = str(tmp_path / 'ck')
    mod.save_checkpoint(prefix, 1, save_optimizer_states=True)
    with open(prefix + '-0001.states', 'rb') as f:
        assert f.read(2) == b'PK'  # dlbook's npz format, no pickle
    resumed = Module.load(
        prefix, 1, load_optimizer_states=True, context=context
    )
    resumed.fit(it, num_epoch=2, begin_epoch=1, optimizer_params=opt_params)
    mod.fit(it, num_epoch=2, begin_epoch=1, optimizer_params=opt_params)
    a, _ = mod.get_params()
    b, _ = resumed.get_params()
    for k in a:
        np.testing.assert_allclose(
            a[k].asnumpy(), b[k].asnumpy(), rtol=1e-6, atol=1e-7, err_msg=k
        )


# -- logging ------------------------------------------------------------------
def test_fit_log_lines(caplog):
    x, y = blobs(40)
    train = NDArrayIter(x, y, batch_size=10)
    val = NDArrayIter(x, y, batch_size=10)
    mod = Module(mlp())
    with caplog.at_level(logging.INFO):
        mod.fit(train, eval_data=val, num_epoch=2, eval_metric=['acc', 'ce'])
    lines = [r.getMessage() for r in caplog.records]
    patterns = [
        r'Epoch\[0\] Train-accuracy=\d\.\d{6}',
        r'Epoch\[0\] Train-cross-entropy=\d+\.\d{6}',
        r'Epoch\[0\] Time cost=\d+\.\d{3}',
        r'Epoch\[0\] Validation-accuracy=\d\.\d{6}',
        r'Epoch\[0\] Validation-cross-entropy=\d+\.\d{6}',
        r'Epoch\[1\] Train-accuracy=\d\.\d{6}',
    ]
    assert len(lines) == 10
    for pattern, line in zip(patterns, lines):
        assert re.fullmatch(pattern, line), (pattern, line)
    assert all(r.name == 'root' for r in caplog.records)


def test_fit_batch_end_callbacks_see_batches():
    x, y = blobs(40)
    seen = []
    mod = Module(mlp())
    mod.fit(
        NDArrayIter(x, y, batch_size=10),
        num_epoch=2,
        batch_end_callback=lambda p: seen.append((p.epoch, p.nbatch)),
    )
    assert seen == [(e, b) for e in range(2) for b in range(4)]


# -- bucketing ----------------------------------------------------------------
class _BucketIter(DataIter):
    """Batches of (batch, length, 2) sequences, alternating lengths."""

    def __init__(self, lengths, batch_size=10, seed=0):
        super().__init__(batch_size)
        rng = np.random.RandomState(seed)
        self.batches = []
        for length in lengths:
            y = rng.randint(0, 4, size=batch_size)
            x, _ = blobs(batch_size, seed=int(rng.randint(1000)))
            centers = np.array([[2, 2], [-2, 2], [-2, -2], [2, -2]])
            seq = centers[y][:, None, :] + 0.5 * rng.randn(
                batch_size, length, 2
            )
            self.batches.append(
                (length, seq.astype('float32'), y.astype('float32'))
            )
        self.default_bucket_key = max(lengths)
        self.provide_data = [
            DataDesc('data', (batch_size, self.default_bucket_key, 2))
        ]
        self.provide_label = [DataDesc('softmax_label', (batch_size,))]
        self.cursor = 0

    def reset(self):
        self.cursor = 0

    def next(self):
        if self.cursor == len(self.batches):
            raise StopIteration
        length, x, y = self.batches[self.cursor]
        self.cursor += 1
        return DataBatch(
            [nd.array(x)],
            [nd.array(y)],
            pad=0,
            bucket_key=length,
            provide_data=[DataDesc('data', x.shape)],
            provide_label=[DataDesc('softmax_label', y.shape)],
        )


def _sym_gen(length):
    data = sym.var('data')
    pooled = sym.mean(data, axis=1)
    fc = sym.FullyConnected(pooled, num_hidden=4, name='fc')
    return sym.SoftmaxOutput(fc, name='softmax'), ('data',), ('softmax_label',)


def test_bucketing_module_shares_parameters():
    it = _BucketIter([5, 3, 5, 3, 2] * 4)
    mod = BucketingModule(_sym_gen, default_bucket_key=5, context=CTXS)
    mod.fit(
        it,
        num_epoch=4,
        initializer=mx.init.Xavier(),
        optimizer_params={'learning_rate': 0.2},
    )
    assert sorted(mod._buckets) == [2, 3, 5]
    weights = {
        k: m._exec_group.param_arrays[0][0] for k, m in mod._buckets.items()
    }
    assert weights[2] is weights[5] and weights[3] is weights[5]
    ((_, acc),) = mod.score(it, 'acc')
    assert acc > 0.85
    args, _ = mod.get_params()
    assert sorted(args) == ['fc_bias', 'fc_weight']


def _bn_sym_gen(length):
    pooled = sym.mean(sym.var('data'), axis=1)
    bn = sym.BatchNorm(pooled, name='bn')
    fc = sym.FullyConnected(bn, num_hidden=4, name='fc')
    return sym.SoftmaxOutput(fc, name='softmax'), ('data',), ('softmax_label',)


def test_bucketing_module_shares_auxiliary_states():
    it = _BucketIter([4, 2, 4, 2])
    mod = BucketingModule(_bn_sym_gen, default_bucket_key=4)
    mod.fit(it, num_epoch=1, initializer=mx.init.Xavier())
    means = [m._exec_group.aux_arrays[0][0] for m in mod._buckets.values()]
    assert len(means) == 2 and means[0] is means[1]
    _, aux = mod.get_params()
    assert sorted(aux) == ['bn_moving_mean', 'bn_moving_var']
