"""Element loops for the CPU, compiled by Numba (``host_jit.py``).

Each loop below is plain Python over arrays: read as it stands, it is
the definition of its step, one element at a time; compiled, it is one
pass over memory.  Every loop takes ``start, stop``, a range of images
(or of elements), so that dlbook's threads can share a batch; the
callers (``pool_fast.py``, ``kernels.py`` for the activations'
gradients, ``conv_fast_data_grad.py``, ``conv_wide_rows.py``) choose
between these and their NumPy code and split the work.

Max pooling works on the padded input ``x_pad`` ``(N, C, Hp, Wp)``
(padding holds the dtype's lowest finite value, so it never wins a
window; ``pool.py`` applies MXNet's rule for NaN and -inf);
output ``(i, j)`` reads rows ``i*sh .. i*sh + kh - 1`` and columns
``j*sw .. j*sw + kw - 1``.  Its gradient goes to the *first* element of
each window equal to the window's maximum, row-major: MXNet's rule for
ties (a window of zeros after a relu sends ``dy`` to its top-left
element).  The window's size is built into each compiled loop (one per
``kh x kw``, made on first use), so the compiler unrolls the window:
LeNet's 2x2 pooling ran 3 times faster than with the size as an
argument.
"""

import math

from .host_jit import Loop

__all__ = [
    'col2im_2d',
    'shifted_sum',
    'fill_shifted',
    'max_pool_2d',
    'max_pool_2d_grad',
    'sum_pool_2d',
    'spread_2d',
    'relu_grad',
    'sigmoid_grad',
    'tanh_grad',
    'sgd_update',
    'sgd_mom_update',
    'adam_update',
]

_LOOPS = {}  # (name, kh, kw) -> Loop


def _made(name, kh, kw, make):
    loop = _LOOPS.get((name, kh, kw))
    if loop is None:
        loop = _LOOPS[name, kh, kw] = Loop(make(kh, kw))
    return loop


def max_pool_2d(kh, kw):
    """The loop ``(x_pad, y, sh, sw, start, stop)`` that writes
    ``y[n, c, i, j] = max over a < kh, b < kw of
    x_pad[n, c, i*sh + a, j*sw + b]`` for images ``start..stop-1``."""
    return _made('max_pool_2d', kh, kw, _window_reduction('max'))


def _window_reduction(how):
    """The loop maker for a reduction over each window, ``'max'`` or
    ``'sum'`` (``how`` is a constant of the compiled loop: the other
    branch is compiled away)."""
    summing = how == 'sum'

    def make(kh, kw):
        def pool_2d(x_pad, y, sh, sw, start, stop):
            channels, rows, cols = y.shape[1], y.shape[2], y.shape[3]
            for n in range(start, stop):
                for c in range(channels):
                    for i in range(rows):
                        out = y[n, c, i]
                        for j in range(cols):
                            # the window's first element, then the others
                            # in row-major order
                            acc = x_pad[n, c, i * sh, j * sw]
                            for a in range(kh):
                                row = x_pad[n, c, i * sh + a]
                                for b in range(kw):
                                    if a > 0 or b > 0:
                                        v = row[j * sw + b]
                                        # max: a NaN that opens the window
                                        # stays, any other is passed over
                                        # (what pool.py's _max_keys needs)
                                        acc = (
                                            acc + v
                                            if summing
                                            else (v if v > acc else acc)
                                        )
                            out[j] = acc

        pool_2d.__name__ = f'{how}_pool_2d'
        return pool_2d

    return make


def max_pool_2d_grad(kh, kw, tiles):
    """The loop ``(x_pad, y, dy, dx, sh, sw, start, stop)`` that sends
    each window's ``dy`` to its first maximum, for images
    ``start..stop-1``.

    ``tiles``: the windows tile the input (stride = kernel), so every
    element of a window is *written*, ``dy`` at the first maximum and 0
    elsewhere, and ``dx`` needs no zero fill (rows and columns past the
    last window are the caller's).  Otherwise ``dy`` is *added* onto the
    first maximum of ``dx``, zero-filled by the caller, since
    overlapping windows may choose one element several times.
    """
    if tiles:
        return _made('max_pool_2d_grad_tiles', kh, kw, _grad_tiles)
    return _made('max_pool_2d_grad_add', kh, kw, _grad_add)


