"""``make site`` and ``make test`` install a Chromium where none is found: through apt-get on Debian
and Ubuntu (as root, or with sudo), printing the one command they run; elsewhere one message that
says what to install and how to point CHROMIUM at it.

Nothing here installs anything: PATH holds only stand-ins for ``apt-get`` and ``sudo`` that record
how they were called (and "install" a stand-in Chromium), and ``/etc/os-release`` is a file of the
test's own.
"""

from __future__ import annotations

import os
import shutil
import stat

import pytest

from devtools import chromium_install

APT_GET = """#!/bin/sh
echo "apt-get $*" >> "{log}"
case "$1" in install)
  {fail}
  printf '#!/bin/sh\\necho Chromium 156\\n' > "{bin}/{installs}"
  /bin/chmod +x "{bin}/{installs}";;
esac
"""
SUDO = """#!/bin/sh
echo "sudo $*" >> "{log}"
exec "$@"
"""


@pytest.fixture
def machine(tmp_path, monkeypatch):
    """A machine with no Chromium: ``machine(os_id, root=, sudo=, apt=, installs=, fail=)`` sets it
    up and returns the file the stand-ins log their calls to."""
    bin_dir, log = tmp_path / "bin", tmp_path / "calls.log"
    bin_dir.mkdir()
    os.symlink(shutil.which("sh"), bin_dir / "sh")
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.delenv("CHROMIUM", raising=False)

    def make(os_id, *, root=True, sudo=False, apt=True, installs="chromium-headless-shell", fail=False):
        release = tmp_path / "os-release"
        if os_id is not None:
            release.write_text(f'PRETTY_NAME="A test machine"\n{os_id}\n', encoding="utf-8")
        monkeypatch.setattr(chromium_install, "OS_RELEASE", release)
        monkeypatch.setattr(os, "geteuid", lambda: 0 if root else 1000)
        scripts = {"apt-get": APT_GET if apt else None, "sudo": SUDO if sudo else None}
        for name, script in scripts.items():
            if script is not None:
                path = bin_dir / name
                failing = "exit 100" if fail else ":"
                path.write_text(script.format(log=log, bin=bin_dir, installs=installs, fail=failing))
                path.chmod(path.stat().st_mode | stat.S_IXUSR)
        return log

    return make


def calls(log) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


SCRIPT = "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq"


def test_debian_as_root_installs_the_headless_shell_and_prints_the_one_command(machine, capsys):
    log = machine("ID=debian")
    found = chromium_install.ensure()
    out = capsys.readouterr().out
    assert found is not None and found.endswith("/chromium-headless-shell")
    assert (
        f"installing it for the PDF and the browser tests: sh -c '{SCRIPT} chromium-headless-shell fonts-liberation'"
        in out
    )
    assert calls(log) == ["apt-get update -qq", "apt-get install -y -qq chromium-headless-shell fonts-liberation"]


def test_ubuntu_without_root_goes_through_sudo_and_installs_chromium(machine, capsys):
    log = machine('ID=ubuntu\nID_LIKE="debian"', root=False, sudo=True, installs="chromium")
    assert chromium_install.ensure().endswith("/chromium")
    assert f": sudo sh -c '{SCRIPT} chromium fonts-liberation'" in capsys.readouterr().out
    assert calls(log)[0].startswith("sudo sh -c apt-get update") and calls(log)[-1].endswith(
        "install -y -qq chromium fonts-liberation"
    )


def test_elsewhere_one_message_says_what_to_install_and_how_to_point_chromium_at_it(machine, capsys):
    log = machine(None, apt=False)  # macOS: no /etc/os-release, no apt-get
    assert chromium_install.main(["--required"]) == 1  # make test stops there
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "install Google Chrome or Chromium" in err and 'CHROMIUM="/Applications/Google Chrome.app' in err
    assert chromium_install.main([]) == 0  # make site goes on, and builds the HTML without the PDF
    assert calls(log) == []


def test_debian_without_root_or_sudo_says_what_to_run_as_root(machine, capsys):
    log = machine("ID=debian", root=False, sudo=False)
    assert chromium_install.ensure() is None
    assert f"as root, run: {SCRIPT} chromium-headless-shell fonts-liberation" in capsys.readouterr().err
    assert calls(log) == []


def test_a_failed_install_says_so_and_what_to_do(machine, capsys):
    machine("ID=debian", fail=True)
    assert chromium_install.main(["--required"]) == 1
    assert "Installing Chromium failed (exit 100" in capsys.readouterr().err


def test_a_chromium_already_there_installs_nothing(machine, tmp_path, capsys):
    log = machine("ID=debian")
    browser = tmp_path / "bin" / "google-chrome"
    browser.write_text("#!/bin/sh\n")
    browser.chmod(0o755)
    assert chromium_install.ensure() == str(browser)
    assert calls(log) == [] and capsys.readouterr().out == ""


def test_a_chromium_variable_naming_nothing_is_reported_not_replaced(machine, monkeypatch, capsys):
    log = machine("ID=debian")
    monkeypatch.setenv("CHROMIUM", "/nowhere/chrome")
    assert chromium_install.ensure() is None
    assert "CHROMIUM='/nowhere/chrome' is not an executable" in capsys.readouterr().err
    assert calls(log) == []
