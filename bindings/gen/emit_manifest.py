"""The ABI manifest, `bindings/gen/abi.json`: every function's C signature
(with what types.toml says each int32_t carries), the enums, handles, structs
and constants of include/cfx.h. Each binding's tests check their declarations
against it (C# by reflection, Java method descriptors, R registered arities,
Python argtypes), so a wrapper whose types drift from C fails a test rather
than corrupting memory."""

import json

from cfx_header import groups


def _param(p):
    d = {"name": p.name, "c_type": p.type.c()}
    if p.meaning:
        d["meaning"] = p.meaning
    return d


def _function(f, header):
    kinds = {}
    for g in groups(f, header):
        for p in g.params:
            kinds[p.name] = g.kind
        if g.count is not None and g.kind in ("arrays", "buffer"):
            kinds[g.count.name] = "count" if g.kind == "arrays" else "cap"
        if g.out_len is not None:
            kinds[g.out_len.name] = "out_len"
    params = []
    for p in f.params:
        d = _param(p)
        d["group"] = kinds[p.name]
        params.append(d)
    return {
        "name": f.name,
        "returns": f.ret.c(),
        "params": params,
        **({"testing_only": True} if f.testing_only else {}),
    }


def manifest(header):
    return {
        "abi_version": header.constants["CFX_ABI_VERSION"],
        "version": header.constants["CFX_VERSION_STRING"],
        "handles": header.handles,
        "enums": [
            {"name": e.name, "variants": [{"name": v.name, "value": v.value} for v in e.variants]}
            for e in header.enums
        ],
        "structs": [
            {"name": s.name, "fields": [{"name": f.name, "c_type": f.type.c()} for f in s.fields]}
            for s in header.structs
        ],
        "callbacks": [
            {"name": c.name, "returns": c.ret.c(), "params": [_param(p) for p in c.params]} for c in header.callbacks
        ],
        "functions": [_function(f, header) for f in header.functions],
    }


def outputs(header):
    return {"bindings/gen/abi.json": json.dumps(manifest(header), indent=1, ensure_ascii=False) + "\n"}
