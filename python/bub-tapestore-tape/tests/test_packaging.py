"""The package builds and installs with no package index.

BackendTest calls the in-tree backend (_backend/tape_build.py) as a PEP 517
frontend would, with the current directory at the package root, and opens
what it writes: the wheel's files, METADATA, entry_points.txt and RECORD
hashes, the sdist, and the wheel built again from the sdist.

InstallTest makes a virtual environment (ensurepip is bundled, so this is
offline too) and runs its pip with --no-index: a plain install, an editable
one and `pip wheel`, then asks the environment, from a folder outside the
source tree, what got installed.

Run from the repository root:
    python3 -m unittest discover -s python/bub-tapestore-tape/tests -t python/bub-tapestore-tape
"""

from __future__ import annotations

import base64
import configparser
import contextlib
import csv
import email.parser
import functools
import hashlib
import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tomllib
import unittest
import zipfile
from pathlib import Path

PKG = Path(__file__).resolve().parents[1]
SRC = PKG / "src" / "bub_tapestore_tape"
NAME = "bub-tapestore-tape"
VERSION = "0.1.0"
DIST_INFO = f"bub_tapestore_tape-{VERSION}.dist-info"
WHEEL = f"bub_tapestore_tape-{VERSION}-py3-none-any.whl"
SDIST = f"bub_tapestore_tape-{VERSION}.tar.gz"
ENTRY_POINT = ("bub", "tapestore-tape", "bub_tapestore_tape.plugin")


