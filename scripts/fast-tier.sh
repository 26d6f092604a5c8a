#!/usr/bin/env bash
# Runs the fast test tier (plain `cargo test`) as on a machine without the end-to-end tools,
# and times it: Chromium and its headless shell, Xvfb, nginx, Python, Node/npm, moto, mdBook
# and Mousepad are hidden (/dev/null mounted over each, in a mount namespace of this run only),
# and CI=true turns any test that would skip for a missing tool into a failure. So a green run
# shows the fast tier needs none of them and skips nothing. Needs root and unshare (util-linux);
# without them it runs the tier with the tools in place, under CI=true all the same.
# Usage: scripts/fast-tier.sh [CARGO TEST ARGS...]   (default: --workspace --locked)
set -euo pipefail
cd "$(dirname "$0")/.."

args=("$@")
[ ${#args[@]} -gt 0 ] || args=(--workspace --locked)

tools=(/usr/bin/chromium /usr/lib/chromium/chromium-headless-shell /usr/bin/mousepad)
for program in Xvfb nginx python3 python node npm npx moto_server mdbook; do
  while read -r found; do
    [ -n "$found" ] && tools+=("$(readlink -f "$found")" "$found")
  done < <(type -ap "$program" 2>/dev/null || true)
done

# Builds first, with the tools in place (a build script may use them), then runs hidden.
cargo test --no-run "${args[@]}"

args_text="${args[*]}"

start=$(date +%s)
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null 2>&1; then
  tools_text="${tools[*]}"
  unshare -m bash -c '
    set -euo pipefail
    mount --make-rprivate /
    for tool in '"$tools_text"'; do
      if [ -f "$tool" ]; then mount --bind /dev/null "$tool"; fi
    done
    CI=true cargo test '"$args_text"
else
  echo "fast-tier.sh: not root or no unshare: the tools stay in place" >&2
  CI=true cargo test "${args[@]}"
fi
echo "fast tier: green in $(($(date +%s) - start)) s (tests only, from a warm build)"
