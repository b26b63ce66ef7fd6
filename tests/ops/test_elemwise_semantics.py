"""MXNet semantics of element-wise ops, reductions and products that the
row table cannot express: output dtypes, (1,)-shaped results, error
messages, rounding of halves, zero gradients.  Raw level, NumPy as xp."""

import math

import numpy as np
import pytest

from dlbook.base import DLBookError
from dlbook.ops import REGISTRY


def run(name, *arrays, **attrs):
    op = REGISTRY[name](**attrs)
    return op, op.forward(np, *arrays)


F32 = np.array([[0.5, 1.0, 2.0], [3.0, -1.0, 1.0]], dtype=np.float32)


@pytest.mark.parametrize(
    'name',
    [
        'broadcast_greater',
        'broadcast_equal',
        'broadcast_logical_and',
        'broadcast_lesser_equal',
    ],
)
@pytest.mark.parametrize('dtype', ['float32', 'float64', 'int32'])
def test_comparisons_return_0_1_in_input_dtype(name, dtype):
    a = F32.astype(dtype)
    b = np.ones((1, 3), dtype=dtype)
    _, out = run(name, a, b)
    assert out.dtype == np.dtype(dtype)
    assert set(np.unique(out)) <= {0, 1}
    assert not REGISTRY[name].differentiable


@pytest.mark.parametrize(
    'name, broadcast',
    [
        ('elemwise_add', 'broadcast_add'),
        ('_plus', 'broadcast_add'),
        ('_maximum', 'broadcast_maximum'),
        ('_power', 'broadcast_power'),
        ('_equal', 'broadcast_equal'),
        ('_lesser_equal', 'broadcast_lesser_equal'),
    ],
)
def test_equal_shape_forms_refuse_to_broadcast(name, broadcast):
    a = np.abs(F32) + 0.5
    b = np.full((1, 3), 1.5, dtype=np.float32)
    _, ours = run(name, a, np.broadcast_to(b, a.shape).copy())
    _, reference = run(broadcast, a, b)
    np.testing.assert_array_equal(ours, reference)
    with pytest.raises(
        DLBookError,
        match=rf'{REGISTRY[name].name}: lhs shape '
        rf'\(2, 3\) and rhs shape \(1, 3\) differ.*use '
        rf'{broadcast}',
    ):
        run(name, a, b)
    # equal shapes: either input's shape gives the other and the output
    assert REGISTRY[name]().infer_shape(None, (2, 3)) == (
        [(2, 3), (2, 3)],
        [(2, 3)],
        [],
    )


def test_scalar_comparison_and_logical_not_keep_dtype():
    _, out = run('_greater_scalar', F32, scalar=1.0)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [[0, 0, 1], [1, 0, 0]])
    _, out = run('logical_not', F32 - 1)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [[0, 1, 0], [0, 0, 1]])


@pytest.mark.parametrize('name', ['argmax', 'argmin'])
def test_arg_reductions_return_float_indices(name):
    x = np.array([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]], dtype=np.float32)
    _, out = run(name, x, axis=1)
    assert out.dtype == np.float32
    want = [1, 0] if name == 'argmax' else [0, 1]
    np.testing.assert_array_equal(out, want)
    _, flat = run(name, x)  # axis=None: flat index
    assert flat.shape == (1,) and flat.dtype == np.float32
    assert flat[0] == (3 if name == 'argmax' else 4)
    _, out = run(name, x.astype(np.float64), axis=0, keepdims=True)
    assert out.shape == (1, 3) and out.dtype == np.float64


def test_argmax_channel():
    x = np.array([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]], dtype=np.float64)
    _, out = run('argmax_channel', x)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, [1, 0])


@pytest.mark.parametrize(
    'name', ['sum', 'mean', 'prod', 'max', 'min', 'nansum', 'nanprod', 'norm']
)
def test_full_reductions_have_shape_1(name):
    x = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    _, out = run(name, x)
    assert out.shape == (1,) and out.dtype == np.float32
    _, out = run(name, x[0], axis=0)  # 1-d over its only axis
    assert out.shape == (1,)
    _, out = run(name, x, keepdims=True)
    assert out.shape == (1, 1)


def test_reductions_keep_integer_dtype():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    for name in ('sum', 'mean', 'prod', 'max'):
        _, out = run(name, x, axis=1)
        assert out.dtype == np.int32, name
    _, out = run('sum', x)
    assert out.tolist() == [15]


def test_exclude_reduces_the_other_axes():
    x = np.ones((2, 3, 4), dtype=np.float32)
    _, out = run('sum', x, axis=1, exclude=True)
    np.testing.assert_array_equal(out, [8, 8, 8])


