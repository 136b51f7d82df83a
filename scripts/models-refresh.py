#!/usr/bin/env python3
"""Writes emulator/models/ (the AWS service models the emulator's tables are made from)
from a botocore, or reports how the carried models differ from one.

    scripts/models-refresh.py [--botocore DIR] [--force]   rewrite emulator/models/
    scripts/models-refresh.py --check [--botocore DIR]      report differences only

DIR is a botocore package directory (the one holding data/); without it, the botocore
this python3 imports. Each emulator/models/<service>.json is botocore's service-2.json
trimmed to what the build needs: version, metadata, the operations the emulator serves
(every operation for autoscaling, elb, elbv2, cloudwatch and sts; the EC2 list below), every shape
reachable from them and every error shape, without the documentation strings. Objects
are written with sorted keys, except a structure's members, whose order is the model's
(the order replies carry). emulator/models/SOURCE records the botocore version, the
files, the date and the command. The build (scripts/gen-models.py) reads only
emulator/models/; this script is never on the build path.

Refresh refuses a botocore older than the one SOURCE records unless --force. --check
never changes a file and always exits 0: what it prints is information for review.
"""
import datetime
import gzip
import hashlib
import json
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
MODELS = os.path.join(ROOT, "emulator", "models")

SERVICES = [
    # (file name, botocore dir, API version, operations: None = all)
    ("autoscaling", "autoscaling", "2011-01-01", None),
    ("elb", "elb", "2012-06-01", None),
    ("elbv2", "elbv2", "2015-12-01", None),
    ("cloudwatch", "cloudwatch", "2010-08-01", None),
    ("ec2", "ec2", "2016-11-15", [
        "DescribeInstances", "DescribeInstanceStatus", "RunInstances", "TerminateInstances",
        "StopInstances", "StartInstances",
        "DescribeAvailabilityZones", "DescribeImages", "DescribeInstanceTypes",
        "CreateLaunchTemplate", "DescribeLaunchTemplates", "DeleteLaunchTemplate",
        "CreateLaunchTemplateVersion", "DescribeLaunchTemplateVersions",
        "CreateVpc", "DescribeVpcs", "CreateSubnet", "DescribeSubnets",
        "DescribeSecurityGroups", "CreateSecurityGroup", "DeleteSecurityGroup",
        "AuthorizeSecurityGroupIngress", "AuthorizeSecurityGroupEgress",
        "RevokeSecurityGroupIngress", "RevokeSecurityGroupEgress", "DescribeNetworkInterfaces",
        "CreateTags", "DescribeTags", "DeleteTags",
    ]),
    # every STS operation: GetCallerIdentity is served, the others answer NotImplemented
    ("sts", "sts", "2011-06-15", None),
]

DOC_KEYS = ("documentation", "documentationUrl")


def find_botocore(arg):
    """(package dir, version) of the botocore named by arg, else the importable one;
    None when there is none."""
    if arg:
        init = os.path.join(arg, "__init__.py")
        if not os.path.isdir(os.path.join(arg, "data")) or not os.path.exists(init):
            sys.exit("models-refresh: %s is not a botocore package directory" % arg)
        with open(init, encoding="utf-8") as f:
            m = re.search(r"""^__version__\s*=\s*['"]([^'"]+)['"]""", f.read(), re.M)
        return os.path.abspath(arg), m.group(1) if m else "unknown"
    try:
        import botocore
    except ImportError:
        return None
    return os.path.dirname(os.path.abspath(botocore.__file__)), botocore.__version__


def notice_line(pkg, version):
    """botocore's copyright line, from its NOTICE when the installation has one."""
    for path in (os.path.join(os.path.dirname(pkg), "botocore-%s.dist-info" % version, "NOTICE"),
                 "/usr/share/doc/python3-botocore/NOTICE"):
        try:
            with open(path, encoding="utf-8") as f:
                for line in f:
                    if line.startswith("Copyright"):
                        return line.strip()
        except OSError:
            pass
    return "Copyright Amazon.com, Inc. or its affiliates. All Rights Reserved."


def version_key(v):
    return tuple(int(p) if p.isdigit() else 0 for p in v.split("."))


