"""Module's computation: forward, backward, update and their results.

One training step is ``forward(batch, is_train=True)``, ``backward()``
and ``update()`` (``BaseModule.forward_backward`` runs the first two).
The executor group splits each batch between the devices and merges
their outputs; ``update`` sums the gradients over the devices before the
optimizer runs.
"""

from ..io import DataDesc
from ..model import _update_params, _update_params_on_kvstore
from .base_module import ModuleUsageError

__all__ = ['ComputationMixin']


class ComputationMixin:
    """Computation methods of :class:`~dlbook.module.Module` (a mixin: it
    uses the attributes ``Module.__init__`` and ``Module.bind`` set)."""

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
