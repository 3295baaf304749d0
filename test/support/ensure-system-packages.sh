#!/usr/bin/env bash
# The browser suites drive Debian's Chromium through playwright-core (never a browser download),
# and serve the pages they render from an https origin whose certificate openssl makes.
# Installs what is missing when this user may; otherwise says what to install, and fails.
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v openssl >/dev/null || missing+=(openssl)
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing Debian's ${missing[*]} for the browser suites" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi
echo "the browser suites need Debian's packages: ${missing[*]} (apt-get install ${missing[*]})" >&2
exit 1
