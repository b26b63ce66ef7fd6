"""Operators: MXNet's loss-output layers (the symbolic-API way to train).

``SoftmaxOutput``, ``LinearRegressionOutput``, ``LogisticRegressionOutput``,
``MAERegressionOutput`` and ``MakeLoss``.  Their forward pass is a plain
prediction (softmax, identity, sigmoid), but their backward pass **ignores
the head gradient** and returns the gradient of a loss that is never
computed: ``SoftmaxOutput`` gives ``softmax(x) - one_hot(label)``, the
gradient of the cross-entropy.  So ``exe.backward()`` needs no
``out_grads``, and ``nd`` code that calls ``y.backward()`` on them gets the
loss gradient, not the gradient of ``sum(y)``.  The label gets no gradient.

References: src/operator/softmax_output-inl.h,
src/operator/regression_output-inl.h, src/operator/make_loss-inl.h.
"""

from ..base import DLBookError
from .activation import is_known_shape, sigmoid, stable_softmax
from .op import Op, register

_NORMALIZATIONS = ('null', 'batch', 'valid')


def _check_normalization(op, normalization):
    if normalization not in _NORMALIZATIONS:
        raise DLBookError(
            f'{op}: normalization must be one of '
            f'{list(_NORMALIZATIONS)}, got {normalization!r}'
        )


@register('SoftmaxOutput', 'Softmax')
class SoftmaxOutput(Op):
    """y = softmax(x) (over axis 1 of x reshaped to (N, -1); over axis 1 with
    ``multi_output``; over the last axis with ``preserve_shape``)

    dx = grad_scale / norm * (y - one_hot(label))  -- the head gradient is
    ignored (unless ``out_grad``); rows whose label == ignore_label are 0
    when ``use_ignore``; ``smooth_alpha`` smooths the one-hot target to
    1 - alpha / alpha/(C-1).  norm: 'null' 1, 'batch' the number of labels,
    'valid' the number of labels != ignore_label.  A label shaped like x is
    a probability target: dx = grad_scale * (y - label).
    """

    arguments = ('data', 'label')
    defaults = {
        'grad_scale': 1.0,
        'ignore_label': -1.0,
        'multi_output': False,
        'use_ignore': False,
        'preserve_shape': False,
        'normalization': 'null',
        'out_grad': False,
        'smooth_alpha': 0.0,
    }

    def infer_shape(self, *in_shapes):
        data = in_shapes[0]
        label = in_shapes[1] if len(in_shapes) > 1 else None
        if not is_known_shape(data):
            return list(in_shapes), [None], []
        data = tuple(int(n) for n in data)
        if not is_known_shape(label):
            if self.attrs['multi_output']:
                size = 1
                for n in data[2:]:
                    size *= n
                label = (data[0], size)
            else:
                label = data[:-1]
        return [data, tuple(label)], [data], []

    def forward(self, xp, x, label):
        _check_normalization('SoftmaxOutput', self.attrs['normalization'])
        if self.attrs['multi_output']:
            if x.ndim < 2:
                raise DLBookError(
                    f'SoftmaxOutput: multi_output needs data '
                    f'(N, C, ...), got {x.shape}'
                )
            y = stable_softmax(xp, x, 1)
        elif self.attrs['preserve_shape']:
            y = stable_softmax(xp, x, -1)
        else:
            y = stable_softmax(xp, x.reshape(x.shape[0], -1), 1)
            y = y.reshape(x.shape)
        self.saved = (y, label)
        return y

    def backward(self, xp, dy):
        y, label = self.saved
        attrs = self.attrs
        grad_scale = float(attrs['grad_scale'])
        if label.shape == y.shape:  # probability labels
            dx = grad_scale * (y - label)
        elif attrs['multi_output']:
            dx = self._multi_output_grad(xp, y, label, grad_scale)
        else:
            dx = self._flat_grad(xp, y, label, grad_scale)
        if attrs['out_grad']:
            dx = dx * dy
        return dx.astype(y.dtype, copy=False), None

    def _ignored(self, label_int):
        return label_int == int(float(self.attrs['ignore_label']))

    def _valid_count(self, xp, label_int):
        """'valid' normalization: labels != ignore_label, at least 1."""
        count = int((~self._ignored(label_int)).sum())
        return max(count, 1)

    def _flat_grad(self, xp, y, label, grad_scale):
        # rows of a 2-D (rows, classes) view, one label per row
        classes = (
            y.shape[-1]
            if self.attrs['preserve_shape']
            else y.size // y.shape[0]
        )
        p = y.reshape(-1, classes)
        lab = label.reshape(-1).astype('int64')
        if lab.shape[0] != p.shape[0]:
            raise DLBookError(
                f'SoftmaxOutput: label of shape {label.shape} '
                f'does not match output {y.shape}; expected '
                f'{p.shape[0]} labels'
            )
        one_hot = xp.arange(classes) == lab[:, None]
        alpha = float(self.attrs['smooth_alpha'])
        if alpha:
            target = xp.where(one_hot, 1 - alpha, alpha / (classes - 1))
        else:
            target = one_hot
        grad = p - target
        if self.attrs['use_ignore']:
            grad = grad * (~self._ignored(lab))[:, None]
        normalization = self.attrs['normalization']
        if normalization == 'batch':
            count = lab.shape[0]
        elif normalization == 'valid':
            count = self._valid_count(xp, lab)
        else:
            count = 1
        return (grad * (grad_scale / count)).reshape(y.shape)

    def _multi_output_grad(self, xp, y, label, grad_scale):
        n, classes = y.shape[0], y.shape[1]
        p = y.reshape(n, classes, -1)  # (N, C, S)
        spatial = p.shape[2]
        if label.size != n * spatial:
            raise DLBookError(
                f'SoftmaxOutput: multi_output label of shape '
                f'{label.shape} does not match output '
                f'{y.shape}; expected ({n}, {spatial})'
            )
        lab = label.reshape(n, spatial).astype('int64')
        one_hot = xp.arange(classes)[None, :, None] == lab[:, None, :]
        grad = p - one_hot
        if self.attrs['use_ignore']:
            grad = grad * (~self._ignored(lab))[:, None, :]
        # MXNet (softmax_output-inl.h) divides by the spatial size S unless
        # normalization='valid', then by the count.
        normalization = self.attrs['normalization']
        if normalization == 'batch':
            count = n * spatial
        elif normalization == 'valid':
            count = self._valid_count(xp, lab)
        else:
            count = spatial
        return (grad * (grad_scale / count)).reshape(y.shape)


