// timeline_svg.cc: renders CTAs' tracks of a TraceLog as SVG.
//
// Invariants: within a block, tracks are drawn in tree order (siblings by
// rank, then id), the CTA's own subtree first, then the engine tracks of its
// SM or CU; overlapping slices of one track go to lanes (first lane free at
// the slice's begin, in (begin, end, log order)), or, past kMaxLanes, to
// stretches of constant in-flight count between sorted slice boundaries; all
// coordinates are printed with one decimal and opacities with two, so the
// bytes depend only on the input.
#include "runner/report/timeline_svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

namespace sk::sim {
namespace {

enum Kind {
  kIssue,
  kBusy,
  kWait,
  kBarrier,
  kMma,
  kCommit,
  kMfma,
  kTmaLoad,
  kTmaStore,
  kLdsRead,
  kLdsWrite,
  kLdsConflict,
  kOther,
  kKinds
};

struct KindStyle {
  const char* label;
  const char* fill;
};

// Legend order. Warp rows: issue, busy (held by its own operation: a
// tcgen05.ld's latency, st.global data leaving the SM), wait (for data, a
// phase, a counter or memory), barrier (for the other warps); engine rows:
// the rest.
constexpr std::array<KindStyle, kKinds> kStyles{{
    {"issue", "#5fb8a8"},
    {"busy (tcgen05.ld, st.global)", "#8e4fb0"},
    {"wait", "#d5dbe5"},
    {"barrier", "#efe2b8"},
    {"MMA", "#3467c9"},
    {"MMA commit", "#17275c"},
    {"MFMA", "#3467c9"},
    {"TMA load", "#2e9b55"},
    {"TMA store", "#e07a22"},
    {"LDS read", "#d9534f"},
    {"LDS write", "#f29c9a"},
    {"LDS bank conflicts", "#7f1d1d"},
    {"other", "#9aa0a6"},
}};

bool starts(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

Kind classify(const std::string& track, const std::string& name) {
  if (name == "issue") return kIssue;
  if (starts(track, "MFMA")) return kMfma;
  if (track == "LDS")
    return name == "ds_write" ? kLdsWrite : starts(name, "bank") ? kLdsConflict : kLdsRead;
  if (starts(name, "commit")) return kCommit;
  if (starts(name, "mma") || track == "tensor core") return kMma;
  if (starts(name, "store") || track == "TMA store") return kTmaStore;
  if (starts(name, "load") || starts(track, "TMA")) return kTmaLoad;
  if (starts(name, "tcgen05.ld") || starts(name, "st.global")) return kBusy;
  if (starts(name, "bar.sync") || starts(name, "s_barrier")) return kBarrier;
  if (name.find("wait") != std::string::npos || starts(name, "tcgen05.alloc")) return kWait;
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

// A CTA's track ("CTA 3", in a cluster launch "CTA 3 (cluster 1, rank 1)"),
// or an AMD workgroup's ("workgroup 3"); its number or -1.
int cta_number(const TraceTrack& t) {
  if (t.counter) return -1;
  for (const char* p : {"CTA ", "workgroup "}) {
    const size_t n = std::string(p).size();
    if (!starts(t.name, p)) continue;
    const size_t end = std::min(t.name.find_first_not_of("0123456789", n), t.name.size());
    if (end == n || end - n > 9) continue;
    if (end == t.name.size() || t.name.compare(end, 2, " (") == 0)
      return std::stoi(t.name.substr(n, end - n));
  }
  return -1;
}

// The CTA's track, or -1.
int cta_root(const TraceLog& log, int cta) {
  const auto& tracks = log.tracks();
  for (size_t t = 0; t < tracks.size(); ++t)
    if (cta_number(tracks[t]) == cta) return static_cast<int>(t);
  return -1;
}

// The tracks under `root` in drawing order, then the engine tracks of its SM
// or CU (NVIDIA models hang them there; AMD ones too, MFMA and LDS).
std::vector<uint32_t> tracks_of_cta(const TraceLog& log, int root) {
  const auto& tracks = log.tracks();
  std::vector<std::vector<uint32_t>> kids(tracks.size());
  for (size_t t = 0; t < tracks.size(); ++t)
    if (tracks[t].parent >= 0) kids[tracks[t].parent].push_back(static_cast<uint32_t>(t));
  for (auto& k : kids)
    std::stable_sort(k.begin(), k.end(),
                     [&](uint32_t a, uint32_t b) { return tracks[a].rank < tracks[b].rank; });
  std::vector<uint32_t> out;
  auto walk = [&](auto&& self, uint32_t t) -> void {
    for (uint32_t c : kids[t]) {
      if (tracks[c].counter || cta_number(tracks[c]) >= 0) continue;
      out.push_back(c);
      self(self, c);
    }
  };
  walk(walk, static_cast<uint32_t>(root));
  const int sm = tracks[root].parent;
  if (sm >= 0 && (starts(tracks[sm].name, "SM ") || starts(tracks[sm].name, "CU ")))
    walk(walk, static_cast<uint32_t>(sm));
  return out;
}

struct Shown {
  size_t slice;
  Cycle b, e;  // clipped to the window
  int lane;
};

// A stretch of an aggregated row: n slices in flight over [b, e).
struct Stretch {
  Cycle b, e;
  int n;
};

struct Row {
  uint32_t track = 0;
  std::string label;
  std::vector<Shown> shown;
  int lanes = 1;
  bool aggregated = false;
  std::vector<Stretch> stretches;
  int most = 0;  // the most slices in flight at once
  Kind kind = kOther;  // an aggregated row's (its most frequent kind)
};

struct Block {
  std::string name, heading;
  std::vector<Row> rows;
};

// In-flight counts of the row's slices (an instant counts for one cycle).
void aggregate(Row& row, Cycle to) {
  std::vector<std::pair<Cycle, int>> ev;
  for (const Shown& x : row.shown) {
    const Cycle e = x.e > x.b ? x.e : std::min(x.b + 1, to);
    if (e <= x.b) continue;
    ev.emplace_back(x.b, +1);
    ev.emplace_back(e, -1);
  }
  std::sort(ev.begin(), ev.end());  // at one cycle, ends (-1) before begins
  int n = 0;
  for (size_t i = 0; i < ev.size();) {
    const Cycle t = ev[i].first;
    while (i < ev.size() && ev[i].first == t) n += ev[i++].second;
    if (n > 0 && i < ev.size()) {
      const Cycle next = ev[i].first;
      if (!row.stretches.empty() && row.stretches.back().e == t && row.stretches.back().n == n)
        row.stretches.back().e = next;
      else
        row.stretches.push_back(Stretch{t, next, n});
    }
    row.most = std::max(row.most, n);
  }
}

// Ticks at 1, 2 or 5 times a power of ten, about eight over the span.
struct Step {
  double value;
  int decimals;
};
Step tick_step(double span) {
  for (int e = -9; e <= 18; ++e)
    for (int m : {1, 2, 5}) {
      const double v = m * std::pow(10.0, e);
      if (v * 8 >= span) return Step{v, std::max(0, -e)};
    }
  return Step{span, 0};
}

}  // namespace

std::string render_timeline_svg(const TraceLog& log, const TimelineOptions& opt,
                                std::string* error) {
  auto fail = [error](std::string why) {
    if (error != nullptr) *error = std::move(why);
    return std::string();
  };
  if (opt.ctas.empty()) return fail("no CTA to draw");
  const auto& tracks = log.tracks();
  const auto& slices = log.slices();

  Cycle to = opt.to;
  if (to == 0) {
    for (const auto& s : slices) to = std::max(to, s.end);
    to = std::max(to, opt.from + 1);
  }
  if (to <= opt.from) return fail(fmt::format("empty window [{}, {})", opt.from, to));
  const Cycle from = opt.from;

  // Blocks: each CTA's rows with their visible slices, clipped, in lanes.
  std::vector<Block> blocks;
  std::array<bool, kKinds> used{};
  std::vector<int> row_of(tracks.size(), -1);
  for (const TimelineCta& c : opt.ctas) {
    const int root = cta_root(log, c.id);
    const std::vector<uint32_t> order =
        root < 0 ? std::vector<uint32_t>{} : tracks_of_cta(log, root);
    if (order.empty()) return fail(fmt::format("the trace has no tracks for CTA {}", c.id));
    Block bl;
    bl.name = tracks[root].name;
    bl.heading = bl.name + (c.why.empty() ? "" : " (" + c.why + ")");
    if (const int sm = tracks[root].parent; sm >= 0) bl.heading += " on " + tracks[sm].name;
    std::fill(row_of.begin(), row_of.end(), -1);
    for (size_t i = 0; i < order.size(); ++i) {
      row_of[order[i]] = static_cast<int>(i);
      bl.rows.push_back(Row{order[i], tracks[order[i]].name, {}, 1, false, {}, 0, kOther});
    }
    for (size_t i = 0; i < slices.size(); ++i) {
      const TraceSlice& s = slices[i];
      if (s.track >= row_of.size() || row_of[s.track] < 0) continue;
      const bool inside = s.begin == s.end ? (s.begin >= from && s.begin < to)
                                           : (s.end > from && s.begin < to);
      if (inside)
        bl.rows[row_of[s.track]].shown.push_back(
            Shown{i, std::max(s.begin, from), std::min(s.end, to), 0});
    }
    for (Row& row : bl.rows) {
      auto& v = row.shown;
      std::sort(v.begin(), v.end(), [](const Shown& a, const Shown& b) {
        return std::tie(a.b, a.e, a.slice) < std::tie(b.b, b.e, b.slice);
      });
      std::vector<Cycle> lane_end;
      std::array<int, kKinds> kinds{};
      for (Shown& x : v) {
        size_t l = 0;
        while (l < lane_end.size() && lane_end[l] > x.b) ++l;
        if (l == lane_end.size()) lane_end.push_back(0);
        lane_end[l] = x.e;
        x.lane = static_cast<int>(l);
        ++kinds[classify(tracks[row.track].name, slices[x.slice].name)];
      }
      row.lanes = std::max<int>(1, static_cast<int>(lane_end.size()));
      if (row.lanes > kMaxLanes) {
        row.aggregated = true;
        row.kind = static_cast<Kind>(std::max_element(kinds.begin(), kinds.end()) - kinds.begin());
        aggregate(row, to);
        row.label += fmt::format(" (up to {})", row.most);
        used[row.kind] = true;
      } else {
        for (int k = 0; k < kKinds; ++k) used[k] = used[k] || kinds[k] > 0;
      }
    }
    blocks.push_back(std::move(bl));
  }

  // Layout.
  size_t longest = 0;
  for (const Block& bl : blocks)
    for (const Row& row : bl.rows) longest = std::max(longest, row.label.size());
  const int label_w = std::clamp(static_cast<int>(longest) * 7 + 20, 100, 320);
  const size_t label_chars = static_cast<size_t>(label_w - 20) / 7;
  const double x0 = label_w, x1 = opt.width_px - 16.0, plot_w = x1 - x0;
  if (plot_w < 100)
    return fail(fmt::format("width {} px leaves no room to draw (at least {} px)", opt.width_px,
                            label_w + 116));
  auto x_of = [&](double c) {
    return std::clamp(
        x0 + (c - static_cast<double>(from)) * plot_w / static_cast<double>(to - from), x0, x1);
  };
  const double cycles_per_us = opt.clock_ghz * 1000;
  const bool us_axis = opt.clock_ghz > 0 && std::isfinite(opt.clock_ghz);

  std::string body;
  double y = 32;
  for (const Block& bl : blocks) {
    body += fmt::format(
        "<g class=\"block\">\n<text x=\"8\" y=\"{:.1f}\" font-weight=\"bold\">{}</text>\n", y + 14,
        esc(bl.heading));
    y += 20;
    const double top = y;
    body += "<g class=\"tracks\">\n";
    for (size_t r = 0; r < bl.rows.size(); ++r) {
      const Row& row = bl.rows[r];
      const std::string& track = tracks[row.track].name;
      const int lanes = row.aggregated ? 1 : row.lanes;
      const int lane_h = std::max(3, 18 / lanes);
      const double h = lanes * lane_h + 6;
      body += fmt::format("<g class=\"track\">\n<rect x=\"0\" y=\"{:.1f}\" width=\"{}\" "
                          "height=\"{:.1f}\" fill=\"{}\"/>\n",
                          y, opt.width_px, h, r % 2 == 0 ? "#ffffff" : "#f4f5f7");
      std::string label = row.label;
      if (label.size() > label_chars) label = label.substr(0, label_chars - 2) + "..";
      body += fmt::format("<text x=\"8\" y=\"{:.1f}\">{}</text>\n", y + h / 2 + 4, esc(label));
      auto rect = [&](Cycle b, Cycle e, double ry, int rh, const char* fill,
                      const std::string& extra, const std::string& tip) {
        double xb = x_of(static_cast<double>(b));
        const double w = std::max(x_of(static_cast<double>(e)) - xb, 1.0);
        if (xb + w > x1) xb = x1 - w;
        body += fmt::format("<rect class=\"slice\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
                            "height=\"{}\" fill=\"{}\"{}><title>{}</title></rect>\n",
                            xb, ry, w, rh, fill, extra, esc(tip));
      };
      if (row.aggregated) {
        for (const Stretch& s : row.stretches)
          rect(s.b, s.e, y + 3, lane_h - 1, kStyles[row.kind].fill,
               fmt::format(" fill-opacity=\"{:.2f}\"", 0.2 + 0.8 * s.n / row.most),
               fmt::format("{} in flight: {} [{}, {}) cycles", s.n, track, s.b, s.e));
      } else {
        for (const Shown& x : row.shown) {
          const TraceSlice& s = slices[x.slice];
          std::string tip = fmt::format("{} [{}, {}) cycles", s.name, s.begin, s.end);
          for (size_t a = 0; a < s.args.size(); ++a)
            tip += fmt::format("{}{}={}", a == 0 ? "; " : ", ", s.args[a].first, s.args[a].second);
          rect(x.b, x.e, y + 3 + x.lane * lane_h, std::max(1, lane_h - 1),
               kStyles[classify(track, s.name)].fill, "", tip);
        }
      }
      body += "</g>\n";
      y += h;
    }
    body += "</g>\n";
    body += fmt::format("<rect class=\"plot\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
                        "height=\"{:.1f}\" fill=\"none\" stroke=\"#888888\"/>\n",
                        x0, top, plot_w, y - top);

    // Cycle axis: about eight ticks at 1, 2 or 5 times a power of ten cycles.
    const Cycle span = to - from;
    Cycle step = 1;
    for (Cycle p = 1; step * 8 < span; p *= 10)
      for (Cycle m : {1, 2, 5, 10})
        if (step * 8 < span) step = m * p;
    body += fmt::format("<g class=\"axis cycles\">\n<line x1=\"{:.1f}\" y1=\"{:.1f}\" "
                        "x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#333333\"/>\n",
                        x0, y, x1, y);
    for (Cycle t = (from + step - 1) / step * step; t <= to; t += step)
      body += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" "
                          "stroke=\"#333333\"/>\n<text x=\"{0:.1f}\" y=\"{3:.1f}\" "
                          "text-anchor=\"middle\">{4}</text>\n",
                          x_of(static_cast<double>(t)), y, y + 5, y + 18, t);
    body += fmt::format("<text x=\"8\" y=\"{:.1f}\">cycles</text>\n</g>\n", y + 18);
    y += 24;

    // µs axis at the run's clock: ticks at 1, 2 or 5 times a power of ten µs.
    if (us_axis) {
      const double us_from = static_cast<double>(from) / cycles_per_us;
      const double us_to = static_cast<double>(to) / cycles_per_us;
      const Step us = tick_step(us_to - us_from);
      body += fmt::format("<g class=\"axis us\">\n<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" "
                          "y2=\"{:.1f}\" stroke=\"#333333\"/>\n",
                          x0, y, x1, y);
      const auto k0 = static_cast<int64_t>(std::ceil(us_from / us.value - 1e-9));
      const auto k1 = static_cast<int64_t>(std::floor(us_to / us.value + 1e-9));
      for (int64_t k = k0; k <= k1; ++k) {
        const double t_us = static_cast<double>(k) * us.value;
        body += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" "
                            "stroke=\"#333333\"/>\n<text x=\"{0:.1f}\" y=\"{3:.1f}\" "
                            "text-anchor=\"middle\">{4:.{5}f}</text>\n",
                            x_of(t_us * cycles_per_us), y, y + 5, y + 18, t_us, us.decimals);
      }
      body += fmt::format("<text x=\"8\" y=\"{:.1f}\">µs at {:g} GHz</text>\n</g>\n", y + 18,
                          opt.clock_ghz);
      y += 24;
    }
    body += "</g>\n";
    y += 12;
  }

