#!/bin/sh
# One lent GPU call: the tile detector fine-tuned from the committed weights at 640 px on 3D
# scenes seen from any seat (low cameras, standing tiles, racks, stacks) beside the flat hands
# and tables and the table windows of the current recipe (lab/training/gpu_any_seat.py has
# the mix and the arithmetic behind its counts). Rendering stops at a third of DEADLINE, training
# at DEADLINE minus the export's margin; best.pt is copied to $OUT after every epoch, then
# exported to $OUT/tile_detector.onnx. Measure it here on CPU before shipping (models/README.md).
#   run on the device:  OUT=... DEADLINE=540 sh scripts/gpu_any_seat.sh
# A tiny local check:   OUT=/tmp/x DEADLINE=150 SCALE=tiny PY=.venv/bin/python sh scripts/gpu_any_seat.sh
set -e
: "${OUT:?}" "${DEADLINE:=540}" "${WORK:=/tmp/cf_any_seat}" "${PY:=python3}"
t0=$(date +%s)
mkdir -p "$OUT"
if [ "${SCALE:-}" = tiny ]; then
  ARGS="--scale tiny --workers 2"
else
  ARGS="--scale full"
fi
"$PY" -m lab.training.gpu_any_seat --out "$OUT" --work "$WORK" --deadline "$DEADLINE" $ARGS \
  > "$OUT/train.log" 2>&1 || { tail -n 30 "$OUT/train.log"; exit 1; }
grep -v '^ *[0-9]*/[0-9]*' "$OUT/train.log" | tail -n 12
ls -l "$OUT"
echo "done in $(( $(date +%s) - t0 )) s"
