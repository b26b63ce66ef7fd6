"""Reading and writing the records of a ``.rec`` file (``MXRecordIO``).

The layout of a record, and the splitting of payloads that contain the
magic word, are described in the package docstring (``dlbook.recordio``).
"""

__all__ = ['MXRecordIO']

import os
import struct
import threading

from ..base import DLBookError

_MAGIC = 0xCED7230A
_MAGIC_BYTES = struct.pack('<I', _MAGIC)
_HEAD = struct.Struct('<II')  # magic, lrecord
_LENGTH_BITS = 29
_LENGTH_MASK = (1 << _LENGTH_BITS) - 1
# Above this many bytes, check the file size before reading a payload, so
# that a damaged length field cannot make us allocate up to 512 MiB.
_CHECK_SIZE_ABOVE = 1 << 20


def _padding(length):
    return -length % 4


def _magic_cuts(data):
    """The 4-byte aligned offsets at which ``data`` holds the magic word
    (dmlc's writer compares the aligned words before ``len & ~3``)."""
    cuts = []
    i = data.find(_MAGIC_BYTES)
    while i != -1:
        if i % 4 == 0:
            cuts.append(i)
            i = data.find(_MAGIC_BYTES, i + 4)
        else:
            i = data.find(_MAGIC_BYTES, i + 1)
    return cuts


def _encode(data):
    """The bytes dmlc's ``RecordIOWriter::WriteRecord`` writes for
    ``data``: one part, or one part per piece between magic words."""
    out = []
    start = 0
    for cut in _magic_cuts(data):
        out.append(
            _HEAD.pack(
                _MAGIC,
                (1 if start == 0 else 2) << _LENGTH_BITS | (cut - start),
            )
        )
        out.append(data[start:cut])  # a multiple of 4: no padding
        start = cut + 4
    out.append(
        _HEAD.pack(
            _MAGIC, (3 if start else 0) << _LENGTH_BITS | (len(data) - start)
        )
    )
    out.append(data[start:])
    out.append(bytes(_padding(len(data))))
    return b''.join(out)


