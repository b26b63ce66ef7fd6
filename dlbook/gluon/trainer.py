"""The Gluon Trainer: apply an optimizer to a set of Parameters.

The training loop of every chapter::

    with autograd.record():
        l = loss(net(X), y)          # one loss value per example
    l.backward()                     # gradient of the *sum* over the batch
    trainer.step(batch_size)         # rescale by 1/batch_size, update

``step`` does three things, as in
``apache/mxnet@1.9.1:python/mxnet/gluon/trainer.py``:

1. sets the optimizer's ``rescale_grad = scale / batch_size``, so the
   update uses the *mean* gradient of the batch;
2. all-reduces: when parameters live on several devices, the gradients of
   each parameter are summed over its devices (through a KVStore) and the
   sum is written back to every device;
3. updates each device's copy with that device's own updater (optimizer
   state such as momentum lives next to the weights).  Every copy sees
   the same weights, gradients and state, so the replicas stay identical.
"""

from .. import optimizer as opt
from .._atomic import atomic_write
from ..base import DLBookError, UsageError
from .parameter import Parameter, ParameterDict

__all__ = ['Trainer']

_STALE = (
    'Gradient of Parameter `{name}` on context {ctx} has not been '
    'updated by backward since last `step`. This could mean a bug in '
    'your model that made it only use a subset of the Parameters '
    '(Blocks) for this iteration. If you are intentionally only '
    'using a subset, call step with ignore_stale_grad=True to '
    'suppress this warning and skip updating of Parameters with '
    'stale gradient'
)


def _param_list(params):
    """Parameters in Trainer order: dicts by sorted key, lists as given."""
    if isinstance(params, (dict, ParameterDict)):
        return [params[key] for key in sorted(params.keys())]
    if not isinstance(params, (list, tuple)):
        raise ValueError(
            f'First argument must be a list or dict of '
            f'Parameters, got {type(params)}.'
        )
    return list(params)