@functools.cache
def load_backend():
    """Import _backend/tape_build.py as the module a frontend would load."""
    spec = importlib.util.spec_from_file_location("tape_build", PKG / "_backend" / "tape_build.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


def package_sources(src: Path = SRC) -> dict[str, bytes]:
    """What the wheel must hold of src/: every *.py and py.typed, by wheel path."""
    out = {}
    for path in src.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            if path.suffix == ".py" or path.name == "py.typed":
                out[f"bub_tapestore_tape/{path.relative_to(src).as_posix()}"] = path.read_bytes()
    return out


def record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def read_wheel(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        if len(names) != len(set(names)):
            raise AssertionError(f"duplicate entries in {path.name}: {names}")
        return {name: zf.read(name) for name in names}


class BackendTest(unittest.TestCase):
    """The backend's hooks, called in-process with the cwd at a project root."""

    def setUp(self):
        self.backend = load_backend()
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.out = Path(tmp.name)

    def build_wheel(self, root: Path = PKG, out: Path | None = None) -> dict[str, bytes]:
        out = out or self.out
        with contextlib.chdir(root):
            name = self.backend.build_wheel(str(out))
        self.assertEqual(name, WHEEL)
        return read_wheel(out / name)

    def test_hooks_need_nothing_to_build(self):
        for hook in ("get_requires_for_build_wheel", "get_requires_for_build_sdist",
                     "get_requires_for_build_editable"):
            with self.subTest(hook=hook):
                self.assertEqual(getattr(self.backend, hook)(None), [])

    def test_pyproject_names_this_backend_and_no_requirements(self):
        with open(PKG / "pyproject.toml", "rb") as f:
            data = tomllib.load(f)
        self.assertEqual(data["build-system"], {
            "requires": [], "build-backend": "tape_build", "backend-path": ["_backend"]})
        project = data["project"]
        self.assertEqual((project["name"], project["version"]), (NAME, VERSION))
        self.assertEqual(project["requires-python"], ">=3.11")
        self.assertEqual(project.get("dependencies", []), [])
        self.assertEqual(project["entry-points"], {"bub": {"tapestore-tape": "bub_tapestore_tape.plugin"}})

    def test_wheel_holds_the_package_and_nothing_else(self):
        files = self.build_wheel()
        want = package_sources()
        self.assertIn("bub_tapestore_tape/__init__.py", want)
        self.assertIn("bub_tapestore_tape/py.typed", want)
        modules = {n: d for n, d in files.items() if not n.startswith(f"{DIST_INFO}/")}
        self.assertEqual(modules, want)
        info = {n for n in files if n.startswith(f"{DIST_INFO}/")}
        self.assertEqual(info, {f"{DIST_INFO}/{n}" for n in
                                ("METADATA", "WHEEL", "entry_points.txt", "RECORD")})

    def test_wheel_metadata(self):
        files = self.build_wheel()
        meta = email.parser.BytesParser().parsebytes(files[f"{DIST_INFO}/METADATA"])
        with open(PKG / "pyproject.toml", "rb") as f:
            project = tomllib.load(f)["project"]
        for field, want in [
            ("Metadata-Version", "2.1"),
            ("Name", NAME),
            ("Version", VERSION),
            ("Summary", project["description"]),
            ("Requires-Python", ">=3.11"),
            ("License", "MIT"),
            ("Description-Content-Type", "text/markdown"),
        ]:
            with self.subTest(field=field):
                self.assertEqual(meta.get_all(field), [want])
        self.assertIsNone(meta.get_all("Requires-Dist"))
        self.assertEqual(meta.get_payload(), (PKG / "README.md").read_text(encoding="utf-8"))

        wheel = email.parser.BytesParser().parsebytes(files[f"{DIST_INFO}/WHEEL"])
        self.assertEqual(wheel["Wheel-Version"], "1.0")
        self.assertEqual(wheel["Root-Is-Purelib"], "true")
        self.assertEqual(wheel.get_all("Tag"), ["py3-none-any"])

    def test_wheel_entry_point(self):
        files = self.build_wheel()
        parser = configparser.ConfigParser(delimiters=("=",))
        parser.optionxform = str  # names are case-sensitive
        parser.read_string(files[f"{DIST_INFO}/entry_points.txt"].decode())
        group, name, value = ENTRY_POINT
        self.assertEqual(parser.sections(), [group])
        self.assertEqual(dict(parser[group]), {name: value})

    def test_wheel_record_matches_every_file(self):
        files = self.build_wheel()
        rows = list(csv.reader(io.StringIO(files[f"{DIST_INFO}/RECORD"].decode())))
        listed = [row[0] for row in rows]
        self.assertEqual(sorted(listed), sorted(files), "RECORD lists each file once")
        self.assertEqual(len(listed), len(set(listed)))
        for path, digest, size in rows:
            with self.subTest(path=path):
                if path == f"{DIST_INFO}/RECORD":
                    self.assertEqual((digest, size), ("", ""))
                    continue
                self.assertEqual(digest, record_hash(files[path]))
                self.assertEqual(int(size), len(files[path]))
                self.assertNotIn("=", digest.removeprefix("sha256="), "no base64 padding")

    def test_prepared_metadata_is_the_wheels(self):
        files = self.build_wheel()
        md = self.out / "md"
        md.mkdir()
        with contextlib.chdir(PKG):
            name = self.backend.prepare_metadata_for_build_wheel(str(md))
        self.assertEqual(name, DIST_INFO)
        prepared = {p.name: p.read_bytes() for p in (md / name).iterdir()}
        self.assertEqual(prepared, {n: files[f"{DIST_INFO}/{n}"]
                                    for n in ("METADATA", "WHEEL", "entry_points.txt")})

    def test_sdist_builds_the_same_wheel(self):
        with contextlib.chdir(PKG):
            name = self.backend.build_sdist(str(self.out))
        self.assertEqual(name, SDIST)
        base = f"bub_tapestore_tape-{VERSION}"
        with tarfile.open(self.out / name) as tf:
            members = tf.getnames()
            # The filter argument came in 3.11.4; Debian 12's 3.11.2 lacks it.
            safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            tf.extractall(self.out / "unpacked", **safe)
        for want in ("PKG-INFO", "pyproject.toml", "README.md", "_backend/tape_build.py",
                     "src/bub_tapestore_tape/__init__.py", "src/bub_tapestore_tape/py.typed",
                     "tests/test_packaging.py"):
            self.assertIn(f"{base}/{want}", members)
        self.assertFalse([m for m in members if "__pycache__" in m or m.endswith(".pyc")])

        from_tree = (self.out / "tree").resolve()
        from_sdist = (self.out / "sdist").resolve()
        self.build_wheel(PKG, from_tree)
        self.build_wheel(self.out / "unpacked" / base, from_sdist)
        self.assertEqual((from_sdist / WHEEL).read_bytes(), (from_tree / WHEEL).read_bytes(),
                         "the wheel built from the sdist differs from the tree's")

    def test_wheel_leaves_out_what_is_not_the_package(self):
        root = self.out / "project"
        no_cache = shutil.ignore_patterns("__pycache__")
        for folder in ("_backend", "src"):
            shutil.copytree(PKG / folder, root / folder, ignore=no_cache)
        for file in ("pyproject.toml", "README.md"):
            shutil.copy(PKG / file, root / file)
        pkg = root / "src" / "bub_tapestore_tape"
        (pkg / "sub").mkdir(exist_ok=True)
        (pkg / "sub" / "__init__.py").write_text("x = 1\n")
        (pkg / "notes.txt").write_text("not a module\n")
        (pkg / "__pycache__").mkdir(exist_ok=True)
        (pkg / "__pycache__" / "stale.cpython-311.pyc").write_bytes(b"\0")
        (root / "src" / "stray.py").write_text("y = 2\n")
        (root / "tests").mkdir()
        (root / "tests" / "test_x.py").write_text("")

        files = self.build_wheel(root, self.out / "dist")
        modules = {n for n in files if not n.startswith(f"{DIST_INFO}/")}
        self.assertIn("bub_tapestore_tape/sub/__init__.py", modules)
        self.assertEqual(modules, set(package_sources(pkg)))
        for junk in ("notes.txt", "stale", "stray", "test_x"):
            self.assertFalse([n for n in files if junk in n], junk)

    def test_editable_wheel_points_at_src(self):
        with contextlib.chdir(PKG):
            name = self.backend.build_editable(str(self.out))
        self.assertEqual(name, WHEEL)
        files = read_wheel(self.out / name)
        pth = f"__editable__.bub_tapestore_tape-{VERSION}.pth"
        self.assertEqual({n for n in files if not n.startswith(f"{DIST_INFO}/")}, {pth})
        self.assertEqual(files[pth].decode().strip(), str((PKG / "src").resolve()))

    def test_refuses_what_it_cannot_build(self):
        cases = {
            "unknown key": '[project]\nname = "p"\nversion = "1.0"\nauthors = [{name = "x"}]\n',
            "dynamic field": '[project]\nname = "p"\ndynamic = ["version"]\n',
            "bad version": '[project]\nname = "p"\nversion = "one"\n',
            "missing readme": '[project]\nname = "p"\nversion = "1.0"\nreadme = "NOPE.md"\n',
            "console scripts": '[project]\nname = "p"\nversion = "1.0"\n'
                               '[project.entry-points.console_scripts]\np = "p:main"\n',
        }
        for case, toml in cases.items():
            with self.subTest(case=case):
                root = self.out / case.replace(" ", "_")
                (root / "src" / "p").mkdir(parents=True)
                (root / "src" / "p" / "__init__.py").write_text("")
                (root / "pyproject.toml").write_text(toml)
                with contextlib.chdir(root), self.assertRaises(self.backend.BuildError):
                    self.backend.build_wheel(str(self.out / "never"))
                self.assertFalse((self.out / "never").exists())


def clean_env() -> dict[str, str]:
    """The environment for pip: no user config, no index settings, no PYTHONPATH."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PIP_", "PYTHON", "VIRTUAL_ENV"))}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_NO_INPUT="1",
               PIP_DISABLE_PIP_VERSION_CHECK="1", PYTHONDONTWRITEBYTECODE="1")
    return env


class InstallTest(unittest.TestCase):
    """pip, in a fresh venv, with --no-index: the package installs offline."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.root = Path(cls.tmp.name)
        cls.venv = cls.root / "venv"
        cls.elsewhere = cls.root / "elsewhere"  # a cwd far from the source tree
        cls.elsewhere.mkdir()
        subprocess.run([sys.executable, "-m", "venv", str(cls.venv)], check=True,
                       env=clean_env(), capture_output=True)
        cls.python = cls.venv / "bin" / "python"

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_in_venv(self, *args: str) -> str:
        proc = subprocess.run([str(self.python), *args], cwd=self.elsewhere, env=clean_env(),
                              capture_output=True, text=True, timeout=120)
        self.assertEqual(proc.returncode, 0,
                         f"{' '.join(args)}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
        return proc.stdout

    def pip(self, *args: str) -> str:
        return self.run_in_venv("-m", "pip", *args)

    def ask(self, code: str) -> dict:
        """Run code in the venv's python, isolated (-I: no cwd, no PYTHONPATH); it prints JSON."""
        return json.loads(self.run_in_venv("-I", "-c", code))

    def installed(self) -> dict:
        return self.ask(
            "import json, importlib.metadata as m, importlib.util as u, sysconfig\n"
            f"d = m.distribution({NAME!r})\n"
            "eps = [[e.name, e.value] for e in m.entry_points(group='bub')]\n"
            "files = {str(f): str(f.locate()) for f in d.files}\n"
            "origin = u.find_spec('bub_tapestore_tape').origin\n"
            "print(json.dumps({'version': d.version, 'eps': eps, 'files': files, 'origin': origin,\n"
            "  'purelib': sysconfig.get_paths()['purelib']}))")

    def uninstall(self):
        self.pip("uninstall", "--yes", NAME)
        got = self.ask("import json, importlib.util as u\n"
                       "print(json.dumps(u.find_spec('bub_tapestore_tape') is None))")
        self.assertTrue(got, "the package is still importable after uninstall")

    def test_install_offline(self):
        self.pip("install", "--no-index", "--no-cache-dir", str(PKG))
        self.addCleanup(self.uninstall)
        got = self.installed()
        self.assertEqual(got["version"], VERSION)
        self.assertIn(list(ENTRY_POINT[1:]), got["eps"])
        site = Path(got["purelib"])
        self.assertTrue(Path(got["origin"]).is_relative_to(site), got["origin"])
        for rel, data in package_sources().items():
            with self.subTest(file=rel):
                self.assertIn(rel, got["files"])
                located = Path(got["files"][rel])
                self.assertTrue(located.is_relative_to(site), located)
                self.assertEqual(located.read_bytes(), data)
        # The modules themselves import from the installed copy once the
        # package has them (store.py is written beside this test, elsewhere).
        if (SRC / "store.py").exists():
            where = self.ask("import json, bub_tapestore_tape.store as s\n"
                             "print(json.dumps(s.__file__))")
            self.assertTrue(Path(where).is_relative_to(site), where)

    def test_editable_install_offline(self):
        self.pip("install", "--no-index", "--no-cache-dir", "--editable", str(PKG))
        self.addCleanup(self.uninstall)
        got = self.installed()
        self.assertIn(list(ENTRY_POINT[1:]), got["eps"])
        self.assertEqual(Path(got["origin"]), (SRC / "__init__.py").resolve())

    def test_pip_wheel_offline_is_the_backends_wheel(self):
        out = self.root / "pip-wheel"
        self.pip("wheel", "--no-index", "--no-cache-dir", "--no-deps", "--wheel-dir", str(out), str(PKG))
        self.assertEqual([p.name for p in out.iterdir()], [WHEEL])
        with contextlib.chdir(PKG):
            direct = self.root / "direct"
            load_backend().build_wheel(str(direct))
        self.assertEqual((out / WHEEL).read_bytes(), (direct / WHEEL).read_bytes())


if __name__ == "__main__":
    unittest.main()
