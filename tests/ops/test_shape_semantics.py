"""MXNet semantics of the shape and index operators, on raw NumPy arrays.

The case tables check forward against NumPy and backward against central
differences; these tests pin down what the tables cannot: MXNet's reshape
codes, error messages, multi-output behaviour, legacy (1,) results and
shape inference on zero-stride dummies.
"""

import numpy as np
import pytest

import tests.ops.cases  # noqa: F401  (loads the case files in order)
from dlbook.base import DLBookError
from dlbook.ops import REGISTRY
from dlbook.ops.shape import infer_reshape
from tests.ops import cases_index, cases_shape
from tests.ops.cases import make_inputs


def run(name, *arrays, **attrs):
    op = REGISTRY[name](**attrs)
    return op, op.forward(np, *arrays)


# -- reshape codes: the examples of MXNet's Reshape documentation ----------


@pytest.mark.parametrize(
    'src,target,expected',
    [
        ((2, 3, 4), (4, 0, 2), (4, 3, 2)),
        ((2, 3, 4), (2, 0, 0), (2, 3, 4)),
        ((2, 3, 4), (6, 1, -1), (6, 1, 4)),
        ((2, 3, 4), (3, -1, 8), (3, 1, 8)),
        ((2, 3, 4), (-1,), (24,)),
        ((2, 3, 4), (-2,), (2, 3, 4)),
        ((2, 3, 4), (2, -2), (2, 3, 4)),
        ((2, 3, 4), (-2, 1, 1), (2, 3, 4, 1, 1)),
        ((2, 3, 4), (-3, 4), (6, 4)),
        ((2, 3, 4, 5), (-3, -3), (6, 20)),
        ((2, 3, 4), (0, -3), (2, 12)),
        ((2, 3, 4), (-3, -2), (6, 4)),
        ((2, 3, 4), (-4, 1, 2, -2), (1, 2, 3, 4)),
        ((2, 3, 4), (2, -4, -1, 3, -2), (2, 1, 3, 4)),
        ((10, 5, 4), (-1, 0), (40, 5)),
    ],
)
def test_infer_reshape_documented_examples(src, target, expected):
    assert infer_reshape(src, target) == expected


def test_infer_reshape_reverse():
    assert infer_reshape((10, 5, 4), (-1, 0), reverse=True) == (50, 4)
    # a -4 group keeps its meaning when matched from the right
    assert infer_reshape((6, 4, 3), (-4, 2, -1, -1), reverse=True) == (
        2,
        2,
        18,
    )


@pytest.mark.parametrize(
    'target,words',
    [
        ((5, -1), 'not divisible'),
        ((-1, -1), 'only one'),
        ((7, 4), 'elements'),
        ((-5, 4), 'special code'),
        ((-4, 5, -1, 0), 'do not divide'),
        ((-4, -1, -1, 0), 'both be -1'),
        ((0, 0, 0, 0), 'no input dimension'),
        ((-3, -3), 'no input dimension'),
    ],
)
def test_reshape_errors_name_op_shape_and_argument(target, words):
    x = np.zeros((2, 3, 4))
    with pytest.raises(DLBookError) as err:
        run('reshape', x, shape=target)
    message = str(err.value)
    assert 'Reshape' in message and '(2, 3, 4)' in message
    assert str(target) in message and words in message


def test_reshape_positional_order_and_legacy_target_shape():
    assert list(REGISTRY['Reshape'].defaults)[:2] == ['shape', 'reverse']
    _, y = run('Reshape', np.zeros((2, 3, 4)), target_shape=(0, 4))
    assert y.shape == (6, 4)
    _, y = run(
        'Reshape', np.zeros((2, 3, 4)), target_shape=(3, 4), keep_highest=True
    )
    assert y.shape == (2, 3, 4)


def test_positional_attribute_order():
    assert list(REGISTRY['one_hot'].defaults)[0] == 'depth'
    assert list(REGISTRY['split'].defaults)[:2] == ['num_outputs', 'axis']
    assert list(REGISTRY['topk'].defaults)[:3] == ['axis', 'k', 'ret_typ']
    assert list(REGISTRY['slice_axis'].defaults) == ['axis', 'begin', 'end']
    assert list(REGISTRY['Pad'].defaults)[:2] == ['mode', 'pad_width']
    assert REGISTRY['concat'].defaults['dim'] == 1
    assert REGISTRY['split'].defaults['axis'] == 1


# -- errors -----------------------------------------------------------------