class _RegressionOutput(Op):
    """Shared shape rules of the three regression outputs."""

    arguments = ('data', 'label')
    defaults = {'grad_scale': 1.0}

    def infer_shape(self, *in_shapes):
        data = in_shapes[0]
        label = in_shapes[1] if len(in_shapes) > 1 else None
        if not is_known_shape(data):
            return list(in_shapes), [None], []
        data = tuple(int(n) for n in data)
        if not is_known_shape(label):
            # MXNet lets a (N, 1) output take a (N,) label
            label = (data[0],) if len(data) == 2 and data[1] == 1 else data
        return [data, tuple(label)], [data], []

    def forward(self, xp, x, label):
        if label.size != x.size or (
            label.ndim and label.shape[0] != x.shape[0]
        ):
            raise DLBookError(
                f'{self.name}: label of shape {label.shape} '
                f'does not match data of shape {x.shape}'
            )
        y = self.predict(xp, x)
        self.saved = (y, label)
        return y

    def backward(self, xp, dy):
        y, label = self.saved
        # MXNet scales by grad_scale / num_output, where num_output is the
        # size of one example's label (regression_output-inl.h).
        num_output = label.size // label.shape[0] if label.ndim else 1
        scale = float(self.attrs['grad_scale']) / num_output
        diff = self.gradient(xp, y, label.reshape(y.shape))
        return (diff * scale).astype(y.dtype, copy=False), None


@register('LinearRegressionOutput')
class LinearRegressionOutput(_RegressionOutput):
    """y = x;   dx = grad_scale / num_output * (y - label)  (head gradient
    ignored; num_output = label.size / label.shape[0])"""

    def predict(self, xp, x):
        return x.copy()

    def gradient(self, xp, y, label):
        return y - label


@register('LogisticRegressionOutput')
class LogisticRegressionOutput(_RegressionOutput):
    """y = sigmoid(x);   dx = grad_scale / num_output * (y - label)
    (the gradient of the binary cross-entropy; head gradient ignored)"""

    def predict(self, xp, x):
        return sigmoid(xp, x)

    def gradient(self, xp, y, label):
        return y - label


@register('MAERegressionOutput')
class MAERegressionOutput(_RegressionOutput):
    """y = x;   dx = grad_scale / num_output * sign(y - label)
    (head gradient ignored)"""

    def predict(self, xp, x):
        return x.copy()

    def gradient(self, xp, y, label):
        # MXNet's minus_sign: 1 where y > label, else -1 (also at y == label)
        one = xp.ones((), dtype=y.dtype)
        return xp.where(y > label, one, -one)


@register('MakeLoss')
class MakeLoss(Op):
    """y = x;   dx = grad_scale / norm everywhere (head gradient ignored)

    norm: 'null' 1; 'batch' x.shape[0]; 'valid' the number of elements of
    x greater than ``valid_thresh`` (at least 1).  Turns any expression into
    a loss for the symbolic API.
    """

    defaults = {
        'grad_scale': 1.0,
        'valid_thresh': 0.0,
        'normalization': 'null',
    }

    def forward(self, xp, x):
        _check_normalization('MakeLoss', self.attrs['normalization'])
        self.saved = (x,)
        return x.copy()

    def backward(self, xp, dy):
        (x,) = self.saved
        normalization = self.attrs['normalization']
        scale = float(self.attrs['grad_scale'])
        if normalization == 'batch':
            scale /= x.shape[0]
        elif normalization == 'valid':
            valid = int((x > float(self.attrs['valid_thresh'])).sum())
            scale /= max(valid, 1)
        return xp.full(x.shape, scale, dtype=x.dtype)


@register('make_loss')
class MakeLossOnes(MakeLoss):
    """y = x;   dx = 1 everywhere (head gradient ignored).

    The newer, attribute-free spelling of :class:`MakeLoss`; its output is
    named ``loss`` (``l_loss``) where ``MakeLoss``'s is ``output``.
    """

    defaults = {}

    def forward(self, xp, x):
        self.saved = (x,)
        return x.copy()

    def backward(self, xp, dy):
        (x,) = self.saved
        return xp.ones(x.shape, dtype=x.dtype)

    def list_outputs(self):
        return ('loss',)
