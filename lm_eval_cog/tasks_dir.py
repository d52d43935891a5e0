"""``python -m lm_eval_cog.tasks_dir`` prints the task folder, for ``--include_path``."""

from lm_eval_cog._autoload import task_dir

if __name__ == "__main__":
    print(task_dir())
