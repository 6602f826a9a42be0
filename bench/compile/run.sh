#!/usr/bin/env bash
# The compile benchmark: how long mcpidlc takes, and how much memory it uses, to
# check a large IDL and print its tools (mcpidlc --print-tools).
#
# usage: bench/compile/run.sh [MCPIDLC]
#   MCPIDLC  the compiler to measure (default: build/compiler/mcpidlc of the project)
# Environment: RUNS (default 10), TOOLS and TYPES (default 1000 each), SEED (default 1),
# CLUSTER (default 20; see gen.py); COMPARE=0 skips the comparison with protoc-c
# (compare.sh, COMPARE_RUNS runs each, default 5).
#
# A benchmark, not a test: it prints figures and has no thresholds.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mcpidlc=${1:-$root/build/compiler/mcpidlc}
runs=${RUNS:-10}
tools=${TOOLS:-1000}
types=${TYPES:-1000}
seed=${SEED:-1}
cluster=${CLUSTER:-20}

if [ ! -x "$mcpidlc" ]; then
    echo "run.sh: no compiler at '$mcpidlc'; build it (cmake --build build) or pass its path" >&2
    exit 2
fi
mcpidlc=$(cd "$(dirname "$mcpidlc")" && pwd)/$(basename "$mcpidlc")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
idl=$work/bench.mcp.yaml
python3 "$here/gen.py" --tools "$tools" --types "$types" --seed "$seed" --cluster "$cluster" > "$idl"

# The input must compile cleanly, or the figures would measure an error path.
if ! "$mcpidlc" --check "$idl" 2> "$work/diagnostics"; then
    echo "run.sh: the generated IDL does not compile:" >&2
    head -20 "$work/diagnostics" >&2
    exit 1
fi

echo "compiler:   mcpidlc ($("$mcpidlc" --version 2>/dev/null | head -1), a build of this tree)"
echo "input:      $tools tools, $types types (seed $seed, cluster $cluster): $(wc -l < "$idl") lines, $(wc -c < "$idl") bytes"
echo "output:     $("$mcpidlc" --print-tools "$idl" | wc -c) bytes of tools/list JSON"
echo "machine:    $(nproc 2>/dev/null || echo '?') CPUs, $(uname -sm)"

if command -v hyperfine > /dev/null; then
    echo
    hyperfine --warmup 2 --runs "$runs" --export-json "$work/hyperfine.json" \
        "'$mcpidlc' --print-tools '$idl' > /dev/null"
fi

# Wall time (when hyperfine is missing), CPU time and peak RSS of each run, measured
# from Python: perf_counter around the run, and the child's own rusage from wait4.
# CPU time (user + system) is the figure least disturbed by other work on the machine.
python3 - "$mcpidlc" "$idl" "$runs" "$work/hyperfine.json" <<'EOF'
import json, os, statistics, subprocess, sys, time

mcpidlc, idl, runs, hf = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
walls, cpus, rss = [], [], []
for i in range(runs + 1):  # the first run warms the caches and is not counted
    t0 = time.perf_counter()
    with open(os.devnull, "wb") as null:
        p = subprocess.Popen([mcpidlc, "--print-tools", idl], stdout=null)
        _, status, usage = os.wait4(p.pid, 0)
    t1 = time.perf_counter()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit("run.sh: mcpidlc exited with status %d" % p.returncode)
    if i:
        walls.append(t1 - t0)
        cpus.append(usage.ru_utime + usage.ru_stime)
        rss.append(usage.ru_maxrss / 1024.0)  # KiB on Linux

print()
if os.path.exists(hf):
    times = json.load(open(hf))["results"][0]["times"]
    print("wall time (hyperfine, %d runs): median %.3f s, min %.3f s, max %.3f s"
          % (len(times), statistics.median(times), min(times), max(times)))
else:
    print("wall time (%d runs): median %.3f s, min %.3f s, max %.3f s"
          % (runs, statistics.median(walls), min(walls), max(walls)))
print("CPU time  (%d runs): median %.3f s, min %.3f s, max %.3f s (user + system)"
      % (runs, statistics.median(cpus), min(cpus), max(cpus)))
print("peak RSS  (%d runs): median %.1f MiB, max %.1f MiB" % (runs, statistics.median(rss), max(rss)))
EOF

# Against protoc-c on the equivalent .proto (compare.sh; about 5 minutes, most of it
# gcc on protoc-c's output). COMPARE=0 leaves it out.
if [ "${COMPARE:-1}" != 0 ]; then
    echo
    RUNS=${COMPARE_RUNS:-5} "$here/compare.sh" "$mcpidlc"
fi
