// family.h: a kernel family as the simulator's front ends see it: its problem
// (named shape fields with ranges and defaults), its configuration space per
// architecture (tile widths, stage counts, schedulers, output types), the host
// reference it is checked against, its FLOP count and its launch. One
// registration per family (runner/families/) fills a Family; `sim list`, the
// options and --help of `sim run|sweep|verify`, their range checks, the sweep
// grid, the verify replay line and the fuzzers' dictionary are derived from
// the registry (runner/families/registry.h), so a new family touches neither
// sim/ nor the other families.
//
// Invariants: a Family's functions are called only with Values that hold
// every field of the family, each checked against its Field (parse_field):
// required fields were given, the others hold their default unless given;
// bind and validate return a one-line reason instead of throwing; run is
// called only on a request validate accepted, inside a simulation process
// (engine/isolate.h).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runner/kernels/sm100_matmul_run.h"
#include "runner/result/run_result.h"

namespace sk::sim {

// One named option of a family's problem or configuration (--name on the
// command line).
struct Field {
  enum class Kind { kUint, kNumber, kChoice, kFlag };
  std::string name;  // without the leading --
  Kind kind = Kind::kUint;
  std::string help;
  uint64_t lo = 0, hi = 0;           // kUint: the inclusive range
  double min = 0, max = 0;           // kNumber: the inclusive range
  std::vector<std::string> choices;  // kChoice: the values, the first the usual one
  // The value when not given; "" with `required` false: absent unless given.
  std::string default_value;
  bool required = false;
  std::string needs;  // another field that must be given with this one, or ""
  // kUint: a word also accepted (e.g. "auto"), which Values::uint reads as 0.
  std::string word;
};

// A field of each kind, for registrations.
Field uint_field(std::string name, std::string help, uint64_t lo, uint64_t hi,
                 std::string default_value = "");
Field number_field(std::string name, std::string help, double min, double max,
                   std::string default_value = "");
Field choice_field(std::string name, std::string help, std::vector<std::string> choices,
                   std::string default_value = "");
Field flag_field(std::string name, std::string help);
Field required(Field f);
Field needing(Field f, std::string other);
// `f` (a kUint field) also accepting `word`, read as 0.
Field with_word(Field f, std::string word);

// The value of a kUint field's text that parse_field accepted: the number,
// or 0 for the field's word.
uint64_t uint_value(const std::string& text);

// Checks one field's text; empty when it is valid, else a one-line reason
// that names --name.
std::string parse_field(const Field& f, const std::string& text);

// The strings of `v` with `sep` between them.
std::string joined(const std::vector<std::string>& v, const char* sep);

// "" when `text` is a whole number in [lo, hi], else the one-line reason
// (naming `flag`) that every whole-number option of the CLI gives.
std::string whole_number_error(const std::string& flag, const std::string& text, uint64_t lo,
                               uint64_t hi);

class Values;
struct Family;
// Fills `out` with every field of `f`: the text `given` returns for it
// (nullopt: not given; a flag's text is ignored), else its default. Returns
// "" or the first one-line reason: a required field missing (prefixed with
// `missing_prefix`), a value parse_field refuses, or a field given without
// the one it needs.
std::string fill_values(const Family& f,
                        const std::function<std::optional<std::string>(const Field&)>& given,
                        const std::string& missing_prefix, Values& out);

// A family's field values, as text checked by parse_field; absent fields
// (optional, no default, not given) are not in the map, and a flag is "1"
// when given.
class Values {
 public:
  void set(const std::string& name, std::string text) { text_[name] = std::move(text); }
  bool has(const std::string& name) const { return text_.count(name) > 0; }
  const std::string& str(const std::string& name) const;
  // A kUint field's value; its word (Field::word) reads as 0.
  uint64_t uint(const std::string& name) const;
  uint32_t u32(const std::string& name) const { return static_cast<uint32_t>(uint(name)); }
  double number(const std::string& name) const;
  bool flag(const std::string& name) const { return has(name); }
  const std::map<std::string, std::string>& all() const { return text_; }

