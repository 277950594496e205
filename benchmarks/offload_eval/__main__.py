import sys

from benchmarks.offload_eval.run import main

sys.exit(main())
