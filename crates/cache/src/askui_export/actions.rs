//! One parsed `computer` action as askui 0.48's tools: the typed action the catalogue's parser
//! gives ([`ComputerAction`]) becomes the tools the catalogue names for it
//! ([`retrace_protocol::computer_actions::Askui::Tools`]).

use retrace_protocol::ToolUseBlock;
use retrace_protocol::computer_actions::ComputerAction;
use retrace_protocol::computer_actions::MouseButton;
use retrace_protocol::computer_actions::ScrollDirection;
use serde_json::json;

use super::keys;
use super::out::KEYBOARD_TAP;
use super::out::MOUSE_CLICK;
use super::out::MOUSE_HOLD_DOWN;
use super::out::MOUSE_RELEASE;
use super::out::MOUSE_SCROLL;
use super::out::Out;
use super::out::PIXELS_PER_NOTCH;
use super::out::SCREENSHOT;
use super::out::TYPE;

/// Appends the askui steps of `action`, the 1-based step `number` (`step`); the error says
/// why askui cannot express it.
pub(super) fn convert(
    step: &ToolUseBlock,
    number: usize,
    action: &ComputerAction,
    out: &mut Out,
) -> Result<(), String> {
    let left = || json!({"mouse_button": "left"});
    match action {
        ComputerAction::Screenshot => {
            out.push(SCREENSHOT, step.id.clone(), json!({}));
        }
        ComputerAction::Click {
            button,
            count,
            at,
            modifiers,
        } => {
            if modifiers.is_some() {
                return Err("askui's mouse_click cannot hold keys while clicking".to_owned());
            }
            let button = match button {
                MouseButton::Left => "left",
                MouseButton::Right => "right",
                MouseButton::Middle => "middle",
            };
            if let Some(at) = at {
                out.move_to(step, *at, true, number);
            }
            out.push(
                MOUSE_CLICK,
                step.id.clone(),
                json!({"mouse_button": button, "number_of_clicks": count}),
            );
        }
        ComputerAction::MouseMove(at) => out.move_to(step, *at, true, number),
        ComputerAction::Drag { from, to } => {
            out.move_to(step, *from, true, number);
            out.push(MOUSE_HOLD_DOWN, format!("{}_down", step.id), left());
            out.move_to(step, *to, false, number);
            out.push(MOUSE_RELEASE, step.id.clone(), left());
        }
        ComputerAction::MouseDown => {
            out.push(MOUSE_HOLD_DOWN, step.id.clone(), left());
        }
        ComputerAction::MouseUp => {
            out.push(MOUSE_RELEASE, step.id.clone(), left());
        }
        ComputerAction::Scroll {
            at,
            direction,
            amount,
            modifiers,
        } => {
            if modifiers.is_some() {
                return Err("askui's mouse_scroll cannot hold keys while scrolling".to_owned());
            }
            let pixels = i64::from(*amount).saturating_mul(PIXELS_PER_NOTCH);
            let (dx, dy) = match direction {
                ScrollDirection::Up => (0, -pixels),
                ScrollDirection::Down => (0, pixels),
                ScrollDirection::Left => (-pixels, 0),
                ScrollDirection::Right => (pixels, 0),
            };
            if let Some(at) = at {
                out.move_to(step, *at, true, number);
            }
            out.push(MOUSE_SCROLL, step.id.clone(), json!({"dx": dx, "dy": dy}));
        }
        ComputerAction::Type(text) => {
            let typed = out.push(TYPE, step.id.clone(), json!({"text": text}));
            typed.extra = step.extra.clone();
        }
        ComputerAction::Key { combo, repeat } => {
            let (key, modifiers) = keys::keyboard_tap(combo)?;
            let mut tap = json!({"key": key});
            if !modifiers.is_empty() {
                tap["modifier_keys"] = json!(modifiers);
            }
            for press in 0..*repeat {
                let id = match press {
                    0 => step.id.clone(),
                    _ => format!("{}_{press}", step.id),
                };
                out.push(KEYBOARD_TAP, id, tap.clone());
            }
        }
        // The catalogue leaves these out or refuses them before they get here (its `askui`
        // field); an action added since without a conversion here is refused the same way.
        _ => return Err("askui 0.48 has no tool for it".to_owned()),
    }
    Ok(())
}
