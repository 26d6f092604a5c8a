"""Checks JSON bodies strictly against the official Anthropic and OpenAI Python SDKs' types.

Reads JSON Lines, one check per line, from the file named as the only argument or from stdin:

    {"api": "anthropic.messages", "body": {...}}

and writes one JSON line per input line, in order:

    {"ok": false, "errors": ["messages[1].content[0].toolset_nam: unknown field (ToolResultBlockParam)"]}

Request checks ("anthropic.messages", "anthropic.beta.messages", "openai.chat",
"openai.responses") walk the SDK's create-params TypedDict with its type hints: every key of an
object must be a field of the TypedDict it sits in (unless the SDK marks that TypedDict
`extra: allow`), every `Required` key must be present, every value must be of its type, every
`Literal` one of its values, and every list is walked element by element (pydantic's
TypeAdapter checks `Iterable` fields only lazily, so it is not used for requests). A value that
may be one of several TypedDicts is matched against the members its `Literal` fields (`type`,
`role`...) allow, and the errors of the closest member are reported.

Response checks ("anthropic.response", "anthropic.beta.response", "openai.chat.response",
"openai.responses.response") run the SDK model's `model_validate` and walk its fields the same
way with extra keys forbidden (the SDK's models accept unknown keys silently). Anthropic
responses also check every computer toolset `tool_use` block (`toolset_name: "computer"`)
against the SDK's own type for it (`types/computer_tool_use_block.py`), which requires
`caller` and the action's own input fields.

Only the standard library and the two SDKs are used. Exit status: 0 when every line could be
checked (whatever the verdicts), 2 on unusable input (a line that is not JSON, an unknown api).
"""

from __future__ import annotations

import collections.abc
import enum
import functools
import importlib
import json
import os
import sys
import types
import typing

import typing_extensions
from typing_extensions import get_args, get_origin, is_typeddict

REQUEST_TYPES = {
    # anthropic 2.14.0: anthropic/types/message_create_params.py
    "anthropic.messages": ("anthropic.types.message_create_params", "MessageCreateParamsNonStreaming"),
    # anthropic 2.14.0: anthropic/types/beta/message_create_params.py
    "anthropic.beta.messages": (
        "anthropic.types.beta.message_create_params",
        "MessageCreateParamsNonStreaming",
    ),
    # openai 3.57.0: openai/types/chat/completion_create_params.py
    "openai.chat": ("openai.types.chat.completion_create_params", "CompletionCreateParamsNonStreaming"),
    # openai 3.57.0: openai/types/responses/response_create_params.py
    "openai.responses": (
        "openai.types.responses.response_create_params",
        "ResponseCreateParamsNonStreaming",
    ),
}

RESPONSE_TYPES = {
    "anthropic.response": ("anthropic.types", "Message"),
    "anthropic.beta.response": ("anthropic.types.beta", "BetaMessage"),
    "openai.chat.response": ("openai.types.chat", "ChatCompletion"),
    "openai.responses.response": ("openai.types.responses", "Response"),
}

# The SDK's type of a computer toolset tool_use block, checked on top of the message's own
# content-block type (which types such a block loosely, as a plain ToolUseBlock).
TOOLSET_TOOL_USE_TYPES = {
    "anthropic.response": ("anthropic.types", "ComputerToolUseBlock"),
    "anthropic.beta.response": ("anthropic.types.beta", "BetaComputerToolUseBlock"),
}

UNION_TYPES = (typing.Union, types.UnionType)
LIST_ORIGINS = (
    list,
    collections.abc.Iterable,
    collections.abc.Sequence,
    collections.abc.MutableSequence,
    collections.abc.Collection,
)
DICT_ORIGINS = (dict, collections.abc.Mapping, collections.abc.MutableMapping)
WRAPPERS = (
    typing_extensions.Required,
    typing_extensions.NotRequired,
    typing_extensions.ReadOnly,
)
MAX_LISTED = 12


