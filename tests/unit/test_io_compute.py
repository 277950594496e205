"""Long pure work of an operation never blocks the asyncio event loop the async API runs on."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from synapse_graph.engine.io import Compute, Op, drive, drive_async


def _op(work: Any) -> Op[Any]:
    answer = yield Compute(work)
    return answer


def test_the_async_driver_runs_long_work_off_the_event_loop_which_keeps_answering() -> None:
    async def check() -> tuple[bool, bool]:
        other_task_ran = threading.Event()
        loop_thread = threading.get_ident()

        def work() -> tuple[bool, bool]:
            # Waits for a task of the event loop: were this run on the loop, that task could not run.
            return other_task_ran.wait(timeout=10), threading.get_ident() != loop_thread

        async def other_task() -> None:
            await asyncio.sleep(0)
            other_task_ran.set()

        answer, _ = await asyncio.gather(drive_async(_op(work), runner=None, embedder=None),  # type: ignore[arg-type]
                                         other_task())
        return answer  # type: ignore[no-any-return]
    assert asyncio.run(check()) == (True, True)


def test_the_sync_driver_answers_with_the_work_done() -> None:
    assert drive(_op(lambda: 41 + 1), runner=None, embedder=None) == 42  # type: ignore[arg-type]
