// timeline_svg.cc: renders one CTA's tracks of a TraceLog as SVG.
//
// Invariants: tracks are drawn in tree order (siblings by rank, then id), the
// CTA's own subtree first, then the engine tracks of its SM; overlapping
// slices of one track go to lanes (first lane free at the slice's begin, in
// (begin, end, log order)); all coordinates are printed with one decimal, so
// the bytes depend only on the input.
#include "runner/report/timeline_svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <tuple>
#include <vector>

namespace sk::sim {
namespace {

enum Kind { kWait, kStall, kMma, kCommit, kTmaLoad, kTmaStore, kEpilogue, kOther, kKinds };

struct KindStyle {
  const char* label;
  const char* fill;
};

constexpr std::array<KindStyle, kKinds> kStyles{{
    {"wait (mbarrier, wait_group)", "#d5dbe5"},
    {"other stall (bar.sync, alloc)", "#efe2b8"},
    {"MMA", "#3467c9"},
    {"MMA commit", "#17275c"},
    {"TMA load", "#2e9b55"},
    {"TMA store", "#e07a22"},
    {"epilogue (tcgen05.ld)", "#8e4fb0"},
    {"other", "#9aa0a6"},
}};

bool starts(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

Kind classify(const std::string& track, const std::string& name) {
  if (starts(name, "wait") || name.find("wait") != std::string::npos) return kWait;
  if (starts(name, "mma")) return kMma;
  if (starts(name, "commit")) return kCommit;
  if (starts(name, "store") || track == "TMA store") return kTmaStore;
  if (starts(name, "load") || starts(track, "TMA")) return kTmaLoad;
  if (starts(name, "tcgen05.ld")) return kEpilogue;
  if (track == "tensor core") return kMma;
  if (starts(track, "warp")) return kStall;
  return kOther;
}

std::string esc(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default:
        // XML 1.0 has no place for other control characters.
        o += (static_cast<unsigned char>(c) < 0x20 && c != '\t') ? '?' : c;
    }
  }
  return o;
}

// A CTA's track ("CTA 3"), or an AMD workgroup's ("workgroup 3").
bool is_cta_name(const std::string& s) {
  for (const char* p : {"CTA ", "workgroup "}) {
    const size_t n = std::string(p).size();
    if (starts(s, p) && s.size() > n && s.find_first_not_of("0123456789", n) == std::string::npos)
      return true;
  }
  return false;
}

// The CTA's tracks in drawing order; empty when the log has no such CTA.
std::vector<uint32_t> tracks_of_cta(const TraceLog& log, int cta) {
  const auto& tracks = log.tracks();
  const std::string want = fmt::format("CTA {}", cta), want_amd = fmt::format("workgroup {}", cta);
  int root = -1;
  for (size_t t = 0; t < tracks.size() && root < 0; ++t)
    if ((tracks[t].name == want || tracks[t].name == want_amd) && !tracks[t].counter)
      root = static_cast<int>(t);
  if (root < 0) return {};
  std::vector<std::vector<uint32_t>> kids(tracks.size());
  for (size_t t = 0; t < tracks.size(); ++t)
    if (tracks[t].parent >= 0) kids[tracks[t].parent].push_back(static_cast<uint32_t>(t));
  for (auto& k : kids)
    std::stable_sort(k.begin(), k.end(),
                     [&](uint32_t a, uint32_t b) { return tracks[a].rank < tracks[b].rank; });
  std::vector<uint32_t> out;
  auto walk = [&](auto&& self, uint32_t t) -> void {
    for (uint32_t c : kids[t]) {
      if (tracks[c].counter || is_cta_name(tracks[c].name)) continue;
      out.push_back(c);
      self(self, c);
    }
  };
  walk(walk, static_cast<uint32_t>(root));
  // Engine tracks hang under the SM that runs the CTA (AMD models have none).
  const int sm = tracks[root].parent;
  if (sm >= 0 && starts(tracks[sm].name, "SM ")) walk(walk, static_cast<uint32_t>(sm));
  return out;
}

struct Shown {
  size_t slice;
  Cycle b, e;  // clipped to the window
  int lane;
};

}  // namespace

