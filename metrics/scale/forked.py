"""Several small tasks shared between this process and copies of it forked for them: what a pool of worker
processes gives, without a pool's cost (``ir-eval`` on a few run files; see :func:`in_order`).

A pool (:mod:`metrics.scale.parallel`) imports multiprocessing, starts its processes and sends every task
and result through queues: 50-80 ms on the project's machine, more than five TREC DL 2019-shaped runs take
to score.  A copy forked once the qrels are encoded needs nothing sent (it has every module and the
qrels already) and costs about a millisecond.

The tasks are cut into contiguous slices, one per process, the first slice for this process: each copy
does its slice in order and sends each result back through a pipe as soon as it has it, while this
process does its own; the results are then given out in the order of the tasks.  A copy is only a head
start: a task it did not give a result for (it failed, whatever the reason, or the copy was killed) is
done here when it is due, and with it the rest of that slice, so that the results, the errors (a bad
file named with its line) and what is given out before an error are those of one process doing every
task in turn.  A copy writes nothing to the standard streams, leaves by ``os._exit`` (no exit handler
of this process runs twice), is killed by Ctrl-C quietly, and ends when it finds its pipe closed; this
process kills and reaps the copies it no longer waits for.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import threading
from typing import BinaryIO, Callable, Iterator, NoReturn, Sequence, TypeVar

T = TypeVar("T")


def available() -> bool:
    """Whether copies can be forked safely here: a system with ``fork``, and no other thread running in
    this process (a copy has only the forking thread; a lock another thread held would stay locked)."""
    return (
        hasattr(os, "fork") and threading.active_count() == 1 and threading.current_thread() is threading.main_thread()
    )


def in_order(tasks: Sequence[str], do: Callable[[str], T], processes: int) -> Iterator[T]:
    """``do(task)`` for each task, given out in order, computed by up to ``processes`` processes: this
    one and copies of it forked now (when :func:`available`; else here alone).  ``do``'s results must
    pickle; an exception of ``do`` is raised when its task is due, from this process."""
    slices = _slices(len(tasks), processes if available() else 1)
    copies: list[_Copy] = []
    try:
        for start, stop in slices[1:]:
            _Copy.fork(tasks[start:stop], do, copies)
        start, stop = slices[0]
        for task in tasks[start:stop]:
            yield do(task)
        for (start, stop), copy in zip(slices[1:], copies):
            done = start
            for result in copy.received(stop - start):
                yield result
                done += 1
            copy.end()
            for task in tasks[done:stop]:  # what the copy did not give: done here, as one process does it
                yield do(task)
    finally:
        for copy in copies:
            copy.end()


@contextlib.contextmanager
def hold_ctrl_c() -> Iterator[None]:
    """Ctrl-C held while the process forks (a copy here, a pool's workers in :mod:`metrics.scale.parallel`),
    and told once it is done: the fork runs handlers of its own (logging takes and gives back its lock),
    and a KeyboardInterrupt raised in one is printed as an exception ignored, and lost.  A process forked
    meanwhile holds Ctrl-C too, until it sets its own handler."""
    came: list[tuple] = []
    before = signal.signal(signal.SIGINT, lambda *args: came.append(args))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
        if came:
            if callable(before):
                before(*came[0])  # (Python's own: KeyboardInterrupt, here)
            elif before != signal.SIG_IGN:
                os.kill(os.getpid(), signal.SIGINT)


def _slices(n: int, processes: int) -> list[tuple[int, int]]:
    """``n`` tasks cut into at most ``processes`` contiguous slices (start, stop) of sizes differing by
    one at most, the larger first (this process, which also gives out every result, has the first)."""
    parts = max(1, min(processes, n))
    size, more = divmod(n, parts)
    bounds = [0]
    for i in range(parts):
        bounds.append(bounds[-1] + size + (i < more))
    return list(zip(bounds[:-1], bounds[1:]))


class _Copy:
    """A forked copy doing a slice of the tasks, and the reading end of its pipe."""

    def __init__(self, pid: int, results: BinaryIO):
        self.pid = pid
        self.results = results
        self.reaped = False

    @classmethod
    def fork(cls, tasks: Sequence[str], do: Callable[[str], T], copies: list[_Copy]) -> _Copy:
        """A copy forked for ``tasks``, added to ``copies`` (those forked before) before anything can
        interrupt: whoever holds that list ends every copy in it."""
        read, write = os.pipe()
        with hold_ctrl_c():
            pid = os.fork()
            if pid == 0:  # the copy: never returns
                _work(read, write, tasks, do, [c.results for c in copies])
            os.close(write)
            copy = cls(pid, os.fdopen(read, "rb"))
            copies.append(copy)
        return copy

    def received(self, count: int) -> Iterator:
        """The copy's results, in order, until ``count`` are given or it gave no more (it stopped at a
        task that failed, or it was killed: what it wrote whole is kept)."""
        for _ in range(count):
            try:
                result = pickle.load(self.results)
            except Exception:  # the end of the pipe, or a result cut off by the copy's end
                return
            yield result

    def end(self) -> None:
        """Close the pipe, kill the copy if it is still working (it is not waited for any more) and reap it."""
        if self.reaped:
            return
        self.reaped = True
        self.results.close()
        try:
            os.kill(self.pid, signal.SIGKILL)  # (one that is done is already leaving: nothing is lost)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)


def _work(read: int, write: int, tasks: Sequence[str], do: Callable, others: list[BinaryIO]) -> NoReturn:
    """The copy's life: its tasks done in order, each result sent as soon as it is made; it stops at the
    first task that fails (this process does that one again and says what is wrong) and leaves silently."""
    code = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C: this process says so, the copy just goes
        quiet = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # nothing to read or write there, nor to hold open for whoever reads them
            os.dup2(quiet, fd)
        os.close(quiet)
        os.close(read)
        for other in others:  # the pipes of copies forked before: theirs to close, not to hold open here
            os.close(other.fileno())
        with os.fdopen(write, "wb") as pipe:
            for task in tasks:
                try:
                    result = do(task)
                except Exception:
                    break
                pickle.dump(result, pipe, protocol=pickle.HIGHEST_PROTOCOL)
                pipe.flush()
    except BaseException:  # the pipe closed (this process is gone or done with it), or anything else
        code = 1
    finally:
        os._exit(code)
