#!/bin/sh
# et-runner.sh ET_SRC [BUILD_DIR] - builds ExecuTorch's own executor_runner
# (examples/portable/executor_runner) from an ExecuTorch source tree you have, with the XNNPACK
# backend, the portable CPU ops and, when this machine can compile its shaders, the Vulkan
# backend; then says which backends are in it and where it is. Nothing of ExecuTorch is in
# tensorpack: this only drives ExecuTorch's CMake.
#
#   ET_SRC     the ExecuTorch checkout, with its submodules (git clone --recursive, or
#              git submodule update --init), in a directory named exactly "executorch"
#              (ExecuTorch's CMake refuses any other name)
#   BUILD_DIR  where to build (default: ./et-runner-build); the runner is BUILD_DIR/executor_runner
#
# Environment:
#   PYTHON=python3   the interpreter for ExecuTorch's code generators (see below)
#   JOBS=2           parallel compile jobs
#   ET_VULKAN=auto   auto | on | off: the Vulkan backend (auto: when glslc compiles ExecuTorch's
#                    shaders' extensions and a Vulkan loader is installed)
#   ET_XNNPACK_ALL_ISA=0  1: every x86-64 XNNPACK kernel (AVX-512, AVX-VNNI, ...); by default
#                    those are left out, which roughly halves the build and leaves the
#                    SSE/AVX/AVX2/FMA kernels (the runner is as correct, a little slower on an
#                    AVX-512 machine)
#
# Building the runtime is not Python-free: ExecuTorch generates its portable-op registration
# (codegen/gen.py) with Python, pyyaml and torchgen (PyTorch's code generator: from a PyTorch
# install, or unpacked from a python3-torch package, on PYTHONPATH; an unpacked one also needs
# typing_extensions: python3-typing-extensions). Measured with ExecuTorch
# cff6f4dd32: torchgen 2.14.1 works; 2.6 and 1.13 do not. This script checks that before it
# spends any time compiling. Recipe measured on Debian 12 (gcc 12, cmake 3.25, ninja), JOBS=2:
# 1227 build steps, 35 to 46 minutes from nothing on 2 cores shared with other work (load ~10;
# 35 min with torchgen from Debian's python3-torch 2.14.1+dfsg-1, /usr/bin/python3 3.11).

usage() {
  echo "usage: $0 ET_SRC [BUILD_DIR]   (ET_SRC: an ExecuTorch source tree with its submodules)" >&2
  exit 2
}
die() {
  echo "et-runner: $*" >&2
  exit 1
}

[ $# -ge 1 ] && [ $# -le 2 ] || usage
src=$(cd "$1" 2>/dev/null && pwd) || die "no directory $1"
build=${2:-et-runner-build}
PYTHON=${PYTHON:-python3}
JOBS=${JOBS:-2}
ET_VULKAN=${ET_VULKAN:-auto}

[ -f "$src/CMakeLists.txt" ] && [ -f "$src/examples/portable/executor_runner/executor_runner.cpp" ] ||
  die "$src is not an ExecuTorch source tree (no CMakeLists.txt with examples/portable/executor_runner)"
[ "$(basename "$src")" = executorch ] ||
  die "$src must be named \"executorch\": ExecuTorch's CMake refuses any other directory name (rename or symlink it)"
command -v cmake >/dev/null 2>&1 || die "cmake not found (apt-get install cmake)"

# The submodules the runner needs (the rest of .gitmodules is not used by this build).
missing=
for m in backends/xnnpack/third-party/XNNPACK backends/xnnpack/third-party/cpuinfo \
         backends/xnnpack/third-party/pthreadpool backends/xnnpack/third-party/FXdiv \
         third-party/flatbuffers third-party/flatcc third-party/gflags third-party/json; do
  [ -f "$src/$m/CMakeLists.txt" ] || missing="$missing $m"
done
[ -z "$missing" ] ||
  die "submodules missing in $src:$missing
  fetch them with: git -C $src submodule update --init$missing"

# ExecuTorch's generators: yaml always; torchgen for the kernel registration. Run the real
# generator once on the portable ops, into a scratch directory, so that a torchgen it cannot
# use is found now and not twenty minutes into the build.
command -v "$PYTHON" >/dev/null 2>&1 || die "no $PYTHON: ExecuTorch's code generators are Python"
"$PYTHON" -c 'import yaml' 2>/dev/null ||
  die "$PYTHON has no yaml module: ExecuTorch's code generators need pyyaml (apt-get install python3-yaml)"
tg=$("$PYTHON" -c 'import os, torchgen; print(os.path.dirname(torchgen.__file__))' 2>/dev/null) ||
  die "$PYTHON cannot import torchgen: ExecuTorch generates its portable-op registration with
  PyTorch's torchgen. Install PyTorch for $PYTHON, or unpack a python3-torch package (torchgen is
  pure Python) and put the directory holding torchgen/ on PYTHONPATH."
