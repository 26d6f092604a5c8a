use super::*;

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
