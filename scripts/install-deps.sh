#!/usr/bin/env bash
# Installs the Debian packages ddlsim needs to build, test and plot.
# Called by make when pkg-config cannot find a dependency; safe to run again.
# Usage: scripts/install-deps.sh [extra-package ...]
set -euo pipefail

pkgs=(pkg-config libgsl-dev libyaml-dev libcmocka-dev libjansson-dev gnuplot-nox tshark
      libopenmpi-dev openmpi-bin)
pkgs+=("$@")

missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "install-deps: need root or sudo to install ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer no without a prompt.
echo "wireshark-common wireshark-common/install-setuid boolean false" | $sudo debconf-set-selections 2>/dev/null || true
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done" >&2