def _grad_tiles(kh, kw):
    def max_pool_2d_grad_tiles(x_pad, y, dy, dx, sh, sw, start, stop):
        channels, rows, cols = y.shape[1], y.shape[2], y.shape[3]
        for n in range(start, stop):
            for c in range(channels):
                for i in range(rows):
                    for j in range(cols):
                        m = y[n, c, i, j]
                        g = dy[n, c, i, j]
                        found = False
                        for a in range(kh):
                            row = x_pad[n, c, i * sh + a]
                            out = dx[n, c, i * sh + a]
                            for b in range(kw):
                                # no branches: which element is the
                                # maximum is unpredictable, a select is not
                                hit = (row[j * sw + b] == m) & (not found)
                                out[j * sw + b] = g if hit else 0.0
                                found = found | hit

    return max_pool_2d_grad_tiles


def _grad_add(kh, kw):
    def max_pool_2d_grad_add(x_pad, y, dy, dx, sh, sw, start, stop):
        channels, rows, cols = y.shape[1], y.shape[2], y.shape[3]
        for n in range(start, stop):
            for c in range(channels):
                for i in range(rows):
                    for j in range(cols):
                        m = y[n, c, i, j]
                        found = False
                        first_a, first_b = 0, 0
                        for a in range(kh):
                            row = x_pad[n, c, i * sh + a]
                            for b in range(kw):
                                # selects, not branches (see above)
                                hit = (row[j * sw + b] == m) & (not found)
                                first_a = a if hit else first_a
                                first_b = b if hit else first_b
                                found = found | hit
                        at = (i * sh + first_a, j * sw + first_b)
                        dx[n, c][at] += dy[n, c, i, j]

    return max_pool_2d_grad_add


def sum_pool_2d(kh, kw):
    """The loop ``(x_pad, y, sh, sw, start, stop)`` that writes each
    window's sum, adding its elements row-major, the order of the NumPy
    code (average pooling divides afterwards)."""
    return _made('sum_pool_2d', kh, kw, _window_reduction('sum'))


def spread_2d(kh, kw):
    """The loop ``(dy, dx, start, stop)`` that writes each window's
    ``dy`` on every element of the window (the gradient of sum pooling
    whose windows tile the input)."""
    return _made('spread_2d', kh, kw, _spread_2d)


def _spread_2d(kh, kw):
    def spread_2d(dy, dx, start, stop):
        channels, rows, cols = dy.shape[1], dy.shape[2], dy.shape[3]
        for n in range(start, stop):
            for c in range(channels):
                for i in range(rows):
                    g = dy[n, c, i]
                    for a in range(kh):
                        row = dx[n, c, i * kh + a]
                        for j in range(cols):
                            for b in range(kw):
                                row[j * kw + b] = g[j]

    return spread_2d


def shifted_sum(kw):
    """The loop ``(p, bias, out, has_bias, start, stop)`` that adds the
    ``kw`` shifted column blocks of a whole-row convolution's product
    (``conv_wide_rows.py``) for images ``start..stop-1``::

        out[n, f, i, j] = p[n, 0, f, i, j] + p[n, 1, f, i, j + 1] + ...
                          + p[n, kw-1, f, i, j + kw-1]  (+ bias[f])

    in that order, the order of the NumPy passes it replaces (one pass
    over ``out`` per term, each along rows as short as the output's)."""
    return _made('shifted_sum', kw, 1, _shifted_sum)


