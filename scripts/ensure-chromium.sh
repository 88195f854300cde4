#!/usr/bin/env bash
# Makes sure a headless Chromium is installed for the web viewer's browser test
# (native/cli/tests/it/viewer_browser.rs): Debian's `chromium` package. Idempotent: does nothing
# when a Chromium that starts headless is already there. The test fails, never skips, when the
# browser cannot start.
set -euo pipefail

works() {
  local bin
  for bin in chromium chromium-browser; do
    if command -v "$bin" >/dev/null 2>&1 &&
      timeout 60 "$bin" --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --dump-dom about:blank >/dev/null 2>&1; then
      return 0
    fi
  done
  return 1
}

if works; then
  exit 0
fi
echo "installing chromium (headless browser for the viewer test) from Debian's packages"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
hash -r
if ! works; then
  echo "chromium is installed but does not start headless" >&2
  exit 1
fi
