"""``mx.profiler``: time every operator, print a table, write a trace.

::

    mx.profiler.set_config(profile_all=True, aggregate_stats=True,
                           filename='profile.json')
    mx.profiler.set_state('run')
    ...                                   # nd calls, backward, executors
    mx.profiler.set_state('stop')
    print(mx.profiler.dumps())            # per-operator table
    mx.profiler.dump()                    # Chrome trace: chrome://tracing

Each registered operator's forward (``tanh``) and backward
(``_backward_tanh``) is timed in Python around the call, on the device
that runs it (GPU work is synchronized first, so times are the kernels').
Unlike MXNet there is no separate engine, storage or C API section: the
table has MXNet's ``operator`` section only.  When the profiler is not
running, the operator dispatch pays one flag test.
"""

import json
import os
from time import perf_counter_ns

from . import _profile_state as _state
from ._atomic import atomic_write
from .base import DLBookError

__all__ = [
    'set_config',
    'set_state',
    'pause',
    'resume',
    'dump',
    'dumps',
    'state',
    'profiler_set_config',
    'profiler_set_state',
    'dump_profile',
    'Domain',
    'Task',
    'Frame',
    'Event',
    'Counter',
    'Marker',
]

_CONFIG = {
    'filename': 'profile.json',
    'profile_all': False,
    'profile_symbolic': True,
    'profile_imperative': True,
    'profile_memory': True,
    'profile_api': True,
    'aggregate_stats': False,
    'continuous_dump': False,
    'dump_period': 1.0,
    'profile_process': 'worker',
}
_STATUS = {'state': 'stop', 'paused': False}


def _update_switch():
    _state.ON = _STATUS['state'] == 'run' and not _STATUS['paused']


def set_config(**kwargs):
    """Configure the profiler (call before ``set_state('run')``).

    Parameters
    ----------
    filename : str
        Where :func:`dump` writes the Chrome trace ('profile.json').
    profile_all : bool
        Profile everything (sets the ``profile_*`` options).
    profile_symbolic, profile_imperative : bool
        Time executor/hybridized graphs, and ``nd``/autograd calls.
    profile_memory, profile_api : bool
        Accepted for MXNet compatibility; dlbook records no memory or C
        API events.
    aggregate_stats : bool
        Keep per-operator statistics for :func:`dumps` (dlbook always
        can; accepted for compatibility).
    """
    unknown = set(kwargs) - set(_CONFIG)
    if unknown:
        raise DLBookError(
            f'profiler.set_config: unknown option(s) '
            f'{sorted(unknown)}; known: {sorted(_CONFIG)}'
        )
    _CONFIG.update(kwargs)
    if kwargs.get('profile_all'):
        for key in (
            'profile_symbolic',
            'profile_imperative',
            'profile_memory',
            'profile_api',
        ):
            _CONFIG[key] = True
    _state.KINDS['symbolic'] = bool(_CONFIG['profile_symbolic'])
    _state.KINDS['imperative'] = bool(_CONFIG['profile_imperative'])


def set_state(state='stop', profile_process='worker'):
    """Start (``'run'``) or stop (``'stop'``) recording."""
    if state not in ('run', 'stop'):
        raise DLBookError(
            f"profiler.set_state: state must be 'run' or 'stop', got {state!r}"
        )
    _STATUS['state'] = state
    _update_switch()


def state():
    """The current state, ``'run'`` or ``'stop'``."""
    return _STATUS['state']


def pause(profile_process='worker'):
    """Stop recording until :func:`resume` (the state stays 'run')."""
    _STATUS['paused'] = True
    _update_switch()


def resume(profile_process='worker'):
    """Record again after :func:`pause`."""
    _STATUS['paused'] = False
    _update_switch()


def _aggregate():
    stats = {}
    for name, _, start, end in _state.RECORDS:
        ms = (end - start) / 1e6
        entry = stats.setdefault(name, [0, 0.0, ms, ms])
        entry[0] += 1
        entry[1] += ms
        entry[2] = min(entry[2], ms)
        entry[3] = max(entry[3], ms)
    return stats


