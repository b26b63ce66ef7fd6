"""Initializers: draw statistics, Xavier bounds, dispatch by name and by
``__init__``, custom subclasses, registry and ``dumps``."""

import json
import logging
import math

import numpy as np
import pytest

import dlbook as mx
from dlbook import initializer as init
from dlbook import nd
from dlbook.initializer import InitDesc


def filled(initializer, shape, name='fc_weight', attrs=None, dtype=None):
    arr = nd.zeros(shape, dtype=dtype)
    initializer(InitDesc(name, attrs), arr)
    return arr.asnumpy()


# -- statistics of random draws ---------------------------------------------


def test_uniform_range_and_moments():
    x = filled(init.Uniform(0.5), (200, 250))
    assert x.min() >= -0.5 and x.max() <= 0.5
    assert x.max() > 0.49 and x.min() < -0.49
    assert abs(x.mean()) < 0.01
    assert x.std() == pytest.approx(0.5 / math.sqrt(3), rel=0.02)
    assert init.Uniform().scale == 0.07


def test_normal_moments():
    x = filled(init.Normal(0.2), (200, 250))
    assert abs(x.mean()) < 0.005
    assert x.std() == pytest.approx(0.2, rel=0.02)
    assert init.Normal().sigma == 0.01


def test_draws_follow_mx_random_seed():
    mx.random.seed(42)
    a = filled(init.Xavier(), (20, 30))
    mx.random.seed(42)
    b = filled(init.Xavier(), (20, 30))
    np.testing.assert_array_equal(a, b)


def test_fills_arrays_on_each_device(ctx):
    arr = nd.zeros((30, 40), ctx=ctx)
    init.Xavier()(InitDesc('fc_weight'), arr)
    assert arr.context == ctx
    scale = math.sqrt(3 / 35)
    x = arr.asnumpy()
    assert np.abs(x).max() <= scale and x.std() > 0.4 * scale
    for initializer in (
        init.Orthogonal(),
        init.Bilinear(),
        init.Normal(),
        init.Constant(2.0),
        init.LSTMBias(),
    ):
        target = nd.zeros((4, 1, 2, 2), ctx=ctx)
        initializer(InitDesc('up_weight'), target)
        assert target.context == ctx


def test_dtype_of_target_is_kept():
    arr = nd.zeros((4, 5), dtype='float64')
    init.Uniform()(InitDesc('w_weight'), arr)
    assert arr.dtype == np.float64


# -- Xavier and MSRAPrelu ----------------------------------------------------


@pytest.mark.parametrize(
    'factor_type, factor',
    [('avg', (32 * 9 + 64 * 9) / 2), ('in', 32 * 9), ('out', 64 * 9)],
)
def test_xavier_uniform_bounds_per_factor_type(factor_type, factor):
    x = filled(
        init.Xavier(factor_type=factor_type, magnitude=3),
        (64, 32, 3, 3),
        'conv_weight',
    )
    scale = math.sqrt(3 / factor)
    assert np.abs(x).max() <= scale
    assert np.abs(x).max() > 0.98 * scale
    assert x.std() == pytest.approx(scale / math.sqrt(3), rel=0.03)


def test_xavier_gaussian_std():
    x = filled(
        init.Xavier(rnd_type='gaussian', factor_type='in', magnitude=2),
        (500, 400),
    )
    assert x.std() == pytest.approx(math.sqrt(2 / 400), rel=0.02)


def test_xavier_rejects_vectors_and_bad_options():
    with pytest.raises(
        ValueError,
        match='cannot be applied to vector fc_weight. It requires at least',
    ):
        filled(init.Xavier(), (10,))
    with pytest.raises(ValueError, match='Incorrect factor type'):
        filled(init.Xavier(factor_type='bad'), (3, 3))
    with pytest.raises(ValueError, match='Unknown random type'):
        filled(init.Xavier(rnd_type='bad'), (3, 3))


def test_msraprelu_is_gaussian_xavier():
    x = filled(init.MSRAPrelu(factor_type='in', slope=0.25), (400, 500))
    assert x.std() == pytest.approx(
        math.sqrt(2 / (1 + 0.0625) / 500), rel=0.02
    )
    assert json.loads(init.MSRAPrelu().dumps()) == [
        'msraprelu',
        {'factor_type': 'avg', 'slope': 0.25},
    ]


