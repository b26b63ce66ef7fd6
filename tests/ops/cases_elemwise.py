"""Rows for the element-wise operators (dlbook/ops/unary.py, binary.py,
scalar.py, compare.py, identity.py and special.py)."""

import math
from statistics import NormalDist

import numpy as np

from tests.ops.cases import Case

# Shapes for binary operators: equal, broadcast on one axis, broadcast with
# fewer dimensions on the right.
SAME = [(3, 4), (3, 4)]
BCAST = [(3, 4), (1, 4)]
BCAST_ND = [(2, 3, 4), (3, 1)]


def unary(ref, low=-1.0, high=1.0, **kw):
    return Case([(3, 4)], ref=ref, low=low, high=high, **kw)


def binary(ref, **kw):
    """Three rows: equal shapes and two broadcasting patterns."""
    return [Case(shapes, ref=ref, **kw) for shapes in (SAME, BCAST, BCAST_ND)]


def small_ints(rng, dtype, shapes):
    """Integers 0..2 stored as floats: ties and zeros for comparisons."""
    return [rng.randint(0, 3, size=s).astype(dtype) for s in shapes]


def compare(ref):
    return [
        Case(
            shapes,
            ref=ref,
            grad=(),
            make_inputs=lambda rng, dtype, s=shapes: small_ints(rng, dtype, s),
        )
        for shapes in (SAME, BCAST, BCAST_ND)
    ]


def mod_inputs(shapes):
    """a = (k + f) * b with f in (0.2, 0.8): a / b stays away from integers,
    where mod jumps and floor(a / b) changes."""

    def make(rng, dtype):
        b = rng.uniform(0.5, 1.5, size=shapes[1])
        q = rng.randint(-2, 3, size=shapes[0]) + rng.uniform(
            0.2, 0.8, size=shapes[0]
        )
        return [(q * b).astype(dtype), b.astype(dtype)]

    return make


np_erf = np.vectorize(math.erf, otypes=[np.float64])
np_gamma = np.vectorize(math.gamma, otypes=[np.float64])
np_gammaln = np.vectorize(math.lgamma, otypes=[np.float64])


def _erfinv(y):
    """erfinv(y) = Phi^-1((1 + y) / 2) / sqrt(2), Phi the normal CDF;
    the tail form keeps full precision near |y| = 1."""
    if y < 0:
        return -_erfinv(-y)
    if y < 0.5:
        return NormalDist().inv_cdf((1 + y) / 2) / math.sqrt(2)
    return -NormalDist().inv_cdf((1 - y) / 2) / math.sqrt(2)


np_erfinv = np.vectorize(_erfinv, otypes=[np.float64])


