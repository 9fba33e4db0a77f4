"""The workspace's record of its cluster jobs (`jobs/registry.py`) read as hostile: a file no
server wrote costs nothing but itself, an entry that is not a submitted job is left out, and
what is kept is private (`jobs/storage.py`)."""

import json
import os
import stat

import pytest
from allo_lsp.jobs.registry import FILE, Registry, Submitted


def _entry(job_id: str = "42", **fields) -> dict:
    return {
        "job_id": job_id,
        "region": "top",
        "file": "/w/design.py",
        "job_dir": "/w/jobs/1",
        "submitted_at": 1.0,
        **fields,
    }


@pytest.mark.parametrize(
    "text",
    ["[" * 100_000 + "]" * 100_000, "[1, 2]", '{"other": []}', '{"jobs": 5}', "{ half", '"jobs"'],
    ids=["deep", "list", "no jobs", "jobs not a list", "not JSON", "a string"],
)
def test_a_hostile_registry_is_set_aside_and_a_new_job_recorded(tmp_path, text):
    (tmp_path / FILE).write_text(text)
    registry = Registry(str(tmp_path))
    assert registry.entries() == []
    assert (tmp_path / f"{FILE}.unreadable").read_text() == text  # kept to look at
    registry.add(Submitted.from_dict(_entry()))
    assert [e.job_id for e in registry.entries()] == ["42"]


def test_entries_that_are_not_submitted_jobs_are_left_out_and_the_others_kept(tmp_path):
    jobs = [
        _entry("1"),
        _entry("2", settings={"partition": "fpga", "unknown": 1, "cpus": "8"}),  # unknown key, wrong type: dropped
        _entry("3", points="many"),  # `follow` ran range("many")
        _entry("4", points=True),
        _entry("5", job_dir=None),
        {"job_id": "6"},  # field-less
        _entry("7", settings=[1]),
        _entry("8", submitted_at="yesterday"),
        "not an object",
        _entry("", region="top"),
    ]
    (tmp_path / FILE).write_text(json.dumps({"jobs": jobs}))
    entries = Registry(str(tmp_path)).entries()
    assert [e.job_id for e in entries] == ["1", "2"]
    assert entries[1].settings == {"partition": "fpga"}


def test_the_registry_is_private_whatever_the_umask(tmp_path):
    storage = tmp_path / "state" / "storage"
    old = os.umask(0o022)
    try:
        Registry(str(storage)).add(Submitted.from_dict(_entry()))
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(storage).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(tmp_path / "state").st_mode) == 0o700
    for file in (storage / FILE, storage / f"{FILE}.lock"):
        assert stat.S_IMODE(os.stat(file).st_mode) == 0o600, file
