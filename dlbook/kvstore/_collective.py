"""Collectives that cannot hang forever: a worker that stops answering is
named, and the job stops.

A blocking ``MPI_Allreduce`` waits for every worker.  If one worker hangs
(an endless loop, a deadlock, a stuck read from a network disk) instead
of dying or raising, the others would wait forever and a cluster job
would burn its whole allocation.  :class:`Group` therefore starts each
collective without blocking (``Iallreduce``, ``Ibcast``, ``Iallgather``,
``Ibarrier``) and polls it:

* for up to one second it polls, giving the CPU away every 20 polls
  (``sched_yield``, as MPICH's blocking calls do): a collective whose
  workers arrive together is as fast as the blocking call, and with more
  processes than cores the one being waited for can run;
* then it sleeps between polls, so a worker waiting for a slow one (a
  checkpoint being written, say) does not keep a core busy;
* after ``DLBOOK_DIST_TIMEOUT`` seconds (default 300; ``0`` or ``none``
  waits forever) it asks every other worker, over a separate
  communicator, what it is doing.  A worker waiting in a collective
  answers with the call it is in; a hanging worker is not in MPI and
  cannot answer.  The waiting worker then raises a :class:`DLBookError`
  naming the workers that did not answer (or that are in another call),
  and the uncaught error stops the whole job (see
  :func:`dlbook.kvstore._mpi.abort_on_error`).
"""

import json
import os
import time

import numpy

from ..base import DLBookError

__all__ = ['Group', 'timeout_from_env', 'complete', 'Every']

DEFAULT_TIMEOUT = 300.0
_YIELD = 1.0  # seconds of polling that yields the CPU
_POLLS_PER_YIELD = 20  # polls between two yields
_MAX_PAUSE = 0.001  # then the longest sleep between two polls
_QUERY, _ANSWER = 21, 22
_WIDTH = 512  # bytes of one query or answer


_yield = getattr(os, 'sched_yield', lambda: time.sleep(0))


def timeout_from_env():
    """``DLBOOK_DIST_TIMEOUT`` in seconds (``None``: wait forever)."""
    text = os.environ.get('DLBOOK_DIST_TIMEOUT', '').strip().lower()
    if not text:
        return DEFAULT_TIMEOUT
    if text in ('0', 'none', 'inf', 'off'):
        return None
    try:
        value = float(text)
    except ValueError:
        raise DLBookError(
            f'DLBOOK_DIST_TIMEOUT must be a number of '
            f'seconds (or 0 / none to wait forever), got '
            f'{text!r}'
        ) from None
    return value if value > 0 else None


def _message(obj):
    raw = json.dumps(obj).encode()[:_WIDTH]
    return numpy.frombuffer(raw.ljust(_WIDTH, b' '), numpy.uint8).copy()


def _decode(buf):
    return json.loads(bytes(buf).decode(errors='replace').rstrip())


class Every:
    """Requests that complete together (``Test`` is ``Testall``)."""

    def __init__(self, *requests):
        self.requests = list(requests)

    def Test(self):
        from mpi4py import MPI

        return MPI.Request.Testall(self.requests)


def complete(request, timeout, fail):
    """Poll ``request`` (an MPI request, or :class:`Every`) until it
    completes, as :meth:`Group.wait` does; after ``timeout`` seconds
    (``None``: never) call ``fail()``, which raises.

    For point-to-point messages, where the peer cannot be asked what it
    is doing: ``dist_async``'s workers waiting for the server and the
    server waiting for a worker's payload.
    """
    if request.Test():
        return
    start = time.perf_counter()
    yield_until = start + _YIELD
    while time.perf_counter() < yield_until:
        for _ in range(_POLLS_PER_YIELD):
            if request.Test():
                return
        _yield()
    pause = 2e-5
    while not request.Test():
        if timeout is not None and time.perf_counter() - start > timeout:
            fail()
        time.sleep(pause)
        pause = min(pause * 2, _MAX_PAUSE)


