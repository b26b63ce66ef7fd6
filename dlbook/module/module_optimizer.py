"""Module's optimizer: install it, share it, save and load its states.

``init_optimizer`` chooses where the update runs: on the KVStore (the
store applies the optimizer to the summed gradients) or in the Module
(``_updater`` runs on each device's copy, ``model._update_params``).
"""

import warnings

from .. import optimizer as opt
from .._atomic import atomic_write
from ..model import _create_kvstore, _initialize_kvstore
from .base_module import ModuleUsageError

__all__ = ['OptimizerMixin']


class OptimizerMixin:
    """Optimizer methods of :class:`~dlbook.module.Module` (a mixin: it
    uses the attributes ``Module.__init__`` and ``Module.bind`` set)."""

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
