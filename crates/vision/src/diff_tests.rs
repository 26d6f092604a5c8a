use super::*;
use crate::pixel_layout::PixelLayout;

fn solid(w: u32, h: u32, rgba: [u8; 4]) -> Vec<u8> {
    rgba.repeat((w * h) as usize)
}

fn paint(buf: &mut [u8], w: u32, region: Region, rgba: [u8; 4]) {
    for y in region.top..region.bottom {
        for x in region.left..region.right {
            let p = ((y * w + x) * 4) as usize;
            buf[p..p + 4].copy_from_slice(&rgba);
        }
    }
}

#[test]
fn identical_images_have_no_difference_and_a_gray_diff_image() {
    let a = solid(10, 10, [200, 100, 50, 255]);
    let result = diff_rgba(&a, &a, 10, 10, &DiffOptions::default()).unwrap();
    assert_eq!(result.diff_pixels, 0);
    assert!(result.changed_areas.is_empty());
    let y = 200.0 * 0.29889531 + 100.0 * 0.58662247 + 50.0 * 0.11448223;
    let want = (255.0 + (y - 255.0) * 0.1) as u8;
    assert_eq!(&result.diff_image[..4], &[want, want, want, 255]);
}

#[test]
fn two_blocks_far_apart_are_two_areas() {
    let a = solid(100, 60, [255, 255, 255, 255]);
    let mut b = a.clone();
    paint(&mut b, 100, Region::new(10, 10, 20, 15), [0, 0, 0, 255]);
    paint(&mut b, 100, Region::new(70, 40, 90, 50), [0, 0, 255, 255]);
    let result = diff_rgba(&a, &b, 100, 60, &DiffOptions::default()).unwrap();
    assert_eq!(result.diff_pixels, 50 + 200);
    assert_eq!(
        result.changed_areas,
        vec![Region::new(10, 10, 20, 15), Region::new(70, 40, 90, 50)]
    );
    // Red where the second image is darker... pixelmatch draws diffColor for both by default.
    let p = ((12 * 100 + 12) * 4) as usize;
    assert_eq!(&result.diff_image[p..p + 4], &[255, 0, 0, 255]);
    let close = DiffOptions {
        merge_distance: 64,
        ..DiffOptions::default()
    };
    let merged = diff_rgba(&a, &b, 100, 60, &close).unwrap();
    assert_eq!(merged.changed_areas, vec![Region::new(10, 10, 90, 50)]);
}

#[test]
fn small_changes_under_the_threshold_are_not_counted() {
    let a = solid(8, 8, [100, 100, 100, 255]);
    let b = solid(8, 8, [102, 100, 100, 255]);
    assert_eq!(
        diff_rgba(&a, &b, 8, 8, &DiffOptions::default())
            .unwrap()
            .diff_pixels,
        0
    );
    let strict = DiffOptions {
        threshold: 0.0,
        ..DiffOptions::default()
    };
    assert_eq!(diff_rgba(&a, &b, 8, 8, &strict).unwrap().diff_pixels, 64);
}

#[test]
fn different_sizes_are_a_layout_difference() {
    let a = Image::new(2, 2, PixelLayout::Gray, vec![0; 4]).unwrap();
    let b = Image::new(2, 3, PixelLayout::Gray, vec![0; 6]).unwrap();
    assert_eq!(
        diff(&a, &b, &DiffOptions::default()),
        Diff::Layout {
            left: (2, 2),
            right: (2, 3)
        }
    );
}

#[test]
fn wrong_buffer_sizes_are_errors() {
    assert!(diff_rgba(&[0; 12], &[0; 16], 2, 2, &DiffOptions::default()).is_err());
}
