// attention.cc: the registration of attention forward (kernels/attention/): the FA3-style SM90
// kernel (a TMA load warpgroup, two consumer warpgroups in ping-pong, online softmax, P V from
// registers) and the FA4-style SM100 kernel (S, P and O in TMEM, two softmax warpgroups, a
// correction warpgroup, one MMA warp). Its GEMM view is M = seqlen_q, N = seqlen_k, K = head_dim.
#include <string>

#include "runner/families/registry.h"
#include "runner/kernels/attention_run.h"

namespace sk::sim {
namespace {

AttentionRequest request(const Values& v, const MatmulRequest& run) {
  AttentionRequest r;
  AttentionShape& s = r.shape;
  s.batch = v.u32("batch");
  s.heads = v.u32("heads");
  s.kv_heads = v.has("kv-heads") ? v.u32("kv-heads") : s.heads;
  s.seqlen_q = v.u32("seqlen-q");
  s.seqlen_k = v.u32("seqlen-k");
  s.head_dim = v.u32("head-dim");
  s.causal = v.flag("causal");
  s.f16 = v.has("in-dtype") && v.str("in-dtype") == "f16";
  r.stamp_tiles = v.flag("stamp-tiles");
  r.run = run;
  return r;
}

}  // namespace

Family attention_family() {
  Family f;
  f.name = "attention";
  f.title = "attention forward (FA3-style on sm90, FA4-style on sm100)";
  f.summary = [] {
    return std::string(
        "SM90 attention forward in the style of FlashAttention-3: a TMA load warpgroup, two\n"
        "consumer warpgroups in ping-pong through named barriers, online softmax with exp2,\n"
        "P V with P from registers; --batch --heads [--kv-heads] --seqlen-q --seqlen-k\n"
        "--head-dim 64|128|256 [--causal] [--in-dtype bf16|f16]; O in the input's type and the\n"
        "log-sum-exp. SM100 in the style of FlashAttention-4: two 128-row Q tiles per CTA, one\n"
        "MMA warp (S = Q K^T into TMEM, O += P V with P read from TMEM), a softmax warpgroup per\n"
        "tile (a thread per row, P written over S), a correction warpgroup that rescales O in\n"
        "TMEM only when a row maximum grew past 2^8, and the TMA-store epilogue; head dim 64|128,\n"
        "2-4 stages of one K/V ring");
  };
  ArchSpace sm90{"sm90", {128}, 2, 3, 128, 2, {"static"}, {"bf16"}};
  sm90.tile_k = 128;
  // Events per (query tile, key block) pair of the GEMM view (M = seqlen_q
  // tiles x N = seqlen_k blocks x batch * heads): 230-290 measured on four
  // shapes from 12 to 4,096 pairs (sim run, 2026-11-26).
  sm90.events = {200, 50};
  ArchSpace sm100{"sm100", {128}, 2, 4, 128, 3, {"static"}, {"bf16"}};
  sm100.tile_m = 256;
  sm100.tile_k = 128;
  // Events per (256-row unit, key block) pair: 290-310 on the 32 configurations
  // of docs/sim.md's FA4 table (sim run, 2026-11-27).
  sm100.events = {250, 50};
  f.archs = {sm90, sm100};
  f.foreign_field_notes = {
      {"layout-a", "attention's tensors are [batch, heads, seqlen, head_dim], head_dim contiguous"},
      {"layout-b", "attention's tensors are [batch, heads, seqlen, head_dim], head_dim contiguous"},
  };
  f.fields = {
      uint_field("batch", "sequences in the batch", 1, 65536, "1"),
      required(uint_field("heads", "query heads", 1, 1024)),
      uint_field("kv-heads", "key and value heads (a divisor of --heads; default --heads)", 1, 1024),
      required(uint_field("seqlen-q", "query length", 1, 1u << 20)),
      required(uint_field("seqlen-k", "key and value length", 1, 1u << 20)),
      uint_field("head-dim", "head dimension: 64, 128 or 256 (blocks of 64 keys, 2 stages)", 1, 1024, "128"),
      flag_field("causal", "causal mask, aligned to the bottom right (row r sees keys up to "
                           "r + seqlen-k - seqlen-q)"),
      choice_field("in-dtype", "element type of Q, K, V and O: bf16 (default) or f16 (IEEE half)",
                   {"bf16", "f16"}),
      flag_field("stamp-tiles", "sm90: the JSON's \"stamps\" gets CTA 0's tile phases, its block "
                                "segments and the SMs storing at once, read at the kernel's probe "
                                "points as hw/h200/attention_bench --stamp-tiles reads them on a GPU"),
  };
  f.fields_note = "tensors [batch, heads, seqlen, head-dim]";
  f.reference =
      "host FP64 softmax(Q K^T / sqrt(d)) V and log-sum-exp over the 16-bit inputs; O within 2 eps "
      "of the row's largest |V| plus eps relative (P and O are rounded to the input's type; eps "
      "2^-8 for BF16, 2^-11 for FP16), LSE within 1e-3 relative";
  f.bind = [](const Values& v, MatmulRequest& q) {
    q.m = v.u32("seqlen-q");
    q.n = v.u32("seqlen-k");
    q.k = v.u32("head-dim");
    q.tile_n = 128;
    q.batch = v.u32("batch") * v.u32("heads");  // the GEMM view's batch: one per (batch, head)
    return std::string();
  };
  f.validate = [](const Values& v, const MatmulRequest& q) {
    return with_launch_checks(validate_attention(request(v, q)), q);
  };
  f.flops = [](const Values& v, const MatmulRequest& q) { return request(v, q).shape.flops(); };
  // Q, K and V read once, O written once (16-bit elements), the LSE (FP32).
  f.bytes = [](const Values& v, const MatmulRequest& q) {
    const AttentionShape s = request(v, q).shape;
    const double qo = 2.0 * s.batch * s.heads * s.seqlen_q * s.head_dim;
    const double kv = 2.0 * s.batch * s.kv_heads * s.seqlen_k * s.head_dim;
    return 2 * qo + 2 * kv + 4.0 * s.batch * s.heads * s.seqlen_q;
  };
  f.run = [](const Values& v, const MatmulRequest& q) { return run_attention(request(v, q)); };
  return f;
}

}  // namespace sk::sim
