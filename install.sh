#!/usr/bin/env bash
# Builds Weir from this checkout and installs the single `weir` binary. Safe to run again: it
# rebuilds, replaces the binary atomically and leaves an unchanged unit file alone.
#
#   ./install.sh [--prefix DIR] [--systemd] [--data-dir DIR]
#
#   --prefix DIR    install into DIR/bin (default: /usr/local as root, $HOME/.local otherwise)
#   --systemd       (root only) also install /etc/systemd/system/weir.service running as the
#                   `weir` system user (created when missing)
#   --data-dir DIR  data directory used by the service and shown in the next steps
#                   (default: /var/lib/weir for --systemd, ./weir-data otherwise)
#
# Needs Node + npm only when the pinned bun is missing (scripts/ensure-bun.sh installs it).
# See docs/install.md.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SERVICE_FILE="/etc/systemd/system/weir.service"
# Read by every weir command (see docs/configuration.md): names the service's data dir once.
SYSTEM_CONFIG="/etc/weir/weir.toml"
SERVICE_USER="weir"
DEFAULT_SERVICE_DATA_DIR="/var/lib/weir"

say() { printf '==> %s\n' "$*"; }
warn() { printf 'install: warning: %s\n' "$*" >&2; }
die() {
  printf 'install: FAILED: %s\n' "$*" >&2
  exit 1
}
trap 'printf "install: FAILED: unexpected error at line %s: %s\n" "$LINENO" "$BASH_COMMAND" >&2' ERR

usage() {
  sed -n '5,13s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
}

is_root() { [[ "$(id -u)" -eq 0 ]]; }

PREFIX=""
WITH_SYSTEMD=0
DATA_DIR=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --prefix)
      [[ $# -ge 2 && -n "$2" ]] || die "--prefix needs a directory"
      PREFIX="$2"
      shift 2
      ;;
    --prefix=*) PREFIX="${1#*=}"; shift ;;
    --data-dir)
      [[ $# -ge 2 && -n "$2" ]] || die "--data-dir needs a directory"
      DATA_DIR="$2"
      shift 2
      ;;
    --data-dir=*) DATA_DIR="${1#*=}"; shift ;;
    --systemd) WITH_SYSTEMD=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *)
      usage >&2
      die "unknown argument: $1"
      ;;
  esac
done

if [[ -z "$PREFIX" ]]; then
  if is_root; then PREFIX="/usr/local"; else PREFIX="$HOME/.local"; fi
fi
PREFIX="$(realpath -m -- "$PREFIX")"
BIN_DIR="$PREFIX/bin"
DEST="$BIN_DIR/weir"
if [[ $WITH_SYSTEMD -eq 1 ]]; then
  is_root || die "--systemd needs root (it writes $SERVICE_FILE and creates the $SERVICE_USER user); run: sudo ./install.sh --systemd"
  DATA_DIR="$(realpath -m -- "${DATA_DIR:-$DEFAULT_SERVICE_DATA_DIR}")"
fi

[[ -f "$ROOT/package.json" && -f "$ROOT/scripts/build" ]] ||
  die "run install.sh from a Weir checkout (package.json and scripts/build not found in $ROOT)"
cd "$ROOT"

say "bun (installed only when missing or not the pinned version)"
# shellcheck source=scripts/ensure-bun.sh
source "$ROOT/scripts/ensure-bun.sh" || die "bun is not available (see the ensure-bun messages above)"
echo "bun $(bun --version) at $(command -v bun)"

say "build: frozen dependency install + dist/weir (scripts/build)"
bash "$ROOT/scripts/build" || die "the build failed (see above); nothing was installed"
[[ -x "$ROOT/dist/weir" ]] || die "the build did not produce dist/weir"

install_binary() {
  say "install $DEST"
  mkdir -p "$BIN_DIR" 2>/dev/null || die "cannot create $BIN_DIR (use --prefix DIR, or run as root)"
  [[ -w "$BIN_DIR" ]] || die "$BIN_DIR is not writable (use --prefix DIR, or run as root)"
  if [[ -f "$DEST" ]] && cmp -s "$ROOT/dist/weir" "$DEST"; then
    echo "$DEST is already this build: unchanged"
    return 0
  fi
  # Copy next to the target, then rename: a running weir keeps its old file, nothing half-written.
  local tmp="$BIN_DIR/.weir.install.$$"
  if ! { cp "$ROOT/dist/weir" "$tmp" && chmod 0755 "$tmp" && mv -f "$tmp" "$DEST"; }; then
    rm -f "$tmp"
    die "copying dist/weir to $DEST failed"
  fi
  BINARY_CHANGED=1
  echo "installed $("$DEST" version)"
}

on_path() {
  case ":$PATH:" in
    *":$1:"*) return 0 ;;
    *) return 1 ;;
  esac
}

ensure_service_user() {
  if id -u "$SERVICE_USER" >/dev/null 2>&1; then
    echo "system user $SERVICE_USER exists"
    return 0
  fi
  command -v useradd >/dev/null 2>&1 || die "useradd not found; create a system user named $SERVICE_USER and run again"
  useradd --system --user-group --home-dir "$DEFAULT_SERVICE_DATA_DIR" --no-create-home \
    --shell "$(command -v nologin || echo /usr/sbin/nologin)" --comment "Weir webhook appliance" "$SERVICE_USER" ||
    die "useradd --system $SERVICE_USER failed"
  echo "created system user $SERVICE_USER"
}

