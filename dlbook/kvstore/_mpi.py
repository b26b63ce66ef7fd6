"""The MPI side of the distributed stores: finding the job, failing fast.

``mpi4py`` is imported only here, and only when a ``dist_*`` store is
created inside a job started by ``mpiexec``/``srun``/``dlbook.launch``.

* :func:`job_size` tells, from the launcher's environment variables,
  whether this process is one of several (without importing MPI).
* :func:`world` imports mpi4py and returns ``COMM_WORLD``.
* :func:`abort_on_error` makes an uncaught exception on any rank stop the
  whole job at once (``MPI_Abort``), with a message naming the rank;
  otherwise the other ranks would wait forever in their next collective.
* :func:`agree` checks that every worker calls a collective with the same
  keys, shapes and dtypes, and raises one clear error if not.
* :func:`check_every_call` reads ``DLBOOK_DIST_CHECK``: with ``1`` the
  stores run :func:`agree` on every call, not only at ``init``.
"""

import atexit
import hashlib
import os
import sys
import time
import warnings

import numpy

from ..base import DLBookError

__all__ = [
    'job_size',
    'world',
    'abort_on_error',
    'agree',
    'num_servers',
    'check_every_call',
]

_warned_single = False


def job_size():
    """The number of processes in this job, as the launcher announced it
    in the environment (1 when no launcher started this process).

    MPICH sets ``PMI_SIZE``, Open MPI ``OMPI_COMM_WORLD_SIZE``, PMIx
    ``PMIX_RANK`` and ``srun`` ``SLURM_STEP_NUM_TASKS``.  A batch script
    that runs ``python train.py`` without ``srun`` is one process, even in
    an allocation of many tasks.
    """
    for var in ('OMPI_COMM_WORLD_SIZE', 'PMI_SIZE'):
        if os.environ.get(var, '').isdigit():
            return int(os.environ[var])
    if any(v in os.environ for v in ('PMIX_RANK', 'PMI_RANK')):
        return 2  # launched, size unknown until MPI starts
    if (
        'SLURM_PROCID' in os.environ
        and os.environ.get('SLURM_STEP_NUM_TASKS', '1') != '1'
    ):
        return int(os.environ['SLURM_STEP_NUM_TASKS'])
    return 1


def warn_single(name):
    """Say once that ``name`` runs as a 1-worker store."""
    global _warned_single
    if _warned_single:
        return
    _warned_single = True
    warnings.warn(
        f"kv.create('{name}'): this process was not started by a launcher "
        f"(python -m dlbook.launch, mpiexec or srun), so the store has 1 "
        f"worker (rank 0 of 1) and behaves like a local store. Start "
        f"several workers with: python -m dlbook.launch -n 2 python "
        f"{os.path.basename(sys.argv[0]) or 'train.py'}",
        UserWarning,
        stacklevel=4,
    )


def world():
    """``mpi4py.MPI.COMM_WORLD``, importing mpi4py now."""
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise DLBookError(
            f'This process was started by an MPI launcher, and dist_* '
            f'kvstores need mpi4py, which cannot be imported ({e}). '
            f'Install it with: pip install "dlbook[dist]" (or pip install '
            f'mpi4py mpich)'
        ) from None
    return MPI.COMM_WORLD


def record_pid(rank, role='worker'):
    """Leave ``rank-<rank>.pid`` (``host pid role``) in
    ``$DLBOOK_LAUNCH_DIR`` (set by ``dlbook.launch``), so the launcher
    can name the rank and role of a process that dies."""
    folder = os.environ.get('DLBOOK_LAUNCH_DIR')
    if folder and os.path.isdir(folder):
        try:
            path = os.path.join(folder, f'rank-{rank}.pid')
            with open(path, 'w') as f:
                f.write(f'{os.uname().nodename} {os.getpid()} {role}')
            # a process that ends normally takes its file away; one that
            # is killed leaves it, and the launcher sees which died first
            atexit.register(_forget, path)
        except OSError:
            pass


def _forget(path):
    try:
        os.remove(path)
    except OSError:
        pass


def check_every_call():
    """Whether ``DLBOOK_DIST_CHECK=1`` asks for a key/shape agreement
    check on every push (a debugging aid; the default checks at ``init``
    and folds a cheap key check into each all-reduce)."""
    return os.environ.get('DLBOOK_DIST_CHECK', '0').strip() not in (
        '',
        '0',
        'false',
        'no',
    )


def num_servers():
    """Server processes asked for (``DMLC_NUM_SERVER``, as MXNet names
    it; ``dlbook.launch -s`` sets it).  0 when unset."""
    value = os.environ.get('DMLC_NUM_SERVER', '0')
    if not value.isdigit():
        raise DLBookError(
            f'DMLC_NUM_SERVER must be a whole number, got {value!r}'
        )
    return int(value)


_hook_installed = False


def abort_on_error(comm, role):
    """Make an uncaught exception in this process stop every process of
    the job (``MPI_Abort``) after printing which rank failed."""
    global _hook_installed
    if _hook_installed or comm.size == 1:
        return
    _hook_installed = True
    previous = sys.excepthook
    rank, size = comm.rank, comm.size

    def hook(etype, value, tb):
        previous(etype, value, tb)
        if issubclass(etype, (SystemExit,)):
            return
        sys.stderr.write(
            f'\ndlbook.kvstore: {role} (process {rank} of {size}, pid '
            f'{os.getpid()}) raised {etype.__name__}: {value}\n'
            f'dlbook.kvstore: stopping all {size} processes of the job '
            f'(MPI_Abort)\n'
        )
        sys.stderr.flush()
        time.sleep(0.5)  # let mpiexec forward the message before Abort
        comm.Abort(1)

    sys.excepthook = hook


def _digest(text):
    return numpy.frombuffer(
        hashlib.blake2b(text.encode(), digest_size=8).digest(), numpy.int64
    )[0]


def agree(group, text, what):
    """Raise on every worker unless all of them pass the same ``text``.

    One 8-byte all-gather of a hash of ``text`` (``group`` is a
    :class:`~dlbook.kvstore._collective.Group`); only on a mismatch are
    the texts themselves gathered to build the error message.
    """
    if group.size == 1:
        return
    mine = numpy.array([_digest(text)], numpy.int64)
    every = numpy.empty(group.size, numpy.int64)
    group.allgather(mine, every, what)
    if (every == every[0]).all():
        return
    width = 400
    raw = text.encode()[:width].ljust(width, b' ')
    texts = numpy.empty((group.size, width), numpy.uint8)
    group.allgather(numpy.frombuffer(raw, numpy.uint8), texts, what)
    lines = '\n'.join(
        f'  worker {r}: {bytes(t).decode(errors="replace").rstrip()}'
        for r, t in enumerate(texts)
    )
    raise DLBookError(
        f'KVStore.{what}: the workers disagree on keys, '
        f'shapes or dtypes; every worker must make the same '
        f'calls in the same order:\n{lines}'
    )
