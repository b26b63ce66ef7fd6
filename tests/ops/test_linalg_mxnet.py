"""``nd.linalg`` / ``sym.linalg`` (dlbook/ops/la_op.py) against MXNet 1.9.1.

``RECORDED`` holds, per example, the operator, its inputs, attributes and
output gradients (cotangents), then the outputs and input gradients that
MXNet 1.9.1 printed for them in float64 (``mx.nd.linalg.<op>`` under
``autograd.record()``, ``autograd.backward(outputs, cotangents)``).  Each
operator has a single-matrix and a batch example.  The other tests check
the names (flat aliases, ``sym.linalg``), float32, the symmetric gradients
of ``potrf`` and ``syevd`` along symmetric directions, MXNet's zero
gradient of a singular determinant, and the errors for bad input.
"""

import numpy as np
import pytest

import dlbook as mx
from dlbook import autograd, nd, sym
from dlbook.base import DLBookError

# id: (op, inputs, attrs, cotangents, MXNet outputs, MXNet input gradients)
RECORDED = {
    'potrf': (
        'potrf',
        [[[4.0, 1.0], [1.0, 4.25]]],
        {},
        [[[1.0, 2.0], [3.0, 4.0]]],
        [[[2.0, 0.0], [0.5, 2.0]]],
        [[[0.125, 0.5], [0.5, 1.0]]],
    ),
    'potrf_batch': (
        'potrf',
        [[[[4.0, 1.0], [1.0, 4.25]], [[16.0, 4.0], [4.0, 17.0]]]],
        {},
        [[[[1.0, 2.0], [3.0, 4.0]], [[-1.0, 0.0], [2.0, 1.0]]]],
        [[[[2.0, 0.0], [0.5, 2.0]], [[4.0, 0.0], [1.0, 4.0]]]],
        [
            [
                [[0.125, 0.5], [0.5, 1.0]],
                [[-0.1796875, 0.21875], [0.21875, 0.125]],
            ]
        ],
    ),
    'potrf_upper': (
        'potrf',
        [[[4.0, 1.0], [1.0, 4.25]]],
        {'lower': False},
        [[[1.0, 2.0], [3.0, 4.0]]],
        [[[2.0, 0.5], [0.0, 2.0]]],
        [[[0.1875, 0.25], [0.25, 1.0]]],
    ),
    'potri': (
        'potri',
        [[[2.0, 5.0], [0.5, 2.0]]],
        {},
        [[[1.0, 2.0], [3.0, 4.0]]],
        [[[0.265625, -0.0625], [-0.0625, 0.25]]],
        [[[-0.109375, 0.0], [-0.5625, -0.703125]]],
    ),
    'potri_batch': (
        'potri',
        [[[[2.0, 5.0], [0.5, 2.0]], [[4.0, -1.0], [1.0, 4.0]]]],
        {},
        [[[[1.0, 2.0], [3.0, 4.0]], [[0.0, 1.0], [1.0, -1.0]]]],
        [
            [
                [[0.265625, -0.0625], [-0.0625, 0.25]],
                [[0.06640625, -0.015625], [-0.015625, 0.0625]],
            ]
        ],
        [
            [
                [[-0.109375, 0.0], [-0.5625, -0.703125]],
                [[0.0078125, 0.0], [-0.03125, 0.046875]],
            ]
        ],
    ),
    'potri_upper': (
        'potri',
        [[[4.0, -1.0], [1.0, 4.0]]],
        {'lower': False},
        [[[1.0, 2.0], [3.0, 4.0]]],
        [[[0.06640625, 0.015625], [0.015625, 0.0625]]],
        [[[-0.052734375, -0.0859375], [0.0, -0.166015625]]],
    ),
    'trmm': (
        'trmm',
        [[[2.0, 7.0], [1.0, 3.0]], [[2.0, 2.0, 2.0], [4.0, 4.0, 5.0]]],
        {'alpha': 2.0},
        [[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]],
        [[[8.0, 8.0, 8.0], [28.0, 28.0, 34.0]]],
        [
            [[12.0, 0.0], [48.0, 106.0]],
            [[6.0, 12.0, 18.0], [18.0, 24.0, 30.0]],
        ],
    ),
    'trmm_upper_t': (
        'trmm',
        [[[2.0, 7.0], [1.0, 3.0]], [[2.0, 2.0, 2.0], [4.0, 4.0, 5.0]]],
        {'lower': False, 'transpose': True},
        [[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]],
        [[[4.0, 4.0, 4.0], [26.0, 26.0, 29.0]]],
        [[[6.0, 24.0], [0.0, 53.0]], [[21.0, 30.0, 39.0], [9.0, 12.0, 15.0]]],
    ),
    'trmm_right': (
        'trmm',
        [[[2.0, 7.0], [1.0, 3.0]], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]],
        {'rightside': True, 'transpose': True, 'alpha': -0.5},
        [[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]],
        [[[-1.0, -3.5], [-3.0, -7.5], [-5.0, -11.5]]],
        [
            [[-13.0, 0.0], [-17.5, -22.0]],
            [[-0.5, -1.5], [-3.5, -4.5], [-6.5, -7.5]],
        ],
    ),
    'trmm_batch': (
        'trmm',
        [
            [[[2.0, 7.0], [1.0, 3.0]], [[1.0, 0.5], [-1.0, 2.0]]],
            [
                [[2.0, 2.0, 2.0], [4.0, 4.0, 5.0]],
                [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]],
            ],
        ],
        {},
        [
            [
                [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]],
                [[2.0, 2.0, 2.0], [4.0, 4.0, 5.0]],
            ]
        ],
        [
            [
                [[4.0, 4.0, 4.0], [14.0, 14.0, 17.0]],
                [[0.0, 1.0, 2.0], [6.0, 7.0, 8.0]],
            ]
        ],
        [
            [[[6.0, 0.0], [24.0, 53.0]], [[6.0, 0.0], [14.0, 53.0]]],
            [
                [[3.0, 6.0, 9.0], [9.0, 12.0, 15.0]],
                [[-2.0, -2.0, -3.0], [8.0, 8.0, 10.0]],
            ],
        ],
    ),
    'trsm': (
        'trsm',
        [[[2.0, 7.0], [1.0, 3.0]], [[2.0, 2.0, 2.0], [4.0, 4.0, 5.0]]],
        {'alpha': 0.5},
        [[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]],
        [[[0.5, 0.5, 0.5], [0.5, 0.5, 0.666666666667]]],
        [
            [[0.25, 0.0], [-2.0, -2.277777777778]],
            [
                [-0.25, -0.083333333333, 0.083333333333],
                [0.5, 0.666666666667, 0.833333333333],
            ],
        ],
    ),
    'trsm_upper_t': (
        'trsm',
        [[[2.0, 7.0], [1.0, 3.0]], [[2.0, 2.0, 2.0], [4.0, 4.0, 5.0]]],
        {'lower': False, 'transpose': True},
        [[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]],
        [[[1.0, 1.0, 1.0], [-1.0, -1.0, -0.666666666667]]],
        [
            [[12.5, -4.0], [0.0, 3.444444444444]],
            [
                [-3.5, -4.166666666667, -4.833333333333],
                [1.0, 1.333333333333, 1.666666666667],
            ],
        ],
    ),
    'trsm_right': (
        'trsm',
        [[[2.0, 7.0], [1.0, 3.0]], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]],
        {'rightside': True, 'lower': False, 'alpha': 2.0},
        [[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]],
        [[[1.0, -1.0], [3.0, -4.333333333333], [5.0, -7.666666666667]]],
        [
            [[27.833333333333, -11.666666666667], [0.0, 17.444444444444]],
            [
                [-2.333333333333, 0.666666666667],
                [-5.0, 2.0],
                [-7.666666666667, 3.333333333333],
            ],
        ],
    ),
    'trsm_batch': (
        'trsm',
        [
            [[[2.0, 7.0], [1.0, 3.0]], [[1.0, 0.5], [-1.0, 2.0]]],
            [
                [[2.0, 2.0, 2.0], [4.0, 4.0, 5.0]],
                [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]],
            ],
        ],
        {'transpose': True},
        [
            [
                [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]],
                [[2.0, 2.0, 2.0], [4.0, 4.0, 5.0]],
            ]
        ],
        [
            [
                [
                    [0.333333333333, 0.333333333333, 0.166666666667],
                    [1.333333333333, 1.333333333333, 1.666666666667],
                ],
                [[1.5, 3.0, 4.5], [1.5, 2.0, 2.5]],
            ]
        ],
        [
            [
                [[-0.333333333333, 0.0], [-2.333333333333, -5.111111111111]],
                [[-18.0, 0.0], [-12.0, -19.25]],
            ],
            [
                [[0.0, 0.5, 1.0], [1.0, 1.166666666667, 1.333333333333]],
                [[2.0, 2.0, 2.0], [3.0, 3.0, 3.5]],
            ],
        ],
    ),
    'syrk': (
        'syrk',
        [[[2.0, 2.0, 2.0], [4.0, 4.0, 5.0]]],
        {},
        [[[1.0, 2.0], [3.0, 4.0]]],
        [[[12.0, 26.0], [26.0, 57.0]]],
        [[[24.0, 24.0, 29.0], [42.0, 42.0, 50.0]]],
    ),
    'syrk_t': (
        'syrk',
        [[[2.0, 2.0, 2.0], [4.0, 4.0, 5.0]]],
        {'transpose': True, 'alpha': 0.5},
        [[[1.0, 0.0, 2.0], [0.0, -1.0, 1.0], [3.0, 1.0, 0.0]]],
        [[[10.0, 10.0, 12.0], [10.0, 10.0, 12.0], [12.0, 12.0, 14.5]]],
        [[[7.0, 0.0, 7.0], [16.5, 1.0, 14.0]]],
    ),
    'syrk_batch': (
        'syrk',
        [
            [
                [[2.0, 2.0, 2.0], [4.0, 4.0, 5.0]],
                [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]],
            ]
        ],
        {'alpha': 2.0},
        [[[[1.0, 2.0], [3.0, 4.0]], [[0.0, 1.0], [-1.0, 2.0]]]],
        [[[[24.0, 52.0], [52.0, 114.0]], [[10.0, 28.0], [28.0, 100.0]]]],
        [
            [
                [[48.0, 48.0, 58.0], [84.0, 84.0, 100.0]],
                [[0.0, 0.0, 0.0], [24.0, 32.0, 40.0]],
            ]
        ],
    ),
    'gelqf': (
        'gelqf',
        [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]],
        {},
        [[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], [[1.0, 2.0], [3.0, 4.0]]],
        [
            [
                [-0.267261241912, -0.534522483825, -0.801783725737],
                [0.872871560944, 0.218217890236, -0.436435780472],
            ],
            [[-3.741657386774, 0.0], [-8.552359741198, 1.963961012124]],
        ],
        [
            [
                [-11.09061408961, -3.240360695749, 4.609892698112],
                [2.689702518039, -0.730695890531, -4.1510942991],
            ]
        ],
    ),
    'gelqf_batch': (
        'gelqf',
        [
            [
                [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
                [[7.0, 8.0, 9.0], [10.0, 11.0, 1.0]],
            ]
        ],
        {},
        [
            [
                [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]],
                [[2.0, 2.0, 2.0], [4.0, 4.0, 5.0]],
            ],
            [[[1.0, 2.0], [3.0, 4.0]], [[1.0, 0.0], [-2.0, 1.0]]],
        ],
        [
            [
                [
                    [-0.267261241912, -0.534522483825, -0.801783725737],
                    [0.872871560944, 0.218217890236, -0.436435780472],
                ],
                [
                    [-0.502570711032, -0.574366526894, -0.646162342756],
                    [-0.449295359035, -0.465029437757, 0.762811446144],
                ],
            ],
            [
                [[-3.741657386774, 0.0], [-8.552359741198, 1.963961012124]],
                [[-13.928388277184, 0.0], [-11.989901248916, -8.845465959532]],
            ],
        ],
        [
            [
                [
                    [-11.09061408961, -3.240360695749, 4.609892698112],
                    [2.689702518039, -0.730695890531, -4.1510942991],
                ],
                [
                    [0.706212077147, 0.641792541692, -2.66735701675],
                    [0.523991227011, 0.712758026906, 2.054085972227],
                ],
            ]
        ],
    ),
    'syevd': (
        'syevd',
        [[[1.0, 2.0], [2.0, 5.0]]],
        {},
        [[[1.0, 2.0], [3.0, 4.0]], [1.0, -2.0]],
        [
            [
                [0.923879532511, -0.382683432365],
                [0.382683432365, 0.923879532511],
            ],
            [0.171572875254, 5.828427124746],
        ],
        [
            [
                [0.498814069948, -1.122506273612],
                [-1.122506273612, -1.498814069948],
            ]
        ],
    ),
    'syevd_batch': (
        'syevd',
        [
            [
                [[4.0, 1.0, 0.5], [1.0, 3.0, -0.2], [0.5, -0.2, 2.0]],
                [[2.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 2.0]],
            ]
        ],
        {},
        [
            [
                [[1.0, 0.0, 2.0], [0.0, -1.0, 1.0], [3.0, 1.0, 0.0]],
                [[0.0, 1.0, 0.0], [1.0, 0.0, 2.0], [-1.0, 1.0, 1.0]],
            ],
            [[1.0, 2.0, 3.0], [-1.0, 0.0, 1.0]],
        ],
        [
            [
                [
                    [-0.357019207177, 0.402135120327, 0.843104163616],
                    [-0.373312412432, 0.765946567827, -0.523415416241],
                    [0.856256461833, 0.501610606181, 0.123335604492],
                ],
                [
                    [0.5, 0.707106781187, 0.5],
                    [0.707106781187, 0.0, -0.707106781187],
                    [-0.5, 0.707106781187, -0.5],
                ],
            ],
            [
                [1.692877062137, 2.649284505646, 4.657838432216],
                [0.585786437627, 2.0, 3.414213562373],
            ],
        ],
        [
            [
                [
                    [3.043887312268, 0.114404271586, 0.076658666668],
                    [0.114404271586, 2.573378530966, 0.004147488159],
                    [0.076658666668, 0.004147488159, 0.382734156766],
                ],
                [
                    [0.353553390593, -0.426776695297, 0.0],
                    [-0.426776695297, 0.0, -0.987436867076],
                    [0.0, -0.987436867076, -0.353553390593],
                ],
            ]
        ],
    ),
    'inverse': (
        'inverse',
        [[[1.0, 4.0], [2.0, 3.0]]],
        {},
        [[[1.0, 2.0], [3.0, 4.0]]],
        [[[-0.6, 0.8], [0.4, -0.2]]],
        [[[0.04, -0.16], [-0.52, 0.08]]],
    ),
    'inverse_batch': (
        'inverse',
        [[[[1.0, 4.0], [2.0, 3.0]], [[1.0, 3.0], [2.0, 4.0]]]],
        {},
        [[[[1.0, 2.0], [3.0, 4.0]], [[1.0, 2.0], [3.0, 4.0]]]],
        [[[[-0.6, 0.8], [0.4, -0.2]], [[-2.0, 1.5], [1.0, -0.5]]]],
        [[[[0.04, -0.16], [-0.52, 0.08]], [[2.0, -1.0], [-1.5, 0.5]]]],
    ),
    'det': (
        'det',
        [[[1.0, 4.0], [2.0, 3.0]]],
        {},
        [[2.0]],
        [[-5.0]],
        [[[6.0, -4.0], [-8.0, 2.0]]],
    ),
    'det_batch': (
        'det',
        [[[[1.0, 4.0], [2.0, 3.0]], [[2.0, 3.0], [1.0, 4.0]]]],
        {},
        [[1.0, -1.0]],
        [[-5.0, 5.0]],
        [[[[3.0, -2.0], [-4.0, 1.0]], [[-4.0, 1.0], [3.0, -2.0]]]],
    ),
    'slogdet': (
        'slogdet',
        [[[2.0, 3.0], [1.0, 4.0]]],
        {},
        [[1.0], [2.0]],
        [[1.0], [1.609437912434]],
        [[[1.6, -0.4], [-1.2, 0.8]]],
    ),
    'slogdet_batch': (
        'slogdet',
        [[[[2.0, 3.0], [1.0, 4.0]], [[1.0, 2.0], [4.0, 3.0]]]],
        {},
        [[1.0, 1.0], [1.0, -1.0]],
        [[1.0, -1.0], [1.609437912434, 1.609437912434]],
        [[[[0.8, -0.2], [-0.6, 0.4]], [[0.6, -0.8], [-0.4, 0.2]]]],
    ),
    'sumlogdiag': (
        'sumlogdiag',
        [[[1.0, 1.0], [1.0, 7.0]]],
        {},
        [[2.0]],
        [[1.945910149055]],
        [[[2.0, 0.0], [0.0, 0.285714285714]]],
    ),
    'sumlogdiag_batch': (
        'sumlogdiag',
        [[[[1.0, 1.0], [1.0, 7.0]], [[3.0, 0.0], [0.0, 17.0]]]],
        {},
        [[1.0, -1.0]],
        [[1.945910149055, 3.931825632724]],
        [
            [
                [[1.0, 0.0], [0.0, 0.142857142857]],
                [[-0.333333333333, 0.0], [0.0, -0.058823529412]],
            ]
        ],
    ),
    'extractdiag': (
        'extractdiag',
        [[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]]],
        {'offset': -1},
        [[1.0, 2.0]],
        [[3.0, 7.0]],
        [[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 0.0]]],
    ),
    'extractdiag_batch': (
        'extractdiag',
        [[[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]]]],
        {},
        [[[1.0, 2.0], [3.0, 4.0]]],
        [[[0.0, 3.0], [4.0, 7.0]]],
        [[[[1.0, 0.0], [0.0, 2.0]], [[3.0, 0.0], [0.0, 4.0]]]],
    ),
    'makediag': (
        'makediag',
        [[1.0, 2.0]],
        {'offset': 1},
        [[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]]],
        [[[0.0, 1.0, 0.0], [0.0, 0.0, 2.0], [0.0, 0.0, 0.0]]],
        [[1.0, 5.0]],
    ),
    'makediag_batch': (
        'makediag',
        [[[1.0, 2.0], [3.0, 4.0]]],
        {},
        [[[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]]]],
        [[[[1.0, 0.0], [0.0, 2.0]], [[3.0, 0.0], [0.0, 4.0]]]],
        [[[0.0, 3.0], [4.0, 7.0]]],
    ),
    'extracttrian': (
        'extracttrian',
        [
            [
                [0.0, 1.0, 2.0, 3.0],
                [4.0, 5.0, 6.0, 7.0],
                [8.0, 9.0, 10.0, 11.0],
                [12.0, 13.0, 14.0, 15.0],
            ]
        ],
        {'offset': 1},
        [[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]],
        [[1.0, 2.0, 6.0, 3.0, 7.0, 11.0]],
        [
            [
                [0.0, 0.0, 1.0, 3.0],
                [0.0, 0.0, 2.0, 4.0],
                [0.0, 0.0, 0.0, 5.0],
                [0.0, 0.0, 0.0, 0.0],
            ]
        ],
    ),
    'extracttrian_upper': (
        'extracttrian',
        [[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]]],
        {'lower': False},
        [[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]],
        [[0.0, 1.0, 4.0, 2.0, 5.0, 8.0]],
        [[[0.0, 1.0, 3.0], [0.0, 2.0, 4.0], [0.0, 0.0, 5.0]]],
    ),
    'extracttrian_batch': (
        'extracttrian',
        [
            [
                [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]],
                [[9.0, 10.0, 11.0], [12.0, 13.0, 14.0], [15.0, 16.0, 17.0]],
            ]
        ],
        {'offset': -1},
        [[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]],
        [[[3.0, 6.0, 7.0], [12.0, 15.0, 16.0]]],
        [
            [
                [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.0, 2.0, 0.0]],
                [[0.0, 0.0, 0.0], [3.0, 0.0, 0.0], [4.0, 5.0, 0.0]],
            ]
        ],
    ),
    'maketrian': (
        'maketrian',
        [[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]],
        {'lower': False},
        [[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]]],
        [[[1.0, 2.0, 4.0], [0.0, 3.0, 5.0], [0.0, 0.0, 6.0]]],
        [[0.0, 1.0, 4.0, 2.0, 5.0, 8.0]],
    ),
    'maketrian_offset': (
        'maketrian',
        [[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]],
        {'offset': 1},
        [
            [
                [0.0, 1.0, 2.0, 3.0],
                [4.0, 5.0, 6.0, 7.0],
                [8.0, 9.0, 10.0, 11.0],
                [12.0, 13.0, 14.0, 15.0],
            ]
        ],
        [
            [
                [0.0, 1.0, 2.0, 4.0],
                [0.0, 0.0, 3.0, 5.0],
                [0.0, 0.0, 0.0, 6.0],
                [0.0, 0.0, 0.0, 0.0],
            ]
        ],
        [[1.0, 2.0, 6.0, 3.0, 7.0, 11.0]],
    ),
    'maketrian_batch': (
        'maketrian',
        [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]],
        {'offset': -1},
        [
            [
                [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]],
                [[9.0, 10.0, 11.0], [12.0, 13.0, 14.0], [15.0, 16.0, 17.0]],
            ]
        ],
        [
            [
                [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 3.0, 0.0]],
                [[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [5.0, 6.0, 0.0]],
            ]
        ],
        [[[3.0, 6.0, 7.0], [12.0, 15.0, 16.0]]],
    ),
}

