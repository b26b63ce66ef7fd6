"""``Module``: train a symbol on one or several devices.

The Module API is how MXNet trained symbolic networks before Gluon::

    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(
        mx.sym.var('data'), num_hidden=4, name='fc1'), name='softmax')
    mod = mx.mod.Module(net, context=[mx.cpu(0), mx.cpu(1)])
    mod.fit(train_iter, eval_data=val_iter, num_epoch=10,
            optimizer_params={'learning_rate': 0.1})

With a list of contexts, each batch is split between the devices (see
``executor_group``); their gradients are summed before the update, so the
result matches single-device training on the whole batch.  The semantics
follow ``apache/mxnet@1.9.1:python/mxnet/module/module.py``.

This file holds what makes a Module: its names, ``bind`` to input shapes
(one executor per device) and ``Module.load``.  The rest comes from one
mixin per idea, each in its own file:

* ``module_parameters``: ``init_params``, ``get_params``, ``set_params``
  and ``save_checkpoint``;
* ``module_optimizer``: ``init_optimizer`` and the optimizer's states;
* ``module_computation``: ``forward``, ``backward``, ``update`` and
  their outputs.

``Module`` is still one class, as in MXNet: subclass it or replace a
method (``mx.mod.Module.forward = ...``) as before.
"""

import logging

from .. import ndarray as nd
from ..context import Context, cpu
from ..model import load_checkpoint
from .base_module import (
    BaseModule,
    ModuleUsageError,
    _input_names,
    _parse_data_desc,
)
from .executor_group import DataParallelExecutorGroup
from .module_computation import ComputationMixin
from .module_optimizer import OptimizerMixin
from .module_parameters import ParametersMixin

__all__ = ['Module']


