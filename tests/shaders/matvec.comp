// y = W x for a row-major W [rows][cols]; one invocation per row. Used by tests/vkrt_upload.c
// with W being a constant uploaded from a tensorpack Vulkan blob.
// Regenerate matvec.spv.inc with:
//   glslc --target-env=vulkan1.0 -O -mfmt=c tests/shaders/matvec.comp -o tests/shaders/matvec.spv.inc
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Weights { float w[]; };
layout(std430, set = 0, binding = 1) readonly buffer Input { float x[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Output { float y[]; };
layout(push_constant) uniform Shape { uint rows; uint cols; } shape;

void main() {
  uint r = gl_GlobalInvocationID.x;
  if (r >= shape.rows) return;
  float acc = 0.0;
  for (uint c = 0u; c < shape.cols; ++c) acc += w[r * shape.cols + c] * x[c];
  y[r] = acc;
}
