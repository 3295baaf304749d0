"""
What a user installs is what is tested: the package is built from its folder and installed into a
fresh virtual environment without a package index, as the README says, and the README's sign-up
example, copied from the README as the reader sees it, runs there with pytest against the service,
its ``inbox`` fixture coming from the installed plugin's entry point.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

from service import PROJECT, LiveService

PACKAGE = PROJECT / "clients" / "python"


def readme_block(marker: str) -> str:
    """The first fenced code block after ``marker`` in README.md, as the reader sees it."""
    text = (PROJECT / "README.md").read_text("utf-8")
    at = text.index(marker)
    block = re.search(r"```[a-z]*\n([\s\S]*?)\n```", text[at:])
    assert block, f"README.md has no code block after {marker}"
    return block.group(1) + "\n"


def run(args: "list[str]", cwd: Path, env: "dict[str, str]") -> "subprocess.CompletedProcess[str]":
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_the_readme_example_runs_in_a_fresh_virtual_environment(live: LiveService, tmp_path: Path) -> None:
    # The user's own shell: nothing of this run's import path.
    env = {name: value for name, value in os.environ.items() if name not in ("PYTHONPATH", "PYTEST_ADDOPTS")}
    created = run([sys.executable, "-m", "venv", "--system-site-packages", ".venv"], tmp_path, env)
    assert created.returncode == 0, created.stderr
    installed = run([".venv/bin/pip", "install", "--quiet", "--no-build-isolation", "--no-index", str(PACKAGE)], tmp_path, env)
    assert installed.returncode == 0, installed.stdout + installed.stderr

    where = run([".venv/bin/python", "-c", "import tempmail, pathlib; print(pathlib.Path(tempmail.__file__).parent)"], tmp_path, env)
    package_dir = Path(where.stdout.strip())
    assert package_dir.is_relative_to(tmp_path / ".venv")
    assert (package_dir / "py.typed").exists()

    (tmp_path / "test_signup.py").write_text(readme_block("<!-- e2e-example: test_signup.py"), "utf-8")
    result = run([".venv/bin/python", "-m", "pytest", "-p", "no:cacheprovider", "test_signup.py"], tmp_path, {**env, **live.env()})
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"\b1 passed\b", result.stdout)
