"""``MXIndexedRecordIO``: a ``.rec`` file plus a ``.idx`` file of
``key<TAB>offset`` lines, for random access by key."""

__all__ = ['MXIndexedRecordIO']

import atexit
import contextlib
import os
import weakref

from .._atomic import atomic_write
from ..base import DLBookError
from .records import MXRecordIO

# Indexed writers still open: their .idx files are written at exit, while
# the modules that writing needs are still there.
_OPEN_WRITERS = weakref.WeakSet()


@atexit.register
def _close_open_writers():
    for writer in list(_OPEN_WRITERS):
        writer.close()


class _MissingKey(DLBookError, KeyError):
    """A key that is not in the index: a DLBookError and, as in MXNet, a
    KeyError."""

    __str__ = DLBookError.__str__


class MXIndexedRecordIO(MXRecordIO):
    """A RecordIO file with an index for random access by key.

    Parameters
    ----------
    idx_path : str or os.PathLike
        Path of the ``.idx`` file: one ``key<TAB>offset`` line per record.
    uri : str or os.PathLike
        Path of the ``.rec`` file.
    flag : {'r', 'w'}
    key_type : type, default int
        Converts keys (``int`` for im2rec's files; ``str`` for names).

    Attributes
    ----------
    idx : dict
        Key -> byte offset of the record.
    keys : list
        The keys in file order (``RecordFileDataset`` item ``i`` is the
        record of ``keys[i]``).

    Notes
    -----
    With ``'w'``, the ``.idx`` file is written when the writer is closed,
    atomically: until then an older index of the same name is removed,
    never left to disagree with the new records.

    Examples
    --------
    >>> with mx.recordio.MXIndexedRecordIO('tmp.idx', 'tmp.rec', 'w') as w:
    ...     for i in range(5):
    ...         w.write_idx(i, b'record_%d' % i)
    >>> record = mx.recordio.MXIndexedRecordIO('tmp.idx', 'tmp.rec', 'r')
    >>> record.keys
    [0, 1, 2, 3, 4]
    >>> record.read_idx(3)
    b'record_3'
    """

    def __init__(self, idx_path, uri, flag, key_type=int):
        self.idx_path = os.fspath(idx_path)
        self.idx = {}
        self.keys = []
        self.key_type = key_type
        self.fidx = None
        self._lines = []
        super().__init__(uri, flag)

    def open(self):
        if self.flag == 'w':
            folder = os.path.dirname(os.path.abspath(self.idx_path))
            if not os.path.isdir(folder):
                raise DLBookError(
                    f'cannot write the index {self.idx_path}: '
                    f'folder {folder} does not exist'
                )
        super().open()
        if self.writable:
            self.idx = {}
            self.keys = []
            self._lines = []
            with contextlib.suppress(FileNotFoundError):
                os.remove(self.idx_path)
            _OPEN_WRITERS.add(self)
        elif not self.idx:
            try:
                self._load_idx()
            except BaseException:
                super().close()
                raise

    def _load_idx(self):
        try:
            fidx = open(self.idx_path, encoding='utf-8')
        except FileNotFoundError:
            raise DLBookError(
                f'index file {self.idx_path} of {self.uri} not found. '
                f'Random access needs the .idx file written with the .rec '
                f'(by MXIndexedRecordIO(..., "w") or im2rec)'
            ) from None
        except OSError as err:
            raise DLBookError(
                f'cannot read index file {self.idx_path}: '
                f'{err.strerror or err}'
            ) from err
        with fidx:
            try:
                lines = list(fidx)
            except (UnicodeDecodeError, OSError) as err:
                raise DLBookError(
                    f'cannot read index file {self.idx_path}: it is not a '
                    f'text index of "key<TAB>offset" lines ({err})'
                ) from None
            for number, line in enumerate(lines, 1):
                fields = line.strip().split('\t')
                if fields == ['']:
                    continue
                try:
                    if len(fields) < 2:
                        raise ValueError('no tab')
                    key = self.key_type(fields[0])
                    offset = int(fields[1])
                    if offset < 0:
                        raise ValueError('negative offset')
                except ValueError as err:
                    raise DLBookError(
                        f'{self.idx_path}, line {number}: expected '
                        f'"key<TAB>offset" with a {self.key_type.__name__} '
                        f'key and an offset >= 0, got {line.rstrip()!r} '
                        f'({err})'
                    ) from None
                self.idx[key] = offset
                self.keys.append(key)

    def close(self):
        """Close the files; a writer writes its ``.idx`` file now."""
        if not self.is_open:
            return
        write_index = self.writable and self.pid == os.getpid()
        _OPEN_WRITERS.discard(self)
        super().close()
        if write_index:
            with atomic_write(self.idx_path, 'w') as fidx:
                fidx.writelines(self._lines)

    def __getstate__(self):
        state = super().__getstate__()
        state['fidx'] = None
        return state

    def _offset(self, idx):
        try:
            return self.idx[idx]
        except KeyError:
            raise _MissingKey(
                f'key {idx!r} is not in the index '
                f'{self.idx_path} of {self.uri} '
                f'({len(self.idx)} keys)'
            ) from None
        except TypeError:  # unhashable key
            raise _MissingKey(
                f'{idx!r} cannot be a key of the index {self.idx_path}'
            ) from None

    def seek(self, idx):
        """Make the next :meth:`read` return the record of key ``idx``."""
        self._need(False, 'seek()')
        pos = self._offset(idx)
        with self._lock:
            self._pos = pos

    def tell(self):
        """The current byte offset: where the next record will be written
        (``'w'``), or read from (``'r'``)."""
        self._check_pid(allow_reset=not self.writable)
        return self._pos

    def read_idx(self, idx):
        """The record of key ``idx`` (bytes).

        Raises an error that is a ``KeyError`` for an unknown key.
        """
        self._need(False, 'read_idx()')
        pos = self._offset(idx)
        with self._lock:
            data, end = self._read_at(pos)
            self._pos = end
        if data is None:
            raise self._fail(
                pos,
                f'no record for key {idx!r} in index '
                f'{self.idx_path}: the offset is the end '
                f'of the file',
            )
        return data

    def write_idx(self, idx, buf):
        """Append ``buf`` as the record of key ``idx``."""
        self._need(True, 'write_idx()')
        key = self.key_type(idx)
        text = str(key)
        if (
            '\t' in text
            or '\n' in text
            or '\r' in text
            or text != text.strip()
        ):
            raise DLBookError(
                f'key {text!r} cannot be stored in an .idx '
                f'file: keys must not contain tabs or line '
                f'breaks, nor start or end with spaces'
            )
        with self._lock:
            pos = self._pos
            self._write_locked(buf)
            self._lines.append(f'{text}\t{pos}\n')
        self.idx[key] = pos
        self.keys.append(key)
