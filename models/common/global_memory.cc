// global_memory.cc: allocation, lookup and naming of global memory ranges
// (see global_memory.h for the two modes).
#include "models/common/global_memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace sk::models {
namespace {
constexpr uint64_t kAllocAlign = 256;
}  // namespace

uint64_t GlobalMemory::allocate(uint64_t bytes, const std::string& name) {
  uint64_t size = std::max<uint64_t>(bytes, 1);
  Allocation a;
  a.size = size;
  a.name = name;
  if (functional_) {
    // Over-allocate so the device address can be aligned like cudaMalloc's.
    storage_.push_back(std::make_unique<uint8_t[]>(size + kAllocAlign));
    uint8_t* raw = storage_.back().get();
    std::memset(raw, 0, size + kAllocAlign);
    uint64_t addr = (reinterpret_cast<uint64_t>(raw) + kAllocAlign - 1) & ~(kAllocAlign - 1);
    a.base = addr;
    a.host = reinterpret_cast<uint8_t*>(addr);
  } else {
    a.base = next_virtual_;
    next_virtual_ += (size + kAllocAlign - 1) / kAllocAlign * kAllocAlign + kAllocAlign;
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
