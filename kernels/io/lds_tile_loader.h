// lds_tile_loader.h: TileIO on AMD CDNA3. Copies a Rows x BK tile of a BF16
// operand from global memory into LDS by LDS DMA (buffer_load_dword ... lds),
// cooperatively: the waves that fill a stage split its DMA instructions
// between them. The operand is K-major (rows of K contiguous elements, the
// default) or MN-major (K rows of M or N contiguous elements, MnMajor); each
// layout has its LDS tile layout, which also reads a lane's MFMA operand
// (four consecutive K elements of one row) back out of LDS.
//
// K-major (LdsTileLayout): row r of the tile at byte r * BK * 2, with the
// row's 8-byte units (four K elements each) permuted by an XOR swizzle, so
// that the MFMA operand reads (one unit per lane, 16 lanes per LDS pass, the
// same unit of 16 consecutive rows) fall in 16 different bank pairs instead
// of 2: without it, rows r and r + 128 / (2 BK) share banks and a ds_read_b64
// takes 8 passes instead of 1 (the model counts these bank conflicts). One
// wave instruction (64 lanes x 4 bytes) fills 256 contiguous bytes:
// instruction i, lane l writes dword e = 64 i + l of the tile, and the loader
// picks the global element whose swizzled place that dword is.
//
// MN-major (LdsMnTileLayout): K row k of the tile at byte k * Rows * 2, its
// Rows elements in order, as the global matrix stores them; dword e holds
// elements 2 (e % (Rows / 2)) and the next of K row e / (Rows / 2). A lane's
// operand is four K rows apart in LDS, so it is gathered with four 16-bit
// reads (ld_lds_u16x2, two ds_read_u16 per 32-bit half): one per K element
// where the K-major tile takes one ds_read_b64. The 32 lanes of an operand
// read's LDS pass take 32 consecutive elements of one K row (64 bytes, 16
// banks), so the reads are free of bank conflicts without a swizzle.
//
// Edges: the buffer descriptor spans the whole matrix; a lane whose row is
// past `rows` or whose K pair (K-major) or K row (MN-major) is past `k` gets
// an offset beyond the descriptor's range, so the hardware (and the model)
// write 0 to its dword without reading memory. Partial tiles therefore arrive
// zero-filled and padding between rows (ld > k, or ld > rows) is never read,
// except for one case: an MN-major operand with an odd number of rows, whose
// last dword of each K row holds the last row and the first element of the
// padding (the DMA moves whole dwords). That element lands in tile row
// `rows`, outside the matrix, which only the outputs past the matrix's edge
// use, and the epilogue does not store them.
//
// A batch of matrices (`stride` elements apart) is loaded one matrix per
// load: the descriptor of each load spans only its own matrix, so edges are
// zero-filled per matrix, never read from the next one.
//
// Invariants: ld is a multiple of 2 (rows start on dwords); K-major: k is
// even (dword-aligned pairs); MN-major: ld >= rows rounded up to even (so the
// odd case's extra element is padding, inside the matrix's descriptor);
// matrix bytes < 2^32. Completion is tracked by vmcnt only: after load(), the
// wave must s_waitcnt_vmcnt until its kInstrPerWave(waves) instructions have
// retired before it releases the stage (a release does not cover LDS DMA).
#pragma once

#include <type_traits>

#include "kernels/arch/gfx942.h"
#include "kernels/core/lanes.h"
#include "kernels/core/platform.h"