@pytest.mark.parametrize(
    'name,attrs,arg',
    [
        ('transpose', {'axes': (0, 3, 1)}, 'axes'),
        ('swapaxes', {'dim1': 0, 'dim2': 3}, 'dim2'),
        ('expand_dims', {'axis': 4}, 'axis'),
        ('squeeze', {'axis': 0}, 'squeeze axis 0'),
        ('reverse', {'axis': -4}, 'axis'),
        ('split', {'num_outputs': 4, 'axis': 1}, 'num_outputs=4'),
        ('tile', {'reps': (2, -1)}, 'reps'),  # reps=() is valid in MXNet
        ('broadcast_to', {'shape': (4, 3)}, 'shape'),
        ('broadcast_to', {'shape': (2, 5, 4)}, '(2, 5, 4)'),
        ('slice_axis', {'axis': 3, 'begin': 0, 'end': 1}, 'axis'),
        ('slice', {'begin': (0, 0, 0, 0), 'end': (1, 1, 1, 1)}, 'begin'),
        ('topk', {'k': 7}, 'k=7'),
        ('Pad', {'pad_width': (1, 1)}, 'pad_width'),
        ('_getitem', {'key': (0, 5)}, 'key'),
    ],
)
def test_errors_name_op_shape_and_argument(name, attrs, arg):
    x = np.zeros((2, 3, 4))
    with pytest.raises(DLBookError) as err:
        run(name, x, **attrs)
    message = str(err.value)
    assert REGISTRY[name].name in message
    assert '(2, 3, 4)' in message and arg in message


def test_concat_mismatch_names_shapes():
    with pytest.raises(DLBookError, match=r'Concat.*\(2, 3\).*\(3, 4\)'):
        run('concat', np.zeros((2, 3)), np.zeros((3, 4)), dim=1)
    _, y = run('concat', np.zeros((2, 3)), np.zeros((3, 3)), dim=0)
    assert y.shape == (5, 3)


def test_take_raise_mode_and_clip_wrap():
    a = np.arange(12.0).reshape(4, 3)
    with pytest.raises(DLBookError, match='take'):
        run('take', a, np.array([0.0, 4.0]), mode='raise')
    _, y = run('take', a, np.array([-1.0, 5.0]))
    np.testing.assert_array_equal(y, a[[0, 3]])
    _, y = run('take', a, np.array([-1.0, 5.0]), mode='wrap')
    np.testing.assert_array_equal(y, a[[3, 1]])
    _, y = run('take', a, np.array([1.7, 2.2]), axis=1)  # truncation
    np.testing.assert_array_equal(y, a[:, [1, 2]])


# -- multi-output, legacy shapes --------------------------------------------


def test_split_outputs_and_backward_with_missing_gradient():
    x = np.arange(12.0).reshape(3, 4)
    op, ys = run('split', x, num_outputs=3, axis=0, squeeze_axis=True)
    assert op.num_outputs == 3 and op.list_outputs() == (
        'output0',
        'output1',
        'output2',
    )
    assert [y.shape for y in ys] == [(4,)] * 3
    dx = op.backward(np, np.ones(4), None, 2 * np.ones(4))
    np.testing.assert_array_equal(dx, [[1] * 4, [0] * 4, [2] * 4])
    op, y = run('SliceChannel', x, num_outputs=1)
    assert op.list_outputs() == ('output',) and y.shape == (3, 4)


def test_topk_ret_types():
    x = np.array([[0.3, 0.9, 0.1, 0.5]])
    op, idx = run('topk', x, k=2)
    assert idx.dtype == np.float32 and idx.tolist() == [[1, 3]]
    assert not op.differentiable and op.num_outputs == 1
    op, (v, i) = run('topk', x, k=2, ret_typ='both', is_ascend=True)
    assert op.num_outputs == 2 and op.differentiable
    assert v.tolist() == [[0.1, 0.3]] and i.tolist() == [[2, 0]]
    dx = op.backward(np, np.array([[1.0, 2.0]]), None)
    np.testing.assert_array_equal(dx, [[2, 0, 1, 0]])
    _, mask = run('topk', x, k=2, ret_typ='mask')
    assert mask.tolist() == [[0, 1, 0, 1]] and mask.dtype == x.dtype
    with pytest.raises(DLBookError, match='ret_typ'):
        REGISTRY['topk'](ret_typ='values')


