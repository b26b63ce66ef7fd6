"""RecordIO: MXNet's file format for data sets of many small binary records.

A ``.rec`` file is a plain sequence of records; an optional ``.idx`` text
file beside it maps keys to byte offsets for random access.  MXNet's
``im2rec`` tool packs image folders this way, and
:class:`~dlbook.gluon.data.vision.ImageRecordDataset` reads the result.
Files written here are byte-for-byte what MXNet (dmlc-core's
``RecordIOWriter``) writes, and MXNet's files read here.

Layout of one record
--------------------
Every number is a little-endian ``uint32``::

    +----------+-----------+----------------------+--------------+
    |  magic   |  lrecord  |  payload (length B)  |  0-3 zeros   |
    +----------+-----------+----------------------+--------------+
     0xced7230a (cflag << 29) | length              pad to 4 bytes

- ``magic`` marks the start of a record, so a reader that lands in the
  middle of a file can find the next record by scanning for it.
- ``lrecord`` packs a 3-bit continuation flag ``cflag`` (bits 29-31) and
  the payload ``length`` (bits 0-28): a record is shorter than 2**29
  bytes (512 MiB).
- The payload is followed by zero bytes up to the next multiple of 4, so
  every record starts 4-byte aligned.

The magic word inside a payload would confuse such a scan, so the writer
cuts the payload at every 4-byte aligned occurrence of the magic word and
drops those 4 bytes; the pieces are stored as consecutive parts with
``cflag`` 1 (first), 2 (middle) and 3 (last), and the reader joins them
with the magic word put back.  A record without the magic word is one part
with ``cflag`` 0, by far the usual case.  For example ``b'abcde'`` is
stored as the 16 bytes ``0a 23 d7 ce 05 00 00 00 61 62 63 64 65 00 00 00``.

The index file
--------------
``MXIndexedRecordIO`` also writes one ``key<TAB>offset`` line per record
(``"3\\t48\\n"``): the byte offset at which the record's first part
starts.  ``RecordFileDataset('data.rec')`` expects ``data.idx``.

Image records
-------------
``pack(header, payload)`` puts an :data:`IRHeader` in front of the
payload: ``struct`` format ``'IfQQ'`` (``flag`` uint32, ``label``
float32, ``id`` and ``id2`` uint64; 24 bytes).  A list or array label is
stored as ``flag`` float32 values right after the header (and the
header's own ``label`` field is 0).  ``pack_img`` / ``unpack_img`` encode
and decode the image as JPEG or PNG with Pillow, imported only when they
are called (dlbook does not depend on it).

Differences from MXNet
----------------------
- ``pack_img`` and ``unpack_img`` use OpenCV's **BGR** channel order,
  as in MXNet (which encodes with OpenCV), so ``cv2.imread`` arrays go in
  unchanged; ``ImageRecordDataset`` returns **RGB**, as MXNet's does.  The
  codec is Pillow rather than OpenCV.
- Errors are :class:`~dlbook.base.DLBookError` (MXNet's ``MXNetError``)
  naming the file, the offset and the problem; a key missing from the
  index raises an error that is also a ``KeyError``, as in MXNet.
- ``MXIndexedRecordIO`` in ``'w'`` mode writes the ``.idx`` file when it is
  closed, atomically (a temporary file renamed over it), so a crash never
  leaves an index that does not match the records.
- The objects work as context managers, and a reader can be used from
  threads (each read is atomic) and after a fork (the file is reopened
  in the new process).

Reading parses bytes and text only; nothing in a file is unpickled or
executed.
"""

__all__ = ['MXRecordIO', 'MXIndexedRecordIO', 'IRHeader', 'pack', 'unpack',
           'pack_img', 'unpack_img']

import atexit
import contextlib
import io
import numbers
import os
import struct
import threading
import weakref
from collections import namedtuple

import numpy

from ._atomic import atomic_write
from .base import DLBookError

