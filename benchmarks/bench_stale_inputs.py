"""Cost of autograd's check for stale inputs on the eager per-op benchmark.

Every in-place write (``x[:] = ...``, ``x += 1``) ticks the write clock
(``dlbook/_write_clock.py``) and stamps the array; each recorded operator
keeps the clock's time, and ``backward`` compares.  This times
``bench_core``'s loops (``a + b`` on 16x16 float32, plain, recorded,
recorded + ``backward()``) with the check as shipped and without it
(``invoke`` minus the stamp and minus marking the inputs a recorded op
used, which lets a write inside ``record()`` raise at once, so the tape
holds no stamp and backward skips the check), in interleaved rounds so
that a busy machine slows both alike.

Run: ``python benchmarks/bench_stale_inputs.py`` (writes
benchmarks/RESULTS.md).
"""

import importlib
import inspect
import os
import re
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import fmt_us, table, write_section  # noqa: E402
from dlbook import autograd, nd  # noqa: E402

# the modules (``dlbook.ndarray.invoke`` is also the name of a function);
# ``a + b`` reaches ``invoke`` through the name bound in ``methods``
_invoke_module = importlib.import_module('dlbook.ndarray.invoke')
_caller_module = importlib.import_module('dlbook.ndarray.methods')

N_OPS = 2_000  # short loops, many rounds: the minimum filters out
ROUNDS = 25  # the bursts of a shared machine

#: The stamp of the write clock on a new tape node, and the marks on the
#: inputs a recorded op used (``invoke``'s source).
_STAMP = '_write_clock.NOW[0])'
_MARKS = re.compile(r'\n\s*_note_readers\(node, inputs\)\n')


def _invoke_without_check():
    """``invoke`` without the check: its source with the clock stamp
    removed (nodes get ``recorded_at=None``, so ``backward`` skips the
    check too) and without the marks on the inputs."""
    source = inspect.getsource(_invoke_module.invoke)
    if _STAMP not in source or not _MARKS.search(source):
        raise RuntimeError('invoke() changed: update this benchmark')
    source = _MARKS.sub('\n', source.replace(_STAMP, 'None)'))
    namespace = dict(vars(_invoke_module))
    exec(source, namespace)  # noqa: S102
    return namespace['invoke']


def _loops():
    rng = np.random.RandomState(0)
    a = nd.array(rng.rand(16, 16).astype(np.float32))
    b = nd.array(rng.rand(16, 16).astype(np.float32))
    a_var, b_var = a.copy(), b.copy()
    a_var.attach_grad()
    b_var.attach_grad()

    def eager():
        for _ in range(N_OPS):
            a + b

    def recorded_forward():
        with autograd.record():
            for _ in range(N_OPS):
                a_var + b_var

    def recorded():
        for _ in range(N_OPS):
            with autograd.record():
                c = a_var + b_var
            c.backward()

    return {
        '`a + b`, no gradient': eager,
        '`a + b` recorded (forward only)': recorded_forward,
        '`a + b` recorded + `backward()` per step': recorded,
    }


def _timed(fn):
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) / N_OPS


def measure():
    """Best per-op time of each loop with and without the check."""
    loops = _loops()
    best = {
        (name, mode): float('inf')
        for name in loops
        for mode in ('with', 'without')
    }
    shipped, without = _caller_module.invoke, _invoke_without_check()
    for _ in range(ROUNDS):
        for name, fn in loops.items():
            for mode in ('with', 'without'):
                _caller_module.invoke = shipped if mode == 'with' else without
                try:
                    best[name, mode] = min(best[name, mode], _timed(fn))
                finally:
                    _caller_module.invoke = shipped
    return loops, best


def main():
    loops, best = measure()
    rows = []
    for name in loops:
        w, wo = best[name, 'with'], best[name, 'without']
        rows.append(
            (name, fmt_us(w), fmt_us(wo), f'{(w / wo - 1) * 100:+.1f} %')
        )
    body = (
        f'Per-operation time, best of {ROUNDS} interleaved rounds of '
        f'{N_OPS:,} operations on 16×16 float32.  "without" stamps no '
        f'write-clock time on the tape and skips the check at '
        f'backward.  The '
        f'machine was shared with other jobs; the rounds are '
        f'interleaved so both sides see the same load.\n\n'
        + table(('operation', 'with check', 'without', 'overhead'), rows)
    )
    write_section(
        'version_counter',
        'Autograd check for stale inputs (`benchmarks/bench_stale_inputs.py`)',
        body,
    )


if __name__ == '__main__':
    main()
