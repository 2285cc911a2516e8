"""The package's families one by one, each against an oracle: closed forms, the C API's
own other entry points, sklearn/numpy, or invariants the papers state."""

import json
import math
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import cfx
from conftest import ROOT


@pytest.fixture(scope="module")
def german(german_path):
    d = cfx.load_german(german_path)
    s = d.schema
    train, test = d.holdout_split()
    m = cfx.Model.fit_linear(train, 1.0)
    yield d, s, train, test, m
    for h in (m, test, train, s, d):
        h.close()


def first_declined(s, m, data):
    return next(i for i in range(len(data)) if not m.predict_raw(s, data.row(i)).accepted)


def test_load_german_has_len_and_frames_round_trip(german):
    d, s, *_ = german
    assert len(d) == d.n_rows == 1000
    frame = d.to_frame()
    assert list(frame.columns) == s.feature_names + ["label"]
    assert frame["label"].sum() == 700  # 700 good, 300 bad in Statlog German credit
    rows = s.rows_from_frame(frame, ignore=["label"])
    np.testing.assert_array_equal(rows, d.rows)
    by_index = s.rows_from_frame(d.to_frame(level_names=False, label_column=None))
    np.testing.assert_array_equal(by_index, d.rows)
    with pytest.raises(KeyError, match="label"):
        s.rows_from_frame(frame)  # a column that is not a feature must be named
    bad = frame.drop(columns="label").copy()
    bad.loc[0, "housing"] = "castle"
    with pytest.raises(ValueError, match="castle"):
        s.rows_from_frame(bad)


def test_schema_encode_decode_json_and_names(german):
    d, s, *_ = german
    assert s.feature_name(0) == s.feature_names[0]
    assert s.index_of("housing") == s.feature_names.index("housing")
    with pytest.raises(cfx.CfxError) as e:
        s.index_of("no such feature")
    assert e.value.status_name == "CFX_STATUS_NOT_FOUND"
    x = s.encode(d.rows)
    assert x.shape == (1000, s.encoded_dim)
    for i in range(0, 1000, 37):
        np.testing.assert_array_equal(s.decode(x[i]), d.row(i))
    with cfx.Schema.from_json(s.to_json()) as again:
        assert again.fingerprint() == s.fingerprint()
    row = d.row(0)
    after = row.copy()
    after[s.index_of("duration_in_month")] = row[s.index_of("duration_in_month")] + 6
    text = s.describe_changes(row, after)
    assert text.strip().startswith("duration_in_month:") and len(text.strip().splitlines()) == 1


def test_fit_weights_gives_a_new_schema_and_leaves_the_old_one(german):
    d, s, *_ = german
    before = s.to_json()
    with s.fit_weights(d.rows[:500]) as t:
        assert s.to_json() == before
        assert t.n_features == s.n_features
        assert t.to_json() != before  # other rows, other MADs


def test_schema_builder_with_special_states_and_actionability():
    b = cfx.Schema.builder()
    b.add_contiguous("months_since_delinquency", 0, 83, integer=True).add_special_state(
        -7, "never delinquent"
    )
    b.set_actionability(True, "increase_only")
    b.add_categorical("housing", ["own", "rent", "free"]).set_actionability(False, "any")
    with b.build() as s:
        assert s.feature_names == ["months_since_delinquency", "housing"]
        f = s.features
        assert f[0]["special_states"] == [{"code": -7.0, "label": "never delinquent"}]
        assert f[0]["actionability"]["direction"] == "increase_only"
        assert f[1]["levels"] == ["own", "rent", "free"]
        # value slot + special-state indicator, three one-hot levels
        assert s.encoded_dim == 2 + 3
        np.testing.assert_array_equal(s.decode(s.encode([-7, 2])), [-7, 2])
    with pytest.raises(ValueError, match="direction"):
        cfx.Schema.builder().add_contiguous("a", 0, 1).set_actionability(True, "sideways")


def test_dataset_from_csv_with_and_without_the_default_dialect(german, tmp_path):
    d, s, *_ = german
    frame = d.to_frame(label_column="outcome")
    frame["outcome"] = np.where(frame["outcome"] > 0.5, "good", "bad")
    comma, semi = tmp_path / "a.csv", tmp_path / "b.csv"
    frame.to_csv(comma, index=False)
    frame.to_csv(semi, index=False, sep=";")
    with (
        cfx.Dataset.from_csv(s, comma, "outcome", "good") as a,
        cfx.Dataset.from_csv(s, semi, "outcome", "good", delimiter=";") as b,
    ):
        np.testing.assert_array_equal(a.rows, d.rows)
        np.testing.assert_array_equal(b.rows, d.rows)
        np.testing.assert_array_equal(a.labels, d.labels)
    with pytest.raises(cfx.CfxError) as e:
        cfx.Dataset.from_csv(s, comma, "outcome", "excellent")
    assert e.value.status_name == "CFX_STATUS_DATA_ERROR" and "good" in e.value.message


