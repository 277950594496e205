"""``python -m benchmarks.recall_eval``: see :mod:`benchmarks.recall_eval.run`."""

from benchmarks.recall_eval.run import main

raise SystemExit(main())
