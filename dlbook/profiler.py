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


def dumps(reset=False, format='table', sort_by='total', ascending=False):
    """The per-operator statistics as MXNet's table (``format='table'``)
    or JSON (``format='json'``): count and total/min/max/average time in
    ms, sorted by ``sort_by`` ('total', 'avg', 'min', 'max', 'count').
    ``reset=True`` clears the records afterwards."""
    keys = {'count': 0, 'total': 1, 'min': 2, 'max': 3}
    stats = _aggregate()
    if sort_by == 'avg':
        order = sorted(
            stats,
            key=lambda n: stats[n][1] / stats[n][0],
            reverse=not ascending,
        )
    elif sort_by in keys:
        order = sorted(
            stats, key=lambda n: stats[n][keys[sort_by]], reverse=not ascending
        )
    else:
        raise DLBookError(
            f"profiler.dumps: sort_by must be one of 'total', "
            f"'avg', 'min', 'max', 'count'; got {sort_by!r}"
        )
    if format == 'json':
        text = json.dumps(
            {
                'Time': {
                    'operator': {
                        n: {
                            'Count': stats[n][0],
                            'Total': stats[n][1],
                            'Min': stats[n][2],
                            'Max': stats[n][3],
                            'Avg': stats[n][1] / stats[n][0],
                        }
                        for n in order
                    }
                },
                'Unit': {'Time': 'ms'},
            }
        )
    elif format == 'table':
        lines = [
            '',
            'Profile Statistics:',
            '\tNote the difference in units for different entries.',
            'operator',
            '=================',
            f'{"Name":<30}{"Total Count":>11}{"Time (ms)":>17}'
            f'{"Min Time (ms)":>17}{"Max Time (ms)":>17}'
            f'{"Avg Time (ms)":>17}',
            f'{"----":<30}{"-----------":>11}{"---------":>17}'
            f'{"-------------":>17}{"-------------":>17}'
            f'{"-------------":>17}',
        ]
        for n in order:
            count, total, low, high = stats[n]
            lines.append(
                f'{n:<30}{count:>11}{total:>17.4f}{low:>17.4f}'
                f'{high:>17.4f}{total / count:>17.4f}'
            )
        text = '\n'.join(lines) + '\n\n'
    else:
        raise DLBookError(
            f"profiler.dumps: format must be 'table' or 'json', got {format!r}"
        )
    if reset:
        _state.RECORDS.clear()
    return text


def dump(finished=True, profile_process='worker'):
    """Write the records as a Chrome trace (``chrome://tracing``,
    Perfetto) to the configured ``filename``, atomically.  With
    ``finished=True`` (the default) recording stops."""
    if finished:
        set_state('stop')
    records = list(_state.RECORDS)
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
    origin = min((r[2] for r in records), default=0)
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
