#!/usr/bin/env bash
# The whole GPU runbook in one command, from the repository root:
#     bash benchmarks/gpu/run_all.sh [OUT_DIR]
# Each step writes its results under OUT_DIR (default gpu-results/) as it
# goes, so a step cut off by a time limit still leaves numbers.  Steps:
#   1 probe (versions, devices, cuDNN/NCCL)           ~10 s
#   2 tests on gpu(0): context-parametrised tests     ~3 min
#   3 CPU-vs-GPU parity of every registry op          ~2 min
#   4 benchmarks against PyTorch on the same GPU      ~6 min
#   5 dist_device_sync with 2 processes (needs mpi4py) ~10 s: NCCL with 2+
#     GPUs (one per process); with 1 GPU both processes share it, which
#     NCCL refuses, so this checks the fall-back to host-staged MPI
#   6 chapters 7 and 13 run as scripts on the GPU machine ~15 s
#     (Fashion-MNIST from $DLBOOK_DATA)
#   7 where a step's time goes, operator by operator           ~40 s
# STEPS=1,3 runs only some steps; PYTEST_ADDOPTS='-n 8' spreads step 2
# over pytest-xdist workers; BENCH_ARGS passes options to step 4 (e.g.
# '--warmup 5 --repeat 20'); SMOKE=1 uses tiny sizes (fake GPU check:
# DLBOOK_FAKE_GPUS=1 SMOKE=1 bash benchmarks/gpu/run_all.sh /tmp/out).
set -u
OUT=${1:-gpu-results}
STEPS=${STEPS:-1,2,3,4,5,6,7}
PY=${PYTHON:-python}
mkdir -p "$OUT"
export PYTHONPATH=.${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
step() { [[ ",$STEPS," == *",$1,"* ]]; }
status=0

if step 1; then
  echo "== 1 probe"; $PY benchmarks/gpu/probe.py | tee "$OUT/probe.json"
fi
if step 2; then
  echo "== 2 tests on gpu0"
  if $PY -c 'import pytest' 2>/dev/null; then
    # context-parametrised tests on the GPU, then every test that makes
    # its own gpu(0) arrays
    timeout ${TEST_TIMEOUT:-400} $PY -m pytest -q -p no:cacheprovider \
      -k gpu0 tests/ops tests/gluon tests/symbol tests/test_*.py \
      --junitxml="$OUT/tests-gpu0.xml" 2>&1 | tail -60 | tee "$OUT/tests-gpu0.txt"
    [[ ${PIPESTATUS[0]} == 0 ]] || status=1
  else
    echo "pytest is not installed: skipped" | tee "$OUT/tests-gpu0.txt"
  fi
fi
if step 3; then
  echo "== 3 parity"
  timeout ${PARITY_TIMEOUT:-300} $PY benchmarks/gpu/parity.py --out "$OUT" || status=1
fi
if step 4; then
  echo "== 4 benchmarks vs PyTorch"
  args=()
  [[ -n "${SMOKE:-}" ]] && args+=(--smoke)
  [[ -n "${BENCH_ARGS:-}" ]] && read -ra extra <<< "$BENCH_ARGS" && args+=("${extra[@]}")
  timeout ${BENCH_TIMEOUT:-480} $PY benchmarks/gpu/bench_vs_torch.py --out "$OUT" "${args[@]}" || status=1
  cat "$OUT/bench.md" 2>/dev/null
fi
if step 5; then
  echo "== 5 dist_device_sync, 2 processes"
  if $PY -c 'import mpi4py' 2>/dev/null; then
    # Open MPI refuses to run as root (containers, cloud images) unless
    # told twice
    [[ $(id -u) == 0 ]] && export OMPI_ALLOW_RUN_AS_ROOT=1 \
      OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    ngpu=$($PY -c 'import dlbook; print(dlbook.context.num_gpus())')
    if [[ $ngpu -ge 2 ]]; then
      where=own; export DLBOOK_DIST_DEVICE_COMM=nccl
    else
      where=same; export DLBOOK_DIST_DEVICE_COMM=auto
    fi
    # the interpreter's full path: mpiexec searches its own PATH
    pyexe=$($PY -c 'import sys; print(sys.executable)')
    timeout ${DIST_TIMEOUT:-120} $PY -m dlbook.launch -n 2 "$pyexe" \
      tests/dist/worker_device.py $where > "$OUT/dist-device-sync.txt" 2>&1
    rc=$?
    unset DLBOOK_DIST_DEVICE_COMM
    grep -v '^RESULT' "$OUT/dist-device-sync.txt" | tail -20
    { [[ $rc == 0 ]] && $PY tests/dist/worker_device.py check \
        < "$OUT/dist-device-sync.txt"; } | tee -a "$OUT/dist-device-sync.txt"
    [[ $rc == 0 && ${PIPESTATUS[0]} == 0 ]] || status=1
  else
    echo "mpi4py is not installed: skipped" | tee "$OUT/dist-device-sync.txt"
  fi
fi
if step 6; then
  echo "== 6 chapters 7 and 13"
  DLBOOK_FAST=1 timeout ${NOTEBOOK_TIMEOUT:-120} $PY \
    benchmarks/gpu/run_notebooks.py notebooks/ch07_gpus_and_contexts.ipynb \
    notebooks/ch13_multi_device.ipynb > "$OUT/notebooks.txt" 2>&1 || status=1
  grep -E 'FAILED|===' "$OUT/notebooks.txt"
fi
if step 7; then
  echo "== 7 profile"
  args=()
  [[ -n "${SMOKE:-}" ]] && args+=(--smoke)
  timeout ${PROFILE_TIMEOUT:-120} $PY benchmarks/gpu/profile_ops.py \
    --out "$OUT" --cprofile 25 "${args[@]}" > "$OUT/profile.log" 2>&1 \
    || status=1
fi
exit $status
