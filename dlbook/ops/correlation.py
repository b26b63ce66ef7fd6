"""Operators: ``Crop`` (the crop layer of fully convolutional networks,
src/operator/crop-inl.h) and ``Correlation`` (FlowNet's correlation
layer, Dosovitskiy et al. 2015, src/operator/correlation-inl.h), as in
MXNet 1.x.
"""

import math

from ..base import DLBookError
from .op import Op, register
from .windows import parse_bool, parse_int, parse_tuple

__all__ = ['Crop', 'Correlation']


@register('Crop')
class Crop(Op):
    """Cut an ``h x w`` window out of NCHW ``data`` (MXNet's old FCN crop;
    ``slice`` does the same and more).

    With one input the size is ``h_w``; with two (``num_args=2``) it is
    the height and width of the second input, ``crop_like`` (FCN crops an
    upsampled score map to the image's size).  The window starts at
    ``offset=(y, x)``, or is centred (``((H - h) // 2, (W - w) // 2)``)
    when ``center_crop``::

        y = data[:, :, y0 : y0 + h, x0 : x0 + w]
        ddata = dy placed at the window, 0 elsewhere;  dcrop_like = 0.
    """

    variadic = True
    defaults = {
        'num_args': 1,
        'offset': (0, 0),
        'h_w': (0, 0),
        'center_crop': False,
    }

    def _window(self, shapes):
        """``(y0, x0, h, w)`` of the crop."""
        if len(shapes) not in (1, 2):
            raise DLBookError(
                f'Crop: takes 1 or 2 inputs (data, crop_like), got {len(shapes)}'
            )
        data = shapes[0]
        if len(data) != 4:
            raise DLBookError(
                'Crop: data must be 4-D (batch, channel, height, width), got '
                f'shape {tuple(data)}'
            )
        if len(shapes) == 2:
            if len(shapes[1]) != 4:
                raise DLBookError(
                    f'Crop: crop_like must be 4-D, got shape {tuple(shapes[1])}'
                )
            h, w = shapes[1][2:]
        else:
            h, w = parse_tuple(self.attrs['h_w'], 'h_w', 'Crop')
        if parse_bool(self.attrs['center_crop']):
            y0, x0 = (data[2] - h) // 2, (data[3] - w) // 2
        else:
            y0, x0 = parse_tuple(self.attrs['offset'], 'offset', 'Crop')
        if (
            h < 1
            or w < 1
            or y0 < 0
            or x0 < 0
            or (y0 + h > data[2] or x0 + w > data[3])
        ):
            raise DLBookError(
                f'Crop: a {h}x{w} window at offset ({y0}, {x0}) does not fit '
                f'in data of shape {tuple(data)}'
            )
        return y0, x0, h, w

    def infer_shape(self, *shapes):
        if any(s is None for s in shapes):
            return list(shapes), [None], []
        _, _, h, w = self._window(shapes)
        out = (shapes[0][0], shapes[0][1], h, w)
        return [tuple(s) for s in shapes], [out], []

    def forward(self, xp, *inputs):
        y0, x0, h, w = self._window([a.shape for a in inputs])
        self.saved = ([a.shape for a in inputs], (y0, x0, h, w))
        return inputs[0][:, :, y0 : y0 + h, x0 : x0 + w]

    def backward(self, xp, dy):
        shapes, (y0, x0, h, w) = self.saved
        ddata = xp.zeros(shapes[0], dtype=dy.dtype)
        ddata[:, :, y0 : y0 + h, x0 : x0 + w] = dy
        grads = (ddata,) + tuple(xp.zeros(s, dy.dtype) for s in shapes[1:])
        return grads if len(grads) > 1 else grads[0]


