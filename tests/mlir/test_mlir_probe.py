"""The probe design that tells an Allo build's argument order from its compiled signature."""

from allo_lsp.analysis import analyze
from allo_lsp.mlir import PROBE_SOURCE, reorders_arguments
from allo_lsp.mlir.probe import DECLARATION_ORDER, KERNEL_APPEARANCE_ORDER, PROBE_REGION
from conftest import fixture, region_of


def test_probe_is_clean_but_for_the_order_hazard_it_measures():
    problems = analyze(PROBE_SOURCE).problems
    order_hazard = ("ADF003", {"region": "probe_top", "order": ["a", "c", "b"]})
    assert [(p.code, p.data) for p in problems] == [order_hazard]


def test_expected_orders_are_the_analysis_own():
    region = region_of(PROBE_SOURCE)
    assert region.name == PROBE_REGION
    assert [p.name for p in region.params] == ["a", "b", "c"]
    assert tuple(p.type.mlir for p in region.signature_for("fixed")) == DECLARATION_ORDER
    assert tuple(p.type.mlir for p in region.signature_for("legacy")) == KERNEL_APPEARANCE_ORDER
    assert len(set(DECLARATION_ORDER)) == 3  # distinct types: the order reads from types alone


def test_reorders_arguments(mlir_bindings):
    assert reorders_arguments(fixture("probe_fixed.mlir")) is False
    assert reorders_arguments(fixture("probe_legacy.mlir")) is True


def test_undeterminable(mlir_bindings):
    assert reorders_arguments("func.func @probe_top(") is None
    assert reorders_arguments(fixture("producer_consumer_fixed.mlir")) is None  # another design's top
