"""Operators that select elements: slicing, gathering, sorting, masking.

A selection's gradient sends each output gradient back to the input
element it was read from; elements read twice (``take`` with repeated
indices) receive the sum, elements never read receive zero.  Index inputs
(``indices``, ``index``, ``condition``) get no gradient (``None``).

MXNet passes indices as floating-point arrays more often than not
(``nd.array([0, 2])`` is float32); they are truncated to integers here.
"""

import math

from ..backend import on_host
from ..base import DLBookError, DLBookIndexError
from .kernels import Elementwise
from .op import Op, register
from .shape import as_shape, check_axis

__all__ = ['take_along', 'scatter_along']

_ON_DEVICE = object()  # marks ``saved`` of pick's GPU kernels


# -- helpers ----------------------------------------------------------------


def _as_int(xp, indices):
    """Integer copy of an index array (floats are truncated, as in MXNet)."""
    if indices.dtype.kind in 'iu':
        return indices.astype('int64', copy=False)
    return indices.astype('int64')


def take_along(xp, x, idx, axis):
    """``x`` read at ``idx`` along ``axis`` (``numpy.take_along_axis``)."""
    if axis == x.ndim - 1 and x.size and idx.shape[:-1] == x.shape[:-1]:
        # the last axis (a loss's pick): one fancy index on the rows, much
        # cheaper than take_along_axis's general index construction
        n, k = x.shape[-1], idx.shape[-1]
        lanes = x.size // n
        rows = xp.arange(lanes).reshape(lanes, 1)
        return x.reshape(lanes, n)[rows, idx.reshape(lanes, k)].reshape(
            idx.shape
        )
    return xp.take_along_axis(x, idx, axis=axis)


def scatter_along(xp, shape, dtype, idx, values, axis):
    """Zeros of ``shape`` with ``values`` written at ``idx`` along ``axis``.

    The inverse of :func:`take_along` when each lane of ``idx`` holds
    distinct positions (sort, topk, pick).  Works by flattening every lane
    into one row, so a plain fancy assignment does the scatter on both
    NumPy and CuPy.
    """
    last = axis == len(shape) - 1
    if not last:
        idx = xp.moveaxis(idx, axis, -1)
        values = xp.moveaxis(values, axis, -1)
    lane_shape, k = idx.shape[:-1], idx.shape[-1]
    lanes, n = math.prod(lane_shape), shape[axis]
    out = xp.zeros((lanes, n), dtype=dtype)
    rows = xp.arange(lanes).reshape(lanes, 1)
    out[rows, idx.reshape(lanes, k)] = values.reshape(lanes, k)
    out = out.reshape(lane_shape + (n,))
    if last:  # already in place and contiguous
        return out
    return xp.ascontiguousarray(xp.moveaxis(out, -1, axis))


def _fix_indices(xp, idx, size, mode, op_name, shape):
    """Apply MXNet's out-of-range ``mode``: clip, wrap or raise."""
    if mode == 'clip':
        # two ufuncs: the same integers as xp.clip, without its Python
        # wrapper (a loss's pick clips its labels every step)
        return xp.minimum(xp.maximum(idx, 0), size - 1)
    if mode == 'wrap':
        return idx % size
    if mode == 'raise':
        if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= size):
            raise DLBookError(
                f'{op_name}: index out of range [0, {size}) for input of '
                f'shape {shape} (mode=\'raise\')'
            )
        return idx
    raise DLBookError(
        f"{op_name}: mode={mode!r} must be 'clip', 'wrap' or 'raise'"
    )


def _slice_key(op_name, shape, begin, end, step):
    """Tuple of Python slices for MXNet's ``slice(begin, end, step)``."""
    begin, end, step = as_shape(begin), as_shape(end), as_shape(step)
    if (
        len(begin) != len(end)
        or len(begin) > len(shape)
        or (step and len(step) != len(begin))
    ):
        raise DLBookError(
            f'{op_name}: begin={begin}, end={end}, step={step} must have '
            f'equal lengths, at most the {len(shape)} dims of the input of '
            f'shape {tuple(shape)}'
        )
    step = step or (None,) * len(begin)
    if any(s == 0 for s in step):
        raise DLBookError(f'{op_name}: step={step} cannot contain 0')
    return tuple(slice(b, e, s) for b, e, s in zip(begin, end, step))


