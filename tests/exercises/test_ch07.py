"""Checkers of chapter 7: references pass, typical mistakes explained."""

import dlbook as mx
from dlbook import gluon, nd
from dlbook.exercises.checker import run_check
from dlbook.gluon import nn

from .failing import fails as _fails

# -- ch07.matmul_on ----------------------------------------------------------


def test_matmul_on_reference_passes():
    def matmul_on(A, B, ctx):
        return nd.dot(A.as_in_context(ctx), B.as_in_context(ctx))

    result = run_check('ch07.matmul_on', matmul_on)
    assert result.passed, result.report()


def test_matmul_on_without_moving_raises_the_mixing_error():
    _fails(
        'ch07.matmul_on',
        lambda A, B, ctx: nd.dot(A, B),
        'different contexts',
        'as_in_context',
    )


def test_matmul_on_result_on_the_wrong_device():
    def wrong(A, B, ctx):
        return nd.dot(A.as_in_context(B.context), B)

    _fails('ch07.matmul_on', wrong, 'lives on cpu(0), expected cpu(1)')


def test_matmul_on_moving_only_the_result_is_accepted_but_elementwise_not():
    def moved_after(A, B, ctx):
        return nd.dot(
            A.as_in_context(mx.cpu(0)), B.as_in_context(mx.cpu(0))
        ).as_in_context(ctx)

    assert run_check('ch07.matmul_on', moved_after).passed

    def returns_numpy(A, B, ctx):
        return nd.dot(A.as_in_context(ctx), B.as_in_context(ctx)).asnumpy()

    _fails('ch07.matmul_on', returns_numpy, 'expected an NDArray')


# -- ch07.init_on ------------------------------------------------------------


def test_init_on_reference_passes():
    def make_net(ctx):
        net = nn.Sequential()
        net.add(nn.Dense(4, in_units=3))
        net.initialize(ctx=ctx)
        return net

    result = run_check('ch07.init_on', make_net)
    assert result.passed, result.report()


def test_init_on_deferred_shapes_pass_too():
    def make_net(ctx):
        net = nn.Sequential()
        net.add(nn.Dense(4))
        net.initialize(ctx=ctx)
        return net

    result = run_check('ch07.init_on', make_net)
    assert result.passed, result.report()


def test_init_on_forgetting_ctx():
    def make_net(ctx):
        net = nn.Sequential()
        net.add(nn.Dense(4, in_units=3))
        net.initialize()
        return net

    _fails(
        'ch07.init_on', make_net, 'expected [cpu(1)]', 'initialize(ctx=ctx)'
    )


def test_init_on_forgetting_initialize():
    def make_net(ctx):
        net = nn.Sequential()
        net.add(nn.Dense(4, in_units=3))
        return net

    _fails('ch07.init_on', make_net, 'not initialized')


def test_init_on_wrong_size():
    def make_net(ctx):
        net = nn.Sequential()
        net.add(nn.Dense(2))
        net.initialize(ctx=ctx)
        return net

    _fails('ch07.init_on', make_net, 'expected (2, 4)')


# -- ch07.split_even ---------------------------------------------------------


def test_split_even_reference_passes():
    def split_even(X, ctxs):
        n = X.shape[0] // len(ctxs)
        return [
            X[i * n : (i + 1) * n].as_in_context(ctx)
            for i, ctx in enumerate(ctxs)
        ]

    result = run_check('ch07.split_even', split_even)
    assert result.passed, result.report()


def test_split_even_split_and_load_passes():
    result = run_check('ch07.split_even', gluon.utils.split_and_load)
    assert result.passed, result.report()


def test_split_even_all_on_one_device():
    def same_device(X, ctxs):
        n = X.shape[0] // len(ctxs)
        return [X[i * n : (i + 1) * n] for i in range(len(ctxs))]

    _fails(
        'ch07.split_even',
        same_device,
        'slice 1 (ctxs[1]) lives on cpu(0), expected cpu(1)',
    )


def test_split_even_copies_the_whole_batch():
    _fails(
        'ch07.split_even',
        lambda X, ctxs: [X.as_in_context(c) for c in ctxs],
        'slice 0 has shape',
    )


def test_split_even_returns_an_array():
    _fails('ch07.split_even', lambda X, ctxs: X, 'expected a list')
