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


def test_load_parameters_with_a_later_shape_mismatch_changes_nothing(
        tmp_path):
    # Mistake: load a file saved from a network whose LAST layer differs.
    src, dst = _net(second=5), _net(second=3)
    fname = str(tmp_path / 'net.params')
    src.save_parameters(fname)
    before = _values(dst)
    with pytest.raises(DLBookError, match=re.escape(
            "Failed loading Parameter 'net_dense1_weight' from saved params: "
            "shape incompatible expected (3, 4) vs saved (5, 4)")):
        dst.load_parameters(fname)
    for old, new in zip(before, _values(dst)):
        np.testing.assert_array_equal(old, new)   # first layer untouched


def test_load_parameters_with_a_later_dtype_mismatch_changes_nothing(
        tmp_path):
    src, dst = _net(), _net()
    src[1].cast('float64')
    fname = str(tmp_path / 'net.params')
    src.save_parameters(fname)
    before = _values(dst)
    with pytest.raises(DLBookError, match=re.escape(
            "Failed loading Parameter 'net_dense1_weight' from saved params: "
            "dtype incompatible expected float32 vs saved float64. Set "
            "cast_dtype=True to cast the dtype of saved params.")):
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
    with pytest.raises(DLBookError, match=re.escape(
            "Parameter 'net_dense9_weight' loaded from file '" + fname +
            "' is not present in ParameterDict")):
        net.collect_params().load(fname)
    for old, new in zip(before, _values(net)):
        np.testing.assert_array_equal(old, new)


def _trained_trainer(net):
    trainer = Trainer(net.collect_params(), 'sgd',
                      {'learning_rate': 0.1, 'momentum': 0.9})
    with autograd.record():
        loss = net(nd.ones((2, 2))).sum()
    loss.backward()
    trainer.step(2)
    return trainer


def test_trainer_load_states_of_another_network_changes_nothing(tmp_path):
    fname = str(tmp_path / 'other.states')
    _trained_trainer(_net(second=5)).save_states(fname)
    trainer = _trained_trainer(_net(second=3))
    before = {k: v.asnumpy().copy()
              for k, v in trainer._updaters[0].states.items()}
    with pytest.raises(DLBookError, match=re.escape(
            f"cannot load optimizer states file '{fname}': the state of "
            f"weight index 2 ('net_dense1_bias') has shape (5,) but the "
            f"weight has shape (3,); was it saved for another network?")):
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
    with pytest.raises(DLBookError, match=re.escape(
            f"cannot read optimizer states file '{fname}': this is not a "
            f"dlbook states file")):
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
