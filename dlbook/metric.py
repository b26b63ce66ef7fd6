"""Online evaluation metrics (``mx.metric``).

A metric accumulates over batches with ``update(labels, preds)`` (lists of
NDArrays, or single NDArrays) and reports ``get() -> (name, value)``.
Each keeps two sets of counters, as in
``apache/mxnet@1.9.1:python/mxnet/metric.py``: local ones (``num_inst``,
``sum_metric``), cleared by ``reset_local()`` (e.g. every logging
interval), and global ones (``global_num_inst``, ``global_sum_metric``),
cleared only by ``reset()`` and read by ``get_global()``.

Values are computed with NumPy: each array is copied to the host once per
update (``.asnumpy()``).
"""

import math
from collections import OrderedDict

import numpy

from . import registry
from .ndarray import NDArray

__all__ = ['EvalMetric', 'CompositeEvalMetric', 'Accuracy', 'TopKAccuracy',
           'F1', 'MCC', 'Perplexity', 'MAE', 'MSE', 'RMSE', 'CrossEntropy',
           'NegativeLogLikelihood', 'PearsonCorrelation', 'PCC', 'Loss',
           'Torch', 'Caffe', 'CustomMetric', 'np', 'create', 'register',
           'alias', 'check_label_shapes']

_ARRAY_TYPES = (NDArray, numpy.ndarray)


def _host(x):
    """``x`` as a NumPy array (one device-to-host copy for an NDArray)."""
    return x.asnumpy() if hasattr(x, 'asnumpy') else numpy.asarray(x)


def check_label_shapes(labels, preds, wrap=False, shape=False):
    """Check that labels and predictions agree in length (or shape).

    Parameters
    ----------
    labels, preds : list or array
        The labels and the predictions.
    wrap : bool
        Wrap a single array into a one-element list.
    shape : bool
        Compare ``.shape`` instead of ``len``.
    """
    if not shape:
        label_shape, pred_shape = len(labels), len(preds)
    else:
        label_shape, pred_shape = labels.shape, preds.shape
    if label_shape != pred_shape:
        raise ValueError(f'Shape of labels {label_shape} does not match '
                         f'shape of predictions {pred_shape}')
    if wrap:
        if isinstance(labels, _ARRAY_TYPES):
            labels = [labels]
        if isinstance(preds, _ARRAY_TYPES):
            preds = [preds]
    return labels, preds


