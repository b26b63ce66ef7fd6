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
"""

import logging
import warnings

from .. import ndarray as nd
from .. import optimizer as opt
from .._atomic import atomic_write
from ..context import Context, cpu
from ..initializer import InitDesc, Uniform
from ..io import DataDesc
from ..model import (
    _create_kvstore,
    _initialize_kvstore,
    _params_file,
    _update_params,
    _update_params_on_kvstore,
    load_checkpoint,
)
from .base_module import (
    BaseModule,
    ModuleUsageError,
    _input_names,
    _parse_data_desc,
)
from .executor_group import DataParallelExecutorGroup

__all__ = ['Module']


class Module(BaseModule):
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

    # -- checkpoints ----------------------------------------------------------
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

    def save_checkpoint(
        self, prefix, epoch, save_optimizer_states=False, remove_amp_cast=True
    ):
        """Save ``prefix-symbol.json`` and ``prefix-%04d.params`` (and
        ``prefix-%04d.states`` with ``save_optimizer_states``).

        Parameters
        ----------
        prefix : str
        epoch : int
        save_optimizer_states : bool, default False
        remove_amp_cast : bool, default True
            Accepted for compatibility.
        """
        self._symbol.save(
            '%s-symbol.json' % prefix, remove_amp_cast=remove_amp_cast
        )
        param_name = _params_file(prefix, epoch)
        self.save_params(param_name)
        logging.info('Saved checkpoint to "%s"', param_name)
        if save_optimizer_states:
            state_name = '%s-%04d.states' % (prefix, epoch)
            self.save_optimizer_states(state_name)
            logging.info('Saved optimizer state to "%s"', state_name)

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

    # -- parameters -----------------------------------------------------------
    def get_params(self):
        """``(arg_params, aux_params)``: dicts of CPU arrays holding the
        current parameters (copied from the devices if they changed)."""
        self._require('get_params()', params=True)
        if self._params_dirty:
            self._sync_params_from_devices()
        return self._arg_params, self._aux_params

    def init_params(
        self,
        initializer=Uniform(0.01),
        arg_params=None,
        aux_params=None,
        allow_missing=False,
        force_init=False,
        allow_extra=False,
    ):
        """Initialize the parameters and auxiliary states.

        Parameters
        ----------
        initializer : Initializer, default ``Uniform(0.01)``
            Called as ``initializer(InitDesc(name, attrs), array)``: by
            name suffix, weights get its distribution, biases zeros,
            BatchNorm's gamma ones...
        arg_params, aux_params : dict of str to NDArray, optional
            Values to use instead (e.g. from ``load_checkpoint``).
        allow_missing : bool, default False
            Initialize names missing from ``arg_params``/``aux_params``
            with ``initializer`` instead of raising.
        force_init : bool, default False
            Initialize again even if already initialized.
        allow_extra : bool, default False
            Accepted for compatibility with ``set_params``.
        """
        if self.params_initialized and not force_init:
            warnings.warn(
                'Parameters already initialized and '
                'force_init=False. init_params call ignored.',
                stacklevel=2,
            )
            return
        self._require('init_params()')

        def _impl(desc, arr, cache):
            if cache is None:
                initializer(desc, arr)
            elif desc in cache:
                given = cache[desc]
                if given is arr:
                    return
                _check_given_shape(desc, arr, given)
                given.copyto(arr)
            else:
                if not allow_missing:
                    raise RuntimeError('%s is not presented' % desc)
                if initializer is not None:
                    initializer(desc, arr)

        # Check every given value first: a bad checkpoint changes nothing.
        for own, given in (
            (self._arg_params, arg_params),
            (self._aux_params, aux_params),
        ):
            if given is None:
                continue
            for name, arr in sorted(own.items()):
                if name in given:
                    _check_given_shape(name, arr, given[name])
                elif not allow_missing:
                    raise RuntimeError(
                        f'{name} is not presented: the given '
                        f'parameters have no value for it '
                        f'(pass allow_missing=True to '
                        f'initialize it instead)'
                    )
        attrs = self._symbol.attr_dict()
        # Sorted, so that random draws do not depend on the graph order.
        for name, arr in sorted(self._arg_params.items()):
            _impl(InitDesc(name, attrs.get(name)), arr, arg_params)
        for name, arr in sorted(self._aux_params.items()):
            _impl(InitDesc(name, attrs.get(name)), arr, aux_params)
        self.params_initialized = True
        self._params_dirty = False
        self._exec_group.set_params(
            self._arg_params, self._aux_params, allow_extra=allow_extra
        )

    def set_params(
        self,
        arg_params,
        aux_params,
        allow_missing=False,
        force_init=True,
        allow_extra=False,
    ):
        """Assign parameter values (see ``BaseModule.set_params``).

        Examples
        --------
        >>> _, arg_params, aux_params = mx.model.load_checkpoint('mlp', 3)
        ... # doctest: +SKIP
        >>> mod.set_params(arg_params, aux_params)
        """
        if self._set_params_done(
            arg_params, aux_params, allow_missing, force_init, allow_extra
        ):
            return
        self._exec_group.set_params(
            arg_params, aux_params, allow_extra=allow_extra
        )
        # Only the devices got the new values: read them back on demand.
        self._params_dirty = True
        self.params_initialized = True

    def _sync_params_from_devices(self):
        """Copy the devices' parameters into ``_arg_params``/
        ``_aux_params``."""
        self._exec_group.get_params(self._arg_params, self._aux_params)
        self._params_dirty = False

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

    # -- optimizer ------------------------------------------------------------
    def init_optimizer(
        self,
        kvstore='local',
        optimizer='sgd',
        optimizer_params=(('learning_rate', 0.01),),
        force_init=False,
    ):
        """Install an optimizer.

        With an optimizer name, ``rescale_grad`` defaults to
        ``1 / batch_size`` (loss outputs such as ``SoftmaxOutput`` give
        the gradient of the *sum* over the batch) and ``param_idx2name``
        is set, so that weight decay skips parameters whose names do not
        end in ``_weight`` or ``_gamma`` (biases, BatchNorm's beta).

        Parameters
        ----------
        kvstore : str or KVStore or None, default 'local'
            How several devices combine gradients (unused on one device).
        optimizer : str or Optimizer, default 'sgd'
        optimizer_params : dict or pairs, default ``(('learning_rate',
            0.01),)``
        force_init : bool, default False
            Replace an already installed optimizer.
        """
        self._require('init_optimizer()', params=True)
        if self.optimizer_initialized and not force_init:
            self.logger.warning('optimizer already initialized, ignoring...')
            return
        if self._params_dirty:
            self._sync_params_from_devices()

        kvstore, update_on_kvstore = _create_kvstore(
            kvstore, len(self._context), self._arg_params
        )
        batch_size = self._exec_group.batch_size
        if kvstore and 'dist' in kvstore.type and '_sync' in kvstore.type:
            batch_size *= kvstore.num_workers
        rescale_grad = 1.0 / batch_size

        idx2name = {}
        param_names = self._exec_group.param_names
        if update_on_kvstore:
            idx2name.update(enumerate(param_names))
        else:
            # _update_params gives device k's copy of parameter i the
            # index i * num_device + k.
            n = len(self._context)
            for k in range(n):
                idx2name.update(
                    {i * n + k: name for i, name in enumerate(param_names)}
                )
        if isinstance(optimizer, str):
            optimizer_params = dict(optimizer_params)
            if 'rescale_grad' not in optimizer_params:
                optimizer_params['rescale_grad'] = rescale_grad
            optimizer = opt.create(
                optimizer,
                sym=self.symbol,
                param_idx2name=idx2name,
                **optimizer_params,
            )
        else:
            if not isinstance(optimizer, opt.Optimizer):
                raise ModuleUsageError(
                    f'init_optimizer(): optimizer must be a name or an '
                    f'Optimizer, got {type(optimizer).__name__}'
                )
            if optimizer.rescale_grad != rescale_grad:
                warnings.warn(
                    'Optimizer created manually outside Module but '
                    'rescale_grad is not normalized to '
                    '1.0/batch_size/num_workers (%s vs. %s). Is this '
                    'intended?' % (optimizer.rescale_grad, rescale_grad),
                    stacklevel=2,
                )
            if not optimizer.idx2name:
                optimizer.idx2name = idx2name.copy()

        self._optimizer = optimizer
        self._kvstore = kvstore
        self._update_on_kvstore = update_on_kvstore
        self._updater = None
        if kvstore:
            if self._compression_params:
                kvstore.set_gradient_compression(self._compression_params)
            if update_on_kvstore:
                kvstore.set_optimizer(self._optimizer)
            _initialize_kvstore(
                kvstore=kvstore,
                param_arrays=self._exec_group.param_arrays,
                arg_params=self._arg_params,
                param_names=self._param_names,
                update_on_kvstore=update_on_kvstore,
            )
        if not update_on_kvstore:
            self._updater = opt.get_updater(optimizer)
        self.optimizer_initialized = True
        if self._preload_opt_states is not None:
            self.load_optimizer_states(self._preload_opt_states)
            self._preload_opt_states = None

    def borrow_optimizer(self, shared_module):
        """Use ``shared_module``'s optimizer, store and updater."""
        shared_module._require('borrow_optimizer() from it', optimizer=True)
        self._optimizer = shared_module._optimizer
        self._kvstore = shared_module._kvstore
        self._update_on_kvstore = shared_module._update_on_kvstore
        self._updater = shared_module._updater
        self.optimizer_initialized = True

    def save_optimizer_states(self, fname):
        """Save the optimizer states (momentum...) to ``fname``.

        dlbook writes its pickle-free format (see
        ``dlbook.optimizer.updater``), never a pickle, so a states file
        cannot run code when loaded.
        """
        self._require('save_optimizer_states()', optimizer=True)
        if self._update_on_kvstore:
            self._kvstore.save_optimizer_states(fname)
        else:
            with atomic_write(fname) as fout:
                fout.write(self._updater.get_states())

    def load_optimizer_states(self, fname):
        """Load optimizer states saved by :meth:`save_optimizer_states`."""
        self._require('load_optimizer_states()', optimizer=True)
        if self._update_on_kvstore:
            self._kvstore.load_optimizer_states(fname)
        else:
            group = self._exec_group
            shapes = {
                i * len(self._context) + k: w.shape
                for i, ws in enumerate(group.param_arrays)
                for k, w in enumerate(ws)
            }
            with open(fname, 'rb') as fin:
                self._updater.set_states(
                    fin.read(), f"optimizer states file '{fname}'", shapes
                )

    # -- computation ----------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        """Compute the outputs of ``data_batch``.

        A batch whose shapes differ from the bound ones (another batch
        size) first reshapes the executors.

        Parameters
        ----------
        data_batch : DataBatch (or a list of them, one per device)
        is_train : bool, optional
            Training mode (Dropout, BatchNorm); default ``for_training``.
        """
        self._require('forward()', params=True)
        curr_shapes = tuple(d.shape for d in self._data_shapes)
        if isinstance(data_batch, list):
            new_shapes = []
            for i in range(len(data_batch[0].data)):
                shape = data_batch[0].data[i].shape
                for db in data_batch:
                    if shape != db.data[i].shape:
                        raise ModuleUsageError(
                            f'All data batches in a list need to have the '
                            f'same shape: data {i} has shapes {shape} and '
                            f'{db.data[i].shape}'
                        )
                new_shapes.append((len(data_batch) * shape[0],) + shape[1:])
            new_shapes = tuple(new_shapes)
        else:
            new_shapes = tuple(d.shape for d in data_batch.data)
        if curr_shapes != new_shapes:
            self.reshape(*self._new_descs(data_batch, new_shapes))
        self._exec_group.forward(data_batch, is_train)

    def _new_descs(self, data_batch, new_shapes):
        """Data and label DataDescs for a batch of other shapes."""
        if getattr(data_batch, 'provide_data', None):
            new_dshape = data_batch.provide_data
        else:
            new_dshape = [
                DataDesc(d.name, shape, d.dtype, d.layout)
                for d, shape in zip(self._data_shapes, new_shapes)
            ]
        if getattr(data_batch, 'provide_label', None):
            new_lshape = data_batch.provide_label
        elif getattr(data_batch, 'label', None) and self._label_shapes:
            new_lshape = [
                DataDesc(d.name, label.shape, d.dtype, d.layout)
                for d, label in zip(self._label_shapes, data_batch.label)
            ]
        else:
            new_lshape = None
        return new_dshape, new_lshape

    def backward(self, out_grads=None):
        """Gradients of the last ``forward(is_train=True)``.

        Parameters
        ----------
        out_grads : NDArray or list of NDArray, optional
            Gradients of the outputs (not needed for loss outputs).
        """
        self._require('backward()', params=True)
        self._exec_group.backward(out_grads=out_grads)

    def update(self):
        """Update the parameters from the last ``backward``: gradients
        are summed over the devices, then the optimizer runs."""
        self._require('update()', params=True, optimizer=True)
        self._params_dirty = True
        if self._update_on_kvstore:
            _update_params_on_kvstore(
                self._exec_group.param_arrays,
                self._exec_group.grad_arrays,
                self._kvstore,
                self._exec_group.param_names,
            )
        else:
            _update_params(
                self._exec_group.param_arrays,
                self._exec_group.grad_arrays,
                updater=self._updater,
                num_device=len(self._context),
                kvstore=self._kvstore,
                param_names=self._exec_group.param_names,
            )

    def get_outputs(self, merge_multi_context=True):
        """Outputs of the last forward.

        Parameters
        ----------
        merge_multi_context : bool, default True
            Concatenate the devices' parts (else one list per output).

        Returns
        -------
        list of NDArray (or of lists of NDArray)
        """
        self._require('get_outputs()', params=True)
        return self._exec_group.get_outputs(
            merge_multi_context=merge_multi_context
        )

    def get_input_grads(self, merge_multi_context=True):
        """Gradients of the data inputs (bind with
        ``inputs_need_grad=True``)."""
        self._require('get_input_grads()', params=True, input_grads=True)
        return self._exec_group.get_input_grads(
            merge_multi_context=merge_multi_context
        )

    def get_states(self, merge_multi_context=True):
        """The state arrays (``state_names``), one list per state."""
        self._require('get_states()', params=True)
        return self._exec_group.get_states(
            merge_multi_context=merge_multi_context
        )

    def set_states(self, states=None, value=None):
        """Set the states from per-device arrays, or all to ``value``."""
        self._require('set_states()', params=True)
        self._exec_group.set_states(states, value)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update ``eval_metric`` with the last outputs and ``labels``.

        Parameters
        ----------
        eval_metric : EvalMetric
        labels : list of NDArray
            The whole batch's labels (or, with ``pre_sliced``, one list
            per device).
        pre_sliced : bool, default False
        """
        self._exec_group.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        """Install a monitor (anything with ``install(executor)``) on
        every executor."""
        self._require('install_monitor()')
        self._exec_group.install_monitor(mon)


def _check_given_shape(name, arr, given):
    if tuple(given.shape) != tuple(arr.shape):
        raise ValueError(
            f'init_params: {name} has shape {arr.shape} in the bound module '
            f'but {tuple(given.shape)} in the given parameters; was the '
            f'checkpoint saved from another network?'
        )
