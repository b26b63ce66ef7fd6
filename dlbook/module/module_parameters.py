"""Module's parameters: initialize, read, assign, save to checkpoints.

A bound :class:`~dlbook.module.Module` keeps two copies of its
parameters: the executors' arrays on each device, which training
updates, and ``_arg_params``/``_aux_params``, one CPU array per name,
which ``get_params`` returns and checkpoints save.  ``_params_dirty``
says when the devices hold newer values; the CPU copy is then refreshed
on demand (``_sync_params_from_devices``).

``Module.load``, which reads a checkpoint back, stays in
``module.py`` because it creates the Module.
"""

import logging
import warnings

from ..initializer import InitDesc, Uniform
from ..model import _params_file

__all__ = ['ParametersMixin']


class ParametersMixin:
    """Parameter methods of :class:`~dlbook.module.Module` (a mixin: it
    uses the attributes ``Module.__init__`` and ``Module.bind`` set)."""

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


def _check_given_shape(name, arr, given):
    if tuple(given.shape) != tuple(arr.shape):
        raise ValueError(
            f'init_params: {name} has shape {arr.shape} in the bound module '
            f'but {tuple(given.shape)} in the given parameters; was the '
            f'checkpoint saved from another network?'
        )
