#!/usr/bin/env bash
# What lift needs on a fresh Debian 12 machine before `cargo test --release`.
# Today that is only Rust's cargo (Z3 and other system libraries are not used yet;
# when they are, their `apt-get install` goes here so the README stays two commands).
set -euo pipefail
command -v cargo >/dev/null || { echo "lift needs Rust's cargo (https://rustup.rs)" >&2; exit 2; }
