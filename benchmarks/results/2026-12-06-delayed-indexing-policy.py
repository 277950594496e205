"""In-process cold open + facts(SUBJECT) on copies: off / on gating writes+db.idx / on gating every statement."""
import json, os, shutil, subprocess, sys, time
from pathlib import Path
src, work, subject, runs = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
CHILD = r'''
import os, sys, time
os.environ["SYNAPSE_FALKORDB_LINGER"] = "0"
t0 = time.perf_counter()
from synapse_graph.backends import embedded as e, falkordb_steps as st
v = sys.argv[1]
if v == "off":
    old = e.EmbeddedServer._server_argv
    def argv(self):
        a = old(self); i = a.index("DELAY_INDEXING"); return a[:i] + a[i + 2:]
    e.EmbeddedServer._server_argv = argv
elif v == "on-writes":
    st.needs_indexes = lambda s: s[0] == "GRAPH.QUERY" or (s[0] == "GRAPH.RO_QUERY" and "db.idx." in s[2])
else:
    st.needs_indexes = lambda s: s[0] in ("GRAPH.QUERY", "GRAPH.RO_QUERY")
from synapse_graph import Memory
m = Memory(sys.argv[2], scope="warm/bench"); t1 = time.perf_counter()
n = len(m.facts(sys.argv[3])); t2 = time.perf_counter()
m.close()
print(round(t1 - t0, 2), round(t2 - t1, 2), round(t2 - t0, 2), n)
'''
dbs = {}
for v in ("off", "on-writes", "on-all"):
    d = work / v
    if d.exists(): shutil.rmtree(d)
    d.mkdir(parents=True); shutil.copytree(src.with_name(src.name + ".aof"), d / "store.db.aof"); dbs[v] = d / "store.db"
for run in range(runs):
    for v in dbs:
        out = subprocess.run([sys.executable, "-c", CHILD, v, str(dbs[v]), subject], capture_output=True, text=True)
        o, f, total, n = (out.stdout.split() + ["?"] * 4)[:4]
        print(json.dumps({"run": run, "variant": v, "open": o, "facts": f, "total": total, "n": n,
                          "load": round(os.getloadavg()[0], 1), "err": out.stderr[-200:]}), flush=True)