class EvalMetric:
    """Base class for all evaluation metrics.

    Parameters
    ----------
    name : str
        Name of this metric instance for display.
    output_names : list of str, or None
        Names of the predictions ``update_dict`` uses (default: all).
    label_names : list of str, or None
        Names of the labels ``update_dict`` uses (default: all).
    """

    def __init__(self, name, output_names=None, label_names=None,
                 **kwargs):
        self.name = str(name)
        self.output_names = output_names
        self.label_names = label_names
        self._has_global_stats = kwargs.pop('has_global_stats', False)
        self._kwargs = kwargs
        self.reset()

    def __str__(self):
        return f'EvalMetric: {dict(self.get_name_value())}'

    def get_config(self):
        """The configuration; ``mx.metric.create(**config)`` rebuilds it."""
        config = self._kwargs.copy()
        config.update({'metric': self.__class__.__name__,
                       'name': self.name,
                       'output_names': self.output_names,
                       'label_names': self.label_names})
        return config

    def update_dict(self, label, pred):
        """Update from dicts of name -> NDArray.

        Parameters
        ----------
        label : OrderedDict of str to NDArray
            Labels by name.
        pred : OrderedDict of str to NDArray
            Predicted outputs by name.
        """
        if self.output_names is not None:
            pred = [pred[name] for name in self.output_names]
        else:
            pred = list(pred.values())
        if self.label_names is not None:
            label = [label[name] for name in self.label_names]
        else:
            label = list(label.values())
        self.update(label, pred)

    def update(self, labels, preds):
        """Update the internal evaluation result.

        Parameters
        ----------
        labels : list of NDArray
            The labels of the data.
        preds : list of NDArray
            Predicted values.
        """
        raise NotImplementedError()

    def reset(self):
        """Reset the local and global counters."""
        self.num_inst = 0
        self.sum_metric = 0.0
        self.global_num_inst = 0
        self.global_sum_metric = 0.0

    def reset_local(self):
        """Reset the local counters only."""
        self.num_inst = 0
        self.sum_metric = 0.0

    def get(self):
        """The current local result: ``(name, value)``, value NaN when
        nothing was seen."""
        if self.num_inst == 0:
            return (self.name, float('nan'))
        return (self.name, self.sum_metric / self.num_inst)

    def get_global(self):
        """The result since the last ``reset()``: ``(name, value)``."""
        if self._has_global_stats:
            if self.global_num_inst == 0:
                return (self.name, float('nan'))
            return (self.name, self.global_sum_metric / self.global_num_inst)
        return self.get()

    def get_name_value(self):
        """The local result as a list of ``(name, value)`` pairs."""
        name, value = self.get()
        if not isinstance(name, list):
            name = [name]
        if not isinstance(value, list):
            value = [value]
        return list(zip(name, value))

    def get_global_name_value(self):
        """The global result as a list of ``(name, value)`` pairs."""
        if self._has_global_stats:
            name, value = self.get_global()
            if not isinstance(name, list):
                name = [name]
            if not isinstance(value, list):
                value = [value]
            return list(zip(name, value))
        return self.get_name_value()

    def _add(self, value, count):
        """Add to both the local and the global counters."""
        self.sum_metric += value
        self.global_sum_metric += value
        self.num_inst += count
        self.global_num_inst += count


# pylint: disable=invalid-name
register = registry.get_register_func(EvalMetric, 'metric')
alias = registry.get_alias_func(EvalMetric, 'metric')
_create = registry.get_create_func(EvalMetric, 'metric')
# pylint: enable=invalid-name


def create(metric, *args, **kwargs):
    """Create a metric from a name, an instance, a function or a list.

    Parameters
    ----------
    metric : str, EvalMetric, callable or list
        A registered name (``'acc'``, ``'rmse'`` ...), a metric, a function
        ``feval(label, pred)`` on NumPy arrays (wrapped in
        :class:`CustomMetric`), or a list of these (a
        :class:`CompositeEvalMetric`).
    *args, **kwargs
        Passed to the metric's constructor.

    Examples
    --------
    >>> def custom_metric(label, pred):
    ...     return np.mean(np.abs(label - pred))
    >>> metric1 = mx.metric.create('acc')
    >>> metric2 = mx.metric.create(custom_metric)
    >>> metric3 = mx.metric.create([metric1, metric2, 'rmse'])
    """
    if callable(metric):
        return CustomMetric(metric, *args, **kwargs)
    if isinstance(metric, list):
        composite_metric = CompositeEvalMetric()
        for child_metric in metric:
            composite_metric.add(create(child_metric, *args, **kwargs))
        return composite_metric
    return _create(metric, *args, **kwargs)


