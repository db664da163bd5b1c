// operand_layout.h: which dimension of a GEMM operand is contiguous in memory.
//
// D = A * B^T with A an M x K tile source and B an N x K one. K-major (the
// default) means K is contiguous: A row-major, B column-major as BLAS calls a
// K x N matrix. MN-major means M (for A) or N (for B) is contiguous: A
// column-major, B row-major. The tensor cores read both from shared memory
// (the descriptors' major-ness); the loaders bring the tile in the layout the
// global tensor has, and the TileOp tells the MMA which one it is.
#pragma once

#include <cstdint>

namespace sk {

struct OperandLayouts {
  uint32_t a_mn_major = 0;  // 1: A is M-contiguous (column-major)
  uint32_t b_mn_major = 0;  // 1: B is N-contiguous (row-major K x N)
};

}  // namespace sk
