// Sequential counterfactuals: P-DQN policies and their plans.
using System;
using System.Runtime.InteropServices;

namespace Cfx
{
    /// <summary>Training progress passed to the progress callback.</summary>
    public struct TrainingProgress
    {
        public long EpisodesDone, EpisodesTotal, Steps;
        public double Epsilon, SuccessRate, MeanReward;
    }

    /// <summary>Panagiotou & Ntoutsi 2023's metrics of a policy on a test set.</summary>
    public struct SequentialMetrics
    {
        public long Instances, AlreadyAccepted;
        public double Satisfiability, Sparsity, Distance, TargetProbability, Entropy;
    }

    /// <summary>One step of a plan: the raw feature index, its value before and after, and
    /// the probability of the favourable outcome after the step.</summary>
    public struct PlanStep
    {
        public int Feature;
        public double From, To, Probability;
    }

    /// <summary>A trained P-DQN policy (cfx_policy). Immutable, thread-safe.</summary>
    public sealed class Policy : IDisposable
    {
        private readonly PolicyHandle h;
        internal Policy(PolicyHandle handle) { h = handle; }
        internal PolicyHandle Handle
        {
            get { if (h.IsClosed) throw new ObjectDisposedException("Cfx.Policy"); return h; }
        }
        public bool IsDisposed { get { return h.IsClosed; } }
        public void Dispose() { h.Dispose(); }

        /// <summary>
        /// Trains a policy on the declined applicants of <paramref name="train"/>. <paramref name="config"/>
        /// may be null (every default). <paramref name="progress"/> (may be null) is called on the calling
        /// thread about every hundredth of the run; returning false stops training with a
        /// CfxException CANCELLED. An exception thrown by the callback stops training too and is
        /// rethrown here (it never crosses the native frames).
        /// </summary>
        public static Policy Train(Dataset train, Model model, Config config, RewardKind reward,
            Func<TrainingProgress, bool> progress = null)
        {
            if (train == null) throw new ArgumentNullException("train");
            if (model == null) throw new ArgumentNullException("model");
            CfxLibrary.EnsureCompatible();
            Exception thrown = null;
            Native.ProgressFn fn = null;
            if (progress != null)
            {
                fn = (p, user) =>
                {
                    try
                    {
                        var n = (Native.ProgressNative)Marshal.PtrToStructure(p, typeof(Native.ProgressNative));
                        return progress(new TrainingProgress
                        {
                            EpisodesDone = (long)(ulong)n.EpisodesDone,
                            EpisodesTotal = (long)(ulong)n.EpisodesTotal,
                            Steps = (long)(ulong)n.Steps,
                            Epsilon = n.Epsilon,
                            SuccessRate = n.SuccessRate,
                            MeanReward = n.MeanReward,
                        });
                    }
                    catch (Exception e)
                    {
                        thrown = e; // never let a managed exception unwind through Rust
                        return false;
                    }
                };
            }
            ConfigHandle none;
            var ch = Config.HandleOrNull(config, out none);
            try
            {
                PolicyHandle ph;
                int st = Native.cfx_policy_train(train.Handle, model.Handle, ch, (int)reward, fn, IntPtr.Zero, out ph);
                GC.KeepAlive(fn); // the delegate must outlive every native call of it
                if (thrown != null)
                {
                    if (ph != null) ph.Dispose();
                    throw new InvalidOperationException("the progress callback threw; training stopped", thrown);
                }
                return new Policy(Call.Owned(st, ph));
            }
            finally
            {
                if (none != null) none.Dispose();
            }
        }

        public static Policy FromJson(string json)
        {
            if (json == null) throw new ArgumentNullException("json");
            CfxLibrary.EnsureCompatible();
            PolicyHandle p;
            int st = Native.cfx_policy_from_json(Utf8.Encode(json), out p);
            return new Policy(Call.Owned(st, p));
        }

        public static Policy Load(string path)
        {
            if (path == null) throw new ArgumentNullException("path");
            CfxLibrary.EnsureCompatible();
            PolicyHandle p;
            int st = Native.cfx_policy_load(Utf8.Encode(path), out p);
            return new Policy(Call.Owned(st, p));
        }

