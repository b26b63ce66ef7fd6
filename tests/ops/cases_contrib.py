"""Case rows for ``dlbook/ops/contrib.py`` (``nd.contrib.*``) and
``dlbook/ops/tensor_extra.py`` (``moments``, ``cumsum``, index
arithmetic, ``batch_take``, ``khatri_rao``, ``histogram``).

Index inputs are fixed arrays (floats of the data dtype where MXNet takes
floats, int32 for ``batch_take``); only the data gradients are checked.
The central differences also nudge integer inputs by +-1e-6, which
truncates 1 to 0: ``boolean_mask``'s masks use 0 and values of magnitude
2 or more, so that the kept rows never change.
MXNet's own printed values are in ``test_contrib_mxnet.py``.
"""

import numpy as np

from tests.ops.cases import Case


def _fixed(*arrays, data=()):
    """make_inputs: uniform arrays of the shapes ``data`` first, then the
    fixed ``arrays`` (floats take the row's dtype, ints keep theirs)."""

    def make(rng, dtype):
        drawn = [rng.uniform(-1, 1, size=s).astype(dtype) for s in data]
        fixed = [
            np.asarray(
                a, dtype=dtype if np.asarray(a).dtype.kind == 'f' else None
            )
            for a in arrays
        ]
        return drawn + fixed

    return make


def _special_values(rng, dtype):
    x = rng.uniform(-1, 1, size=(3, 4))
    x[0, 1], x[1, 2], x[2, 0], x[2, 3] = np.nan, np.inf, -np.inf, np.nan
    return [x.astype(dtype)]


def _index_copy_inputs(old_shape, index, new_rows):
    def make(rng, dtype):
        old = rng.uniform(-1, 1, size=old_shape).astype(dtype)
        new = rng.uniform(-1, 1, size=(new_rows,) + old_shape[1:]).astype(
            dtype
        )
        return [old, np.asarray(index, dtype=dtype), new]

    return make


def _index_copy_ref(old, index, new):
    out = old.copy()
    for i, j in enumerate(index.astype(np.int64)):
        out[j] = new[i]  # in order: the last write wins
    return out


def _close_pair(rng, dtype):
    b = rng.uniform(-1, 1, size=(2, 3)).astype(dtype)
    return [b + np.asarray(1e-7, dtype), b]


def _index_array_ref(axes):
    def ref(x):
        grids = np.indices(x.shape)
        axes_ = range(x.ndim) if axes is None else axes
        return np.stack([grids[a] for a in axes_], axis=-1)

    return ref


