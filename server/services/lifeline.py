"""Worker processes that end with their parent: a SIGKILL of the server leaves no orphan.

A worker the server spawns (the solver's, server/services/solving.py) is not told when
the server is killed: nothing runs in a process that gets SIGKILL, so it cannot stop its
workers.
Left alone, a ``ProcessPoolExecutor`` worker waits on its task queue for ever (it holds
a write end of that queue itself, so it never reads end-of-file), and multiprocessing's
resource tracker, which ends when the last process sharing its pipe is gone, waits with
it. :func:`end_with_parent` runs first in every such worker and makes it exit the moment
its parent is gone.

How a worker learns that its parent is gone: multiprocessing's own parent pipe. A
spawned child holds the read end of a pipe whose only write end stays open in the
parent for the child's whole life (``multiprocessing.parent_process().sentinel``); the
kernel closes that end when the parent dies, however it dies, so the read end turns
readable and a thread waiting on it wakes. This is chosen over Linux's
``prctl(PR_SET_PDEATHSIG)`` because it is the sturdier of the two:

- it watches the parent *process*; PDEATHSIG fires when the parent *thread* that spawned
  the child ends, so a worker started from a helper thread would be killed while the
  server runs on;
- it has no start-up race: a parent that died before the child armed PDEATHSIG is missed
  (the child must re-check ``getppid()``), while a closed pipe stays readable;
- it is the same on every platform multiprocessing spawns on (on Windows the sentinel is
  the parent's process handle), where PDEATHSIG is Linux only and would need a fallback
  anyway.

Its one cost, a thread that needs the interpreter lock to act, is small here: the
compiled solver searches release the lock while they run (engine/solver/native/), so
the watch wakes even mid-search.

Such a worker also ignores SIGINT. Ctrl-C in a terminal signals the whole foreground
process group, workers included; the server decides when its workers stop (it shuts
its pool down), and a worker interrupted on its own would only print a
``KeyboardInterrupt`` traceback. A worker spends a second importing before it can say
so, so the server spawns its workers inside :func:`spawning_deaf_to_ctrl_c`: they start
with SIGINT blocked (a signal mask survives fork and exec), and a Ctrl-C that arrives
meanwhile waits, pending, until :func:`end_with_parent` has set it to be ignored.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing import resource_tracker

EXIT_PARENT_GONE = 70
"""A worker's exit status when its parent died (EX_SOFTWARE: nothing for it to finish)."""


def end_with_parent() -> None:
    """In a spawned worker: exit as soon as the parent process is gone; ignore Ctrl-C.

    Meant as a process pool's ``initializer``; in a process that multiprocessing did not
    start (no parent to watch) it only ignores SIGINT.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):  # a Ctrl-C pending since the spawn is dropped
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    parent = multiprocessing.parent_process()
    if parent is None:
        return
    watch = threading.Thread(
        target=_exit_when_readable, args=(parent.sentinel,), name="lifeline", daemon=True
    )
    watch.start()


@contextmanager
def spawning_deaf_to_ctrl_c() -> Iterator[None]:
    """Processes spawned from this thread inside the block start with SIGINT blocked.

    Only this thread's mask changes: a Ctrl-C meant for the server meanwhile is taken
    by one of its other threads, and Python runs the handler as usual. Where threads
    have no signal mask (Windows) nothing changes.
    """
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    # multiprocessing starts its resource tracker with the first process it spawns and
    # then unblocks SIGINT in this thread, whatever was blocked before: start it first.
    _quiet_resource_tracker()
    resource_tracker.ensure_running()
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


QUIET_TRACKER = "ignore:resource_tracker:UserWarning"
"""A warning filter for the tracker's report of what it cleaned up (see below)."""


def _quiet_resource_tracker() -> None:
    """Start the resource tracker without its report of the semaphores it cleans up.

    After a SIGKILL of the server the tracker unlinks the semaphores the server's pool
    left behind, as it should, and says so in a plain-text warning on the server's
    stderr: a multi-line report in what is otherwise a JSON log, about nothing left to
    do. The tracker takes its warning filters from this interpreter's ``-W`` options
    (``sys.warnoptions``), so the filter is added there before the tracker starts.
    """
    if QUIET_TRACKER not in sys.warnoptions:
        sys.warnoptions.append(QUIET_TRACKER)


def _exit_when_readable(sentinel: int) -> None:
    """Wait for the parent pipe's end-of-file (nothing is ever written to it), then exit.

    ``os._exit``: the parent that would read results or join this process is gone, and a
    search in progress has no one to report to, so nothing is left to clean up in order.
    """
    multiprocessing.connection.wait([sentinel])
    os._exit(EXIT_PARENT_GONE)
