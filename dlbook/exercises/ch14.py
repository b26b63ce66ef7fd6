"""Chapter 14 (the Module API): predicting, training, checkpoints, callbacks.

Every check builds a small softmax classifier on random data, so it runs
in well under a second and needs no data set.
"""

import os
import tempfile

import numpy as np

from .. import io, metric, mod, model, nd, sym
from ..context import cpu
from ..initializer import Xavier
from .compare import call, rng
from .registry import exercise
from .result import Failure

NUM_FEATURES, NUM_CLASSES, BATCH = 6, 3, 5


def _symbol():
    data = sym.var('data')
    net = sym.FullyConnected(data, num_hidden=8, name='fc1')
    net = sym.Activation(net, act_type='relu', name='relu1')
    net = sym.FullyConnected(net, num_hidden=NUM_CLASSES, name='fc2')
    return sym.SoftmaxOutput(net, name='softmax')


def _data(seed, n=20, shuffle=False):
    r = rng(seed)
    X = r.normal(size=(n, NUM_FEATURES)).astype(np.float32)
    y = r.randint(0, NUM_CLASSES, size=n).astype(np.float32)
    return io.NDArrayIter(X, y, batch_size=BATCH, shuffle=shuffle), X, y


def _arg_params(seed):
    r = rng(seed)
    return {
        name: nd.array(r.normal(scale=0.5, size=shape))
        for name, shape in zip(*_param_shapes())
    }


def _module(data_iter, seed=0, for_training=True):
    module = mod.Module(_symbol(), context=cpu())
    module.bind(
        data_shapes=data_iter.provide_data,
        label_shapes=data_iter.provide_label,
        for_training=for_training,
    )
    module.init_params(
        initializer=Xavier(),
        arg_params=_arg_params(seed),
        aux_params={},
        allow_missing=False,
        force_init=True,
    )
    return module


def _param_shapes():
    symbol = _symbol()
    shapes, _, _ = symbol.infer_shape(data=(BATCH, NUM_FEATURES))
    pairs = [
        (n, s)
        for n, s in zip(symbol.list_arguments(), shapes)
        if n not in ('data', 'softmax_label')
    ]
    return [n for n, _ in pairs], [s for _, s in pairs]


def _numpy(value, what):
    if hasattr(value, 'asnumpy'):
        return value.asnumpy()
    if isinstance(value, (np.ndarray, list, tuple)):
        return np.asarray(value)
    raise Failure(f'{what} is a {type(value).__name__}; expected an NDArray.')


def _params_of(module):
    arg_params, _ = module.get_params()
    return {name: value.asnumpy() for name, value in arg_params.items()}


# -- predicting classes (worked example) --------------------------------------


@exercise(
    'ch14.predict_classes',
    hint='mod.predict(data_iter) returns the class probabilities, one '
    'row per example; take .argmax(axis=1).',
)
def _predict_classes(student):
    """predict_classes(mod, data_iter): the predicted class of each example."""
    data_iter, X, _ = _data(1400)
    module = _module(data_iter, seed=1401, for_training=False)
    probs = module.predict(data_iter).asnumpy()
    expected = probs.argmax(axis=1)
    data_iter.reset()
    got = call(
        student, module, data_iter, inputs={'data_iter': f'{len(X)} examples'}
    )
    got = _numpy(got, 'the result')
    if got.shape != expected.shape:
        hint = None
        if got.shape == probs.shape:
            hint = 'those are the probabilities; take argmax(axis=1).'
        raise Failure(
            f'the result has shape {got.shape}, expected '
            f'{expected.shape}: one class per example.',
            hint,
        )
    if not np.array_equal(got.astype(np.int64), expected):
        wrong = int((got.astype(np.int64) != expected).sum())
        hint = None
        if np.array_equal(got.astype(np.int64), probs.argmin(axis=1)):
            hint = 'that is the least likely class: use argmax.'
        raise Failure(
            f'{wrong} of {len(expected)} predicted classes '
            f'differ from argmax of mod.predict.',
            hint,
        )
    return f'correct: {len(expected)} classes, as argmax of mod.predict.'


# -- one epoch with the intermediate API --------------------------------------


def _reference_epoch(module, data_iter, eval_metric):
    data_iter.reset()
    for batch in data_iter:
        module.forward(batch, is_train=True)
        module.backward()
        module.update()
        module.update_metric(eval_metric, batch.label)


@exercise(
    'ch14.train_epoch',
    hint='data_iter.reset(); for batch in data_iter: '
    'mod.forward(batch, is_train=True); mod.backward(); '
    'mod.update(); mod.update_metric(metric, batch.label).',
)
def _train_epoch(student):
    """train_epoch(mod, data_iter, metric): one epoch, batch by batch."""
    results = []
    for train in (_reference_epoch, student):
        data_iter, _, _ = _data(1402)
        module = _module(data_iter, seed=1403)
        module.init_optimizer(
            optimizer='sgd', optimizer_params={'learning_rate': 0.1}
        )
        eval_metric = metric.create('acc')
        before = _params_of(module)
        data_iter.reset()
        if train is student:
            call(
                student,
                module,
                data_iter,
                eval_metric,
                inputs={'data_iter': '4 batches of 5 examples'},
            )
        else:
            train(module, data_iter, eval_metric)
        results.append((before, _params_of(module), eval_metric))
    (start, expected, ref_metric), (_, got, student_metric) = results
    changed = [
        name for name in expected if not np.allclose(got[name], start[name])
    ]
    if not changed:
        raise Failure(
            'the parameters did not change.',
            hint='after forward(batch, is_train=True) and '
            'backward(), call mod.update().',
        )
    for name in expected:
        if not np.allclose(got[name], expected[name], rtol=1e-4, atol=1e-5):
            hint = None
            if np.allclose(
                got[name] - start[name],
                (expected[name] - start[name]) * 2,
                rtol=1e-3,
                atol=1e-5,
            ):
                hint = 'twice the expected change: one update per batch.'
            raise Failure(
                f'after one epoch {name} differs from four '
                f'forward/backward/update steps (largest '
                f'difference '
                f'{np.abs(got[name] - expected[name]).max():.3g}'
                f').',
                hint,
            )
    if student_metric.num_inst != ref_metric.num_inst:
        raise Failure(
            f'the metric saw {student_metric.num_inst} examples, '
            f'expected {ref_metric.num_inst}.',
            hint='call mod.update_metric(metric, batch.label) once per batch.',
        )
    return (
        'correct: the same parameters and accuracy as Module.fit would '
        'give for one epoch.'
    )


