"""Higher-order gradients: ``autograd.grad(..., create_graph=True)``.

Each operator's recorded gradient rule (``Op.graph_grads``) is checked by
differentiating it once more: the gradient of ``sum(cot * dy/dx)`` with
respect to the inputs is compared with float64 central differences of
the first-order gradient (computed the ordinary way), with a random
cotangent ``cot``.
"""

import numpy as np
import pytest

import dlbook as mx
from dlbook import autograd, nd
from dlbook.base import DLBookError
from dlbook.ops import REGISTRY
from dlbook.ops.scalar import _Scalar
from dlbook.ops.special import _Float64Special
from dlbook.ops.unary import _PiecewiseConstant, _Unary

RNG = np.random.RandomState(11)
H = 1e-6


def _first(f, arrays):
    """First-order gradients of ``sum(f(*arrays))`` (ordinary backward)."""
    xs = [nd.array(a, dtype='float64') for a in arrays]
    for x in xs:
        x.attach_grad()
    with autograd.record():
        y = f(*xs)
    return [g.asnumpy() for g in autograd.grad(y, xs)]


def _second(f, arrays, cot):
    """Gradients of ``sum(cot_i * dy/dx_i)`` through ``create_graph``."""
    xs = [nd.array(a, dtype='float64') for a in arrays]
    for x in xs:
        x.attach_grad()
    with autograd.record():
        y = f(*xs)
        grads = autograd.grad(y, xs, create_graph=True)
        total = sum(
            (g * nd.array(c, dtype='float64')).sum()
            for g, c in zip(grads, cot)
        )
    total.backward()
    return [x.grad.asnumpy() for x in xs]


def _numeric_second(f, arrays, cot):
    """Central differences of ``sum(cot_i * dy/dx_i)`` in each input."""

    def value(arrs):
        return sum(float((g * c).sum()) for g, c in zip(_first(f, arrs), cot))

    out = []
    for i, a in enumerate(arrays):
        d = np.zeros_like(a)
        for j in np.ndindex(a.shape):
            up = [b.copy() for b in arrays]
            down = [b.copy() for b in arrays]
            up[i][j] += H
            down[i][j] -= H
            d[j] = (value(up) - value(down)) / (2 * H)
        out.append(d)
    return out


def _check(f, arrays, rtol=1e-5, atol=1e-6):
    cot = [RNG.uniform(-1, 1, a.shape) for a in arrays]
    got = _second(f, arrays, cot)
    want = _numeric_second(f, arrays, cot)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


def _check_weight(objective, weight, index):
    """``objective()`` records a scalar through ``create_graph``; its
    gradient in ``weight.data()[index]`` (after ``backward``) against
    central differences of the objective itself."""
    objective().backward()
    got = weight.grad().asnumpy()[index]
    w = weight.data()
    base = w.asnumpy()
    values = []
    for step in (H, -H):
        shifted = base.copy()
        shifted[index] += step
        w[:] = nd.array(shifted, dtype='float64')
        values.append(float(objective().asscalar()))
    w[:] = nd.array(base, dtype='float64')
    np.testing.assert_allclose(
        got, (values[0] - values[1]) / (2 * H), rtol=1e-5
    )


def _differentiable(base, leave_out=()):
    return sorted(
        {
            cls.name
            for cls in REGISTRY.values()
            if issubclass(cls, base)
            and not issubclass(cls, leave_out)
            and cls.differentiable
            and cls.name.isidentifier()
            and hasattr(nd, cls.name)
        }
    )


#: inputs inside each operator's domain (default: 0.2 .. 0.8)
DOMAIN = {'arccosh': (1.2, 1.8), 'erfinv': (-0.5, 0.5)}


@pytest.mark.parametrize(
    'name', _differentiable(_Unary, (_PiecewiseConstant, _Float64Special))
)
def test_unary_second_derivative(name):
    lo, hi = DOMAIN.get(name, (0.2, 0.8))
    x = RNG.uniform(lo, hi, (2, 3))
    op = getattr(nd, name)
    # times x: a linear operator's gradient must reach x too (product
    # rule), so every rule is checked against a nonzero second derivative
    _check(lambda a: op(a) * a, [x])


@pytest.mark.parametrize('name', _differentiable(_PiecewiseConstant))
def test_rounding_gradient_is_zero(name):
    x = nd.array(RNG.uniform(0.2, 2.8, (2, 3)))
    x.attach_grad()
    with autograd.record():
        (g,) = autograd.grad(getattr(nd, name)(x), [x], create_graph=True)
    assert not g.asnumpy().any()


