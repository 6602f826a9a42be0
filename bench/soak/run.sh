#!/usr/bin/env bash
# bench/soak/run.sh: the soak test (bench/README.md, "Soak"). Not part of CI.
#
#   bench/soak/run.sh [--stdio-calls N] [--http-calls N] [--conns N] [--sanitize]
#
# Builds the soak server (soak.mcp.yaml, one tool) and the driver (driver.c) into
# bench/soak/out/build (Release; --sanitize: ASan+UBSan into out/build-asan, and
# a tenth of the calls by default), then sends 1,000,000 tools/call over stdio
# and 200,000 over Streamable HTTP with 32 keep-alive connections, each with its
# own session. Every answer is checked (one per request, its id, its own
# structuredContent); the server's RSS is sampled after a 10,000-call warm-up,
# every tenth of the run and at the end. Prints a Markdown table; the raw
# figures are in out/soak.jsonl. Exit status 1 when an answer was missing,
# duplicated or wrong, or the server did not exit cleanly.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="$HERE/out"
STDIO_CALLS=1000000
HTTP_CALLS=200000
CONNS=32
SANITIZE=0
while [ $# -gt 0 ]; do
  case "$1" in
    --stdio-calls) STDIO_CALLS="$2"; shift 2 ;;
    --http-calls) HTTP_CALLS="$2"; shift 2 ;;
    --conns) CONNS="$2"; shift 2 ;;
    --sanitize) SANITIZE=1; STDIO_CALLS=100000; HTTP_CALLS=20000; shift ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "soak: unknown option $1" >&2; exit 2 ;;
  esac
done

mkdir -p "$OUT"
if [ "$SANITIZE" = 1 ]; then
  BUILD="$OUT/build-asan"
  CONFIG=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DMCPIDL_SANITIZE=ON)
  # Leaks of the server are errors at its exit (status 99).
  # A small quarantine: freed memory held back by ASan would otherwise read as growth.
  export ASAN_OPTIONS="detect_leaks=1:exitcode=99:quarantine_size_mb=4"
else
  BUILD="$OUT/build"
  CONFIG=(-DCMAKE_BUILD_TYPE=Release)
fi
echo "soak: building in ${BUILD#$HERE/}" >&2
cmake -S "$HERE" -B "$BUILD" "${CONFIG[@]}" -DMCPIDL_WERROR=OFF >"$OUT/build.log" 2>&1 \
  || { cat "$OUT/build.log" >&2; exit 1; }
cmake --build "$BUILD" -j2 --target soak-server soak-driver >>"$OUT/build.log" 2>&1 \
  || { tail -40 "$OUT/build.log" >&2; exit 1; }

RAW="$OUT/soak.jsonl"
: >"$RAW"
status=0
echo "soak: $STDIO_CALLS calls over stdio" >&2
"$BUILD/soak-driver" stdio "$STDIO_CALLS" "$BUILD/soak-server" >>"$RAW" || status=1
echo "soak: $HTTP_CALLS calls over HTTP, $CONNS connections" >&2
SOAK_CONNS="$CONNS" "$BUILD/soak-driver" http "$HTTP_CALLS" "$BUILD/soak-server" \
  --max-sessions $((CONNS + 8)) >>"$RAW" || status=1

python3 - "$RAW" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print("| transport | calls | conns | calls/s | answered | missing | duplicated | wrong | RSS after warm-up | RSS at end | growth | peak (VmHWM) | server exit |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for r in rows:
    rss = r["rss_kib"]
    start, end = (rss[0][1], rss[-1][1]) if rss else (0, 0)
    print(f"| {r['mode']} | {r['calls']:,} | {r['conns']} | {r['calls_per_s']:,.0f} | {r['answered']:,} | "
          f"{r['missing']} | {r['duplicated']} | {r['wrong']} | {start/1024:.1f} MiB | {end/1024:.1f} MiB | "
          f"{(end-start)/1024:+.1f} MiB | {r['hwm_kib']/1024:.1f} MiB | {r['server_exit']} |")
print()
for r in rows:
    print(f"{r['mode']} RSS (MiB) by answers: " + ", ".join(f"{c:,}: {k/1024:.1f}" for c, k in r["rss_kib"]))
PY
exit $status
