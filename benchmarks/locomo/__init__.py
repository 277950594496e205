"""LoCoMo evidence recall: the library's recall against BM25, dense and RRF over the same sentences (issue 28)."""

import os

# One BLAS thread: on the shared 2-core machine numpy's default threads fight the other work for the cores, and
# embedding one question took 180-680 ms instead of 18-30 ms (set before numpy is first imported).
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")
