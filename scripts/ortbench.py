#!/usr/bin/env python3
"""ONNX Runtime (CPU provider) on a KataGo graph, evaluations a second, as
../shared/anchors' ortbench.py times it, optionally with ONNX Runtime's own
`session.set_denormal_as_zero` (flush-to-zero and denormals-are-zero on its threads): on
Intel CPUs every multiply-add that yields a subnormal takes a microcode assist, and
b10c384's weights hold thousands of subnormals, so that is ONNX Runtime's best there.
A preloaded library that sets MXCSR does not help: ONNX Runtime sets it per session.

usage: scripts/ortbench.py GRAPH.onnx THREADS BATCH SECONDS [ftz]
"""
import sys
import time

import numpy as np
import onnxruntime as ort

path, threads, batch, secs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
ftz = len(sys.argv) > 5 and sys.argv[5] == "ftz"
so = ort.SessionOptions()
so.intra_op_num_threads = threads
so.inter_op_num_threads = 1
so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
if ftz:
    so.add_session_config_entry("session.set_denormal_as_zero", "1")
s = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
rng = np.random.default_rng(1)
feed = {}
for i in s.get_inputs():
    shape = [batch if not isinstance(d, int) else d for d in i.shape]
    if "Mask" in i.name:
        feed[i.name] = np.ones(shape, np.float32)
    elif "Spatial" in i.name:
        feed[i.name] = (rng.random(shape) < 0.3).astype(np.float32)
    else:
        feed[i.name] = np.zeros(shape, np.float32)
for _ in range(3):
    s.run(None, feed)
n, t0 = 0, time.time()
while time.time() - t0 < secs:
    s.run(None, feed)
    n += 1
dt = time.time() - t0
print("onnxruntime %s threads=%d batch=%d ftz=%d evals_per_s=%.2f ms_per_batch=%.2f" % (
    ort.__version__, threads, batch, ftz, n * batch / dt, 1000 * dt / n))