# -- loading a checkpoint -----------------------------------------------------

LOAD_HINT = (
    'sym, arg_params, aux_params = mx.model.load_checkpoint('
    'prefix, epoch); module = mx.mod.Module(sym); '
    'module.bind(data_shapes=data_shapes, for_training=False); '
    'module.set_params(arg_params, aux_params). Or '
    'mx.mod.Module.load(prefix, epoch), then bind.'
)


def _load_hint(err):
    if 'is not presented' in str(err):
        return (
            'with label_names=None the label counts as a parameter, '
            'and no checkpoint has it: keep the default label_names, '
            'or pass allow_missing=True to set_params.'
        )
    return LOAD_HINT


@exercise('ch14.load_module', hint=LOAD_HINT)
def _load_module(student):
    """load_module(prefix, epoch, data_shapes): a Module ready to predict."""
    data_iter, _, _ = _data(1404)
    module = _module(data_iter, seed=1405)
    expected = module.predict(data_iter).asnumpy()
    with tempfile.TemporaryDirectory() as folder:
        prefix = os.path.join(folder, 'net')
        arg_params, aux_params = module.get_params()
        model.save_checkpoint(prefix, 3, module.symbol, arg_params, aux_params)
        loaded = call(
            student,
            prefix,
            3,
            data_iter.provide_data,
            inputs={'prefix': 'net', 'epoch': 3},
            hint=_load_hint,
        )
    if not isinstance(loaded, mod.BaseModule):
        raise Failure(
            f'load_module returned a {type(loaded).__name__}; '
            f'expected a Module.'
        )
    if not getattr(loaded, 'binded', False):
        raise Failure(
            'the Module is not bound.',
            hint='call bind(data_shapes=data_shapes, '
            'for_training=False) before predicting.',
        )
    if not getattr(loaded, 'params_initialized', False):
        raise Failure(
            'the Module has no parameters.',
            hint='set_params(arg_params, aux_params) with the '
            'values from load_checkpoint.',
        )
    data_iter.reset()
    try:
        got = loaded.predict(data_iter).asnumpy()
    except Exception as err:  # noqa: BLE001 - explain it
        raise Failure(
            f'predict failed on the loaded Module: {type(err).__name__}: {err}'
        ) from None
    if got.shape != expected.shape or not np.allclose(
        got, expected, atol=1e-5
    ):
        raise Failure(
            'the loaded Module predicts differently from the one '
            'that was saved.',
            hint='did you load the parameters of the right '
            'epoch, and pass them to set_params?',
        )
    return 'correct: the loaded Module predicts exactly as the saved one.'


# -- a batch-end callback -----------------------------------------------------


class _Reference:
    def __init__(self):
        self.records = []

    def __call__(self, param):
        _, value = param.eval_metric.get()
        self.records.append((param.epoch, param.nbatch, float(value)))


@exercise(
    'ch14.batch_logger',
    hint='in __init__: self.records = []; in __call__(self, param): '
    'name, value = param.eval_metric.get(); '
    'self.records.append((param.epoch, param.nbatch, value)).',
)
def _batch_logger(student):
    """MetricLogger: a batch_end_callback recording the running metric."""
    if not isinstance(student, type):
        raise Failure(
            f'expected a class, got {student!r:.60}.',
            hint='pass the class itself: check(id, MetricLogger).',
        )
    logger = call(student, inputs={})
    if not callable(logger):
        raise Failure(
            'an instance must be callable: define __call__(self, param).'
        )
    reference = _Reference()
    data_iter, _, _ = _data(1406, shuffle=False)
    module = mod.Module(_symbol(), context=cpu())
    try:
        module.fit(
            data_iter,
            num_epoch=2,
            eval_metric='acc',
            optimizer_params={'learning_rate': 0.1},
            batch_end_callback=[reference, logger],
            arg_params=_arg_params(1407),
            aux_params={},
        )
    except Exception as err:  # noqa: BLE001 - explain it
        raise Failure(
            f'Module.fit with your callback raised {type(err).__name__}: {err}'
        ) from None
    records = getattr(logger, 'records', None)
    if records is None:
        raise Failure('the logger has no attribute records.')
    expected = reference.records
    if len(records) != len(expected):
        raise Failure(
            f'records has {len(records)} entries after 2 epochs '
            f'of 4 batches; expected {len(expected)}.'
        )
    for got, want in zip(records, expected):
        try:
            epoch, nbatch, value = got
            ok = (int(epoch), int(nbatch)) == want[:2] and np.isclose(
                float(value), want[2]
            )
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise Failure(
                f'record {got!r:.80} should be {want}: '
                f'(epoch, batch number, running accuracy).'
            )
    return (
        'correct: one (epoch, batch, accuracy) record per batch, as '
        'Speedometer reads them.'
    )