def _one_d(y):
    """Legacy MXNet has no 0-d arrays: give a scalar result shape (1,)."""
    return y.reshape(1) if y.ndim == 0 else y


# -- slicing ----------------------------------------------------------------


@register('slice', 'crop')
class Slice(Op):
    """y = x[b0:e0:s0, b1:e1:s1, ...] (None entries mean the default);
    dx = zeros with dy written into the sliced region."""

    defaults = {'begin': None, 'end': None, 'step': ()}

    def forward(self, xp, x):
        key = _slice_key(
            self.name,
            x.shape,
            self.attrs['begin'],
            self.attrs['end'],
            self.attrs['step'],
        )
        self.saved = (x.shape, x.dtype, key)
        return x[key]

    def backward(self, xp, dy):
        shape, dtype, key = self.saved
        dx = xp.zeros(shape, dtype=dtype)
        dx[key] = dy
        return dx


@register('slice_axis')
class SliceAxis(Op):
    """y = x[..., begin:end, ...] on ``axis`` (end=None: to the end);
    dx = zeros with dy written into that range."""

    defaults = {'axis': None, 'begin': None, 'end': None}

    def forward(self, xp, x):
        axis = check_axis(self.attrs['axis'], x.shape, self.name)
        key = (slice(None),) * axis + (
            slice(self.attrs['begin'], self.attrs['end']),
        )
        self.saved = (x.shape, x.dtype, key)
        return x[key]

    backward = Slice.backward


@register('slice_like')
class SliceLike(Op):
    """y = data[:s0, :s1, ...] with s = shape_like.shape on ``axes`` (all
    axes if empty);  ddata = zeros with dy in that corner;  dshape_like:
    none."""

    arguments = ('data', 'shape_like')
    defaults = {'axes': ()}

    def forward(self, xp, data, shape_like):
        axes = as_shape(self.attrs['axes'])
        if not axes:
            if data.ndim != shape_like.ndim:
                raise DLBookError(
                    f'{self.name}: data of shape {data.shape} and '
                    f'shape_like of shape {shape_like.shape} need the same '
                    f'number of dims when axes=()'
                )
            axes = range(data.ndim)
        key = [slice(None)] * data.ndim
        for a in axes:
            a = check_axis(a, data.shape, self.name, 'axes')
            if a >= shape_like.ndim or shape_like.shape[a] > data.shape[a]:
                raise DLBookError(
                    f'{self.name}: cannot slice data of shape {data.shape} '
                    f'like shape {shape_like.shape} on axis {a}'
                )
            key[a] = slice(0, shape_like.shape[a])
        key = tuple(key)
        self.saved = (data.shape, data.dtype, key)
        return data[key]

    def backward(self, xp, dy):
        return Slice.backward(self, xp, dy), None


# -- gathering --------------------------------------------------------------


@register('take')
class Take(Op):
    """y[i.., j.., k..] = a[i.., indices[j..], k..] on ``axis``, out-of-range
    indices clipped/wrapped (``mode``);  da = dy added back at indices
    (repeats add up);  dindices: none."""

    arguments = ('a', 'indices')
    defaults = {'axis': 0, 'mode': 'clip'}

    def forward(self, xp, a, indices):
        axis = check_axis(self.attrs['axis'], a.shape, self.name)
        idx = _fix_indices(
            xp,
            _as_int(xp, indices),
            a.shape[axis],
            self.attrs['mode'],
            self.name,
            a.shape,
        )
        self.saved = (a.shape, a.dtype, axis, idx)
        return _one_d(xp.take(a, idx, axis=axis))

    def backward(self, xp, dy):
        shape, dtype, axis, idx = self.saved
        moved = (shape[axis],) + shape[:axis] + shape[axis + 1 :]
        dx = xp.zeros(moved, dtype=dtype)
        # dy has axes (before, idx..., after): bring idx axes to the front
        dy = dy.reshape(shape[:axis] + idx.shape + shape[axis + 1 :])
        dy = xp.moveaxis(
            dy, tuple(range(axis, axis + idx.ndim)), tuple(range(idx.ndim))
        )
        dy = dy.reshape((idx.size,) + moved[1:])
        xp.add.at(dx, idx.reshape(-1), dy)
        return xp.ascontiguousarray(xp.moveaxis(dx, 0, axis)), None


