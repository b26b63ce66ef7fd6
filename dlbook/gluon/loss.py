"""Losses: how wrong a prediction is, one number per example.

Every loss is a :class:`HybridBlock` written with ``F`` (``nd`` now,
``sym`` later), as in ``apache/mxnet@1.9.1:python/mxnet/gluon/loss.py``.
They share three conventions the books rely on:

* the label is reshaped to the prediction's shape first, so ``(n,)``
  labels work with ``(n, 1)`` predictions;
* ``sample_weight`` multiplies the elementwise loss (broadcasting), the
  scalar ``weight`` multiplies everything;
* the result is the **mean over every axis except** ``batch_axis``: one
  value per example.  ``l.backward()`` then differentiates the *sum* over
  the batch, and ``trainer.step(batch_size)`` divides by the batch size.

Losses that take raw scores (logits) use forms that stay finite for scores
of any size (``log_softmax``, ``relu(x) - x*y + softrelu(-|x|)``).
"""

import math

from ..base import DLBookError, UsageError, numeric_types
from .block import HybridBlock

__all__ = [
    'Loss',
    'L2Loss',
    'L1Loss',
    'SigmoidBinaryCrossEntropyLoss',
    'SigmoidBCELoss',
    'SoftmaxCrossEntropyLoss',
    'SoftmaxCELoss',
    'KLDivLoss',
    'CTCLoss',
    'HuberLoss',
    'HingeLoss',
    'SquaredHingeLoss',
    'LogisticLoss',
    'TripletLoss',
    'PoissonNLLLoss',
    'CosineEmbeddingLoss',
    'SDMLLoss',
]


def _apply_weighting(F, loss, weight=None, sample_weight=None):
    """``loss * sample_weight * weight``.

    Parameters
    ----------
    loss : NDArray or Symbol
        The elementwise loss.
    weight : float or None
        Global scalar weight.
    sample_weight : NDArray or Symbol or None
        Per-sample weights, broadcastable to ``loss``: for a loss of shape
        ``(64, 10)``, shape ``(64, 1)`` weighs each example.
    """
    if sample_weight is not None:
        loss = F.broadcast_mul(loss, sample_weight)
    if weight is not None:
        if not isinstance(weight, numeric_types):
            raise UsageError(
                f'weight must be a number, got '
                f'{type(weight).__name__} {weight!r}; per-sample '
                f'weights go in sample_weight when calling the '
                f'loss.'
            )
        loss = loss * weight
    return loss


def _reshape_like(F, x, y):
    """``x`` reshaped to the shape of ``y`` (same number of elements)."""
    return F.reshape_like(x, y)


def _batch_mean(F, loss, batch_axis):
    """Mean over every axis except ``batch_axis``: one value per example."""
    return F.mean(loss, axis=batch_axis, exclude=True)


def _softrelu(F, x):
    """``log(1 + exp(x))``, computed without overflow."""
    return F.Activation(x, act_type='softrelu')


class Loss(HybridBlock):
    """Base class of losses.

    Parameters
    ----------
    weight : float or None
        Global scalar weight of the loss.
    batch_axis : int
        The axis that indexes examples in the mini-batch.
    """

    def __init__(self, weight, batch_axis, **kwargs):
        super().__init__(**kwargs)
        self._weight = weight
        self._batch_axis = batch_axis

    def __repr__(self):
        return (
            f'{type(self).__name__}(batch_axis={self._batch_axis}, '
            f'w={self._weight})'
        )

    def hybrid_forward(self, F, x, *args, **kwargs):
        """The loss of ``x`` against ``args``; subclasses define it."""
        raise NotImplementedError

    def _weighted_batch_mean(self, F, loss, sample_weight):
        """The elementwise ``loss`` times ``sample_weight`` and ``weight``,
        averaged over every axis except ``batch_axis``: how most losses
        end."""
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return _batch_mean(F, loss, self._batch_axis)