def test_out_of_range_axis_names_axis_and_ndim():
    x = np.ones((2, 3), dtype=np.float32)
    for name in ('sum', 'argmax', 'norm'):
        with pytest.raises(DLBookError, match=r'axis 2 .*2 dimension'):
            run(name, x, axis=2)


def test_max_gradient_goes_to_every_tie():
    x = np.array([[1.0, 3.0, 3.0], [2.0, 0.0, 1.0]])
    op, out = run('max', x, axis=1)
    np.testing.assert_array_equal(out, [3, 2])
    dx = op.backward(np, np.array([1.0, 2.0]))
    np.testing.assert_array_equal(dx, [[0, 1, 1], [2, 0, 0]])


def test_norm_gradient_at_zero_is_zero():
    op, out = run('norm', np.zeros((2, 3)), axis=1)
    dx = op.backward(np, np.ones(2))
    np.testing.assert_array_equal(dx, np.zeros((2, 3)))


def test_elemwise_add_requires_equal_shapes():
    a = np.ones((3, 4), dtype=np.float32)
    b = np.ones((1, 4), dtype=np.float32)
    with pytest.raises(DLBookError, match=r'\(3, 4\).*\(1, 4\)'):
        run('elemwise_add', a, b)
    _, out = run('broadcast_add', a, b)  # the broadcasting form works
    assert out.shape == (3, 4)


def test_broadcast_mismatch_names_both_shapes():
    a = np.ones((3, 4), dtype=np.float32)
    b = np.ones((2, 4), dtype=np.float32)
    with pytest.raises(
        DLBookError, match=r'broadcast_mul.*\(3, 4\).*\(2, 4\)'
    ):
        run('broadcast_mul', a, b)


@pytest.mark.parametrize(
    'name',
    [
        '_plus_scalar',
        '_minus_scalar',
        '_rminus_scalar',
        '_mul_scalar',
        '_div_scalar',
        '_rdiv_scalar',
        '_power_scalar',
        '_rpower_scalar',
        '_maximum_scalar',
        '_hypot_scalar',
        '_mod_scalar',
        '_rmod_scalar',
    ],
)
@pytest.mark.parametrize('scalar', [2.5, np.float64(2.5), 2])
def test_scalar_ops_do_not_upcast_float32(name, scalar):
    x = np.array([0.5, 1.0, 2.0], dtype=np.float32)
    op, out = run(name, x, scalar=scalar)
    assert out.dtype == np.float32
    dx = op.backward(np, np.ones(3, dtype=np.float32))
    assert dx.dtype == np.float32


def test_integer_arrays_keep_their_dtype():
    a = np.array([7, -7, 4], dtype=np.int32)
    b = np.array([2, 2, 3], dtype=np.int32)
    _, out = run('_plus', a, b)
    assert out.dtype == np.int32
    _, out = run('broadcast_div', a, b)  # C-style truncation
    assert out.dtype == np.int32 and out.tolist() == [3, -3, 1]
    _, out = run('_div_scalar', a, scalar=2)
    assert out.dtype == np.int32
    _, out = run('sqrt', np.array([4, 9], dtype=np.int32))
    assert out.dtype == np.int32 and out.tolist() == [2, 3]


def test_round_halves_away_from_zero_and_rint_halves_down():
    x = np.array(
        [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49999997], dtype=np.float32
    )
    _, out = run('round', x)
    np.testing.assert_array_equal(out, [-3, -2, -1, 1, 2, 3, 0])
    _, out = run('rint', x)
    np.testing.assert_array_equal(out, [-3, -2, -1, 0, 1, 2, 0])


@pytest.mark.parametrize(
    'name',
    ['sign', 'round', 'rint', 'ceil', 'floor', 'trunc', 'fix', 'BlockGrad'],
)
def test_zero_gradient_ops(name):
    assert REGISTRY[name].differentiable
    op, _ = run(name, F32)
    dx = op.backward(np, np.ones_like(F32))
    assert dx.dtype == np.float32
    np.testing.assert_array_equal(dx, np.zeros_like(F32))


def test_forward_copies_do_not_alias_input():
    for name in ('_copy', 'BlockGrad'):
        x = F32.copy()
        _, out = run(name, x)
        out[...] = 0
        np.testing.assert_array_equal(x, F32)


def test_cast_gradient_returns_to_input_dtype():
    op, out = run('Cast', F32, dtype='float64')
    assert out.dtype == np.float64
    dx = op.backward(np, np.ones(F32.shape))
    assert dx.dtype == np.float32


