"""retrace from Python: replay recorded flows, run suites and check pages, with results as
dataclasses parsed from retrace's versioned JSON documents.

A check that fails is a result (``passed`` is false); an error (exit code 2: bad input, no
browser, an unreachable page) is a :class:`RetraceError` carrying the exit code and message.

    >>> from retrace_ui import replay
    >>> result = replay("flows/login.json", url="http://127.0.0.1:8080/",
    ...                 params={"username": "demo"}, secrets={"password": "..."})
    >>> result.passed, result.failure
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any, Dict, Iterable, Mapping, Optional, Sequence, Union

from ._documents import (
    CheckResult,
    PageResult,
    ReplayResult,
    StepFailure,
    SuiteResult,
    TestResult,
)

__all__ = [
    "CheckResult",
    "PageResult",
    "ReplayResult",
    "RetraceError",
    "StepFailure",
    "SuiteResult",
    "TestResult",
    "binary",
    "check",
    "replay",
    "run",
]

PathLike = Union[str, "os.PathLike[str]"]

#: Exit codes: a pass, a check that failed, an error.
EXIT_PASSED, EXIT_FAILED, EXIT_ERROR = 0, 1, 2


class RetraceError(Exception):
    """retrace ended with an error (exit code 2) or could not be run at all."""

    def __init__(self, exit_code: int, message: str, command: Sequence[str] = ()):
        super().__init__(f"{message} (exit code {exit_code})")
        self.exit_code = exit_code
        self.message = message
        self.command = list(command)


def binary() -> str:
    """The `retrace` executable: ``RETRACE_BIN``, else the one this wheel installed, else the
    PATH's."""
    explicit = os.environ.get("RETRACE_BIN")
    if explicit:
        return explicit
    name = "retrace.exe" if sys.platform == "win32" else "retrace"
    installed = Path(sysconfig.get_path("scripts")) / name
    if installed.is_file():
        return str(installed)
    found = shutil.which("retrace")
    if found:
        return found
    raise RetraceError(EXIT_ERROR, "cannot find the retrace executable (set RETRACE_BIN)")


def _param_args(params: Optional[Mapping[str, str]]) -> list:
    args = []
    for name, value in (params or {}).items():
        args += ["--param", f"{name}={value}"]
    return args


def _secret_env(secrets: Optional[Mapping[str, str]]) -> Dict[str, str]:
    """Secret values go to retrace through the environment (``RETRACE_PARAM_<NAME>``), never
    on its command line."""
    env = dict(os.environ)
    for name, value in (secrets or {}).items():
        env[f"RETRACE_PARAM_{name.upper()}"] = value
    return env


def _call(args: Sequence[str], env: Optional[Dict[str, str]] = None, cwd: Optional[PathLike] = None) -> Dict[str, Any]:
    command = [binary(), *args]
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd)
    except OSError as error:
        raise RetraceError(EXIT_ERROR, f"cannot run {command[0]}: {error}", command) from error
    document: Optional[Dict[str, Any]] = None
    try:
        parsed = json.loads(done.stdout) if done.stdout.strip() else None
        document = parsed if isinstance(parsed, dict) else None
    except json.JSONDecodeError:
        document = None
    if done.returncode not in (EXIT_PASSED, EXIT_FAILED) or document is None:
        said = (document or {}).get("error") or done.stderr.strip() or done.stdout.strip()
        raise RetraceError(done.returncode, str(said or "retrace printed no result"), command)
    return document


def replay(
    file: PathLike,
    url: str,
    params: Optional[Mapping[str, str]] = None,
    secrets: Optional[Mapping[str, str]] = None,
    args: Iterable[str] = (),
    cwd: Optional[PathLike] = None,
) -> ReplayResult:
    """Replays one trajectory against ``url`` (``retrace replay``). ``secrets`` are parameters
    marked secret: their values never reach retrace's output, logs or reports, but `replay`
    takes them on its command line; :func:`run` passes them through the environment."""
    names = []
    for name in secrets or {}:
        names += ["--secret", name]
    values = dict(params or {})
    values.update(secrets or {})
    command = ["replay", os.fspath(file), "--url", url, "--json", *_param_args(values), *names, *args]
    return ReplayResult.parse(_call(command, cwd=cwd))


def run(
    paths: Sequence[PathLike],
    url: Optional[str] = None,
    params: Optional[Mapping[str, str]] = None,
    secrets: Optional[Mapping[str, str]] = None,
    args: Iterable[str] = (),
    cwd: Optional[PathLike] = None,
) -> SuiteResult:
    """Runs a suite of trajectory files (``retrace run``)."""
    command = ["run", *map(os.fspath, paths), "--json", *_param_args(params), *args]
    if url:
        command += ["--url", url]
    for name in secrets or {}:
        command += ["--secret", name]
    return SuiteResult.parse(_call(command, env=_secret_env(secrets), cwd=cwd))


def check(
    baseline: str,
    candidate: str,
    pages: Sequence[str] = ("/",),
    args: Iterable[str] = (),
    cwd: Optional[PathLike] = None,
) -> CheckResult:
    """Compares ``pages`` of ``candidate`` with ``baseline`` (a URL or a stored baseline
    folder) (``retrace check``)."""
    command = ["check", "--baseline", baseline, "--candidate", candidate, "--json", *args]
    for page in pages:
        command += ["--page", page]
    return CheckResult.parse(_call(command, cwd=cwd))
