#!/usr/bin/env python3
"""Generates the emulator's AWS service-model tables (C) from the models the repository carries.

    scripts/gen-models.py OUT.c

Reads emulator/models/{autoscaling,elb,elbv2,cloudwatch,ec2,sts}.json and nothing else (no botocore:
the same files give the same tables, byte for byte, on every machine). Those files are
botocore's service-2.json trimmed to the operations the emulator serves, the shapes
reachable from them and every error shape; scripts/models-refresh.py (make models)
rewrites them from a botocore and emulator/models/SOURCE says which. Every operation in
a file is emitted; shapes come breadth first from the sorted operations, then the error
shapes, and a structure's members keep the file's (the model's) order. The C types are
declared in emulator/model.h.
"""
import io
import json
import os
import sys

MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "emulator", "models")
# C names, in the order the tables are written; each reads emulator/models/<name>.json
SERVICES = ["autoscaling", "elb", "elbv2", "cloudwatch", "ec2", "sts"]

TYPES = {
    "structure": "MODEL_STRUCTURE", "list": "MODEL_LIST", "map": "MODEL_MAP",
    "string": "MODEL_STRING", "integer": "MODEL_INTEGER", "long": "MODEL_LONG",
    "double": "MODEL_DOUBLE", "float": "MODEL_FLOAT", "boolean": "MODEL_BOOLEAN",
    "timestamp": "MODEL_TIMESTAMP", "blob": "MODEL_BLOB",
}
PROTOCOLS = {"query": "MODEL_PROTO_QUERY", "ec2": "MODEL_PROTO_EC2", "json": "MODEL_PROTO_JSON",
             "smithy-rpc-v2-cbor": "MODEL_PROTO_CBOR"}


def load_model(cname):
    path = os.path.join(MODELS, cname + ".json")
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("gen-models: cannot read %s: %s" % (path, e))


def cstr(s):
    if s is None:
        return "NULL"
    out = '"'
    for ch in s:
        o = ord(ch)
        if ch in '"\\':
            out += "\\" + ch
        elif 32 <= o < 127:
            out += ch
        else:
            for b in ch.encode("utf-8"):
                out += "\\%03o" % b
    return out + '"'


def cnum(v):
    if v is None:
        return "0"
    if isinstance(v, float) and v != int(v):
        return repr(v)
    return "%d.0" % int(v)


