"""The shared scenario of examples/binding_scenario.rs replayed through the Python binding
and compared with the Rust output (bindings/scenario_expected.txt) bit for bit."""

import os

import numpy as np

import cfx
from conftest import ROOT, bits, fnv1a64


def assert_bits(expected, actual, what):
    assert bits(float(expected)) == bits(actual), f"{what}: expected {expected}, got {actual!r}"


def assert_row(expected, actual, what):
    parts = expected.split(",")
    assert len(parts) == len(actual), what
    for i, (e, a) in enumerate(zip(parts, actual)):
        assert_bits(e, a, f"{what}[{i}]")


def test_german_scenario_matches_rust_bit_for_bit(expected, german_path):
    exp = expected
    assert exp["dataset"] == "german_credit"
    with cfx.load_german(german_path) as d, d.schema as schema:
        train, test = d.holdout_split()
        with train, test, cfx.Model.fit_linear(train, 1.0) as model:
            assert len(d) == int(exp["n_rows"])
            assert len(train) == int(exp["n_train"])
            assert len(test) == int(exp["n_test"])
            assert schema.n_features == int(exp["n_features"])
            assert schema.encoded_dim == int(exp["encoded_dim"]) == model.input_dim
            assert_bits(exp["threshold"], model.threshold, "threshold")
            assert model.kind == "linear"

            x = test.encoded()
            p = model.probabilities(x)
            y = test.labels
            accepted = p > model.threshold
            assert_bits(exp["accuracy"], float(np.sum(accepted == (y > 0.5))) / len(p), "accuracy")
            for i in range(5):
                assert_bits(exp[f"prob_{i}"], p[i], f"prob_{i}")
                assert_bits(exp[f"prob_{i}"], model.predict(x[i]).probability, f"predict prob_{i}")
            first = int(np.flatnonzero(~accepted)[0])
            assert first == int(exp["first_declined"])
            assert schema.fingerprint() == exp["schema_fingerprint"]
            assert model.fingerprint() == exp["model_fingerprint"]
            assert model.fingerprint() == fnv1a64(model.to_json())

            applicant = test.row(first)
            with cfx.explain(schema, model, applicant) as r:
                assert r.outcome == exp["coherent_outcome"].lower()
                assert len(r) == int(exp["coherent_count"])
                assert_bits(exp["coherent_cost"], r.certificate(0).cost, "coherent_cost")
                assert_bits(exp["coherent_probability"], r.certificate(0).probability, "coherent_probability")
                assert_row(exp["coherent_raw"], r.counterfactual(0), "coherent_raw")
            with cfx.Config(n_diverse=3) as three, cfx.explain_diverse(schema, model, applicant, three) as r:
                assert len(r) == int(exp["diverse_count"])
                for k in range(len(r)):
                    assert_bits(exp[f"diverse_cost_{k}"], r.certificate(k).cost, f"diverse_cost_{k}")
                    assert_row(exp[f"diverse_raw_{k}"], r.counterfactual(k), f"diverse_raw_{k}")

            # Waiting advice under the German preset at 0.001 per month (the preset keeps the
            # instalment rate fixed, so for this applicant acting now may be the cheapest).
            with (
                schema.advice_preset("german", 0.001) as advised,
                cfx.explain_with_waiting(advised, model, applicant) as w,
            ):
                assert w.found
                s = w.summary()
                assert s.months == int(exp["waiting_months"])
                assert_bits(exp["waiting_wait_cost"], s.wait_cost, "waiting_wait_cost")
                assert_bits(exp["waiting_cost"], s.total_cost, "waiting_cost")
                assert_row(exp["waiting_raw"], w.final_row(), "waiting_raw")
                age = schema.index_of("age_in_years")
                assert w.waited_row()[age] == applicant[age] + s.months // 12
                if s.months > 0:
                    assert w.describe().startswith(f"wait {s.months} months"), w.describe()
                else:
                    assert not w.describe().startswith("wait"), w.describe()
                assert '"kind": "waiting_advice"' in w.to_json()

            with (
                cfx.Noise.gaussian(schema, 0.01) as noise,
                cfx.Estimator(noise, 10000, "generic") as est,
                cfx.Workspace(model, 42) as ws,
            ):
                e = est.estimate(model, ws, schema.encode(applicant))
                assert_bits(exp["robust_gamma"], e.gamma, "robust_gamma")
                assert_bits(exp["robust_gamma_se"], e.gamma_se, "robust_gamma_se")
                assert_bits(exp["robust_theta"], e.theta, "robust_theta")
                assert_bits(exp["robust_theta_se"], e.theta_se, "robust_theta_se")
                with (
                    cfx.Config(seed=7) as seven,
                    cfx.robust.generate(schema, model, noise, "croco", applicant, seven) as r,
                ):
                    s = r.summary()
                    assert s.valid == (exp["croco_valid"] == "1")
                    assert s.target_met == (exp["croco_target_met"] == "1")
                    assert_bits(exp["croco_probability"], s.probability, "croco_probability")
                    assert_bits(exp["croco_distance"], s.distance, "croco_distance")
                    assert_bits(exp["croco_gamma"], s.gamma, "croco_gamma")
                    assert_bits(exp["croco_bound"], s.bound, "croco_bound")
                    assert_row(exp["croco_raw"], r.raw(), "croco_raw")

            with (
                cfx.Config(seed=5, rl_episodes=(300, 8), rl_hidden=[16]) as cfg,
                cfx.Policy.train(train, model, cfg, "binary") as policy,
                policy.answer(schema, model, applicant) as plan,
            ):
                assert fnv1a64(policy.to_json()) == exp["policy_fingerprint"]
                m = policy.evaluate(model, test)
                assert_bits(exp["policy_satisfiability"], m.satisfiability, "policy_satisfiability")
                assert m.n_instances == int(exp["policy_n_instances"])
                assert len(plan) == int(exp["plan_n_steps"])
                assert plan.success == (exp["plan_success"] == "1")
                row = applicant.copy()
                for s in plan.steps:
                    row[s.feature] = s.after
                assert_row(exp["plan_final_row"], row, "plan_final_row")

            table = os.path.join(ROOT, "examples", "data", "german_scorecard_table.csv")
            with (
                cfx.ScorecardImport.from_path(
                    schema, table, 487.1228762045055, (28.85390081777927, 487.1228762045055)
                ) as imp,
                imp.model() as card,
            ):
                declined = next(
                    i for i in range(len(test)) if not card.predict_raw(schema, test.row(i)).accepted
                )
                assert declined == int(exp["scorecard_first_declined"])
                applicant = test.row(declined)
                assert_bits(
                    exp["scorecard_points"], card.predict_raw(schema, applicant).score, "scorecard_points"
                )
                with cfx.explain(schema, card, applicant) as r:
                    assert r.outcome == exp["scorecard_coherent_outcome"].lower()
                    assert len(r) == int(exp["scorecard_coherent_count"])
                    assert_bits(
                        exp["scorecard_coherent_cost"], r.certificate(0).cost, "scorecard_coherent_cost"
                    )
                    assert_bits(
                        exp["scorecard_coherent_points"], r.certificate(0).score, "scorecard_coherent_points"
                    )
                    assert_row(exp["scorecard_coherent_raw"], r.counterfactual(0), "scorecard_coherent_raw")
                assert card.fingerprint() == exp["scorecard_model_fingerprint"]
