"""Only the part setup.cfg cannot say: install ``lm_eval_cog.pth`` at the site-packages root.

That one-line file runs ``import lm_eval_cog._autoload`` at interpreter start-up,
which makes ``lm_eval --tasks cog_*`` work with no flag on lm-eval 0.4.13 (see the
README, "How the tasks are found"). Wheels get it from ``build_py`` (pytest-cov's
pattern); editable installs from a wrapper around setuptools' editable strategy.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

PTH = "lm_eval_cog.pth"
PTH_LINE = "import lm_eval_cog._autoload\n"


class BuildPyWithPth(build_py):
    def run(self) -> None:
        super().run()
        if not self.editable_mode:
            (Path(self.build_lib) / PTH).write_text(PTH_LINE)

    def get_outputs(self, include_bytecode=True):
        outputs = super().get_outputs(include_bytecode)
        return outputs if self.editable_mode else [*outputs, str(Path(self.build_lib) / PTH)]


cmdclass = {"build_py": BuildPyWithPth}

try:  # setuptools >= 64 (PEP 660). _select_strategy is internal: if it goes, editable
    # installs simply lack the hook and `--include_path` still works.
    from setuptools.command.editable_wheel import editable_wheel

    class _WithPth:
        def __init__(self, strategy):
            self._strategy = strategy

        def __call__(self, wheel, files, mapping):
            self._strategy(wheel, files, mapping)
            wheel.writestr(PTH, PTH_LINE)

        def __enter__(self):
            self._strategy.__enter__()
            return self

        def __exit__(self, *exc):
            return self._strategy.__exit__(*exc)

    class EditableWheelWithPth(editable_wheel):
        def _select_strategy(self, *args, **kwargs):
            return _WithPth(super()._select_strategy(*args, **kwargs))

    if hasattr(editable_wheel, "_select_strategy"):
        cmdclass["editable_wheel"] = EditableWheelWithPth
except ImportError:
    pass

setup(cmdclass=cmdclass)