def _object_sections():
    """Statistics of the profiler objects by section (MXNet's category:
    'event', the domain's name for tasks and counters, '<domain>,frame',
    '<domain>,instant_marker'): name -> [count, total, min, max, avg]
    in ms (counters: their values / 1000, MXNet's units)."""
    sections = {}
    for rec in _OBJECTS:
        category, name, kind = rec[0], rec[1], rec[2]
        rows = sections.setdefault(category, {})
        if kind == 'marker':
            continue
        if kind == 'counter':
            entry = rows.setdefault(
                name, ['counter', 0, rec[3], rec[3], rec[3]]
            )
            entry[1] += 1
            entry[2] = rec[3]  # MXNet's "total" of a counter: its last value
            entry[3] = min(entry[3], rec[3])
            entry[4] = max(entry[4], rec[3])
            continue
        ms = (rec[4] - rec[3]) / 1e6
        entry = rows.setdefault(name, ['duration', 0, 0.0, ms, ms])
        entry[1] += 1
        entry[2] += ms
        entry[3] = min(entry[3], ms)
        entry[4] = max(entry[4], ms)
    out = {}
    for category, rows in sections.items():
        out[category] = {}
        for name, (kind, count, total, low, high) in rows.items():
            if kind == 'counter':
                avg = ((high - low) // 2) / 1000
                total, low, high = total / 1000, low / 1000, high / 1000
            else:
                avg = total / count
            out[category][name] = [count, total, low, high, avg]
    return out


def dumps(reset=False, format='table', sort_by='total', ascending=False):
    """The per-operator statistics as MXNet's table (``format='table'``)
    or JSON (``format='json'``): count and total/min/max/average time in
    ms, sorted by ``sort_by`` ('total', 'avg', 'min', 'max', 'count').
    Sections, in name order as MXNet prints them: ``operator`` and one
    per category of the profiler objects (:class:`Event`: 'event';
    :class:`Task`, :class:`Counter`: the domain's name; :class:`Frame`:
    '<domain>,frame'; :class:`Marker`: '<domain>,instant_marker', with
    no rows).  ``reset=True`` clears the records afterwards."""
    keys = {'count': 0, 'total': 1, 'min': 2, 'max': 3, 'avg': 4}
    if sort_by not in keys:
        raise DLBookError(
            f"profiler.dumps: sort_by must be one of 'total', "
            f"'avg', 'min', 'max', 'count'; got {sort_by!r}"
        )
    if format not in ('table', 'json'):
        raise DLBookError(
            f"profiler.dumps: format must be 'table' or 'json', got {format!r}"
        )
    sections = _object_sections()
    sections['operator'] = {
        n: [c, t, lo, hi, t / c] for n, (c, t, lo, hi) in _aggregate().items()
    }

    def order(rows):
        return sorted(
            rows, key=lambda n: rows[n][keys[sort_by]], reverse=not ascending
        )

    if format == 'json':
        text = json.dumps(
            {
                'Time': {
                    category: {
                        n: dict(
                            zip(
                                ('Count', 'Total', 'Min', 'Max', 'Avg'),
                                sections[category][n],
                            )
                        )
                        for n in order(sections[category])
                    }
                    for category in sorted(sections)
                },
                'Unit': {'Time': 'ms'},
            }
        )
    else:
        lines = [
            '',
            'Profile Statistics:',
            '\tNote the difference in units for different entries.',
        ]
        for category in sorted(sections):
            rows = sections[category]
            lines += [
                category,
                '=================',
                f'{"Name":<30}{"Total Count":>11}{"Time (ms)":>17}'
                f'{"Min Time (ms)":>17}{"Max Time (ms)":>17}'
                f'{"Avg Time (ms)":>17}',
                f'{"----":<30}{"-----------":>11}{"---------":>17}'
                f'{"-------------":>17}{"-------------":>17}'
                f'{"-------------":>17}',
            ]
            for n in order(rows):
                count, total, low, high, avg = rows[n]
                lines.append(
                    f'{n:<30}{count:>11}{total:>17.4f}{low:>17.4f}'
                    f'{high:>17.4f}{avg:>17.4f}'
                )
            lines.append('')
        text = '\n'.join(lines[:-1]) + '\n\n'
    if reset:
        _state.RECORDS.clear()
        _OBJECTS.clear()
    return text


def dump(finished=True, profile_process='worker'):
    """Write the records as a Chrome trace (``chrome://tracing``,
    Perfetto) to the configured ``filename``, atomically.  With
    ``finished=True`` (the default) recording stops."""
    if finished:
        set_state('stop')
    records = list(_state.RECORDS)
    objects = list(_OBJECTS)
    devices = sorted({dev for _, dev, _, _ in records})
    pid = {dev: i for i, dev in enumerate(devices)}
    events = [
        {
            'ph': 'M',
            'args': {'name': dev},
            'pid': pid[dev],
            'name': 'process_name',
        }
        for dev in devices
    ]
    origin = min(
        [r[2] for r in records] + [_object_time(r) for r in objects],
        default=0,
    )
    for name, dev, start, end in records:
        events.append(
            {
                'name': name,
                'cat': 'operator',
                'ph': 'X',
                'ts': (start - origin) / 1e3,
                'dur': (end - start) / 1e3,
                'pid': pid[dev],
                'tid': 0,
            }
        )
    events += _object_events(objects, origin, len(devices))
    path = os.fspath(_CONFIG['filename'])
    with atomic_write(path, 'w') as f:
        json.dump({'traceEvents': events, 'displayTimeUnit': 'ms'}, f)


# MXNet's deprecated spellings
def profiler_set_config(mode='symbolic', filename='profile.json'):
    """Deprecated MXNet form of :func:`set_config`."""
    set_config(profile_all=(mode == 'all'), filename=filename)


def profiler_set_state(state='stop'):
    """Deprecated MXNet form of :func:`set_state`."""
    set_state(state)


def dump_profile():
    """Deprecated MXNet form of ``dump(True)``: write the trace and stop."""
    import warnings

    warnings.warn(
        'profiler.dump_profile() is deprecated. Please use profiler.dump() '
        'instead',
        stacklevel=2,
    )
    dump(True)


# -- profiler objects ---------------------------------------------------------------
#
# (category, name, kind, start or value, end or scope) of every Task,
# Frame, Event, Counter and Marker record made while the profiler ran.
_OBJECTS = []
_SCOPES = {
    'global': 'g',
    'process': 'p',
    'thread': 't',
    'task': 't',
    'marker': 'p',
}


def _object_time(rec):
    """The first timestamp (ns) of an object record."""
    if rec[2] == 'counter':
        return rec[4]
    if rec[2] == 'marker':
        return rec[4][1]
    return rec[3]


def _object_events(objects, origin, first_pid):
    """Chrome-trace events of the object records, one process per
    category (as MXNet's trace), after the device processes."""
    pids, events = {}, []
    for category, name, kind, a, b in objects:
        if category not in pids:
            pids[category] = first_pid + len(pids)
            events.append(
                {
                    'ph': 'M',
                    'args': {'name': category},
                    'pid': pids[category],
                    'name': 'process_name',
                }
            )
        base = {'name': name, 'cat': category, 'pid': pids[category], 'tid': 0}
        if kind == 'counter':
            events.append(
                dict(base, ph='C', ts=(b - origin) / 1e3, args={name: a})
            )
        elif kind == 'marker':
            events.append(dict(base, ph='n', ts=(b[1] - origin) / 1e3, s=b[0]))
        else:
            begin, end = {'task': ('b', 'e'), 'frame': ('(', ')')}.get(
                kind, ('B', 'E')
            )
            extra = {'id': id(name) & 0xFFFFFFFF} if kind == 'task' else {}
            events.append(dict(base, ph=begin, ts=(a - origin) / 1e3, **extra))
            events.append(dict(base, ph=end, ts=(b - origin) / 1e3, **extra))
    return events


class Domain:
    """A named group of profiler objects (MXNet's ``profiler.Domain``):
    its tasks and counters appear under the domain's name, its frames
    under '<name>,frame' and its markers under '<name>,instant_marker'."""

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return self.name

    def new_task(self, name):
        """A :class:`Task` of this domain."""
        return Task(self, name)

    def new_frame(self, name):
        """A :class:`Frame` of this domain."""
        return Frame(self, name)

    def new_counter(self, name, value=None):
        """A :class:`Counter` of this domain."""
        return Counter(self, name, value)

    def new_marker(self, name):
        """A :class:`Marker` of this domain."""
        return Marker(self, name)


class _Span:
    """A named interval: ``start()`` ... ``stop()`` records its duration
    while the profiler runs."""

    kind = 'event'

    def __init__(self, category, name):
        self.name = name
        self._category = category
        self._start = None

    def start(self):
        """Begin the interval."""
        self._start = perf_counter_ns()

    def stop(self):
        """End the interval (recorded when the profiler was running)."""
        if self._start is None:
            return
        start, self._start = self._start, None
        if _state.ON:
            _OBJECTS.append(
                (
                    self._category,
                    self.name,
                    self.kind,
                    start,
                    perf_counter_ns(),
                )
            )

    def __str__(self):
        return self.name


class Task(_Span):
    """A task of a :class:`Domain` (``start()``/``stop()``), in the
    domain's section of ``dumps()``."""

    kind = 'task'

    def __init__(self, domain, name):
        super().__init__(domain.name, name)


class Frame(_Span):
    """A frame of a :class:`Domain` (``start()``/``stop()``), in the
    '<domain>,frame' section."""

    kind = 'frame'

    def __init__(self, domain, name):
        super().__init__(f'{domain.name},frame', name)


class Event(_Span):
    """A named interval (``start()``/``stop()``) in the 'event' section."""

    kind = 'event'

    def __init__(self, name):
        super().__init__('event', name)


class Counter:
    """An integer counter of a :class:`Domain`; each value it takes while
    the profiler runs is recorded (Chrome trace: a counter track).
    ``+=`` and ``-=`` increment and decrement it.  In ``dumps()`` its
    row, as MXNet's, holds values / 1000: the last value as the total,
    the smallest and largest, and (max - min) // 2 as the average."""

    def __init__(self, domain, name, value=None):
        self.name = name
        self._category = domain.name
        self._value = 0
        if value is not None:
            self.set_value(value)

    def _record(self):
        if _state.ON:
            _OBJECTS.append(
                (
                    self._category,
                    self.name,
                    'counter',
                    self._value,
                    perf_counter_ns(),
                )
            )

    def set_value(self, value):
        """Set the counter to ``value`` (an int)."""
        self._value = int(value)
        self._record()

    def increment(self, delta=1):
        """Add ``delta`` to the counter."""
        self._value += int(delta)
        self._record()

    def decrement(self, delta=1):
        """Subtract ``delta`` from the counter."""
        self._value -= int(delta)
        self._record()

    def __iadd__(self, delta):
        self.increment(delta)
        return self

    def __isub__(self, delta):
        self.decrement(delta)
        return self

    def __str__(self):
        return self.name


class Marker:
    """An instant of a :class:`Domain`: ``mark(scope)`` records it while
    the profiler runs (Chrome trace: an instant event; ``dumps()`` shows
    the '<domain>,instant_marker' section without rows, as MXNet)."""

    def __init__(self, domain, name):
        self.name = name
        self._category = f'{domain.name},instant_marker'

    def mark(self, scope='process'):
        """Record the instant; ``scope`` is 'global', 'process',
        'thread', 'task' or 'marker'."""
        if scope not in _SCOPES:
            raise DLBookError(
                f"Marker.mark: Invalid Input: {scope!r}, valid values are: "
                f"{sorted(_SCOPES)}"
            )
        if _state.ON:
            _OBJECTS.append(
                (
                    self._category,
                    self.name,
                    'marker',
                    None,
                    (_SCOPES[scope], perf_counter_ns()),
                )
            )