std::string render_timeline_svg(const TraceLog& log, const TimelineOptions& opt,
                                std::string* error) {
  auto fail = [error](std::string why) {
    if (error != nullptr) *error = std::move(why);
    return std::string();
  };
  const std::vector<uint32_t> order = tracks_of_cta(log, opt.cta);
  if (order.empty()) return fail(fmt::format("the trace has no tracks for CTA {}", opt.cta));
  const auto& tracks = log.tracks();
  const auto& slices = log.slices();

  Cycle to = opt.to;
  if (to == 0) {
    for (const auto& s : slices) to = std::max(to, s.end);
    to = std::max(to, opt.from + 1);
  }
  if (to <= opt.from) return fail(fmt::format("empty window [{}, {})", opt.from, to));
  const Cycle from = opt.from;

  // Visible slices per track, clipped, in lanes.
  std::vector<int> row(tracks.size(), -1);
  for (size_t i = 0; i < order.size(); ++i) row[order[i]] = static_cast<int>(i);
  std::vector<std::vector<Shown>> shown(order.size());
  for (size_t i = 0; i < slices.size(); ++i) {
    const TraceSlice& s = slices[i];
    if (s.track >= row.size() || row[s.track] < 0) continue;
    const bool inside = s.begin == s.end ? (s.begin >= from && s.begin < to)
                                         : (s.end > from && s.begin < to);
    if (inside)
      shown[row[s.track]].push_back(Shown{i, std::max(s.begin, from), std::min(s.end, to), 0});
  }
  std::vector<int> lanes(order.size(), 1);
  for (size_t r = 0; r < order.size(); ++r) {
    auto& v = shown[r];
    std::sort(v.begin(), v.end(), [](const Shown& a, const Shown& b) {
      return std::tie(a.b, a.e, a.slice) < std::tie(b.b, b.e, b.slice);
    });
    std::vector<Cycle> lane_end;
    for (Shown& x : v) {
      size_t l = 0;
      while (l < lane_end.size() && lane_end[l] > x.b) ++l;
      if (l == lane_end.size()) lane_end.push_back(0);
      lane_end[l] = x.e;
      x.lane = static_cast<int>(l);
    }
    lanes[r] = std::max<int>(1, static_cast<int>(lane_end.size()));
  }

  // Layout.
  size_t longest = 0;
  for (uint32_t t : order) longest = std::max(longest, tracks[t].name.size());
  const int label_w = std::clamp(static_cast<int>(longest) * 7 + 20, 100, 320);
  const size_t label_chars = static_cast<size_t>(label_w - 20) / 7;
  const double x0 = label_w, x1 = opt.width_px - 16.0, plot_w = x1 - x0;
  if (plot_w < 100)
    return fail(fmt::format("width {} px leaves no room to draw (at least {} px)", opt.width_px,
                            label_w + 116));
  const double top = 32;
  auto x_of = [&](Cycle c) {
    return x0 + static_cast<double>(c - from) * plot_w / static_cast<double>(to - from);
  };

  std::string body;
  double y = top;
  body += "<g class=\"tracks\">\n";
  for (size_t r = 0; r < order.size(); ++r) {
    const TraceTrack& tr = tracks[order[r]];
    const int lane_h = std::max(3, 18 / lanes[r]);
    const double h = lanes[r] * lane_h + 6;
    body += fmt::format("<g class=\"track\">\n<rect x=\"0\" y=\"{:.1f}\" width=\"{}\" height=\"{:.1f}\" "
                        "fill=\"{}\"/>\n",
                        y, opt.width_px, h, r % 2 == 0 ? "#ffffff" : "#f4f5f7");
    std::string label = tr.name;
    if (label.size() > label_chars) label = label.substr(0, label_chars - 2) + "..";
    body += fmt::format("<text x=\"8\" y=\"{:.1f}\">{}</text>\n", y + h / 2 + 4, esc(label));
    for (const Shown& x : shown[r]) {
      const TraceSlice& s = slices[x.slice];
      double xb = x_of(x.b), w = std::max(x_of(x.e) - xb, 1.0);
      if (xb + w > x1) xb = x1 - w;
      std::string tip = fmt::format("{} [{}, {}) cycles", s.name, s.begin, s.end);
      for (size_t a = 0; a < s.args.size(); ++a)
        tip += fmt::format("{}{}={}", a == 0 ? "; " : ", ", s.args[a].first, s.args[a].second);
      body += fmt::format("<rect class=\"slice\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
                          "height=\"{}\" fill=\"{}\"><title>{}</title></rect>\n",
                          xb, y + 3 + x.lane * lane_h, w, std::max(1, lane_h - 1),
                          kStyles[classify(tr.name, s.name)].fill, esc(tip));
    }
    body += "</g>\n";
    y += h;
  }
  body += "</g>\n";
  body += fmt::format("<rect class=\"plot\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
                      "height=\"{:.1f}\" fill=\"none\" stroke=\"#888888\"/>\n",
                      x0, top, plot_w, y - top);

  // Time axis: about eight ticks at 1, 2 or 5 times a power of ten cycles.
  const Cycle span = to - from;
  Cycle step = 1;
  for (Cycle p = 1; step * 8 < span; p *= 10)
    for (Cycle m : {1, 2, 5, 10})
      if (step * 8 < span) step = m * p;
  body += fmt::format("<g class=\"axis\">\n<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" "
                      "y2=\"{:.1f}\" stroke=\"#333333\"/>\n",
                      x0, y, x1, y);
  for (Cycle t = (from + step - 1) / step * step; t <= to; t += step) {
    const double xt = x_of(t);
    body += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" "
                        "stroke=\"#333333\"/>\n<text x=\"{0:.1f}\" y=\"{3:.1f}\" "
                        "text-anchor=\"middle\">{4}</text>\n",
                        xt, y, y + 5, y + 18, t);
  }
  body += fmt::format("<text x=\"8\" y=\"{:.1f}\">cycles</text>\n</g>\n", y + 18);

  // Legend: every kind, in a fixed order.
  double ly = y + 34, lx = 8;
  body += "<g class=\"legend\">\n";
  for (const KindStyle& k : kStyles) {
    const double item_w = 16 + 7.0 * std::string(k.label).size() + 14;
    if (lx > 8 && lx + item_w > opt.width_px) {  // wrap to a new row
      lx = 8;
      ly += 18;
    }
    body += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"12\" fill=\"{}\" "
                        "stroke=\"#666666\"/>\n<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n",
                        lx, ly, k.fill, lx + 16, ly + 10, esc(k.label));
    lx += item_w;
  }
  body += "</g>\n";

  const double height = ly + 24;
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1:.0f}\" "
      "viewBox=\"0 0 {0} {1:.0f}\" font-family=\"monospace\" font-size=\"12\">\n"
      "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1:.0f}\" fill=\"#ffffff\"/>\n"
      "<text x=\"8\" y=\"20\" font-size=\"14\">CTA {2}: cycles [{3}, {4})</text>\n",
      opt.width_px, height, opt.cta, from, to);
  return out + body + "</svg>\n";
}

}  // namespace sk::sim