def _arange_ref(start=0.0, step=1.0, repeat=1, axis=None):
    def ref(x):
        n = x.size if axis is None else x.shape[axis]
        y = start + (np.arange(n) // repeat) * step
        return y.reshape(x.shape) if axis is None else y

    return ref


def _mask_ref(axis):
    return lambda data, index: np.compress(index != 0, data, axis=axis)


def _moments_ref(axes, keepdims=False):
    def ref(x):
        mean = x.mean(axis=axes, keepdims=keepdims)
        var = x.var(axis=axes, keepdims=keepdims)
        if mean.ndim == 0:
            mean, var = mean.reshape(1), var.reshape(1)
        return mean, var

    return ref


def _cumsum_ref(axis):
    return lambda x: np.cumsum(x, axis=axis)


def _khatri_rao_ref(*mats):
    y = mats[0]
    for m in mats[1:]:
        y = np.einsum('ik,jk->ijk', y, m).reshape(-1, y.shape[1])
    return y


def _histogram_ref(bins, value_range):
    def ref(x):
        counts, edges = np.histogram(x.ravel(), bins=bins, range=value_range)
        return counts, edges.astype(x.dtype)

    return ref


CASES = {
    '_contrib_isnan': Case(
        shapes=[(3, 4)],
        make_inputs=_special_values,
        ref=lambda x: np.isnan(x).astype(x.dtype),
    ),
    '_contrib_isinf': Case(
        shapes=[(3, 4)],
        make_inputs=_special_values,
        ref=lambda x: np.isinf(x).astype(x.dtype),
    ),
    '_contrib_isfinite': Case(
        shapes=[(3, 4)],
        make_inputs=_special_values,
        ref=lambda x: np.isfinite(x).astype(x.dtype),
    ),
    '_contrib_allclose': [
        Case(
            shapes=[(2, 3), (2, 3)],
            make_inputs=_close_pair,
            ref=lambda a, b: np.array(np.allclose(a, b), dtype=np.uint8),
        ),
        Case(
            shapes=[(2, 3), (2, 3)],
            attrs={'rtol': 0.0, 'atol': 0.0},
            ref=lambda a, b: np.array(np.allclose(a, b, 0, 0), dtype=np.uint8),
        ),
    ],
    '_contrib_index_copy': [
        Case(
            shapes=[(5, 3), (3,), (3, 3)],
            make_inputs=_index_copy_inputs((5, 3), [0, 4, 2], 3),
            ref=_index_copy_ref,
            grad=(0, 2),
        ),
        # a repeated row: only its last writer reaches the output
        Case(
            shapes=[(4, 2, 3), (3,), (3, 2, 3)],
            make_inputs=_index_copy_inputs((4, 2, 3), [3, 1, 3], 3),
            ref=_index_copy_ref,
            grad=(0, 2),
        ),
        Case(
            shapes=[(4,), (2,), (2,)],
            make_inputs=_index_copy_inputs((4,), [1, 2], 2),
            ref=_index_copy_ref,
            grad=(0, 2),
        ),
    ],
    '_contrib_index_array': [
        Case(shapes=[(3, 2)], ref=_index_array_ref(None)),
        Case(
            shapes=[(3, 2, 2)],
            attrs={'axes': (1, 0)},
            ref=_index_array_ref((1, 0)),
        ),
        Case(
            shapes=[(2, 3)], attrs={'axes': (-1,)}, ref=_index_array_ref((1,))
        ),
    ],
    '_contrib_arange_like': [
        Case(shapes=[(3, 4)], ref=_arange_ref()),
        Case(
            shapes=[(2, 3, 2)],
            attrs={'start': 1.0, 'step': 0.5, 'repeat': 3},
            ref=_arange_ref(1.0, 0.5, 3),
        ),
        Case(
            shapes=[(3, 4)],
            attrs={'start': -2.0, 'step': 2.0, 'repeat': 2, 'axis': -1},
            ref=_arange_ref(-2.0, 2.0, 2, axis=1),
        ),
    ],
    '_contrib_boolean_mask': [
        Case(
            shapes=[(4, 3), (4,)],
            make_inputs=_fixed(
                np.array([2, 0, 3, -2], np.int32), data=[(4, 3)]
            ),
            ref=_mask_ref(0),
            grad=(0,),
        ),
        Case(
            shapes=[(2, 4, 3), (4,)],
            attrs={'axis': 1},
            make_inputs=_fixed(
                np.array([0, 2, 5, 0], np.int32), data=[(2, 4, 3)]
            ),
            ref=_mask_ref(1),
            grad=(0,),
        ),
    ],
    '_contrib_div_sqrt_dim': [
        Case(shapes=[(2, 3, 4)], ref=lambda x: x / np.sqrt(4)),
        Case(shapes=[(5,)], ref=lambda x: x / np.sqrt(5)),
    ],
    '_contrib_quadratic': [
        Case(
            shapes=[(2, 3)],
            attrs={'a': 1.5, 'b': -2.0, 'c': 0.5},
            ref=lambda x: 1.5 * x * x - 2.0 * x + 0.5,
        ),
        Case(shapes=[(4,)], ref=lambda x: np.zeros_like(x)),
    ],
    # identity forward; the gradient (scalar * dy) is not the derivative of
    # the forward on purpose: test_contrib_mxnet.py checks it
    '_contrib_gradientmultiplier': Case(
        shapes=[(2, 3)], attrs={'scalar': -2.5}, ref=lambda x: x, grad=()
    ),
    'moments': [
        Case(shapes=[(3, 4)], attrs={'axes': (1,)}, ref=_moments_ref((1,))),
        Case(
            shapes=[(2, 3, 4)],
            attrs={'axes': (0, 2), 'keepdims': True},
            ref=_moments_ref((0, 2), True),
        ),
        Case(shapes=[(2, 3, 4)], attrs={'axes': -1}, ref=_moments_ref((2,))),
        Case(
            shapes=[(2, 3)], attrs={'axes': (0, 1)}, ref=_moments_ref((0, 1))
        ),
    ],
    'cumsum': [
        Case(shapes=[(2, 3)], ref=_cumsum_ref(None)),
        Case(shapes=[(2, 3, 4)], attrs={'axis': 1}, ref=_cumsum_ref(1)),
        Case(shapes=[(3, 4)], attrs={'axis': -1}, ref=_cumsum_ref(-1)),
    ],
    '_ravel_multi_index': Case(
        shapes=[(2, 4)],
        attrs={'shape': (7, 6)},
        make_inputs=_fixed([[3, 6, 6, 0], [4, 5, 1, 5]]),
        ref=lambda d: np.ravel_multi_index(d.astype(np.int64), (7, 6)).astype(
            d.dtype
        ),
    ),
    '_unravel_index': Case(
        shapes=[(4,)],
        attrs={'shape': (3, 7, 6)},
        make_inputs=_fixed([22, 41, 37, 125]),
        ref=lambda d: np.stack(
            np.unravel_index(d.astype(np.int64), (3, 7, 6))
        ).astype(d.dtype),
    ),
    'batch_take': [
        Case(
            shapes=[(3, 4), (3,)],
            make_inputs=_fixed(np.array([0, 3, 1], np.int32), data=[(3, 4)]),
            ref=lambda a, i: a[np.arange(3), i],
            grad=(0,),
        ),
        Case(
            shapes=[(2, 3, 2), (2, 3)],
            make_inputs=_fixed(
                np.array([[1, 0, 1], [0, 0, 1]], np.int32), data=[(2, 3, 2)]
            ),
            ref=lambda a, i: np.take_along_axis(a, i[..., None], -1)[..., 0],
            grad=(0,),
        ),
    ],
    'khatri_rao': [
        Case(shapes=[(2, 3), (4, 3)], ref=_khatri_rao_ref),
        Case(shapes=[(2, 2), (1, 2), (3, 2)], ref=_khatri_rao_ref),
        Case(shapes=[(3, 4)], ref=_khatri_rao_ref),
    ],
    '_histogram': [
        Case(
            shapes=[(4, 5)],
            attrs={'bins': 4, 'range': (-1.0, 1.0)},
            ref=_histogram_ref(4, (-1, 1)),
        ),
        Case(shapes=[(3, 5)], ref=_histogram_ref(10, None)),
        Case(
            shapes=[(30,)],
            attrs={'bins': (-1.0, -0.5, 0.25, 1.0)},
            ref=_histogram_ref([-1.0, -0.5, 0.25, 1.0], None),
        ),
    ],
}
