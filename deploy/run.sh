#!/usr/bin/env bash
# Builds the programs (release) and runs the simulator: 100 random complete
# games with every invariant checked. Extra arguments go to counterattack-sim.
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" --target counterattack-sim
if [ $# -eq 0 ]; then set -- playout --games 100 --seed 1; fi
exec ./build/engine/sim/counterattack-sim "$@"
