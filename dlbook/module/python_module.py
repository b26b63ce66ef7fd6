"""Modules written in Python: ``PythonModule`` and ``PythonLossModule``.

A module need not wrap a symbol.  :class:`PythonModule` implements the
module API with empty defaults (no parameters, nothing to update), so a
subclass only writes the computation: ``_compute_output_shapes``,
``forward``, ``get_outputs`` and, to train, ``backward`` and
``get_input_grads``.  :class:`PythonLossModule` is the common case: a
loss written in NumPy at the top of a :class:`SequentialModule`::

    def softmax_ce_grad(scores, labels):      # d loss / d scores
        prob = mx.nd.softmax(scores).asnumpy()
        prob[numpy.arange(len(prob)), labels.asnumpy().astype(int)] -= 1
        return prob

    seq = mx.mod.SequentialModule()
    seq.add(mx.mod.Module(fc, label_names=None))   # the network: scores
    seq.add(mx.mod.PythonLossModule(grad_func=softmax_ce_grad),
            take_labels=True, auto_wiring=True)

The semantics are ``apache/mxnet@1.9.1:python/mxnet/module/python_module.py``.
"""

import logging

from .. import ndarray as nd
from ..initializer import Uniform
from .base_module import BaseModule, ModuleUsageError

__all__ = ['PythonModule', 'PythonLossModule']


