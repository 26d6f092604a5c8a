use serde_json::json;

use super::*;

#[test]
fn point_prefers_coordinate_then_xy_then_x1y1() {
    assert_eq!(
        action_point(&json!({"coordinate": [3, 4], "x": 1, "y": 2})),
        Some((3, 4))
    );
    assert_eq!(
        action_point(&json!({"x": 1, "y": 2, "x1": 7, "y1": 8})),
        Some((1, 2))
    );
    assert_eq!(action_point(&json!({"x1": 7, "y1": 8})), Some((7, 8)));
    assert_eq!(action_point(&json!({"x": "85", "y": " 9 "})), Some((85, 9)));
    assert_eq!(action_point(&json!({"x": 85.9, "y": -1.5})), Some((85, -1)));
    assert_eq!(action_point(&json!({"text": "hi"})), None);
    assert_eq!(action_point(&json!({"x": "abc", "y": 1})), None);
    assert_eq!(action_point(&json!({"x": 1})), None);
}

#[test]
fn region_is_clipped_like_askui() {
    assert_eq!(
        action_region((1272, 8), 50, 1280, 800),
        Region::new(1247, 0, 1280, 33)
    );
    assert_eq!(
        action_region((640, 400), 100, 1280, 800),
        Region::new(590, 350, 690, 450)
    );
    assert_eq!(
        action_region((5000, 5000), 100, 1280, 800),
        Region::new(0, 0, 1, 1)
    );
    assert_eq!(
        action_region((-500, 10), 100, 1280, 800),
        Region::new(0, 0, 1, 1)
    );
    assert_eq!(
        action_region((10, 10), 0, 1280, 800),
        Region::new(0, 0, 1, 1)
    );
}
