# asan_note.sh: sourced by the CLI and Slurm tests. Under --config=asan every
# simulation process prints ASan's three-line note that it cannot follow
# SystemC's stack switches; it is not the CLI's output.
#
#   drop_asan_note [FILE...]   FILE (or stdin) without those lines, as grep -v
#                              prints it (exit 1 when nothing is left)
drop_asan_note() {
  grep -v -e "ASan is ignoring requested __asan_handle_no_return" \
    -e "^False positive error reports may follow" \
    -e "^For details see https://github.com/google/sanitizers/issues/189" "$@"
}
