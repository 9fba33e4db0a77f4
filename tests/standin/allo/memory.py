"""STAND-IN (tests only)."""


class Layout:
    def __init__(self, spec: str = "") -> None:
        self.spec = spec

    @staticmethod
    def Shard(axis):  # noqa: N802
        return ("S", axis)

    Replicate = ("R",)