def test_linear_model_from_weights_matches_numpy(german):
    d, s, *_ = german
    rng = np.random.default_rng(3)
    w = rng.normal(size=s.encoded_dim)
    with cfx.Model.linear(w, -0.25, 0.4) as m:
        x = s.encode(d.rows[:50])
        z = x @ w - 0.25
        np.testing.assert_allclose(m.scores(x), z, rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(m.probabilities(x), 1 / (1 + np.exp(-z)), rtol=1e-13)
        assert [m.predict(r).accepted for r in x] == list(1 / (1 + np.exp(-z)) > 0.4)
        assert m.threshold == 0.4 and m.kind == "linear"
        doc = json.loads(m.to_json())
        np.testing.assert_array_equal(doc["weights"], w)
        with cfx.Model.from_json(s, m.to_json()) as again:
            assert again.fingerprint() == m.fingerprint()


def test_mlp_training_is_reproducible(german):
    _, s, train, test, _ = german
    with (
        cfx.Model.train_mlp(train, hidden=(8,), epochs=3, batch_size=64, learning_rate=1e-2, seed=9) as a,
        cfx.Model.train_mlp(train, hidden=(8,), epochs=3, batch_size=64, learning_rate=1e-2, seed=9) as b,
    ):
        assert a.kind == "mlp" and a.input_dim == s.encoded_dim
        assert a.to_json() == b.to_json()
        p = a.probabilities(test.encoded())
        assert ((p > 0) & (p < 1)).all()


def test_coherent_batch_equals_one_by_one_and_reports_accepted_applicants(german):
    _, s, _, test, m = german
    rows = test.rows[:12]
    with cfx.Config(threads=2) as two, cfx.explain_batch(s, m, rows, two) as batch:
        assert len(batch) == 12
        doc = json.loads(batch.to_json())
        assert len(doc["result"]["applicants"]) == 12
        for i, r in enumerate(rows):
            if m.predict_raw(s, r).accepted:
                assert batch.status(i) == "CFX_STATUS_INVALID_ARGUMENT"
                assert "accept" in batch.error(i)
                with pytest.raises(cfx.CfxError):
                    batch.result(i)
            else:
                assert batch.status(i) == "CFX_STATUS_OK" and batch.error(i) == ""
                with batch.result(i) as got, cfx.explain(s, m, r) as one:
                    np.testing.assert_array_equal(got.counterfactual(0), one.counterfactual(0))
                    assert got.certificate(0).cost == one.certificate(0).cost
                    assert json.loads(got.to_json())["result"] == json.loads(one.to_json())["result"]


def test_explain_frame_dataframe_in_dataframe_out(german):
    _, s, _, test, m = german
    frame = test.to_frame(label_column=None).iloc[:10]
    out = cfx.explain_frame(s, m, frame)
    assert list(out["applicant"]) == list(frame.index)
    declined = [not m.predict_raw(s, r).accepted for r in test.rows[:10]]
    assert list(out["status"] == "CFX_STATUS_OK") == declined
    for i, row in out.iterrows():
        if not declined[i]:
            assert pd.isna(row["outcome"]) and math.isnan(row["cost"])
            continue
        with cfx.explain(s, m, test.row(i)) as r:
            assert row["outcome"] == r.outcome
            assert row["cost"] == r.certificate(0).cost
            cf = s.frame_from_rows(r.counterfactual(0))
            for name in s.feature_names:
                assert row[name] == cf.loc[0, name], name
            assert row["changes"] == "; ".join(
                s.describe_changes(test.row(i), r.counterfactual(0)).splitlines()
            )


def test_infeasible_is_an_outcome_with_its_blocking_groups():
    b = cfx.Schema.builder()
    b.add_contiguous("income", 0, 10).set_actionability(False, "any")
    with b.build() as s, cfx.Model.linear([1.0], -5.0) as m:
        with cfx.explain(s, m, [1.0]) as r:
            assert r.outcome == "infeasible" and len(r) == 0
            assert isinstance(r.blocking_mask, int)
            assert "no recourse" in r.describe()
            assert json.loads(r.to_json())["result"]["outcome"]["status"] == "infeasible"


def test_config_settings_reach_the_library():
    with cfx.Config(
        time_limit=5,
        threads=2,
        mip_gap=1e-6,
        margin=0.01,
        n_diverse=4,
        diversity_rule="distinct_subsets",
        solver="mip",
        robust_advice=(0.01, 0.2),
        n_samples=500,
        bound_m=0.05,
        target=(0.3, 0.01),
        seed=77,
        copa_weights=(2.0, 50.0),
        copa_radius=0.1,
        rl_episodes=(10, 4),
        rl_training=(0.9, 1e-3, 1e-4, 16, 64),
        rl_exploration=(1.0, 0.1),
        rl_hidden=[8, 4],
    ) as c:
        text = c.to_json()
        for v in ("77", "0.3", "500", "distinct", "mip", "invalidation_target"):
            assert v.lower() in text.lower(), v
    with cfx.Config() as empty:
        assert "77" not in empty.to_json()


def exact_gamma(w, b, x, t, sd):
    """Φ((logit(t) − (w·x + b)) / sqrt(Σ w_j² sd_j²)): the exact invalidation rate of a
    logistic model under independent Gaussian noise (Guyomard et al. 2023, §2.3)."""
    z = (math.log(t / (1 - t)) - (w @ x + b)) / math.sqrt(np.sum((w * sd) ** 2))
    return 0.5 * math.erfc(-z / math.sqrt(2))


def test_robust_estimates_against_closed_forms(german):
    _, s, _, test, m = german
    doc = json.loads(m.to_json())
    w, b = np.array(doc["weights"]), doc["bias"]
    x = s.encode(test.row(first_declined(s, m, test)))
    cols = [s.index_of("duration_in_month"), 5]
    cols = sorted(set(int(c) for c in cols))
    sd = np.zeros_like(w)
    sd[cols] = 0.3
    with (
        cfx.Noise.on_columns("gaussian", cols, [0.3**2] * len(cols)) as noise,  # variances
        cfx.Estimator(noise, 20000, "generic") as est,
        cfx.Workspace(m, 1) as ws,
    ):
        exact = exact_gamma(w, b, x, m.threshold, sd)
        assert est.exact_rate(m, x) == pytest.approx(exact, rel=1e-12, abs=1e-15)
        e = est.estimate(m, ws, x)
        assert abs(e.gamma - exact) <= 5 * max(e.gamma_se, 1e-3)
        ws.reseed(1)
        again = est.estimate(m, ws, x)
        assert again == e  # same seed, same bits
        bd = est.bound(m, ws, x, 0.02)
        assert bd.confidence == pytest.approx(1 - math.exp(-2 * 20000 * 0.02**2), rel=1e-12)
        assert cfx.robust.bound_confidence(20000, 0.02) == bd.confidence
        assert math.isnan(cfx.robust.bound_confidence(10, 0.0))
        probe = est.probe_rate(m, ws, x)
        assert 0 <= probe <= 1
        pts = s.encode(test.rows[:20])
        g1, t1 = est.estimate_batch(m, pts, seed=5, threads=1)
        g2, t2 = est.estimate_batch(m, pts, seed=5, threads=2)
        np.testing.assert_array_equal(g1, g2)
        np.testing.assert_array_equal(t1, t2)
        for i in range(20):
            ex = exact_gamma(w, b, pts[i], m.threshold, sd)
            assert abs(g1[i] - ex) <= max(5 * math.sqrt(ex * (1 - ex) / 20000), 2e-3)
    with cfx.Noise.on_columns("uniform", cols, [0.3] * len(cols)) as uni, cfx.Estimator(uni, 100) as est:
        with pytest.raises(cfx.CfxError) as err:
            est.exact_rate(m, x)
        assert err.value.status_name == "CFX_STATUS_INVALID_ARGUMENT"


def test_robust_generators_give_valid_coherent_answers(german):
    _, s, _, test, m = german
    row = test.row(first_declined(s, m, test))
    with cfx.Noise.gaussian(schema=s, sigma2=0.01) as noise, cfx.Config(seed=3, n_samples=200) as c:
        for method in ("wachter", "probe", "croco"):
            with cfx.robust.generate(s, m, noise, method, row, c) as r:
                sm = r.summary()
                raw = r.raw()
                np.testing.assert_array_equal(s.encode(raw), r.encoded())
                p = m.predict_raw(s, raw)
                assert sm.valid == p.accepted
                assert sm.probability == pytest.approx(p.probability, rel=1e-12)
                doc = json.loads(r.to_json(s, m))
                assert doc["inputs"]["schema"] == s.fingerprint() if "inputs" in doc else True
        with (
            cfx.Model.linear(np.ones(s.encoded_dim), 0.0) as other,
            cfx.robust.generate(s, m, noise, "croco", row, c) as r,
        ):
            with pytest.raises(cfx.CfxError) as e:
                r.to_json(s, other)
            assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT"


def test_copa_bounds_corrections_and_plans(german):
    _, s, train, test, m = german
    doc = json.loads(m.to_json())
    dim = s.encoded_dim
    mean = np.concatenate([[doc["bias"]], doc["weights"]])
    with cfx.Uncertainty.from_moments(mean, np.eye(dim + 1) * 1e-4) as u:
        assert u.dim == dim + 1
        declined = s.encode(test.row(first_declined(s, m, test)))
        accepted_row = next(test.row(i) for i in range(len(test)) if m.predict_raw(s, test.row(i)).accepted)
        # Proposition 2.4: an option with μ̂ᵀx̃ ≤ 0 makes L* = 0 without a program.
        b = cfx.copa.bounds(u, [declined, s.encode(accepted_row)], rho=0.0)
        assert b.lower == 0.0 and b.lower_status == "trivial_mean_outside"
        b = cfx.copa.bounds(u, [s.encode(accepted_row)], rho=0.05)
        assert 0 <= b.lower <= b.upper <= 1
        fixed = cfx.copa.correct(u, [declined], rho=0.0, delta=0.1)
        assert fixed.options.shape == (1, dim)
        assert fixed.lower_after >= fixed.lower_before
        assert mean[0] + fixed.options[0] @ mean[1:] >= 0.1 - 1e-9  # the Requirement projection
    with (
        cfx.Uncertainty.from_dataset(train, refits=20, seed=4) as u,
        cfx.Config(n_diverse=3, seed=1) as c,
        cfx.copa.plan(s, u, test.row(first_declined(s, m, test)), c) as plan,
    ):
        assert len(plan) == 3
        for k in range(3):
            opt = plan.option(k)
            np.testing.assert_array_equal(s.decode(s.encode(opt)), opt)
        met = plan.metrics()
        assert met.proximity >= 0
        assert plan.describe().startswith("option 1")
        assert json.loads(plan.to_json())["kind"] == "copa_plan"


def test_policy_persistence_progress_and_plans(german, tmp_path):
    _, s, train, test, m = german
    seen = []
    with cfx.Config(seed=2, rl_episodes=(60, 4), rl_hidden=[8]) as c:
        with cfx.Policy.train(train, m, c, "probability", progress=lambda p: seen.append(p) or True) as pol:
            assert seen and seen[-1]["episodes_done"] == seen[-1]["episodes_total"] == 60
            assert pol.n_actions > 0
            path = tmp_path / "policy.json"
            pol.save(path)
            with cfx.Policy.load(path) as a, cfx.Policy.from_json(pol.to_json()) as b:
                assert a.to_json() == b.to_json() == pol.to_json()
            row = test.row(first_declined(s, m, test))
            with pol.answer(s, m, row) as plan:
                now = row.copy()
                for i, st in enumerate(plan.steps):
                    assert st.before == now[st.feature]
                    now[st.feature] = st.after
                    assert st.probability == pytest.approx(m.predict_raw(s, now).probability, rel=1e-12)
                    assert plan.step_text(i).startswith(s.feature_name(st.feature))
                assert plan.success == m.predict_raw(s, now).accepted
                assert plan.initial_probability == pytest.approx(m.predict_raw(s, row).probability, rel=1e-12)
                assert json.loads(plan.to_json())["kind"] == "sequential_plan"
            met = pol.evaluate(m, test)
            assert met.n_instances + met.n_already_accepted == len(test)
        # A callback that says stop cancels; one that raises cancels and re-raises.
        with pytest.raises(cfx.CfxError) as e:
            cfx.Policy.train(train, m, c, progress=lambda p: False)
        assert e.value.status_name == "CFX_STATUS_CANCELLED"
        with pytest.raises(ZeroDivisionError):
            cfx.Policy.train(train, m, c, progress=lambda p: 1 / 0)


def test_the_library_is_found_next_to_the_package_through_cfx_lib_and_installed(tmp_path):
    """The three places: the package folder, CFX_LIB (file or folder), the system library path."""
    import shutil

    pkg = tmp_path / "site" / "cfx"
    shutil.copytree(os.path.dirname(cfx.__file__), pkg, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(cfx.LIB_PATH, pkg / "libcfx.so")
    env = {k: v for k, v in os.environ.items() if k != "CFX_LIB"}
    env["PYTHONPATH"] = str(tmp_path / "site")
    code = "import cfx; print(cfx.LIB_PATH)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(pkg / "libcfx.so")
    env["CFX_LIB"] = os.path.dirname(cfx.LIB_PATH)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert out.stdout.strip() == os.path.join(os.path.dirname(cfx.LIB_PATH), "libcfx.so"), out.stderr
    # Installed: found where the system looks (here LD_LIBRARY_PATH, which find_library reads).
    os.remove(pkg / "libcfx.so")
    system = tmp_path / "lib"
    system.mkdir()
    # laid out as `make install` does: the library under its soname, and the link
    soname = f"libcfx.so.{cfx.abi_version()}"
    shutil.copy(cfx.LIB_PATH, system / soname)
    os.symlink(soname, system / "libcfx.so")
    env.pop("CFX_LIB")
    env["LD_LIBRARY_PATH"] = str(system)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"libcfx.so.{cfx.abi_version()}"  # find_library's answer: the soname
    env["CFX_LIB"] = str(tmp_path / "nowhere.so")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode != 0 and "CFX_LIB" in out.stderr and "nowhere.so" in out.stderr


def test_portfolio_summary_of_a_hand_made_audit():
    from cfx import portfolio

    audit = pd.DataFrame(
        {
            "decision": ["declined", "declined", "accepted", "declined", "declined", "declined"],
            "has_recourse": [True, True, False, False, True, True],
            "cost": [1.0, 3.0, np.nan, np.nan, 2.0, 5.0],
            "invalidation_rate": [0.2, 0.4, np.nan, np.nan, 0.5, 0.1],
            "changed_features": ["a;b", "b", None, None, "c;a", "b;c"],
            "g": ["x", "x", "x", "x", "y", "y"],
        }
    )
    out = portfolio.summarise(audit, "g").set_index("g")
    x, y = out.loc["x"], out.loc["y"]
    assert (x.applicants, x.declined, x.with_recourse) == (4, 3, 2)
    assert x.share_with_recourse == pytest.approx(2 / 3)
    assert (x.cost_mean, x.cost_p25, x.cost_p50, x.cost_p75, x.cost_p90, x.cost_max) == (
        2.0,
        1.5,
        2.0,
        2.5,
        2.8,
        3.0,
    )
    assert x.invalidation_mean == pytest.approx(0.3)
    assert x.top_changes == "b:2; a:1"
    assert (y.applicants, y.declined, y.with_recourse, y.share_with_recourse) == (2, 2, 2, 1.0)
    assert y.top_changes == "c:2; a:1; b:1"  # ties by name
    assert y.cost_p90 == pytest.approx(2.0 + 0.9 * 3.0)


def test_auditors_are_shared_per_process(german):
    from cfx.portfolio import Auditor

    _, s, _, _, m = german
    a = Auditor.shared(s.to_json(), m.to_json(), {"time_limit": 5.0}, 0.01, 100, 3)
    assert Auditor.shared(s.to_json(), m.to_json(), {"time_limit": 5.0}, 0.01, 100, 3) is a
    assert Auditor.shared(s.to_json(), m.to_json(), {"time_limit": 5.0}, 0.01, 100, 4) is not a


def test_mlp_bound_tightening_off_proves_the_same_optimum(german):
    """The exact engine on a ReLU network, with LP bound tightening (default) and with the
    interval bounds alone (the textbook big-M program): both are exact, so the optimal costs
    of the same declined applicants are equal (each formulation is the other's oracle), and
    each counterfactual is accepted by the network's own forward pass."""
    _, s, train, test, _ = german
    with (
        cfx.Model.train_mlp(train, hidden=(8,), epochs=30, batch_size=32, learning_rate=1e-2, l2=1e-4, seed=42) as m,
        cfx.Config(time_limit=60) as tight,
        cfx.Config(time_limit=60, mlp_bound_tightening=False) as plain,
    ):
        declined = [i for i in range(len(test)) if not m.predict_raw(s, test.row(i)).accepted][:3]
        assert declined
        for i in declined:
            with cfx.explain(s, m, test.row(i), tight) as a, cfx.explain(s, m, test.row(i), plain) as b:
                assert a.outcome == b.outcome == "optimal"
                assert a.certificate(0).cost == pytest.approx(b.certificate(0).cost, rel=1e-9)
                assert m.predict_raw(s, b.counterfactual(0)).accepted
    with pytest.raises(TypeError):
        cfx.Config(mlp_bound_tightening_typo=False)
