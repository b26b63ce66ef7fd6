"""``mx.npx``: MXNet's extensions to NumPy mode.

* the mode switches ``set_np()``, ``reset_np()``, ``is_np_array()``,
  ``is_np_shape()``;
* devices and files: ``cpu``, ``gpu``, ``num_gpus``, ``current_context``,
  ``waitall``, ``save``, ``load``;
* deep-learning operators with MXNet's signatures (``relu``, ``softmax``,
  ``pick``, ``one_hot``, ``batch_dot``, ``sequence_mask``, ``topk``,
  ``reshape`` with MXNet's special codes, ``fully_connected``...).  Each
  runs the registered legacy operator and returns an ``mx.np.ndarray``.
"""

from .. import ndarray as _nd
from .._np_state import (
    is_np_array,
    is_np_shape,
    reset_np,
    set_np,
    set_np_shape,
)
from ..context import (
    cpu,
    cpu_pinned,
    current_context,
    gpu,
    num_gpus,
)
from ..numpy import functions as _F
from ..numpy._core import call as _call
from ..numpy._core import cast as _cast
from ..numpy._core import shaped as _shaped
from ..numpy._core import to_np as _to_np
from ..numpy.creation import as_array as _as_array
from .detection import *  # noqa: F401,F403
from .reshape import reshape

__all__ = [
    'set_np',
    'reset_np',
    'is_np_array',
    'is_np_shape',
    'cpu',
    'gpu',
    'num_gpus',
    'current_context',
    'waitall',
    'save',
    'load',
    'relu',
    'sigmoid',
    'softmax',
    'log_softmax',
    'masked_softmax',
    'pick',
    'one_hot',
    'batch_flatten',
    'batch_dot',
    'sequence_mask',
    'topk',
    'reshape',
    'activation',
    'fully_connected',
    'convolution',
    'pooling',
    'batch_norm',
    'dropout',
    'embedding',
    'layer_norm',
    'leaky_relu',
    'smooth_l1',
    'rnn',
    'gamma',
    'gammaln',
    'erf',
    'erfinv',
    'slice',
    'cast',
    'gather_nd',
    'reshape_like',
    'shape_array',
    'arange_like',
    'multibox_prior',
    'roi_pooling',
    'box_iou',
    'box_nms',
    'multibox_target',
    'multibox_detection',
]


def waitall():
    """Wait until all pending device work has finished."""
    _nd.waitall()


def save(file, arr):
    """Save an array, a list or a dict of arrays in MXNet's format
    (np-shape files, magic ``0xF993faca``, as MXNet under ``set_np``)."""
    from .._np_state import np_shape

    with np_shape(True):
        _nd.save(file, arr)


def load(file, ctx=None):
    """Load arrays saved by ``npx.save``/``nd.save`` (or MXNet) as
    ``mx.np.ndarray``: a list, or a dict when names were saved."""
    loaded = _nd.load(file, ctx=ctx) if ctx is not None else _nd.load(file)
    items = loaded.values() if isinstance(loaded, dict) else loaded
    for x in items:
        _to_np(x)
    return loaded


# -- operators --------------------------------------------------------------


def relu(data):
    """max(data, 0)."""
    return _call('relu', _as_array(data))


def sigmoid(data):
    """1 / (1 + exp(-data))."""
    return _call('sigmoid', _as_array(data))


def activation(data, act_type='relu'):
    """``relu``, ``sigmoid``, ``tanh``, ``softrelu`` or ``softsign``."""
    return _call('Activation', _as_array(data), act_type=act_type)


def leaky_relu(data, gamma=None, act_type='leaky', slope=0.25, **kwargs):
    """MXNet's LeakyReLU family (``leaky``, ``elu``, ``selu``, ``gelu``)."""
    inputs = [_as_array(data)] + ([gamma] if gamma is not None else [])
    return _call(
        'LeakyReLU', *inputs, act_type=act_type, slope=slope, **kwargs
    )


def softmax(
    data, axis=-1, length=None, temperature=None, use_length=False, dtype=None
):
    """exp(data) / sum(exp(data)) along ``axis``; with ``use_length``,
    only the first ``length`` entries of each row count."""
    inputs = [_as_array(data)] + ([length] if use_length else [])
    return _call(
        'softmax',
        *inputs,
        axis=axis,
        temperature=temperature,
        use_length=use_length,
        dtype=dtype,
    )


