"""autograd: recording, accumulation, grad_req, errors, tape lifetime."""

import gc

import numpy as np
import pytest

import dlbook as mx
from dlbook import autograd, nd


def test_simple_gradient(ctx):
    x = nd.arange(4).reshape((4, 1))
    x.attach_grad()
    with autograd.record():
        y = 2 * nd.dot(x.T, x)
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), 4 * x.asnumpy())


def test_reuse_accumulates_before_store(ctx):
    # B = (Y * 2) * Y  ->  dB/dY = 4Y, not 2Y
    y = nd.array([1.0, 2.0, 3.0])
    y.attach_grad()
    with autograd.record():
        b = (y * 2) * y
    b.backward()
    np.testing.assert_allclose(y.grad.asnumpy(), 4 * y.asnumpy())


@pytest.mark.parametrize('uses', [2, 3, 5])
def test_many_uses_sum_without_touching_shared_gradients(ctx, uses):
    """``a`` is used ``uses`` times; ``b`` gets the very array that
    ``a``'s first contribution was (``+`` passes ``dy`` to both inputs),
    so summing ``a``'s contributions in place must not write into it."""
    a = nd.array([1.0, 2.0, 3.0], ctx=ctx)
    b = nd.array([4.0, 5.0, 6.0], ctx=ctx)
    a.attach_grad()
    b.attach_grad()
    with autograd.record():
        y = a + b
        for _ in range(uses - 1):
            y = y + a
        y = y * nd.array([1.0, 10.0, 100.0], ctx=ctx)
    y.backward()
    scale = np.array([1.0, 10.0, 100.0])
    np.testing.assert_allclose(a.grad.asnumpy(), uses * scale)
    np.testing.assert_allclose(b.grad.asnumpy(), scale)


@pytest.mark.parametrize('op', ['+', '-'])
def test_add_and_subtract_keep_only_shapes(ctx, op):
    """``+`` and ``-`` need no values for their gradient: they keep only
    the two shapes (broadcast inputs), so writing into an input before
    ``backward`` is harmless (``*`` would raise)."""
    a = nd.array([[1.0, 2.0]], ctx=ctx)
    x = nd.array([[3.0], [4.0]], ctx=ctx)  # broadcast: (2, 1) with (1, 2)
    x.attach_grad()
    with autograd.record():
        y = a + x if op == '+' else a - x
    op_ = y._node.op
    assert op_.input_shapes == ((1, 2), (2, 1))
    assert op_.saved == (None, None, None)
    a[:] = 100  # after recording, outside record(): allowed
    y.backward()
    sign = 1 if op == '+' else -1
    np.testing.assert_allclose(x.grad.asnumpy(), [[2.0 * sign]] * 2)


def test_equal_shapes_keep_no_shapes(ctx):
    """The common case keeps nothing per call for ``+`` (one shared
    ``saved`` tuple, no shapes): fewer objects live until ``backward``."""
    a = nd.array([[1.0, 2.0]], ctx=ctx)
    x = nd.array([[3.0, 4.0]], ctx=ctx)
    x.attach_grad()
    with autograd.record():
        y = a + x
        z = a + x
    assert y._node.op.input_shapes is None
    assert y._node.op.saved is z._node.op.saved
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [[1.0, 1.0]])


def test_binary_instance_run_again_forgets_broadcast_shapes(ctx):
    """A graph runs one operator instance many times: shapes kept for a
    broadcast call must not outlive it."""
    from dlbook.ops import REGISTRY

    op = REGISTRY['broadcast_add']()
    xp = ctx.xp
    op.forward(xp, xp.ones((2, 3)), xp.ones((1, 3)))
    assert op.backward(xp, xp.ones((2, 3)))[1].shape == (1, 3)
    op.forward(xp, xp.ones((2, 3)), xp.ones((2, 3)))
    assert op.backward(xp, xp.ones((2, 3)))[1].shape == (2, 3)


def test_grad_req_write_add_null(ctx):
    x = nd.array([1.0, 2.0])
    x.attach_grad(grad_req='add')
    for _ in range(3):
        with autograd.record():
            y = x * x
        y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), 3 * 2 * x.asnumpy())
    x.attach_grad()  # write
    for _ in range(2):
        with autograd.record():
            y = x * 3
        y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [3, 3])
    z = nd.array([1.0])
    z.attach_grad(grad_req='null')
    assert z.grad is None