class Trainer:
    """Applies an Optimizer on a set of Parameters; use it with autograd.

    Parameters
    ----------
    params : ParameterDict, dict or list of Parameter
        The parameters to optimize (``net.collect_params()``).  Dicts are
        taken in sorted key order.
    optimizer : str or Optimizer
        ``'sgd'``, ``'adam'``... or an Optimizer instance.
    optimizer_params : dict, optional
        Keyword arguments of the optimizer, e.g. ``{'learning_rate':
        0.1, 'wd': 1e-4}``; ``lr_scheduler`` is accepted here.
    kvstore : str or KVStore or None, default 'device'
        Store used to all-reduce gradients when parameters live on several
        devices (with a single device no store is needed and none is
        used).  ``None`` disables the all-reduce, as in MXNet.
    compression_params : dict, optional
        Gradient compression, e.g. ``{'type': '2bit', 'threshold': 0.5}``
        (``'device'`` and ``dist_*`` stores).
    update_on_kvstore : bool, optional
        Let the store apply the optimizer.  Default: no on one machine
        (each device updates its own copy, which gives the same numbers);
        yes with ``dist_*`` stores, as in MXNet (always with
        ``dist_async``).

    Attributes
    ----------
    learning_rate : float
        The optimizer's current learning rate.
    """

    def __init__(
        self,
        params,
        optimizer,
        optimizer_params=None,
        kvstore='device',
        compression_params=None,
        update_on_kvstore=None,
    ):
        self._params = []
        self._param2idx = {}
        for param in _param_list(params):
            if not isinstance(param, Parameter):
                raise ValueError(
                    f'First argument must be a list or dict of '
                    f'Parameters, got list of {type(param)}.'
                )
            if id(param) in self._param2idx:
                continue  # a shared parameter is updated once
            # The position is the parameter's index everywhere: optimizer
            # param_dict, updater states and KVStore keys.
            self._param2idx[id(param)] = len(self._params)
            self._params.append(param)
        self._compression_params = compression_params
        self._contexts = self._check_contexts()
        self._init_optimizer(optimizer, optimizer_params or {})
        self._scale = self._optimizer.rescale_grad
        if self._optimizer.aggregate_num > 1 and update_on_kvstore:
            raise ValueError(
                'Cannot set update_on_kvstore=True when '
                'optimizer.aggregate_num > 1.'
            )
        self._kvstore_params = {
            'kvstore': kvstore,
            'update_on_kvstore': update_on_kvstore,
        }
        self._reset_kvstore()
        # MXNet creates the store at the first step; choosing it now
        # reports an unavailable store where the Trainer is made.  A
        # dist_async store sends the optimizer to its server when it is
        # set, so that waits for the first step and its rescale_grad.
        kv_type = (
            kvstore
            if isinstance(kvstore, str)
            else getattr(kvstore, 'type', '')
        )
        if 'async' not in kv_type:
            self._init_kvstore()

    # -- set-up --------------------------------------------------------------
    def _check_contexts(self):
        """The common context list of all parameters (raises if they
        differ, or if one was never initialized)."""
        contexts = None
        for param in self._params:
            ctx = param.list_ctx()
            if contexts is not None and contexts != ctx:
                raise DLBookError(
                    f'All Parameters must be initialized on the same set of '
                    f'contexts, but Parameter {param.name} is initialized '
                    f'on {ctx} while previous Parameters are initialized on '
                    f'{contexts}.'
                )
            contexts = ctx
        # Per parameter: (data dict, grad dict, data list, grad list), so a
        # step costs no lookups until the parameter changes its arrays.
        self._arrays_cache = [None] * len(self._params)
        return contexts or []

    def _init_optimizer(self, optimizer, optimizer_params):
        # param_dict holds the Parameters themselves, so changing an
        # lr_mult or wd_mult later still takes effect.
        param_dict = dict(enumerate(self._params))
        if isinstance(optimizer, opt.Optimizer):
            if optimizer_params:
                raise UsageError(
                    f'optimizer_params must be None if optimizer is an '
                    f'instance of Optimizer instead of str, got '
                    f'{optimizer_params!r}: set them on the Optimizer '
                    f'(mx.optimizer.SGD(learning_rate=0.1)) or pass '
                    f"Trainer(params, 'sgd', {{'learning_rate': 0.1}})."
                )
            self._optimizer = optimizer
            self._optimizer.param_dict = param_dict
        else:
            self._optimizer = opt.create(
                optimizer, param_dict=param_dict, **optimizer_params
            )
        self._updaters = [
            opt.get_updater(self._optimizer) for _ in self._contexts
        ]

    def _reset_kvstore(self):
        self._kv_initialized = False
        self._kvstore = None
        self._distributed = False
        self._update_on_kvstore = False
        self._rescale_sent = None
        self._params_to_init = list(self._params)

    def _init_kvstore(self):
        """Choose the store and whether it runs the optimizer.

        As in MXNet: one device on one machine needs no store; a
        ``dist_*`` store is always used and by default runs the optimizer
        (``update_on_kvstore``, unless ``MXNET_UPDATE_ON_KVSTORE=0``);
        ``dist_async`` always does.  On one machine dlbook's default is
        ``update_on_kvstore=False``, which gives the same numbers.
        """
        import os

        from .. import kvstore as kvs

        config = self._kvstore_params
        kvstore = config['kvstore']
        if kvstore is None:
            kv = None
        elif isinstance(kvstore, kvs.KVStoreBase):
            kv = kvstore
        elif isinstance(kvstore, str):
            kv = kvs.create(kvstore)
            if len(self._contexts) == 1 and 'dist' not in kv.type:
                kv = None
        else:
            raise TypeError('kvstore must be KVStore, str or None')
        self._distributed = kv is not None and 'dist' in kv.type
        update_on_kvstore = config['update_on_kvstore']
        if self._distributed:
            default = bool(int(os.getenv('MXNET_UPDATE_ON_KVSTORE', '1')))
            if 'async' in kv.type:
                if update_on_kvstore is False:
                    raise ValueError(
                        'Please set update_on_kvstore=True '
                        'when training in async mode.'
                    )
                default = True
            if update_on_kvstore is None:
                update_on_kvstore = (
                    default and self._optimizer.aggregate_num <= 1
                )
        update_on_kvstore = bool(update_on_kvstore) and kv is not None
        if update_on_kvstore and not kv.is_capable(kvs.KVStoreBase.OPTIMIZER):
            raise ValueError(
                f'Please set update_on_kvstore=False when '
                f'training with {type(kv)}'
            )
        if kv is not None:
            if self._compression_params:
                kv.set_gradient_compression(self._compression_params)
            if update_on_kvstore:
                kv.set_optimizer(self._optimizer)
        self._kvstore = kv
        self._update_on_kvstore = update_on_kvstore
        self._kv_initialized = True

    def _init_params(self):
        """Give the store each parameter's initial value (and every device
        that value); parameters still waiting for a shape wait here too."""
        waiting = []
        if self._kvstore is not None:
            for param in self._params_to_init:
                if param._deferred_init:
                    waiting.append(param)
                    continue
                arrays = param.list_data()
                self._kvstore.broadcast(
                    self._param2idx[id(param)], arrays[0], arrays
                )
        self._params_to_init = waiting

    def _prepare(self):
        self._follow_contexts()
        if not self._kv_initialized:
            self._init_kvstore()
        if self._params_to_init:
            self._init_params()

    def _follow_contexts(self):
        """Adopt the parameters' devices after ``reset_ctx`` moved them.

        As MXNet, which re-creates its store, training goes on: one
        updater per new device (same optimizer, states copied to each
        device) and a new store.
        """
        for i, param in enumerate(self._params):
            cached = self._arrays_cache[i]
            if cached is not None and cached[0] is param._data:
                continue
            if param._data is not None and param.list_ctx() != self._contexts:
                break
        else:
            return
        self._contexts = self._check_contexts()
        old = self._updaters[0]
        self._updaters = [
            opt.get_updater(self._optimizer) for _ in self._contexts
        ]
        for updater, ctx in zip(self._updaters, self._contexts):
            updater.states = {
                i: updater.sync_state_context(state, ctx)
                for i, state in old.states.items()
            }
            updater.states_synced = dict.fromkeys(old.states, True)
        self._reset_kvstore()

    # -- learning rate and optimizer ---------------------------------------
    @property
    def learning_rate(self):
        """The current learning rate of the optimizer."""
        if not isinstance(self._optimizer, opt.Optimizer):
            raise UserWarning(
                'Optimizer has to be defined before its '
                'learning rate can be accessed.'
            )
        return self._optimizer.learning_rate

    @property
    def optimizer(self):
        """The Optimizer instance."""
        if isinstance(self._optimizer, opt.Optimizer):
            return self._optimizer
        raise UserWarning('Optimizer has not been initialized yet')

    def set_learning_rate(self, lr):
        """Set a new learning rate of the optimizer.

        Parameters
        ----------
        lr : float
            The new learning rate.
        """
        if not isinstance(self._optimizer, opt.Optimizer):
            raise UserWarning(
                'Optimizer has to be defined before its '
                'learning rate is mutated.'
            )
        self._optimizer.set_learning_rate(lr)

    # -- one training step ---------------------------------------------------
    def step(self, batch_size, ignore_stale_grad=False):
        """Make one parameter update; call it after ``backward`` and
        outside ``record()``.

        Parameters
        ----------
        batch_size : int
            Gradients are scaled by ``1 / batch_size``.  Use 1 if the loss
            was already averaged over the batch.
        ignore_stale_grad : bool, default False
            Skip parameters whose gradient was not refreshed by
            ``backward`` since the last step, instead of raising.
        """
        self._check_and_rescale_grad(self._scale / batch_size)
        self._prepare()
        if self._update_on_kvstore:
            self._update(ignore_stale_grad)
            return
        self._allreduce_grads()
        self._update(ignore_stale_grad)

    def allreduce_grads(self):
        """Sum each parameter's gradients over its devices and write the
        sum back to every device.

        ``step`` is ``allreduce_grads`` followed by ``update``; call them
        separately to transform the reduced gradients in between (e.g.
        gradient clipping).
        """
        self._prepare()
        if self._update_on_kvstore:
            raise UsageError(
                'allreduce_grads() when parameters are updated on kvstore '
                'is not supported. Try setting `update_on_kvstore` to False '
                'when creating trainer.'
            )
        self._allreduce_grads()

    def _allreduce_grads(self):
        if self._kvstore is None:
            return
        for i, param in enumerate(self._params):
            if param.grad_req != 'null':
                self._kvstore.pushpull(i, param.list_grad())

    def update(self, batch_size, ignore_stale_grad=False):
        """Update the parameters from their (already reduced) gradients.

        Parameters
        ----------
        batch_size : int
            Gradients are scaled by ``1 / batch_size``.
        ignore_stale_grad : bool, default False
            See :meth:`step`.
        """
        self._prepare()
        if self._update_on_kvstore:
            raise UsageError(
                'update() when parameters are updated on kvstore is not '
                'supported. Try setting `update_on_kvstore` to False when '
                'creating trainer.'
            )
        self._check_and_rescale_grad(self._scale / batch_size)
        self._update(ignore_stale_grad)

    def _check_and_rescale_grad(self, scale):
        """Set ``rescale_grad``.  A distributed store that runs the
        optimizer got it with the first step's batch size, so a later
        change is refused, as in MXNet."""
        if self._update_on_kvstore and self._distributed:
            if self._rescale_sent is not None and self._rescale_sent != scale:
                raise UserWarning(
                    'Possible change in the `batch_size` from previous '
                    '`step` detected. Optimizer gradient normalizing factor '
                    'will not change w.r.t new batch_size when '
                    'update_on_kvstore=True and when distributed kvstore is '
                    'used.'
                )
            self._rescale_sent = scale
        self._optimizer.rescale_grad = scale

    def _arrays(self, i, param):
        """``(data list, grad list)`` of one parameter.

        Cached until the parameter gets new arrays (``initialize``,
        ``reset_ctx``, ``cast``, a ``grad_req`` change), when its contexts
        are checked again.
        """
        cached = self._arrays_cache[i]
        if (
            cached is not None
            and cached[0] is param._data
            and cached[1] is param._grad
        ):
            return cached[2], cached[3]
        # Raises MXNet's message for a parameter still uninitialized.
        datas, ctx = param.list_data(), param.list_ctx()
        if ctx != self._contexts:
            raise DLBookError(
                f'Parameter {param.name} is initialized on {ctx} but the '
                f'Trainer was created for {self._contexts}; create the '
                f'Trainer after initializing (or moving) the parameters.'
            )
        grads = param.list_grad()
        self._arrays_cache[i] = (param._data, param._grad, datas, grads)
        return datas, grads

    def _update(self, ignore_stale_grad=False):
        if len(self._updaters) == 1 and not self._update_on_kvstore:
            self._update_one_device(ignore_stale_grad)
            return
        # Per device: indices, gradients and weights handed to its updater.
        batches = [([], [], []) for _ in self._updaters]
        on_store = []  # (index, grads, weights) for the KVStore
        fresh_flags = []
        for i, param in enumerate(self._params):
            if param._grad_req == 'null':
                continue
            datas, grads = self._arrays(i, param)
            for data in datas:
                if not data._fresh_grad and not ignore_stale_grad:
                    raise UserWarning(
                        _STALE.format(name=param.name, ctx=data.context)
                    )
            fresh_flags.extend(datas)
            if self._update_on_kvstore:
                if all(d._fresh_grad for d in datas):
                    on_store.append((i, grads, datas))
                continue
            # The index is the position i, the key of param_dict.
            for (idx, gs, ws), data, grad in zip(batches, datas, grads):
                if data._fresh_grad:
                    idx.append(i)
                    gs.append(grad)
                    ws.append(data)
        # Only now, after every check passed, use the gradients.
        for data in fresh_flags:
            data._fresh_grad = False
        for i, grads, datas in on_store:
            self._kvstore.pushpull(i, grads, out=datas)
        for updater, (idx, gs, ws) in zip(self._updaters, batches):
            if idx:
                updater(idx, gs, ws)

    def _update_one_device(self, ignore_stale_grad):
        """``_update`` for the common case of one device: the same steps
        with no per-device lists (this loop runs every iteration)."""
        indices, grads, weights = [], [], []
        for i, param in enumerate(self._params):
            if param._grad_req == 'null':
                continue
            (weight,), (grad,) = self._arrays(i, param)
            if weight._fresh_grad:
                indices.append(i)
                grads.append(grad)
                weights.append(weight)
            elif not ignore_stale_grad:
                raise UserWarning(
                    _STALE.format(name=param.name, ctx=weight.context)
                )
        for weight in weights:
            weight._fresh_grad = False
        if indices:
            self._updaters[0](indices, grads, weights)

    # -- saving ---------------------------------------------------------------
    def save_states(self, fname):
        """Save the optimizer and its states (momentum...) to ``fname``.

        The file uses dlbook's pickle-free format; the parameters'
        ``lr_mult``/``wd_mult`` are not saved.

        Parameters
        ----------
        fname : str
            Path of the states file.
        """
        assert self._optimizer is not None
        self._prepare()
        if self._update_on_kvstore:
            if self._params_to_init:
                raise UsageError(
                    'Cannot save trainer states when some parameters are '
                    'not yet initialized in kvstore: run one step() first.'
                )
            self._kvstore.save_optimizer_states(fname, dump_optimizer=True)
            return
        data = self._updaters[0].get_states(dump_optimizer=True)
        with atomic_write(fname) as f:
            f.write(data)

    def load_states(self, fname):
        """Load optimizer states saved by :meth:`save_states`.

        Parameters
        ----------
        fname : str
            Path of the states file.
        """
        self._prepare()
        shapes = {i: p.shape for i, p in enumerate(self._params)}
        if self._update_on_kvstore:
            self._kvstore.load_optimizer_states(fname)
            self._optimizer = self._kvstore._updater.optimizer
        else:
            with open(fname, 'rb') as f:
                states = f.read()
            source = f"optimizer states file '{fname}'"
            # checked whole before any updater changes
            opt.updater.check_states_fit(
                opt.updater.loads_states(states, source)[0],
                shapes,
                source,
                {i: p.name for i, p in enumerate(self._params)},
            )
            for updater in self._updaters:
                updater.set_states(states, source)
                updater.optimizer = self._updaters[0].optimizer
            self._optimizer = self._updaters[0].optimizer
        self._optimizer.param_dict = dict(enumerate(self._params))
