"""``SequentialModule``: modules chained one after the other.

Each module's outputs become the next module's data; ``backward`` runs
the chain in reverse, passing each module's input gradients down as the
``out_grads`` of the one before.  So networks can be split into pieces
(a symbol, then a loss written in Python) and trained with one ``fit``::

    seq = mx.mod.SequentialModule()
    seq.add(mx.mod.Module(body, label_names=None))
    seq.add(mx.mod.Module(head), take_labels=True, auto_wiring=True)
    seq.fit(train_iter, num_epoch=5)

Two options of :meth:`SequentialModule.add` say how a module is wired:

* ``take_labels=True``: the module receives the batch's labels (any
  module may; the metric is updated with those that do);
* ``auto_wiring=True``: the previous outputs are renamed to this
  module's ``data_names`` (else the names must already match, e.g.
  ``'fc1_output'``).

A symbolic graph does the same faster; this is a convenience.  The
semantics are ``apache/mxnet@1.9.1:python/mxnet/module/sequential_module.py``.
"""

import copy
import logging

from ..initializer import Uniform
from .base_module import BaseModule, ModuleUsageError

__all__ = ['SequentialModule']


class SequentialModule(BaseModule):
    """A container module running its modules in a chain.

    Parameters
    ----------
    logger : logging.Logger, default the logging module

    Examples
    --------
    >>> seq = mx.mod.SequentialModule()                  # doctest: +SKIP
    >>> seq.add(mod1).add(mod2, take_labels=True, auto_wiring=True)
    """

    META_TAKE_LABELS = 'take_labels'
    META_AUTO_WIRING = 'auto_wiring'

    def __init__(self, logger=logging):
        super().__init__(logger=logger)
        self._modules = []
        self._metas = []
        self._label_shapes = None
        self._data_shapes = None
        self._meta_keys = {
            getattr(SequentialModule, x)
            for x in dir(SequentialModule)
            if x.startswith('META_')
        }

    def add(self, module, **kwargs):
        """Append ``module`` to the chain; returns ``self`` so calls chain.

        Parameters
        ----------
        module : BaseModule
        take_labels : bool, optional
            Give the module the batch's labels.
        auto_wiring : bool, optional
            Rename the previous module's outputs to this module's
            ``data_names`` (in order).

        The container must be bound and initialized again afterwards.
        """
        for key in kwargs:
            if key not in self._meta_keys:
                raise ModuleUsageError(f'Unknown meta "{key}", a typo?')
        self._modules.append(module)
        self._metas.append(kwargs)
        self.binded = False
        self.params_initialized = False
        self.optimizer_initialized = False
        return self

    def _takes_labels(self, i):
        return bool(self._metas[i].get(SequentialModule.META_TAKE_LABELS))

    # -- names and shapes -----------------------------------------------------
    @property
    def data_names(self):
        """The first module's data names."""
        return self._modules[0].data_names if self._modules else []

    @property
    def output_names(self):
        """The last module's output names."""
        return self._modules[-1].output_names if self._modules else []

    @property
    def data_shapes(self):
        """The first module's data shapes."""
        self._require('data_shapes')
        return self._modules[0].data_shapes

    @property
    def label_shapes(self):
        """The label shapes given to ``bind``, or None if no module takes
        labels."""
        self._require('label_shapes')
        return self._label_shapes

    @property
    def output_shapes(self):
        """The last module's output shapes."""
        self._require('output_shapes')
        return self._modules[-1].output_shapes

    # -- parameters -----------------------------------------------------------
    def get_params(self):
        """``(arg_params, aux_params)`` of all the modules, merged."""
        self._require('get_params()', params=True)
        arg_params, aux_params = {}, {}
        for module in self._modules:
            arg, aux = module.get_params()
            arg_params.update(arg)
            aux_params.update(aux)
        return arg_params, aux_params

    def init_params(
        self,
        initializer=Uniform(0.01),
        arg_params=None,
        aux_params=None,
        allow_missing=False,
        force_init=False,
        allow_extra=False,
    ):
        """Initialize every module's parameters (same arguments as
        ``Module.init_params``; each module takes its own names from
        ``arg_params``/``aux_params``).

        Raises
        ------
        ModuleUsageError
            If two modules have a parameter of the same name.
        """
        if self.params_initialized and not force_init:
            return
        self._require('init_params()')
        for module in self._modules:
            module.init_params(
                initializer=initializer,
                arg_params=arg_params,
                aux_params=aux_params,
                allow_missing=allow_missing,
                force_init=force_init,
                allow_extra=allow_extra,
            )
        arg_owner, aux_owner = {}, {}
        for i, module in enumerate(self._modules):
            args, auxs = module.get_params()
            self._check_names(arg_owner, args, i)
            self._check_names(aux_owner, auxs, i)
        self.params_initialized = True

    def _check_names(self, owner, names, i):
        """Record that module ``i`` owns ``names``; raise on a name an
        earlier module owns."""
        for name in names:
            if name in owner:
                j = owner[name]
                raise ModuleUsageError(
                    f'Duplicated parameter names: name "{name}" in layer '
                    f'{i} ({type(self._modules[i])}) is already used in '
                    f'layer {j} ({type(self._modules[j])}).'
                )
            owner[name] = i

    # -- binding and optimizer ------------------------------------------------
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
        """Bind each module to the previous one's output shapes.

        Every module but the first is bound with ``inputs_need_grad`` when
        training: its input gradients are the previous module's
        ``out_grads``.  ``shared_module`` is not supported.
        """
        if self.binded and not force_rebind:
            self.logger.warning('Already bound, ignoring bind()')
            return
        if inputs_need_grad and not for_training:
            raise ModuleUsageError(
                'bind(): inputs_need_grad=True needs for_training=True'
            )
        if shared_module is not None:
            raise ModuleUsageError('Shared module is not supported')
        if not self._modules:
            raise ModuleUsageError(
                'Attempting to bind an empty SequentialModule'
            )
        self.binded = True
        self._label_shapes = label_shapes
        my_data_shapes = data_shapes
        anybody_needs_label = False
        for i, module in enumerate(self._modules):
            if self._takes_labels(i):
                my_label_shapes = label_shapes
                anybody_needs_label = True
            else:
                my_label_shapes = None
            if self._metas[i].get(SequentialModule.META_AUTO_WIRING, False):
                data_names = module.data_names
                if len(data_names) != len(my_data_shapes):
                    raise ModuleUsageError(
                        f'auto_wiring: module {i} takes {data_names}, but '
                        f'the previous one gives {len(my_data_shapes)} '
                        f'output(s)'
                    )
                my_data_shapes = [
                    (new_name, shape)
                    for new_name, (_, shape) in zip(data_names, my_data_shapes)
                ]
            module.bind(
                data_shapes=my_data_shapes,
                label_shapes=my_label_shapes,
                for_training=for_training,
                inputs_need_grad=bool(
                    inputs_need_grad or (for_training and i > 0)
                ),
                force_rebind=force_rebind,
                shared_module=None,
                grad_req=grad_req,
            )
            my_data_shapes = module.output_shapes
        if not anybody_needs_label:
            self._label_shapes = None

    def init_optimizer(
        self,
        kvstore='local',
        optimizer='sgd',
        optimizer_params=(('learning_rate', 0.01),),
        force_init=False,
    ):
        """Install the optimizer in every module (one instance each)."""
        self._require('init_optimizer()', params=True)
        if self.optimizer_initialized and not force_init:
            self.logger.warning('optimizer already initialized, ignoring.')
            return
        for module in self._modules:
            module.init_optimizer(
                kvstore=kvstore,
                optimizer=optimizer,
                optimizer_params=optimizer_params,
                force_init=force_init,
            )
        self.optimizer_initialized = True

    # -- computation ----------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        """Run the modules in order, each on the previous one's outputs
        (the labels stay those of ``data_batch``)."""
        self._require('forward()', params=True)
        data_batch = copy.copy(data_batch)
        for i, module in enumerate(self._modules):
            module.forward(data_batch, is_train=is_train)
            if i + 1 == len(self._modules):
                break
            data_batch.data = module.get_outputs()
            if hasattr(data_batch, 'provide_data'):
                data_names = [x[0] for x in module.output_shapes]
                data_batch.provide_data = [
                    (name, x.shape)
                    for name, x in zip(data_names, data_batch.data)
                ]

    def backward(self, out_grads=None):
        """Run ``backward`` from the last module to the first, each
        module's input gradients being the ``out_grads`` of the one
        before."""
        self._require('backward()', params=True)
        for i in reversed(range(len(self._modules))):
            module = self._modules[i]
            module.backward(out_grads=out_grads)
            if i == 0:
                break
            out_grads = module.get_input_grads()

    def update(self):
        """Update every module's parameters."""
        self._require('update()', params=True, optimizer=True)
        for module in self._modules:
            module.update()

    def get_outputs(self, merge_multi_context=True):
        """The last module's outputs."""
        self._require('get_outputs()', params=True)
        return self._modules[-1].get_outputs(
            merge_multi_context=merge_multi_context
        )

    def get_input_grads(self, merge_multi_context=True):
        """The first module's input gradients (bind with
        ``inputs_need_grad=True``)."""
        self._require('get_input_grads()', params=True, input_grads=True)
        return self._modules[0].get_input_grads(
            merge_multi_context=merge_multi_context
        )

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update ``eval_metric`` with the outputs of every module that
        takes labels."""
        self._require('update_metric()', params=True)
        for i, module in enumerate(self._modules):
            if self._takes_labels(i):
                module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        """Install ``mon`` on every module."""
        self._require('install_monitor()')
        for module in self._modules:
            module.install_monitor(mon)
