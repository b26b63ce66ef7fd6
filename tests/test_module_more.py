"""SequentialModule, PythonModule and PythonLossModule.

Expected values were printed by MXNet 1.9.1 running the same code (fixed
starting weights, no shuffling), so they check the whole chain: forward
through two modules, backward through the input gradients, one update
per module, and the metric taken from the module with the labels.
"""

import logging

import numpy as np
import pytest

import dlbook as mx
from dlbook.module.base_module import ModuleUsageError

pytestmark = pytest.mark.filterwarnings('ignore:Data provided by label')


def data():
    rng = np.random.RandomState(0)
    X = rng.uniform(-1, 1, (8, 4)).astype('float32')
    y = (X[:, 0] > 0).astype('float32')
    W1 = rng.uniform(-0.5, 0.5, (3, 4)).astype('float32')
    W2 = rng.uniform(-0.5, 0.5, (2, 3)).astype('float32')
    return X, y, W1, W2


def fc(name, num_hidden):
    return mx.sym.FullyConnected(
        mx.sym.var('data'), num_hidden=num_hidden, name=name
    )


def two_modules():
    seq = mx.mod.SequentialModule()
    seq.add(mx.mod.Module(fc('fc1', 3), label_names=None))
    head = mx.sym.SoftmaxOutput(fc('fc2', 2), name='softmax')
    return seq.add(mx.mod.Module(head), take_labels=True, auto_wiring=True)


def rounded(params):
    return {k: np.round(v.asnumpy(), 5) for k, v in params.items()}


def test_sequential_fit_matches_mxnet(caplog):
    X, y, W1, W2 = data()
    seq = two_modules()
    it = mx.io.NDArrayIter(X, y, 4)
    args = {
        'fc1_weight': mx.nd.array(W1),
        'fc1_bias': mx.nd.zeros(3),
        'fc2_weight': mx.nd.array(W2),
        'fc2_bias': mx.nd.zeros(2),
    }
    with caplog.at_level(logging.INFO):
        seq.fit(
            it,
            num_epoch=2,
            arg_params=args,
            optimizer_params={'learning_rate': 0.5},
        )
    train_lines = [m for m in caplog.messages if 'Train' in m]
    assert train_lines == [
        'Epoch[0] Train-accuracy=0.625000',
        'Epoch[1] Train-accuracy=0.750000',
    ]
    got = rounded(seq.get_params()[0])
    np.testing.assert_allclose(
        got['fc1_weight'],
        [
            [-0.32655, 0.06687, -0.45375, 0.26622],
            [-0.06856, 0.1149, 0.46109, 0.2778],
            [-0.0399, -0.0661, 0.18715, -0.48895],
        ],
        atol=2e-5,
    )
    np.testing.assert_allclose(
        got['fc1_bias'], [-0.10098, -0.06658, 0.02864], atol=2e-5
    )
    np.testing.assert_allclose(
        got['fc2_weight'],
        [[0.25507, 0.22134, -0.3453], [-0.45938, -0.23527, -0.0806]],
        atol=2e-5,
    )
    np.testing.assert_allclose(got['fc2_bias'], [-0.18618, 0.18618], atol=2e-5)
    assert seq.score(it, 'acc') == [('accuracy', 0.875)]
    pred = seq.predict(it).asnumpy()
    assert pred.shape == (8, 2)
    np.testing.assert_allclose(
        pred[:2], [[0.38934, 0.61066], [0.49021, 0.50979]], atol=2e-5
    )


def test_sequential_names_and_shapes():
    seq = two_modules()
    assert seq.data_names == ['data']
    assert seq.output_names == ['softmax_output']
    seq.bind([('data', (4, 4))], [('softmax_label', (4,))])
    assert seq.output_shapes == [('softmax_output', (4, 2))]
    assert seq.label_shapes == [('softmax_label', (4,))]  # as given
    # the second module gets the first one's gradients as inputs
    assert seq._modules[1].inputs_need_grad
    assert not seq._modules[0].inputs_need_grad


def test_sequential_without_label_taker_has_no_label_shapes():
    seq = mx.mod.SequentialModule()
    seq.add(mx.mod.Module(fc('fc1', 3), label_names=None))
    seq.bind([('data', (4, 4))], [('softmax_label', (4,))])
    assert seq.label_shapes is None


