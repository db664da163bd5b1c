#include "engine/call_site.h"

#include <deque>
#include <mutex>
#include <tuple>
#include <unordered_map>

namespace sk::sim {
namespace {

struct Frame {
  uint32_t parent;
  std::source_location loc;
};

struct Key {
  uint32_t parent;
  const char* file;
  uint32_t line, column;
  bool operator==(const Key& o) const {
    return std::tie(parent, file, line, column) == std::tie(o.parent, o.file, o.line, o.column);
  }
};
struct KeyHash {
  size_t operator()(const Key& k) const {
    uint64_t h = reinterpret_cast<uintptr_t>(k.file);
    h = h * 0x9E3779B97F4A7C15ULL ^ (uint64_t{k.parent} << 32 | k.line);
    h = h * 0x9E3779B97F4A7C15ULL ^ k.column;
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

struct Table {
  std::mutex mu;
  std::deque<Frame> frames;  // id i -> frames[i - 1]
  std::unordered_map<Key, uint32_t, KeyHash> ids;
};
Table& table() {
  static Table* t = new Table;  // never destroyed: ids outlive static destructors
  return *t;
}

}  // namespace

uint32_t intern_caller(uint32_t parent, const std::source_location& frame) {
  Table& t = table();
  const Key key{parent, frame.file_name(), frame.line(), frame.column()};
  std::lock_guard<std::mutex> lock(t.mu);
  auto [it, added] = t.ids.try_emplace(key, 0);
  if (added) {
    t.frames.push_back(Frame{parent, frame});
    it->second = static_cast<uint32_t>(t.frames.size());
  }
  return it->second;
}

std::vector<std::string> site_frames(const Site& site) {
  std::vector<std::string> out;
  if (std::string s = format_location(site.loc); !s.empty()) out.push_back(std::move(s));
  {
    Table& t = table();
    std::lock_guard<std::mutex> lock(t.mu);
    for (uint32_t id = site.callers; id != 0;) {
      const Frame& f = t.frames[id - 1];
      if (std::string s = format_location(f.loc); !s.empty()) out.push_back(std::move(s));
      id = f.parent;
    }
  }
  return {out.rbegin(), out.rend()};
}

std::string join_chain(const std::vector<std::string>& frames) {
  std::string s;
  for (const std::string& f : frames) {
    if (!s.empty()) s += " -> ";
    s += f;
  }
  return s;
}

std::string format_site(const Site& site) { return join_chain(site_frames(site)); }

void locate(Finding& f, const Site& site) {
  std::vector<std::string> frames = site_frames(site);
  f.location = frames.empty() ? std::string() : frames.front();
  if (frames.size() > 1) f.chain = std::move(frames);
  else f.chain.clear();
}

}  // namespace sk::sim
