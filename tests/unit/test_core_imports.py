"""The core install (no extras) imports no extra's module: ``Memory`` opens, writes and recalls without numpy (the
``vector`` extra's), so the README's demo runs on a fresh machine. Checked in a fresh interpreter whose import system
refuses the extras' modules, as an install without them would."""

from __future__ import annotations

import subprocess
import sys
import textwrap

EXTRAS_ONLY = ("numpy", "safetensors", "tokenizers", "threadpoolctl")


def test_the_core_modules_import_without_the_vector_extra() -> None:
    script = textwrap.dedent(f"""
        import sys
        class Refuse:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in {EXTRAS_ONLY!r}:
                    raise ModuleNotFoundError(f"No module named {{name!r}}")
                return None
        sys.meta_path.insert(0, Refuse())
        import synapse_graph, synapse_graph.memory, synapse_graph.aio, synapse_graph.cli
        from synapse_graph.engine import recalling, recall_vectors
        print(sorted(m for m in sys.modules if m.split(".")[0] in {EXTRAS_ONLY!r}))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
