"""Atomic file writes: a file is either complete or not there at all.

Saving parameters or downloading a data set can fail half way (disk full,
an exception in the writer, Ctrl-C, a dropped connection).  Writing into a
temporary file in the *same directory* and renaming it over the target with
:func:`os.replace` means readers never see a half-written file: the rename
is atomic on POSIX and on Windows within one file system.
"""

__all__ = ['atomic_write']

import contextlib
import errno
import os
import tempfile
import threading

_UMASK_LOCK = threading.Lock()
_UMASK = None


def _umask():
    """The process umask (read once; reading it means setting it back)."""
    global _UMASK
    with _UMASK_LOCK:
        if _UMASK is None:
            _UMASK = os.umask(0o022)
            os.umask(_UMASK)
    return _UMASK


def _remove_stale(directory, prefix):
    """Delete temporary files of the same target left by a writer that was
    killed mid-write (``.<name>.<pid>.<random>.part`` whose process is
    gone); files of running processes are left alone.  Not on Windows,
    where ``os.kill`` cannot probe a process without signalling it."""
    if os.name == 'nt':
        return
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        if not (name.startswith(prefix) and name.endswith('.part')):
            continue
        pid = name[len(prefix) :].split('.', 1)[0]
        if (
            pid.isdigit()
            and int(pid) != os.getpid()
            and not _process_alive(int(pid))
        ):
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(directory, name))


def _process_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


@contextlib.contextmanager
def atomic_write(path, mode='wb'):
    """Open a temporary file that replaces ``path`` when the block succeeds.

    Parameters
    ----------
    path : str or os.PathLike
        The file to write.  Its directory must exist.
    mode : str
        ``'wb'`` (default) or ``'w'``.

    Examples
    --------
    >>> with atomic_write('weights.params') as f:     # doctest: +SKIP
    ...     f.write(payload)

    If the block raises, the temporary file is removed and ``path`` keeps
    its old content (or stays absent).  A temporary file left by a process
    killed mid-write (``.<name>.<pid>.<random>.part``) is deleted by the
    next save of the same file.  A missing folder raises
    ``FileNotFoundError`` naming ``path``.
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise FileNotFoundError(
            errno.ENOENT,
            f'cannot save {path!r}: the folder {directory!r} '
            f'does not exist (create it first, e.g. with os.makedirs)',
            path,
        )
    prefix = f'.{os.path.basename(path)}.'
    _remove_stale(directory, prefix)
    fd, tmp = tempfile.mkstemp(
        prefix=f'{prefix}{os.getpid()}.', suffix='.part', dir=directory
    )
    try:
        with os.fdopen(fd, mode) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        # mkstemp makes 0600 files; give the result the usual permissions.
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
