"""Metrics of predicted class probabilities, ``-log p[label]`` averaged:
:class:`CrossEntropy`, :class:`NegativeLogLikelihood` and, exponentiated,
:class:`Perplexity`."""

import math

import numpy

from ..base import UsageError
from .base import EvalMetric, _host, alias, check_label_shapes, register

__all__ = ['Perplexity', 'CrossEntropy', 'NegativeLogLikelihood']


@register
class Perplexity(EvalMetric):
    """Perplexity: ``exp(-sum(log p(label)) / N)``.

    Parameters
    ----------
    ignore_label : int or None
        Label value whose positions are left out (e.g. padding).
    axis : int, default -1
        The axis of the predictions that holds the classes.
    name, output_names, label_names
        As in :class:`EvalMetric`.

    Examples
    --------
    >>> predicts = [mx.nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])]
    >>> labels   = [mx.nd.array([0, 1, 1])]
    >>> perp = mx.metric.Perplexity(ignore_label=None)
    >>> perp.update(labels, predicts)
    >>> perp.get()
    ('Perplexity', 1.7710976285155853)
    """

    def __init__(
        self,
        ignore_label,
        axis=-1,
        name='perplexity',
        output_names=None,
        label_names=None,
    ):
        super().__init__(
            name,
            ignore_label=ignore_label,
            output_names=output_names,
            label_names=label_names,
            has_global_stats=True,
        )
        self.ignore_label = ignore_label
        self.axis = axis

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        loss = 0.0
        num = 0
        for label, pred in zip(labels, preds):
            label, pred = _host(label), _host(pred)
            if label.size != pred.size / pred.shape[-1]:
                raise UsageError(
                    f'shape mismatch: {label.shape} vs. {pred.shape}: '
                    f'{self.name} needs one label per prediction row (label '
                    f'size {label.size}, prediction rows '
                    f'{pred.size // max(pred.shape[-1], 1)}).'
                )
            label = label.reshape((label.size,))
            classes = numpy.moveaxis(pred, self.axis, -1)
            classes = classes.reshape(-1, classes.shape[-1])
            # nd.pick clips out-of-range indices; so does this.
            index = numpy.clip(label.astype('int32'), 0, classes.shape[1] - 1)
            prob = classes[numpy.arange(len(index)), index]
            if self.ignore_label is not None:
                ignore = (label == self.ignore_label).astype(prob.dtype)
                num -= float(ignore.sum())
                prob = prob * (1 - ignore) + ignore
            loss -= float(numpy.sum(numpy.log(numpy.maximum(1e-10, prob))))
            num += prob.size
        self._add(loss, num)

    def get(self):
        name, mean_nll = super().get()
        return (name, math.exp(mean_nll))

    def get_global(self):
        name, mean_nll = super().get_global()
        return (name, math.exp(mean_nll))


class _LabelLogMetric(EvalMetric):
    """``-sum(log(p[label] + eps))`` over examples, averaged."""

    def __init__(self, eps, name, output_names, label_names):
        super().__init__(
            name,
            eps=eps,
            output_names=output_names,
            label_names=label_names,
            has_global_stats=True,
        )
        self.eps = eps

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _host(label).ravel(), _host(pred)
            num_examples = pred.shape[0]
            if label.shape[0] != num_examples:
                raise UsageError(
                    f'{self.name}: {label.shape[0]} labels for '
                    f'{num_examples} predictions (shape {pred.shape}); give '
                    f'one label per prediction row.'
                )
            prob = pred[
                numpy.arange(num_examples, dtype=numpy.int64),
                numpy.int64(label),
            ]
            self._add(float((-numpy.log(prob + self.eps)).sum()), num_examples)


@register
@alias('ce')
class CrossEntropy(_LabelLogMetric):
    """Cross entropy of predicted probabilities:
    ``-sum(log(p[label] + eps)) / N``.

    Parameters
    ----------
    eps : float, default 1e-12
        Added to the probabilities before the log.
    name, output_names, label_names
        As in :class:`EvalMetric`.
    """

    def __init__(
        self,
        eps=1e-12,
        name='cross-entropy',
        output_names=None,
        label_names=None,
    ):
        super().__init__(eps, name, output_names, label_names)


@register
@alias('nll_loss')
class NegativeLogLikelihood(_LabelLogMetric):
    """Negative log-likelihood of predicted probabilities:
    ``-sum(log(p[label] + eps)) / N``.

    Parameters
    ----------
    eps : float, default 1e-12
        Added to the probabilities before the log.
    name, output_names, label_names
        As in :class:`EvalMetric`.
    """

    def __init__(
        self, eps=1e-12, name='nll-loss', output_names=None, label_names=None
    ):
        super().__init__(eps, name, output_names, label_names)