def test_head_gradient(ctx):
    x = nd.array([1.0, 2.0, 3.0])
    x.attach_grad()
    with autograd.record():
        y = x * x
    y.backward(nd.array([1.0, 0.1, 0.01]))
    np.testing.assert_allclose(x.grad.asnumpy(), [2, 0.4, 0.06], rtol=1e-6)


def test_second_backward_needs_retain_graph(ctx):
    x = nd.array([1.0])
    x.attach_grad()
    with autograd.record():
        y = x * 2
    y.backward(retain_graph=True)
    y.backward()
    with pytest.raises(mx.MXNetError, match='retain_graph=True'):
        y.backward()


def test_backward_through_a_freed_part_of_the_graph_raises(ctx):
    """A new head recorded on an output whose graph a backward already
    freed: MXNet 1.9.1 raises "not in a computational graph" (checked
    with MXNet), and no gradient is written."""
    x = nd.ones((2,), ctx=ctx)
    x.attach_grad()
    with autograd.record():
        y = x * 2
        z1 = y + 1
    z1.backward()
    with autograd.record():
        z2 = y * 3
    with pytest.raises(mx.MXNetError, match='not in a computational graph'):
        z2.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [2, 2])


def test_backward_visits_nodes_newest_first(ctx):
    """A node runs only after every consumer of its output: ``y`` feeds
    three later operators, recorded in an order unlike the graph's
    shape; its gradient must be their sum before it is passed on."""
    x = nd.array([1.0, 2.0], ctx=ctx)
    x.attach_grad()
    with autograd.record():
        y = x * x
        a = y * 2
        b = (a + y) * y  # uses y directly and through a
        c = nd.exp(y * 0.1)
        out = b + c + a
    out.backward()
    xv = np.array([1.0, 2.0])
    yv = xv * xv
    # out = (2y + y) * y + exp(0.1 y) + 2y = 3y^2 + exp(0.1 y) + 2y
    dy = 6 * yv + 0.1 * np.exp(0.1 * yv) + 2
    np.testing.assert_allclose(x.grad.asnumpy(), dy * 2 * xv, rtol=1e-5)


def test_backward_outside_graph_raises(ctx):
    with pytest.raises(mx.MXNetError, match='not in a computational graph'):
        nd.ones((2,)).backward()


def test_states_and_scopes():
    assert not autograd.is_recording() and not autograd.is_training()
    with autograd.record():
        assert autograd.is_recording() and autograd.is_training()
        with autograd.pause():
            assert not autograd.is_recording()
            assert not autograd.is_training()
        with autograd.predict_mode():
            assert not autograd.is_training()
    with autograd.record(train_mode=False):
        assert not autograd.is_training()
    with autograd.train_mode():
        assert autograd.is_training() and not autograd.is_recording()
    old = autograd.set_recording(True)
    assert autograd.is_recording() and old is False
    autograd.set_recording(False)
    autograd.set_training(False)


def test_pause_and_detach_cut_the_tape(ctx):
    x = nd.array([2.0])
    x.attach_grad()
    with autograd.record():
        y = x * x
        with autograd.pause():
            c = x * 10  # constant: not recorded
        z = y.detach() * x + c * x
    z.backward()
    # dz/dx = y (detached) + c = 4 + 20
    np.testing.assert_allclose(x.grad.asnumpy(), [24.0])


def test_control_flow(ctx):
    def f(a):
        b = a * 2
        while b.norm().asscalar() < 1000:
            b = b * 2
        return b if b.sum().asscalar() > 0 else 100 * b

    a = nd.random.normal(shape=(1,))
    a.attach_grad()
    with autograd.record():
        d = f(a)
    d.backward()
    np.testing.assert_allclose(a.grad.asnumpy(), (d / a).asnumpy(), rtol=1e-5)


def test_autograd_grad_does_not_touch_dot_grad(ctx):
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = (x * x * x).sum()
    (dx,) = autograd.grad(y, [x])
    np.testing.assert_allclose(dx.asnumpy(), 3 * x.asnumpy() ** 2)
    assert x.grad.asnumpy().tolist() == [0, 0]


def test_grad_returns_a_list_for_one_variable(ctx):
    """MXNet 1.9.1 returns a list even for a single NDArray variable."""
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = x * x
    grads = autograd.grad(y, x)
    assert isinstance(grads, list) and len(grads) == 1
    np.testing.assert_allclose(grads[0].asnumpy(), [2.0, 4.0])


def test_mark_variables(ctx):
    x = nd.array([1.0, 2.0])
    g = nd.zeros((2,))
    autograd.mark_variables([x], [g])
    with autograd.record():
        y = x * 5
    y.backward()
    assert g.asnumpy().tolist() == [5, 5]


