"""The GPU path of ``dist_device_sync``: NCCL through CuPy, started over MPI.

A push to a ``dist_device_sync`` key held on a GPU is summed over this
worker's devices on the GPU (:func:`dlbook.kvstore.kvstore._sum`), then
over the workers by one NCCL all-reduce, which moves the data GPU to GPU
without a copy through host memory.  MPI does what NCCL cannot do by
itself: rank 0 makes NCCL's unique id (``nccl.get_unique_id()``) and MPI
broadcasts it, so that every worker can join the same communicator
(``nccl.NcclCommunicator(n, uid, rank)``).  One communicator serves a
store, made at the first ``init`` of a GPU key.

Which path a key takes is decided at its ``init``, by all workers
together (every worker must make the same NCCL or MPI calls, or both
would wait forever):

* NCCL, when every worker holds the key on a CuPy GPU, CuPy reports NCCL
  available (``cupy.cuda.nccl.available`` and the library loads), NCCL
  can sum the dtype, and no two workers share one GPU (NCCL 2.5 and
  later refuse that, "Duplicate GPU detected", comparing the host and
  the PCI bus id as :func:`local_code` does; NVIDIA/nccl#418);
* host-staged MPI otherwise (and for every key while gradient
  compression is set): copy to the host, ``MPI_Allreduce``, copy back.

``DLBOOK_DIST_DEVICE_COMM`` chooses: ``auto`` (the default, as above),
``nccl`` (raise, naming the workers and the reason, when a GPU key
cannot use NCCL) or ``host`` (always host-staged MPI, e.g. to compare
the two).

NCCL's own waits are not covered by ``DLBOOK_DIST_TIMEOUT``: a worker
that hangs while the others are inside an NCCL call is not detected by
dlbook (set ``NCCL_*`` timeouts or the job's time limit).
"""

import hashlib
import importlib
import os
import platform
import warnings

import numpy

from ..base import DLBookError

__all__ = [
    'MODE_VAR',
    'mode_from_env',
    'nccl_module',
    'nccl_dtype',
    'local_code',
    'decide',
    'NcclChannel',
]

MODE_VAR = 'DLBOOK_DIST_DEVICE_COMM'
MODES = ('auto', 'nccl', 'host')

# What a worker reports about one key; exchanged at init.
OK, CPU, NO_NCCL, DTYPE, OTHER_DEVICE, FORCED_HOST = range(6)
REASONS = {
    CPU: 'its value is not on a CuPy GPU',
    NO_NCCL: 'CuPy reports no NCCL (cupy.cuda.nccl.available is False or '
    'libnccl does not load; pip install nvidia-nccl-cu12)',
    DTYPE: 'NCCL cannot sum its dtype',
    OTHER_DEVICE: "its value is on another GPU than the store's "
    "NCCL communicator",
    FORCED_HOST: f'{MODE_VAR}=host',
}

# dtype.char -> the name of CuPy's NCCL datatype code
_DTYPES = {
    'b': 'NCCL_INT8',
    'B': 'NCCL_UINT8',
    'i': 'NCCL_INT32',
    'I': 'NCCL_UINT32',
    'l': 'NCCL_INT64',
    'q': 'NCCL_INT64',
    'L': 'NCCL_UINT64',
    'Q': 'NCCL_UINT64',
    'e': 'NCCL_FLOAT16',
    'f': 'NCCL_FLOAT32',
    'd': 'NCCL_FLOAT64',
}


def mode_from_env():
    """``DLBOOK_DIST_DEVICE_COMM``: ``'auto'`` (default), ``'nccl'`` or
    ``'host'``."""
    text = os.environ.get(MODE_VAR, '').strip().lower() or 'auto'
    if text not in MODES:
        raise DLBookError(
            f'{MODE_VAR} must be auto, nccl or host, got {text!r}'
        )
    return text


_MODULES = {}


def nccl_module(xp):
    """CuPy's ``cupy.cuda.nccl`` for the array module ``xp`` when NCCL is
    usable, else None.

    ``cupy.cuda.nccl`` imports even without the NCCL library (it then says
    ``available = False``, or fails on the first call), so the version is
    asked once as a check.
    """
    key = id(xp)
    if key not in _MODULES or _MODULES[key][0] is not xp:
        nccl = getattr(getattr(xp, 'cuda', None), 'nccl', None)
        if nccl is None:  # real CuPy: a submodule to import
            try:
                nccl = importlib.import_module(f'{xp.__name__}.cuda.nccl')
            except Exception:  # noqa: BLE001 - any failure: no NCCL
                nccl = None
        if nccl is not None and getattr(nccl, 'available', False):
            try:
                nccl.get_version()
            except Exception:  # noqa: BLE001
                nccl = None
        else:
            nccl = None
        _MODULES[key] = (xp, nccl)
    return _MODULES[key][1]


def nccl_dtype(nccl, dtype):
    """NCCL's datatype code for a NumPy ``dtype``, or None if NCCL has no
    such type (bool, complex, ...)."""
    name = _DTYPES.get(numpy.dtype(dtype).char)
    return None if name is None else getattr(nccl, name)


def _place(xp, device_id):
    """Text naming a GPU across processes: the host and the PCI bus id
    (device numbers alone differ under ``CUDA_VISIBLE_DEVICES``)."""
    try:
        bus = xp.cuda.Device(device_id).pci_bus_id
    except Exception:  # noqa: BLE001 - older CuPy
        try:
            bus = xp.cuda.runtime.deviceGetPCIBusId(device_id)
        except Exception:  # noqa: BLE001
            bus = f'device {device_id}'
    return f'{platform.node()} {bus}'


