#!/usr/bin/env bash
# Makes sure `bun` on PATH is exactly the version pinned in package.json's `packageManager`.
#
#   source scripts/ensure-bun.sh   # the other scripts do this: PATH changes reach the caller
#   scripts/ensure-bun.sh          # standalone: prints the PATH line to add when needed
#
# Order: the bun already on PATH if its version is right; else a previous per-user install
# (~/.local/share/weir-bun); else `npm install -g bun@<v>`; if that is refused for lack of
# permissions (not root), `npm install --prefix ~/.local/share/weir-bun bun@<v>`.
# Quiet when bun is already right; every failure ends with a `ensure-bun:` line and status 1.
# (Curl installers are deliberately not used: only the npm registry may be reachable.)

weir_bun_log() { printf 'ensure-bun: %s\n' "$*" >&2; }

# The version after "bun@" in package.json's packageManager field.
weir_bun_wanted() {
  local root="$1" version
  version="$(sed -n 's/.*"packageManager"[[:space:]]*:[[:space:]]*"bun@\([^"]*\)".*/\1/p' "$root/package.json" | head -n 1)"
  if [[ -z "$version" ]]; then
    weir_bun_log "cannot read the bun version from $root/package.json (expected \"packageManager\": \"bun@X.Y.Z\")"
    return 1
  fi
  printf '%s\n' "$version"
}

# Prints the version of the bun at $1 (or on PATH), empty when there is none or it does not run.
weir_bun_version_of() {
  local bin="${1:-bun}"
  if [[ "$bin" == bun ]] && ! command -v bun >/dev/null 2>&1; then return 0; fi
  if [[ "$bin" != bun && ! -x "$bin" ]]; then return 0; fi
  "$bin" --version 2>/dev/null | head -n 1 || true
}

# Puts $1 first on PATH (moving it when already present, so it wins over an older bun).
weir_bun_prepend_path() {
  local rest=":$PATH:"
  rest="${rest//:"$1":/:}"
  rest="${rest#:}"
  rest="${rest%:}"
  PATH="$1${rest:+:$rest}"
  export PATH
  hash -r
}

# Checks that `bun` on PATH now answers the wanted version.
weir_bun_verify() {
  local wanted="$1" got
  got="$(weir_bun_version_of)"
  if [[ "$got" != "$wanted" ]]; then
    weir_bun_log "bun on PATH is '${got:-missing}' ($(command -v bun || echo 'not found')) after installing; wanted $wanted"
    return 1
  fi
}

weir_bun_install_global() {
  local wanted="$1" log="$2" global_bin
  weir_bun_log "installing bun@$wanted with npm install -g"
  if ! npm install -g --no-fund --no-audit "bun@$wanted" >"$log" 2>&1; then return 1; fi
  global_bin="$(npm prefix -g 2>/dev/null)/bin"
  hash -r
  # An older bun earlier on PATH (e.g. ~/.bun/bin) would shadow the new one.
  if [[ "$(weir_bun_version_of)" != "$wanted" && -x "$global_bin/bun" ]]; then
    weir_bun_prepend_path "$global_bin"
  fi
}

weir_bun_install_user() {
  local wanted="$1" log="$2" prefix="$3"
  weir_bun_log "no permission for a global install; installing bun@$wanted into $prefix"
  mkdir -p "$prefix" || {
    weir_bun_log "cannot create $prefix"
    return 1
  }
  if ! npm install --no-fund --no-audit --no-save --prefix "$prefix" "bun@$wanted" >"$log" 2>&1; then
    weir_bun_log "npm install --prefix $prefix bun@$wanted failed:"
    tail -n 20 "$log" >&2
    return 1
  fi
  weir_bun_prepend_path "$prefix/node_modules/.bin"
}

# The whole procedure; returns non-zero with a message on failure. Sets WEIR_BUN_PATH_HINT when
# the caller's PATH had to change, so a standalone run can print it.
weir_ensure_bun() {
  local root wanted user_prefix user_bin log status
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  wanted="$(weir_bun_wanted "$root")" || return 1
  user_prefix="${WEIR_BUN_PREFIX:-$HOME/.local/share/weir-bun}"
  user_bin="$user_prefix/node_modules/.bin"
  WEIR_BUN_PATH_HINT=""
  WEIR_BUN_INSTALLED=0

  [[ "$(weir_bun_version_of)" == "$wanted" ]] && return 0
  if [[ "$(weir_bun_version_of "$user_bin/bun")" == "$wanted" ]]; then
    weir_bun_prepend_path "$user_bin"
    WEIR_BUN_PATH_HINT="$user_bin"
    return 0
  fi

  local current
  current="$(weir_bun_version_of)"
  if [[ -n "$current" ]]; then
    weir_bun_log "bun $current found at $(command -v bun), but package.json pins bun@$wanted"
  else
    weir_bun_log "bun is not installed; package.json pins bun@$wanted"
  fi
  if ! command -v npm >/dev/null 2>&1; then
    weir_bun_log "npm is not installed either, so bun cannot be installed automatically."
    weir_bun_log "install Node.js + npm (e.g. apt-get install nodejs npm), or bun $wanted itself, then run this again"
    return 1
  fi

  log="$(mktemp "${TMPDIR:-/tmp}/weir-ensure-bun.XXXXXX")"
  status=0
  if weir_bun_install_global "$wanted" "$log"; then
    :
  elif [[ "$(id -u)" -ne 0 ]] || grep -qE 'EACCES|EPERM|permission denied' "$log"; then
    weir_bun_install_user "$wanted" "$log" "$user_prefix" || status=1
    [[ $status -eq 0 ]] && WEIR_BUN_PATH_HINT="$user_bin"
  else
    weir_bun_log "npm install -g bun@$wanted failed:"
    tail -n 20 "$log" >&2
    status=1
  fi
  if [[ $status -eq 0 ]] && ! weir_bun_verify "$wanted"; then
    weir_bun_log "npm output was:"
    tail -n 20 "$log" >&2
    status=1
  fi
  rm -f "$log"
  [[ $status -eq 0 ]] || return 1
  WEIR_BUN_INSTALLED=1
  weir_bun_log "bun $(bun --version) ready at $(command -v bun)"
  weir_bun_print_hint
}

weir_bun_print_hint() {
  [[ -n "${WEIR_BUN_PATH_HINT:-}" ]] || return 0
  weir_bun_log "bun is not on your default PATH; add this line to ~/.profile (or ~/.bashrc):"
  weir_bun_log "  export PATH=\"$WEIR_BUN_PATH_HINT:\$PATH\""
}

if [[ "${BASH_SOURCE[0]}" != "$0" ]]; then
  # Sourced: the PATH change stays in the caller's shell.
  weir_ensure_bun || return 1
else
  set -euo pipefail
  weir_ensure_bun
  # Found in the per-user prefix without installing: say how to reach it, since this process's
  # PATH change dies with it.
  if [[ "$WEIR_BUN_INSTALLED" == 0 ]]; then weir_bun_print_hint; fi
fi
