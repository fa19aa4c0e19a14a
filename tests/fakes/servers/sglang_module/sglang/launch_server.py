"""An SGLang stand-in for prof serve's tests: `python -m sglang.launch_server …` (with this
directory's parent on PYTHONPATH) runs the vLLM stand-in's server, so prof recognises an
SGLang command line while the fake behaves the same (FAKE_SERVER_LOG replays a failure)."""
import os
import runpy
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.argv = ["sglang", "serve"] + sys.argv[1:]
runpy.run_path(os.path.join(here, "..", "..", "vllm", "vllm"), run_name="__main__")
