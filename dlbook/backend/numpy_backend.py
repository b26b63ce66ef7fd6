"""The NumPy backend: every ``cpu(i)`` (and fake ``gpu(i)``) device."""

import contextlib

import numpy

from .host_memory import tune_malloc

# NumPy allocates with malloc; keep freed blocks for the next training
# step instead of page-faulting them in again (see host_memory).
tune_malloc()


class NumpyBackend:
    """Arrays are ``numpy.ndarray``; each device id is a separate device
    only in bookkeeping (the NDArray's Context), so copies between
    ``cpu(0)`` and ``cpu(1)`` are real copies."""

    xp = numpy
    switches_device = False

    def __init__(self, name='numpy'):
        self.name = name
        self._rngs = {}
        self._seed = None

    def asarray(self, data, device_id=0, dtype=None):
        """A new array on this backend holding ``data`` (always a copy)."""
        if not isinstance(data, numpy.ndarray) and hasattr(data, 'get'):
            data = data.get()  # a CuPy array
        return numpy.array(data, dtype=dtype, copy=True)

    def to_numpy(self, array):
        return numpy.asarray(array)

    def scope(self, device_id):
        """Context manager making ``device_id`` current (nothing on CPU)."""
        return contextlib.nullcontext()

    def synchronize(self, device_id=None):
        """Wait for pending work: NumPy runs synchronously."""

    def rng(self, device_id=0):
        """The ``RandomState`` of one device (seeded by ``mx.random.seed``)."""
        state = self._rngs.get(device_id)
        if state is None:
            seed = None if self._seed is None else self._seed + device_id
            state = self._rngs[device_id] = numpy.random.RandomState(seed)
        return state

    def seed(self, seed):
        self._seed = seed
        self._rngs.clear()

    def device_count(self):
        return 0

    @property
    def sparse(self):
        """``scipy.sparse``, the home of CSR matrices on this backend
        (imported on first use of sparse storage)."""
        import scipy.sparse

        return scipy.sparse
