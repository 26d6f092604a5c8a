"""``pytest --retrace flows/``: trajectory files as pytest test items.

Each trajectory file (a JSON file holding a ``trajectory``: retrace's own or askui's format)
under the paths pytest collects becomes one test item, replayed by ``retrace run`` against
``--retrace-url``. A failure is reported in pytest's own output with its step, its reason and
the evidence files, so ``--junitxml``, pytest-html and CI show it as any failing test.

Parameters: ``--retrace-param NAME=VALUE`` (repeatable), and ``RETRACE_PARAM_<NAME>``
environment variables for secrets (retrace reads them itself; they never reach its output).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

from . import RetraceError, TestResult, run


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("retrace", "replay recorded UI flows with retrace")
    group.addoption(
        "--retrace",
        action="store_true",
        default=False,
        help="collect trajectory JSON files as tests and replay them with retrace",
    )
    group.addoption(
        "--retrace-url",
        default=None,
        help="the base URL the flows are replayed against (default: each file's recorded URL)",
    )
    group.addoption(
        "--retrace-param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a parameter value for the flows' {{NAME}} placeholders (repeatable)",
    )
    group.addoption(
        "--retrace-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="an extra argument for `retrace run` (repeatable), e.g. --retrace-arg=--step-timeout=20",
    )


def _is_trajectory(path: Path) -> bool:
    if path.suffix != ".json":
        return False
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        # A broken file is still a test: retrace names its defect when it runs.
        return True
    return isinstance(document, dict) and "trajectory" in document


def pytest_collect_file(parent: pytest.Collector, file_path: Path) -> Optional[pytest.Collector]:
    if parent.config.getoption("retrace") and _is_trajectory(file_path):
        return TrajectoryFile.from_parent(parent, path=file_path)
    return None


class TrajectoryFile(pytest.File):
    """A trajectory file: one test."""

    def collect(self):
        yield TrajectoryItem.from_parent(self, name=self.path.name)


class RetraceFailure(Exception):
    """A flow that did not pass: what retrace said, per test."""

    def __init__(self, test: TestResult):
        super().__init__(test.message or test.status)
        self.test = test


def _params(config: pytest.Config) -> Dict[str, str]:
    params: Dict[str, str] = {}
    for given in config.getoption("retrace_param"):
        name, separator, value = given.partition("=")
        if not separator or not name:
            raise pytest.UsageError(f"--retrace-param {given!r}: expected NAME=VALUE")
        params[name] = value
    return params


class TrajectoryItem(pytest.Item):
    """One flow, replayed by ``retrace run``."""

    def runtest(self) -> None:
        config = self.config
        out = Path(tempfile.mkdtemp(prefix="retrace-pytest-"))
        args: List[str] = ["--out", str(out), *config.getoption("retrace_arg")]
        try:
            suite = run(
                [self.path],
                url=config.getoption("retrace_url"),
                params=_params(config),
                args=args,
                cwd=self.path.parent,
            )
        except RetraceError as error:
            raise RetraceFailure(
                TestResult(
                    id=self.path.name,
                    file=str(self.path),
                    status="error",
                    step=None,
                    message=error.message,
                    evidence=[],
                    rerun=None,
                    raw={},
                )
            ) from error
        for test in suite.tests:
            self.user_properties.append(("retrace_status", test.status))
            if not test.passed:
                raise RetraceFailure(test)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, RetraceFailure):
            test = excinfo.value.test
            where = f"step {test.step}" if test.step is not None else "before any step"
            lines = [f"retrace: {test.status} at {where}: {test.message or 'no reason given'}"]
            lines += [f"  evidence: {path}" for path in test.evidence]
            if test.rerun:
                lines.append(f"  rerun: {test.rerun}")
            return "\n".join(lines)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, f"retrace: {self.path.name}"
