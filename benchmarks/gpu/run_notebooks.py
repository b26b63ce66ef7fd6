"""Run chapter notebooks as plain Python on a GPU machine (no Jupyter).

A GPU machine may have no Jupyter kernel to run nbval with, so this runs
each notebook's code cells in order in one namespace, as a kernel would:
IPython magics (``%matplotlib inline``) are skipped, matplotlib draws
off-screen, and a cell tagged ``raises-exception`` must raise.  It prints
each cell's output and time and ends with one line per notebook; the exit
status is 1 when a cell failed.

Usage, from the repository root::

    DLBOOK_FAST=1 python benchmarks/gpu/run_notebooks.py \\
        notebooks/ch07_gpus_and_contexts.ipynb notebooks/ch13_multi_device.ipynb
"""

import contextlib
import io
import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.getcwd())
os.environ.setdefault('MPLBACKEND', 'Agg')


def code_cells(path):
    with open(path, encoding='utf-8') as f:
        notebook = json.load(f)
    for cell in notebook['cells']:
        if cell['cell_type'] != 'code':
            continue
        source = ''.join(cell['source'])
        lines = [
            line
            for line in source.splitlines()
            if not line.lstrip().startswith(('%', '!'))
        ]
        tags = cell.get('metadata', {}).get('tags', [])
        yield '\n'.join(lines), 'raises-exception' in tags


def run(path):
    """Run one notebook; returns the number of failed cells."""
    namespace = {'__name__': '__main__'}
    failed = 0
    start = time.perf_counter()
    for number, (source, must_raise) in enumerate(code_cells(path), 1):
        out = io.StringIO()
        t0 = time.perf_counter()
        raised = None
        with contextlib.redirect_stdout(out):
            try:
                code = compile(source, f'{path}:cell{number}', 'exec')
                exec(code, namespace)
            except Exception:
                raised = traceback.format_exc(limit=3)
        ok = (raised is not None) == must_raise
        failed += not ok
        status = 'ok' if ok else 'FAILED'
        print(f'--- cell {number} {status} ({time.perf_counter() - t0:.1f} s)')
        print(out.getvalue().rstrip()[-1500:])
        if raised and not ok:
            print(raised)
    total = time.perf_counter() - start
    print(f'=== {path}: {failed} failed cells, {total:.1f} s', flush=True)
    return failed


def main(paths):
    failed = sum(run(path) for path in paths)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
