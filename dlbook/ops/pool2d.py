"""2-D pooling as one GPU kernel each way.

With array operations a pooling layer is one whole-array ``maximum`` (or
``add``) per kernel offset, plus a padded copy of the input; its backward
is four or five operations per offset (which element of each window is
the first maximum, then a slice-add).  On a GPU each is a launch: the
3x3 stride-2 max pooling at the start of a ResNet took 11 calls
forward and 56 backward.  Here each direction is one kernel, and neither
pads the input (positions outside it are skipped, or read as ``lowest``
for max pooling, which is what the padding held):

forward, one thread per output ``(n, c, oy, ox)``::

    y = max / sum over the window [oy*sh - ph, +kh) x [ox*sw - pw, +kw)
    avg: y = sum / count     (count: window positions inside the padded
                              input, or inside the data when
                              count_include_pad=False; as _count_table)

backward, one thread per input element, which gathers from the windows
that contain it (as :mod:`dlbook.ops.col2im` does)::

    sum: dx = sum of dy;   avg: dx = sum of dy / count;
    max: dx = sum of dy over the windows whose *first* maximum
         (row-major inside the window) is this element, as MXNet routes
         ties; maxima of keys, NaN and -inf counting as ``lowest``
         (MXNet's rule, ``pool.py``'s ``_max_keys``)

The twins are the array operations of :mod:`dlbook.ops.pool_windows`.
"""

from .kernels import Elementwise
from .pool_windows import add_window_grads, counts, loop_forward
from .windows import crop_spatial, kernel_offsets, pad_spatial, window_slices

__all__ = ['MODES', 'forward', 'backward']

#: ``pool_type`` -> the kernels' ``mode`` argument.
MODES = {'max': 0, 'avg': 1, 'sum': 2}

# The window of output (oy, ox) and the divisor of average pooling, in
# the coordinates of the padded input (the data starts at (ph, pw)).
_WINDOW = """
    const int y0 = oy * sh, x0 = ox * sw;
    int count = 1;
    if (mode == 1) {
        const int lo_y = include ? 0 : ph, hi_y = include ? h + 2 * ph : ph + h;
        const int lo_x = include ? 0 : pw, hi_x = include ? w + 2 * pw : pw + w;
        const int ch = min(y0 + kh, hi_y) - max(y0, lo_y);
        const int cw = min(x0 + kw, hi_x) - max(x0, lo_x);
        count = max(ch * cw, 1);
    }
"""

_GEOMETRY = (
    'int32 h, int32 w, int32 out_h, int32 out_w, int32 kh, int32 kw, '
    'int32 sh, int32 sw, int32 ph, int32 pw, int32 mode, int32 include'
)


def _padded_input(xp, x, lowest, out_h, out_w, kh, kw, sh, sw, ph, pw, mode):
    """The input padded as the windows need it: ``lowest`` around it for
    max pooling, zeros otherwise (the 'full' convention's last window may
    run past ``ph``/``pw`` after the data).  Max pooling compares keys,
    NaN and -inf made ``lowest`` (``pool.py``'s ``_max_keys``)."""
    h, w = x.shape[2:]
    after = (
        max(ph, (out_h - 1) * sh + kh - h - ph),
        max(pw, (out_w - 1) * sw + kw - w - pw),
    )
    if mode != MODES['max']:
        return pad_spatial(xp, x, (ph, pw), after, value=0)
    x_pad = pad_spatial(xp, x, (ph, pw), after, value=lowest)
    if x.dtype.kind != 'f':
        return x_pad
    return xp.fmax(x_pad, x.dtype.type(lowest))


def _divisor(xp, h, w, out_h, out_w, kh, kw, sh, sw, ph, pw, include, dtype):
    return counts(
        xp,
        (h, w),
        (kh, kw),
        (sh, sw),
        (ph, pw),
        (out_h, out_w),
        include,
        dtype,
    )


def _forward_steps(
    xp, x, lowest, h, w, out_h, out_w, kh, kw, sh, sw, ph, pw, mode, include, y
):
    """:data:`POOL2D` with array operations: pad, then one ``maximum`` or
    ``add`` per kernel offset (and the division of average pooling)."""
    x_pad = _padded_input(
        xp, x, lowest, out_h, out_w, kh, kw, sh, sw, ph, pw, mode
    )
    pool_type = 'max' if mode == MODES['max'] else 'sum'
    result = loop_forward(
        xp, x_pad, (kh, kw), (sh, sw), (out_h, out_w), pool_type, None
    )
    if mode == MODES['avg']:
        result /= _divisor(
            xp, h, w, out_h, out_w, kh, kw, sh, sw, ph, pw, include, y.dtype
        )
    y[...] = result