# Prints the unit. ProtectHome would hide a binary or data dir living under a home directory.
render_unit() {
  local protect_home="ProtectHome=true"
  if [[ "$DEST" == /home/* || "$DEST" == /root/* || "$DATA_DIR" == /home/* || "$DATA_DIR" == /root/* ]]; then
    protect_home="# ProtectHome is off: the binary or the data dir is under a home directory"
  fi
  local state_dir="StateDirectory=weir
StateDirectoryMode=0700"
  if [[ "$DATA_DIR" != "$DEFAULT_SERVICE_DATA_DIR" ]]; then
    state_dir="# Data dir is $DATA_DIR (install.sh --data-dir), not the StateDirectory /var/lib/weir"
  fi
  cat <<UNIT
# Installed by Weir's install.sh; running it again rewrites this file. See docs/install.md.
[Unit]
Description=Weir webhook appliance
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
User=$SERVICE_USER
Group=$SERVICE_USER
ExecStart=$DEST serve --data-dir $DATA_DIR
$state_dir
Restart=on-failure
RestartSec=2s
# weir stops on SIGTERM after in-flight requests finish.
KillSignal=SIGTERM
TimeoutStopSec=30s
NoNewPrivileges=true
ProtectSystem=strict
ReadWritePaths=$DATA_DIR
PrivateTmp=true
PrivateDevices=true
$protect_home
UMask=0077

[Install]
WantedBy=multi-user.target
UNIT
}

# /etc/weir/weir.toml tells every weir command (admin, backup, doctor) where the service keeps
# its data, so none needs --data-dir. An operator's own file is left alone unless it points
# elsewhere, which is reported.
write_system_config() {
  local line="data_dir = \"$DATA_DIR\""
  if [[ -f "$SYSTEM_CONFIG" ]]; then
    if grep -qxF "$line" "$SYSTEM_CONFIG"; then
      echo "$SYSTEM_CONFIG unchanged"
    else
      warn "$SYSTEM_CONFIG exists and does not say $line: left as it is"
    fi
    return 0
  fi
  mkdir -p "$(dirname "$SYSTEM_CONFIG")" || die "cannot create $(dirname "$SYSTEM_CONFIG")"
  printf '# Weir settings for every command on this machine (docs/configuration.md).\n%s\n' "$line" >"$SYSTEM_CONFIG" ||
    die "cannot write $SYSTEM_CONFIG"
  chmod 0644 "$SYSTEM_CONFIG"
  echo "wrote $SYSTEM_CONFIG ($line)"
}

install_systemd() {
  say "systemd service ($SERVICE_FILE)"
  if [[ "$DEST" == /tmp/* || "$DEST" == /var/tmp/* ]]; then
    warn "$DEST is under a temp dir, which PrivateTmp=true hides from the service; use another --prefix"
  fi
  ensure_service_user
  if [[ "$DATA_DIR" != "$DEFAULT_SERVICE_DATA_DIR" ]]; then
    if ! { mkdir -p "$DATA_DIR" && chown "$SERVICE_USER:$SERVICE_USER" "$DATA_DIR" && chmod 0700 "$DATA_DIR"; }; then
      die "cannot prepare $DATA_DIR for the $SERVICE_USER user"
    fi
  fi
  mkdir -p "$(dirname "$SERVICE_FILE")" || die "cannot create $(dirname "$SERVICE_FILE")"
  local unit
  unit="$(render_unit)"
  if [[ -f "$SERVICE_FILE" ]] && [[ "$(cat "$SERVICE_FILE")" == "$unit" ]]; then
    echo "$SERVICE_FILE unchanged"
  else
    printf '%s\n' "$unit" >"$SERVICE_FILE" || die "cannot write $SERVICE_FILE"
    chmod 0644 "$SERVICE_FILE"
    echo "wrote $SERVICE_FILE"
  fi
  write_system_config
  if command -v systemctl >/dev/null 2>&1 && [[ -d /run/systemd/system ]]; then
    systemctl daemon-reload || die "systemctl daemon-reload failed"
    echo "systemctl daemon-reload done"
    SYSTEMD_RUNNING=1
  else
    echo "systemd is not running on this machine: skipped systemctl daemon-reload (the unit is in place for when it does)"
  fi
}

BINARY_CHANGED=0
SYSTEMD_RUNNING=0
install_binary
if [[ $WITH_SYSTEMD -eq 1 ]]; then install_systemd; fi

WEIR_CMD="weir"
if ! on_path "$BIN_DIR"; then
  WEIR_CMD="$DEST"
  warn "$BIN_DIR is not on your PATH. Add this line to ~/.profile (or ~/.bashrc), then open a new shell:"
  warn "  export PATH=\"$BIN_DIR:\$PATH\""
fi

say "done: $("$DEST" version)"
echo
echo "Next steps:"
next() { printf '  %-56s # %s\n' "$1" "$2"; }
if [[ $WITH_SYSTEMD -eq 1 ]]; then
  if [[ $SYSTEMD_RUNNING -eq 1 ]]; then
    next "systemctl enable --now weir" "start now and at boot"
    if [[ $BINARY_CHANGED -eq 1 ]]; then next "systemctl restart weir" "if it was running (migrations apply on start)"; fi
  else
    next "systemctl daemon-reload && systemctl enable --now weir" "on a host where systemd runs"
  fi
  next "journalctl -u weir -f" "logs (JSON lines)"
  next "sudo -u $SERVICE_USER $DEST admin list-users" "admin commands find $DATA_DIR through $SYSTEM_CONFIG"
else
  next "$WEIR_CMD serve${DATA_DIR:+ --data-dir $DATA_DIR}" "data in ${DATA_DIR:-./weir-data}; Ctrl-C stops it"
fi
next "open http://localhost:8080" "the web UI"
next "$WEIR_CMD --help" "every command; docs/install.md: upgrade, backup"
