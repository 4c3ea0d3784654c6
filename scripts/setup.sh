#!/usr/bin/env bash
# What lift's tests need on a fresh Debian 12 machine before `cargo test --release`:
# Rust's cargo, and Python 3 with NumPy (tests run the NumPy renderings of lifted
# formulas on the suite's reference inputs; without NumPy those tests skip).
set -euo pipefail
command -v cargo >/dev/null || { echo "lift needs Rust's cargo (https://rustup.rs)" >&2; exit 2; }
if ! python3 -c 'import numpy' 2>/dev/null && ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo -n"; fi
    if command -v apt-get >/dev/null && $sudo true 2>/dev/null; then
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-numpy >/dev/null
    else
        echo "warning: no NumPy and no way to apt-get it; NumPy rendering tests will skip" >&2
    fi
fi