_MAGIC = 0xced7230a
_MAGIC_BYTES = struct.pack('<I', _MAGIC)
_HEAD = struct.Struct('<II')           # magic, lrecord
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
        out.append(_HEAD.pack(_MAGIC, (1 if start == 0 else 2) <<
                              _LENGTH_BITS | (cut - start)))
        out.append(data[start:cut])      # a multiple of 4: no padding
        start = cut + 4
    out.append(_HEAD.pack(_MAGIC, (3 if start else 0) << _LENGTH_BITS |
                          (len(data) - start)))
    out.append(data[start:])
    out.append(bytes(_padding(len(data))))
    return b''.join(out)


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
                f'{err.strerror or err}') from err

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
        if getattr(self, 'is_open', False) and \
                (not self.writable or self.pid == os.getpid()):
            self.close()

    def __getstate__(self):
        if self.is_open and self.writable:
            raise DLBookError(
                f'cannot pickle MXRecordIO({self.uri!r}, "w") while it is '
                f'open: the copy would reopen the file with "w" and empty '
                f'it. Close it first.')
        state = dict(self.__dict__)
        del state['_file'], state['_lock']
        state['pid'] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._file = None
        self._lock = threading.Lock()
        if self.is_open:                 # reopen where the original was
            pos = self._pos
            self.is_open = False
            self.open()
            self._pos = pos

    def _check_pid(self, allow_reset=False):
        """Make sure the file is open in this process: a reader reopens it
        (keeping its position); a writer raises."""
        if not self.is_open:
            raise DLBookError(f'RecordIO file {self.uri} is closed; call '
                              f'open() first')
        if self.pid == os.getpid():
            return
        if not allow_reset or self.writable:
            raise DLBookError(
                f'RecordIO file {self.uri} was opened for writing in '
                f'process {self.pid}; process {os.getpid()} cannot write '
                f'to it (Forbidden operation in multiple processes)')
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
            raise DLBookError(f'{what} on {self.uri}, which is open for '
                              f'{mode}')
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
            raise TypeError(f'{type(self).__name__}.write() takes bytes, '
                            f'not str; encode the text first '
                            f'(buf.encode())')
        data = bytes(buf)
        if len(data) > _LENGTH_MASK:
            raise DLBookError(
                f'{self.uri}: a record of {len(data)} bytes is too large; '
                f'RecordIO records must be shorter than 2**29 bytes '
                f'(512 MiB)')
        record = _encode(data)
        view = memoryview(record)
        while view:                      # a raw write may be partial
            view = view[self._file.write(view):]
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
            f'RecordIO file, or its .idx does not belong to it.')

    def _read_at(self, pos):
        """Read the record starting at ``pos``; return (bytes or None at
        the end of the file, offset after it).  Holds the lock."""
        file = self._file
        file.seek(pos)
        start, parts = pos, []
        while True:
            head = file.read(_HEAD.size)
            if not head:
                if not parts:
                    return None, pos
                raise self._fail(pos, f'truncated record: the record that '
                                      f'starts at offset {start} has no '
                                      f'last part (the file ends)')
            if len(head) < _HEAD.size:
                raise self._fail(pos, f'truncated record: only {len(head)} '
                                      f'of the 8 header bytes are there')
            magic, lrec = _HEAD.unpack(head)
            if magic != _MAGIC:
                raise self._fail(pos, f'bad magic number 0x{magic:08x} '
                                      f'(expected 0x{_MAGIC:08x}, the start '
                                      f'of a record)')
            cflag, length = lrec >> _LENGTH_BITS, lrec & _LENGTH_MASK
            expected = (0, 1) if not parts else (2, 3)
            if cflag not in expected:
                raise self._fail(pos, f'bad continuation flag {cflag} '
                                      f'(expected {expected[0]} or '
                                      f'{expected[1]})')
            size = length + _padding(length)
            if size > _CHECK_SIZE_ABOVE and \
                    pos + _HEAD.size + size > os.fstat(file.fileno()).st_size:
                raise self._fail(pos, f'truncated record: the header '
                                      f'promises {length} bytes but the '
                                      f'file ends before them')
            body = file.read(size)
            if len(body) < size:
                raise self._fail(pos, f'truncated record: the header '
                                      f'promises {length} bytes (+'
                                      f'{size - length} padding) but only '
                                      f'{len(body)} follow')
            parts.append(body if size == length else body[:length])
            pos += _HEAD.size + size
            if cflag in (0, 3):
                break
        return _MAGIC_BYTES.join(parts), pos


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
                raise DLBookError(f'cannot write the index {self.idx_path}: '
                                  f'folder {folder} does not exist')
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
                f'(by MXIndexedRecordIO(..., "w") or im2rec)') from None
        except OSError as err:
            raise DLBookError(f'cannot read index file {self.idx_path}: '
                              f'{err.strerror or err}') from err
        with fidx:
            for number, line in enumerate(fidx, 1):
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
                        f'({err})') from None
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
            raise _MissingKey(f'key {idx!r} is not in the index '
                              f'{self.idx_path} of {self.uri} '
                              f'({len(self.idx)} keys)') from None
        except TypeError:                # unhashable key
            raise _MissingKey(f'{idx!r} cannot be a key of the index '
                              f'{self.idx_path}') from None

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
            raise self._fail(pos, f'no record for key {idx!r} in index '
                                  f'{self.idx_path}: the offset is the end '
                                  f'of the file')
        return data

    def write_idx(self, idx, buf):
        """Append ``buf`` as the record of key ``idx``."""
        self._need(True, 'write_idx()')
        key = self.key_type(idx)
        text = str(key)
        if '\t' in text or '\n' in text or '\r' in text or \
                text != text.strip():
            raise DLBookError(f'key {text!r} cannot be stored in an .idx '
                              f'file: keys must not contain tabs or line '
                              f'breaks, nor start or end with spaces')
        with self._lock:
            pos = self._pos
            self._write_locked(buf)
            self._lines.append(f'{text}\t{pos}\n')
        self.idx[key] = pos
        self.keys.append(key)


