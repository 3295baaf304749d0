#!/usr/bin/env bash
# Runs a command with the machine's clock shifted, for example `shifted-clock.sh +365d jest`.
#
# Every time-based rule under test reads an injected clock that starts at a fixed instant; a
# test that reads the real clock instead passes only near the day it was written. Run a year
# away from the real date, such a test fails at once, not on some later day.
# libfaketime shifts the wall clock of this process and of every process it starts (jest's
# workers, the services, Chromium); the monotonic clock stays real, so time-outs keep their
# length. jest's global setup (test/support/global-setup.ts) checks that the shift took hold.
set -euo pipefail
offset="$1"
shift
TEMPMAIL_REAL_START_MS="$(date +%s%3N)"
export TEMPMAIL_REAL_START_MS
export TEMPMAIL_CLOCK_SHIFT="$offset"
export FAKETIME_DONT_FAKE_MONOTONIC=1
exec faketime -f "$offset" "$@"