class PythonModule(BaseModule):
    """A module with the module API's bookkeeping done and no computation.

    ``bind`` records the input shapes and asks ``_compute_output_shapes``
    (which subclasses write) for the outputs'; ``init_params``,
    ``init_optimizer`` and ``update`` do nothing, as a module without
    parameters needs.  Note that, as in MXNet, they do not set
    ``params_initialized`` either: a PythonModule runs inside a
    :class:`SequentialModule`, which keeps those flags itself.

    Parameters
    ----------
    data_names : list of str
        Names of the data inputs.
    label_names : list of str or None
        Names of the labels (None: the module takes none).
    output_names : list of str
        Names of the outputs.
    logger : logging.Logger, default the logging module
    """

    def __init__(self, data_names, label_names, output_names, logger=logging):
        super().__init__(logger=logger)
        if isinstance(data_names, tuple):
            data_names = list(data_names)
        if isinstance(label_names, tuple):
            label_names = list(label_names)
        self._data_names = data_names
        self._label_names = label_names
        self._output_names = output_names
        self._data_shapes = None
        self._label_shapes = None
        self._output_shapes = None

    # -- names and shapes -----------------------------------------------------
    @property
    def data_names(self):
        """Names of the data inputs."""
        return self._data_names

    @property
    def output_names(self):
        """Names of the outputs."""
        return self._output_names

    @property
    def data_shapes(self):
        """``(name, shape)`` pairs of the data, as given to ``bind``."""
        return self._data_shapes

    @property
    def label_shapes(self):
        """``(name, shape)`` pairs of the labels (None without labels)."""
        return self._label_shapes

    @property
    def output_shapes(self):
        """``(name, shape)`` pairs of the outputs."""
        return self._output_shapes

    # -- parameters: none -----------------------------------------------------
    def get_params(self):
        """``({}, {})``: override in a subclass that has parameters."""
        return ({}, {})

    def init_params(
        self,
        initializer=Uniform(0.01),
        arg_params=None,
        aux_params=None,
        allow_missing=False,
        force_init=False,
        allow_extra=False,
    ):
        """Nothing to initialize (override if the module has parameters)."""

    def init_optimizer(
        self,
        kvstore='local',
        optimizer='sgd',
        optimizer_params=(('learning_rate', 0.01),),
        force_init=False,
    ):
        """Nothing to optimize (override if the module has parameters)."""

    def update(self):
        """Nothing to update (override if the module has parameters)."""

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update ``eval_metric`` with ``labels`` and the outputs, taken
        as predictions; a module bound without labels ignores the call.

        Raises
        ------
        RuntimeError
            With ``pre_sliced=True``: a PythonModule runs on one device.
        """
        if self._label_shapes is None:
            return
        if pre_sliced:
            raise RuntimeError(
                'PythonModule does not support presliced labels'
            )
        eval_metric.update(labels, self.get_outputs())

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
        """Record the input shapes and compute the output shapes.

        Parameters
        ----------
        data_shapes : list of (str, tuple)
            Names must be ``data_names``, in order.
        label_shapes : list of (str, tuple), optional
            Names must be ``label_names``, in order.
        for_training, inputs_need_grad : bool
            Recorded for ``forward``/``backward``.
        force_rebind : bool, default False
        shared_module : ignored
        grad_req : str
            Only ``'write'`` is supported.
        """
        if self.binded and not force_rebind:
            self.logger.warning('Already bound, ignoring bind()')
            return
        if grad_req != 'write':
            raise ModuleUsageError('Python module only support write gradient')
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        names = [x[0] for x in data_shapes]
        if names != self._data_names:
            raise ModuleUsageError(
                f'bind(): data_shapes are for {names}, but the module '
                f'expects data_names={self._data_names}'
            )
        self._data_shapes = data_shapes
        self._label_shapes = label_shapes
        if label_shapes is not None:
            names = [x[0] for x in label_shapes]
            if names != self._label_names:
                raise ModuleUsageError(
                    f'bind(): label_shapes are for {names}, but the module '
                    f'expects label_names={self._label_names}'
                )
        self._output_shapes = self._compute_output_shapes()
        self.binded = True

    def _compute_output_shapes(self):
        """The ``(name, shape)`` list of the outputs, from
        ``self._data_shapes`` and ``self._label_shapes`` (subclasses
        write it)."""
        raise NotImplementedError()


class PythonLossModule(PythonModule):
    """A loss computed in Python: outputs its input scores unchanged and,
    in ``backward``, the gradient of the loss with respect to them.

    Parameters
    ----------
    name : str, default 'pyloss'
        The output is named ``name + '_output'``.
    data_names : list of one str, default ``('data',)``
    label_names : list of one str, default ``('softmax_label',)``
    logger : logging.Logger, default the logging module
    grad_func : function, optional
        ``grad_func(scores, labels)`` -> the gradient on the scores
        (NDArray or NumPy array).  Without it, subclass and override
        ``_backward_impl``.

    Examples
    --------
    >>> loss = mx.mod.PythonLossModule(                  # doctest: +SKIP
    ...     grad_func=lambda scores, labels: scores - labels)
    """

    def __init__(
        self,
        name='pyloss',
        data_names=('data',),
        label_names=('softmax_label',),
        logger=logging,
        grad_func=None,
    ):
        super().__init__(
            data_names, label_names, [name + '_output'], logger=logger
        )
        self._name = name
        if len(data_names) != 1 or len(label_names) != 1:
            raise ModuleUsageError(
                'PythonLossModule takes exactly one data and one label name'
            )
        if grad_func is not None and not callable(grad_func):
            raise ModuleUsageError('grad_func must be callable')
        self._scores = None
        self._labels = None
        self._scores_grad = None
        self._grad_func = grad_func

    def _compute_output_shapes(self):
        """The output is the scores: same shape as the data."""
        return [(self._name + '_output', self._data_shapes[0][1])]

    def forward(self, data_batch, is_train=None):
        """Keep the scores (``data_batch.data[0]``) and, when training,
        the labels, for ``backward``."""
        self._scores = data_batch.data[0]
        if is_train is None:
            is_train = self.for_training
        if is_train:
            self._labels = data_batch.label[0]

    def get_outputs(self, merge_multi_context=True):
        """``[scores]``: the input of the last forward."""
        if merge_multi_context is not True:
            raise ModuleUsageError(
                'PythonLossModule runs on one device: '
                'merge_multi_context must be True'
            )
        return [self._scores]

    def backward(self, out_grads=None):
        """Compute the gradient on the scores (a loss takes no
        ``out_grads``)."""
        if out_grads is not None:
            raise ModuleUsageError(
                'For a loss module, out_grads should be None'
            )
        if not self.for_training:
            raise ModuleUsageError(
                'backward() needs a module bound with for_training=True'
            )
        self._backward_impl()

    def _backward_impl(self):
        """Set ``self._scores_grad`` from ``self._scores`` and
        ``self._labels`` (with ``grad_func``, or in a subclass)."""
        if self._grad_func is None:
            raise NotImplementedError()
        grad = self._grad_func(self._scores, self._labels)
        if not isinstance(grad, nd.NDArray):
            grad = nd.array(grad)
        self._scores_grad = grad

    def get_input_grads(self, merge_multi_context=True):
        """``[gradient on the scores]`` of the last backward."""
        if merge_multi_context is not True:
            raise ModuleUsageError(
                'PythonLossModule runs on one device: '
                'merge_multi_context must be True'
            )
        return [self._scores_grad]

    def install_monitor(self, mon):
        """Not supported: there is no executor to watch."""
        raise NotImplementedError()
