"""Gradients written into their buffers, several per GPU kernel.

After ``backward`` the tape writes each variable's gradient into its
buffer (``x.grad``): a copy for ``grad_req='write'``, an addition for
``'add'``.  On a GPU each is a launch, one per parameter of the network:
ResNet-18 has 62.  Here dense gradients of one device are written four
per kernel (:class:`~dlbook.ops.kernels.Grouped`), as the optimizer's
grouped SGD updates them.
"""

from .kernels import Grouped

__all__ = ['write_gradients']


def _copy_steps(xp, grad, buffer):
    buffer[...] = grad


def _add_steps(xp, grad, buffer):
    buffer += grad


#: ``buffer = grad`` for up to four arrays in one kernel.
GRAD_COPY = Grouped(
    'dlbook_grad_copy',
    'raw T grad',
    'raw T buffer',
    '',
    'buffer = grad;',
    _copy_steps,
)

#: ``buffer += grad`` for up to four arrays in one kernel.
GRAD_ADD = Grouped(
    'dlbook_grad_add',
    'raw T grad',
    'raw T buffer',
    '',
    'buffer += grad;',
    _add_steps,
)


def write_gradients(xp, pairs, req):
    """Write (``req`` 'write') or add (``'add'``) each raw gradient of
    ``pairs`` ``[(grad, buffer), ...]`` into its buffer: C-contiguous
    arrays of one shape and dtype per pair, on one device."""
    kernel = GRAD_ADD if req == 'add' else GRAD_COPY
    kernel.apply(xp, [((g,), (buf,)) for g, buf in pairs])
