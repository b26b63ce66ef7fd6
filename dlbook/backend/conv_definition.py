"""A convolution by its definition, one kernel position at a time.

cuDNN's results are checked against it before a dtype's first use
(``cudnn.py``), and :func:`definition_calls` stands in for cuDNN's three
calls where there is no cuDNN (the tests of the operators' cuDNN path,
and ``benchmarks/bench_gpu_calls.py``).  Written with ``xp``, so it runs
on NumPy, CuPy and the fake CuPy alike.
"""

from contextlib import nullcontext

__all__ = ['reference_conv', 'definition_calls']


def _windows(x_pad, tap, stride, dilate, out_size):
    """The strided view of ``x_pad`` that kernel position ``tap`` reads at
    every output position."""
    return x_pad[
        (slice(None), slice(None))
        + tuple(
            slice(t * d, t * d + (o - 1) * s + 1, s)
            for t, s, d, o in zip(tap, stride, dilate, out_size)
        )
    ]


def reference_conv(xp, x, w, dy, stride, pad, dilate, groups=1):
    """The definition, one kernel position at a time:

    ``y[n, f, o] = sum_{c,k} w[f, c, k] * x_pad[n, c, o*s + k*d]``,
    ``dx_pad[n, c, o*s + k*d] += sum_f dy[n, f, o] * w[f, c, k]``,
    ``dw[f, c, k] = sum_{n,o} dy[n, f, o] * x_pad[n, c, o*s + k*d]``,

    with ``groups``, each group of channels on its own.  Returns ``(y,
    dx, dw)``; ``dy`` has ``y``'s shape.
    """
    if groups > 1:
        cg, fg = x.shape[1] // groups, w.shape[0] // groups
        parts = [
            reference_conv(
                xp,
                x[:, g * cg : (g + 1) * cg],
                w[g * fg : (g + 1) * fg],
                dy[:, g * fg : (g + 1) * fg],
                stride,
                pad,
                dilate,
            )
            for g in range(groups)
        ]
        y, dx, dw = zip(*parts)
        return (
            xp.concatenate(y, axis=1),
            xp.concatenate(dx, axis=1),
            xp.concatenate(dw, axis=0),
        )
    kernel = w.shape[2:]
    x_pad = xp.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    out_size = dy.shape[2:]
    y = xp.zeros(dy.shape, dtype=x.dtype)
    dx_pad = xp.zeros(x_pad.shape, dtype=x.dtype)
    dw = xp.zeros(w.shape, dtype=x.dtype)
    spatial = tuple(range(2, 2 + len(kernel)))
    for tap in _taps(kernel):
        view = _windows(x_pad, tap, stride, dilate, out_size)
        w_tap = w[(slice(None), slice(None)) + tap]  # (F, C)
        y += xp.moveaxis(xp.tensordot(view, w_tap, axes=([1], [1])), -1, 1)
        target = _windows(dx_pad, tap, stride, dilate, out_size)
        target += xp.moveaxis(xp.tensordot(dy, w_tap, axes=([1], [0])), -1, 1)
        dw[(slice(None), slice(None)) + tap] = xp.tensordot(
            dy, view, axes=([0] + list(spatial), [0] + list(spatial))
        )
    crop = tuple(slice(p, p + n) for p, n in zip(pad, x.shape[2:]))
    return y, dx_pad[(slice(None), slice(None)) + crop], dw


def definition_calls(around=None):
    """``forward``, ``backward_data`` and ``backward_filter`` computed by
    :func:`reference_conv`, with this module's signatures: what the
    operators see of cuDNN, on machines without it (the tests of the
    operators' cuDNN path; ``benchmarks/bench_gpu_calls.py``, which counts
    a step's device calls as if cuDNN ran its convolutions).

    As the real calls, each makes its inputs contiguous and allocates
    its output with ``xp``; the computation itself runs inside
    ``around(kind)`` (a context manager) when given.
    """

    def call(kind, which):
        def run(xp, a, b, shape, stride, pad, dilate, groups, mb=1024):
            a, b = xp.ascontiguousarray(a), xp.ascontiguousarray(b)
            out = xp.empty(shape, dtype=a.dtype)
            with around(kind) if around else nullcontext():
                zeros = xp.zeros(shape, dtype=a.dtype)
                # the array not given is zeros of its shape (the forward's
                # dy only gives the output's shape)
                x, w, dy = {
                    'Forward': (a, b, zeros),
                    'BackwardData': (zeros, b, a),
                    'BackwardFilter': (a, zeros, b),
                }[kind]
                got = reference_conv(xp, x, w, dy, stride, pad, dilate, groups)
                out[...] = got[which]
            return out

        return run

    return (
        call('Forward', 0),
        call('BackwardData', 1),
        call('BackwardFilter', 2),
    )


def _taps(kernel):
    taps = [()]
    for k in kernel:
        taps = [t + (i,) for t in taps for i in range(k)]
    return taps