@register('Correlation')
class Correlation(Op):
    """Compare patches of two feature maps at a range of displacements
    (FlowNet's cost volume).

    Both inputs are zero-padded by ``pad_size``.  Output position
    ``(i, j)`` centres a ``k x k`` patch (``k = kernel_size``, odd) of
    ``data1`` at ``(u, v) = (i s1 + m + r, j s1 + m + r)`` in padded
    coordinates (``s1 = stride1``, ``m = max_displacement``,
    ``r = (k - 1) / 2``); each displacement ``(p, o) s2`` with
    ``|p|, |o| <= m // s2`` (``s2 = stride2``) is one output channel
    ``(p + g)(2 g + 1) + (o + g)``, ``g = m // s2``::

        y[n, (p, o), i, j] = 1 / (k^2 C) sum_{c, a, b}
            x1[n, c, u + a, v + b] * x2[n, c, u + a + p s2, v + b + o s2]

    (``|x1 - x2|`` instead of the product when ``is_multiply`` is False;
    its gradient takes ``sign(0) = +1``, as MXNet).
    Output size: ``ceil((H + 2 pad - 2 (m + r)) / s1)`` and alike for W.
    Gradients: ``dx1 += dy / (k^2 C) * x2`` at the matching positions
    and ``dx2 += dy / (k^2 C) * x1`` (for ``|x1 - x2|``:
    ``+- sign(x1 - x2) dy / (k^2 C)``).
    """

    arguments = ('data1', 'data2')
    defaults = {
        'kernel_size': 1,
        'max_displacement': 1,
        'stride1': 1,
        'stride2': 1,
        'pad_size': 0,
        'is_multiply': True,
    }
    same_dtype = True

    def __init__(self, **attrs):
        super().__init__(**attrs)
        values = {
            key: parse_int(self.attrs[key], key, 'Correlation')
            for key in self.defaults
            if key != 'is_multiply'
        }
        if values['kernel_size'] % 2 == 0 or min(values.values()) < 0:
            raise DLBookError(
                'Correlation: kernel_size must be odd and every size '
                f'non-negative, got {values}'
            )
        if values['stride1'] < 1 or values['stride2'] < 1:
            raise DLBookError(
                f'Correlation: strides must be at least 1, got {values}'
            )
        self.k = values['kernel_size']
        self.md = values['max_displacement']
        self.s1, self.s2 = values['stride1'], values['stride2']
        self.pad = values['pad_size']
        self.multiply = parse_bool(self.attrs['is_multiply'])

    def _out_shape(self, a, b):
        if len(a) != 4 or tuple(a) != tuple(b):
            raise DLBookError(
                'Correlation: data1 and data2 must be 4-D of one shape, got '
                f'{tuple(a)} and {tuple(b)}'
            )
        border = self.md + (self.k - 1) // 2
        out = [
            math.ceil((n + 2 * self.pad - 2 * border) / self.s1) for n in a[2:]
        ]
        if min(out) < 1:
            raise DLBookError(
                f'Correlation: data of size {a[2]}x{a[3]} padded by '
                f'{self.pad} is too small for max_displacement={self.md} and '
                f'kernel_size={self.k}'
            )
        grid = 2 * (self.md // self.s2) + 1
        return (a[0], grid * grid, out[0], out[1])

    def infer_shape(self, data1=None, data2=None):
        if data1 is None or data2 is None:
            known = data1 if data2 is None else data2
            return [known, known], [None], []
        out = self._out_shape(data1, data2)
        return [tuple(data1), tuple(data2)], [out], []

    def _plan(self, shape):
        """Spans of the compared region and the displacements."""
        _, _, oh, ow = self._out_shape(shape, shape)
        span = ((oh - 1) * self.s1 + self.k, (ow - 1) * self.s1 + self.k)
        g = self.md // self.s2
        moves = [
            (p * self.s2, o * self.s2)
            for p in range(-g, g + 1)
            for o in range(-g, g + 1)
        ]
        return (oh, ow), span, moves

    def _regions(self, a, b, move, span):
        m, (dy, dx) = self.md, move
        first = a[:, :, m : m + span[0], m : m + span[1]]
        second = b[:, :, m + dy : m + dy + span[0], m + dx : m + dx + span[1]]
        return first, second

    def _pad(self, xp, x):
        p = self.pad
        return xp.pad(x, ((0, 0), (0, 0), (p, p), (p, p))) if p else x

    def forward(self, xp, data1, data2):
        self._out_shape(data1.shape, data2.shape)
        (oh, ow), span, moves = self._plan(data1.shape)
        a, b = self._pad(xp, data1), self._pad(xp, data2)
        k, s = self.k, self.s1
        norm = k * k * data1.shape[1]
        out = xp.zeros((data1.shape[0], len(moves), oh, ow), data1.dtype)
        for ch, move in enumerate(moves):
            first, second = self._regions(a, b, move, span)
            if self.multiply:
                match = (first * second).sum(axis=1)
            else:
                match = xp.abs(first - second).sum(axis=1)
            for u in range(k):  # the k x k window sum, one tap at a time
                for v in range(k):
                    out[:, ch] += match[
                        :,
                        u : u + (oh - 1) * s + 1 : s,
                        v : v + (ow - 1) * s + 1 : s,
                    ]
        out /= norm
        self.saved = (a, b, data1.shape)
        return out

    def backward(self, xp, dy):
        a, b, shape = self.saved
        (oh, ow), span, moves = self._plan(shape)
        k, s, m, p = self.k, self.s1, self.md, self.pad
        da, db = xp.zeros_like(a), xp.zeros_like(b)
        dy = dy / (k * k * shape[1])
        for ch, (my, mx) in enumerate(moves):
            dmatch = xp.zeros((shape[0],) + span, dtype=dy.dtype)
            for u in range(k):
                for v in range(k):
                    dmatch[
                        :,
                        u : u + (oh - 1) * s + 1 : s,
                        v : v + (ow - 1) * s + 1 : s,
                    ] += dy[:, ch]
            first, second = self._regions(a, b, (my, mx), span)
            dmatch = dmatch[:, None]
            if self.multiply:
                g1, g2 = dmatch * second, dmatch * first
            else:
                # MXNet takes +1 where the two are equal (0 - 0 in the
                # padding too)
                g1 = dmatch * xp.where(first >= second, 1.0, -1.0)
                g2 = -g1
            da[:, :, m : m + span[0], m : m + span[1]] += g1
            db[:, :, m + my : m + my + span[0], m + mx : m + mx + span[1]] += (
                g2
            )
        h, w = shape[2:]
        return da[:, :, p : p + h, p : p + w], db[:, :, p : p + h, p : p + w]
