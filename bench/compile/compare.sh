#!/usr/bin/env bash
# mcpidlc against protoc-c on the same-sized input: the generators' run time, and
# gcc -O2 compile time and object size of what each generates.
#
# usage: bench/compile/compare.sh [MCPIDLC]
# Environment: RUNS (default 5), TOOLS, TYPES, SEED, CLUSTER (as run.sh), CC (default gcc).
# Needs protoc-c and the protobuf-c headers: Debian's protobuf-c-compiler and
# libprotobuf-c-dev, which it installs with apt-get when they are missing.
#
# A benchmark, not a test: it prints figures and has no thresholds.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mcpidlc=${1:-$root/build/compiler/mcpidlc}
runs=${RUNS:-5}
tools=${TOOLS:-1000}
types=${TYPES:-1000}
seed=${SEED:-1}
cluster=${CLUSTER:-20}
cc=${CC:-gcc}

if [ ! -x "$mcpidlc" ]; then
    echo "compare.sh: no compiler at '$mcpidlc'; build it (cmake --build build) or pass its path" >&2
    exit 2
fi
mcpidlc=$(cd "$(dirname "$mcpidlc")" && pwd)/$(basename "$mcpidlc")

if ! command -v protoc-c > /dev/null || ! pkg-config --exists libprotobuf-c 2> /dev/null; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO=sudo
    if command -v apt-get > /dev/null; then
        echo "compare.sh: installing protobuf-c-compiler libprotobuf-c-dev pkg-config" >&2
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
            protobuf-c-compiler libprotobuf-c-dev pkg-config > /dev/null
    else
        echo "compare.sh: needs protoc-c and libprotobuf-c (Debian: protobuf-c-compiler libprotobuf-c-dev)" >&2
        exit 2
    fi
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
idl=$work/bench.mcp.yaml
proto=$work/bench.proto
python3 "$here/gen.py" --tools "$tools" --types "$types" --seed "$seed" --cluster "$cluster" \
    --proto "$proto" > "$idl"
mkdir -p "$work/mcp" "$work/pb" "$work/obj"

echo "compiler:   mcpidlc ($("$mcpidlc" --version 2>/dev/null | head -1), a build of this tree)"
echo "            $(protoc-c --version | tr '\n' ' ')"
echo "            $("$cc" --version | head -1)"
echo "input:      $tools tools, $types types (seed $seed, cluster $cluster)"
echo "            IDL $(wc -l < "$idl") lines, $(wc -c < "$idl") bytes; .proto $(wc -l < "$proto") lines, $(wc -c < "$proto") bytes"
echo "machine:    $(nproc 2>/dev/null || echo '?') CPUs, $(uname -sm), load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
echo

python3 - "$work" "$runs" "$mcpidlc" "$root/lib/include" "$cc" \
    "$(pkg-config --cflags libprotobuf-c)" <<'PY'
import os, shlex, statistics, subprocess, sys, time

work, runs, mcpidlc, libinc, cc, pbflags = sys.argv[1:7]
runs = int(runs)
idl, proto = work + "/bench.mcp.yaml", work + "/bench.proto"

def measure(argv, may_fail=False):
    """(wall, cpu) lists over `runs` runs, after one warm-up run; None when a run
    that may fail does (the first error messages are then printed)."""
    walls, cpus = [], []
    for i in range(runs + 1):
        t0 = time.perf_counter()
        with open(os.devnull, "wb") as null:
            p = subprocess.Popen(argv, stdout=null, stderr=subprocess.PIPE if may_fail else None)
            err = p.stderr.read() if may_fail else b""
            _, status, usage = os.wait4(p.pid, 0)
        t1 = time.perf_counter()
        if os.waitstatus_to_exitcode(status) != 0 and may_fail:
            lines = [l for l in err.decode(errors="replace").splitlines() if "error:" in l]
            print("compare.sh: %s fails with %d errors, the first:" % (argv[-3], len(lines)))
            print("\n".join("    " + l.replace(work + "/", "") for l in lines[:3]) + "\n")
            return None
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit("compare.sh: failed: %s" % " ".join(argv))
        if i:
            walls.append(t1 - t0)
            cpus.append(usage.ru_utime + usage.ru_stime)
    return walls, cpus

def size(obj):
    out = subprocess.run(["size", obj], capture_output=True, text=True, check=True).stdout
    f = out.splitlines()[1].split()
    return int(f[0]) + int(f[1])  # text + data

rows = {}
rows["mcpidlc --emit=c"] = measure([mcpidlc, "--emit=c", "-o", work + "/mcp", idl])
rows["mcpidlc --print-tools"] = measure([mcpidlc, "--print-tools", idl])
rows["protoc-c --c_out"] = measure(["protoc-c", "--c_out=" + work + "/pb",
                                    "--proto_path=" + work, proto])
mc, pc = work + "/mcp/bench.mcp.c", work + "/pb/bench.pb-c.c"
mo, po = work + "/obj/bench.mcp.o", work + "/obj/bench.pb-c.o"
rows["gcc -O2 -c bench.mcp.c"] = measure([cc, "-O2", "-c", "-I", libinc, "-I", work + "/mcp", mc, "-o", mo], True)
rows["gcc -O2 -c bench.pb-c.c"] = measure([cc, "-O2", "-c"] + shlex.split(pbflags)
                                          + ["-I", work + "/pb", pc, "-o", po])

def fmt(xs):
    return "%.2f s (%.2f - %.2f)" % (statistics.median(xs), min(xs), max(xs))

print("| step (%d runs each) | wall, median (min - max) | CPU, median (min - max) |" % runs)
print("|---|---|---|")
rows = {k: v or (None, None) for k, v in rows.items()}
for k, (w, c) in rows.items():
    print("| %s | %s | %s |" % (k, fmt(w), fmt(c)) if w else "| %s | does not compile | |" % k)
print()
kb = lambda p: os.path.getsize(p) / 1024.0
print("| generated C | source | object text+data |")
print("|---|---|---|")
rows = {k: v or (None, None) for k, v in rows.items()}
mosize = size(mo) / 1024.0 if os.path.exists(mo) else None
print("| bench.mcp.c + .h (mcpidlc) | %.0f KB + %.0f KB | %s |" % (kb(mc), kb(work + "/mcp/bench.mcp.h"),
      "%.0f KB" % mosize if mosize else "-"))
print("| bench.pb-c.c + .h (protoc-c) | %.0f KB + %.0f KB | %.0f KB |" % (kb(pc), kb(work + "/pb/bench.pb-c.h"), size(po) / 1024.0))
print()
med = lambda k, i: statistics.median(rows[k][i]) if rows[k][i] else float("nan")
for name, a, b in [("mcpidlc --emit=c / protoc-c", "mcpidlc --emit=c", "protoc-c --c_out"),
                   ("mcpidlc --print-tools / protoc-c", "mcpidlc --print-tools", "protoc-c --c_out"),
                   ("gcc -O2: bench.mcp.c / bench.pb-c.c", "gcc -O2 -c bench.mcp.c", "gcc -O2 -c bench.pb-c.c")]:
    print("ratio %-38s wall %.2f, CPU %.2f" % (name, med(a, 0) / med(b, 0), med(a, 1) / med(b, 1)))
if mosize:
    print("ratio %-38s %.2f" % ("object size mcp / pb-c", size(mo) / size(po)))
PY
