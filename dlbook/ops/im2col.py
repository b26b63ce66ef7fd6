"""im2col as one GPU kernel: a 2-D convolution's windows, padding included.

A convolution multiplies its weight into a matrix of the input's windows
(``windows.py``).  With array operations on a GPU that matrix takes
three launches: zeros for the padded input, a copy of the input into
them, and the copy of the windows' strided view into rows.  The kernel
here gives every element of the matrix its own thread, which reads the
input element it stands for, or writes 0 where the window reaches into
the padding::

    y = oy*sy + ky*dh - ph,   x = ox*sx + kx*dw - pw
    cols[...] = img[n, c, y, x]  if 0 <= y < h and 0 <= x < w,  else 0

One launch, and no padded copy of the input.  Two layouts of the same
numbers (``last`` chooses):

* ``(N, C, kh, kw, out_h, out_w)``: the rows ``(c, k)`` and columns
  ``o`` of one image's matrix, the ``(N, G, Cg*K, P)`` of
  :func:`~dlbook.ops.conv_fast.conv_forward`;
* ``(N, out_h, out_w, kh, kw, C)``: channels-last rows ``(N, P, K*C)``.
"""

from .kernels import Elementwise
from .windows import pad_spatial, sliding_windows

__all__ = ['IM2COL_2D', 'im2col_2d']


def _im2col_steps(
    xp, img, C, h, w, out_h, out_w, kh, kw, sy, sx, dh, dw, ph, pw, last, cols
):
    """:data:`IM2COL_2D` with array operations: pad, then copy the
    strided view of the windows."""
    n = cols.size // (C * kh * kw * out_h * out_w)
    x_pad = pad_spatial(xp, img.reshape(n, C, h, w), (ph, pw))
    # (N, C, out_h, out_w, kh, kw)
    windows = sliding_windows(
        xp, x_pad, (kh, kw), (sy, sx), (dh, dw), (out_h, out_w)
    )
    order = (0, 2, 3, 4, 5, 1) if last else (0, 1, 4, 5, 2, 3)
    view = windows.transpose(order)
    cols.reshape(view.shape)[...] = view


#: ``cols`` (C-contiguous, the layout of ``last``: see the module
#: docstring) from ``img`` (C-contiguous ``(N, C, h, w)``).
IM2COL_2D = Elementwise(
    'dlbook_im2col_2d',
    'raw T img, int32 C, int32 h, int32 w, int32 out_h, int32 out_w, '
    'int32 kh, int32 kw, int32 sy, int32 sx, int32 dh, int32 dw, '
    'int32 ph, int32 pw, int32 last',
    'T cols',
    """
    long long r = i;
    int c, ky, kx, oy, ox;
    if (last) {
        c = r % C;  r /= C;
        kx = r % kw;  r /= kw;
        ky = r % kh;  r /= kh;
        ox = r % out_w;  r /= out_w;
        oy = r % out_h;  r /= out_h;  // the image
        r = r * C + c;
    } else {
        ox = r % out_w;  r /= out_w;
        oy = r % out_h;  r /= out_h;
        kx = r % kw;  r /= kw;
        ky = r % kh;  r /= kh;  // the image's channel: n * C + c
    }
    const int y = oy * sy + ky * dh - ph;
    const int x = ox * sx + kx * dw - pw;
    cols = (y < 0 || y >= h || x < 0 || x >= w)
        ? (T)0 : img[(r * h + y) * w + x];
    """,
    _im2col_steps,
)


def im2col_2d(
    xp, x, kernel, stride, dilate, pad, out_size, channels_last, groups=1
):
    """The windows of ``x`` (``(N, C, h, w)``, not padded: ``pad``, or
    None for none, is applied on the way) as one kernel on a GPU:
    ``(N, G, Cg*kh*kw, P)`` for ``groups`` groups, or with
    ``channels_last`` (one group) ``(N, P, kh*kw*C)``."""
    n, c, h, w = x.shape
    pad = pad or (0, 0)
    taps = kernel[0] * kernel[1]
    positions = out_size[0] * out_size[1]
    if channels_last:
        shape = (n, positions, taps * c)
    else:
        shape = (n, groups, c // groups * taps, positions)
    cols = xp.empty(shape, dtype=x.dtype)
    IM2COL_2D(
        xp,
        xp.ascontiguousarray(x),
        c,
        h,
        w,
        *out_size,
        *kernel,
        *stride,
        *dilate,
        *pad,
        int(channels_last),
        cols,
    )
    return cols
