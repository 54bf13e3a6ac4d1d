#!/usr/bin/env python3
"""Rewrites Swift sources so that a Linux swiftc sees them as one Apple platform sees them.

Used by scripts/typecheck-apple. Linux swiftc cannot target Apple platforms (no
Apple standard library or SDK here), so for each emulated platform:

* the rewritten copy keeps every line where it was, so diagnostics name the
  original file (relative path) and line;
* `os(NAME)` and `targetEnvironment(NAME)` inside `#if`/`#elseif` become
  compilation conditions (`AUTHFLOW_OS_NAME`, `AUTHFLOW_TARGET_NAME`) that the
  script defines for the platform being checked;
* `@available(...)` and `#available(...)`/`#unavailable(...)` naming Apple
  platforms become Swift's custom availability domains (experimental feature
  CustomAvailability): every version of the platform above the deployment
  target is a *dynamic* domain `AF_<platform>_<major>_<minor>`, so the
  compiler's own flow-sensitive availability checking applies: using a
  declaration introduced after the deployment target without an
  `if #available` check (or an enclosing `@available`) is an error, exactly as
  on the platform. Declarations marked unavailable on the platform become
  `@available(*, unavailable)`. A declaration of version V needs every
  domain above the deployment target up to V, and an `#available` check for
  V grants the same chain, so code in a V context may use older declarations.
  Inside an enclosing scope that already guarantees part of the chain the
  compiler warns "unnecessary check" for those parts; scripts/typecheck-apple
  ignores that one warning (so a truly unnecessary check is not reported).

Any `@available` form it does not understand is an error, so nothing is
silently dropped.
"""
import argparse
import os
import re
import sys

PLATFORMS = ["iOS", "macCatalyst", "macOS", "tvOS", "watchOS", "visionOS"]
EXTENSION_PLATFORMS = {p + "ApplicationExtension" for p in PLATFORMS}
KNOWN = set(PLATFORMS) | EXTENSION_PLATFORMS | {"swift"}

ATTR = re.compile(r"@available\(([^()]*)\)")
COND = re.compile(r"#(available|unavailable)\(([^()]*)\)")
IF_LINE = re.compile(r"^\s*#(if|elseif)\b")
OS_COND = re.compile(r"\bos\((\w+)\)")
TARGET_COND = re.compile(r"\btargetEnvironment\((\w+)\)")


def version_key(text):
    parts = [int(p) for p in text.split(".")]
    while len(parts) < 2:
        parts.append(0)
    return tuple(parts[:2])


def domain(platform, version):
    return "AF_%s_%d_%d" % (platform, version[0], version[1])


class Rewriter:
    def __init__(self, platform, deployment):
        self.platform = platform
        self.deployment = version_key(deployment)
        self.thresholds = set()

    def lookup(self, entries):
        """The version this platform gets from a short-form list; None if not listed."""
        if self.platform == "macCatalyst" and "macCatalyst" in entries:
            return entries["macCatalyst"]
        if self.platform == "macCatalyst":
            return entries.get("iOS")
        return entries.get(self.platform)

    def parse_short(self, args, where):
        entries, star = {}, False
        for item in [a.strip() for a in args.split(",")]:
            if item == "*":
                star = True
                continue
            match = re.fullmatch(r"(\w+)\s+(\d+(?:\.\d+){0,2})", item)
            if not match or match.group(1) not in KNOWN:
                raise SystemExit("%s: unsupported availability item %r" % (where, item))
            entries[match.group(1)] = version_key(match.group(2))
        return entries, star

    def collect(self, text, where):
        for args in ATTR.findall(text) + [m[1] for m in COND.findall(text)]:
            first = args.split(",")[0].strip()
            if first == "*" or "unavailable" in args or ":" in args:
                continue
            entries, _ = self.parse_short(args, where)
            version = self.lookup(entries)
            if version and version > self.deployment:
                self.thresholds.add(version)

    def needed(self, version):
        """Domains a declaration of `version` needs: every threshold above the deployment target up to it."""
        return [domain(self.platform, v) for v in sorted(self.thresholds) if self.deployment < v <= version]

    def attribute(self, match, where):
        args = match.group(1)
        items = [a.strip() for a in args.split(",")]
        head = items[0]
        if head == "*":
            return match.group(0)
        if head in KNOWN and len(items) >= 2 and not re.match(r"\d", items[1]):
            # Long form: only `unavailable` and deprecation notes are understood.
            if items[1] == "unavailable":
                applies = head == self.platform or (self.platform == "macCatalyst" and head == "iOS")
                return "@available(*, unavailable)" if applies else ""
            if items[1].startswith("deprecated") or items[1].startswith("message"):
                return ""
            raise SystemExit("%s: unsupported @available form %r" % (where, match.group(0)))
        entries, star = self.parse_short(args, where)
        version = self.lookup(entries)
        if version is None:
            return "" if star else "@available(*, unavailable)"
        return " ".join("@available(%s)" % d for d in self.needed(version))

    def condition(self, match, where):
        kind, args = match.group(1), match.group(2)
        entries, star = self.parse_short(args, where)
        version = self.lookup(entries)
        if version is None and not star:
            raise SystemExit("%s: #%s without * does not name %s" % (where, kind, self.platform))
        domains = self.needed(version) if version else []
        if not domains:
            return "#%s(AF_ALWAYS)" % kind
        if kind == "available":
            # The whole chain, so that older declarations above the deployment
            # target are usable inside the check too.
            return ", ".join("#available(%s)" % d for d in domains)
        return "#unavailable(%s)" % domains[-1]

    def rewrite(self, text, where):
        out = []
        for number, line in enumerate(text.split("\n"), 1):
            here = "%s:%d" % (where, number)
            if IF_LINE.match(line):
                line = OS_COND.sub(lambda m: "AUTHFLOW_OS_" + m.group(1), line)
                line = TARGET_COND.sub(lambda m: "AUTHFLOW_TARGET_" + m.group(1), line)
            line = ATTR.sub(lambda m: self.attribute(m, here), line)
            line = COND.sub(lambda m: self.condition(m, here), line)
            out.append(line)
        return "\n".join(out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--platform", required=True, choices=PLATFORMS)
    parser.add_argument("--deployment", required=True)
    parser.add_argument("--out", required=True, help="directory for the rewritten files")
    parser.add_argument("--domains", required=True, help="file to write the dynamic domain names to")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    rewriter = Rewriter(args.platform, args.deployment)
    texts = {}
    for path in args.files:
        with open(path, encoding="utf-8") as handle:
            texts[path] = handle.read()
        rewriter.collect(texts[path], path)
    for path, text in texts.items():
        target = os.path.join(args.out, os.path.relpath(path))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8") as handle:
            handle.write(rewriter.rewrite(text, path))
    with open(args.domains, "w", encoding="utf-8") as handle:
        for version in sorted(rewriter.thresholds):
            if version > rewriter.deployment:
                handle.write(domain(args.platform, version) + "\n")


if __name__ == "__main__":
    sys.exit(main())
