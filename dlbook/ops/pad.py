"""Padding and depth <-> space rearrangement.

``Pad`` widens the spatial axes of an image batch with a constant, edge
copies or reflections; its gradient crops (and, for edge/reflect, adds the copies
back).  ``depth_to_space``/``space_to_depth`` move blocks of channels into
pixels and back, so each is the other's gradient.
"""

from ..base import DLBookError
from .op import Op, register
from .shape import as_shape


def _pad_axis_grad(xp, dy, axis, before, size, mode):
    """Gradient of padding one axis: fold the padded positions back onto
    the input positions they were copied from (edge/reflect)."""

    def at(i):
        return (slice(None),) * axis + (slice(i, i + 1),)

    grad = dy[(slice(None),) * axis + (slice(before, before + size),)].copy()
    if mode == 'constant':
        return grad
    for p in range(dy.shape[axis]):
        k = p - before  # position relative to input
        if 0 <= k < size:
            continue
        if mode == 'edge':
            src = 0 if k < 0 else size - 1
        else:  # reflect without the edge
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
                f'{x.shape}'
            )
        if mode not in ('constant', 'edge', 'reflect'):
            raise DLBookError(
                f'{self.name}: mode={mode!r} must be '
                f"'constant', 'edge' or 'reflect'"
            )
        pairs = tuple(
            (int(width[2 * i]), int(width[2 * i + 1])) for i in range(x.ndim)
        )
        if mode == 'reflect' and any(
            max(p) >= n for p, n in zip(pairs, x.shape) if max(p)
        ):
            raise DLBookError(
                f'{self.name}: reflect padding {pairs} must '
                f'be smaller than the input shape {x.shape}'
            )
        self.saved = (x.shape, pairs, mode)
        if mode == 'constant':
            return xp.pad(
                x,
                pairs,
                mode='constant',
                constant_values=self.attrs['constant_value'],
            )
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
    ok = (
        x.ndim == 4
        and b > 0
        and (
            x.shape[1] % (b * b) == 0
            if channels
            else x.shape[2] % b == 0 and x.shape[3] % b == 0
        )
    )
    if not ok:
        need = (
            'C divisible by block_size**2'
            if channels
            else 'H and W divisible by block_size'
        )
        raise DLBookError(
            f'{op_name}: input of shape {x.shape} needs 4 '
            f'dims (N, C, H, W) with {need} '
            f'(block_size={block})'
        )
    return b


@register('depth_to_space')
class DepthToSpace(Op):
    """y[n, c, h*b+i, w*b+j] = x[n, (i*b+j)*C/b^2 + c, h, w];
    dx = space_to_depth(dy, b)."""

    defaults = {'block_size': None}

    def forward(self, xp, x):
        self.saved = _check_block(self.name, x, self.attrs['block_size'], True)
        return _depth_to_space(x, self.saved)

    def backward(self, xp, dy):
        return _space_to_depth(dy, self.saved).copy()


@register('space_to_depth')
class SpaceToDepth(Op):
    """y = the inverse rearrangement of depth_to_space;
    dx = depth_to_space(dy, b)."""

    defaults = {'block_size': None}

    def forward(self, xp, x):
        self.saved = _check_block(
            self.name, x, self.attrs['block_size'], False
        )
        return _space_to_depth(x, self.saved)

    def backward(self, xp, dy):
        return _depth_to_space(dy, self.saved).copy()
