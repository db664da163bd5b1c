// block_formats.h: exact host references for low-precision element and scale
// formats, and FP64 reference GEMMs for block-scaled matmuls (MXFP8, NVFP4,
// blockwise FP8), used to check kernels run in the model.
//
// Formats (OCP Microscaling Formats (MX) v1.0 and OCP 8-bit FP (OFP8)):
//   * FP8 E4M3 ("E4M3FN"): 1.4.3, bias 7, no infinities; S.1111.111 is NaN;
//     max normal 448 (S.1111.110), min normal 2^-6, min subnormal 2^-9.
//   * FP8 E5M2: 1.5.2, bias 15, IEEE-like: exponent 11111 is inf (mantissa 0)
//     or NaN (mantissa != 0); max normal 57344, min subnormal 2^-16.
//   * FP4 E2M1: 1.2.1, bias 1, no inf or NaN; magnitudes {0, 0.5, 1, 1.5, 2,
//     3, 4, 6}. A code is the low nibble of a byte.
//   * E8M0 scale: unsigned 8-bit exponent, value 2^(x - 127), 0xFF is NaN; no
//     zero, no sign. Range 2^-127 .. 2^127.
//   * NVFP4 scale: an E4M3 code decoded exactly as E4M3 (producers write the
//     sign bit as zero; it is decoded as it is, not ignored).
//
// Invariants this code keeps:
//   * every decoder is exact: each finite code maps to the double equal to its
//     value (all of them are representable in double), both zeros keep their
//     sign, NaN and inf codes map to quiet NaN and +-inf;
//   * every encoder is the OCP "saturating" conversion: round to nearest, ties
//     to even (on the magnitude, so the result is the same for +x and -x),
//     with any magnitude above the max finite value, infinities included,
//     giving the max finite value with the input's sign; a value that rounds to
//     zero keeps its sign; encode(decode(c)) == c for every finite code;
//   * a NaN input encodes as the format's canonical NaN, positive: E4M3 0x7F,
//     E5M2 0x7E; E2M1 has no NaN, so encode_e2m1(NaN) throws std::domain_error
//     (a NaN reaching an FP4 quantizer is a bug upstream, never a value);
//   * the GEMMs read every input as given (no reordering, no flushing of
//     subnormals), let NaN and inf propagate by IEEE rules, and throw
//     std::invalid_argument, before computing anything, when a buffer's size
//     does not match the shape.
//
// GEMM conventions: D[m][n] = sum_k a(m,k) * b(n,k). A is M x K row-major and
// B is N x K row-major (both "K-major"); D is M x N row-major. Each output is
// accumulated block by block in ascending K order: the FP64 sum of a*b within
// a scale block (in ascending k), times the block's scales, added to the
// running FP64 sum. With E4M3 or E2M1 elements the sum within a block is exact,
// and so is its scaling by E8M0 or E4M3 scales; with E5M2 it is exact unless
// the block's products span more than about 2^40 in magnitude. What rounding
// is left is bounded by about (nblocks + 1) * 2^-53 * sum|terms|, far under
// the error of any FP32-accumulating kernel being checked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace sk::ref {

// ---- Format constants --------------------------------------------------------

inline constexpr double kE4M3Max = 448.0;
inline constexpr double kE5M2Max = 57344.0;
inline constexpr double kE2M1Max = 6.0;

inline constexpr std::uint8_t kE4M3MaxCode = 0x7E;  // +448
inline constexpr std::uint8_t kE5M2MaxCode = 0x7B;  // +57344
inline constexpr std::uint8_t kE2M1MaxCode = 0x7;   // +6
inline constexpr std::uint8_t kE4M3NaN = 0x7F;      // canonical (also 0xFF)
inline constexpr std::uint8_t kE5M2NaN = 0x7E;      // canonical quiet NaN
inline constexpr std::uint8_t kE8M0NaN = 0xFF;

// E8M0 exponent range (code 0 is 2^-127, code 254 is 2^127).
inline constexpr int kE8M0MinExp = -127;
inline constexpr int kE8M0MaxExp = 127;

// emax_elem of the MX spec: the exponent of the element format's largest
// power of two (floor(log2(max normal))).
inline constexpr int kEmaxE4M3 = 8;
inline constexpr int kEmaxE5M2 = 15;
inline constexpr int kEmaxE2M1 = 2;

// MX block sizes along K.
inline constexpr std::size_t kMxfp8Block = 32;
inline constexpr std::size_t kNvfp4Block = 16;
inline constexpr std::size_t kBlockwiseFp8Block = 128;

enum class Fp8Format { kE4M3, kE5M2 };

constexpr int mx_emax_elem(Fp8Format f) {
  return f == Fp8Format::kE4M3 ? kEmaxE4M3 : kEmaxE5M2;
}

// ---- Decoders (exact) --------------------------------------------------------

double decode_e4m3(std::uint8_t code);
double decode_e5m2(std::uint8_t code);
double decode_fp8(std::uint8_t code, Fp8Format fmt);
// code must be 0..15 (throws std::invalid_argument otherwise).
double decode_e2m1(std::uint8_t code);
double decode_e8m0(std::uint8_t code);
// NVFP4 block scale: same decoding as E4M3.
double decode_nvfp4_scale(std::uint8_t code);

