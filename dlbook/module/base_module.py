"""``BaseModule``: the training loop shared by every module.

A *module* wraps a symbol with everything needed to train it: bound
executors, parameters, an optimizer.  It goes through four states, in
order (the attributes say which are reached):

1. created: only the symbol and the input names are known;
2. ``binded`` (after :meth:`bind`): shapes known, memory allocated;
3. ``params_initialized`` (after :meth:`init_params`);
4. ``optimizer_initialized`` (after :meth:`init_optimizer`).

Subclasses (:class:`~dlbook.module.Module`) implement those steps and
``forward``/``backward``/``update``; this class builds the high-level API
on them: :meth:`fit`, :meth:`score`, :meth:`predict`, :meth:`iter_predict`.
The logging lines are MXNet's
(``apache/mxnet@1.9.1:python/mxnet/module/base_module.py``)::

    INFO:root:Epoch[0] Train-accuracy=0.912500
    INFO:root:Epoch[0] Time cost=0.052
    INFO:root:Epoch[0] Validation-accuracy=0.925000
"""

import logging
import time
import warnings

import numpy

from .. import metric
from .. import ndarray as nd
from ..base import DLBookError
from ..initializer import Uniform
from ..io import DataBatch, DataDesc, DataIter
from ..model import BatchEndParam, _join_params, split_params

__all__ = ['BaseModule']


def _as_list(obj):
    """``obj`` if it is a list, else ``[obj]``."""
    return obj if isinstance(obj, list) else [obj]


def _check_input_names(symbol, names, typename, throw):
    """Check that ``names`` are arguments of ``symbol``; the message lists
    the arguments that could be meant (those that are not parameters)."""
    args = symbol.list_arguments()
    for name in names:
        if name in args:
            continue
        candidates = [
            arg
            for arg in args
            if not arg.endswith(('_weight', '_bias', '_gamma', '_beta'))
        ]
        msg = (
            f"\033[91mYou created Module with Module(..., "
            f"{typename}_names={names}) but input with name '{name}' is "
            f"not found in symbol.list_arguments(). Did you mean one "
            f"of:\n\t" + '\n\t'.join(candidates) + '\033[0m'
        )
        if throw:
            raise ValueError(msg)
        # At the Module(...) call, through _input_names and __init__.
        warnings.warn(msg, stacklevel=4)


def _input_names(
    symbol, data_names, label_names, state_names, fixed_param_names
):
    """The input names given to a module, as lists (None: empty), checked
    against ``symbol``'s arguments (only a wrong label name is a
    warning)."""
    data_names = list(data_names) if data_names is not None else []
    label_names = list(label_names) if label_names is not None else []
    state_names = list(state_names) if state_names is not None else []
    fixed_param_names = (
        list(fixed_param_names) if fixed_param_names is not None else []
    )
    _check_input_names(symbol, data_names, 'data', True)
    _check_input_names(symbol, label_names, 'label', False)
    _check_input_names(symbol, state_names, 'state', True)
    _check_input_names(symbol, fixed_param_names, 'fixed_param', True)
    return data_names, label_names, state_names, fixed_param_names


def _check_names_match(data_names, data_shapes, name, throw):
    """Check that the shapes given are for exactly the expected names."""
    actual = [x[0] for x in data_shapes]
    if sorted(data_names) != sorted(actual):
        msg = (
            f"Data provided by {name}_shapes don't match names specified "
            f"by {name}_names ({data_shapes} vs. {data_names})"
        )
        if throw:
            raise ValueError(msg)
        warnings.warn(msg, stacklevel=3)


def _parse_data_desc(data_names, label_names, data_shapes, label_shapes):
    """``(name, shape)`` pairs or DataDescs -> lists of DataDesc, checked
    against the module's input names."""
    data_shapes = [
        x if isinstance(x, DataDesc) else DataDesc(*x) for x in data_shapes
    ]
    _check_names_match(data_names, data_shapes, 'data', True)
    if label_shapes is not None:
        label_shapes = [
            x if isinstance(x, DataDesc) else DataDesc(*x)
            for x in label_shapes
        ]
        _check_names_match(label_names, label_shapes, 'label', False)
    else:
        _check_names_match(label_names, [], 'label', False)
    return data_shapes, label_shapes


class ModuleUsageError(DLBookError, AssertionError):
    """A module method called before the steps it needs (``bind``,
    ``init_params``, ``init_optimizer``) or with arguments it cannot use.
    Also an ``AssertionError``, which MXNet raises here, so old ``except``
    clauses still work."""


