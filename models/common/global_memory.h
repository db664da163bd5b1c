// global_memory.h: the device's global memory as every model sees it.
//
// Allocations are made by the host side of a run before launch and live as
// long as the GlobalMemory. Addresses are virtual: from 2^40 up, 256-byte
// aligned (as cudaMalloc/hipMalloc return), 256 bytes apart. In timing mode
// there is no backing store and only ranges are checked. In functional mode
// each allocation has real, zeroed host bytes and its device address is the
// host address, so kernel code dereferences nothing the model did not hand
// out: the host bytes lie in one reservation laid out exactly like the
// virtual addresses, shifted by a multiple of 2 MiB. So which allocations
// share a 2 MiB page (the TLB models' granule) or a 4 KiB block, and at which
// offset a box starts in its page, are the same in both modes and in every
// run, wherever the host's address-space layout put the reservation; timing
// never depends on host addresses. Under ASan the gaps and the unallocated
// rest of the reservation are poisoned.
//
// Invariants: allocations never overlap and are never freed; find() returns
// the allocation that holds a whole range or nullptr; in functional mode
// host address - virtual address is the same multiple of 2 MiB for every
// allocation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sk::models {

// The page size of the models' address translation (TLB) caches: 2 MiB.
constexpr unsigned kDevicePageShift = 21;
constexpr uint64_t kDevicePageBytes = uint64_t{1} << kDevicePageShift;

struct Allocation {
  uint64_t base = 0;
  uint64_t size = 0;
  uint8_t* host = nullptr;  // null in timing mode
  std::string name;
};

class GlobalMemory {
 public:
  explicit GlobalMemory(bool functional) : functional_(functional) {}
  ~GlobalMemory();
  GlobalMemory(const GlobalMemory&) = delete;
  GlobalMemory& operator=(const GlobalMemory&) = delete;
  // Returns the device address of a new zero-filled allocation (256-B
  // aligned). Throws std::bad_alloc in functional mode past the reservation
  // (kFunctionalReserveBytes) or when the host refuses the memory.
  uint64_t allocate(uint64_t bytes, const std::string& name);
  // The allocation holding [addr, addr + bytes), or nullptr.
  const Allocation* find(uint64_t addr, uint64_t bytes) const;
  uint8_t* host(uint64_t addr) const;  // functional mode only
  // "D+0x1c00": an address as allocation name and offset (the address itself
  // when no allocation holds it), independent of where buffers were placed.
  std::string describe(uint64_t addr) const;
  bool functional() const { return functional_; }

 private:
  static constexpr uint64_t kFirstVirtual = 1ull << 40;
  bool functional_;
  uint64_t next_virtual_ = kFirstVirtual;
  std::vector<Allocation> allocs_;
  // Functional mode: the reservation (mapped on first use, inaccessible past
  // `committed_`), its 2 MiB-aligned start and how much of it is read-write.
  uint8_t* reserved_ = nullptr;
  uint64_t reserved_bytes_ = 0;
  uint8_t* arena_ = nullptr;
  uint64_t committed_ = 0;
};

// The address space one functional GlobalMemory reserves (not memory: pages
// are made accessible as allocations need them and backed when touched).
// Four times the largest functional run the runners accept (8 GiB).
inline constexpr uint64_t kFunctionalReserveBytes = 32ull << 30;

}  // namespace sk::models
