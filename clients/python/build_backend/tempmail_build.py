"""
The package's own PEP 517 build backend, standard library only: pip builds and installs the
package with nothing but itself, on any Python 3.9 or later, without an index, without
setuptools and without ``wheel`` (``pip install --no-index ./clients/python``). It writes only
into the directories pip gives it: no ``build/`` or ``*.egg-info`` is left in the checkout.

What it builds: a pure-Python wheel of ``src/tempmail`` (``py.typed`` included) with the
metadata of ``pyproject.toml``'s ``[project]`` table and its ``pytest11`` entry point; an sdist
of the folder's sources; and an editable wheel (PEP 660) whose ``.pth`` file puts ``src`` on the
path.
"""

import base64
import hashlib
import io
import json
import os
import re
import tarfile
import zipfile
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
#: Every file's time stamp in what is built, so the same sources build the same bytes.
_EPOCH = (1980, 1, 1, 0, 0, 0)
#: What the sdist carries, beside ``PKG-INFO``.
_SDIST_PARTS = ("pyproject.toml", "README.md", "build_backend", "src")


def read_pyproject(text: str) -> Dict[str, Any]:
    """
    The subset of TOML that ``pyproject.toml`` uses (tables, bare keys, strings, booleans,
    arrays of them over several lines, inline tables), since ``tomllib`` came only with Python
    3.11. A test compares it with ``tomllib`` on the real file.
    """
    document: Dict[str, Any] = {}
    table = document
    pending = ""
    for raw in text.splitlines():
        line = raw.strip() if not pending else raw
        if not pending and (not line or line.startswith("#")):
            continue
        if not pending and line.startswith("["):
            table = document
            for part in line.strip("[]").split("."):
                table = table.setdefault(part, {})
            continue
        pending += line + "\n"
        if pending.count("[") > pending.count("]") or pending.count("{") > pending.count("}"):
            continue  # an array or inline table goes on over the next lines
        key, _, value = pending.partition("=")
        table[key.strip()] = _value(value.strip())
        pending = ""
    if pending:
        raise ValueError(f"pyproject.toml: unfinished value: {pending!r}")
    return document


def _value(text: str) -> Any:
    as_json = re.sub(r"([{,]\s*)([A-Za-z0-9_-]+)\s*=", r'\1"\2":', text)  # inline-table keys
    as_json = re.sub(r",\s*([\]}])", r"\1", as_json)  # trailing commas
    as_json = re.sub(r"^\s*#.*$", "", as_json, flags=re.MULTILINE)  # comment lines inside an array
    return json.loads(as_json)


def _project() -> Dict[str, Any]:
    project: Dict[str, Any] = read_pyproject((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    return project


def _names(project: Mapping[str, Any]) -> Tuple[str, str]:
    """The wheel's file-name stem and the ``.dist-info`` directory's name (PEP 427 normalization)."""
    stem = f"{re.sub(r'[-_.]+', '_', project['name']).lower()}-{project['version']}"
    return stem, f"{stem}.dist-info"


def metadata(project: Mapping[str, Any]) -> str:
    """Core metadata 2.1 (``METADATA``, and the sdist's ``PKG-INFO``)."""
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
        f"Summary: {project['description']}",
        f"Requires-Python: {project['requires-python']}",
    ]
    license = project.get("license")
    if isinstance(license, dict) and "text" in license:
        lines.append(f"License: {license['text']}")
    lines += [f"Requires-Dist: {requirement}" for requirement in project.get("dependencies", [])]
    lines += [f"Classifier: {classifier}" for classifier in project.get("classifiers", [])]
    readme = project.get("readme")
    if readme:
        lines.append("Description-Content-Type: text/markdown")
        return "\n".join(lines) + "\n\n" + (ROOT / readme).read_text("utf-8")
    return "\n".join(lines) + "\n"


def _entry_points(project: Mapping[str, Any]) -> str:
    groups = project.get("entry-points", {})
    return "".join(
        f"[{group}]\n" + "".join(f"{name} = {target}\n" for name, target in entries.items()) + "\n" for group, entries in groups.items()
    )


def _package_files() -> List[Tuple[str, bytes]]:
    """Every file of ``src/``, as its path in the wheel; no byte code."""
    found: List[Tuple[str, bytes]] = []
    source = ROOT / "src"
    for directory, subdirectories, files in os.walk(source):
        subdirectories[:] = sorted(name for name in subdirectories if name != "__pycache__")
        for name in sorted(files):
            if not name.endswith((".pyc", ".pyo")):
                path = Path(directory, name)
                found.append((path.relative_to(source).as_posix(), path.read_bytes()))
    return found


def _write_wheel(wheel_directory: str, files: List[Tuple[str, bytes]]) -> str:
    project = _project()
    stem, dist_info = _names(project)
    files = files + [
        (f"{dist_info}/METADATA", metadata(project).encode("utf-8")),
        (f"{dist_info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: tempmail_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"),
        (f"{dist_info}/entry_points.txt", _entry_points(project).encode("utf-8")),
    ]
    record = io.StringIO()
    for path, data in files:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
        record.write(f"{path},sha256={digest},{len(data)}\n")
    record.write(f"{dist_info}/RECORD,,\n")
    files.append((f"{dist_info}/RECORD", record.getvalue().encode("utf-8")))

    filename = f"{stem}-py3-none-any.whl"
    with zipfile.ZipFile(Path(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in files:
            entry = zipfile.ZipInfo(path, _EPOCH)
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(entry, data)
    return filename


# -- the PEP 517 and PEP 660 hooks ------------------------------------------------------------------


def get_requires_for_build_wheel(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def build_wheel(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None, metadata_directory: Optional[str] = None) -> str:
    return _write_wheel(wheel_directory, _package_files())


def build_editable(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None, metadata_directory: Optional[str] = None) -> str:
    stem, _ = _names(_project())
    return _write_wheel(wheel_directory, [(f"{stem.split('-')[0]}.pth", f"{ROOT / 'src'}\n".encode("utf-8"))])


def build_sdist(sdist_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    project = _project()
    stem, _ = _names(project)
    filename = f"{stem}.tar.gz"

    def tidy(info: tarfile.TarInfo) -> Optional[tarfile.TarInfo]:
        if "__pycache__" in info.name.split("/") or info.name.endswith(".pyc"):
            return None
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        info.mtime = 0
        return info

    with tarfile.open(Path(sdist_directory, filename), "w:gz", format=tarfile.PAX_FORMAT) as sdist:
        for part in _SDIST_PARTS:
            sdist.add(ROOT / part, f"{stem}/{part}", filter=tidy)
        info = metadata(project).encode("utf-8")
        entry = tidy(tarfile.TarInfo(f"{stem}/PKG-INFO"))
        assert entry is not None
        entry.size = len(info)
        sdist.addfile(entry, io.BytesIO(info))
    return filename
