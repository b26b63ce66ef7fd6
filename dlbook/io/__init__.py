"""``mx.io``: data iterators for the Module API (``NDArrayIter``,
``MNISTIter``, ``CSVIter``, ``LibSVMIter``, ``DataBatch``, ``DataDesc``)."""

from .csv_iter import CSVIter
from .image_record_iter import (
    ImageRecordInt8Iter,
    ImageRecordIter,
    ImageRecordIter_v1,
    ImageRecordUInt8Iter,
    ImageRecordUInt8Iter_v1,
)
from .io import DataBatch, DataDesc, DataIter, PrefetchingIter, ResizeIter
from .libsvm_iter import LibSVMIter
from .mnist_iter import MNISTIter
from .ndarray_iter import NDArrayIter