class Group:
    """The workers of one store: collectives with a deadline.

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
        The workers' communicator.
    role : str
        How this process is named in messages (``'worker'``).
    timeout : float or None
        Seconds to wait in one collective; ``None`` reads
        ``DLBOOK_DIST_TIMEOUT``.
    """

    def __init__(self, comm, role='worker', timeout=None):
        from mpi4py import MPI

        self.MPI = MPI
        self.comm = comm
        self.rank, self.size = comm.rank, comm.size
        self.role = role
        self.timeout = timeout_from_env() if timeout is None else timeout
        self.control = comm.Dup()  # queries never mix with the data
        self.calls = 0  # collectives entered so far
        self._doing = ''
        self._sent = []  # answers being sent

    # -- the collectives -------------------------------------------------------
    def allreduce(self, buf, what, send=None, extra=None):
        """Sum ``send`` over the workers into ``buf`` (without ``send``:
        ``buf`` in place).  ``extra``, a small array, is summed in place
        alongside, by a second all-reduce that runs at the same time."""
        MPI = self.MPI
        data = self.comm.Iallreduce(
            MPI.IN_PLACE if send is None else send, buf
        )
        if extra is None:
            self.wait(data, what)
        else:
            self.wait(
                Every(self.comm.Iallreduce(MPI.IN_PLACE, extra), data), what
            )

    def bcast(self, buf, what, root=0):
        """``buf`` of ``root`` to every worker, in place."""
        self.wait(self.comm.Ibcast(buf, root=root), what)

    def allgather(self, mine, every, what):
        """Every worker's ``mine`` into ``every`` (one row per worker)."""
        self.wait(self.comm.Iallgather(mine, every), what)

    def barrier(self, what='barrier'):
        """Wait until every worker has reached this call."""
        self.wait(self.comm.Ibarrier(), what)

    # -- waiting ---------------------------------------------------------------
    def wait(self, request, what):
        """Complete ``request``, or raise once the deadline has passed."""
        self.calls += 1
        if self.size == 1 or request.Test():
            return
        self._doing = what
        start = time.perf_counter()
        yield_until = start + _YIELD
        while True:
            for _ in range(_POLLS_PER_YIELD):
                if request.Test():
                    return
            _yield()
            if time.perf_counter() > yield_until:
                break
        pause = 2e-5
        deadline = None if self.timeout is None else start + self.timeout
        while not request.Test():
            self._answer_queries()
            if deadline is not None and time.perf_counter() > deadline:
                self._give_up(what)
            time.sleep(pause)
            pause = min(pause * 2, _MAX_PAUSE)

    def _answer_queries(self):
        MPI = self.MPI
        status = MPI.Status()
        while self.control.Iprobe(
            source=MPI.ANY_SOURCE, tag=_QUERY, status=status
        ):
            source = status.Get_source()
            self.control.Recv(
                numpy.empty(_WIDTH, numpy.uint8), source=source, tag=_QUERY
            )
            answer = _message({'call': self.calls, 'what': self._doing})
            self._sent.append(
                (answer, self.control.Isend(answer, dest=source, tag=_ANSWER))
            )

    def _give_up(self, what):
        """Ask the others what they are doing, then raise naming them."""
        MPI = self.MPI
        query = _message({'call': self.calls})
        for r in range(self.size):
            if r != self.rank:
                self._sent.append(
                    (query, self.control.Isend(query, dest=r, tag=_QUERY))
                )
        answers = {}
        grace = time.perf_counter() + min(5.0, max(1.0, self.timeout / 2))
        status = MPI.Status()
        while len(answers) < self.size - 1 and time.perf_counter() < grace:
            self._answer_queries()
            if self.control.Iprobe(
                source=MPI.ANY_SOURCE, tag=_ANSWER, status=status
            ):
                buf = numpy.empty(_WIDTH, numpy.uint8)
                source = status.Get_source()
                self.control.Recv(buf, source=source, tag=_ANSWER)
                answers[source] = _decode(buf)
            else:
                time.sleep(0.01)
        raise DLBookError(self._report(what, answers))

    def _report(self, what, answers):
        silent = [
            r for r in range(self.size) if r != self.rank and r not in answers
        ]
        elsewhere = {
            r: a for r, a in answers.items() if a['call'] != self.calls
        }
        role = self.role
        lines = [
            f'{role} {self.rank} waited {self.timeout:g} s '
            f'(DLBOOK_DIST_TIMEOUT) in {what} (call {self.calls})'
        ]
        if silent:
            names = ', '.join(str(r) for r in silent)
            lines.append(
                f'{role}{"s" if len(silent) > 1 else ""} {names} did not '
                f'answer: {"they are" if len(silent) > 1 else "it is"} not '
                f'in any collective, i.e. hanging (an endless loop, a '
                f'deadlock, a stuck read) or much slower than the others'
            )
        for r, a in sorted(elsewhere.items()):
            lines.append(
                f'{role} {r} is waiting in another call: '
                f'{a["what"]} (call {a["call"]}); every worker '
                f'must make the same calls in the same order'
            )
        waiting = sorted(
            r for r, a in answers.items() if a['call'] == self.calls
        )
        if waiting:
            lines.append(
                f'waiting here too: {role}'
                f'{"s" if len(waiting) > 1 else ""} '
                f'{", ".join(str(r) for r in waiting)}'
            )
        lines.append(
            'set DLBOOK_DIST_TIMEOUT (seconds; 0 waits forever) '
            'if a step can legitimately take longer'
        )
        return 'KVStore: ' + '\n  '.join(lines)