def load_botocore_model(pkg, svc_dir, version):
    base = os.path.join(pkg, "data", svc_dir, version, "service-2.json")
    for path, opener in ((base + ".gz", gzip.open), (base, open)):
        if os.path.exists(path):
            with opener(path, "rb") as f:
                raw = f.read()
            rel = os.path.relpath(path, os.path.dirname(pkg))
            return json.loads(raw.decode("utf-8")), rel, hashlib.sha256(raw).hexdigest()
    return None, None, None


def sorted_deep(v):
    if isinstance(v, dict):
        return {k: sorted_deep(v[k]) for k in sorted(v) if k not in DOC_KEYS}
    if isinstance(v, list):
        return [sorted_deep(e) for e in v]
    return v


def clean_shape(s):
    out = {}
    for k in sorted(s):
        if k in DOC_KEYS:
            continue
        if k == "members":
            out[k] = {name: sorted_deep(ref) for name, ref in s[k].items()}  # model order
        else:
            out[k] = sorted_deep(s[k])
    return out


def trim(model, wanted):
    """The build's subset of model; returns (trimmed, names in wanted the model lacks)."""
    shapes = model["shapes"]
    ops = sorted(model["operations"]) if wanted is None else sorted(wanted)
    missing = [op for op in ops if op not in model["operations"]]
    ops = [op for op in ops if op in model["operations"]]
    keep = set()

    def visit(name):
        if name in keep:
            return
        keep.add(name)
        s = shapes[name]
        for m in s.get("members", {}).values():
            visit(m["shape"])
        for k in ("member", "key", "value"):
            if k in s:
                visit(s[k]["shape"])

    for op in ops:
        o = model["operations"][op]
        for k in ("input", "output"):
            if k in o:
                visit(o[k]["shape"])
        for e in o.get("errors", []):
            visit(e["shape"])
    for n, s in shapes.items():
        if "error" in s or s.get("exception"):
            visit(n)
    out = {
        "metadata": sorted_deep(model["metadata"]),
        "operations": {op: sorted_deep(model["operations"][op]) for op in ops},
        "shapes": {n: clean_shape(shapes[n]) for n in sorted(keep)},
        "version": model.get("version", "2.0"),
    }
    return out, missing


def dumps(doc):
    return json.dumps(doc, indent=1, separators=(",", ": "), ensure_ascii=True) + "\n"


def recorded_version():
    try:
        with open(os.path.join(MODELS, "SOURCE"), encoding="utf-8") as f:
            m = re.search(r"^botocore: (\S+)", f.read(), re.M)
    except OSError:
        return None
    return m.group(1) if m else None


def describe(carried, fresh):
    """Lines saying how carried (the file) differs from fresh (from botocore)."""
    lines = []
    cm, fm = carried.get("metadata", {}), fresh["metadata"]
    for k in sorted(set(cm) | set(fm)):
        if json.dumps(cm.get(k)) != json.dumps(fm.get(k)):
            lines.append("  metadata.%s: carried %s, botocore %s" % (
                k, json.dumps(cm[k]) if k in cm else "(none)",
                json.dumps(fm[k]) if k in fm else "(none)"))
    for what in ("operations", "shapes"):
        c, f = carried.get(what, {}), fresh[what]
        added = sorted(set(f) - set(c))
        removed = sorted(set(c) - set(f))
        # compared as text: dict equality would not see a change of member order
        changed = sorted(n for n in set(c) & set(f) if json.dumps(c[n]) != json.dumps(f[n]))
        for label, names in (("only in botocore", added), ("not in botocore", removed),
                             ("that differ", changed)):
            if names:
                shown = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
                lines.append("  %s %s (%d): %s" % (what, label, len(names), shown))
        if what != "shapes":
            continue
        for n in changed:
            cms, fms = list(c[n].get("members", {})), list(f[n].get("members", {}))
            if cms != fms and sorted(cms) == sorted(fms):
                lines.append("  shape %s: member order differs" % n)
    return lines


