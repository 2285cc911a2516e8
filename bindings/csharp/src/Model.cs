using System;

namespace Cfx
{
    /// <summary>Score, probability and decision of one applicant.</summary>
    public struct Prediction
    {
        public double Score;
        public double Probability;
        /// <summary>True when the probability is strictly above the model's threshold
        /// (for a scorecard: when points ≥ cutoff; its probability is NaN without a scaling).</summary>
        public bool Accepted;

        public override string ToString()
        {
            return string.Format(System.Globalization.CultureInfo.InvariantCulture,
                "score {0:F6} probability {1:F6} {2}", Score, Probability, Accepted ? "accepted" : "declined");
        }
    }

    /// <summary>
    /// An immutable scoring model (cfx_model): logistic regression, MLP, a
    /// points scorecard (<see cref="ScorecardImport.Model()"/>) or a bank's
    /// gradient-boosted tree ensemble (XGBoost, LightGBM) over the encoded
    /// space. Thread-safe: one instance may serve many threads.
    /// </summary>
    public sealed class Model : IDisposable
    {
        private readonly ModelHandle h;

        internal Model(ModelHandle handle) { h = handle; }

        internal ModelHandle Handle
        {
            get
            {
                if (h.IsClosed) throw new ObjectDisposedException("Cfx.Model");
                return h;
            }
        }

        public bool IsDisposed { get { return h.IsClosed; } }

        public void Dispose() { h.Dispose(); }

        /// <summary>score = w·x + b, accepted when sigmoid(score) &gt; threshold.</summary>
        public static Model Linear(double[] weights, double bias, double threshold = 0.5)
        {
            if (weights == null) throw new ArgumentNullException("weights");
            CfxLibrary.EnsureCompatible();
            ModelHandle m;
            int st = Native.cfx_model_linear_new(weights, (UIntPtr)weights.Length, bias, threshold, out m);
            return new Model(Call.Owned(st, m));
        }

        /// <summary>Reads a model written by <see cref="ToJson"/>, checking its dimension against the schema.</summary>
        public static Model FromJson(Schema schema, string json)
        {
            if (schema == null) throw new ArgumentNullException("schema");
            if (json == null) throw new ArgumentNullException("json");
            CfxLibrary.EnsureCompatible();
            ModelHandle m;
            int st = Native.cfx_model_from_json(schema.Handle, Utf8.Encode(json), out m);
            return new Model(Call.Owned(st, m));
        }

        /// <summary>
        /// Imports an XGBoost model saved as JSON (Booster.save_model("m.json"), objective
        /// binary:logistic) onto <paramref name="schema"/>: model columns map to features by name,
        /// one-hot columns "&lt;feature&gt;=&lt;level&gt;" to levels. <paramref name="optionsJson"/> is null
        /// (defaults) or a JSON object with the optional keys "columns", "special_as_missing",
        /// "threshold" (the cutoff on the library's probability), "favourable_class" (0 for a model of
        /// the probability of default, whose margin cfx negates; 1 for a model of repayment; undeclared,
        /// 1 is assumed and the import report says so) or "score_is" ("probability_of_default"),
        /// "missing" (XGBoost's missing value, which the JSON does not record), "trees",
        /// "category_codes", "unseen_levels" and "missing_levels" (docs/guide/gradient-boosted-models.md);
        /// check the favourable class on labelled applicants with <see cref="CheckFavourable"/>. A model
        /// or option the importer does not understand throws a <see cref="CfxException"/> with
        /// <see cref="Status.FormatError"/> naming it.
        /// </summary>
        public static Model FromXgboostJson(Schema schema, string json, string optionsJson = null)
        {
            return ImportTrees(schema, json, "json", optionsJson, Native.cfx_model_from_xgboost_json);
        }

        /// <summary><see cref="FromXgboostJson"/> of the file at <paramref name="path"/> (<see cref="Status.IoError"/> when unreadable).</summary>
        public static Model FromXgboostFile(Schema schema, string path, string optionsJson = null)
        {
            return ImportTrees(schema, path, "path", optionsJson, Native.cfx_model_from_xgboost_file);
        }

