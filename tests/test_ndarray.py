"""NDArray behaviour that MXNet 1.x programs and the books rely on."""

import numpy as np
import pytest

import dlbook as mx
from dlbook import nd


def test_default_dtype_is_float32(ctx):
    assert nd.array([1, 2]).dtype == np.float32
    assert nd.array(np.arange(3, dtype=np.float64)).dtype == np.float32
    assert nd.array(np.arange(3)).dtype == np.float32
    src = nd.array([1, 2], dtype='int32')
    assert nd.array(src).dtype == np.int32  # NDArray keeps dtype
    for make in (nd.zeros, nd.ones, nd.empty):
        assert make((2, 2)).dtype == np.float32
    assert nd.full((2,), 3).dtype == np.float32
    assert nd.arange(3).dtype == np.float32


def test_repr_matches_mxnet(ctx):
    x = nd.ones((2, 3))
    assert repr(x) == (f'\n[[1. 1. 1.]\n [1. 1. 1.]]\n<NDArray 2x3 @{ctx}>')
    assert str(nd.array([2.5])) == f'\n[2.5]\n<NDArray 1 @{ctx}>'


def test_whole_reduction_has_shape_1(ctx):
    x = nd.arange(6).reshape((2, 3))
    assert x.sum().shape == (1,)
    assert x.sum().asscalar() == 15
    assert x.mean(axis=1).shape == (2,)


def test_asscalar_requires_size_1(ctx):
    with pytest.raises(ValueError, match='not a scalar'):
        nd.ones((2,)).asscalar()
    assert isinstance(nd.array([3]).asscalar(), np.float32)


def test_conversions(ctx):
    x = nd.array([[1, 2], [3, 4]])
    assert x.asnumpy().tolist() == [[1, 2], [3, 4]]
    assert x.astype('int32').dtype == np.int32
    assert x.astype('float32', copy=False) is x
    y = x.copy()
    y[:] = 0
    assert x.sum().asscalar() == 10
    assert x.shape == (2, 2) and x.size == 4 and x.ndim == 2
    assert x.T.asnumpy().tolist() == [[1, 3], [2, 4]]
    assert x.context == ctx
    z = nd.zeros((2, 2))
    assert x.copyto(z) is z and z.sum().asscalar() == 10


