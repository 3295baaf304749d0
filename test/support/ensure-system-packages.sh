#!/usr/bin/env bash
# What the test line needs from the system, as Debian packages:
# - chromium: the browser suites drive Debian's Chromium through playwright-core (never a
#   browser download);
# - openssl: they serve the pages they render from an https origin whose certificate it makes;
# - faketime: both suites run with the machine's clock a year away from the real date (see
#   test/support/shifted-clock.sh), so that a test reading the real clock fails today.
# Installs what is missing when this user may; otherwise says what to install, and fails.
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v openssl >/dev/null || missing+=(openssl)
command -v faketime >/dev/null || missing+=(faketime)
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing Debian's ${missing[*]} for the test line" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi
echo "the test line needs Debian's packages: ${missing[*]} (apt-get install ${missing[*]})" >&2
exit 1