@register
@alias('composite')
class CompositeEvalMetric(EvalMetric):
    """Manages several metrics, updated together.

    Parameters
    ----------
    metrics : list of EvalMetric
        The child metrics.
    name, output_names, label_names
        As in :class:`EvalMetric`.
    """

    def __init__(self, metrics=None, name='composite', output_names=None,
                 label_names=None):
        super().__init__(name, output_names=output_names,
                         label_names=label_names, has_global_stats=True)
        if metrics is None:
            metrics = []
        self.metrics = [create(i) for i in metrics]

    def add(self, metric):
        """Add a child metric (anything :func:`create` accepts)."""
        self.metrics.append(create(metric))

    def get_metric(self, index):
        """The child metric at ``index``.  Out of range, MXNet *returns*
        (does not raise) a ValueError; so does dlbook."""
        try:
            return self.metrics[index]
        except IndexError:
            return ValueError(f'Metric index {index} is out of range 0 and '
                              f'{len(self.metrics)}')

    def update_dict(self, labels, preds):
        if self.label_names is not None:
            labels = OrderedDict([i for i in labels.items()
                                  if i[0] in self.label_names])
        if self.output_names is not None:
            preds = OrderedDict([i for i in preds.items()
                                 if i[0] in self.output_names])
        for metric in self.metrics:
            metric.update_dict(labels, preds)

    def update(self, labels, preds):
        for metric in self.metrics:
            metric.update(labels, preds)

    def reset(self):
        # Called by EvalMetric.__init__ before self.metrics exists.
        for metric in getattr(self, 'metrics', []):
            metric.reset()

    def reset_local(self):
        for metric in getattr(self, 'metrics', []):
            metric.reset_local()

    def _collect(self, getter):
        names, values = [], []
        for metric in self.metrics:
            name, value = getter(metric)
            if isinstance(name, str):
                name = [name]
            if isinstance(value, (int, float, numpy.number)):
                value = [value]
            names.extend(name)
            values.extend(value)
        return (names, values)

    def get(self):
        """``([names], [values])`` of the children."""
        return self._collect(lambda m: m.get())

    def get_global(self):
        """``([names], [values])`` of the children's global results."""
        return self._collect(lambda m: m.get_global())

    def get_config(self):
        config = super().get_config()
        config.update({'metrics': [i.get_config() for i in self.metrics]})
        return config


# -- classification --------------------------------------------------------

@register
@alias('acc')
class Accuracy(EvalMetric):
    """Fraction of predictions equal to the labels.

    A prediction whose shape differs from its label's is reduced with
    ``argmax(axis)``; both are cast to int32 and flattened.

    Parameters
    ----------
    axis : int, default 1
        The axis that holds the classes.
    name, output_names, label_names
        As in :class:`EvalMetric`.

    Examples
    --------
    >>> predicts = [mx.nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])]
    >>> labels   = [mx.nd.array([0, 1, 1])]
    >>> acc = mx.metric.Accuracy()
    >>> acc.update(preds = predicts, labels = labels)
    >>> acc.get()
    ('accuracy', 0.6666666666666666)
    """

    def __init__(self, axis=1, name='accuracy', output_names=None,
                 label_names=None):
        super().__init__(name, axis=axis, output_names=output_names,
                         label_names=label_names, has_global_stats=True)
        self.axis = axis

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred_label in zip(labels, preds):
            pred_label = _host(pred_label)
            label = _host(label)
            if pred_label.shape != label.shape:
                pred_label = numpy.argmax(pred_label, axis=self.axis)
            pred_label = pred_label.astype('int32').ravel()
            label = label.astype('int32').ravel()
            check_label_shapes(label, pred_label)
            num_correct = int((pred_label == label).sum())
            self._add(num_correct, len(pred_label))


@register
@alias('top_k_accuracy', 'top_k_acc')
class TopKAccuracy(EvalMetric):
    """Fraction of labels among the ``top_k`` highest-scored classes.

    Parameters
    ----------
    top_k : int
        How many top predictions count; must be more than 1 (MXNet asserts
        it: use :class:`Accuracy` for 1).  The name becomes
        ``'top_k_accuracy_<k>'``.
    name, output_names, label_names
        As in :class:`EvalMetric`.
    """

    def __init__(self, top_k=1, name='top_k_accuracy', output_names=None,
                 label_names=None):
        super().__init__(name, top_k=top_k, output_names=output_names,
                         label_names=label_names, has_global_stats=True)
        self.top_k = top_k
        assert self.top_k > 1, \
            'Please use Accuracy if top_k is no more than 1'
        self.name += f'_{self.top_k}'

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred_label in zip(labels, preds):
            assert len(pred_label.shape) <= 2, \
                'Predictions should be no more than 2 dims'
            # argpartition is enough: the order inside the top k does not
            # matter, and it is faster than a full sort.
            pred_label = numpy.argpartition(
                _host(pred_label).astype('float32'), -self.top_k)
            label = _host(label).astype('int32')
            check_label_shapes(label, pred_label)
            num_samples = pred_label.shape[0]
            if pred_label.ndim == 1:
                self._add(int((pred_label.flat == label.flat).sum()), 0)
            else:
                num_classes = pred_label.shape[1]
                top_k = min(num_classes, self.top_k)
                for j in range(top_k):
                    column = pred_label[:, num_classes - 1 - j]
                    self._add(int((column.ravel() == label.ravel()).sum()),
                              0)
            self._add(0, num_samples)


