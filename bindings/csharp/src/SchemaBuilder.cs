using System;
using System.Runtime.InteropServices;

namespace Cfx
{
    /// <summary>
    /// The largest move of a contiguous feature away from the applicant's own
    /// value (issue #16): none, in the feature's raw units (12 months), or as a
    /// fraction of the applicant's value (0.5: half of it).
    /// </summary>
    public struct ChangeLimit
    {
        public readonly ChangeLimitKind Kind;
        public readonly double Value;

        private ChangeLimit(ChangeLimitKind kind, double value) { Kind = kind; Value = value; }

        /// <summary>No limit.</summary>
        public static readonly ChangeLimit None = new ChangeLimit(ChangeLimitKind.None, 0);

        /// <summary>At most <paramref name="units"/> raw units.</summary>
        public static ChangeLimit Units(double units) { return new ChangeLimit(ChangeLimitKind.Units, units); }

        /// <summary>At most <paramref name="fraction"/> of the applicant's value.</summary>
        public static ChangeLimit Fraction(double fraction) { return new ChangeLimit(ChangeLimitKind.Fraction, fraction); }
    }

    /// <summary>
    /// Builds a <see cref="Schema"/> in code, feature by feature (cfx_schema_builder).
    /// Methods return the builder; <see cref="Build"/> consumes it (it is
    /// disposed afterwards, in every case). Calls are serialised with a lock.
    /// </summary>
    public sealed class SchemaBuilder : IDisposable
    {
        private readonly SchemaBuilderHandle h;
        private readonly object gate = new object();

        public SchemaBuilder()
        {
            CfxLibrary.EnsureCompatible();
            SchemaBuilderHandle b;
            int st = Native.cfx_schema_builder_new(out b);
            h = Call.Owned(st, b);
        }

        private SchemaBuilderHandle Handle
        {
            get
            {
                if (h.IsClosed) throw new ObjectDisposedException("Cfx.SchemaBuilder");
                return h;
            }
        }

        internal long Serial { get { return h.Serial; } }

        public bool IsDisposed { get { return h.IsClosed; } }

        public void Dispose() { lock (gate) h.Dispose(); }

        /// <summary>A contiguous feature with raw range [lower, upper].</summary>
        public SchemaBuilder AddContiguous(string name, double lower, double upper, bool integer = false)
        {
            if (name == null) throw new ArgumentNullException("name");
            var n = Utf8.Encode(name);
            lock (gate) Call.Check(Native.cfx_schema_builder_add_contiguous(Handle, n, lower, upper, integer ? 1 : 0));
            return this;
        }

        /// <summary>A categorical feature; raw values are indices into <paramref name="levels"/>.</summary>
        public SchemaBuilder AddCategorical(string name, params string[] levels)
        {
            if (name == null) throw new ArgumentNullException("name");
            if (levels == null) throw new ArgumentNullException("levels");
            var n = Utf8.Encode(name);
            var pins = new GCHandle[levels.Length];
            var ptrs = new IntPtr[levels.Length];
            try
            {
                for (int i = 0; i < levels.Length; i++)
                {
                    if (levels[i] == null) throw new ArgumentNullException("levels", "level " + i + " is null");
                    pins[i] = GCHandle.Alloc(Utf8.Encode(levels[i]), GCHandleType.Pinned);
                    ptrs[i] = pins[i].AddrOfPinnedObject();
                }
                lock (gate) Call.Check(Native.cfx_schema_builder_add_categorical(Handle, n, ptrs, (UIntPtr)ptrs.Length));
            }
            finally
            {
                for (int i = 0; i < pins.Length; i++) if (pins[i].IsAllocated) pins[i].Free();
            }
            return this;
        }

        /// <summary>A special code of the last added (contiguous) feature, e.g. −7 "no delinquency record".</summary>
        public SchemaBuilder AddSpecialState(double code, string label)
        {
            if (label == null) throw new ArgumentNullException("label");
            var l = Utf8.Encode(label);
            lock (gate) Call.Check(Native.cfx_schema_builder_add_special_state(Handle, code, l));
            return this;
        }

        /// <summary>Actionability of the last added feature.</summary>
        public SchemaBuilder SetActionability(bool mutable, Direction direction = Direction.Any)
        {
            lock (gate) Call.Check(Native.cfx_schema_builder_set_actionability(Handle, mutable ? 1 : 0, (int)direction));
            return this;
        }

        /// <summary>Actionable bounds of the last added (contiguous) feature: advice stays in
        /// [lower, upper] (raw units, inside the feature's range; checked by <see cref="Build"/>).</summary>
        public SchemaBuilder SetActionableBounds(double lower, double upper)
        {
            lock (gate) Call.Check(Native.cfx_schema_builder_set_actionable_bounds(Handle, lower, upper));
            return this;
        }

