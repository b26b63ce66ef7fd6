"""The :class:`EvalMetric` base class, the metric registry and the helpers
every metric uses.

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

import numpy

from .. import registry
from ..ndarray import NDArray

__all__ = ['EvalMetric', 'register', 'alias', 'check_label_shapes']

_ARRAY_TYPES = (NDArray, numpy.ndarray)


def _host(x):
    """``x`` as a NumPy array (one device-to-host copy for an NDArray)."""
    return x.asnumpy() if hasattr(x, 'asnumpy') else numpy.asarray(x)


def _as_list(x):
    """A single array as a one-element list; a list as it is."""
    return [x] if isinstance(x, _ARRAY_TYPES) else x


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
        raise ValueError(
            f'Shape of labels {label_shape} does not match '
            f'shape of predictions {pred_shape}'
        )
    if wrap:
        labels, preds = _as_list(labels), _as_list(preds)
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

    def __init__(self, name, output_names=None, label_names=None, **kwargs):
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
        config.update(
            {
                'metric': self.__class__.__name__,
                'name': self.name,
                'output_names': self.output_names,
                'label_names': self.label_names,
            }
        )
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

    @staticmethod
    def _name_value_pairs(name, value):
        """``(name, value)`` or ``([names], [values])`` as a list of
        pairs."""
        if not isinstance(name, list):
            name = [name]
        if not isinstance(value, list):
            value = [value]
        return list(zip(name, value))

    def get_name_value(self):
        """The local result as a list of ``(name, value)`` pairs."""
        return self._name_value_pairs(*self.get())

    def get_global_name_value(self):
        """The global result as a list of ``(name, value)`` pairs."""
        if self._has_global_stats:
            return self._name_value_pairs(*self.get_global())
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