class L2Loss(Loss):
    r"""Half the squared error.

    .. math:: L = \frac{1}{2} \sum_i \vert {label}_i - {pred}_i \vert^2

    (averaged over the non-batch axes).

    Parameters
    ----------
    weight : float or None, default 1.
        Global scalar weight.
    batch_axis : int, default 0

    Inputs: ``pred``, ``label`` (same number of elements), optional
    ``sample_weight``.  Output: shape ``(batch_size,)``.
    """

    def __init__(self, weight=1.0, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.square(label - pred)
        loss = _apply_weighting(F, loss, self._weight / 2, sample_weight)
        return _batch_mean(F, loss, self._batch_axis)


class L1Loss(Loss):
    r"""Absolute error.

    .. math:: L = \sum_i \vert {label}_i - {pred}_i \vert

    Parameters
    ----------
    weight : float or None
    batch_axis : int, default 0
    """

    def __init__(self, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.abs(label - pred)
        return self._weighted_batch_mean(F, loss, sample_weight)


class SigmoidBinaryCrossEntropyLoss(Loss):
    r"""Binary cross-entropy, from scores or probabilities
    (alias ``SigmoidBCELoss``).

    With ``from_sigmoid=False`` (scores :math:`x`, labels :math:`z` in
    [0, 1], positive-class weight :math:`w_p`):

    .. math::

        L = -\sum_i w_{p,i} z_i \log \sigma(x_i)
            + (1 - z_i) \log(1 - \sigma(x_i))

    computed in the stable form
    :math:`\max(x, 0) - x z + \log(1 + e^{-|x|})`, or with ``pos_weight``
    :math:`x - x z + (1 + (w_p - 1) z)(\log(1 + e^{-|x|}) + \max(-x, 0))`.
    With ``from_sigmoid=True`` ``pred`` is a probability :math:`p` and
    :math:`L = -\sum_i w_{p,i} z_i \log(p_i + \epsilon)
    + (1 - z_i) \log(1 - p_i + \epsilon)`, :math:`\epsilon = 10^{-12}`.

    Parameters
    ----------
    from_sigmoid : bool, default False
        Whether ``pred`` is already a probability.
    weight : float or None
    batch_axis : int, default 0

    Inputs: ``pred``, ``label``, optional ``sample_weight``, optional
    ``pos_weight`` (broadcastable to ``pred``, e.g. ``(1, classes)``).
    """

    def __init__(
        self, from_sigmoid=False, weight=None, batch_axis=0, **kwargs
    ):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_sigmoid = from_sigmoid

    def hybrid_forward(
        self, F, pred, label, sample_weight=None, pos_weight=None
    ):
        label = _reshape_like(F, label, pred)
        if not self._from_sigmoid:
            if pos_weight is None:
                loss = F.relu(pred) - pred * label + _softrelu(F, -F.abs(pred))
            else:
                log_weight = 1 + F.broadcast_mul(pos_weight - 1, label)
                loss = (
                    pred
                    - pred * label
                    + log_weight * (_softrelu(F, -F.abs(pred)) + F.relu(-pred))
                )
        else:
            eps = 1e-12
            positive = F.log(pred + eps) * label
            if pos_weight is not None:
                positive = F.broadcast_mul(positive, pos_weight)
            loss = -(positive + F.log(1.0 - pred + eps) * (1.0 - label))
        return self._weighted_batch_mean(F, loss, sample_weight)


SigmoidBCELoss = SigmoidBinaryCrossEntropyLoss


class SoftmaxCrossEntropyLoss(Loss):
    r"""Softmax cross-entropy (alias ``SoftmaxCELoss``).

    With ``sparse_label=True`` (class indices, possibly as floats):

    .. math:: p = \mathrm{softmax}({pred}), \quad
              L = -\sum_i \log p_{i, {label}_i}

    With ``sparse_label=False`` (a distribution per example, the shape of
    ``pred``): :math:`L = -\sum_i \sum_j {label}_{ij} \log p_{ij}`.
    ``log_softmax`` is used, never ``log(softmax)``, so large scores stay
    finite.

    Parameters
    ----------
    axis : int, default -1
        The class axis.
    sparse_label : bool, default True
    from_logits : bool, default False
        Whether ``pred`` already holds log-probabilities.
    weight : float or None
    batch_axis : int, default 0
    """

    def __init__(
        self,
        axis=-1,
        sparse_label=True,
        from_logits=False,
        weight=None,
        batch_axis=0,
        **kwargs,
    ):
        super().__init__(weight, batch_axis, **kwargs)
        self._axis = axis
        self._sparse_label = sparse_label
        self._from_logits = from_logits

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, axis=self._axis)
        if self._sparse_label:
            loss = -F.pick(pred, label, axis=self._axis, keepdims=True)
        else:
            label = _reshape_like(F, label, pred)
            loss = -F.sum(pred * label, axis=self._axis, keepdims=True)
        return self._weighted_batch_mean(F, loss, sample_weight)


SoftmaxCELoss = SoftmaxCrossEntropyLoss


class KLDivLoss(Loss):
    r"""Kullback-Leibler divergence of ``pred`` from ``label``.

    .. math:: L = \sum_i {label}_i (\log({label}_i + 10^{-12}) - {pred}_i)

    where ``pred`` holds log-probabilities (``from_logits=True``) or raw
    scores turned into them by ``log_softmax`` along ``axis``.  Summed
    over every axis but the batch axis (MXNet 1.9.1 sums here, where its
    other losses average).

    Parameters
    ----------
    from_logits : bool, default True
    axis : int, default -1
    weight : float or None
    batch_axis : int, default 0
    """

    def __init__(
        self, from_logits=True, axis=-1, weight=None, batch_axis=0, **kwargs
    ):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._axis = axis

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, axis=self._axis)
        loss = label * (F.log(label + 1e-12) - pred)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.sum(loss, axis=self._batch_axis, exclude=True)


