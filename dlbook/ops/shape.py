"""Operators that move elements around without doing arithmetic on them.

Reshaping, transposing, joining, splitting, tiling and broadcasting only
rearrange (or copy) the elements of their inputs.  Their gradients therefore
rearrange the output gradient back: a reshape's gradient is a reshape, a
transpose's is the inverse transpose, a concat's is a split, and a copy
(``tile``, ``repeat``, ``broadcast_to``) becomes a sum over the copies.

Forward results may be views of the input, as in NumPy; gradients are
always fresh arrays, because the autograd tape accumulates into them.

``infer_reshape`` holds MXNet's special reshape codes on plain tuples, so
the symbol layer can reuse it for shape inference.
"""

import math

from ..base import DLBookError
from . import Op, register, unbroadcast

__all__ = ['infer_reshape', 'as_shape', 'check_axis']


# -- small helpers ----------------------------------------------------------

def as_shape(value):
    """Turn an attribute given as int, list, tuple or None into a tuple."""
    if value is None:
        return ()
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return (value,)


def check_axis(axis, shape, op_name, arg='axis', extra=0):
    """Map a possibly negative ``axis`` into ``range(len(shape) + extra)``.

    ``extra=1`` is for operators that create an axis (``expand_dims``,
    ``stack``), where ``axis`` may also point one past the last axis.
    """
    ndim = len(shape) + extra
    if axis is None or not -ndim <= int(axis) < ndim:
        raise DLBookError(
            f'{op_name}: {arg}={axis} is out of range for input of shape '
            f'{tuple(shape)} (valid: {-ndim} .. {ndim - 1})')
    return int(axis) % ndim


def _fresh(grad, dy):
    """Return ``grad``, copied if it is the output gradient itself
    (``unbroadcast`` returns ``dy`` unchanged when nothing was broadcast).
    """
    return grad.copy() if grad is dy else grad


# -- Reshape and friends ----------------------------------------------------

def _reshape_tokens(target):
    """Split a target shape into tokens; ``(-4, d1, d2)`` is one token."""
    tokens, i = [], 0
    while i < len(target):
        if target[i] == -4:
            tokens.append(tuple(target[i:i + 3]))
            i += 3
        else:
            tokens.append((target[i],))
            i += 1
    return tokens


def infer_reshape(src_shape, target, reverse=False, op_name='Reshape'):
    """Output shape of MXNet's ``Reshape(shape=target, reverse=reverse)``.

    Each entry of ``target`` is a size or a special code:

    * ``d > 0``: a new dimension of size ``d`` (consumes one input dim);
    * ``0``: copy this input dimension;
    * ``-1``: infer from the remaining size (at most one; consumes one dim);
    * ``-2``: copy all remaining input dimensions;
    * ``-3``: merge the next two input dimensions into one;
    * ``-4, d1, d2``: split the next input dimension into ``d1 x d2``
      (one of them may be ``-1``).

    With ``reverse=True`` the codes are matched from the right, so
    ``(10, 5, 4)`` with ``(-1, 0)`` gives ``(40, 5)`` normally (-1 takes
    the place of 10, 0 copies 5) and ``(50, 4)`` reversed.  A
    ``-4, d1, d2`` group stays a group when reversed: it always reads
    "split into d1 x d2" (MXNet itself rejects -4 with reverse).

    >>> infer_reshape((2, 3, 4), (0, -1))
    (2, 12)
    >>> infer_reshape((2, 3, 4), (-4, 1, 2, -3))
    (1, 2, 12)
    """
    src, target = tuple(int(d) for d in src_shape), tuple(target)
    total = math.prod(src)

    def fail(why):
        raise DLBookError(
            f'{op_name}: cannot reshape input of shape {src} with '
            f'shape={target}{", reverse=True" if reverse else ""}: {why}')

    tokens = _reshape_tokens(target)
    dims = list(src)
    if reverse:
        tokens.reverse()
        dims.reverse()
    out, pos, infer_at = [], 0, None
    for token in tokens:
        code = token[0]
        if code is None or code < -4:
            fail(f'{code} is not a size or a special code (0, -1 .. -4)')
        need = {0: 1, -3: 2, -4: 1}.get(code, 0)
        if need and pos + need > len(dims):
            fail(f'code {code} has no input dimension left to use')
        if code == 0:
            out.append(dims[pos])
            pos += 1
        elif code == -1:
            if infer_at is not None:
                fail('only one dimension can be -1 (inferred)')
            infer_at = len(out)
            out.append(1)
            pos += 1
        elif code == -2:
            out.extend(dims[pos:])
            pos = len(dims)
        elif code == -3:
            out.append(dims[pos] * dims[pos + 1])
            pos += 2
        elif code == -4:
            if len(token) < 3:
                fail('-4 must be followed by the two split sizes')
            whole, (d1, d2) = dims[pos], token[1:]
            pos += 1
            if d1 == -1 and d2 == -1:
                fail('the two split sizes after -4 cannot both be -1')
            if d1 == -1:
                d1 = whole // d2 if d2 else 0
            if d2 == -1:
                d2 = whole // d1 if d1 else 0
            if d1 <= 0 or d2 <= 0 or d1 * d2 != whole:
                fail(f'split sizes ({token[1]}, {token[2]}) do not divide '
                     f'dimension {whole}')
            out.extend([d2, d1] if reverse else [d1, d2])
        else:
            out.append(code)
            pos += 1
    if infer_at is not None:
        known = math.prod(out)
        if known == 0 or total % known:
            fail(f'the size {total} is not divisible by the known '
                 f'dimensions (product {known}) to infer -1')
        out[infer_at] = total // known
    if reverse:
        out.reverse()
    if math.prod(out) != total:
        fail(f'the result {tuple(out)} has {math.prod(out)} elements, '
             f'the input has {total}')
    return tuple(out)


