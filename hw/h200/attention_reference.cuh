// attention_reference.cuh: attention_bench's inputs and its independent
// check: random 16-bit inputs (fill_random), an FP32 reference kernel for
// softmax(Q K^T * scale) V and the log-sum-exp (reference_attention), and the
// comparison of the kernel's O and LSE with it (compare). The tolerances and
// what each pass computes are in hw/h200/attention_bench.cu's header.
//
// Invariants: the reference takes only the 16-bit inputs, never the kernel's
// intermediate values; a row that sees no key must have O = 0 and LSE = -inf.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "hw/h200/bench_common.cuh"
#include "kernels/core/numeric.h"

namespace sk::bench::attention_reference {

__global__ void fill_random(uint16_t* p, uint64_t count, uint64_t seed, bool f16) {
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += uint64_t{gridDim.x} * blockDim.x) {
    const float u = sk::bench::random_unit(i, seed) * 4.0f - 2.0f;
    p[i] = f16 ? sk::to_f16(u).bits : sk::to_bf16(u).bits;
  }
}

__device__ float elem_value(uint16_t bits, bool f16) {
  return f16 ? sk::to_float(sk::f16_t{bits}) : sk::to_float(sk::bf16_t{bits});
}

// The number of keys query row r sees: c < visible(r).
__host__ __device__ uint32_t visible_keys(uint32_t r, uint32_t sq, uint32_t sk, bool causal) {
  if (!causal) return sk;
  const int64_t end = int64_t{r} + sk - int64_t{sq} + 1;
  return end <= 0 ? 0u : end >= sk ? sk : static_cast<uint32_t>(end);
}

// FP32 reference: a block of 256 threads takes kRefRows query rows of one
// (batch, head), thread t computing for row t / 8; keys go through shared
// memory kRefKeys at a time.
constexpr int kRefRows = 32, kRefKeys = 16, kRefThreads = 256;
constexpr int kRefPer = kRefKeys / 8;  // scores per thread

struct RefArgs {
  const uint16_t *q, *k, *v;
  float *o, *lse, *vmax;  // o [B, H, SQ, D]; lse and vmax [B, H, SQ]
  uint32_t heads, kv_heads, sq, sk;
  float scale;
  bool causal;
  bool f16;  // Q, K and V are FP16 (else BF16)
};

// Its shared memory (dynamic: 67 KB at head dim 256): Q rows, K and V keys
// and the scores, padded against bank conflicts.
template <int D>
struct RefSmem {
  float qs[kRefRows][D + 1];
  float ks[kRefKeys][D + 1];
  float vs[kRefKeys][D];
  float ps[kRefRows][kRefKeys + 1];
};

template <int D>
__global__ void __launch_bounds__(kRefThreads) reference_attention(RefArgs a) {
  extern __shared__ float ref_smem[];
  RefSmem<D>& sm = *reinterpret_cast<RefSmem<D>*>(ref_smem);
  auto& qs = sm.qs;
  auto& ks = sm.ks;
  auto& vs = sm.vs;
  auto& ps = sm.ps;
  const uint32_t head = blockIdx.y, batch = blockIdx.z;
  const uint32_t kv_head = head / (a.heads / a.kv_heads);
  const uint64_t qm = uint64_t{batch} * a.heads + head, kvm = uint64_t{batch} * a.kv_heads + kv_head;
  const uint32_t r0 = blockIdx.x * kRefRows;
  const uint32_t tid = threadIdx.x, lr = tid / 8, sub = tid % 8;
  const uint32_t row = r0 + lr;
  const bool live = row < a.sq;
  const uint32_t vis = live ? visible_keys(row, a.sq, a.sk, a.causal) : 0;
  const uint32_t last_row = min(a.sq, r0 + kRefRows) - 1;
  const uint32_t keys = visible_keys(last_row, a.sq, a.sk, a.causal);  // the block's widest row
  const uint16_t* q = a.q + qm * a.sq * D;
  const uint16_t* k = a.k + kvm * a.sk * D;
  const uint16_t* v = a.v + kvm * a.sk * D;
  for (uint32_t i = tid; i < kRefRows * D; i += kRefThreads) {
    const uint32_t r = r0 + i / D;
    qs[i / D][i % D] = r < a.sq ? elem_value(q[uint64_t{r} * D + i % D], a.f16) : 0.0f;
  }
  // Scores of row lr with keys c0 + kRefPer * sub + j (-inf where not visible).
  auto scores = [&](uint32_t c0, float (&s)[kRefPer]) {
    for (int j = 0; j < kRefPer; ++j) s[j] = 0.0f;
    for (int d = 0; d < D; ++d) {
      const float x = qs[lr][d];
      for (int j = 0; j < kRefPer; ++j) s[j] = fmaf(x, ks[kRefPer * sub + j][d], s[j]);
    }
    for (int j = 0; j < kRefPer; ++j)
      if (c0 + kRefPer * sub + j >= vis) s[j] = -INFINITY;
  };
  auto load_k = [&](uint32_t c0) {
    for (uint32_t i = tid; i < kRefKeys * D; i += kRefThreads) {
      const uint32_t c = c0 + i / D;
      ks[i / D][i % D] = c < a.sk ? elem_value(k[uint64_t{c} * D + i % D], a.f16) : 0.0f;
    }
  };
  __syncthreads();
  float mx = -INFINITY;
  for (uint32_t c0 = 0; c0 < keys; c0 += kRefKeys) {
    load_k(c0);
    __syncthreads();
    float s[kRefPer];
    scores(c0, s);
    for (int j = 0; j < kRefPer; ++j) mx = fmaxf(mx, s[j]);
    __syncthreads();
  }
  for (int off = 1; off < 8; off *= 2) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
  float acc[D / 8];
  for (int j = 0; j < D / 8; ++j) acc[j] = 0.0f;
  float sum = 0.0f, vmax = 0.0f;
  for (uint32_t c0 = 0; c0 < keys; c0 += kRefKeys) {
    load_k(c0);
    for (uint32_t i = tid; i < kRefKeys * D; i += kRefThreads) {
      const uint32_t c = c0 + i / D;
      vs[i / D][i % D] = c < a.sk ? elem_value(v[uint64_t{c} * D + i % D], a.f16) : 0.0f;
    }
    __syncthreads();
    float s[kRefPer];
    scores(c0, s);
    for (int j = 0; j < kRefPer; ++j) {
      const float pj = s[j] == -INFINITY ? 0.0f : expf((s[j] - mx) * a.scale);
      ps[lr][kRefPer * sub + j] = pj;
      sum += pj;
    }
    __syncthreads();
    for (int c = 0; c < kRefKeys; ++c) {
      const float pc = ps[lr][c];
      const bool seen = c0 + c < vis;
      for (int j = 0; j < D / 8; ++j) {
        const float x = vs[c][sub + 8 * j];
        acc[j] = fmaf(pc, x, acc[j]);
        if (seen) vmax = fmaxf(vmax, fabsf(x));
      }
    }
    __syncthreads();
  }
  for (int off = 1; off < 8; off *= 2) {
    sum += __shfl_xor_sync(0xffffffffu, sum, off);
    vmax = fmaxf(vmax, __shfl_xor_sync(0xffffffffu, vmax, off));
  }
  if (!live) return;
  const uint64_t at = qm * a.sq + row;
  for (int j = 0; j < D / 8; ++j) a.o[at * D + sub + 8 * j] = vis > 0 ? acc[j] / sum : 0.0f;
  if (sub == 0) {
    a.lse[at] = vis > 0 ? mx * a.scale + logf(sum) : -INFINITY;
    a.vmax[at] = vmax;
  }
}