  // Legend: the kinds drawn, in a fixed order.
  double ly = y + 4, lx = 8;
  body += "<g class=\"legend\">\n";
  for (int k = 0; k < kKinds; ++k) {
    if (!used[k]) continue;
    const std::string label = kStyles[k].label;
    const double item_w = 16 + 7.0 * label.size() + 14;
    if (lx > 8 && lx + item_w > opt.width_px) {  // wrap to a new row
      lx = 8;
      ly += 18;
    }
    body += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"12\" fill=\"{}\" "
                        "stroke=\"#666666\"/>\n<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n",
                        lx, ly, kStyles[k].fill, lx + 16, ly + 10, esc(label));
    lx += item_w;
  }
  body += "</g>\n";

  std::string names;
  for (const Block& bl : blocks) names += (names.empty() ? "" : ", ") + bl.name;
  std::string title = fmt::format("{}: cycles [{}, {})", names, from, to);
  if (us_axis)
    title += fmt::format(" = [{:.3f}, {:.3f}) µs at {:g} GHz",
                         static_cast<double>(from) / cycles_per_us,
                         static_cast<double>(to) / cycles_per_us, opt.clock_ghz);
  const double height = ly + 24;
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1:.0f}\" "
      "viewBox=\"0 0 {0} {1:.0f}\" font-family=\"monospace\" font-size=\"12\">\n"
      "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1:.0f}\" fill=\"#ffffff\"/>\n"
      "<text x=\"8\" y=\"20\" font-size=\"14\">{2}</text>\n",
      opt.width_px, height, esc(title));
  return out + body + "</svg>\n";
}

