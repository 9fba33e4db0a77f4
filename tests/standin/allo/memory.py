"""STAND-IN (tests only)."""


class Layout:
    def __init__(self, spec: str = "") -> None:
        self.spec = spec

    @staticmethod
    def Shard(axis):
        return ("S", axis)

    Replicate = ("R",)
