"""Case rows for the index family (``dlbook/ops/index.py``).

Index inputs are drawn as floats of the data dtype (MXNet's usual form)
and only the data gradient is checked (``grad=(0,)``).  Sorting inputs are
a shuffled ramp plus small noise, so they have no ties.
"""

import numpy as np

from tests.ops.cases import Case


def _data_and_index(shape, index, low=-1.0, high=1.0):
    """make_inputs: uniform data of ``shape`` and a fixed index array."""

    def make(rng, dtype):
        data = rng.uniform(low, high, size=shape).astype(dtype)
        return [data, np.asarray(index, dtype=dtype)]

    return make


def _no_ties(shape):
    """make_inputs: values of a shuffled ramp, at least 0.05 apart."""

    def make(rng, dtype):
        n = int(np.prod(shape))
        ramp = rng.permutation(n) + rng.uniform(0, 0.5, size=n)
        return [(ramp / 10).reshape(shape).astype(dtype)]

    return make


def _take(axis, mode):
    def ref(a, idx):
        return np.take(a, idx.astype(np.int64), axis=axis, mode=mode)

    return ref


def _topk(axis, k, ascend):
    def order(x):
        idx = np.argsort(x if ascend else -x, axis=axis)
        return np.take(idx, np.arange(k), axis=axis)

    return order


def _topk_value(axis, k, ascend=False):
    return lambda x: np.take_along_axis(x, _topk(axis, k, ascend)(x), axis)


def _topk_mask(axis, k):
    def ref(x):
        mask = np.zeros_like(x)
        np.put_along_axis(mask, _topk(axis, k, False)(x), 1, axis)
        return mask

    return ref


def _pick(axis, keepdims=False, mode='clip'):
    def ref(data, index):
        idx = index.astype(np.int64)
        n = data.shape[axis]
        idx = np.clip(idx, 0, n - 1) if mode == 'clip' else idx % n
        y = np.take_along_axis(data, np.expand_dims(idx, axis), axis)
        return y if keepdims else np.squeeze(y, axis)

    return ref


def _where_inputs(cond_shape, shape):
    def make(rng, dtype):
        cond = (rng.uniform(size=cond_shape) > 0.5).astype(dtype)
        return [
            cond,
            rng.uniform(-1, 1, shape).astype(dtype),
            rng.uniform(-1, 1, shape).astype(dtype),
        ]

    return make


def _where_1d(c, x, y):
    return np.where(c.reshape(-1, *([1] * (x.ndim - 1))) != 0, x, y)


def _seq_inputs(shape, lengths):
    def make(rng, dtype):
        return [
            rng.uniform(-1, 1, shape).astype(dtype),
            np.asarray(lengths, dtype=dtype),
        ]

    return make


def _seq_last(data, lengths):
    return np.stack([data[int(n) - 1, b] for b, n in enumerate(lengths)])


def _seq_reverse(data, lengths):
    out = data.copy()
    for b, n in enumerate(lengths.astype(int)):
        out[:n, b] = data[:n, b][::-1]
    return out