[ -f "$tg/packaged/ATen/native/native_functions.yaml" ] ||
  die "$tg has no packaged/ATen/native/native_functions.yaml (an incomplete torchgen)"
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
if ! (cd "$src" && "$PYTHON" -m codegen.gen --source-path=codegen --install-dir="$scratch" \
        --tags-path="$tg/packaged/ATen/native/tags.yaml" \
        --aten-yaml-path="$tg/packaged/ATen/native/native_functions.yaml" \
        --functions-yaml-path=kernels/portable/functions.yaml) >"$scratch/gen.log" 2>&1; then
  tail -n 3 "$scratch/gen.log" >&2
  # a torchgen unpacked from a package brings none of its dependencies (typing_extensions, ...)
  # (the last line: the generator's own fallback imports leave handled ones above it)
  mod=$(tail -n 1 "$scratch/gen.log" | sed -n "s/^ModuleNotFoundError: No module named '\([^'.]*\).*/\1/p")
  [ -z "$mod" ] ||
    die "$PYTHON has no module $mod, which torchgen or ExecuTorch's generator imports
  (Debian: apt-get install python3-$(echo "$mod" | tr _ -))"
  die "ExecuTorch's kernel-registration generator fails with the torchgen in $tg
  (too old or too new for this ExecuTorch; torchgen from PyTorch 2.14.1 works with cff6f4dd32)"
fi

# Vulkan: ExecuTorch compiles its GLSL shaders with glslc at build time, and some use
# GL_EXT_integer_dot_product; the runner loads the Vulkan driver through volk at run time.
vulkan=OFF
why_not_vulkan=
if [ "$ET_VULKAN" != off ]; then
  if ! command -v glslc >/dev/null 2>&1; then
    why_not_vulkan="no glslc (apt-get install glslc, or the Vulkan SDK's)"
  else
    printf '#version 450\n#extension GL_EXT_integer_dot_product : require\nlayout(local_size_x = 1) in;\nvoid main() {}\n' >"$scratch/t.comp"
    if ! glslc --target-env=vulkan1.1 "$scratch/t.comp" -o "$scratch/t.spv" >/dev/null 2>&1; then
      why_not_vulkan="$(command -v glslc) ($(glslc --version 2>/dev/null | head -n 1)) does not know GL_EXT_integer_dot_product, which ExecuTorch's int8 shaders need (the Vulkan SDK's glslc does)"
    elif ! { ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1'; }; then
      why_not_vulkan="no Vulkan loader libvulkan.so.1 (apt-get install libvulkan1 mesa-vulkan-drivers)"
    else
      for m in backends/vulkan/third-party/volk backends/vulkan/third-party/VulkanMemoryAllocator \
               backends/vulkan/third-party/Vulkan-Headers; do
        [ -n "$(ls -A "$src/$m" 2>/dev/null)" ] || why_not_vulkan="${why_not_vulkan:-submodules missing:} $m"
      done
      [ -z "$why_not_vulkan" ] && vulkan=ON
    fi
  fi
  [ "$ET_VULKAN" = on ] && [ $vulkan = OFF ] && die "ET_VULKAN=on, but: $why_not_vulkan"
fi

isa=
if [ "${ET_XNNPACK_ALL_ISA:-0}" != 1 ]; then
  for o in AVX512F AVX512SKX AVX512VBMI AVX512VNNI AVX512VNNIGFNI AVX512AMX AVX512FP16 \
           AVX512BF16 AVX256SKX AVX256VNNI AVX256VNNIGFNI AVXVNNI AVXVNNIINT8; do
    isa="$isa -DXNNPACK_ENABLE_$o=OFF"
  done
fi
gen=
command -v ninja >/dev/null 2>&1 && gen="-G Ninja"

mkdir -p "$build" || exit 1
build=$(cd "$build" && pwd)
echo "et-runner: configuring $src in $build (XNNPACK on, portable ops, Vulkan $vulkan)"
# shellcheck disable=SC2086
cmake -S "$src" -B "$build" $gen -DCMAKE_BUILD_TYPE=Release -DPYTHON_EXECUTABLE="$(command -v "$PYTHON")" \
  -DEXECUTORCH_BUILD_EXECUTOR_RUNNER=ON -DEXECUTORCH_BUILD_EXTENSION_EVALUE_UTIL=ON \
  -DEXECUTORCH_BUILD_EXTENSION_RUNNER_UTIL=ON -DEXECUTORCH_ENABLE_LOGGING=ON \
  -DEXECUTORCH_BUILD_XNNPACK=ON -DEXECUTORCH_BUILD_VULKAN=$vulkan $isa \
  >"$build/et-runner-configure.log" 2>&1 ||
  { tail -n 20 "$build/et-runner-configure.log" >&2; die "CMake configure failed (all of it: $build/et-runner-configure.log)"; }
echo "et-runner: building executor_runner with $JOBS jobs (log: $build/et-runner-build.log)"
cmake --build "$build" --target executor_runner -j "$JOBS" >"$build/et-runner-build.log" 2>&1 ||
  { grep -A 12 -m 1 -E 'FAILED|error' "$build/et-runner-build.log" >&2; die "the build failed (all of it: $build/et-runner-build.log)"; }
runner=$build/executor_runner
[ -x "$runner" ] || die "the build ended without $runner"

backends=
for b in XnnpackBackend VulkanBackend; do
  grep -q "$b" "$runner" && backends="$backends $b"
done
echo "et-runner: built $runner"
echo "  backends:${backends:- none} (ExecuTorch's portable CPU ops and prim ops too)"
[ $vulkan = OFF ] && [ -n "$why_not_vulkan" ] && echo "  no VulkanBackend: $why_not_vulkan"
[ "${ET_XNNPACK_ALL_ISA:-0}" != 1 ] && echo "  XNNPACK without its AVX-512/AVX-VNNI kernels (ET_XNNPACK_ALL_ISA=1 for all)"
echo "  run:   $runner --model_path X.pte [--data_path X.ptd]   (inputs: all ones)"
echo "  check: make check-et ET_RUNNER=$runner"
