"""Gluon misuse: loading a file that does not fit changes nothing, and
the error names the parameter, the shapes and the file."""

import re

import numpy as np
import pytest

import dlbook as mx
from dlbook import autograd, nd
from dlbook.base import DLBookError
from dlbook.gluon import Trainer, nn


def _net(second=3):
    net = nn.HybridSequential(prefix='net_')
    with net.name_scope():
        net.add(nn.Dense(4, in_units=2), nn.Dense(second, in_units=4))
    net.initialize()
    return net


def _values(net):
    return [p.data().asnumpy().copy() for p in net.collect_params().values()]


def test_load_parameters_with_a_later_shape_mismatch_changes_nothing(tmp_path):
    # Mistake: load a file saved from a network whose LAST layer differs.
    src, dst = _net(second=5), _net(second=3)
    fname = str(tmp_path / 'net.params')
    src.save_parameters(fname)
    before = _values(dst)
    with pytest.raises(
        DLBookError,
        match=re.escape(
            "Failed loading Parameter 'net_dense1_weight' from saved params: "
            "shape incompatible expected (3, 4) vs saved (5, 4)"
        ),
    ):
        dst.load_parameters(fname)
    for old, new in zip(before, _values(dst)):
        np.testing.assert_array_equal(old, new)  # first layer untouched


def test_load_parameters_with_a_later_dtype_mismatch_changes_nothing(tmp_path):
    src, dst = _net(), _net()
    src[1].cast('float64')
    fname = str(tmp_path / 'net.params')
    src.save_parameters(fname)
    before = _values(dst)
    with pytest.raises(
        DLBookError,
        match=re.escape(
            "Failed loading Parameter 'net_dense1_weight' from saved params: "
            "dtype incompatible expected float32 vs saved float64. Set "
            "cast_dtype=True to cast the dtype of saved params."
        ),
    ):
        dst.load_parameters(fname)
    for old, new in zip(before, _values(dst)):
        np.testing.assert_array_equal(old, new)


def test_legacy_load_with_an_extra_name_changes_nothing(tmp_path):
    # Mistake: a file with full names holding one parameter too many.
    net = _net()
    fname = str(tmp_path / 'legacy.params')
    arrays = {k: v.data() for k, v in _net().collect_params().items()}
    arrays['net_dense9_weight'] = nd.ones((1,))
    nd.save(fname, arrays)
    before = _values(net)
    with pytest.raises(
        DLBookError,
        match=re.escape(
            "Parameter 'net_dense9_weight' loaded from file '"
            + fname
            + "' is not present in ParameterDict"
        ),
    ):
        net.collect_params().load(fname)
    for old, new in zip(before, _values(net)):
        np.testing.assert_array_equal(old, new)


def _trained_trainer(net):
    trainer = Trainer(
        net.collect_params(), 'sgd', {'learning_rate': 0.1, 'momentum': 0.9}
    )
    with autograd.record():
        loss = net(nd.ones((2, 2))).sum()
    loss.backward()
    trainer.step(2)
    return trainer


def test_trainer_load_states_of_another_network_changes_nothing(tmp_path):
    fname = str(tmp_path / 'other.states')
    _trained_trainer(_net(second=5)).save_states(fname)
    trainer = _trained_trainer(_net(second=3))
    before = {
        k: v.asnumpy().copy() for k, v in trainer._updaters[0].states.items()
    }
    with pytest.raises(
        DLBookError,
        match=re.escape(
            f"cannot load optimizer states file '{fname}': the state of "
            f"weight index 2 ('net_dense1_bias') has shape (5,) but the "
            f"weight has shape (3,); was it saved for another network?"
        ),
    ):
        trainer.load_states(fname)
    after = trainer._updaters[0].states
    assert sorted(after) == sorted(before)
    for k, v in before.items():
        np.testing.assert_array_equal(after[k].asnumpy(), v)


def test_trainer_load_states_of_a_damaged_file_names_it(tmp_path):
    fname = str(tmp_path / 'bad.states')
    with open(fname, 'wb') as f:
        f.write(b'PK\x03\x04 not really a zip')
    trainer = _trained_trainer(_net())
    with pytest.raises(
        DLBookError,
        match=re.escape(
            f"cannot read optimizer states file '{fname}': this is not a "
            f"dlbook states file"
        ),
    ):
        trainer.load_states(fname)