OPS = sorted({op for op, *_ in RECORDED.values()})


def run(op, inputs, attrs, cots, dtype='float64', front=None):
    """Outputs and input gradients of ``nd.linalg.<op>`` as NumPy."""
    xs = [nd.array(x, dtype=dtype) for x in inputs]
    for x in xs:
        x.attach_grad()
    with autograd.record():
        y = (front or getattr(nd.linalg, op))(*xs, **attrs)
    ys = list(y) if isinstance(y, (list, tuple)) else [y]
    autograd.backward(ys, [nd.array(c, dtype=dtype) for c in cots])
    return [t.asnumpy() for t in ys], [x.grad.asnumpy() for x in xs]


@pytest.mark.parametrize('key', sorted(RECORDED))
def test_matches_recorded_mxnet_values(key):
    op, inputs, attrs, cots, want_out, want_grad = RECORDED[key]
    outs, grads = run(op, inputs, attrs, cots)
    assert len(outs) == len(want_out)
    for got, want in zip(outs + grads, want_out + want_grad):
        assert got.shape == np.shape(want)
        np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize('key', [k for k in sorted(RECORDED) if 'batch' in k])
def test_float32_keeps_its_dtype_and_values(key):
    op, inputs, attrs, cots, want_out, want_grad = RECORDED[key]
    outs, grads = run(op, inputs, attrs, cots, dtype='float32')
    for got, want in zip(outs + grads, want_out + want_grad):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-5)


