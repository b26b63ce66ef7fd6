"""The several-weight update operators check every input before they
change anything (``dlbook/ndarray/updates.py``: ``_multi``).

MXNet infers the shapes and dtypes of a whole ``multi_sgd_update`` call
before its kernel runs, so a bad third weight fails the call with every
weight as it was.  Each operator here gets three good weights, then one
input of the third spoiled (a shape, a dtype, a context, a setting, an
``out`` target): the call must fail naming weight 2, and every weight,
state and master copy must be unchanged.
"""

import numpy as np
import pytest

import dlbook as mx
from dlbook import nd
from dlbook.base import DLBookError

SHAPES = [(2, 3), (4,), (3,)]


def _weights(layout):
    """One dict of NDArrays per weight, ``layout`` mapping each array's
    name to its dtype; values drawn per weight."""
    groups = []
    for i, shape in enumerate(SHAPES):
        rng = np.random.RandomState(i)
        groups.append(
            {
                key: nd.array(rng.uniform(0.1, 1, shape), dtype=dtype)
                for key, dtype in layout.items()
            }
        )
    return groups


def _interleaved(groups):
    return [a for group in groups for a in group.values()]


def _lists(groups):
    """The groups as the lists of ``nd.contrib``'s forms: weights, grads,
    mean, var and, for the ``mp_`` forms, weights32."""
    names = ['weight', 'grad', 'mean', 'var', 'weight32']
    return [[g[key] for g in groups] for key in names if key in groups[0]]


SGD = {'weight': 'float32', 'grad': 'float32'}
MOM = {**SGD, 'mom': 'float32'}
MP = {'weight': 'float16', 'grad': 'float16', 'weight32': 'float32'}
MP_MOM = {
    'weight': 'float16',
    'grad': 'float16',
    'mom': 'float32',
    'weight32': 'float32',
}
MOMENTS = {**SGD, 'mean': 'float32', 'var': 'float32'}
MP_MOMENTS = {
    'weight': 'float16',
    'grad': 'float16',
    'mean': 'float32',
    'var': 'float32',
    'weight32': 'float32',
}
RATES = {'lrs': [0.1, 0.2, 0.3], 'wds': [0.01, 0.0, 0.02]}


def _multi(name, **kw):
    def call(groups, out, rates=RATES):
        return getattr(nd, name)(
            *_interleaved(groups), num_weights=3, out=out, **rates, **kw
        )

    return call


def _preloaded(name, **kw):
    def call(groups, out, rates=RATES):
        return getattr(nd, name)(
            *_interleaved(groups),
            *(nd.array(v) for v in rates.values()),
            num_weights=3,
            out=out,
            **kw,
        )

    return call


def _lamb(name):
    def call(groups, out, rates=RATES):
        return getattr(nd.contrib, name)(
            *_lists(groups), [1, 2, 3], rates['lrs'], rates['wds'], out=out
        )

    return call


def _adamw(name, rescale_grad=1.0):
    def call(groups, out, rates=RATES):
        return getattr(nd.contrib, name)(
            *_lists(groups),
            rescale_grad,
            rates['lrs'],
            rates['wds'],
            [1.0, 0.5, 1.0],
            out=out,
        )

    return call


#: name -> (each weight's arrays and dtypes, call(groups, out, rates))
OPERATORS = {
    'multi_sgd_update': (SGD, _multi('multi_sgd_update')),
    'multi_sgd_mom_update': (
        MOM,
        _multi('multi_sgd_mom_update', momentum=0.9),
    ),
    'multi_mp_sgd_update': (MP, _multi('multi_mp_sgd_update')),
    'multi_mp_sgd_mom_update': (
        MP_MOM,
        _multi('multi_mp_sgd_mom_update', momentum=0.9),
    ),
    'preloaded_multi_sgd_update': (
        SGD,
        _preloaded('preloaded_multi_sgd_update'),
    ),
    'preloaded_multi_sgd_mom_update': (
        MOM,
        _preloaded('preloaded_multi_sgd_mom_update', momentum=0.9),
    ),
    'preloaded_multi_mp_sgd_update': (
        MP,
        _preloaded('preloaded_multi_mp_sgd_update'),
    ),
    'preloaded_multi_mp_sgd_mom_update': (
        MP_MOM,
        _preloaded('preloaded_multi_mp_sgd_mom_update', momentum=0.9),
    ),
    'multi_lamb_update': (MOMENTS, _lamb('multi_lamb_update')),
    'multi_mp_lamb_update': (MP_MOMENTS, _lamb('multi_mp_lamb_update')),
    'multi_adamw_update': (MOMENTS, _adamw('multi_adamw_update')),
    'multi_mp_adamw_update': (MP_MOMENTS, _adamw('multi_mp_adamw_update')),
    # a step skipped for its rescale_grad checks its inputs all the same
    'multi_adamw_update_skipped': (
        MOMENTS,
        _adamw('multi_adamw_update', rescale_grad=0.0),
    ),
}


def _reshaped(x):
    return nd.array(np.ones(x.shape + (1,)), dtype=x.dtype)


def _retyped(x):
    other = 'float64' if x.dtype != np.float64 else 'float32'
    return x.astype(other)


def _moved(x):
    return x.as_in_context(mx.cpu(1))


