#!/usr/bin/env bash
# Gradescope runs this once, as root, while it builds the autograder image.
# It installs the exact constrain-harness the bundle was built from (wheels/) and its
# dependencies at the versions pinned in constraints.txt, into $ROOT/venv.
#   CONSTRAIN_HARNESS_AUTOGRADER_ROOT  the root (default /autograder; tests use a temporary one)
#   CONSTRAIN_HARNESS_PYTHON           the Python to build the venv from (default python3)
#   CONSTRAIN_HARNESS_OFFLINE=1        no download: install the wheel only (with that Python's
#                                      pip, >= 22.3), take the dependencies from its own site-packages
set -euo pipefail
ROOT="${CONSTRAIN_HARNESS_AUTOGRADER_ROOT:-/autograder}"
SOURCE="$ROOT/source"
PYTHON="${CONSTRAIN_HARNESS_PYTHON:-python3}"
if [ -z "${CONSTRAIN_HARNESS_OFFLINE:-}" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv python3-pip
fi
"$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "constrain-harness needs Python >= 3.10")'
if [ -n "${CONSTRAIN_HARNESS_OFFLINE:-}" ]; then
  # offline, the venv gets no pip of its own ($PYTHON's installs the wheel below): ensurepip
  # alone cost more CPU than the rest of the setup
  "$PYTHON" -m venv --system-site-packages --without-pip "$ROOT/venv"
else
  "$PYTHON" -m venv --system-site-packages "$ROOT/venv"
fi
# the pins hold for the Python minor version the bundle was built with (numpy wheels, for
# one, exist only for some); on another, pyproject's version ranges decide
BUILT_WITH="$(sed -n 's/^# built with Python //p' "$SOURCE/constraints.txt")"
HERE="$("$ROOT/venv/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
PINS=(-c "$SOURCE/constraints.txt")
if [ "$BUILT_WITH" != "$HERE" ]; then
  echo "note: the bundle was built with Python $BUILT_WITH, this is $HERE: dependencies not pinned"
  PINS=()
fi
if [ -n "${CONSTRAIN_HARNESS_OFFLINE:-}" ]; then
  "$PYTHON" -m pip --python "$ROOT/venv/bin/python" install -q --no-deps --no-index "$SOURCE"/wheels/*.whl
  # "that Python's own site-packages": when $PYTHON is itself a venv, --system-site-packages
  # reaches only its base interpreter's, so list $PYTHON's in a .pth (read after the venv's
  # own site-packages: the bundle's wheel stays first on the path)
  PURELIB="$("$ROOT/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  "$PYTHON" -c 'import site; print("\n".join(site.getsitepackages()))' > "$PURELIB/zz_offline_dependencies.pth"
else
  "$ROOT/venv/bin/python" -m pip install -q ${PINS[@]+"${PINS[@]}"} "$SOURCE"/wheels/*.whl
fi
"$ROOT/venv/bin/python" -m harness.cli --version