class _BinaryClassificationMetrics:
    """True/false positive/negative counts (local and global) of a binary
    classifier, and the F1 score and Matthews coefficient computed from
    them."""

    def __init__(self):
        self.reset_stats()

    def update_binary_stats(self, label, pred):
        """Count one batch: ``pred`` holds class scores (argmax on axis 1),
        ``label`` the classes 0/1."""
        pred = _host(pred)
        label = _host(label).astype('int32').ravel()
        pred_label = numpy.argmax(pred, axis=1)
        check_label_shapes(label, pred)
        if len(numpy.unique(label)) > 2:
            raise ValueError(f'{self.__class__.__name__} currently only '
                             f'supports binary classification.')
        pred_true = pred_label == 1
        pred_false = ~pred_true
        label_true = label == 1
        label_false = ~label_true
        counts = {'true_positives': (pred_true & label_true).sum(),
                  'false_positives': (pred_true & label_false).sum(),
                  'false_negatives': (pred_false & label_true).sum(),
                  'true_negatives': (pred_false & label_false).sum()}
        for key, value in counts.items():
            setattr(self, key, getattr(self, key) + int(value))
            setattr(self, 'global_' + key,
                    getattr(self, 'global_' + key) + int(value))

    @staticmethod
    def _fscore(tp, fp, fn):
        precision = tp / (tp + fp) if tp + fp > 0 else 0.
        recall = tp / (tp + fn) if tp + fn > 0 else 0.
        if precision + recall > 0:
            return 2 * precision * recall / (precision + recall)
        return 0.

    @property
    def precision(self):
        tp, fp = self.true_positives, self.false_positives
        return float(tp) / (tp + fp) if tp + fp > 0 else 0.

    @property
    def recall(self):
        tp, fn = self.true_positives, self.false_negatives
        return float(tp) / (tp + fn) if tp + fn > 0 else 0.

    @property
    def fscore(self):
        return self._fscore(self.true_positives, self.false_positives,
                            self.false_negatives)

    @property
    def global_fscore(self):
        return self._fscore(self.global_true_positives,
                            self.global_false_positives,
                            self.global_false_negatives)

    def matthewscc(self, use_global=False):
        """Matthews correlation coefficient of the counts."""
        prefix = 'global_' if use_global else ''
        total = (self.global_total_examples if use_global
                 else self.total_examples)
        if not total:
            return 0.
        tp = float(getattr(self, prefix + 'true_positives'))
        fp = float(getattr(self, prefix + 'false_positives'))
        fn = float(getattr(self, prefix + 'false_negatives'))
        tn = float(getattr(self, prefix + 'true_negatives'))
        terms = [tp + fp, tp + fn, tn + fp, tn + fn]
        denom = 1.
        for t in terms:
            if t != 0.:
                denom *= t
        return (tp * tn - fp * fn) / math.sqrt(denom)

    @property
    def total_examples(self):
        return self.false_negatives + self.false_positives + \
            self.true_negatives + self.true_positives

    @property
    def global_total_examples(self):
        return self.global_false_negatives + self.global_false_positives + \
            self.global_true_negatives + self.global_true_positives

    def local_reset_stats(self):
        self.false_positives = 0
        self.false_negatives = 0
        self.true_positives = 0
        self.true_negatives = 0

    def reset_stats(self):
        self.local_reset_stats()
        self.global_false_positives = 0
        self.global_false_negatives = 0
        self.global_true_positives = 0
        self.global_true_negatives = 0


