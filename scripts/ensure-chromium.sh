#!/usr/bin/env bash
# Makes sure the chromium the browser tests drive is installed (Debian's package: playwright-core
# drives it, nothing is downloaded). Used by ./scripts/test and .ci/run, so there is one install.
#
#   scripts/ensure-chromium.sh     # quiet when present; installs with apt when root; else one line
#
# WEIR_CHROMIUM names another binary (default /usr/bin/chromium). Installs only as root with
# apt-get; anywhere else it prints the one command to run and exits 1.
set -euo pipefail

chromium="${WEIR_CHROMIUM:-/usr/bin/chromium}"
[[ -x "$chromium" ]] && exit 0

packages=(chromium fonts-dejavu-core)
if [[ "$(id -u)" -ne 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: chromium not found at $chromium; run: sudo apt-get update && sudo apt-get install -y --no-install-recommends ${packages[*]} (or set WEIR_CHROMIUM to a chromium binary)" >&2
  exit 1
fi

echo "ensure-chromium: installing ${packages[*]} with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
if [[ ! -x "$chromium" ]]; then
  echo "ensure-chromium: apt-get installed ${packages[*]} but $chromium is still missing" >&2
  exit 1
fi