def test_sequential_misuse():
    with pytest.raises(AssertionError, match='Unknown meta "typo", a typo'):
        mx.mod.SequentialModule().add(
            mx.mod.Module(fc('a', 2), label_names=None), typo=1
        )
    with pytest.raises(ModuleUsageError, match='empty SequentialModule'):
        mx.mod.SequentialModule().bind([('data', (4, 4))])
    seq = mx.mod.SequentialModule()
    seq.add(mx.mod.Module(fc('fc1', 4), label_names=None))
    seq.add(mx.mod.Module(fc('fc1', 4), label_names=None), auto_wiring=True)
    seq.bind([('data', (2, 4))], for_training=False)
    with pytest.raises(AssertionError, match='Duplicated parameter names'):
        seq.init_params()
    with pytest.raises(ModuleUsageError, match='init_params'):
        two_modules().forward(None)


def softmax_ce_grad(scores, labels):
    prob = mx.nd.softmax(scores).asnumpy()
    prob[np.arange(len(prob)), labels.asnumpy().astype(int)] -= 1
    return prob


def test_python_loss_module_trains_like_mxnet():
    X, y, _, W2 = data()
    seq = mx.mod.SequentialModule()
    seq.add(mx.mod.Module(fc('fc3', 2), label_names=None))
    seq.add(
        mx.mod.PythonLossModule(grad_func=softmax_ce_grad),
        take_labels=True,
        auto_wiring=True,
    )
    w = W2[:, :3].repeat(2, 1)[:, :4]
    seq.fit(
        mx.io.NDArrayIter(X, y, 4),
        num_epoch=2,
        arg_params={'fc3_weight': mx.nd.array(w), 'fc3_bias': mx.nd.zeros(2)},
        optimizer_params={'learning_rate': 0.5},
    )
    got = rounded(seq.get_params()[0])
    np.testing.assert_allclose(got['fc3_bias'], [-0.2794, 0.2794], atol=2e-5)
    np.testing.assert_allclose(
        got['fc3_weight'],
        [
            [-0.33493, 0.12306, 0.16142, 0.37331],
            [0.13062, -0.32736, -0.17535, -0.38724],
        ],
        atol=2e-5,
    )
    assert seq.output_shapes == [('pyloss_output', (4, 2))]


def test_python_loss_module_alone():
    loss = mx.mod.PythonLossModule(name='l', grad_func=lambda s, lab: s - 1)
    assert loss.data_names == ['data'] and loss.output_names == ['l_output']
    loss.bind([('data', (2, 3))], [('softmax_label', (2,))])
    assert loss.output_shapes == [('l_output', (2, 3))]
    scores = mx.nd.ones((2, 3))
    loss.forward(mx.io.DataBatch([scores], [mx.nd.zeros(2)]), is_train=True)
    assert loss.get_outputs()[0] is scores
    loss.backward()
    assert loss.get_input_grads()[0].asnumpy().tolist() == [[0.0] * 3] * 2
    assert loss.get_params() == ({}, {})
    with pytest.raises(AssertionError, match='out_grads should be None'):
        loss.backward(out_grads=[scores])
    with pytest.raises(NotImplementedError):
        mx.mod.PythonLossModule()._backward_impl()


def test_python_module_subclass():
    class Double(mx.mod.PythonModule):
        def _compute_output_shapes(self):
            return [('double_output', self._data_shapes[0][1])]

        def forward(self, data_batch, is_train=None):
            self._out = data_batch.data[0] * 2

        def get_outputs(self, merge_multi_context=True):
            return [self._out]

    mod = Double(('data',), None, ['double_output'])
    mod.bind([('data', (2, 2))], for_training=False)
    assert mod.output_shapes == [('double_output', (2, 2))]
    mod.forward(mx.io.DataBatch([mx.nd.ones((2, 2))]))
    assert mod.get_outputs()[0].asnumpy().tolist() == [[2.0, 2.0]] * 2
    metric = mx.metric.create('acc')
    mod.update_metric(metric, [mx.nd.zeros(2)])  # no labels: ignored
    assert metric.num_inst == 0
    with pytest.raises(AssertionError, match='data_names'):
        mod.bind([('x', (2, 2))], force_rebind=True)
