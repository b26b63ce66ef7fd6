"""Operators: dense layers, dropout, embedding, sequence masking.

``FullyConnected``, ``Dropout``, ``Embedding``, ``SequenceMask`` and
``softmax_cross_entropy`` as in MXNet 1.x (src/operator/nn/
fully_connected-inl.h, src/operator/nn/dropout-inl.h,
src/operator/tensor/indexing_op.h, src/operator/sequence_mask-inl.h,
src/operator/loss_binary_op-inl.h).  Activations and softmax live in
``activation.py``, normalization layers in ``batch_norm.py``,
``sample_norm.py`` and ``lrn.py``.
"""

from ..backend.blas_threads import for_gemm
from ..base import DLBookError
from .activation import is_known_shape, stable_log_softmax
from .kernels import Elementwise
from .op import Op, register
from .sparse import RowSparse


@register('FullyConnected')
class FullyConnected(Op):
    """y = x @ weight.T + bias   (x flattened to (N, -1) when ``flatten``)

    dx = dy @ weight;   dweight = dy.T @ x;   dbias = dy.sum(0)
    With ``flatten=False`` the layer acts on the last axis and every other
    axis is treated as batch.
    """

    skips_unneeded_grads = True

    arguments = ('data', 'weight', 'bias')
    learned_inputs = ('weight', 'bias')
    defaults = {'num_hidden': None, 'no_bias': False, 'flatten': True}
    same_dtype = True

    def list_arguments(self):
        if self.attrs['no_bias']:
            return ('data', 'weight')
        return self.arguments

    def _in_units(self, data_shape):
        if self.attrs['flatten']:
            size = 1
            for n in data_shape[1:]:
                size *= int(n)
            return size
        return int(data_shape[-1])

    def _num_hidden(self):
        num_hidden = self.attrs['num_hidden']
        if num_hidden is None:
            raise DLBookError('FullyConnected: num_hidden is required')
        return int(num_hidden)

    def infer_shape(self, *in_shapes):
        num_hidden = self._num_hidden()
        data = in_shapes[0]
        no_bias = self.attrs['no_bias']
        bias_shape = [] if no_bias else [(num_hidden,)]
        if not is_known_shape(data):
            # as MXNet, nothing is inferred before the data shape
            given = list(in_shapes[1:3]) + [None, None]
            return (
                [data, given[0]] + ([] if no_bias else [given[1]]),
                [None],
                [],
            )
        data = tuple(int(n) for n in data)
        weight = (num_hidden, self._in_units(data))
        if self.attrs['flatten']:
            out = (data[0], num_hidden)
        else:
            out = data[:-1] + (num_hidden,)
        return [data, weight] + bias_shape, [out], []

    def forward(self, xp, x, weight, bias=None):
        return self.product(xp, x, weight, bias, self.check(x, weight, bias))

    def check(self, x, weight, bias):
        """Raise unless the shapes fit the attributes; return the input
        width (``in_units``)."""
        num_hidden = self._num_hidden()
        in_units = self._in_units(x.shape)
        if weight.shape != (num_hidden, in_units):
            raise DLBookError(
                f'FullyConnected: weight has shape {weight.shape} but data '
                f'of shape {x.shape} (flatten={self.attrs["flatten"]}) with '
                f'num_hidden={num_hidden} needs ({num_hidden}, {in_units})'
            )
        no_bias = self.attrs['no_bias']
        if not no_bias:
            if bias is None:
                raise DLBookError(
                    'FullyConnected: bias is missing; pass it '
                    'or set no_bias=True'
                )
            if bias.shape != (num_hidden,):
                raise DLBookError(
                    f'FullyConnected: bias has shape '
                    f'{bias.shape}, expected ({num_hidden},)'
                )
        return in_units

    def product(self, xp, x, weight, bias, in_units):
        """``x @ weight.T + bias`` for inputs :meth:`check` accepted."""
        num_hidden = weight.shape[0]
        no_bias = self.attrs['no_bias']
        # A 2-D view (batch, in_units); reshape of a contiguous array is free.
        x2 = x if x.ndim == 2 else x.reshape(-1, in_units)
        for_gemm(xp, x2.shape[0], num_hidden, in_units)
        y = x2 @ weight.T  # BLAS reads weight transposed
        if not no_bias:
            y += bias  # in place: no extra copy
        self.saved = (x2, weight, x.shape)
        if self.attrs['flatten']:
            return y
        return y.reshape(x.shape[:-1] + (num_hidden,))

    def backward(self, xp, dy):
        x2, weight, x_shape = self.saved
        dy2 = dy if dy.ndim == 2 else dy.reshape(-1, dy.shape[-1])
        # the first layer's input (the data) usually needs no gradient:
        # skipping it saves a third of that layer's backward work
        needs = self.needs_input_grad
        for_gemm(xp, *x2.shape, weight.shape[0])
        dx = None
        if needs is None or needs[0]:
            dx = (dy2 @ weight).reshape(x_shape)
        if x2.shape[0] == 1:
            # one row (batch 1): dweight is an outer product.  NumPy's
            # matmul with an inner dimension of 1 takes a slow loop (5x
            # slower); ``dot`` hands it to BLAS, 1.5x faster than the
            # broadcast product ``dy2.T * x2`` (256x784: 56 against 82 us),
            # with the same values: each element is one product
            dweight = xp.dot(dy2.T, x2)
        else:
            dweight = dy2.T @ x2
        if self.attrs['no_bias']:
            return dx, dweight
        return dx, dweight, dy2.sum(axis=0)

    def graph_grads(self, F, inputs, dys):
        x, weight = inputs[:2]
        dy = dys[0]
        x2 = x.reshape((x.shape[0], -1)) if self.attrs['flatten'] else x
        x2 = x2.reshape((-1, x2.shape[-1]))
        dy2 = dy.reshape((-1, dy.shape[-1]))
        grads = (
            F.dot(dy2, weight).reshape(x.shape),
            F.dot(dy2, x2, transpose_a=True),
        )
        if self.attrs['no_bias']:
            return grads
        return grads + (dy2.sum(axis=0),)


