"""Pending inputs (deferred shapes) and ``settle_shapes``, the one place
their shapes are settled, on each path that settles them."""

import pytest

from dlbook import nd
from dlbook.base import DLBookError
from dlbook.gluon import nn
from dlbook.gluon.parameter import DeferredParameter
from dlbook.ndarray import pending
from dlbook.ndarray.pending import Pending, settle_shapes


class _Slot(Pending):
    def __init__(self, name, shape):
        self.name, self.shape, self.settled = name, shape, None

    def settle(self, shape):
        self.settled = shape


def test_partial_settles_only_known_shapes():
    a, b = _Slot('a', (3, 0)), _Slot('b', (0,))
    settle_shapes(
        'graph', [nd.ones((2,)), a, b], [(2,), (3, 4), (0,)], partial=True
    )
    assert (a.settled, b.settled) == ((3, 4), None)


def test_eager_raises_naming_every_pending_input_and_the_operator():
    a, b = _Slot('w', (3, 0)), _Slot('v', (0,))
    with pytest.raises(DLBookError, match=r"for 'w', 'v' in operator 'Op'"):
        settle_shapes('Op', [a, b], [(3, 4), None])


def test_gluon_deferred_parameter_is_a_pending_input():
    # the eager front end recognises it by type, not by a method name
    assert issubclass(DeferredParameter, Pending)


@pytest.mark.parametrize('hybridize', [False, True])
def test_each_path_settles_through_settle_shapes(monkeypatch, hybridize):
    seen = []
    real = pending.settle_shapes

    def spy(where, inputs, shapes, partial=False):
        seen.append(partial)
        return real(where, inputs, shapes, partial)

    monkeypatch.setattr(pending, 'settle_shapes', spy)
    monkeypatch.setattr('dlbook.gluon.cached_op.settle_shapes', spy)
    net = nn.HybridSequential()
    net.add(nn.Dense(5, activation='relu'), nn.Dense(3))
    net.initialize()
    if hybridize:
        net.hybridize()
    out = net(nd.ones((2, 7)))
    assert out.shape == (2, 3)
    assert net[0].weight.shape == (5, 7) and net[1].weight.shape == (3, 5)
    # eager: one call per Dense layer; hybridized: one for the whole graph
    assert seen == ([True] if hybridize else [False, False])
