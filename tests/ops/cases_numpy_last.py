"""Case rows for ``dlbook/ops/numpy_last.py`` (``around``, bit-wise
operators, ``lcm``, ``roll``, ``rot90``, ``tril``, ``pad``,
``percentile``)."""

import numpy as np

from tests.ops.cases import Case


def _ints(rng, dtype):
    return [
        rng.randint(-20, 20, size=(3, 4)).astype('int32'),
        rng.randint(-20, 20, size=(3, 4)).astype('int32'),
    ]


def _int(rng, dtype):
    return [rng.randint(-20, 20, size=(3, 4)).astype('int32')]


def _halves(rng, dtype):
    return [(rng.randint(-8, 8, size=(3, 4)) / 2.0).astype(dtype)]


def _int_case(ref):
    return Case(
        [(3, 4), (3, 4)], make_inputs=_ints, ref=ref, grad=(), dtypes=()
    )


def _percentile_ref(x):
    return np.percentile(x, 30.0, axis=1).astype(x.dtype)


CASES = {
    '_npi_around': [
        Case([(3, 4)], make_inputs=_halves, ref=np.round, grad=()),
        Case(
            [(3, 4)],
            attrs={'decimals': 1},
            ref=lambda x: np.round(x, 1),
            avoid=tuple(np.arange(-1, 1.01, 0.05) + 0.025),
            margin=0.002,
            grad=(),
        ),
    ],
    '_npi_bitwise_and': _int_case(np.bitwise_and),
    '_npi_bitwise_or': _int_case(np.bitwise_or),
    '_npi_bitwise_xor': _int_case(np.bitwise_xor),
    '_npi_lcm': _int_case(np.lcm),
    '_npi_bitwise_not': Case(
        [(3, 4)], make_inputs=_int, ref=np.invert, grad=(), dtypes=()
    ),
    '_np_roll': [
        Case([(3, 4)], attrs={'shift': 2}, ref=lambda x: np.roll(x, 2)),
        Case(
            [(3, 4)],
            attrs={'shift': (1, -1), 'axis': (0, 1)},
            ref=lambda x: np.roll(x, (1, -1), axis=(0, 1)),
        ),
    ],
    '_npi_rot90': [
        Case([(3, 4)], ref=np.rot90),
        Case(
            [(2, 3, 4)],
            attrs={'k': -1, 'axes': (1, 2)},
            ref=lambda x: np.rot90(x, -1, axes=(1, 2)),
        ),
    ],
    '_npi_tril': [
        Case([(3, 4)], ref=np.tril),
        Case([(2, 3, 3)], attrs={'k': -1}, ref=lambda x: np.tril(x, -1)),
    ],
    '_npi_pad': [
        Case(
            [(2, 3)],
            attrs={'pad_width': ((1, 2), (0, 1)), 'constant_value': 0.5},
            ref=lambda x: np.pad(x, ((1, 2), (0, 1)), constant_values=0.5),
        ),
        Case(
            [(2, 3)],
            attrs={'pad_width': ((1, 1), (2, 2)), 'mode': 'reflect'},
            ref=lambda x: np.pad(x, ((1, 1), (2, 2)), mode='reflect'),
            grad=(),
        ),
    ],
    '_npi_percentile': Case(
        [(3, 5)],
        attrs={'q_scalar': 30.0, 'axis': 1},
        ref=_percentile_ref,
        grad=(),
    ),
}
