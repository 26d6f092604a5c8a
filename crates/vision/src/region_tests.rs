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

#[test]
fn a_union_holds_both_regions_and_nothing_needlessly_more() {
    let square = Region::new(510, 181, 770, 441);
    let field = Region::new(416, 262, 864, 336);
    let union = square.union(field);
    assert_eq!(union, Region::new(416, 181, 864, 441));
    assert!(union.contains(square) && union.contains(field));
    assert_eq!(square.union(square), square);
}

#[test]
fn containment_needs_every_edge_inside() {
    let outer = Region::new(10, 10, 100, 100);
    assert!(outer.contains(outer));
    assert!(outer.contains(Region::new(20, 20, 30, 30)));
    for poking_out in [
        Region::new(9, 20, 30, 30),
        Region::new(20, 9, 30, 30),
        Region::new(20, 20, 101, 30),
        Region::new(20, 20, 30, 101),
    ] {
        assert!(!outer.contains(poking_out), "{poking_out}");
    }
}
