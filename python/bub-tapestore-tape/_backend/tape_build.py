"""tape_build: a PEP 517 and PEP 660 build backend on the standard library only.

Why it exists: `pip install ./python/bub-tapestore-tape` must work with no
package index at all. A setuptools or hatchling backend would have pip fetch
that backend into its isolated build environment from an index; this one
sits in the source tree (pyproject.toml: `build-backend = "tape_build"`,
`backend-path = ["_backend"]`, `requires = []`), so the isolated environment
needs nothing.

What it builds, from pyproject.toml read with tomllib:

  - a wheel `<name>-<version>-py3-none-any.whl`, purelib, holding every
    `*.py` and `py.typed` file under `src/<package>/` and a `.dist-info`
    folder with METADATA (Metadata-Version 2.1, the README as description),
    WHEEL, entry_points.txt and RECORD (sha256, urlsafe base64, no padding);
  - an sdist `<name>-<version>.tar.gz` with PKG-INFO, pyproject.toml, the
    README, this backend, the package and its tests, from which the same
    wheel builds again;
  - an editable wheel (PEP 660) whose one module is a .pth naming `src/`.

It is deliberately small: it knows the [project] keys listed in KNOWN_KEYS
and refuses any other (and any `dynamic` field), rather than build a wheel
that silently lacks what pyproject.toml asks for. Archives are reproducible:
entries sorted, timestamps fixed (SOURCE_DATE_EPOCH if set, else 1980-01-01),
so the wheel built from the tree and the wheel built from the sdist are the
same bytes.

Every hook runs with the current directory at the root of the source tree,
as PEP 517 says a frontend calls it.
"""

from __future__ import annotations

import base64
import csv
import gzip
import hashlib
import io
import os
import re
import tarfile
import tempfile
import time
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "build_editable",
    "build_sdist",
    "build_wheel",
    "get_requires_for_build_editable",
    "get_requires_for_build_sdist",
    "get_requires_for_build_wheel",
    "prepare_metadata_for_build_editable",
    "prepare_metadata_for_build_wheel",
]

GENERATOR = "tape_build 0.1.0"
TAG = "py3-none-any"

# The [project] keys this backend turns into metadata. Any other key is an
# error: a backend that skipped it would build a package other than the one
# pyproject.toml describes.
KNOWN_KEYS = frozenset(
    {
        "name",
        "version",
        "description",
        "readme",
        "requires-python",
        "license",
        "dependencies",
        "classifiers",
        "keywords",
        "urls",
        "entry-points",
    }
)

# Package files that go into a wheel; everything else under src/ stays out.
PACKAGE_SUFFIXES = (".py",)
PACKAGE_NAMES = ("py.typed",)

# Readme content types by suffix (core metadata, Description-Content-Type).
README_TYPES = {".md": "text/markdown", ".rst": "text/x-rst", ".txt": "text/plain"}

NAME_RE = re.compile(r"^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$", re.IGNORECASE)
# PEP 440 public versions, without the rarer epoch and local parts.
VERSION_RE = re.compile(r"^\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?$")


class BuildError(Exception):
    """pyproject.toml asks for something this backend cannot build."""


@dataclass(frozen=True)
class Project:
    """What the backend needs from pyproject.toml and the tree around it."""

    root: Path
    name: str
    version: str
    summary: str
    requires_python: str
    license: str
    dependencies: tuple[str, ...]
    classifiers: tuple[str, ...]
    keywords: tuple[str, ...]
    urls: tuple[tuple[str, str], ...]
    entry_points: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]
    readme: Path | None
    readme_type: str

    @property
    def dist_name(self) -> str:
        """The name as wheel and sdist file names spell it (PEP 427, 625)."""
        return re.sub(r"[-_.]+", "_", self.name).lower()

    @property
    def import_name(self) -> str:
        """The package folder under src/: the name with '-' as '_'."""
        return self.name.replace("-", "_").replace(".", "_")

    @property
    def dist_info(self) -> str:
        return f"{self.dist_name}-{self.version}.dist-info"

    @property
    def package_dir(self) -> Path:
        return self.root / "src" / self.import_name


# --- PEP 517 and PEP 660 hooks ------------------------------------------------


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    project = load_project(Path.cwd())
    target = Path(metadata_directory) / project.dist_info
    target.mkdir(parents=True, exist_ok=True)
    for name, data in dist_info_files(project):
        (target / name).write_bytes(data)
    return project.dist_info


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    return prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    # metadata_directory is not read: the .dist-info is rebuilt from the same
    # pyproject.toml by the same code, so it is byte for byte the prepared one.
    project = load_project(Path.cwd())
    files = [
        (f"{project.import_name}/{rel}", path.read_bytes())
        for rel, path in package_files(project)
    ]
    return write_wheel(project, Path(wheel_directory), files)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    project = load_project(Path.cwd())
    if not project.package_dir.is_dir():
        raise BuildError(f"tape_build: no package folder {project.package_dir}")
    src = str((project.root / "src").resolve()) + "\n"
    pth = (f"__editable__.{project.dist_name}-{project.version}.pth", src.encode())
    return write_wheel(project, Path(wheel_directory), [pth])


