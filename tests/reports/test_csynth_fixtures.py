"""Every real report in /work/shared/fixtures/vitis gives the figures written in it.

Each number below was read from the XML or .rpt file by eye, not from the parser's output.
"""

import json
import os

from allo_lsp.reports import Range, load, parse_report

GAUSSIAN = "hashi0203__Vitis_HLS_Gaussian__"
IMAGE = "RISABH-UG26__image_pros__"
SYSTOLIC = "kangaroo-0000__systolic-array-hls__"
VIT = "HanderRi__AMD-Pervasive-AI__csynth.xml"

# VITIS_LOOP_35_2's children in the 2023.2 report: four names come back a second time.
SYSTOLIC_INNER = [
    "VITIS_LOOP_126_1",
    "VITIS_LOOP_35_2.2",
    "VITIS_LOOP_93_1",
    "VITIS_LOOP_178_5",
    "VITIS_LOOP_226_7",
    "VITIS_LOOP_56_1",
    "VITIS_LOOP_71_3",
    "VITIS_LOOP_178_5",
    "VITIS_LOOP_226_7",
    "VITIS_LOOP_56_1",
    "VITIS_LOOP_71_3",
    "VITIS_LOOP_126_1",
    "VITIS_LOOP_35_2.13",
    "VITIS_LOOP_93_1",
]


def used_available(report):
    return {name: (r.used, r.available) for name, r in report.resources.items()}


def loops(items):
    return [(l.name, l.trip_count, l.latency, l.iteration_latency, l.ii, l.pipelined) for l in items]


def test_vitis_2020_2_gaussian(vitis):
    report = parse_report(vitis / f"{GAUSSIAN}csynth.xml")
    assert (report.version, report.part, report.top) == ("2020.2", "xczu7ev-ffvc1156-2-e", "gaussian")
    c = report.clock
    assert (c.target_ns, c.uncertainty_ns, c.estimated_ns, c.slack_ns) == (10.0, 2.7, 6.427, 0.873)
    assert (report.latency.best, report.latency.average, report.latency.worst) == (262673, 262673, 262673)
    assert report.interval == Range(262674, 262674)
    assert report.latency_ns == 2627000.0  # "2.627 ms"
    assert used_available(report) == {
        "BRAM_18K": (3, 624),
        "DSP": (0, 1728),
        "FF": (973, 460800),
        "LUT": (1870, 230400),
        "URAM": (0, 96),
    }
    assert report.resources["URAM"].percent == 0.0
    # Pipelined loops without an IterationLatency: the depth is the iteration latency, as in the .rpt.
    assert loops(report.loops) == [
        ("buf_x1", 2, 2, 1, 1, True),
        ("buf_x2", 512, 512, 1, 1, True),
        ("win_y_win_x", 4, 5, 2, 1, True),
        ("for_y_for_x", 262144, 262146, 4, 1, True),
    ]
    assert [l.latency_ns for l in report.loops] == [20.0, 5120.0, 50.0, 2621460.0]  # bare ns in 2020.2
    # No ModuleInformation before 2022: the one module is the top's own figures.
    assert [(m.name, m.depth, len(m.loops)) for m in report.modules] == [("gaussian", 0, 4)]


def test_per_module_file_is_the_same_report(vitis):
    design = parse_report(vitis / f"{GAUSSIAN}csynth.xml").to_json()
    assert parse_report(vitis / f"{GAUSSIAN}gaussian_csynth.xml").to_json() == design


def test_gaussian_project_directory_takes_modules_from_the_files_beside_csynth(vitis, tmp_path):
    report_dir = tmp_path / "out.prj" / "solution1" / "syn" / "report"
    report_dir.mkdir(parents=True)
    os.symlink(vitis / f"{GAUSSIAN}csynth.xml", report_dir / "csynth.xml")
    os.symlink(vitis / f"{GAUSSIAN}gaussian_csynth.xml", report_dir / "gaussian_csynth.xml")
    report = load(tmp_path)
    assert report.source == str(report_dir / "csynth.xml")
    assert [(m.name, m.latency.worst, m.depth) for m in report.modules] == [("gaussian", 262673, 0)]