def mxnet_round(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def mxnet_rint(x):
    lo, hi = np.floor(x), np.ceil(x)
    return np.where(x - lo <= hi - x, lo, hi)


# Kinks of the rounding functions on [-2.5, 2.5].
STEPS = tuple(np.arange(-2.5, 2.51, 0.5))


def as_dtype(f):
    """Reference for comparisons: 0/1 in the input dtype."""
    return lambda a, *rest: f(a, *rest).astype(a.dtype)


def smooth_l1(s):
    def ref(x):
        return np.where(
            np.abs(x) < 1 / s**2, 0.5 * (s * x) ** 2, np.abs(x) - 0.5 / s**2
        )

    return ref


def rmod_inputs(s):
    """x = s / (k + f): s / x stays away from integers."""

    def make(rng, dtype):
        q = rng.randint(1, 4, size=(3, 4)) + rng.uniform(0.2, 0.8, (3, 4))
        return [(s / q).astype(dtype)]

    return make


def scalar_mod_inputs(s):
    def make(rng, dtype):
        q = rng.randint(-2, 3, size=(3, 4)) + rng.uniform(0.2, 0.8, (3, 4))
        return [(q * s).astype(dtype)]

    return make


CASES = {
    # -- unary ---------------------------------------------------------------
    'negative': unary(np.negative),
    'reciprocal': unary(np.reciprocal, low=0.5, high=2.0),
    'abs': unary(np.abs, avoid=(0.0,)),
    'sign': unary(np.sign, avoid=(0.0,)),
    'round': [
        unary(mxnet_round, low=-2.5, high=2.5, avoid=STEPS),
        Case(
            [(4,)],
            ref=lambda x: np.array([-3.0, -2.0, 2.0, 3.0], x.dtype),
            make_inputs=lambda rng, dtype: [
                np.array([-2.5, -1.5, 1.5, 2.5], dtype)
            ],
            grad=(),
        ),
    ],
    'rint': [
        unary(mxnet_rint, low=-2.5, high=2.5, avoid=STEPS),
        Case(
            [(4,)],
            ref=lambda x: np.array([-3.0, -2.0, 1.0, 2.0], x.dtype),
            make_inputs=lambda rng, dtype: [
                np.array([-2.5, -1.5, 1.5, 2.5], dtype)
            ],
            grad=(),
        ),
    ],
    'ceil': unary(np.ceil, low=-2.5, high=2.5, avoid=STEPS),
    'floor': unary(np.floor, low=-2.5, high=2.5, avoid=STEPS),
    'trunc': unary(np.trunc, low=-2.5, high=2.5, avoid=STEPS),
    # rounding toward zero (NumPy 2.5 deprecates np.fix for np.trunc)
    'fix': unary(np.trunc, low=-2.5, high=2.5, avoid=STEPS),
    'square': unary(np.square),
    'sqrt': unary(np.sqrt, low=0.5, high=2.0),
    'rsqrt': unary(lambda x: 1 / np.sqrt(x), low=0.5, high=2.0),
    'cbrt': unary(np.cbrt, low=0.5, high=2.0),
    'rcbrt': unary(lambda x: 1 / np.cbrt(x), low=0.5, high=2.0),
    'exp': unary(np.exp),
    'expm1': unary(np.expm1),
    'log': unary(np.log, low=0.5, high=2.0),
    'log10': unary(np.log10, low=0.5, high=2.0),
    'log2': unary(np.log2, low=0.5, high=2.0),
    'log1p': unary(np.log1p, low=-0.5, high=1.0),
    'sin': unary(np.sin, low=-3.0, high=3.0),
    'cos': unary(np.cos, low=-3.0, high=3.0),
    'tan': unary(np.tan),
    'arcsin': unary(np.arcsin, low=-0.9, high=0.9),
    'arccos': unary(np.arccos, low=-0.9, high=0.9),
    'arctan': unary(np.arctan, low=-2.0, high=2.0),
    'sinh': unary(np.sinh),
    'cosh': unary(np.cosh),
    'tanh': unary(np.tanh),
    'arcsinh': unary(np.arcsinh, low=-2.0, high=2.0),
    'arccosh': unary(np.arccosh, low=1.2, high=3.0),
    'arctanh': unary(np.arctanh, low=-0.9, high=0.9),
    'degrees': unary(np.degrees),
    'radians': unary(np.radians, low=-90.0, high=90.0),
    'relu': unary(lambda x: np.maximum(x, 0), avoid=(0.0,)),
    'sigmoid': unary(lambda x: 1 / (1 + np.exp(-x)), low=-4.0, high=4.0),
    'softsign': unary(
        lambda x: x / (1 + np.abs(x)), low=-3.0, high=3.0, avoid=(0.0,)
    ),
    'erf': [
        unary(np_erf, low=-3.0, high=3.0),
        Case([(2, 3, 4)], ref=np_erf, low=-0.5, high=0.5),
    ],
    'erfinv': [
        unary(np_erfinv, low=-0.95, high=0.95),
        Case([(2, 3, 4)], ref=np_erfinv, low=0.9, high=0.999),
    ],
    'gamma': [
        unary(np_gamma, low=0.2, high=4.0),
        # negative non-integers: gamma alternates in sign between poles
        unary(np_gamma, low=-2.9, high=-2.1),
    ],
    'gammaln': [
        unary(np_gammaln, low=0.2, high=6.0),
        unary(np_gammaln, low=-1.9, high=-1.1),
        Case([(2, 3, 4)], ref=np_gammaln, low=20.0, high=200.0),
    ],
    'hard_sigmoid': [
        unary(
            lambda x: np.clip(0.2 * x + 0.5, 0, 1),
            low=-4.0,
            high=4.0,
            avoid=(-2.5, 2.5),
        ),
        Case(
            [(3, 4)],
            attrs={'alpha': 0.3, 'beta': 0.4},
            ref=lambda x: np.clip(0.3 * x + 0.4, 0, 1),
            low=-3.0,
            high=3.0,
            avoid=(-4 / 3, 2.0),
        ),
    ],
    'logical_not': Case(
        [(3, 4)],
        grad=(),
        make_inputs=lambda rng, dtype: small_ints(rng, dtype, [(3, 4)]),
        ref=as_dtype(lambda x: x == 0),
    ),
    'smooth_l1': [
        unary(smooth_l1(1.0), low=-2.0, high=2.0, avoid=(-1.0, 1.0)),
        Case(
            [(3, 4)],
            attrs={'scalar': 2.0},
            ref=smooth_l1(2.0),
            avoid=(-0.25, 0.25),
            margin=0.02,
        ),
    ],
    # -- binary, broadcasting -------------------------------------------------
    'broadcast_add': binary(np.add),
    'broadcast_sub': binary(np.subtract),
    'broadcast_mul': binary(np.multiply),
    'broadcast_div': binary(np.divide, low=0.5, high=2.0),
    'broadcast_mod': [
        Case(shapes, ref=np.mod, make_inputs=mod_inputs(shapes))
        for shapes in (SAME, BCAST, BCAST_ND)
    ],
    'broadcast_power': binary(np.power, low=0.5, high=2.0),
    'broadcast_maximum': binary(np.maximum),
    'broadcast_minimum': binary(np.minimum),
    'broadcast_hypot': binary(np.hypot),
    'broadcast_equal': compare(as_dtype(np.equal)),
    'broadcast_not_equal': compare(as_dtype(np.not_equal)),
    'broadcast_greater': compare(as_dtype(np.greater)),
    'broadcast_greater_equal': compare(as_dtype(np.greater_equal)),
    'broadcast_lesser': compare(as_dtype(np.less)),
    'broadcast_lesser_equal': compare(as_dtype(np.less_equal)),
    'broadcast_logical_and': compare(as_dtype(np.logical_and)),
    'broadcast_logical_or': compare(as_dtype(np.logical_or)),
    'broadcast_logical_xor': compare(as_dtype(np.logical_xor)),
    # -- binary, equal shapes (what Symbol arithmetic records) ----------------
    'elemwise_add': Case(SAME, ref=np.add),
    'elemwise_sub': Case(SAME, ref=np.subtract),
    'elemwise_mul': Case(SAME, ref=np.multiply),
    'elemwise_div': Case(SAME, ref=np.divide, low=0.5, high=2.0),
    '_mod': Case(SAME, ref=np.mod, make_inputs=mod_inputs(SAME)),
    '_power': Case(SAME, ref=np.power, low=0.5, high=2.0),
    '_maximum': Case(SAME, ref=np.maximum),
    '_minimum': Case(SAME, ref=np.minimum),
    '_hypot': Case(SAME, ref=np.hypot),
    '_equal': compare(as_dtype(np.equal))[0],
    '_not_equal': compare(as_dtype(np.not_equal))[0],
    '_greater': compare(as_dtype(np.greater))[0],
    '_greater_equal': compare(as_dtype(np.greater_equal))[0],
    '_lesser': compare(as_dtype(np.less))[0],
    '_lesser_equal': compare(as_dtype(np.less_equal))[0],
    '_logical_and': compare(as_dtype(np.logical_and))[0],
    '_logical_or': compare(as_dtype(np.logical_or))[0],
    '_logical_xor': compare(as_dtype(np.logical_xor))[0],
    # -- with a scalar -------------------------------------------------------
    '_plus_scalar': unary(
        lambda x: x + np.float32(2.5), attrs={'scalar': 2.5}
    ),
    '_minus_scalar': unary(
        lambda x: x - np.float32(2.5), attrs={'scalar': 2.5}
    ),
    '_rminus_scalar': unary(
        lambda x: np.float32(2.5) - x, attrs={'scalar': 2.5}
    ),
    '_mul_scalar': unary(lambda x: x * np.float32(2.5), attrs={'scalar': 2.5}),
    '_div_scalar': unary(lambda x: x / np.float32(2.5), attrs={'scalar': 2.5}),
    '_rdiv_scalar': unary(
        lambda x: np.float32(2.5) / x, low=0.5, high=2.0, attrs={'scalar': 2.5}
    ),
    '_mod_scalar': Case(
        [(3, 4)],
        attrs={'scalar': 0.75},
        ref=lambda x: np.mod(x, np.float32(0.75)),
        make_inputs=scalar_mod_inputs(0.75),
    ),
    '_rmod_scalar': Case(
        [(3, 4)],
        attrs={'scalar': 3.0},
        ref=lambda x: np.mod(np.float32(3.0), x),
        make_inputs=rmod_inputs(3.0),
    ),
    '_power_scalar': [
        unary(
            lambda x: x ** np.float32(1.5),
            low=0.5,
            high=2.0,
            attrs={'scalar': 1.5},
        ),
        unary(lambda x: x**3, attrs={'scalar': 3}),
    ],
    '_rpower_scalar': unary(
        lambda x: np.float32(2.0) ** x, attrs={'scalar': 2.0}
    ),
    '_maximum_scalar': unary(
        lambda x: np.maximum(x, np.float32(0.25)),
        attrs={'scalar': 0.25},
        avoid=(0.25,),
    ),
    '_minimum_scalar': unary(
        lambda x: np.minimum(x, np.float32(0.25)),
        attrs={'scalar': 0.25},
        avoid=(0.25,),
    ),
    '_hypot_scalar': unary(
        lambda x: np.hypot(x, np.float32(0.5)), attrs={'scalar': 0.5}
    ),
    '_equal_scalar': Case(
        [(3, 4)],
        attrs={'scalar': 1},
        grad=(),
        make_inputs=lambda rng, dtype: small_ints(rng, dtype, [(3, 4)]),
        ref=as_dtype(lambda x: x == 1),
    ),
    '_not_equal_scalar': Case(
        [(3, 4)],
        attrs={'scalar': 1},
        grad=(),
        make_inputs=lambda rng, dtype: small_ints(rng, dtype, [(3, 4)]),
        ref=as_dtype(lambda x: x != 1),
    ),
    '_greater_scalar': unary(
        as_dtype(lambda x: x > np.float32(0.25)),
        attrs={'scalar': 0.25},
        grad=(),
    ),
    '_greater_equal_scalar': Case(
        [(3, 4)],
        attrs={'scalar': 1},
        grad=(),
        make_inputs=lambda rng, dtype: small_ints(rng, dtype, [(3, 4)]),
        ref=as_dtype(lambda x: x >= 1),
    ),
    '_lesser_scalar': unary(
        as_dtype(lambda x: x < np.float32(0.25)),
        attrs={'scalar': 0.25},
        grad=(),
    ),
    '_lesser_equal_scalar': Case(
        [(3, 4)],
        attrs={'scalar': 1},
        grad=(),
        make_inputs=lambda rng, dtype: small_ints(rng, dtype, [(3, 4)]),
        ref=as_dtype(lambda x: x <= 1),
    ),
    '_logical_and_scalar': Case(
        [(3, 4)],
        attrs={'scalar': 1},
        grad=(),
        make_inputs=lambda rng, dtype: small_ints(rng, dtype, [(3, 4)]),
        ref=as_dtype(lambda x: x != 0),
    ),
    '_logical_or_scalar': Case(
        [(3, 4)],
        attrs={'scalar': 0},
        grad=(),
        make_inputs=lambda rng, dtype: small_ints(rng, dtype, [(3, 4)]),
        ref=as_dtype(lambda x: x != 0),
    ),
    '_logical_xor_scalar': Case(
        [(3, 4)],
        attrs={'scalar': 1},
        grad=(),
        make_inputs=lambda rng, dtype: small_ints(rng, dtype, [(3, 4)]),
        ref=as_dtype(lambda x: x == 0),
    ),
    # -- clip, sums, casts, copies --------------------------------------------
    'clip': Case(
        [(3, 4)],
        attrs={'a_min': -0.5, 'a_max': 0.5},
        ref=lambda x: np.clip(x, -0.5, 0.5),
        avoid=(-0.5, 0.5),
    ),
    'add_n': [
        Case(
            [(3, 4)] * 3, attrs={'num_args': 3}, ref=lambda a, b, c: a + b + c
        ),
        Case([(2, 3)], attrs={'num_args': 1}, ref=lambda a: a),
    ],
    'Cast': [
        Case(
            [(3, 4)],
            attrs={'dtype': 'float64'},
            dtypes=('float64',),
            ref=lambda x: x.astype('float64'),
        ),
        Case(
            [(3, 4)],
            attrs={'dtype': 'int32'},
            low=-5.0,
            high=5.0,
            ref=lambda x: x.astype('int32'),
            grad=(),
        ),
    ],
    '_copy': unary(lambda x: x),
    # Forward is the identity but the gradient is zero by design, so central
    # differences do not apply; test_elemwise_semantics checks the zero.
    'BlockGrad': unary(lambda x: x, grad=()),
}
