// l2_sides.cuh: sections 9-11 of l2_stream.cu (reuse, halves, smids), what
// the two halves of L2 hold and which SMs sit beside which
// (docs/hardware.md, "Two halves of L2"): their kernels and host loops.
// Included by l2_stream.cu inside its anonymous namespace, after the stream
// helpers (stream_boxes, map2d, timed, g_sms, CK) it uses; not a header of its
// own.
#pragma once

// 9: CTA c reads, on pass p, the `kblocks` 128 x 64 boxes of row block
// (c + p * rotate) mod gridDim.x, k-block after k-block, `inflight` loads
// outstanding.
__global__ void reuse_stream(const __grid_constant__ CUtensorMap map, uint32_t kblocks, uint32_t passes,
                             uint32_t rotate, uint32_t inflight) {
  if (threadIdx.x != 0) return;
  stream_boxes(map, inflight, passes * kblocks, [=](uint32_t i) {
    const uint32_t block = (blockIdx.x + i / kblocks * rotate) % gridDim.x;
    return BoxAt{static_cast<int32_t>(i % kblocks * 64), static_cast<int32_t>(block * 128)};
  });
}

// 10: the CTA on SM `sm` reads `words` 16-byte words from `buf` through L2
// (ld.global.cg), 256 threads side by side; the others exit.
__global__ void __launch_bounds__(256, 1)
    halves_read(const uint4* buf, uint64_t words, uint32_t sm, unsigned* sink) {
  uint32_t id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  if (id != sm) return;
  unsigned x = 0;
  for (uint64_t i = threadIdx.x; i < words; i += blockDim.x) {
    const uint4 v = __ldcg(buf + i);
    x ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (x == 0x9e3779b9u) sink[threadIdx.x] = x;  // keeps the loads
}

// 11: records the SM each CTA runs on.
__global__ void __launch_bounds__(32, 1) which_sm(uint32_t* out) {
  uint32_t id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  if (threadIdx.x == 0) out[blockIdx.x] = id;
}

// 9: one CTA per SM, 8 loads in flight each, 8 passes per launch; the
// launches repeat over the same footprint (the warm-ups fill L2 as far as it
// holds it).
void run_reuse(void* buf) {
  std::printf("section,reuse\nrotate,kblocks,footprint_mib,passes,us,mhz,bytes_per_ns,bytes_per_sm_cycle\n");
  const uint32_t passes = 8, inflight = 8;
  const int smem = static_cast<int>(inflight * 16384 + 1024);
  CK(cudaFuncSetAttribute(reuse_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  for (uint32_t rotate : {0u, 8u, 67u})
    for (uint32_t kblocks : {4u, 8u, 12u, 16u, 20u, 22u, 24u, 26u, 28u, 30u, 32u, 36u, 40u, 48u, 64u}) {
      const uint64_t k = 64ull * kblocks, rows = 128ull * g_sms;
      const CUtensorMap m = map2d(buf, k, rows, 2 * k, 128);
      auto [us, mhz] = timed([&](int) { reuse_stream<<<g_sms, 32, smem>>>(m, kblocks, passes, rotate, inflight); });
      const double footprint = 2.0 * k * rows, bytes = footprint * passes;
      std::printf("%u,%u,%.2f,%u,%.1f,%.0f,%.1f,%.2f\n", rotate, kblocks, footprint / (1 << 20), passes, us, mhz,
                  bytes / (us * 1e3), bytes / (us * mhz) / g_sms);
    }
}

// 10: region s of the buffer (4 MiB, untouched so far) for SM s: read on SM
// 0, then on SM s. The launches are kernels of their own (one CTA per SM by
// shared memory), so Nsight Compute reports each apart, in this order.
void run_halves(void* buf) {
  std::printf("section,halves\nsm,first_us,second_us\n");
  unsigned* sink = nullptr;
  CK(cudaMalloc(&sink, 256 * sizeof(unsigned)));
  const uint64_t region = 4ull << 20;
  const int smem = 120 * 1024;
  CK(cudaFuncSetAttribute(halves_read, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  cudaEvent_t e[3];
  for (cudaEvent_t& x : e) CK(cudaEventCreate(&x));
  for (int sm = 0; sm < g_sms; ++sm) {
    const auto* r = reinterpret_cast<const uint4*>(static_cast<uint8_t*>(buf) + sm * region);
    CK(cudaEventRecord(e[0]));
    halves_read<<<g_sms, 256, smem>>>(r, region / 16, 0, sink);
    CK(cudaEventRecord(e[1]));
    halves_read<<<g_sms, 256, smem>>>(r, region / 16, static_cast<uint32_t>(sm), sink);
    CK(cudaEventRecord(e[2]));
    CK(cudaEventSynchronize(e[2]));
    float a = 0, b = 0;
    CK(cudaEventElapsedTime(&a, e[0], e[1]));
    CK(cudaEventElapsedTime(&b, e[1], e[2]));
    std::printf("%d,%.1f,%.1f\n", sm, a * 1e3, b * 1e3);
  }
  for (cudaEvent_t& x : e) CK(cudaEventDestroy(x));
  CK(cudaFree(sink));
}

// 11: one row per launch: the SM of block 0, 1, ...
void run_smids() {
  std::printf("section,smids\nlaunch,smid_by_block\n");
  uint32_t* d = nullptr;
  CK(cudaMalloc(&d, g_sms * sizeof(uint32_t)));
  const int smem = 120 * 1024;  // one CTA per SM
  CK(cudaFuncSetAttribute(which_sm, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  std::vector<uint32_t> h(g_sms);
  for (int launch = 0; launch < 5; ++launch) {
    which_sm<<<g_sms, 32, smem>>>(d);
    CK(cudaMemcpy(h.data(), d, g_sms * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    std::printf("%d,", launch);
    for (int b = 0; b < g_sms; ++b) std::printf("%s%u", b == 0 ? "" : " ", h[b]);
    std::printf("\n");
  }
  CK(cudaFree(d));
}