class CTCLoss(Loss):
    r"""Connectionist Temporal Classification loss.

    .. math:: L = -\log \sum_{\pi \in \mathcal{B}^{-1}({label})}
              \prod_t \mathrm{softmax}({pred}_t)_{\pi_t}

    over all alignments :math:`\pi` that collapse to the label once
    repeats are merged and blanks removed (operator ``CTCLoss``).

    Parameters
    ----------
    layout : {'NTC', 'TNC'}, default 'NTC'
        Layout of ``pred`` (batch, time, classes).  The last class,
        ``alphabet_size - 1``, is the blank.
    label_layout : {'NT', 'TN'}, default 'NT'
        Layout of ``label``, padded with -1.
    weight : float or None

    Inputs: ``pred``, ``label``, optional ``pred_lengths`` and
    ``label_lengths`` of shape ``(batch_size,)``, optional
    ``sample_weight``.  Output: shape ``(batch_size,)``.
    """

    def __init__(self, layout='NTC', label_layout='NT', weight=None, **kwargs):
        if layout not in ['NTC', 'TNC']:
            raise UsageError(
                f"Only 'NTC' and 'TNC' layouts for pred are "
                f'supported. Got: {layout}'
            )
        if label_layout not in ['NT', 'TN']:
            raise UsageError(
                f"Only 'NT' and 'TN' layouts for label are "
                f'supported. Got: {label_layout}'
            )
        self._layout = layout
        self._label_layout = label_layout
        batch_axis = label_layout.find('N')
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(
        self,
        F,
        pred,
        label,
        pred_lengths=None,
        label_lengths=None,
        sample_weight=None,
    ):
        if self._layout == 'NTC':
            pred = F.swapaxes(pred, dim1=0, dim2=1)
        if self._batch_axis == 1:
            label = F.swapaxes(label, dim1=0, dim2=1)
        loss = F.CTCLoss(
            pred,
            label,
            pred_lengths,
            label_lengths,
            use_data_lengths=pred_lengths is not None,
            use_label_lengths=label_lengths is not None,
            blank_label='last',
        )
        return _apply_weighting(F, loss, self._weight, sample_weight)


