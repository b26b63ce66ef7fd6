"""Operator: LRN, local response normalization (AlexNet, 2012).

As in MXNet 1.x (src/operator/nn/lrn-inl.h).  Where the other
normalizations subtract a mean and divide by a standard deviation, LRN
divides each activation by a power of a local sum of squares over the
neighbouring channels at the same pixel, with no learnt parameters: a
channel that responds strongly damps its neighbours.
"""

from ..base import DLBookError
from .op import Op, register

__all__ = ['LRN']


def _channel_window_sum(xp, a, nsize):
    """``s[:, c] = sum of a[:, j] for |j - c| <= nsize // 2``, channels
    beyond the edges counting as zero (MXNet's ``chpool<sum>``).

    One shifted slice of a zero-padded copy per window offset: a loop of
    ``nsize`` whole-array additions, not a loop over pixels.
    """
    half, channels = nsize // 2, a.shape[1]
    padded = xp.zeros(
        (a.shape[0], channels + 2 * half) + a.shape[2:], dtype=a.dtype
    )
    padded[:, half : half + channels] = a
    total = padded[:, :channels].copy()
    for offset in range(1, nsize):
        total += padded[:, offset : offset + channels]
    return total


@register('LRN')
class LRN(Op):
    """Local response normalization across channels (AlexNet, 2012).

    For each sample and pixel, with the window W(c) = {j : |j - c| <=
    nsize // 2} of neighbouring channels (clipped at the edges):

    n_c = knorm + alpha / nsize * sum_{j in W(c)} x_j^2
    y_c = x_c * n_c^(-beta)
    dx_c = dy_c * n_c^(-beta)
           - 2 * beta * alpha / nsize * x_c
             * sum_{j in W(c)} dy_j * x_j * n_j^(-beta - 1)

    MXNet scales ``alpha`` by ``1 / nsize`` (as Caffe does); ``nsize``
    must be odd and the input 4-D ``(batch, channel, height, width)``.
    """

    defaults = {'alpha': 1e-4, 'beta': 0.75, 'knorm': 2.0, 'nsize': None}

    def forward(self, xp, x):
        nsize = self.attrs['nsize']
        if nsize is None:
            raise DLBookError(
                'LRN: the window width nsize is required, '
                'e.g. nd.LRN(x, nsize=5)'
            )
        nsize = int(nsize)
        if nsize < 1 or nsize % 2 == 0:
            raise DLBookError(
                f'LRN only supports odd values for '
                f'local_size (nsize), got {nsize}'
            )
        if x.ndim != 4:
            raise DLBookError(
                f'LRN: data must be 4-D (batch, channel, '
                f'height, width), got shape {x.shape}'
            )
        scale = float(self.attrs['alpha']) / nsize
        beta = float(self.attrs['beta'])
        norm = float(self.attrs['knorm']) + scale * _channel_window_sum(
            xp, x * x, nsize
        )
        factor = norm**-beta
        self.saved = (x, norm, factor, nsize, scale, beta)
        return x * factor

    def backward(self, xp, dy):
        x, norm, factor, nsize, scale, beta = self.saved
        # the window is symmetric: c is in W(j) exactly when j is in W(c)
        through_norm = _channel_window_sum(xp, dy * x * factor / norm, nsize)
        return dy * factor - (2 * beta * scale) * x * through_norm