def gen_service(cname, model, out):
    shapes = model["shapes"]
    meta = model["metadata"]
    ops = sorted(model["operations"])
    sigv4 = meta.get("signingName", meta["endpointPrefix"])  # botocore's rule

    # Reachable shapes, in a stable order (breadth first from the sorted operations).
    order, index = [], {}

    def visit(name):
        if name in index:
            return
        index[name] = len(order)
        order.append(name)
        s = shapes[name]
        if s["type"] == "structure":
            for m in s.get("members", {}).values():
                visit(m["shape"])
        elif s["type"] == "list":
            visit(s["member"]["shape"])
        elif s["type"] == "map":
            visit(s["key"]["shape"])
            visit(s["value"]["shape"])

    for op in ops:
        o = model["operations"][op]
        for k in ("input", "output"):
            if k in o:
                visit(o[k]["shape"])
    errors = sorted(n for n, s in shapes.items() if "error" in s or s.get("exception"))
    for e in errors:
        visit(e)

    members, enums = [], []
    shape_rows = []
    for name in order:
        s = shapes[name]
        t = s["type"]
        first_m, nm = len(members), 0

        def member_row(mname, ref, required, default_xml):
            loc = ref.get("locationName")
            xml = loc if loc else default_xml
            if ref.get("queryName"):
                e2 = ref["queryName"]
            elif loc:
                e2 = loc[0].upper() + loc[1:]
            else:
                e2 = default_xml
            flags = []
            if required:
                flags.append("MODEL_M_REQUIRED")
            return "{ %s, %s, %s, %d, %s }" % (cstr(mname), cstr(xml), cstr(e2), index[ref["shape"]],
                                               " | ".join(flags) if flags else "0")

        if t == "structure":
            req = set(s.get("required", []))
            for mname, ref in s.get("members", {}).items():
                members.append(member_row(mname, ref, mname in req, mname))
                nm += 1
        elif t == "list":
            members.append(member_row("member", s["member"], False, "member"))
            nm = 1
        elif t == "map":
            members.append(member_row("key", s["key"], False, "key"))
            members.append(member_row("value", s["value"], False, "value"))
            nm = 2
        first_e, ne = len(enums), 0
        for v in s.get("enum", []):
            enums.append(cstr(v))
            ne += 1
        flags = []
        if s.get("flattened"):
            flags.append("MODEL_F_FLATTENED")
        if "min" in s:
            flags.append("MODEL_F_HAS_MIN")
        if "max" in s:
            flags.append("MODEL_F_HAS_MAX")
        if s.get("union"):
            flags.append("MODEL_F_UNION")
        if s.get("exception") or "error" in s:
            flags.append("MODEL_F_ERROR")
        shape_rows.append("{ %s, %s, %s, %d, %d, %d, %d, %s, %s, %s }" % (
            cstr(name), TYPES[t], " | ".join(flags) if flags else "0", nm, ne, first_m, first_e,
            cnum(s.get("min")), cnum(s.get("max")), cstr(s.get("pattern"))))

    op_rows = []
    for op in ops:
        o = model["operations"][op]
        inp = index[o["input"]["shape"]] if "input" in o else -1
        outp = index[o["output"]["shape"]] if "output" in o else -1
        wrapper = o.get("output", {}).get("resultWrapper")
        op_rows.append("{ %s, %d, %d, %s }" % (cstr(op), inp, outp, cstr(wrapper)))

    err_rows = []
    for e in errors:
        info = shapes[e].get("error", {})
        err_rows.append("{ %s, %s, %d, %d }" % (
            cstr(e), cstr(info.get("code", e)), int(info.get("httpStatusCode", 400)),
            1 if info.get("senderFault", True) else 0))

    protos = meta.get("protocols", [meta["protocol"]])
    pflags = " | ".join(PROTOCOLS[p] for p in protos if p in PROTOCOLS) or "0"

    w = out.write
    w("\n/* %s %s: %d operations, %d shapes */\n" % (cname, meta["apiVersion"], len(ops), len(order)))
    w("static const struct model_shape %s_shapes[] = {\n" % cname)
    for r in shape_rows:
        w("    %s,\n" % r)
    w("};\n")
    w("static const struct model_member %s_members[] = {\n" % cname)
    for r in members or ["{ NULL, NULL, NULL, 0, 0 }"]:
        w("    %s,\n" % r)
    w("};\n")
    w("static const char *const %s_enums[] = {\n" % cname)
    for r in enums or ["NULL"]:
        w("    %s,\n" % r)
    w("};\n")
    w("static const struct model_op %s_ops[] = {\n" % cname)
    for r in op_rows:
        w("    %s,\n" % r)
    w("};\n")
    w("static const struct model_error %s_errors[] = {\n" % cname)
    for r in err_rows or ["{ NULL, NULL, 0, 0 }"]:
        w("    %s,\n" % r)
    w("};\n")
    w("const struct model_service model_%s = {\n" % cname)
    w("    .name = %s,\n    .sigv4 = %s,\n    .version = %s,\n    .xmlns = %s,\n" % (
        cstr(cname), cstr(sigv4), cstr(meta["apiVersion"]), cstr(meta.get("xmlNamespace"))))
    w("    .target_prefix = %s,\n    .protocols = %s,\n" % (cstr(meta.get("targetPrefix")), pflags))
    w("    .shapes = %s_shapes,\n    .nshapes = %d,\n" % (cname, len(shape_rows)))
    w("    .members = %s_members,\n    .enums = %s_enums,\n" % (cname, cname))
    w("    .ops = %s_ops,\n    .nops = %d,\n" % (cname, len(op_rows)))
    w("    .errors = %s_errors,\n    .nerrors = %d,\n" % (cname, len(err_rows)))
    w("};\n")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen-models.py OUT.c")
    dest = sys.argv[1]
    tmp = dest + ".tmp"
    with open(tmp, "w", encoding="ascii", newline="\n") as out:
        out.write("/* Generated by scripts/gen-models.py from emulator/models/ (AWS service models "
                  "from botocore, see emulator/models/SOURCE). Do not edit. */\n")
        body = []
        for cname in SERVICES:
            model = load_model(cname)
            out.write("/* source: emulator/models/%s.json */\n" % cname)
            buf = io.StringIO()
            gen_service(cname, model, buf)
            body.append(buf.getvalue())
        out.write('#include "emulator/model.h"\n\n#include <stddef.h>\n')
        for b in body:
            out.write(b)
    os.replace(tmp, dest)


if __name__ == "__main__":
    main()
