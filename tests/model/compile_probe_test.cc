#include "kernels/matmul/sm100_matmul.h"
int main() {
  using K = sk::Sm100Matmul<sk::Sm100MatmulConfig<128, 256, 64, 4, sk::bf16_t>>;
  (void)&K::run;
  return 0;
}
