"""``sym.np`` and ``sym.npx``: NumPy-mode functions that build graph nodes.

With ``F = mx.sym`` (a block called on a Symbol), ``F.np.add(x, 1)``,
``F.np.sum(x, axis=1)`` and ``F.npx.relu(x)`` record nodes under MXNet's
np-mode operator names (``_npi_add_scalar``, ``_np_sum``, ``_npx_relu``;
``dlbook.symbol.np_names`` and ``dlbook.ops.numpy_graph``), the nodes
MXNet 1.9.1 records for the same calls.  A graph does not know its
arrays' shapes, so every NumPy rule that depends on them (``dot`` of two
vectors is 0-d, ``squeeze`` drops the axes of length 1...) lives in the
operator, which ``mx.np`` runs too: eager, hybridized and symbolic calls
compute with one definition.

The names are those of ``mx.np``/``mx.npx`` that a graph can express:
element-wise math and comparisons, reductions, ``dot``/``matmul``,
shape changes, joining and splitting, ``where``, creation
(``zeros``, ``ones``, ``arange``...), ``np.random.normal``/``uniform``
and the layer operators of ``npx``.  Functions whose result's shape
depends on the values (``nonzero``, ``unique``) or that read data from
the host (``array``) have no symbolic form, as in MXNet.  Hybridizing
does not need this module: dlbook traces np-mode blocks by running them
(``dlbook.gluon.deferred``), where ``F.np`` is ``mx.np`` itself.
"""

import numbers
import types

from ..base import DLBookError, dtype_name
from ..ops import REGISTRY
from .np_names import NP_NAMES
from .register import make_function, make_node
from .symbol import Symbol

__all__ = ['np', 'npx']

_NP_OP = {np_name: op for op, (np_name, _) in NP_NAMES.items()}


def _node(np_name, inputs, attrs, extra=None):
    hint = NP_NAMES[_NP_OP[np_name]][1]
    out = make_node(np_name, inputs, attrs, None, hint=hint)
    node = out._outputs[0][0]
    node.op = np_name  # the JSON name, not the canonical one
    node.extra.update(extra or {})
    return out


def _binary(name, reverse_name=None):
    def function(x1, x2):
        if isinstance(x1, Symbol) and isinstance(x2, Symbol):
            return _node(f'_npi_{name}', [x1, x2], {})
        if isinstance(x1, Symbol):
            array, number, op = x1, x2, f'_npi_{name}_scalar'
        else:
            array, number = x2, x1
            op = (
                f'_npi_{reverse_name}_scalar'
                if reverse_name
                else f'_npi_{name}_scalar'
            )
        if not isinstance(number, numbers.Number):
            raise TypeError(
                f'sym.np.{name}: operands must be Symbols or '
                f'numbers, got {type(number).__name__}'
            )
        return _node(
            op,
            [array],
            {'scalar': float(number)},
            {'is_int': str(isinstance(number, int))},
        )

    function.__name__ = name
    function.__doc__ = f'Element-wise ``{name}`` of Symbols or numbers.'
    return function


def _unary(np_name, name):
    def function(x):
        return _node(np_name, [x], {})

    function.__name__ = name
    function.__doc__ = f'Element-wise ``{name}`` (node ``{np_name}``).'
    return function


np = types.ModuleType('dlbook.symbol.np', __doc__)
npx = types.ModuleType('dlbook.symbol.npx', __doc__)
for _name, _rev in (
    ('add', None),
    ('subtract', 'rsubtract'),
    ('multiply', None),
    ('true_divide', 'rtrue_divide'),
    ('mod', 'rmod'),
    ('power', 'rpower'),
):
    setattr(np, _name, _binary(_name, _rev))
np.divide = np.true_divide
for _op, (_np_name, _hint) in NP_NAMES.items():
    if (
        _np_name.startswith('_npi_')
        and not _op.startswith('broadcast')
        and not _op.endswith('_scalar')
    ):
        setattr(np, _hint, _unary(_np_name, _hint))
np.absolute = np.abs


