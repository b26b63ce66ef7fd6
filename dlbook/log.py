"""``mx.log``: MXNet's logger with its compact, coloured line format::

    >>> logger = mx.log.get_logger('train', level=mx.log.INFO)
    >>> logger.info('epoch 1')
    I1128 20:15:02 4242 script.py:main:12] epoch 1

The first letter is the level (C, E, W, I, D), then month and day, the
time, the process id and where the call came from.
"""

import logging
import warnings

__all__ = [
    'CRITICAL',
    'ERROR',
    'WARNING',
    'INFO',
    'DEBUG',
    'NOTSET',
    'get_logger',
    'getLogger',
]

CRITICAL = logging.CRITICAL
ERROR = logging.ERROR
WARNING = logging.WARNING
INFO = logging.INFO
DEBUG = logging.DEBUG
NOTSET = logging.NOTSET

_LABELS = {CRITICAL: 'C', ERROR: 'E', WARNING: 'W', INFO: 'I', DEBUG: 'D'}


class _Formatter(logging.Formatter):
    """MXNet's line: a coloured level letter, date, time, process and
    caller, then the message."""

    def __init__(self):
        super().__init__(datefmt='%m%d %H:%M:%S')

    @staticmethod
    def _color(level):
        if level >= logging.WARNING:
            return '\x1b[31m'  # red
        if level >= logging.INFO:
            return '\x1b[32m'  # green
        return '\x1b[34m'  # blue

    def format(self, record):
        self._style._fmt = (
            self._color(record.levelno)
            + _LABELS.get(record.levelno, 'U')
            + '%(asctime)s %(process)d %(pathname)s:%(funcName)s:%(lineno)d'
            + ']\x1b[0m %(message)s'
        )
        return super().format(record)


def get_logger(name=None, filename=None, filemode=None, level=WARNING):
    """A logger named ``name`` writing MXNet's line format to the console
    (or plain lines to ``filename``, opened with ``filemode``, default
    'a'), at ``level``.  Set up once per name; the root logger (no name)
    is returned untouched."""
    logger = logging.getLogger(name)
    if name is not None and not getattr(logger, '_init_done', None):
        logger._init_done = True
        if filename:
            handler = logging.FileHandler(filename, filemode or 'a')
        else:
            handler = logging.StreamHandler()
            handler.setFormatter(_Formatter())
        logger.addHandler(handler)
        logger.setLevel(level)
    return logger


def getLogger(name=None, filename=None, filemode=None, level=WARNING):  # noqa: N802
    """Deprecated name of :func:`get_logger`."""
    warnings.warn(
        'getLogger is deprecated, Use get_logger instead.',
        DeprecationWarning,
        stacklevel=2,
    )
    return get_logger(name, filename, filemode, level)
