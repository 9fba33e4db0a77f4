from pathlib import Path

import pytest

# The real reports live beside the repository (/work/shared), never inside it: see PROVENANCE.md there.
VITIS = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "vitis"


@pytest.fixture
def vitis() -> Path:
    if not VITIS.is_dir():
        pytest.skip(f"the shared Vitis fixtures are not here ({VITIS})")
    return VITIS
