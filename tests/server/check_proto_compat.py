#!/usr/bin/env python3
"""Check hipinfer's server protos against the ones Triton's client ships.

Usage: python3 tests/server/check_proto_compat.py [--protoc PATH] [--proto-dir DIR]

Compiles src/server/proto/{grpc_service,model_config}.proto to a descriptor
set and compares every message, enum and service method declared there with
the descriptors compiled into the `tritonclient` Python package (PyPI
tritonclient[grpc]). For each of our fields the field must exist in Triton's
message under the same name with the same number, type, label, referenced
message/enum type and oneof; enum values must have the same numbers; each
of our RPCs must exist with the same request/response types and streaming
flags. Declaring less than Triton is fine; declaring anything different is not.

Exit status: 0 all match, 1 mismatch, 2 could not run the check (no protoc,
protoc error, ...), 77 tritonclient is not installed (nothing to compare with).
"""

import argparse
import importlib
import os
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
OUR_FILES = ("model_config.proto", "grpc_service.proto")
REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEFAULT_PROTO_DIR = os.path.join(REPO_ROOT, "src", "server", "proto")


def load_triton():
    """Return (FileDescriptorProto list, version) from tritonclient, or exit 77."""
    try:
        mods = [importlib.import_module("tritonclient.grpc." + m)
                for m in ("model_config_pb2", "service_pb2")]
    except ModuleNotFoundError as e:
        missing = (e.name or "").split(".")[0]
        if missing in ("tritonclient", "grpc"):
            print("SKIP: tritonclient not installed (module '%s' not found); "
                  "pip install 'tritonclient[grpc]' to run this check" % e.name)
            sys.exit(SKIP)
        raise
    from google.protobuf import descriptor_pb2
    protos = [descriptor_pb2.FileDescriptorProto.FromString(m.DESCRIPTOR.serialized_pb)
              for m in mods]
    try:
        from importlib.metadata import version
        ver = version("tritonclient")
    except Exception:  # version is informational only
        ver = "unknown"
    return protos, ver


def find_protoc(explicit):
    """Return the command prefix that runs protoc."""
    if explicit:
        return [explicit]
    try:
        importlib.import_module("grpc_tools.protoc")
        return [sys.executable, "-m", "grpc_tools.protoc"]
    except ImportError:
        pass
    exe = shutil.which("protoc")
    if exe:
        return [exe]
    print("ERROR: no protoc found (pass --protoc PATH, install grpcio-tools or "
          "Debian's protobuf-compiler)")
    sys.exit(2)


