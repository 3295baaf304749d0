#!/usr/bin/env bash
# What the test line needs from the system, as Debian packages:
# - chromium: the browser suites drive Debian's Chromium through playwright-core (never a
#   browser download);
# - openssl: they serve the pages they render from an https origin whose certificate it makes;
# - faketime: both suites run with the machine's clock a year away from the real date (see
#   test/support/shifted-clock.sh), so that a test reading the real clock fails today;
# - python3-venv, python3-pytest, python3-wheel: the Python client's tests (clients/python) run
#   with pytest and install the package into a fresh virtual environment without a package
#   index, which needs setuptools able to build a wheel (test/support/python.ts finds the
#   interpreter; another python3 that has all of it serves as well).
# Installs what is missing when this user may; otherwise says what to install, and fails.
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v openssl >/dev/null || missing+=(openssl)
command -v faketime >/dev/null || missing+=(faketime)
if ! /usr/bin/python3 -c 'import pytest, venv, ensurepip, wheel' 2>/dev/null; then missing+=(python3-venv python3-pytest python3-wheel); fi
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing Debian's ${missing[*]} for the test line" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi
echo "the test line needs Debian's packages: ${missing[*]} (apt-get install ${missing[*]})" >&2
exit 1