 private:
  std::map<std::string, std::string> text_;
};

// What a family instantiates on one architecture: the sweep grid and the
// defaults of `sim run`.
// The events a timing run of the family takes on an architecture, as
// tiles x (per_tile + per_kstep x k-steps): the model's work is per tile and
// per k-step of each tile. Fitted to measured runs (tools/fit_event_model.py;
// docs/sim.md gives the held-out error); runner/family/estimate.h uses it.
struct EventModel {
  double per_tile = 0, per_kstep = 0;
};

struct ArchSpace {
  std::string arch;                     // sm100, sm90, mi300x
  std::vector<uint32_t> tile_ns;        // tile widths it instantiates
  uint32_t stages_lo = 2, stages_hi = 8;
  uint32_t default_tile_n = 0, default_stages = 0;
  std::vector<std::string> schedulers;  // static, clc
  std::vector<std::string> out_dtypes;  // bf16, f32
  uint32_t tile_m = 128, tile_k = 64;   // the fixed tile dimensions
  // Kernels the architecture has for the family beyond the tile (mi300x:
  // --amd-kernel pingpong | wave_specialized), the first the default; empty:
  // one kernel. sim sweep varies them.
  std::vector<std::string> variants = {};
  // Events of a timing run (estimate.h); per variant when variant_events is
  // not empty (one per entry of variants), else `events` for every kernel.
  EventModel events = {};
  std::vector<EventModel> variant_events = {};
};

struct Family {
  std::string name;   // --kernel
  std::string title;  // how reports name it ("conv2d (implicit GEMM)"); "" is the name
  // `sim list`: the description under the name, indented by the caller.
  std::function<std::string()> summary;
  std::vector<ArchSpace> archs;  // the first is the default --arch
  std::vector<Field> fields;     // the problem, then family-specific configuration
  std::string fields_note;       // --help's heading note for the fields, or ""
  // Options of other families that this one refuses for a reason of its own
  // (conv2d: --batch is its --n), by field name: the reason, which the
  // refusal states instead of only naming the families that take it.
  std::map<std::string, std::string> foreign_field_notes;
  std::string reference;         // the host reference and check tolerance, for sim list
  std::vector<std::string> seeded_bugs;  // its cases in verify/corpus, for sim list

  // Sets the GEMM view of the problem in `q` (arch, m, n, k) from the values;
  // "" or a one-line reason. Called before the run options are set.
  std::function<std::string(const Values&, MatmulRequest& q)> bind;
  // "" when the problem with these run options can run, else a one-line reason.
  std::function<std::string(const Values&, const MatmulRequest&)> validate;
  // The floating-point operations of one launch (for TFLOP/s).
  std::function<double(const Values&, const MatmulRequest&)> flops;
  // The compulsory HBM traffic of one launch in bytes: every operand read
  // once and the output written once (for the roofline; a model that moves
  // less than this is wrong).
  std::function<double(const Values&, const MatmulRequest&)> bytes;
  std::function<RunResult(const Values&, const MatmulRequest&)> run;
  // Optional: prepares, in the calling process, what every run of q's data
  // shares (the operands and their reference), so that the simulation
  // processes forked afterwards (sim verify's schedules, one data seed) do
  // not each build their own; outside a simulation process. Null: nothing
  // to share, each run draws its own.
  std::function<void(const Values&, const MatmulRequest&)> share_inputs;

  const std::string& display_name() const { return title.empty() ? name : title; }
  // run(), then the figures that need the problem as the family states it:
  // the compulsory bytes and the roofline position (set_roofline).
  RunResult simulate(const Values& v, const MatmulRequest& q) const;
  const ArchSpace* space(const std::string& arch) const;
  const Field* field(const std::string& name) const;
};

}  // namespace sk::sim