        /// <summary>
        /// Imports a LightGBM text model (Booster.save_model("m.txt"), objective binary) onto
        /// <paramref name="schema"/>; <paramref name="optionsJson"/> as in <see cref="FromXgboostJson"/>.
        /// </summary>
        public static Model FromLightgbmText(Schema schema, string text, string optionsJson = null)
        {
            return ImportTrees(schema, text, "text", optionsJson, Native.cfx_model_from_lightgbm_text);
        }

        /// <summary><see cref="FromLightgbmText"/> of the file at <paramref name="path"/> (<see cref="Status.IoError"/> when unreadable).</summary>
        public static Model FromLightgbmFile(Schema schema, string path, string optionsJson = null)
        {
            return ImportTrees(schema, path, "path", optionsJson, Native.cfx_model_from_lightgbm_file);
        }

        /// <summary>
        /// Imports a PMML 4.x document (a Scorecard or a binary logit RegressionModel) onto
        /// <paramref name="schema"/>, exactly or refused (<see cref="Status.FormatError"/> naming the
        /// element and its line). <paramref name="optionsJson"/> declares what the file does not say:
        /// favourable_class (a classifier), accept and cutoff (a scorecard), optional threshold,
        /// scaling, special_as_missing (docs/guide/pmml.md).
        /// </summary>
        public static Model FromPmmlString(Schema schema, string pmml, string optionsJson = null)
        {
            return ImportTrees(schema, pmml, "pmml", optionsJson, Native.cfx_model_from_pmml_str);
        }

        /// <summary><see cref="FromPmmlString"/> of the file at <paramref name="path"/> (<see cref="Status.IoError"/> when unreadable).</summary>
        public static Model FromPmmlFile(Schema schema, string path, string optionsJson = null)
        {
            return ImportTrees(schema, path, "path", optionsJson, Native.cfx_model_from_pmml_file);
        }

        /// <summary>
        /// Imports a CatBoost JSON model (save_model("m.json", format="json", pool=...), loss Logloss,
        /// symmetric trees) onto <paramref name="schema"/>, exactly or refused (<see cref="Status.FormatError"/>:
        /// CTR categorical features, non-symmetric trees, other losses). <paramref name="optionsJson"/> as for
        /// XGBoost (favourable_class, special_as_missing, unseen_levels, threshold, columns; docs/guide/catboost.md).
        /// </summary>
        public static Model FromCatboostJson(Schema schema, string json, string optionsJson = null)
        {
            return ImportTrees(schema, json, "json", optionsJson, Native.cfx_model_from_catboost_json_str);
        }

        /// <summary><see cref="FromCatboostJson"/> of the file at <paramref name="path"/> (<see cref="Status.IoError"/> when unreadable).</summary>
        public static Model FromCatboostFile(Schema schema, string path, string optionsJson = null)
        {
            return ImportTrees(schema, path, "path", optionsJson, Native.cfx_model_from_catboost_json_file);
        }

        /// <summary>
        /// Imports an Explainable Boosting Machine (interpret's JSON, version 1.0, binary, logit link) onto
        /// <paramref name="schema"/> as one tree per main term or pair, exactly or refused
        /// (<see cref="Status.FormatError"/>: regression, multiclass, three-feature terms; docs/guide/ebm.md).
        /// </summary>
        public static Model FromEbmJson(Schema schema, string json, string optionsJson = null)
        {
            return ImportTrees(schema, json, "json", optionsJson, Native.cfx_model_from_ebm_json_str);
        }

        /// <summary><see cref="FromEbmJson"/> of the file at <paramref name="path"/> (<see cref="Status.IoError"/> when unreadable).</summary>
        public static Model FromEbmFile(Schema schema, string path, string optionsJson = null)
        {
            return ImportTrees(schema, path, "path", optionsJson, Native.cfx_model_from_ebm_json_file);
        }