def test_mxnet_names():
    # every operator in nd.linalg and sym.linalg; the flat aliases
    # nd.linalg_<op> and sym.linalg_<op>, except syevd (none in MXNet 1.9.1)
    for op in OPS:
        assert callable(getattr(nd.linalg, op))
        assert callable(getattr(sym.linalg, op))
        assert hasattr(nd, f'linalg_{op}') == (op != 'syevd')
        assert hasattr(sym, f'linalg_{op}') == (op != 'syevd')
    assert callable(sym.linalg.gemm2)  # the older ones are there too
    a = nd.array([[4.0, 1.0], [1.0, 4.25]])
    np.testing.assert_array_equal(
        nd.linalg_potrf(a).asnumpy(), nd.linalg.potrf(a).asnumpy()
    )


def test_defaults_follow_mxnet():
    # trsm/trmm: transpose=False, rightside=False, lower=True, alpha=1;
    # syrk: transpose=False, alpha=1; extracttrian: offset=0, lower=True
    a = nd.array([[2.0, 7.0], [1.0, 3.0]])
    b = nd.array([[2.0, 2.0, 2.0], [4.0, 4.0, 5.0]])
    np.testing.assert_allclose(
        nd.linalg.trmm(a, b).asnumpy(), [[4, 4, 4], [14, 14, 17]]
    )
    np.testing.assert_allclose(
        nd.linalg.trmm(a, b, False, False, True, 1.0).asnumpy(),
        nd.linalg.trmm(a, b).asnumpy(),
    )
    np.testing.assert_allclose(
        nd.linalg.syrk(b).asnumpy(), [[12, 26], [26, 57]]
    )
    np.testing.assert_allclose(
        nd.linalg.extracttrian(a, 0, False).asnumpy(), [2, 7, 3]
    )


