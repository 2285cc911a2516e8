// One sealed SafeHandle per cfx handle type.
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

    internal sealed class SchemaHandle : CfxHandle
    {
        public SchemaHandle() { }
        protected override void Free(IntPtr h) { Native.cfx_schema_free(h); }
    }

    internal sealed class ModelHandle : CfxHandle
    {
        public ModelHandle() { }
        protected override void Free(IntPtr h) { Native.cfx_model_free(h); }
    }

    internal sealed class DatasetHandle : CfxHandle
    {
        public DatasetHandle() { }
        protected override void Free(IntPtr h) { Native.cfx_dataset_free(h); }
    }

    internal sealed class ConfigHandle : CfxHandle
    {
        public ConfigHandle() { }
        protected override void Free(IntPtr h) { Native.cfx_config_free(h); }
    }

    /// <summary>A builder; cfx_config_build consumes it (then SetHandleAsInvalid is called).</summary>
    internal sealed class ConfigBuilderHandle : CfxHandle
    {
        public ConfigBuilderHandle() { }
        protected override void Free(IntPtr h) { Native.cfx_config_builder_free(h); }
    }

    /// <summary>A schema builder; cfx_schema_build consumes it (then SetHandleAsInvalid is called).</summary>
    internal sealed class SchemaBuilderHandle : CfxHandle
    {
        public SchemaBuilderHandle() { }
        protected override void Free(IntPtr h) { Native.cfx_schema_builder_free(h); }
    }

    internal sealed class NoiseHandle : CfxHandle
    {
        public NoiseHandle() { }
        protected override void Free(IntPtr h) { Native.cfx_noise_free(h); }
    }

    internal sealed class EstimatorHandle : CfxHandle
    {
        public EstimatorHandle() { }
        protected override void Free(IntPtr h) { Native.cfx_estimator_free(h); }
    }

    /// <summary>A mutable workspace (one thread at a time).</summary>
    internal sealed class WorkspaceHandle : CfxHandle
    {
        public WorkspaceHandle() { }
        protected override void Free(IntPtr h) { Native.cfx_workspace_free(h); }
    }

    internal sealed class RobustResultHandle : CfxHandle
    {
        public RobustResultHandle() { }
        protected override void Free(IntPtr h) { Native.cfx_robust_result_free(h); }
    }

    internal sealed class CoherentResultHandle : CfxHandle
    {
        public CoherentResultHandle() { }
        protected override void Free(IntPtr h) { Native.cfx_coherent_result_free(h); }
    }

    internal sealed class WaitingAdviceHandle : CfxHandle
    {
        public WaitingAdviceHandle() { }
        protected override void Free(IntPtr h) { Native.cfx_waiting_advice_free(h); }
    }

    internal sealed class CoherentBatchHandle : CfxHandle
    {
        public CoherentBatchHandle() { }
        protected override void Free(IntPtr h) { Native.cfx_coherent_batch_free(h); }
    }

    internal sealed class PlausibilityHandle : CfxHandle
    {
        public PlausibilityHandle() { }
        protected override void Free(IntPtr h) { Native.cfx_plausibility_free(h); }
    }

    internal sealed class PortfolioSummaryHandle : CfxHandle
    {
        public PortfolioSummaryHandle() { }
        protected override void Free(IntPtr h) { Native.cfx_portfolio_summary_free(h); }
    }

    internal sealed class PolicyHandle : CfxHandle
    {
        public PolicyHandle() { }
        protected override void Free(IntPtr h) { Native.cfx_policy_free(h); }
    }

    internal sealed class PlanHandle : CfxHandle
    {
        public PlanHandle() { }
        protected override void Free(IntPtr h) { Native.cfx_plan_free(h); }
    }

    internal sealed class UncertaintyHandle : CfxHandle
    {
        public UncertaintyHandle() { }
        protected override void Free(IntPtr h) { Native.cfx_uncertainty_free(h); }
    }

    internal sealed class CopaResultHandle : CfxHandle
    {
        public CopaResultHandle() { }
        protected override void Free(IntPtr h) { Native.cfx_copa_result_free(h); }
    }

    internal sealed class ScorecardImportHandle : CfxHandle
    {
        public ScorecardImportHandle() { }
        protected override void Free(IntPtr h) { Native.cfx_scorecard_import_free(h); }
    }
}