def test_multiple_heads(ctx):
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        a = x * 2
        b = x * x
    autograd.backward([a, b])
    np.testing.assert_allclose(x.grad.asnumpy(), 2 + 2 * x.asnumpy())


def test_custom_function(ctx):
    class Sigmoid(autograd.Function):
        def forward(self, x):
            y = 1 / (1 + nd.exp(-x))
            self.save_for_backward(y)
            return y

        def backward(self, dy):
            (y,) = self.saved_tensors
            return dy * y * (1 - y)

    x = nd.array([-1.0, 0.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = Sigmoid()(x) * 2
    y.backward()
    s = 1 / (1 + np.exp(-x.asnumpy()))
    np.testing.assert_allclose(x.grad.asnumpy(), 2 * s * (1 - s), rtol=1e-6)


def test_inplace_on_graph_array_raises(ctx):
    x = nd.array([1.0])
    x.attach_grad()
    with autograd.record():
        y = x * 2
        with pytest.raises(mx.MXNetError, match='computational graph'):
            y += 1
        with pytest.raises(mx.MXNetError, match='computational graph'):
            x[:] = 0


def test_copy_between_devices_has_gradient(ctx):
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = x.copyto(mx.cpu(1)) * 3
    assert y.context == mx.cpu(1)
    y.backward()
    assert x.grad.context == ctx
    np.testing.assert_allclose(x.grad.asnumpy(), [3, 3])


def _live_nodes():
    return sum(1 for o in gc.get_objects() if type(o) is autograd.Node)


def test_tape_is_freed_memory_stays_flat(ctx):
    w = nd.random.normal(shape=(8, 4))
    w.attach_grad()
    x = nd.random.normal(shape=(16, 8))
    gc.collect()
    baseline = _live_nodes()
    for step in range(10000):
        with autograd.record():
            loss = (nd.dot(x, w) ** 2).mean()
        loss.backward()
        w[:] = w - 0.001 * w.grad
        if step == 100:
            gc.collect()
            early = _live_nodes()
    gc.collect()
    assert _live_nodes() <= early <= baseline + 5


def test_deep_graph_does_not_overflow_recursion(ctx):
    x = nd.array([1.0])
    x.attach_grad()
    with autograd.record():
        y = x
        for _ in range(5000):
            y = y * 1.0001
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [1.0001**5000], rtol=1e-3)


# MXNet 1.9.1 records every operator under record(): one without a gradient
# gives zeros, written into the variables behind it (recorded values)
NO_GRADIENT = {
    'comparison': lambda x: x > 1,
    'argmax': lambda x: mx.nd.argmax(x, axis=0),
    'topk': lambda x: mx.nd.topk(x, k=2),
    'sum of a comparison': lambda x: (x > 1).sum(),
    'argsort': lambda x: mx.nd.argsort(x),
    'one_hot': lambda x: mx.nd.one_hot(x, 4),
    'zeros_like': lambda x: mx.nd.zeros_like(x),
    'shape_array': lambda x: mx.nd.shape_array(x),
    'logical_not': lambda x: mx.nd.logical_not(x),
}


@pytest.mark.parametrize('name', sorted(NO_GRADIENT))
def test_operators_without_gradient_give_zeros(name):
    x = mx.nd.array([1.0, 2.0, 3.0])
    x.attach_grad()
    x.grad[:] = 7
    with mx.autograd.record():
        y = NO_GRADIENT[name](x)
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [0, 0, 0])


def test_a_comparison_mask_still_passes_the_product_gradient():
    x = mx.nd.array([1.0, 2.0, 3.0])
    x.attach_grad()
    with mx.autograd.record():
        y = (x > 1) * x
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [0, 1, 1])
    with mx.autograd.record():
        z = x > 1
    (g,) = mx.autograd.grad(z, [x], create_graph=True)
    np.testing.assert_array_equal(g.asnumpy(), [0, 0, 0])


def test_a_hybridized_argmax_writes_zeros_too():
    """The variables of a hybridized graph that no gradient reaches get
    zeros, as MXNet writes them (recorded: [[0, 0], [0, 0]])."""

    class ArgMax(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.argmax(x, axis=0)

    block = ArgMax()
    block.hybridize()
    x = mx.nd.array([[1.0, 5.0], [3.0, 2.0]])
    x.attach_grad()
    x.grad[:] = 7
    with mx.autograd.record():
        y = block(x)
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [[0, 0], [0, 0]])