# -- deterministic initializers -----------------------------------------------


def test_constant_zero_one():
    assert (filled(init.Constant(3.5), (2, 3)) == 3.5).all()
    assert (filled(init.Zero(), (2, 3)) == 0).all()
    assert (filled(init.One(), (2, 3)) == 1).all()
    row = nd.array([1.0, 2.0, 3.0])
    assert (filled(init.Constant(row), (2, 3)) == [[1, 2, 3]] * 2).all()


def test_orthogonal_rows_are_orthonormal():
    x = filled(init.Orthogonal(scale=2.0), (6, 10))
    np.testing.assert_allclose(x @ x.T, 4.0 * np.eye(6), atol=1e-5)
    y = filled(init.Orthogonal(rand_type='normal'), (10, 2, 3))
    flat = y.reshape(10, 6)
    np.testing.assert_allclose(flat.T @ flat, 1.414**2 * np.eye(6), atol=1e-4)


def test_bilinear_matches_mxnet_loop():
    shape = (2, 1, 4, 4)
    x = filled(init.Bilinear(), shape)
    want = np.zeros(int(np.prod(shape)), dtype='float32')
    f = np.ceil(shape[3] / 2.0)
    c = (2 * f - 1 - f % 2) / (2.0 * f)
    for i in range(int(np.prod(shape))):
        xx = i % shape[3]
        yy = (i // shape[3]) % shape[2]
        want[i] = (1 - abs(xx / f - c)) * (1 - abs(yy / f - c))
    np.testing.assert_allclose(x, want.reshape(shape))


def test_lstm_bias():
    x = filled(
        init.LSTMBias(forget_bias=2.0),
        (12,),
        'lstm_i2h_bias',
        {'__init__': init.LSTMBias(forget_bias=2.0)},
    )
    np.testing.assert_array_equal(x, [0] * 3 + [2] * 3 + [0] * 6)


# -- dispatch -----------------------------------------------------------------


@pytest.mark.parametrize(
    'name, value',
    [
        ('fc_bias', 0),
        ('bn_beta', 0),
        ('bn_gamma', 1),
        ('bn_moving_mean', 0),
        ('bn_moving_var', 1),
        ('bn_running_mean', 0),
        ('bn_running_var', 1),
        ('q_min', 0),
        ('q_max', 1),
    ],
)
def test_dispatch_by_name_suffix(name, value):
    assert (filled(init.Uniform(5.0), (3, 4), name) == value).all()


def test_weight_suffix_uses_init_weight():
    x = filled(init.Constant(7), (3, 4), 'fc_weight')
    assert (x == 7).all()


def test_unknown_name_raises_mxnet_error():
    with pytest.raises(
        ValueError,
        match='Unknown initialization pattern '
        'for foo. Default initialization '
        'is now limited to "weight"',
    ):
        filled(init.Uniform(), (2,), 'foo')


def test_init_attr_wins_whatever_the_name():
    # Gluon passes the parameter's own initializer: a bias gets it too.
    x = filled(
        init.Zero(), (3, 4), 'dense0_bias', {'__init__': init.Constant(2.0)}
    )
    assert (x == 2.0).all()
    y = filled(init.Zero(), (3, 4), 'foo', {'__init__': 'ones'})
    assert (y == 1).all()
    z = filled(
        init.Zero(), (3, 4), 'bar', {'__init__': init.Constant(5).dumps()}
    )
    assert (z == 5).all()


def test_global_init_is_recorded():
    desc = InitDesc('fc_weight')
    u = init.Uniform()
    u(desc, nd.zeros((2, 2)))
    assert desc.global_init is u
    assert isinstance(desc, str) and desc == 'fc_weight'
    assert desc.attrs == {}


def test_legacy_string_call_warns_and_dispatches():
    arr = nd.zeros((2, 2))
    with pytest.warns(DeprecationWarning):
        init.Uniform()('fc_bias', arr)
    assert (arr.asnumpy() == 0).all()
    with pytest.warns(DeprecationWarning):
        init.Uniform()('upsampling0_weight', nd.zeros((1, 1, 4, 4)))


# -- custom subclasses, registry, dumps ---------------------------------------


def test_custom_subclass_init_weight_runs(capsys):
    class MyInit(init.Initializer):
        def _init_weight(self, name, data):
            print('Init', name, data.shape)
            data[:] = nd.random.uniform(low=-10, high=10, shape=data.shape)
            data *= nd.abs(data) >= 5

    arr = nd.zeros((3, 4))
    MyInit()(InitDesc('dense0_weight', {'__init__': MyInit()}), arr)
    assert capsys.readouterr().out == 'Init dense0_weight (3, 4)\n'
    x = arr.asnumpy()
    assert ((x == 0) | (np.abs(x) >= 5)).all()
    MyInit()(InitDesc('dense0_bias'), arr)  # suffix rule: zeros
    assert (arr.asnumpy() == 0).all()


def test_register_and_create():
    @init.register
    class Halves(init.Initializer):
        def _init_weight(self, _, arr):
            arr[:] = 0.5

    assert isinstance(init.create('halves'), Halves)
    assert (
        filled(init.Zero(), (2,), 'x', {'__init__': 'HALVES'}) == 0.5
    ).all()
    assert type(init.create('zeros')) is init.Zero
    assert type(init.create('ones')) is init.One
    xav = init.create('xavier', magnitude=2.24)
    assert xav.magnitude == 2.24
    assert init.create(xav) is xav
    assert init.create('["normal", {"sigma": 0.5}]').sigma == 0.5
    with pytest.raises(AssertionError, match='not registered'):
        init.create('nope')


def test_dumps_and_equality():
    assert init.Uniform().dumps() == '["uniform", {"scale": 0.07}]'
    assert json.loads(init.Xavier(magnitude=2).dumps()) == [
        'xavier',
        {'rnd_type': 'uniform', 'factor_type': 'avg', 'magnitude': 2},
    ]
    assert init.Zero().dumps() == '["zero", {}]'
    c = init.Constant(nd.array([1.0, 2.0]))
    assert json.loads(c.dumps()) == ['constant', {'value': [1.0, 2.0]}]
    assert init.Uniform(0.1) == init.Uniform(0.1)
    assert init.Uniform(0.1) != init.Uniform(0.2)
    assert init.Uniform(0.1) != init.Normal(0.1)


def test_mixed_and_load():
    mixed = init.Mixed(['.*bias', '.*'], [init.Zero(), init.One()])
    a, b = nd.ones((2,)), nd.zeros((2,))
    with pytest.warns(DeprecationWarning):
        mixed('fc_bias', a)
        mixed('fc_weight', b)
    assert (a.asnumpy() == 0).all() and (b.asnumpy() == 1).all()
    with pytest.raises(ValueError, match='fc did not match any pattern'):
        init.Mixed(['x'], [init.Zero()])('fc', a)

    saved = {'arg:fc_weight': nd.array([[1.0, 2.0]]), 'aux:bn_var': nd.ones(3)}
    load = init.Load(saved, default_init=init.Constant(9))
    w, other = nd.zeros((1, 2)), nd.zeros((2,))
    load('fc_weight', w)
    np.testing.assert_array_equal(w.asnumpy(), [[1, 2]])
    # The default initializer gets a plain name: MXNet's legacy path, which
    # dispatches by suffix (a bias -> zeros) and warns.
    with pytest.warns(DeprecationWarning):
        load('fc_bias', other)
    assert (other.asnumpy() == 0).all()
    with pytest.warns(DeprecationWarning):
        load('fc2_weight', other)
    assert (other.asnumpy() == 9).all()
    with pytest.raises(AssertionError, match='Shape mismatch'):
        load('fc_weight', nd.zeros((3,)))


def test_set_verbosity_logs(caplog):
    u = init.Uniform().set_verbosity(True)
    with caplog.at_level(logging.INFO):
        u(InitDesc('fc_weight'), nd.zeros((4, 4)))
    assert (
        caplog.records[0]
        .getMessage()
        .startswith('Initialized fc_weight as weight: ')
    )