def test_vitis_2022_2_outlined_pipeline_and_no_uram(vitis):
    report = parse_report(vitis / f"{IMAGE}csynth.xml")
    assert (report.version, report.part, report.top) == ("2022.2", "xc7z020-clg400-1", "image_pros")
    c = report.clock
    assert (c.target_ns, c.uncertainty_ns, c.estimated_ns, c.slack_ns) == (20.0, 0.5, 16.694, 2.806)
    assert (report.latency.best, report.latency.worst, report.interval) == (307208, 307208, Range(307209, 307209))
    assert report.latency_ns == 6144000.0  # "6.144 ms"
    assert used_available(report) == {
        "BRAM_18K": (2, 280),
        "DSP": (1, 220),
        "FF": (329, 106400),
        "LUT": (976, 53200),
        "URAM": (0, 0),
    }
    assert report.resources["URAM"].percent is None  # 0 available: no percentage, no ZeroDivisionError
    assert report.to_json()["resources"]["URAM"] == {"used": 0, "available": 0, "percent": None}
    assert report.loops == ()  # the loop was outlined into its own module
    top, pipeline = report.modules
    assert (top.name, top.depth, top.loops) == ("image_pros", 0, ())
    assert (pipeline.name, pipeline.depth) == ("image_pros_Pipeline_ROW_LOOP_COL_LOOP", 1)
    assert (pipeline.latency.worst, pipeline.interval) == (307203, Range(307203, 307203))
    assert used_available(pipeline) == {
        "BRAM_18K": (2, 280),
        "DSP": (0, 220),
        "FF": (138, 106400),
        "LUT": (737, 53200),
        "URAM": (0, 0),
    }
    assert loops(pipeline.loops) == [("ROW_LOOP_COL_LOOP", 307200, 307201, 2, 1, True)]
    assert pipeline.loops[0].latency_ns == 6144000.0  # "6.144 ms" in ModuleInformation


def test_vitis_2022_2_module_files(vitis):
    pipeline = parse_report(vitis / f"{IMAGE}image_pros_Pipeline_ROW_LOOP_COL_LOOP_csynth.xml")
    assert (pipeline.top, pipeline.latency.best, pipeline.interval) == (
        "image_pros_Pipeline_ROW_LOOP_COL_LOOP",
        307203,
        Range(307203, 307203),
    )
    assert loops(pipeline.loops) == [("ROW_LOOP_COL_LOOP", 307200, 307201, 2, 1, True)]
    assert pipeline.loops[0].latency_ns == 6144020.0  # the per-module file keeps bare ns even in 2022.2
    top = parse_report(vitis / f"{IMAGE}image_pros_csynth.xml")
    assert (top.top, top.latency.worst, top.loops, [m.name for m in top.modules]) == (
        "image_pros",
        307208,
        (),
        ["image_pros"],
    )


def test_vitis_2023_2_undef_and_repeated_loops(vitis):
    report = parse_report(vitis / f"{SYSTOLIC}csynth.xml")
    assert (report.version, report.part, report.top) == ("2023.2", "xcvu11p-flga2577-1-e", "systolic_array")
    c = report.clock
    # The loops' <Slack>7.30</Slack> is target - uncertainty, not the design's slack: -0.374 is.
    assert (c.target_ns, c.uncertainty_ns, c.estimated_ns, c.slack_ns) == (10.0, 2.7, 7.674, -0.374)
    data = report.to_json()
    assert data["latency"] == {"best": None, "average": None, "worst": None}
    assert data["interval"] == {"min": None, "max": None}
    assert used_available(report) == {
        "BRAM_18K": (27, 4032),
        "DSP": (10, 9216),
        "FF": (6891, 2592000),
        "LUT": (9516, 1296000),
        "URAM": (0, 960),
    }
    (outer,) = report.loops
    assert (outer.name, outer.trip_count, outer.latency, outer.iteration_latency) == (
        "VITIS_LOOP_35_2",
        None,
        None,
        None,
    )
    assert [l.name for l in outer.loops] == SYSTOLIC_INNER
    assert [l.name for l in outer.loops[1].loops] == ["VITIS_LOOP_143_2", "VITIS_LOOP_153_4"]
    assert [l.iteration_latency for l in outer.loops[1].loops] == [3, 2]
    assert [(m.name, m.depth) for m in report.modules] == [
        ("systolic_array", 0),
        ("systolic_array_Pipeline_VITIS_LOOP_23_1", 1),
        ("systolic_array_Pipeline_VITIS_LOOP_52_4", 1),
    ]
    top, first, second = report.modules
    assert [l.name for l in top.loops[0].loops] == SYSTOLIC_INNER
    assert loops(first.loops) == [("VITIS_LOOP_23_1", None, None, 2, 1, True)]
    assert loops(second.loops) == [("VITIS_LOOP_52_4", None, None, 2, 1, True)]
    assert used_available(first) == {
        "BRAM_18K": (0, 4032),
        "DSP": (0, 9216),
        "FF": (163, 2592000),
        "LUT": (44, 1296000),
        "URAM": (0, 960),
    }
    module_file = parse_report(vitis / f"{SYSTOLIC}systolic_array_csynth.xml")
    assert [l.name for l in module_file.loops[0].loops] == SYSTOLIC_INNER