        /// <summary>Advice a person can carry out (issue 43), for the last added (contiguous) feature:
        /// every value advice moves it to is a whole multiple of <paramref name="adviceStep"/> (0: the
        /// data's own grid), and a change of it is at least <paramref name="minChange"/> (0: any
        /// change); staying put is always allowed. Negative or non-finite values are
        /// <c>InvalidArgument</c>; a step off the data's grid is refused by <see cref="Build"/>.</summary>
        public SchemaBuilder SetAdviceGrid(double adviceStep, double minChange)
        {
            lock (gate) Call.Check(Native.cfx_schema_builder_set_advice_grid(Handle, adviceStep, minChange));
            return this;
        }

        /// <summary>Cost scale (&gt; 0) of the last added feature: multiplies its distance weights.</summary>
        public SchemaBuilder SetCostScale(double costScale)
        {
            lock (gate) Call.Check(Native.cfx_schema_builder_set_cost_scale(Handle, costScale));
            return this;
        }

        /// <summary>Forbids the move from state <paramref name="from"/> to <paramref name="to"/> of the
        /// last added feature: "value", a special state's label or code, a level name, or "*".</summary>
        public SchemaBuilder ForbidTransition(string from, string to)
        {
            if (from == null) throw new ArgumentNullException("from");
            if (to == null) throw new ArgumentNullException("to");
            var f = Utf8.Encode(from);
            var t = Utf8.Encode(to);
            lock (gate) Call.Check(Native.cfx_schema_builder_add_forbidden_transition(Handle, f, t));
            return this;
        }

        /// <summary>Puts the last added (contiguous) feature on the grid lower + k·step (checked by
        /// <see cref="Build"/>).</summary>
        public SchemaBuilder SetStep(double step)
        {
            lock (gate) Call.Check(Native.cfx_schema_builder_set_step(Handle, step));
            return this;
        }

        /// <summary>Orders the levels of the last added (categorical) feature from worst to best (all or
        /// some). With an order the feature's direction speaks of it (IncreaseOnly: only to a better listed
        /// level) instead of the level index; every method honours it. Checked by <see cref="Build"/>.</summary>
        public SchemaBuilder SetLevelOrder(params string[] levels)
        {
            if (levels == null) throw new ArgumentNullException("levels");
            var pins = new GCHandle[levels.Length];
            var ptrs = new IntPtr[levels.Length];
            try
            {
                for (int i = 0; i < levels.Length; i++)
                {
                    if (levels[i] == null) throw new ArgumentNullException("levels", "level " + i + " is null");
                    pins[i] = GCHandle.Alloc(Utf8.Encode(levels[i]), GCHandleType.Pinned);
                    ptrs[i] = pins[i].AddrOfPinnedObject();
                }
                lock (gate) Call.Check(Native.cfx_schema_builder_set_level_order(Handle, ptrs, (UIntPtr)ptrs.Length));
            }
            finally
            {
                for (int i = 0; i < pins.Length; i++) if (pins[i].IsAllocated) pins[i].Free();
            }
            return this;
        }

        /// <summary>Change limits of the last added (contiguous) feature, relative to the applicant's
        /// own value: the largest increase and decrease (non-negative; checked by <see cref="Build"/>).</summary>
        public SchemaBuilder SetChangeLimits(ChangeLimit maxIncrease, ChangeLimit maxDecrease)
        {
            lock (gate)
                Call.Check(Native.cfx_schema_builder_set_change_limits(Handle, (int)maxIncrease.Kind, maxIncrease.Value,
                    (int)maxDecrease.Kind, maxDecrease.Value));
            return this;
        }

        /// <summary>The last added feature grows by <paramref name="perMonth"/> raw units per month of
        /// waiting and moves no other way (it becomes immutable to actions); <paramref name="endsIn"/>
        /// (null: none) names the special state it enters past its upper bound. The schema then needs
        /// <see cref="SetWaiting"/>.</summary>
        public SchemaBuilder SetTimeGrowth(double perMonth, string endsIn = null)
        {
            var e = endsIn == null ? null : Utf8.Encode(endsIn);
            lock (gate) Call.Check(Native.cfx_schema_builder_set_time_growth(Handle, perMonth, e));
            return this;
        }

