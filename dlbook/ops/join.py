"""Joining and splitting arrays: ``concat``, ``stack``, ``split``.

A join's gradient is the matching split of the output gradient, and a
split's gradient is the join of the output gradients.
"""

from ..base import DLBookError
from .op import Op, register
from .shape import check_axis


@register('Concat', 'concat')
class Concat(Op):
    """y = concatenate(x_0, x_1, ..., axis=dim);
    dx_i = the slice of dy that came from x_i."""

    variadic = True
    defaults = {'num_args': 0, 'dim': 1}
    #: the attribute naming the axis (NumPy mode's twin calls it ``axis``)
    axis_attr = 'dim'

    def forward(self, xp, *arrays):
        if not arrays:
            raise DLBookError(f'{self.name}: needs at least one input')
        shapes = [a.shape for a in arrays]
        key = self.axis_attr
        dim = check_axis(self.attrs[key], shapes[0], self.name, key)
        for s in shapes:
            if len(s) != len(shapes[0]) or any(
                n != m
                for i, (n, m) in enumerate(zip(s, shapes[0]))
                if i != dim
            ):
                raise DLBookError(
                    f'{self.name}: input shapes {shapes} must agree on '
                    f'every axis except {key}={self.attrs[key]}'
                )
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
            raise DLBookError(
                f'{self.name}: all inputs must have the same '
                f'shape, got {shapes}'
            )
        axis = check_axis(self.attrs['axis'], shapes[0], self.name, extra=1)
        self.saved = (axis, len(arrays))
        return xp.stack(arrays, axis=axis)

    def backward(self, xp, dy):
        axis, count = self.saved
        return tuple(
            dy[(slice(None),) * axis + (i,)].copy() for i in range(count)
        )


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
            raise DLBookError(
                f'{self.name}: num_outputs is required (got '
                f'{n!r}) for input of shape {x.shape}'
            )
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
                f'must {need}'
            )
        self.saved = (x.shape, x.dtype, axis, squeeze)
        parts = xp.split(x, n, axis=axis)
        if squeeze:
            parts = [
                p.reshape(p.shape[:axis] + p.shape[axis + 1 :]) for p in parts
            ]
        return tuple(parts) if n > 1 else parts[0]

    def backward(self, xp, *dys):
        shape, dtype, axis, squeeze = self.saved
        part = shape[:axis] + (shape[axis] // len(dys),) + shape[axis + 1 :]
        pieces = [
            xp.zeros(part, dtype) if d is None else d.reshape(part)
            for d in dys
        ]
        return xp.concatenate(pieces, axis=axis)