def _shifted_sum(kw, _):
    def shifted_sum(p, bias, out, has_bias, start, stop):
        filters, rows, cols = out.shape[1], out.shape[2], out.shape[3]
        for n in range(start, stop):
            for f in range(filters):
                for i in range(rows):
                    row = out[n, f, i]
                    for j in range(cols):
                        acc = p[n, 0, f, i, j] + p[n, 1, f, i, j + 1]
                        for k in range(2, kw):
                            acc += p[n, k, f, i, j + k]
                        row[j] = acc + bias[f] if has_bias else acc

    return shifted_sum


def _col2im_2d(dcols, dx_pad, sh, sw, dh, dw, start, stop):
    """col2im: each window's column of ``dcols`` ``(N, C, KH, KW, Ho,
    Wo)`` added back onto the padded input's gradient ``dx_pad``, images
    ``start..stop-1`` of both::

        dx_pad[n, c, i*sh + a*dh, j*sw + b*dw] += dcols[n, c, a, b, i, j]

    kernel offsets ``(a, b)`` in row-major order, as the NumPy
    slice-adds it replaces add them."""
    channels, kh, kw = dcols.shape[1], dcols.shape[2], dcols.shape[3]
    rows, cols = dcols.shape[4], dcols.shape[5]
    for n in range(start, stop):
        for c in range(channels):
            for a in range(kh):
                for b in range(kw):
                    for i in range(rows):
                        source = dcols[n, c, a, b, i]
                        target = dx_pad[n, c, i * sh + a * dh]
                        for j in range(cols):
                            target[j * sw + b * dw] += source[j]


col2im_2d = Loop(_col2im_2d)


def _fill_shifted(buffer, dy, start, stop):
    """``buffer[n, k, :, :, k : k + Wo] = dy[n]`` for every ``k`` and the
    images ``start..stop-1``: the shifted copies of ``dy`` of a whole-row
    convolution's gradients (``conv_wide_rows.py``; the columns outside
    the copies are never written, so they stay as the caller made them)."""
    shifts, filters, rows, cols = (
        buffer.shape[1],
        dy.shape[1],
        dy.shape[2],
        dy.shape[3],
    )
    for n in range(start, stop):
        for k in range(shifts):
            for f in range(filters):
                for i in range(rows):
                    source, target = dy[n, f, i], buffer[n, k, f, i]
                    for j in range(cols):
                        target[k + j] = source[j]


fill_shifted = Loop(_fill_shifted)


def _relu_grad(dy, y, dx, start, stop):
    """``dx = dy * (y > 0)`` over the flat elements ``start..stop-1``:
    ``dy`` where ``y > 0``, else ``dy * 0`` (``-0.0`` for a negative
    ``dy``, NaN for a NaN, as NumPy's product gives)."""
    # local views: their lengths are known, so the loop vectorises
    grad, out, mask = dy[start:stop], dx[start:stop], y[start:stop]
    for k in range(grad.shape[0]):
        out[k] = grad[k] if mask[k] > 0 else grad[k] * 0


relu_grad = Loop(_relu_grad)


def _sigmoid_grad(dy, y, dx, start, stop):
    """``dx = dy * (y * (1 - y))`` over the flat elements
    ``start..stop-1``, the operations of the NumPy passes in their order
    and in ``y``'s dtype (one pass instead of three)."""
    one = y.dtype.type(1)  # in y's dtype: a literal 1 would be float64
    grad, out, out_y = dy[start:stop], dx[start:stop], y[start:stop]
    for k in range(grad.shape[0]):
        out[k] = grad[k] * (out_y[k] * (one - out_y[k]))


sigmoid_grad = Loop(_sigmoid_grad)


def _tanh_grad(dy, y, dx, start, stop):
    """``dx = dy * (1 - y * y)`` over the flat elements ``start..stop-1``
    (one pass instead of three; see :func:`_sigmoid_grad`)."""
    one = y.dtype.type(1)
    grad, out, out_y = dy[start:stop], dx[start:stop], y[start:stop]
    for k in range(grad.shape[0]):
        out[k] = grad[k] * (one - out_y[k] * out_y[k])


