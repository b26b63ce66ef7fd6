"""Branch containers and pixel shuffling.

* :class:`Concurrent` / :class:`HybridConcurrent` run every child on the
  same input and concatenate the outputs (an Inception module, a DenseNet
  layer); :class:`Identity` is the branch that passes the input through.
* ``PixelShuffle1D/2D/3D`` trade channels for resolution: ``f**d``
  channels of one pixel become an ``f x ... x f`` block of pixels of one
  channel.  It upsamples without the checkerboard artefacts of strided
  transposed convolutions (Shi et al., 2016, "Real-Time Single Image and
  Video Super-Resolution Using an Efficient Sub-Pixel Convolutional
  Neural Network").
"""

__all__ = [
    'Concurrent',
    'HybridConcurrent',
    'Identity',
    'PixelShuffle1D',
    'PixelShuffle2D',
    'PixelShuffle3D',
    'SparseEmbedding',
    'SyncBatchNorm',
]

from .... import ndarray as _nd
from ... import nn
from ...block import Block, HybridBlock
from ...model_zoo.custom_layers import HybridConcurrent, Identity


class Concurrent(nn.Sequential):
    """Run every child on the same input and concatenate the outputs
    (the non-hybridizable :class:`HybridConcurrent`).

    ``y = concat(child_0(x), child_1(x), ..., dim=axis)``

    Parameters
    ----------
    axis : int, default -1
        Axis along which the outputs are joined (1: channels of NCHW).
    """

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def forward(self, x):
        from .... import ndarray as nd

        out = [block(x) for block in self._children.values()]
        return nd.concat(*out, dim=self.axis)


def _factors(factor, count, name):
    try:
        return (int(factor),) * count
    except TypeError:
        factors = tuple(int(f) for f in factor)
        if len(factors) != count:
            raise ValueError(
                f'{name}: wrong length {len(factors)} of '
                f'factor {factor}, expected {count}'
            ) from None
        return factors


class PixelShuffle1D(HybridBlock):
    r"""Pixel shuffle for 1-D signals: ``(N, f*C, W) -> (N, C, W*f)``.

    .. math:: y[n, c, w f + i] = x[n, c f + i, w]

    Parameters
    ----------
    factor : int
        Upsampling factor ``f``; the input channels must be a multiple.
    """

    def __init__(self, factor):
        super().__init__()
        self._factor = int(factor)

    def hybrid_forward(self, F, x):
        f = self._factor
        x = F.reshape(x, (0, -4, -1, f, 0))  # (N, C, f, W)
        x = F.transpose(x, (0, 1, 3, 2))  # (N, C, W, f)
        return F.reshape(x, (0, 0, -3))  # (N, C, W*f)

    def __repr__(self):
        return f'{type(self).__name__}({self._factor})'


class PixelShuffle2D(HybridBlock):
    r"""Pixel shuffle for images: ``(N, f1*f2*C, H, W) -> (N, C, H*f1,
    W*f2)``.

    .. math:: y[n, c, h f_1 + i, w f_2 + j] = x[n, (c f_1 + i) f_2 + j, h, w]

    Parameters
    ----------
    factor : int or (int, int)
        Upsampling factors ``(f1, f2)`` (one int: the same on both axes).
    """

    def __init__(self, factor):
        super().__init__()
        self._factors = _factors(factor, 2, type(self).__name__)

    def hybrid_forward(self, F, x):
        f1, f2 = self._factors
        x = F.reshape(x, (0, -4, -1, f1 * f2, 0, 0))  # (N, C, f1*f2, H, W)
        x = F.reshape(x, (0, 0, -4, f1, f2, 0, 0))  # (N, C, f1, f2, H, W)
        x = F.transpose(x, (0, 1, 4, 2, 5, 3))  # (N, C, H, f1, W, f2)
        return F.reshape(x, (0, 0, -3, -3))  # (N, C, H*f1, W*f2)

    def __repr__(self):
        return f'{type(self).__name__}({self._factors})'


