#!/usr/bin/env bash
# Installs what the build needs from the system: a Python with venv, a C linker, and the
# Rust components the checks use; with --test also tshark (the tests check that
# Wireshark's TCP analysis reads airtcp's pcap traces), chromium (the tests render the
# HTML report headless), and what emulation runs (`airtcp emu`: iproute2 for namespaces,
# iperf3 and ping for traffic). Does nothing that is already there.
set -euo pipefail

need_apt=()
if [ "${1:-}" = "--test" ]; then
    command -v tshark >/dev/null || need_apt+=(tshark)
    command -v chromium >/dev/null || need_apt+=(chromium)
    command -v ip >/dev/null && command -v ss >/dev/null || need_apt+=(iproute2)
    command -v iperf3 >/dev/null || need_apt+=(iperf3)
    command -v ping >/dev/null || need_apt+=(iputils-ping)
fi
python3 -c 'import venv, ensurepip' 2>/dev/null || need_apt+=(python3-venv)
command -v cc >/dev/null || need_apt+=(build-essential)
if ((${#need_apt[@]})); then
    if [ "$(id -u)" -ne 0 ]; then
        echo "error: missing ${need_apt[*]}; install them (as root: apt-get install ${need_apt[*]})" >&2
        exit 1
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}"
fi
if ! command -v cargo >/dev/null; then
    echo "error: Rust (cargo) is required: https://rustup.rs" >&2
    exit 1
fi
if command -v rustup >/dev/null; then
    rustup component list --installed 2>/dev/null | grep -q '^rustfmt' || rustup component add rustfmt
    rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy
fi