class HuberLoss(Loss):
    r"""Smoothed L1 loss: quadratic near 0, linear beyond ``rho``.

    .. math::

        L = \sum_i \begin{cases}
            \frac{1}{2 \rho} ({label}_i - {pred}_i)^2
                & \text{if } |{label}_i - {pred}_i| \le \rho \\
            |{label}_i - {pred}_i| - \frac{\rho}{2} & \text{otherwise}
        \end{cases}

    Parameters
    ----------
    rho : float, default 1
    weight : float or None
    batch_axis : int, default 0
    """

    def __init__(self, rho=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._rho = rho

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.abs(label - pred)
        loss = F.where(
            loss > self._rho,
            loss - 0.5 * self._rho,
            (0.5 / self._rho) * F.square(loss),
        )
        return self._weighted_batch_mean(F, loss, sample_weight)


class HingeLoss(Loss):
    r"""The SVM hinge loss, labels -1 or 1.

    .. math:: L = \sum_i \max(0, {margin} - {pred}_i \cdot {label}_i)

    Parameters
    ----------
    margin : float, default 1
    weight : float or None
    batch_axis : int, default 0
    """

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.relu(self._margin - pred * label)
        return self._weighted_batch_mean(F, loss, sample_weight)


class SquaredHingeLoss(Loss):
    r"""The soft-margin (squared hinge) loss, labels -1 or 1.

    .. math:: L = \sum_i \max(0, {margin} - {pred}_i \cdot {label}_i)^2

    Parameters
    ----------
    margin : float, default 1
    weight : float or None
    batch_axis : int, default 0
    """

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.square(F.relu(self._margin - pred * label))
        return self._weighted_batch_mean(F, loss, sample_weight)


class LogisticLoss(Loss):
    r"""The logistic loss of binary classification.

    .. math:: L = \sum_i \log(1 + \exp(-{pred}_i \cdot {label}_i))

    for labels -1/1 (``label_format='signed'``); labels 0/1
    (``'binary'``) are mapped to -1/1 first.  Computed as
    :math:`\max(x, 0) - x z + \log(1 + e^{-|x|})` with :math:`z` in {0, 1}.

    Parameters
    ----------
    weight : float or None
    batch_axis : int, default 0
    label_format : {'signed', 'binary'}, default 'signed'
    """

    def __init__(
        self, weight=None, batch_axis=0, label_format='signed', **kwargs
    ):
        super().__init__(weight, batch_axis, **kwargs)
        self._label_format = label_format
        if self._label_format not in ['signed', 'binary']:
            raise ValueError(
                f'label_format can only be signed or binary, '
                f'recieved {label_format}.'
            )

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        if self._label_format == 'signed':
            label = (label + 1.0) / 2.0  # -1/1 -> 0/1
        loss = F.relu(pred) - pred * label + _softrelu(F, -F.abs(pred))
        return self._weighted_batch_mean(F, loss, sample_weight)


class TripletLoss(Loss):
    r"""Triplet loss: ``pred`` should be nearer ``positive`` than
    ``negative`` by ``margin``.

    .. math:: L = \max\Big(\sum_j ({positive}_j - {pred}_j)^2
              - ({negative}_j - {pred}_j)^2 + {margin}, 0\Big)

    (the sum runs over the non-batch axes).

    Parameters
    ----------
    margin : float, default 1
    weight : float or None
    batch_axis : int, default 0
    """

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, positive, negative, sample_weight=None):
        positive = _reshape_like(F, positive, pred)
        negative = _reshape_like(F, negative, pred)
        loss = F.sum(
            F.square(positive - pred) - F.square(negative - pred),
            axis=self._batch_axis,
            exclude=True,
        )
        loss = F.relu(loss + self._margin)
        return _apply_weighting(F, loss, self._weight, sample_weight)


class PoissonNLLLoss(Loss):
    r"""Negative log-likelihood of ``target`` under a Poisson law.

    .. math:: L = \text{pred} - \text{target} \log(\text{pred} + \epsilon)

    or, with ``from_logits=True`` (``pred`` is the log-rate),
    :math:`L = e^{\text{pred}} - \text{target} \cdot \text{pred}`.  With
    ``compute_full=True`` Stirling's approximation of
    :math:`\log(\text{target}!)`,
    :math:`t \log t - t + \frac{1}{2} \log(2 \pi t)`, is added where
    :math:`t > 1`.  (``e^pred`` overflows for log-rates beyond about 88
    in float32, as the formula says it must.)  The result is the mean
    over every element, one number of shape ``(1,)`` for the whole batch
    (MXNet 1.9.1's, unlike its other losses).

    Parameters
    ----------
    weight : float or None
    from_logits : bool, default True
    batch_axis : int, default 0
    compute_full : bool, default False

    Inputs: ``pred``, ``target``, optional ``sample_weight``, optional
    ``epsilon`` (default 1e-08).
    """

    def __init__(
        self,
        weight=None,
        from_logits=True,
        batch_axis=0,
        compute_full=False,
        **kwargs,
    ):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._compute_full = compute_full

    def hybrid_forward(
        self, F, pred, target, sample_weight=None, epsilon=1e-08
    ):
        target = _reshape_like(F, target, pred)
        if self._from_logits:
            loss = F.exp(pred) - target * pred
        else:
            loss = pred - target * F.log(pred + epsilon)
        if self._compute_full:
            # where(), not a product with the mask: t log t is NaN at t = 0.
            big = target > 1
            safe = F.where(big, target, F.ones_like(target))
            stirling = (
                safe * F.log(safe) - safe + 0.5 * F.log(2 * math.pi * safe)
            )
            loss = loss + F.where(big, stirling, F.zeros_like(stirling))
        # one number for the whole batch, shape (1,), as MXNet 1.9.1
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss)