CASES = {
    'slice': [
        Case(
            [(3, 4, 5)],
            attrs={'begin': (0, 1), 'end': (2, 3)},
            ref=lambda x: x[0:2, 1:3],
        ),
        Case(
            [(3, 4, 5)],
            attrs={
                'begin': (None, -3, 4),
                'end': (None, None, 0),
                'step': (2, 1, -2),
            },
            ref=lambda x: x[::2, -3:, 4:0:-2],
        ),
    ],
    'slice_axis': [
        Case(
            [(3, 4, 5)],
            attrs={'axis': 1, 'begin': 1, 'end': 3},
            ref=lambda x: x[:, 1:3],
        ),
        Case(
            [(3, 4, 5)],
            attrs={'axis': -1, 'begin': -2, 'end': None},
            ref=lambda x: x[:, :, -2:],
        ),
    ],
    'slice_like': [
        Case(
            [(3, 4, 5), (2, 3, 5)], ref=lambda x, s: x[:2, :3, :5], grad=(0,)
        ),
        Case(
            [(3, 4, 5), (2, 3, 2)],
            attrs={'axes': (0, -1)},
            ref=lambda x, s: x[:2, :, :2],
            grad=(0,),
        ),
    ],
    'take': [
        Case(
            [(5, 3), (4,)],
            make_inputs=_data_and_index((5, 3), [0, 4, 2, 4]),
            ref=_take(0, 'clip'),
            grad=(0,),
        ),
        Case(
            [(2, 4, 3), (2, 3)],
            make_inputs=_data_and_index((2, 4, 3), [[1, 5, -1], [3, 0, 1]]),
            attrs={'axis': 1},
            ref=_take(1, 'clip'),
            grad=(0,),
        ),
        Case(
            [(2, 4, 3), (2, 3)],
            make_inputs=_data_and_index((2, 4, 3), [[1, 5, -1], [3, 0, 1]]),
            attrs={'axis': -2, 'mode': 'wrap'},
            ref=_take(-2, 'wrap'),
            grad=(0,),
        ),
        Case(
            [(4, 3), (3,)],
            make_inputs=_data_and_index((4, 3), [3, 0, 3]),
            attrs={'axis': 0, 'mode': 'raise'},
            ref=_take(0, 'raise'),
            grad=(0,),
        ),
    ],
    'pick': [
        Case(
            [(3, 4), (3,)],
            make_inputs=_data_and_index((3, 4), [0, 3, 1]),
            ref=_pick(-1),
            grad=(0,),
        ),
        Case(
            [(3, 4), (4,)],
            make_inputs=_data_and_index((3, 4), [0, 2, 5, 1]),
            attrs={'axis': 0, 'keepdims': True},
            ref=_pick(0, keepdims=True),
            grad=(0,),
        ),
        Case(
            [(3, 4), (3,)],
            make_inputs=_data_and_index((3, 4), [-1, 5, 2]),
            attrs={'mode': 'wrap'},
            ref=_pick(-1, mode='wrap'),
            grad=(0,),
        ),
    ],
    'gather_nd': [
        Case(
            [(3, 4, 2), (2, 3)],
            make_inputs=_data_and_index((3, 4, 2), [[0, 2, 0], [1, 3, 1]]),
            ref=lambda d, i: d[tuple(i.astype(int))],
            grad=(0,),
        ),
        Case(
            [(3, 4), (2, 2, 2)],
            make_inputs=_data_and_index(
                (3, 4), [[[0, 2], [1, 2]], [[3, 0], [1, 0]]]
            ),
            ref=lambda d, i: d[tuple(i.astype(int))],
            grad=(0,),
        ),
    ],
    'scatter_nd': Case(
        [(3, 2), (2, 3)],
        make_inputs=_data_and_index((3, 2), [[0, 2, 3], [1, 0, 1]]),
        attrs={'shape': (4, 2, 2)},
        ref=lambda d, i: _scatter(d, i, (4, 2, 2)),
        grad=(0,),
    ),
    'one_hot': [
        Case(
            [(4,)],
            make_inputs=lambda rng, dtype: [np.array([0, 2, 4, 1], dtype)],
            attrs={'depth': 4},
            ref=lambda i: (i[:, None] == np.arange(4)).astype(np.float32),
            dtypes=('float32',),
        ),
        Case(
            [(2, 2)],
            make_inputs=lambda rng, dtype: [np.array([[0, 2], [1, 1]], dtype)],
            attrs={
                'depth': 3,
                'on_value': 5.0,
                'off_value': -1.0,
                'dtype': 'float64',
            },
            ref=lambda i: np.where(np.eye(3)[i.astype(int)] > 0, 5.0, -1.0),
            dtypes=('float64',),
        ),
    ],
    'where': [
        Case(
            [(3, 4)] * 3,
            make_inputs=_where_inputs((3, 4), (3, 4)),
            ref=lambda c, x, y: np.where(c != 0, x, y),
            grad=(1, 2),
        ),
        Case(
            [(3,), (3, 2, 2), (3, 2, 2)],
            make_inputs=_where_inputs((3,), (3, 2, 2)),
            ref=_where_1d,
            grad=(1, 2),
        ),
    ],
    'topk': [
        Case(
            [(3, 5)],
            make_inputs=_no_ties((3, 5)),
            attrs={'k': 2},
            ref=lambda x: _topk(-1, 2, False)(x).astype(np.float32),
            dtypes=('float32',),
            grad=(),
        ),
        Case(
            [(3, 5)],
            make_inputs=_no_ties((3, 5)),
            attrs={'k': 2, 'ret_typ': 'value'},
            ref=_topk_value(-1, 2),
        ),
        Case(
            [(4, 3)],
            make_inputs=_no_ties((4, 3)),
            attrs={
                'axis': 0,
                'k': 3,
                'ret_typ': 'both',
                'is_ascend': True,
                'dtype': 'int64',
            },
            ref=lambda x: (_topk_value(0, 3, True)(x), _topk(0, 3, True)(x)),
        ),
        Case(
            [(3, 5)],
            make_inputs=_no_ties((3, 5)),
            attrs={'k': 2, 'ret_typ': 'mask'},
            ref=_topk_mask(-1, 2),
            grad=(),
        ),
        Case(
            [(2, 3)],
            make_inputs=_no_ties((2, 3)),
            attrs={'axis': None, 'k': 4, 'ret_typ': 'value'},
            ref=lambda x: -np.sort(-x.ravel())[:4],
        ),
    ],
    'sort': [
        Case(
            [(3, 5)],
            make_inputs=_no_ties((3, 5)),
            ref=lambda x: np.sort(x, -1),
        ),
        Case(
            [(4, 3)],
            make_inputs=_no_ties((4, 3)),
            attrs={'axis': 0, 'is_ascend': False},
            ref=lambda x: -np.sort(-x, 0),
        ),
    ],
    'argsort': [
        Case(
            [(3, 5)],
            make_inputs=_no_ties((3, 5)),
            ref=lambda x: np.argsort(x, -1).astype(np.float32),
            dtypes=('float32',),
        ),
        Case(
            [(4, 3)],
            make_inputs=_no_ties((4, 3)),
            attrs={'axis': 0, 'is_ascend': False, 'dtype': 'int32'},
            ref=lambda x: np.argsort(-x, 0).astype(np.int32),
        ),
    ],
    '_getitem': [
        Case(
            [(3, 4, 5)],
            attrs={'key': (1, slice(None, None, 2))},
            ref=lambda x: x[1, ::2],
        ),
        Case(
            [(3, 4, 5)],
            attrs={'key': (Ellipsis, None, 2)},
            ref=lambda x: x[..., None, 2],
        ),
        Case(
            [(3, 4)], attrs={'key': (1, 2)}, ref=lambda x: x[1, 2].reshape(1)
        ),
        Case([(3, 4)], attrs={'key': [0, 2, 0]}, ref=lambda x: x[[0, 2, 0]]),
        Case(
            [(3, 4)],
            attrs={'key': (slice(1, None), np.array([3, 3, 0]))},
            ref=lambda x: x[1:, [3, 3, 0]],
        ),
        Case(
            [(3, 4)],
            attrs={'key': np.array([True, False, True])},
            ref=lambda x: x[[0, 2]],
        ),
    ],
    'SequenceLast': [
        Case([(4, 3, 2)], ref=lambda x: x[-1]),
        Case(
            [(4, 3, 2), (3,)],
            make_inputs=_seq_inputs((4, 3, 2), [2, 4, 1]),
            attrs={'use_sequence_length': True},
            ref=_seq_last,
            grad=(0,),
        ),
        Case([(3, 4, 2)], attrs={'axis': 1}, ref=lambda x: x[:, -1]),
    ],
    'SequenceReverse': [
        Case([(4, 3, 2)], ref=lambda x: x[::-1]),
        Case(
            [(4, 3, 2), (3,)],
            make_inputs=_seq_inputs((4, 3, 2), [2, 4, 1]),
            attrs={'use_sequence_length': True},
            ref=_seq_reverse,
            grad=(0,),
        ),
    ],
}


def _scatter(data, idx, shape):
    out = np.zeros(shape, data.dtype)
    out[tuple(idx.astype(int))] = data
    return out
