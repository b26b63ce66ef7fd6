"""Key-value stores: how data-parallel training shares gradients.

``mx.kv.create('device')`` returns a single-process store: ``push`` sums
the arrays pushed under a key (one per device), ``pull`` copies the
result back to every device, and with an optimizer set the store updates
its own copy of the weights.  The Gluon ``Trainer`` uses it to all-reduce
gradients when parameters live on several devices.  ``dist_sync``,
``dist_device_sync`` and ``dist_async`` do the same across processes and
machines over MPI (:mod:`dlbook.kvstore.dist`).
"""

from . import dist  # noqa: F401  (installs the dist_* factory)
from .kvstore import KVStore, KVStoreBase, create

__all__ = ['KVStoreBase', 'KVStore', 'create']