def _legacy_target_shape(src, target_shape, keep_highest, op_name):
    """Deprecated ``Reshape(target_shape=..., keep_highest=...)``: one 0
    in ``target_shape`` is inferred; ``keep_highest`` keeps dim 0."""
    target = list(target_shape)
    if keep_highest:
        target = [src[0]] + target
    if target.count(0) > 1:
        raise DLBookError(f'{op_name}: target_shape={tuple(target_shape)} '
                          f'may contain at most one 0 (inferred)')
    target = [-1 if d == 0 else d for d in target]
    return infer_reshape(src, target, op_name=op_name)


@register('Reshape', 'reshape')
class Reshape(Op):
    """y = x viewed with shape ``infer_reshape(x.shape, shape, reverse)``;
    dx = dy reshaped back to x.shape.

    Special codes in ``shape``: 0 copy, -1 infer, -2 copy the rest,
    -3 merge two, -4 split one (see :func:`infer_reshape`).
    """
    defaults = {'shape': (), 'reverse': False, 'target_shape': (),
                'keep_highest': False}

    def out_shape(self, src):
        shape = as_shape(self.attrs['shape'])
        if not shape and as_shape(self.attrs['target_shape']):
            return _legacy_target_shape(
                src, as_shape(self.attrs['target_shape']),
                self.attrs['keep_highest'], self.name)
        return infer_reshape(src, shape, bool(self.attrs['reverse']),
                             self.name)

    def forward(self, xp, x):
        self.saved = x.shape
        return x.reshape(self.out_shape(x.shape))

    def backward(self, xp, dy):
        return dy.reshape(self.saved).copy()


@register('reshape_like')
class ReshapeLike(Op):
    """y = lhs reshaped to rhs.shape (or, with the begin/end attributes,
    lhs.shape[lhs_begin:lhs_end] replaced by rhs.shape[rhs_begin:rhs_end]);
    dlhs = dy reshaped to lhs.shape;  drhs: none (only its shape is used).
    """
    arguments = ('lhs', 'rhs')
    defaults = {'lhs_begin': None, 'lhs_end': None, 'rhs_begin': None,
                'rhs_end': None}

    def forward(self, xp, lhs, rhs):
        a = self.attrs
        lb, le = a['lhs_begin'], a['lhs_end']
        rb, re_ = a['rhs_begin'], a['rhs_end']
        ls, rs = lhs.shape, rhs.shape
        shape = ls[:lb or 0] + rs[rb:re_] + (ls[le:] if le is not None
                                             else ())
        if math.prod(shape) != lhs.size:
            raise DLBookError(
                f'{self.name}: cannot reshape lhs of shape {ls} like rhs of '
                f'shape {rs}: target {shape} has {math.prod(shape)} '
                f'elements, lhs has {lhs.size}')
        self.saved = ls
        return lhs.reshape(shape)

    def backward(self, xp, dy):
        return dy.reshape(self.saved).copy(), None


