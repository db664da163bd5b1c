// global_memory.cc: allocation, lookup and naming of global memory ranges
// (see global_memory.h for the two modes).
#include "models/common/global_memory.h"

#include <fmt/format.h>

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <new>

#if defined(__SANITIZE_ADDRESS__)
#define SK_GMEM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SK_GMEM_ASAN 1
#endif
#endif
#ifdef SK_GMEM_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace sk::models {
namespace {
constexpr uint64_t kAllocAlign = 256;

void poison(uint8_t* p, uint64_t bytes) {
#ifdef SK_GMEM_ASAN
  ASAN_POISON_MEMORY_REGION(p, bytes);
#else
  (void)p, (void)bytes;
#endif
}

void unpoison(uint8_t* p, uint64_t bytes) {
#ifdef SK_GMEM_ASAN
  ASAN_UNPOISON_MEMORY_REGION(p, bytes);
#else
  (void)p, (void)bytes;
#endif
}
}  // namespace

GlobalMemory::~GlobalMemory() {
  if (reserved_ != nullptr) {
    unpoison(arena_, committed_);
    munmap(reserved_, reserved_bytes_);
  }
}

uint64_t GlobalMemory::allocate(uint64_t bytes, const std::string& name) {
  const uint64_t size = std::max<uint64_t>(bytes, 1);
  const uint64_t virt = next_virtual_;
  const uint64_t next = virt + (size + kAllocAlign - 1) / kAllocAlign * kAllocAlign + kAllocAlign;
  Allocation a;
  a.size = size;
  a.name = name;
  a.base = virt;
  if (functional_) {
    if (next - kFirstVirtual > kFunctionalReserveBytes) throw std::bad_alloc();
    if (reserved_ == nullptr) {
      // One page more than the reservation, to start it on a 2 MiB boundary.
      reserved_bytes_ = kFunctionalReserveBytes + kDevicePageBytes;
      void* r = mmap(nullptr, reserved_bytes_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                     -1, 0);
      if (r == MAP_FAILED) throw std::bad_alloc();
      reserved_ = static_cast<uint8_t*>(r);
      const uint64_t at = reinterpret_cast<uint64_t>(reserved_);
      arena_ = reinterpret_cast<uint8_t*>((at + kDevicePageBytes - 1) & ~(kDevicePageBytes - 1));
    }
    // Read-write up to the end of this allocation, in whole 2 MiB pages;
    // fresh anonymous pages are zero and only those the run touches are
    // backed.
    const uint64_t need = next - kFirstVirtual;
    if (need > committed_) {
      const uint64_t to = (need + kDevicePageBytes - 1) & ~(kDevicePageBytes - 1);
      if (mprotect(arena_ + committed_, to - committed_, PROT_READ | PROT_WRITE) != 0)
        throw std::bad_alloc();
      poison(arena_ + committed_, to - committed_);
      committed_ = to;
    }
    a.host = arena_ + (virt - kFirstVirtual);
    unpoison(a.host, size);
    a.base = reinterpret_cast<uint64_t>(a.host);
  }
  next_virtual_ = next;
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
