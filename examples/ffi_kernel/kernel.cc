// An RMS normalization kernel for XLA's typed FFI: y = x / sqrt(mean(x^2, last axis) + eps).
// Every leading dimension of x is a batch dimension, so one call handles a whole batch
// (which is what `vmap_method="broadcast_all"` gives it under vmap).
#include <cmath>
#include <cstdint>

#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

static ffi::Error RmsNormImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  auto dims = x.dimensions();
  if (dims.size() == 0) {
    return ffi::Error::InvalidArgument("rms_norm: x must have at least one dimension");
  }
  const int64_t n = dims.back();
  const int64_t rows = n == 0 ? 0 : static_cast<int64_t>(x.element_count()) / n;
  const float* in = x.typed_data();
  float* out = y->typed_data();
  for (int64_t r = 0; r < rows; ++r) {
    float sum_sq = 0.0f;
    for (int64_t i = 0; i < n; ++i) sum_sq += in[r * n + i] * in[r * n + i];
    const float scale = 1.0f / std::sqrt(sum_sq / n + eps);
    for (int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * scale;
  }
  return ffi::Error::Success();
}

// The symbol Python registers: decodes the call's attributes and buffers, then calls the impl.
XLA_FFI_DEFINE_HANDLER_SYMBOL(RmsNorm, RmsNormImpl,
                              ffi::Ffi::Bind()
                                  .Attr<float>("eps")
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>());