@register('Flatten', 'flatten')
class Flatten(Op):
    """y = x.reshape(N, -1) for x of shape (N, ...);  dx = dy.reshape(x.shape)
    """

    def forward(self, xp, x):
        if x.ndim == 0:
            raise DLBookError(f'{self.name}: cannot flatten a 0-d input')
        self.saved = x.shape
        return x.reshape(x.shape[0], math.prod(x.shape[1:]))

    def backward(self, xp, dy):
        return dy.reshape(self.saved).copy()


@register('transpose')
class Transpose(Op):
    """y = x.transpose(axes) (axes=() reverses them);
    dx = dy.transpose(argsort(axes)).
    """
    defaults = {'axes': ()}

    def forward(self, xp, x):
        axes = as_shape(self.attrs['axes'])
        if not axes:
            axes = tuple(reversed(range(x.ndim)))
        norm = tuple(int(a) % x.ndim if -x.ndim <= a < x.ndim else -1
                     for a in axes)
        if sorted(norm) != list(range(x.ndim)):
            raise DLBookError(
                f'{self.name}: axes={axes} is not a permutation of the '
                f'{x.ndim} axes of the input of shape {x.shape}')
        self.saved = norm
        return x.transpose(norm)

    def backward(self, xp, dy):
        inverse = [0] * len(self.saved)
        for i, a in enumerate(self.saved):
            inverse[a] = i
        return dy.transpose(inverse).copy()


@register('SwapAxis', 'swapaxes')
class SwapAxes(Op):
    """y = x with axes dim1 and dim2 exchanged;  dx = dy with them swapped
    back."""
    defaults = {'dim1': 0, 'dim2': 0}

    def forward(self, xp, x):
        d1 = check_axis(self.attrs['dim1'], x.shape, self.name, 'dim1')
        d2 = check_axis(self.attrs['dim2'], x.shape, self.name, 'dim2')
        self.saved = (d1, d2)
        return xp.swapaxes(x, d1, d2)

    def backward(self, xp, dy):
        d1, d2 = self.saved
        return xp.swapaxes(dy, d1, d2).copy()


@register('expand_dims')
class ExpandDims(Op):
    """y = x with a new axis of size 1 at ``axis``;  dx = dy without it."""
    defaults = {'axis': None}

    def forward(self, xp, x):
        axis = check_axis(self.attrs['axis'], x.shape, self.name, extra=1)
        self.saved = x.shape
        return xp.expand_dims(x, axis)

    def backward(self, xp, dy):
        return dy.reshape(self.saved).copy()


@register('squeeze')
class Squeeze(Op):
    """y = x without its size-1 axes (only ``axis`` if given; never 0-d:
    a fully squeezed array has shape (1,));  dx = dy.reshape(x.shape).
    """
    defaults = {'axis': None}

    def forward(self, xp, x):
        axis = self.attrs['axis']
        if axis is None:
            axes = tuple(i for i, n in enumerate(x.shape) if n == 1)
        else:
            axes = tuple(check_axis(a, x.shape, self.name)
                         for a in as_shape(axis))
            bad = [a for a in axes if x.shape[a] != 1]
            if bad:
                raise DLBookError(
                    f'{self.name}: cannot squeeze axis {bad[0]} of input '
                    f'of shape {x.shape}: its size is not 1')
        shape = tuple(n for i, n in enumerate(x.shape) if i not in axes)
        self.saved = x.shape
        return x.reshape(shape or (1,))

    def backward(self, xp, dy):
        return dy.reshape(self.saved).copy()


