#!/usr/bin/env bash
# What lift's tests need on a fresh Debian 12 machine before `cargo test --release`:
# Rust's cargo, and Python 3 with NumPy (tests run the NumPy renderings of lifted
# formulas on the suite's reference inputs). Without NumPy those tests fail when `CI` is
# set and print "skipped: ..." otherwise; so in CI this script fails rather than warns
# when it cannot install NumPy.
#
# CUDA source (`lift check k.cu`) needs NVRTC, which lift loads at run time: this script
# pip-installs NVIDIA's wheels (NVRTC 12.9, the version ptx/generate.py compiled the
# fixtures with, and the CUDA runtime and CCCL headers) into .venv-nvrtc (Debian 12's pip
# installs only into a venv; python3-venv comes from apt). About 30 s and 270 MB on a
# fresh machine. tests/it/cuda_source.rs fails without it when `CI` is set.
set -euo pipefail
cd "$(dirname "$0")/.."
# Z3 (the `z3` crate links the system libz3; its bindgen needs libclang).
need_apt=()
[ -e /usr/include/z3.h ] || need_apt+=(libz3-dev)
# bindgen loads libclang.so / libclang-<version>.so; libclang-cpp (installed by other
# packages) is a different library and does not count.
ls /usr/lib/x86_64-linux-gnu/libclang.so* /usr/lib/x86_64-linux-gnu/libclang-[0-9]*.so* \
    /usr/lib/llvm-*/lib/libclang.so* >/dev/null 2>&1 || need_apt+=(libclang-dev clang)
if [ ${#need_apt[@]} -gt 0 ]; then
    sudo_z3=""
    if [ "$(id -u)" -ne 0 ]; then sudo_z3="sudo -n"; fi
    $sudo_z3 apt-get update -qq || true
    DEBIAN_FRONTEND=noninteractive $sudo_z3 apt-get install -y -qq "${need_apt[@]}" >/dev/null ||
        { echo "error: lift needs ${need_apt[*]} (apt-get install ${need_apt[*]})" >&2; exit 1; }
fi
command -v cargo >/dev/null || { echo "lift needs Rust's cargo (https://rustup.rs)" >&2; exit 2; }
has_numpy() {
    python3 -c 'import numpy' 2>/dev/null || /usr/bin/python3 -c 'import numpy' 2>/dev/null ||
        { [ -n "${LIFT_PYTHON:-}" ] && "$LIFT_PYTHON" -c 'import numpy' 2>/dev/null; }
}
in_ci() { case "${CI:-}" in "" | 0 | false) return 1 ;; *) return 0 ;; esac; }
if ! has_numpy; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo -n"; fi
    if command -v apt-get >/dev/null && $sudo true 2>/dev/null; then
        $sudo apt-get update -qq || true
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-numpy >/dev/null || true
    fi
fi
if ! has_numpy; then
    if in_ci; then
        echo "error: CI is set and NumPy cannot be installed (no python3-numpy from apt-get, no LIFT_PYTHON with NumPy); the NumPy rendering tests would fail" >&2
        exit 1
    fi
    echo "warning: no NumPy and no way to apt-get it; the NumPy rendering tests will print 'skipped: ...' (and fail under CI=true)" >&2
fi

# NVRTC for CUDA source, in .venv-nvrtc (tests/it/cuda_source.rs finds it there; a user
# points lift at it with LIFT_PYTHON=.venv-nvrtc/bin/python or LIFT_NVRTC=<libnvrtc.so.12>).
nvrtc_wheels=(nvidia-cuda-nvrtc-cu12==12.9.86 nvidia-cuda-runtime-cu12==12.9.79 nvidia-cuda-cccl-cu12==12.9.27)
has_nvrtc() {
    { [ -n "${LIFT_NVRTC:-}" ] && [ -e "$LIFT_NVRTC" ]; } ||
        .venv-nvrtc/bin/python -c 'import nvidia.cuda_nvrtc, nvidia.cuda_runtime' 2>/dev/null
}
if ! has_nvrtc; then
    if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
        sudo=""
        if [ "$(id -u)" -ne 0 ]; then sudo="sudo -n"; fi
        if command -v apt-get >/dev/null && $sudo true 2>/dev/null; then
            $sudo apt-get update -qq || true
            DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-venv >/dev/null || true
        fi
    fi
    rm -rf .venv-nvrtc
    python3 -m venv .venv-nvrtc >/dev/null 2>&1 &&
        .venv-nvrtc/bin/pip install -q --disable-pip-version-check "${nvrtc_wheels[@]}" || true
fi
if ! has_nvrtc; then
    if in_ci; then
        echo "error: CI is set and NVRTC cannot be installed (python3 -m venv .venv-nvrtc, then pip install ${nvrtc_wheels[*]}); the CUDA source tests would fail" >&2
        exit 1
    fi
    echo "warning: no NVRTC (pip install ${nvrtc_wheels[*]} into .venv-nvrtc); the CUDA source tests will print 'skipped: ...' (and fail under CI=true)" >&2
fi

# The Python package (python/, `import lift`): built with maturin into .venv-python
# beside Triton 3.9 (the compiler it calls, CPU only), NumPy, pytest and Ray, for
# tests/it/python_package.rs. maturin builds in this checkout's cargo target directory
# (CARGO_TARGET_DIR, else target/), so `cargo test --release` reuses the lift library
# it compiled. Rerun this script after changing src/ for the Python tests to see it.
py_wheels=(maturin==1.16.0 pytest numpy triton==3.9.0 ray==2.60.0)
has_py_deps() { .venv-python/bin/python -c 'import maturin, pytest, numpy, triton, ray' 2>/dev/null; }
if ! has_py_deps; then
    rm -rf .venv-python
    python3 -m venv .venv-python >/dev/null 2>&1 &&
        .venv-python/bin/pip install -q --disable-pip-version-check "${py_wheels[@]}" || true
fi
if has_py_deps; then
    VIRTUAL_ENV="$PWD/.venv-python" PATH="$PWD/.venv-python/bin:$PATH" \
        .venv-python/bin/maturin develop --release --quiet -m python/Cargo.toml >/dev/null ||
        { echo "error: building the Python package (maturin develop -m python/Cargo.toml) failed" >&2; exit 1; }
fi
if ! .venv-python/bin/python -c 'import lift._lift, triton, pytest' 2>/dev/null; then
    if in_ci; then
        echo "error: CI is set and the Python package cannot be built (python3 -m venv .venv-python, pip install ${py_wheels[*]}, maturin develop -m python/Cargo.toml); the Python tests would fail" >&2
        exit 1
    fi
    echo "warning: no .venv-python with the lift package; the Python tests will print 'skipped: ...' (and fail under CI=true)" >&2
fi
