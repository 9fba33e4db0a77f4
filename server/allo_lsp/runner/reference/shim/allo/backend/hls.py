"""`allo.backend.hls` under the reference backend: no HLS tool is available."""


def is_available(backend: str = "vitis_hls") -> bool:
    return False