class BaseModule:
    """The base class of modules: the high-level API over ``bind``,
    ``init_params``, ``init_optimizer``, ``forward``, ``backward``,
    ``update`` and ``update_metric``.

    Parameters
    ----------
    logger : logging.Logger or the logging module, default logging
        Where ``fit`` reports progress (MXNet logs to the root logger).

    Attributes
    ----------
    binded, for_training, inputs_need_grad, params_initialized,
    optimizer_initialized : bool
        Which setup steps are done.
    """

    def __init__(self, logger=logging):
        self.logger = logger
        self.binded = False
        self.for_training = False
        self.inputs_need_grad = False
        self.params_initialized = False
        self.optimizer_initialized = False
        self._symbol = None
        self._total_exec_bytes = 0

    # -- high-level API -------------------------------------------------------
    def forward_backward(self, data_batch):
        """``forward(data_batch, is_train=True)`` then ``backward()``."""
        self.forward(data_batch, is_train=True)
        self.backward()

    def score(
        self,
        eval_data,
        eval_metric,
        num_batch=None,
        batch_end_callback=None,
        score_end_callback=None,
        reset=True,
        epoch=0,
        sparse_row_id_fn=None,
    ):
        """Run prediction on ``eval_data`` and evaluate ``eval_metric``.

        Parameters
        ----------
        eval_data : DataIter
        eval_metric : str or EvalMetric
            E.g. ``'acc'``, ``'ce'``, ``mx.metric.Accuracy()``.
        num_batch : int, optional
            Stop after this many batches (default: the whole iterator).
        batch_end_callback, score_end_callback : function or list
            Called with a ``BatchEndParam`` after each batch / at the end.
        reset : bool, default True
            Reset ``eval_data`` first.
        epoch : int, default 0
            Passed on to the callbacks.

        Returns
        -------
        list of (str, float)
            ``eval_metric.get_name_value()``, e.g. ``[('accuracy', 0.9)]``.

        Examples
        --------
        >>> mod.score(val_iter, ['mse', 'acc'])              # doctest: +SKIP
        [('mse', 0.0258), ('accuracy', 0.96875)]
        """
        self._require('score()', params=True)
        if reset:
            eval_data.reset()
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)
        eval_metric.reset()
        actual_num_batch = 0
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(eval_batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(eval_batch, is_train=False)
            self._update_metric_of(eval_metric, eval_batch)
            if batch_end_callback is not None:
                params = BatchEndParam(
                    epoch=epoch,
                    nbatch=nbatch,
                    eval_metric=eval_metric,
                    locals=locals(),
                )
                for callback in _as_list(batch_end_callback):
                    callback(params)
            actual_num_batch += 1
        if score_end_callback:
            params = BatchEndParam(
                epoch=epoch,
                nbatch=actual_num_batch,
                eval_metric=eval_metric,
                locals=locals(),
            )
            for callback in _as_list(score_end_callback):
                callback(params)
        return eval_metric.get_name_value()

    def _update_metric_of(self, eval_metric, batch):
        """Update with a batch's labels (a list of batches: pre-sliced,
        one per device)."""
        if isinstance(batch, list):
            self.update_metric(
                eval_metric, [b.label for b in batch], pre_sliced=True
            )
        else:
            self.update_metric(eval_metric, batch.label)

    def iter_predict(
        self, eval_data, num_batch=None, reset=True, sparse_row_id_fn=None
    ):
        """Yield ``(outputs, nbatch, batch)`` for each batch, outputs
        without the padding of the last batch.

        Examples
        --------
        >>> for preds, i_batch, batch in mod.iter_predict(val_iter):
        ...     pred_label = preds[0].argmax(axis=1)     # doctest: +SKIP
        """
        self._require('iter_predict()', params=True)
        if reset:
            eval_data.reset()
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(eval_batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(eval_batch, is_train=False)
            pad = eval_batch.pad or 0
            outputs = [
                out[0 : out.shape[0] - pad] for out in self.get_outputs()
            ]
            yield outputs, nbatch, eval_batch

    def predict(
        self,
        eval_data,
        num_batch=None,
        merge_batches=True,
        reset=True,
        always_output_list=False,
        sparse_row_id_fn=None,
    ):
        """Run prediction and collect the outputs.

        Parameters
        ----------
        eval_data : DataIter or NDArray or numpy.ndarray
            An array is predicted as one batch.
        num_batch : int, optional
            Stop after this many batches.
        merge_batches : bool, default True
            Concatenate the batches' outputs (padding removed).
        reset : bool, default True
            Reset ``eval_data`` first.
        always_output_list : bool, default False
            Return a list even for a single output.

        Returns
        -------
        NDArray or list
            With ``merge_batches``: one NDArray per output (a single one
            unwrapped unless ``always_output_list``); without: a list per
            batch of its outputs.

        Examples
        --------
        >>> prob = mod.predict(val_iter)                     # doctest: +SKIP
        >>> prob.shape              # padding of the last batch dropped
        (100, 4)
        """
        self._require('predict()', params=True)
        if isinstance(eval_data, (nd.NDArray, numpy.ndarray)):
            if isinstance(eval_data, numpy.ndarray):
                eval_data = nd.array(eval_data)
            self.forward(DataBatch([eval_data]))
            return self.get_outputs()[0]
        if not isinstance(eval_data, DataIter):
            raise ValueError('eval_data must be of type NDArray or DataIter')
        output_list = [
            [out.copy() for out in outputs]
            for outputs, _, _ in self.iter_predict(
                eval_data,
                num_batch=num_batch,
                reset=reset,
                sparse_row_id_fn=sparse_row_id_fn,
            )
        ]
        if not output_list:
            return output_list
        if not merge_batches:
            return output_list
        num_outputs = len(output_list[0])
        for out in output_list:
            if len(out) != num_outputs:
                raise ModuleUsageError(
                    f'Cannot merge batches, as num of outputs is not the '
                    f'same in mini-batches ({num_outputs} and {len(out)}). '
                    f'Maybe bucketing is used?'
                )
        merged = [
            nd.concatenate([out[i] for out in output_list])
            for i in range(num_outputs)
        ]
        if num_outputs == 1 and not always_output_list:
            return merged[0]
        return merged

    def fit(
        self,
        train_data,
        eval_data=None,
        eval_metric='acc',
        epoch_end_callback=None,
        batch_end_callback=None,
        kvstore='local',
        optimizer='sgd',
        optimizer_params=(('learning_rate', 0.01),),
        eval_end_callback=None,
        eval_batch_end_callback=None,
        initializer=Uniform(0.01),
        arg_params=None,
        aux_params=None,
        allow_missing=False,
        force_rebind=False,
        force_init=False,
        begin_epoch=0,
        num_epoch=None,
        validation_metric=None,
        monitor=None,
        sparse_row_id_fn=None,
    ):
        """Train the module's parameters.

        Binds, initializes the parameters and the optimizer (each step
        only if not done yet), then for each epoch runs
        forward/backward/update on every batch and logs::

            Epoch[0] Train-accuracy=0.912500
            Epoch[0] Time cost=0.052
            Epoch[0] Validation-accuracy=0.925000

        Parameters
        ----------
        train_data : DataIter
        eval_data : DataIter, optional
            Scored after each epoch.
        eval_metric : str or EvalMetric, default 'acc'
        epoch_end_callback : function or list of function
            Called as ``callback(epoch, symbol, arg_params, aux_params)``
            (e.g. ``mx.callback.do_checkpoint(prefix)``).
        batch_end_callback : function or list of function
            Called with a ``BatchEndParam`` (e.g.
            ``mx.callback.Speedometer(batch_size)``).
        kvstore : str or KVStore, default 'local'
        optimizer : str or Optimizer, default 'sgd'
        optimizer_params : dict or pairs, default ``(('learning_rate',
            0.01),)``
        eval_end_callback, eval_batch_end_callback : function or list
            Callbacks of the validation :meth:`score`.
        initializer : Initializer, default ``Uniform(0.01)``
        arg_params, aux_params : dict of str to NDArray, optional
            Start from these values (e.g. a checkpoint) rather than
            ``initializer``.
        allow_missing : bool, default False
            Initialize parameters missing from ``arg_params``.
        force_rebind, force_init : bool, default False
        begin_epoch : int, default 0
            The first epoch's number (resume from checkpoint N with N).
        num_epoch : int
            Train until this epoch number (exclusive).
        validation_metric : str or EvalMetric, optional
            Metric for ``eval_data`` (default: ``eval_metric``).
        monitor : Monitor, optional
        """
        if num_epoch is None:
            raise ModuleUsageError(
                'fit(): please specify number of epochs (num_epoch=...)'
            )
        self.bind(
            data_shapes=train_data.provide_data,
            label_shapes=train_data.provide_label,
            for_training=True,
            force_rebind=force_rebind,
        )
        if monitor is not None:
            self.install_monitor(monitor)
        self.init_params(
            initializer=initializer,
            arg_params=arg_params,
            aux_params=aux_params,
            allow_missing=allow_missing,
            force_init=force_init,
        )
        self.init_optimizer(
            kvstore=kvstore,
            optimizer=optimizer,
            optimizer_params=optimizer_params,
        )
        if validation_metric is None:
            validation_metric = eval_metric
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)

        for epoch in range(begin_epoch, num_epoch):
            tic = time.time()
            eval_metric.reset()
            name_values = self._fit_epoch(
                train_data,
                epoch,
                eval_metric,
                batch_end_callback,
                monitor,
                sparse_row_id_fn,
            )
            for name, val in name_values:
                self.logger.info('Epoch[%d] Train-%s=%f', epoch, name, val)
            toc = time.time()
            self.logger.info('Epoch[%d] Time cost=%.3f', epoch, toc - tic)

            # Averages the devices' auxiliary states (BatchNorm) and
            # hands the same values back to every device.
            arg_params, aux_params = self.get_params()
            self.set_params(arg_params, aux_params)
            if epoch_end_callback is not None:
                for callback in _as_list(epoch_end_callback):
                    callback(epoch, self.symbol, arg_params, aux_params)

            if eval_data:
                res = self.score(
                    eval_data,
                    validation_metric,
                    score_end_callback=eval_end_callback,
                    batch_end_callback=eval_batch_end_callback,
                    epoch=epoch,
                )
                for name, val in res:
                    self.logger.info(
                        'Epoch[%d] Validation-%s=%f', epoch, name, val
                    )
            train_data.reset()

    def _fit_epoch(
        self,
        train_data,
        epoch,
        eval_metric,
        batch_end_callback,
        monitor,
        sparse_row_id_fn,
    ):
        """One pass over ``train_data``; returns the epoch's metric
        values, read after the last batch and before the batch-end
        callbacks (a ``Speedometer`` may reset the local metric)."""
        data_iter = iter(train_data)
        next_data_batch = next(data_iter)
        nbatch, end_of_batch, name_values = 0, False, []
        while not end_of_batch:
            data_batch = next_data_batch
            if monitor is not None:
                monitor.tic()
            self.forward_backward(data_batch)
            self.update()
            self._update_metric_of(eval_metric, data_batch)
            try:
                # Fetch the next batch now, to know if this is the last.
                next_data_batch = next(data_iter)
                self.prepare(
                    next_data_batch, sparse_row_id_fn=sparse_row_id_fn
                )
            except StopIteration:
                end_of_batch = True
            if monitor is not None:
                monitor.toc_print()
            if end_of_batch:
                name_values = eval_metric.get_global_name_value()
            if batch_end_callback is not None:
                params = BatchEndParam(
                    epoch=epoch,
                    nbatch=nbatch,
                    eval_metric=eval_metric,
                    locals=locals(),
                )
                for callback in _as_list(batch_end_callback):
                    callback(params)
            nbatch += 1
        return name_values

    # -- symbol and parameters ------------------------------------------------
    @property
    def symbol(self):
        """The symbol of the module (for a bucketing module: the current
        bucket's)."""
        return self._symbol

    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Prepare for a batch before ``forward`` (nothing to do: dlbook
        has no row-sparse parameters to pull)."""
        if sparse_row_id_fn is not None:
            warnings.warn(
                UserWarning('sparse_row_id_fn is not invoked for BaseModule.'),
                stacklevel=2,
            )

    def get_params(self):
        """``(arg_params, aux_params)``: dicts of CPU copies."""
        raise NotImplementedError()

    def init_params(
        self,
        initializer=Uniform(0.01),
        arg_params=None,
        aux_params=None,
        allow_missing=False,
        force_init=False,
        allow_extra=False,
    ):
        """Initialize the parameters and auxiliary states."""
        raise NotImplementedError()

    def set_params(
        self,
        arg_params,
        aux_params,
        allow_missing=False,
        force_init=True,
        allow_extra=False,
    ):
        """Assign parameter and auxiliary-state values.

        Parameters
        ----------
        arg_params, aux_params : dict of str to NDArray
        allow_missing : bool, default False
            Leave parameters absent from the dicts as they are.
        force_init : bool, default True
            Assign even if already initialized.
        allow_extra : bool, default False
            Ignore names the module does not have (else raise).
        """
        self.init_params(
            initializer=None,
            arg_params=arg_params,
            aux_params=aux_params,
            allow_missing=allow_missing,
            force_init=force_init,
            allow_extra=allow_extra,
        )

    def _set_params_done(
        self, arg_params, aux_params, allow_missing, force_init, allow_extra
    ):
        """The start of ``set_params`` in Module and BucketingModule.

        Without ``allow_missing``, ``init_params`` assigns (and checks)
        every value; already initialized without ``force_init``, the call
        is ignored with a warning.  Returns whether ``set_params`` is
        done; if not, the caller assigns the values to its devices.
        """
        if not allow_missing:
            self.init_params(
                initializer=None,
                arg_params=arg_params,
                aux_params=aux_params,
                allow_missing=allow_missing,
                force_init=force_init,
                allow_extra=allow_extra,
            )
            return True
        if self.params_initialized and not force_init:
            # At the set_params(...) call.
            warnings.warn(
                'Parameters already initialized and '
                'force_init=False. set_params call ignored.',
                stacklevel=3,
            )
            return True
        return False

    def _require(
        self, method, params=False, optimizer=False, input_grads=False
    ):
        """Raise :class:`ModuleUsageError` naming the missing set-up steps
        (in the order to call them) unless the module is ready."""
        steps = []
        if not self.binded:
            steps.append('bind(data_shapes=..., label_shapes=...)')
        if params and not self.params_initialized:
            steps.append('init_params() (or set_params())')
        if optimizer and not self.optimizer_initialized:
            steps.append('init_optimizer()')
        if input_grads and self.binded and not self.inputs_need_grad:
            steps.append('bind(..., inputs_need_grad=True, force_rebind=True)')
        if steps:
            raise ModuleUsageError(
                f'{type(self).__name__}.{method} was called too early: '
                f'call {", then ".join(steps)} first'
            )

    def save_params(self, fname):
        """Save the parameters to ``fname`` (``arg:``/``aux:`` keys, the
        checkpoint format)."""
        nd.save(fname, _join_params(*self.get_params()))

    def load_params(self, fname):
        """Load parameters saved by :meth:`save_params` (or a checkpoint's
        ``.params`` file)."""
        arg_params, aux_params = split_params(nd.load(fname), fname)
        self.set_params(arg_params, aux_params)

    def get_states(self, merge_multi_context=True):
        """The states (``state_names``) of the last forward."""
        self._require('get_states()', params=True)
        if merge_multi_context:
            raise ModuleUsageError(
                'get_states(merge_multi_context=True) '
                'is not supported; pass False'
            )
        return []

    def set_states(self, states=None, value=None):
        """Set the states from arrays or to a scalar ``value``."""
        self._require('set_states()', params=True)
        if states or value:
            raise ModuleUsageError(
                f'{type(self).__name__} has no states (state_names) to set'
            )

    def install_monitor(self, mon):
        """Install a monitor on all executors."""
        raise NotImplementedError()

    # -- what subclasses implement --------------------------------------------
    def bind(
        self,
        data_shapes,
        label_shapes=None,
        for_training=True,
        inputs_need_grad=False,
        force_rebind=False,
        shared_module=None,
        grad_req='write',
    ):
        """Allocate memory for the given input shapes."""
        raise NotImplementedError()

    def init_optimizer(
        self,
        kvstore='local',
        optimizer='sgd',
        optimizer_params=(('learning_rate', 0.01),),
        force_init=False,
    ):
        """Install an optimizer."""
        raise NotImplementedError()

    def forward(self, data_batch, is_train=None):
        """Compute the outputs of a batch."""
        raise NotImplementedError()

    def backward(self, out_grads=None):
        """Compute the gradients of the last forward (training)."""
        raise NotImplementedError()

    def get_outputs(self, merge_multi_context=True):
        """Outputs of the last forward."""
        raise NotImplementedError()

    def get_input_grads(self, merge_multi_context=True):
        """Gradients of the inputs (``inputs_need_grad=True``)."""
        raise NotImplementedError()

    def update(self):
        """Update the parameters with the installed optimizer."""
        raise NotImplementedError()

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update ``eval_metric`` with the last forward's outputs."""
        raise NotImplementedError()

    @property
    def data_names(self):
        """Names of the data inputs."""
        raise NotImplementedError()

    @property
    def output_names(self):
        """Names of the outputs."""
        raise NotImplementedError()

    @property
    def data_shapes(self):
        """DataDescs of the data inputs (after bind)."""
        raise NotImplementedError()

    @property
    def label_shapes(self):
        """DataDescs of the labels (after bind; None without labels)."""
        raise NotImplementedError()

    @property
    def output_shapes(self):
        """``[(name, shape)]`` of the outputs (after bind)."""
        raise NotImplementedError()