def _maximum_or_minimum(name):
    legacy = {'maximum': '_maximum_scalar', 'minimum': '_minimum_scalar'}

    def function(x1, x2):
        if isinstance(x1, Symbol) and isinstance(x2, Symbol):
            return _node(f'_npi_{name}', [x1, x2], {})
        array, number = (x1, x2) if isinstance(x1, Symbol) else (x2, x1)
        # MXNet 1.9.1 records the legacy scalar operator here
        return make_node(
            legacy[name],
            [array],
            {'scalar': float(number)},
            None,
            hint=f'{name}_scalar',
        )

    function.__name__ = name
    return function


np.maximum = _maximum_or_minimum('maximum')
np.minimum = _maximum_or_minimum('minimum')
npx.relu = _unary('_npx_relu', 'relu')
npx.sigmoid = _unary('_npx_sigmoid', 'sigmoid')
del _name, _rev, _op, _np_name, _hint


# -- everything else: one node of an operator that applies NumPy's rules --


def _op(op_name, inputs, hint, **attrs):
    """The node ``op_name(*inputs, **attrs)``; attributes left as None
    are not stored (the operator's defaults apply)."""
    for x in inputs:
        if not isinstance(x, Symbol):
            raise DLBookError(
                f'sym.np.{hint}: array operands must be '
                f'Symbols, got {type(x).__name__}'
            )
    given = {k: v for k, v in attrs.items() if v is not None}
    return make_node(op_name, list(inputs), given, None, hint=hint)


def _public(module, name=None):
    def register(function):
        setattr(module, name or function.__name__, function)
        return function

    return register


def _dtype(dtype):
    return None if dtype is None else dtype_name(dtype)


def _axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


def _compare(name, mirrored):
    """``x1 <name> x2`` as a bool node (``_npi_greater``,
    ``_npi_greater_scalar``; a number on the left uses the mirrored
    scalar operator, ``1 < x`` is ``x > 1``)."""

    def function(x1, x2):
        if isinstance(x1, Symbol) and isinstance(x2, Symbol):
            return _op(f'_npi_{name}', [x1, x2], name)
        if isinstance(x1, Symbol):
            array, number, op = x1, x2, name
        else:
            array, number, op = x2, x1, mirrored
        if not isinstance(number, numbers.Number):
            raise TypeError(
                f'sym.np.{name}: operands must be Symbols or '
                f'numbers, got {type(number).__name__}'
            )
        out = make_node(
            f'_npi_{op}_scalar',
            [array],
            {'scalar': float(number)},
            None,
            hint=f'{op}_scalar',
        )
        out._outputs[0][0].extra['is_int'] = str(isinstance(number, int))
        return out

    function.__name__ = name
    function.__doc__ = f'``x1 {name} x2`` element-wise, as bool.'
    return function


for _name, _mirror in (
    ('equal', 'equal'),
    ('not_equal', 'not_equal'),
    ('greater', 'less'),
    ('less', 'greater'),
    ('greater_equal', 'less_equal'),
    ('less_equal', 'greater_equal'),
):
    setattr(np, _name, _compare(_name, _mirror))
del _name, _mirror


# reductions


def _reduction(op_name, name, doc):
    def function(a, axis=None, dtype=None, out=None, keepdims=False):
        if dtype is not None:
            a = _op('Cast', [a], 'cast', dtype=_dtype(dtype))
        return _op(
            op_name,
            [a],
            name,
            axis=_axis(axis),
            keepdims=bool(keepdims) or None,
        )

    function.__name__ = name
    function.__doc__ = doc
    return function


np.sum = _reduction('_np_sum', 'sum', 'Sum over ``axis`` (0-d for all).')
np.mean = _reduction('_npi_mean', 'mean', 'Mean over ``axis``.')
np.prod = _reduction('_np_prod', 'prod', 'Product over ``axis``.')
np.max = np.amax = _reduction('_np_max', 'max', 'Largest value over ``axis``.')
np.min = np.amin = _reduction(
    '_np_min', 'min', 'Smallest value over ``axis``.'
)


@_public(np)
def argmax(a, axis=None, out=None, keepdims=False):
    """Index of the largest value (int64; of the flattened array if
    ``axis`` is None)."""
    return _op(
        '_npi_argmax', [a], 'argmax', axis=axis, keepdims=bool(keepdims)
    )


