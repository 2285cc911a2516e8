// The base class of the cfx SafeHandles (one sealed subclass per handle type is
// generated into Handles.cs by bindings/gen/generate.py).
//
// ReleaseHandle runs either from Dispose (deterministic) or from the
// finalizer thread (GC fallback). SafeHandle guarantees it runs at most once
// and never while a P/Invoke holds a reference; cfx guarantees that _free may
// be called from any thread. ReleaseHandle never throws: the _free functions
// are void, panic-safe and accept any handle they produced.
using System;
using System.Collections.Concurrent;
using System.Runtime.InteropServices;
using System.Threading;

namespace Cfx
{
    /// <summary>Common part of the cfx handles: NULL is invalid; optional release tracking for tests.</summary>
    internal abstract class CfxHandle : SafeHandle
    {
        // Release tracking (off by default): serial → (number of releases, thread id).
        internal static volatile bool Tracking = false;
        internal static readonly ConcurrentDictionary<long, int> Releases = new ConcurrentDictionary<long, int>();
        internal static readonly ConcurrentDictionary<long, int> ReleaseThread = new ConcurrentDictionary<long, int>();
        private static long nextSerial;

        /// <summary>Unique number of this SafeHandle instance (for release tracking).</summary>
        internal readonly long Serial = Interlocked.Increment(ref nextSerial);

        protected CfxHandle() : base(IntPtr.Zero, true) { }

        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }

        protected abstract void Free(IntPtr h);

        protected sealed override bool ReleaseHandle()
        {
            try
            {
                Free(handle);
                if (Tracking)
                {
                    Releases.AddOrUpdate(Serial, 1, (k, v) => v + 1);
                    ReleaseThread[Serial] = Thread.CurrentThread.ManagedThreadId;
                }
            }
            catch
            {
                // Never throw from ReleaseHandle (it may run on the finalizer thread).
            }
            return true;
        }
    }
}