def test_trainer_keeps_training_after_reset_ctx():
    # MXNet 1.9.1 re-creates its kvstore and goes on training.
    net = _net()
    trainer = _trained_trainer(net)
    net.collect_params().reset_ctx(mx.cpu(1))
    with autograd.record():
        loss = net(nd.ones((2, 2), ctx=mx.cpu(1))).sum()
    loss.backward()
    trainer.step(2)
    assert net[0].weight.list_ctx() == [mx.cpu(1)]


# -- arguments MXNet 1.9.1 checks with an ``assert`` (UsageError is also an
#    AssertionError) ---------------------------------------------------------


def _usage_error(message, fn, *args, **kwargs):
    from dlbook.base import UsageError

    with pytest.raises(UsageError, match=f'^{re.escape(message)}$') as info:
        fn(*args, **kwargs)
    assert isinstance(info.value, AssertionError)


def test_trainer_with_an_optimizer_instance_and_optimizer_params():
    net = _net()
    _usage_error(
        "optimizer_params must be None if optimizer is an instance of "
        "Optimizer instead of str, got {'learning_rate': 0.1}: set them on "
        "the Optimizer (mx.optimizer.SGD(learning_rate=0.1)) or pass "
        "Trainer(params, 'sgd', {'learning_rate': 0.1}).",
        Trainer,
        net.collect_params(),
        mx.optimizer.SGD(),
        {'learning_rate': 0.1},
    )


@pytest.mark.parametrize('method', ['allreduce_grads', 'update'])
def test_trainer_allreduce_or_update_when_the_kvstore_updates(method):
    net = nn.Dense(2, in_units=3)
    net.initialize(ctx=[mx.cpu(0), mx.cpu(1)])  # a kvstore needs 2 devices
    trainer = Trainer(
        net.collect_params(), 'adam', kvstore='local', update_on_kvstore=True
    )
    _usage_error(
        f'{method}() when parameters are updated on kvstore is not '
        f'supported. Try setting `update_on_kvstore` to False when '
        f'creating trainer.',
        getattr(trainer, method),
        *([1] if method == 'update' else []),
    )


def test_loss_with_a_non_numeric_weight():
    # MXNet 1.9.1: AssertionError "weight must be a number" (L1Loss)
    _usage_error(
        "weight must be a number, got str 'a'; per-sample weights "
        "go in sample_weight when calling the loss.",
        mx.gluon.loss.L1Loss(weight='a'),
        nd.ones((2, 1)),
        nd.ones((2, 1)),
    )


@pytest.mark.parametrize(
    'kwargs, message',
    [
        (
            {'layout': 'NCT'},
            "Only 'NTC' and 'TNC' layouts for pred are supported. Got: NCT",
        ),
        (
            {'label_layout': 'NX'},
            "Only 'NT' and 'TN' layouts for label are supported. Got: NX",
        ),
    ],
    ids=['layout', 'label_layout'],
)
def test_ctc_loss_with_an_unknown_layout(kwargs, message):
    _usage_error(message, mx.gluon.loss.CTCLoss, **kwargs)


@pytest.mark.parametrize(
    'make, message',
    [
        (
            lambda v: v.SqueezeNet(1.1),
            "Unsupported SqueezeNet version 1.1: '1.0' or '1.1' expected (a "
            "string).",
        ),
        (
            lambda v: v.VGG([1, 2], [64]),
            'VGG: layers and filters must have the same length (one count of conv '
            'layers and one channel count per stage), got 2 layers [1, 2] and 1 '
            'filters [64].',
        ),
        (
            lambda v: v.ResNetV2(v.BasicBlockV2, [2, 2], [64, 64]),
            'ResNetV2: channels needs one entry more than layers (the stem and then '
            'one per stage), got 2 layers [2, 2] and 2 channels [64, 64].',
        ),
        (
            lambda v: v.get_resnet(1, 19),
            'Invalid number of layers: 19. Options are [18, 34, 50, 101, 152].',
        ),
        (
            lambda v: v.get_resnet(3, 18),
            'Invalid resnet version: 3. Options are 1 and 2.',
        ),
    ],
    ids=[
        'squeezenet float version',
        'vgg',
        'resnet stages',
        'resnet depth',
        'resnet version',
    ],
)
def test_model_zoo_arguments(make, message):
    _usage_error(message, make, mx.gluon.model_zoo.vision)
