# Sourced by the test lanes: one place for how a lane's venv is made.
#   if ! keep_venv "$VENV"; then make_venv "$VENV"; <lane-specific first installs>; fi

# True when KEEP_VENV=1 and the folder already holds a venv (local reruns reuse it as is).
keep_venv() {
  [ "${KEEP_VENV:-0}" = 1 ] && [ -x "$1/bin/python" ]
}

# A fresh venv with torch first and pinned: a bare "torch" requirement pulls a multi-GB CUDA
# build on CPU machines, while 2.13.0 is the CPU wheel on these machines.
make_venv() {
  rm -rf "$1"
  "${PYTHON:-python3}" -m venv "$1"
  "$1/bin/pip" install --quiet "torch==2.13.0"
}

# The package from this checkout into venv $1 with extras $2 (e.g. "[test]"), forced (not a stale
# build). Skipped where PACKAGE_INSTALLED=1 and the venv has it: scripts/test.sh sets that for the
# lanes that reuse the main lane's venv, which installed it from the same checkout minutes before
# (each `pip install .` rebuilds the wheel: ~15-20 s on two cores).
install_package() {
  if [ "${PACKAGE_INSTALLED:-0}" = 1 ] && "$1/bin/pip" show --quiet lm-eval-cog 2>/dev/null; then
    return 0
  fi
  "$1/bin/pip" install --quiet --force-reinstall --no-deps .
  "$1/bin/pip" install --quiet ".${2:-}"
}
