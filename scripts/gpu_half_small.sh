#!/bin/sh
# A lent-GPU call: the committed half reader fine-tuned on many more ends of the big
# sets' small tiles (BIG_SMALL_SCENES) beside random, big-set and hue-coded scenes, so nothing
# else is unlearnt. Two learning rates side by side on one GPU (the network is tiny: each run
# alone leaves the GPU mostly idle); both come back and are measured on this machine's CPU.
#   run on the device:  OUT=... DEADLINE=560 sh scripts/gpu_half_small.sh
# A tiny local check:   OUT=/tmp/x DEADLINE=200 SCALE=tiny sh scripts/gpu_half_small.sh
set -e
: "${OUT:?}" "${DEADLINE:=560}" "${WORK:=/tmp/cf_gpu_small}"
t0=$(date +%s)
if [ "${SCALE:-}" = tiny ]; then
  SCENES="--hands 6 --tables 3 --big-scale 0.01 --hue-scale 0.004 --big-small-scale 0.006 --workers 2"
else
  SCENES="--hands 1000 --tables 500 --big-scale 0.5 --hue-scale 0.7 --big-small-scale 0.8"
fi
ARGS="--work $WORK --seed 331 --no-windows $SCENES"
python3 -m lab.training.gpu_half --out "$OUT/prep" $ARGS --prepare-only
left=$(( DEADLINE - ($(date +%s) - t0) ))
echo "prepared in $(( $(date +%s) - t0 )) s; $left s left for training"
python3 -m lab.training.gpu_half --out "$OUT/lr1e-3" $ARGS --init models/half_reader.onnx --lr 1e-3 \
  --deadline "$left" > "$OUT/lr1e-3.log" 2>&1 &
python3 -m lab.training.gpu_half --out "$OUT/lr3e-4" $ARGS --init models/half_reader.onnx --lr 3e-4 \
  --deadline "$left" > "$OUT/lr3e-4.log" 2>&1 &
wait
tail -n 4 "$OUT"/*.log
echo "done in $(( $(date +%s) - t0 )) s"
