"""STAND-IN (tests only): no Vitis HLS here."""


def is_available(backend: str = "vitis_hls") -> bool:
    return False
