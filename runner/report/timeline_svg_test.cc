// timeline_svg_test.cc: the --timeline SVG on hand-built traces: only the
// chosen CTAs' tracks (warps under the CTA, engines under its SM or CU or
// under the CTA) are drawn, each CTA as its own block; the window clips and
// drops slices; the legend lists exactly the kinds drawn (NVIDIA kinds never
// on an MI300X trace, and the reverse); the µs axis sits where the clock puts
// it; a track of many overlapping stores becomes one row of in-flight counts;
// busiest and slowest pick the right CTAs; text is escaped, the document is
// well nested, every slice lies in the plot and the same input gives the same
// bytes. Then a real MI300X run (in a child process, as every simulation):
// its timeline shows the waves' issue and waits, each SIMD's MFMAs and the
// LDS pipe, with the slowest workgroup chosen after the run.
#include <doctest/doctest.h>

#include <boost/json.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/isolate.h"
#include "runner/kernels/matmul_dispatch.h"
#include "runner/report/timeline_svg.h"

namespace sk::sim {
namespace {

TraceLog two_ctas() {
  TraceLog log;
  log.set_enabled(true);
  const int gpu = static_cast<int>(log.track(-1, "GPU 0 (test)"));
  int sm[2], cta[2];
  for (int c = 0; c < 2; ++c) {
    sm[c] = static_cast<int>(log.track(gpu, "SM " + std::to_string(c), c));
    cta[c] = static_cast<int>(log.track(sm[c], "CTA " + std::to_string(c), 0));
  }
  // CTA 0: its own warp names and an engine slice that must not appear.
  const uint32_t w0 = log.track(cta[0], "warp 7 only_cta0", 7);
  const uint32_t tc0 = log.track(sm[0], "tensor core", 110);
  log.slice({w0, 300, 400, "wait cta0_only", {}, 0, 0});
  log.slice({tc0, 300, 400, "mma cta0_only", {}, 0, 0});
  // CTA 1: warps under the CTA, TMA loads and tensor core under the SM, and a
  // TMA store track under the CTA itself.
  const uint32_t load = log.track(cta[1], "warp 5 load", 5);
  const uint32_t mma = log.track(cta[1], "warp 6 mma", 6);
  const uint32_t tma = log.track(sm[1], "TMA input.full[0]", 100);
  const uint32_t tc = log.track(sm[1], "tensor core", 110);
  const uint32_t st = log.track(cta[1], "TMA store", 150);
  log.slice({load, 100, 300, "wait input.empty[0]", {}, 0, 0});    // crosses the left edge
  log.slice({mma, 550, 900, "wait input.full[1]", {}, 0, 0});      // crosses the right edge
  log.slice({tma, 10, 50, "load (0,0) early", {{"bytes", 16384}}, 0, 0});   // before
  log.slice({tma, 700, 800, "load (64,0) late", {{"bytes", 16384}}, 0, 0});  // after
  log.slice({tma, 220, 260, "load (0,64)", {{"bytes", 16384}}, 0, 0});
  log.slice({tc, 250, 350, "mma <a&b> \"q\" 'x'", {}, 0, 0});
  log.slice({tc, 300, 320, "mma overlapping", {}, 0, 0});
  log.slice({tc, 360, 360, "commit -> acc.full[0]", {}, 0, 0});
  log.slice({st, 400, 450, "store (0,0)", {}, 0, 0});
  return log;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

double attr(const std::string& s, size_t from, const std::string& name) {
  size_t p = s.find(" " + name + "=\"", from);
  REQUIRE(p != std::string::npos);
  return std::atof(s.c_str() + p + name.size() + 3);
}

struct Box {
  double x, w;
};

// The rect whose tooltip starts with `title`.
Box slice_box(const std::string& svg, const std::string& title) {
  size_t t = svg.find("<title>" + title);
  REQUIRE(t != std::string::npos);
  size_t r = svg.rfind("<rect", t);
  return Box{attr(svg, r, "x"), attr(svg, r, "width")};
}

// The legend's labels, in order.
std::vector<std::string> legend(const std::string& svg) {
  std::vector<std::string> out;
  const size_t g = svg.find("<g class=\"legend\">");
  REQUIRE(g != std::string::npos);
  const size_t end = svg.find("</g>", g);
  for (size_t p = svg.find("<text", g); p < end; p = svg.find("<text", p + 1)) {
    const size_t b = svg.find('>', p) + 1;
    out.push_back(svg.substr(b, svg.find("</text>", b) - b));
  }
  return out;
}

// Every slice rect lies within the plot rect of its block.
bool slices_in_plot(const std::string& svg) {
  bool ok = true;
  size_t n = 0;
  for (size_t blk = svg.find("class=\"block\""); blk != std::string::npos;
       blk = svg.find("class=\"block\"", blk + 1)) {
    const size_t plot = svg.find("class=\"plot\"", blk);
    REQUIRE(plot != std::string::npos);
    const double x0 = attr(svg, plot, "x"), x1 = x0 + attr(svg, plot, "width");
    const double y0 = attr(svg, plot, "y"), y1 = y0 + attr(svg, plot, "height");
    for (size_t r = svg.find("<rect class=\"slice\"", blk); r < plot;
         r = svg.find("<rect class=\"slice\"", r + 1)) {
      const double x = attr(svg, r, "x"), w = attr(svg, r, "width");
      const double y = attr(svg, r, "y"), h = attr(svg, r, "height");
      ok = ok && x >= x0 - 1e-6 && x + w <= x1 + 1e-6 && y >= y0 && y + h <= y1 && w > 0;
      ++n;
    }
  }
  return ok && n > 0;
}

// The x of the axis label `text` (an exact text node) after `from`.
double label_x(const std::string& svg, const std::string& text, size_t from = 0) {
  const size_t t = svg.find(">" + text + "</text>", from);
  REQUIRE_MESSAGE(t != std::string::npos, text);
  return attr(svg, svg.rfind("<text", t), "x");
}

// One workgroup of an MI300X-like trace: waves under the workgroup, the
// SIMDs' matrix cores and the LDS pipe under its CU.
TraceLog amd_workgroup() {
  TraceLog log;
  log.set_enabled(true);
  const int gpu = static_cast<int>(log.track(-1, "GPU 0 (mi300x model)"));
  const int cu = static_cast<int>(log.track(gpu, "CU 0", 0));
  const int wg = static_cast<int>(log.track(cu, "workgroup 0", 0));
  const uint32_t w0 = log.track(wg, "warp 0 group0", 0);
  const uint32_t w4 = log.track(wg, "warp 4 group1", 4);
  const uint32_t simd0 = log.track(cu, "MFMA SIMD 0", 100000);
  const uint32_t lds = log.track(cu, "LDS", 100100);
  log.busy(w0, 0, 40, "issue");
  log.slice({w0, 40, 100, "s_waitcnt vmcnt", {}, 0, 0});
  log.busy(w0, 100, 130, "issue");
  log.slice({w4, 0, 130, "s_barrier", {}, 0, 0});
  log.slice({w4, 130, 160, "wait counter input.full[0]", {}, 0, 0});
  for (int i = 0; i < 4; ++i)
    log.busy(simd0, 130 + 32 * i, 162 + 32 * i, "v_mfma_f32_32x32x8_bf16", 1);
  log.busy(lds, 100, 104, "ds_write", 1);
  log.busy(lds, 110, 112, "ds_read", 1);
  log.busy(lds, 112, 114, "bank conflicts", 1);
  return log;
}

}  // namespace

TEST_CASE("busy runs merge while back to back") {
  TraceLog log;
  log.set_enabled(true);
  const uint32_t t = log.track(-1, "x");
  log.busy(t, 0, 10, "a", 1);
  log.busy(t, 10, 20, "a", 2);  // extends
  log.busy(t, 15, 25, "a", 1);  // overlaps by rounding: extends from 20
  log.busy(t, 30, 40, "a", 1);  // a gap: a new slice
  log.busy(t, 40, 50, "b", 1);  // another name: a new slice
  log.busy(t, 45, 48, "c");     // inside the last one: nothing to record
  REQUIRE(log.slices().size() == 3);
  CHECK(log.slices()[0].end == 25);
  CHECK(log.slices()[0].args == std::vector<std::pair<std::string, int64_t>>{{"ops", 4}});
  CHECK(log.slices()[1].begin == 30);
  CHECK(log.slices()[2].name == "b");
  CHECK(log.slices()[2].end == 50);
}

TEST_CASE("one CTA over a window") {
  const TraceLog log = two_ctas();
  TimelineOptions opt;
  opt.ctas = {{1, ""}};
  opt.from = 200;
  opt.to = 600;
  opt.width_px = 1000;
  std::string err;
  const std::string svg = render_timeline_svg(log, opt, &err);
  CHECK(err.empty());
  REQUIRE(svg.rfind("<svg", 0) == 0);
  REQUIRE(svg.size() > 7);
  CHECK(svg.substr(svg.size() - 7) == "</svg>\n");
  CHECK(count(svg, "<g ") + count(svg, "<g>") == count(svg, "</g>"));
  CHECK(count(svg, "<text") == count(svg, "</text>"));
  CHECK(count(svg, "<title>") == count(svg, "</title>"));

  // CTA 1's tracks, wherever they hang; none of CTA 0's.
  for (const char* label : {"warp 5 load", "warp 6 mma", "TMA input.full[0]", "tensor core",
                            "TMA store"})
    CHECK(svg.find(std::string(">") + label + "</text>") != std::string::npos);
  CHECK(svg.find("only_cta0") == std::string::npos);
  CHECK(svg.find("cta0_only") == std::string::npos);

  // The window: slices outside it are gone, crossing ones are clipped.
  CHECK(svg.find("early") == std::string::npos);
  CHECK(svg.find("late") == std::string::npos);
  const size_t plot = svg.find("class=\"plot\"");
  REQUIRE(plot != std::string::npos);
  const double x0 = attr(svg, plot, "x"), x1 = x0 + attr(svg, plot, "width");
  CHECK(x1 <= 1000);
  const Box left = slice_box(svg, "wait input.empty[0] [100, 300)");
  CHECK(left.x == doctest::Approx(x0));
  CHECK(left.x + left.w == doctest::Approx(x0 + (x1 - x0) * 100 / 400).epsilon(0.01));
  const Box right = slice_box(svg, "wait input.full[1] [550, 900)");
  CHECK(right.x + right.w == doctest::Approx(x1));
  for (const char* t : {"load (0,64)", "store (0,0)", "commit -&gt; acc.full[0]", "mma overlapping"}) {
    const Box b = slice_box(svg, t);
    CHECK(b.x >= x0);
    CHECK(b.x + b.w <= x1 + 1e-6);
  }
  CHECK(svg.find("bytes=16384") != std::string::npos);

  // Escaping: the raw name never appears, its escaped form does.
  CHECK(svg.find("<a&b>") == std::string::npos);
  CHECK(svg.find("mma &lt;a&amp;b&gt; &quot;q&quot; &apos;x&apos;") != std::string::npos);
  CHECK(svg.find("-&gt; acc.full[0]") != std::string::npos);

  // Axis and legend: exactly the kinds in the window, in the legend's order.
  CHECK(svg.find(">cycles</text>") != std::string::npos);
  CHECK(svg.find(">400</text>") != std::string::npos);
  CHECK(svg.find("µs") == std::string::npos);  // no clock, no µs axis
  CHECK(legend(svg) == std::vector<std::string>{"wait", "MMA", "MMA commit", "TMA load",
                                                "TMA store"});
  CHECK(slices_in_plot(svg));

  // Deterministic.
  CHECK(render_timeline_svg(log, opt, &err) == svg);
}

TEST_CASE("the default window ends at the last slice") {
  const TraceLog log = two_ctas();
  TimelineOptions opt;
  opt.ctas = {{1, ""}};
  std::string err;
  const std::string svg = render_timeline_svg(log, opt, &err);
  CHECK(svg.find("cycles [0, 900)") != std::string::npos);
  CHECK(svg.find("early") != std::string::npos);
  CHECK(svg.find("late") != std::string::npos);
}

TEST_CASE("errors") {
  const TraceLog log = two_ctas();
  std::string err;
  TimelineOptions opt;
  opt.ctas = {{5, ""}};
  CHECK(render_timeline_svg(log, opt, &err).empty());
  CHECK(err.find("CTA 5") != std::string::npos);
  opt.ctas = {{1, ""}, {7, "slowest"}};  // one of several missing
  err.clear();
  CHECK(render_timeline_svg(log, opt, &err).empty());
  CHECK(err.find("CTA 7") != std::string::npos);
  opt.ctas.clear();
  err.clear();
  CHECK(render_timeline_svg(log, opt, &err).empty());
  CHECK(!err.empty());
  opt.ctas = {{1, ""}};
  opt.from = 500;
  opt.to = 400;
  err.clear();
  CHECK(render_timeline_svg(log, opt, &err).empty());
  CHECK(err.find("window") != std::string::npos);
  opt.from = 0;
  opt.to = 0;
  opt.width_px = 50;
  err.clear();
  CHECK(render_timeline_svg(log, opt, &err).empty());
  CHECK(!err.empty());
  CHECK(render_timeline_svg(TraceLog(), TimelineOptions(), &err).empty());
}

TEST_CASE("the legend lists only the kinds drawn") {
  // A window with nothing but a wait: one legend entry.
  TimelineOptions opt;
  opt.ctas = {{1, ""}};
  opt.from = 100;
  opt.to = 200;
  std::string err;
  const std::string only_wait = render_timeline_svg(two_ctas(), opt, &err);
  REQUIRE(err.empty());
  CHECK(legend(only_wait) == std::vector<std::string>{"wait"});

  // MI300X: the waves' issue, waits and barrier, the matrix core and the LDS
  // pipe; no NVIDIA kind.
  opt = TimelineOptions{};
  const std::string amd = render_timeline_svg(amd_workgroup(), opt, &err);
  REQUIRE(err.empty());
  CHECK(legend(amd) == std::vector<std::string>{"issue", "wait", "barrier", "MFMA", "LDS read",
                                                "LDS write", "LDS bank conflicts"});
  for (const char* track : {"MFMA SIMD 0", "LDS", "warp 0 group0", "warp 4 group1"})
    CHECK(amd.find(std::string(">") + track + "</text>") != std::string::npos);
  CHECK(amd.find("workgroup 0 on CU 0") != std::string::npos);
  CHECK(amd.find("ops=4") != std::string::npos);  // the four MFMAs are one slice
  CHECK(count(amd, "v_mfma_f32_32x32x8_bf16") == 1);
  CHECK(slices_in_plot(amd));
}

TEST_CASE("the µs axis follows the clock") {
  const TraceLog log = two_ctas();
  TimelineOptions opt;
  opt.ctas = {{1, ""}};
  opt.from = 1000;
  opt.to = 3000;
  opt.clock_ghz = 2.0;  // 2000 cycles per µs: [0.5, 1.5) µs
  std::string err;
  const std::string svg = render_timeline_svg(log, opt, &err);
  REQUIRE(err.empty());
  CHECK(svg.find("cycles [1000, 3000) = [0.500, 1.500) µs at 2 GHz") != std::string::npos);
  const size_t us = svg.find("class=\"axis us\"");
  REQUIRE(us != std::string::npos);
  CHECK(svg.find(">µs at 2 GHz</text>", us) != std::string::npos);
  const size_t plot = svg.find("class=\"plot\"");
  const double x0 = attr(svg, plot, "x"), w = attr(svg, plot, "width");
  // Ticks every 0.2 µs from 0.6 to 1.4, each where its cycle is.
  for (const auto& [text, cycle] :
       std::vector<std::pair<std::string, double>>{{"0.6", 1200}, {"0.8", 1600}, {"1.0", 2000},
                                                   {"1.2", 2400}, {"1.4", 2800}})
    CHECK(label_x(svg, text, us) == doctest::Approx(x0 + (cycle - 1000) / 2000 * w).epsilon(1e-3));
  CHECK(svg.find(">0.4</text>", us) == std::string::npos);
  CHECK(svg.find(">1.6</text>", us) == std::string::npos);
  // The same point in time on both axes: 2000 cycles is 1.0 µs.
  const size_t cycles_axis = svg.find("class=\"axis cycles\"");
  CHECK(label_x(svg, "2000", cycles_axis) == doctest::Approx(label_x(svg, "1.0", us)));

  // Another clock, another step: 3000 cycles at 1.5 GHz is 2 µs, ticks every 0.5.
  opt.from = 0;
  opt.clock_ghz = 1.5;
  const std::string slow = render_timeline_svg(log, opt, &err);
  const size_t us2 = slow.find("class=\"axis us\"");
  REQUIRE(us2 != std::string::npos);
  for (const char* t : {"0.0", "0.5", "1.0", "1.5", "2.0"})
    CHECK(slow.find(std::string(">") + t + "</text>", us2) != std::string::npos);
  CHECK(slow.find(">µs at 1.5 GHz</text>") != std::string::npos);
}

TEST_CASE("many overlapping stores are one row of in-flight counts") {
  TraceLog log = two_ctas();
  const int gpu = static_cast<int>(log.track(-1, "GPU 0 (test)"));
  const int sm1 = static_cast<int>(log.track(gpu, "SM 1", 1));
  const uint32_t st = log.track(static_cast<int>(log.track(sm1, "CTA 1", 0)), "TMA store", 150);
  // CTA 1's store track already holds one store at [400, 450); add twelve
  // more, each 200 cycles, 10 apart: up to twelve in flight over [210, 300).
  for (int i = 0; i < 12; ++i)
    log.slice({st, Cycle(100 + 10 * i), Cycle(300 + 10 * i), "store (" + std::to_string(i) + ",0)",
               {{"bytes", 2048}}, 0, 0});
  // Four overlapping slices stay in lanes.
  const uint32_t tc = log.track(sm1, "tensor core", 110);
  for (int i = 0; i < 3; ++i) log.slice({tc, Cycle(600 + i), Cycle(700), "mma lane", {}, 0, 0});
  TimelineOptions opt;
  opt.ctas = {{1, ""}};
  std::string err;
  const std::string svg = render_timeline_svg(log, opt, &err);
  REQUIRE(err.empty());
  CHECK(svg.find(">TMA store (up to 12)</text>") != std::string::npos);
  CHECK(svg.find("<title>store (") == std::string::npos);  // no slice of its own
  CHECK(svg.find("<title>12 in flight: TMA store [210, 300) cycles</title>") != std::string::npos);
  CHECK(svg.find("<title>1 in flight: TMA store [100, 110) cycles</title>") != std::string::npos);
  // The store at [400, 450) joins the last of the twelve.
  CHECK(svg.find("<title>2 in flight: TMA store [390, 410) cycles</title>") != std::string::npos);
  CHECK(svg.find("<title>1 in flight: TMA store [410, 450) cycles</title>") != std::string::npos);
  const size_t full = svg.find("<title>12 in flight");
  CHECK(svg.find("fill-opacity=\"1.00\"", svg.rfind("<rect", full)) < full);
  // The row is one lane high, like a track with one slice at a time.
  const size_t label = svg.find(">TMA store (up to 12)</text>");
  const size_t row = svg.rfind("<rect x=\"0\"", label);
  CHECK(attr(svg, row, "height") == doctest::Approx(24));
  // Three lanes of MMAs are still drawn one by one.
  CHECK(count(svg, "<title>mma lane") == 3);
  CHECK(svg.find(">tensor core</text>") != std::string::npos);
  CHECK(legend(svg) == std::vector<std::string>{"wait", "MMA", "MMA commit", "TMA load",
                                                "TMA store"});
  CHECK(slices_in_plot(svg));
  CHECK(render_timeline_svg(log, opt, &err) == svg);
}

TEST_CASE("several CTAs, each its own block") {
  const TraceLog log = two_ctas();
  TimelineOptions opt;
  opt.ctas = {{1, "busiest, slowest"}, {0, ""}};
  opt.clock_ghz = 1.0;
  std::string err;
  const std::string svg = render_timeline_svg(log, opt, &err);
  REQUIRE(err.empty());
  CHECK(svg.find("CTA 1, CTA 0: cycles [0, 900)") != std::string::npos);
  CHECK(count(svg, "<g class=\"block\">") == 2);
  CHECK(count(svg, "class=\"plot\"") == 2);
  CHECK(count(svg, "class=\"axis us\"") == 2);
  const size_t b1 = svg.find(">CTA 1 (busiest, slowest) on SM 1</text>");
  const size_t b0 = svg.find(">CTA 0 on SM 0</text>");
  REQUIRE(b1 != std::string::npos);
  REQUIRE(b0 != std::string::npos);
  CHECK(b1 < b0);
  // Each block holds its own CTA's tracks and its SM's engines.
  const size_t only0 = svg.find(">warp 7 only_cta0</text>");
  CHECK(only0 > b0);
  CHECK(only0 != std::string::npos);
  CHECK(svg.find("<title>mma cta0_only") > b0);
  CHECK(svg.find(">warp 6 mma</text>") < b0);
  CHECK(count(svg, ">tensor core</text>") == 2);
  CHECK(count(svg, "<g class=\"legend\">") == 1);
  CHECK(slices_in_plot(svg));
  CHECK(render_timeline_svg(log, opt, &err) == svg);
}

TEST_CASE("busiest and slowest") {
  const TraceLog log = two_ctas();
  const std::vector<CtaActivity> two{{0, 100, 500}, {1, 300, 400}};
  CHECK(pick_cta(log, two, CtaPick::kBusiest) == 1);
  CHECK(pick_cta(log, two, CtaPick::kSlowest) == 0);
  // Ties go to the lowest id.
  const std::vector<CtaActivity> tie{{1, 300, 500}, {0, 300, 500}};
  CHECK(pick_cta(log, tie, CtaPick::kBusiest) == 0);
  CHECK(pick_cta(log, tie, CtaPick::kSlowest) == 0);
  CHECK(pick_cta(log, {}, CtaPick::kBusiest) == -1);

  // The busiest SM, then its busiest CTA: CTA 2 ran on SM 0 after CTA 0, so
  // SM 0 was busy 250 cycles against SM 1's 200, and CTA 2 (150) is its
  // busiest, though CTA 1 alone was busier.
  TraceLog clc = two_ctas();
  const int clc_gpu = static_cast<int>(clc.track(-1, "GPU 0 (test)"));
  const int sm0 = static_cast<int>(clc.track(clc_gpu, "SM 0"));
  clc.track(sm0, "CTA 2", 1);
  const std::vector<CtaActivity> three{{0, 100, 300}, {1, 200, 500}, {2, 150, 600}};
  CHECK(pick_cta(clc, three, CtaPick::kBusiest) == 2);
  CHECK(pick_cta(clc, three, CtaPick::kSlowest) == 2);
  // A CTA the trace does not place counts as an SM of its own.
  const std::vector<CtaActivity> unplaced{{0, 100, 300}, {1, 200, 500}, {9, 220, 100}};
  CHECK(pick_cta(log, unplaced, CtaPick::kBusiest) == 9);
}

TEST_CASE("a real MI300X run: waves, MFMAs and the LDS pipe") {
  const char* tmp = std::getenv("TEST_TMPDIR");
  MatmulRequest q;
  q.arch = "mi300x";
  q.m = q.n = q.k = 256;
  q.tile_n = 128;
  q.stages = 2;
  q.timeline_path = std::string(tmp != nullptr ? tmp : "/tmp") + "/mi300x_timeline.svg";
  q.timeline_ctas = {MatmulRequest::kTimelineSlowest, 3};
  REQUIRE_MESSAGE(validate_matmul(q).empty(), validate_matmul(q));
  auto draw = [&q] {
    const IsolatedResult res =
        run_isolated([&q] { return boost::json::serialize(to_json(run_matmul(q))); }, 120);
    REQUIRE_MESSAGE(res.ok, res.error);
    const RunResult r = run_result_from_json(boost::json::parse(res.payload));
    CHECK(r.status == "completed");
    CHECK(r.output_errors.empty());
    std::ifstream in(q.timeline_path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  const std::string svg = draw();
  REQUIRE(svg.rfind("<svg", 0) == 0);
  // Two blocks: the slowest workgroup (chosen after the run, so every CU was
  // traced) and workgroup 3, unless they are one.
  const size_t blocks = count(svg, "<g class=\"block\">");
  CHECK(blocks >= 1);
  CHECK(blocks <= 2);
  CHECK(svg.find("(slowest) on CU ") != std::string::npos);
  CHECK(svg.find(">workgroup 3 ") != std::string::npos);
  for (const char* track : {"MFMA SIMD 0", "MFMA SIMD 1", "MFMA SIMD 2", "MFMA SIMD 3", "LDS"})
    CHECK(count(svg, std::string(">") + track + "</text>") == blocks);
  CHECK(svg.find("<title>v_mfma_f32_32x32x8_bf16 [") != std::string::npos);
  CHECK(svg.find("<title>ds_read [") != std::string::npos);
  const std::vector<std::string> kinds = legend(svg);
  for (const char* want : {"issue", "wait", "barrier", "MFMA", "LDS read"})
    CHECK(std::find(kinds.begin(), kinds.end(), want) != kinds.end());
  for (const char* nvidia :
       {"MMA", "MMA commit", "TMA load", "TMA store", "busy (tcgen05.ld, st.global)"})
    CHECK(std::find(kinds.begin(), kinds.end(), nvidia) == kinds.end());
  CHECK(count(svg, "class=\"axis us\"") == blocks);  // at the model's clock
  CHECK(svg.find(" GHz</text>") != std::string::npos);
  CHECK(slices_in_plot(svg));
  CHECK(draw() == svg);  // the same run, the same bytes
}

}  // namespace sk::sim

// libsystemc (linked through //engine) provides main() and calls sc_main.
extern "C" int sc_main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