class _BinaryMetric(EvalMetric):
    """Shared ``update``/``reset`` of F1 and MCC."""

    def __init__(self, name, output_names, label_names, average):
        self.average = average
        self.metrics = _BinaryClassificationMetrics()
        super().__init__(name=name, output_names=output_names,
                         label_names=label_names, has_global_stats=True)

    def _score(self, use_global):
        raise NotImplementedError()

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            self.metrics.update_binary_stats(label, pred)
        if self.average == 'macro':
            # One score per update() call, averaged over calls.
            self.sum_metric += self._score(False)
            self.global_sum_metric += self._score(True)
            self.num_inst += 1
            self.global_num_inst += 1
            self.metrics.reset_stats()
        else:
            # One score over every example seen.
            self.sum_metric = self._score(False) * \
                self.metrics.total_examples
            self.global_sum_metric = self._score(True) * \
                self.metrics.global_total_examples
            self.num_inst = self.metrics.total_examples
            self.global_num_inst = self.metrics.global_total_examples

    def reset(self):
        self.sum_metric = 0.
        self.num_inst = 0
        self.global_num_inst = 0
        self.global_sum_metric = 0.0
        self.metrics.reset_stats()

    def reset_local(self):
        self.sum_metric = 0.
        self.num_inst = 0
        self.metrics.local_reset_stats()


@register
class F1(_BinaryMetric):
    """F1 score of a binary classifier: ``2 * precision * recall /
    (precision + recall)``.

    Parameters
    ----------
    average : {'macro', 'micro'}, default 'macro'
        ``'macro'`` averages the score of each ``update`` call;
        ``'micro'`` scores all examples together.
    name, output_names, label_names
        As in :class:`EvalMetric`.
    """

    def __init__(self, name='f1', output_names=None, label_names=None,
                 average='macro'):
        super().__init__(name, output_names, label_names, average)

    def _score(self, use_global):
        return (self.metrics.global_fscore if use_global
                else self.metrics.fscore)