@pytest.mark.parametrize('name', _differentiable(_Scalar))
def test_scalar_second_derivative(name):
    x = RNG.uniform(0.2, 0.8, (2, 3))
    op = getattr(nd, name)
    _check(lambda a: op(a, scalar=1.7) * a, [x])


@pytest.mark.parametrize(
    'name',
    [
        'broadcast_add',
        'broadcast_sub',
        'broadcast_mul',
        'broadcast_div',
        'broadcast_power',
        'broadcast_maximum',
        'broadcast_minimum',
        'broadcast_hypot',
        'elemwise_mul',
    ],
)
def test_binary_second_derivative(name):
    """Broadcast forms with a (1, 3) right operand, whose gradient is
    summed back."""
    a = RNG.uniform(0.2, 0.8, (2, 3))
    b = RNG.uniform(1.2, 1.8, (1 if name.startswith('broadcast') else 2, 3))
    op = getattr(nd, name)
    _check(lambda a, b: op(a, b) * a * b, [a, b])


@pytest.mark.parametrize(
    'name, attrs',
    [
        ('sum', {}),
        ('sum', {'axis': 1}),
        ('mean', {'axis': 0, 'keepdims': True}),
        ('prod', {'axis': 1}),
        ('max', {'axis': 1}),
        ('min', {}),
    ],
)
def test_reduction_second_derivative(name, attrs):
    """A product first, so that the reduction's gradient feeds something
    with a second derivative."""
    x = RNG.uniform(0.2, 0.8, (2, 3))
    _check(lambda a: getattr(nd, name)(a * a * a, **attrs), [x])


@pytest.mark.parametrize('act', ['relu', 'sigmoid', 'tanh', 'softsign'])
def test_dense_layer_second_derivative(act):
    """``FullyConnected`` and ``Activation``: the gradient with respect to
    the data, differentiated with respect to the data, weight and bias."""
    x = RNG.uniform(-1, 1, (2, 4))
    w = RNG.uniform(-1, 1, (3, 4))
    b = RNG.uniform(-1, 1, (3,))

    def layer(x, w, b):
        h = nd.FullyConnected(x, w, b, num_hidden=3)
        return nd.Activation(h, act_type=act) * h

    _check(layer, [x, w, b])


@pytest.mark.parametrize(
    'f, shapes',
    [
        (lambda a: a.reshape((3, 2)) * a.reshape((3, 2)), [(2, 3)]),
        (lambda a: nd.Flatten(a) ** 3, [(2, 3, 1)]),
        (lambda a: nd.expand_dims(a, 1) ** 3, [(2, 3)]),
        (lambda a: nd.squeeze(a) ** 3, [(2, 1, 3)]),
        (lambda a: a.transpose((1, 0)) * a.T, [(2, 3)]),
        (lambda a: nd.broadcast_to(a, (2, 3)) ** 3, [(1, 3)]),
        (lambda a: nd.broadcast_axis(a, axis=0, size=2) ** 3, [(1, 3)]),
        (lambda a, b: nd.dot(a, b) ** 2, [(2, 3), (3, 4)]),
        (
            lambda a, b: nd.dot(a, b, transpose_a=True, transpose_b=True) ** 2,
            [(3, 2), (4, 3)],
        ),
        (lambda a: nd.LeakyReLU(a * 3 - 1, slope=0.1) * a, [(2, 3)]),
    ],
)
def test_shape_dot_and_leaky_second_derivative(f, shapes):
    _check(f, [RNG.uniform(0.2, 0.8, shape) for shape in shapes])


@pytest.mark.parametrize(
    'f',
    [
        lambda a: nd.softmax(a) * a,
        lambda a: nd.softmax(a, axis=0, temperature=2.0) * a,
        lambda a: nd.log_softmax(a) * a,
        lambda a: nd.log_softmax(a, axis=0) * a,
        lambda a: nd.pick(a * a, nd.array([2, 0])),
        lambda a: nd.pick(a * a, nd.array([5, -1]), keepdims=True),
        lambda a: nd.pick(a * a, nd.array([4, 1]), mode='wrap'),
        lambda a: nd.pick(a * a, nd.array([1, 0, 1]), axis=0),
    ],
)
def test_softmax_and_pick_second_derivative(f):
    _check(f, [RNG.uniform(0.2, 0.8, (2, 3))])


