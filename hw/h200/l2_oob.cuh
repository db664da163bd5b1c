// l2_oob.cuh: section 5 of l2_stream.cu (oob, oob_sms, oob_depth,
// first_load): TMA boxes whose rows lie past their tensor's last row, the
// zero-fill path they pass by its load, and a launch's first stage alone
// (docs/hardware.md, "Rows outside the tensor", "The zero-fill path by its
// load", "A launch's first stage"): their kernels and host loops. Included by
// l2_stream.cu inside its anonymous namespace, after the stream helpers
// (stream_boxes, map2d, timed, OperandSets, g_sms, CK) it uses; not a header
// of its own.
#pragma once

// 5: CTA c reads `loads` boxes of 64 x 128 at row 0 and column block
// (i + c * skew) mod ring of a tensor of `rows` rows: 128 - rows of each box
// out of bounds (none for rows >= 128).
// `select` (section oob_sms, one CTA per SM): which SMs load, by %smid: 0 all,
// 1 even, 2 odd, 3 the lower half of the ids, 4 the upper half, 5 ids 0 mod 4;
// the other CTAs exit at once.
__device__ bool sm_selected(uint32_t select, uint32_t sms) {
  uint32_t id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  switch (select) {
    case 1: return id % 2 == 0;
    case 2: return id % 2 == 1;
    case 3: return id < sms / 2;
    case 4: return id >= sms / 2;
    case 5: return id % 4 == 0;
    default: return true;
  }
}

__global__ void oob_stream(const __grid_constant__ CUtensorMap map, uint32_t ring, uint32_t skew,
                           uint32_t inflight, uint32_t loads, uint32_t select = 0, uint32_t sms = 0) {
  if (threadIdx.x != 0 || !sm_selected(select, sms)) return;
  stream_boxes(map, inflight, loads, [=](uint32_t i) {
    return BoxAt{static_cast<int32_t>(((i + blockIdx.x * skew) % ring) * 64), 0};
  });
}

// 5d: first_load: each CTA's first stage alone (A's and B's 128 x 64 boxes of
// its own rows, 32 KiB on one barrier), issued by thread 0 right after the
// barrier's init; out[c] = SM cycles from the issue to the stage seen full.
__global__ void first_load(const __grid_constant__ CUtensorMap a, const __grid_constant__ CUtensorMap b,
                           unsigned long long* out) {
  extern __shared__ __align__(1024) uint8_t smem[];
  __shared__ uint64_t full;
  if (threadIdx.x != 0) return;
  uint8_t* base = smem_align_1024(smem);
  sk::arch::mbarrier_init(&full, 1);
  sk::arch::fence_mbarrier_init();
  const uint64_t t0 = clk();
  sk::arch::mbarrier_arrive_expect_tx(&full, 2 * 16384);
  sk::arch::tma_load_2d(base, &a, &full, 0, static_cast<int32_t>(blockIdx.x * 128));
  sk::arch::tma_load_2d(base + 16384, &b, &full, 0, static_cast<int32_t>(blockIdx.x * 128));
  wait_phase(&full, 0);
  out[blockIdx.x] = clk() - t0;
}

// Column blocks the oob streams walk, and the boxes each CTA loads.
constexpr uint32_t kOobRing = 64, kOobLoads = 1024;