class CosineEmbeddingLoss(Loss):
    r"""Cosine distance for similar pairs (label 1) and a hinge on the
    cosine similarity for dissimilar ones (label -1).

    .. math::

        L = \sum_i \begin{cases}
            1 - \cos(x_{1,i}, x_{2,i}) & \text{if } {label}_i = 1 \\
            \max(0, \cos(x_{1,i}, x_{2,i}) - {margin})
                & \text{if } {label}_i = -1
        \end{cases}

    with :math:`\cos(a, b) = a \cdot b / \max(\Vert a \Vert
    \Vert b \Vert, 10^{-12})` along the last axis; other labels give 0.
    The loss has shape ``(batch_size, 1)``, not averaged (MXNet 1.9.1's).

    Parameters
    ----------
    weight : float or None
    batch_axis : int, default 0
    margin : float, default 0
    """

    def __init__(self, weight=None, batch_axis=0, margin=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, input1, input2, label, sample_weight=None):
        input1 = _reshape_like(F, input1, input2)
        label = F.reshape(label, shape=(-1, 1))
        cos_sim = self._cosine_similarity(F, input1, input2)
        # a label other than 1 and -1 contributes 0, as in MXNet
        similar = (1 - cos_sim) * (label == 1)
        dissimilar = F.relu((label == -1) * (cos_sim - self._margin))
        loss = _apply_weighting(
            F, similar + dissimilar, self._weight, sample_weight
        )
        return loss  # (batch_size, 1), as MXNet 1.9.1 returns it

    def _cosine_similarity(self, F, x, y, axis=-1):
        """``x . y / max(|x| |y|, 1e-12)`` along ``axis``, shape (-1, 1)."""
        x_norm = F.reshape(F.norm(x, axis=axis), shape=(-1, 1))
        y_norm = F.reshape(F.norm(y, axis=axis), shape=(-1, 1))
        x_dot_y = F.reshape(F.sum(x * y, axis=axis), shape=(-1, 1))
        return x_dot_y / F.maximum(x_norm * y_norm, 1e-12)


class SDMLLoss(Loss):
    r"""Smoothed Deep Metric Learning loss over a batch of aligned pairs
    (Bonadiman et al., 2019): ``x1[i]`` and ``x2[i]`` belong together,
    every other ``x2[j]`` of the batch is a negative example.

    With the squared distances :math:`d_{ij} = \Vert x_{1,i} -
    x_{2,j}\Vert^2`, the predicted distribution of row :math:`i` is
    :math:`p_i = \mathrm{softmax}_j(-d_{ij})`, and the target puts
    :math:`1 - s` on :math:`j = i` and :math:`s / (B - 1)` on every other
    :math:`j` (label smoothing, :math:`s` the ``smoothing_parameter``):

    .. math:: L_i = \frac{1}{B} \sum_j t_{ij} (\log(t_{ij} + 10^{-12})
              - \log p_{ij})

    (``KLDivLoss`` of the row, averaged over its :math:`B` entries).

    Parameters
    ----------
    smoothing_parameter : float, default 0.3
        Probability mass spread over the negative examples (< 1).
    weight : float, default 1
    batch_axis : int, default 0

    Inputs: ``x1``, ``x2`` of shape ``(batch_size, vector_dim)``;
    output: the loss, shape ``(batch_size,)``.
    """

    def __init__(
        self, smoothing_parameter=0.3, weight=1.0, batch_axis=0, **kwargs
    ):
        super().__init__(weight, batch_axis, **kwargs)
        self.kl_loss = KLDivLoss(from_logits=True)
        self.smoothing_parameter = smoothing_parameter

    def _compute_distances(self, x1, x2):
        """Squared euclidean distances between every row of ``x1`` and
        every row of ``x2``: ``(batch_size, batch_size)``."""
        if x1.shape != x2.shape:
            raise DLBookError(
                f'SDMLLoss: x1 and x2 must have one shape, got {x1.shape} '
                f'and {x2.shape}'
            )
        batch_size, dim = x1.shape
        rows = x1.expand_dims(1).broadcast_to((batch_size, batch_size, dim))
        cols = x2.expand_dims(0).broadcast_to((batch_size, batch_size, dim))
        return ((rows - cols) ** 2).sum(axis=2)

    def _compute_labels(self, F, batch_size, dtype='float32'):
        """The smoothed identity: ``1 - s`` on the diagonal, ``s / (B -
        1)`` elsewhere (in the inputs' dtype: MXNet's float32 only)."""
        gold = F.eye(batch_size, dtype=dtype)
        s = self.smoothing_parameter
        return gold * (1 - s) + (1 - gold) * s / (batch_size - 1)

    def hybrid_forward(self, F, x1, x2):
        labels = self._compute_labels(F, x1.shape[0], x1.dtype)
        distances = self._compute_distances(x1, x2)
        log_probabilities = F.log_softmax(-distances, axis=1)
        return self.kl_loss(
            log_probabilities, labels.as_in_context(distances.context)
        )