def test_vitis_2022_2_sixty_three_modules_and_ranges(vitis):
    report = parse_report(vitis / VIT)
    assert (report.version, report.part, report.top) == ("2022.2", "xck26-sfvc784-2LV-c", "ViT_act")
    assert (report.clock.estimated_ns, report.clock.slack_ns) == (7.674, -0.374)
    assert report.latency.worst is None
    assert used_available(report) == {
        "BRAM_18K": (902, 288),
        "DSP": (1452, 1248),
        "FF": (172584, 234240),
        "LUT": (270827, 117120),
        "URAM": (0, 64),
    }
    assert (report.resources["BRAM_18K"].percent, report.resources["LUT"].percent) == (313.19, 231.24)
    assert [(l.name, l.trip_count, [(i.name, i.trip_count) for i in l.loops]) for l in report.loops] == [
        ("_ln124_for_each_image", 1, [("_ln131_for_each_layer", 12)])
    ]
    assert len(report.modules) == 63 and len({m.name for m in report.modules}) == 63
    assert [(m.name, m.depth) for m in report.modules[:4]] == [
        ("ViT_act", 0),
        ("load_one_time_weights", 1),
        ("load_one_time_weights_Pipeline_ln13_for_block_dim_out", 2),
        ("load_one_time_weights_Pipeline_ln29_for_each_channel_ln33_for_block_dim_out_l", 2),
    ]
    by_name = {m.name: m for m in report.modules}
    weights = by_name["load_linear_weights_Pipeline_ln46_for_each_src_block"]
    data = json.loads(json.dumps(report.to_json()))["modules"][report.modules.index(weights)]
    assert data["latency"] == {"best": 2, "average": None, "worst": 1047564}
    assert data["interval"] == {"min": 2, "max": 1047564}  # "2 ~ 1047564"
    assert data["loops"] == [
        {
            "name": "_ln46_for_each_src_block",
            "trip_count": {"min": 0, "max": 65472},
            "latency": {"min": 0, "max": 1047562},
            "iteration_latency": 27,
            "ii": 16,
            "pipelined": True,
            "loops": [],
        }
    ]
    assert weights.loops[0].latency_ns == Range(0.0, 10476000.0)  # "0 ns ~ 10.476 ms"
    norm = by_name["compute_norm"]
    assert norm.interval == Range(3196, 3198)
    # The dataflow-in-loop: its II is the dataflow throughput.
    assert loops(norm.loops) == [("_ln131_for_each_patch", 129, Range(3195, 3197), Range(3195, 3197), 24, True)]
    stage = by_name["dataflow_in_loop_ln131_for_each_patch"]
    assert (stage.latency.best, stage.latency.worst, stage.interval, stage.latency_ns) == (
        122,
        124,
        Range(24, 24),
        1240.0,
    )


def test_rpt_summaries(vitis):
    gaussian = parse_report(vitis / f"{GAUSSIAN}csynth.rpt")
    assert (gaussian.version, gaussian.part, gaussian.top) == ("2020.2", "xczu7ev-ffvc1156-2-e", "gaussian")
    assert gaussian.clock.slack_ns == 0.87  # printed as -0.87: 2020.2 negates it
    assert (gaussian.latency.best, gaussian.interval, gaussian.latency_ns) == (262673, Range(262674, 262674), 2627000.0)
    assert {n: r.used for n, r in gaussian.resources.items()} == {
        "BRAM_18K": 3,
        "DSP": 0,
        "FF": 973,
        "LUT": 1870,
        "URAM": 0,
    }
    assert loops(gaussian.loops) == [
        ("buf_x1", 2, 2, 1, 1, True),
        ("buf_x2", 512, 512, 1, 1, True),
        ("win_y_win_x", 4, 5, 2, 1, True),
        ("for_y_for_x", 262144, 262146, 4, 1, True),
    ]

    image = parse_report(vitis / f"{IMAGE}csynth.rpt")
    assert (image.version, image.clock.slack_ns, image.latency.worst) == ("2022.2", 2.81, 307208)
    assert [(m.name, m.depth) for m in image.modules] == [
        ("image_pros", 0),
        ("image_pros_Pipeline_ROW_LOOP_COL_LOOP", 1),
    ]
    assert loops(image.modules[1].loops) == [("ROW_LOOP_COL_LOOP", 307200, 307201, 2, 1, True)]
    assert image.loops == ()

    systolic = parse_report(vitis / f"{SYSTOLIC}csynth.rpt")
    assert (systolic.version, systolic.clock.slack_ns, systolic.latency.worst) == ("2023.2", -0.37, None)
    assert [m.name for m in systolic.modules] == [
        "systolic_array",
        "systolic_array_Pipeline_VITIS_LOOP_23_1",
        "systolic_array_Pipeline_VITIS_LOOP_52_4",
    ]
    assert [l.name for l in systolic.loops[0].loops] == SYSTOLIC_INNER
    assert loops(systolic.modules[1].loops) == [("VITIS_LOOP_23_1", None, None, 2, 1, True)]
