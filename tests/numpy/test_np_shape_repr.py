"""Unknown sizes under NumPy shape semantics: MXNet 1.9.1 writes them -1
(0 is a valid size under ``npx.set_np()``), legacy mode writes 0.

Expected strings recorded from MXNet 1.9.1 (``Parameter``, ``Block`` and
``collect_params()`` reprs before and after the first forward pass).
"""

import numpy as onp
import pytest

from dlbook import gluon, nd, np, npx
from dlbook.gluon import nn, rnn


@pytest.fixture(params=[False, True], ids=['legacy', 'np'])
def np_shape(request):
    if request.param:
        npx.set_np()
    yield request.param
    npx.reset_np()


def test_deferred_parameter_shapes_and_reprs(np_shape):
    u = '-1' if np_shape else '0'
    dense = nn.Dense(10)
    assert dense.weight.shape == (10, int(u))
    assert (
        repr(dense.weight)
        == f'Parameter {dense.weight.name} (shape=(10, {u}), dtype=float32)'
    )
    assert (
        repr(dense.bias)
        == f'Parameter {dense.bias.name} (shape=(10,), dtype=float32)'
    )
    conv = nn.Conv2D(4, 3)
    assert repr(conv.weight) == (
        f'Parameter {conv.weight.name} (shape=(4, {u}, 3, 3), '
        f"dtype=<class 'numpy.float32'>)"
    )
    bn = nn.BatchNorm()
    assert repr(bn.running_mean) == (
        f'Parameter {bn.running_mean.name} (shape=({u},), '
        f"dtype=<class 'numpy.float32'>)"
    )


def test_block_reprs(np_shape):
    unknown = '-1' if np_shape else 'None'
    net = nn.Sequential()
    net.add(nn.Dense(10), nn.Conv2D(4, 3), nn.BatchNorm(), nn.Embedding(5, 3))
    assert repr(net) == (
        'Sequential(\n'
        f'  (0): Dense({unknown} -> 10, linear)\n'
        f'  (1): Conv2D({unknown} -> 4, kernel_size=(3, 3), stride=(1, 1))\n'
        '  (2): BatchNorm(axis=1, eps=1e-05, momentum=0.9, fix_gamma=False, '
        f'use_global_stats=False, in_channels={unknown})\n'
        '  (3): Embedding(5 -> 3, float32)\n'
        ')'
    )
    assert repr(rnn.LSTM(8)) == f'LSTM({unknown} -> 8, TNC)'
    assert repr(nn.Dense(10, in_units=4)) == 'Dense(4 -> 10, linear)'


def test_collect_params_repr_then_shapes_filled_in(np_shape):
    u = '-1' if np_shape else '0'
    lstm = rnn.LSTM(8)
    prefix = lstm.prefix
    assert repr(lstm.collect_params()) == (
        f'{prefix} (\n'
        f'  Parameter {prefix}l0_i2h_weight (shape=(32, {u}), '
        'dtype=float32)\n'
        f'  Parameter {prefix}l0_h2h_weight (shape=(32, 8), dtype=float32)\n'
        f'  Parameter {prefix}l0_i2h_bias (shape=(32,), dtype=float32)\n'
        f'  Parameter {prefix}l0_h2h_bias (shape=(32,), dtype=float32)\n'
        ')'
    )
    net = nn.Dense(3)
    net.initialize()
    assert net.weight.shape == (3, -1 if np_shape else 0)
    x = onp.ones((2, 5), dtype='float32')
    net(np.array(x) if np_shape else nd.array(x))
    assert net.weight.shape == (3, 5)
    assert repr(net) == 'Dense(5 -> 3, linear)'


def test_given_unknown_sizes_are_one_state(np_shape):
    """A Parameter made with 0 or -1 for a size reads back in the mode's
    spelling, and either spelling may be filled in."""
    u = -1 if np_shape else 0
    for given in ((3, 0), (3, -1)):
        p = gluon.Parameter('w', shape=given)
        assert p.shape == (3, u)
        p.shape = (3, 7)
        assert p.shape == (3, 7)
    p = gluon.Parameter('w', shape=0)
    assert p.shape == (u,)