def _dropout_steps(xp, x, u, p, scale):
    """:data:`DROPOUT` in array operations: ``(y, mask)``."""
    mask = (u >= p).astype(x.dtype) * scale
    return x * mask, mask


#: Dropout's forward as one kernel: ``mask = scale`` where the uniform
#: draw ``u >= p``, else 0; ``y = x * mask``.  (As array operations: a
#: comparison, a cast, a scaling and the product, four launches.)
DROPOUT = Elementwise(
    'dlbook_dropout',
    'T x, float64 u, float64 p, T scale',
    'T y, T mask',
    'mask = u >= p ? scale : (T)0; y = x * mask;',
    _dropout_steps,
)


@register('Dropout')
class Dropout(Op):
    """Training: y = x * mask / (1 - p), mask ~ Bernoulli(1 - p);
    otherwise y = x.   dx = dy * mask / (1 - p)

    ``axes`` share one mask value along those axes (variational dropout);
    ``mode='always'`` drops in inference too.
    """

    defaults = {'p': 0.5, 'mode': 'training', 'axes': (), 'cudnn_off': False}
    needs_rng = True

    def forward(self, xp, x):
        p = float(self.attrs['p'])
        mode = self.attrs['mode']
        if mode not in ('training', 'always'):
            raise DLBookError(
                f'Dropout: mode must be \'training\' or '
                f'\'always\', got {mode!r}'
            )
        if not 0 <= p <= 1:
            raise DLBookError(f'Dropout: p must be in [0, 1], got {p}')
        active = self.is_train or mode == 'always'
        if not active or p == 0:
            self.saved = (None,)
            return x.copy()
        mask_shape = list(x.shape)
        for axis in self.attrs['axes'] or ():
            mask_shape[axis] = 1
        if p == 1:
            mask = xp.zeros(mask_shape, dtype=x.dtype)
            self.saved = (mask,)
            return x * mask
        u = xp.asarray(self.rng.uniform(0.0, 1.0, size=tuple(mask_shape)))
        # with ``axes`` the mask broadcasts; on a GPU the kernel's mask
        # then has the shape of x (the same values, repeated)
        y, mask = DROPOUT(xp, x, u, p, 1 / (1 - p))
        self.saved = (mask,)
        return y

    def backward(self, xp, dy):
        (mask,) = self.saved
        return dy if mask is None else dy * mask


