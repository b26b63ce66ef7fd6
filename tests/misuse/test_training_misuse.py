"""Misuse of the training machinery (optimizers, learning-rate schedules,
initializers, metrics, ``create``/``register``): each case names the
mistake and the exact message.  MXNet 1.9.1 fails an ``assert`` in each
case, so dlbook raises ``UsageError``, also an ``AssertionError``."""

import re

import pytest

import dlbook as mx
from dlbook import nd
from dlbook.base import UsageError


def _raises(message, fn, *args, **kwargs):
    with pytest.raises(UsageError, match=f'^{re.escape(message)}$') as info:
        fn(*args, **kwargs)
    assert isinstance(info.value, AssertionError)


# -- optimizers and learning-rate schedules -----------------------------------


def test_optimizer_with_a_list_as_param_idx2name():
    _raises(
        "param_idx2name should be a dict of param indexes to names, got "
        "list: {0: 'fc1_weight', 1: 'fc1_bias'}.",
        mx.optimizer.SGD,
        param_idx2name=['fc1_weight'],
    )


def test_register_something_that_is_not_an_optimizer_class():
    _raises(
        'Optimizer.register takes a class (a subclass of Optimizer), got '
        'int 3; use it as the decorator @mx.optimizer.register.',
        mx.optimizer.Optimizer.register,
        3,
    )


@pytest.mark.parametrize(
    'make, message',
    [
        (
            lambda: mx.lr_scheduler.FactorScheduler(step=2, warmup_steps=1.5),
            'warmup_steps must be an int (a number of updates), got float 1.5.',
        ),
        (
            lambda: mx.lr_scheduler.MultiFactorScheduler(step=3),
            'MultiFactorScheduler: step must be a non-empty list of update counts, '
            'got 3; for one step use FactorScheduler.',
        ),
        (
            lambda: mx.lr_scheduler.MultiFactorScheduler(step=[]),
            'MultiFactorScheduler: step must be a non-empty list of update counts, '
            'got []; for one step use FactorScheduler.',
        ),
        (
            lambda: mx.lr_scheduler.PolyScheduler(max_update=2.5),
            'max_update must be an int (a number of updates), got float 2.5.',
        ),
        (
            lambda: mx.lr_scheduler.CosineScheduler(max_update=2.5),
            'max_update must be an int (a number of updates), got float 2.5.',
        ),
        (
            lambda: mx.lr_scheduler.FactorScheduler(
                step=2, warmup_steps=2
            ).get_warmup_lr(5),
            'get_warmup_lr(5) is only for updates before warmup_steps=2; call the '
            'scheduler itself: scheduler(num_update).',
        ),
    ],
    ids=[
        'float warmup_steps',
        'int step',
        'empty step',
        'poly max_update',
        'cosine max_update',
        'get_warmup_lr after warmup',
    ],
)
def test_learning_rate_schedule_arguments(make, message):
    _raises(message, make)


# -- initializers and the create/register registries --------------------------


def test_load_initializer_from_a_list():
    _raises(
        'Load needs a dict of name -> NDArray (what nd.load gives for a '
        'saved dict) or a file name, got list.',
        mx.init.Load,
        [1],
    )


def test_load_initializer_with_a_shape_mismatch():
    init = mx.init.Load({'w': nd.ones((2,))})
    _raises(
        'Parameter w cannot be initialized from loading. Shape mismatch, '
        'target (3,) vs loaded (2,)',
        init,
        'w',
        nd.zeros((3,)),
    )


def test_load_initializer_without_a_default_for_a_missing_name():
    init = mx.init.Load({'w': nd.ones((2,))})
    _raises(
        'Cannot Initialize v. Not found in loaded param and no default '
        'Initializer is provided: pass default_init=mx.init.Uniform() (or '
        'another).',
        init,
        'v',
        nd.zeros((3,)),
    )


def test_mixed_with_fewer_initializers_than_patterns():
    _raises(
        'Mixed needs one initializer per pattern, got 2 patterns and 1 '
        'initializers.',
        mx.init.Mixed,
        ['a', 'b'],
        [mx.init.Zero()],
    )


def test_spatial_transformer_loc_bias_of_the_wrong_size():
    # MXNet 1.9.1 (legacy string name): a bare AssertionError
    with pytest.warns(DeprecationWarning):
        _raises(
            "stn_loc_bias: a loc bias (a spatial transformer's affine "
            "parameters) needs 6 values, got shape (5,).",
            mx.init.Uniform(),
            'stn_loc_bias',
            nd.zeros((5,)),
        )


def test_register_a_class_that_is_not_an_initializer():
    _raises(
        "Can only register subclass of Initializer, got <class 'int'>.",
        mx.init.register,
        int,
    )


@pytest.mark.parametrize(
    'args, message',
    [
        (
            (mx.init.Zero(), 1),
            'initializer is already an instance. Additional '
            'arguments are invalid: pass them to its constructor instead.',
        ),
        ((3,), 'initializer must be of string type, got int 3.'),
        (
            ('["zero", {}]', 1),
            'initializer: a JSON description (\'["zero", {}]\') '
            'already holds the arguments; additional arguments are invalid.',
        ),
    ],
    ids=['instance + args', 'number', 'json + args'],
)
def test_create_initializer_misuse(args, message):
    _raises(message, mx.init.create, *args)


def test_create_an_unregistered_metric():
    with pytest.raises(
        UsageError,
        match=re.escape(
            'nope is not registered. Please register with metric.register '
            'first (registered: '
        ),
    ):
        mx.metric.create('nope')


# -- metrics -------------------------------------------------------------------


def test_top_k_accuracy_with_k_one():
    _raises(
        'Please use Accuracy if top_k is no more than 1 (got top_k=1).',
        mx.metric.TopKAccuracy,
        top_k=1,
    )


def test_top_k_accuracy_on_3d_predictions():
    _raises(
        'Predictions should be no more than 2 dims (batch, classes), got '
        'shape (2, 3, 4).',
        mx.metric.TopKAccuracy(top_k=2).update,
        [nd.ones((2,))],
        [nd.ones((2, 3, 4))],
    )


@pytest.mark.parametrize(
    'metric, message',
    [
        (
            mx.metric.CrossEntropy,
            'cross-entropy: 3 labels for 2 predictions '
            '(shape (2, 3)); give one label per prediction row.',
        ),
        (
            mx.metric.NegativeLogLikelihood,
            'nll-loss: 3 labels for 2 predictions '
            '(shape (2, 3)); give one label per prediction row.',
        ),
        (
            lambda: mx.metric.Perplexity(ignore_label=None),
            'shape mismatch: (3,) vs. (2, 3): perplexity needs one label per '
            'prediction row (label size 3, prediction rows 2).',
        ),
    ],
    ids=['CrossEntropy', 'NegativeLogLikelihood', 'Perplexity'],
)
def test_probability_metric_with_more_labels_than_rows(metric, message):
    _raises(message, metric().update, [nd.ones((3,))], [nd.ones((2, 3))])
