#!/usr/bin/env python3
"""The shared library LIB exports exactly the functions HEADER declares with MCPIDLC_API."""
import re
import subprocess
import sys

lib, header = sys.argv[1], sys.argv[2]
out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True, capture_output=True, text=True).stdout
exported = set()
for line in out.splitlines():
    parts = line.split()
    if len(parts) == 3 and parts[1] in "TtWwDdBbRr" and not parts[2].startswith("_"):
        exported.add(parts[2].split("@")[0])
text = "\n".join(l for l in open(header).read().splitlines() if not l.lstrip().startswith("#"))
declared = set(re.findall(r"MCPIDLC_API(?:\s+MCPIDLC_NODISCARD)?\s+[\w\s\*]*?\b(\w+)\s*\(", text))
if not declared:
    sys.exit("no MCPIDLC_API function found in %s" % header)
extra, missing = sorted(exported - declared), sorted(declared - exported)
for name in extra:
    print("exported but not declared in the header: %s" % name)
for name in missing:
    print("declared in the header but not exported: %s" % name)
print("%d functions declared, %d exported" % (len(declared), len(exported)))
sys.exit(1 if extra or missing else 0)