@register('Embedding')
class Embedding(Op):
    """y = weight[data]   (indices clipped to [0, input_dim - 1]);
    dweight[i] = sum of dy rows whose index is i;   no gradient for data
    """

    arguments = ('data', 'weight')
    learned_inputs = ('weight',)
    defaults = {
        'input_dim': None,
        'output_dim': None,
        'dtype': 'float32',
        'sparse_grad': False,
    }
    offers_row_sparse = True

    def infer_shape(self, *in_shapes):
        data = in_shapes[0]
        weight = (int(self.attrs['input_dim']), int(self.attrs['output_dim']))
        if not is_known_shape(data):
            return [data, weight], [None], []
        data = tuple(int(n) for n in data)
        return [data, weight], [data + (weight[1],)], []

    def forward(self, xp, data, weight):
        input_dim = self.attrs['input_dim']
        output_dim = self.attrs['output_dim']
        expected = (
            int(input_dim) if input_dim is not None else None,
            int(output_dim) if output_dim is not None else None,
        )
        if weight.ndim != 2 or any(
            want is not None and got != want
            for got, want in zip(weight.shape, expected)
        ):
            raise DLBookError(
                f'Embedding: weight has shape {weight.shape}, '
                f'expected (input_dim, output_dim) = {expected}'
            )
        # MXNet truncates float indices to int, then clips (take, mode=clip)
        index = xp.clip(data.astype('int64'), 0, weight.shape[0] - 1)
        self.saved = (index, weight.shape, weight.dtype)
        return weight[index]

    def backward(self, xp, dy):
        index, shape, dtype = self.saved
        if self.attrs['sparse_grad'] and getattr(
            self, 'row_sparse_grad', False
        ):
            # row-sparse dweight: one row per distinct index (autograd tape)
            rows, inverse = xp.unique(index.reshape(-1), return_inverse=True)
            data = xp.zeros((len(rows), shape[1]), dtype=dtype)
            xp.add.at(data, inverse.reshape(-1), dy.reshape(-1, shape[1]))
            return None, RowSparse(xp, data, rows.astype('int64'), shape)
        dweight = xp.zeros(shape, dtype=dtype)
        # add.at accumulates repeated indices (dweight[index] += ... would
        # keep only one of them)
        xp.add.at(dweight, index.reshape(-1), dy.reshape(-1, shape[1]))
        return None, dweight


@register('SequenceMask', 'sequence_mask')
class SequenceMask(Op):
    """y[t, n] = x[t, n] if t < sequence_length[n] else value;
    dx = dy where kept, 0 elsewhere

    ``axis=0``: layout (T, N, ...); ``axis=1``: layout (N, T, ...).
    Without ``use_sequence_length`` the data passes through unchanged.
    """

    arguments = ('data', 'sequence_length')
    defaults = {'use_sequence_length': False, 'value': 0.0, 'axis': 0}

    def list_arguments(self):
        if self.attrs['use_sequence_length']:
            return self.arguments
        return ('data',)

    def forward(self, xp, x, sequence_length=None):
        self.saved = (None,)
        if not self.attrs['use_sequence_length']:
            return x.copy()
        axis = self.attrs['axis']
        if axis not in (0, 1) or x.ndim < 2:
            raise DLBookError(
                f'SequenceMask: axis must be 0 (TNC) or 1 '
                f'(NTC) on data with at least 2 dimensions; '
                f'got axis={axis}, data {x.shape}'
            )
        batch = x.shape[1 - axis]
        if sequence_length is None or sequence_length.shape != (batch,):
            got = None if sequence_length is None else sequence_length.shape
            raise DLBookError(
                f'SequenceMask: sequence_length must have '
                f'shape ({batch},) for data {x.shape} with '
                f'axis={axis}, got {got}'
            )
        steps = xp.arange(x.shape[axis])
        length = sequence_length.astype('int64')
        if axis == 0:
            keep = steps[:, None] < length[None, :]  # (T, N)
        else:
            keep = steps[None, :] < length[:, None]  # (N, T)
        keep = keep.reshape(keep.shape + (1,) * (x.ndim - 2))
        self.saved = (keep,)
        fill = xp.asarray(self.attrs['value'], dtype=x.dtype)
        return xp.where(keep, x, fill)

    def backward(self, xp, dy):
        (keep,) = self.saved
        if keep is None:
            return dy
        return xp.where(keep, dy, 0), None


@register('softmax_cross_entropy')
class SoftmaxCrossEntropy(Op):
    """y = -sum_i log(softmax(x_i)[label_i])   (shape (1,));
    dx = dy * (softmax(x) - one_hot(label));   no gradient for label
    """

    arguments = ('data', 'label')

    def infer_shape(self, *in_shapes):
        data = in_shapes[0]
        if not is_known_shape(data):
            return list(in_shapes), [(1,)], []
        return [tuple(data), (int(data[0]),)], [(1,)], []

    def forward(self, xp, x, label):
        if x.ndim != 2 or label.shape != (x.shape[0],):
            raise DLBookError(
                f'softmax_cross_entropy: expects data (N, C) '
                f'and label (N,), got {x.shape} and '
                f'{label.shape}'
            )
        logp = stable_log_softmax(xp, x, 1)
        one_hot = xp.arange(x.shape[1]) == label.astype('int64')[:, None]
        self.saved = (logp, one_hot)
        return -(logp * one_hot).sum().reshape(1)

    def backward(self, xp, dy):
        logp, one_hot = self.saved
        return dy.reshape(()) * (xp.exp(logp) - one_hot), None