def test_input_gradient_penalty_of_a_classifier():
    """Double backpropagation: the norm of the loss's gradient with
    respect to the images, added to the loss (softmax cross-entropy
    through log_softmax, pick and mean), trains the weights."""
    mx.random.seed(4)
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(6, activation='relu'), mx.gluon.nn.Dense(3))
    net.initialize(mx.init.Uniform(0.5))
    net.cast('float64')
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    x = nd.array(RNG.uniform(-1, 1, (4, 5)), dtype='float64')
    y = nd.array([0, 2, 1, 2], dtype='float64')
    x.attach_grad()

    def objective():
        with autograd.record():
            loss = loss_fn(net(x), y).mean()
            (g,) = autograd.grad(loss, [x], create_graph=True)
            total = loss + (g * g).sum()
        return total

    _check_weight(objective, net[1].weight, (2, 3))


@pytest.mark.parametrize(
    'data, weight, attrs',
    [
        ((2, 3, 6, 6), (4, 3, 3, 3), {'pad': (1, 1)}),
        ((2, 2, 7, 7), (3, 2, 3, 3), {'stride': (2, 2), 'pad': (1, 1)}),
        ((1, 2, 9, 8), (3, 2, 3, 2), {'stride': (2, 1), 'dilate': (2, 2)}),
        ((2, 2, 8), (3, 2, 3), {'stride': (2,), 'pad': (1,)}),
    ],
)
def test_convolution_second_derivative(data, weight, attrs):
    """Data, weight and bias, with strides, dilation, padding, 1-D."""
    arrays = [
        RNG.uniform(-1, 1, data),
        RNG.uniform(-1, 1, weight),
        RNG.uniform(-1, 1, weight[:1]),
    ]
    kernel, num_filter = weight[2:], weight[0]

    def f(x, w, b):
        y = nd.Convolution(
            x, w, b, kernel=kernel, num_filter=num_filter, **attrs
        )
        return nd.tanh(y)

    _check(f, arrays, rtol=1e-4)


@pytest.mark.parametrize(
    'attrs',
    [
        {'kernel': (2, 2), 'stride': (2, 2), 'pool_type': 'max'},
        {'kernel': (2, 2), 'stride': (2, 2), 'pool_type': 'avg'},
        {'kernel': (2, 3), 'stride': (2, 3), 'pool_type': 'sum'},
        {'kernel': (1, 1), 'global_pool': True, 'pool_type': 'avg'},
        {'kernel': (1, 1), 'global_pool': True, 'pool_type': 'max'},
    ],
)
def test_pooling_second_derivative(attrs):
    x = RNG.uniform(-1, 1, (2, 3, 4, 6))
    _check(lambda a: nd.Pooling(a * a * a, **attrs) ** 2, [x], rtol=1e-4)


def test_convolution_and_pooling_without_a_rule_are_named():
    x = nd.array(RNG.uniform(size=(1, 2, 5, 5)))
    w = nd.array(RNG.uniform(size=(2, 1, 3, 3)))
    x.attach_grad()
    with autograd.record():
        grouped = nd.Convolution(
            x, w, kernel=(3, 3), num_filter=2, num_group=2, no_bias=True
        )
        overlapping = nd.Pooling(x, kernel=(3, 3), stride=(2, 2))
        for y, name in ((grouped, 'Convolution'), (overlapping, 'Pooling')):
            with pytest.raises(DLBookError, match=f"'{name}' has no higher"):
                autograd.grad(y, [x], create_graph=True)


def test_input_gradient_penalty_of_a_cnn():
    """Double backpropagation through a small LeNet: convolution, relu,
    max pooling, dense layer and softmax cross-entropy."""
    mx.random.seed(6)
    net = mx.gluon.nn.HybridSequential()
    net.add(
        mx.gluon.nn.Conv2D(3, kernel_size=3, activation='relu'),
        mx.gluon.nn.MaxPool2D(pool_size=2, strides=2),
        mx.gluon.nn.Dense(4),
    )
    net.initialize(mx.init.Uniform(0.5))
    net.cast('float64')
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    x = nd.array(RNG.uniform(-1, 1, (2, 1, 6, 6)), dtype='float64')
    y = nd.array([1, 3], dtype='float64')
    x.attach_grad()

    def objective():
        with autograd.record():
            loss = loss_fn(net(x), y).mean()
            (g,) = autograd.grad(loss, [x], create_graph=True)
            total = loss + (g * g).sum()
        return total

    _check_weight(objective, net[0].weight, (1, 0, 2, 1))


