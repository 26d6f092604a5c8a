"""Replays a trajectory file with askui 0.48's own CacheExecutor, in a venv with askui.

Used by crates/cli/tests/cli/askui_export.rs. Everything is askui's code (Conversation,
CacheExecutor, CacheManager, its computer tools, VerifyCacheExecution) except two parts:

- the computer: `StandInComputer`, a ComputerAgentOS whose screen is a list of PNGs (saved
  from a real retrace run of the demo in Chromium); every action that changes the page
  (a click, typing, a key, a scroll, a release) shows the next one;
- the model: `ScriptedAgent`, the "AgentSpeaker" that hands the run to the CacheExecutor and,
  when the replay ends, calls askui's verify_cache_execution with the verdict it was given.

Input (argv[1]): a JSON list of jobs, run in order (askui imports slowly, so one process runs
them all):
- {"kind": "replay", "file", "screens": [png...], "parameters": {...}, "verdict": bool|null,
  "notes": str} -> {"outcome": "completed"|"failed"|"paused"|"error", "message",
  "visual_checks": [{"step", "tool", "passed", "error"}], "actions": [...]};
- {"kind": "failure", "file", "step_index", "error_message"}: CacheManager's
  update_metadata_on_failure -> {};
- {"kind": "completion", "file", "success"}: update_metadata_on_completion -> {}.
Output (stdout): a JSON list, one answer per job.
"""

import json
import sys
from pathlib import Path

from PIL import Image

from askui.models.shared.agent_message_param import (
    MessageParam,
    TextBlockParam,
    ToolUseBlockParam,
)
from askui.models.shared.conversation import Conversation
from askui.models.shared.settings import CacheExecutionSettings
from askui.models.shared.tools import ToolCollection
from askui.speaker.cache_executor import CacheExecutor
from askui.speaker.speaker import Speaker, SpeakerResult, Speakers
from askui.tools.agent_os import ComputerAgentOS, Display
from askui.tools.caching_tools import VerifyCacheExecution
from askui.tools.computer import (
    ComputerKeyboardTapTool,
    ComputerMouseClickTool,
    ComputerMouseHoldDownTool,
    ComputerMouseReleaseTool,
    ComputerMouseScrollTool,
    ComputerMoveMouseTool,
    ComputerScreenshotTool,
    ComputerTypeTool,
)
from askui.utils.caching.cache_manager import CacheManager


class StandInComputer(ComputerAgentOS):
    """A screen made of PNGs: action number N shows screens[N]."""

    def __init__(self, screens):
        self.screens = [Image.open(path).convert("RGB") for path in screens]
        self.shown = 0
        self.actions = []
        self.tags = ["computer", "scaled_agent_os"]

    def _changed(self, what):
        self.actions.append(what)
        self.shown = min(self.shown + 1, len(self.screens) - 1)

    def connect(self):
        pass

    def disconnect(self):
        pass

    def screenshot(self, report=True, unscaled=False):
        return self.screens[self.shown].copy()

    def mouse_move(self, x, y, duration=500):
        self.actions.append(f"move {x},{y}")

    def type(self, text, typing_speed=50):
        self._changed(f"type {text}")

    def click(self, button="left", count=1):
        self._changed(f"click {button} x{count}")

    def mouse_down(self, button="left"):
        self.actions.append(f"down {button}")

    def mouse_up(self, button="left"):
        self._changed(f"up {button}")

    def mouse_scroll(self, dx, dy):
        self._changed(f"scroll {dx},{dy}")

    def keyboard_pressed(self, key, modifier_keys=None):
        self.actions.append(f"press {key}")

    def keyboard_release(self, key, modifier_keys=None):
        self.actions.append(f"release {key}")

    def keyboard_tap(self, key, modifier_keys=None, count=1):
        self._changed(f"tap {'+'.join((modifier_keys or []) + [key])}")

    def retrieve_active_display(self):
        width, height = self.screens[0].size
        return Display.model_validate(
            {"id": 1, "size": {"width": width, "height": height}}
        )

    def get_current_computer_target_id(self, report=True):
        return "stand-in"


