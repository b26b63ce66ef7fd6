"""``mx.random`` re-exports the ``nd.random`` samplers (as MXNet 1.9.1's
``python/mxnet/random.py`` does with ``from .ndarray.random import *``)."""

import numpy as np
import pytest

import dlbook as mx

NAMES = [
    'uniform',
    'normal',
    'randn',
    'randint',
    'exponential',
    'poisson',
    'gamma',
    'negative_binomial',
    'generalized_negative_binomial',
    'multinomial',
    'shuffle',
]


@pytest.mark.parametrize('name', NAMES)
def test_same_function_as_nd_random(name):
    # MXNet 1.9.1: mx.random.uniform is mx.nd.random.uniform -> True
    assert getattr(mx.random, name) is getattr(mx.nd.random, name)


def test_same_generator_as_nd_random():
    mx.random.seed(7)
    a = mx.random.uniform(shape=(5,)).asnumpy()
    mx.random.seed(7)
    b = mx.nd.random.uniform(shape=(5,)).asnumpy()
    np.testing.assert_array_equal(a, b)


def test_shapes_and_dtypes():
    # MXNet 1.9.1: mx.random.normal().shape == (1,);
    # mx.random.randn(2, 3).shape == (2, 3);
    # mx.random.randint(0, 5, shape=(3,)).dtype is numpy.int32;
    # negative_binomial / generalized_negative_binomial give float32
    assert mx.random.normal().shape == (1,)
    assert mx.random.randn(2, 3).shape == (2, 3)
    assert mx.random.randint(0, 5, shape=(3,)).dtype == np.int32
    assert mx.random.negative_binomial(2, 0.2, shape=(4,)).dtype == np.float32
    x = mx.random.generalized_negative_binomial(3, 0, shape=(20000,))
    assert x.dtype == np.float32
    # MXNet 1.9.1: alpha=0 is Poisson(3): mean 3.011, variance 3.001
    assert abs(x.asnumpy().mean() - 3) < 0.1
    assert abs(x.asnumpy().var() - 3) < 0.2


def test_shuffle_and_multinomial():
    x = mx.nd.arange(10)
    y = mx.random.shuffle(x)
    assert sorted(y.asnumpy().tolist()) == list(range(10))
    s = mx.random.multinomial(mx.nd.array([0.0, 1.0, 0.0]), shape=(4,))
    assert s.asnumpy().tolist() == [1, 1, 1, 1]