def load(module: str, name: str) -> object:
    return getattr(importlib.import_module(module), name)


def describe(value: object) -> str:
    """A short description of a JSON value for error messages."""
    kind = json_kind(value)
    text = json.dumps(value)
    if len(text) > 40:
        text = text[:37] + "..."
    return f"{kind} {text}" if kind not in ("object", "array") else kind


def json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def unwrap(tp: object) -> object:
    """Strips Annotated, Required, NotRequired and ReadOnly."""
    while True:
        origin = get_origin(tp)
        if origin is typing_extensions.Annotated or origin is typing.Annotated:
            tp = get_args(tp)[0]
        elif origin in WRAPPERS:
            tp = get_args(tp)[0]
        else:
            return tp


def is_model(tp: object) -> bool:
    import pydantic

    return isinstance(tp, type) and issubclass(tp, pydantic.BaseModel)


class Fields(typing.NamedTuple):
    """The fields of an object type: name -> type, the required names, whether extra keys pass."""

    hints: dict
    required: frozenset
    extra_allowed: bool


@functools.lru_cache(maxsize=None)
def typeddict_fields(cls: type) -> Fields:
    hints = typing_extensions.get_type_hints(cls, include_extras=True)
    required = set()
    for name, hint in hints.items():
        origin = get_origin(hint)
        if origin is typing_extensions.Annotated:
            origin = get_origin(get_args(hint)[0])
        if origin is typing_extensions.Required:
            required.add(name)
        elif origin is typing_extensions.NotRequired:
            continue
        elif total_for(cls, name):
            required.add(name)
    config = getattr(cls, "__pydantic_config__", None) or {}
    return Fields(hints, frozenset(required), config.get("extra") == "allow")


def total_for(cls: type, name: str) -> bool:
    """The totality of the TypedDict (cls or one of its bases) that declares `name`."""
    for base in getattr(cls, "__orig_bases__", ()):
        if is_typeddict(base) and name in getattr(base, "__annotations__", {}):
            return total_for(base, name)
    return bool(getattr(cls, "__total__", True))


@functools.lru_cache(maxsize=None)
def model_fields(cls: type) -> Fields:
    hints = {}
    required = set()
    for name, field in cls.model_fields.items():
        key = field.alias or name
        hints[key] = field.annotation
        if field.is_required():
            required.add(key)
    # Strict: a reply the SDK would parse only by keeping unknown keys aside is refused.
    return Fields(hints, frozenset(required), False)


def object_fields(tp: object) -> Fields | None:
    if is_typeddict(tp):
        return typeddict_fields(tp)
    if is_model(tp):
        return model_fields(tp)
    return None


def type_name(tp: object) -> str:
    tp = unwrap(tp)
    origin = get_origin(tp)
    if origin is typing.Literal:
        return "one of " + ", ".join(json.dumps(v) for v in get_args(tp)[:MAX_LISTED])
    if origin in UNION_TYPES:
        return " | ".join(type_name(a) for a in get_args(tp))
    if tp is type(None) or tp is None:
        return "null"
    return getattr(tp, "__name__", str(tp))


def kind_fits(tp: object, value: object) -> bool:
    """Whether `value`'s JSON kind can be of type `tp` at all (used to pick union members)."""
    tp = unwrap(tp)
    origin = get_origin(tp)
    kind = json_kind(value)
    if tp in (typing.Any, object):
        return True
    if origin is typing.Literal:
        return any(json_kind(v) == kind for v in get_args(tp))
    if origin in UNION_TYPES:
        return any(kind_fits(a, value) for a in get_args(tp))
    if object_fields(tp) is not None or origin in DICT_ORIGINS or tp is dict:
        return kind == "object"
    if origin in LIST_ORIGINS or tp is list or getattr(origin, "__name__", "") == "SequenceNotStr":
        return kind == "array"
    if tp is type(None) or tp is None:
        return kind == "null"
    if tp is bool:
        return kind == "boolean"
    if tp is int:
        return kind == "integer"
    if tp is float:
        return kind in ("integer", "number")
    if tp is str:
        return kind == "string"
    return True


