"""The versioned JSON documents `retrace ... --json` prints, as dataclasses.

Each class keeps the whole document in ``raw`` so a field this module does not name yet is
still there to read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional


@dataclass(frozen=True)
class StepFailure:
    """Where and why a replay stopped."""

    step: int
    kind: str
    action: Optional[str]
    message: str

    @staticmethod
    def parse(value: Optional[Dict[str, Any]]) -> Optional["StepFailure"]:
        if not value:
            return None
        return StepFailure(
            step=int(value.get("step") or 0),
            kind=str(value.get("kind") or ""),
            action=value.get("action"),
            message=str(value.get("message") or ""),
        )


@dataclass(frozen=True)
class ReplayResult:
    """`retrace replay --json`: one trajectory replayed against one URL."""

    status: str
    name: str
    url: Optional[str]
    steps_total: int
    steps_replayed: int
    failure: Optional[StepFailure]
    error: Optional[str]
    evidence: List[str]
    raw: Dict[str, Any] = field(repr=False)

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    @staticmethod
    def parse(document: Dict[str, Any]) -> "ReplayResult":
        replay = document.get("replay") or {}
        return ReplayResult(
            status=str(document.get("status") or ""),
            name=str(document.get("name") or ""),
            url=document.get("url"),
            steps_total=int(replay.get("steps_total") or 0),
            steps_replayed=int(replay.get("steps_replayed") or 0),
            failure=StepFailure.parse(replay.get("failure")),
            error=document.get("error"),
            evidence=[str(path) for path in document.get("evidence") or []],
            raw=document,
        )


@dataclass(frozen=True)
class TestResult:
    """One test of a suite report."""

    id: str
    file: str
    status: str
    step: Optional[int]
    message: Optional[str]
    evidence: List[str]
    rerun: Optional[str]
    raw: Dict[str, Any] = field(repr=False)

    @property
    def passed(self) -> bool:
        return self.status in ("passed", "flaky")

    @staticmethod
    def parse(test: Dict[str, Any]) -> "TestResult":
        attempts = test.get("attempts") or []
        last = attempts[-1] if attempts else {}
        failure = StepFailure.parse((last.get("replay") or {}).get("failure"))
        message = failure.message if failure else last.get("error")
        evidence = [str(path) for path in last.get("evidence") or []]
        return TestResult(
            id=str(test.get("id") or ""),
            file=str(test.get("file") or ""),
            status=str(test.get("status") or ""),
            step=test.get("step") if test.get("step") is not None else (failure.step if failure else None),
            message=message,
            evidence=evidence,
            rerun=test.get("rerun"),
            raw=test,
        )


@dataclass(frozen=True)
class SuiteResult:
    """`retrace run --json`: a suite report."""

    name: str
    totals: Dict[str, int]
    tests: List[TestResult]
    raw: Dict[str, Any] = field(repr=False)

    @property
    def passed(self) -> bool:
        return all(test.passed or test.status == "skipped" for test in self.tests)

    @staticmethod
    def parse(document: Dict[str, Any]) -> "SuiteResult":
        return SuiteResult(
            name=str(document.get("name") or ""),
            totals={key: int(value) for key, value in (document.get("totals") or {}).items()},
            tests=[TestResult.parse(test) for test in document.get("tests") or []],
            raw=document,
        )


@dataclass(frozen=True)
class PageResult:
    """One page of `retrace check --json`: its verdict (PASS, FAIL or ERROR) and why."""

    path: str
    viewport: List[int]
    verdict: str
    differences: List[str]
    evidence: List[str]
    error: Optional[str]
    raw: Dict[str, Any] = field(repr=False)

    @staticmethod
    def parse(page: Dict[str, Any]) -> "PageResult":
        return PageResult(
            path=str(page.get("path") or ""),
            viewport=[int(n) for n in page.get("viewport") or []],
            verdict=str(page.get("verdict") or ""),
            differences=[str(d.get("description") or "") for d in page.get("differences") or []],
            evidence=[str(path) for path in page.get("evidence") or []],
            error=page.get("error"),
            raw=page,
        )


@dataclass(frozen=True)
class CheckResult:
    """`retrace check --json`: every page compared with its baseline."""

    pages: List[PageResult]
    raw: Dict[str, Any] = field(repr=False)

    @property
    def verdict(self) -> str:
        """ERROR if any page is an ERROR, else FAIL if any fails, else PASS."""
        verdicts = {page.verdict for page in self.pages}
        for worst in ("ERROR", "FAIL"):
            if worst in verdicts:
                return worst
        return "PASS"

    @staticmethod
    def parse(document: Dict[str, Any]) -> "CheckResult":
        return CheckResult(
            pages=[PageResult.parse(page) for page in document.get("pages") or []],
            raw=document,
        )
