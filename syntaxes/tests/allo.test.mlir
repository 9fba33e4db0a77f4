// SYNTAX TEST "source.mlir" "MLIR of an Allo dataflow region"
// The module Allo builds for region `top`.
// <- comment.line.double-slash.mlir punctuation.definition.comment.mlir
#map = affine_map<(d0) -> (d0)>
// <- constant.other.attribute-alias.mlir
//     ^^^^^^^^^^ keyword.other.mlir
module {
// <- keyword.other.mlir
  func.func @top(%arg0: memref<16x16xi32>, %arg1: memref<1xi32>) attributes {itypes = "ss", otypes = ""} {
//^^^^^^^^^ storage.type.function.mlir
//          ^^^^ entity.name.function.symbol.mlir
//               ^^^^^ variable.other.ssa.mlir
//                      ^^^^^^ support.type.builtin.mlir
//                            ^ punctuation.definition.type.begin.mlir
//                             ^^ constant.numeric.dimension.mlir
//                               ^ punctuation.separator.dimension.mlir
//                                   ^^^ support.type.builtin.mlir
//                                      ^ punctuation.definition.type.end.mlir
//                                                               ^^^^^^^^^^ keyword.other.mlir
//                                                                           ^^^^^^ entity.other.attribute-name.mlir
//                                                                                  ^ keyword.operator.assignment.mlir
//                                                                                    ^^^^ string.quoted.double.mlir
    %0 = allo.stream_construct() : () -> !allo.stream<i32, 4>
//  ^^ variable.other.ssa.mlir
//       ^^^^^^^^^^^^^^^^^^^^^ keyword.other.operation.allo.mlir
//                                    ^^ punctuation.separator.arrow.mlir
//                                       ^ punctuation.definition.type.mlir
//                                        ^^^^^^^^^^^ support.type.dialect.mlir
//                                                    ^^^ support.type.builtin.mlir
//                                                         ^ constant.numeric.mlir
    %c0 = arith.constant 0 : index
//        ^^^^^^^^^^^^^^ keyword.other.operation.mlir
//                       ^ constant.numeric.mlir
//                           ^^^^^ support.type.builtin.mlir
    %1 = memref.load %arg1[%c0] : memref<1xi32>
//                         ^^^ variable.other.ssa.mlir
    allo.stream_put %0, %1 : !allo.stream<i32, 4>, i32
//  ^^^^^^^^^^^^^^^ keyword.other.operation.allo.mlir
    call @producer_0(%arg0) : (memref<16x16xi32>) -> ()
//       ^^^^^^^^^^^ entity.name.function.symbol.mlir
    return
//  ^^^^^^ keyword.other.mlir
  }
  func.func private @consumer_0(%arg0: memref<16xi32>) {
//          ^^^^^^^ storage.modifier.mlir
  ^bb0:
//^^^^ entity.name.label.mlir
    return
  }
}
