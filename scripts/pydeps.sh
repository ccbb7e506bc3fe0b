#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make deps, second part: HdrHistogram's Python reader from PyPI in a
# venv of the checkout's own (build/pyvenv), which tests/host/test_hlog.py
# reads --hlog back with.  Without PyPI it says so; that test then skips.
set -uo pipefail

VENV=${1:-build/pyvenv}
PKG=hdrhistogram==0.10.8

if "$VENV/bin/python" -c 'import hdrh.histogram' 2>/dev/null; then
	echo "pydeps: $PKG already in $VENV; nothing to do"
	exit 0
fi
if python3 -m venv "$VENV" &&
	"$VENV/bin/pip" install -q --disable-pip-version-check "$PKG" &&
	"$VENV/bin/python" -c 'import hdrh.histogram'; then
	echo "pydeps: installed $PKG in $VENV"
else
	echo "pydeps: could not install $PKG from PyPI into $VENV;" \
		"test_hlog's cross-check will skip" >&2
fi
exit 0
