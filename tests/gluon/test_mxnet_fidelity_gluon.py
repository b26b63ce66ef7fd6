"""Gluon details compared with MXNet 1.9.1 (expected values printed by
MXNet 1.9.1 for the same code)."""

import warnings

import numpy as np
import pytest

import dlbook as mx
from dlbook import nd
from dlbook.gluon import nn


class OptionalInput(mx.gluon.HybridBlock):
    def hybrid_forward(self, F, x, extra=None):
        return x * 2 if extra is None else x + extra


class ListInput(mx.gluon.HybridBlock):
    def hybrid_forward(self, F, xs):
        return F.add_n(*xs)


@pytest.mark.parametrize('hybridize', [False, True])
def test_hybrid_forward_with_a_list_argument(hybridize):
    net = ListInput()
    if hybridize:
        net.hybridize()
    x = nd.ones((2,))
    x.attach_grad()
    with mx.autograd.record():
        y = net([x, nd.ones((2,)) * 3])
    y.backward()
    # MXNet 1.9.1: [4.0, 4.0]
    assert y.asnumpy().tolist() == [4.0, 4.0]
    assert x.grad.asnumpy().tolist() == [1.0, 1.0]


def test_hybrid_forward_with_an_optional_none_argument():
    net = OptionalInput()
    # MXNet 1.9.1: [2.0, 2.0] and [2.0, 2.0]
    assert net(nd.ones((2,))).asnumpy().tolist() == [2.0, 2.0]
    assert net(nd.ones((2,)), nd.ones((2,))).asnumpy().tolist() == [2.0, 2.0]
    net.hybridize()
    assert net(nd.ones((2,))).asnumpy().tolist() == [2.0, 2.0]
    # MXNet 1.9.1 refuses a different argument structure once traced
    with pytest.raises(Exception):
        net(nd.ones((2,)), nd.ones((2,)))


def test_sharing_parameters_with_deferred_shapes():
    a = nn.Dense(5, prefix='a_')
    a.initialize()
    b = nn.Dense(5, params=a.params)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        b.initialize()
    y = b(nd.ones((2, 3)))
    # MXNet 1.9.1: ((5, 3), True, (2, 5), (5, 3))
    assert (a.weight.shape, b.weight is a.weight, y.shape) == (
        (5, 3),
        True,
        (2, 5),
    )


def test_save_parameters_deduplicate(tmp_path):
    def build():
        first = nn.Dense(2, in_units=3, prefix='a_')
        net = nn.Sequential()
        net.add(first)
        net.add(nn.Dense(2, in_units=3, params=first.params))
        return net

    net = build()
    net.initialize()
    fname = str(tmp_path / 'net.params')
    net.save_parameters(fname, deduplicate=True)
    # MXNet 1.9.1 keeps the last name of a shared parameter
    assert sorted(nd.load(fname)) == ['1.bias', '1.weight']
    net.save_parameters(str(tmp_path / 'all.params'))
    assert sorted(nd.load(str(tmp_path / 'all.params'))) == [
        '0.bias',
        '0.weight',
        '1.bias',
        '1.weight',
    ]
    other = build()
    other.load_parameters(fname)
    np.testing.assert_array_equal(
        other[0].weight.data().asnumpy(), net[0].weight.data().asnumpy()
    )


def test_sequential_of_hybrid_blocks_warns_when_hybridized():
    net = nn.Sequential()
    net.add(nn.Dense(2), nn.Dense(3))
    with pytest.warns(UserWarning) as caught:
        net.hybridize()
    # MXNet 1.9.1's message
    assert str(caught[0].message) == (
        f"All children of this Sequential layer '{net.prefix}' are "
        f"HybridBlocks. Consider using HybridSequential for the best "
        f"performance."
    )


def test_trainer_states_round_trip_before_and_after_a_step(tmp_path):
    net = nn.Dense(2, in_units=3)
    net.initialize()
    trainer = mx.gluon.Trainer(
        net.collect_params(), 'adam', {'learning_rate': 0.1}
    )
    fname = str(tmp_path / 'trainer.states')
    trainer.save_states(fname)
    trainer.load_states(fname)
    with mx.autograd.record():
        loss = net(nd.ones((1, 3))).sum()
    loss.backward()
    trainer.step(1)
    trainer.save_states(fname)
    again = mx.gluon.Trainer(
        net.collect_params(), 'adam', {'learning_rate': 0.1}
    )
    again.load_states(fname)
    # MXNet 1.9.1: (0.1, 1)
    assert (again.learning_rate, again._optimizer.num_update) == (0.1, 1)
