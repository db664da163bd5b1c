#!/usr/bin/env bash
# attention_report_test.sh README: the SM90 attention model against the H100
# and H200 sweeps of 2026-11-27 (predicted then and again since): for every committed prediction (the pairs below), each
# summary line hw/h200/attention_report.py report derives from the pair
# (the MAPE line, and the stage picks where a shape has more than one) appears
# verbatim in docs/hardware.md, so the quoted errors cannot drift from the
# data; and a doctored prediction (one row 3x off) is caught.
. "$(dirname "$(realpath "$1")")/tests/hw/report_lib.sh" "$1"
# Each committed prediction beside the measurement it predicts.
pairs=(
  "h100_attention_bf16_softmax_2026-11-27.csv h100_attention_model_softmax_2026-11-27.csv"
  "h100_attention_bf16_softmax_2026-11-27.csv h100_attention_model_softmax_no_mma_2026-11-27.csv"
  "h100_attention_bf16_softmax_2026-11-27.csv h100_attention_model_softmax_all_stages_2026-11-27.csv"
  "h100_attention_bf16_store_v4_2026-11-27.csv h100_attention_model_store_v4_2026-11-27.csv"
  "h100_attention_bf16_store_v4_2026-11-27.csv h100_attention_model_epilogue_2026-11-27.csv"
  "h100_attention_bf16_k_release_2026-11-27.csv h100_attention_model_k_release_2026-11-27.csv"
  "h200_attention_bf16_2026-11-27.csv h200_attention_model_2026-11-27.csv"
  "h200_attention_bf16_2026-11-27.csv h200_attention_model_2026-12-03.csv"
  "h200_attention_bf16_2026-11-27.csv h200_attention_model_oob_surface_2026-12-04.csv"
  "h200_attention_bf16_2026-11-27.csv h200_attention_model_fetch90_2026-12-04.csv"
  "h200_attention_bf16_2026-11-27.csv h200_attention_model_aged_2026-12-06.csv"
  "h200_attention_bf16_2026-11-27.csv h200_attention_model_2026-12-08.csv"
  "h200_attention_bf16_2026-11-27.csv h200_attention_model_rest110_2026-12-08.csv"
  "h200_attention_bf16_2026-11-27.csv h200_attention_model_rest110_2026-12-03.csv"
  "h200_attention_bf16_2026-11-27.csv h200_attention_model_tensor_fp32_2026-12-03.csv"
  "h200_attention_bf16_2026-11-27.csv h200_attention_model_rest110_queue_tensor_fp32_2026-12-03.csv"
  "h200_attention_bf16_2026-11-27.csv h200_attention_model_rest110_queue_tensor_fp32_p2_2026-12-03.csv"
  "h100_attention_bf16_kernel_clock_2026-11-27.csv h100_attention_model_kernel_clock_sm_mhz_2026-11-27.csv"
  "h100_attention_bf16_kernel_clock_2026-11-27.csv h100_attention_model_kernel_clock_2026-11-27.csv"
)
quoted() {  # measured model: every summary line of the report is in docs/hardware.md
  python3 hw/h200/attention_report.py report "$1" "$2" | { grep '^pinned clocks' || true; } | all_quoted
}
for pair in "${pairs[@]}"; do
  read -r measured model <<<"$pair"
  measured=docs/results/$measured model=docs/results/$model
  [ -f "$measured" ] && [ -f "$model" ] || fail "missing $measured or $model"
  quoted "$measured" "$model" || fail "$model: docs/hardware.md does not quote its figures"
done
t=$(scratch)/doctored.csv
read -r measured model <<<"${pairs[0]}"
python3 tests/hw/doctor_csv.py "docs/results/$model" "$t" model_us_pinned
if quoted "docs/results/$measured" "$t" >/dev/null; then fail "a doctored CSV passed"; fi
echo PASS
