"""The :class:`Estimator`: ``fit`` and ``evaluate`` driven by handlers."""

import copy
import logging
import sys
import warnings

from .... import metric as _metric
from ....context import Context, cpu, gpu, num_gpus
from ...data import DataLoader
from ...loss import Loss
from ...trainer import Trainer
from ...utils import split_and_load
from .batch_processor import BatchProcessor
from .event_handler import (
    BatchBegin,
    BatchEnd,
    EpochBegin,
    EpochEnd,
    GradientUpdateHandler,
    LoggingHandler,
    MetricHandler,
    StoppingHandler,
    TrainBegin,
    TrainEnd,
    ValidationHandler,
    _check_event_handlers,
    _DuckHandler,
)
from .utils import (
    _check_handler_metric_ref,
    _check_metrics,
    _suggest_metric_for_loss,
)

__all__ = ['Estimator']


class Estimator:
    """Train and evaluate a Gluon network with event handlers.

    Parameters
    ----------
    net : gluon.Block
    loss : gluon.loss.Loss
    train_metrics, val_metrics : EvalMetric or list of EvalMetric
        Default: Accuracy (for a softmax cross-entropy loss) and the loss
        itself; names get a ``'training '``/``'validation '`` prefix.
    initializer : Initializer
        Used when ``net`` is not yet initialized.
    trainer : gluon.Trainer
        Default: SGD with learning rate 0.001 (with a warning).
    context : Context or list of Context
        Default ``gpu(0)`` if there is a GPU, else ``cpu()``.
    val_net, val_loss : network and loss for validation (default: the
        training ones).
    batch_processor : BatchProcessor
        Custom ``fit_batch``/``evaluate_batch``.

    Examples
    --------
    >>> est = Estimator(net, gluon.loss.SoftmaxCrossEntropyLoss(),
    ...                 trainer=trainer, context=mx.cpu())
    >>> est.fit(train_loader, val_data=val_loader, epochs=3)
    """

    logger = None

    def __init__(
        self,
        net,
        loss,
        train_metrics=None,
        val_metrics=None,
        initializer=None,
        trainer=None,
        context=None,
        val_net=None,
        val_loss=None,
        batch_processor=None,
    ):
        self.net = net
        self.loss = self._check_loss(loss)
        self._train_metrics = _check_metrics(train_metrics)
        self._val_metrics = _check_metrics(val_metrics)
        self._add_default_training_metrics()
        self._add_validation_metrics()
        self.val_loss = (
            self.loss if val_loss is None else self._check_loss(val_loss)
        )
        self.val_net = self.net if val_net is None else val_net
        self.logger = logging.Logger(name='Estimator', level=logging.INFO)
        self.logger.addHandler(logging.StreamHandler(sys.stdout))
        self.context = self._check_context(context)
        self._initialize(initializer)
        self.trainer = self._check_trainer(trainer)
        self.batch_processor = self._check_batch_processor(batch_processor)
        self.max_epoch = self.max_batch = None
        self.batch_axis = 0

    # -- checks and defaults -----------------------------------------------
    @staticmethod
    def _check_loss(loss):
        if not isinstance(loss, Loss):
            raise ValueError(
                'loss must be a Loss, refer to gluon.loss.Loss:{}'.format(loss)
            )
        return loss

    @staticmethod
    def _check_context(context):
        available = [gpu(i) for i in range(num_gpus())]
        if not context:
            if len(available) > 1:
                warnings.warn(
                    'You have multiple GPUs, gpu(0) will be used by '
                    'default.To utilize all your GPUs, specify '
                    'context as a list of gpus, e.g. '
                    'context=[mx.gpu(0), mx.gpu(1)] '
                )
            return [gpu(0)] if available else [cpu()]
        if isinstance(context, Context):
            context = [context]
        elif not (
            isinstance(context, list)
            and all(isinstance(c, Context) for c in context)
        ):
            raise ValueError(
                'context must be a Context or a list of Context, '
                'for example mx.cpu() or [mx.gpu(0), mx.gpu(1)], '
                'refer to mxnet.Context:{}'.format(context)
            )
        for ctx in context:
            assert ctx in available or str(ctx).startswith('cpu'), (
                '%s is not available, please make sure your context is in '
                'one of: mx.cpu(), %s'
                % (ctx, ', '.join(str(c) for c in available))
            )
        return context

    @staticmethod
    def _check_batch_processor(batch_processor):
        if batch_processor is None:
            return BatchProcessor()
        if not callable(
            getattr(batch_processor, 'fit_batch', None)
        ) or not callable(getattr(batch_processor, 'evaluate_batch', None)):
            raise ValueError(
                'Customized Batch Processor must contain '
                'fit_batch() and evaluate_batch() methods'
            )
        return batch_processor

    def _is_initialized(self):
        params = self.net.collect_params()
        for name in params:
            try:
                params[name].list_ctx()
            except RuntimeError:
                return False
        return True

    def _initialize(self, initializer):
        if not self._is_initialized():
            if initializer:
                self.net.initialize(init=initializer, ctx=self.context)
            else:
                self.net.initialize(ctx=self.context)
        elif initializer:
            warnings.warn(
                'Network already fully initialized, skipping '
                'initialization. You don\'t need to pass '
                'initializer if you already initialized your net. '
                'You can use net.initialize(init=your_initializer, '
                'force_reinit=True)to force re-initialize.'
            )

    def _check_trainer(self, trainer):
        if not trainer:
            warnings.warn(
                'No trainer specified, default SGD optimizer with '
                'learning rate 0.001 is used.'
            )
            return Trainer(
                self.net.collect_params(), 'sgd', {'learning_rate': 0.001}
            )
        if not isinstance(trainer, Trainer):
            raise ValueError(
                'Trainer must be a Gluon Trainer instance, '
                'refer to gluon.Trainer:{}'.format(trainer)
            )
        return trainer

    def _get_data_and_label(self, batch, ctx, batch_axis=0):
        return (
            split_and_load(batch[0], ctx_list=ctx, batch_axis=batch_axis),
            split_and_load(batch[1], ctx_list=ctx, batch_axis=batch_axis),
        )

    def _add_default_training_metrics(self):
        if not self._train_metrics:
            suggested = _suggest_metric_for_loss(self.loss)
            if suggested:
                self._train_metrics = [suggested]
            self._train_metrics.append(
                _metric.Loss(self.loss.name.rstrip('1234567890'))
            )
        for metric in self._train_metrics:
            metric.name = 'training ' + metric.name

    def _add_validation_metrics(self):
        if not self._val_metrics:
            self._val_metrics = [copy.deepcopy(m) for m in self._train_metrics]
        for metric in self._val_metrics:
            if 'training' in metric.name:
                metric.name = metric.name.replace('training', 'validation')
            else:
                metric.name = 'validation ' + metric.name

    @property
    def train_metrics(self):
        return self._train_metrics

    @property
    def val_metrics(self):
        return self._val_metrics

    # -- the loops ---------------------------------------------------------
    def evaluate(self, val_data, batch_axis=0, event_handlers=None):
        """Run ``val_net`` over ``val_data`` (a DataLoader), updating
        ``val_metrics``; a MetricHandler and a LoggingHandler are added
        unless given."""
        if not isinstance(val_data, DataLoader):
            raise ValueError(
                'Estimator only support input as Gluon '
                'DataLoader. Alternatively, you can transform '
                'your DataIter or any NDArray into Gluon '
                'DataLoader. Refer to gluon.data.DataLoader'
            )
        for metric in self.val_metrics:
            metric.reset()
        handlers = self._prepare_default_validation_handlers(event_handlers)
        _, epoch_begin, batch_begin, batch_end, epoch_end, _ = (
            self._categorize_handlers(handlers)
        )
        for handler in epoch_begin:
            handler.epoch_begin(self)
        for batch in val_data:
            for handler in batch_begin:
                handler.batch_begin(self, batch=batch)
            _, label, pred, loss = self.batch_processor.evaluate_batch(
                self, batch, batch_axis
            )
            for handler in batch_end:
                handler.batch_end(
                    self, batch=batch, pred=pred, label=label, loss=loss
                )
        for handler in epoch_end:
            handler.epoch_end(self)

    def fit(
        self,
        train_data,
        val_data=None,
        epochs=None,
        event_handlers=None,
        batches=None,
        batch_axis=0,
    ):
        """Train for ``epochs`` epochs or ``batches`` batches (exactly one).

        Default handlers are added unless one of their class is given:
        StoppingHandler, GradientUpdateHandler, MetricHandler,
        ValidationHandler (with ``val_data``), LoggingHandler, and inside
        a Jupyter kernel a live ``TrainingMonitor``.
        """
        if not isinstance(train_data, DataLoader):
            raise ValueError(
                'Estimator only support input as Gluon '
                'DataLoader. Alternatively, you can transform '
                'your DataIter or any NDArray into Gluon '
                'DataLoader. Refer to gluon.data.dataloader'
            )
        if (not epochs) == (not batches):
            raise ValueError(
                'Fit only support exactly one type of iteration, '
                'train by number of epochs or number of batches.'
                'Please specify one and only one of: epochs or '
                'batches.'
            )
        self.max_epoch = epochs
        self.max_batch = batches
        self.batch_axis = batch_axis
        handlers = self._prepare_default_handlers(
            val_data, event_handlers, train_data
        )
        (
            train_begin,
            epoch_begin,
            batch_begin,
            batch_end,
            epoch_end,
            train_end,
        ) = self._categorize_handlers(handlers)
        for handler in train_begin:
            handler.train_begin(self)
        while True:
            for handler in epoch_begin:
                handler.epoch_begin(self)
            for batch in train_data:
                for handler in batch_begin:
                    handler.batch_begin(self, batch=batch)
                _, label, pred, loss = self.batch_processor.fit_batch(
                    self, batch, batch_axis
                )
                # every handler sees the batch, then any of them may stop
                results = [
                    handler.batch_end(
                        self, batch=batch, pred=pred, label=label, loss=loss
                    )
                    for handler in batch_end
                ]
                if any(results):
                    break
            results = [handler.epoch_end(self) for handler in epoch_end]
            if any(results):
                break
        for handler in train_end:
            handler.train_end(self)

    # -- handler lists -----------------------------------------------------
    def _prepare_default_handlers(
        self, val_data, event_handlers, train_data=None
    ):
        handlers = _check_event_handlers(event_handlers)
        added = [StoppingHandler(self.max_epoch, self.max_batch)]
        if not any(isinstance(h, GradientUpdateHandler) for h in handlers):
            added.append(GradientUpdateHandler())
        if not any(isinstance(h, MetricHandler) for h in handlers):
            added.append(MetricHandler(metrics=self.train_metrics))
        if (
            not any(isinstance(h, ValidationHandler) for h in handlers)
            and val_data
        ):
            added.append(
                ValidationHandler(val_data=val_data, eval_fn=self.evaluate)
            )
        if not any(isinstance(h, LoggingHandler) for h in handlers):
            added.append(LoggingHandler(metrics=self.train_metrics))
        monitor = _default_monitor_handler(self, handlers, train_data)
        if monitor is not None:
            added.append(monitor)
        mixing = handlers and added
        handlers.extend(added)
        if mixing:
            known = set(self.train_metrics + self.val_metrics)
            for handler in handlers:
                _check_handler_metric_ref(handler, known)
        handlers.sort(key=lambda h: getattr(h, 'priority', 0))
        return handlers

    def _prepare_default_validation_handlers(self, event_handlers):
        handlers = _check_event_handlers(event_handlers)
        added = []
        if not any(isinstance(h, MetricHandler) for h in handlers):
            added.append(MetricHandler(metrics=self.val_metrics))
        if not any(isinstance(h, LoggingHandler) for h in handlers):
            added.append(LoggingHandler(metrics=self.val_metrics))
        mixing = handlers and added
        handlers.extend(added)
        if mixing:
            known = set(self.val_metrics)
            for handler in handlers:
                _check_handler_metric_ref(handler, known)
        handlers.sort(key=lambda h: getattr(h, 'priority', 0))
        return handlers

    @staticmethod
    def _categorize_handlers(handlers):
        """Six lists: the handlers of each event, in order."""
        kinds = (
            TrainBegin,
            EpochBegin,
            BatchBegin,
            BatchEnd,
            EpochEnd,
            TrainEnd,
        )
        return tuple(
            [h for h in handlers if isinstance(h, kind)] for kind in kinds
        )


def _default_monitor_handler(estimator, handlers, train_data):
    """A live ``TrainingMonitor`` handler inside a Jupyter kernel, unless
    the user passed one (``monitor.event_handler()``).  The widgets are
    imported only then."""
    if 'IPython' not in sys.modules:
        return None
    from ....widgets import display

    if not display.in_kernel():
        return None
    from ....widgets.callbacks import EstimatorHandler

    for handler in handlers:
        if isinstance(handler, _DuckHandler) and isinstance(
            handler.inner, EstimatorHandler
        ):
            return None
    from ....widgets import TrainingMonitor

    try:
        per_epoch = len(train_data)
    except TypeError:
        per_epoch = None
    monitor = TrainingMonitor(
        epochs=estimator.max_epoch, batches_per_epoch=per_epoch
    )
    return _DuckHandler(monitor.event_handler())
