"""Copying operators: ``tile``, ``repeat`` and broadcasting.

Each output element is a copy of an input element, so the gradient sums
the output gradient over all the copies of each element (for
broadcasting, ``unbroadcast`` does that sum).  Forward results are fresh
arrays, never views that share memory between copies.
"""

from ..base import DLBookError
from .op import Op, register, unbroadcast
from .shape import as_shape, check_axis


def _fresh(grad, dy):
    """Return ``grad``, copied if it is the output gradient itself
    (``unbroadcast`` returns ``dy`` unchanged when nothing was broadcast).
    """
    return grad.copy() if grad is dy else grad


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
        # reps=() is accepted (MXNet returns a copy); a missing reps is not
        missing = self.attrs['reps'] is None
        reps = as_shape(self.attrs['reps'])
        if missing or any(int(r) < 0 for r in reps):
            raise DLBookError(
                f'{self.name}: reps={self.attrs["reps"]} must '
                f'be a tuple of non-negative ints (input '
                f'shape {x.shape})'
            )
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
            raise DLBookError(
                f'{self.name}: repeats={repeats!r} must be a '
                f'non-negative int (input shape {x.shape})'
            )
        axis = self.attrs['axis']
        if axis is not None:
            axis = check_axis(axis, x.shape, self.name)
        self.saved = (x.shape, int(repeats), axis)
        return xp.repeat(x, int(repeats), axis=axis)

    def backward(self, xp, dy):
        shape, repeats, axis = self.saved
        if axis is None:
            return dy.reshape(-1, repeats).sum(axis=1).reshape(shape)
        split = shape[:axis] + (shape[axis], repeats) + shape[axis + 1 :]
        return dy.reshape(split).sum(axis=axis + 1)


def _broadcast_check(op_name, src, target):
    """Raise unless ``src`` broadcasts to ``target`` (same ndim)."""
    if len(src) != len(target) or any(
        s != t and s != 1 for s, t in zip(src, target)
    ):
        raise DLBookError(
            f'{op_name}: cannot broadcast input of shape '
            f'{tuple(src)} to shape {tuple(target)}'
        )


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
                f'to shape={shape}: the number of dimensions must match'
            )
        target = tuple(n if t == 0 else int(t) for n, t in zip(x.shape, shape))
        _broadcast_check(self.name, x.shape, target)
        self.saved = x.shape
        return _materialize(xp.broadcast_to(x, target))

    def backward(self, xp, dy):
        return _fresh(unbroadcast(xp, dy, self.saved), dy)

    def graph_grads(self, F, inputs, dys):
        return (unbroadcast(F, dys[0], inputs[0].shape),)


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
                    f'{rhs_axes} must have the same length'
                )
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
        axes, sizes = (
            as_shape(self.attrs['axis']),
            as_shape(self.attrs['size']),
        )
        if len(axes) != len(sizes):
            raise DLBookError(
                f'{self.name}: axis={axes} and size={sizes} '
                f'must have the same length'
            )
        target = list(x.shape)
        for a, s in zip(axes, sizes):
            a = check_axis(a, x.shape, self.name)
            if x.shape[a] != 1:
                raise DLBookError(
                    f'{self.name}: axis {a} of input of shape {x.shape} '
                    f'has size {x.shape[a]}; only size-1 axes broadcast'
                )
            target[a] = int(s)
        self.saved = x.shape
        return _materialize(xp.broadcast_to(x, tuple(target)))

    def backward(self, xp, dy):
        return _fresh(unbroadcast(xp, dy, self.saved), dy)

    def graph_grads(self, F, inputs, dys):
        return (unbroadcast(F, dys[0], inputs[0].shape),)