def log_softmax(
    data, axis=-1, length=None, temperature=None, use_length=False, dtype=None
):
    """log(softmax(data)) along ``axis``, computed stably."""
    inputs = [_as_array(data)] + ([length] if use_length else [])
    return _call(
        'log_softmax',
        *inputs,
        axis=axis,
        temperature=temperature,
        use_length=use_length,
        dtype=dtype,
    )


def masked_softmax(data, mask, axis=-1, temperature=1.0, dtype=None):
    """softmax over the entries where ``mask`` is true; masked entries get
    0 (MXNet 2.0's ``npx.masked_softmax``; built from ``where``,
    ``softmax`` and a product)."""
    data = _as_array(data)
    mask = _F.broadcast_to(
        _cast(_as_array(mask, like=data), data.dtype), data.shape
    )
    from ..numpy.creation import full_like

    low = full_like(data, -1e30 if data.dtype.itemsize > 2 else -6e4)
    masked = _F.where(mask, data, low)
    if temperature not in (None, 1, 1.0):
        masked = _F.true_divide(masked, temperature)
    return _F.multiply(softmax(masked, axis=axis, dtype=dtype), mask)


def pick(data, index, axis=-1, mode='clip', keepdims=False):
    """data[..., index, ...] along ``axis`` (one element per lane)."""
    data = _as_array(data)
    index = _as_array(index, like=data)
    y = _call('pick', data, index, axis=axis, mode=mode, keepdims=keepdims)
    ax = axis % data.ndim
    shape = data.shape[:ax] + ((1,) if keepdims else ()) + data.shape[ax + 1 :]
    return _shaped(y, shape)


def one_hot(data, depth=None, on_value=1.0, off_value=0.0, dtype='float32'):
    """One-hot rows of length ``depth`` for the integer labels ``data``."""
    return _call(
        'one_hot',
        _as_array(data),
        depth=depth,
        on_value=on_value,
        off_value=off_value,
        dtype=dtype,
    )


def batch_flatten(data):
    """Collapse every axis after the first: shape (N, rest)."""
    return _call('Flatten', _as_array(data))


def batch_dot(a, b, transpose_a=False, transpose_b=False, forward_stype=None):
    """Matrix products of two stacks of matrices, (B, n, m) x (B, m, k)."""
    a, b = _as_array(a), _as_array(b, like=a)
    return _call(
        'batch_dot', a, b, transpose_a=transpose_a, transpose_b=transpose_b
    )


def sequence_mask(
    data, sequence_length=None, use_sequence_length=False, value=0.0, axis=0
):
    """Set the entries past each sequence's length to ``value`` (time on
    ``axis``, 0 or 1)."""
    inputs = [_as_array(data)]
    if use_sequence_length:
        inputs.append(_as_array(sequence_length, like=inputs[0]))
    return _call(
        'SequenceMask',
        *inputs,
        use_sequence_length=use_sequence_length,
        value=value,
        axis=axis,
    )


def topk(
    data, axis=-1, k=1, ret_typ='indices', is_ascend=False, dtype='float32'
):
    """The ``k`` largest (or smallest) entries along ``axis``: their
    indices (``ret_typ='indices'``), values, both, or a mask."""
    return _call(
        'topk',
        _as_array(data),
        axis=axis,
        k=k,
        ret_typ=ret_typ,
        is_ascend=is_ascend,
        dtype=dtype,
    )


def fully_connected(
    x, weight, bias=None, num_hidden=None, no_bias=True, flatten=True
):
    """x . weight.T + bias (MXNet's FullyConnected)."""
    inputs = [x, weight] + ([] if no_bias else [bias])
    return _call(
        'FullyConnected',
        *inputs,
        num_hidden=num_hidden,
        no_bias=no_bias,
        flatten=flatten,
    )


def convolution(
    data,
    weight,
    bias=None,
    kernel=(),
    stride=(),
    dilate=(),
    pad=(),
    num_filter=1,
    num_group=1,
    no_bias=False,
    layout=None,
    **kwargs,
):
    """N-d convolution (MXNet's Convolution)."""
    inputs = [data, weight] + ([] if no_bias else [bias])
    return _call(
        'Convolution',
        *inputs,
        kernel=kernel,
        stride=stride,
        dilate=dilate,
        pad=pad,
        num_filter=num_filter,
        num_group=num_group,
        no_bias=no_bias,
        layout=layout,
    )


def pooling(
    data,
    kernel=(),
    stride=(),
    pad=(),
    pool_type='max',
    pooling_convention='valid',
    global_pool=False,
    layout=None,
    **kwargs,
):
    """Max, average or sum pooling (MXNet's Pooling)."""
    return _call(
        'Pooling',
        data,
        kernel=kernel,
        stride=stride,
        pad=pad,
        pool_type=pool_type,
        pooling_convention=pooling_convention,
        global_pool=global_pool,
        layout=layout,
    )