tanh_grad = Loop(_tanh_grad)


# -- SGD's updates (``update_rules/sgd.py``) ---------------------------------
# The settings arrive as scalars of the weight's dtype (``kernels.py`` casts
# them as ``as_t`` does for the NumPy twins), so every product rounds as in
# the twins' array operations: one pass over the weight (and momentum)
# instead of three or four.  ``lr * g'`` is ``(lr * rescale_grad) * grad``
# when nothing is clipped (a negative bound), else ``lr * clip(rescale_grad
# * grad)`` (``update_rules.sgd._scaled``; NaN stays NaN, as np.clip).


def _sgd_update(
    grad, lr, wd, rescale_grad, clip_gradient, weight, start, stop
):
    """``weight = (1 - lr*wd) * weight - lr * g'`` over the flat elements
    ``start..stop-1`` (``update_rules.sgd._sgd_steps``, in its order)."""
    grads, weights = grad[start:stop], weight[start:stop]
    decay = weight.dtype.type(1) - lr * wd
    lr_rescale, bound = lr * rescale_grad, clip_gradient
    for k in range(grads.shape[0]):
        w = weights[k] * decay if wd != 0 else weights[k]
        g = rescale_grad * grads[k]
        step = (
            lr_rescale * grads[k]
            if bound < 0
            else lr * min(max(g, -bound), bound)
        )
        weights[k] = w - step


sgd_update = Loop(_sgd_update)


def _sgd_mom_update(
    grad,
    lr,
    wd,
    momentum,
    rescale_grad,
    clip_gradient,
    weight,
    mom,
    start,
    stop,
):
    """``mom = momentum*mom - lr*wd*weight - lr*g'``; ``weight += mom``
    over the flat elements ``start..stop-1``
    (``update_rules.sgd._sgd_mom_steps``, in its order)."""
    grads, weights, moms = (
        grad[start:stop],
        weight[start:stop],
        mom[start:stop],
    )
    lr_wd = lr * wd
    lr_rescale, bound = lr * rescale_grad, clip_gradient
    for k in range(grads.shape[0]):
        m = moms[k] * momentum
        if wd != 0:
            m = m - lr_wd * weights[k]
        g = rescale_grad * grads[k]
        step = (
            lr_rescale * grads[k]
            if bound < 0
            else lr * min(max(g, -bound), bound)
        )
        moms[k] = m - step
        weights[k] = weights[k] + moms[k]


sgd_mom_update = Loop(_sgd_mom_update)


def _adam_update(
    grad,
    lr,
    wd,
    beta1,
    beta2,
    epsilon,
    rescale_grad,
    clip_gradient,
    weight,
    mean,
    var,
    start,
    stop,
):
    """Adam over the flat elements ``start..stop-1``, as
    ``update_rules.adam._adam_steps`` computes it, in its order::

        g = clip(rescale_grad * grad + wd * weight)
        mean = mean * beta1 + (1 - beta1) * g
        var = var * beta2 + (g * (1 - beta2)) * g
        weight -= (lr * mean) / (sqrt(var) + epsilon)

    (one pass over weight and moments instead of about ten)."""
    grads, weights = grad[start:stop], weight[start:stop]
    means, variances = mean[start:stop], var[start:stop]
    one = weight.dtype.type(1)
    one_minus_beta1, one_minus_beta2 = one - beta1, one - beta2
    bound = clip_gradient
    for k in range(grads.shape[0]):
        g = rescale_grad * grads[k]
        if wd != 0:
            g = g + wd * weights[k]
        if bound >= 0:
            g = min(max(g, -bound), bound)
        m = means[k] * beta1 + one_minus_beta1 * g
        v = variances[k] * beta2 + (g * one_minus_beta2) * g
        means[k] = m
        variances[k] = v
        weights[k] = weights[k] - (lr * m) / (math.sqrt(v) + epsilon)


adam_update = Loop(_adam_update)
