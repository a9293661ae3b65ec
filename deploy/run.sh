#!/usr/bin/env bash
# Builds the four programs (optimised, with debug symbols) and starts the server, counterattackd, on its
# embedded default: wss://127.0.0.1:8443, data in ./data (a self-signed
# certificate is made there on first start). Extra arguments go to
# counterattackd (--listen ADDR:PORT, --data-dir DIR, --config FILE, --plain).
# Relative paths in them, and the default ./data, are taken from where it is run.
set -euo pipefail
here="$(pwd)"
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
bash deploy/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" --target counterattackd counterattack counterattack-sim counterattack-load
cd "$here"
exec "$repo/build/server/counterattackd" "$@"
