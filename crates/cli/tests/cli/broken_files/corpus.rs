//! The corpus: valid recordings (the demo's bundled flow, askui's example files) with one
//! defect each, and what every command must say about it.

use serde_json::Value;
use serde_json::json;

use retrace_runner::demo::DEMO_RECORDING;
use retrace_test_support::askui_examples_dir;

/// One broken file.
pub struct Case {
    /// Its file name in the corpus folder.
    pub name: &'static str,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// What names the defect in every output: `step 4: trajectory[3].input.action: ` for a
    /// problem `cache check` finds (exit 1), the field or the line and column for a file that
    /// does not parse (exit 2).
    pub named: String,
    /// Whether `cache check` can read the file (then exit 1), or not (exit 2).
    pub readable: bool,
}

fn demo() -> Value {
    serde_json::from_str(DEMO_RECORDING).unwrap_or(Value::Null)
}

fn askui(name: &str) -> Value {
    let path = askui_examples_dir().join(name);
    serde_json::from_slice(&std::fs::read(path).unwrap_or_default()).unwrap_or(Value::Null)
}

fn bytes(value: &Value) -> Vec<u8> {
    serde_json::to_vec_pretty(value).unwrap_or_default()
}

/// A problem at the 0-based trajectory `index`, field `field` below it.
fn at(index: usize, field: &str) -> String {
    format!("step {}: trajectory[{index}].{field}: ", index + 1)
}

/// `value` changed by `change`: `readable` by `cache check` or not, the defect `named`.
fn changed(
    mut value: Value,
    name: &'static str,
    named: String,
    readable: bool,
    change: impl FnOnce(&mut Value),
) -> Case {
    change(&mut value);
    Case {
        name,
        bytes: bytes(&value),
        named,
        readable,
    }
}

/// A demo recording changed by `change`, with the problem `named`.
fn demo_case(name: &'static str, named: String, change: impl FnOnce(&mut Value)) -> Case {
    changed(demo(), name, named, true, change)
}

/// A demo recording changed by `change`, that no longer parses, named by `named`.
fn demo_unreadable(name: &'static str, named: &str, change: impl FnOnce(&mut Value)) -> Case {
    changed(demo(), name, named.to_owned(), false, change)
}

/// Every case: at least 30, each a valid recording with one defect.
pub fn cases() -> Vec<Case> {
    let demo_text = DEMO_RECORDING.as_bytes();
    let mut cases = vec![
        // What `cache check` finds and replay refuses (exit 1 from check, 2 from replay).
        demo_case("unknown-action.json", at(3, "input.action"), |v| {
            v["trajectory"][3]["input"]["action"] = json!("teleport");
        }),
        demo_case("action-not-a-string.json", at(1, "input.action"), |v| {
            v["trajectory"][1]["input"]["action"] = json!(["left_click"]);
        }),
        demo_case("missing-action.json", at(5, "input.action"), |v| {
            if let Some(input) = v["trajectory"][5]["input"].as_object_mut() {
                input.remove("action");
            }
        }),
        demo_case("missing-coordinate.json", at(12, "input.coordinate"), |v| {
            if let Some(input) = v["trajectory"][12]["input"].as_object_mut() {
                input.remove("coordinate");
            }
        }),
        demo_case("missing-text.json", at(2, "input.text"), |v| {
            if let Some(input) = v["trajectory"][2]["input"].as_object_mut() {
                input.remove("text");
            }
        }),
        demo_case("extra-input-field.json", at(6, "input.cordinate"), |v| {
            v["trajectory"][6]["input"]["cordinate"] = json!([761, 203]);
        }),
        demo_case("coordinate-a-string.json", at(1, "input.coordinate"), |v| {
            v["trajectory"][1]["input"]["coordinate"] = json!("640,311");
        }),
        demo_case(
            "coordinate-one-number.json",
            at(3, "input.coordinate"),
            |v| {
                v["trajectory"][3]["input"]["coordinate"] = json!([640]);
            },
        ),
        demo_case("coordinate-negative.json", at(5, "input.coordinate"), |v| {
            v["trajectory"][5]["input"]["coordinate"] = json!([-5, 99]);
        }),
        demo_case("text-a-number.json", at(10, "input.text"), |v| {
            v["trajectory"][10]["input"]["text"] = json!(120.0);
        }),
        demo_case(
            "point-below-the-screen.json",
            at(6, "input.coordinate"),
            |v| {
                v["trajectory"][6]["input"]["coordinate"] = json!([640, 99999]);
            },
        ),
        demo_case(
            "point-right-of-the-screen.json",
            at(11, "input.coordinate"),
            |v| {
                v["trajectory"][11]["input"]["coordinate"] = json!([1280, 408]);
            },
        ),
        demo_case("unclosed-placeholder.json", at(2, "input.text"), |v| {
            v["trajectory"][2]["input"]["text"] = json!("{{unclosed");
        }),
        demo_case("spaced-placeholder.json", at(4, "input.text"), |v| {
            v["trajectory"][4]["input"]["text"] = json!("{{ password }}");
        }),
        demo_case("unknown-placeholder.json", at(8, "input.text"), |v| {
            v["trajectory"][8]["input"]["text"] = json!("{{customer}}");
        }),
        demo_case("hash-too-short.json", at(1, "visual_representation"), |v| {
            v["trajectory"][1]["visual_representation"] = json!("zz");
        }),
        demo_case("hash-not-hex.json", at(3, "visual_representation"), |v| {
            v["trajectory"][3]["visual_representation"] = json!("80008000800zzzzz");
        }),
        demo_case("hash-15-digits.json", at(5, "visual_representation"), |v| {
            v["trajectory"][5]["visual_representation"] = json!("ce33b1cc4e3331c");
        }),
        demo_case(
            "after-hash-a-number.json",
            at(7, "visual_representation_after"),
            |v| {
                v["trajectory"][7]["visual_representation_after"] = json!(42);
            },
        ),
        demo_case("duplicate-id.json", at(4, "id"), |v| {
            v["trajectory"][4]["id"] = v["trajectory"][1]["id"].clone();
        }),
        demo_case("element-without-a-name.json", at(6, "element"), |v| {
            if let Some(element) = v["trajectory"][6]["element"].as_object_mut() {
                element.remove("name");
            }
        }),
        demo_case("empty-tool-name.json", at(9, "name"), |v| {
            v["trajectory"][9]["name"] = json!("");
        }),
        demo_case(
            "scroll-sideways.json",
            at(12, "input.scroll_direction"),
            |v| {
                v["trajectory"][12]["input"] = json!({"action": "scroll", "coordinate": [735, 622], "scroll_direction": "sideways", "scroll_amount": 2});
            },
        ),
        demo_case(
            "unknown-hash-method.json",
            "metadata.visual_validation.method: ".to_owned(),
            |v| {
                v["metadata"]["visual_validation"]["method"] = json!("dhash");
            },
        ),
        // Files that do not parse (exit 2 everywhere).
        demo_unreadable(
            "missing-id.json",
            "trajectory[3]: missing field `id`",
            |v| {
                if let Some(step) = v["trajectory"][3].as_object_mut() {
                    step.remove("id");
                }
            },
        ),
        demo_unreadable(
            "missing-created-at.json",
            "metadata: missing field `created_at`",
            |v| {
                if let Some(metadata) = v["metadata"].as_object_mut() {
                    metadata.remove("created_at");
                }
            },
        ),
        demo_unreadable(
            "attempts-a-string.json",
            "metadata.execution_attempts: invalid type",
            |v| {
                v["metadata"]["execution_attempts"] = json!("many");
            },
        ),
        demo_unreadable(
            "input-a-string.json",
            "trajectory[2].input: expected an object",
            |v| {
                v["trajectory"][2]["input"] = json!("type {{username}}");
            },
        ),
        demo_unreadable(
            "step-type-tool-result.json",
            "trajectory[1].type: expected \"tool_use\"",
            |v| {
                v["trajectory"][1]["type"] = json!("tool_result");
            },
        ),
        demo_unreadable("top-level-string.json", "(top level)", |v| {
            *v = json!("a trajectory");
        }),
        Case {
            name: "truncated.json",
            bytes: demo_text[..demo_text.len() / 2].to_vec(),
            named: "the file ends early (truncated?)".to_owned(),
            readable: false,
        },
        Case {
            name: "not-utf8.json",
            bytes: not_utf8(demo_text),
            named: "invalid JSON at line ".to_owned(),
            readable: false,
        },
        Case {
            name: "empty.json",
            bytes: b"\n".to_vec(),
            named: "file is empty".to_owned(),
            readable: false,
        },
    ];
    cases.extend(askui_cases());
    cases
}

