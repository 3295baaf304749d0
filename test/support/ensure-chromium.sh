#!/usr/bin/env bash
# The browser suites drive Debian's Chromium through playwright-core (never a browser download).
# Installs it when it is missing and this user may; otherwise says what to install, and fails.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing Debian's chromium for the browser suites" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  exit 0
fi
echo "the browser suites need Chromium at /usr/bin/chromium: install Debian's 'chromium' package (apt-get install chromium)" >&2
exit 1
