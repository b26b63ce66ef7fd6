"""Operators that change an array's shape without doing arithmetic.

Reshaping, flattening, transposing, swapping, adding or removing axes and
reversing only rearrange the elements of their input, so their gradients
rearrange the output gradient back: a reshape's gradient is a reshape, a
transpose's is the inverse transpose.  The same family continues in
``join`` (concat, stack, split), ``tile`` (copies: tile, repeat,
broadcast) and ``pad`` (padding, depth <-> space).

Forward results may be views of the input, as in NumPy; gradients are
always fresh arrays, because the autograd tape accumulates into them.

``infer_reshape`` holds MXNet's special reshape codes on plain tuples, so
the symbol layer can reuse it for shape inference.
"""

import math

from ..base import DLBookError
from .op import Op, register

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
            f'{tuple(shape)} (valid: {-ndim} .. {ndim - 1})'
        )
    return int(axis) % ndim


# -- Reshape and friends ----------------------------------------------------


def _reshape_tokens(target):
    """Split a target shape into tokens; ``(-4, d1, d2)`` is one token."""
    tokens, i = [], 0
    while i < len(target):
        if target[i] == -4:
            tokens.append(tuple(target[i : i + 3]))
            i += 3
        else:
            tokens.append((target[i],))
            i += 1
    return tokens


