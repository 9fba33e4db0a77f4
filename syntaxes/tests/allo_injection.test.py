# SYNTAX TEST "source.python" "Allo constructs injected into Python"
import allo.dataflow as df
from allo.ir.types import int32, UInt, Fixed, Stream


@df.region()
# <- punctuation.definition.decorator.python
#^^ support.module.allo
#  ^ punctuation.separator.period.python
#   ^^^^^^ entity.name.function.decorator.allo.region
#         ^ punctuation.definition.arguments.begin.python
#          ^ punctuation.definition.arguments.end.python
def top(A: int32[16], B: UInt(8)[16], C: Fixed(12, 4)[4]):
#          ^^^^^ support.type.allo
#                        ^^^^ support.type.allo
#                                        ^^^^^ support.type.allo
    pipe: Stream[int32, 4]
#         ^^^^^^ support.type.allo.stream
#                ^^^^^ support.type.allo

    @df.kernel(mapping=[P0, P1], args=[A, B])
#    ^^ support.module.allo
#       ^^^^^^ entity.name.function.decorator.allo.kernel
#              ^^^^^^^ keyword.other.allo.mapping
#                     ^ keyword.operator.assignment.python
#                                ^^^^ keyword.other.allo.args
#   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ meta.function.decorator.allo
    def producer(local_A: int32[16]):
        i, j = df.get_pid()
#              ^^ support.module.allo
#                 ^^^^^^^ support.function.allo
        with allo.meta_if(i == 0):
#            ^^^^ support.module.allo
#                 ^^^^^^^ keyword.control.flow.allo
            pipe.put(local_A[0])
        with allo.meta_elif(j > 0):
#                 ^^^^^^^^^ keyword.control.flow.allo
            pass
        with allo.meta_else():
#                 ^^^^^^^^^ keyword.control.flow.allo
            pass
        with allo.meta_for(4) as k:
#                 ^^^^^^^^ keyword.control.flow.allo
            pass

    @df.kernel(
        mapping=[1],
#       ^^^^^^^ keyword.other.allo.mapping
        args=[B],
#       ^^^^ keyword.other.allo.args
    )
    def consumer(local_B: "uint8[16]"):
        pid = get_pid()
#             ^^^^^^^ support.function.allo
        pass


# Not Allo: numpy dtypes, keyword arguments of other calls, names in strings and comments.
x = np.int32(3)
#      ^^^^^ - support.type.allo
y = f(mapping=1, args=2)
#     ^^^^^^^ - keyword.other.allo.mapping
s = "int32"
#    ^^^^^ - support.type.allo
# int32 Stream
# ^^^^^ - support.type.allo
mod = df.build(top, target="simulator")
#        ^^^^^ support.function.allo