int pick_cta(const TraceLog& log, const std::vector<CtaActivity>& ctas, CtaPick pick) {
  if (ctas.empty()) return -1;
  auto better = [](Cycle a, int a_id, Cycle b, int b_id) {
    return a > b || (a == b && a_id < b_id);
  };
  if (pick == CtaPick::kSlowest) {
    const CtaActivity* best = &ctas.front();
    for (const CtaActivity& c : ctas)
      if (better(c.end, c.cta, best->end, best->cta)) best = &c;
    return best->cta;
  }
  // The SM of each CTA the log places; the others are their own.
  const auto& tracks = log.tracks();
  std::map<int, int64_t> sm_of;
  for (size_t t = 0; t < tracks.size(); ++t)
    if (const int n = cta_number(tracks[t]); n >= 0 && tracks[t].parent >= 0)
      sm_of.emplace(n, tracks[t].parent);
  auto sm = [&](int cta) {
    auto it = sm_of.find(cta);
    return it != sm_of.end() ? it->second : -1 - int64_t{cta};
  };
  std::map<int64_t, std::pair<Cycle, int>> per_sm;  // busy cycles, lowest CTA id
  for (const CtaActivity& c : ctas) {
    auto [it, fresh] = per_sm.emplace(sm(c.cta), std::pair<Cycle, int>{0, c.cta});
    it->second.first += c.busy;
    it->second.second = std::min(it->second.second, c.cta);
  }
  auto top = per_sm.begin();
  for (auto it = per_sm.begin(); it != per_sm.end(); ++it)
    if (better(it->second.first, it->second.second, top->second.first, top->second.second))
      top = it;
  const CtaActivity* best = nullptr;
  for (const CtaActivity& c : ctas)
    if (sm(c.cta) == top->first &&
        (best == nullptr || better(c.busy, c.cta, best->busy, best->cta)))
      best = &c;
  return best->cta;
}

}  // namespace sk::sim