def test_gradient_penalty_of_a_gluon_network():
    """A WGAN-GP style penalty ``(||dD/dx||^2 - 1)^2`` trains the critic's
    weights: its gradient, through ``create_graph``, against central
    differences of the penalty in one weight."""
    mx.random.seed(3)
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(5, activation='tanh'), mx.gluon.nn.Dense(1))
    net.initialize(mx.init.Uniform(0.5))
    net.cast('float64')
    x = nd.array(RNG.uniform(-1, 1, (3, 4)), dtype='float64')
    x.attach_grad()

    def penalty():
        with autograd.record():
            d = net(x)
            (g,) = autograd.grad(d, [x], create_graph=True)
            p = ((g * g).sum(axis=1) - 1) ** 2
            p = p.sum()
        return p

    _check_weight(penalty, net[0].weight, (1, 2))


def test_mxnet_example(ctx):
    """The example of MXNet's documentation; MXNet 1.9.1 gives cos(x) and
    then x.grad = -sin(x) = [-0.47942555, -0.84147096, -0.9092974]."""
    x = nd.array([0.5, 1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = nd.sin(x)
        y_grad = autograd.grad(y, x, create_graph=True, retain_graph=True)[0]
    y_grad.backward()
    np.testing.assert_allclose(
        y_grad.asnumpy(), [0.87758255, 0.5403023, -0.41614684], rtol=1e-6
    )
    np.testing.assert_allclose(
        x.grad.asnumpy(), [-0.47942555, -0.84147096, -0.9092974], rtol=1e-6
    )


def test_the_first_graph_stays_usable(ctx):
    """``create_graph`` leaves the graph it differentiates as it was:
    ``backward`` on the original head still works afterwards."""
    x = nd.array([0.3, 0.6])
    x.attach_grad()
    with autograd.record():
        y = nd.exp(x)
        (g,) = autograd.grad(y, [x], create_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), np.exp([0.3, 0.6]), 1e-6)
    np.testing.assert_allclose(g.asnumpy(), np.exp([0.3, 0.6]), 1e-6)


def test_an_activation_without_a_rule_is_named():
    x = nd.array([[0.5, -0.5]])
    x.attach_grad()
    with autograd.record():
        y = nd.Activation(x, act_type='softrelu')
        with pytest.raises(DLBookError, match="act_type='softrelu'"):
            autograd.grad(y, [x], create_graph=True)


@pytest.mark.parametrize('fix_gamma', [False, True])
@pytest.mark.parametrize('global_stats', [False, True])
def test_batch_norm_second_derivative(fix_gamma, global_stats):
    """Batch statistics (training) and the moving ones; gamma learnt or
    fixed at 1."""
    moving_mean = nd.array(RNG.uniform(-1, 1, 3), dtype='float64')
    moving_var = nd.array(RNG.uniform(0.5, 1.5, 3), dtype='float64')

    def f(x, gamma, beta):
        y = nd.BatchNorm(
            x,
            gamma,
            beta,
            moving_mean.copy(),
            moving_var.copy(),
            fix_gamma=fix_gamma,
            use_global_stats=global_stats,
        )
        return y * y * x

    arrays = [
        RNG.uniform(-1, 1, (2, 3, 2, 2)),
        RNG.uniform(0.5, 1.5, 3),
        RNG.uniform(-1, 1, 3),
    ]
    _check(f, arrays, rtol=1e-4)


@pytest.mark.parametrize(
    'norm',
    [
        lambda x, g, b: nd.LayerNorm(x, g, b),
        lambda x, g, b: nd.LayerNorm(x.transpose((0, 2, 1)), g, b, axis=1),
        lambda x, g, b: nd.InstanceNorm(x, g, b),
    ],
)
def test_layer_and_instance_norm_second_derivative(norm):
    arrays = [
        RNG.uniform(-1, 1, (2, 3, 3)),
        RNG.uniform(0.5, 1.5, 3),
        RNG.uniform(-1, 1, 3),
    ]
    _check(lambda x, g, b: norm(x, g, b) ** 2 * 2, arrays, rtol=1e-4)


def test_an_operator_without_a_rule_is_named():
    x = nd.array(RNG.uniform(size=(2, 3, 4)))
    x.attach_grad()
    with autograd.record():
        y = nd.L2Normalization(x)
        with pytest.raises(DLBookError, match="'L2Normalization' has no hi"):
            autograd.grad(y, [x], create_graph=True)


@pytest.mark.parametrize('name', _differentiable(_Float64Special))
def test_special_functions_have_first_order_gradients_only(name):
    """gamma and gammaln: their second derivatives need trigamma, which
    dlbook does not have; asking for one names the operator."""
    x = nd.array(RNG.uniform(0.5, 2.0, (3,)), dtype='float64')
    x.attach_grad()
    with autograd.record():
        y = getattr(nd, name)(x)
        with pytest.raises(DLBookError, match=f"'{name}' has no higher"):
            autograd.grad(y, [x], create_graph=True)