def _sizes_only(target, total):
    """The output shape when ``target`` holds sizes and at most one -1
    that fit ``total`` elements (``reshape((-1, 784))``, the common
    call), where MXNet's rule and NumPy's agree whichever way the codes
    are matched; None for anything else, which :func:`infer_reshape`
    works through (and explains when it fails)."""
    known, infer_at = 1, None
    for i, d in enumerate(target):
        if type(d) is not int:
            return None
        if d > 0:
            known *= d
        elif d == -1 and infer_at is None:
            infer_at = i
        else:
            return None
    if infer_at is None:
        return target if known == total else None
    if total % known:
        return None
    return target[:infer_at] + (total // known,) + target[infer_at + 1 :]


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
    target = tuple(target)
    plain = _sizes_only(target, math.prod(src_shape))
    if plain is not None:
        return plain
    src = tuple(int(d) for d in src_shape)
    total = math.prod(src)

    def fail(why):
        raise DLBookError(
            f'{op_name}: cannot reshape input of shape {src} with '
            f'shape={target}{", reverse=True" if reverse else ""}: {why}'
        )

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
                fail(
                    f'split sizes ({token[1]}, {token[2]}) do not divide '
                    f'dimension {whole}'
                )
            out.extend([d2, d1] if reverse else [d1, d2])
        else:
            out.append(code)
            pos += 1
    if infer_at is not None:
        known = math.prod(out)
        if known == 0 or total % known:
            fail(
                f'the size {total} is not divisible by the known '
                f'dimensions (product {known}) to infer -1'
            )
        out[infer_at] = total // known
    if reverse:
        out.reverse()
    if math.prod(out) != total:
        fail(
            f'the result {tuple(out)} has {math.prod(out)} elements, '
            f'the input has {total}'
        )
    return tuple(out)


def _legacy_target_shape(src, target_shape, keep_highest, op_name):
    """Deprecated ``Reshape(target_shape=..., keep_highest=...)``: one 0
    in ``target_shape`` is inferred; ``keep_highest`` keeps dim 0."""
    target = list(target_shape)
    if keep_highest:
        target = [src[0]] + target
    if target.count(0) > 1:
        raise DLBookError(
            f'{op_name}: target_shape={tuple(target_shape)} '
            f'may contain at most one 0 (inferred)'
        )
    target = [-1 if d == 0 else d for d in target]
    return infer_reshape(src, target, op_name=op_name)


class _SameElements(Op):
    """Base of operators whose output holds the input's elements in the
    same order, in another shape (``self.saved`` is the input's shape):
    ``dx = dy`` reshaped back."""

    def backward(self, xp, dy):
        return dy.reshape(self.saved).copy()

    def graph_grads(self, F, inputs, dys):
        return (dys[0].reshape(inputs[0].shape),)


@register('Reshape', 'reshape')
class Reshape(_SameElements):
    """y = x viewed with shape ``infer_reshape(x.shape, shape, reverse)``;
    dx = dy reshaped back to x.shape.

    Special codes in ``shape``: 0 copy, -1 infer, -2 copy the rest,
    -3 merge two, -4 split one (see :func:`infer_reshape`).
    """

    defaults = {
        'shape': (),
        'reverse': False,
        'target_shape': (),
        'keep_highest': False,
    }

    def out_shape(self, src):
        shape = as_shape(self.attrs['shape'])
        if not shape and as_shape(self.attrs['target_shape']):
            return _legacy_target_shape(
                src,
                as_shape(self.attrs['target_shape']),
                self.attrs['keep_highest'],
                self.name,
            )
        return infer_reshape(
            src, shape, bool(self.attrs['reverse']), self.name
        )

    def forward(self, xp, x):
        self.saved = x.shape
        return x.reshape(self.out_shape(x.shape))


@register('reshape_like')
class ReshapeLike(Op):
    """y = lhs reshaped to rhs.shape (or, with the begin/end attributes,
    lhs.shape[lhs_begin:lhs_end] replaced by rhs.shape[rhs_begin:rhs_end]);
    dlhs = dy reshaped to lhs.shape;  drhs: none (only its shape is used).
    """

    arguments = ('lhs', 'rhs')
    defaults = {
        'lhs_begin': None,
        'lhs_end': None,
        'rhs_begin': None,
        'rhs_end': None,
    }

    def forward(self, xp, lhs, rhs):
        a = self.attrs
        lb, le = a['lhs_begin'], a['lhs_end']
        rb, re_ = a['rhs_begin'], a['rhs_end']
        ls, rs = lhs.shape, rhs.shape
        shape = (
            ls[: lb or 0] + rs[rb:re_] + (ls[le:] if le is not None else ())
        )
        if math.prod(shape) != lhs.size:
            raise DLBookError(
                f'{self.name}: cannot reshape lhs of shape {ls} like rhs of '
                f'shape {rs}: target {shape} has {math.prod(shape)} '
                f'elements, lhs has {lhs.size}'
            )
        self.saved = ls
        return lhs.reshape(shape)

    def backward(self, xp, dy):
        return dy.reshape(self.saved).copy(), None


@register('Flatten', 'flatten')
class Flatten(_SameElements):
    """y = x.reshape(N, -1) for x of shape (N, ...);  dx = dy.reshape(x.shape)"""

    def forward(self, xp, x):
        if x.ndim == 0:
            raise DLBookError(f'{self.name}: cannot flatten a 0-d input')
        self.saved = x.shape
        return x.reshape(x.shape[0], math.prod(x.shape[1:]))


@register('transpose')
class Transpose(Op):
    """y = x.transpose(axes) (axes=() reverses them);
    dx = dy.transpose(argsort(axes)).
    """

    defaults = {'axes': ()}

    def permutation(self, shape):
        """``axes`` for an input of ``shape``, checked and made
        non-negative."""
        ndim = len(shape)
        axes = as_shape(self.attrs['axes'])
        if not axes:
            axes = tuple(reversed(range(ndim)))
        norm = tuple(int(a) % ndim if -ndim <= a < ndim else -1 for a in axes)
        if sorted(norm) != list(range(ndim)):
            raise DLBookError(
                f'{self.name}: axes={axes} is not a permutation of the '
                f'{ndim} axes of the input of shape {tuple(shape)}'
            )
        return norm

    def forward(self, xp, x):
        self.saved = norm = self.permutation(x.shape)
        return x.transpose(norm)

    def backward(self, xp, dy):
        return dy.transpose(_inverse(self.saved)).copy()

    def graph_grads(self, F, inputs, dys):
        norm = self.permutation(inputs[0].shape)
        return (dys[0].transpose(_inverse(norm)),)


def _inverse(axes):
    """The permutation that undoes ``axes``."""
    inverse = [0] * len(axes)
    for i, a in enumerate(axes):
        inverse[a] = i
    return tuple(inverse)


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
class ExpandDims(_SameElements):
    """y = x with a new axis of size 1 at ``axis``;  dx = dy without it."""

    defaults = {'axis': None}

    def forward(self, xp, x):
        axis = check_axis(self.attrs['axis'], x.shape, self.name, extra=1)
        self.saved = x.shape
        return xp.expand_dims(x, axis)


@register('squeeze')
class Squeeze(_SameElements):
    """y = x without its size-1 axes (only ``axis`` if given; never 0-d:
    a fully squeezed array has shape (1,));  dx = dy.reshape(x.shape).
    """

    defaults = {'axis': None}

    def forward(self, xp, x):
        axis = self.attrs['axis']
        if axis is None:
            axes = tuple(i for i, n in enumerate(x.shape) if n == 1)
        else:
            axes = tuple(
                check_axis(a, x.shape, self.name) for a in as_shape(axis)
            )
            bad = [a for a in axes if x.shape[a] != 1]
            if bad:
                raise DLBookError(
                    f'{self.name}: cannot squeeze axis {bad[0]} of input '
                    f'of shape {x.shape}: its size is not 1'
                )
        shape = tuple(n for i, n in enumerate(x.shape) if i not in axes)
        self.saved = x.shape
        return x.reshape(shape or (1,))


@register('reverse', 'flip')
class Reverse(Op):
    """y = x with the order of elements reversed along ``axis``;
    dx = dy reversed along the same axes."""

    defaults = {'axis': None}

    def forward(self, xp, x):
        axes = tuple(
            check_axis(a, x.shape, self.name)
            for a in as_shape(self.attrs['axis'])
        )
        if not axes:
            raise DLBookError(
                f'{self.name}: give the axis to reverse for '
                f'input of shape {x.shape}'
            )
        self.saved = axes
        return xp.flip(x, axis=axes)

    def backward(self, xp, dy):
        return xp.flip(dy, axis=self.saved).copy()


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
