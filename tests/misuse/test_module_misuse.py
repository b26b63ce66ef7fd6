"""Module misuse: calls out of order say what to call first; a checkpoint
that does not fit changes nothing."""

import re

import numpy as np
import pytest

import dlbook as mx
from dlbook import nd
from dlbook.base import DLBookError
from dlbook.module.base_module import ModuleUsageError


def _module(hidden=3, bind=True):
    data = mx.sym.var('data')
    net = mx.sym.FullyConnected(data, num_hidden=4, name='fc1')
    net = mx.sym.FullyConnected(net, num_hidden=hidden, name='fc2')
    net = mx.sym.SoftmaxOutput(net, name='softmax')
    mod = mx.mod.Module(net, context=mx.cpu())
    if bind:
        mod.bind(
            data_shapes=[('data', (2, 5))],
            label_shapes=[('softmax_label', (2,))],
        )
        mod.init_params()
    return mod


def test_forward_before_bind_says_what_to_call():
    # MXNet 1.9.1 raises a bare AssertionError here.
    mod = _module(bind=False)
    batch = mx.io.DataBatch([nd.ones((2, 5))], [nd.zeros((2,))])
    with pytest.raises(
        ModuleUsageError,
        match=re.escape(
            'Module.forward() was called too early: call bind(data_shapes='
            '..., label_shapes=...), then init_params() (or set_params()) '
            'first'
        ),
    ):
        mod.forward(batch)
    with pytest.raises(AssertionError):  # still an AssertionError
        mod.forward(batch)


def test_update_before_init_optimizer():
    mod = _module()
    with pytest.raises(
        ModuleUsageError,
        match=re.escape(
            'Module.update() was called too early: call init_optimizer() first'
        ),
    ):
        mod.update()


def test_input_grads_without_inputs_need_grad():
    mod = _module()
    with pytest.raises(
        ModuleUsageError,
        match=re.escape(
            'Module.get_input_grads() was called too early: call bind(..., '
            'inputs_need_grad=True, force_rebind=True) first'
        ),
    ):
        mod.get_input_grads()


def test_load_params_with_a_later_shape_mismatch_changes_nothing(tmp_path):
    fname = str(tmp_path / 'other.params')
    _module(hidden=7).save_params(fname)
    mod = _module(hidden=3)
    before = {k: v.asnumpy().copy() for k, v in mod.get_params()[0].items()}
    with pytest.raises(
        ValueError,
        match=re.escape(
            'init_params: fc2_bias has shape (3,) in the bound module but '
            '(7,) in the given parameters; was the checkpoint saved from '
            'another network?'
        ),
    ):
        mod.load_params(fname)
    for k, v in mod.get_params()[0].items():
        np.testing.assert_array_equal(v.asnumpy(), before[k])


def test_set_params_missing_a_name_changes_nothing():
    mod = _module()
    args, auxs = mod.get_params()
    before = {k: v.asnumpy().copy() for k, v in args.items()}
    given = {k: nd.ones(v.shape) for k, v in args.items() if k != 'fc2_bias'}
    with pytest.raises(
        RuntimeError,
        match=re.escape(
            'fc2_bias is not presented: the given parameters have no value '
            'for it (pass allow_missing=True to initialize it instead)'
        ),
    ):
        mod.set_params(given, auxs)
    for k, v in mod.get_params()[0].items():
        np.testing.assert_array_equal(v.asnumpy(), before[k])


def test_load_optimizer_states_of_another_network(tmp_path):
    fname = str(tmp_path / 'other.states')
    other = _module(hidden=7)
    other.init_optimizer(optimizer='sgd', optimizer_params={'momentum': 0.9})
    batch = mx.io.DataBatch([nd.ones((2, 5))], [nd.zeros((2,))])
    other.forward_backward(batch)
    other.update()
    other.save_optimizer_states(fname)
    mod = _module(hidden=3)
    mod.init_optimizer(optimizer='sgd', optimizer_params={'momentum': 0.9})
    with pytest.raises(
        DLBookError,
        match=re.escape(
            f"cannot load optimizer states file '{fname}': the state of "
            f"weight index "
        ),
    ):
        mod.load_optimizer_states(fname)
    assert mod._updater.states == {}
