"""Issue 13 item 8: no collection walks a large analysis' objects when it ends. The server and
`check` pause cyclic garbage collection around an analysis (`host.collection_paused`, issue 28) (its millions of objects would be walked again and again), and
the first collection after it used to walk every object it made at once, holding the GIL for
half a second after a 10,000-line file while editor requests waited."""

import gc
import sys

import pytest
from allo_lsp.analysis import analyze
from allo_lsp.host import collection_paused
from paths import ROOT

sys.path.insert(0, str(ROOT / "bench"))
from generate import generate


@pytest.fixture
def collection():
    gc.collect()
    frozen = gc.get_freeze_count()
    yield frozen
    gc.unfreeze()  # as it was for the tests after this one


def test_a_large_analysis_leaves_nothing_for_the_next_collection_to_walk(collection):
    with collection_paused():
        analysis = analyze(generate(3000).text)
    assert analysis.problems == []
    # What the next collection of the youngest generation would walk: a few objects, not the
    # analysis' (frozen: reference counting still frees them when they go).
    assert gc.get_count()[0] < 10_000
    assert gc.get_freeze_count() - collection > 100_000


def test_a_small_analysis_is_collected_as_usual(collection):
    with collection_paused():
        analyze("x = 1\n")
    assert gc.get_freeze_count() == collection
