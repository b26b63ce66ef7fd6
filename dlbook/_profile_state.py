"""The profiler's switch and recorder, kept tiny so the op dispatch path
pays one attribute test (``ON``) when profiling is off.

``dlbook.profiler`` turns ``ON`` on and off and reads ``RECORDS``.
"""

from time import perf_counter_ns

#: True only while ``mx.profiler`` is running and not paused.
ON = False
#: Which kinds of runs are recorded: 'imperative' (nd and autograd) and
#: 'symbolic' (executors and hybridized blocks).
KINDS = {'imperative': True, 'symbolic': True}
#: (name, device label, start ns, end ns) of every timed operator call.
RECORDS = []


def run(name, kind, ctx, fn, xp, args, switch):
    """Call ``fn(xp, *args)`` (an op's forward or backward), timing it
    when ``kind`` is being profiled.  GPU work is synchronized before the
    clock stops, so the time is the kernel's, not the launch's."""
    if not KINDS.get(kind, False):
        if switch is None:
            return fn(xp, *args)
        with switch:
            return fn(xp, *args)
    start = perf_counter_ns()
    if switch is None:
        out = fn(xp, *args)
    else:
        with switch:
            out = fn(xp, *args)
            ctx.backend.synchronize()
    RECORDS.append(
        (name, f'{ctx.device_type}/{ctx.device_id}', start, perf_counter_ns())
    )
    return out