def test_required_attributes_have_clear_errors():
    with pytest.raises(DLBookError, match='a_min and a_max'):
        run('clip', F32)
    with pytest.raises(DLBookError, match='dtype'):
        run('Cast', F32)


def test_add_n_is_variadic_and_checks_shapes():
    a = np.ones((2, 2), dtype=np.float32)
    op, out = run('ElementWiseSum', a, a, a, num_args=3)
    np.testing.assert_array_equal(out, 3 * a)
    assert op.list_arguments() == ('arg0', 'arg1', 'arg2')
    assert len(op.backward(np, np.ones((2, 2)))) == 3
    with pytest.raises(DLBookError, match=r'\(2, 2\).*\(3,\)'):
        run('add_n', a, np.ones(3, dtype=np.float32), num_args=2)


def test_dot_one_d_gives_shape_1_and_mismatch_names_shapes():
    _, out = run('dot', np.ones(3, np.float32), np.ones(3, np.float32))
    assert out.shape == (1,) and out[0] == 3
    with pytest.raises(DLBookError, match=r'\(2, 3\).*\(4, 5\)'):
        run('dot', np.ones((2, 3)), np.ones((4, 5)))
    with pytest.raises(DLBookError, match=r'\(2, 3, 4\).*\(3, 4, 5\)'):
        run('batch_dot', np.ones((2, 3, 4)), np.ones((3, 4, 5)))
    with pytest.raises(DLBookError, match=r'\(2, 3\).*\(2, 3\)'):
        run('linalg_gemm2', np.ones((2, 3)), np.ones((2, 3)))


# -- erf and erfinv -----------------------------------------------------------


def test_erf_float32_is_correctly_rounded_from_float64():
    x = np.linspace(-6, 6, 20001).astype(np.float32)
    _, y = run('erf', x)
    want = np.array([math.erf(v) for v in x.astype(np.float64)])
    assert y.dtype == np.float32
    nonzero = want != 0
    rel = np.abs(y[nonzero] - want[nonzero]) / np.abs(want[nonzero])
    assert rel.max() < 1e-7


def test_erfinv_inverts_erf_from_the_centre_to_the_tails():
    y = np.concatenate(
        [
            np.linspace(-0.999, 0.999, 2001),
            1 - np.logspace(-15, -3, 50),
            -1 + np.logspace(-15, -3, 50),
        ]
    )
    _, x = run('erfinv', y)
    back = np.array([math.erf(v) for v in x])
    # compare 1 - |y| near the ends, where erf(x) ~ 1
    np.testing.assert_allclose(
        1 - np.abs(back), 1 - np.abs(y), rtol=1e-9, atol=1e-15
    )
    _, x_big = run('erfinv', np.array([1 - 2**-53]))
    assert 5.8 < x_big[0] < 5.9


def test_erfinv_ends_and_outside():
    _, x = run('erfinv', np.array([-1.0, 1.0, 1.5, -2.0, 0.0]))
    assert x[0] == -np.inf and x[1] == np.inf
    assert np.isnan(x[2]) and np.isnan(x[3]) and x[4] == 0


def test_erf_and_erfinv_gradients_follow_the_formulas():
    x = np.array([-1.5, 0.0, 0.3, 2.0])
    op, _ = run('erf', x)
    np.testing.assert_allclose(
        op.backward(np, np.ones(4)), 2 / math.sqrt(math.pi) * np.exp(-x * x)
    )
    op, y = run('erfinv', np.array([-0.9, 0.0, 0.5, 0.99]))
    np.testing.assert_allclose(
        op.backward(np, np.ones(4)), math.sqrt(math.pi) / 2 * np.exp(y * y)
    )


# -- diag ---------------------------------------------------------------------


def test_diag_examples_of_the_mxnet_documentation():
    x = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)
    assert run('diag', x)[1].tolist() == [1, 5]
    assert run('diag', x, k=1)[1].tolist() == [2, 6]
    assert run('diag', x, k=-1)[1].tolist() == [4]
    v = np.array([1, 2, 3], dtype=np.float32)
    assert run('diag', v)[1].tolist() == [[1, 0, 0], [0, 2, 0], [0, 0, 3]]
    # 1-D input: the matrix grows to hold the whole shifted diagonal
    assert run('diag', v, k=1)[1].tolist() == [
        [0, 1, 0, 0],
        [0, 0, 2, 0],
        [0, 0, 0, 3],
        [0, 0, 0, 0],
    ]
    assert run('diag', v, k=-1)[1][1:, :3].tolist() == [
        [1, 0, 0],
        [0, 2, 0],
        [0, 0, 3],
    ]
    t = np.array([[[1, 2], [3, 4]], [[5, 6], [7, 8]]], dtype=np.float32)
    assert run('diag', t)[1].tolist() == [[1, 7], [2, 8]]
    assert run('diag', t, k=1)[1].tolist() == [[3], [4]]
    assert run('diag', t, axis1=-2, axis2=-1)[1].tolist() == [[1, 4], [5, 8]]


