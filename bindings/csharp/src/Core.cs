// Library loading check, status → exception, and the buffer protocol.
using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;

[assembly: InternalsVisibleTo("Tests")]

namespace Cfx
{
    /// <summary>
    /// A cfx call returned a non-OK status. <see cref="StatusName"/> is the C
    /// name (e.g. "CFX_STATUS_INVALID_ARGUMENT") and <see cref="NativeMessage"/>
    /// the library's explanation, read on the failing thread right after the call.
    /// </summary>
    public sealed class CfxException : Exception
    {
        public int StatusCode { get; private set; }
        public string StatusName { get; private set; }
        public string NativeMessage { get; private set; }

        /// <summary>The status as an enum value (undefined numbers are kept as is).</summary>
        public Status Status { get { return (Status)StatusCode; } }

        internal CfxException(int code, string name, string nativeMessage)
            : base(name + ": " + nativeMessage)
        {
            StatusCode = code;
            StatusName = name;
            NativeMessage = nativeMessage;
        }
    }

    /// <summary>The native library is missing or of an ABI this binding was not built for.</summary>
    public sealed class CfxLoadException : Exception
    {
        internal CfxLoadException(string message, Exception inner = null) : base(message, inner) { }
    }

    /// <summary>Version information and the load-time ABI check.</summary>
    public static class CfxLibrary
    {
        /// <summary>The cfx ABI version (CFX_ABI_VERSION) this binding was written against.</summary>
        public const uint BuiltForAbiVersion = 2;

        private static readonly object gate = new object();
        private static volatile bool checkedOk;
        private static Exception failure;

        /// <summary>
        /// Checks once that libcfx can be loaded and that its cfx_abi_version()
        /// equals <see cref="BuiltForAbiVersion"/>; afterwards (and for every later
        /// call once it failed) throws <see cref="CfxLoadException"/> on a mismatch.
        /// Every factory of this binding calls it first.
        /// </summary>
        public static void EnsureCompatible()
        {
            if (checkedOk) return;
            lock (gate)
            {
                if (checkedOk) return;
                if (failure == null)
                {
                    try
                    {
                        CheckAbi(Native.cfx_abi_version(), Utf8.FromStatic(Native.cfx_version_string()));
                        checkedOk = true;
                        return;
                    }
                    catch (CfxLoadException e) { failure = e; }
                    catch (DllNotFoundException e)
                    {
                        failure = new CfxLoadException(
                            "cannot load the cfx native library (libcfx.so): " + e.Message +
                            "; put its directory on LD_LIBRARY_PATH", e);
                    }
                    catch (EntryPointNotFoundException e)
                    {
                        failure = new CfxLoadException(
                            "the loaded libcfx has no cfx_abi_version: not a cfx library of ABI " +
                            BuiltForAbiVersion, e);
                    }
                }
                throw failure;
            }
        }

        /// <summary>
        /// The bundled data file <paramref name="name"/> (german_credit.csv, german_scorecard_table.csv)
        /// in the <c>share/cfx</c> folder beside Cfx.dll, as the dist archive lays it out (Cfx.dll,
        /// libcfx.so and share/cfx/ copied into the application's folder, where Mono also finds
        /// libcfx.so first); null when CFX_DATA_DIR is set (it wins, as in libcfx) or the folder is
        /// not there, and libcfx then looks itself (CFX_DATA_DIR, an installed prefix's share/cfx,
        /// examples/data under the current folder).
        /// </summary>
        internal static string BundledFile(string name)
        {
            if (!string.IsNullOrEmpty(Environment.GetEnvironmentVariable("CFX_DATA_DIR"))) return null;
            string location = typeof(CfxLibrary).Assembly.Location;
            if (string.IsNullOrEmpty(location)) return null;
            string file = System.IO.Path.Combine(System.IO.Path.GetDirectoryName(location), "share", "cfx", name);
            return System.IO.File.Exists(file) ? file : null;
        }

        /// <summary>The comparison behind <see cref="EnsureCompatible"/> (separate so it can be tested).</summary>
        internal static void CheckAbi(uint libraryAbi, string libraryVersion)
        {
            if (libraryAbi != BuiltForAbiVersion)
                throw new CfxLoadException(string.Format(
                    "cfx ABI mismatch: the native library libcfx {0} has ABI version {1}, " +
                    "but this C# binding was built for ABI version {2}; refusing to use it " +
                    "(install the libcfx that matches the binding, or rebuild the binding)",
                    libraryVersion, libraryAbi, BuiltForAbiVersion));
        }

        /// <summary>The library version, e.g. "0.1.0".</summary>
        public static string Version
        {
            get { EnsureCompatible(); return Utf8.FromStatic(Native.cfx_version_string()); }
        }

        public static Version VersionNumbers
        {
            get
            {
                EnsureCompatible();
                return new Version((int)Native.cfx_version_major(), (int)Native.cfx_version_minor(),
                    (int)Native.cfx_version_patch());
            }
        }

        /// <summary>The ABI version reported by the loaded library.</summary>
        public static uint AbiVersion { get { return Native.cfx_abi_version(); } }