class Module(ParametersMixin, OptimizerMixin, ComputationMixin, BaseModule):
    """A module over one symbol, data-parallel over ``context``.

    Parameters
    ----------
    symbol : Symbol
        The network, usually ending in a loss output (``SoftmaxOutput``).
    data_names : list of str, default ``('data',)``
        Arguments fed from ``batch.data``.
    label_names : list of str, default ``('softmax_label',)``
        Arguments fed from ``batch.label``.
    logger : logging.Logger, default the logging module
    context : Context or list of Context, default ``cpu()``
        One executor per context; batches are split between them.
    work_load_list : list of number, optional
        Relative share of each batch per context (default: equal).
    fixed_param_names : list of str, optional
        Parameters that are not trained (no gradient, no update).
    state_names : list of str, optional
        Arguments that are states, set with ``set_states``.
    group2ctxs : dict or list of dict, optional
        ``ctx_group`` placement for model parallelism.
    compression_params : dict, optional
        Gradient compression: not supported by dlbook's single-process
        KVStore.

    Examples
    --------
    >>> mod = mx.mod.Module(net, context=mx.cpu())       # doctest: +SKIP
    >>> mod.bind(data_shapes=train_iter.provide_data,
    ...          label_shapes=train_iter.provide_label)
    >>> mod.init_params(mx.init.Xavier())
    >>> mod.init_optimizer(optimizer_params={'learning_rate': 0.1})
    >>> for batch in train_iter:
    ...     mod.forward(batch, is_train=True)
    ...     mod.backward()
    ...     mod.update()
    """

    def __init__(
        self,
        symbol,
        data_names=('data',),
        label_names=('softmax_label',),
        logger=logging,
        context=cpu(),
        work_load_list=None,
        fixed_param_names=None,
        state_names=None,
        group2ctxs=None,
        compression_params=None,
    ):
        super().__init__(logger=logger)
        if isinstance(context, Context):
            context = [context]
        self._context = list(context)
        if work_load_list is None:
            work_load_list = [1] * len(self._context)
        if len(work_load_list) != len(self._context):
            raise ModuleUsageError(
                f'work_load_list must have one entry per context: '
                f'{len(work_load_list)} entries for {self._context}'
            )
        self._work_load_list = work_load_list
        self._group2ctxs = group2ctxs
        self._symbol = symbol

        data_names, label_names, state_names, fixed_param_names = _input_names(
            symbol, data_names, label_names, state_names, fixed_param_names
        )

        input_names = data_names + label_names + state_names
        self._param_names = [
            x for x in symbol.list_arguments() if x not in input_names
        ]
        self._fixed_param_names = fixed_param_names
        self._aux_names = symbol.list_auxiliary_states()
        self._data_names = data_names
        self._label_names = label_names
        self._state_names = state_names
        self._output_names = symbol.list_outputs()

        self._arg_params = None
        self._aux_params = None
        # True when the devices hold newer values than _arg_params.
        self._params_dirty = False
        self._compression_params = compression_params
        self._optimizer = None
        self._kvstore = None
        self._update_on_kvstore = None
        self._updater = None
        self._preload_opt_states = None
        self._grad_req = None
        self._exec_group = None
        self._data_shapes = None
        self._label_shapes = None

    # -- checkpoints (saving: module_parameters) ------------------------------
    @staticmethod
    def load(prefix, epoch, load_optimizer_states=False, **kwargs):
        """A Module from a checkpoint (``prefix-symbol.json`` and
        ``prefix-%04d.params``); bind it before use.

        Parameters
        ----------
        prefix : str
        epoch : int
        load_optimizer_states : bool, default False
            Also load ``prefix-%04d.states`` when ``init_optimizer`` runs.
        **kwargs
            Passed to ``Module`` (``context``, ``data_names``...).

        Examples
        --------
        >>> mod = mx.mod.Module.load('mlp', 3)               # doctest: +SKIP
        >>> mod.bind(data_shapes=[('data', (32, 2))], for_training=False)
        >>> mod.predict(val_iter)
        """
        symbol, args, auxs = load_checkpoint(prefix, epoch)
        mod = Module(symbol=symbol, **kwargs)
        mod._arg_params = args
        mod._aux_params = auxs
        mod.params_initialized = True
        if load_optimizer_states:
            mod._preload_opt_states = '%s-%04d.states' % (prefix, epoch)
        return mod

    # -- names and shapes -----------------------------------------------------
    def _reset_bind(self):
        self.binded = False
        self._exec_group = None
        self._data_shapes = None
        self._label_shapes = None

    @property
    def data_names(self):
        """Names of the data inputs."""
        return self._data_names

    @property
    def label_names(self):
        """Names of the labels."""
        return self._label_names

    @property
    def output_names(self):
        """Names of the outputs (``['softmax_output']``)."""
        return self._output_names

    @property
    def data_shapes(self):
        """DataDescs of the data inputs, whole batch."""
        self._require('data_shapes')
        return self._data_shapes

    @property
    def label_shapes(self):
        """DataDescs of the labels (None if bound without labels)."""
        self._require('label_shapes')
        return self._label_shapes

    @property
    def output_shapes(self):
        """``[(output name, shape)]``, whole batch."""
        self._require('output_shapes')
        return self._exec_group.get_output_shapes()

    # -- binding --------------------------------------------------------------
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
        """Allocate the executors for the given input shapes.

        Parameters
        ----------
        data_shapes : list of (str, tuple) or DataDesc
            E.g. ``train_iter.provide_data`` or ``[('data', (32, 2))]``.
        label_shapes : list of (str, tuple) or DataDesc, optional
        for_training : bool, default True
            Allocate gradients (False: prediction only).
        inputs_need_grad : bool, default False
            Also compute gradients of the data (``get_input_grads``).
        force_rebind : bool, default False
            Rebind even if already bound.
        shared_module : Module, optional
            Share its parameters (used by ``BucketingModule``).
        grad_req : str or dict, default 'write'
            ``'write'``, ``'add'`` or ``'null'``.
        """
        if force_rebind:
            self._reset_bind()
        if self.binded:
            self.logger.warning('Already bound, ignoring bind()')
            return
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._grad_req = grad_req
        if not for_training and inputs_need_grad:
            raise ModuleUsageError(
                'bind(): inputs_need_grad=True needs for_training=True'
            )
        self._data_shapes, self._label_shapes = _parse_data_desc(
            self.data_names, self.label_names, data_shapes, label_shapes
        )

        if shared_module is not None:
            if not isinstance(shared_module, Module):
                raise ModuleUsageError(
                    f'bind(): shared_module must be a Module, got '
                    f'{type(shared_module).__name__}'
                )
            shared_module._require(
                'bind(shared_module=...) of another module with it',
                params=True,
            )
            shared_group = shared_module._exec_group
            if len(shared_group.execs) < len(self._context):
                raise ModuleUsageError(
                    f'bind(): shared_module runs on '
                    f'{len(shared_group.execs)} device(s), fewer than this '
                    f"module's {len(self._context)}"
                )
        else:
            shared_group = None

        self._exec_group = DataParallelExecutorGroup(
            self._symbol,
            self._context,
            self._work_load_list,
            self._data_shapes,
            self._label_shapes,
            self._param_names,
            for_training,
            inputs_need_grad,
            shared_group,
            logger=self.logger,
            fixed_param_names=self._fixed_param_names,
            grad_req=grad_req,
            group2ctxs=self._group2ctxs,
            state_names=self._state_names,
        )
        self.binded = True

        if shared_module is not None:
            self.params_initialized = True
            self._arg_params = shared_module._arg_params
            self._aux_params = shared_module._aux_params
        elif self.params_initialized:
            # Re-binding (e.g. for prediction): keep the values.
            self._exec_group.set_params(self._arg_params, self._aux_params)
        else:
            assert self._arg_params is None and self._aux_params is None
            self._arg_params = {
                name: nd.zeros(
                    block[0].shape, dtype=block[0].dtype, stype=block[0].stype
                )
                for name, block in zip(
                    self._exec_group.param_names, self._exec_group.param_arrays
                )
            }
            self._aux_params = {
                name: nd.zeros(block[0].shape, dtype=block[0].dtype)
                for name, block in zip(
                    self._aux_names, self._exec_group.aux_arrays
                )
            }
        if shared_module is not None and shared_module.optimizer_initialized:
            self.borrow_optimizer(shared_module)

    def reshape(self, data_shapes, label_shapes=None):
        """Rebind for new input shapes (e.g. another batch size); the
        parameters are kept.

        Parameters
        ----------
        data_shapes : list of (str, tuple) or DataDesc
        label_shapes : list of (str, tuple) or DataDesc, optional
        """
        self._require('reshape()')
        self._data_shapes, self._label_shapes = _parse_data_desc(
            self.data_names, self.label_names, data_shapes, label_shapes
        )
        self._exec_group.reshape(self._data_shapes, self._label_shapes)