struct Stats {
  uint32_t max_o_err_bits, max_lse_err_bits;  // non-negative floats (NaN -> +inf)
  unsigned long long o_fails, lse_fails;
};

// NaN counts as +inf.
__device__ float err_value(float x) { return x != x ? INFINITY : x; }

// One thread per O element (and, for column 0, the row's LSE); each warp
// reduces its lanes' figures and adds them to `st` once.
__global__ void compare(const uint16_t* o, const float* lse, const float* o_ref, const float* lse_ref,
                        const float* vmax, uint64_t rows, uint32_t d, uint32_t sq, uint32_t lse_stride,
                        bool f16, Stats* st) {
  // The element type's unit roundoff: P is rounded to it before P V, O at the end.
  const float eps = f16 ? 0.00048828125f : 0.00390625f;
  float o_err = 0.0f, lse_err = 0.0f;
  uint32_t o_fails = 0, lse_fails = 0;
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < rows * d;
       i += uint64_t{gridDim.x} * blockDim.x) {
    const uint64_t r = i / d;
    const float x = elem_value(o[i], f16), y = o_ref[i];
    const float err = fabsf(x - y);
    const float tol = 2 * eps * vmax[r] + eps * fabsf(y);
    o_err = fmaxf(o_err, err_value(err));
    if (!(err <= tol)) ++o_fails;  // NaN fails
    if (i % d == 0) {
      const float l = lse[r / sq * lse_stride + r % sq], lr = lse_ref[r];
      float e;
      bool ok;
      if (lr == -INFINITY) {
        ok = l == -INFINITY;
        e = ok ? 0.0f : INFINITY;
      } else {
        e = fabsf(l - lr) / fmaxf(fabsf(lr), 1.0f);
        ok = e <= 1e-3f;
      }
      lse_err = fmaxf(lse_err, err_value(e));
      if (!ok) ++lse_fails;
    }
  }
  for (int off = 16; off > 0; off /= 2) {
    o_err = fmaxf(o_err, __shfl_xor_sync(0xffffffffu, o_err, off));
    lse_err = fmaxf(lse_err, __shfl_xor_sync(0xffffffffu, lse_err, off));
    o_fails += __shfl_xor_sync(0xffffffffu, o_fails, off);
    lse_fails += __shfl_xor_sync(0xffffffffu, lse_fails, off);
  }
  if (threadIdx.x % 32 == 0) {
    atomicMax(&st->max_o_err_bits, __float_as_uint(o_err));  // non-negative: bits order as values
    atomicMax(&st->max_lse_err_bits, __float_as_uint(lse_err));
    atomicAdd(&st->o_fails, static_cast<unsigned long long>(o_fails));
    atomicAdd(&st->lse_fails, static_cast<unsigned long long>(lse_fails));
  }
}

}  // namespace sk::bench::attention_reference
