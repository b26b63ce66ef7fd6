"""``mx.io.LibSVMIter``: batches of CSR features from a LibSVM text file.

Each line of a LibSVM file is one example, ``label index:value ...``
with zero-based feature indices (MXNet's convention); features not listed
are 0.  Sparse linear models (``example/sparse/linear_classification`` in
MXNet) read their data this way::

    it = mx.io.LibSVMIter(data_libsvm='train.libsvm', data_shape=(1000,),
                          batch_size=64)
    batch = it.next()          # batch.data[0] is a 64 x 1000 CSRNDArray

As in MXNet 1.9.1 only ``round_batch=True`` exists: a short last batch is
completed with examples from the start of the file (``batch.pad`` says
how many), and the next epoch begins after those examples.
"""

__all__ = ['LibSVMIter']

import numpy

from ..base import DLBookError
from .io import DataDesc
from .row_batches import RowBatches


def _parse(path, width, what):
    """``(labels, csr parts)`` of a LibSVM file with ``width`` columns."""
    labels, data, indices, indptr = [], [], [], [0]
    with open(path) as f:
        for number, line in enumerate(f, 1):
            fields = line.split()
            if not fields:
                continue
            labels.append(float(fields[0]))
            for item in fields[1:]:
                try:
                    index, value = item.split(':')
                    index, value = int(index), float(value)
                except ValueError:
                    raise DLBookError(
                        f'LibSVMIter: {path}:{number}: bad '
                        f'feature {item!r} (expected '
                        f'index:value)'
                    ) from None
                if not 0 <= index < width:
                    raise DLBookError(
                        f'LibSVMIter: {path}:{number}: '
                        f'feature index {index} is outside '
                        f'{what} (0..{width - 1})'
                    )
                indices.append(index)
                data.append(value)
            indptr.append(len(indices))
    parts = (
        numpy.asarray(data, numpy.float32),
        numpy.asarray(indices, numpy.int64),
        numpy.asarray(indptr, numpy.int64),
    )
    return numpy.asarray(labels, numpy.float32), parts


class LibSVMIter(RowBatches):
    """Iterate over a LibSVM file in CSR batches.

    Parameters
    ----------
    data_libsvm : str
        The data file.
    data_shape : tuple of int
        ``(num_features,)``.
    label_libsvm : str, optional
        A second LibSVM file holding the labels as sparse rows of
        ``label_shape``; without it the label is each line's first number.
    label_shape : tuple of int, default (1,)
    batch_size : int
    round_batch : bool, default True
        Must be True (MXNet 1.9.1 supports nothing else for sparse data).
    num_parts, part_index : int
        Read only part ``part_index`` of ``num_parts`` equal parts (for
        distributed training).
    data_name, label_name : str
        Names in ``provide_data``/``provide_label``.
    """

    def __init__(
        self,
        data_libsvm,
        data_shape,
        label_libsvm=None,
        label_shape=(1,),
        batch_size=1,
        round_batch=True,
        num_parts=1,
        part_index=0,
        data_name='data',
        label_name='softmax_label',
        **kwargs,
    ):
        if not round_batch:
            raise DLBookError(
                "sparse batch loader doesn't support round_batch == false yet"
            )
        self._width = int(tuple(data_shape)[0])
        labels, self._parts = _parse(data_libsvm, self._width, 'data_shape')
        self._label_parts = None
        self._label_shape = tuple(label_shape)
        if label_libsvm is not None:
            _, self._label_parts = _parse(
                label_libsvm, self._label_shape[0], 'label_shape'
            )
        self._labels = labels
        rows = numpy.array_split(numpy.arange(len(labels)), num_parts)
        if len(rows[part_index]) == 0:
            raise DLBookError(f'LibSVMIter: {data_libsvm} has no examples')
        self._names = (data_name, label_name)
        super().__init__(batch_size, rows[part_index])

    @property
    def provide_data(self):
        return [DataDesc(self._names[0], (self.batch_size, self._width))]

    @property
    def provide_label(self):
        shape = (
            (self.batch_size,)
            if self._label_parts is None
            else (self.batch_size,) + self._label_shape
        )
        return [DataDesc(self._names[1], shape)]

    def getdata(self):
        return [_rows_csr(self._parts, self._batch, self._width)]

    def getlabel(self):
        from .. import ndarray as nd

        if self._label_parts is None:
            return [nd.array(self._labels[self._batch])]
        return [
            _rows_csr(self._label_parts, self._batch, self._label_shape[0])
        ]


def _rows_csr(parts, rows, width):
    """The CSRNDArray of the examples ``rows``."""
    from .. import ndarray as nd

    data, indices, indptr = parts
    starts, ends = indptr[rows], indptr[rows + 1]
    take = numpy.concatenate(
        [numpy.arange(s, e) for s, e in zip(starts, ends)]
        or [numpy.zeros(0, int)]
    )
    new_ptr = numpy.concatenate([[0], numpy.cumsum(ends - starts)])
    return nd.sparse.csr_matrix(
        (data[take], indices[take], new_ptr), shape=(len(rows), width)
    )
