// gfx942_intrinsics_probe.hip: one use of every function of the gfx942
// intrinsic layer (kernels/arch/gfx942/device/), compiled by clang for
// gfx942 so that gfx942_intrinsics_asm_test can check the assembly for the
// instruction each one promises.
//
// Invariants: every API function appears in at least one kernel, and every
// result is stored, so the compiler cannot drop a call; the kernels are never
// launched (their arithmetic means nothing), they only have to compile to the
// right instructions. Each kernel is a separate extern "C" symbol, so the
// assembly of one concern stays together.
#include "kernels/arch/gfx942.h"

using namespace sk::arch;

// Identity, lane election, per-lane code and the model-only hooks.
extern "C" __global__ void sk_gfx942_probe_identity(uint32_t* out) {
  annotate_role("probe");
  const uint32_t slot = block_idx() * waves_per_block() * kWaveSize + wave_idx() * kWaveSize;
  for_each_lane([&](uint32_t lane) { st_global(out + slot + lane, lane_idx() + num_blocks()); });
  if (elect_one_begin()) {
    st_global(out, wave_idx());
  }
  lane_scope_end();
  report_unreleased("probe");
  report_double_release("probe");
}

// LDS DMA (both forms), the wait counters, LDS and global loads and stores.
extern "C" __global__ void sk_gfx942_probe_lds(const uint32_t* src, uint32_t src_bytes,
                                               uint32_t* out) {
  uint8_t* lds = dynamic_lds();
  const uint32_t lane = lane_idx();
  const uint32_t wave_bytes = kWaveSize * 4;
  uint8_t* stage = lds + wave_idx() * 2 * wave_bytes;

  global_load_lds_dword(stage, src + lane);
  const BufferRsrc rsrc = make_buffer_rsrc(src, src_bytes);
  buffer_load_dword_lds(stage + wave_bytes, rsrc, (lane + 64) * 4);
  s_waitcnt_vmcnt<1>();  // the global_load_lds_dword has landed
  const uint32_t first = ld_lds(reinterpret_cast<const uint32_t*>(stage) + lane);
  s_waitcnt_vmcnt<0>();  // and the buffer load too
  const uint32_t second = ld_lds(reinterpret_cast<const uint32_t*>(stage + wave_bytes) + lane);

  // Four LDS stores, then a wait that lets three stay in flight.
  uint32_t* scratch = reinterpret_cast<uint32_t*>(lds + 16384) + lane;
  st_lds(scratch, first);
  st_lds(scratch + 64, second);
  st_lds(scratch + 128, first ^ second);
  st_lds(scratch + 192, lds_addr(stage));
  s_waitcnt_lgkmcnt<3>();

  const uint32_t g = ld_global(src + 128 + lane);
  st_global(out + lane, first + second + g);
  // A deep vector-memory wait: 37 needs the high vmcnt bits [15:14].
  s_waitcnt_vmcnt<37>();
  const Bf16x4 wide = ld_lds(reinterpret_cast<const Bf16x4*>(stage) + lane % 32);
  st_global(reinterpret_cast<Bf16x4*>(out + 256) + lane, wide);
  // A 16-bit gather: two elements 256 bytes apart packed into one register.
  const auto* e = reinterpret_cast<const uint16_t*>(stage) + lane;
  st_global(out + 384 + lane, ld_lds_u16x2(e, e + 128));
}

// Scoped atomics on an LDS counter and a global one.
extern "C" __global__ void sk_gfx942_probe_atomics(uint32_t* global_counter, uint32_t* out) {
  uint32_t* lds_counter = reinterpret_cast<uint32_t*>(dynamic_lds());
  annotate_counter(lds_counter, "probe.full", 0);
  uint32_t sum = 0;
  if (elect_one_begin()) {
    sum += atomic_add(lds_counter, 1, Scope::kWorkgroup);
    sum += atomic_add(global_counter, 1, Scope::kAgent);
    sum += atomic_add(global_counter + 1, 1, Scope::kSystem);
    sum += atomic_add(lds_counter + 1, 1, Scope::kWavefront);
  }
  lane_scope_end();
  sum += atomic_load_acquire(lds_counter + 2, Scope::kWorkgroup);
  sum += atomic_load_acquire(global_counter + 2, Scope::kAgent);
  atomic_store_release(global_counter + 3, sum, Scope::kAgent);
  atomic_store_release(lds_counter + 3, sum, Scope::kWorkgroup);
  st_global(out + lane_idx(), sum);
}

// Sleep, priority and the two barriers.
extern "C" __global__ void sk_gfx942_probe_sched(uint32_t* out) {
  uint32_t* lds = reinterpret_cast<uint32_t*>(dynamic_lds());
  st_lds(lds + lane_idx(), lane_idx());
  s_waitcnt_lgkmcnt<0>();
  s_barrier();
  s_setprio<3>();
  const uint32_t v = ld_lds(lds + (lane_idx() ^ 1u));
  s_setprio<0>();
  s_sleep<3>();
  st_lds(lds + 64 + lane_idx(), v);
  workgroup_sync();
  st_global(out + lane_idx(), ld_lds(lds + 64 + (lane_idx() ^ 2u)));
}

// Both MFMAs, with operands in the documented lane layout read from global
// memory and the accumulators written back.
extern "C" __global__ void sk_gfx942_probe_mfma(const Bf16x4* a, const Bf16x4* b, Acc16* d32,
                                                Acc4* d16) {
  const uint32_t lane = lane_idx();
  const Bf16x4 av = ld_global(a + lane);
  const Bf16x4 bv = ld_global(b + lane);
  Acc16 c32{};
  mfma_f32_32x32x8_bf16(c32, av, bv);
  mfma_f32_32x32x8_bf16(c32, bv, av);
  Acc4 c16{};
  mfma_f32_16x16x16_bf16(c16, av, bv);
  d32[lane] = c32;
  d16[lane] = c16;
}
