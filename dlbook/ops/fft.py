"""Operators: ``contrib.fft``, ``contrib.ifft`` and ``contrib.count_sketch``.

MXNet has no complex dtype, so its FFTs store a complex number as two
neighbouring reals, ``[re0, im0, re1, im1, ...]``: ``fft`` turns a real
``(N, d)`` array into ``(N, 2d)``, and ``ifft`` reads ``(N, 2d)`` and
returns the real part, ``(N, d)``.  The transform runs along the last
axis of 2-D ``(N, d)`` or 4-D ``(N1, N2, N3, d)`` data (the two shapes
MXNet accepts).  MXNet's ``ifft`` is *not* normalized (it leaves out the
``1/d`` of the textbook inverse, following Caffe), so
``ifft(fft(x)) = d * x``.

``count_sketch`` projects vectors to a lower dimension with a random hash
(the compact bilinear pooling of Gao et al., 2016, which multiplies two
sketches with these FFTs).

MXNet implements all three for GPUs only (cuFFT); these run on both.
References: src/operator/contrib/fft-inl.h, ifft-inl.h,
count_sketch-inl.h.
"""

from ..base import DLBookError
from .op import Op, register

__all__ = ['FFT', 'IFFT', 'CountSketch']


def _check(name, x, even=False):
    if x.ndim not in (2, 4) or (even and x.shape[-1] % 2):
        need = ' with an even last axis' if even else ''
        raise DLBookError(
            f'{name}: data must be 2-D (N, d) or 4-D (N1, N2, N3, d)'
            f'{need}, got shape {x.shape}'
        )


def _interleave(xp, z, dtype):
    """complex (..., d) -> real (..., 2d) [re0, im0, re1, im1, ...]."""
    out = xp.stack([z.real, z.imag], axis=-1)
    return out.reshape(z.shape[:-1] + (2 * z.shape[-1],)).astype(dtype)


def _complex(x):
    """real (..., 2d) interleaved -> complex (..., d)."""
    return x[..., 0::2] + 1j * x[..., 1::2]


@register('_contrib_fft')
class FFT(Op):
    """y = the discrete Fourier transform of each row, interleaved::

        Y_k = sum_n x_n exp(-2 pi i k n / d),  y = [Re Y_0, Im Y_0, ...]

    dx_n = sum_k dRe_k cos(2 pi k n / d) - dIm_k sin(2 pi k n / d)
         = Re(d * ifft(dRe + i dIm))_n  (the unnormalized inverse DFT).
    ``compute_size`` (MXNet's batch size for cuFFT) changes nothing here.
    """

    defaults = {'compute_size': 128}

    def forward(self, xp, x):
        _check('fft', x)
        return _interleave(xp, xp.fft.fft(x, axis=-1), x.dtype)

    def backward(self, xp, dy):
        z = _complex(dy)
        d = z.shape[-1]
        return (xp.fft.ifft(z, axis=-1).real * d).astype(dy.dtype)


@register('_contrib_ifft')
class IFFT(Op):
    """y = the real part of the unnormalized inverse DFT of each row of
    interleaved complex numbers x = [a_0, b_0, a_1, b_1, ...]::

        y_n = Re sum_k (a_k + i b_k) exp(2 pi i k n / d)
            = sum_k a_k cos(2 pi k n / d) - b_k sin(2 pi k n / d)

    (no 1/d);  (da_k + i db_k) = sum_n dy_n exp(-2 pi i k n / d), the
    forward DFT of dy, interleaved.
    """

    defaults = {'compute_size': 128}

    def forward(self, xp, x):
        _check('ifft', x, even=True)
        z = _complex(x)
        y = xp.fft.ifft(z, axis=-1).real * z.shape[-1]
        return y.astype(x.dtype)

    def backward(self, xp, dy):
        return _interleave(xp, xp.fft.fft(dy, axis=-1), dy.dtype)


@register('_contrib_count_sketch')
class CountSketch(Op):
    """y[n, j] = sum over i with h[i] = j of s[i] * x[n, i]

    Each input coordinate ``i`` is added, with sign ``s[i]`` (+1 or -1),
    into output bucket ``h[i]`` of ``out_dim`` buckets: y = x @ M with
    ``M[i, j] = s[i] * (h[i] == j)``.  dx = dy @ M^T, i.e.
    ``dx[n, i] = s[i] * dy[n, h[i]]``; h and s (hashes, fixed) get no
    gradient.  data (N, d) (or (..., d)), h and s hold d values each
    (MXNet's shape: (1, d)).  ``processing_batch_size`` changes nothing.
    """

    arguments = ('data', 'h', 's')
    defaults = {'out_dim': None, 'processing_batch_size': 32}

    def infer_shape(self, *in_shapes):
        data = in_shapes[0]
        if data is None or self.attrs['out_dim'] is None:
            return list(in_shapes), [None], []
        hash_shape = (1, int(data[-1]))
        out = tuple(data[:-1]) + (int(self.attrs['out_dim']),)
        return [tuple(data), hash_shape, hash_shape], [out], []

    def forward(self, xp, x, h, s):
        out_dim = self.attrs['out_dim']
        d = x.shape[-1] if x.ndim else 0
        if out_dim is None or int(out_dim) < 1:
            raise DLBookError('count_sketch: out_dim (>= 1) is required')
        if h.size != d or s.size != d:
            raise DLBookError(
                f'count_sketch: h {h.shape} and s {s.shape} must hold one '
                f'value per input coordinate ({d}, from data {x.shape})'
            )
        buckets = h.reshape(-1).astype('int64')
        if d and (
            int(buckets.min()) < 0 or int(buckets.max()) >= int(out_dim)
        ):
            raise DLBookError(
                f'count_sketch: h must lie in [0, out_dim={out_dim})'
            )
        hits = buckets[:, None] == xp.arange(int(out_dim))
        sketch = (s.reshape(-1, 1) * hits).astype(x.dtype)
        self.saved = (sketch,)
        return xp.matmul(x, sketch)

    def backward(self, xp, dy):
        (sketch,) = self.saved
        return xp.matmul(dy, sketch.T), None, None
