"""Bad input raises CfxError with the status name and message and harms nothing; a Rust
panic raises CfxPanic and the interpreter goes on; handles free exactly once."""

import gc
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import cfx
from conftest import ROOT


def test_bad_json_raises_format_error_naming_the_key():
    with pytest.raises(cfx.CfxError) as e:
        cfx.Schema.from_json('{"format_version": 1, "features": [], "colour": 3}')
    assert e.value.status == 9
    assert e.value.status_name == "CFX_STATUS_FORMAT_ERROR"
    assert "colour" in e.value.message
    assert str(e.value).startswith("CFX_STATUS_FORMAT_ERROR: ")


def test_wrong_row_length_is_a_dimension_mismatch_and_the_handle_still_works(german_path):
    with cfx.load_german(german_path) as d, d.schema as s:
        with pytest.raises(cfx.CfxError) as e:
            s.encode([1.0, 2.0])
        assert e.value.status_name == "CFX_STATUS_DIMENSION_MISMATCH"
        assert e.value.message
        assert len(s.encode(d.row(0))) == s.encoded_dim


def test_invalid_arguments_raise_invalid_argument(german_path):
    with cfx.load_german(german_path) as d:
        with pytest.raises(cfx.CfxError) as e:
            cfx.Model.fit_linear(d, -1.0)
        assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT"
        with pytest.raises(cfx.CfxError) as e:
            cfx.Config(time_limit=float("nan"))
        assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT"
        assert "time_limit" in e.value.message and "not finite" in e.value.message
        with pytest.raises(TypeError, match="no setting 'speed'"):
            cfx.Config(speed=3)
        with pytest.raises(cfx.CfxError) as e:
            d.row(10_000)
        assert e.value.status_name == "CFX_STATUS_NOT_FOUND"


def test_explaining_an_accepted_applicant_raises(german_path):
    with cfx.load_german(german_path) as d, d.schema as s, cfx.Model.fit_linear(d) as m:
        accepted = next(i for i in range(len(d)) if m.predict_raw(s, d.row(i)).accepted)
        with pytest.raises(cfx.CfxError) as e:
            cfx.explain(s, m, d.row(accepted))
        assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT"
        assert "accept" in e.value.message


def test_missing_file_is_an_io_error():
    with pytest.raises(cfx.CfxError) as e:
        cfx.load_german("/nonexistent/german.csv")
    assert e.value.status_name == "CFX_STATUS_IO_ERROR"
    assert "/nonexistent/german.csv" in e.value.message


def test_status_names_and_last_error():
    assert cfx.status_name(0) == "CFX_STATUS_OK"
    assert cfx.status_name(99) == "CFX_STATUS_PANIC"
    assert cfx.status_name(12345) == "CFX_STATUS_UNKNOWN"
    with pytest.raises(cfx.CfxError):
        cfx.Schema.from_json("{")
    assert cfx.last_error_message() != ""


def test_deliberate_panic_raises_and_the_interpreter_lives_on(german_path):
    if not cfx.has("cfx_testing_panic"):
        pytest.fail("the tests need libcfx built with --features testing (target/ffi-testing)")
    for _ in range(3):
        with pytest.raises(cfx.CfxPanic) as e:
            cfx.testing_panic()
        assert e.value.status_name == "CFX_STATUS_PANIC"
        assert "deliberate panic" in e.value.message
    # The library keeps working after the panics.
    with cfx.load_german(german_path) as d:
        assert len(d) == 1000


def test_closed_handles_refuse_use_and_close_is_idempotent(german_path):
    d = cfx.load_german(german_path)
    d.close()
    d.close()
    assert d.closed
    with pytest.raises(ValueError, match="closed"):
        len(d)
    with cfx.load_german(german_path) as d2:
        pass
    assert d2.closed


def test_garbage_collected_handles_are_freed_once_in_a_child_process(german_path):
    # Many handles dropped without close(): their finalisers free them; a double free or a
    # use after free would crash the child (run in a child so a crash cannot end this run).
    code = textwrap.dedent(f"""
        import gc, cfx
        for _ in range(50):
            d = cfx.load_german({german_path!r})
            s = d.schema
            m = cfx.Model.fit_linear(d)
            tr, te = d.holdout_split()
            del d, s, m, tr, te
            gc.collect()
        d = cfx.load_german({german_path!r})  # left for interpreter shutdown
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_builders_are_consumed_by_build():
    b = cfx.Schema.builder()
    b.add_contiguous("income", 0, 100)
    s = b.build()
    assert b.closed
    with pytest.raises(ValueError):
        b.add_contiguous("x", 0, 1)
    b.close()  # nothing left to free
    with s:
        assert s.n_features == 1
    gc.collect()


def test_bad_schema_from_the_builder_is_invalid_schema():
    b = cfx.Schema.builder().add_contiguous("a", 0, 1).add_contiguous("a", 0, 1)
    with pytest.raises(cfx.CfxError) as e:
        b.build()
    assert e.value.status_name == "CFX_STATUS_INVALID_SCHEMA"
    assert b.closed


def test_nan_rows_are_refused(german_path):
    with cfx.load_german(german_path) as d, d.schema as s:
        row = d.row(0)
        row[1] = np.nan
        with pytest.raises(cfx.CfxError) as e:
            s.encode(row)
        assert e.value.status_name == "CFX_STATUS_INVALID_ARGUMENT"


def test_a_handle_of_the_wrong_kind_is_refused_before_reaching_c(german_path):
    with cfx.load_german(german_path) as d, d.schema as s:
        with pytest.raises(TypeError, match="expected a cfx.Model, got cfx.schema.Schema"):
            cfx.explain(s, s, d.row(0))
        with pytest.raises(TypeError, match="expected a cfx.Dataset"):
            cfx.Model.fit_linear(s)
        with cfx.Model.fit_linear(d) as m, pytest.raises(TypeError, match="expected a cfx.Config"):
            cfx.explain(s, m, d.row(0), config="fast")