def test_symbol_graph_runs_the_same_operators():
    a = sym.var('a')
    q, low = sym.linalg.gelqf(a)
    out = sym.Group([sym.linalg.potrf(sym.linalg.syrk(low)), q])
    arg_shapes, out_shapes, _ = out.infer_shape(a=(2, 2, 3))
    assert out_shapes == [(2, 2, 2), (2, 2, 3)]
    x = np.array(RECORDED['gelqf_batch'][1][0])
    exe = out.bind(mx.cpu(), {'a': nd.array(x)})
    chol, q_val = (o.asnumpy() for o in exe.forward())
    want_q, want_l = RECORDED['gelqf_batch'][4]
    np.testing.assert_allclose(q_val, want_q, rtol=1e-5, atol=1e-6)
    # potrf(L L^T) = L up to the signs of L's columns
    np.testing.assert_allclose(chol, np.abs(want_l), rtol=1e-5, atol=1e-5)


def _symmetric_directional_check(op, a, cots, eps=1e-6):
    """<dA, E> == d/dt sum_k <f_k(A + t E), cot_k> for symmetric E: the
    symmetric gradient potrf and syevd give, checked where it is defined
    (entry-wise differences see only the triangle LAPACK reads)."""
    _, (grad,) = run(op, [a], {}, cots)
    rng = np.random.RandomState(3)
    for _ in range(3):
        e = rng.uniform(-1, 1, size=a.shape)
        e = e + np.swapaxes(e, -1, -2)

        def f(t):
            outs, _ = run(op, [a + t * e], {}, cots)
            return sum(np.sum(o * c) for o, c in zip(outs, cots))

        numeric = (f(eps) - f(-eps)) / (2 * eps)
        np.testing.assert_allclose(np.sum(grad * e), numeric, rtol=1e-6)
    np.testing.assert_allclose(grad, np.swapaxes(grad, -1, -2))