// ---- Encoders (round to nearest even, saturating) ----------------------------

std::uint8_t encode_e4m3(double x);
std::uint8_t encode_e5m2(double x);
std::uint8_t encode_fp8(double x, Fp8Format fmt);
// Returns a code 0..15. Throws std::domain_error for NaN.
std::uint8_t encode_e2m1(double x);
// NVFP4 block scale: same encoding as E4M3.
std::uint8_t encode_nvfp4_scale(double x);
// The E8M0 code of 2^exponent; exponent is clamped to [-127, 127] (saturating,
// like the element encoders), so the result is never the NaN code.
std::uint8_t encode_e8m0(int exponent);

// The MX shared scale of one block, as an E8M0 code (OCP MX v1.0, 6.3):
//   shared_exp = floor(log2(max_i |v_i|)) - emax_elem, clamped to [-127, 127],
//   X = 2^shared_exp.
// The block maximum then satisfies 2^emax_elem <= max|v|/X < 2^(emax_elem+1)
// unless the clamp applied. Note that this range reaches past the element's
// max normal (448 for E4M3, 57344 for E5M2, 6 for E2M1): per the spec such
// elements saturate when quantized. A block of zeros (or an empty block) has
// log2(0) = -inf and gets the smallest scale, 2^-127 (code 0). A block holding
// a NaN or an infinity gets the NaN scale (0xFF): no finite scale represents it.
std::uint8_t mx_shared_scale(std::span<const double> block, int emax_elem);

// ---- FP4 packing -------------------------------------------------------------
// Two E2M1 codes per byte: element 2i in the low nibble, element 2i+1 in the
// high nibble. Codes above 15 throw std::invalid_argument.

std::uint8_t pack_e2m1_pair(std::uint8_t lo, std::uint8_t hi);
// ceil(n/2) bytes; for odd n the last high nibble is 0 (+0.0).
std::vector<std::uint8_t> pack_e2m1(std::span<const std::uint8_t> codes);
// Code of element i; throws std::out_of_range past the end.
std::uint8_t unpack_e2m1_at(std::span<const std::uint8_t> packed, std::size_t i);
// The first count codes; packed.size() must be ceil(count/2).
std::vector<std::uint8_t> unpack_e2m1(std::span<const std::uint8_t> packed,
                                      std::size_t count);
// A rows x cols matrix of codes (row-major) packed row by row, each row into
// ceil(cols/2) bytes: the layout nvfp4_gemm reads. For odd cols each row's last
// high nibble is padding (written 0, ignored when read).
std::vector<std::uint8_t> pack_e2m1_rows(std::span<const std::uint8_t> codes,
                                         std::size_t rows, std::size_t cols);

// ---- Reference GEMMs (FP64) --------------------------------------------------
// All return D as M*N doubles, row-major. K may be any size (the last scale
// block along K may be partial); K == 0 gives zeros, M == 0 or N == 0 an empty
// result.

// MXFP8: a is M*K codes, b is N*K codes, in their formats. a_scales is
// M x ceil(K/32) E8M0 codes, b_scales N x ceil(K/32), row-major: scale (r, kb)
// applies to elements k in [32*kb, 32*kb + 32) of row r.
std::vector<double> mxfp8_gemm(std::size_t M, std::size_t N, std::size_t K,
                               std::span<const std::uint8_t> a_bytes, Fp8Format a_fmt,
                               std::span<const std::uint8_t> a_scales,
                               std::span<const std::uint8_t> b_bytes, Fp8Format b_fmt,
                               std::span<const std::uint8_t> b_scales);

// NVFP4: a_packed is M rows of ceil(K/2) bytes (see pack_e2m1_rows), b_packed N
// rows likewise. a_scales is M x ceil(K/16) E4M3 codes, b_scales N x ceil(K/16).
// The per-tensor FP32 global scales multiply every output:
//   D = a_global * b_global * sum_kb sa(m,kb) * sb(n,kb) * sum_{k in kb} a*b.
// a_global * b_global is exact in double and applied once, at the end.
std::vector<double> nvfp4_gemm(std::size_t M, std::size_t N, std::size_t K,
                               std::span<const std::uint8_t> a_packed,
                               std::span<const std::uint8_t> a_scales,
                               std::span<const std::uint8_t> b_packed,
                               std::span<const std::uint8_t> b_scales,
                               float a_global = 1.0f, float b_global = 1.0f);

// Blockwise FP8 (E4M3 elements, FP32 scales): a_scales is M x ceil(K/128), one
// per row per 128 K elements; b_scales is ceil(N/128) x ceil(K/128), one per
// 128 x 128 tile of (N, K):
//   D = sum_kb (sum_{k in kb} a*b) * sa(m,kb) * sb(n/128,kb).
// sa * sb is exact in double; each block adds one rounding for the scaling and
// one for the accumulation.
std::vector<double> blockwise_fp8_gemm(std::size_t M, std::size_t N, std::size_t K,
                                       std::span<const std::uint8_t> a_bytes,
                                       std::span<const float> a_scales,
                                       std::span<const std::uint8_t> b_bytes,
                                       std::span<const float> b_scales);

}  // namespace sk::ref
