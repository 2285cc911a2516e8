"""Tags a pure-Python wheel of cfx for the platform whose libcfx it carries.

setuptools builds `cfx-<v>-py3-none-any.whl`, since the package compiles nothing against the
interpreter (ctypes). Its `cfx/lib/libcfx.so` is a Linux x86-64 (or aarch64) binary, so pip
must not install the wheel elsewhere: this rewrites the tag to `py3-none-<platform>` (any
Python 3 on that platform), marks the wheel as not purelib (it goes to platlib, as wheels with
binaries do), and rewrites RECORD's hashes and sizes for the changed WHEEL file, keeping every
other entry byte for byte (PEP 427, PEP 491).

auditwheel then turns the result into a manylinux wheel (packaging/dist.sh).

    python retag_wheel.py dist/cfx-0.1.0-py3-none-any.whl linux_x86_64 OUT_DIR
"""

import base64
import hashlib
import os
import sys
import zipfile


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def retag(src, platform, out_dir):
    base = os.path.basename(src)
    name, version, py, abi, plat = base[: -len(".whl")].split("-")
    if (py, abi, plat) != ("py3", "none", "any"):
        raise SystemExit(f"retag_wheel: expected a py3-none-any wheel, got {base}")
    tag = f"py3-none-{platform}"
    dst = os.path.join(out_dir, f"{name}-{version}-{tag}.whl")
    dist_info = f"{name}-{version}.dist-info"
    with zipfile.ZipFile(src) as zin:
        entries = [(info, zin.read(info.filename)) for info in zin.infolist()]
    lines = []
    with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info, data in entries:
            if info.filename == f"{dist_info}/RECORD":
                continue
            if info.filename == f"{dist_info}/WHEEL":
                text = data.decode("utf-8")
                kept = [
                    line
                    for line in text.splitlines()
                    if line.strip() and not line.startswith(("Tag:", "Root-Is-Purelib:"))
                ]
                kept.insert(2, "Root-Is-Purelib: false")
                kept.append(f"Tag: {tag}")
                data = ("\n".join(kept) + "\n").encode("utf-8")
            zout.writestr(info, data)
            lines.append(record_line(info.filename, data))
        lines.append(f"{dist_info}/RECORD,,")
        zout.writestr(f"{dist_info}/RECORD", "\n".join(lines) + "\n")
    print(f"retag_wheel: {dst}")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    retag(sys.argv[1], sys.argv[2], sys.argv[3])
