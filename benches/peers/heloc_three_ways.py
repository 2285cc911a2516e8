#!/usr/bin/env python3
"""The peer's HELOC XGBoost model (target/peers/heloc_xgb.json, `make peers-trees`) written
two more ways, for tests/heloc_three_ways.rs:

  target/peers/heloc_xgb.pmml   sklearn2pmml 0.133.1 (jpmml-xgboost) on the model loaded into an
                                XGBClassifier (its own environment, .venv-pmml-trees)
  target/peers/heloc_xgb.onnx   onnxmltools' convert_xgboost, a float32 input of the 23
                                features in HELOC's column order (.venv-onnx)

Usage:  python3 benches/peers/heloc_three_ways.py [--data ../shared/data/heloc.csv]
"""

import argparse
import os
import subprocess
import sys

import peer_venv

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
OUT = os.path.join(ROOT, "target", "peers")
sys.path.insert(0, HERE)
import pmml_tree_peers  # noqa: E402  (its pins)

ONNX = """
import sys, xgboost as xgb, onnxmltools
from onnxmltools.convert.common.data_types import FloatTensorType
bst = xgb.Booster(); bst.load_model(sys.argv[1])
bst.feature_names = None  # onnxmltools names the columns f0, f1, … in order
n = bst.num_features()
m = onnxmltools.convert_xgboost(bst, initial_types=[("input", FloatTensorType([None, n]))],
                                target_opset=15)
open(sys.argv[2], "wb").write(m.SerializeToString())
"""


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "heloc.csv"))
    args = p.parse_args()
    src = os.path.join(OUT, "heloc_xgb.json")
    if not os.path.exists(src):
        sys.exit(f"{src} is absent: run `make peers-trees` first")
    onnx_py = os.path.join(HERE, ".venv-onnx", "bin", "python")
    if os.path.abspath(sys.prefix) != os.path.abspath(pmml_tree_peers.VENV):
        # ONNX first, from the ONNX peers' environment (onnx_peers.py makes it).
        if not os.path.exists(onnx_py):
            sys.exit(f"{onnx_py} is absent: run `make peers-onnx` first")
        subprocess.check_call([onnx_py, "-c", ONNX, src, os.path.join(OUT, "heloc_xgb.onnx")])
    peer_venv.enter(pmml_tree_peers.VENV, pmml_tree_peers.PINS, __file__)

    import pandas as pd
    from sklearn2pmml import sklearn2pmml
    from sklearn2pmml.pipeline import PMMLPipeline
    from xgboost import XGBClassifier

    names = [c for c in pd.read_csv(args.data, nrows=1).columns if c != "RiskPerformance"]
    clf = XGBClassifier()
    clf.load_model(src)
    pipe = PMMLPipeline([("clf", clf)])
    pipe.active_fields = names
    pipe.target_fields = ["RiskPerformance"]
    sklearn2pmml(pipe, os.path.join(OUT, "heloc_xgb.pmml"))
    print("heloc_three_ways: wrote", OUT)


if __name__ == "__main__":
    main()