def test_scalar_results_have_shape_one():
    x = np.arange(12.0).reshape(3, 4)
    op, y = run('_getitem', x, key=(1, 2))
    assert y.shape == (1,) and y[0] == 6
    assert op.backward(np, np.array([5.0]))[1, 2] == 5
    assert run('squeeze', np.zeros((1, 1, 1)))[1].shape == (1,)
    assert run('pick', np.arange(4.0), np.array([2.0]))[1].shape == (1,)
    assert run('gather_nd', x, np.array([1.0, 2.0]))[1].shape == (1,)
    assert run('take', np.arange(4.0), np.array(2.0))[1].shape == (1,)


def test_getitem_repeated_fancy_index_accumulates():
    x = np.arange(12.0).reshape(3, 4)
    op, y = run('_getitem', x, key=[0, 2, 0])
    dx = op.backward(np, np.ones((3, 4)))
    np.testing.assert_array_equal(dx[:, 0], [2, 0, 1])
    op, y = run('_getitem', x, key=(slice(None), np.array([1.0, 1.0])))
    assert y.shape == (3, 2)
    np.testing.assert_array_equal(
        op.backward(np, np.ones((3, 2)))[:, 1], [2, 2, 2]
    )


def test_where_one_d_condition_selects_rows():
    cond = np.array([1.0, 0.0])
    x, y = np.ones((2, 3)), np.zeros((2, 3))
    op, out = run('where', cond, x, y)
    np.testing.assert_array_equal(out, [[1] * 3, [0] * 3])
    dc, dx, dy = op.backward(np, np.full((2, 3), 7.0))
    assert dc is None
    np.testing.assert_array_equal(dx, [[7] * 3, [0] * 3])
    np.testing.assert_array_equal(dy, [[0] * 3, [7] * 3])
    with pytest.raises(DLBookError, match='where'):
        run('where', np.ones(3), x, y)


def test_sequence_ops_take_length_input_only_when_asked():
    assert REGISTRY['SequenceLast']().list_arguments() == ('data',)
    assert REGISTRY['SequenceLast'](
        use_sequence_length=True
    ).list_arguments() == ('data', 'sequence_length')


def test_non_differentiable_ops():
    for name in (
        'zeros_like',
        'ones_like',
        'shape_array',
        'size_array',
        'one_hot',
        'argsort',
    ):
        assert not REGISTRY[name].differentiable, name
    _, s = run('shape_array', np.zeros((2, 3)))
    assert s.dtype == np.int64 and s.tolist() == [2, 3]


# -- every row: fresh gradients, shape inference on zero-stride dummies ----

ROWS = [
    (name, i, case)
    for table in (cases_shape.CASES, cases_index.CASES)
    for name, rows in table.items()
    for i, case in enumerate(rows if isinstance(rows, list) else [rows])
]


@pytest.mark.parametrize(
    'name,index,case', ROWS, ids=[f'{n}-{i}' for n, i, _ in ROWS]
)
def test_forward_runs_on_zero_stride_dummies(name, index, case):
    """The symbol layer infers shapes by running forward on read-only
    ``np.broadcast_to(0.0, shape)`` dummies: shapes must match."""
    arrays = make_inputs(case, 'float64')
    dummies = [np.broadcast_to(np.zeros((), a.dtype), a.shape) for a in arrays]
    _, real = run(name, *arrays, **case.attrs)
    _, fake = run(name, *dummies, **case.attrs)
    real = real if isinstance(real, tuple) else (real,)
    fake = fake if isinstance(fake, tuple) else (fake,)
    assert [f.shape for f in fake] == [r.shape for r in real]


@pytest.mark.parametrize(
    'name,index,case', ROWS, ids=[f'{n}-{i}' for n, i, _ in ROWS]
)
def test_gradients_are_fresh_arrays(name, index, case):
    if not REGISTRY[name].differentiable or case.grad == ():
        return
    arrays = make_inputs(case, 'float64')
    op, out = run(name, *arrays, **case.attrs)
    outs = out if isinstance(out, tuple) else (out,)
    dys = [np.ones(o.shape) for o in outs]
    grads = op.backward(np, *dys)
    grads = grads if isinstance(grads, tuple) else (grads,)
    for g in grads:
        if g is None:
            continue
        assert all(not np.shares_memory(g, d) for d in dys)
        assert all(not np.shares_memory(g, a) for a in arrays)


def test_broadcast_results_are_writable_copies():
    x = np.ones((1, 3))
    for name, attrs, extra in [
        ('broadcast_to', {'shape': (2, 3)}, ()),
        ('broadcast_axis', {'axis': 0, 'size': 2}, ()),
        ('broadcast_like', {}, (np.zeros((2, 3)),)),
    ]:
        _, y = run(name, x, *extra, **attrs)
        y += 1
        assert y.shape == (2, 3) and x.sum() == 3, name
