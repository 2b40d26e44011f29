"""Run the installed ``tiletrans`` console script in a subprocess, as a user's shell would.

CLI tests go through here (issue 15: the command a user types, its exit code and streams, with
start-up, argument parsing and the console entry point included). In-process
:func:`translator.cli.invoke` is kept for tests that monkeypatch the translator.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def tiletrans_exe() -> str:
    """The installed ``tiletrans`` script; the test fails (never skips) when there is none."""
    exe = shutil.which("tiletrans")
    if exe is None:
        import pytest

        pytest.fail(
            "the `tiletrans` command is not installed: run `python -m pip install -e .` "
            "(.ci/run installs it); CLI tests run the installed command"
        )
    return exe


@dataclass
class Ran:
    """One finished ``tiletrans`` process (the fields of :class:`translator.cli.Result`)."""

    exit_code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        """stdout and stderr together."""
        return self.stdout + self.stderr


def tiletrans(
    *args: object,
    stdin: str | bytes | None = None,
    cwd: Path | str | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 300,
) -> Ran:
    """Run ``tiletrans ARGS...`` in ``cwd`` (default: the current folder) and wait for it.

    ``PYTHONPATH`` names this checkout, so that the script imports the ``translator`` under
    test even where the editable install points at another checkout (a git worktree).
    """
    data = stdin.encode() if isinstance(stdin, str) else stdin
    proc = subprocess.run(
        [tiletrans_exe(), *(str(a) for a in args)],
        input=data if data is not None else b"",
        capture_output=True,
        cwd=str(cwd) if cwd is not None else os.getcwd(),
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
        timeout=timeout,
    )
    assert proc.returncode >= 0, f"tiletrans was killed by signal {-proc.returncode}"
    return Ran(
        proc.returncode,
        proc.stdout.decode("utf-8", "replace"),
        proc.stderr.decode("utf-8", "replace"),
    )
