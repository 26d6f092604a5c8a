#!/usr/bin/env bash
# Installs what retrace's demo and tests need on a fresh Debian machine: Chromium (Debian's
# headless shell, which retrace launches by default, and the full browser, which some tests
# launch so that both stay covered), Xvfb and a few real X programs for the desktop backend
# tests, nginx (the authenticating and TLS proxies of the remote-browser tests), Java and
# ChromeDriver (the real Selenium Grid of the farm tests), fonts, and
# Python's venv (for the cross-checks against Python libraries). Safe to run again: it
# installs only what is missing.
set -euo pipefail

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v chromium-headless-shell >/dev/null 2>&1 || need+=(chromium-headless-shell)
command -v Xvfb >/dev/null 2>&1 || need+=(xvfb)
command -v xedit >/dev/null 2>&1 || need+=(x11-apps)
command -v xev >/dev/null 2>&1 || need+=(x11-utils)
command -v xdotool >/dev/null 2>&1 || need+=(xdotool)
# A real GTK program from Debian for the desktop end-to-end tests (crates/cli/tests/cli/desktop_e2e.rs):
# Mousepad, a text editor with a menu bar, a text area and GTK's file dialog.
command -v mousepad >/dev/null 2>&1 || need+=(mousepad)
# The accessibility layer: a session bus and the AT-SPI bus for the application under test,
# and Debian's Python with GTK 3 for the small windows the accessibility tests start.
command -v dbus-daemon >/dev/null 2>&1 || need+=(dbus-daemon)
[ -x /usr/libexec/at-spi-bus-launcher ] || need+=(at-spi2-core)
/usr/bin/python3 -c "import gi; gi.require_version('Gtk', '3.0')" >/dev/null 2>&1 || need+=(python3-gi gir1.2-gtk-3.0)
# nginx lives in /usr/sbin, which is not on every user's PATH.
[ -x /usr/sbin/nginx ] || command -v nginx >/dev/null 2>&1 || need+=(nginx)
# xmllint validates the JUnit report against the Jenkins JUnit XSD (crates/report tests).
command -v xmllint >/dev/null 2>&1 || need+=(libxml2-utils)
[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need+=(fonts-dejavu-core)
# The demo app's pixels (and so the hashes in its bundled recording) depend on the fonts
# Chromium finds: Liberation is what Debian's chromium recommends and what it was recorded with.
[ -e /usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf ] || need+=(fonts-liberation)
# `retrace mcp` is listed by the MCP Inspector's CLI mode (crates/cli/tests/cli/mcp_server.rs),
# which the test npm-installs (retrace_test_support::npm); Debian's npm brings Node.js.
command -v npm >/dev/null 2>&1 || need+=(npm)
# The real browser farms of crates/cli/tests/cli/real_farms.rs: a Selenium Grid 4 (its jar comes
# from npm, pinned in retrace_test_support::remote_browser::selenium_grid) runs on Java and
# drives Debian's Chromium through Debian's ChromeDriver; browserless (npm, pinned in
# retrace_test_support::remote_browser::browserless) runs on the Node.js npm brings.
[ -x /usr/bin/java ] || need+=(default-jre-headless)
[ -x /usr/bin/chromedriver ] || need+=(chromium-driver)
# The imagehash cross-check (crates/cli/tests/cli/imagehash_crosscheck.rs) makes a Python venv and
# pip-installs imagehash into it, as the object-storage tests do with moto's S3 server
# (retrace_test_support::moto); Debian ships venv's pip bootstrap (ensurepip) separately.
if ! command -v python3 >/dev/null 2>&1; then
  need+=(python3 python3-venv)
elif ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
  need+=(python3-venv)
fi

if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need[@]}" >/dev/null
fi

# The cargo target directory lives outside the checkout so rebuilds stay incremental.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/retrace-target}"
mkdir -p "$CARGO_TARGET_DIR"

# The Chromium retrace launches when none is named (`default_executable` in
# crates/drive/src/chromium/launch.rs): the headless shell when installed, else the full browser.
default_chromium() {
  if [ -x /usr/lib/chromium/chromium-headless-shell ]; then
    echo /usr/lib/chromium/chromium-headless-shell
  else
    echo /usr/bin/chromium
  fi
}

# Builds the `retrace` binary for a benchmark and sets $retrace to it: the release build, or
# with BENCH_DEBUG=1 the debug one (skipping the release build: only ratios between retrace
# runs then mean anything).
build_retrace_for_bench() {
  if [ "${BENCH_DEBUG:-0}" = 1 ]; then
    cargo build --locked -p retrace-cli >/dev/null
    retrace="$CARGO_TARGET_DIR/debug/retrace"
  else
    cargo build --release --locked -p retrace-cli >/dev/null
    retrace="$CARGO_TARGET_DIR/release/retrace"
  fi
}