/// `text` with the `é` of a Latin-1 editor in its goal: not UTF-8.
fn not_utf8(text: &[u8]) -> Vec<u8> {
    let goal = b"\"goal\": \"";
    let at = text
        .windows(goal.len())
        .position(|window| window == goal)
        .map_or(0, |at| at + goal.len());
    [&text[..at], b"caf\xe9 ", &text[at..]].concat()
}

/// askui's formats: v0.3 and v0.2 objects and the legacy bare list, each with a defect.
fn askui_cases() -> Vec<Case> {
    let legacy = || askui("legacy_v0_24_bare_list.json");
    let mut cases = vec![
        changed(
            askui("ownership_open_chapter.json"),
            "askui-v03-move-mouse-x-a-word.json",
            at(1, "input.x"),
            true,
            |v| v["trajectory"][1]["input"]["x"] = json!("far"),
        ),
        changed(
            askui("std_search_error_code.json"),
            "askui-v02-hash-15-digits.json",
            at(1, "visual_representation"),
            true,
            |v| {
                v["metadata"]["version"] = json!("0.2");
                v["trajectory"][1]["visual_representation"] = json!("e2c69979c666319");
            },
        ),
        changed(
            askui("reference_replays_with_failures.json"),
            "askui-v03-unclosed-placeholder.json",
            at(3, "input.text"),
            true,
            |v| v["trajectory"][3]["input"]["text"] = json!("{{term"),
        ),
        changed(
            legacy(),
            "askui-legacy-keyboard-tap-without-key.json",
            "step 5: [4].input.key: ".to_owned(),
            true,
            |v| {
                if let Some(input) = v[4]["input"].as_object_mut() {
                    input.remove("key");
                }
            },
        ),
        changed(
            legacy(),
            "askui-legacy-missing-name.json",
            "[2]: missing field `name`".to_owned(),
            false,
            |v| {
                if let Some(step) = v[2].as_object_mut() {
                    step.remove("name");
                }
            },
        ),
    ];
    let legacy_text = bytes(&legacy());
    cases.push(Case {
        name: "askui-legacy-truncated.json",
        bytes: legacy_text[..legacy_text.len() - 40].to_vec(),
        named: "the file ends early (truncated?)".to_owned(),
        readable: false,
    });
    cases
}