// One timed row of sections oob and oob_depth: `ctas` CTAs streaming boxes of
// map `m` (a tensor of `rows` rows) with `inflight` in flight each.
void oob_row(const CUtensorMap& m, uint32_t rows, int ctas, uint32_t skew, uint32_t inflight) {
  const int smem = 8 * 16384 + 1024;
  CK(cudaFuncSetAttribute(oob_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  auto [us, mhz] = timed([&](int) { oob_stream<<<ctas, 32, smem>>>(m, kOobRing, skew, inflight, kOobLoads); });
  const double cycles = us * mhz;
  std::printf("%u,%d,%u,%u,%.1f,%.0f,%.1f,%.3f\n", rows, ctas, skew, inflight, us, mhz, cycles / kOobLoads,
              static_cast<double>(kOobLoads) * ctas / cycles);
}

// 5: boxes with out-of-bounds rows alone: 16 KiB boxes (64 x 128) at row 0
// of a tensor of 1-128 rows (127-0 rows of each box zero-filled), every CTA on
// the same column block at a time (skew 0) or each on its own (skew 1), from
// 1-132 SMs. Output: boxes per SM cycle of each SM and of all together.
void run_oob(void* buf) {
  std::printf("section,oob\nrows,ctas,skew,inflight,us,mhz,box_cycles_per_sm,boxes_per_cycle_all\n");
  const uint32_t cols = kOobRing * 64;
  for (uint32_t rows : {1u, 2u, 8u, 32u, 64u, 96u, 127u, 128u}) {
    const CUtensorMap m = map2d(buf, cols, rows, 2 * cols, 128);
    for (int ctas : {1, 16, 33, 66, g_sms})
      for (uint32_t skew : {0u, 1u})
        for (uint32_t inflight : {2u, 6u}) {
          oob_row(m, rows, ctas, skew, inflight);
        }
  }
}

// 5c: oob_depth: the same boxes by how many each SM keeps in flight (1-8)
// and how many SMs load (8-132), every CTA on the same column block at a
// time (as a decode matmul's CTAs read A's k-blocks); 127, 96, 64 and 0 rows
// of each box outside. Output as section oob.
void run_oob_depth(void* buf) {
  std::printf("section,oob_depth\nrows,ctas,skew,inflight,us,mhz,box_cycles_per_sm,boxes_per_cycle_all\n");
  const uint32_t cols = kOobRing * 64;
  for (uint32_t rows : {1u, 32u, 64u, 128u}) {
    const CUtensorMap m = map2d(buf, cols, rows, 2 * cols, 128);
    for (int ctas : {8, 16, 24, 33, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, g_sms})
      for (uint32_t inflight : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u}) oob_row(m, rows, ctas, 0, inflight);
  }
}

// 5d: first_load: a launch's first stage per CTA, 1-132 CTAs, its operands
// and maps either rotated over sets as gemm_bench does (none in L2, a
// descriptor the SM has not read; 128 MiB written between launches evicts
// L2) or the same each launch (in L2, the descriptor read by the launch
// before). Output: per launch (after two warm-ups), the median and the
// largest of its CTAs' cycles.
void run_first_load(void* buf) {
  std::printf("section,first_load\nctas,operands,launch,median_cycles,max_cycles\n");
  const OperandSets ops(132 * 128, 132 * 128, 64, 384);  // rows 768 B apart: 8 sets of 26 MB
  unsigned long long* out;
  CK(cudaMalloc(&out, 132 * sizeof(unsigned long long)));
  const int smem = 2 * 16384 + 1024;
  CK(cudaFuncSetAttribute(first_load, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  std::vector<CUtensorMap> as, bs;
  for (int i = 0; i < ops.count(); ++i) {
    as.push_back(ops.a(i, 128));
    bs.push_back(ops.b(i, 128));
  }
  for (int ctas : {1, 8, 16, 32, 64, 96, 132})
    for (int rotate : {1, 0}) {
      for (int l = 0; l < 7; ++l) {
        const int set = rotate ? l % ops.count() : 0;
        if (rotate) CK(cudaMemset(buf, l, 128u << 20));
        first_load<<<ctas, 32, smem>>>(as[set], bs[set], out);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        if (l < 2) continue;
        std::vector<unsigned long long> h(ctas);
        CK(cudaMemcpy(h.data(), out, ctas * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
        std::sort(h.begin(), h.end());
        std::printf("%d,%s,%d,%llu,%llu\n", ctas, rotate ? "rotated" : "same", l - 2, h[h.size() / 2], h.back());
      }
    }
  CK(cudaFree(out));
}

// 5b: the same boxes (127 rows outside) from chosen SMs, one CTA per SM
// launched and the others exiting: which half of the SMs (by %smid) or which
// SM of each pair loads tells a path per pair of SMs or per half of the GPU
// from one of the whole GPU. Output as section oob, per SM loading.
void run_oob_sms(void* buf) {
  std::printf("section,oob_sms\nrows,select,loading_sms,inflight,us,mhz,box_cycles_per_sm,boxes_per_cycle_all\n");
  const uint32_t cols = kOobRing * 64;
  const char* names[] = {"all", "even", "odd", "lower_half", "upper_half", "every_4th"};
  const int loading[] = {g_sms, g_sms / 2, g_sms / 2, g_sms / 2, g_sms - g_sms / 2, (g_sms + 3) / 4};
  for (uint32_t rows : {1u, 64u, 128u}) {
    const CUtensorMap m = map2d(buf, cols, rows, 2 * cols, 128);
    for (uint32_t select = 0; select < 6; ++select)
      for (uint32_t inflight : {2u, 6u}) {
        const int smem = 8 * 16384 + 1024;
        CK(cudaFuncSetAttribute(oob_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        auto [us, mhz] = timed(
            [&](int) { oob_stream<<<g_sms, 32, smem>>>(m, kOobRing, 0, inflight, kOobLoads, select, g_sms); });
        const double cycles = us * mhz;
        std::printf("%u,%s,%d,%u,%.1f,%.0f,%.1f,%.3f\n", rows, names[select], loading[select], inflight, us, mhz,
                    cycles / kOobLoads, static_cast<double>(kOobLoads) * loading[select] / cycles);
      }
  }
}