# -- pick on a GPU: one kernel each way ----------------------------------------
#
# ``data`` is seen as ``(outer, size, inner)`` (``size`` the picked axis)
# and ``index`` as ``(outer, 1, inner)``; MXNet truncates float indices,
# then clips (mode 'clip') or wraps them (mode 'wrap').

_PICK_INDEX = """
    long long k = (long long)index_value;  // truncated, as MXNet
    if (wrap) { k %= size; if (k < 0) k += size; }
    else k = k < 0 ? 0 : (k >= size ? size - 1 : k);
"""


def _fixed_lanes(xp, index, size, inner, wrap):
    """The integer index, fixed by its mode, as ``(outer, 1, inner)``."""
    k = _as_int(xp, index).reshape(-1, 1, inner)
    mode = 'wrap' if wrap else 'clip'
    return _fix_indices(xp, k, size, mode, 'pick', (size,))


def _pick_steps(xp, data, index, size, inner, wrap):
    """:data:`PICK` in array operations."""
    k = _fixed_lanes(xp, index, size, inner, wrap)
    d = data.reshape(-1, size, inner)
    return xp.take_along_axis(d, k, axis=1).reshape(index.shape)


#: ``y = data[outer, index, inner]`` per lane; ``y`` has ``index``'s shape.
PICK = Elementwise(
    'dlbook_pick',
    'raw T data, T index, int32 size, int32 inner, int32 wrap',
    'T y',
    'const T index_value = index;'
    + _PICK_INDEX
    + 'y = data[(i / inner * size + k) * inner + i % inner];',
    _pick_steps,
)


def _pick_grad_steps(xp, dy, index, size, inner, wrap, dx):
    """:data:`PICK_GRAD` in array operations."""
    k = _fixed_lanes(xp, index, size, inner, wrap)
    lanes = dy.reshape(-1, 1, inner)
    dx[...] = scatter_along(
        xp, (lanes.shape[0], size, inner), dx.dtype, k, lanes, 1
    ).reshape(dx.shape)


#: ``dx`` (``data``'s shape): ``dy`` of each lane at its picked position,
#: zeros elsewhere; ``dy`` and ``index`` have the lanes' shape.
PICK_GRAD = Elementwise(
    'dlbook_pick_grad',
    'raw T dy, raw T index, int32 size, int32 inner, int32 wrap',
    'T dx',
    """
    const long long lane = i / ((long long)size * inner) * inner + i % inner;
    const T index_value = index[lane];
    """
    + _PICK_INDEX
    + 'dx = (i / inner % size == k) ? dy[lane] : (T)0;',
    _pick_grad_steps,
)


