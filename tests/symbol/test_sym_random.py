"""``mx.sym.random``: scalar and per-element samplers as graph nodes,
named as MXNet 1.9.1 names them."""

import numpy as np
import pytest

import dlbook as mx
from dlbook.base import DLBookError

sym = mx.sym


def test_numbers_make_one_distribution_symbols_one_per_element():
    scalar = sym.random.normal(0, 1, shape=(2, 3))
    assert str(scalar) == '<Symbol _random_normal0>'
    assert scalar.list_arguments() == []
    per_element = sym.random.normal(
        sym.var('mu'), sym.var('sigma'), shape=(2,)
    )
    assert str(per_element) == '<Symbol _sample_normal0>'
    assert per_element.list_arguments() == ['mu', 'sigma']
    assert (
        str(sym.random.uniform_like(sym.var('x'))) == '<Symbol uniform_like0>'
    )


def test_per_element_draws_follow_their_parameters():
    mx.random.seed(0)
    net = sym.random.normal(sym.var('mu'), sym.var('sigma'), shape=(4000,))
    exe = net.bind(
        mx.cpu(),
        args={'mu': mx.nd.array([0, 10]), 'sigma': mx.nd.array([1, 0.5])},
    )
    draws = exe.forward()[0].asnumpy()
    assert draws.shape == (2, 4000)
    np.testing.assert_allclose(draws.mean(1), [0, 10], atol=0.06)
    np.testing.assert_allclose(draws.std(1), [1, 0.5], rtol=0.05)


@pytest.mark.parametrize(
    'make, low, high',
    [
        (lambda: sym.random.uniform(2, 3, shape=(500,)), 2, 3),
        (lambda: sym.random.randint(0, 5, shape=(500,)), 0, 4),
        (lambda: sym.random.exponential(2, shape=(500,)), 0, np.inf),
        (lambda: sym.random.poisson(3, shape=(500,)), 0, np.inf),
        (lambda: sym.random.gamma(2, 1, shape=(500,)), 0, np.inf),
        (
            lambda: sym.random.negative_binomial(3, 0.5, shape=(500,)),
            0,
            np.inf,
        ),
        (lambda: sym.random.randn(500), -np.inf, np.inf),
    ],
)
def test_scalar_samplers_evaluate(make, low, high):
    values = make().eval()[0].asnumpy()
    assert values.shape == (500,)
    assert values.min() >= low and values.max() <= high
    assert len(np.unique(values)) > 1


def test_like_samplers_take_the_data_shape_and_dtype():
    x = mx.nd.zeros((3, 2), dtype='float64')
    out = sym.random.uniform_like(sym.var('x'), low=2, high=3).eval(x=x)[0]
    assert out.shape == (3, 2) and out.dtype == np.float64
    assert 2 <= out.asnumpy().min() and out.asnumpy().max() < 3


def test_mixed_parameter_kinds_are_refused():
    with pytest.raises(DLBookError, match='same type'):
        sym.random.normal(sym.var('mu'), 1.0)


def test_multinomial_and_shuffle():
    probs = mx.nd.array([[0, 1, 0], [0, 0, 1]])
    drawn = sym.random.multinomial(sym.var('p'), shape=(4,)).eval(p=probs)[0]
    assert drawn.asnumpy().tolist() == [[1] * 4, [2] * 4]
    data = mx.nd.arange(10)
    mixed = sym.random.shuffle(sym.var('d')).eval(d=data)[0].asnumpy()
    assert sorted(mixed.tolist()) == list(range(10))
