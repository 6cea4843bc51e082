"""A PEP 517 build backend for zot_sdk in the standard library only, so that
`pip install ./sdk-python` needs no build dependency and works with no package index.

It builds a pure-Python wheel of `zot_sdk/`, an sdist, and an editable wheel (PEP 660).
"""
import base64
import hashlib
import io
import os
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAME = "zot-sdk"
DIST = "zot_sdk"
PACKAGE = "zot_sdk"
SUMMARY = "Write zot extensions in Python: standard library only"
REQUIRES_PYTHON = ">=3.9"
TAG = "py3-none-any"


def _version():
    with open(os.path.join(ROOT, PACKAGE, "__init__.py"), encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("__version__"):
                return line.split("=", 1)[1].strip().strip("\"'")
    raise RuntimeError("zot_sdk/__init__.py has no __version__")


def _metadata():
    readme = os.path.join(ROOT, "README.md")
    body = ""
    if os.path.exists(readme):
        with open(readme, encoding="utf-8") as handle:
            body = "\n" + handle.read()
    head = (
        "Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: %s\nLicense: MIT\n"
        "Requires-Python: %s\nDescription-Content-Type: text/markdown\n"
        % (NAME, _version(), SUMMARY, REQUIRES_PYTHON)
    )
    return head + body


def _package_files():
    folder = os.path.join(ROOT, PACKAGE)
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py") or name == "py.typed":
            yield "%s/%s" % (PACKAGE, name), os.path.join(folder, name)


def _write_wheel(directory, entries):
    """entries: (archive path, bytes). Adds the dist-info and RECORD; returns the file name."""
    version = _version()
    info = "%s-%s.dist-info" % (DIST, version)
    wheel = "Wheel-Version: 1.0\nGenerator: zot_sdk_build\nRoot-Is-Purelib: true\nTag: %s\n" % TAG
    entries = list(entries) + [
        (info + "/METADATA", _metadata().encode("utf-8")),
        (info + "/WHEEL", wheel.encode("utf-8")),
    ]
    record = []
    for path, data in entries:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append("%s,sha256=%s,%d" % (path, digest, len(data)))
    record.append(info + "/RECORD,,")
    entries.append((info + "/RECORD", ("\n".join(record) + "\n").encode("utf-8")))
    filename = "%s-%s-%s.whl" % (DIST, version, TAG)
    with zipfile.ZipFile(os.path.join(directory, filename), "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in entries:
            archive.writestr(zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0)), data)
    return filename


def _read(path):
    with open(path, "rb") as handle:
        return handle.read()


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, ((path, _read(full)) for path, full in _package_files()))


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, [(DIST + ".pth", (ROOT + "\n").encode("utf-8"))])


def build_sdist(sdist_directory, config_settings=None):
    base = "%s-%s" % (DIST, _version())
    filename = base + ".tar.gz"
    files = [("pyproject.toml", os.path.join(ROOT, "pyproject.toml"))]
    files += [("README.md", os.path.join(ROOT, "README.md"))]
    files += [("_build/zot_sdk_build.py", os.path.abspath(__file__))]
    files += list(_package_files())
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz") as archive:
        pkg_info = _metadata().encode("utf-8")
        info = tarfile.TarInfo(base + "/PKG-INFO")
        info.size = len(pkg_info)
        archive.addfile(info, io.BytesIO(pkg_info))
        for path, full in files:
            if os.path.exists(full):
                archive.add(full, arcname="%s/%s" % (base, path), recursive=False)
    return filename
