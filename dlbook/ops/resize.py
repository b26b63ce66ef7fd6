"""Operators that bring images to a given size, as in MXNet 1.x:
``contrib.BilinearResize2D`` (src/operator/contrib/bilinear_resize-inl.h)
and ``contrib.AdaptiveAvgPooling2D`` (adaptive_avg_pooling-inl.h).

Both are *separable*: each output row mixes input rows with weights that
depend only on the sizes, and each output column mixes input columns the
same way.  With a row matrix ``R`` ``(h_out, H)`` and a column matrix
``K`` ``(w_out, W)`` the whole operator is two matrix products per
image, and its gradient the transposed products::

    y = R @ x @ K^T,        dx = R^T @ dy @ K.

Only the matrices differ: interpolation weights for the resize, ``1 /
(bin length)`` over each bin for the pooling.
"""

from ..base import DLBookError
from .op import Op, register
from .windows import _literal, parse_bool, parse_tuple

__all__ = ['BilinearResize2D', 'AdaptiveAvgPooling2D']


def _check_data(shape, op_name):
    if len(shape) != 4:
        raise DLBookError(
            f'{op_name}: data must be 4-D (batch, channel, height, width), '
            f'got shape {tuple(shape)}'
        )


def interpolation_rows(size_in, size_out, align_corners):
    """The ``(size_out, size_in)`` linear-interpolation matrix of MXNet
    (and PyTorch): output index ``d`` reads the input at

    * ``align_corners=True``: ``s = d (size_in - 1) / (size_out - 1)``,
      first and last pixels aligned;
    * ``align_corners=False``: ``s = max((d + 1/2) size_in / size_out -
      1/2, 0)``, pixel *areas* aligned;

    and ``s = 0`` when ``size_out == 1``; it mixes ``floor(s)`` and the
    next index (the last index repeats) with weights ``1 - frac(s)``,
    ``frac(s)``.
    """
    rows = [[0.0] * size_in for _ in range(size_out)]
    if size_out > 1:
        scale = (
            (size_in - 1) / (size_out - 1)
            if align_corners
            else size_in / size_out
        )
    else:
        scale = 0.0
    for d in range(size_out):
        if align_corners:
            s = scale * d
        else:
            s = max(scale * (d + 0.5) - 0.5, 0.0)
        i0 = int(s)
        lam = s - i0
        rows[d][i0] += 1 - lam
        rows[d][min(i0 + 1, size_in - 1)] += lam
    return rows


