"""The CuPy backend for ``gpu(i)``; this module is imported lazily."""

import cupy
import numpy


class CupyBackend:
    """Arrays are ``cupy.ndarray``; operators run inside
    ``cupy.cuda.Device(i)`` so each ``gpu(i)`` is a real device."""

    xp = cupy
    switches_device = True
    name = 'cupy'

    def __init__(self):
        self._rngs = {}
        self._seed = None

    def asarray(self, data, device_id=0, dtype=None):
        with cupy.cuda.Device(device_id):
            return cupy.array(data, dtype=dtype, copy=True)

    def to_numpy(self, array):
        return cupy.asnumpy(array) if isinstance(array, cupy.ndarray) \
            else numpy.asarray(array)

    def scope(self, device_id):
        return cupy.cuda.Device(device_id)

    def synchronize(self, device_id=None):
        if device_id is None:
            for i in range(self.device_count()):
                with cupy.cuda.Device(i):
                    cupy.cuda.get_current_stream().synchronize()
        else:
            with cupy.cuda.Device(device_id):
                cupy.cuda.get_current_stream().synchronize()

    def rng(self, device_id=0):
        state = self._rngs.get(device_id)
        if state is None:
            seed = None if self._seed is None else self._seed + device_id
            with cupy.cuda.Device(device_id):
                state = self._rngs[device_id] = cupy.random.RandomState(seed)
        return state

    def seed(self, seed):
        self._seed = seed
        self._rngs.clear()

    @property
    def sparse(self):
        """``cupyx.scipy.sparse``: CSR matrices in GPU memory (imported on
        first use of sparse storage)."""
        import cupyx.scipy.sparse
        return cupyx.scipy.sparse

    def device_count(self):
        try:
            return cupy.cuda.runtime.getDeviceCount()
        except cupy.cuda.runtime.CUDARuntimeError:
            return 0
