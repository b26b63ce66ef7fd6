"""Convolution, transposed convolution, pooling and padding layers.

Each layer is one ``Convolution``, ``Deconvolution``, ``Pooling`` or
``pad`` operator call with the attributes fixed at construction.  Only
channels-first (NCW, NCHW, NCDHW) and channels-last (NWC, NHWC, NDHWC)
layouts run; as in MXNet, ``Conv1D`` and ``Conv1DTranspose`` take only
NCW, and a channels-last weight is ``(channels, *kernel, in_channels)``.  Names
(``conv0_``, ``pool0_``), defaults and reprs follow MXNet 1.9
(python/mxnet/gluon/nn/conv_layers.py).

Sizes along one spatial axis, for input size ``H``, kernel ``k``,
stride ``s``, padding ``p`` and dilation ``d``::

    convolution / pooling:  H_out = floor((H + 2p - d(k-1) - 1) / s) + 1
    transposed:             H_out = (H - 1)s - 2p + d(k-1) + 1 + out_pad

(pooling has ``d = 1``; ``ceil_mode`` rounds up instead of down).
"""

from ...base import numeric_types
from ..block import HybridBlock
from .activations import Activation

__all__ = [
    'Conv1D',
    'Conv2D',
    'Conv3D',
    'Conv1DTranspose',
    'Conv2DTranspose',
    'Conv3DTranspose',
    'MaxPool1D',
    'MaxPool2D',
    'MaxPool3D',
    'AvgPool1D',
    'AvgPool2D',
    'AvgPool3D',
    'GlobalMaxPool1D',
    'GlobalMaxPool2D',
    'GlobalMaxPool3D',
    'GlobalAvgPool1D',
    'GlobalAvgPool2D',
    'GlobalAvgPool3D',
    'ReflectionPad2D',
]

# The layouts MXNet accepts: channels first, channels last.
_LAYOUTS = {1: ('NCW', 'NWC'), 2: ('NCHW', 'NHWC'), 3: ('NCDHW', 'NDHWC')}


def _check_layout(name, layout, ndim):
    """Reject layouts MXNet rejects (with its assertion message)."""
    if name in ('Conv1D', 'Conv1DTranspose'):
        assert layout == 'NCW', "Only supports 'NCW' layout for now"
        return
    accepted = _LAYOUTS[ndim]
    if layout not in accepted:
        raise AssertionError(
            f"Only supports '{accepted[0]}' and '{accepted[1]}' layout for now"
        )


def _tuple(value, ndim, label):
    """An int becomes ``(value,) * ndim``; sequences are kept as given
    (MXNet keeps a list a list, and its repr shows it)."""
    if isinstance(value, numeric_types):
        return (value,) * ndim
    if len(value) != ndim:
        raise AssertionError(
            f'{label} must be a number or a list of {ndim} ints'
        )
    return value