def batch_norm(
    x,
    gamma,
    beta,
    running_mean,
    running_var,
    eps=1e-3,
    momentum=0.9,
    fix_gamma=True,
    use_global_stats=False,
    axis=1,
    **kwargs,
):
    """Batch normalization (MXNet's BatchNorm)."""
    return _call(
        'BatchNorm',
        x,
        gamma,
        beta,
        running_mean,
        running_var,
        eps=eps,
        momentum=momentum,
        fix_gamma=fix_gamma,
        use_global_stats=use_global_stats,
        axis=axis,
    )


def layer_norm(data, gamma, beta, axis=-1, eps=1e-5):
    """Layer normalization (MXNet's LayerNorm)."""
    return _call('LayerNorm', data, gamma, beta, axis=axis, eps=eps)


def dropout(data, p=0.5, mode='training', axes=()):
    """Zero entries with probability ``p`` in training mode."""
    return _call('Dropout', data, p=p, mode=mode, axes=tuple(axes))


def embedding(
    data,
    weight,
    input_dim=None,
    output_dim=None,
    dtype='float32',
    sparse_grad=False,
):
    """Rows of ``weight`` for the integer ids ``data``."""
    return _call(
        'Embedding',
        data,
        weight,
        input_dim=input_dim,
        output_dim=output_dim,
        dtype=dtype,
    )


def smooth_l1(data, scalar=1.0):
    """The smooth L1 (Huber-like) function."""
    return _call('smooth_l1', _as_array(data), scalar=scalar)


def rnn(*inputs, **attrs):
    """The fused RNN operator (MXNet's RNN), as ``nd.RNN``."""
    return _to_np(_nd.RNN(*inputs, **attrs))


def gamma(data):
    """The gamma function element-wise."""
    return _call('gamma', _as_array(data))


def gammaln(data):
    """``log|gamma(x)|`` element-wise."""
    return _call('gammaln', _as_array(data))


def erf(data):
    """The error function element-wise."""
    return _call('erf', _as_array(data))


def erfinv(data):
    """The inverse error function element-wise."""
    return _call('erfinv', _as_array(data))


def slice(data, begin, end, step=()):  # noqa: A001 (MXNet's name)
    """``data[begin:end:step]`` per axis (MXNet's slice: None keeps an
    end open)."""
    return _call('slice', _as_array(data), begin=begin, end=end, step=step)


def cast(data, dtype):
    """``data`` converted to ``dtype`` (the gradient comes back in the
    input's dtype)."""
    return _call('Cast', _as_array(data), dtype=dtype)


def gather_nd(data, indices):
    """``data`` at the positions whose coordinates are the rows of
    ``indices`` (shape ``(M, ...)``, ``M`` leading axes of ``data``)."""
    return _call('gather_nd', _as_array(data), _as_array(indices))


def reshape_like(
    lhs, rhs, lhs_begin=None, lhs_end=None, rhs_begin=None, rhs_end=None
):
    """``lhs`` reshaped to ``rhs``'s shape (or part of it)."""
    return _call(
        'reshape_like',
        _as_array(lhs),
        _as_array(rhs),
        lhs_begin=lhs_begin,
        lhs_end=lhs_end,
        rhs_begin=rhs_begin,
        rhs_end=rhs_end,
    )


def shape_array(data):
    """The shape of ``data`` as a 1-D int64 array."""
    return _call('shape_array', _as_array(data))


def arange_like(data, start=0.0, step=1.0, repeat=1, ctx=None, axis=None):
    """``arange`` with the length of ``data`` (along ``axis``)."""
    data = _as_array(data)
    n = data.size if axis is None else data.shape[axis]
    y = _F.add(_F.multiply(_nd_arange(n, data), step), start)
    return y if axis is not None else _F.reshape(y, data.shape)


def _nd_arange(n, like):
    from ..numpy.creation import arange

    return arange(n, dtype=like.dtype, ctx=like.context)


def _install_f_namespaces():
    """``F.np``/``F.npx`` inside ``hybrid_forward(self, F, x)``: with
    ``F = mx.nd`` they are ``mx.np``/``mx.npx``."""
    import sys

    from .. import numpy as np_module

    _nd.np = np_module
    _nd.npx = sys.modules[__name__]


_install_f_namespaces()
