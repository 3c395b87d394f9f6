"""A PEP 517 build backend in the standard library only, for this one package.

It builds a pure-Python wheel of ``src/geo_api`` (and an sdist of the project), with the metadata of the
``[project]`` table of pyproject.toml. Why not setuptools: pip installs a backend's requirements into an
isolated build environment, which means a download on a machine where setuptools is not cached, and a
Python 3.12+ virtual environment no longer ships setuptools for ``--no-build-isolation`` either. With
``requires = []`` nothing is fetched, so ``pip install ./clients/python`` works offline everywhere.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "geo_api"
# Fixed timestamp for wheel entries, so two builds of the same sources give the same bytes.
EPOCH = (2026, 1, 1, 0, 0, 0)


def _project() -> dict[str, str]:
    """The string fields of [project] (name, version, description, requires-python, license, readme).

    tomllib is 3.11+; this reads the simple ``key = "value"`` lines of the one table it needs, which is
    all this pyproject.toml holds there.
    """
    fields: dict[str, str] = {}
    table = None
    for line in (ROOT / "pyproject.toml").read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line.startswith("["):
            table = line
            continue
        match = re.fullmatch(r'([A-Za-z-]+)\s*=\s*"([^"]*)"', line)
        if table == "[project]" and match:
            fields[match.group(1)] = match.group(2)
    for key in ("name", "version"):
        if key not in fields:
            raise RuntimeError(f"pyproject.toml: [project] {key} is missing")
    return fields


def _dist_name(project: dict[str, str]) -> str:
    return re.sub(r"[-_.]+", "_", project["name"]).lower()


def _metadata(project: dict[str, str]) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
    ]
    if "description" in project:
        lines.append(f"Summary: {project['description']}")
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    if "license" in project:
        lines.append(f"License: {project['license']}")
    readme = ROOT / project.get("readme", "README.md")
    if readme.exists():
        lines.append("Description-Content-Type: text/markdown")
        return "\n".join(lines) + "\n\n" + readme.read_text(encoding="utf-8")
    return "\n".join(lines) + "\n"


def _wheel_file() -> str:
    return "Wheel-Version: 1.0\nGenerator: geo_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def _record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def _write_wheel(directory: str, files: dict[str, bytes]) -> str:
    project = _project()
    dist = _dist_name(project)
    info = f"{dist}-{project['version']}.dist-info"
    files = dict(files)
    files[f"{info}/METADATA"] = _metadata(project).encode()
    files[f"{info}/WHEEL"] = _wheel_file().encode()
    record = [_record_line(path, data) for path, data in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    name = f"{dist}-{project['version']}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(directory, name), "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in files.items():
            entry = zipfile.ZipInfo(path, EPOCH)
            entry.external_attr = 0o644 << 16
            wheel.writestr(entry, data, zipfile.ZIP_DEFLATED)
    return name


def _package_files() -> dict[str, bytes]:
    source = ROOT / "src" / PACKAGE
    return {
        f"{PACKAGE}/{path.relative_to(source).as_posix()}": path.read_bytes()
        for path in sorted(source.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, _package_files())


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # PEP 660: a .pth file putting src/ on the path, so edits to the sources take effect at once.
    return _write_wheel(wheel_directory, {f"__editable__.{PACKAGE}.pth": (str(ROOT / "src") + "\n").encode()})


def build_sdist(sdist_directory, config_settings=None):
    project = _project()
    base = f"{_dist_name(project)}-{project['version']}"
    name = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as sdist:
        paths = [ROOT / "pyproject.toml", ROOT / "README.md", *sorted((ROOT / "build_backend").glob("*.py"))]
        paths += [p for p in sorted((ROOT / "src").rglob("*")) if p.is_file() and "__pycache__" not in p.parts]
        for path in paths:
            data = path.read_bytes()
            entry = tarfile.TarInfo(f"{base}/{path.relative_to(ROOT).as_posix()}")
            entry.size = len(data)
            entry.mtime = 1767225600
            sdist.addfile(entry, io.BytesIO(data))
        pkg_info = _metadata(project).encode()
        entry = tarfile.TarInfo(f"{base}/PKG-INFO")
        entry.size = len(pkg_info)
        entry.mtime = 1767225600
        sdist.addfile(entry, io.BytesIO(pkg_info))
    return name
