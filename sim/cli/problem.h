// problem.h: the kernel-family part of `sim run|verify|sweep`, derived from
// the registry (runner/families/registry.h): --kernel, --arch and every
// family's fields as options, their --help groups, and the parsed problem of
// one family, which fills the GEMM view of a MatmulRequest and validates and
// runs requests through its family.
//
// Invariants: parse_problem either returns a Problem whose values hold every
// field of its family, each checked against its Field, or throws UsageError
// with a one-line message; it rejects a field of another family instead of
// ignoring it; nothing is run or written.
#pragma once

#include <boost/json.hpp>
#include <boost/program_options.hpp>
#include <string>

#include "runner/families/registry.h"
#include "runner/family/estimate.h"

namespace sk::cli {

namespace po = boost::program_options;

// Adds --help, --kernel, --arch and every registered family's fields to `o`:
// the first family's in `o` itself, each other family's own in a group named
// for it.
void add_family_options(po::options_description& o);

struct Problem {
  const sim::Family* family = nullptr;
  sim::Values values;

  const std::string& kernel() const { return family->name; }
  const sim::ArchSpace& space(const std::string& arch) const { return *family->space(arch); }
  std::string validate(const sim::MatmulRequest& q) const { return family->validate(values, q); }
  sim::RunResult run(const sim::MatmulRequest& q) const { return family->simulate(values, q); }
  // Family::share_inputs, when the family has one (before forking runs of q's data).
  void share_inputs(const sim::MatmulRequest& q) const {
    if (family->share_inputs) family->share_inputs(values, q);
  }
  // How long a run of `q` will take (runner/family/estimate.h).
  sim::RunEstimate estimate(const sim::MatmulRequest& q) const {
    return sim::estimate_run(space(q.arch), q, family->flops(values, q));
  }
  // The fields as command-line options (" --m 64 --n 64 --k 64"), in
  // declaration order, for replay lines.
  std::string options() const;
  // The fields as JSON, or {} when the only fields given are the GEMM's m, n
  // and k (which the documents hold at the top level).
  boost::json::object extra_json() const;
};

// Reads --kernel, --arch and the family's fields from `vm` (parsed with the
// options of add_family_options) and sets q.arch, q.m, q.n and q.k. A field
// in `given_text` takes that text instead of vm's (sim sweep's lists: the
// first value stands for the problem, the sweep varies the rest).
Problem parse_problem(const po::variables_map& vm, const std::string& cmd,
                      sim::MatmulRequest& q,
                      const std::map<std::string, std::string>& given_text = {});

// The family of a parsed problem, for a family by name (unit tests).
Problem make_problem(const std::string& kernel, const sim::Values& values);

}  // namespace sk::cli
