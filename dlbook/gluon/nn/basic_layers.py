"""Basic layers: Dense, Dropout, normalization, Embedding, Flatten, Lambda.

Every layer declares its parameters with 0 for the sizes it cannot know
yet (``in_units``, ``in_channels``) and ``allow_deferred_init=True``; the
first forward pass fills them in from the operator's shape rule.  So a
layer holds no shape code: ``hybrid_forward`` is one or two ``F.<op>``
calls that work for ``F = nd`` and ``F = sym`` alike.  Names, defaults
and reprs follow MXNet 1.9 (python/mxnet/gluon/nn/basic_layers.py).
"""

from ... import ndarray as nd
from ..._np_state import is_np_array
from ...base import dtype_name
from ..block import Block, HybridBlock
from .activations import Activation

__all__ = [
    'Dense',
    'Dropout',
    'BatchNorm',
    'BatchNormReLU',
    'InstanceNorm',
    'LayerNorm',
    'GroupNorm',
    'Embedding',
    'Flatten',
    'Lambda',
    'HybridLambda',
]


def _kwargs_text(kwargs):
    """``'axis=1, eps=1e-05'``: MXNet's reprs list attributes this way."""
    return ', '.join(f'{key}={value!r}' for key, value in kwargs.items())


class Dense(HybridBlock):
    r"""A fully connected layer.

    ``y = act(flatten(x) @ weight.T + bias)`` with ``weight`` of shape
    ``(units, in_units)`` and ``bias`` of shape ``(units,)``.

    Parameters
    ----------
    units : int
        Size of the output (the last axis of ``y``).
    activation : str, optional
        Activation applied to the output (``'relu'``, ``'sigmoid'``...);
        none by default (a linear layer).
    use_bias : bool, default True
    flatten : bool, default True
        Fold all axes but the first into one (``(N, C, H, W)`` becomes
        ``(N, C*H*W)``); with False the layer acts on the last axis and
        every other axis is a batch axis.
    dtype : str, default 'float32'
    weight_initializer : Initializer, optional
        Defaults to the initializer given to ``initialize()``.
    bias_initializer : Initializer or str, default 'zeros'
    in_units : int, default 0
        Size of the input; 0 infers it at the first forward pass.

    Examples
    --------
    >>> layer = nn.Dense(256, activation='relu')
    >>> layer
    Dense(None -> 256, Activation(relu))
    """

    def __init__(
        self,
        units,
        activation=None,
        use_bias=True,
        flatten=True,
        dtype='float32',
        weight_initializer=None,
        bias_initializer='zeros',
        in_units=0,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self._flatten = flatten
        with self.name_scope():
            self._units = units
            self._in_units = in_units
            self.weight = self.params.get(
                'weight',
                shape=(units, in_units),
                init=weight_initializer,
                dtype=dtype,
                allow_deferred_init=True,
            )
            if use_bias:
                self.bias = self.params.get(
                    'bias',
                    shape=(units,),
                    init=bias_initializer,
                    dtype=dtype,
                    allow_deferred_init=True,
                )
            else:
                self.bias = None
            if activation is not None:
                # inside the name scope: named dense0_relu_
                self.act = Activation(activation, prefix=activation + '_')
            else:
                self.act = None

    def hybrid_forward(self, F, x, weight, bias=None):
        out = F.FullyConnected(
            x,
            weight,
            bias,
            no_bias=bias is None,
            num_hidden=self._units,
            flatten=self._flatten,
            name='fwd',
        )
        if self.act is not None:
            out = self.act(out)
        return out

    def __repr__(self):
        units, in_units = self.weight.shape
        act = self.act if self.act else 'linear'
        return (
            f'{type(self).__name__}({in_units if in_units else None} '
            f'-> {units}, {act})'
        )


class Dropout(HybridBlock):
    r"""Randomly zero inputs during training.

    In training mode (``autograd.record()`` or ``train_mode()``) each
    element is kept with probability ``1 - rate`` and scaled:
    ``y = x * mask / (1 - rate)``, ``mask ~ Bernoulli(1 - rate)``, so the
    expected value of ``y`` is ``x``.  Otherwise ``y = x``.

    Parameters
    ----------
    rate : float
        Probability of dropping an element.
    axes : tuple of int, default ()
        Axes along which one mask value is shared (variational dropout).
    """

    def __init__(self, rate, axes=(), **kwargs):
        super().__init__(**kwargs)
        self._rate = rate
        self._axes = axes

    def hybrid_forward(self, F, x):
        if self._rate > 0:
            return F.Dropout(
                x, p=self._rate, axes=self._axes, name='fwd', cudnn_off=False
            )
        return F.identity(x)

    def __repr__(self):
        return f'{type(self).__name__}(p = {self._rate}, axes={self._axes})'


class _BatchNorm(HybridBlock):
    """Parameters and forward shared by BatchNorm and BatchNormReLU (which
    only sets ``fuse_relu``); the arguments are :class:`BatchNorm`'s."""

    #: Apply ReLU to the output (BatchNormReLU).
    fuse_relu = False

    def __init__(
        self,
        axis=1,
        momentum=0.9,
        epsilon=1e-5,
        center=True,
        scale=True,
        use_global_stats=False,
        beta_initializer='zeros',
        gamma_initializer='ones',
        running_mean_initializer='zeros',
        running_variance_initializer='ones',
        in_channels=0,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self._kwargs = {
            'axis': axis,
            'eps': epsilon,
            'momentum': momentum,
            'fix_gamma': not scale,
            'use_global_stats': use_global_stats,
        }
        if in_channels != 0:
            self.in_channels = in_channels
        channels = (in_channels,)
        self.gamma = self.params.get(
            'gamma',
            grad_req='write' if scale else 'null',
            shape=channels,
            init=gamma_initializer,
            allow_deferred_init=True,
            differentiable=scale,
        )
        self.beta = self.params.get(
            'beta',
            grad_req='write' if center else 'null',
            shape=channels,
            init=beta_initializer,
            allow_deferred_init=True,
            differentiable=center,
        )
        # Running statistics are state, not trainable: no gradient, and the
        # operator updates them in place (auxiliary states in a graph).
        self.running_mean = self.params.get(
            'running_mean',
            grad_req='null',
            shape=channels,
            init=running_mean_initializer,
            allow_deferred_init=True,
            differentiable=False,
        )
        self.running_var = self.params.get(
            'running_var',
            grad_req='null',
            shape=channels,
            init=running_variance_initializer,
            allow_deferred_init=True,
            differentiable=False,
        )

    def cast(self, dtype):
        # MXNet keeps BatchNorm in float32 when a net is cast to float16:
        # half precision statistics lose too much.
        if dtype_name(dtype) == 'float16':
            dtype = 'float32'
        super().cast(dtype)

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        if self.fuse_relu and not is_np_array():
            # MXNet's one fused operator (in a graph: one node, 'fwd')
            return F.contrib.BatchNormWithReLU(
                x,
                gamma,
                beta,
                running_mean,
                running_var,
                name='fwd',
                **self._kwargs,
            )
        out = F.BatchNorm(
            x,
            gamma,
            beta,
            running_mean,
            running_var,
            name='fwd',
            **self._kwargs,
        )
        if self.fuse_relu:
            out = F.Activation(out, act_type='relu', name='relu')
        return out

    def __repr__(self):
        in_channels = self.gamma.shape[0]
        return (
            f'{type(self).__name__}({_kwargs_text(self._kwargs)}, '
            f'in_channels={in_channels if in_channels else None})'
        )


class BatchNorm(_BatchNorm):
    r"""Batch normalization (Ioffe and Szegedy, 2015).

    Normalize each channel (``axis``) over the batch and all other axes,
    then scale and shift::

        y = (x - mean) / sqrt(var + epsilon) * gamma + beta

    In training mode (``autograd.record()`` or ``train_mode()``), ``mean``
    and ``var`` are the statistics of the current batch, and the running
    statistics are updated::

        running_mean = momentum * running_mean + (1 - momentum) * mean
        running_var = momentum * running_var + (1 - momentum) * var

    In prediction mode (or with ``use_global_stats=True``) the running
    statistics are used instead, so a single example gives a stable
    output.

    Parameters
    ----------
    axis : int, default 1
        The channel axis (1 for NCHW, -1 for NWC...).
    momentum : float, default 0.9
    epsilon : float, default 1e-5
        Added to the variance so the division never blows up.
    center : bool, default True
        Learn ``beta``; with False ``beta`` stays 0.
    scale : bool, default True
        Learn ``gamma``; with False ``gamma`` is fixed to 1
        (``fix_gamma=True``).  Turn off when a ReLU or a linear layer that
        can rescale follows.
    use_global_stats : bool, default False
        Always use the running statistics (freeze BatchNorm).
    beta_initializer, gamma_initializer : default 'zeros', 'ones'
    running_mean_initializer, running_variance_initializer :
        default 'zeros', 'ones'
    in_channels : int, default 0
        Number of channels; 0 infers it at the first forward pass.

    Parameters created: ``gamma``, ``beta`` (trainable) and
    ``running_mean``, ``running_var`` (``grad_req='null'``).
    """


class BatchNormReLU(_BatchNorm):
    r"""Batch normalization followed by ReLU, as one layer.

    ``y = max(BatchNorm(x), 0)``; the arguments are those of
    :class:`BatchNorm`.
    """

    fuse_relu = True


class _AffineNorm(HybridBlock):
    """``gamma`` and ``beta`` of one size, and MXNet's repr of them."""

    def __init__(
        self,
        size,
        center,
        scale,
        beta_initializer,
        gamma_initializer,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.gamma = self.params.get(
            'gamma',
            grad_req='write' if scale else 'null',
            shape=(size,),
            init=gamma_initializer,
            allow_deferred_init=True,
        )
        self.beta = self.params.get(
            'beta',
            grad_req='write' if center else 'null',
            shape=(size,),
            init=beta_initializer,
            allow_deferred_init=True,
        )

    def __repr__(self):
        return (
            f'{type(self).__name__}({_kwargs_text(self._kwargs)}, '
            f'in_channels={self.gamma.shape[0]})'
        )


class InstanceNorm(_AffineNorm):
    r"""Instance normalization (Ulyanov et al., 2016).

    Normalize each sample and channel over its spatial axes::

        y[n, c] = (x[n, c] - mean[n, c]) / sqrt(var[n, c] + epsilon)
                  * gamma[c] + beta[c]

    Unlike BatchNorm it uses no batch statistics, so training and
    prediction behave the same (used in style transfer).

    Parameters
    ----------
    axis : int, default 1
        The channel axis.
    epsilon : float, default 1e-5
    center : bool, default True
        Learn ``beta``.
    scale : bool, default False
        Learn ``gamma`` (with False it stays at its initial value 1).
    beta_initializer, gamma_initializer : default 'zeros', 'ones'
    in_channels : int, default 0
        Number of channels; 0 infers it at the first forward pass.
    """

    def __init__(
        self,
        axis=1,
        epsilon=1e-5,
        center=True,
        scale=False,
        beta_initializer='zeros',
        gamma_initializer='ones',
        in_channels=0,
        **kwargs,
    ):
        super().__init__(
            in_channels,
            center,
            scale,
            beta_initializer,
            gamma_initializer,
            **kwargs,
        )
        self._kwargs = {
            'eps': epsilon,
            'axis': axis,
            'center': center,
            'scale': scale,
        }
        self._axis = axis
        self._epsilon = epsilon

    def hybrid_forward(self, F, x, gamma, beta):
        if self._axis == 1:
            return F.InstanceNorm(
                x, gamma, beta, name='fwd', eps=self._epsilon
            )
        # the operator normalizes axis 1: move the channels there and back
        x = F.swapaxes(x, dim1=1, dim2=self._axis)
        out = F.InstanceNorm(x, gamma, beta, name='fwd', eps=self._epsilon)
        return F.swapaxes(out, dim1=1, dim2=self._axis)


class LayerNorm(_AffineNorm):
    r"""Layer normalization (Ba et al., 2016).

    Normalize each sample over one axis (the features, by default the
    last)::

        y = (x - mean) / sqrt(var + epsilon) * gamma + beta

    with ``mean`` and ``var`` taken along ``axis`` for every position of
    the other axes; no batch statistics, so it suits sequence models.

    Parameters
    ----------
    axis : int, default -1
    epsilon : float, default 1e-5
    center : bool, default True
        Learn ``beta``.
    scale : bool, default True
        Learn ``gamma``.
    beta_initializer, gamma_initializer : default 'zeros', 'ones'
    in_channels : int, default 0
        Size of ``axis``; 0 infers it at the first forward pass.
    """

    def __init__(
        self,
        axis=-1,
        epsilon=1e-5,
        center=True,
        scale=True,
        beta_initializer='zeros',
        gamma_initializer='ones',
        in_channels=0,
        prefix=None,
        params=None,
    ):
        super().__init__(
            in_channels,
            center,
            scale,
            beta_initializer,
            gamma_initializer,
            prefix=prefix,
            params=params,
        )
        self._kwargs = {
            'eps': epsilon,
            'axis': axis,
            'center': center,
            'scale': scale,
        }
        self._axis = axis
        self._epsilon = epsilon
        self._center = center
        self._scale = scale

    def hybrid_forward(self, F, data, gamma, beta):
        return F.LayerNorm(
            data, gamma=gamma, beta=beta, axis=self._axis, eps=self._epsilon
        )


class GroupNorm(_AffineNorm):
    r"""Group normalization (Wu and He, 2018), MXNet 1.x flavour.

    The channels are split into ``num_groups`` groups; each sample is
    normalized over each group (its channels and spatial positions), then
    scaled and shifted per group::

        y[n, g] = (x[n, g] - mean[n, g]) / sqrt(var[n, g] + epsilon)
                  * gamma[g] + beta[g]

    (MXNet 1.x learns one ``gamma``/``beta`` per *group*.)

    Parameters
    ----------
    num_groups : int, default 1
        Must divide the number of channels.
    epsilon : float, default 1e-5
    center, scale : bool, default True
    beta_initializer, gamma_initializer : default 'zeros', 'ones'
    """

    def __init__(
        self,
        num_groups=1,
        epsilon=1e-5,
        center=True,
        scale=True,
        beta_initializer='zeros',
        gamma_initializer='ones',
        prefix=None,
        params=None,
    ):
        super().__init__(
            num_groups,
            center,
            scale,
            beta_initializer,
            gamma_initializer,
            prefix=prefix,
            params=params,
        )
        self._kwargs = {
            'eps': epsilon,
            'num_groups': num_groups,
            'center': center,
            'scale': scale,
        }
        self._num_groups = num_groups
        self._epsilon = epsilon

    def hybrid_forward(self, F, data, gamma, beta):
        return F.GroupNorm(
            data,
            gamma=gamma,
            beta=beta,
            num_groups=self._num_groups,
            eps=self._epsilon,
        )

    def __repr__(self):
        return f'{type(self).__name__}({_kwargs_text(self._kwargs)})'


class Embedding(HybridBlock):
    r"""Map integer indices to dense vectors (a learnt lookup table).

    ``y[..., :] = weight[x[...], :]`` with ``weight`` of shape
    ``(input_dim, output_dim)``; the output has shape
    ``x.shape + (output_dim,)``.  Only looked-up rows get a gradient.

    Parameters
    ----------
    input_dim : int
        Size of the vocabulary (indices run from 0 to input_dim - 1).
    output_dim : int
        Length of each vector.
    dtype : str, default 'float32'
    weight_initializer : Initializer, optional
    sparse_grad : bool, default False
        Give the weight a row_sparse gradient holding only the looked-up
        rows, so optimizers with ``lazy_update`` update only those rows.
    """

    def __init__(
        self,
        input_dim,
        output_dim,
        dtype='float32',
        weight_initializer=None,
        sparse_grad=False,
        **kwargs,
    ):
        super().__init__(**kwargs)
        grad_stype = 'row_sparse' if sparse_grad else 'default'
        self._kwargs = {
            'input_dim': input_dim,
            'output_dim': output_dim,
            'dtype': dtype,
            'sparse_grad': sparse_grad,
        }
        self.weight = self.params.get(
            'weight',
            shape=(input_dim, output_dim),
            init=weight_initializer,
            dtype=dtype,
            allow_deferred_init=True,
            grad_stype=grad_stype,
        )

    def hybrid_forward(self, F, x, weight):
        return F.Embedding(x, weight, name='fwd', **self._kwargs)

    def __repr__(self):
        kw = self._kwargs
        return (
            f'{type(self).__name__}({kw["input_dim"]} -> '
            f'{kw["output_dim"]}, {kw["dtype"]})'
        )


class Flatten(HybridBlock):
    r"""Flatten all axes but the first: ``(N, d1, d2, ...)`` becomes
    ``(N, d1 * d2 * ...)``."""

    def hybrid_forward(self, F, x):
        return F.Flatten(x)

    def __repr__(self):
        return type(self).__name__


class Lambda(Block):
    r"""Wrap a function (or the name of an ``nd`` function) as a Block.

    Parameters
    ----------
    function : str or callable
        ``'tanh'`` for ``nd.tanh``, or any function of the inputs, e.g.
        ``lambda x: nd.LeakyReLU(x, slope=0.1)``.

    Examples
    --------
    >>> block = nn.Lambda('tanh')
    >>> block
    Lambda(tanh)
    """

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            if not hasattr(nd, function):
                raise AssertionError(
                    f'Function name {function} is not found in ndarray.'
                )
            self._func_impl = getattr(nd, function)
        elif callable(function):
            self._func_impl = function
        else:
            raise ValueError(
                f'Unrecognized function in lambda: {function} '
                f'of type {type(function)}'
            )

    def forward(self, *args):
        return self._func_impl(*args)

    def __repr__(self):
        return f'{type(self).__name__}({self._func_impl.__name__})'


class HybridLambda(HybridBlock):
    r"""Wrap a function of ``(F, x, *args)`` (or an operator name) as a
    HybridBlock, so it works eagerly and in a graph.

    Parameters
    ----------
    function : str or callable
        ``'tanh'`` for ``F.tanh``, or e.g.
        ``lambda F, x: F.LeakyReLU(x, slope=0.1)``.
    """

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            if not hasattr(nd, function):
                raise AssertionError(
                    f'Function name {function} is not found in symbol/ndarray.'
                )
            # looked up on F at call time: nd now, sym when hybridized
            self._func = lambda F, *args: getattr(F, function)(*args)
            self._func_name = function
        elif callable(function):
            self._func = function
            self._func_name = function.__name__
        else:
            raise ValueError(
                f'Unrecognized function in lambda: {function} '
                f'of type {type(function)}'
            )

    def hybrid_forward(self, F, x, *args):
        return self._func(F, x, *args)

    def __repr__(self):
        return f'{type(self).__name__}({self._func_name})'