        public string ToJson()
        {
            var p = Handle;
            return Call.String((byte[] b, UIntPtr c, out UIntPtr n) => Native.cfx_policy_to_json(p, b, c, out n));
        }

        public void Save(string path)
        {
            if (path == null) throw new ArgumentNullException("path");
            Call.Check(Native.cfx_policy_save(Handle, Utf8.Encode(path)));
        }

        /// <summary>The number of actions K (the schema's mutable features).</summary>
        public int ActionCount
        {
            get { UIntPtr n; Call.Check(Native.cfx_policy_n_actions(Handle, out n)); return Call.ToInt(n); }
        }

        /// <summary>The greedy plan for one applicant (a raw row of <paramref name="schema"/>).</summary>
        public RecoursePlan Answer(Schema schema, Model model, double[] raw)
        {
            if (schema == null) throw new ArgumentNullException("schema");
            if (model == null) throw new ArgumentNullException("model");
            if (raw == null) throw new ArgumentNullException("raw");
            PlanHandle p;
            int st = Native.cfx_policy_answer(Handle, schema.Handle, model.Handle, raw, (UIntPtr)raw.Length, out p);
            return new RecoursePlan(Call.Owned(st, p));
        }

        /// <summary>Panagiotou & Ntoutsi 2023's metrics on the declined applicants of <paramref name="test"/>.</summary>
        public SequentialMetrics Evaluate(Model model, Dataset test)
        {
            if (model == null) throw new ArgumentNullException("model");
            if (test == null) throw new ArgumentNullException("test");
            Native.SequentialMetricsNative m;
            Call.Check(Native.cfx_policy_evaluate(Handle, model.Handle, test.Handle, out m));
            return new SequentialMetrics
            {
                Instances = (long)(ulong)m.NInstances,
                AlreadyAccepted = (long)(ulong)m.NAlreadyAccepted,
                Satisfiability = m.Satisfiability,
                Sparsity = m.Sparsity,
                Distance = m.Distance,
                TargetProbability = m.TargetProbability,
                Entropy = m.Entropy,
            };
        }
    }

    /// <summary>A policy's plan of steps for one applicant (cfx_plan). Immutable, thread-safe.</summary>
    public sealed class RecoursePlan : IDisposable
    {
        private readonly PlanHandle h;
        internal RecoursePlan(PlanHandle handle) { h = handle; }
        internal PlanHandle Handle
        {
            get { if (h.IsClosed) throw new ObjectDisposedException("Cfx.RecoursePlan"); return h; }
        }
        public bool IsDisposed { get { return h.IsClosed; } }
        public void Dispose() { h.Dispose(); }

        /// <summary>The number of steps (0 when the applicant is already accepted).</summary>
        public int StepCount
        {
            get { UIntPtr n; Call.Check(Native.cfx_plan_n_steps(Handle, out n)); return Call.ToInt(n); }
        }

        /// <summary>True when the plan ends accepted (or the applicant already was).</summary>
        public bool Success
        {
            get { int s; double p; Call.Check(Native.cfx_plan_success(Handle, out s, out p)); return s != 0; }
        }

        /// <summary>The probability before any step.</summary>
        public double InitialProbability
        {
            get { int s; double p; Call.Check(Native.cfx_plan_success(Handle, out s, out p)); return p; }
        }

        public PlanStep Step(int index)
        {
            PlanStep s;
            UIntPtr f;
            Call.Check(Native.cfx_plan_step(Handle, Call.Size(index, "index"), out f, out s.From, out s.To, out s.Probability));
            s.Feature = Call.ToInt(f);
            return s;
        }

        /// <summary>Step <paramref name="index"/> in words, "feature: from → to".</summary>
        public string StepText(int index)
        {
            var p = Handle;
            var i = Call.Size(index, "index");
            return Call.String((byte[] b, UIntPtr c, out UIntPtr n) => Native.cfx_plan_step_text(p, i, b, c, out n));
        }

        /// <summary>Versioned result JSON (kind "sequential_plan").</summary>
        public string ToJson()
        {
            var p = Handle;
            return Call.String((byte[] b, UIntPtr c, out UIntPtr n) => Native.cfx_plan_to_json(p, b, c, out n));
        }
    }
}
