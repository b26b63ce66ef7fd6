"""Metrics of values the user computes: :class:`Loss` (and its aliases
:class:`Torch`, :class:`Caffe`) averages given losses;
:class:`CustomMetric` and :func:`np` wrap a function
``feval(label, pred)``."""

import numpy

from .base import EvalMetric, _as_list, _host, check_label_shapes, register

__all__ = ['Loss', 'Torch', 'Caffe', 'CustomMetric', 'np']


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
        super().__init__(
            name,
            output_names=output_names,
            label_names=label_names,
            has_global_stats=True,
        )

    def update(self, _, preds):
        for pred in _as_list(preds):
            pred = _host(pred)
            self._add(float(numpy.sum(pred)), pred.size)


@register
class Torch(Loss):
    """Dummy metric for torch criterions."""

    def __init__(self, name='torch', output_names=None, label_names=None):
        super().__init__(
            name, output_names=output_names, label_names=label_names
        )


@register
class Caffe(Loss):
    """Dummy metric for caffe criterions."""

    def __init__(self, name='caffe', output_names=None, label_names=None):
        super().__init__(
            name, output_names=output_names, label_names=label_names
        )


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

    def __init__(
        self,
        feval,
        name=None,
        allow_extra_outputs=False,
        output_names=None,
        label_names=None,
    ):
        if name is None:
            name = feval.__name__
            if name.find('<') != -1:
                name = f'custom({name})'
        super().__init__(
            name,
            feval=feval,
            allow_extra_outputs=allow_extra_outputs,
            output_names=output_names,
            label_names=label_names,
            has_global_stats=True,
        )
        self._feval = feval
        self._allow_extra_outputs = allow_extra_outputs

    def update(self, labels, preds):
        if not self._allow_extra_outputs:
            labels, preds = check_label_shapes(labels, preds, True)
        else:
            labels, preds = _as_list(labels), _as_list(preds)
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
