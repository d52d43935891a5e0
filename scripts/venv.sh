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
