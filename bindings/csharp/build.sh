#!/bin/sh
# Builds the cfx C# binding, OUT/Cfx.dll (namespace Cfx, every function family of include/cfx.h),
# with mcs. An application references it (`mcs -r:Cfx.dll app.cs`, or a <Reference> with a
# HintPath in a .csproj) and needs libcfx.so at run time: beside Cfx.dll, on LD_LIBRARY_PATH, or
# installed by `make install`. OUT defaults to bindings/csharp/build. Needs: mono-mcs.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out="${OUT:-$here/build}"
mkdir -p "$out"
mcs -nologo -langversion:7 -warnaserror -target:library -out:"$out/Cfx.dll" "$here"/src/*.cs
echo "csharp: built $out/Cfx.dll"
