// lds_tile_loader.h: TileIO on AMD CDNA3. Copies a Rows x BK tile of a
// row-major BF16 matrix (K contiguous) from global memory into LDS by LDS DMA
// (buffer_load_dword ... lds), cooperatively: the waves that fill a stage
// split its DMA instructions between them.
//
// LDS layout (LdsTileLayout): row r of the tile at byte r * BK * 2, with the
// row's 8-byte units (four K elements each) permuted by an XOR swizzle, so
// that the MFMA operand reads (one unit per lane, 16 lanes per LDS pass, the
// same unit of 16 consecutive rows) fall in 16 different bank pairs instead
// of 2: without it, rows r and r + 128 / (2 BK) share banks and a ds_read_b64
// takes 8 passes instead of 1 (the model counts these bank conflicts). One
// wave instruction (64 lanes x 4 bytes) fills 256 contiguous bytes:
// instruction i, lane l writes dword e = 64 i + l of the tile, and the loader
// picks the global element whose swizzled place that dword is.
//
// Edges: the buffer descriptor spans the whole matrix; a lane whose row is
// past `rows` or whose K pair is past `k` gets an offset beyond the
// descriptor's range, so the hardware (and the model) write 0 to its dword
// without reading memory. Partial tiles therefore arrive zero-filled and
// padding between rows (ld > k) is never read.
//
// A batch of matrices (`stride` elements apart) is loaded one matrix per
// load: the descriptor of each load spans only its own matrix, so edges are
// zero-filled per matrix, never read from the next one.
//
// Invariants: k is even and ld is a multiple of 2 (dword-aligned pairs);
// matrix bytes < 2^32. Completion is tracked by vmcnt only: after load(), the
// wave must s_waitcnt_vmcnt until its kInstrPerWave(waves) instructions have
// retired before it releases the stage (a release does not cover LDS DMA).
#pragma once

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
};

template <int Rows, int BK>
class LdsTileLoader {
 public:
  static constexpr int kDwordsPerRow = BK / 2;
  static constexpr int kDwordsPerInstr = 64;
  static constexpr int kInstrs = Rows * kDwordsPerRow / kDwordsPerInstr;
  static_assert(BK % 2 == 0 && (Rows * kDwordsPerRow) % kDwordsPerInstr == 0,
                "a tile is filled by whole wave instructions");
  using Layout = LdsTileLayout<BK>;
  // The DMA instructions each of `waves` loader waves issues per tile.
  static constexpr int instrs_per_wave(int waves) { return (kInstrs + waves - 1) / waves; }

  // rows x k matrices with rows `ld` elements apart, matrix i of a batch at
  // base + i * stride elements.
  SK_DEVICE LdsTileLoader(const uint16_t* base, uint32_t rows, uint32_t k, uint32_t ld,
                          uint64_t stride = 0)
      : base_(base), stride_(stride), rows_(rows), k_(k), ld_(ld) {}

  // Issues this wave's share (instructions part, part + parts, ...) of the
  // tile whose first element is (row0, k0) of matrix `batch`. Lane: wave.
  SK_DEVICE void load(uint8_t* lds_tile, uint32_t row0, uint32_t k0, int part, int parts,
                      uint32_t batch = 0) const {
    const arch::BufferRsrc rsrc = arch::make_buffer_rsrc(base_ + batch * stride_, rows_ * ld_ * 2u);
    for (int i = part; i < kInstrs; i += parts) {
      uint8_t* dst = lds_tile + i * kDwordsPerInstr * 4;
      for_each_lane([&](uint32_t l) {
        // Physical dword e of the tile: its row, and the logical unit the
        // swizzle put there.
        const uint32_t e = static_cast<uint32_t>(i) * kDwordsPerInstr + l;
        const uint32_t r = e / kDwordsPerRow, d = e % kDwordsPerRow;
        const uint32_t unit = (d / 2) ^ Layout::swizzle(r);
        const uint32_t row = row0 + r;
        const uint32_t kk = k0 + unit * 4 + (d % 2) * 2;
        const uint32_t offset = row < rows_ && kk < k_ ? (row * ld_ + kk) * 2u : kOutOfRange;
        arch::buffer_load_dword_lds(dst, rsrc, offset);
      });
    }
  }

 private:
  // Past any descriptor's range: the lane's dword is written as 0.
  static constexpr uint32_t kOutOfRange = 0xFFFFFFFCu;
  const uint16_t* base_;
  uint64_t stride_;
  uint32_t rows_, k_, ld_;
};

}  // namespace sk
