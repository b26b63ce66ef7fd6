"""Atomic file writes: a file is either complete or not there at all.

Saving parameters or downloading a data set can fail half way (disk full,
an exception in the writer, Ctrl-C, a dropped connection).  Writing into a
temporary file in the *same directory* and renaming it over the target with
:func:`os.replace` means readers never see a half-written file: the rename
is atomic on POSIX and on Windows within one file system.
"""

__all__ = ['atomic_write']

import contextlib
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
    its old content (or stays absent).
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f'.{os.path.basename(path)}.',
                               suffix='.part', dir=directory)
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