def test_diag_gradient_lands_on_the_diagonal():
    x = np.arange(12.0).reshape(3, 4)
    op, y = run('diag', x, k=1)
    dx = op.backward(np, np.array([10.0, 20.0, 30.0]))
    want = np.zeros((3, 4))
    want[[0, 1, 2], [1, 2, 3]] = [10, 20, 30]
    np.testing.assert_array_equal(dx, want)
    op, _ = run('diag', np.array([1.0, 2.0]), k=-1)
    np.testing.assert_array_equal(
        op.backward(np, np.arange(9.0).reshape(3, 3)), [3.0, 7.0]
    )


def test_diag_errors():
    with pytest.raises(DLBookError, match='same axis'):
        run('diag', np.ones((2, 3)), axis1=1, axis2=-1)
    with pytest.raises(DLBookError, match=r'k=4 does not exist.*\(2, 3\)'):
        run('diag', np.ones((2, 3)), k=4)


# x, and MXNet 1.9.1's y and dx (head gradient of ones), recorded from
# nd.<op> in float32 and float64 (the same in both)
SPECIAL = [math.nan, -math.inf, math.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5]
NAN, INF = math.nan, math.inf
MAX64 = np.finfo(np.float64).max
MXNET_SPECIAL_VALUES = {
    'sign': ({}, [0, -1, 1, 0, 0, 1, -1, 1, -1], [0] * 9),
    'abs': (
        {},
        [NAN, INF, INF, 0, 0, 1, 1, 0.5, 2.5],
        [0, -1, 1, 0, 0, 1, -1, 1, -1],
    ),
    'clip': (
        {'a_min': -1, 'a_max': 1},
        [NAN, -1, 1, 0, 0, 1, -1, 0.5, -1],
        [1, 0, 0, 1, 1, 1, 1, 1, 0],
    ),
    'gamma': (
        {},
        [NAN, NAN, INF, INF, -INF, 1, NAN, math.pi**0.5, -0.9453087204829419],
        [NAN, NAN, INF, INF, -INF, -0.5772156649015329, NAN]
        + [-3.4802307575806073, -1.0428236721046975],
    ),
    'gammaln': (
        {},
        [NAN, INF, INF, INF, INF, 0, INF, 0.5723649429247001]
        + [-0.05624371649767407],
        # digamma at the poles: Cephes' largest float64 (inf in float32)
        [NAN, MAX64, INF, MAX64, MAX64, -0.5772156649015329, MAX64]
        + [-1.963509941769495, 1.103156724897171],
    ),
    'hard_sigmoid': (
        {},
        [NAN, 0, 1, 0.5, 0.5, 0.7, 0.3, 0.6, 0],
        [0, 0, 0, 0.2, 0.2, 0.2, 0.2, 0.2, 0],
    ),
    'rsqrt': (
        {},
        [NAN, NAN, 0, INF, -INF, 1, NAN, 2**0.5, NAN],
        [NAN, NAN, -0.0, -INF, -INF, -0.5, NAN, -(2**0.5), NAN],
    ),
}


@pytest.mark.filterwarnings('ignore::RuntimeWarning')
@pytest.mark.parametrize('name', sorted(MXNET_SPECIAL_VALUES))
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_nan_infinities_and_bounds_as_mxnet(name, dtype):
    """sign(NaN) is 0 (so is abs's gradient there), clip passes the
    gradient at its bounds and at NaN, rsqrt's gradient at -0 is -inf;
    gamma and gammaln at their poles and infinities; hard_sigmoid's
    gradient stops where it reaches 0 or 1."""
    attrs, y_mxnet, dx_mxnet = MXNET_SPECIAL_VALUES[name]
    x = np.array(SPECIAL, dtype=dtype)
    op, y = run(name, x, **attrs)
    dx = op.backward(np, np.ones_like(y))
    assert y.dtype == dx.dtype == np.dtype(dtype)
    np.testing.assert_allclose(y, np.array(y_mxnet, dtype), rtol=1e-6)
    np.testing.assert_allclose(dx, np.array(dx_mxnet, dtype), rtol=1e-6)
    # the signs of zeros and infinities too
    numbers = ~np.isnan(dx)
    np.testing.assert_array_equal(
        np.signbit(dx[numbers]), np.signbit(np.array(dx_mxnet)[numbers])
    )