def main():
    args = sys.argv[1:]
    check = force = False
    pkg_arg = None
    while args:
        a = args.pop(0)
        if a == "--check":
            check = True
        elif a == "--force":
            force = True
        elif a == "--botocore" and args:
            pkg_arg = args.pop(0)
        elif a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        else:
            sys.stderr.write("models-refresh: unknown argument %s; try --help\n" % a)
            return 2
    found = find_botocore(pkg_arg)
    if not found:
        msg = "no botocore importable by %s" % sys.executable
        if check:
            print("models-check: %s; nothing to compare (the build reads emulator/models/ "
                  "only)" % msg)
            return 0
        sys.exit("models-refresh: %s (name one with --botocore DIR)" % msg)
    pkg, version = found

    if check:
        print("models-check: emulator/models/ (botocore %s) against botocore %s at %s" % (
            recorded_version() or "?", version, pkg))
        for name, svc_dir, api, wanted in SERVICES:
            model, _, _ = load_botocore_model(pkg, svc_dir, api)
            if model is None:
                print("%s: botocore %s has no %s %s model" % (name, version, svc_dir, api))
                continue
            fresh, missing = trim(model, wanted)
            try:
                with open(os.path.join(MODELS, name + ".json"), encoding="utf-8") as f:
                    carried = json.load(f)
            except (OSError, ValueError) as e:
                print("%s: cannot read the carried model (%s)" % (name, e))
                continue
            lines = describe(carried, fresh)
            for op in missing:
                lines.append("  operation %s: not in this botocore" % op)
            print("%s: %s" % (name, "differs:" if lines else "same"))
            for ln in lines:
                print(ln)
        return 0

    rec = recorded_version()
    if rec and version_key(version) < version_key(rec) and not force:
        sys.exit("models-refresh: botocore %s at %s is older than the carried %s "
                 "(use --force to write it anyway)" % (version, pkg, rec))
    rows, texts = [], {}
    for name, svc_dir, api, wanted in SERVICES:
        model, rel, digest = load_botocore_model(pkg, svc_dir, api)
        if model is None:
            sys.exit("models-refresh: botocore %s has no %s %s model" % (version, svc_dir, api))
        trimmed, missing = trim(model, wanted)
        if missing:
            sys.exit("models-refresh: botocore %s's %s has no operation %s" % (
                version, name, ", ".join(missing)))
        texts[name] = dumps(trimmed)
        rows.append("%s.json: %s sha256 %s (%d operations, %d shapes)" % (
            name, rel, digest, len(trimmed["operations"]), len(trimmed["shapes"])))

    os.makedirs(MODELS, exist_ok=True)
    changed = []
    for name, text in texts.items():
        path = os.path.join(MODELS, name + ".json")
        try:
            with open(path, encoding="utf-8") as f:
                same = f.read() == text
        except OSError:
            same = False
        if not same:
            with open(path + ".tmp", "w", encoding="ascii", newline="\n") as f:
                f.write(text)
            os.replace(path + ".tmp", path)
            changed.append(name + ".json")
    if not changed and rec == version:
        print("models-refresh: emulator/models/ already matches botocore %s" % version)
        return 0
    source = [
        "# emulator/models/: the AWS service models scripts/gen-models.py makes the emulator's",
        "# C tables from. Written by scripts/models-refresh.py (make models); do not edit.",
        "# The models are AWS's, from botocore, trimmed: the operations the emulator serves,",
        "# every shape reachable from them and every error shape, without documentation",
        "# strings; keys sorted, structure members in the model's order.",
        "# botocore: %s" % notice_line(pkg, version),
        "# License: Apache License 2.0, https://www.apache.org/licenses/LICENSE-2.0",
        "botocore: %s" % version,
        "date: %s" % datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
        "command: scripts/models-refresh.py%s (python %s)" % (
            " --botocore " + pkg_arg if pkg_arg else "", sys.version.split()[0]),
        "from: %s" % pkg,
    ] + rows
    with open(os.path.join(MODELS, "SOURCE.tmp"), "w", encoding="ascii", newline="\n") as f:
        f.write("\n".join(source) + "\n")
    os.replace(os.path.join(MODELS, "SOURCE.tmp"), os.path.join(MODELS, "SOURCE"))
    print("models-refresh: wrote emulator/models/ from botocore %s (%s changed); "
          "review with git diff" % (version, ", ".join(changed) or "no model"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