IRHeader = namedtuple('HEADER', ['flag', 'label', 'id', 'id2'])
IRHeader.__doc__ = """The header ``pack`` puts in front of a record.

Parameters
----------
flag : int
    Number of float32 labels stored after the header (``pack`` sets it:
    0 for a single number ``label``).
label : float or array of float
    The label(s).  ``unpack`` gives a float, or a float32 NumPy array
    when ``flag > 0``.
id : int
    Usually a unique id of the record (im2rec: the line number of its
    ``.lst`` file).
id2 : int
    Higher bits of the id; usually 0.
"""
_IR_FORMAT = '<IfQQ'
_IR_SIZE = struct.calcsize(_IR_FORMAT)


def pack(header, s):
    """Put an :data:`IRHeader` in front of the bytes ``s``.

    Parameters
    ----------
    header : IRHeader or tuple
        ``(flag, label, id, id2)``.  ``label`` is a number, or a list or
        array of numbers stored as float32 after the header (``flag`` is
        then set to their count).
    s : bytes
        The payload, for example the bytes of a JPEG file.

    Returns
    -------
    bytes
        24 header bytes, the labels (if a list), then ``s``.

    Examples
    --------
    >>> s = mx.recordio.pack(mx.recordio.IRHeader(0, 4, 2574, 0), b'xyz')
    >>> len(s)
    27
    >>> mx.recordio.unpack(s)
    (HEADER(flag=0, label=4.0, id=2574, id2=0), b'xyz')
    """
    header = IRHeader(*header)
    if isinstance(header.label, numbers.Number):
        header = header._replace(flag=0)
    else:
        label = numpy.asarray(header.label, dtype='<f4')
        header = header._replace(flag=label.size, label=0)
        s = label.tobytes() + bytes(s)
    try:
        return struct.pack(_IR_FORMAT, *header) + bytes(s)
    except struct.error as err:
        raise DLBookError(f'cannot pack {header}: flag must be a uint32, '
                          f'label a float, id and id2 uint64 ({err})') \
            from None


def unpack(s):
    """Split a record made by :func:`pack` into its header and payload.

    Parameters
    ----------
    s : bytes
        A record, as ``MXRecordIO.read`` returns it.

    Returns
    -------
    header : IRHeader
        ``header.label`` is a float, or a float32 array of ``header.flag``
        labels.
    s : bytes
        The payload.
    """
    if len(s) < _IR_SIZE:
        raise DLBookError(f'a record of {len(s)} bytes is too short for the '
                          f'{_IR_SIZE}-byte IRHeader that pack() writes')
    header = IRHeader(*struct.unpack(_IR_FORMAT, s[:_IR_SIZE]))
    s = s[_IR_SIZE:]
    if header.flag > 0:
        if len(s) < 4 * header.flag:
            raise DLBookError(f'the IRHeader announces {header.flag} float32 '
                              f'labels ({4 * header.flag} bytes) but only '
                              f'{len(s)} bytes follow it')
        header = header._replace(
            label=numpy.frombuffer(s, '<f4', header.flag).astype(
                numpy.float32))
        s = s[header.flag * 4:]
    return header, s


def _pillow(what):
    from .gluon.data.vision._imread import pillow
    return pillow(what, hint='')


def _as_image_array(img):
    if hasattr(img, 'asnumpy'):
        img = img.asnumpy()
    img = numpy.asarray(img)
    if img.dtype != numpy.uint8:
        raise DLBookError(f'pack_img needs a uint8 image, got {img.dtype}')
    if img.ndim == 3 and img.shape[2] == 1:
        img = img[:, :, 0]
    if img.ndim != 2 and not (img.ndim == 3 and img.shape[2] in (3, 4)):
        raise DLBookError(f'pack_img needs an image of shape (H, W), '
                          f'(H, W, 1), (H, W, 3) or (H, W, 4), got '
                          f'{img.shape}')
    return numpy.ascontiguousarray(img)


