// scale_tiles_entry.cu: the example kernel's device build (sm_100a): the same
// scale_tiles.h the verify cases run in the model, instantiated for nvcc.
// Launch with 64 threads and ScaleTiles<>::kSmemBytes of dynamic shared memory.
#include "examples/scale_tiles/scale_tiles.h"

using ScaleTilesKernel = sk::examples::ScaleTiles<sk::examples::Variant::kCorrect>;

extern "C" __global__ __launch_bounds__(64, 1) void scale_tiles_bf16(
    const __grid_constant__ ScaleTilesKernel::Params p) {
  ScaleTilesKernel::run(p);
}