@register
class MCC(_BinaryMetric):
    """Matthews correlation coefficient of a binary classifier:
    ``(TP*TN - FP*FN) / sqrt((TP+FP)(TP+FN)(TN+FP)(TN+FN))`` (zero
    factors left out of the product).

    Parameters
    ----------
    average : {'macro', 'micro'}, default 'macro'
        As in :class:`F1`.
    name, output_names, label_names
        As in :class:`EvalMetric`.
    """

    def __init__(self, name='mcc', output_names=None, label_names=None,
                 average='macro'):
        super().__init__(name, output_names, label_names, average)

    def _score(self, use_global):
        return self.metrics.matthewscc(use_global=use_global)


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

    def __init__(self, ignore_label, axis=-1, name='perplexity',
                 output_names=None, label_names=None):
        super().__init__(name, ignore_label=ignore_label,
                         output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.ignore_label = ignore_label
        self.axis = axis

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        loss = 0.
        num = 0
        for label, pred in zip(labels, preds):
            label, pred = _host(label), _host(pred)
            assert label.size == pred.size / pred.shape[-1], \
                f'shape mismatch: {label.shape} vs. {pred.shape}'
            label = label.reshape((label.size,))
            classes = numpy.moveaxis(pred, self.axis, -1)
            classes = classes.reshape(-1, classes.shape[-1])
            # nd.pick clips out-of-range indices; so does this.
            index = numpy.clip(label.astype('int32'), 0,
                               classes.shape[1] - 1)
            prob = classes[numpy.arange(len(index)), index]
            if self.ignore_label is not None:
                ignore = (label == self.ignore_label).astype(prob.dtype)
                num -= float(ignore.sum())
                prob = prob * (1 - ignore) + ignore
            loss -= float(numpy.sum(numpy.log(numpy.maximum(1e-10, prob))))
            num += prob.size
        self._add(loss, num)

    def get(self):
        if self.num_inst == 0:
            return (self.name, float('nan'))
        return (self.name, math.exp(self.sum_metric / self.num_inst))

    def get_global(self):
        if self.global_num_inst == 0:
            return (self.name, float('nan'))
        return (self.name,
                math.exp(self.global_sum_metric / self.global_num_inst))


# -- regression -------------------------------------------------------------

def _as_columns(label, pred):
    """Host copies of a label/prediction pair, 1-D arrays as columns."""
    label, pred = _host(label), _host(pred)
    if len(label.shape) == 1:
        label = label.reshape(label.shape[0], 1)
    if len(pred.shape) == 1:
        pred = pred.reshape(pred.shape[0], 1)
    return label, pred


class _BatchMeanMetric(EvalMetric):
    """A regression error averaged per batch (each update of one array
    counts once, as in MXNet 1.x)."""

    def _error(self, label, pred):
        raise NotImplementedError()

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            self._add(self._error(*_as_columns(label, pred)), 1)


@register
class MAE(_BatchMeanMetric):
    """Mean absolute error, ``mean(|label - pred|)`` per batch, averaged
    over batches."""

    def __init__(self, name='mae', output_names=None, label_names=None):
        super().__init__(name, output_names=output_names,
                         label_names=label_names, has_global_stats=True)

    def _error(self, label, pred):
        return numpy.abs(label - pred).mean()


@register
class MSE(_BatchMeanMetric):
    """Mean squared error, ``mean((label - pred)**2)`` per batch, averaged
    over batches."""

    def __init__(self, name='mse', output_names=None, label_names=None):
        super().__init__(name, output_names=output_names,
                         label_names=label_names, has_global_stats=True)

    def _error(self, label, pred):
        return ((label - pred) ** 2.0).mean()


@register
class RMSE(_BatchMeanMetric):
    """Root mean squared error, ``sqrt(mean((label - pred)**2))`` per
    batch, averaged over batches."""

    def __init__(self, name='rmse', output_names=None, label_names=None):
        super().__init__(name, output_names=output_names,
                         label_names=label_names, has_global_stats=True)

    def _error(self, label, pred):
        return numpy.sqrt(((label - pred) ** 2.0).mean())


class _LabelLogMetric(EvalMetric):
    """``-sum(log(p[label] + eps))`` over examples, averaged."""

    def __init__(self, eps, name, output_names, label_names):
        super().__init__(name, eps=eps, output_names=output_names,
                         label_names=label_names, has_global_stats=True)
        self.eps = eps

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _host(label).ravel(), _host(pred)
            num_examples = pred.shape[0]
            assert label.shape[0] == num_examples, \
                (label.shape[0], num_examples)
            prob = pred[numpy.arange(num_examples, dtype=numpy.int64),
                        numpy.int64(label)]
            self._add(float((-numpy.log(prob + self.eps)).sum()),
                      num_examples)


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

    def __init__(self, eps=1e-12, name='cross-entropy', output_names=None,
                 label_names=None):
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

    def __init__(self, eps=1e-12, name='nll-loss', output_names=None,
                 label_names=None):
        super().__init__(eps, name, output_names, label_names)


@register
@alias('pearsonr')
class PearsonCorrelation(EvalMetric):
    """Pearson correlation of labels and predictions.

    Parameters
    ----------
    average : {'macro', 'micro'}, default 'macro'
        ``'macro'``: ``corrcoef`` per update, averaged; ``'micro'``: one
        correlation over all values seen (running sums, Welford).
    name, output_names, label_names
        As in :class:`EvalMetric`.
    """

    def __init__(self, name='pearsonr', output_names=None, label_names=None,
                 average='macro'):
        self.average = average
        super().__init__(name, output_names=output_names,
                         label_names=label_names, has_global_stats=True)
        if self.average == 'micro':
            self.reset_micro()

    def reset_micro(self):
        self._sse_p = 0
        self._mean_p = 0
        self._sse_l = 0
        self._mean_l = 0
        self._pred_nums = 0
        self._label_nums = 0
        self._conv = 0

    def reset(self):
        self.num_inst = 0
        self.sum_metric = 0.0
        self.global_num_inst = 0
        self.global_sum_metric = 0.0
        if self.average == 'micro':
            self.reset_micro()

    @staticmethod
    def update_variance(new_values, *aggregate):
        """Welford's online update of ``(count, mean, M2)``."""
        count, mean, m_2 = aggregate
        count += len(new_values)
        delta = new_values - mean
        mean += numpy.sum(delta / count)
        delta_2 = new_values - mean
        m_2 += numpy.sum(delta * delta_2)
        return count, mean, m_2

    def update_cov(self, label, pred):
        """Accumulate the co-moment.  As in MXNet it uses the label mean
        already updated with this batch and the previous prediction mean."""
        self._conv = self._conv + numpy.sum((label - self._mean_l)
                                            * (pred - self._mean_p))

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            check_label_shapes(label, pred, False, True)
            label = _host(label).ravel().astype(numpy.float64)
            pred = _host(pred).ravel().astype(numpy.float64)
            if self.average == 'macro':
                self._add(float(numpy.corrcoef(pred, label)[0, 1]), 1)
            else:
                self.num_inst += 1
                self.global_num_inst += 1
                self._label_nums, self._mean_l, self._sse_l = \
                    self.update_variance(label, self._label_nums,
                                         self._mean_l, self._sse_l)
                self.update_cov(label, pred)
                self._pred_nums, self._mean_p, self._sse_p = \
                    self.update_variance(pred, self._pred_nums,
                                         self._mean_p, self._sse_p)

    def get(self):
        if self.num_inst == 0:
            return (self.name, float('nan'))
        if self.average == 'macro':
            return (self.name, self.sum_metric / self.num_inst)
        n = self._label_nums
        pearsonr = self._conv / ((n - 1) * numpy.sqrt(self._sse_p / (n - 1))
                                 * numpy.sqrt(self._sse_l / (n - 1)))
        return (self.name, float(pearsonr))

    def get_global(self):
        if self.average == 'micro':
            # The running sums are not split into local and global.
            return self.get()
        return super().get_global()


@register
class PCC(EvalMetric):
    """Multiclass Matthews correlation (Gorodkin's R_K) from a confusion
    matrix that grows with the classes seen.  Equal to MCC for two
    classes.

    Parameters
    ----------
    name, output_names, label_names
        As in :class:`EvalMetric`.
    """

    def __init__(self, name='pcc', output_names=None, label_names=None,
                 has_global_stats=True):
        self.k = 2
        super().__init__(name=name, output_names=output_names,
                         label_names=label_names,
                         has_global_stats=has_global_stats)

    def _grow(self, inc):
        self.lcm = numpy.pad(self.lcm, ((0, inc), (0, inc)), 'constant',
                             constant_values=0)
        self.gcm = numpy.pad(self.gcm, ((0, inc), (0, inc)), 'constant',
                             constant_values=0)
        self.k += inc

    @staticmethod
    def _calc_mcc(cmat):
        n = cmat.sum()
        x = cmat.sum(axis=1)
        y = cmat.sum(axis=0)
        cov_xx = numpy.sum(x * (n - x))
        cov_yy = numpy.sum(y * (n - y))
        if cov_xx == 0 or cov_yy == 0:
            return float('nan')
        i = cmat.diagonal()
        cov_xy = numpy.sum(i * n - x * y)
        return cov_xy / (cov_xx * cov_yy) ** 0.5

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label = _host(label).astype('int32').ravel()
            pred = _host(pred)
            if pred.shape != label.shape:
                pred = pred.argmax(axis=1)
            else:
                pred = pred.astype('int32')
            pred = pred.ravel()
            n = int(max(pred.max(), label.max()))
            if n >= self.k:
                self._grow(n + 1 - self.k)
            bcm = numpy.zeros((self.k, self.k))
            numpy.add.at(bcm, (pred, label), 1)
            self.lcm += bcm
            self.gcm += bcm
        self.num_inst += 1
        self.global_num_inst += 1

    @property
    def sum_metric(self):
        return self._calc_mcc(self.lcm) * self.num_inst

    @property
    def global_sum_metric(self):
        return self._calc_mcc(self.gcm) * self.global_num_inst

    def reset(self):
        self.global_num_inst = 0.
        self.gcm = numpy.zeros((self.k, self.k))
        self.reset_local()

    def reset_local(self):
        self.num_inst = 0.
        self.lcm = numpy.zeros((self.k, self.k))


@register
class Loss(EvalMetric):
    """Mean of the values given as predictions (labels are ignored):
    ``sum(preds) / preds.size``, for printing a loss.

    Parameters
    ----------
    name, output_names, label_names
        As in :class:`EvalMetric`.
    """

    def __init__(self, name='loss', output_names=None, label_names=None):
        super().__init__(name, output_names=output_names,
                         label_names=label_names, has_global_stats=True)

    def update(self, _, preds):
        if isinstance(preds, _ARRAY_TYPES):
            preds = [preds]
        for pred in preds:
            pred = _host(pred)
            self._add(float(numpy.sum(pred)), pred.size)


@register
class Torch(Loss):
    """Dummy metric for torch criterions."""

    def __init__(self, name='torch', output_names=None, label_names=None):
        super().__init__(name, output_names=output_names,
                         label_names=label_names)


@register
class Caffe(Loss):
    """Dummy metric for caffe criterions."""

    def __init__(self, name='caffe', output_names=None, label_names=None):
        super().__init__(name, output_names=output_names,
                         label_names=label_names)


@register
class CustomMetric(EvalMetric):
    """A metric from a function ``feval(label, pred)`` on NumPy arrays.

    ``feval`` returns either a value (counted once) or a tuple
    ``(sum_metric, num_inst)``.

    Parameters
    ----------
    feval : callable(label, pred)
        The evaluation function.
    name : str, optional
        Defaults to ``feval.__name__`` (``'custom(<lambda>)'`` for a
        lambda).
    allow_extra_outputs : bool, optional
        Allow more predictions than labels (extra ones are ignored).
    output_names, label_names
        As in :class:`EvalMetric`.
    """

    def __init__(self, feval, name=None, allow_extra_outputs=False,
                 output_names=None, label_names=None):
        if name is None:
            name = feval.__name__
            if name.find('<') != -1:
                name = f'custom({name})'
        super().__init__(name, feval=feval,
                         allow_extra_outputs=allow_extra_outputs,
                         output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self._feval = feval
        self._allow_extra_outputs = allow_extra_outputs

    def update(self, labels, preds):
        if not self._allow_extra_outputs:
            labels, preds = check_label_shapes(labels, preds, True)
        else:
            if isinstance(labels, _ARRAY_TYPES):
                labels = [labels]
            if isinstance(preds, _ARRAY_TYPES):
                preds = [preds]
        for pred, label in zip(preds, labels):
            reval = self._feval(_host(label), _host(pred))
            if isinstance(reval, tuple):
                sum_metric, num_inst = reval
                self._add(sum_metric, num_inst)
            else:
                self._add(reval, 1)

    def get_config(self):
        raise NotImplementedError('CustomMetric cannot be serialized')


def np(numpy_feval, name=None, allow_extra_outputs=False):
    """Create a :class:`CustomMetric` from a NumPy function
    ``numpy_feval(label, pred)``.

    Parameters
    ----------
    numpy_feval : callable(label, pred)
        The evaluation function on NumPy arrays.
    name : str, optional
        The metric's name.
    allow_extra_outputs : bool, optional
        Allow more predictions than labels.
    """
    def feval(label, pred):
        """The wrapped NumPy function."""
        return numpy_feval(label, pred)
    feval.__name__ = numpy_feval.__name__
    return CustomMetric(feval, name, allow_extra_outputs)
