"""Both ways of getting zot_sdk: `pip install ./sdk-python` with no package index, and a copy
of zot_sdk/ next to the script. Plus the oldest supported Python, when it is on this machine."""
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SDK = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCRIPT = """
from zot_sdk import Extension, display
ext = Extension("installed", "1.0.0")

@ext.command("hi", "says hi")
def hi(args):
    return display("hi from " + __import__("zot_sdk").__file__)

ext.run()
"""

FRAMES = (
    b'{"type":"hello_ack","protocol_version":1}\n'
    b'{"type":"command_invoked","id":"1","name":"hi","args":""}\n'
    b'{"type":"shutdown"}\n'
)


def run_script(test, directory, env):
    with open(os.path.join(directory, "main.py"), "w", encoding="utf-8") as handle:
        handle.write(SCRIPT)
    done = subprocess.run(
        [sys.executable, "main.py"], cwd=directory, env=env, input=FRAMES, capture_output=True, timeout=60
    )
    test.assertEqual(done.returncode, 0, done.stderr.decode())
    out = done.stdout.decode().splitlines()
    test.assertEqual(out[-1], '{"type":"shutdown_ack"}')
    return out


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra)
    return env


class InstallTest(unittest.TestCase):
    def setUp(self):
        self.base = tempfile.mkdtemp(prefix="zot-sdk-install-")
        self.addCleanup(shutil.rmtree, self.base, True)

    def test_copy_next_to_the_script(self):
        directory = os.path.join(self.base, "ext")
        shutil.copytree(os.path.join(SDK, "zot_sdk"), os.path.join(directory, "zot_sdk"))
        out = run_script(self, directory, clean_env())
        self.assertIn(os.path.join(directory, "zot_sdk"), out[-2])

    @unittest.skipIf(subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode != 0, "no pip")
    def test_pip_install_with_no_index(self):
        target = os.path.join(self.base, "site")
        build = tempfile.mkdtemp(prefix="zot-sdk-build-")
        self.addCleanup(shutil.rmtree, build, True)
        source = os.path.join(build, "sdk-python")  # a copy: pip must not write into the repo
        shutil.copytree(SDK, source, ignore=shutil.ignore_patterns("__pycache__", "tests", "tools"))
        done = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--no-index", "--no-cache-dir", "--disable-pip-version-check",
             "--target", target, source],
            capture_output=True,
            timeout=300,
            env=clean_env(PIP_CONFIG_FILE=os.devnull),
        )
        self.assertEqual(done.returncode, 0, done.stdout.decode() + done.stderr.decode())
        self.assertTrue(glob.glob(os.path.join(target, "zot_sdk-*.dist-info", "RECORD")))
        directory = os.path.join(self.base, "ext")
        os.makedirs(directory)
        out = run_script(self, directory, clean_env(PYTHONPATH=target))
        self.assertIn(os.path.join(target, "zot_sdk"), out[-2])


def oldest_python():
    """A Python 3.9 interpreter, if this machine has one."""
    candidates = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.9*/bin/python3")))
    candidates += [shutil.which("python3.9")]
    for candidate in candidates:
        if candidate and subprocess.run([candidate, "-c", "pass"], capture_output=True).returncode == 0:
            return candidate
    return None


class OldestPythonTest(unittest.TestCase):
    @unittest.skipIf(oldest_python() is None or sys.version_info[:2] == (3, 9), "no other Python 3.9 here")
    def test_suite_passes_on_python_3_9(self):
        done = subprocess.run(
            [oldest_python(), "-m", "unittest", "tests.test_framing", "tests.test_results", "tests.test_extension", "tests.test_e2e"],
            cwd=SDK,
            capture_output=True,
            timeout=300,
            env=clean_env(),
        )
        self.assertEqual(done.returncode, 0, done.stderr.decode()[-3000:])


if __name__ == "__main__":
    unittest.main()
