//! A page's DOM view cut to size for a model.

use serde_json::Value;

/// Cuts a DOM view (`{url, title, elements: [...], truncated}`) to at most `max_chars` of
/// compact JSON by dropping elements from the end, setting `truncated` when it drops any.
/// Returns the JSON text and the value.
pub fn bound_dom(mut view: Value, max_chars: usize) -> (String, Value) {
    let mut text = view.to_string();
    while text.chars().count() > max_chars {
        let Some(elements) = view.get_mut("elements").and_then(Value::as_array_mut) else {
            break;
        };
        if elements.pop().is_none() {
            break;
        }
        if let Some(object) = view.as_object_mut() {
            object.insert("truncated".to_owned(), Value::Bool(true));
        }
        text = view.to_string();
    }
    (text, view)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn dom_views_are_cut_to_size_from_the_end() {
        let elements: Vec<Value> = (0..50)
            .map(
                |i| json!({"selector": format!("#e{i}"), "role": "button", "text": "x".repeat(40)}),
            )
            .collect();
        let view =
            json!({"url": "http://a/", "title": "t", "elements": elements, "truncated": false});
        let (text, cut) = bound_dom(view.clone(), 1_000);
        assert!(text.chars().count() <= 1_000, "{}", text.len());
        assert_eq!(cut["truncated"], true);
        let kept = cut["elements"].as_array().unwrap();
        assert!(!kept.is_empty() && kept.len() < 50);
        assert_eq!(kept[0]["selector"], "#e0");
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), cut);

        let (_, whole) = bound_dom(view.clone(), 1_000_000);
        assert_eq!(whole, view);
    }
}
