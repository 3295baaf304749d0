"""
What a user installs is what is tested: the README's install command, copied from the README as
the reader sees it (and the same in docs/python-client.md), runs from the project's layout into a
fresh virtual environment without a package index, and the README's sign-up example runs there
with pytest against the service, its ``inbox`` fixture coming from the installed plugin's entry
point; the package installs as well into a bare environment that has neither setuptools nor
wheel; and neither build leaves anything in the checkout.
"""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Set

from service import PROJECT, LiveService

PACKAGE = PROJECT / "clients" / "python"
INSTALL_MARKER = "<!-- python-install -->"


def readme_block(marker: str, document: str = "README.md") -> str:
    """The first fenced code block after ``marker`` in one of the project's documents, as the reader sees it."""
    text = (PROJECT / document).read_text("utf-8")
    at = text.index(marker)
    block = re.search(r"```[a-z]*\n([\s\S]*?)\n```", text[at:])
    assert block, f"{document} has no code block after {marker}"
    return block.group(1) + "\n"


def run(args: List[str], cwd: Path, env: Dict[str, str]) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def checkout_files() -> Set[str]:
    """The package folder's files and folders, byte code aside: what a build must leave as it was."""
    return {
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*")
        if "__pycache__" not in path.parts and ".pytest_cache" not in path.parts
    }


def user_shell(tmp_path: Path) -> Dict[str, str]:
    """The user's own shell: nothing of this run's import path, and ``python3`` this interpreter."""
    env = {name: value for name, value in os.environ.items() if name not in ("PYTHONPATH", "PYTEST_ADDOPTS", "VIRTUAL_ENV")}
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} "$@"\n', "utf-8")
    (bin_dir / "python3").chmod(0o755)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    return env


def test_the_readme_install_command_and_example_run_in_a_fresh_virtual_environment_and_a_bare_one_installs_too(live: LiveService, tmp_path: Path) -> None:
    command = readme_block(INSTALL_MARKER)
    assert readme_block(INSTALL_MARKER, "docs/python-client.md") == command
    env = user_shell(tmp_path)
    before = checkout_files()
    # The command runs from the project's root: here, a folder whose clients/python is the package.
    (tmp_path / "clients").mkdir()
    (tmp_path / "clients" / "python").symlink_to(PACKAGE, target_is_directory=True)
    installed = run(["sh", "-e", "-c", command], tmp_path, env)
    assert installed.returncode == 0, installed.stdout + installed.stderr

    where = run([".venv/bin/python", "-c", "import tempmail, pathlib; print(pathlib.Path(tempmail.__file__).parent)"], tmp_path, env)
    package_dir = Path(where.stdout.strip())
    assert package_dir.is_relative_to(tmp_path / ".venv")
    assert (package_dir / "py.typed").exists()

    (tmp_path / "test_signup.py").write_text(readme_block("<!-- e2e-example: test_signup.py"), "utf-8")
    result = run([".venv/bin/python", "-m", "pytest", "-p", "no:cacheprovider", "test_signup.py"], tmp_path, {**env, **live.env()})
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"\b1 passed\b", result.stdout)

    # Once more into a bare environment, which has neither setuptools nor wheel, with the README's pip arguments.
    created = run([sys.executable, "-m", "venv", "--without-pip", "bare"], tmp_path, env)
    assert created.returncode == 0, created.stderr
    bare = str(tmp_path / "bare" / "bin" / "python")
    assert run([bare, "-c", "import setuptools"], tmp_path, env).returncode != 0
    assert run([bare, "-c", "import wheel"], tmp_path, env).returncode != 0
    arguments = shlex.split(command.split(".venv/bin/pip", 1)[1])
    installed = run([".venv/bin/pip", "--python", bare, "--disable-pip-version-check", *arguments], tmp_path, env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    entry_points = run(
        [bare, "-c", "import importlib.metadata as m; print([e.value for e in m.entry_points(group='pytest11') if e.name == 'tempmail'])"],
        tmp_path, env,
    )  # fmt: skip
    assert entry_points.stdout.strip() == "['tempmail.pytest_plugin']", entry_points.stderr
    assert checkout_files() == before
