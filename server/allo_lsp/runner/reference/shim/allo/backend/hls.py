"""`allo.backend.hls` under the reference backend: no HLS tool is available, unless csim is
emulated (`emulate.py`), in which case `vitis_hls`/`vhls` csim modules run on the executor."""

from allo_lsp.runner.reference import emulate


def is_available(backend: str = "vitis_hls") -> bool:
    return backend in ("vitis_hls", "vhls") and emulate.enabled("csim")
