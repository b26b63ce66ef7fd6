"""Online evaluation metrics (``mx.metric``).

A metric accumulates over batches with ``update(labels, preds)`` (lists of
NDArrays, or single NDArrays) and reports ``get() -> (name, value)``; see
:class:`EvalMetric` for the local and global counters.  ``create('acc')``
builds one by name.

Modules: ``base`` (:class:`EvalMetric`, the registry,
:func:`check_label_shapes`), ``composite`` (:func:`create`,
:class:`CompositeEvalMetric`), ``classification`` (Accuracy, TopKAccuracy,
F1, MCC, PCC), ``probability`` (CrossEntropy, NegativeLogLikelihood,
Perplexity), ``regression`` (MAE, MSE, RMSE, PearsonCorrelation) and
``custom`` (Loss, Torch, Caffe, CustomMetric, np).
"""

from .base import EvalMetric, alias, check_label_shapes, register
from .classification import F1, MCC, PCC, Accuracy, TopKAccuracy
from .composite import CompositeEvalMetric, create
from .custom import Caffe, CustomMetric, Loss, Torch, np
from .probability import CrossEntropy, NegativeLogLikelihood, Perplexity
from .regression import MAE, MSE, RMSE, PearsonCorrelation

__all__ = [
    'EvalMetric',
    'CompositeEvalMetric',
    'Accuracy',
    'TopKAccuracy',
    'F1',
    'MCC',
    'Perplexity',
    'MAE',
    'MSE',
    'RMSE',
    'CrossEntropy',
    'NegativeLogLikelihood',
    'PearsonCorrelation',
    'PCC',
    'Loss',
    'Torch',
    'Caffe',
    'CustomMetric',
    'np',
    'create',
    'register',
    'alias',
    'check_label_shapes',
]