@register('pick')
class Pick(Op):
    """y[i.., k..] = data[i.., index[i.., k..], k..] on ``axis``;
    ddata = zeros with dy at the picked positions;  dindex: none."""

    arguments = ('data', 'index')
    defaults = {'axis': -1, 'keepdims': False, 'mode': 'clip'}

    def forward(self, xp, data, index):
        axis = check_axis(self.attrs['axis'], data.shape, self.name)
        lane = data.shape[:axis] + (1,) + data.shape[axis + 1 :]
        if index.size != math.prod(lane):
            raise DLBookError(
                f'{self.name}: index of shape {index.shape} does not match '
                f'data of shape {data.shape} without axis {axis}'
            )
        mode = self.attrs['mode']
        if not on_host(xp) and mode in ('clip', 'wrap'):
            # one kernel each way on a GPU (five and three calls else)
            lanes = xp.ascontiguousarray(index.reshape(lane))
            geometry = (data.shape[axis], math.prod(data.shape[axis + 1 :]))
            geometry += (int(mode == 'wrap'),)
            y = PICK(xp, xp.ascontiguousarray(data), lanes, *geometry)
            self.saved = (_ON_DEVICE, data.shape, data.dtype, lanes, geometry)
        else:
            idx = _fix_indices(
                xp,
                _as_int(xp, index).reshape(lane),
                data.shape[axis],
                mode,
                self.name,
                data.shape,
            )
            self.saved = (data.shape, data.dtype, axis, idx)
            y = take_along(xp, data, idx, axis)
        if self.attrs['keepdims']:
            return y
        return _one_d(y.reshape(lane[:axis] + lane[axis + 1 :]))

    def backward(self, xp, dy):
        if self.saved[0] is _ON_DEVICE:
            _, shape, dtype, lanes, geometry = self.saved
            dx = xp.empty(shape, dtype=dtype)
            dy = xp.ascontiguousarray(dy.reshape(lanes.shape))
            PICK_GRAD(xp, dy, lanes, *geometry, dx)
            return dx, None
        shape, dtype, axis, idx = self.saved
        return (
            scatter_along(xp, shape, dtype, idx, dy.reshape(idx.shape), axis),
            None,
        )

    def graph_grads(self, F, inputs, dys):
        """``dy`` at the picked positions: a one-hot mask of the (clipped
        or wrapped) index along ``axis`` times ``dy``."""
        data, index = inputs
        axis = check_axis(self.attrs['axis'], data.shape, self.name)
        n = data.shape[axis]
        mode = self.attrs['mode']
        if mode == 'clip':
            index = F.clip(index, 0, n - 1)
        elif mode == 'wrap':
            index = index % n
        lane = data.shape[:axis] + data.shape[axis + 1 :]
        mask = F.one_hot(index.reshape(lane), depth=n, dtype=data.dtype)
        mask = F.moveaxis(mask, -1, axis)
        dy = dys[0].reshape(data.shape[:axis] + (1,) + data.shape[axis + 1 :])
        return mask * dy, None


@register('gather_nd')
class GatherND(Op):
    """y[j..] = data[indices[0, j..], ..., indices[M-1, j..], ...] for
    indices of shape (M, j..);  ddata = dy added back at those places;
    dindices: none."""

    arguments = ('data', 'indices')

    def forward(self, xp, data, indices):
        if indices.ndim == 0 or indices.shape[0] > data.ndim:
            raise DLBookError(
                f'{self.name}: indices of shape {indices.shape} must have '
                f'a first dim M <= data.ndim for data of shape {data.shape}'
            )
        key = tuple(_as_int(xp, indices))
        self.saved = (data.shape, data.dtype, key)
        try:
            return _one_d(data[key])
        except IndexError as err:  # MXNet raises IndexError too
            raise DLBookIndexError(f'{self.name}: {err}') from None

    def backward(self, xp, dy):
        shape, dtype, key = self.saved
        dx = xp.zeros(shape, dtype=dtype)
        out_shape = key[0].shape + shape[len(key) :]
        xp.add.at(dx, key, dy.reshape(out_shape))
        return dx, None


@register('scatter_nd')
class ScatterND(Op):
    """y = zeros(shape) with y[indices[:, j..]] = data[j..] (the inverse of
    gather_nd);  ddata = gather_nd(dy, indices);  dindices: none."""

    arguments = ('data', 'indices')
    defaults = {'shape': None}

    def forward(self, xp, data, indices):
        shape = as_shape(self.attrs['shape'])
        if indices.ndim == 0 or indices.shape[0] > len(shape):
            raise DLBookError(
                f'{self.name}: indices of shape {indices.shape} must have '
                f'a first dim M <= len(shape) for shape={shape}'
            )
        key = tuple(_as_int(xp, indices))
        out = xp.zeros(shape, dtype=data.dtype)
        out[key] = data.reshape(key[0].shape + shape[len(key) :])
        self.saved = (data.shape, key)
        return out

    def backward(self, xp, dy):
        shape, key = self.saved
        return dy[key].reshape(shape), None