@_public(np)
def argmin(a, axis=None, out=None, keepdims=False):
    """Index of the smallest value (int64)."""
    return _op(
        '_npi_argmin', [a], 'argmin', axis=axis, keepdims=bool(keepdims)
    )


@_public(np)
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """Variance over ``axis`` (``ddof`` subtracted from the count)."""
    return _op(
        '_npi_var',
        [a],
        'var',
        axis=_axis(axis),
        dtype=_dtype(dtype),
        ddof=ddof,
        keepdims=bool(keepdims),
    )


@_public(np)
def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """Standard deviation over ``axis``."""
    return _op(
        '_npi_std',
        [a],
        'std',
        axis=_axis(axis),
        dtype=_dtype(dtype),
        ddof=ddof,
        keepdims=bool(keepdims),
    )


@_public(np)
def cumsum(a, axis=None, dtype=None, out=None):
    """Running sums along ``axis`` (of the flattened array if None)."""
    return _op('_np_cumsum', [a], 'cumsum', axis=axis, dtype=_dtype(dtype))


np.all = _reduction('_np_all', 'all', 'True where every value is non-zero.')
np.any = _reduction('_np_any', 'any', 'True where some value is non-zero.')


# products


@_public(np)
def dot(a, b, out=None):
    """NumPy's dot (two vectors give a 0-d inner product)."""
    return _op('_np_dot', [a, b], 'dot')


@_public(np)
def matmul(a, b, out=None):
    """Matrix product of the last two axes, leading axes broadcast."""
    return _op('_npi_matmul', [a, b], 'matmul')


# shapes


@_public(np)
def reshape(a, newshape, order='C'):
    """The same data in ``newshape`` (one -1 inferred, () is 0-d)."""
    if isinstance(newshape, int):
        newshape = (newshape,)
    return _op(
        '_np_reshape', [a], 'reshape', newshape=tuple(newshape), order=order
    )


@_public(np)
def ravel(x, order='C'):
    """The flattened array."""
    return reshape(x, (-1,), order)


@_public(np)
def transpose(a, axes=None):
    """Permute the axes (reverse them by default)."""
    return _op(
        '_np_transpose',
        [a],
        'transpose',
        axes=None if axes is None else tuple(axes),
    )


@_public(np)
def swapaxes(a, axis1, axis2):
    """Exchange two axes."""
    return _op('SwapAxis', [a], 'swapaxes', dim1=axis1, dim2=axis2)


@_public(np)
def expand_dims(a, axis):
    """Insert an axis of length 1."""
    return _op('expand_dims', [a], 'expand_dims', axis=axis)


@_public(np)
def squeeze(x, axis=None):
    """Drop axes of length 1 (all, or those in ``axis``)."""
    return _op('_np_squeeze', [x], 'squeeze', axis=_axis(axis))