def compile_ours(protoc_cmd, proto_dir):
    from google.protobuf import descriptor_pb2
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "ours.pb")
        cmd = protoc_cmd + ["-I" + proto_dir, "--include_imports",
                            "--descriptor_set_out=" + out] + list(OUR_FILES)
        r = subprocess.run(cmd, cwd=proto_dir, capture_output=True, text=True)
        if r.returncode != 0:
            print("ERROR: protoc failed (%s):\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))
            sys.exit(2)
        with open(out, "rb") as f:
            fds = descriptor_pb2.FileDescriptorSet.FromString(f.read())
    return [fd for fd in fds.file if fd.name in OUR_FILES]


def index(files):
    """Map '.pkg.Name[.Nested]' to DescriptorProto / EnumDescriptorProto / ServiceDescriptorProto."""
    msgs, enums, services = {}, {}, {}

    def walk(prefix, m):
        name = prefix + "." + m.name
        msgs[name] = m
        for e in m.enum_type:
            enums[name + "." + e.name] = e
        for n in m.nested_type:
            walk(name, n)

    for fd in files:
        pkg = "." + fd.package if fd.package else ""
        for m in fd.message_type:
            walk(pkg, m)
        for e in fd.enum_type:
            enums[pkg + "." + e.name] = e
        for s in fd.service:
            services[pkg + "." + s.name] = s
    return msgs, enums, services


def type_str(f):
    from google.protobuf import descriptor_pb2 as d
    t = d.FieldDescriptorProto.Type.Name(f.type)
    lab = d.FieldDescriptorProto.Label.Name(f.label)
    return "%s %s%s = %d" % (lab, t, (" " + f.type_name) if f.type_name else "", f.number)


def oneof_of(msg, f):
    if f.HasField("oneof_index") and not f.proto3_optional:
        return msg.oneof_decl[f.oneof_index].name
    return None


def compare(ours, theirs):
    errors = []
    counts = {"messages": 0, "fields": 0, "enums": 0, "values": 0, "methods": 0}
    o_msgs, o_enums, o_svcs = index(ours)
    t_msgs, t_enums, t_svcs = index(theirs)

    for fd in ours:
        if fd.package != "inference":
            errors.append("%s: package is '%s', expected 'inference'" % (fd.name, fd.package))

    for name, m in sorted(o_msgs.items()):
        counts["messages"] += 1
        t = t_msgs.get(name)
        if t is None:
            errors.append("message %s: not defined by Triton" % name[1:])
            continue
        if m.options.map_entry != t.options.map_entry:
            errors.append("message %s: map_entry %s, Triton has %s"
                          % (name[1:], m.options.map_entry, t.options.map_entry))
        t_fields = {f.name: f for f in t.field}
        for f in m.field:
            counts["fields"] += 1
            where = "%s.%s" % (name[1:], f.name)
            tf = t_fields.get(f.name)
            if tf is None:
                errors.append("field %s: not in Triton's message (ours: %s)" % (where, type_str(f)))
                continue
            for attr in ("number", "type", "label", "type_name", "proto3_optional"):
                if getattr(f, attr) != getattr(tf, attr):
                    errors.append("field %s: %s differs: expected (Triton) %s, got (ours) %s"
                                  % (where, attr, type_str(tf), type_str(f)))
                    break
            oo, to = oneof_of(m, f), oneof_of(t, tf)
            if oo != to:
                errors.append("field %s: oneof differs: expected (Triton) %s, got (ours) %s"
                              % (where, to, oo))

    for name, e in sorted(o_enums.items()):
        counts["enums"] += 1
        t = t_enums.get(name)
        if t is None:
            errors.append("enum %s: not defined by Triton" % name[1:])
            continue
        t_vals = {v.name: v.number for v in t.value}
        for v in e.value:
            counts["values"] += 1
            if v.name not in t_vals:
                errors.append("enum value %s.%s: not in Triton's enum" % (name[1:], v.name))
            elif v.number != t_vals[v.name]:
                errors.append("enum value %s.%s: expected (Triton) %d, got (ours) %d"
                              % (name[1:], v.name, t_vals[v.name], v.number))

    for name, s in sorted(o_svcs.items()):
        t = t_svcs.get(name)
        if t is None:
            errors.append("service %s: not defined by Triton" % name[1:])
            continue
        t_methods = {mm.name: mm for mm in t.method}
        for mm in s.method:
            counts["methods"] += 1
            where = "rpc %s/%s" % (name[1:], mm.name)
            tm = t_methods.get(mm.name)
            if tm is None:
                errors.append("%s: not in Triton's service" % where)
                continue
            for attr in ("input_type", "output_type", "client_streaming", "server_streaming"):
                if getattr(mm, attr) != getattr(tm, attr):
                    errors.append("%s: %s differs: expected (Triton) %s, got (ours) %s"
                                  % (where, attr, getattr(tm, attr), getattr(mm, attr)))
    return errors, counts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--protoc", help="protoc executable (default: grpc_tools.protoc, "
                                     "else protoc on PATH)")
    ap.add_argument("--proto-dir", default=DEFAULT_PROTO_DIR,
                    help="directory holding our .proto files (default: %(default)s)")
    args = ap.parse_args()

    theirs, ver = load_triton()
    ours = compile_ours(find_protoc(args.protoc), args.proto_dir)
    errors, c = compare(ours, theirs)
    for e in errors:
        print("MISMATCH: " + e)
    detail = ("%(messages)d messages, %(fields)d fields, %(enums)d enums, "
              "%(values)d enum values, %(methods)d rpcs" % c)
    if errors:
        print("check_proto_compat: FAIL: %d mismatch(es) against tritonclient %s (%s checked)"
              % (len(errors), ver, detail))
        return 1
    print("check_proto_compat: OK: %s match tritonclient %s" % (detail, ver))
    return 0


if __name__ == "__main__":
    sys.exit(main())
