"""How a request to stop training reaches a loop that is busy computing.

Two ways to ask, both ending the run cleanly *after the current batch*
(the model, the curves and the final figure stay consistent):

1. The **Stop button** of a ``TrainingMonitor``. A click travels from the
   browser to the kernel as a comm message on the shell channel. The
   kernel handles shell messages one at a time on its main thread, so
   while a cell is running (your training loop) the click simply waits
   in the queue until the cell has finished: too late. ipykernel 7 added
   *subshells* (JEP 91): extra threads that handle shell messages while
   the main thread is busy, and comm messages can be routed to one.
   ``route_to_side_thread`` does that for the button, so the click is
   handled at once on the side thread, where it only sets a flag that
   the loop reads between batches. With an older ipykernel the button
   is shown but only works when the loop yields to the kernel; the
   interrupt below always works.
2. **Interrupting** (the notebook's stop square, or Ctrl-C in a
   terminal). While a monitor runs, ``InterruptCatcher`` turns the
   *first* SIGINT into the same clean stop and the second into the usual
   ``KeyboardInterrupt``.

``StopTraining`` is what the callback adapters raise inside ``Module.fit``,
which has no other way to be told to stop; ``with monitor:`` catches it.
"""

import signal
import sys
import threading

from .display import ipython_shell

SIDE_THREAD_TIMEOUT = 2.0


class StopTraining(Exception):
    """Raised from a training callback to end training early.

    ``TrainingMonitor`` raises it from ``batch_end_callback`` after the
    Stop button was pressed, and ``with monitor: mod.fit(...)`` catches
    it, so the cell ends normally with the final figure.
    """


# One side thread (subshell) per kernel, created on first use and kept:
# creating one per monitor would leave threads behind in long sessions.
_side_subshells = {}


def _side_subshell(kernel):
    """Return the id of our subshell of ``kernel``, creating it if needed.

    Returns None when the kernel has no subshells (ipykernel < 7, or an
    in-process kernel).
    """
    key = id(kernel)
    if key in _side_subshells:
        return _side_subshells[key]
    subshell_id = None
    thread = getattr(kernel, 'shell_channel_thread', None)
    if getattr(kernel, '_supports_kernel_subshells', False) and thread:
        manager = thread.manager  # created lazily, on this (main) thread
        created = {}
        done = threading.Event()

        def create():
            # The subshell manager may only be used from its own thread.
            try:
                created['id'] = manager._create_subshell()
            finally:
                done.set()

        thread.io_loop.add_callback(create)
        if done.wait(SIDE_THREAD_TIMEOUT):
            subshell_id = created.get('id')
    _side_subshells[key] = subshell_id
    return subshell_id


def route_to_side_thread(widget):
    """Handle ``widget``'s messages from the front end on a side thread.

    Uses ipykernel 7's subshells (see the module docstring). Only do this
    for widgets whose callbacks are thread-safe: a Stop button whose
    handler sets a flag is.

    Returns
    -------
    bool
        True if the messages are now routed; False when this kernel
        cannot do it (nothing is changed then).
    """
    comm = getattr(widget, 'comm', None)
    if comm is None or not hasattr(comm, '_reply_subshell_for'):
        return False
    kernel = getattr(ipython_shell(), 'kernel', None)
    if kernel is None:
        return False
    try:
        subshell_id = _side_subshell(kernel)
    except Exception:  # private ipykernel API: never break training
        return False
    if subshell_id is None:
        return False
    # ipykernel sends a comm's messages to the subshell named here. It
    # resets the name whenever the comm itself sends a message from the
    # main thread, so callers must route again after changing the widget.
    comm._reply_subshell_id = subshell_id
    return True


class InterruptCatcher:
    """Turn the first SIGINT into a request to stop after this batch.

    Parameters
    ----------
    request_stop : callable
        Called (with no arguments) on the first interrupt.

    Notes
    -----
    Only the main thread can install signal handlers, so ``install``
    does nothing elsewhere. ``uninstall`` puts the previous handler
    back; it is called when the monitor finishes.
    """

    message = (
        'Interrupted: stopping after the current batch '
        '(interrupt again to abort at once).'
    )

    def __init__(self, request_stop):
        self.request_stop = request_stop
        self.installed = False
        self.caught = False
        self._previous = None

    def install(self):
        """Install the handler; return True if it was installed."""
        if self.installed:
            return True
        if threading.current_thread() is not threading.main_thread():
            return False
        try:
            self._previous = signal.getsignal(signal.SIGINT)
            signal.signal(signal.SIGINT, self._handle)
        except (ValueError, OSError):  # e.g. an embedded interpreter
            return False
        self.installed = True
        return True

    def uninstall(self):
        """Restore the handler that was active before ``install``."""
        if not self.installed:
            return
        self.installed = False
        try:
            if signal.getsignal(signal.SIGINT) == self._handle:
                previous = self._previous
                if previous is None:  # set outside Python: use default
                    previous = signal.default_int_handler
                signal.signal(signal.SIGINT, previous)
        except (ValueError, OSError):
            pass

    def _handle(self, signum, frame):
        if self.caught:
            # Second interrupt: the user means it.
            self.uninstall()
            raise KeyboardInterrupt
        self.caught = True
        print(self.message, file=sys.stderr, flush=True)
        self.request_stop()