@_public(np)
def broadcast_to(array, shape):  # noqa: A002
    """``array`` broadcast to ``shape`` (leading axes may be added)."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return _op('_npi_broadcast_to', [array], 'broadcast_to', shape=shape)


@_public(np)
def tile(A, reps):
    """Repeat the whole array ``reps`` times along each axis."""
    reps = (reps,) if isinstance(reps, int) else tuple(reps)
    return _op('tile', [A], 'tile', reps=reps)


@_public(np)
def repeat(a, repeats, axis=None):
    """Repeat each element (of the flattened array if ``axis`` is
    None)."""
    return _op('repeat', [a], 'repeat', repeats=repeats, axis=axis)


@_public(np)
def concatenate(seq, axis=0, out=None):
    """Join along an existing axis."""
    return _op('_npi_concatenate', list(seq), 'concatenate', axis=axis)


@_public(np)
def stack(arrays, axis=0, out=None):
    """Join along a new axis."""
    return _op('_npi_stack', list(arrays), 'stack', axis=axis)


@_public(np)
def split(ary, indices_or_sections, axis=0):
    """A list of Symbols: ``indices_or_sections`` equal parts, or the
    parts between the given indices."""
    if isinstance(indices_or_sections, int):
        out = _op(
            '_split_v2',
            [ary],
            'split',
            sections=indices_or_sections,
            axis=axis,
        )
    else:
        out = _op(
            '_split_v2',
            [ary],
            'split',
            axis=axis,
            indices=(0,) + tuple(indices_or_sections),
        )
    return [out[i] for i in range(len(out._outputs))]


@_public(np)
def where(condition, x, y):
    """Elements of ``x`` where ``condition`` holds, else of ``y``
    (broadcasting; either branch may be a number)."""
    if isinstance(y, numbers.Number) and isinstance(x, Symbol):
        return _op(
            '_npi_where_rscalar',
            [condition, x],
            'where_rscalar',
            scalar=float(y),
        )
    if isinstance(x, numbers.Number) and isinstance(y, Symbol):
        return _op(
            '_npi_where_lscalar',
            [condition, y],
            'where_lscalar',
            scalar=float(x),
        )
    return _op('_npi_where', [condition, x, y], 'where')


@_public(np)
def clip(a, a_min, a_max, out=None):
    """Limit the values to ``[a_min, a_max]`` (None: no bound)."""
    return _op(
        'clip',
        [a],
        'clip',
        a_min=float('-inf') if a_min is None else a_min,
        a_max=float('inf') if a_max is None else a_max,
    )


@_public(np)
def sort(a, axis=-1, kind=None, order=None):
    """A sorted copy along ``axis``."""
    if axis is None:
        a, axis = ravel(a), 0
    return _op('sort', [a], 'sort', axis=axis, is_ascend=True)


@_public(np)
def argsort(a, axis=-1, kind=None, order=None):
    """Indices that sort along ``axis`` (int64)."""
    if axis is None:
        a, axis = ravel(a), 0
    return _op(
        'argsort', [a], 'argsort', axis=axis, is_ascend=True, dtype='int64'
    )


@_public(np)
def take(a, indices, axis=None, mode='raise', out=None):
    """Elements at ``indices`` (a Symbol) along ``axis`` (of the
    flattened array if None)."""
    if axis is None:
        a, axis = ravel(a), 0
    return _op('take', [a, indices], 'take', axis=axis, mode=mode)


# creation


def _shape(shape):
    return (shape,) if isinstance(shape, int) else tuple(shape)


@_public(np)
def zeros(shape, dtype='float32', order='C', ctx=None):
    """A node of zeros (float32 unless ``dtype``)."""
    return _op(
        '_npi_zeros', [], 'zeros', shape=_shape(shape), dtype=_dtype(dtype)
    )


@_public(np)
def ones(shape, dtype='float32', order='C', ctx=None):
    """A node of ones."""
    return _op(
        '_npi_ones', [], 'ones', shape=_shape(shape), dtype=_dtype(dtype)
    )


@_public(np)
def full(shape, fill_value, dtype='float32', order='C', ctx=None):
    """A node filled with ``fill_value``."""
    return _op(
        '_full',
        [],
        'full',
        shape=_shape(shape),
        value=float(fill_value),
        dtype=_dtype(dtype),
    )


@_public(np)
def arange(start, stop=None, step=1, dtype='float32', ctx=None):
    """Evenly spaced values in ``[start, stop)``."""
    return _op(
        '_npi_arange',
        [],
        'arange',
        start=start,
        stop=stop,
        step=step,
        dtype=_dtype(dtype),
    )


@_public(np)
def linspace(start, stop, num=50, endpoint=True, dtype='float32', ctx=None):
    """``num`` evenly spaced values from ``start`` to ``stop``."""
    return _op(
        '_linspace',
        [],
        'linspace',
        start=start,
        stop=stop,
        num=num,
        endpoint=endpoint,
        dtype=_dtype(dtype),
    )


@_public(np)
def eye(N, M=None, k=0, dtype='float32', ctx=None):
    """Ones on the ``k``-th diagonal."""
    return _op('_npi_eye', [], 'eye', N=N, M=M, k=k, dtype=_dtype(dtype))


@_public(np)
def full_like(a, fill_value, dtype=None, ctx=None):
    """``fill_value`` in the shape of ``a`` (a's dtype unless
    ``dtype``)."""
    return _op(
        '_npi_full_like',
        [a],
        'full_like',
        fill_value=float(fill_value),
        dtype=_dtype(dtype),
    )


@_public(np)
def zeros_like(a, dtype=None, ctx=None):
    """Zeros in the shape of ``a``."""
    return full_like(a, 0, dtype)


@_public(np)
def ones_like(a, dtype=None, ctx=None):
    """Ones in the shape of ``a``."""
    return full_like(a, 1, dtype)


np.random = types.ModuleType(
    'dlbook.symbol.np.random', 'Sampling nodes of ``sym.np``.'
)


@_public(np.random)
def normal(loc=0.0, scale=1.0, size=None, dtype='float32', ctx=None):
    """Samples of N(loc, scale**2) (number parameters)."""
    return _op(
        '_npi_normal',
        [],
        'normal',
        loc=float(loc),
        scale=float(scale),
        size=size,
        dtype=_dtype(dtype),
    )


@_public(np.random)
def uniform(low=0.0, high=1.0, size=None, dtype='float32', ctx=None):
    """Samples of U[low, high) (number parameters)."""
    return _op(
        '_npi_uniform',
        [],
        'uniform',
        low=float(low),
        high=float(high),
        size=size,
        dtype=_dtype(dtype),
    )


@_public(np.random)
def randint(low, high=None, size=None, dtype=None, ctx=None):
    """Integers drawn uniformly from ``[low, high)`` (``[0, low)`` without
    ``high``), int64 unless ``dtype``."""
    if high is None:
        low, high = 0, low
    return _op(
        '_random_randint',
        [],
        'random_randint',
        low=low,
        high=high,
        shape=() if size is None else _shape(size),
        dtype=_dtype(dtype) or 'int64',
    )


@_public(npx, 'reshape')
def npx_reshape(a, newshape, reverse=False, order='C'):
    """Reshape with MXNet's NumPy-mode codes (-1 infer, -2 copy, -3 skip
    a 1, -4 copy the rest, -5 merge two, -6 split one)."""
    newshape = (newshape,) if isinstance(newshape, int) else tuple(newshape)
    return _op(
        '_npx_reshape',
        [a],
        'reshape',
        newshape=newshape,
        reverse=bool(reverse) or None,
    )


# npx: the layer and helper operators, under their legacy names (what
# MXNet 1.9.1 records for F.npx calls), taking the same arguments as the
# legacy sym functions
for _npx_name, _op_name in (
    ('softmax', 'softmax'),
    ('log_softmax', 'log_softmax'),
    ('one_hot', 'one_hot'),
    ('batch_dot', 'batch_dot'),
    ('sequence_mask', 'SequenceMask'),
    ('pick', 'pick'),
    ('batch_flatten', 'Flatten'),
    ('topk', 'topk'),
    ('activation', 'Activation'),
    ('fully_connected', 'FullyConnected'),
    ('convolution', 'Convolution'),
    ('pooling', 'Pooling'),
    ('dropout', 'Dropout'),
    ('embedding', 'Embedding'),
    ('layer_norm', 'LayerNorm'),
    ('batch_norm', 'BatchNorm'),
    ('rnn', 'RNN'),
    ('leaky_relu', 'LeakyReLU'),
    ('deconvolution', 'Deconvolution'),
    ('slice', 'slice'),
    ('arange_like', '_contrib_arange_like'),
    ('cast', 'Cast'),
    ('erf', 'erf'),
    ('erfinv', 'erfinv'),
    ('gather_nd', 'gather_nd'),
    ('smooth_l1', 'smooth_l1'),
    ('reshape_like', 'reshape_like'),
    ('shape_array', 'shape_array'),
    ('multibox_prior', '_contrib_MultiBoxPrior'),
    ('multibox_target', '_contrib_MultiBoxTarget'),
    ('multibox_detection', '_contrib_MultiBoxDetection'),
    ('roi_pooling', 'ROIPooling'),
):
    if _op_name in REGISTRY:
        setattr(npx, _npx_name, make_function(REGISTRY[_op_name], _npx_name))
del _npx_name, _op_name
