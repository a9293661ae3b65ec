#!/bin/bash
# A short closed-loop run of counterattack-load against a fresh counterattackd on
# loopback: every order acknowledged, no error, no desync (the tool exits 1 on either).
# Usage: smoke.sh COUNTERATTACKD COUNTERATTACK_LOAD GAMES
set -euo pipefail
server=$1 load=$2 games=$3
dir=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
"$server" --listen 127.0.0.1:0 --data-dir "$dir" > "$dir/server.log" 2>&1 &
pid=$!
address=
for _ in $(seq 300); do
  address=$(sed -n 's/.*listening on \([0-9.]*:[0-9]*\).*/\1/p' "$dir/server.log" | head -1)
  [ -n "$address" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$dir/server.log"; exit 1; }
  sleep 0.1
done
[ -n "$address" ] || { echo "the server did not say where it listens"; cat "$dir/server.log"; exit 1; }
"$load" --server "wss://$address" --insecure --games "$games" --seconds 3 --echo-seconds 0.5
