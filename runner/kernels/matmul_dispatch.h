// matmul_dispatch.h: the matmul of the requested architecture (MatmulRequest::arch):
// the SM100 kernel (tcgen05, TMEM) or the SM90 kernel (wgmma), each on its model.
#pragma once

#include <cstdint>
#include <string>

#include "runner/kernels/sm100_matmul_run.h"
#include "runner/result/run_result.h"

namespace sk::sim {

// Resource bounds every request is held to (docs/reliability.md): a
// functional run's host memory for A, B, D and the FP64 reference, and the
// size of a trace without --trace-sms.
inline constexpr uint64_t kMaxFunctionalHostBytes = 8ull << 30;
inline constexpr uint64_t kMaxTraceBytes = 1ull << 30;
uint64_t functional_host_bytes(const MatmulRequest& req);
// SMs a launch occupies: one CTA per SM, at most one per tile.
uint64_t sms_used(const MatmulRequest& req);
// Upper estimate of the --trace file size (from measured bytes per tile).
uint64_t estimated_trace_bytes(const MatmulRequest& req);

// The resource bounds alone (traced SMs, functional host memory, trace size),
// for a request whose kernel-specific checks were made elsewhere (conv2d).
std::string validate_resources(const MatmulRequest& req);

// Replaces the timing parameters of `arch` (sm100, sm90, mi300x) for this
// process with a parameter file's text (sim --params). Empty on success, else
// a one-line reason; the built-in parameters stay then.
std::string use_params_file(const std::string& arch, const std::string& text);

// Empty when the request can run, else a one-line reason (the architecture's
// own checks, then the resource bounds).
std::string validate_matmul(const MatmulRequest& req);

// The row pitch, in BF16 elements, that the loads of A and B need on `arch`:
// 8 (16 bytes, TMA) on sm100 and sm90, 2 (a dword, LDS DMA) on mi300x; and
// `ld` rounded up to it (--pad-rows).
uint32_t pitch_multiple(const std::string& arch);
uint32_t pad_pitch(const std::string& arch, uint32_t ld);
// The leading dimensions a request gives (q.lda, q.ldb, q.ldd; 0: not given):
// each at least its row's length, A's and B's a multiple of pitch_multiple,
// and D's rows 16 bytes apart (the SM100 TMA store; elsewhere the race
// detector's 16-byte granules); "" or the one-line
// reason naming the rule. validate_matmul checks it after the configuration.
// The error of a pitch shorter than the row it holds ("--lda 60 is less than
// K = 64: ..."), "" when ld is 0 (not given) or long enough; every GEMM
// family's pitch check starts with it.
std::string pitch_too_short(const char* name, const char* op, uint32_t ld, uint32_t row,
                            const char* row_name);
std::string validate_leading_dims(const MatmulRequest& q);
RunResult run_matmul(const MatmulRequest& req);

}  // namespace sk::sim
