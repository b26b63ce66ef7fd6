"""``mx.model.FeedForward``, the model API before Module.

The expected log lines, weights and scores were printed by MXNet 1.9.1
running the same code from the same starting weights (unshuffled
iterators): one SGD run, a checkpoint resumed with ``epoch_size``, two
devices against one, and a user-made optimizer without a KVStore.
"""

import logging

import numpy as np
import pytest

import dlbook as mx
from dlbook.model import FeedForward

pytestmark = pytest.mark.filterwarnings(
    'ignore:.*FeedForward has been deprecated',
    'ignore:Calling initializer with init',
)


def setup():
    rng = np.random.RandomState(0)
    X = rng.uniform(-1, 1, (10, 4)).astype('float32')
    y = (X[:, 0] > 0).astype('float32')
    W1 = rng.uniform(-0.5, 0.5, (2, 4)).astype('float32')
    net = mx.sym.SoftmaxOutput(
        mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc1'),
        name='softmax',
    )
    args = {'fc1_weight': mx.nd.array(W1), 'fc1_bias': mx.nd.zeros(2)}
    return X, y, net, args


def check_weights(model, weight, bias):
    np.testing.assert_allclose(
        model.arg_params['fc1_weight'].asnumpy(), weight, atol=2e-5
    )
    np.testing.assert_allclose(
        model.arg_params['fc1_bias'].asnumpy(), bias, atol=2e-5
    )


def messages(caplog):
    return [m for m in caplog.messages if 'Time cost' not in m]


def test_fit_predict_score_like_mxnet(caplog):
    X, y, net, args = setup()
    it = mx.io.NDArrayIter(X, y, 4)
    with pytest.warns(DeprecationWarning, match='Please use mxnet.mod.Module'):
        model = FeedForward(
            net, num_epoch=2, learning_rate=0.5, arg_params=args
        )
    batches = []
    with caplog.at_level(logging.INFO):
        model.fit(
            it,
            eval_data=it,
            batch_end_callback=lambda p: batches.append((p.epoch, p.nbatch)),
        )
    assert messages(caplog) == [
        'Start training with [cpu(0)]',
        'Epoch[0] Resetting Data Iterator',
        'Epoch[0] Validation-accuracy=0.916667',
        'Epoch[1] Resetting Data Iterator',
        'Epoch[1] Validation-accuracy=0.916667',
    ]
    # nbatch counts from 1 here (Module.fit counts from 0)
    assert batches == [(0, 1), (0, 2), (0, 3), (1, 1), (1, 2), (1, 3)]
    check_weights(
        model,
        [
            [-0.59028, -0.0727, -0.09024, -0.14727],
            [0.61656, 0.18037, -0.00174, -0.66358],
        ],
        [-0.11535, 0.11535],
    )
    # score counts the padded last batch (12 examples for 10)
    assert model.score(it) == pytest.approx(0.9166666666666666)
    assert model.score(it, 'ce') == pytest.approx(0.44975, abs=1e-5)
    prob = model.predict(it)
    assert isinstance(prob, np.ndarray) and prob.shape == (10, 2)
    np.testing.assert_allclose(
        prob[:2], [[0.3943, 0.6057], [0.5733, 0.42667]], atol=1e-4
    )
    out, data, label = model.predict(it, num_batch=2, return_data=True)
    assert (out.shape, data.shape, label.shape) == ((8, 2), (8, 4), (8,))
    np.testing.assert_array_equal(data, X[:8])


def test_numpy_input_and_errors():
    X, y, net, args = setup()
    model = FeedForward(net, num_epoch=1, numpy_batch_size=5, arg_params=args)
    model.fit(X, y.reshape(-1, 1))  # a (n, 1) label is flattened
    assert model.predict(X).shape == (10, 2)
    with pytest.raises(ValueError, match='y must be specified'):
        model.fit(X)
    with pytest.raises(ValueError, match='numbers of data points and labels'):
        model.fit(X, y[:3])
    with pytest.raises(TypeError, match='X must be DataIter'):
        model.fit([1])
    with pytest.raises(ValueError, match='Eval data is NONE'):
        model.fit(X, y, eval_data=(None, y))
    with pytest.raises(ValueError, match='Batch size miss match'):
        model.fit(X, y, eval_data=mx.io.NDArrayIter(X, y, 4))


def test_save_load_resume_with_epoch_size(tmp_path, caplog):
    X, y, net, args = setup()
    it = mx.io.NDArrayIter(X, y, 4)
    model = FeedForward(net, num_epoch=2, learning_rate=0.5, arg_params=args)
    model.fit(it)
    prefix = str(tmp_path / 'ff')
    model.save(prefix)  # epoch defaults to num_epoch
    loaded = FeedForward.load(
        prefix, 2, num_epoch=3, learning_rate=0.5, epoch_size=4
    )
    assert loaded.begin_epoch == 2
    with caplog.at_level(logging.INFO):
        loaded.fit(it, eval_data=it)
    # epoch_size 4 > 3 batches: the iterator is reset inside the epoch
    assert messages(caplog)[-3:] == [
        'Start training with [cpu(0)]',
        'Epoch[2] Resetting Data Iterator',
        'Epoch[2] Validation-accuracy=0.916667',
    ]
    check_weights(
        loaded,
        [
            [-0.77207, -0.1076, -0.18336, 0.01422],
            [0.79834, 0.21527, 0.09137, -0.82507],
        ],
        [-0.21207, 0.21207],
    )


@pytest.mark.parametrize('ctx', [[mx.cpu(0), mx.cpu(1)], mx.cpu(0)])
def test_create_on_one_or_two_devices(ctx):
    X, y, net, args = setup()
    model = FeedForward.create(
        net,
        mx.io.NDArrayIter(X[:8], y[:8], 4),
        num_epoch=1,
        arg_params=args,
        learning_rate=0.1,
        ctx=ctx,
        momentum=0.9,
        wd=0.01,
    )
    check_weights(
        model,
        [
            [-0.20066, -0.06687, 0.19095, -0.39934],
            [0.22686, 0.17423, -0.28267, -0.40916],
        ],
        [-0.03485, 0.03485],
    )


def test_optimizer_object_without_kvstore(caplog):
    X, y, net, args = setup()
    it = mx.io.NDArrayIter(X[:8], y[:8], 4)
    model = FeedForward(
        net,
        num_epoch=1,
        optimizer=mx.optimizer.SGD(learning_rate=0.1, rescale_grad=0.25),
        arg_params=args,
    )
    seen = []
    with caplog.at_level(logging.INFO):
        model.fit(
            it,
            kvstore=None,
            eval_metric='ce',
            eval_data=it,
            epoch_end_callback=lambda e, s, a, x: seen.append((e, sorted(a))),
        )
    assert seen == [(0, ['fc1_bias', 'fc1_weight'])]
    assert 'Epoch[0] Validation-cross-entropy=0.594680' in caplog.messages
    check_weights(
        model,
        [
            [-0.18639, -0.06172, 0.19518, -0.41493],
            [0.21267, 0.16939, -0.28716, -0.39592],
        ],
        [-0.01632, 0.01632],
    )


def test_model_names():
    assert mx.model.BASE_ESTIMATOR in (object,) or mx.model.SKLEARN_INSTALLED
    assert FeedForward._is_data_arg('softmax_label')
    assert not FeedForward._is_data_arg('fc1_weight')
    with pytest.raises(TypeError, match='needs a Symbol'):
        FeedForward(lambda key: None)
