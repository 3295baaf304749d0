"""
The package's own build backend, called as pip calls it: the wheel pip installs (its files, its
RECORD's hashes, its metadata and entry point), the editable wheel, the sdist, and its reading of
pyproject.toml, compared with tomllib's where the interpreter has it.
"""

import base64
import csv
import hashlib
import io
import sys
import tarfile
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

PACKAGE = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def backend() -> ModuleType:
    sys.path.insert(0, str(PACKAGE / "build_backend"))
    try:
        import tempmail_build

        return tempmail_build
    finally:
        sys.path.remove(str(PACKAGE / "build_backend"))


def test_the_wheel_holds_the_package_and_a_record_whose_hashes_hold(backend: ModuleType, tmp_path: Path) -> None:
    assert backend.get_requires_for_build_wheel() == []
    name = backend.build_wheel(str(tmp_path))
    assert name == "tempmail_client-0.2.0-py3-none-any.whl"
    with zipfile.ZipFile(tmp_path / name) as wheel:
        names = wheel.namelist()
        assert "tempmail/__init__.py" in names and "tempmail/py.typed" in names
        assert not [each for each in names if "__pycache__" in each or each.endswith(".pyc") or each.startswith("build_backend")]
        rows = list(csv.reader(io.StringIO(wheel.read("tempmail_client-0.2.0.dist-info/RECORD").decode())))
        assert sorted(row[0] for row in rows) == sorted(names)
        for path, digest, size in rows:
            if path.endswith("RECORD"):
                assert (digest, size) == ("", "")
                continue
            data = wheel.read(path)
            assert digest == "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert int(size) == len(data)
        metadata = wheel.read("tempmail_client-0.2.0.dist-info/METADATA").decode()
        assert metadata.startswith("Metadata-Version: 2.1\nName: tempmail-client\nVersion: 0.2.0\n")
        assert "Requires-Python: >=3.9\n" in metadata and "\n\n# tempmail-client (Python)" in metadata
        assert wheel.read("tempmail_client-0.2.0.dist-info/entry_points.txt").decode() == "[pytest11]\ntempmail = tempmail.pytest_plugin\n\n"
    # The same sources build the same bytes.
    again = tmp_path / "again"
    again.mkdir()
    assert (again / backend.build_wheel(str(again))).read_bytes() == (tmp_path / name).read_bytes()


def test_the_editable_wheel_puts_src_on_the_path_and_the_sdist_carries_the_sources(backend: ModuleType, tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / backend.build_editable(str(tmp_path))) as wheel:
        assert wheel.read("tempmail_client.pth").decode() == f"{PACKAGE / 'src'}\n"
    with tarfile.open(tmp_path / backend.build_sdist(str(tmp_path))) as sdist:
        names = sdist.getnames()
    for part in ("PKG-INFO", "pyproject.toml", "README.md", "build_backend/tempmail_build.py", "src/tempmail/py.typed"):
        assert f"tempmail_client-0.2.0/{part}" in names


def test_reads_pyproject_toml_as_tomllib_does(backend: ModuleType) -> None:
    text = (PACKAGE / "pyproject.toml").read_text("utf-8")
    read = backend.read_pyproject(text)
    assert read["project"]["entry-points"] == {"pytest11": {"tempmail": "tempmail.pytest_plugin"}}
    assert read["build-system"]["backend-path"] == ["build_backend"]
    if sys.version_info >= (3, 11):
        import tomllib

        assert read == tomllib.loads(text)
