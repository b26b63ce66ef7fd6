"""col2im as one GPU kernel: the data gradient of a 2-D convolution.

A convolution's data gradient first multiplies the weight into the
output gradient, which gives, for every window, the gradient of each of
its elements::

    dcols[n, c, ky, kx, oy, ox]  (one image row of windows per (oy, ox))

Windows overlap, so those values must be added back onto the input grid.
With array operations that is one strided slice-add per kernel tap
(``kh * kw`` launches on a GPU, 49 for a 7x7 kernel); the kernel here
(Chainer's ``col2im_gpu``) gives every input element its own thread,
which gathers the taps that saw it::

    dx[n, c, y, x] = sum over (ky, kx) with  y + ph - ky*dh = oy*sh,
                                             x + pw - kx*dw = ox*sw,
                     0 <= oy < out_h,  0 <= ox < out_w
                     of dcols[n, c, ky, kx, oy, ox]

No padded buffer, no atomics: each thread writes one element.
"""

from .kernels import Elementwise
from .windows import kernel_offsets, window_slices

__all__ = ['COL2IM_2D', 'col2im_2d']


def _col2im_steps(
    xp, dcols, h, w, out_h, out_w, kh, kw, sh, sw, ph, pw, dh, dw, dx
):
    """:data:`COL2IM_2D` with array operations: one slice-add per tap into
    a zero-padded buffer, then the crop."""
    n, c = dx.shape[:2]
    dcols = dcols.reshape(n, c, kh, kw, out_h, out_w)
    padded = xp.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=dx.dtype)
    for offset in kernel_offsets((kh, kw)):
        target = padded[
            window_slices(offset, (sh, sw), (dh, dw), (out_h, out_w))
        ]
        target += dcols[(slice(None), slice(None)) + offset]
    dx[...] = padded[:, :, ph : ph + h, pw : pw + w]


#: ``dx`` (C-contiguous ``(N, C, h, w)``) from ``dcols`` (C-contiguous,
#: ``(N, C, kh, kw, out_h, out_w)`` in memory).
COL2IM_2D = Elementwise(
    'dlbook_col2im_2d',
    'raw T dcols, int32 h, int32 w, int32 out_h, int32 out_w, int32 kh, '
    'int32 kw, int32 sh, int32 sw, int32 ph, int32 pw, int32 dh, int32 dw',
    'T dx',
    """
    const long long c0 = i / ((long long)h * w);  // n * C + c
    const int y = i / w % h + ph;                 // on the padded grid
    const int x = i % w + pw;
    T val = 0;
    for (int ky = 0; ky < kh; ++ky) {
        int oy = y - ky * dh;
        if (oy < 0 || oy % sh != 0) continue;
        oy /= sh;
        if (oy >= out_h) continue;
        for (int kx = 0; kx < kw; ++kx) {
            int ox = x - kx * dw;
            if (ox < 0 || ox % sw != 0) continue;
            ox /= sw;
            if (ox >= out_w) continue;
            val += dcols[((c0 * kh + ky) * kw + kx) * out_h * out_w
                         + (long long)oy * out_w + ox];
        }
    }
    dx = val;
    """,
    _col2im_steps,
)


def col2im_2d(xp, dcols, data_shape, kernel, stride, pad, dilate, out_size):
    """The input gradient ``(N, C, h, w)`` from ``dcols`` (see the module
    docstring), as one kernel on a GPU."""
    dx = xp.empty(data_shape, dtype=dcols.dtype)
    COL2IM_2D(
        xp,
        xp.ascontiguousarray(dcols),
        *data_shape[2:],
        *out_size,
        *kernel,
        *stride,
        *pad,
        *dilate,
        dx,
    )
    return dx
