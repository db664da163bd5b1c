// global_memory.h: the device's global memory as every model sees it.
//
// Allocations are made by the host side of a run before launch and live for
// the whole process. In functional mode each allocation has real, zeroed host
// bytes and its device address is the host address (256-byte aligned, as
// cudaMalloc/hipMalloc return, and at the offset within a 2 MiB page that
// timing mode would give it), so kernel code dereferences nothing the model
// did not hand out. In timing mode there is no backing store: addresses are
// virtual (from 2^40 up, 256-byte aligned, a gap between allocations) and only
// ranges are checked.
//
// Invariants: allocations never overlap and are never freed; find() returns
// the allocation that holds a whole range or nullptr.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
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
  // Returns the device address of a new zero-filled allocation (256-B aligned).
  uint64_t allocate(uint64_t bytes, const std::string& name);
  // The allocation holding [addr, addr + bytes), or nullptr.
  const Allocation* find(uint64_t addr, uint64_t bytes) const;
  uint8_t* host(uint64_t addr) const;  // functional mode only
  // "D+0x1c00": an address as allocation name and offset (the address itself
  // when no allocation holds it), independent of where buffers were placed.
  std::string describe(uint64_t addr) const;
  bool functional() const { return functional_; }

 private:
  bool functional_;
  uint64_t next_virtual_ = 1ull << 40;
  std::vector<Allocation> allocs_;
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::vector<std::unique_ptr<uint8_t[], Free>> storage_;  // calloc'd
};

}  // namespace sk::models
