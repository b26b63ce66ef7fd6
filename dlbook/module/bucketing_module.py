"""``BucketingModule``: one network per input length, shared parameters.

Sentences have different lengths.  Padding every batch to the longest
sentence wastes work; *bucketing* groups sentences of similar length
into buckets and unrolls the network once per bucket length.  A
``BucketingModule`` calls ``sym_gen(bucket_key)`` to build each bucket's
symbol the first time a batch with that ``batch.bucket_key`` arrives,
and binds it as a :class:`~dlbook.module.Module` that *shares* the
parameter arrays of the default bucket's module, so all buckets train
the same weights.

Follows ``apache/mxnet@1.9.1:python/mxnet/module/bucketing_module.py``.
"""

import logging

from ..context import cpu
from ..initializer import Uniform
from .base_module import BaseModule, ModuleUsageError, _input_names
from .module import Module

__all__ = ['BucketingModule']


class BucketingModule(BaseModule):
    """A module that switches between per-bucket symbols.

    Parameters
    ----------
    sym_gen : function
        ``sym_gen(bucket_key) -> (symbol, data_names, label_names)``.
        Parameter names must not depend on the key, so that buckets
        share them.
    default_bucket_key : hashable
        The key of the largest bucket: bound first, its module owns the
        parameters.
    logger, context, work_load_list, fixed_param_names, state_names,
    group2ctxs, compression_params
        As for :class:`~dlbook.module.Module`.

    Examples
    --------
    >>> def sym_gen(seq_len):
    ...     data = mx.sym.var('data')           # (batch, seq_len, feat)
    ...     pooled = mx.sym.mean(data, axis=1)
    ...     fc = mx.sym.FullyConnected(pooled, num_hidden=4, name='fc')
    ...     return (mx.sym.SoftmaxOutput(fc, name='softmax'), ('data',),
    ...             ('softmax_label',))
    >>> mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=10)
    ... # doctest: +SKIP
    """

    def __init__(
        self,
        sym_gen,
        default_bucket_key=None,
        logger=logging,
        context=cpu(),
        work_load_list=None,
        fixed_param_names=None,
        state_names=None,
        group2ctxs=None,
        compression_params=None,
    ):
        super().__init__(logger=logger)
        if default_bucket_key is None:
            raise ModuleUsageError(
                'BucketingModule needs a default_bucket_key'
            )
        self._default_bucket_key = default_bucket_key
        self._sym_gen = sym_gen
        symbol, data_names, label_names = self._call_sym_gen(
            default_bucket_key
        )
        data_names, label_names, state_names, fixed_param_names = _input_names(
            symbol, data_names, label_names, state_names, fixed_param_names
        )
        self._compression_params = compression_params
        self._fixed_param_names = fixed_param_names
        self._state_names = state_names
        self._context = context
        self._work_load_list = work_load_list
        self._group2ctxs = group2ctxs
        self._buckets = {}
        self._curr_module = None
        self._curr_bucket_key = None
        self._params_dirty = False
        self._monitor = None
        self._grad_req = None

    def _call_sym_gen(self, bucket_key):
        return self._sym_gen(bucket_key)

    def _new_module(self, bucket_key):
        symbol, data_names, label_names = self._call_sym_gen(bucket_key)
        return Module(
            symbol,
            data_names,
            label_names,
            logger=self.logger,
            context=self._context,
            work_load_list=self._work_load_list,
            fixed_param_names=self._fixed_param_names,
            state_names=self._state_names,
            group2ctxs=self._group2ctxs,
            compression_params=self._compression_params,
        )

    def _reset_bind(self):
        self.binded = False
        self._buckets = {}
        self._curr_module = None
        self._curr_bucket_key = None

    # -- names and shapes -----------------------------------------------------
    @property
    def data_names(self):
        """Data names of the current (or default) bucket."""
        if self.binded:
            return self._curr_module.data_names
        return self._call_sym_gen(self._default_bucket_key)[1]

    @property
    def output_names(self):
        """Output names of the current (or default) bucket."""
        if self.binded:
            return self._curr_module.output_names
        return self._call_sym_gen(self._default_bucket_key)[0].list_outputs()

    @property
    def data_shapes(self):
        self._require('data_shapes')
        return self._curr_module.data_shapes

    @property
    def label_shapes(self):
        self._require('label_shapes')
        return self._curr_module.label_shapes

    @property
    def output_shapes(self):
        self._require('output_shapes')
        return self._curr_module.output_shapes

    @property
    def symbol(self):
        """The current bucket's symbol."""
        self._require('symbol')
        return self._curr_module.symbol

    # -- parameters -----------------------------------------------------------
    def get_params(self):
        """``(arg_params, aux_params)`` on CPU (shared by all buckets)."""
        self._require('get_params()', params=True)
        self._curr_module._params_dirty = self._params_dirty
        params = self._curr_module.get_params()
        self._params_dirty = False
        return params

    def set_params(
        self,
        arg_params,
        aux_params,
        allow_missing=False,
        force_init=True,
        allow_extra=False,
    ):
        """Assign parameter values (see ``BaseModule.set_params``)."""
        if self._set_params_done(
            arg_params, aux_params, allow_missing, force_init, allow_extra
        ):
            return
        self._curr_module.set_params(
            arg_params,
            aux_params,
            allow_missing=allow_missing,
            force_init=force_init,
            allow_extra=allow_extra,
        )
        self._params_dirty = True
        self.params_initialized = True

    def init_params(
        self,
        initializer=Uniform(0.01),
        arg_params=None,
        aux_params=None,
        allow_missing=False,
        force_init=False,
        allow_extra=False,
    ):
        """Initialize the shared parameters (through the current bucket's
        module)."""
        if self.params_initialized and not force_init:
            return
        self._require('init_params()')
        self._curr_module.init_params(
            initializer=initializer,
            arg_params=arg_params,
            aux_params=aux_params,
            allow_missing=allow_missing,
            force_init=force_init,
            allow_extra=allow_extra,
        )
        self._params_dirty = False
        self.params_initialized = True

    def get_states(self, merge_multi_context=True):
        self._require('get_states()', params=True)
        return self._curr_module.get_states(
            merge_multi_context=merge_multi_context
        )

    def set_states(self, states=None, value=None):
        self._require('set_states()', params=True)
        self._curr_module.set_states(states, value)

    # -- binding and buckets --------------------------------------------------
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
        """Bind the default bucket (other buckets bind on first use)."""
        if self.params_initialized:
            arg_params, aux_params = self.get_params()
        if force_rebind:
            self._reset_bind()
        if self.binded:
            self.logger.warning('Already bound, ignoring bind()')
            return
        if shared_module is not None:
            raise ModuleUsageError(
                'shared_module for BucketingModule is not supported'
            )
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self.binded = True
        self._grad_req = grad_req
        module = self._new_module(self._default_bucket_key)
        module.bind(
            data_shapes,
            label_shapes,
            for_training,
            inputs_need_grad,
            force_rebind=False,
            shared_module=None,
            grad_req=self._grad_req,
        )
        self._curr_module = module
        self._curr_bucket_key = self._default_bucket_key
        self._buckets[self._default_bucket_key] = module
        if self.params_initialized:
            self.set_params(arg_params, aux_params)

    def switch_bucket(self, bucket_key, data_shapes, label_shapes=None):
        """Make ``bucket_key`` current, binding its module (sharing the
        default bucket's parameters) the first time.

        Parameters
        ----------
        bucket_key : hashable
        data_shapes, label_shapes : list of (str, tuple) or DataDesc
        """
        self._require('switch_bucket()')
        if bucket_key not in self._buckets:
            module = self._new_module(bucket_key)
            module.bind(
                data_shapes,
                label_shapes,
                self._curr_module.for_training,
                self._curr_module.inputs_need_grad,
                force_rebind=False,
                shared_module=self._buckets[self._default_bucket_key],
                grad_req=self._grad_req,
            )
            if self._monitor is not None:
                module.install_monitor(self._monitor)
            self._buckets[bucket_key] = module
        self._curr_module = self._buckets[bucket_key]
        self._curr_bucket_key = bucket_key

    # -- optimizer and computation -------------------------------------------
    def init_optimizer(
        self,
        kvstore='local',
        optimizer='sgd',
        optimizer_params=(('learning_rate', 0.01),),
        force_init=False,
    ):
        """Install one optimizer, shared by every bucket."""
        self._require('init_optimizer()', params=True)
        if self.optimizer_initialized and not force_init:
            self.logger.warning('optimizer already initialized, ignoring.')
            return
        self._curr_module.init_optimizer(
            kvstore, optimizer, optimizer_params, force_init=force_init
        )
        for mod in self._buckets.values():
            if mod is not self._curr_module:
                mod.borrow_optimizer(self._curr_module)
        self.optimizer_initialized = True

    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Bind the batch's bucket if needed (current bucket unchanged)."""
        self._require('prepare()', params=True)
        original = self._curr_bucket_key
        self.switch_bucket(
            data_batch.bucket_key,
            data_batch.provide_data,
            data_batch.provide_label,
        )
        self._curr_module.prepare(
            data_batch, sparse_row_id_fn=sparse_row_id_fn
        )
        self.switch_bucket(original, None, None)

    def forward(self, data_batch, is_train=None):
        """Switch to ``data_batch.bucket_key`` and run forward."""
        self._require('forward()', params=True)
        self.switch_bucket(
            data_batch.bucket_key,
            data_batch.provide_data,
            data_batch.provide_label,
        )
        self._curr_module.forward(data_batch, is_train=is_train)

    def backward(self, out_grads=None):
        self._require('backward()', params=True)
        self._curr_module.backward(out_grads=out_grads)

    def update(self):
        """Update the shared parameters from the current bucket's
        gradients."""
        self._require('update()', params=True, optimizer=True)
        self._params_dirty = True
        self._curr_module.update()

    def get_outputs(self, merge_multi_context=True):
        self._require('get_outputs()', params=True)
        return self._curr_module.get_outputs(
            merge_multi_context=merge_multi_context
        )

    def get_input_grads(self, merge_multi_context=True):
        self._require('get_input_grads()', params=True, input_grads=True)
        return self._curr_module.get_input_grads(
            merge_multi_context=merge_multi_context
        )

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        self._require('update_metric()', params=True)
        self._curr_module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        """Install a monitor on every bucket, present and future."""
        self._require('install_monitor()')
        self._monitor = mon
        for mod in self._buckets.values():
            mod.install_monitor(mon)