@register('one_hot')
class OneHot(Op):
    """y[i.., j] = on_value if indices[i..] == j else off_value, shape
    indices.shape + (depth,);  no gradient."""

    arguments = ('indices',)
    defaults = {
        'depth': None,
        'on_value': 1.0,
        'off_value': 0.0,
        'dtype': 'float32',
    }
    differentiable = False

    def forward(self, xp, indices):
        depth = self.attrs['depth']
        if depth is None or int(depth) < 0:
            raise DLBookError(
                f'{self.name}: depth={depth!r} must be a '
                f'non-negative int (indices of shape '
                f'{indices.shape})'
            )
        hot = _as_int(xp, indices)[..., None] == xp.arange(int(depth))
        dtype = self.attrs['dtype']
        on = xp.asarray(self.attrs['on_value'], dtype=dtype)
        off = xp.asarray(self.attrs['off_value'], dtype=dtype)
        return xp.where(hot, on, off).astype(dtype, copy=False)


@register('where')
class Where(Op):
    """y = x where condition != 0 else y (condition same shape as x, or
    1-d selecting whole rows);  dx = dy where condition else 0,
    dy_ = dy elsewhere;  dcondition: none."""

    arguments = ('condition', 'x', 'y')

    def forward(self, xp, condition, x, y):
        if x.shape != y.shape:
            raise DLBookError(
                f'{self.name}: x of shape {x.shape} and y of '
                f'shape {y.shape} must have the same shape'
            )
        if condition.shape != x.shape:
            if (
                condition.ndim == 1
                and x.ndim >= 1
                and (condition.shape[0] == x.shape[0])
            ):
                condition = condition.reshape(
                    condition.shape + (1,) * (x.ndim - 1)
                )
            else:
                raise DLBookError(
                    f'{self.name}: condition of shape {condition.shape} '
                    f'must have the shape of x {x.shape} or be 1-d of '
                    f'length {x.shape[0] if x.ndim else 1}'
                )
        mask = condition != 0
        self.saved = mask
        return xp.where(mask, x, y)

    def backward(self, xp, dy):
        mask = self.saved
        zero = xp.zeros((), dtype=dy.dtype)
        return None, xp.where(mask, dy, zero), xp.where(mask, zero, dy)


# -- sorting ----------------------------------------------------------------


def _argsort(xp, x, axis, ascend):
    """Indices that sort ``x`` along ``axis`` (descending if not ascend)."""
    if ascend:
        return xp.argsort(x, axis=axis, kind='stable')
    # Descending and stable like MXNet (equal values keep their order):
    # sort the reversed array ascending, reverse that order and map the
    # positions back.  -x would break unsigned and bool data.
    n = x.shape[axis]
    order = xp.argsort(xp.flip(x, axis=axis), axis=axis, kind='stable')
    return (n - 1) - xp.flip(order, axis=axis)


def _sort_axis(op_name, x, axis):
    """(array, axis) with axis=None meaning the flattened array."""
    if axis is None:
        return x.reshape(-1), 0
    return x, check_axis(axis, x.shape, op_name)


