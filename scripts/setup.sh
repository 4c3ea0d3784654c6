#!/usr/bin/env bash
# What lift's tests need on a fresh Debian 12 machine before `cargo test --release`:
# Rust's cargo, and Python 3 with NumPy (tests run the NumPy renderings of lifted
# formulas on the suite's reference inputs). Without NumPy those tests fail when `CI` is
# set and print "skipped: ..." otherwise; so in CI this script fails rather than warns
# when it cannot install NumPy.
set -euo pipefail
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
