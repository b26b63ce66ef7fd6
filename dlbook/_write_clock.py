"""The clock of in-place writes, which lets autograd catch a stale input.

An operator's backward needs the values its inputs had when it ran
(``y = x * w`` needs the old ``x`` and ``w``).  If ``x[:] = ...`` or
``x += 1`` changes an input between the forward pass and ``backward()``,
the gradient would silently be computed at the new values.

PyTorch keeps a version number per tensor and compares every input's
version at backward.  dlbook keeps one clock instead: each in-place write
ticks it and stamps the array (``x._written_at``); the tape stamps each
recorded operator with the clock's time.  At backward an input written
*after* its operator's stamp is stale.  Recording an operator thus costs
one read of ``NOW[0]``, however many inputs it has.
"""

#: the time of the latest in-place write (a one-element list, so that
#: importers share it)
NOW = [0]


def tick():
    """Advance the clock for one in-place write; returns the new time."""
    NOW[0] += 1
    return NOW[0]
