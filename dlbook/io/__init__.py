"""``mx.io``: data iterators for the Module API (``NDArrayIter``,
``MNISTIter``, ``DataBatch``, ``DataDesc``)."""

from .io import (DataDesc, DataBatch, DataIter, ResizeIter,  # noqa: F401
                 PrefetchingIter)
from .ndarray_iter import NDArrayIter  # noqa: F401
from .mnist_iter import MNISTIter  # noqa: F401
from .libsvm_iter import LibSVMIter  # noqa: F401
