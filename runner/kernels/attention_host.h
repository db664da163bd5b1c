// attention_host.h: the host side of an attention launch that the runner
// (attention_run.cc) and the verifier's attention cases (verify/corpus/)
// share: the tensors in global memory with random BF16 or FP16 data, the tensor maps
// and kernel parameters, and the FP64 reference check of O and LSE.
//
// Layout (kernels/attention/sm90_attention.h): Q and O [batch, heads,
// seqlen_q, head_dim], K and V [batch, kv_heads, seqlen_k, head_dim], BF16
// or FP16 (AttentionShape::f16),
// head_dim contiguous; LSE [batch, heads, lse_stride] FP32 with lse_stride
// seqlen_q rounded up to 4 (rows of two (batch, head) pairs, written by
// different CTAs, never share a 16-byte line: the race detector's granule).
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>

#include "kernels/core/numeric.h"
#include "models/sm100/gpu.h"
#include "models/sm100/tensor_map.h"
#include "runner/kernels/attention_run.h"
#include "runner/result/run_result.h"

namespace sk::sim {

struct AttentionBuffers {
  uint64_t q = 0, k = 0, v = 0, o = 0, lse = 0;
  uint32_t lse_stride = 0;
};

// Allocates the tensors of `s` and, in functional mode, fills Q, K and V with
// N(0, 1) values rounded to the element type from `rng`.
AttentionBuffers allocate_attention(models::sm100::Gpu& gpu, const AttentionShape& s,
                                    std::mt19937_64& rng);

// A rank-3 tiled map of [matrices][rows][d] 16-bit elements: box {64,
// box_rows, 1}, 128B swizzle. Returns the encoder's error, or "".
std::string encode_attention_map(models::sm100::TensorMapModel& map, uint64_t base, uint32_t d,
                                 uint32_t rows, uint32_t matrices, uint32_t box_rows);

// The FP64 check of O and LSE (functional mode, after the run).
CheckResult check_attention(models::sm100::Gpu& gpu, const AttentionShape& s,
                            const AttentionBuffers& b, float softmax_scale);

// Fills a kernel's Params (kernels/attention/sm90_attention.h) for `s` and
// the buffers, K and V in boxes of `kv_rows` rows (the config's BN); throws
// std::invalid_argument when a map cannot be encoded.
template <class P>
P attention_params(const AttentionShape& s, const AttentionBuffers& b, float softmax_scale,
                   uint32_t kv_rows) {
  P p{};
  auto encode = [](models::sm100::TensorMapModel& map, uint64_t base, uint32_t d, uint32_t rows,
                   uint32_t matrices, uint32_t box_rows) {
    if (std::string err = encode_attention_map(map, base, d, rows, matrices, box_rows); !err.empty())
      throw std::invalid_argument(err);
  };
  encode(p.q, b.q, s.head_dim, s.seqlen_q, s.batch * s.heads, 128);
  encode(p.k, b.k, s.head_dim, s.seqlen_k, s.batch * s.kv_heads, kv_rows);
  encode(p.v, b.v, s.head_dim, s.seqlen_k, s.batch * s.kv_heads, kv_rows);
  p.o = reinterpret_cast<decltype(p.o)>(b.o);
  p.lse = reinterpret_cast<float*>(b.lse);
  p.lse_stride = b.lse_stride;
  p.batch = s.batch;
  p.heads = s.heads;
  p.kv_heads = s.kv_heads;
  p.seqlen_q = s.seqlen_q;
  p.seqlen_k = s.seqlen_k;
  p.softmax_scale = softmax_scale > 0 ? softmax_scale : 1.0f / std::sqrt(static_cast<float>(s.head_dim));
  p.causal = s.causal ? 1 : 0;
  return p;
}

// The SM100 kernel's Params (kernels/attention/sm100_attention.h): Q, K and
// V as above with boxes of 128 rows, O by TMA store (boxes of 32 x 32, 64B
// swizzle) and LSE by TMA store (FP32 rows of lse_stride, boxes of 32).
template <class P>
P sm100_attention_params(const AttentionShape& s, const AttentionBuffers& b, float softmax_scale) {
  P p{};
  auto check = [](const std::string& err) {
    if (!err.empty()) throw std::invalid_argument(err);
  };
  check(encode_attention_map(p.q, b.q, s.head_dim, s.seqlen_q, s.batch * s.heads, 128));
  check(encode_attention_map(p.k, b.k, s.head_dim, s.seqlen_k, s.batch * s.kv_heads, 128));
  check(encode_attention_map(p.v, b.v, s.head_dim, s.seqlen_k, s.batch * s.kv_heads, 128));
  {
    const uint64_t dims[3] = {s.head_dim, s.seqlen_q, uint64_t{s.batch} * s.heads};
    const uint64_t strides[2] = {uint64_t{s.head_dim} * 2, uint64_t{s.head_dim} * s.seqlen_q * 2};
    check(models::sm100::encode_tiled_3d(p.o, b.o, 2, dims, strides, 32, 32,
                                         models::sm100::Swizzle::k64B));
  }
  check(models::sm100::encode_tiled_2d(p.lse, b.lse, 4, s.seqlen_q, uint64_t{s.batch} * s.heads,
                                       uint64_t{b.lse_stride} * 4, 32, 1,
                                       models::sm100::Swizzle::kNone));
  p.batch = s.batch;
  p.heads = s.heads;
  p.kv_heads = s.kv_heads;
  p.seqlen_q = s.seqlen_q;
  p.seqlen_k = s.seqlen_k;
  p.softmax_scale = softmax_scale > 0 ? softmax_scale : 1.0f / std::sqrt(static_cast<float>(s.head_dim));
  p.causal = s.causal ? 1 : 0;
  return p;
}

}  // namespace sk::sim
