#!/usr/bin/env python3
"""Prints the swiftc flags that a package manifest gives one target.

Reads the JSON of `swift package dump-package` (a file, or - for stdin) and
prints, one per line, the flags SwiftPM passes to the compiler for the
target's Swift settings as an Apple platform sees them: upcoming and
experimental features, `define`s, `unsafeFlags`, the language mode, strict
memory safety. A setting with a platform condition applies only when it names
the platform; a setting with a configuration or trait condition, or a kind
this script does not know, stops it (exit 2) instead of being dropped, so a
new setting in the manifest cannot silently escape the type-check.

Usage: manifest_flags.py DUMP.json TARGET PLATFORM
"""
import json
import sys

# dump-package's platform names for the passes of scripts/typecheck-apple.
PLATFORM_NAMES = {
    "iOS": {"ios"}, "macCatalyst": {"maccatalyst", "ios"}, "macOS": {"macos"},
    "tvOS": {"tvos"}, "watchOS": {"watchos"}, "visionOS": {"visionos"},
}


def fail(message):
    print(f"manifest_flags.py: {message}", file=sys.stderr)
    sys.exit(2)


def applies(setting, platform):
    condition = setting.get("condition")
    if not condition:
        return True
    if condition.get("config") or condition.get("traits"):
        fail(f"a setting with a configuration or trait condition is not modelled: {json.dumps(setting)}")
    names = {name.lower() for name in condition.get("platformNames", [])}
    return bool(names & PLATFORM_NAMES[platform])


def flags_of(kind):
    (name, value), = kind.items()
    argument = value.get("_0") if isinstance(value, dict) else None
    if name == "enableUpcomingFeature":
        return ["-enable-upcoming-feature", argument]
    if name == "enableExperimentalFeature":
        return ["-enable-experimental-feature", argument]
    if name == "define":
        return ["-D", argument]
    if name == "unsafeFlags":
        return list(argument)
    if name == "swiftLanguageMode":
        return ["-swift-version", str(argument)]
    if name == "strictMemorySafety":
        return ["-strict-memory-safety"]
    fail(f"unknown Swift setting {name!r}: add it to AppleStandIns/tools/manifest_flags.py")


def main():
    if len(sys.argv) != 4:
        fail("usage: manifest_flags.py DUMP.json TARGET PLATFORM")
    path, target_name, platform = sys.argv[1:]
    if platform not in PLATFORM_NAMES:
        fail(f"unknown platform {platform}")
    manifest = json.load(sys.stdin if path == "-" else open(path))
    targets = [t for t in manifest["targets"] if t["name"] == target_name]
    if not targets:
        fail(f"the manifest has no target {target_name}")
    flags = []
    modes = manifest.get("swiftLanguageModes") or manifest.get("swiftLanguageVersions") or []
    if modes:
        flags += ["-swift-version", str(modes[-1])]
    for setting in targets[0].get("settings", []):
        if setting.get("tool") != "swift" or not applies(setting, platform):
            continue
        flags += flags_of(setting["kind"])
    print("\n".join(flags))


if __name__ == "__main__":
    main()
