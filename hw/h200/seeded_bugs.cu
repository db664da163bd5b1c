// seeded_bugs.cu: the SM90 seeded-bug corpus (verify/corpus/sm90_mutant_matmul.h)
// on a real Hopper GPU, one variant per process, for running under
// compute-sanitizer (see run_seeded_bugs.sh).
//
//   seeded_bugs --bug NAME     (fixed, early_release, no_full_wait, expect_tx_low,
//                               expect_tx_high, parity_fixed, empty_count_low,
//                               store_unbounded, empty_not_initialised)
//
// Runs D = A B^T for 300 x 260 x 192 (random BF16, D allocated exactly and
// poisoned) on 2 CTAs and prints "result NAME ok|mismatch|error" after comparing
// with an FP64 host reference (relative Frobenius error < 1e-2). A variant that
// hangs never prints: the caller's timeout reports it.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "verify/corpus/sm90_mutant_matmul.h"

namespace {
using sk::corpus::Sm90Bug;
using sk::corpus::Sm90Mutant;

constexpr uint32_t kM = 300, kN = 260, kK = 192, kLd = 192, kLdd = 264;

template <Sm90Bug B>
__global__ void __launch_bounds__(384, 1) mutant(const __grid_constant__ typename Sm90Mutant<B>::Params p) {
  Sm90Mutant<B>::run(p);
}

CUtensorMap map_of(void* base, uint64_t rows) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q) !=
          cudaSuccess ||
      fn == nullptr)
    std::exit(2);
  CUtensorMap m;
  const cuuint64_t dims[2] = {kK, rows};
  const cuuint64_t strides[1] = {kLd * 2};
  const cuuint32_t box[2] = {64, 128}, es[2] = {1, 1};
  if (reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn)(
          &m, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, base, dims, strides, box, es,
          CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
          CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS)
    std::exit(2);
  return m;
}

template <Sm90Bug B>
int run(const char* name) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<uint16_t> a(kM * kLd), b(kN * kLd);
  for (auto& x : a) x = sk::to_bf16(dist(rng)).bits;
  for (auto& x : b) x = sk::to_bf16(dist(rng)).bits;
  void *da, *db, *dd;
  if (cudaMalloc(&da, a.size() * 2) || cudaMalloc(&db, b.size() * 2) || cudaMalloc(&dd, kM * kLdd * 2))
    return 2;
  cudaMemcpy(da, a.data(), a.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), b.size() * 2, cudaMemcpyHostToDevice);
  cudaMemset(dd, 0xff, kM * kLdd * 2);
  typename Sm90Mutant<B>::Params p{};
  p.a = map_of(da, kM);
  p.b = map_of(db, kN);
  p.d = static_cast<sk::bf16_t*>(dd);
  p.m = kM;
  p.n = kN;
  p.k = kK;
  p.ldd = kLdd;
  cudaFuncSetAttribute(mutant<B>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       static_cast<int>(Sm90Mutant<B>::kSmemBytes));
  mutant<B><<<2, 384, Sm90Mutant<B>::kSmemBytes>>>(p);
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::printf("result %s error (%s)\n", name, cudaGetErrorString(e));
    return 1;
  }
  std::vector<uint16_t> d(kM * kLdd);
  cudaMemcpy(d.data(), dd, d.size() * 2, cudaMemcpyDeviceToHost);
  double num = 0, den = 0;
  for (uint32_t i = 0; i < kM; ++i)
    for (uint32_t j = 0; j < kN; ++j) {
      double ref = 0;
      for (uint32_t k = 0; k < kK; ++k)
        ref += double{sk::to_float(sk::bf16_t{a[i * kLd + k]})} * sk::to_float(sk::bf16_t{b[j * kLd + k]});
      const double got = sk::to_float(sk::bf16_t{d[i * kLdd + j]});
      num += std::isnan(got) ? 1e30 : (got - ref) * (got - ref);
      den += ref * ref;
    }
  const bool ok = std::sqrt(num / den) < 1e-2;
  std::printf("result %s %s\n", name, ok ? "ok" : "mismatch");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string bug = argc == 3 && std::strcmp(argv[1], "--bug") == 0 ? argv[2] : "";
  if (bug == "fixed") return run<Sm90Bug::kNone>("fixed");
  if (bug == "early_release") return run<Sm90Bug::kEarlyRelease>("early_release");
  if (bug == "no_full_wait") return run<Sm90Bug::kNoFullWait>("no_full_wait");
  if (bug == "expect_tx_low") return run<Sm90Bug::kExpectTxLow>("expect_tx_low");
  if (bug == "expect_tx_high") return run<Sm90Bug::kExpectTxHigh>("expect_tx_high");
  if (bug == "parity_fixed") return run<Sm90Bug::kParityFixed>("parity_fixed");
  if (bug == "empty_count_low") return run<Sm90Bug::kEmptyCountLow>("empty_count_low");
  if (bug == "store_unbounded") return run<Sm90Bug::kStoreUnbounded>("store_unbounded");
  if (bug == "empty_not_initialised") return run<Sm90Bug::kEmptyNotInitialised>("empty_not_initialised");
  std::fprintf(stderr, "seeded_bugs: --bug NAME (see the file header)\n");
  return 2;
}