        /// <summary>Closes the last added feature's time window early: once its value would pass
        /// <paramref name="endsAfter"/> (within the feature's range) it enters the state named by
        /// <see cref="SetTimeGrowth"/>'s endsIn, instead of only past its upper bound (HELOC's months
        /// since the last inquiry read −7 after 23 months). Call after SetTimeGrowth with an endsIn;
        /// checked by <see cref="Build"/>.</summary>
        public SchemaBuilder SetTimeGrowthEndsAfter(double endsAfter)
        {
            lock (gate) Call.Check(Native.cfx_schema_builder_set_time_growth_ends_after(Handle, endsAfter));
            return this;
        }

        /// <summary>Says what waiting does once the last added feature's value would pass its upper
        /// bound: <paramref name="refuse"/> true refuses such a wait (the applicant may wait only as
        /// long as the feature stays within its range; JSON "past_upper": "refuse"), false caps the
        /// value at the bound (the default). The bound is the data's largest value, not the end of
        /// time: a capped value is one the bureau would not report. Call after SetTimeGrowth;
        /// refusing with an endsIn state is INVALID_SCHEMA from <see cref="Build"/>.</summary>
        public SchemaBuilder SetTimeGrowthRefusePastUpper(bool refuse = true)
        {
            lock (gate) Call.Check(Native.cfx_schema_builder_set_time_growth_refuse_past_upper(Handle, refuse ? 1 : 0));
            return this;
        }

        /// <summary>Limits where waiting may lead the last added feature: a wait that would move its value
        /// outside [<paramref name="low"/>, <paramref name="high"/>] (raw units) is not advised by any method
        /// (JSON "advised_range": [low, high]); a wait that leaves the value unchanged or carries it into its
        /// endsIn state is not judged by it. A month counter grows whether or not accepted applicants are
        /// where it lands; <see cref="Plausibility.AdviseWaits"/> sets these ranges from the accepted
        /// applicants' 1-99% range. Call after SetTimeGrowth (INVALID_ARGUMENT when the feature does not
        /// grow with time, or for a non-finite bound); low &gt; high is INVALID_SCHEMA from
        /// <see cref="Build"/>.</summary>
        public SchemaBuilder SetTimeGrowthAdvisedRange(double low, double high)
        {
            lock (gate) Call.Check(Native.cfx_schema_builder_set_time_growth_advised_range(Handle, low, high));
            return this;
        }

        /// <summary>One duration band of the last added (categorical) feature: waiting
        /// <paramref name="months"/> (≥ 1) from the start of band <paramref name="level"/> moves it to
        /// the next level of its level order; the feature then moves only by waiting. Call once per
        /// band. An unknown level is NOT_FOUND here; a band without a next level is INVALID_SCHEMA
        /// from <see cref="Build"/>.</summary>
        public SchemaBuilder SetBandMonths(string level, int months)
        {
            if (level == null) throw new ArgumentNullException(nameof(level));
            if (months < 0) throw new ArgumentOutOfRangeException(nameof(months), "must be >= 0");
            var l = Utf8.Encode(level);
            lock (gate) Call.Check(Native.cfx_schema_builder_set_band_months(Handle, l, (uint)months));
            return this;
        }

        /// <summary>At most <paramref name="cap"/> (≥ 1) features changed by one piece of advice (what
        /// waiting moves is not counted); every method honours it. Without a call there is no cap; 0
        /// is INVALID_ARGUMENT.</summary>
        public SchemaBuilder SetMaxFeaturesChanged(int cap)
        {
            if (cap < 0) throw new ArgumentOutOfRangeException(nameof(cap), "must be >= 1");
            lock (gate) Call.Check(Native.cfx_schema_builder_set_max_features_changed(Handle, (UIntPtr)cap));
            return this;
        }

        /// <summary>Gives the schema a "wait m months" action: its cost per month (in the distance's
        /// units) and the longest wait (1 to 600 months; checked by <see cref="Build"/>).</summary>
        public SchemaBuilder SetWaiting(double costPerMonth, int maxMonths)
        {
            if (maxMonths < 0) throw new ArgumentOutOfRangeException("maxMonths", "must be >= 0");
            lock (gate) Call.Check(Native.cfx_schema_builder_set_waiting(Handle, costPerMonth, (uint)maxMonths));
            return this;
        }

        /// <summary>Validates and returns the schema. The builder is consumed whether or not this succeeds.</summary>
        public Schema Build()
        {
            lock (gate)
            {
                var b = Handle;
                SchemaHandle s;
                int st;
                try
                {
                    st = Native.cfx_schema_build(b, out s);
                }
                finally
                {
                    b.SetHandleAsInvalid(); // consumed by cfx_schema_build in every case
                }
                return new Schema(Call.Owned(st, s));
            }
        }
    }
}
