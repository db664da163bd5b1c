// timeline_svg_test.cc: the --timeline SVG on a hand-built trace of two CTAs:
// only the chosen CTA's tracks (warps under the CTA, engines under its SM or
// under the CTA) are drawn, the window clips and drops slices, text is
// escaped, the document is well nested and the same input gives the same bytes.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

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

}  // namespace

TEST_CASE("one CTA over a window") {
  const TraceLog log = two_ctas();
  TimelineOptions opt;
  opt.cta = 1;
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

  // Axis and legend.
  CHECK(svg.find(">cycles</text>") != std::string::npos);
  CHECK(svg.find(">400</text>") != std::string::npos);
  CHECK(svg.find("TMA load") != std::string::npos);

  // Deterministic.
  CHECK(render_timeline_svg(log, opt, &err) == svg);
}

TEST_CASE("the default window ends at the last slice") {
  const TraceLog log = two_ctas();
  TimelineOptions opt;
  opt.cta = 1;
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
  opt.cta = 5;
  CHECK(render_timeline_svg(log, opt, &err).empty());
  CHECK(err.find("CTA 5") != std::string::npos);
  opt.cta = 1;
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

}  // namespace sk::sim

// libsystemc (linked through //engine) provides main() and calls sc_main.
extern "C" int sc_main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
