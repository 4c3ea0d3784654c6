#!/usr/bin/env bash
# Installs the system packages lift needs on Debian 12, if missing. Idempotent.
# Today lift needs only the Rust toolchain (cargo); this script is the one place
# later dependencies (e.g. libz3-dev) get installed, so the README's commands stay two.
set -euo pipefail
need=()
for pkg in ${LIFT_APT_PACKAGES:-}; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    $sudo_cmd apt-get install -y -qq "${need[@]}"
fi
command -v cargo >/dev/null || { echo "lift needs Rust's cargo: https://rustup.rs" >&2; exit 2; }
