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

Modules: ``records`` (``MXRecordIO``), ``indexed``
(``MXIndexedRecordIO``), ``labelled`` (``IRHeader``, ``pack``,
``unpack``, ``pack_img``, ``unpack_img``).
"""

__all__ = [
    'MXRecordIO',
    'MXIndexedRecordIO',
    'IRHeader',
    'pack',
    'unpack',
    'pack_img',
    'unpack_img',
]

from .indexed import MXIndexedRecordIO
from .labelled import IRHeader, pack, pack_img, unpack, unpack_img
from .records import MXRecordIO