def local_code(stored, mode, channel):
    """``(code, place)`` of this worker for the key holding ``stored``:
    :data:`OK` and the GPU's place when this worker can use NCCL for it."""
    if mode == 'host':
        return FORCED_HOST, ''
    ctx = stored.context
    xp = ctx.xp
    if ctx.device_type == 'cpu' or xp is numpy or not hasattr(xp, 'cuda'):
        return CPU, ''
    nccl = nccl_module(xp)
    if nccl is None:
        return NO_NCCL, ''
    if nccl_dtype(nccl, stored.dtype) is None:
        return DTYPE, ''
    if channel is not None and channel.device_id != ctx.device_id:
        return OTHER_DEVICE, ''
    return OK, _place(xp, ctx.device_id)


def place_digest(place):
    """An int64 standing for ``place`` (0 for no GPU)."""
    if not place:
        return 0
    return (
        int(
            numpy.frombuffer(
                hashlib.blake2b(place.encode(), digest_size=8).digest(),
                numpy.int64,
            )[0]
        )
        or 1
    )


def decide(codes, digests, mode, key, dtype=None):
    """Whether ``key`` goes through NCCL, from every worker's code and GPU.

    Parameters
    ----------
    codes : sequence of int
        One code per worker (:data:`OK`, :data:`CPU`, ...).
    digests : sequence of int
        One :func:`place_digest` per worker: two equal non-zero digests
        are two workers on one GPU.
    mode : str
        ``'auto'``, ``'nccl'`` or ``'host'``.

    Returns
    -------
    (bool, str)
        Whether to use NCCL, and why not (empty when it is used).

    Raises
    ------
    DLBookError
        When ``mode`` is ``'nccl'`` and some worker cannot use NCCL.
    """
    codes = [int(c) for c in codes]
    problems = []
    for c in sorted(set(codes) - {OK}):
        who = [r for r, x in enumerate(codes) if x == c]
        what = (
            REASONS[c]
            if c != DTYPE
            else f'NCCL cannot sum {numpy.dtype(dtype).name if dtype else "it"}'
        )
        problems.append(
            f'worker{"s" if len(who) > 1 else ""} '
            f'{", ".join(map(str, who))}: {what}'
        )
    sharing = {}
    for r, d in enumerate(digests):
        if d:
            sharing.setdefault(int(d), []).append(r)
    for who in sharing.values():
        if len(who) > 1:
            problems.append(
                f'workers {", ".join(map(str, who))} share one '
                f'GPU, and NCCL needs one GPU per worker'
            )
    if not problems:
        return True, ''
    why = '; '.join(problems)
    if mode == 'nccl':
        raise DLBookError(
            f"kv.create('dist_device_sync') with {MODE_VAR}="
            f"nccl: key {key!r} cannot go through NCCL: {why}"
        )
    return False, why


_warned = False


def note_host_path(key, why):
    """Say once per process that a GPU key is exchanged through host
    memory, and why (only when some worker holds it on a GPU)."""
    global _warned
    if _warned:
        return
    _warned = True
    warnings.warn(
        f"dist_device_sync: key {key!r} (and any later one for "
        f"the same reason) is exchanged through host memory with "
        f"MPI, not NCCL: {why}. Set {MODE_VAR}=host to silence "
        f"this, or {MODE_VAR}=nccl to make it an error",
        UserWarning,
        stacklevel=4,
    )


class NcclChannel:
    """The NCCL communicator of one store, on one GPU of this worker.

    Parameters
    ----------
    group : dlbook.kvstore._collective.Group
        The workers; their MPI ranks are the NCCL ranks.
    nccl : module
        ``cupy.cuda.nccl`` (or the fake CuPy's).
    xp : module
        ``cupy`` (or the fake).
    device_id : int
        The GPU this worker's NCCL keys live on.
    """

    def __init__(self, group, nccl, xp, device_id):
        self.nccl, self.xp, self.device_id = nccl, xp, device_id
        uid = numpy.zeros(128, numpy.int8)
        if group.rank == 0:
            uid[:] = nccl.get_unique_id()
        group.bcast(uid, 'broadcast of the NCCL unique id')
        # NCCL binds the communicator to the current device.
        with xp.cuda.Device(device_id):
            self.comm = nccl.NcclCommunicator(
                group.size, tuple(int(b) for b in uid), group.rank
            )

    def _call(self, name, array, *args):
        if not array.flags.c_contiguous:
            raise DLBookError(f'NCCL {name}: the array must be contiguous')
        dtype = nccl_dtype(self.nccl, array.dtype)
        with self.xp.cuda.Device(self.device_id):
            # enqueued on the device's current stream, after the kernels
            # that computed ``array``: no synchronisation needed
            stream = self.xp.cuda.get_current_stream().ptr
            ptr = array.data.ptr
            if name == 'allReduce':
                self.comm.allReduce(
                    ptr, ptr, array.size, dtype, self.nccl.NCCL_SUM, stream
                )
            else:
                self.comm.bcast(ptr, array.size, dtype, args[0], stream)

    def allreduce(self, array):
        """Sum ``array`` (a CuPy array on this worker's GPU) over the
        workers, in place."""
        self._call('allReduce', array)

    def bcast(self, array, root=0):
        """``array`` of worker ``root`` to every worker, in place."""
        self._call('bcast', array, root)
