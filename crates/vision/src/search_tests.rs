use super::*;
use crate::hash::region_hash;
use crate::pixel_layout::PixelLayout;

/// A textured gray screen: smooth blobs so that shifted regions hash differently.
fn textured(width: u32, height: u32, shift: (u32, u32)) -> Image {
    let mut data = Vec::with_capacity((width * height) as usize);
    for y in 0..height {
        for x in 0..width {
            let (fx, fy) = (f64::from(x + shift.0), f64::from(y + shift.1));
            let v = 128.0
                + 60.0 * (fx / 17.0).sin() * (fy / 23.0).cos()
                + 50.0 * ((fx + fy) / 41.0).sin();
            data.push(v.clamp(0.0, 255.0) as u8);
        }
    }
    Image::new(width, height, PixelLayout::Gray, data).unwrap()
}

#[test]
fn an_unmoved_region_is_found_in_place() {
    let screen = textured(400, 300, (0, 0));
    let region = action_region((200, 150), 100, 400, 300);
    let recorded = region_hash(&screen, region, Method::Phash, 8).unwrap();
    let hit = search_near(&screen, &recorded, Method::Phash, (200, 150), 100, 50).unwrap();
    assert_eq!((hit.offset, hit.distance), ((0, 0), 0));
}

#[test]
fn a_shifted_screen_is_found_at_its_offset() {
    let before = textured(400, 300, (0, 0));
    let region = action_region((200, 150), 100, 400, 300);
    let recorded = region_hash(&before, region, Method::Phash, 8).unwrap();
    // Content moved 13 px left and 7 px up: the point is now at (187, 143).
    let after = textured(400, 300, (13, 7));
    let hit = search_near(&after, &recorded, Method::Phash, (200, 150), 100, 40).unwrap();
    assert_eq!(hit.distance, 0);
    assert!(
        (hit.offset.0 + 13).abs() <= 1 && (hit.offset.1 + 7).abs() <= 1,
        "{hit:?}"
    );
    assert_eq!(hit.point, (200 + hit.offset.0, 150 + hit.offset.1));
}

#[test]
fn search_near_the_edge_stays_inside_the_image() {
    let screen = textured(120, 90, (0, 0));
    let recorded = ImageHash::from_hex("0123456789abcdef").unwrap();
    let hit = search_near(&screen, &recorded, Method::Ahash, (115, 5), 50, 30).unwrap();
    assert!(hit.region.fits(120, 90), "{hit:?}");
}

/// An RGB screen with sharp edges and text-like detail, where rounding matters.
fn rgb_screen(width: u32, height: u32) -> Image {
    let mut data = Vec::with_capacity((width * height * 3) as usize);
    for y in 0..height {
        for x in 0..width {
            let stripe = if (x / 7 + y / 5) % 3 == 0 { 200u32 } else { 30 };
            data.push(((x * 31 + y * 7) % 256) as u8);
            data.push(stripe as u8);
            data.push(((x ^ y) % 256) as u8);
        }
    }
    Image::new(width, height, PixelLayout::Rgb, data).unwrap()
}

#[test]
fn shared_horizontal_passes_hash_exactly_like_region_hash() {
    let (w, h) = (260, 190);
    for screen in [textured(w, h, (3, 5)), rgb_screen(w, h)] {
        for method in [Method::Phash, Method::Ahash, Method::Dhash] {
            for (window, region_size) in [
                (Region::full(w, h), 100),
                (Region::new(17, 9, 251, 180), 64),
                (Region::new(0, 0, 120, 190), 36),
            ] {
                let recorded = ImageHash::from_hex("0123456789abcdef").unwrap();
                let mut prober = Prober {
                    screenshot: &screen,
                    gray: gray_region(&screen, window).unwrap(),
                    origin: (window.left, window.top),
                    screen: (w, h),
                    recorded: &recorded,
                    method,
                    hash_size: 8,
                    region_size,
                    point: (0, 0),
                    evaluated: HashMap::new(),
                    passes: HashMap::new(),
                };
                let mut checked = 0;
                for py in (-10..h as i64 + 10).step_by(7) {
                    for px in (-10..w as i64 + 10).step_by(11) {
                        let region = action_region((px, py), region_size, w, h);
                        let inside = region.left >= window.left
                            && region.top >= window.top
                            && region.right <= window.right
                            && region.bottom <= window.bottom;
                        if !inside {
                            continue;
                        }
                        let want = region_hash(&screen, region, method, 8).unwrap();
                        assert_eq!(prober.hash_inside(region), want, "{method} {region}");
                        checked += 1;
                    }
                }
                assert!(checked > 30, "{checked}");
            }
        }
    }
}