@register('topk')
class TopK(Op):
    """Top k along ``axis`` (largest first unless is_ascend).
    ret_typ: 'value' y = the k values; 'indices' their positions (floats
    of ``dtype``); 'both' (values, indices); 'mask' 1 at the top k, else 0.
    dx = dvalue scattered back to the positions it came from (0 for
    indices and mask).
    """

    defaults = {
        'axis': -1,
        'k': 1,
        'ret_typ': 'indices',
        'is_ascend': False,
        'dtype': 'float32',
    }

    def __init__(self, **attrs):
        super().__init__(**attrs)
        kind = self.attrs['ret_typ']
        if kind not in ('value', 'indices', 'both', 'mask'):
            raise DLBookError(
                f"{self.name}: ret_typ={kind!r} must be "
                f"'value', 'indices', 'both' or 'mask'"
            )
        self.num_outputs = 2 if kind == 'both' else 1
        self.differentiable = kind in ('value', 'both')

    def forward(self, xp, data):
        x, axis = _sort_axis(self.name, data, self.attrs['axis'])
        n = x.shape[axis]
        k = int(self.attrs['k'])
        k = n if k < 1 else k
        if k > n:
            raise DLBookError(
                f'{self.name}: k={k} is larger than the '
                f'{n} elements along axis {axis} of input of '
                f'shape {data.shape}'
            )
        order = _argsort(xp, x, axis, bool(self.attrs['is_ascend']))
        idx = order[(slice(None),) * axis + (slice(0, k),)]
        self.saved = (data.shape, x.shape, data.dtype, axis, idx)
        kind = self.attrs['ret_typ']
        if kind == 'mask':
            ones = xp.ones(idx.shape, dtype=data.dtype)
            mask = scatter_along(xp, x.shape, data.dtype, idx, ones, axis)
            return mask.reshape(data.shape)
        indices = idx.astype(self.attrs['dtype'])
        if kind == 'indices':
            return indices
        values = take_along(xp, x, idx, axis)
        return values if kind == 'value' else (values, indices)

    def backward(self, xp, *dys):
        shape, flat_shape, dtype, axis, idx = self.saved
        dvalue = dys[0]
        if self.attrs['ret_typ'] in ('indices', 'mask') or dvalue is None:
            return xp.zeros(shape, dtype=dtype)
        dx = scatter_along(xp, flat_shape, dtype, idx, dvalue, axis)
        return dx.reshape(shape)


@register('sort')
class Sort(Op):
    """y = x sorted along ``axis`` (ascending unless is_ascend=False), i.e.
    y = take_along(x, p) for the sorting permutation p;
    dx = dy scattered back through p."""

    defaults = {'axis': -1, 'is_ascend': True}

    def forward(self, xp, data):
        x, axis = _sort_axis(self.name, data, self.attrs['axis'])
        order = _argsort(xp, x, axis, bool(self.attrs['is_ascend']))
        self.saved = (data.shape, x.shape, data.dtype, axis, order)
        return take_along(xp, x, order, axis)

    def backward(self, xp, dy):
        shape, flat_shape, dtype, axis, order = self.saved
        return scatter_along(xp, flat_shape, dtype, order, dy, axis).reshape(
            shape
        )


@register('argsort')
class Argsort(Op):
    """y = the positions that sort x along ``axis``, as ``dtype`` (float32
    by default, like MXNet);  no gradient."""

    defaults = {'axis': -1, 'is_ascend': True, 'dtype': 'float32'}
    differentiable = False

    def forward(self, xp, data):
        x, axis = _sort_axis(self.name, data, self.attrs['axis'])
        order = _argsort(xp, x, axis, bool(self.attrs['is_ascend']))
        return order.astype(self.attrs['dtype'])


# -- Python indexing --------------------------------------------------------


def _index_part(xp, part):
    """One entry of an indexing key, ready for ``xp`` arrays."""
    if isinstance(part, list):
        part = xp.asarray(part)
    elif hasattr(part, 'dtype') and hasattr(part, 'shape'):
        if part.ndim == 0 and part.dtype.kind in 'iuf':
            return int(part)
        part = xp.asarray(part)
    else:
        return part
    if part.dtype.kind == 'f':
        part = part.astype('int64')
    return part


def _is_fancy(part):
    """An integer index array: entries may repeat, so backward must add."""
    return hasattr(part, 'dtype') and part.dtype.kind in 'iu'


@register('_getitem')
class GetItem(Op):
    """y = x[key] for any NumPy basic or advanced key (a scalar result has
    shape (1,));  dx = zeros with dy added at x[key] (np.add.at when
    integer index arrays may repeat an element)."""

    defaults = {'key': None}

    def forward(self, xp, x):
        key = self.attrs['key']
        if isinstance(key, tuple):
            key = tuple(_index_part(xp, k) for k in key)
        else:
            key = _index_part(xp, key)
        try:
            y = x[key]
        except (IndexError, TypeError, ValueError) as err:
            error = (
                DLBookIndexError
                if isinstance(err, IndexError)
                else DLBookError
            )
            raise error(
                f'{self.name}: cannot index array of shape '
                f'{x.shape} with key {self.attrs["key"]!r}: '
                f'{err}'
            ) from None
        self.saved = (x.shape, x.dtype, key, y.shape)
        return _one_d(y)

    def backward(self, xp, dy):
        shape, dtype, key, out_shape = self.saved
        dx = xp.zeros(shape, dtype=dtype)
        parts = key if isinstance(key, tuple) else (key,)
        if any(_is_fancy(p) for p in parts):
            xp.add.at(dx, key, dy.reshape(out_shape))
        else:
            dx[key] = dy.reshape(out_shape)
        return dx


