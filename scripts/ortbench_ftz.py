#!/usr/bin/env python3
"""The anchors' `ortbench.py` (ONNX Runtime's evaluations a second on a KataGo graph) with
ONNX Runtime's own `session.set_denormal_as_zero` turned on: flush-to-zero and
denormals-are-zero on its threads. On Intel CPUs every multiply-add that yields a subnormal
takes a microcode assist, and b10c384's weights hold thousands of subnormals, so that is
ONNX Runtime's best there. (A preloaded library setting MXCSR does not help: ONNX Runtime
sets it per session.)

usage: scripts/ortbench_ftz.py PATH/ortbench.py GRAPH.onnx THREADS BATCH SECONDS
"""
import runpy
import sys

import onnxruntime as ort


class DenormalsAsZero(ort.SessionOptions):
    def __init__(self):
        super().__init__()
        self.add_session_config_entry("session.set_denormal_as_zero", "1")


ort.SessionOptions = DenormalsAsZero
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
