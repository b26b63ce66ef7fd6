"""dlbook against real MXNet 1.9.1, the same Gluon code in both.

MXNet no longer installs beside current Python and NumPy, so it runs in
its own interpreter: a virtual environment made with::

    python3 -m venv mxnet-venv
    mxnet-venv/bin/pip install mxnet==1.9.1 numpy==1.23.5

named by ``--mxnet-python mxnet-venv/bin/python`` (or the environment
variable ``DLBOOK_MXNET_PYTHON``).  ``benchmarks/mxnet_workloads.py``
holds the workloads, written once with ``mx`` being either library, and
runs in a fresh process per library, the two taking turns for
``--rounds`` rounds; each number is the median over rounds of the median
step time within a round.  MXNet (oneDNN, OpenMP) gets
``OMP_NUM_THREADS`` = the cores and runs twice: with its default
threaded engine, and with ``MXNET_ENGINE_TYPE=NaiveEngine`` (operators
run synchronously, no engine threads competing with OpenMP's for the
cores: faster on a small machine).  dlbook picks its threads itself.
The ratio compares dlbook with the faster of the two MXNet runs.
Without an MXNet interpreter the script says so and changes nothing.

Run: ``python benchmarks/bench_mxnet.py --mxnet-python PATH`` (writes
the section ``mxnet`` of benchmarks/RESULTS.md).
"""

import argparse
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

from benchmarks.common import load_average, table, write_section  # noqa

WORKLOADS = os.path.join(HERE, 'mxnet_workloads.py')

#: (key, description, unit); every workload's time is in seconds, the
#: ``add`` loop's for 1,000 operations (so its milliseconds are µs/op)
ROWS = [
    ('add', '`a + b` on 16×16, no gradient, per op', 'µs'),
    ('conv', 'conv 3→32 3×3 pad 1 on 64×3×32×32, forward + backward', 'ms'),
    ('mlp', 'MLP 784-256-256-10, batch 256, training step', 'ms'),
    ('lenet', 'LeNet, batch 128, training step', 'ms'),
    ('lenet_hybrid', 'LeNet, batch 128, hybridized training step', 'ms'),
    ('lenet5', 'LeNet-5 on 3×32×32, batch 512, training step', 'ms'),
    ('lenet5_inference', 'LeNet-5 on 3×32×32, batch 512, inference', 'ms'),
]


def run(python, library, env):
    out = subprocess.run(
        [python, WORKLOADS, library, '1'],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        '--mxnet-python', default=os.environ.get('DLBOOK_MXNET_PYTHON')
    )
    parser.add_argument('--rounds', type=int, default=3)
    args = parser.parse_args()
    if not args.mxnet_python or not os.path.exists(args.mxnet_python):
        print(
            'bench_mxnet: no MXNet interpreter (--mxnet-python or '
            '$DLBOOK_MXNET_PYTHON); nothing measured'
        )
        return
    cores = os.cpu_count() or 1
    mxnet_env = dict(os.environ, OMP_NUM_THREADS=str(cores))
    dlbook_env = dict(os.environ, PYTHONPATH=ROOT)
    version = subprocess.run(
        [args.mxnet_python, '-c', 'import mxnet; print(mxnet.__version__)'],
        capture_output=True,
        text=True,
        env=mxnet_env,
        check=True,
    ).stdout.strip()
    runs = {
        'threaded': (args.mxnet_python, 'mxnet', mxnet_env),
        'naive': (
            args.mxnet_python,
            'mxnet',
            dict(mxnet_env, MXNET_ENGINE_TYPE='NaiveEngine'),
        ),
        'dlbook': (sys.executable, 'dlbook', dlbook_env),
    }
    before = load_average()
    samples = {name: {} for name in runs}
    for _ in range(args.rounds):
        for name, (python, library, env) in runs.items():
            for key, values in run(python, library, env).items():
                samples[name].setdefault(key, []).extend(values)
    after = load_average()
    rows = []
    for key, label, unit in ROWS:
        ms = {
            name: 1e3 * float(np.median(samples[name][key])) for name in runs
        }
        best = min(ms['threaded'], ms['naive'])
        rows.append(
            (
                label,
                f'{ms["threaded"]:.2f} {unit}',
                f'{ms["naive"]:.2f} {unit}',
                f'{ms["dlbook"]:.2f} {unit}',
                f'{ms["dlbook"] / best:.2f}×',
            )
        )
    body = (
        f'The same Gluon code (`benchmarks/mxnet_workloads.py`) run by '
        f'MXNet {version} (its pip wheel: oneDNN, OpenMP on {cores} '
        f'threads) and by dlbook, a fresh process each, taking turns for '
        f'{args.rounds} rounds; median step times (wall clock, '
        f'`wait_to_read` after each step); load average before {before}, '
        f'after {after}.\n\n'
        + table(
            (
                'workload',
                f'MXNet {version}',
                f'MXNet {version}, NaiveEngine',
                'dlbook',
                'dlbook / faster MXNet',
            ),
            rows,
        )
    )
    write_section(
        'mxnet',
        'dlbook and MXNet 1.9.1 side by side (`benchmarks/bench_mxnet.py`)',
        body,
    )


if __name__ == '__main__':
    main()