class PixelShuffle3D(HybridBlock):
    r"""Pixel shuffle for volumes: ``(N, f1*f2*f3*C, D, H, W) ->
    (N, C, D*f1, H*f2, W*f3)``.

    .. math:: y[n, c, d f_1 + i, h f_2 + j, w f_3 + k] =
              x[n, ((c f_1 + i) f_2 + j) f_3 + k, d, h, w]

    Parameters
    ----------
    factor : int or (int, int, int)
        Upsampling factors ``(f1, f2, f3)``.
    """

    def __init__(self, factor):
        super().__init__()
        self._factors = _factors(factor, 3, type(self).__name__)

    def hybrid_forward(self, F, x):
        f1, f2, f3 = self._factors
        # (N, C, f1, f2, f3, D, H, W), then interleave each factor with
        # its spatial axis
        x = F.reshape(x, (0, -4, -1, f1 * f2 * f3, 0, 0, 0))
        x = F.reshape(x, (0, 0, -4, f1, f2 * f3, 0, 0, 0))
        x = F.reshape(x, (0, 0, 0, -4, f2, f3, 0, 0, 0))
        x = F.transpose(x, (0, 1, 5, 2, 6, 3, 7, 4))  # (N, C, D, f1, H, f2,
        return F.reshape(x, (0, 0, -3, -3, -3))  # W, f3) -> merged

    def __repr__(self):
        return f'{type(self).__name__}({self._factors})'


class SyncBatchNorm(nn.BatchNorm):
    r"""Cross-device batch normalization (Zhang et al., 2018, "Context
    Encoding for Semantic Segmentation").

    Data-parallel training splits a batch over ``num_devices`` devices;
    plain BatchNorm then normalizes each device's slice by its own
    statistics.  SyncBatchNorm takes the mean and variance of the whole
    batch (the devices exchange their sums), which matters when each
    device holds only a few examples.  The layer is :class:`BatchNorm`
    over axis 1 running ``nd.contrib.SyncBatchNorm`` with ``ndev`` and
    its prefix as ``key``.  dlbook runs a step on one device, so
    ``num_devices`` must be 1 (or None, which means 1 here): the
    statistics of that device's batch, exactly BatchNorm's.

    Parameters
    ----------
    in_channels : int, default 0
    num_devices : int or None, default None
    momentum, epsilon, center, scale, use_global_stats, beta_initializer,
    gamma_initializer, running_mean_initializer,
    running_variance_initializer : as :class:`BatchNorm`.
    """

    def __init__(
        self,
        in_channels=0,
        num_devices=None,
        momentum=0.9,
        epsilon=1e-5,
        center=True,
        scale=True,
        use_global_stats=False,
        beta_initializer='zeros',
        gamma_initializer='ones',
        running_mean_initializer='zeros',
        running_variance_initializer='ones',
        **kwargs,
    ):
        super().__init__(
            1,
            momentum,
            epsilon,
            center,
            scale,
            use_global_stats,
            beta_initializer,
            gamma_initializer,
            running_mean_initializer,
            running_variance_initializer,
            in_channels,
            **kwargs,
        )
        self._kwargs = {
            'eps': epsilon,
            'momentum': momentum,
            'fix_gamma': not scale,
            'use_global_stats': use_global_stats,
            'ndev': 1 if num_devices is None else num_devices,
            'key': self.prefix,
        }

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        return F.contrib.SyncBatchNorm(
            x,
            gamma,
            beta,
            running_mean,
            running_var,
            name='fwd',
            **self._kwargs,
        )


class SparseEmbedding(Block):
    """An embedding whose weight and gradient are both ``row_sparse``
    (MXNet 1.9.1's ``gluon.contrib.nn.SparseEmbedding``): the forward pass
    reads only the rows ``x`` names (``weight.row_sparse_data(x)``).
    """

    def __init__(
        self,
        input_dim,
        output_dim,
        dtype='float32',
        weight_initializer=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self._kwargs = {
            'input_dim': input_dim,
            'output_dim': output_dim,
            'dtype': dtype,
            'sparse_grad': True,
        }
        self.weight = self.params.get(
            'weight',
            shape=(input_dim, output_dim),
            init=weight_initializer,
            dtype=dtype,
            grad_stype='row_sparse',
            stype='row_sparse',
        )

    def forward(self, x):
        weight = self.weight.row_sparse_data(x)
        return _nd.Embedding(x, weight, name='fwd', **self._kwargs)

    def __repr__(self):
        s = '{block_name}({input_dim} -> {output_dim}, {dtype})'
        return s.format(block_name=self.__class__.__name__, **self._kwargs)
