"""The CuPy backend for ``gpu(i)``; this module is imported lazily.

The same class serves the strict fake CuPy of the tests
(:mod:`dlbook.backend.fake_cupy`), so the code below runs in CI too.
"""

import numpy


class CupyBackend:
    """Arrays are ``cupy.ndarray``; with several GPUs operators run inside
    ``cupy.cuda.Device(i)`` so each ``gpu(i)`` is a real device.

    Parameters
    ----------
    cupy_module : module, optional
        The ``cupy`` module (imported here by default) or the fake one.
    name : str
        Shown by ``ctx.backend.name``.
    """

    @property
    def switches_device(self):
        """Whether operators must enter their device's scope: only with
        several GPUs (with one, device 0 is always the current device,
        and entering and leaving the scope costs every operation a few
        microseconds of host time)."""
        return self.device_count() > 1

    def __init__(self, cupy_module=None, name='cupy'):
        if cupy_module is None:
            import cupy as cupy_module
        self.xp = cupy_module
        self.name = name
        self._rngs = {}
        self._seed = None

    def asarray(self, data, device_id=0, dtype=None):
        cupy = self.xp
        with cupy.cuda.Device(device_id):
            return cupy.array(data, dtype=dtype, copy=True)

    def to_numpy(self, array):
        cupy = self.xp
        return (
            cupy.asnumpy(array)
            if isinstance(array, cupy.ndarray)
            else numpy.asarray(array)
        )

    def scope(self, device_id):
        return self.xp.cuda.Device(device_id)

    def synchronize(self, device_id=None):
        cuda = self.xp.cuda
        if device_id is None:
            for i in range(self.device_count()):
                with cuda.Device(i):
                    cuda.get_current_stream().synchronize()
        else:
            with cuda.Device(device_id):
                cuda.get_current_stream().synchronize()

    def rng(self, device_id=0):
        state = self._rngs.get(device_id)
        if state is None:
            seed = None if self._seed is None else self._seed + device_id
            with self.xp.cuda.Device(device_id):
                state = self._rngs[device_id] = self.xp.random.RandomState(
                    seed
                )
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
        runtime = self.xp.cuda.runtime
        try:
            return runtime.getDeviceCount()
        except runtime.CUDARuntimeError:
            return 0
