// attention_host.cc: see attention_host.h.
#include "runner/kernels/attention_host.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace sk::sim {

std::string encode_attention_map(models::sm100::TensorMapModel& map, uint64_t base, uint32_t d,
                                 uint32_t rows, uint32_t matrices, uint32_t box_rows) {
  const uint64_t dims[3] = {d, rows, matrices};
  const uint64_t strides[2] = {uint64_t{d} * 2, uint64_t{d} * rows * 2};
  return models::sm100::encode_tiled_3d(map, base, 2, dims, strides, 64, box_rows,
                                        models::sm100::Swizzle::k128B);
}

namespace {
// N(0, 1) elements; with ramp_rows > 0, element i (of rows of `row_elems`)
// times 1 + (its row % ramp_rows) / 32.
void fill(models::sm100::Gpu& gpu, uint64_t addr, uint64_t elements, bool f16, std::mt19937_64& rng,
          uint64_t row_elems = 1, uint64_t ramp_rows = 0) {
  if (!gpu.functional()) return;
  std::normal_distribution<float> dist(0.0f, 1.0f);
  auto* p = reinterpret_cast<uint16_t*>(gpu.gmem().host(addr));
  for (uint64_t i = 0; i < elements; ++i) {
    float x = dist(rng);
    if (ramp_rows > 0) x *= 1.0f + static_cast<float>(i / row_elems % ramp_rows) / 32.0f;
    p[i] = f16 ? to_f16(x).bits : to_bf16(x).bits;
  }
}

// Element i of a tensor of 16-bit elements, as a double.
struct Elements {
  const uint16_t* bits;
  bool f16;
  double operator[](uint64_t i) const {
    return f16 ? double{to_float(f16_t{bits[i]})} : double{to_float(bf16_t{bits[i]})};
  }
};

}  // namespace

AttentionBuffers allocate_attention(models::sm100::Gpu& gpu, const AttentionShape& s,
                                    std::mt19937_64& rng) {
  AttentionBuffers b;
  const uint64_t q_elems = uint64_t{s.batch} * s.heads * s.seqlen_q * s.head_dim;
  const uint64_t kv_elems = uint64_t{s.batch} * s.kv_heads * s.seqlen_k * s.head_dim;
  auto& mem = gpu.gmem();
  b.q = mem.allocate(q_elems * 2, "Q");
  b.k = mem.allocate(kv_elems * 2, "K");
  b.v = mem.allocate(kv_elems * 2, "V");
  b.o = mem.allocate(q_elems * 2, "O");
  b.lse_stride = (s.seqlen_q + 3) / 4 * 4;
  b.lse = mem.allocate(uint64_t{s.batch} * s.heads * b.lse_stride * 4, "LSE");
  fill(gpu, b.q, q_elems, s.f16, rng);
  fill(gpu, b.k, kv_elems, s.f16, rng, s.head_dim, s.ramp ? s.seqlen_k : 0);
  fill(gpu, b.v, kv_elems, s.f16, rng);
  return b;
}

// FP64 softmax(Q K^T * scale) V of every row against O (the input's type) and LSE.
CheckResult check_attention(models::sm100::Gpu& gpu, const AttentionShape& s,
                            const AttentionBuffers& b, float scale) {
  CheckResult c;
  c.reference = fmt::format("FP64 softmax(Q K^T * scale) V over the {} inputs", s.f16 ? "FP16" : "BF16");
  const uint32_t d = s.head_dim;
  auto tensor = [&](uint64_t addr) {
    return Elements{reinterpret_cast<const uint16_t*>(gpu.gmem().host(addr)), s.f16};
  };
  const Elements q = tensor(b.q), k = tensor(b.k), v = tensor(b.v), o = tensor(b.o);
  // The unit roundoff of the element type: P is rounded to it before P V and
  // O at the end.
  const double eps = std::ldexp(1.0, s.f16 ? -11 : -8);
  const auto* lse = reinterpret_cast<const float*>(gpu.gmem().host(b.lse));
  const uint64_t lse_stride = b.lse_stride;
  c.ran = true;
  c.passed = true;
  std::vector<double> p(s.seqlen_k), out(d);
  const int64_t diag = int64_t{s.seqlen_k} - s.seqlen_q;
  for (uint32_t bi = 0; bi < s.batch; ++bi)
    for (uint32_t h = 0; h < s.heads; ++h) {
      const uint64_t qm = uint64_t{bi} * s.heads + h;
      const uint64_t km = uint64_t{bi} * s.kv_heads + h / (s.heads / s.kv_heads);
      for (uint32_t r = 0; r < s.seqlen_q; ++r) {
        const uint64_t qr = (qm * s.seqlen_q + r) * d;
        const int64_t last = s.causal ? std::min<int64_t>(int64_t{r} + diag, s.seqlen_k - 1)
                                      : int64_t{s.seqlen_k} - 1;
        double mx = -INFINITY;
        for (int64_t cidx = 0; cidx <= last; ++cidx) {
          const uint64_t kr = (km * s.seqlen_k + cidx) * d;
          double dot = 0;
          for (uint32_t x = 0; x < d; ++x) dot += q[qr + x] * k[kr + x];
          p[cidx] = dot * scale;
          mx = std::max(mx, p[cidx]);
        }
        double sum = 0;
        for (int64_t cidx = 0; cidx <= last; ++cidx) sum += (p[cidx] = std::exp(p[cidx] - mx));
        std::fill(out.begin(), out.end(), 0.0);
        double mag = 0;  // a bound on |O| elements' scale: max |V| over the row's keys
        for (int64_t cidx = 0; cidx <= last; ++cidx) {
          const uint64_t vr = (km * s.seqlen_k + cidx) * d;
          for (uint32_t x = 0; x < d; ++x) {
            out[x] += p[cidx] / sum * v[vr + x];
            mag = std::max(mag, std::fabs(v[vr + x]));
          }
        }
        const double want_lse = last < 0 ? -INFINITY : mx + std::log(sum);
        const float got_lse = lse[qm * lse_stride + r];
        const bool lse_ok = last < 0 ? std::isinf(got_lse) && got_lse < 0
                                     : std::fabs(got_lse - want_lse) <= 1e-3 * (1 + std::fabs(want_lse));
        if (!lse_ok && c.passed) {
          c.passed = false;
          c.detail = fmt::format("LSE[b={}, h={}, row {}] = {}, expected {:.6g}", bi, h, r, got_lse,
                                 want_lse);
        }
        for (uint32_t x = 0; x < d; ++x) {
          const double got = o[(qm * s.seqlen_q + r) * d + x];
          const double err = std::fabs(got - out[x]);
          // P is rounded before P V (eps relative per term) and O at the end:
          // a bound of 2 eps of the row's largest |V| plus eps of |O|.
          const double tol = 2 * eps * std::max(mag, 1e-30) + eps * std::fabs(out[x]);
          c.max_abs_err = std::max(c.max_abs_err, err);
          if (std::fabs(out[x]) > 0) c.max_rel_err = std::max(c.max_rel_err, err / std::fabs(out[x]));
          c.max_tolerance_fraction = std::max(c.max_tolerance_fraction, err / tol);
          if (err > tol && c.passed) {
            c.passed = false;
            c.detail = fmt::format("O[b={}, h={}, row {}, col {}] = {:.6g}, expected {:.6g}", bi, h, r,
                                   x, got, out[x]);
          }
        }
      }
    }
  return c;
}

}  // namespace sk::sim
