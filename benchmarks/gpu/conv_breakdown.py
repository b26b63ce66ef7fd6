"""Where a GPU convolution's time goes: its steps timed one by one.

For a few ResNet-18 layer shapes this times, each between two device
synchronisations (median of ``--repeat`` calls), the steps of dlbook's
convolution on ``gpu(0)`` and some alternatives, next to PyTorch's
cuDNN convolution on the same GPU (float32, TF32 off):

* ``op fwd+bwd``: ``nd.Convolution`` forward and backward as a user runs it
  (on cuDNN where dlbook finds it), and ``op fwd+bwd, DLBOOK_CUDNN=0`` the
  same with im2col + cuBLAS, whose steps follow;
* ``im2col``: the window copy into ``(N, C*K, P)``; ``im2col last``: the
  channels-last rows ``(N*P, K*C)`` (padding included);
* ``gemm fwd``: the batched product ``(F, CK) @ (CK, P)`` per image, and
  ``gemm fwd one``: the same as one product of the channels-last rows;
* ``wgrad batched``: ``sum_n dy[n] @ cols[n]^T`` as a batched product and
  a sum; ``wgrad one``: one product ``(F, N*P) @ (N*P, CK)`` after the
  copies that layout needs;
* ``dgrad gemm`` and ``col2im``: the data gradient's product and the
  kernel that adds the windows back.

Run from the repository root: ``python benchmarks/gpu/conv_breakdown.py``.
"""

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.getcwd())

from workloads import conv_step, without_cudnn  # noqa: E402

import dlbook as mx  # noqa: E402
from dlbook import nd  # noqa: E402
from dlbook.backend import cudnn  # noqa: E402
from dlbook.ops import conv_fast  # noqa: E402
from dlbook.ops.col2im import col2im_2d  # noqa: E402
from dlbook.ops.windows import pad_spatial  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

CTX = mx.gpu(0)

#: (batch, in channels, size, out channels, kernel, stride)
SHAPES = [
    (32, 64, 56, 64, 3, 1),
    (32, 3, 224, 64, 7, 2),
    (32, 128, 28, 128, 3, 1),
    (128, 64, 8, 64, 3, 1),
]


def timed(fn, repeat):
    fn()
    nd.waitall()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        nd.waitall()
        if torch is not None and torch.cuda.is_available():
            torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def breakdown(shape, repeat, smoke):
    n, c, size, f, k, s = shape
    if smoke:
        n, c, size, f = 2, min(c, 4), min(size, 12), min(f, 4)
    xp = CTX.xp
    pad = (k // 2, k // 2)
    step = conv_step(CTX, c, f, size, k, s, n)
    rows = {'op fwd+bwd': timed(step, repeat)}
    if cudnn.usable(xp, 'float32'):  # the op above ran on cuDNN
        with without_cudnn():
            rows['op fwd+bwd, DLBOOK_CUDNN=0'] = timed(step, repeat)
    xr = nd.random.uniform(shape=(n, c, size, size), ctx=CTX)._data
    wr = nd.random.uniform(shape=(f, c, k, k), ctx=CTX)._data
    out = (size + 2 * pad[0] - k) // s + 1
    out_size = (out, out)
    kernel, stride, dilate = (k, k), (s, s), (1, 1)
    x_pad = pad_spatial(xp, xr, pad)
    view = conv_fast.window_rows(xp, x_pad, kernel, stride, dilate, out_size)
    cols = xp.empty((n, 1, c * k * k, out * out), dtype=xr.dtype)

    def im2col():
        cols.reshape(view.shape)[...] = view

    rows['pad'] = timed(lambda: pad_spatial(xp, xr, pad), repeat)
    rows['im2col'] = timed(im2col, repeat)
    rows_view = conv_fast._rows_view(
        xp, xr, kernel, stride, dilate, out_size, pad
    )
    rows['im2col last'] = timed(
        lambda: xp.ascontiguousarray(rows_view), repeat
    )
    w_mat = wr.reshape(1, f, -1)
    rows['gemm fwd'] = timed(lambda: xp.matmul(w_mat, cols), repeat)
    flat_rows = xp.ascontiguousarray(rows_view).reshape(n * out * out, -1)
    w_last = xp.ascontiguousarray(xp.moveaxis(wr, 1, -1)).reshape(f, -1)
    rows['gemm fwd one'] = timed(lambda: flat_rows @ w_last.T, repeat)
    dy = xp.ones((n, 1, f, out * out), dtype=xr.dtype)

    def wgrad_batched():
        xp.matmul(dy, cols.transpose(0, 1, 3, 2)).sum(axis=0)

    def wgrad_one():
        dy_f = xp.ascontiguousarray(dy[:, 0].transpose(1, 0, 2))
        cols_t = xp.ascontiguousarray(cols[:, 0].transpose(0, 2, 1))
        dy_f.reshape(f, -1) @ cols_t.reshape(-1, c * k * k)

    rows['wgrad batched'] = timed(wgrad_batched, repeat)
    rows['wgrad one'] = timed(wgrad_one, repeat)
    w_t = wr.reshape(1, f, -1).transpose(0, 2, 1)
    rows['dgrad gemm'] = timed(lambda: xp.matmul(w_t, dy), repeat)
    dcols = xp.matmul(w_t, dy)
    rows['col2im'] = timed(
        lambda: col2im_2d(
            xp,
            dcols,
            (n, c, size, size),
            kernel,
            stride,
            pad,
            dilate,
            out_size,
        ),
        repeat,
    )
    if torch is not None and torch.cuda.is_available():
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cudnn.benchmark = True
        tx = torch.rand(n, c, size, size, device='cuda', requires_grad=True)
        tw = torch.rand(f, c, k, k, device='cuda', requires_grad=True)

        def tstep():
            y = torch.nn.functional.conv2d(tx, tw, stride=s, padding=k // 2)
            y.backward(torch.ones_like(y))

        rows['torch fwd+bwd'] = timed(tstep, repeat)
    return f'{c}->{f} {size}x{size} k{k} s{s} batch {n}', rows


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--repeat', type=int, default=20)
    p.add_argument('--out', default='.')
    p.add_argument('--smoke', action='store_true')
    a = p.parse_args()
    lines = []
    for shape in SHAPES:
        name, rows = breakdown(shape, 2 if a.smoke else a.repeat, a.smoke)
        lines.append(f'## {name}')
        lines += ['| step | ms |', '| --- | --- |']
        lines += [f'| {key} | {ms:.3f} |' for key, ms in rows.items()]
        print('\n'.join(lines[-(len(rows) + 3) :]), flush=True)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, 'conv_breakdown.md'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