        /// <summary>The C name of a status number ("CFX_STATUS_UNKNOWN" when it is not one).</summary>
        public static string StatusName(int status)
        {
            return Utf8.FromStatic(Native.cfx_status_str(status));
        }
    }

    /// <summary>UTF-8 conversions and the string/array buffer protocol.</summary>
    internal static class Utf8
    {
        /// <summary>NUL-terminated UTF-8 bytes (null stays null, meaning C NULL).</summary>
        internal static byte[] Encode(string s)
        {
            if (s == null) return null;
            if (s.IndexOf('\0') >= 0)
                throw new ArgumentException("strings passed to cfx cannot contain NUL characters");
            int n = Encoding.UTF8.GetByteCount(s);
            var b = new byte[n + 1];
            Encoding.UTF8.GetBytes(s, 0, s.Length, b, 0);
            return b;
        }

        /// <summary>Decodes a static NUL-terminated UTF-8 string owned by the library.</summary>
        internal static string FromStatic(IntPtr p)
        {
            if (p == IntPtr.Zero) return null;
            int n = 0;
            while (Marshal.ReadByte(p, n) != 0) n++;
            var b = new byte[n];
            Marshal.Copy(p, b, 0, n);
            return Encoding.UTF8.GetString(b);
        }

        /// <summary>Decodes the first <paramref name="lenWithNul"/> − 1 bytes.</summary>
        internal static string Decode(byte[] b, int lenWithNul)
        {
            int n = Math.Max(0, Math.Min(lenWithNul, b.Length) - 1);
            return Encoding.UTF8.GetString(b, 0, n);
        }
    }

    internal delegate int StringCall(byte[] buf, UIntPtr cap, out UIntPtr outLen);
    internal delegate int DoublesCall(double[] buf, UIntPtr cap, out UIntPtr outLen);

    /// <summary>Status checking and the buffer protocol of cfx.h.</summary>
    internal static class Call
    {
        /// <summary>Throws a <see cref="CfxException"/> for a non-OK status. Must be
        /// called right after the failing cfx call, on the same thread.</summary>
        internal static void Check(int status)
        {
            if (status != 0) throw Error(status);
        }

        internal static CfxException Error(int status)
        {
            // Read the thread-local message first: it is only valid until the next cfx call.
            string message = LastErrorMessage();
            string name = Utf8.FromStatic(Native.cfx_status_str(status));
            return new CfxException(status, name, message);
        }

        internal static string LastErrorMessage()
        {
            for (int attempt = 0; attempt < 4; attempt++)
            {
                int n = checked((int)(ulong)Native.cfx_last_error_length());
                if (n == 0) return "";
                var buf = new byte[n];
                int st = Native.cfx_last_error_message(buf, (UIntPtr)n);
                if (st == 0) return Utf8.Decode(buf, Array.IndexOf(buf, (byte)0) + 1);
            }
            return "(the error message could not be read)";
        }

        /// <summary>String buffer protocol: size query with (NULL, 0), then copy.</summary>
        internal static string String(StringCall call)
        {
            UIntPtr need;
            int st = call(null, UIntPtr.Zero, out need);
            for (int attempt = 0; ; attempt++)
            {
                if (st == 0) return ""; // cannot happen with cap 0 (the NUL counts) but harmless
                if (st != (int)Status.BufferTooSmall || attempt > 3) Check(st);
                int n = checked((int)(ulong)need);
                var buf = new byte[n];
                UIntPtr len;
                st = call(buf, (UIntPtr)n, out len);
                if (st == 0) return Utf8.Decode(buf, checked((int)(ulong)len));
                need = len;
            }
        }

        /// <summary>Array buffer protocol with a first guess of the length.</summary>
        internal static double[] Doubles(DoublesCall call, int guess)
        {
            var buf = new double[Math.Max(0, guess)];
            for (int attempt = 0; ; attempt++)
            {
                UIntPtr len;
                int st = call(buf, (UIntPtr)buf.Length, out len);
                int n = checked((int)(ulong)len);
                if (st == 0)
                {
                    if (n == buf.Length) return buf;
                    var r = new double[n];
                    Array.Copy(buf, r, n);
                    return r;
                }
                if (st != (int)Status.BufferTooSmall || attempt > 3) Check(st);
                buf = new double[n];
            }
        }

        /// <summary>Returns a new owned handle, or throws (disposing the empty handle).</summary>
        internal static T Owned<T>(int status, T handle) where T : SafeHandle
        {
            if (status != 0)
            {
                var e = Error(status);
                if (handle != null) handle.Dispose();
                throw e;
            }
            if (handle == null || handle.IsInvalid)
                throw new InvalidOperationException("cfx returned OK without a handle");
            return handle;
        }

        internal static UIntPtr Size(int n, string what)
        {
            if (n < 0) throw new ArgumentOutOfRangeException(what, "must not be negative");
            return (UIntPtr)(ulong)n;
        }

        internal static int ToInt(UIntPtr n)
        {
            return checked((int)(ulong)n);
        }
    }

    /// <summary>Exists only in a library built with the `testing` feature.</summary>
    internal static class Testing
    {
        internal static void Panic()
        {
            CfxLibrary.EnsureCompatible();
            Call.Check(Native.cfx_testing_panic());
        }
    }
}
