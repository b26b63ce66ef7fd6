"""Contexts: naming, equality, default stack, backends, fake GPUs."""

import os

import numpy as np
import pytest

import dlbook as mx
from dlbook import nd


def test_repr_equality_hash():
    assert repr(mx.cpu()) == 'cpu(0)'
    assert str(mx.gpu(1)) == 'gpu(1)'
    assert mx.cpu(1) == mx.Context('cpu', 1)
    assert mx.cpu(0) != mx.cpu(1)
    assert mx.cpu(0) != mx.gpu(0)
    assert len({mx.cpu(0), mx.Context('cpu', 0), mx.cpu(1)}) == 2
    assert mx.cpu().device_typeid == 1 and mx.gpu().device_typeid == 2


def test_default_context_stack():
    assert mx.current_context() == mx.cpu(0)
    with mx.cpu(1):
        assert mx.current_context() == mx.cpu(1)
        assert nd.zeros((2,)).context == mx.cpu(1)
        with mx.cpu(2):
            assert nd.ones((1,)).context == mx.cpu(2)
        assert mx.context.current_context() == mx.cpu(1)
    assert mx.current_context() == mx.cpu(0)


def test_unknown_device_type():
    with pytest.raises(mx.MXNetError, match='unknown device type'):
        mx.Context('tpu', 0)


def test_num_gpus_never_raises():
    n = mx.context.num_gpus()
    assert isinstance(n, int) and n >= 0
    assert list(mx.test_utils.list_gpus()) == list(range(n))


def test_cpu_devices_are_distinct():
    a = nd.array([1, 2, 3], ctx=mx.cpu(0))
    b = a.copyto(mx.cpu(1))
    assert b.context == mx.cpu(1)
    b[:] = 7
    assert a.asnumpy().tolist() == [1, 2, 3]  # a real copy
    assert a.as_in_context(mx.cpu(0)) is a
    with pytest.raises(mx.MXNetError) as err:
        a + b
    assert 'cpu(0)' in str(err.value) and 'cpu(1)' in str(err.value)


@pytest.mark.skipif(
    not os.environ.get('DLBOOK_FAKE_GPUS'), reason='fake-GPU mode is off'
)
def test_fake_gpu_plumbing():
    assert mx.context.num_gpus() >= 1
    x = nd.array([1.0, 2.0], ctx=mx.gpu(0))
    assert repr(x).endswith('<NDArray 2 @gpu(0)>')
    y = x.as_in_context(mx.cpu())
    assert y.context == mx.cpu(0)
    x.attach_grad()
    with mx.autograd.record():
        z = (x.copyto(mx.cpu(0)) * 3).sum()
    z.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [3, 3])
    assert x.grad.context == mx.gpu(0)


def test_gpu_without_device_gives_clear_error():
    if mx.context.num_gpus():
        pytest.skip('a GPU is present')
    with pytest.raises(mx.MXNetError, match='no GPU|does not exist'):
        nd.zeros((2,), ctx=mx.gpu(0))


def test_host_contexts_of_one_id_meet_in_an_operator():
    # cpu(i), cpu_pinned(i) and cpu_shared(i) are host memory of one device:
    # MXNet combines them (the first input's context wins); cpu(j) is not.
    a = nd.ones((2, 3))
    pinned = nd.ones((2, 3)).as_in_context(mx.cpu_pinned(0))
    assert (a + pinned).context == mx.cpu(0)
    assert (pinned + a).context == mx.cpu_pinned(0)
    with pytest.raises(
        mx.DLBookError,
        match=r'different contexts.*'
        r'cpu_pinned\(1\)',
    ):
        a + nd.ones((2, 3)).as_in_context(mx.cpu_pinned(1))
    with pytest.raises(mx.DLBookError, match='different contexts'):
        a + nd.ones((2, 3), ctx=mx.cpu(1))
