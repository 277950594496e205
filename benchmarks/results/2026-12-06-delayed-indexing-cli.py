"""Cold CLI commands on copies of a store, DELAY_INDEXING off vs on, interleaved (issue 34, helper delayidx).

python bench.py STORE_DB WORK RUNS  -> JSON lines on stdout
"""
import json, os, shutil, subprocess, sys, time
from pathlib import Path

src, work, runs = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
PY = "/work/wt/delayidx/.venv/bin/python"
SCOPE = "warm/bench"
PRELUDE = """
import sys
if sys.argv[1] == 'off':
    from synapse_graph.backends import embedded as e
    old = e.EmbeddedServer._server_argv
    def argv(self):
        a = old(self); i = a.index('DELAY_INDEXING'); return a[:i] + a[i + 2:]
    e.EmbeddedServer._server_argv = argv
from synapse_graph.cli import main
sys.argv = ['synapse-graph', *sys.argv[2:]]
main()
"""
env = {**os.environ, "SYNAPSE_FALKORDB_LINGER": "0"}
env.pop("PYTHONDONTWRITEBYTECODE", None)


def copy(name):
    d = work / name
    if d.exists(): shutil.rmtree(d)
    d.mkdir(parents=True)
    shutil.copytree(src.with_name(src.name + ".aof"), d / "store.db.aof")
    return d / "store.db"


def cli(variant, db, *words):
    t = time.perf_counter()
    p = subprocess.run([PY, "-c", PRELUDE, variant, *words, "--db", str(db), "--scope", SCOPE],
                       capture_output=True, text=True, env=env)
    return time.perf_counter() - t, p.returncode, p.stdout, p.stderr[-300:]


dbs = {v: copy(v) for v in ("off", "on")}
# subject: first fact's subject, from a first (unmeasured) cold open, which also folds the AOF as a close does
w, rc, out, err = cli("off", dbs["off"], "facts", "--limit", "1", "--json")
print(json.dumps({"prep": [w, rc, out[:300], err]}), flush=True)
subject = json.loads(out)[0]["subject"] if out.strip().startswith("[") else sys.argv[4]
cli("on", dbs["on"], "facts", "--limit", "1")
outputs = {}
for run in range(runs):
    for variant in ("off", "on"):
        for words in (("facts", subject), ("recall", subject, "--json")):
            w, rc, out, err = cli(variant, dbs[variant], *words)
            outputs.setdefault((variant, words[0]), set()).add(out)
            print(json.dumps({"run": run, "variant": variant, "cmd": words[0], "wall": round(w, 3), "rc": rc,
                              "load": os.getloadavg()[0], "err": err if rc else ""}), flush=True)
for cmd in ("facts", "recall"):
    print(json.dumps({"same_output": cmd, "off_eq_on": outputs[("off", cmd)] == outputs[("on", cmd)],
                      "distinct": len(outputs[("off", cmd)] | outputs[("on", cmd)])}), flush=True)