def test_operators_broadcast_and_reflect(ctx):
    a = nd.array([[1, 2, 3], [4, 5, 6]])
    b = nd.array([10, 20, 30])
    np.testing.assert_allclose((a + b).asnumpy(), a.asnumpy() + b.asnumpy())
    np.testing.assert_allclose((2 - a).asnumpy(), 2 - a.asnumpy())
    np.testing.assert_allclose((1 / a).asnumpy(), 1 / a.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose((2**a).asnumpy(), 2 ** a.asnumpy())
    np.testing.assert_allclose((a**2).asnumpy(), a.asnumpy() ** 2)
    np.testing.assert_allclose((-a).asnumpy(), -a.asnumpy())
    np.testing.assert_allclose((a % 4).asnumpy(), a.asnumpy() % 4)
    assert (a * 2.5).dtype == np.float32


def test_comparisons_return_0_1_in_input_dtype(ctx):
    a = nd.array([1, 2, 3])
    r = a > 1
    assert r.dtype == np.float32
    assert r.asnumpy().tolist() == [0, 1, 1]
    assert (a == nd.array([1, 0, 3])).asnumpy().tolist() == [1, 0, 1]
    assert (a <= 2).asnumpy().tolist() == [1, 1, 0]
    assert (a != 2).asnumpy().tolist() == [1, 0, 1]
    assert (a == None) is False  # noqa: E711


def test_inplace_keeps_identity(ctx):
    x = nd.ones((2, 2))
    before = id(x)
    x += 1
    x *= 3
    x[:] = x - 1
    x -= nd.ones((2,))
    assert id(x) == before
    assert x.asnumpy().tolist() == [[4, 4], [4, 4]]
    y = nd.zeros((2, 2))
    nd.elemwise_add(x, x, out=y)
    assert y.asnumpy().tolist() == [[8, 8], [8, 8]]


def test_indexing_and_assignment(ctx):
    x = nd.arange(12).reshape((3, 4))
    assert x[1].shape == (4,)
    assert x[1, 2].shape == (1,) and x[1, 2].asscalar() == 6
    assert x[:, 1:3].asnumpy().tolist() == [[1, 2], [5, 6], [9, 10]]
    assert x[nd.array([0, 2])].shape == (2, 4)
    assert x[[2, 0]].asnumpy()[0].tolist() == [8, 9, 10, 11]
    view = x[1:2]
    view[:] = 0  # basic slices are views
    assert x[1].sum().asscalar() == 0
    x[0, :] = nd.array([5, 5, 5, 5])
    x[2] = 1
    assert x.asnumpy().sum() == 24
    mask = x > 4
    assert mask.sum().asscalar() == 4


def test_len_iter_bool(ctx):
    x = nd.array([[1, 2], [3, 4], [5, 6]])
    assert len(x) == 3
    rows = [r.asnumpy().tolist() for r in x]
    assert rows == [[1, 2], [3, 4], [5, 6]]
    assert bool(nd.array([1])) and not bool(nd.array([0]))
    with pytest.raises(ValueError, match='ambiguous'):
        bool(x)


def test_reshape_special_codes(ctx):
    x = nd.zeros((2, 3, 4))
    assert x.reshape((0, -1)).shape == (2, 12)
    assert x.reshape(6, 4).shape == (6, 4)
    assert x.reshape((-3, 4)).shape == (6, 4)
    assert x.reshape((0, -4, 1, 3, 4)).shape == (2, 1, 3, 4)
    assert x.reshape((-2,)).shape == (2, 3, 4)
    with pytest.raises(mx.MXNetError):
        x.reshape((5, -1))


def test_creation_functions(ctx):
    assert nd.arange(0, 6, 2).asnumpy().tolist() == [0, 2, 4]
    assert nd.arange(3, repeat=2).asnumpy().tolist() == [0, 0, 1, 1, 2, 2]
    assert nd.linspace(0, 1, 5).shape == (5,)
    assert nd.eye(3).asnumpy().trace() == 3
    assert nd.full((2,), 7).asnumpy().tolist() == [7, 7]
    x = nd.ones((2, 3), dtype='float64')
    assert nd.zeros_like(x).dtype == np.float64
    assert nd.ones_like(x).sum().asscalar() == 6


@pytest.mark.parametrize(
    'draw',
    [
        lambda: nd.random.uniform(-2, 3, shape=(10, 100)),
        lambda: nd.random.normal(1, 2, shape=(1001,)),
        lambda: nd.random.randint(0, 7, shape=(999,)),
        lambda: nd.random.exponential(2.0, shape=(1000,)),
        lambda: nd.random.poisson(3.0, shape=(1000,)),
        lambda: nd.random.gamma(2.0, 1.5, shape=(1000,)),
    ],
)
def test_large_draws_in_pieces_give_the_same_numbers(monkeypatch, draw):
    from dlbook.ops import random as random_ops

    mx.random.seed(11)
    whole = draw().asnumpy()
    monkeypatch.setattr(random_ops, 'CHUNK', 64)
    mx.random.seed(11)
    pieces = draw()
    assert pieces.shape == whole.shape and pieces.dtype == whole.dtype
    np.testing.assert_array_equal(pieces.asnumpy(), whole)


def test_random_reproducible(ctx):
    mx.random.seed(42)
    a = nd.random.normal(0, 1, shape=(3, 4))
    mx.random.seed(42)
    b = nd.random.normal(0, 1, shape=(3, 4))
    assert (a == b).asnumpy().all()
    u = nd.random.uniform(2, 3, shape=(1000,))
    assert 2 <= u.min().asscalar() and u.max().asscalar() < 3
    r = nd.random.randint(0, 5, shape=(100,))
    assert r.dtype == np.int32
    assert nd.random.exponential(shape=(10,)).shape == (10,)
    assert nd.random.poisson(3, shape=(10,)).shape == (10,)
    assert nd.random.randn(2, 3).shape == (2, 3)
    s = nd.random.shuffle(nd.arange(10))
    assert sorted(s.asnumpy().tolist()) == list(range(10))
    p = nd.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    m = nd.random.multinomial(p)
    assert m.asnumpy().tolist() == [1, 0]
    out = nd.zeros((2, 2))
    nd.random.uniform(-1, 1, out=out)
    assert out.asnumpy().std() > 0


def test_mixed_dtype_error_names_dtypes(ctx):
    a = nd.ones((2,))
    b = nd.ones((2,), dtype='float64')
    with pytest.raises(mx.MXNetError) as err:
        a + b
    assert 'float32' in str(err.value) and 'float64' in str(err.value)


def test_shape_mismatch_error_names_shapes(ctx):
    with pytest.raises(mx.MXNetError) as err:
        nd.ones((2, 3)) + nd.ones((4,))
    assert '(2, 3)' in str(err.value) and '(4,)' in str(err.value)


def test_unknown_attribute_error(ctx):
    with pytest.raises(mx.MXNetError, match='unexpected argument'):
        nd.sum(nd.ones((2,)), axes=0)


def test_missing_input_error(ctx):
    with pytest.raises(mx.MXNetError, match="missing input 'rhs'"):
        nd.broadcast_add(nd.ones((2,)))


def test_arithmetic_helpers_accept_numbers(ctx):
    x = nd.array([-1, 2])
    assert nd.maximum(x, 0).asnumpy().tolist() == [0, 2]
    assert nd.minimum(1, x).asnumpy().tolist() == [-1, 1]
    assert nd.add(x, x).asnumpy().tolist() == [-2, 4]
    assert nd.subtract(1, x).asnumpy().tolist() == [2, -1]
    assert nd.greater(x, 0).asnumpy().tolist() == [0, 1]
    assert nd.power(2, 3) == 8


def test_methods_forward_to_operators(ctx):
    x = nd.array([[1, 4], [9, 16]])
    assert x.sqrt().asnumpy().tolist() == [[1, 2], [3, 4]]
    assert x.max(axis=1).asnumpy().tolist() == [4, 16]
    assert x.argmax(axis=1).dtype == np.float32
    assert x.flatten().shape == (2, 2)
    assert x.expand_dims(0).shape == (1, 2, 2)
    assert x.clip(2, 10).asnumpy().tolist() == [[2, 4], [9, 10]]
    assert x.one_hot(17).shape == (2, 2, 17)
    assert nd.tanh.__wrapped__.name == 'tanh'


def test_waitall_and_wait_to_read_keep_the_values(ctx):
    x = nd.ones((2,)) * 3
    assert x.wait_to_read() is None
    assert nd.waitall() is None
    assert x.asnumpy().tolist() == [3, 3]


def test_copyto_array_requires_same_shape(ctx):
    with pytest.raises(mx.MXNetError, match=r'\(1, 3\).*\(2, 3\)'):
        nd.ones((1, 3)).copyto(nd.zeros((2, 3)))


def test_out_of_range_axis_error_names_axis(ctx):
    x = nd.ones((2, 3))
    with pytest.raises(mx.MXNetError, match='axis 5'):
        nd.sum(x, axis=5)
    with pytest.raises(mx.MXNetError, match='axis'):
        x.expand_dims(4)


def test_linalg_namespace(ctx):
    a = nd.random.normal(shape=(2, 3, 4))
    b = nd.random.normal(shape=(2, 4, 5))
    got = nd.linalg.gemm2(a, b, alpha=2.0)
    np.testing.assert_allclose(
        got.asnumpy(), 2 * a.asnumpy() @ b.asnumpy(), rtol=1e-5
    )
    assert nd.batch_dot(a, b).shape == (2, 3, 5)


def test_save_load_round_trip_in_mxnet_format(ctx, tmp_path):
    data = {
        'w': nd.arange(6).reshape((2, 3)),
        'b': nd.array([1, 2], dtype='int32'),
    }
    path = str(tmp_path / 'x.params')
    nd.save(path, data)
    with open(path, 'rb') as f:
        head = f.read(16)
    assert head[:8] == (0x112).to_bytes(8, 'little')
    back = nd.load(path)
    assert sorted(back) == ['b', 'w']
    assert back['b'].dtype == np.int32
    np.testing.assert_array_equal(back['w'].asnumpy(), data['w'].asnumpy())
    nd.save(path, [data['w']])
    assert isinstance(nd.load(path), list)


@pytest.mark.parametrize(
    'name, op, second',
    [
        ('broadcast_add', lambda a, b: a + b, 'array'),
        ('broadcast_sub', lambda a, b: a - b, 'array'),
        ('broadcast_mul', lambda a, b: a * b, 'array'),
        ('broadcast_div', lambda a, b: a / b, 'array'),
        ('broadcast_mod', lambda a, b: a % b, 'array'),
        ('broadcast_power', lambda a, b: a**b, 'array'),
        ('broadcast_greater', lambda a, b: a > b, 'array'),
        ('broadcast_equal', lambda a, b: a == b, 'array'),
        ('_mul_scalar', lambda a, b: a * b, 2.5),
        ('_rminus_scalar', lambda a, b: b - a, 2),
        ('_rdiv_scalar', lambda a, b: b / a, 3.0),
        ('_power_scalar', lambda a, b: a**b, 2),
        ('_greater_scalar', lambda a, b: a > b, 1.75),
    ],
)
def test_operators_outside_record_skip_the_front_end(ctx, name, op, second):
    """Outside ``record()`` the Python operators of two NDArrays, or of an
    NDArray and a number, run the operator's ``plain()`` function
    directly (``invoke_plain``): the same values, dtype and context as
    the registered operator through ``invoke``."""
    from dlbook.ndarray.invoke import invoke, invoke_plain
    from dlbook.ops import REGISTRY

    a = nd.array([[1.5, 2.0, 3.0]], ctx=ctx)
    cls = REGISTRY[name]
    if second == 'array':
        b = nd.array([[2.0], [1.5]], ctx=ctx)
        via_invoke = invoke(cls(), (a, b))
    else:
        b = second
        via_invoke = invoke(cls(scalar=b), (a,))
    direct = invoke_plain(cls.plain(), a, b)
    # with several GPUs, operators enter their device's scope: invoke's
    assert (direct is None) == (ctx._switch is not None)
    got = op(a, b)
    for y in (got,) if direct is None else (direct, got):
        assert y.context == ctx and y.dtype == via_invoke.dtype
        np.testing.assert_array_equal(y.asnumpy(), via_invoke.asnumpy())


def test_plain_operators_leave_recording_tracing_and_errors_to_invoke(ctx):
    from dlbook import autograd, profiler
    from dlbook.ndarray.invoke import invoke_plain
    from dlbook.ops import REGISTRY

    add = REGISTRY['broadcast_add'].plain()
    a, b = nd.ones((2, 2), ctx=ctx), nd.ones((2, 2), ctx=ctx)
    with autograd.record():
        assert invoke_plain(add, a, b) is None
    # other dtypes, shapes that do not broadcast: invoke's errors
    assert invoke_plain(add, a, b.astype('float64')) is None
    assert invoke_plain(add, a, nd.ones((3, 2), ctx=ctx)) is None
    with pytest.raises(mx.MXNetError, match='cannot be broadcast'):
        a + nd.ones((3, 2), ctx=ctx)
    # a second operand that is neither the same class nor int/float
    assert invoke_plain(add, a, np.float32(1)) is None
    # operators whose forward does more than compute the value have none
    assert REGISTRY['Convolution'].plain() is None
    assert REGISTRY['_npi_greater_scalar'].plain() is None  # bool results
    profiler.set_state('run')
    try:
        assert invoke_plain(add, a, b) is None
    finally:
        profiler.set_state('stop')
    a.attach_grad()
    with autograd.record():
        y = a + b
    y.backward()
    np.testing.assert_array_equal(a.grad.asnumpy(), np.ones((2, 2)))