def test_potrf_gradient_along_symmetric_directions():
    rng = np.random.RandomState(0)
    m = rng.uniform(-1, 1, size=(2, 3, 3))
    a = m @ np.swapaxes(m, -1, -2) + 3 * np.eye(3)
    _symmetric_directional_check(
        'potrf', a, [rng.uniform(-1, 1, size=a.shape)]
    )


def test_syevd_gradient_along_symmetric_directions():
    rng = np.random.RandomState(1)
    q, _ = np.linalg.qr(rng.uniform(-1, 1, size=(2, 3, 3)))
    a = q * np.array([-1.0, 0.5, 2.0]) @ np.swapaxes(q, -1, -2)
    cots = [rng.uniform(-1, 1, size=(2, 3, 3)), rng.uniform(-1, 1, (2, 3))]
    _symmetric_directional_check('syevd', a, cots)


def test_triangular_inputs_read_one_triangle():
    # the other triangle changes nothing and gets a zero gradient (MXNet)
    op, inputs, attrs, cots, want_out, _ = RECORDED['potri']
    noisy = np.array(inputs[0]) + np.triu(np.full((2, 2), 9.0), 1)
    outs, (grad,) = run(op, [noisy], attrs, cots)
    np.testing.assert_allclose(outs[0], want_out[0])
    assert grad[0, 1] == 0