@register('reverse', 'flip')
class Reverse(Op):
    """y = x with the order of elements reversed along ``axis``;
    dx = dy reversed along the same axes."""
    defaults = {'axis': None}

    def forward(self, xp, x):
        axes = tuple(check_axis(a, x.shape, self.name)
                     for a in as_shape(self.attrs['axis']))
        if not axes:
            raise DLBookError(f'{self.name}: give the axis to reverse for '
                              f'input of shape {x.shape}')
        self.saved = axes
        return xp.flip(x, axis=axes)

    def backward(self, xp, dy):
        return xp.flip(dy, axis=self.saved).copy()


# -- joining and splitting --------------------------------------------------

@register('Concat', 'concat')
class Concat(Op):
    """y = concatenate(x_0, x_1, ..., axis=dim);
    dx_i = the slice of dy that came from x_i."""
    variadic = True
    defaults = {'num_args': 0, 'dim': 1}

    def forward(self, xp, *arrays):
        if not arrays:
            raise DLBookError(f'{self.name}: needs at least one input')
        shapes = [a.shape for a in arrays]
        dim = check_axis(self.attrs['dim'], shapes[0], self.name, 'dim')
        for s in shapes:
            if len(s) != len(shapes[0]) or any(
                    n != m for i, (n, m) in enumerate(zip(s, shapes[0]))
                    if i != dim):
                raise DLBookError(
                    f'{self.name}: input shapes {shapes} must agree on '
                    f'every axis except dim={self.attrs["dim"]}')
        self.saved = (dim, [s[dim] for s in shapes])
        return xp.concatenate(arrays, axis=dim)

    def backward(self, xp, dy):
        dim, sizes = self.saved
        grads, start = [], 0
        for size in sizes:
            index = (slice(None),) * dim + (slice(start, start + size),)
            grads.append(dy[index].copy())
            start += size
        return tuple(grads)


@register('stack')
class Stack(Op):
    """y = stack(x_0, x_1, ..., axis) along a new axis;
    dx_i = dy[..., i, ...] (index i on that axis)."""
    variadic = True
    defaults = {'axis': 0, 'num_args': 0}

    def forward(self, xp, *arrays):
        if not arrays:
            raise DLBookError(f'{self.name}: needs at least one input')
        shapes = [a.shape for a in arrays]
        if any(s != shapes[0] for s in shapes):
            raise DLBookError(f'{self.name}: all inputs must have the same '
                              f'shape, got {shapes}')
        axis = check_axis(self.attrs['axis'], shapes[0], self.name, extra=1)
        self.saved = (axis, len(arrays))
        return xp.stack(arrays, axis=axis)

    def backward(self, xp, dy):
        axis, count = self.saved
        return tuple(dy[(slice(None),) * axis + (i,)].copy()
                     for i in range(count))


