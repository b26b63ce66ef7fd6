"""Creating metrics by name, function or list (:func:`create`), and
:class:`CompositeEvalMetric`, which updates several metrics together."""

from collections import OrderedDict

import numpy

from .base import EvalMetric, _create, alias, register
from .custom import CustomMetric

__all__ = ['create', 'CompositeEvalMetric']


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

    def __init__(
        self,
        metrics=None,
        name='composite',
        output_names=None,
        label_names=None,
    ):
        super().__init__(
            name,
            output_names=output_names,
            label_names=label_names,
            has_global_stats=True,
        )
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
            return ValueError(
                f'Metric index {index} is out of range 0 and '
                f'{len(self.metrics)}'
            )

    def update_dict(self, labels, preds):
        if self.label_names is not None:
            labels = OrderedDict(
                [i for i in labels.items() if i[0] in self.label_names]
            )
        if self.output_names is not None:
            preds = OrderedDict(
                [i for i in preds.items() if i[0] in self.output_names]
            )
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