class ScriptedAgent(Speaker):
    """Starts the replay, then gives askui's verify_cache_execution its verdict."""

    def __init__(self, spec, outcome):
        super().__init__(name="AgentSpeaker", description="scripted stand-in for the model")
        self.spec = spec
        self.outcome = outcome
        self.turn = 0

    def can_handle(self, conversation):
        return True

    def handle_step(self, conversation, cache_manager):
        self.turn += 1
        if self.turn == 1:
            return SpeakerResult(
                status="switch_speaker",
                next_speaker="CacheExecutor",
                speaker_context={
                    "trajectory_file": self.spec["file"],
                    "parameter_values": self.spec.get("parameters", {}),
                },
            )
        last = conversation.get_messages()[-1]
        text = "".join(
            block.text for block in last.content if getattr(block, "type", "") == "text"
        ) if not isinstance(last.content, str) else last.content
        if self.outcome["outcome"] is None:
            if "[CACHE EXECUTION COMPLETED]" in text:
                self.outcome["outcome"] = "completed"
            elif "[CACHE EXECUTION FAILED]" in text:
                self.outcome["outcome"] = "failed"
            elif "Cache execution paused" in text:
                self.outcome["outcome"] = "paused"
            else:
                self.outcome["outcome"] = "error"
            self.outcome["message"] = text
            verdict = self.spec.get("verdict")
            if self.outcome["outcome"] == "completed" and verdict is not None:
                verify = next(
                    name for name in conversation.tools.tool_map
                    if name.startswith("verify_cache_execution")
                )
                call = ToolUseBlockParam(
                    id="toolu_verdict",
                    name=verify,
                    input={"success": verdict, "verification_notes": self.spec.get("notes", "")},
                )
                return SpeakerResult(
                    status="continue",
                    messages_to_add=[MessageParam(role="assistant", content=[call])],
                )
        return SpeakerResult(status="done")


def replay(spec):
    computer = StandInComputer(spec["screens"])
    tools = [
        ComputerScreenshotTool(computer),
        ComputerMoveMouseTool(computer),
        ComputerMouseClickTool(computer),
        ComputerMouseHoldDownTool(computer),
        ComputerMouseReleaseTool(computer),
        ComputerMouseScrollTool(computer),
        ComputerTypeTool(computer),
        ComputerKeyboardTapTool(computer),
    ]
    manager = CacheManager()
    executor = CacheExecutor(CacheExecutionSettings(delay_time_between_actions=0.0))
    checks = []
    original = executor._validate_step_visually

    def recorded(step, current_screenshot=None):
        passed, error = original(step, current_screenshot=current_screenshot)
        if step.visual_representation:
            checks.append({
                "step": executor._current_step_index,
                "tool": step.name,
                "passed": passed and error is None,
                "error": error,
            })
        return passed, error

    executor._validate_step_visually = recorded
    tools.append(VerifyCacheExecution(cache_executor=executor, cache_manager=manager))
    outcome = {"outcome": None, "message": ""}
    speakers = Speakers({"AgentSpeaker": ScriptedAgent(spec, outcome)})
    speakers.add_speaker(executor)
    conversation = Conversation(speakers=speakers, vlm_provider=None, cache_manager=manager)
    conversation.execute_conversation(
        messages=[MessageParam(role="user", content="replay the trajectory")],
        tools=ToolCollection(tools=tools, agent_os_list=[computer]),
    )
    outcome["visual_checks"] = checks
    outcome["actions"] = computer.actions
    return outcome


def update(job):
    manager = CacheManager()
    path = job["file"]
    cache_file = manager.read_cache_file(Path(path))
    if job["kind"] == "failure":
        manager.update_metadata_on_failure(
            cache_file, path, job["step_index"], job["error_message"]
        )
    else:
        manager.update_metadata_on_completion(cache_file, path, job["success"])
    return {}


def main():
    answers = [
        replay(job) if job["kind"] == "replay" else update(job)
        for job in json.loads(sys.argv[1])
    ]
    print(json.dumps(answers))


if __name__ == "__main__":
    main()
