"""Case rows for the shape family (``dlbook/ops/shape.py``)."""

import numpy as np

from tests.ops.cases import Case


def _reshape(shape):
    return lambda x: x.reshape(shape)


def _pad(mode, pairs, value=0.0):
    if mode == 'constant':
        return lambda x: np.pad(
            x, pairs, mode='constant', constant_values=value
        )
    return lambda x: np.pad(x, pairs, mode=mode)


def _depth_to_space(x, b=2):
    n, c, h, w = x.shape
    y = np.zeros((n, c // (b * b), h * b, w * b), x.dtype)
    for i in range(b):
        for j in range(b):
            block = x[
                :,
                (i * b + j) * (c // (b * b)) : (i * b + j + 1)
                * (c // (b * b)),
            ]
            y[:, :, i::b, j::b] = block
    return y


def _space_to_depth(x, b=2):
    n, c, h, w = x.shape
    blocks = [x[:, :, i::b, j::b] for i in range(b) for j in range(b)]
    return np.concatenate(blocks, axis=1)


CASES = {
    'Reshape': [
        Case([(2, 3, 4)], attrs={'shape': (4, 6)}, ref=_reshape((4, 6))),
        Case([(2, 3, 4)], attrs={'shape': (0, -1)}, ref=_reshape((2, 12))),
        Case([(2, 3, 4)], attrs={'shape': (4, 0, 2)}, ref=_reshape((4, 3, 2))),
        Case(
            [(2, 3, 4)], attrs={'shape': (-2, 1)}, ref=_reshape((2, 3, 4, 1))
        ),
        Case([(2, 3, 4)], attrs={'shape': (-3, 4)}, ref=_reshape((6, 4))),
        Case([(2, 3, 4)], attrs={'shape': (0, -3)}, ref=_reshape((2, 12))),
        Case(
            [(2, 3, 4)],
            attrs={'shape': (-4, 1, 2, -3)},
            ref=_reshape((1, 2, 12)),
        ),
        Case(
            [(4, 3, 5)],
            attrs={'shape': (-4, -1, 2, 0, 0)},
            ref=_reshape((2, 2, 3, 5)),
        ),
        Case([(2, 5, 4)], attrs={'shape': (-1, 0)}, ref=_reshape((8, 5))),
        Case(
            [(2, 5, 4)],
            attrs={'shape': (-1, 0), 'reverse': True},
            ref=_reshape((10, 4)),
        ),
        Case(
            [(6, 4, 3)],
            attrs={'shape': (-4, 2, -1, -1)},
            ref=_reshape((2, 3, 12)),
        ),
        Case(
            [(6, 4, 3)],
            attrs={'shape': (-4, 2, -1, -1), 'reverse': True},
            ref=_reshape((2, 2, 18)),
        ),
    ],
    'reshape_like': [
        Case([(2, 6), (3, 4)], ref=lambda a, b: a.reshape(3, 4), grad=(0,)),
        Case(
            [(2, 12), (5, 3, 4)],
            attrs={'lhs_begin': 1, 'lhs_end': 2, 'rhs_begin': 1, 'rhs_end': 3},
            ref=lambda a, b: a.reshape(2, 3, 4),
            grad=(0,),
        ),
    ],
    'Flatten': [
        Case([(2, 3, 4)], ref=_reshape((2, 12))),
        Case([(5,)], ref=_reshape((5, 1))),
    ],
    'transpose': [
        Case([(2, 3, 4)], ref=lambda x: x.transpose()),
        Case(
            [(2, 3, 4)],
            attrs={'axes': (1, -1, 0)},
            ref=lambda x: x.transpose(1, 2, 0),
        ),
    ],
    'swapaxes': [
        Case(
            [(2, 3, 4)],
            attrs={'dim1': 0, 'dim2': 2},
            ref=lambda x: np.swapaxes(x, 0, 2),
        ),
        Case(
            [(2, 3, 4)],
            attrs={'dim1': -1, 'dim2': 1},
            ref=lambda x: np.swapaxes(x, 2, 1),
        ),
    ],
    'expand_dims': [
        Case([(2, 3)], attrs={'axis': 1}, ref=lambda x: x[:, None]),
        Case([(2, 3)], attrs={'axis': -1}, ref=lambda x: x[:, :, None]),
        Case([(2, 3)], attrs={'axis': 2}, ref=lambda x: x[:, :, None]),
    ],
    'squeeze': [
        Case([(2, 1, 3, 1)], ref=_reshape((2, 3))),
        Case([(2, 1, 3, 1)], attrs={'axis': -1}, ref=_reshape((2, 1, 3))),
        Case([(1, 1)], ref=_reshape((1,))),
    ],
    'reverse': [
        Case([(2, 3, 4)], attrs={'axis': 1}, ref=lambda x: x[:, ::-1]),
        Case(
            [(2, 3, 4)],
            attrs={'axis': (0, -1)},
            ref=lambda x: x[::-1, :, ::-1],
        ),
    ],
    'Concat': [
        Case([(2, 3), (2, 4)], ref=lambda a, b: np.concatenate([a, b], 1)),
        Case(
            [(2, 3), (1, 3), (3, 3)],
            attrs={'dim': 0, 'num_args': 3},
            ref=lambda *xs: np.concatenate(xs, 0),
        ),
        Case(
            [(2, 3, 2), (2, 3, 1)],
            attrs={'dim': -1},
            ref=lambda a, b: np.concatenate([a, b], -1),
        ),
    ],
    'stack': [
        Case([(2, 3), (2, 3)], ref=lambda a, b: np.stack([a, b])),
        Case(
            [(2, 3), (2, 3), (2, 3)],
            attrs={'axis': -1, 'num_args': 3},
            ref=lambda *xs: np.stack(xs, -1),
        ),
    ],
    'split': [
        Case(
            [(2, 6)],
            attrs={'num_outputs': 3},
            ref=lambda x: tuple(np.split(x, 3, axis=1)),
        ),
        Case(
            [(3, 2, 4)],
            attrs={'num_outputs': 3, 'axis': 0, 'squeeze_axis': True},
            ref=lambda x: (x[0], x[1], x[2]),
        ),
        Case(
            [(2, 4)],
            attrs={'num_outputs': 2, 'axis': -1},
            ref=lambda x: (x[:, :2], x[:, 2:]),
        ),
        Case([(2, 4)], attrs={'num_outputs': 1}, ref=lambda x: x),
    ],
    'tile': [
        Case(
            [(2, 3)], attrs={'reps': (2, 3)}, ref=lambda x: np.tile(x, (2, 3))
        ),
        Case(
            [(2, 3)],
            attrs={'reps': (2, 1, 2)},
            ref=lambda x: np.tile(x, (2, 1, 2)),
        ),
        Case([(2, 3)], attrs={'reps': (3,)}, ref=lambda x: np.tile(x, 3)),
    ],
    'repeat': [
        Case([(2, 3)], attrs={'repeats': 2}, ref=lambda x: np.repeat(x, 2)),
        Case(
            [(2, 3)],
            attrs={'repeats': 3, 'axis': 0},
            ref=lambda x: np.repeat(x, 3, axis=0),
        ),
        Case(
            [(2, 3)],
            attrs={'repeats': 2, 'axis': -1},
            ref=lambda x: np.repeat(x, 2, axis=-1),
        ),
    ],
    'broadcast_to': [
        Case(
            [(1, 3)],
            attrs={'shape': (4, 3)},
            ref=lambda x: np.broadcast_to(x, (4, 3)),
        ),
        Case(
            [(2, 1, 1)],
            attrs={'shape': (0, 3, 4)},
            ref=lambda x: np.broadcast_to(x, (2, 3, 4)),
        ),
        Case([(2, 3)], attrs={'shape': (2, 3)}, ref=lambda x: x),
    ],
    'broadcast_like': [
        Case(
            [(1, 3), (4, 3)],
            ref=lambda a, b: np.broadcast_to(a, b.shape),
            grad=(0,),
        ),
        Case(
            [(2, 1, 1), (5, 3, 4)],
            attrs={'lhs_axes': (1, 2), 'rhs_axes': (1, -1)},
            ref=lambda a, b: np.broadcast_to(a, (2, 3, 4)),
            grad=(0,),
        ),
    ],
    'broadcast_axis': [
        Case(
            [(1, 3, 1)],
            attrs={'axis': (0, 2), 'size': (2, 4)},
            ref=lambda x: np.broadcast_to(x, (2, 3, 4)),
        ),
        Case(
            [(3, 1)],
            attrs={'axis': -1, 'size': 5},
            ref=lambda x: np.broadcast_to(x, (3, 5)),
        ),
    ],
    'zeros_like': Case([(2, 3)], ref=np.zeros_like),
    'ones_like': Case([(2, 3)], ref=np.ones_like),
    'Pad': [
        Case(
            [(1, 2, 3, 4)],
            attrs={
                'mode': 'constant',
                'pad_width': (0, 0, 0, 0, 1, 2, 2, 1),
                'constant_value': 0.5,
            },
            ref=_pad('constant', ((0, 0), (0, 0), (1, 2), (2, 1)), 0.5),
        ),
        Case(
            [(1, 2, 3, 4)],
            attrs={'mode': 'edge', 'pad_width': (0, 0, 0, 0, 2, 1, 1, 3)},
            ref=_pad('edge', ((0, 0), (0, 0), (2, 1), (1, 3))),
        ),
        Case(
            [(1, 2, 3, 4)],
            attrs={'mode': 'reflect', 'pad_width': (0, 0, 0, 0, 2, 1, 1, 3)},
            ref=_pad('reflect', ((0, 0), (0, 0), (2, 1), (1, 3))),
        ),
    ],
    'depth_to_space': Case(
        [(2, 8, 2, 3)], attrs={'block_size': 2}, ref=_depth_to_space
    ),
    'space_to_depth': Case(
        [(2, 2, 4, 6)], attrs={'block_size': 2}, ref=_space_to_depth
    ),
    'shape_array': Case(
        [(2, 3, 4)], ref=lambda x: np.array([2, 3, 4], np.int64)
    ),
    'size_array': Case([(2, 3, 4)], ref=lambda x: np.array([24], np.int64)),
}