#: 2-D max, average or sum pooling: ``y`` (C-contiguous ``(N, C, out_h,
#: out_w)``) from ``x`` (C-contiguous ``(N, C, h, w)``).
POOL2D = Elementwise(
    'dlbook_pool2d',
    'raw T x, T lowest, ' + _GEOMETRY,
    'T y',
    """
    const long long c0 = i / ((long long)out_h * out_w);  // n * C + c
    const int oy = i / out_w % out_h, ox = i % out_w;
    """
    + _WINDOW
    + """
    T acc = mode == 0 ? lowest : (T)0;
    for (int ky = 0; ky < kh; ++ky) {
        const int yy = y0 + ky - ph;  // in the data
        if (yy < 0 || yy >= h) continue;
        for (int kx = 0; kx < kw; ++kx) {
            const int xx = x0 + kx - pw;
            if (xx < 0 || xx >= w) continue;
            const T v = x[(c0 * h + yy) * w + xx];
            if (mode != 0) acc += v;
            else if (v > acc) acc = v;  // NaN and -inf never win
        }
    }
    y = mode == 1 ? acc / (T)count : acc;
    """,
    _forward_steps,
)


def _backward_steps(
    xp,
    x,
    y,
    dy,
    lowest,
    h,
    w,
    out_h,
    out_w,
    kh,
    kw,
    sh,
    sw,
    ph,
    pw,
    mode,
    include,
    dx,
):
    """:data:`POOL2D_GRAD` with array operations: one slice-add per
    kernel offset into a padded buffer, then the crop."""
    x_pad = _padded_input(
        xp, x, lowest, out_h, out_w, kh, kw, sh, sw, ph, pw, mode
    )
    if mode == MODES['avg']:
        dy = dy / _divisor(
            xp, h, w, out_h, out_w, kh, kw, sh, sw, ph, pw, include, dy.dtype
        )
    target = xp.zeros(x_pad.shape, dtype=dx.dtype)
    offsets = [
        window_slices(offset, (sh, sw), (1, 1), (out_h, out_w))
        for offset in kernel_offsets((kh, kw))
    ]
    pool_type = 'max' if mode == MODES['max'] else 'sum'
    add_window_grads(xp, target, x_pad, y, dy, offsets, pool_type, None)
    dx[...] = crop_spatial(target, (ph, pw), (h, w))


#: The gradient ``dx`` (C-contiguous ``(N, C, h, w)``) of :data:`POOL2D`
#: from its input ``x``, output ``y`` and ``dy`` (C-contiguous).
POOL2D_GRAD = Elementwise(
    'dlbook_pool2d_grad',
    'raw T x, raw T y, raw T dy, T lowest, ' + _GEOMETRY,
    'T dx',
    """
    const long long c0 = i / ((long long)h * w);  // n * C + c
    const int py = i / w % h + ph, px = i % w + pw;  // on the padded grid
    const T xi = x[i];
    T val = 0;
    for (int oy = 0; oy < out_h; ++oy) {
        if (py < oy * sh || py >= oy * sh + kh) continue;
        for (int ox = 0; ox < out_w; ++ox) {
            if (px < ox * sw || px >= ox * sw + kw) continue;
            const long long o = (c0 * out_h + oy) * out_w + ox;
    """
    + _WINDOW
    + """
            if (mode == 1) { val += dy[o] / (T)count; continue; }
            if (mode == 2) { val += dy[o]; continue; }
            // keys: NaN and -inf count as lowest (pool.py's _max_keys)
            const T m = y[o];
            if (!((xi > lowest ? xi : lowest) == m)) continue;
            // the first maximum of the window, row-major: is any key
            // before this one equal to m? (padding reads as lowest)
            bool first = true;
            for (int qy = y0; qy <= py && first; ++qy) {
                for (int qx = x0; qx < x0 + kw; ++qx) {
                    if (qy == py && qx == px) break;
                    const int yy = qy - ph, xx = qx - pw;
                    const T v = (yy < 0 || yy >= h || xx < 0 || xx >= w)
                        ? lowest : x[(c0 * h + yy) * w + xx];
                    if ((v > lowest ? v : lowest) == m) {
                        first = false;
                        break;
                    }
                }
            }
            if (first) val += dy[o];
        }
    }
    dx = val;
    """,
    _backward_steps,
)


def _arguments(x, lowest, kernel, stride, before, out, pool_type, include):
    h, w = x.shape[2:]
    return (
        lowest,
        h,
        w,
        *out,
        *kernel,
        *stride,
        *before,
        MODES[pool_type],
        int(include),
    )


def forward(xp, x, lowest, kernel, stride, before, out, pool_type, include):
    """2-D pooling of ``x`` (``(N, C, h, w)``) as one kernel on a GPU:
    ``pool_type`` 'max', 'avg' or 'sum', ``before`` the padding before
    each axis, ``out`` the output size (which fixes the padding after)."""
    x = xp.ascontiguousarray(x)
    y = xp.empty(x.shape[:2] + tuple(out), dtype=x.dtype)
    POOL2D(
        xp,
        x,
        *_arguments(
            x, lowest, kernel, stride, before, out, pool_type, include
        ),
        y,
    )
    return y


def backward(
    xp, x, y, dy, lowest, kernel, stride, before, out, pool_type, include
):
    """The gradient of :func:`forward` as one kernel on a GPU."""
    x = xp.ascontiguousarray(x)
    dx = xp.empty(x.shape, dtype=dy.dtype)
    POOL2D_GRAD(
        xp,
        x,
        y,
        xp.ascontiguousarray(dy),
        *_arguments(
            x, lowest, kernel, stride, before, out, pool_type, include
        ),
        dx,
    )
    return dx
