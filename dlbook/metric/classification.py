"""Metrics of predicted classes: :class:`Accuracy`,
:class:`TopKAccuracy`, the binary :class:`F1` and :class:`MCC`, and the
multiclass :class:`PCC`."""

import math

import numpy

from ..base import UsageError
from .base import EvalMetric, _host, alias, check_label_shapes, register

__all__ = ['Accuracy', 'TopKAccuracy', 'F1', 'MCC', 'PCC']


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

    def __init__(
        self, axis=1, name='accuracy', output_names=None, label_names=None
    ):
        super().__init__(
            name,
            axis=axis,
            output_names=output_names,
            label_names=label_names,
            has_global_stats=True,
        )
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

    def __init__(
        self,
        top_k=1,
        name='top_k_accuracy',
        output_names=None,
        label_names=None,
    ):
        super().__init__(
            name,
            top_k=top_k,
            output_names=output_names,
            label_names=label_names,
            has_global_stats=True,
        )
        self.top_k = top_k
        if not self.top_k > 1:
            raise UsageError(
                f'Please use Accuracy if top_k is no more than '
                f'1 (got top_k={top_k!r}).'
            )
        self.name += f'_{self.top_k}'

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred_label in zip(labels, preds):
            if len(pred_label.shape) > 2:
                raise UsageError(
                    f'Predictions should be no more than 2 dims (batch, '
                    f'classes), got shape {tuple(pred_label.shape)}.'
                )
            # argpartition is enough: the order inside the top k does not
            # matter, and it is faster than a full sort.
            pred_label = numpy.argpartition(
                _host(pred_label).astype('float32'), -self.top_k
            )
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
                    self._add(int((column.ravel() == label.ravel()).sum()), 0)
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
            raise ValueError(
                f'{self.__class__.__name__} currently only '
                f'supports binary classification.'
            )
        pred_true = pred_label == 1
        pred_false = ~pred_true
        label_true = label == 1
        label_false = ~label_true
        counts = {
            'true_positives': (pred_true & label_true).sum(),
            'false_positives': (pred_true & label_false).sum(),
            'false_negatives': (pred_false & label_true).sum(),
            'true_negatives': (pred_false & label_false).sum(),
        }
        for key, value in counts.items():
            setattr(self, key, getattr(self, key) + int(value))
            setattr(
                self,
                'global_' + key,
                getattr(self, 'global_' + key) + int(value),
            )

    @staticmethod
    def _fscore(tp, fp, fn):
        precision = tp / (tp + fp) if tp + fp > 0 else 0.0
        recall = tp / (tp + fn) if tp + fn > 0 else 0.0
        if precision + recall > 0:
            return 2 * precision * recall / (precision + recall)
        return 0.0

    @property
    def precision(self):
        tp, fp = self.true_positives, self.false_positives
        return float(tp) / (tp + fp) if tp + fp > 0 else 0.0

    @property
    def recall(self):
        tp, fn = self.true_positives, self.false_negatives
        return float(tp) / (tp + fn) if tp + fn > 0 else 0.0

    @property
    def fscore(self):
        return self._fscore(
            self.true_positives, self.false_positives, self.false_negatives
        )

    @property
    def global_fscore(self):
        return self._fscore(
            self.global_true_positives,
            self.global_false_positives,
            self.global_false_negatives,
        )

    def matthewscc(self, use_global=False):
        """Matthews correlation coefficient of the counts."""
        prefix = 'global_' if use_global else ''
        total = (
            self.global_total_examples if use_global else self.total_examples
        )
        if not total:
            return 0.0
        tp = float(getattr(self, prefix + 'true_positives'))
        fp = float(getattr(self, prefix + 'false_positives'))
        fn = float(getattr(self, prefix + 'false_negatives'))
        tn = float(getattr(self, prefix + 'true_negatives'))
        terms = [tp + fp, tp + fn, tn + fp, tn + fn]
        denom = 1.0
        for t in terms:
            if t != 0.0:
                denom *= t
        return (tp * tn - fp * fn) / math.sqrt(denom)

    @property
    def total_examples(self):
        return (
            self.false_negatives
            + self.false_positives
            + self.true_negatives
            + self.true_positives
        )

    @property
    def global_total_examples(self):
        return (
            self.global_false_negatives
            + self.global_false_positives
            + self.global_true_negatives
            + self.global_true_positives
        )

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
        super().__init__(
            name=name,
            output_names=output_names,
            label_names=label_names,
            has_global_stats=True,
        )

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
            self.sum_metric = self._score(False) * self.metrics.total_examples
            self.global_sum_metric = (
                self._score(True) * self.metrics.global_total_examples
            )
            self.num_inst = self.metrics.total_examples
            self.global_num_inst = self.metrics.global_total_examples

    def reset(self):
        super().reset()
        self.metrics.reset_stats()

    def reset_local(self):
        super().reset_local()
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

    def __init__(
        self, name='f1', output_names=None, label_names=None, average='macro'
    ):
        super().__init__(name, output_names, label_names, average)

    def _score(self, use_global):
        return (
            self.metrics.global_fscore if use_global else self.metrics.fscore
        )


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

    def __init__(
        self, name='mcc', output_names=None, label_names=None, average='macro'
    ):
        super().__init__(name, output_names, label_names, average)

    def _score(self, use_global):
        return self.metrics.matthewscc(use_global=use_global)


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

    def __init__(
        self,
        name='pcc',
        output_names=None,
        label_names=None,
        has_global_stats=True,
    ):
        self.k = 2
        super().__init__(
            name=name,
            output_names=output_names,
            label_names=label_names,
            has_global_stats=has_global_stats,
        )

    def _grow(self, inc):
        self.lcm = numpy.pad(
            self.lcm, ((0, inc), (0, inc)), 'constant', constant_values=0
        )
        self.gcm = numpy.pad(
            self.gcm, ((0, inc), (0, inc)), 'constant', constant_values=0
        )
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
        return float(cov_xy / (cov_xx * cov_yy) ** 0.5)

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
        self.global_num_inst = 0.0
        self.gcm = numpy.zeros((self.k, self.k))
        self.reset_local()

    def reset_local(self):
        self.num_inst = 0.0
        self.lcm = numpy.zeros((self.k, self.k))
