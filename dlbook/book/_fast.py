"""The fast mode that CI uses: ``DLBOOK_FAST=1``.

CI runs every notebook with ``DLBOOK_FAST=1``: the data loaders then use a
small, fixed subset of Fashion-MNIST and notebooks shrink their epoch
counts with ``scale(full, fast)``.  Students run without it (full mode)
and get the books' numbers.
"""
import os

FAST_ENV = 'DLBOOK_FAST'


def fast_mode():
    """True when the environment variable ``DLBOOK_FAST`` is set to 1.

    Read at every call (never at import), so a test or a notebook cell can
    switch it with ``os.environ``.
    """
    value = os.environ.get(FAST_ENV, '').strip().lower()
    return value in ('1', 'true', 'yes', 'on')


def scale(full, fast):
    """Pick a size: ``fast`` in fast mode, ``full`` otherwise.

    Parameters
    ----------
    full : object
        What students use (for example the books' 10 epochs).
    fast : object
        What CI uses to run the notebook in seconds.

    Examples
    --------
    >>> num_epochs = d2l.scale(10, 2)   # 10 normally, 2 under DLBOOK_FAST=1
    """
    return fast if fast_mode() else full
