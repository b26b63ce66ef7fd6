"""A fake ``cupy.cuda.nccl`` for multi-process tests without a GPU.

The fake CuPy (``fake_cupy.py``) serves it as ``cupy.cuda.nccl``.  Its
communicator does each collective through MPI (``mpi4py``) on the host
memory behind the fake arrays, and checks its arguments as strictly as
NCCL would need them: device pointers from ``x.data.ptr`` of live arrays
(:class:`MemoryPointer`), counts that fit, known dtype and op codes, an
integer stream, one GPU per rank.  ``DLBOOK_FAKE_NCCL=0`` makes it
report ``available = False``, as CuPy does when it cannot load NCCL.
"""

import functools
import os
import types
import weakref

import numpy

__all__ = ['FakeNccl', 'MemoryPointer', 'NcclError']

_POINTERS = {}  # address -> weakref to the NumPy array behind it


class MemoryPointer:
    """``x.data``: ``ptr`` is the address; it stays known to the fake NCCL
    while the array lives."""

    def __init__(self, a):
        self.ptr = ptr = a.ctypes.data

        def forget(ref):
            if _POINTERS.get(ptr) is ref:
                del _POINTERS[ptr]

        _POINTERS[ptr] = weakref.ref(a, forget)


class NcclError(RuntimeError):
    """``cupy.cuda.nccl.NcclError``."""

    def __init__(self, name, message):
        self.status = name
        super().__init__(f'{name}: {message}')


class FakeNccl(types.ModuleType):
    """``cupy.cuda.nccl`` without a GPU: the names and codes of CuPy's
    wrapper (``NCCL_FLOAT32``, ``NCCL_SUM``, ``get_unique_id``,
    ``NcclCommunicator``), with collectives done by MPI.

    ``calls`` lists every call made in this process, so a test can check
    the exact sequence: ``('get_unique_id',)``, ``('NcclCommunicator',
    ndev, rank, device)``, ``('bcast', count, datatype, root, stream)``,
    ``('allReduce', count, datatype, op, stream, in_place)``.

    The ranks of a communicator must be the first ``ndev`` processes of
    the MPI job, in order (true of dlbook's workers, whose servers come
    last); the communicator checks that every rank was given the same
    unique id, and refuses two ranks on one device, as NCCL does.
    """

    # NCCL's ncclDataType_t and ncclRedOp_t codes
    NCCL_INT8 = NCCL_CHAR = 0
    NCCL_UINT8 = 1
    NCCL_INT32 = NCCL_INT = 2
    NCCL_UINT32 = 3
    NCCL_INT64 = 4
    NCCL_UINT64 = 5
    NCCL_FLOAT16 = NCCL_HALF = 6
    NCCL_FLOAT32 = NCCL_FLOAT = 7
    NCCL_FLOAT64 = NCCL_DOUBLE = 8
    NCCL_SUM, NCCL_PROD, NCCL_MAX, NCCL_MIN = 0, 1, 2, 3
    NcclError = NcclError

    def __init__(self, current_device):
        super().__init__('cupy.cuda.nccl')
        #: ``current_device()``: the fake CuPy's current device
        self.current_device = current_device
        self.available = os.environ.get(
            'DLBOOK_FAKE_NCCL', '1'
        ).strip() not in ('0', 'false', 'no')
        self.calls = []
        self.NcclCommunicator = functools.partial(_FakeCommunicator, self)

    def get_version(self):
        self._check_available()
        return 22805

    def get_unique_id(self):
        """128 signed bytes, as CuPy returns ``ncclUniqueId``."""
        self._check_available()
        self.calls.append(('get_unique_id',))
        return tuple(
            int(b) for b in numpy.frombuffer(os.urandom(128), numpy.int8)
        )

    def _check_available(self):
        if not self.available:
            raise NcclError(
                'NCCL_ERROR_SYSTEM_ERROR',
                'libnccl.so.2: '
                'cannot open shared object file (fake NCCL '
                'switched off by DLBOOK_FAKE_NCCL=0)',
            )


_NCCL_DTYPES = {
    0: numpy.int8,
    1: numpy.uint8,
    2: numpy.int32,
    3: numpy.uint32,
    4: numpy.int64,
    5: numpy.uint64,
    6: numpy.float16,
    7: numpy.float32,
    8: numpy.float64,
}


