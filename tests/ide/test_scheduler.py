"""The analysis queue: one analysis at a time, the newest text, edited documents first."""

import asyncio

from allo_lsp.session.scheduler import AnalysisQueue


class Recorder:
    """A `run` that records what it analysed and the text it saw, and can be held mid-run."""

    def __init__(self) -> None:
        self.texts: dict[str, str] = {}
        self.ran: list[tuple[str, str]] = []
        self.running = 0
        self.most_at_once = 0
        self.release = asyncio.Event()
        self.release.set()
        self.failures: list[str] = []

    async def run(self, key: str) -> None:
        self.running += 1
        self.most_at_once = max(self.most_at_once, self.running)
        try:
            text = self.texts.get(key, "")
            await self.release.wait()
            if text == "boom":
                raise ValueError("a broken analysis")
            self.ran.append((key, text))
        finally:
            self.running -= 1

    def failed(self, key: str, exc: BaseException) -> None:
        self.failures.append(key)


async def settle(queue: AnalysisQueue) -> None:
    await asyncio.wait_for(queue.until(queue.idle, 5), 6)
    assert queue.idle()


async def test_edits_during_an_analysis_coalesce_into_one_run_of_the_newest_text():
    r = Recorder()
    queue = AnalysisQueue(r.run, r.failed)
    r.texts["a"] = "v1"
    r.release.clear()
    queue.request("a")
    await asyncio.sleep(0)  # the worker starts the first analysis
    for n in range(2, 52):  # a burst of 50 keystrokes while it runs
        r.texts["a"] = f"v{n}"
        queue.request("a")
    r.release.set()
    await settle(queue)
    assert r.ran == [("a", "v1"), ("a", "v51")]
    assert r.most_at_once == 1


async def test_the_document_edited_last_comes_first_and_background_work_last():
    r = Recorder()
    queue = AnalysisQueue(r.run, r.failed)
    r.release.clear()
    queue.request("busy")
    await asyncio.sleep(0)
    queue.background(["w1", "w2"])
    queue.request("a")
    queue.request("b")
    queue.request("a")  # asked again: newest
    r.release.set()
    await settle(queue)
    assert [key for key, _ in r.ran] == ["busy", "a", "b", "w1", "w2"]


async def test_a_request_supersedes_the_same_key_in_the_background():
    r = Recorder()
    queue = AnalysisQueue(r.run, r.failed)
    queue.background(["a"])
    queue.request("a")
    await settle(queue)
    assert [key for key, _ in r.ran] == ["a"]


async def test_a_delay_is_a_debounce_and_a_failure_stops_nothing():
    r = Recorder()
    queue = AnalysisQueue(r.run, r.failed)
    r.texts.update(bad="boom", good="ok")
    loop = asyncio.get_running_loop()
    started = loop.time()
    queue.request("bad", 0.2)
    queue.request("good", 0.2)
    await settle(queue)
    assert loop.time() - started >= 0.2
    assert r.failures == ["bad"] and r.ran == [("good", "ok")]


async def test_a_forgotten_key_is_not_run_and_waiters_are_counted():
    r = Recorder()
    queue = AnalysisQueue(r.run, r.failed)
    r.release.clear()
    queue.request("busy")
    await asyncio.sleep(0)
    queue.request("closed")
    queue.forget("closed")
    assert not queue.is_pending("closed") and queue.is_pending("busy")
    waiter = asyncio.ensure_future(queue.until(lambda: bool(r.ran), 5, key="busy"))
    await asyncio.sleep(0)
    assert queue.waits_for("busy") and not queue.waits_for("closed")
    r.release.set()
    assert await waiter
    assert not queue.waits_for("busy")
    await settle(queue)
    assert [key for key, _ in r.ran] == ["busy"]


async def test_until_gives_up_after_its_timeout():
    queue = AnalysisQueue(Recorder().run, lambda k, e: None)
    assert await queue.until(lambda: False, 0.05) is False
    assert await queue.next_news(0.05) is False