def build_sdist(sdist_directory, config_settings=None):
    project = load_project(Path.cwd())
    base = f"{project.dist_name}-{project.version}"
    members = [("PKG-INFO", metadata(project))]
    members += [(rel, (project.root / rel).read_bytes()) for rel in sdist_files(project)]
    name = f"{base}.tar.gz"
    atomic_write(Path(sdist_directory) / name, tar_gz(base, members))
    return name


# --- pyproject.toml -----------------------------------------------------------


def load_project(root: Path) -> Project:
    """Read and check the [project] table of root/pyproject.toml."""
    with open(root / "pyproject.toml", "rb") as f:
        table = tomllib.load(f).get("project")
    if not isinstance(table, dict):
        raise BuildError("tape_build: pyproject.toml has no [project] table")
    if table.get("dynamic"):
        raise BuildError(f"tape_build: dynamic fields are not supported: {table['dynamic']}")
    unknown = sorted(set(table) - KNOWN_KEYS - {"dynamic"})
    if unknown:
        raise BuildError(f"tape_build: [project] keys not supported: {', '.join(unknown)}")
    name, version = table.get("name"), table.get("version")
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise BuildError(f"tape_build: project name {name!r} is not a valid name")
    if not isinstance(version, str) or not VERSION_RE.match(version):
        raise BuildError(f"tape_build: project version {version!r} is not supported")
    readme, readme_type = readme_of(root, table.get("readme"))
    return Project(
        root=root,
        name=name,
        version=version,
        summary=one_line(table.get("description", ""), "description"),
        requires_python=one_line(table.get("requires-python", ""), "requires-python"),
        license=license_of(root, table.get("license")),
        dependencies=strings(table, "dependencies"),
        classifiers=strings(table, "classifiers"),
        keywords=strings(table, "keywords"),
        urls=tuple((one_line(k, "urls"), one_line(v, "urls")) for k, v in table_of(table, "urls").items()),
        entry_points=entry_points_of(table_of(table, "entry-points")),
        readme=readme,
        readme_type=readme_type,
    )


def one_line(value, key: str) -> str:
    if not isinstance(value, str) or "\n" in value:
        raise BuildError(f"tape_build: {key} must be a one-line string, got {value!r}")
    return value


def table_of(table: dict, key: str) -> dict:
    value = table.get(key, {})
    if not isinstance(value, dict):
        raise BuildError(f"tape_build: {key} must be a table")
    return value


def strings(table: dict, key: str) -> tuple[str, ...]:
    values = table.get(key, [])
    if not isinstance(values, list):
        raise BuildError(f"tape_build: {key} must be a list of strings")
    return tuple(one_line(v, key) for v in values)


def readme_of(root: Path, value) -> tuple[Path | None, str]:
    """The readme file and its content type; a declared file must exist."""
    if value is None:
        return None, ""
    content_type = ""
    if isinstance(value, dict):
        if "text" in value:
            raise BuildError("tape_build: readme text is not supported, name a file")
        content_type = value.get("content-type", "")
        value = value.get("file")
    if not isinstance(value, str):
        raise BuildError(f"tape_build: readme must name a file, got {value!r}")
    path = root / value
    if not path.is_file():
        raise BuildError(f"tape_build: readme {value} does not exist")
    return path, content_type or README_TYPES.get(path.suffix.lower(), "text/plain")


def license_of(root: Path, value) -> str:
    """The License field: PEP 621's {text = ...}, or {file = ...} read whole."""
    if value is None:
        return ""
    if isinstance(value, dict) and isinstance(value.get("text"), str):
        return value["text"]
    if isinstance(value, dict) and isinstance(value.get("file"), str):
        return (root / value["file"]).read_text(encoding="utf-8")
    raise BuildError(f"tape_build: license must be {{text = ...}} or {{file = ...}}, got {value!r}")


def entry_points_of(value: dict) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
    groups = []
    for group, entries in sorted(value.items()):
        if group in ("console_scripts", "gui_scripts"):
            raise BuildError(f"tape_build: entry-point group {group} is not supported")
        if not isinstance(entries, dict):
            raise BuildError(f"tape_build: entry-point group {group} must be a table")
        pairs = tuple((one_line(k, group), one_line(v, group)) for k, v in sorted(entries.items()))
        groups.append((group, pairs))
    return tuple(groups)


# --- what goes into the archives ----------------------------------------------


