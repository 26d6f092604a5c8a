//! Which event listeners the page has on the element an action goes to: the types of those
//! on it and on its ancestors (through shadow roots and frames) up to the document and
//! window, kept when they matter for acting ([`retrace_protocol::element::acts_on_event`]).
//!
//! The element is found in retrace's isolated world (`element.js`: the innermost element at
//! the point, where the events start, or the focused one), then resolved in the page's main
//! world: `DOMDebugger.getEventListeners` reports only the listeners of the world the object
//! belongs to, so the page's own listeners are seen and retrace's (the activity tracker's
//! `input` and `focusin` on the document) are not. One call lists the element's ancestors;
//! their listeners are then asked for all at once, so the answer costs six round trips
//! whatever the depth.

use std::collections::BTreeSet;

use chromiumoxide::cdp::browser_protocol::dom::DescribeNodeParams;
use chromiumoxide::cdp::browser_protocol::dom::ResolveNodeParams;
use chromiumoxide::cdp::browser_protocol::dom_debugger::GetEventListenersParams;
use chromiumoxide::cdp::js_protocol::runtime::CallFunctionOnParams;
use chromiumoxide::cdp::js_protocol::runtime::GetPropertiesParams;
use chromiumoxide::cdp::js_protocol::runtime::ReleaseObjectGroupParams;
use chromiumoxide::cdp::js_protocol::runtime::RemoteObjectId;
use retrace_protocol::element::acts_on_event;

use super::element::script;
use super::world::IsolatedWorld;
use crate::backend::Point;
use crate::error::DriveError;

/// The object group the remote objects of one answer are held in, released at its end.
const GROUP: &str = "retrace-listeners";

/// Called on the element in the page's main world: it, its ancestors in the composed tree
/// (a shadow root's host, a frame's element), and each document with its window.
const CHAIN_JS: &str = "function () {
  const chain = [];
  for (let node = this, i = 0; node && i < 1000; i++) {
    chain.push(node);
    if (node.nodeType === 11) { node = node.host; continue; }
    if (node.nodeType === 9) {
      const view = node.defaultView;
      if (view) chain.push(view);
      try { node = (view && view.frameElement) || null; } catch (e) { node = null; }
      continue;
    }
    node = node.parentNode;
  }
  return chain;
}";

/// The sorted types of acting listeners on the element at `at` (the focused one for `None`)
/// and its ancestors; `None` when there is no such element.
pub(crate) async fn listener_types(
    world: &IsolatedWorld<'_>,
    at: Option<Point>,
) -> Result<Option<Vec<String>>, DriveError> {
    let doing = match at {
        Some(at) => format!("reading the event listeners at ({}, {})", at.x, at.y),
        None => "reading the event listeners of the focused element".to_owned(),
    };
    let argument = match at {
        Some(at) => serde_json::json!({"x": at.x, "y": at.y}),
        None => serde_json::Value::Null,
    };
    let answer = async {
        let Some(node) = world
            .evaluate_object(&doing, &script("node", &argument), GROUP)
            .await?
        else {
            return Ok(None);
        };
        types_along(world, &doing, node).await.map(Some)
    }
    .await;
    // Best effort: an object left behind is freed with its document anyway.
    let _ = world
        .page()
        .execute(ReleaseObjectGroupParams::new(GROUP))
        .await;
    answer
}

/// The acting listener types on `node` (an isolated-world object) and its ancestors.
async fn types_along(
    world: &IsolatedWorld<'_>,
    doing: &str,
    node: RemoteObjectId,
) -> Result<Vec<String>, DriveError> {
    let page = world.page();
    let fail = |error| world.error(doing, error);
    let describe = DescribeNodeParams {
        object_id: Some(node),
        ..DescribeNodeParams::default()
    };
    let backend_node_id = page
        .execute(describe)
        .await
        .map_err(fail)?
        .result
        .node
        .backend_node_id;
    let resolve = ResolveNodeParams {
        backend_node_id: Some(backend_node_id),
        object_group: Some(GROUP.to_owned()),
        ..ResolveNodeParams::default()
    };
    let resolved = page.execute(resolve).await.map_err(fail)?;
    let Some(main_node) = resolved.result.object.object_id.clone() else {
        return Ok(Vec::new());
    };
    let mut chain = CallFunctionOnParams::new(CHAIN_JS);
    chain.object_id = Some(main_node);
    chain.object_group = Some(GROUP.to_owned());
    let chain = page.execute(chain).await.map_err(fail)?;
    let Some(array) = chain.result.result.object_id.clone() else {
        return Ok(Vec::new());
    };
    let mut properties = GetPropertiesParams::new(array);
    properties.own_properties = Some(true);
    let properties = page.execute(properties).await.map_err(fail)?;
    let asked = properties
        .result
        .result
        .iter()
        .filter(|property| property.name.parse::<usize>().is_ok())
        .filter_map(|property| property.value.as_ref()?.object_id.clone())
        .map(|member| page.execute(GetEventListenersParams::new(member)));
    let mut types = BTreeSet::new();
    for answer in futures::future::join_all(asked).await {
        let answer = answer.map_err(fail)?;
        types.extend(
            answer
                .result
                .listeners
                .iter()
                .map(|listener| listener.r#type.as_str())
                .filter(|event_type| acts_on_event(event_type))
                .map(str::to_owned),
        );
    }
    Ok(types.into_iter().collect())
}
