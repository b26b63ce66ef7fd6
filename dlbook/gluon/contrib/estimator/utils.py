"""Argument checks shared by the Estimator and its handlers."""

from .... import metric as _metric
from ...loss import SoftmaxCrossEntropyLoss


def _check_metrics(metrics):
    """A list of metrics from one metric, a composite or a list."""
    if isinstance(metrics, _metric.CompositeEvalMetric):
        return [m for inner in metrics.metrics for m in _check_metrics(inner)]
    if isinstance(metrics, _metric.EvalMetric):
        return [metrics]
    metrics = metrics or []
    if not all(isinstance(m, _metric.EvalMetric) for m in metrics):
        raise ValueError(
            'metrics must be a Metric or a list of Metric, '
            'refer to mxnet.metric.EvalMetric: {}'.format(metrics)
        )
    return metrics


def _check_handler_metric_ref(handler, known_metrics):
    """Handlers may only refer to the estimator's own metric objects.

    MXNet looks at every attribute whose name contains ``'metric'``.
    """
    for attribute in dir(handler):
        if 'metric' not in attribute:
            continue
        reference = getattr(handler, attribute)
        if not reference:
            continue
        for metric in (
            reference if isinstance(reference, list) else [reference]
        ):
            if metric not in known_metrics:
                raise ValueError(
                    'Event handler {} refers to a metric instance {} '
                    'outside of the known training and validation metrics. '
                    'Please use the metrics from estimator.train_metrics and '
                    'estimator.val_metrics instead.'.format(
                        type(handler).__name__, metric
                    )
                )


def _suggest_metric_for_loss(loss):
    """Accuracy for a softmax cross-entropy loss, else nothing."""
    if isinstance(loss, SoftmaxCrossEntropyLoss):
        return _metric.Accuracy()
    return None
