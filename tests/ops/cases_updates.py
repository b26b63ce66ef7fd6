"""Rows for the update operators as graph nodes (``ops/update_ops.py``).
MXNet's recorded values are checked in tests/symbol/test_sym_updates.py;
these rows check each node's forward on raw arrays."""

import numpy as np

from tests.ops.cases import Case

LR, WD, MOM = 0.1, 0.01, 0.9
S3 = [(3, 4)]


def _shaped(outs, arrays):
    assert outs[0].shape == arrays[0].shape
    assert np.all(np.isfinite(outs[0]))


def _positive(rng, dtype, count):
    return [rng.uniform(0.1, 1.0, (3, 4)).astype(dtype) for _ in range(count)]


def _state_case(count, attrs, dtypes=('float32', 'float64')):
    return Case(
        S3 * count,
        attrs,
        check=_shaped,
        grad=(),
        make_inputs=lambda rng, dtype: _positive(rng, dtype, count),
        dtypes=dtypes,
    )


CASES = {
    'sgd_update': Case(
        S3 * 2,
        {'lr': LR, 'wd': WD},
        ref=lambda w, g: w - LR * (g + WD * w),
        grad=(),
    ),
    'sgd_mom_update': Case(
        S3 * 3,
        {'lr': LR, 'wd': WD, 'momentum': MOM},
        ref=lambda w, g, m: w + MOM * m - LR * (g + WD * w),
        grad=(),
    ),
    'mp_sgd_update': Case(
        S3 * 3,
        {'lr': LR, 'wd': WD},
        ref=lambda w, g, w32: w32 - LR * (g + WD * w32),
        grad=(),
        dtypes=('float32',),
    ),
    'mp_sgd_mom_update': Case(
        S3 * 4,
        {'lr': LR, 'wd': WD, 'momentum': MOM},
        ref=lambda w, g, m, w32: w32 + MOM * m - LR * (g + WD * w32),
        grad=(),
        dtypes=('float32',),
    ),
    'nag_mom_update': _state_case(3, {'lr': LR, 'momentum': MOM}),
    'mp_nag_mom_update': _state_case(
        4, {'lr': LR, 'momentum': MOM}, ('float32',)
    ),
    'signsgd_update': Case(
        S3 * 2,
        {'lr': LR, 'wd': WD},
        ref=lambda w, g: (1 - LR * WD) * w - LR * np.sign(g),
        grad=(),
    ),
    'signum_update': _state_case(3, {'lr': LR, 'momentum': MOM}),
    'adam_update': _state_case(4, {'lr': LR}),
    'rmsprop_update': _state_case(3, {'lr': LR}),
    'rmspropalex_update': Case(
        S3 * 5,
        {'lr': LR},
        check=_shaped,
        grad=(),
        # n (the third input) above g**2, as running means keep it
        make_inputs=lambda rng, dtype: [
            x + (2.0 if i == 2 else 0.0)
            for i, x in enumerate(_positive(rng, dtype, 5))
        ],
    ),
    'ftml_update': _state_case(5, {'lr': LR, 't': 1}),
    'ftrl_update': _state_case(4, {'lr': LR}),
    'lamb_update_phase1': _state_case(4, {'t': 1, 'wd': WD}),
    'lamb_update_phase2': Case(
        [(3, 4), (3, 4), (1,), (1,)],
        {'lr': LR},
        ref=lambda w, g, r1, r2: w - LR * r1 / r2 * g,
        make_inputs=lambda rng, dtype: [
            rng.uniform(-1, 1, (3, 4)).astype(dtype),
            rng.uniform(-1, 1, (3, 4)).astype(dtype),
            np.array([2.0], dtype),
            np.array([4.0], dtype),
        ],
        grad=(),
    ),
    'multi_sum_sq': Case(
        [(3, 4), (5,)],
        {'num_arrays': 2},
        ref=lambda a, b: np.array([np.sum(a * a), np.sum(b * b)], 'float32'),
        grad=(),
        dtypes=('float32',),
    ),
    'multi_lars': Case(
        [(2,)] * 4,
        {'eta': 0.5, 'eps': 1e-8},
        ref=lambda lrs, w, g, wd: (
            lrs * 0.5 * np.sqrt(w) / (np.sqrt(g) + wd * np.sqrt(w) + 1e-8)
        ),
        make_inputs=lambda rng, dtype: _positive(rng, dtype, 4),
        grad=(),
        dtypes=('float32',),
        rtol=1e-5,
    ),
    'all_finite': Case(
        S3,
        ref=lambda x: np.array([1.0], 'float32'),
        grad=(),
        dtypes=('float32',),
    ),
    'multi_all_finite': Case(
        S3 * 2,
        {'num_arrays': 2},
        ref=lambda a, b: np.array([1.0], 'float32'),
        grad=(),
        dtypes=('float32',),
    ),
}