# -- sequences (time-major by default) --------------------------------------


def _sequence_lengths(xp, op, data, lengths, axis):
    """Integer lengths per batch element, or the full length when unused."""
    batch, steps = data.shape[1 - axis], data.shape[axis]
    if not op.attrs['use_sequence_length']:
        return xp.full((batch,), steps, dtype='int64')
    if lengths is None or lengths.shape != (batch,):
        got = None if lengths is None else lengths.shape
        raise DLBookError(
            f'{op.name}: sequence_length must have shape '
            f'({batch},) for data of shape {data.shape}, '
            f'got {got}'
        )
    return xp.clip(_as_int(xp, lengths), 1, steps)


class _SequenceOp(Op):
    """Shared interface: ``sequence_length`` is an input only when
    ``use_sequence_length`` is true; ``axis`` is the time axis (0 or 1)."""

    arguments = ('data', 'sequence_length')
    defaults = {'use_sequence_length': False, 'axis': 0}

    def list_arguments(self):
        if self.attrs['use_sequence_length']:
            return self.arguments
        return self.arguments[:1]

    def _axis(self, data):
        axis = check_axis(self.attrs['axis'], data.shape, self.name)
        if axis not in (0, 1) or data.ndim < 2:
            raise DLBookError(
                f'{self.name}: axis={self.attrs["axis"]} must '
                f'be 0 or 1 for data of shape {data.shape}'
            )
        return axis

    def _grads(self, dx):
        if self.attrs['use_sequence_length']:
            return dx, None
        return dx


@register('SequenceLast')
class SequenceLast(_SequenceOp):
    """y[b] = data[len[b] - 1, b] (time on ``axis``);
    ddata = zeros with dy[b] at step len[b] - 1."""

    def forward(self, xp, data, sequence_length=None):
        axis = self._axis(data)
        lengths = _sequence_lengths(xp, self, data, sequence_length, axis)
        lane = [1] * data.ndim
        lane[1 - axis] = data.shape[1 - axis]
        idx = xp.broadcast_to(
            (lengths - 1).reshape(lane),
            data.shape[:axis] + (1,) + data.shape[axis + 1 :],
        )
        self.saved = (data.shape, data.dtype, axis, idx)
        return take_along(xp, data, idx, axis).squeeze(axis)

    def backward(self, xp, dy):
        shape, dtype, axis, idx = self.saved
        dy = xp.expand_dims(dy, axis)
        return self._grads(scatter_along(xp, shape, dtype, idx, dy, axis))


@register('SequenceReverse')
class SequenceReverse(_SequenceOp):
    """y[t, b] = data[len[b] - 1 - t, b] for t < len[b], else data[t, b];
    ddata = the same reversal applied to dy (it is its own inverse)."""

    def forward(self, xp, data, sequence_length=None):
        axis = self._axis(data)
        lengths = _sequence_lengths(xp, self, data, sequence_length, axis)
        steps = xp.arange(data.shape[axis]).reshape(-1, 1)  # (T, 1)
        perm = xp.where(steps < lengths, lengths - 1 - steps, steps)
        if axis == 1:
            perm = perm.T  # (B, T)
        perm = perm.reshape(perm.shape + (1,) * (data.ndim - 2))
        self.saved = xp.broadcast_to(perm, data.shape)
        return take_along(xp, data, self.saved, axis)

    def backward(self, xp, dy):
        axis = self._axis(dy)
        return self._grads(take_along(xp, dy, self.saved, axis))
