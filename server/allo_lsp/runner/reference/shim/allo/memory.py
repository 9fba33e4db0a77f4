"""`allo.memory` under the reference backend: layouts as the executor reads them."""


class Layout:
    @staticmethod
    def Shard(axis):  # noqa: N802 - Allo's spelling
        return ("S", axis)

    Replicate = ("R",)