class Checker:
    """Collects errors of one value against one type."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def fail(self, path: str, message: str) -> None:
        self.errors.append(f"{path or '<body>'}: {message}")

    def check(self, tp: object, value: object, path: str) -> None:
        tp = unwrap(tp)
        origin = get_origin(tp)
        if tp in (typing.Any, object):
            return
        if tp is type(None) or tp is None:
            if value is not None:
                self.fail(path, f"expected null, got {describe(value)}")
            return
        if origin is typing.Literal:
            allowed = get_args(tp)
            if not any(type(value) is type(a) and value == a for a in allowed):
                self.fail(path, f"{json.dumps(value)} is not {type_name(tp)}")
            return
        if origin in UNION_TYPES:
            self.check_union(tp, value, path)
            return
        fields = object_fields(tp)
        if fields is not None:
            self.check_object(tp, fields, value, path)
            return
        if origin in DICT_ORIGINS or tp is dict:
            if not isinstance(value, dict):
                self.fail(path, f"expected an object, got {describe(value)}")
                return
            args = get_args(tp)
            for key, item in value.items():
                if args:
                    self.check(args[1], item, join(path, key))
            return
        if origin in LIST_ORIGINS or tp is list or getattr(origin, "__name__", "") == "SequenceNotStr":
            if not isinstance(value, list):
                self.fail(path, f"expected an array, got {describe(value)}")
                return
            args = get_args(tp)
            for index, item in enumerate(value):
                if args:
                    self.check(args[0], item, f"{path}[{index}]")
            return
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            if value not in [member.value for member in tp]:
                self.fail(path, f"{json.dumps(value)} is not a value of {tp.__name__}")
            return
        if tp is bool:
            ok = isinstance(value, bool)
        elif tp is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif tp is float:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        elif tp is str:
            ok = isinstance(value, str)
        elif origin is typing.IO or tp is os.PathLike or origin is os.PathLike:
            # Base64FileInput and file types: in a JSON body the SDK has already made them text.
            ok = isinstance(value, str)
        else:
            self.fail(path, f"the checker does not know the SDK type {tp!r}")
            return
        if not ok:
            self.fail(path, f"expected {type_name(tp)}, got {describe(value)}")

    def check_object(self, tp: type, fields: Fields, value: object, path: str) -> None:
        if not isinstance(value, dict):
            self.fail(path, f"expected an object ({tp.__name__}), got {describe(value)}")
            return
        for key, item in value.items():
            hint = fields.hints.get(key)
            if hint is None:
                if not fields.extra_allowed:
                    self.fail(join(path, key), f"unknown field (not a field of {tp.__name__})")
                continue
            self.check(hint, item, join(path, key))
        for key in sorted(fields.required - value.keys()):
            self.fail(join(path, key), f"required field of {tp.__name__} missing")

    def check_union(self, tp: object, value: object, path: str) -> None:
        members = [m for m in get_args(tp)]
        fitting = [m for m in members if kind_fits(m, value)]
        if not fitting:
            self.fail(path, f"expected {type_name(tp)}, got {describe(value)}")
            return
        candidates = [m for m in fitting if not excluded_by_literal(m, value)]
        if not candidates:
            self.fail_discriminator(fitting, value, path)
            return
        best: list[str] | None = None
        for member in candidates:
            trial = Checker()
            trial.check(member, value, path)
            if not trial.errors:
                return
            if best is None or len(trial.errors) < len(best):
                best = trial.errors
        self.errors.extend(best or [])

    def fail_discriminator(self, members: list, value: dict, path: str) -> None:
        """Every object member was ruled out by a Literal field: name that field and its values."""
        for key in value:
            allowed = []
            for member in members:
                fields = object_fields(unwrap(member))
                values = literal_values(fields.hints.get(key)) if fields else None
                allowed.extend(v for v in values or () if v is not None)
            if allowed and value[key] not in allowed:
                listed = ", ".join(json.dumps(a) for a in allowed[:MAX_LISTED])
                more = f" and {len(allowed) - MAX_LISTED} more" if len(allowed) > MAX_LISTED else ""
                self.fail(join(path, key), f"{json.dumps(value[key])} is not one of {listed}{more}")
                return
        self.fail(path, "matches none of " + ", ".join(type_name(m) for m in members))


def literal_values(hint: object) -> tuple | None:
    """The values a `Literal` (or `Optional[Literal]`) type allows, else None."""
    hint = unwrap(hint)
    origin = get_origin(hint)
    if origin is typing.Literal:
        return get_args(hint)
    if origin in UNION_TYPES:
        args = [unwrap(a) for a in get_args(hint) if a is not type(None)]
        if args and all(get_origin(a) is typing.Literal for a in args):
            return tuple(v for a in args for v in get_args(a)) + ((None,) if len(args) < len(get_args(hint)) else ())
    return None


def excluded_by_literal(member: object, value: object) -> bool:
    """Whether an object member is ruled out because one of `value`'s keys has a Literal type in
    it that `value` does not hold (the `type` / `role` discriminators)."""
    fields = object_fields(unwrap(member))
    if fields is None or not isinstance(value, dict):
        return False
    for key, item in value.items():
        hint = fields.hints.get(key)
        if hint is None:
            continue
        allowed = literal_values(hint)
        if allowed is not None and not any(type(item) is type(a) and item == a for a in allowed):
            return True
    for key in fields.required - value.keys():
        if literal_values(fields.hints[key]) is not None:
            return True
    return False


def check_request(api: str, body: object) -> list[str]:
    checker = Checker()
    checker.check(load(*REQUEST_TYPES[api]), body, "")
    return checker.errors


def check_response(api: str, body: object) -> list[str]:
    model = load(*RESPONSE_TYPES[api])
    errors = []
    try:
        model.model_validate(body)
    except Exception as error:  # pydantic.ValidationError and anything the SDK raises
        errors.append(f"<body>: {type(error).__name__}: {error}")
    checker = Checker()
    checker.check(model, body, "")
    errors.extend(checker.errors)
    toolset = TOOLSET_TOOL_USE_TYPES.get(api)
    if toolset and isinstance(body, dict) and isinstance(body.get("content"), list):
        block_type = load(*toolset)
        for index, block in enumerate(body["content"]):
            if isinstance(block, dict) and block.get("type") == "tool_use" and block.get("toolset_name"):
                strict = Checker()
                strict.check(block_type, block, f"content[{index}]")
                errors.extend(strict.errors)
    return errors


def check_line(line: str) -> dict:
    request = json.loads(line)
    api = request.get("api")
    body = request.get("body")
    if api in REQUEST_TYPES:
        errors = check_request(api, body)
    elif api in RESPONSE_TYPES:
        errors = check_response(api, body)
    else:
        known = sorted(REQUEST_TYPES) + sorted(RESPONSE_TYPES)
        raise ValueError(f"unknown api {api!r} (known: {', '.join(known)})")
    return {"ok": not errors, "errors": errors}


def main(argv: list[str]) -> int:
    if len(argv) > 2:
        print("usage: sdk_check.py [FILE.jsonl]   (JSON lines on stdin when no file)", file=sys.stderr)
        return 2
    source = open(argv[1], encoding="utf-8") if len(argv) == 2 else sys.stdin
    with source:
        for number, line in enumerate(source, start=1):
            if not line.strip():
                continue
            try:
                verdict = check_line(line)
            except (ValueError, KeyError, AttributeError, ImportError) as error:
                print(f"sdk_check.py: line {number}: {error}", file=sys.stderr)
                return 2
            sys.stdout.write(json.dumps(verdict) + "\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
