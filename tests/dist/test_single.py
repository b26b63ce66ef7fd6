"""dist_* stores without a launcher, the launcher's command lines, and
2-bit compression on one process (no MPI needed)."""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import dlbook as mx
from dlbook.base import DLBookError
from dlbook.kvstore import _mpi
from dlbook.kvstore.compression import GradientCompression


@pytest.fixture
def alone(monkeypatch):
    for var in ('PMI_SIZE', 'PMI_RANK', 'OMPI_COMM_WORLD_SIZE', 'PMIX_RANK',
                'SLURM_PROCID', 'SLURM_STEP_NUM_TASKS'):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(_mpi, '_warned_single', False)


def test_outside_a_launcher_one_worker_and_one_warning(alone):
    with pytest.warns(UserWarning, match='not started by a launcher'):
        kv = mx.kv.create('dist_sync')
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        kv2 = mx.kv.create('dist_async')        # warned once only
    assert (kv.rank, kv.num_workers, kv.type) == (0, 1, 'dist_sync')
    assert kv2.type == 'dist_async'
    kv.init(3, mx.nd.ones(2) * 5)
    kv.push(3, [mx.nd.ones(2, ctx=mx.cpu(0)), mx.nd.ones(2, ctx=mx.cpu(1))])
    out = mx.nd.zeros(2)
    kv.pull(3, out=out)
    assert out.asnumpy().tolist() == [2, 2]
    kv.barrier()


def test_outside_a_launcher_the_2bit_sequence(alone):
    # MXNet 1.9.1, optimizer 'test' (w += rescale_grad * g), rescale 2,
    # threshold 0.5: one worker sends 0.5 per crossing, so 1 per send.
    class Add(mx.optimizer.Optimizer):
        def create_state(self, index, weight):
            return None

        def update(self, index, weight, grad, state):
            weight[:] = weight + self.rescale_grad * grad

    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        kv = mx.kv.create('dist_sync')
    kv.set_gradient_compression({'type': '2bit', 'threshold': 0.5})
    kv.set_optimizer(Add(rescale_grad=2))
    kv.init(0, mx.nd.zeros(3))
    out, seq = mx.nd.zeros(3), []
    for g in (0.4, 0.1, 0.2, 0.3, 0.3, 0.3):
        kv.push(0, mx.nd.ones(3) * g)
        kv.pull(0, out=out)
        seq.append(float(out.asnumpy()[0]))
    assert seq == [0, 1, 1, 2, 2, 3]


def test_device_store_2bit_matches_mxnet():
    # MXNet 1.9.1, kv 'device', two cpu devices, threshold 0.5, three
    # pushes of [0.3, 0.7, -0.9, 1.6] from each device, no optimizer:
    # [0, 1, -1, 1], [1, 1, -1, 1], [0, 1, -1, 1]
    kv = mx.kv.create('device')
    kv.set_gradient_compression({'type': '2bit', 'threshold': 0.5})
    kv.init(0, mx.nd.zeros(4))
    out = mx.nd.zeros(4)
    got = []
    for _ in range(3):
        g = [0.3, 0.7, -0.9, 1.6]
        kv.push(0, [mx.nd.array(g, ctx=mx.cpu(0)),
                    mx.nd.array(g, ctx=mx.cpu(1))])
        kv.pull(0, out=out)
        got.append(out.asnumpy().tolist())
    assert got == [[0, 1, -1, 1], [1, 1, -1, 1], [0, 1, -1, 1]]


@pytest.mark.parametrize('params,message', [
    ({'type': '1bit'}, 'Unknown type for gradient compression 1bit'),
    ({'threshold': 1}, 'Required parameter type'),
    ({'type': '2bit', 'threshold': -1}, 'threshold must be greater than 0'),
])
def test_compression_errors_are_mxnets(params, message):
    kv = mx.kv.create('device')
    with pytest.raises(DLBookError, match=message):
        kv.set_gradient_compression(params)


def test_local_store_refuses_compression():
    with pytest.raises(DLBookError, match='not supported for this type'):
        mx.kv.create('local').set_gradient_compression({'type': '2bit'})