class _FakeCommunicator:
    """``NcclCommunicator(ndev, commId, rank)`` over an MPI communicator
    of the first ``ndev`` processes."""

    def __init__(self, nccl, ndev, commId, rank):
        nccl._check_available()
        from mpi4py import MPI

        self._nccl, self._MPI = nccl, MPI
        if not (
            isinstance(commId, tuple)
            and len(commId) == 128
            and all(isinstance(b, int) and -128 <= b < 128 for b in commId)
        ):
            raise NcclError(
                'NCCL_ERROR_INVALID_ARGUMENT',
                'commId must be the tuple of 128 signed bytes '
                'that get_unique_id returns',
            )
        world = MPI.COMM_WORLD
        if not (0 <= rank < ndev <= world.size) or world.rank != rank:
            raise NcclError(
                'NCCL_ERROR_INVALID_ARGUMENT',
                f'rank {rank} of {ndev}: the fake NCCL needs '
                f'rank == MPI rank < ndev (MPI rank '
                f'{world.rank} of {world.size})',
            )
        self.device = self._nccl.current_device()
        nccl.calls.append(('NcclCommunicator', ndev, rank, self.device))
        self._comm = world.Create_group(world.group.Incl(list(range(ndev))))
        ids = self._comm.allgather(commId)
        if any(i != commId for i in ids):
            raise NcclError(
                'NCCL_ERROR_INVALID_USAGE',
                'the ranks were given different unique ids',
            )
        where = self._comm.allgather((os.uname().nodename, self.device))
        for r, w in enumerate(where):
            if r != rank and w == where[rank]:
                raise NcclError(
                    'NCCL_ERROR_INVALID_USAGE',
                    f'Duplicate GPU detected : rank {rank} and rank {r} '
                    f'both on CUDA device {self.device}',
                )
        self._ndev, self._rank = ndev, rank

    def size(self):
        return self._ndev

    def rank_id(self):
        return self._rank

    def device_id(self):
        return self.device

    def destroy(self):
        if self._comm is not None:
            self._comm.Free()
            self._comm = None

    abort = destroy

    # -- argument checks ------------------------------------------------------
    def _buffer(self, ptr, count, datatype, what):
        if not isinstance(ptr, int) or isinstance(ptr, bool):
            raise TypeError(
                f'{what}: a pointer must be an int (x.data.ptr), '
                f'got {type(ptr).__name__}'
            )
        ref = _POINTERS.get(ptr)
        a = ref() if ref is not None else None
        if a is None:
            raise NcclError(
                'NCCL_ERROR_INVALID_ARGUMENT',
                f'{what}: {ptr:#x} is not the data.ptr of a live device array',
            )
        dtype = numpy.dtype(_NCCL_DTYPES[datatype])
        if not a.flags.c_contiguous:
            raise NcclError(
                'NCCL_ERROR_INVALID_ARGUMENT',
                f'{what}: the array is not contiguous',
            )
        if count * dtype.itemsize > a.nbytes:
            raise NcclError(
                'NCCL_ERROR_INVALID_ARGUMENT',
                f'{what}: {count} elements of {dtype} do not '
                f'fit in an array of {a.nbytes} bytes',
            )
        if a.dtype != dtype:
            raise NcclError(
                'NCCL_ERROR_INVALID_ARGUMENT',
                f'{what}: datatype {datatype} ({dtype}) given '
                f'for an array of {a.dtype}',
            )
        return a.reshape(-1)[:count]

    def _check(self, what, count, datatype, stream, op=None):
        if self._comm is None:
            raise NcclError(
                'NCCL_ERROR_INVALID_ARGUMENT',
                f'{what} on a destroyed communicator',
            )
        if datatype not in _NCCL_DTYPES:
            raise NcclError(
                'NCCL_ERROR_INVALID_ARGUMENT',
                f'{what}: unknown datatype {datatype!r}',
            )
        if op is not None and op not in (0, 1, 2, 3):
            raise NcclError(
                'NCCL_ERROR_INVALID_ARGUMENT', f'{what}: unknown op {op!r}'
            )
        if not isinstance(count, int) or count < 0:
            raise TypeError(f'{what}: count must be an int >= 0')
        if not isinstance(stream, int) or isinstance(stream, bool):
            raise TypeError(
                f'{what}: stream must be an int (stream.ptr), '
                f'got {type(stream).__name__}'
            )
        if self._nccl.current_device() != self.device:
            raise NcclError(
                'NCCL_ERROR_INVALID_USAGE',
                f'{what} called with device '
                f'{self._nccl.current_device()} current; the '
                f'communicator belongs to device {self.device}',
            )

    # -- collectives ----------------------------------------------------------
    def allReduce(self, sendbuf, recvbuf, count, datatype, op, stream):
        self._check('allReduce', count, datatype, stream, op)
        send = self._buffer(sendbuf, count, datatype, 'allReduce sendbuf')
        recv = self._buffer(recvbuf, count, datatype, 'allReduce recvbuf')
        self._nccl.calls.append(
            ('allReduce', count, datatype, op, stream, sendbuf == recvbuf)
        )
        MPI = self._MPI
        mpi_op = (MPI.SUM, MPI.PROD, MPI.MAX, MPI.MIN)[op]
        if recv.dtype == numpy.float16:  # MPI has no half sum
            wide = send.astype(numpy.float32)
            self._comm.Allreduce(MPI.IN_PLACE, wide, mpi_op)
            recv[...] = wide
        elif sendbuf == recvbuf:
            self._comm.Allreduce(MPI.IN_PLACE, recv, mpi_op)
        else:
            self._comm.Allreduce(send, recv, mpi_op)

    def bcast(self, buff, count, datatype, root, stream):
        self._check('bcast', count, datatype, stream)
        buf = self._buffer(buff, count, datatype, 'bcast buff')
        self._nccl.calls.append(('bcast', count, datatype, root, stream))
        self._comm.Bcast(buf, root=root)

    def broadcast(self, sendbuf, recvbuf, count, datatype, root, stream):
        self._check('broadcast', count, datatype, stream)
        recv = self._buffer(recvbuf, count, datatype, 'broadcast recvbuf')
        if self._rank == root and sendbuf != recvbuf:
            recv[...] = self._buffer(
                sendbuf, count, datatype, 'broadcast sendbuf'
            )
        self._nccl.calls.append(('broadcast', count, datatype, root, stream))
        self._comm.Bcast(recv, root=root)
