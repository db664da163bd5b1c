// global_memory.cc: allocation, lookup and naming of global memory ranges
// (see global_memory.h for the two modes).
#include "models/common/global_memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <new>

namespace sk::models {
namespace {
constexpr uint64_t kAllocAlign = 256;
}  // namespace

uint64_t GlobalMemory::allocate(uint64_t bytes, const std::string& name) {
  uint64_t size = std::max<uint64_t>(bytes, 1);
  Allocation a;
  a.size = size;
  a.name = name;
  // Both modes place the allocation at the same offset within a 2 MiB page
  // (the translation granule of the TLB models), so that which boxes share
  // a page, and the TLB misses, do not depend on where the host heap put
  // the bytes, and functional runs repeat exactly.
  const uint64_t virt = next_virtual_;
  next_virtual_ += (size + kAllocAlign - 1) / kAllocAlign * kAllocAlign + kAllocAlign;
  if (functional_) {
    // calloc: zeroed like a value-initialized array, but the pages of a
    // fresh mapping are zero already and only those the run touches are
    // faulted in (the 2 MiB of slack for the page offset mostly are not).
    auto* raw = static_cast<uint8_t*>(std::calloc(size + kDevicePageBytes, 1));
    if (raw == nullptr) throw std::bad_alloc();
    storage_.emplace_back(raw);
    const uint64_t r = reinterpret_cast<uint64_t>(raw);
    const uint64_t addr = r + ((virt - r) & (kDevicePageBytes - 1));
    a.base = addr;
    a.host = reinterpret_cast<uint8_t*>(addr);
  } else {
    a.base = virt;
  }
  allocs_.push_back(a);
  return a.base;
}

const Allocation* GlobalMemory::find(uint64_t addr, uint64_t bytes) const {
  for (const auto& a : allocs_)
    if (addr >= a.base && addr + bytes <= a.base + a.size) return &a;
  return nullptr;
}

std::string GlobalMemory::describe(uint64_t addr) const {
  for (const auto& a : allocs_)
    if (addr >= a.base && addr <= a.base + a.size) return fmt::format("{}+{:#x}", a.name, addr - a.base);
  return fmt::format("{:#x}", addr);
}

uint8_t* GlobalMemory::host(uint64_t addr) const { return reinterpret_cast<uint8_t*>(addr); }

}  // namespace sk::models
