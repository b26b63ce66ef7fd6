"""Rows for dlbook/ops/nn.py: FullyConnected, Dropout, Embedding, ..."""

import numpy as np

from tests.ops.cases import Case


def _dropout_check(p, shared_axes=()):
    """Random mask: about a fraction p dropped, the rest scaled by 1/(1-p);
    along ``shared_axes`` the mask is constant."""

    def check(outs, inputs):
        (y,), (x,) = outs, inputs
        assert y.shape == x.shape and y.dtype == x.dtype
        dropped = y == 0
        np.testing.assert_allclose(
            y[~dropped], x[~dropped] / (1 - p), rtol=1e-6
        )
        n_masks = dropped.size
        for axis in shared_axes:
            n_masks //= x.shape[axis]
        tolerance = 4 * np.sqrt(p * (1 - p) / n_masks)
        assert abs(dropped.mean() - p) < tolerance, dropped.mean()
        for axis in shared_axes:
            first = np.take(dropped, [0], axis=axis)
            assert (dropped == first).all(), 'mask not shared along axis'

    return check


def _embedding_inputs(rng, dtype):
    return [
        rng.randint(0, 10, size=(2, 3)).astype(dtype),
        rng.uniform(-1, 1, size=(10, 4)).astype(dtype),
    ]


def _sequence_inputs(shape, lengths):
    def make(rng, dtype):
        return [
            rng.uniform(-1, 1, size=shape).astype(dtype),
            np.array(lengths, dtype=dtype),
        ]

    return make


def sequence_mask_ref(axis, value):
    def ref(x, length):
        steps = np.arange(x.shape[axis])
        if axis == 0:
            keep = steps[:, None] < length[None, :]
        else:
            keep = steps[None, :] < length[:, None]
        keep = keep.reshape(keep.shape + (1,) * (x.ndim - 2))
        return np.where(keep, x, np.asarray(value, dtype=x.dtype))

    return ref


def _ce_inputs(rng, dtype):
    return [
        rng.uniform(-2, 2, size=(4, 5)).astype(dtype),
        np.array([0, 3, 4, 1], dtype=dtype),
    ]


def ce_ref(x, label):
    s = x - x.max(axis=1, keepdims=True)
    logp = s - np.log(np.exp(s).sum(axis=1, keepdims=True))
    return -logp[np.arange(len(label)), label.astype(int)].sum().reshape(1)


CASES = {
    'FullyConnected': [
        Case(
            [(2, 3), (5, 3), (5,)],
            attrs={'num_hidden': 5},
            ref=lambda x, w, b: x @ w.T + b,
        ),
        # flatten=True folds every trailing axis
        Case(
            [(2, 3, 2, 2), (4, 12), (4,)],
            attrs={'num_hidden': 4},
            ref=lambda x, w, b: x.reshape(2, -1) @ w.T + b,
        ),
        # flatten=False acts on the last axis only
        Case(
            [(2, 3, 4), (5, 4), (5,)],
            attrs={'num_hidden': 5, 'flatten': False},
            ref=lambda x, w, b: x @ w.T + b,
        ),
        Case(
            [(3, 4), (2, 4)],
            attrs={'num_hidden': 2, 'no_bias': True},
            ref=lambda x, w: x @ w.T,
        ),
        # batch 1: the weight gradient is an outer product
        Case(
            [(1, 6), (4, 6), (4,)],
            attrs={'num_hidden': 4},
            ref=lambda x, w, b: x @ w.T + b,
        ),
        Case(
            [(1, 1, 3), (5, 3), (5,)],
            attrs={'num_hidden': 5, 'flatten': False},
            ref=lambda x, w, b: x @ w.T + b,
        ),
    ],
    'Dropout': [
        # statistics of the mask (large, so no gradient check here)
        Case([(200, 50)], is_train=True, check=_dropout_check(0.5), grad=()),
        # gradient: the harness reseeds op.rng, so the mask repeats
        Case(
            [(4, 5)],
            attrs={'p': 0.3},
            is_train=True,
            check=_dropout_check(0.3),
        ),
        # inference: identity
        Case([(3, 4)], ref=lambda x: x),
        # mode='always' drops even outside training
        Case(
            [(200, 50)],
            attrs={'p': 0.2, 'mode': 'always'},
            check=_dropout_check(0.2),
            grad=(),
        ),
        # axes=(1,): one mask value per row
        Case(
            [(400, 6)],
            attrs={'axes': (1,)},
            is_train=True,
            check=_dropout_check(0.5, shared_axes=(1,)),
            grad=(),
        ),
    ],
    'Embedding': Case(
        [(2, 3), (10, 4)],
        attrs={'input_dim': 10, 'output_dim': 4},
        make_inputs=_embedding_inputs,
        grad=(1,),
        ref=lambda d, w: w[d.astype(int)],
    ),
    'SequenceMask': [
        Case(
            [(5, 3, 2), (3,)],
            attrs={'use_sequence_length': True, 'value': -1.0},
            make_inputs=_sequence_inputs((5, 3, 2), [2, 5, 1]),
            grad=(0,),
            ref=sequence_mask_ref(0, -1.0),
        ),
        Case(
            [(3, 5, 2), (3,)],
            attrs={'use_sequence_length': True, 'axis': 1},
            make_inputs=_sequence_inputs((3, 5, 2), [4, 1, 5]),
            grad=(0,),
            ref=sequence_mask_ref(1, 0.0),
        ),
        Case([(4, 3)], ref=lambda x: x),
    ],
    'softmax_cross_entropy': Case(
        [(4, 5), (4,)], make_inputs=_ce_inputs, grad=(0,), ref=ce_ref
    ),
}