        /// <summary>
        /// An ONNX binary classifier (a <c>.onnx</c> file): <c>LinearClassifier</c>, MatMul/Gemm layers
        /// (a linear model or an MLP) or <c>TreeEnsembleClassifier</c>/<c>Regressor</c>, read exactly as
        /// onnxruntime evaluates it or refused naming the node (<see cref="Status.FormatError"/>).
        /// <paramref name="optionsJson"/> declares what the graph does not say: favourable_class
        /// (required), the input's columns in order (default: the schema's features), optional
        /// threshold, special_as_missing, category_codes (docs/guide/onnx.md).
        /// </summary>
        public static Model FromOnnxFile(Schema schema, string path, string optionsJson = null)
        {
            return ImportTrees(schema, path, "path", optionsJson, Native.cfx_model_from_onnx_file);
        }

        /// <summary>
        /// An ONNX binary classifier from its bytes in memory (the content of a <c>.onnx</c> file, as a
        /// model registry returns it), read as <see cref="FromOnnxFile"/>. Empty, garbage or truncated
        /// bytes are <see cref="Status.FormatError"/> with the reason; the array is pinned only during
        /// the call.
        /// </summary>
        public static Model FromOnnxBytes(Schema schema, byte[] bytes, string optionsJson = null)
        {
            if (schema == null) throw new ArgumentNullException("schema");
            if (bytes == null) throw new ArgumentNullException("bytes");
            CfxLibrary.EnsureCompatible();
            ModelHandle m;
            int st = Native.cfx_model_from_onnx_bytes(schema.Handle, bytes, (UIntPtr)bytes.Length,
                Utf8.Encode(optionsJson), out m);
            return new Model(Call.Owned(st, m));
        }

        private delegate int TreeImporter(SchemaHandle schema, byte[] textOrPath, byte[] optionsJson, out ModelHandle m);

        private static Model ImportTrees(Schema schema, string textOrPath, string what, string optionsJson, TreeImporter import)
        {
            if (schema == null) throw new ArgumentNullException("schema");
            if (textOrPath == null) throw new ArgumentNullException(what);
            CfxLibrary.EnsureCompatible();
            ModelHandle m;
            int st = import(schema.Handle, Utf8.Encode(textOrPath), Utf8.Encode(optionsJson), out m);
            return new Model(Call.Owned(st, m));
        }

        /// <summary>L2-regularised logistic regression (scikit-learn's LogisticRegression(C=c)), threshold 0.5.</summary>
        public static Model FitLinear(Dataset data, double c = 1.0)
        {
            if (data == null) throw new ArgumentNullException("data");
            CfxLibrary.EnsureCompatible();
            ModelHandle m;
            int st = Native.cfx_model_fit_linear(data.Handle, c, out m);
            return new Model(Call.Owned(st, m));
        }

        /// <summary>Trains an MLP (ReLU hidden layers, Adam); the same seed gives the same bits.</summary>
        public static Model TrainMlp(Dataset data, int[] hidden, int epochs, int batchSize, double learningRate,
            double l2, ulong seed)
        {
            if (data == null) throw new ArgumentNullException("data");
            if (hidden == null) throw new ArgumentNullException("hidden");
            CfxLibrary.EnsureCompatible();
            var hs = new UIntPtr[hidden.Length];
            for (int i = 0; i < hidden.Length; i++) hs[i] = Call.Size(hidden[i], "hidden");
            ModelHandle m;
            int st = Native.cfx_model_train_mlp(data.Handle, hs, (UIntPtr)hs.Length, Call.Size(epochs, "epochs"),
                Call.Size(batchSize, "batchSize"), learningRate, l2, seed, out m);
            return new Model(Call.Owned(st, m));
        }

        public string ToJson()
        {
            var m = Handle;
            return Call.String((byte[] b, UIntPtr c, out UIntPtr n) => Native.cfx_model_to_json(m, b, c, out n));
        }

        /// <summary>The fingerprint of the canonical JSON, "fnv1a64:…".</summary>
        public string Fingerprint()
        {
            var m = Handle;
            return Call.String((byte[] b, UIntPtr c, out UIntPtr n) => Native.cfx_model_fingerprint(m, b, c, out n));
        }

