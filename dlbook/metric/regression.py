"""Metrics of real-valued predictions: :class:`MAE`, :class:`MSE`,
:class:`RMSE` and :class:`PearsonCorrelation`."""

import numpy

from .base import EvalMetric, _host, alias, check_label_shapes, register

__all__ = ['MAE', 'MSE', 'RMSE', 'PearsonCorrelation']


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
            # summed as a Python float (MXNet's float64 sum of the errors),
            # so results print as plain numbers
            self._add(float(self._error(*_as_columns(label, pred))), 1)


@register
class MAE(_BatchMeanMetric):
    """Mean absolute error, ``mean(|label - pred|)`` per batch, averaged
    over batches."""

    def __init__(self, name='mae', output_names=None, label_names=None):
        super().__init__(
            name,
            output_names=output_names,
            label_names=label_names,
            has_global_stats=True,
        )

    def _error(self, label, pred):
        return numpy.abs(label - pred).mean()


@register
class MSE(_BatchMeanMetric):
    """Mean squared error, ``mean((label - pred)**2)`` per batch, averaged
    over batches."""

    def __init__(self, name='mse', output_names=None, label_names=None):
        super().__init__(
            name,
            output_names=output_names,
            label_names=label_names,
            has_global_stats=True,
        )

    def _error(self, label, pred):
        return ((label - pred) ** 2.0).mean()


@register
class RMSE(_BatchMeanMetric):
    """Root mean squared error, ``sqrt(mean((label - pred)**2))`` per
    batch, averaged over batches."""

    def __init__(self, name='rmse', output_names=None, label_names=None):
        super().__init__(
            name,
            output_names=output_names,
            label_names=label_names,
            has_global_stats=True,
        )

    def _error(self, label, pred):
        return numpy.sqrt(((label - pred) ** 2.0).mean())


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

    def __init__(
        self,
        name='pearsonr',
        output_names=None,
        label_names=None,
        average='macro',
    ):
        self.average = average
        super().__init__(
            name,
            output_names=output_names,
            label_names=label_names,
            has_global_stats=True,
        )
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
        super().reset()
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
        self._conv = self._conv + numpy.sum(
            (label - self._mean_l) * (pred - self._mean_p)
        )

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
                self._label_nums, self._mean_l, self._sse_l = (
                    self.update_variance(
                        label, self._label_nums, self._mean_l, self._sse_l
                    )
                )
                self.update_cov(label, pred)
                self._pred_nums, self._mean_p, self._sse_p = (
                    self.update_variance(
                        pred, self._pred_nums, self._mean_p, self._sse_p
                    )
                )

    def get(self):
        if self.num_inst == 0:
            return (self.name, float('nan'))
        if self.average == 'macro':
            return (self.name, self.sum_metric / self.num_inst)
        n = self._label_nums
        pearsonr = self._conv / (
            (n - 1)
            * numpy.sqrt(self._sse_p / (n - 1))
            * numpy.sqrt(self._sse_l / (n - 1))
        )
        return (self.name, float(pearsonr))

    def get_global(self):
        if self.average == 'micro':
            # The running sums are not split into local and global.
            return self.get()
        return super().get_global()