def pooling_rows(size_in, size_out):
    """The ``(size_out, size_in)`` averaging matrix of adaptive pooling:
    bin ``d`` covers ``floor(d size_in / size_out)`` to
    ``ceil((d + 1) size_in / size_out) - 1`` (bins may overlap)."""
    rows = []
    for d in range(size_out):
        start = (d * size_in) // size_out
        stop = -(-((d + 1) * size_in) // size_out)
        rows.append(
            [
                1.0 / (stop - start) if start <= i < stop else 0.0
                for i in range(size_in)
            ]  # fmt: skip
        )
    return rows


class _Separable(Op):
    """``y = R @ x @ K^T`` per image and channel; subclasses give
    ``out_size(shape)`` and ``matrices(shape, out_size)``."""

    def infer_shape(self, *shapes):
        data = shapes[0]
        if data is None:
            return list(shapes), [None], []
        out = self.out_size(tuple(data), *shapes[1:])
        return [tuple(s) if s else s for s in shapes], [data[:2] + out], []

    def forward(self, xp, data, *like):
        out = self.out_size(data.shape, *(a.shape for a in like))
        rows, cols = self.matrices(data.shape, out)
        r = xp.asarray(rows, dtype=data.dtype)
        k = xp.asarray(cols, dtype=data.dtype)
        self.saved = (r, k, [a.shape for a in like])
        return xp.matmul(xp.matmul(r, data), k.T)

    def backward(self, xp, dy):
        r, k, like = self.saved
        dx = xp.matmul(xp.matmul(r.T, dy), k)
        return (dx,) + tuple(xp.zeros(s, dtype=dy.dtype) for s in like)


@register('_contrib_BilinearResize2D')
class BilinearResize2D(_Separable):
    """Resize NCHW images by bilinear interpolation.

    The output size comes from ``mode``:

    * ``'size'`` (default): ``(height, width)``; where ``scale_height``
      (``scale_width``) is given, ``int(H * scale_height)`` instead;
    * ``'like'``: the height and width of the second input ``like``;
    * ``'odd_scale'``: ``(H - 1) * scale + 1`` for an odd ``H``,
      ``int(H * scale)`` for an even one;
    * ``'to_even_down'``, ``'to_even_up'``, ``'to_odd_down'``,
      ``'to_odd_up'``: the nearest even (odd) size below (above),
      unchanged if it already is.

    Row ``i`` of the output reads input row ``s(i)`` (see
    :func:`interpolation_rows`: ``align_corners=True``, MXNet's default,
    maps first to first and last to last pixel), mixing rows
    ``floor(s)`` and ``floor(s) + 1``; columns likewise.  As a matrix
    product ``y = R @ x @ K^T``, so ``dx = R^T @ dy @ K``; ``like`` gets
    a zero gradient.
    """

    arguments = ('data', 'like')  # like only in mode='like'
    defaults = {
        'height': 1,
        'width': 1,
        'scale_height': None,
        'scale_width': None,
        'mode': 'size',
        'align_corners': True,
    }
    MODES = (
        'size',
        'like',
        'odd_scale',
        'to_even_down',
        'to_even_up',
        'to_odd_down',
        'to_odd_up',
    )

    def __init__(self, **attrs):
        super().__init__(**attrs)
        if self.attrs['mode'] not in self.MODES:
            raise DLBookError(
                f'BilinearResize2D: mode must be one of {self.MODES}, got '
                f'{self.attrs["mode"]!r}'
            )

    def list_arguments(self):
        if self.attrs['mode'] == 'like':
            return ('data', 'like')
        return ('data',)

    def _scale(self, key):
        value = _literal(self.attrs[key])
        return None if value is None else float(value)

    def out_size(self, shape, like=None):
        _check_data(shape, 'BilinearResize2D')
        h, w = shape[2:]
        mode = self.attrs['mode']
        sh, sw = self._scale('scale_height'), self._scale('scale_width')
        if mode == 'size':
            out = (
                int(h * sh) if sh is not None else int(self.attrs['height']),
                int(w * sw) if sw is not None else int(self.attrs['width']),
            )
        elif mode == 'like':
            if like is None or len(like) != 4:
                raise DLBookError(
                    "BilinearResize2D(mode='like'): needs a 4-D second input "
                    f'like, got {None if like is None else tuple(like)}'
                )
            out = tuple(like[2:])
        elif mode == 'odd_scale':
            if sh is None or sw is None:
                raise DLBookError(
                    "BilinearResize2D(mode='odd_scale'): needs scale_height "
                    'and scale_width'
                )
            out = tuple(
                int((n - 1) * s) + 1 if n % 2 else int(n * s)
                for n, s in ((h, sh), (w, sw))
            )
        else:
            parity = 0 if 'even' in mode else 1
            step = -1 if mode.endswith('down') else 1
            out = tuple(n if n % 2 == parity else n + step for n in (h, w))
        if min(out) < 1:
            raise DLBookError(
                f'BilinearResize2D: output size {out} for input {h}x{w} '
                f'(mode={mode!r}) is empty'
            )
        return out

    def matrices(self, shape, out):
        align = parse_bool(self.attrs['align_corners'])
        return (
            interpolation_rows(shape[2], out[0], align),
            interpolation_rows(shape[3], out[1], align),
        )


@register('_contrib_AdaptiveAvgPooling2D')
class AdaptiveAvgPooling2D(_Separable):
    """Average pooling to a fixed output size (``output_size``: an int
    for a square, ``(h, w)``, or empty for ``1 x 1``), whatever the
    input size.

    Output row ``i`` averages input rows ``floor(i H / h)`` to
    ``ceil((i + 1) H / h) - 1`` (neighbouring bins overlap when ``h``
    does not divide ``H``), columns likewise::

        y[i, j] = mean of x over bin_i x bin_j,
        dx[r, c] = sum over the bins holding (r, c) of dy / bin size.
    """

    defaults = {'output_size': ()}

    def out_size(self, shape):
        _check_data(shape, 'AdaptiveAvgPooling2D')
        size = parse_tuple(self.attrs['output_size'], 'output_size', self.name)
        if len(size) == 0:
            size = (1, 1)
        elif len(size) == 1:
            size = size * 2
        if len(size) != 2 or min(size) < 1:
            raise DLBookError(
                'AdaptiveAvgPooling2D: output_size must be an int or (h, w) '
                f'of positive sizes, got {self.attrs["output_size"]!r}'
            )
        return size

    def matrices(self, shape, out):
        return (
            pooling_rows(shape[2], out[0]),
            pooling_rows(shape[3], out[1]),
        )