def package_files(project: Project) -> list[tuple[str, Path]]:
    """Every *.py and py.typed under src/<package>/, as (relative path, path)."""
    top = project.package_dir
    if not (top / "__init__.py").is_file():
        raise BuildError(f"tape_build: no package at {top} (no __init__.py)")
    found = []
    for path in top.rglob("*"):
        rel = path.relative_to(top)
        if "__pycache__" in rel.parts or not path.is_file():
            continue
        if path.suffix in PACKAGE_SUFFIXES or path.name in PACKAGE_NAMES:
            found.append((rel.as_posix(), path))
    return sorted(found)


def sdist_files(project: Project) -> list[str]:
    """The source tree an sdist carries: enough to build the wheel again, and the tests."""
    root = project.root
    names = {"pyproject.toml"}
    if project.readme is not None:
        names.add(project.readme.relative_to(root).as_posix())
    for extra in ("LICENSE", "LICENSE.txt"):
        if (root / extra).is_file():
            names.add(extra)
    for rel, _ in package_files(project):
        names.add(f"src/{project.import_name}/{rel}")
    for folder in ("_backend", "tests"):
        for path in (root / folder).rglob("*"):
            rel = path.relative_to(root)
            if path.is_file() and "__pycache__" not in rel.parts and path.suffix != ".pyc":
                names.add(rel.as_posix())
    return sorted(names)


def metadata(project: Project) -> bytes:
    """Core metadata 2.1: headers, a blank line, then the README as body."""
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project.name}",
        f"Version: {project.version}",
    ]
    if project.summary:
        lines.append(f"Summary: {project.summary}")
    if project.keywords:
        lines.append(f"Keywords: {','.join(project.keywords)}")
    if project.license:
        # Multi-line values continue on lines indented by 8 spaces.
        lines.append("License: " + "\n        ".join(project.license.strip().splitlines()))
    lines += [f"Project-URL: {label}, {url}" for label, url in project.urls]
    lines += [f"Classifier: {c}" for c in project.classifiers]
    if project.requires_python:
        lines.append(f"Requires-Python: {project.requires_python}")
    lines += [f"Requires-Dist: {d}" for d in project.dependencies]
    body = ""
    if project.readme is not None:
        lines.append(f"Description-Content-Type: {project.readme_type}")
        body = project.readme.read_text(encoding="utf-8")
    return ("\n".join(lines) + "\n\n" + body).encode("utf-8")


def dist_info_files(project: Project) -> list[tuple[str, bytes]]:
    """The .dist-info files but RECORD, which lists the wheel's bytes."""
    wheel = f"Wheel-Version: 1.0\nGenerator: {GENERATOR}\nRoot-Is-Purelib: true\nTag: {TAG}\n"
    files = [("METADATA", metadata(project)), ("WHEEL", wheel.encode())]
    if project.entry_points:
        sections = []
        for group, pairs in project.entry_points:
            sections.append(f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in pairs))
        files.append(("entry_points.txt", "\n".join(sections).encode()))
    return files


def record_hash(data: bytes) -> str:
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def write_wheel(project: Project, directory: Path, files: list[tuple[str, bytes]]) -> str:
    """Write a wheel of files plus .dist-info, RECORD last; return its file name."""
    info = project.dist_info
    entries = sorted(files) + [(f"{info}/{n}", d) for n, d in dist_info_files(project)]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for name, data in entries:
        writer.writerow([name, record_hash(data), len(data)])
    writer.writerow([f"{info}/RECORD", "", ""])
    entries.append((f"{info}/RECORD", out.getvalue().encode()))

    buf = io.BytesIO()
    stamp = time.gmtime(max(epoch(), 315532800))[:6]  # zip cannot say before 1980
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries:
            zi = zipfile.ZipInfo(name, date_time=stamp)
            zi.external_attr = (0o100644 << 16)  # a regular file, rw-r--r--
            zi.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(zi, data)
    name = f"{project.dist_name}-{project.version}-{TAG}.whl"
    atomic_write(directory / name, buf.getvalue())
    return name


def tar_gz(base: str, members: list[tuple[str, bytes]]) -> bytes:
    """A reproducible .tar.gz of members, each under the folder base/."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tf:
        for name, data in sorted(members):
            ti = tarfile.TarInfo(f"{base}/{name}")
            ti.size, ti.mtime, ti.mode = len(data), epoch(), 0o644
            tf.addfile(ti, io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=epoch()) as gz:
        gz.write(raw.getvalue())
    return out.getvalue()


def epoch() -> int:
    """SOURCE_DATE_EPOCH if set, else 1980-01-01: archives do not change with the clock."""
    return int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))


def atomic_write(path: Path, data: bytes) -> None:
    """Write beside the target and rename, so a frontend never sees half an archive."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)  # mkstemp makes it 0600; an archive is for everyone to read
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