def test_pack_unpack_round_trip():
    rng = np.random.default_rng(0)
    gc = GradientCompression(0.25)
    g = rng.normal(size=37).astype(np.float32)
    sent = gc.quantize('k', g)
    words = gc.pack(sent)
    assert words.dtype == np.uint32 and words.size == 3     # ceil(37/16)
    np.testing.assert_array_equal(gc.unpack(words, g.shape, g.dtype), sent)
    np.testing.assert_allclose(gc._residual['k'] + sent, g, rtol=1e-6)
    # MXNet's layout: first element in the two highest bits, 11 = +t
    first = GradientCompression.pack(np.array([0.25, -0.25, 0, 0.25],
                                              np.float32))
    assert first.view(np.uint8)[0] == 0b11100011


def _args(*argv):
    from dlbook.launch import _parser
    return _parser().parse_args(list(argv))


def test_launcher_command_lines(monkeypatch):
    from dlbook.launch import build_command
    monkeypatch.delenv('SLURM_JOB_ID', raising=False)
    cmd, env = build_command(_args('-n', '4', 'python', 'train.py'),
                             mpiexec='mpiexec', flavor='mpich')
    assert cmd == ['mpiexec', '-n', '4', 'python', 'train.py']
    assert env['DMLC_NUM_WORKER'] == '4' and env['DMLC_NUM_SERVER'] == '0'
    cmd, env = build_command(
        _args('-n', '2', '-H', 'hosts', 'python', 'train.py', '--kv-store',
              'dist_async'), mpiexec='mpiexec', flavor='openmpi')
    assert cmd[:3] == ['mpiexec', '-n', '3'] and '--hostfile' in cmd
    assert env['DMLC_NUM_SERVER'] == '1'
    monkeypatch.setenv('SLURM_JOB_ID', '42')
    monkeypatch.delenv('SLURM_STEP_ID', raising=False)
    cmd, _ = build_command(_args('-n', '8', '--srun-mpi', 'pmix', 'python',
                                 'train.py'))
    assert cmd == ['srun', '--ntasks=8', '--mpi=pmix', 'python', 'train.py']


def test_import_dlbook_does_not_import_mpi4py():
    code = ('import sys, dlbook; dlbook.kv.create("local"); '
            'print("mpi4py" in sys.modules)')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == 'False'


def test_timeout_setting_is_checked(monkeypatch):
    from dlbook.kvstore._collective import timeout_from_env
    monkeypatch.setenv('DLBOOK_DIST_TIMEOUT', '2.5')
    assert timeout_from_env() == 2.5
    monkeypatch.setenv('DLBOOK_DIST_TIMEOUT', '0')
    assert timeout_from_env() is None
    monkeypatch.delenv('DLBOOK_DIST_TIMEOUT')
    assert timeout_from_env() == 300
    monkeypatch.setenv('DLBOOK_DIST_TIMEOUT', 'soon')
    with pytest.raises(DLBookError, match='DLBOOK_DIST_TIMEOUT must be'):
        timeout_from_env()


# -- dist_device_sync: choosing NCCL or host-staged MPI (no MPI needed) ----

@pytest.fixture
def fake_gpus(monkeypatch):
    from dlbook.backend import reset_gpu_backend
    monkeypatch.setenv('DLBOOK_FAKE_GPUS', '2')
    monkeypatch.delenv('DLBOOK_FAKE_CUPY', raising=False)
    monkeypatch.delenv('DLBOOK_FAKE_NCCL', raising=False)
    reset_gpu_backend()
    yield
    monkeypatch.undo()
    reset_gpu_backend()