def test_singular_determinant_has_zero_gradient():
    # MXNet 1.9.1: det [[1, 2], [2, 4]] = -0, slogdet = (-0, -inf), and
    # the gradient of both is zero (not the adjugate)
    a = [[[1.0, 2.0], [2.0, 4.0]], [[1.0, 4.0], [2.0, 3.0]]]
    outs, (grad,) = run('det', [a], {}, [[1.0, 1.0]])
    np.testing.assert_allclose(outs[0], [0.0, -5.0])
    np.testing.assert_allclose(grad, [[[0, 0], [0, 0]], [[3, -2], [-4, 1]]])
    outs, (grad,) = run('slogdet', [a], {}, [[1.0, 1.0], [1.0, 1.0]])
    np.testing.assert_allclose(outs[0], [0.0, -1.0])
    np.testing.assert_allclose(outs[1], [-np.inf, np.log(5.0)])
    np.testing.assert_allclose(
        grad, [[[0, 0], [0, 0]], [[-0.6, 0.4], [0.8, -0.2]]]
    )


ERRORS = [
    ('det', [np.ones((2, 3))], {}, r'square.*\(2, 3\)'),
    ('det', [np.ones(3)], {}, r'square.*\(3,\)'),
    ('inverse', [[[1.0, 2.0], [2.0, 4.0]]], {}, r"\(2, 2\).*singular"),
    ('potrf', [[[1.0, 2.0], [2.0, 1.0]]], {}, 'positive definite'),
    ('potri', [[[1.0, 0.0], [2.0, 0.0]]], {}, r"\(2, 2\).*singular"),
    ('trsm', [np.eye(2), np.ones((3, 2))], {}, r'A \(2, 2\) and B \(3, 2\)'),
    ('trmm', [np.eye(2), np.ones((2, 2, 2))], {}, r'A \(2, 2\)'),
    ('trmm', [np.eye(2), np.ones((2, 3))], {'rightside': True}, 'columns'),
    ('syrk', [np.ones(3)], {}, r'\(3,\)'),
    ('gelqf', [np.ones((3, 2))], {}, r'm <= n.*\(3, 2\)'),
    ('syevd', [np.ones((2, 3))], {}, r'\(2, 3\)'),
    ('sumlogdiag', [np.ones((2, 3))], {}, r'\(2, 3\)'),
    ('extractdiag', [np.ones((3, 3))], {'offset': 3}, 'offset 3'),
    ('extracttrian', [np.ones((3, 3))], {'offset': -3}, 'offset -3'),
    ('makediag', [np.float32(3.0)], {}, r'shape \(\)'),
    ('maketrian', [np.ones(4)], {}, r'got 4'),
]


@pytest.mark.parametrize(
    'op,inputs,attrs,message',
    ERRORS,
    ids=[f'{e[0]}-{i}' for i, e in enumerate(ERRORS)],
)
def test_bad_input_raises_naming_op_and_shape(op, inputs, attrs, message):
    # MXNet refuses all of these too (its messages differ)
    xs = [nd.array(x) for x in inputs]
    with pytest.raises(DLBookError, match=message) as err:
        getattr(nd.linalg, op)(*xs, **attrs).asnumpy()
    assert f'_linalg_{op}' in str(err.value)


def test_only_float32_and_float64():
    # MXNet: "This operation only supports 32-bit and 64-bit floating point"
    for dtype in ('int32', 'float16'):
        with pytest.raises(DLBookError, match=f'float64.*{dtype}'):
            nd.linalg.det(nd.array([[1, 2], [3, 4]], dtype=dtype))