class MXRecordIO:
    """Read or write a RecordIO file, one record after the other.

    Parameters
    ----------
    uri : str or os.PathLike
        Path of the ``.rec`` file.
    flag : {'r', 'w'}
        ``'r'`` reads; ``'w'`` creates the file (emptying an existing one)
        and writes.

    Attributes
    ----------
    uri : str
    flag : str
    writable : bool
    is_open : bool
    pid : int or None
        The process that opened the file.  A reader used in another
        process (a forked DataLoader worker) reopens the file there; a
        writer refuses, as in MXNet.

    Notes
    -----
    The file layout is described in the module documentation
    (``help(mx.recordio)``).  A reader can be pickled: the copy reopens
    the file and continues from the same position.  A writer that is
    still open cannot be pickled (its copy would reopen the file with
    ``'w'`` and empty it).

    Examples
    --------
    >>> with mx.recordio.MXRecordIO('tmp.rec', 'w') as record:
    ...     for i in range(3):
    ...         record.write(b'record_%d' % i)
    >>> record = mx.recordio.MXRecordIO('tmp.rec', 'r')
    >>> record.read(), record.read(), record.read(), record.read()
    (b'record_0', b'record_1', b'record_2', None)
    >>> record.close()
    """

    def __init__(self, uri, flag):
        self.uri = os.fspath(uri)
        self.flag = flag
        self.writable = flag == 'w'
        self.is_open = False
        self.pid = None
        self._file = None
        self._pos = 0
        self._lock = threading.Lock()
        self.open()

    # ------------------------------------------------------ open / close

    def open(self):
        """Open the file: for reading from its first record, or (``'w'``)
        created empty for writing."""
        if self.flag not in ('r', 'w'):
            raise ValueError(f'Invalid flag {self.flag}')
        if self.is_open:
            self.close()
        self.writable = self.flag == 'w'
        self._file = self._open_file()
        self._pos = 0
        self._lock = threading.Lock()
        self.pid = os.getpid()
        self.is_open = True

    def _open_file(self):
        try:
            if self.writable:
                # Unbuffered: each record is one write, and nothing is left
                # in a buffer that a forked process could flush again.
                return open(self.uri, 'wb', buffering=0)
            return open(self.uri, 'rb')
        except OSError as err:
            raise DLBookError(
                f'cannot open RecordIO file {self.uri} for '
                f'{"writing" if self.writable else "reading"}: '
                f'{err.strerror or err}'
            ) from err

    def close(self):
        """Close the file (a no-op if it is closed)."""
        if not self.is_open:
            return
        self.is_open = False
        self.pid = None
        file, self._file = self._file, None
        file.close()

    def reset(self):
        """Go back to the first record.

        With ``'w'`` this empties the file, as in MXNet.
        """
        self.close()
        self.open()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        # A writer inherited by another process is not ours to close.
        if getattr(self, 'is_open', False) and (
            not self.writable or self.pid == os.getpid()
        ):
            self.close()

    def __getstate__(self):
        if self.is_open and self.writable:
            raise DLBookError(
                f'cannot pickle MXRecordIO({self.uri!r}, "w") while it is '
                f'open: the copy would reopen the file with "w" and empty '
                f'it. Close it first.'
            )
        state = dict(self.__dict__)
        del state['_file'], state['_lock']
        state['pid'] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._file = None
        self._lock = threading.Lock()
        if self.is_open:  # reopen where the original was
            pos = self._pos
            self.is_open = False
            self.open()
            self._pos = pos

    def _check_pid(self, allow_reset=False):
        """Make sure the file is open in this process: a reader reopens it
        (keeping its position); a writer raises."""
        if not self.is_open:
            raise DLBookError(
                f'RecordIO file {self.uri} is closed; call open() first'
            )
        if self.pid == os.getpid():
            return
        if not allow_reset or self.writable:
            raise DLBookError(
                f'RecordIO file {self.uri} was opened for writing in '
                f'process {self.pid}; process {os.getpid()} cannot write '
                f'to it (Forbidden operation in multiple processes)'
            )
        # The inherited file object shares its offset with the parent's:
        # replace it with one of our own (the parent's stays open).
        pos = self._pos
        self._file = self._open_file()
        self._lock = threading.Lock()
        self._pos = pos
        self.pid = os.getpid()

    def _need(self, writable, what):
        if self.writable != writable:
            mode = 'writing ("w")' if self.writable else 'reading ("r")'
            raise DLBookError(
                f'{what} on {self.uri}, which is open for {mode}'
            )
        self._check_pid(allow_reset=not writable)

    # ------------------------------------------------------------ writing

    def write(self, buf):
        """Append ``buf`` (bytes) as one record.

        Parameters
        ----------
        buf : bytes-like
            The record, shorter than 2**29 bytes (512 MiB).
        """
        self._need(True, 'write()')
        with self._lock:
            self._write_locked(buf)

    def _write_locked(self, buf):
        if isinstance(buf, str):
            raise TypeError(
                f'{type(self).__name__}.write() takes bytes, '
                f'not str; encode the text first '
                f'(buf.encode())'
            )
        data = bytes(buf)
        if len(data) > _LENGTH_MASK:
            raise DLBookError(
                f'{self.uri}: a record of {len(data)} bytes is too large; '
                f'RecordIO records must be shorter than 2**29 bytes '
                f'(512 MiB)'
            )
        record = _encode(data)
        view = memoryview(record)
        while view:  # a raw write may be partial
            view = view[self._file.write(view) :]
        self._pos += len(record)

    # ------------------------------------------------------------ reading

    def read(self):
        """The next record as bytes, or None at the end of the file."""
        self._need(False, 'read()')
        with self._lock:
            data, end = self._read_at(self._pos)
            self._pos = end
        return data

    def _fail(self, offset, problem):
        return DLBookError(
            f'{self.uri}: {problem} at offset {offset}. The file is damaged '
            f'(for example cut short by an interrupted copy), is not a '
            f'RecordIO file, or its .idx does not belong to it.'
        )

    def _read_at(self, pos):
        """Read the record starting at ``pos``; return (bytes or None at
        the end of the file, offset after it).  Holds the lock."""
        file = self._file
        if pos > os.fstat(file.fileno()).st_size:
            raise self._fail(
                pos,
                f'offset {pos} is past the end of the file '
                f'({os.fstat(file.fileno()).st_size} bytes)',
            )
        file.seek(pos)
        start, parts = pos, []
        while True:
            head = file.read(_HEAD.size)
            if not head:
                if not parts:
                    return None, pos
                raise self._fail(
                    pos,
                    f'truncated record: the record that '
                    f'starts at offset {start} has no '
                    f'last part (the file ends)',
                )
            if len(head) < _HEAD.size:
                raise self._fail(
                    pos,
                    f'truncated record: only {len(head)} '
                    f'of the 8 header bytes are there',
                )
            magic, lrec = _HEAD.unpack(head)
            if magic != _MAGIC:
                raise self._fail(
                    pos,
                    f'bad magic number 0x{magic:08x} '
                    f'(expected 0x{_MAGIC:08x}, the start '
                    f'of a record)',
                )
            cflag, length = lrec >> _LENGTH_BITS, lrec & _LENGTH_MASK
            expected = (0, 1) if not parts else (2, 3)
            if cflag not in expected:
                raise self._fail(
                    pos,
                    f'bad continuation flag {cflag} '
                    f'(expected {expected[0]} or '
                    f'{expected[1]})',
                )
            size = length + _padding(length)
            if (
                size > _CHECK_SIZE_ABOVE
                and pos + _HEAD.size + size > os.fstat(file.fileno()).st_size
            ):
                raise self._fail(
                    pos,
                    f'truncated record: the header '
                    f'promises {length} bytes but the '
                    f'file ends before them',
                )
            body = file.read(size)
            if len(body) < size:
                raise self._fail(
                    pos,
                    f'truncated record: the header '
                    f'promises {length} bytes (+'
                    f'{size - length} padding) but only '
                    f'{len(body)} follow',
                )
            parts.append(body if size == length else body[:length])
            pos += _HEAD.size + size
            if cflag in (0, 3):
                break
        return _MAGIC_BYTES.join(parts), pos