        public ModelKind Kind
        {
            get
            {
                int k;
                Call.Check(Native.cfx_model_get_kind(Handle, out k));
                if (!Enum.IsDefined(typeof(ModelKind), k))
                    throw new InvalidOperationException("unknown model kind " + k + " (cfx_model_kind)");
                return (ModelKind)k;
            }
        }

        // The model is immutable: its input dimension is read once (−1 = not read yet).
        private int inputDim = -1;

        public int InputDim
        {
            get
            {
                var h0 = Handle;
                if (inputDim < 0) { UIntPtr n; Call.Check(Native.cfx_model_input_dim(h0, out n)); inputDim = Call.ToInt(n); }
                return inputDim;
            }
        }

        /// <summary>The area under the ROC curve of this model's score on the labelled applicants of
        /// <paramref name="data"/> (labels 1 = the favourable outcome); a <see cref="CfxException"/>
        /// when the model ranks the favourable applicants below the others (AUC ≤ 0.5: a model of default
        /// imported as a model of repayment, or the reverse), saying which class to declare at import
        /// (<c>favourable_class</c>).</summary>
        public double CheckFavourable(Dataset data)
        {
            if (data == null) throw new ArgumentNullException("data");
            double auc;
            Call.Check(Native.cfx_model_check_favourable(Handle, data.Handle, out auc));
            GC.KeepAlive(data);
            return auc;
        }

        public double Threshold
        {
            get { double t; Call.Check(Native.cfx_model_threshold(Handle, out t)); return t; }
        }

        /// <summary>Prediction for one encoded row (length <see cref="InputDim"/>).</summary>
        public Prediction Predict(double[] x)
        {
            if (x == null) throw new ArgumentNullException("x");
            Prediction p;
            int acc;
            Call.Check(Native.cfx_model_predict(Handle, x, (UIntPtr)x.Length, out p.Score, out p.Probability, out acc));
            p.Accepted = acc != 0;
            return p;
        }

        /// <summary>Prediction for one raw applicant row, encoded through <paramref name="schema"/>.</summary>
        public Prediction PredictRaw(Schema schema, double[] raw)
        {
            if (schema == null) throw new ArgumentNullException("schema");
            if (raw == null) throw new ArgumentNullException("raw");
            Prediction p;
            int acc;
            Call.Check(Native.cfx_model_predict_raw(Handle, schema.Handle, raw, (UIntPtr)raw.Length,
                out p.Score, out p.Probability, out acc));
            p.Accepted = acc != 0;
            return p;
        }

        /// <summary>Probabilities of nRows encoded rows stored row-major in <paramref name="rowMajor"/>.</summary>
        public double[] ProbabilityBatch(double[] rowMajor, int nRows)
        {
            if (rowMajor == null) throw new ArgumentNullException("rowMajor");
            var m = Handle;
            int d = InputDim;
            // The C side reads nRows × input_dim values: check before handing the pointer over.
            if (nRows < 0 || (long)nRows * d != rowMajor.Length)
                throw new ArgumentException(string.Format(
                    "rowMajor must hold nRows × InputDim = {0} × {1} values, it has {2}", nRows, d, rowMajor.Length));
            var rows = (UIntPtr)nRows;
            return Call.Doubles((double[] b, UIntPtr c, out UIntPtr n) =>
                Native.cfx_model_probability_batch(m, rowMajor, rows, b, c, out n), nRows);
        }

        /// <summary>Probabilities of encoded rows (each of length <see cref="InputDim"/>).</summary>
        public double[] ProbabilityBatch(double[][] rows)
        {
            if (rows == null) throw new ArgumentNullException("rows");
            int d = InputDim;
            var flat = new double[rows.Length * d];
            for (int i = 0; i < rows.Length; i++)
            {
                if (rows[i] == null || rows[i].Length != d)
                    throw new ArgumentException("every row must have InputDim = " + d + " values (row " + i + ")", "rows");
                Array.Copy(rows[i], 0, flat, i * d, d);
            }
            return ProbabilityBatch(flat, rows.Length);
        }
    }
}