namespace sk {

// Byte offset of (row, K byte) in a tile of rows BK BF16 elements long.
template <int BK>
struct LdsTileLayout {
  static_assert(BK == 32 || BK == 64, "rows of 64 or 128 bytes");
  static constexpr uint32_t kRowBytes = BK * 2;
  static constexpr uint32_t kUnits = kRowBytes / 8;           // 8-byte units per row
  static constexpr uint32_t kRowsPerWindow = 128 / kRowBytes;  // rows per sweep of the 32 banks
  SK_HOST_DEVICE static constexpr uint32_t swizzle(uint32_t row) {
    return row / kRowsPerWindow % kUnits;
  }
  SK_HOST_DEVICE static constexpr uint32_t offset(uint32_t row, uint32_t kbyte) {
    return row * kRowBytes + ((kbyte / 8) ^ swizzle(row)) * 8 + kbyte % 8;
  }
  // K elements k .. k + 3 (k a multiple of 4) of tile row `row`: one
  // ds_read_b64. Lane: one (inside for_each_lane).
  SK_DEVICE static arch::Bf16x4 read4(const uint8_t* tile, uint32_t row, uint32_t k) {
    return arch::ld_lds(reinterpret_cast<const arch::Bf16x4*>(tile + offset(row, k * 2)));
  }
};

// Byte offset of (row, k) in an MN-major tile of BK K rows, Rows elements
// each.
template <int Rows, int BK>
struct LdsMnTileLayout {
  static_assert(Rows % 64 == 0, "K rows of whole 128-byte bank sweeps");
  static constexpr uint32_t kRowBytes = Rows * 2;  // one K row
  SK_HOST_DEVICE static constexpr uint32_t offset(uint32_t row, uint32_t k) {
    return k * kRowBytes + row * 2;
  }
  // K elements k .. k + 3 of tile row `row`, four K rows apart in LDS: four
  // ds_read_u16, packed in pairs. Lane: one (inside for_each_lane).
  SK_DEVICE static arch::Bf16x4 read4(const uint8_t* tile, uint32_t row, uint32_t k) {
    const auto* e = reinterpret_cast<const uint16_t*>(tile + offset(row, k));
    const uint32_t lo = arch::ld_lds_u16x2(e, e + Rows);
    const uint32_t hi = arch::ld_lds_u16x2(e + 2 * Rows, e + 3 * Rows);
    return arch::Bf16x4{{static_cast<uint16_t>(lo), static_cast<uint16_t>(lo >> 16),
                         static_cast<uint16_t>(hi), static_cast<uint16_t>(hi >> 16)}};
  }
};

template <int Rows, int BK, bool MnMajor = false>
class LdsTileLoader {
 public:
  static constexpr int kDwordsPerRow = BK / 2;
  static constexpr int kDwordsPerInstr = 64;
  static constexpr int kInstrs = Rows * kDwordsPerRow / kDwordsPerInstr;
  static_assert(BK % 2 == 0 && (Rows * kDwordsPerRow) % kDwordsPerInstr == 0,
                "a tile is filled by whole wave instructions");
  static constexpr bool kMnMajor = MnMajor;
  using Layout = std::conditional_t<MnMajor, LdsMnTileLayout<Rows, BK>, LdsTileLayout<BK>>;
  // The DMA instructions each of `waves` loader waves issues per tile.
  static constexpr int instrs_per_wave(int waves) { return (kInstrs + waves - 1) / waves; }

  // rows x k matrices, matrix i of a batch at base + i * stride elements;
  // K-major: rows of k elements `ld` apart; MN-major: k rows of `rows`
  // elements `ld` apart.
  SK_DEVICE LdsTileLoader(const uint16_t* base, uint32_t rows, uint32_t k, uint32_t ld,
                          uint64_t stride = 0)
      : base_(base), stride_(stride), rows_(rows), k_(k), ld_(ld) {}

  // Issues this wave's share (instructions part, part + parts, ...) of the
  // tile whose first element is (row0, k0) of matrix `batch`. Lane: wave.
  SK_DEVICE void load(uint8_t* lds_tile, uint32_t row0, uint32_t k0, int part, int parts,
                      uint32_t batch = 0, arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    const uint32_t stored_rows = MnMajor ? k_ : rows_;
    const arch::BufferRsrc rsrc =
        arch::make_buffer_rsrc(base_ + batch * stride_, stored_rows * ld_ * 2u);
    for (int i = part; i < kInstrs; i += parts) {
      uint8_t* dst = lds_tile + i * kDwordsPerInstr * 4;
      for_each_lane([&](uint32_t l) {
        const uint32_t e = static_cast<uint32_t>(i) * kDwordsPerInstr + l;
        arch::buffer_load_dword_lds(dst, rsrc, source(e, row0, k0));
      });
    }
  }

 private:
  // The byte offset in the matrix of the global dword that lands in
  // physical dword e of the tile at (row0, k0), or kOutOfRange.
  SK_DEVICE uint32_t source(uint32_t e, uint32_t row0, uint32_t k0) const {
    if constexpr (MnMajor) {
      // K row e / (Rows / 2), elements 2 (e % (Rows / 2)) and the next.
      const uint32_t kk = k0 + e / (Rows / 2), row = row0 + e % (Rows / 2) * 2;
      return row < rows_ && kk < k_ ? (kk * ld_ + row) * 2u : kOutOfRange;
    } else {
      // Its row, and the logical unit the swizzle put there.
      const uint32_t r = e / kDwordsPerRow, d = e % kDwordsPerRow;
      const uint32_t unit = (d / 2) ^ Layout::swizzle(r);
      const uint32_t row = row0 + r;
      const uint32_t kk = k0 + unit * 4 + (d % 2) * 2;
      return row < rows_ && kk < k_ ? (row * ld_ + kk) * 2u : kOutOfRange;
    }
  }

  // Past any descriptor's range: the lane's dword is written as 0.
  static constexpr uint32_t kOutOfRange = 0xFFFFFFFCu;
  const uint16_t* base_;
  uint64_t stride_;
  uint32_t rows_, k_, ld_;
};

}  // namespace sk
