// The German credit set-up shared by the tests that advise a declined applicant of the hold-out part.
using System;
using System.Diagnostics;
using System.IO;
using System.Linq;
using Cfx;

public static partial class Tests
{
    /// <summary>The bundled German credit file.</summary>
    static string GermanCsv { get { return Path.Combine(Root, "examples/data/german_credit.csv"); } }

    /// <summary>The folder <paramref name="name"/>-(this process's id) under the temporary folder, created
    /// when missing: one test's files.</summary>
    static string TestDir(string name)
    {
        var dir = Path.Combine(Path.GetTempPath(), name + "-" + Process.GetCurrentProcess().Id);
        Directory.CreateDirectory(dir);
        return dir;
    }

    /// <summary>The German file's header and its first <paramref name="rows"/> applicants, written to
    /// book.csv in <paramref name="dir"/>: its path.</summary>
    static string GermanHead(string dir, int rows)
    {
        var csv = Path.Combine(dir, "book.csv");
        File.WriteAllLines(csv, File.ReadAllLines(GermanCsv).Take(rows + 1));
        return csv;
    }
}

/// <summary>The bundled German credit data, its schema, its hold-out split and a logistic model fitted on
/// the training part; disposing of it disposes of them all.</summary>
sealed class GermanHoldout : IDisposable
{
    public readonly Dataset Data;
    public readonly Schema Schema;
    public readonly Dataset Train;
    public readonly Dataset Test;
    public readonly Model Linear;

    public GermanHoldout()
    {
        Data = Dataset.LoadGerman();
        Schema = Data.GetSchema();
        Data.HoldoutSplit(out Train, out Test);
        Linear = Model.FitLinear(Train);
    }

    /// <summary>The first applicant of the hold-out part that <paramref name="m"/> declines (its raw row).</summary>
    public double[] FirstDeclined(Model m)
    {
        int i = Enumerable.Range(0, Test.RowCount).First(k => !m.PredictRaw(Schema, Test.Row(k)).Accepted);
        return Test.Row(i);
    }

    public void Dispose()
    {
        Linear.Dispose();
        Test.Dispose();
        Train.Dispose();
        Schema.Dispose();
        Data.Dispose();
    }
}
