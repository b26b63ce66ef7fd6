"""Shared benchmark helpers: timing, machine description, results file.

Every benchmark times dlbook against a reference run in the same process
(NumPy, and PyTorch CPU when it is installed), then replaces its own
section of ``benchmarks/RESULTS.md`` (between ``<!-- name -->`` markers),
so each script can be re-run on its own.
"""

import os
import platform
import re
import subprocess
import time

import numpy as np

RESULTS = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), 'RESULTS.md'
)


def best_of(fn, repeat=5, number=1):
    """Best wall time of ``repeat`` runs of ``number`` calls, per call."""
    best = float('inf')
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def taking_turns(calls, rounds=5, number=1, clock=time.perf_counter):
    """Times per call of each function in ``calls`` (a dict), the
    functions taking turns: ``{name: [one time per round]}``.

    Each round runs every function ``number`` times in a row, one
    function after the other, so that a machine that gets busier or
    quieter meanwhile affects all of them alike (timing one candidate
    after the other would give the whole change to one side).  The
    order rotates from round to round, so that no candidate always runs
    right after the same other one (PyTorch's OpenMP threads, say, still
    spinning on the cores after its call).  Every function runs once
    first, to warm up.  ``clock`` is the wall clock
    by default; ``time.process_time`` counts only this process's CPU
    time (on a shared machine, not the time other processes ran; but
    all the threads of this process added up).
    """
    for fn in calls.values():
        fn()
    times = {name: [] for name in calls}
    order = list(calls.items())
    for r in range(rounds):
        shift = r % len(order)
        for name, fn in order[shift:] + order[:shift]:
            start = clock()
            for _ in range(number):
                fn()
            times[name].append((clock() - start) / number)
    return times


def try_torch():
    """The ``torch`` module, or None when PyTorch is not installed."""
    try:
        import torch
    except ImportError:
        return None
    return torch


def machine():
    """One line describing the CPU, cores, Python and library versions."""
    cpu = platform.processor() or platform.machine()
    try:
        with open('/proc/cpuinfo') as f:
            found = re.search(r'model name\s*:\s*(.*)', f.read())
            if found:
                cpu = found.group(1).strip()
    except OSError:
        pass
    torch = try_torch()
    parts = [
        cpu,
        f'{os.cpu_count()} cores',
        f'Python {platform.python_version()}',
        f'NumPy {np.__version__}',
    ]
    if torch is not None:
        parts.append(
            f'PyTorch {torch.__version__} ({torch.get_num_threads()} threads)'
        )
    return ', '.join(parts)


def git_revision():
    try:
        return subprocess.run(
            ['git', 'rev-parse', '--short', 'HEAD'],
            capture_output=True,
            text=True,
            cwd=os.path.dirname(RESULTS),
        ).stdout.strip()
    except OSError:
        return 'unknown'


def load_average():
    """The 1, 5 and 15-minute load averages, e.g. ``'0.76 0.87 0.97'``
    (how busy the machine was while a benchmark ran)."""
    return ' '.join(f'{v:.2f}' for v in os.getloadavg())


def sgemm_probe():
    """The best of 5 one-thread float32 1024³ matrix products, e.g.
    ``'14.1 ms'``: how fast the machine runs right now.  A virtual
    machine's neighbours slow it without showing in its load average
    (this one's sgemm drifted between 7 and 12 ms on 2 threads within
    minutes), so the benchmarks print both."""
    import numpy as np
    from threadpoolctl import threadpool_limits

    a = np.random.RandomState(0).rand(1024, 1024).astype(np.float32)
    best = float('inf')
    with threadpool_limits(limits=1, user_api='blas'):
        for _ in range(5):
            start = time.perf_counter()
            a @ a
            best = min(best, time.perf_counter() - start)
    return f'{1e3 * best:.1f} ms'


def table(header, rows):
    """A Markdown table from a header tuple and row tuples."""
    lines = [
        '| ' + ' | '.join(header) + ' |',
        '|' + '|'.join('---' for _ in header) + '|',
    ]
    lines += ['| ' + ' | '.join(str(c) for c in row) + ' |' for row in rows]
    return '\n'.join(lines)


def write_section(name, title, body):
    """Replace (or append) the section ``name`` of RESULTS.md."""
    start, end = f'<!-- {name} -->', f'<!-- /{name} -->'
    section = (
        f'{start}\n## {title}\n\n'
        f'Machine: {machine()}; revision {git_revision()}; '
        f'{time.strftime("%Y-%m-%d")}.\n\n{body}\n{end}'
    )
    text = ''
    if os.path.exists(RESULTS):
        with open(RESULTS) as f:
            text = f.read()
    if start in text:
        text = re.sub(
            re.escape(start) + '.*?' + re.escape(end),
            lambda _: section,
            text,
            flags=re.S,
        )
    else:
        if not text:
            text = (
                '# Benchmark results\n\nEach section is written by the '
                'script named in it; re-run it to refresh.\n'
            )
        text = text.rstrip('\n') + '\n\n' + section + '\n'
    tmp = RESULTS + '.tmp'
    with open(tmp, 'w') as f:
        f.write(text)
    os.replace(tmp, RESULTS)
    print(section)


def fmt_us(seconds):
    return f'{seconds * 1e6:.1f} µs'


def fmt_ms(seconds):
    return f'{seconds * 1e3:.2f} ms'
