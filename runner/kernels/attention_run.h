// attention_run.h: attention forward (kernels/attention/) in the SM90 model.
//
// Q is [batch, heads, seqlen_q, head_dim], K and V [batch, kv_heads,
// seqlen_k, head_dim], O like Q, all BF16 (or all FP16) with head_dim contiguous, and LSE
// [batch, heads, seqlen_q rounded up to 4] in FP32 (natural log): the
// rounding keeps the rows of two (batch, head) pairs, written by different
// CTAs, out of one 16-byte line, which is also the race detector's granule
// for global memory. The check is an independent
// FP64 softmax(Q K^T * scale) V over the 16-bit inputs, with the causal mask
// aligned to the bottom right, against O and LSE.
#pragma once

#include <cstdint>
#include <string>

#include "runner/kernels/sm100_matmul_run.h"
#include "runner/result/run_result.h"

namespace sk::sim {

struct AttentionShape {
  uint32_t batch = 1, heads = 1, kv_heads = 1, seqlen_q = 1, seqlen_k = 1, head_dim = 128;
  bool causal = false;
  bool f16 = false;  // Q, K, V and O in FP16 (IEEE half) instead of BF16
  // Test data: K's row r of each matrix scaled by 1 + r / 32, so scores grow
  // along the keys and a row's maximum grows block after block (the online
  // softmax rescales O at most blocks; with N(0, 1) data it almost never
  // needs to once the first block set the maximum).
  bool ramp = false;
  // 4 * batch * heads * seqlen_q * seqlen_k * head_dim (the two GEMMs),
  // half of it when causal: the count FlashAttention reports.
  double flops() const;
};

struct AttentionRequest {
  AttentionShape shape;
  float softmax_scale = 0;  // 0: 1 / sqrt(head_dim)
  // sm90: record the kernel's probe points (runner/kernels/attention_stamps.h)
  // into the result's "stamps"; the prediction is the same either way.
  bool stamp_tiles = false;
  // Arch, stages (of the K and V rings), seed, mode, trace and bounds; its
  // m, n, k and tile_n are ignored.
  MatmulRequest run;
};

// Empty when the request can run, else a one-line reason.
std::string validate_attention(const AttentionRequest& req);
RunResult run_attention(const AttentionRequest& req);

}  // namespace sk::sim