@register('SliceChannel', 'split')
class Split(Op):
    """y_0, ..., y_{n-1} = n equal parts of x along ``axis`` (squeezed if
    ``squeeze_axis``);  dx = concatenate(dy_0, ..., dy_{n-1}, axis).
    """
    defaults = {'num_outputs': None, 'axis': 1, 'squeeze_axis': False}

    def __init__(self, **attrs):
        super().__init__(**attrs)
        self.num_outputs = int(self.attrs['num_outputs'] or 1)

    def forward(self, xp, x):
        n = self.attrs['num_outputs']
        if not n or int(n) < 1:
            raise DLBookError(f'{self.name}: num_outputs is required (got '
                              f'{n!r}) for input of shape {x.shape}')
        n = int(n)
        axis = check_axis(self.attrs['axis'], x.shape, self.name)
        size = x.shape[axis]
        squeeze = bool(self.attrs['squeeze_axis'])
        if size % n or (squeeze and size != n):
            need = f'equal {n}' if squeeze else f'a multiple of {n}'
            raise DLBookError(
                f'{self.name}: cannot split input of shape {x.shape} into '
                f'num_outputs={n} along axis={self.attrs["axis"]}'
                f'{" with squeeze_axis" if squeeze else ""}: size {size} '
                f'must {need}')
        self.saved = (x.shape, x.dtype, axis, squeeze)
        parts = xp.split(x, n, axis=axis)
        if squeeze:
            parts = [p.reshape(p.shape[:axis] + p.shape[axis + 1:])
                     for p in parts]
        return tuple(parts) if n > 1 else parts[0]

    def backward(self, xp, *dys):
        shape, dtype, axis, squeeze = self.saved
        part = shape[:axis] + (shape[axis] // len(dys),) + shape[axis + 1:]
        pieces = [xp.zeros(part, dtype) if d is None else d.reshape(part)
                  for d in dys]
        return xp.concatenate(pieces, axis=axis)


# -- copying: tile, repeat, broadcast --------------------------------------

def _materialize(view):
    """A writable copy of a broadcast view.  ``xp.broadcast_to`` returns a
    read-only zero-stride view; MXNet's broadcast ops return new arrays
    that can be updated in place (``y += 1``, ``y[:] = 0``)."""
    return view.copy()


@register('tile')
class Tile(Op):
    """y = tile(x, reps) (as numpy.tile);
    dx = dy summed over the reps copies of each element."""
    defaults = {'reps': None}

    def forward(self, xp, x):
        reps = as_shape(self.attrs['reps'])
        if not reps or any(int(r) < 0 for r in reps):
            raise DLBookError(f'{self.name}: reps={self.attrs["reps"]} must '
                              f'be a tuple of non-negative ints (input '
                              f'shape {x.shape})')
        self.saved = (x.shape, tuple(int(r) for r in reps))
        return xp.tile(x, reps)

    def backward(self, xp, dy):
        shape, reps = self.saved
        ndim = max(len(shape), len(reps))
        shape_n = (1,) * (ndim - len(shape)) + shape
        reps_n = (1,) * (ndim - len(reps)) + reps
        # view dy as (r0, s0, r1, s1, ...) and sum the r axes
        split = [n for pair in zip(reps_n, shape_n) for n in pair]
        grad = dy.reshape(split).sum(axis=tuple(range(0, 2 * ndim, 2)))
        return grad.reshape(shape)


@register('repeat')
class Repeat(Op):
    """y = repeat(x, repeats, axis) (axis=None repeats the flattened x);
    dx = dy summed over the ``repeats`` consecutive copies."""
    defaults = {'repeats': None, 'axis': None}

    def forward(self, xp, x):
        repeats = self.attrs['repeats']
        if repeats is None or int(repeats) < 0:
            raise DLBookError(f'{self.name}: repeats={repeats!r} must be a '
                              f'non-negative int (input shape {x.shape})')
        axis = self.attrs['axis']
        if axis is not None:
            axis = check_axis(axis, x.shape, self.name)
        self.saved = (x.shape, int(repeats), axis)
        return xp.repeat(x, int(repeats), axis=axis)

    def backward(self, xp, dy):
        shape, repeats, axis = self.saved
        if axis is None:
            return dy.reshape(-1, repeats).sum(axis=1).reshape(shape)
        split = shape[:axis] + (shape[axis], repeats) + shape[axis + 1:]
        return dy.reshape(split).sum(axis=axis + 1)


def _broadcast_check(op_name, src, target):
    """Raise unless ``src`` broadcasts to ``target`` (same ndim)."""
    if len(src) != len(target) or any(
            s != t and s != 1 for s, t in zip(src, target)):
        raise DLBookError(f'{op_name}: cannot broadcast input of shape '
                          f'{tuple(src)} to shape {tuple(target)}')


@register('broadcast_to')
class BroadcastTo(Op):
    """y = x broadcast to ``shape`` (0 keeps that input dimension);
    dx = dy summed over the broadcast axes."""
    defaults = {'shape': ()}

    def forward(self, xp, x):
        shape = as_shape(self.attrs['shape'])
        if len(shape) != x.ndim:
            raise DLBookError(
                f'{self.name}: cannot broadcast input of shape {x.shape} '
                f'to shape={shape}: the number of dimensions must match')
        target = tuple(n if t == 0 else int(t)
                       for n, t in zip(x.shape, shape))
        _broadcast_check(self.name, x.shape, target)
        self.saved = x.shape
        return _materialize(xp.broadcast_to(x, target))

    def backward(self, xp, dy):
        return _fresh(unbroadcast(xp, dy, self.saved), dy)


@register('broadcast_like')
class BroadcastLike(Op):
    """y = lhs broadcast to rhs.shape (or only lhs_axes to the sizes of
    rhs_axes);  dlhs = dy summed over the broadcast axes;  drhs: none."""
    arguments = ('lhs', 'rhs')
    defaults = {'lhs_axes': None, 'rhs_axes': None}

    def forward(self, xp, lhs, rhs):
        lhs_axes = as_shape(self.attrs['lhs_axes'])
        rhs_axes = as_shape(self.attrs['rhs_axes'])
        if not lhs_axes and not rhs_axes:
            target = rhs.shape
        else:
            if len(lhs_axes) != len(rhs_axes):
                raise DLBookError(
                    f'{self.name}: lhs_axes={lhs_axes} and rhs_axes='
                    f'{rhs_axes} must have the same length')
            target = list(lhs.shape)
            for la, ra in zip(lhs_axes, rhs_axes):
                la = check_axis(la, lhs.shape, self.name, 'lhs_axes')
                ra = check_axis(ra, rhs.shape, self.name, 'rhs_axes')
                target[la] = rhs.shape[ra]
            target = tuple(target)
        _broadcast_check(self.name, lhs.shape, target)
        self.saved = lhs.shape
        return _materialize(xp.broadcast_to(lhs, target))

    def backward(self, xp, dy):
        return _fresh(unbroadcast(xp, dy, self.saved), dy), None


@register('broadcast_axis', 'broadcast_axes')
class BroadcastAxis(Op):
    """y = x with each size-1 axis ``axis[i]`` broadcast to ``size[i]``;
    dx = dy summed over those axes."""
    defaults = {'axis': (), 'size': ()}

    def forward(self, xp, x):
        axes, sizes = as_shape(self.attrs['axis']), as_shape(
            self.attrs['size'])
        if len(axes) != len(sizes):
            raise DLBookError(f'{self.name}: axis={axes} and size={sizes} '
                              f'must have the same length')
        target = list(x.shape)
        for a, s in zip(axes, sizes):
            a = check_axis(a, x.shape, self.name)
            if x.shape[a] != 1:
                raise DLBookError(
                    f'{self.name}: axis {a} of input of shape {x.shape} '
                    f'has size {x.shape[a]}; only size-1 axes broadcast')
            target[a] = int(s)
        self.saved = x.shape
        return _materialize(xp.broadcast_to(x, tuple(target)))

    def backward(self, xp, dy):
        return _fresh(unbroadcast(xp, dy, self.saved), dy)


# -- padding ----------------------------------------------------------------

def _pad_axis_grad(xp, dy, axis, before, size, mode):
    """Gradient of padding one axis: fold the padded positions back onto
    the input positions they were copied from (edge/reflect)."""
    def at(i):
        return (slice(None),) * axis + (slice(i, i + 1),)
    grad = dy[(slice(None),) * axis + (slice(before, before + size),)].copy()
    if mode == 'constant':
        return grad
    for p in range(dy.shape[axis]):
        k = p - before                        # position relative to input
        if 0 <= k < size:
            continue
        if mode == 'edge':
            src = 0 if k < 0 else size - 1
        else:                                 # reflect without the edge
            period = 2 * (size - 1)
            src = abs(k) % period
            src = period - src if src >= size else src
        grad[at(src)] += dy[at(p)]
    return grad


@register('Pad', 'pad')
class Pad(Op):
    """y = x padded by pad_width = (before_0, after_0, before_1, ...) with
    ``constant_value``, the edge value or the reflection;
    dx = the centre of dy plus (edge/reflect) the padded cells folded back.
    """
    defaults = {'mode': 'constant', 'pad_width': None, 'constant_value': 0.0}

    def forward(self, xp, x):
        width = as_shape(self.attrs['pad_width'])
        mode = self.attrs['mode']
        if len(width) != 2 * x.ndim or any(int(w) < 0 for w in width):
            raise DLBookError(
                f'{self.name}: pad_width={width} must hold 2 non-negative '
                f'ints per axis (length {2 * x.ndim}) for input of shape '
                f'{x.shape}')
        if mode not in ('constant', 'edge', 'reflect'):
            raise DLBookError(f'{self.name}: mode={mode!r} must be '
                              f"'constant', 'edge' or 'reflect'")
        pairs = tuple((int(width[2 * i]), int(width[2 * i + 1]))
                      for i in range(x.ndim))
        if mode == 'reflect' and any(
                max(p) >= n for p, n in zip(pairs, x.shape) if max(p)):
            raise DLBookError(f'{self.name}: reflect padding {pairs} must '
                              f'be smaller than the input shape {x.shape}')
        self.saved = (x.shape, pairs, mode)
        if mode == 'constant':
            return xp.pad(x, pairs, mode='constant',
                          constant_values=self.attrs['constant_value'])
        return xp.pad(x, pairs, mode=mode)

    def backward(self, xp, dy):
        shape, pairs, mode = self.saved
        grad = dy
        for axis, (before, _) in enumerate(pairs):
            grad = _pad_axis_grad(xp, grad, axis, before, shape[axis], mode)
        return grad


# -- depth <-> space --------------------------------------------------------

def _depth_to_space(x, b):
    n, c, h, w = x.shape
    y = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    return y.reshape(n, c // (b * b), h * b, w * b)


def _space_to_depth(x, b):
    n, c, h, w = x.shape
    y = x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return y.reshape(n, c * b * b, h // b, w // b)


def _check_block(op_name, x, block, channels):
    b = int(block)
    ok = x.ndim == 4 and b > 0 and (
        x.shape[1] % (b * b) == 0 if channels else
        x.shape[2] % b == 0 and x.shape[3] % b == 0)
    if not ok:
        need = ('C divisible by block_size**2' if channels
                else 'H and W divisible by block_size')
        raise DLBookError(f'{op_name}: input of shape {x.shape} needs 4 '
                          f'dims (N, C, H, W) with {need} '
                          f'(block_size={block})')
    return b


@register('depth_to_space')
class DepthToSpace(Op):
    """y[n, c, h*b+i, w*b+j] = x[n, (i*b+j)*C/b^2 + c, h, w];
    dx = space_to_depth(dy, b)."""
    defaults = {'block_size': None}

    def forward(self, xp, x):
        self.saved = _check_block(self.name, x, self.attrs['block_size'],
                                  True)
        return _depth_to_space(x, self.saved)

    def backward(self, xp, dy):
        return _space_to_depth(dy, self.saved).copy()


@register('space_to_depth')
class SpaceToDepth(Op):
    """y = the inverse rearrangement of depth_to_space;
    dx = depth_to_space(dy, b)."""
    defaults = {'block_size': None}

    def forward(self, xp, x):
        self.saved = _check_block(self.name, x, self.attrs['block_size'],
                                  False)
        return _space_to_depth(x, self.saved)

    def backward(self, xp, dy):
        return _depth_to_space(dy, self.saved).copy()


# -- creation from an input, shape queries (no gradient) -------------------

@register('zeros_like')
class ZerosLike(Op):
    """y = zeros with x's shape and dtype;  no gradient."""
    differentiable = False

    def forward(self, xp, x):
        return xp.zeros_like(x)


@register('ones_like')
class OnesLike(Op):
    """y = ones with x's shape and dtype;  no gradient."""
    differentiable = False

    def forward(self, xp, x):
        return xp.ones_like(x)


@register('shape_array')
class ShapeArray(Op):
    """y = x.shape as a 1-d int64 array;  no gradient."""
    differentiable = False

    def forward(self, xp, x):
        return xp.asarray(x.shape, dtype='int64').reshape(x.ndim)


@register('size_array')
class SizeArray(Op):
    """y = [x.size] as an int64 array of shape (1,);  no gradient."""
    differentiable = False

    def forward(self, xp, x):
        return xp.asarray([x.size], dtype='int64')
