#!/usr/bin/env python3
"""Extracts the documentation's Swift samples marked for Apple platforms
(`<!-- check-docs: apple -->` on the line before a ```swift fence, the
marker scripts/check-docs skips where Apple's frameworks are missing), one
file per sample, for scripts/typecheck-apple to type-check against the
stand-ins: a renamed Apple-layer API then fails CI.

Each sample is a complete file, top-level code allowed, as check-docs
compiles it. A sample that imports a module this check does not have (a
trait-gated product such as AuthFlowMCP) is listed on stderr, not checked.
A `// from <document>:<line>` line is written first so a diagnostic can be
traced back to the sample.

Usage: doc_snippets.py OUT FILE.md...   (prints the number of samples written)
"""
import os
import re
import sys

MARKER = re.compile(r"^\s*<!--\s*check-docs:\s*apple\s*-->\s*$")
IMPORT = re.compile(r"^\s*(?:@\w+\s+)*(?:public |package |internal )?import\s+(\w+)")
AVAILABLE = {
    "AuthFlow", "AuthFlowApple", "Foundation", "SwiftUI", "UIKit", "AppKit", "AuthenticationServices",
    "Security", "CryptoKit", "LocalAuthentication", "Observation", "Logging",
}


def samples(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    for i, line in enumerate(lines):
        if not MARKER.match(line):
            continue
        if i + 1 >= len(lines) or lines[i + 1].strip() != "```swift":
            sys.exit(f"{path}:{i + 1}: a check-docs: apple marker must be followed by a ```swift block")
        end = i + 2
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        if end == len(lines):
            sys.exit(f"{path}:{i + 1}: the marked swift block is not closed")
        yield i + 1, lines[i + 2:end]


def main():
    out, files = sys.argv[1], sys.argv[2:]
    os.makedirs(out, exist_ok=True)
    count = 0
    for path in files:
        name = re.sub(r"[^A-Za-z0-9]+", "-", os.path.splitext(path)[0]).strip("-")
        for line, code in samples(path):
            missing = sorted({m.group(1) for m in map(IMPORT.match, code) if m} - AVAILABLE)
            if missing:
                print(f"{path}:{line}: not checked here (imports {', '.join(missing)})", file=sys.stderr)
                continue
            with open(os.path.join(out, f"{name}-{line}.swift"), "w", encoding="utf-8") as f:
                f.write(f"// from {path}:{line}\n" + "\n".join(code) + "\n")
            count += 1
    print(count)


if __name__ == "__main__":
    main()
