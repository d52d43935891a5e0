"""``python -m lm_eval_cog.reports``: the ``lm-eval-cog`` command line."""

import sys

from lm_eval_cog.reports.cli import main

sys.exit(main())