def test_decide_nccl_only_when_every_worker_can():
    from dlbook.kvstore import _nccl
    OK, CPU, NO = _nccl.OK, _nccl.CPU, _nccl.NO_NCCL
    assert _nccl.decide([OK, OK], [11, 22], 'auto', 'w') == (True, '')
    use, why = _nccl.decide([OK, CPU, CPU], [11, 0, 0], 'auto', 'w')
    assert not use and why == 'workers 1, 2: its value is not on a CuPy GPU'
    use, why = _nccl.decide([OK, OK, OK], [11, 22, 11], 'auto', 'w')
    assert not use and 'workers 0, 2 share one GPU' in why
    use, why = _nccl.decide([_nccl.DTYPE] * 2, [0, 0], 'auto', 'w', 'bool')
    assert why == 'workers 0, 1: NCCL cannot sum bool'
    with pytest.raises(DLBookError, match=r"=nccl: key 'w' cannot go "
                       r"through NCCL: worker 1: CuPy reports no NCCL"):
        _nccl.decide([OK, NO], [11, 0], 'nccl', 'w')


def test_local_code_on_fake_gpus(fake_gpus, monkeypatch):
    from dlbook.kvstore import _nccl
    gpu = mx.nd.zeros(3, ctx=mx.gpu(1))
    code, place = _nccl.local_code(gpu, 'auto', None)
    assert code == _nccl.OK and place.endswith(' 0000:02:00.0')
    assert _nccl.local_code(gpu, 'host', None) == (_nccl.FORCED_HOST, '')
    assert _nccl.local_code(mx.nd.zeros(3), 'auto', None)[0] == _nccl.CPU
    assert _nccl.local_code(mx.nd.zeros(3, ctx=mx.gpu(0), dtype='bool'),
                            'auto', None)[0] == _nccl.DTYPE

    class Channel:
        device_id = 0
    assert _nccl.local_code(gpu, 'auto', Channel)[0] == _nccl.OTHER_DEVICE
    nccl = mx.gpu(0).xp.cuda.nccl
    for dtype, code in (('float32', nccl.NCCL_FLOAT32), ('int64', 4),
                        ('float16', 6), ('uint8', 1), ('complex64', None)):
        assert _nccl.nccl_dtype(nccl, dtype) == code


def test_local_code_without_nccl(monkeypatch):
    from dlbook.backend import reset_gpu_backend
    from dlbook.kvstore import _nccl
    monkeypatch.setenv('DLBOOK_FAKE_GPUS', '1')
    monkeypatch.setenv('DLBOOK_FAKE_NCCL', '0')
    reset_gpu_backend()
    try:
        gpu = mx.nd.zeros(3, ctx=mx.gpu(0))
        assert _nccl.local_code(gpu, 'auto', None)[0] == _nccl.NO_NCCL
        # fake GPUs served by plain NumPy arrays are not CuPy devices
        monkeypatch.setenv('DLBOOK_FAKE_CUPY', '0')
        reset_gpu_backend()
        gpu = mx.nd.zeros(3, ctx=mx.gpu(0))
        assert _nccl.local_code(gpu, 'auto', None)[0] == _nccl.CPU
    finally:
        monkeypatch.undo()
        reset_gpu_backend()


def test_device_comm_switch(monkeypatch):
    from dlbook.kvstore import _nccl
    monkeypatch.delenv('DLBOOK_DIST_DEVICE_COMM', raising=False)
    assert _nccl.mode_from_env() == 'auto'
    monkeypatch.setenv('DLBOOK_DIST_DEVICE_COMM', ' NCCL ')
    assert _nccl.mode_from_env() == 'nccl'
    monkeypatch.setenv('DLBOOK_DIST_DEVICE_COMM', 'gloo')
    with pytest.raises(DLBookError, match='must be auto, nccl or host'):
        _nccl.mode_from_env()


def test_launcher_names_processes_from_their_pid_files(tmp_path):
    from dlbook.launch import _alive, _pid_ranks
    (tmp_path / 'rank-0.pid').write_text('vm 101 worker')
    (tmp_path / 'rank-2.pid').write_text('vm 103 server')
    (tmp_path / 'rank-1.pid').write_text('vm 102')        # older format
    assert _pid_ranks(str(tmp_path)) == {
        '101': 'worker rank 0', '102': 'worker rank 1',
        '103': 'server rank 2'}
    import os
    assert _alive(str(os.getpid()))
    done = subprocess.run([sys.executable, '-c', 'import os; '
                           'print(os.getpid())'], capture_output=True,
                          text=True)
    assert not _alive(done.stdout.strip())