def pack_img(header, img, quality=95, img_fmt='.jpg'):
    """Encode an image and :func:`pack` it with ``header``.

    Parameters
    ----------
    header : IRHeader
    img : numpy.ndarray or NDArray
        ``uint8``, ``(H, W)`` or ``(H, W, 1)`` greyscale, ``(H, W, 3)``
        **BGR** or ``(H, W, 4)`` BGRA (PNG only): OpenCV's order, as
        ``cv2.imread`` returns it and MXNet's ``pack_img`` expects.  An
        RGB array (``mx.image.imread``, Pillow) needs ``img[:, :, ::-1]``.
    quality : int, default 95
        JPEG quality (1-100), or PNG compression level (0-9; larger
        values mean 9), as in MXNet.
    img_fmt : str, default '.jpg'
        ``'.jpg'``/``'.jpeg'`` or ``'.png'`` (lossless); other extensions
        Pillow can write also work.

    Returns
    -------
    bytes

    Notes
    -----
    Needs Pillow.  JPEG is lossy: the image read back differs slightly.
    """
    Image = _pillow('pack_img')
    array = _swap_red_blue(_as_image_array(img))     # BGR -> RGB for Pillow
    fmt = img_fmt.lower()
    fmt = fmt if fmt.startswith('.') else '.' + fmt
    if fmt in ('.jpg', '.jpeg'):
        options = {'format': 'JPEG', 'quality': int(quality)}
    elif fmt == '.png':
        options = {'format': 'PNG',
                   'compress_level': min(max(int(quality), 0), 9)}
    else:
        name = Image.registered_extensions().get(fmt)
        if name is None:
            raise DLBookError(f'pack_img: unknown image format {img_fmt!r}; '
                              f'use ".jpg" or ".png"')
        options = {'format': name}
    out = io.BytesIO()
    try:
        Image.fromarray(array).save(out, **options)
    except (OSError, ValueError, KeyError) as err:
        raise DLBookError(f'pack_img: cannot encode an image of shape '
                          f'{array.shape} as {options["format"]}: '
                          f'{err}') from err
    return pack(header, out.getvalue())


# How iscolor=-1 ("as stored") maps Pillow modes to arrays.
_KEEP_MODES = ('L', 'RGB', 'RGBA', 'I', 'F', 'I;16', 'I;16L', 'I;16B')


def unpack_img(s, iscolor=-1):
    """Split a record made by :func:`pack_img` into its header and the
    decoded image.

    Parameters
    ----------
    s : bytes
        A record, as ``MXRecordIO.read`` returns it.
    iscolor : int, default -1
        As OpenCV's ``imdecode`` flag: ``1`` colour ``(H, W, 3)``; ``0``
        greyscale ``(H, W)``; ``-1`` as stored (``(H, W)`` for a
        greyscale image, ``(H, W, 4)`` with transparency).

    Returns
    -------
    header : IRHeader
    img : numpy.ndarray
        ``uint8`` (16-bit PNGs stay 16-bit with ``-1``), colour channels
        in OpenCV's **BGR** order, as MXNet returns them.

    Notes
    -----
    Needs Pillow.  Undecodable bytes raise :class:`DLBookError` (MXNet
    returns None for the image).
    """
    Image = _pillow('unpack_img')
    header, payload = unpack(s)
    try:
        with Image.open(io.BytesIO(payload)) as pil:
            pil.load()
            if iscolor > 0:
                pil = pil.convert('RGB')
            elif iscolor == 0:
                pil = pil.convert('L')
            elif pil.mode not in _KEEP_MODES:
                alpha = pil.mode in ('LA', 'La', 'PA', 'RGBa') or \
                    'transparency' in pil.info
                pil = pil.convert('RGBA' if alpha else
                                  'L' if pil.mode == '1' else 'RGB')
            img = numpy.array(pil)
    except OSError as err:
        raise DLBookError(f'unpack_img: cannot decode the image of the '
                          f'record with header {header}: {err}') from err
    return header, _swap_red_blue(img)


def _swap_red_blue(img):
    """RGB(A) <-> BGR(A): reverse the first three channels of a colour
    image (Pillow speaks RGB, OpenCV and MXNet's recordio BGR)."""
    if img.ndim != 3 or img.shape[2] < 3:
        return img
    order = [2, 1, 0] + list(range(3, img.shape[2]))
    return numpy.ascontiguousarray(img[:, :, order])