#: how one array of the third weight is spoiled -> (the change, the
#: message expected after "(weight 2): ")
SPOILERS = {
    'shape': (_reshaped, r'has shape \(3, 1\), the weight \(3,\)'),
    'dtype': (_retyped, r'is float(32|64), expected float(16|32)'),
    'context': (_moved, r'is on cpu\([01]\), the weight on cpu\([01]\)'),
}


def _cases():
    for name, (layout, _) in OPERATORS.items():
        for key in layout:
            for spoiler in SPOILERS:
                if key == 'weight' and spoiler != 'context':
                    continue  # every other array is compared to it
                yield pytest.param(
                    name, key, spoiler, id=f'{name}-{key}-{spoiler}'
                )


def _snapshot(groups):
    return [{k: a.asnumpy().copy() for k, a in g.items()} for g in groups]


def _assert_unchanged(groups, before):
    for i, (group, saved) in enumerate(zip(groups, before)):
        for key, array in group.items():
            np.testing.assert_array_equal(
                array.asnumpy(), saved[key], err_msg=f'weight {i}: {key}'
            )


def test_the_operators_update_good_input():
    """Without a spoiled input every operator changes every weight (so
    "unchanged" below means something)."""
    for name, (layout, call) in OPERATORS.items():
        if name.endswith('_skipped'):
            continue
        groups = _weights(layout)
        before = _snapshot(groups)
        weights = [g['weight'] for g in groups]
        call(groups, weights)
        for i, (group, saved) in enumerate(zip(groups, before)):
            changed = group['weight'].asnumpy() != saved['weight']
            assert changed.any(), f'{name}: weight {i} was not updated'


@pytest.mark.parametrize('name, key, spoiler', list(_cases()))
def test_a_bad_third_weight_changes_nothing(name, key, spoiler):
    layout, call = OPERATORS[name]
    groups = _weights(layout)
    change, message = SPOILERS[spoiler]
    groups[2][key] = change(groups[2][key])
    before = _snapshot(groups)
    weights = [g['weight'] for g in groups]
    with pytest.raises(DLBookError, match=rf'\(weight 2\): .*{message}'):
        call(groups, weights)
    _assert_unchanged(groups, before)


@pytest.mark.parametrize('name', sorted(OPERATORS))
def test_a_bad_third_out_changes_nothing(name):
    layout, call = OPERATORS[name]
    groups = _weights(layout)
    before = _snapshot(groups)
    out = [g['weight'] for g in groups[:2]] + [nd.zeros(2)]
    with pytest.raises(
        DLBookError, match=r'\(weight 2\): out must be an NDArray'
    ):
        call(groups, out)
    _assert_unchanged(groups, before)


@pytest.mark.parametrize(
    'name',
    [
        'multi_sgd_update',
        'multi_lamb_update',
        'multi_adamw_update',
    ],
)
def test_a_missing_third_rate_changes_nothing(name):
    layout, call = OPERATORS[name]
    groups = _weights(layout)
    before = _snapshot(groups)
    rates = {'lrs': [0.1, 0.2, None], 'wds': RATES['wds']}
    with pytest.raises(DLBookError, match=r'\(weight 2\): lrs holds None'):
        call(groups, [g['weight'] for g in groups], rates)
    _assert_unchanged(groups, before)


def test_an_integer_weight_is_refused_before_any_update():
    groups = _weights({'weight': 'int32', 'grad': 'int32'})
    groups[:2] = _weights(SGD)[:2]
    before = _snapshot(groups)
    with pytest.raises(
        DLBookError, match=r'\(weight 2\): the weight is int32; .*floating'
    ):
        OPERATORS['multi_sgd_update'][1](groups, None)
    _assert_unchanged(groups, before)
    with pytest.raises(DLBookError, match='floating-point weights only'):
        nd.sgd_update(
            nd.ones(3, dtype='int32'), nd.ones(3, dtype='int32'), lr=1
        )


def test_num_weights_is_a_count():
    w, g = nd.ones(3), nd.ones(3)
    for bad in (-1, 1.0):
        with pytest.raises(DLBookError, match='num_weights must be a count'):
            nd.multi_sgd_update(w, g, lrs=(0.1,), wds=(0.0,), num_weights=bad)
        with pytest.raises(DLBookError, match='num_weights must be a count'):
            nd.preloaded_multi_sgd_update(
                w, g, nd.ones(1), nd.ones(1), num_weights=bad
            )


def test_the_norm_operators_leave_out_alone_on_bad_input():
    """``multi_sum_sq``, ``multi_lars`` and ``multi_all_finite`` write only
    ``out``, and only once everything is checked."""
    a, b = nd.ones(3), nd.ones(2, dtype='float64')
    out = nd.array([7.0, 7.0])
    with pytest.raises(DLBookError, match='array 1 is float64'):
        nd.multi_sum_sq(a, b, num_arrays=2, out=out)
    with pytest.raises(DLBookError, match='array 1 is float64'):
        nd.multi_all_finite(a, b, num_arrays=2, out=out[:1])
    with pytest.raises(DLBookError, match=r'wds has shape \(3,\)'):
        nd.multi_lars(out, out, out, a, eta=1.0, eps=0.0, out=out)
    np.testing.assert_array_equal(out.asnumpy(), [7.0, 7.0])