class _Conv(HybridBlock):
    """Shared code of every convolution layer.

    ``weight`` has shape ``(channels, in_channels / groups, *kernel)`` for
    a convolution and ``(in_channels, channels / groups, *kernel)`` for a
    transposed one (the weight of the convolution it inverts); ``bias``
    has shape ``(channels,)``.  ``in_channels=0`` is inferred at the first
    forward pass.
    """

    def __init__(
        self,
        channels,
        kernel_size,
        strides,
        padding,
        dilation,
        groups,
        layout,
        in_channels=0,
        activation=None,
        use_bias=True,
        weight_initializer=None,
        bias_initializer='zeros',
        op_name='Convolution',
        adj=None,
        prefix=None,
        params=None,
    ):
        super().__init__(prefix=prefix, params=params)
        with self.name_scope():
            self._channels = channels
            self._in_channels = in_channels
            ndim = len(kernel_size)
            strides = _tuple(strides, ndim, 'strides')
            padding = _tuple(padding, ndim, 'padding')
            dilation = _tuple(dilation, ndim, 'dilation')
            self._op_name = op_name
            self._kwargs = {
                'kernel': kernel_size,
                'stride': strides,
                'dilate': dilation,
                'pad': padding,
                'num_filter': channels,
                'num_group': groups,
                'no_bias': not use_bias,
                'layout': layout,
            }
            if adj is not None:
                self._kwargs['adj'] = adj
            if op_name == 'Convolution':
                wshape = (channels, in_channels // groups)
            else:
                wshape = (in_channels, channels // groups)
            wshape = wshape + tuple(kernel_size)
            if layout[-1] == 'C':  # channels last
                wshape = wshape[:1] + wshape[2:] + wshape[1:2]
            # 0 marks the unknown input channels: deferred initialization
            self.weight = self.params.get(
                'weight',
                shape=wshape,
                init=weight_initializer,
                allow_deferred_init=True,
            )
            if use_bias:
                self.bias = self.params.get(
                    'bias',
                    shape=(channels,),
                    init=bias_initializer,
                    allow_deferred_init=True,
                )
            else:
                self.bias = None
            if activation is not None:
                self.act = Activation(activation, prefix=activation + '_')
            else:
                self.act = None

    def hybrid_forward(self, F, x, weight, bias=None):
        op = getattr(F, self._op_name)
        if bias is None:
            out = op(x, weight, name='fwd', **self._kwargs)
        else:
            out = op(x, weight, bias, name='fwd', **self._kwargs)
        if self.act is not None:
            out = self.act(out)
        return out

    def _alias(self):
        return 'conv'

    def __repr__(self):
        kw = self._kwargs
        ndim = len(kw['kernel'])
        shape = self.weight.shape
        text = (
            f'{type(self).__name__}({shape[1] if shape[1] else None} -> '
            f'{shape[0]}, kernel_size={kw["kernel"]}, '
            f'stride={kw["stride"]}'
        )
        if kw['pad'] != (0,) * ndim:
            text += f', padding={kw["pad"]}'
        if kw['dilate'] != (1,) * ndim:
            text += f', dilation={kw["dilate"]}'
        # MXNet tests ``out_pad`` but stores ``outpad``, so output_padding
        # never shows; we print what MXNet prints.
        if hasattr(self, 'out_pad') and self.out_pad != (0,) * ndim:
            text += f', output_padding={self.out_pad}'
        if kw['num_group'] != 1:
            text += f', groups={kw["num_group"]}'
        if self.bias is None:
            text += ', bias=False'
        if self.act:
            text += f', {self.act}'
        return text + ')'


class Conv1D(_Conv):
    r"""1-D convolution over ``(N, C, W)`` data.

    ``y[n, f, o] = bias[f] + sum_{c, k} weight[f, c, k] *
    x_pad[n, c, o*stride + k*dilation]``, ``x_pad`` being ``x`` zero-padded
    by ``padding`` on both sides; ``W_out = floor((W + 2p - d(k-1) - 1) /
    s) + 1``.

    Parameters
    ----------
    channels : int
        Number of output channels (filters).
    kernel_size : int or tuple of 1 int
    strides, padding, dilation : int or tuple of 1 int
    groups : int, default 1
        Split the input and output channels into ``groups`` independent
        convolutions.
    layout : str, default 'NCW'
    activation : str, optional
    use_bias : bool, default True
    weight_initializer, bias_initializer : default None, 'zeros'
    in_channels : int, default 0
        0 infers it at the first forward pass.
    """

    def __init__(
        self,
        channels,
        kernel_size,
        strides=1,
        padding=0,
        dilation=1,
        groups=1,
        layout='NCW',
        activation=None,
        use_bias=True,
        weight_initializer=None,
        bias_initializer='zeros',
        in_channels=0,
        **kwargs,
    ):
        _check_layout('Conv1D', layout, 1)
        kernel_size = _tuple(kernel_size, 1, 'kernel_size')
        super().__init__(
            channels,
            kernel_size,
            strides,
            padding,
            dilation,
            groups,
            layout,
            in_channels,
            activation,
            use_bias,
            weight_initializer,
            bias_initializer,
            **kwargs,
        )


class Conv2D(_Conv):
    r"""2-D convolution over ``(N, C, H, W)`` images.

    ``y[n, f, i, j] = bias[f] + sum_{c, a, b} weight[f, c, a, b] *
    x_pad[n, c, i*s + a*d, j*s + b*d]``; per spatial axis
    ``H_out = floor((H + 2p - d(k-1) - 1) / s) + 1``.

    Parameters
    ----------
    channels : int
        Number of output channels (filters).
    kernel_size : int or tuple of 2 ints
    strides : int or tuple of 2 ints, default (1, 1)
    padding : int or tuple of 2 ints, default (0, 0)
        Zeros added on both sides of each spatial axis.
    dilation : int or tuple of 2 ints, default (1, 1)
    groups : int, default 1
    layout : str, default 'NCHW'
    activation : str, optional
    use_bias : bool, default True
    weight_initializer, bias_initializer : default None, 'zeros'
    in_channels : int, default 0
        0 infers it at the first forward pass.

    Examples
    --------
    >>> nn.Conv2D(6, kernel_size=5, activation='relu')
    Conv2D(None -> 6, kernel_size=(5, 5), stride=(1, 1), Activation(relu))
    """

    def __init__(
        self,
        channels,
        kernel_size,
        strides=(1, 1),
        padding=(0, 0),
        dilation=(1, 1),
        groups=1,
        layout='NCHW',
        activation=None,
        use_bias=True,
        weight_initializer=None,
        bias_initializer='zeros',
        in_channels=0,
        **kwargs,
    ):
        _check_layout('Conv2D', layout, 2)
        kernel_size = _tuple(kernel_size, 2, 'kernel_size')
        super().__init__(
            channels,
            kernel_size,
            strides,
            padding,
            dilation,
            groups,
            layout,
            in_channels,
            activation,
            use_bias,
            weight_initializer,
            bias_initializer,
            **kwargs,
        )


class Conv3D(_Conv):
    r"""3-D convolution over ``(N, C, D, H, W)`` volumes; the 2-D formula
    with one more spatial axis.  Arguments as :class:`Conv2D` with tuples
    of 3 and ``layout='NCDHW'``.
    """

    def __init__(
        self,
        channels,
        kernel_size,
        strides=(1, 1, 1),
        padding=(0, 0, 0),
        dilation=(1, 1, 1),
        groups=1,
        layout='NCDHW',
        activation=None,
        use_bias=True,
        weight_initializer=None,
        bias_initializer='zeros',
        in_channels=0,
        **kwargs,
    ):
        _check_layout('Conv3D', layout, 3)
        kernel_size = _tuple(kernel_size, 3, 'kernel_size')
        super().__init__(
            channels,
            kernel_size,
            strides,
            padding,
            dilation,
            groups,
            layout,
            in_channels,
            activation,
            use_bias,
            weight_initializer,
            bias_initializer,
            **kwargs,
        )


class _ConvTranspose(_Conv):
    """A convolution layer run backwards (``Deconvolution``)."""

    def __init__(
        self,
        ndim,
        name,
        channels,
        kernel_size,
        strides,
        padding,
        output_padding,
        dilation,
        groups,
        layout,
        activation,
        use_bias,
        weight_initializer,
        bias_initializer,
        in_channels,
        **kwargs,
    ):
        _check_layout(name, layout, ndim)
        kernel_size = _tuple(kernel_size, ndim, 'kernel_size')
        output_padding = _tuple(output_padding, ndim, 'output_padding')
        super().__init__(
            channels,
            kernel_size,
            strides,
            padding,
            dilation,
            groups,
            layout,
            in_channels,
            activation,
            use_bias,
            weight_initializer,
            bias_initializer,
            op_name='Deconvolution',
            adj=output_padding,
            **kwargs,
        )
        self.outpad = output_padding


class Conv1DTranspose(_ConvTranspose):
    r"""1-D transposed convolution ("deconvolution"), the gradient of a
    :class:`Conv1D` with respect to its input, used as a layer.

    Each input element ``x[n, c, i]`` adds ``x[n, c, i] * weight[c, f, k]``
    to ``y[n, f, i*s + k*d - p]``; ``W_out = (W - 1)s - 2p + d(k-1) + 1 +
    output_padding``.  It upsamples: stride 2 doubles the length.

    Parameters
    ----------
    channels : int
    kernel_size : int or tuple of 1 int
    strides, padding, output_padding, dilation : int or tuple of 1 int
    groups : int, default 1
    layout : str, default 'NCW'
    activation, use_bias, weight_initializer, bias_initializer,
    in_channels : as :class:`Conv1D`
    """

    def __init__(
        self,
        channels,
        kernel_size,
        strides=1,
        padding=0,
        output_padding=0,
        dilation=1,
        groups=1,
        layout='NCW',
        activation=None,
        use_bias=True,
        weight_initializer=None,
        bias_initializer='zeros',
        in_channels=0,
        **kwargs,
    ):
        super().__init__(
            1,
            'Conv1DTranspose',
            channels,
            kernel_size,
            strides,
            padding,
            output_padding,
            dilation,
            groups,
            layout,
            activation,
            use_bias,
            weight_initializer,
            bias_initializer,
            in_channels,
            **kwargs,
        )


class Conv2DTranspose(_ConvTranspose):
    r"""2-D transposed convolution: the input gradient of a
    :class:`Conv2D`, used as an upsampling layer.

    Per spatial axis ``H_out = (H - 1)s - 2p + d(k-1) + 1 +
    output_padding``; ``weight`` has shape ``(in_channels, channels /
    groups, kh, kw)``.  Arguments as :class:`Conv2D` plus
    ``output_padding`` (default ``(0, 0)``), extra rows/columns added at
    the end to reach an exact output size.
    """

    def __init__(
        self,
        channels,
        kernel_size,
        strides=(1, 1),
        padding=(0, 0),
        output_padding=(0, 0),
        dilation=(1, 1),
        groups=1,
        layout='NCHW',
        activation=None,
        use_bias=True,
        weight_initializer=None,
        bias_initializer='zeros',
        in_channels=0,
        **kwargs,
    ):
        super().__init__(
            2,
            'Conv2DTranspose',
            channels,
            kernel_size,
            strides,
            padding,
            output_padding,
            dilation,
            groups,
            layout,
            activation,
            use_bias,
            weight_initializer,
            bias_initializer,
            in_channels,
            **kwargs,
        )


class Conv3DTranspose(_ConvTranspose):
    r"""3-D transposed convolution; :class:`Conv2DTranspose` with one more
    spatial axis and ``layout='NCDHW'``."""

    def __init__(
        self,
        channels,
        kernel_size,
        strides=(1, 1, 1),
        padding=(0, 0, 0),
        output_padding=(0, 0, 0),
        dilation=(1, 1, 1),
        groups=1,
        layout='NCDHW',
        activation=None,
        use_bias=True,
        weight_initializer=None,
        bias_initializer='zeros',
        in_channels=0,
        **kwargs,
    ):
        super().__init__(
            3,
            'Conv3DTranspose',
            channels,
            kernel_size,
            strides,
            padding,
            output_padding,
            dilation,
            groups,
            layout,
            activation,
            use_bias,
            weight_initializer,
            bias_initializer,
            in_channels,
            **kwargs,
        )


# -- pooling ------------------------------------------------------------------


class _Pooling(HybridBlock):
    """Shared code of the pooling layers (one ``Pooling`` call)."""

    def __init__(
        self,
        pool_size,
        strides,
        padding,
        ceil_mode,
        global_pool,
        pool_type,
        layout,
        count_include_pad=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if strides is None:
            strides = pool_size  # non-overlapping windows
        strides = _tuple(strides, len(pool_size), 'strides')
        padding = _tuple(padding, len(pool_size), 'padding')
        self._kwargs = {
            'kernel': pool_size,
            'stride': strides,
            'pad': padding,
            'global_pool': global_pool,
            'pool_type': pool_type,
            'layout': layout,
            'pooling_convention': 'full' if ceil_mode else 'valid',
        }
        if count_include_pad is not None:
            self._kwargs['count_include_pad'] = count_include_pad

    def _alias(self):
        return 'pool'

    def hybrid_forward(self, F, x):
        return F.Pooling(x, name='fwd', **self._kwargs)

    def __repr__(self):
        kw = self._kwargs
        return (
            f'{type(self).__name__}(size={kw["kernel"]}, '
            f'stride={kw["stride"]}, padding={kw["pad"]}, '
            f'ceil_mode={kw["pooling_convention"] == "full"}, '
            f'global_pool={kw["global_pool"]}, '
            f'pool_type={kw["pool_type"]}, layout={kw["layout"]})'
        )


def _pool_args(name, pool_size, layout, ndim):
    _check_layout(name, layout, ndim)
    return _tuple(pool_size, ndim, 'pool_size')


class MaxPool1D(_Pooling):
    r"""Max pooling over ``(N, C, W)``: ``y[n, c, o] = max_k
    x_pad[n, c, o*s + k]`` (padding never wins: it counts as -inf).

    Parameters
    ----------
    pool_size : int or tuple of 1 int, default 2
    strides : int, optional
        Defaults to ``pool_size`` (windows do not overlap).
    padding : int, default 0
    layout : str, default 'NCW'
    ceil_mode : bool, default False
        Round the output size up (``ceil``) instead of down.
    """

    def __init__(
        self,
        pool_size=2,
        strides=None,
        padding=0,
        layout='NCW',
        ceil_mode=False,
        **kwargs,
    ):
        pool_size = _pool_args('MaxPool1D', pool_size, layout, 1)
        super().__init__(
            pool_size,
            strides,
            padding,
            ceil_mode,
            False,
            'max',
            layout,
            **kwargs,
        )


class MaxPool2D(_Pooling):
    r"""Max pooling over ``(N, C, H, W)``:
    ``y[n, c, i, j] = max_{a, b} x_pad[n, c, i*s + a, j*s + b]``;
    ``H_out = floor((H + 2p - k) / s) + 1`` (``ceil`` with ``ceil_mode``).

    Parameters
    ----------
    pool_size : int or tuple of 2 ints, default (2, 2)
    strides : int or tuple, optional
        Defaults to ``pool_size``.
    padding : int or tuple, default 0
    layout : str, default 'NCHW'
    ceil_mode : bool, default False

    Examples
    --------
    >>> nn.MaxPool2D()
    MaxPool2D(size=(2, 2), stride=(2, 2), padding=(0, 0), ceil_mode=False,
    global_pool=False, pool_type=max, layout=NCHW)
    """

    def __init__(
        self,
        pool_size=(2, 2),
        strides=None,
        padding=0,
        layout='NCHW',
        ceil_mode=False,
        **kwargs,
    ):
        pool_size = _pool_args('MaxPool2D', pool_size, layout, 2)
        super().__init__(
            pool_size,
            strides,
            padding,
            ceil_mode,
            False,
            'max',
            layout,
            **kwargs,
        )


class MaxPool3D(_Pooling):
    r"""Max pooling over ``(N, C, D, H, W)``; see :class:`MaxPool2D`."""

    def __init__(
        self,
        pool_size=(2, 2, 2),
        strides=None,
        padding=0,
        ceil_mode=False,
        layout='NCDHW',
        **kwargs,
    ):
        pool_size = _pool_args('MaxPool3D', pool_size, layout, 3)
        super().__init__(
            pool_size,
            strides,
            padding,
            ceil_mode,
            False,
            'max',
            layout,
            **kwargs,
        )


class AvgPool1D(_Pooling):
    r"""Average pooling over ``(N, C, W)``: ``y = sum(window) / count``.

    ``count`` is the window size, padding included, unless
    ``count_include_pad=False`` (then only real elements count).
    Other arguments as :class:`MaxPool1D`.
    """

    def __init__(
        self,
        pool_size=2,
        strides=None,
        padding=0,
        layout='NCW',
        ceil_mode=False,
        count_include_pad=True,
        **kwargs,
    ):
        pool_size = _pool_args('AvgPool1D', pool_size, layout, 1)
        super().__init__(
            pool_size,
            strides,
            padding,
            ceil_mode,
            False,
            'avg',
            layout,
            count_include_pad,
            **kwargs,
        )


class AvgPool2D(_Pooling):
    r"""Average pooling over ``(N, C, H, W)``:
    ``y[n, c, i, j] = sum_{a, b} x_pad[n, c, i*s + a, j*s + b] / count``.

    Arguments as :class:`MaxPool2D`, plus ``count_include_pad`` (default
    True: padded zeros count in the divisor).
    """

    def __init__(
        self,
        pool_size=(2, 2),
        strides=None,
        padding=0,
        ceil_mode=False,
        layout='NCHW',
        count_include_pad=True,
        **kwargs,
    ):
        pool_size = _pool_args('AvgPool2D', pool_size, layout, 2)
        super().__init__(
            pool_size,
            strides,
            padding,
            ceil_mode,
            False,
            'avg',
            layout,
            count_include_pad,
            **kwargs,
        )


class AvgPool3D(_Pooling):
    r"""Average pooling over ``(N, C, D, H, W)``; see
    :class:`AvgPool2D`."""

    def __init__(
        self,
        pool_size=(2, 2, 2),
        strides=None,
        padding=0,
        ceil_mode=False,
        layout='NCDHW',
        count_include_pad=True,
        **kwargs,
    ):
        pool_size = _pool_args('AvgPool3D', pool_size, layout, 3)
        super().__init__(
            pool_size,
            strides,
            padding,
            ceil_mode,
            False,
            'avg',
            layout,
            count_include_pad,
            **kwargs,
        )


class _GlobalPooling(_Pooling):
    """Pool each channel's whole spatial extent into one value.

    As in MXNet, the attributes are those of a (1, ...) window with
    ``ceil_mode=True`` and ``global_pool=True``, which the repr shows.
    """

    def __init__(self, name, ndim, pool_type, layout, **kwargs):
        _check_layout(name, layout, ndim)
        super().__init__(
            (1,) * ndim, None, 0, True, True, pool_type, layout, **kwargs
        )


class GlobalMaxPool1D(_GlobalPooling):
    r"""``y[n, c, 0] = max_w x[n, c, w]``; output ``(N, C, 1)``."""

    def __init__(self, layout='NCW', **kwargs):
        super().__init__('GlobalMaxPool1D', 1, 'max', layout, **kwargs)


class GlobalMaxPool2D(_GlobalPooling):
    r"""``y[n, c, 0, 0] = max_{h, w} x[n, c, h, w]``; output
    ``(N, C, 1, 1)``."""

    def __init__(self, layout='NCHW', **kwargs):
        super().__init__('GlobalMaxPool2D', 2, 'max', layout, **kwargs)


class GlobalMaxPool3D(_GlobalPooling):
    r"""``y[n, c, 0, 0, 0] = max over d, h, w of x[n, c]``."""

    def __init__(self, layout='NCDHW', **kwargs):
        super().__init__('GlobalMaxPool3D', 3, 'max', layout, **kwargs)


class GlobalAvgPool1D(_GlobalPooling):
    r"""``y[n, c, 0] = mean_w x[n, c, w]``; output ``(N, C, 1)``."""

    def __init__(self, layout='NCW', **kwargs):
        super().__init__('GlobalAvgPool1D', 1, 'avg', layout, **kwargs)


class GlobalAvgPool2D(_GlobalPooling):
    r"""``y[n, c, 0, 0] = mean_{h, w} x[n, c, h, w]``; output
    ``(N, C, 1, 1)`` (NiN and ResNet heads)."""

    def __init__(self, layout='NCHW', **kwargs):
        super().__init__('GlobalAvgPool2D', 2, 'avg', layout, **kwargs)


class GlobalAvgPool3D(_GlobalPooling):
    r"""``y[n, c, 0, 0, 0] = mean over d, h, w of x[n, c]``."""

    def __init__(self, layout='NCDHW', **kwargs):
        super().__init__('GlobalAvgPool3D', 3, 'avg', layout, **kwargs)


class ReflectionPad2D(HybridBlock):
    r"""Pad the last two axes of ``(N, C, H, W)`` data by reflection.

    The border is mirrored without repeating the edge: padding
    ``[1, 2, 3]`` by 2 on the left gives ``[3, 2, 1, 2, 3]``.

    Parameters
    ----------
    padding : int or tuple of 8 ints
        An int pads H and W by that much on both sides; a tuple is
        ``pad_width`` (before, after) for each of the 4 axes.
    """

    def __init__(self, padding=0, **kwargs):
        super().__init__(**kwargs)
        if isinstance(padding, numeric_types):
            padding = (0, 0, 0, 0, padding, padding, padding, padding)
        if len(padding) != 8:
            raise AssertionError(
                'ReflectionPad2D: padding must be an int or a tuple of 8 ints'
            )
        self._padding = padding

    def hybrid_forward(self, F, x):
        return F.pad(x, mode='reflect', pad_width=self._padding)
