"""Case rows for the NumPy-mode graph operators
(``dlbook/ops/numpy_graph.py``): NumPy itself is the reference."""

import numpy as np

from tests.ops.cases import Case
from tests.ops.cases_random import _stats


def _condition(*shapes):
    """make_inputs: a 0/1 condition of ``shapes[0]``, then uniform
    branches."""

    def make(rng, dtype):
        c = (rng.uniform(size=shapes[0]) < 0.5).astype(dtype)
        return [c] + [
            rng.uniform(-1, 1, size=s).astype(dtype) for s in shapes[1:]
        ]

    return make


def _with_zeros(rng, dtype):
    x = rng.uniform(-1, 1, size=(3, 4))
    x[rng.uniform(size=(3, 4)) < 0.3] = 0
    x[0] = 1
    return [x.astype(dtype)]


CASES = {
    '_npi_argmax': [
        Case([(3, 4)], grad=(), ref=lambda x: np.argmax(x)),
        Case(
            [(3, 4)],
            attrs={'axis': 1},
            grad=(),
            ref=lambda x: np.argmax(x, axis=1),
        ),
        Case(
            [(3, 4)],
            attrs={'axis': -2, 'keepdims': True},
            grad=(),
            ref=lambda x: np.argmax(x, axis=0, keepdims=True),
        ),
    ],
    '_npi_argmin': [
        Case([(3, 4)], grad=(), ref=lambda x: np.argmin(x)),
        Case(
            [(3, 4)],
            attrs={'axis': 0},
            grad=(),
            ref=lambda x: np.argmin(x, axis=0),
        ),
    ],
    '_npi_var': [
        Case([(3, 4)], ref=lambda x: np.var(x)),
        Case(
            [(3, 4)],
            attrs={'axis': 1, 'ddof': 1, 'keepdims': True},
            ref=lambda x: np.var(x, axis=1, ddof=1, keepdims=True),
        ),
    ],
    '_npi_std': [
        Case([(3, 4)], ref=lambda x: np.std(x)),
        Case(
            [(2, 3, 4)],
            attrs={'axis': (0, 2)},
            ref=lambda x: np.std(x, axis=(0, 2)),
        ),
    ],
    '_np_all': [
        Case([(3, 4)], make_inputs=_with_zeros, ref=np.all),
        Case(
            [(3, 4)],
            make_inputs=_with_zeros,
            attrs={'axis': 1},
            ref=lambda x: np.all(x, axis=1),
        ),
    ],
    '_np_any': [
        Case(
            [(3, 4)],
            make_inputs=_with_zeros,
            attrs={'axis': 0, 'keepdims': True},
            ref=lambda x: np.any(x, axis=0, keepdims=True),
        ),
    ],
    '_np_dot': [
        Case([(4,), (4,)], ref=np.dot),
        Case([(2, 3), (3, 4)], ref=np.dot),
        Case([(2, 3, 4), (4,)], ref=np.dot),
        Case([(2, 3), (5, 3, 4)], ref=np.dot),
        Case([(3,), (3, 2)], ref=np.dot),
    ],
    '_npi_matmul': [
        Case([(2, 3), (3, 4)], ref=np.matmul),
        Case([(2, 2, 3), (3, 4)], ref=np.matmul),
        Case([(3,), (2, 3, 4)], ref=np.matmul),
        Case([(2, 1, 2, 3), (3, 3)], ref=np.matmul),
    ],
    '_np_transpose': [
        Case([(2, 3, 4)], ref=np.transpose),
        Case(
            [(2, 3, 4)],
            attrs={'axes': (1, 0, 2)},
            ref=lambda x: np.transpose(x, (1, 0, 2)),
        ),
    ],
    '_np_squeeze': [
        Case([(1, 3, 1)], ref=np.squeeze),
        Case(
            [(1, 3, 1)],
            attrs={'axis': -1},
            ref=lambda x: np.squeeze(x, axis=-1),
        ),
        Case([(1, 1)], ref=np.squeeze),
    ],
    '_npi_broadcast_to': Case(
        [(3, 1)],
        attrs={'shape': (2, 3, 4)},
        ref=lambda x: np.broadcast_to(x, (2, 3, 4)),
    ),
    '_npi_concatenate': Case(
        [(2, 3), (4, 3)],
        attrs={'axis': 0},
        ref=lambda a, b: np.concatenate([a, b]),
    ),
    '_npi_stack': Case(
        [(2, 3), (2, 3)],
        attrs={'axis': -1},
        ref=lambda a, b: np.stack([a, b], axis=-1),
    ),
    '_split_v2': [
        Case(
            [(6, 2)],
            attrs={'sections': 3},
            ref=lambda x: tuple(np.split(x, 3)),
        ),
        Case(
            [(2, 5)],
            attrs={'indices': (0, 1, 3), 'axis': 1},
            ref=lambda x: tuple(np.split(x, [1, 3], axis=1)),
        ),
    ],
    '_npi_where': [
        Case(
            [(3, 4), (3, 4), (3, 4)],
            make_inputs=_condition((3, 4), (3, 4), (3, 4)),
            grad=(1, 2),
            ref=lambda c, x, y: np.where(c, x, y),
        ),
        Case(
            [(3, 1), (4,), (3, 4)],
            make_inputs=_condition((3, 1), (4,), (3, 4)),
            grad=(1, 2),
            ref=lambda c, x, y: np.where(c, x, y),
        ),
    ],
    '_npi_where_rscalar': Case(
        [(3, 4), (3, 4)],
        make_inputs=_condition((3, 4), (3, 4)),
        attrs={'scalar': 0.5},
        grad=(1,),
        ref=lambda c, x: np.where(c, x, np.float32(0.5)).astype(x.dtype),
    ),
    '_npi_where_lscalar': Case(
        [(3, 4), (3, 4)],
        make_inputs=_condition((3, 4), (3, 4)),
        attrs={'scalar': 0.5},
        grad=(1,),
        ref=lambda c, x: np.where(c, np.float32(0.5), x).astype(x.dtype),
    ),
    '_npi_zeros': Case(
        [], attrs={'shape': (2, 3)}, ref=lambda: np.zeros((2, 3), np.float32)
    ),
    '_npi_ones': Case(
        [],
        attrs={'shape': 3, 'dtype': 'int32'},
        ref=lambda: np.ones(3, np.int32),
    ),
    '_npi_arange': Case(
        [],
        attrs={'start': 1, 'stop': 7, 'step': 2},
        ref=lambda: np.arange(1, 7, 2, dtype=np.float32),
    ),
    '_npi_eye': Case(
        [],
        attrs={'N': 3, 'k': 1},
        ref=lambda: np.eye(3, k=1, dtype=np.float32),
    ),
    '_npi_full_like': Case(
        [(2, 3)], attrs={'fill_value': 2.5}, ref=lambda a: np.full_like(a, 2.5)
    ),
    '_npx_reshape': [
        Case(
            [(2, 3, 4)],
            attrs={'newshape': (-2, -1)},
            ref=lambda x: x.reshape(2, 12),
        ),
        Case(
            [(2, 3, 4)],
            attrs={'newshape': (-6, 1, 2, -4)},
            ref=lambda x: x.reshape(1, 2, 3, 4),
        ),
        Case(
            [(2, 3, 4)],
            attrs={'newshape': (-1, -5), 'reverse': True},
            ref=lambda x: x.reshape(2, 12),
        ),
    ],
    '_npi_normal': Case(
        [],
        attrs={'loc': 1, 'scale': 2, 'size': (100, 200)},
        check=_stats(1, 2, (100, 200)),
    ),
    '_npi_uniform': Case(
        [],
        attrs={'low': 2, 'high': 4, 'size': 20000},
        check=_stats(3, 2 / 12**0.5, (20000,)),
    ),
}
