//! "Has the screen stopped moving?": two consecutive screenshots compared over a region with
//! pixelmatch's colour distance (no anti-aliasing exclusion, so nothing moving is missed).

use crate::error::VisionError;
use crate::image::Image;
use crate::pixel_layout::PixelLayout;
use crate::region::Region;

/// The pixelmatch threshold [`is_stable`] uses: changes a person cannot see (JPEG-level noise,
/// sub-pixel colour shifts) do not count as movement.
pub const STABILITY_THRESHOLD: f64 = 0.1;

/// Whether `next` shows the same picture as `prev` inside `region` (the whole screen when
/// `None`): no pixel differs by more than [`STABILITY_THRESHOLD`]. Screens of different sizes
/// are not stable. The region must lie inside the images.
pub fn is_stable(prev: &Image, next: &Image, region: Option<Region>) -> Result<bool, VisionError> {
    Ok(changed_pixels(prev, next, region, STABILITY_THRESHOLD, 1)? == 0)
}

/// Counts the pixels of `region` (whole image when `None`) whose pixelmatch colour distance
/// exceeds `threshold`, stopping once `stop_at` are found (pass `u64::MAX` to count all).
/// Images of different sizes count as every pixel of the region changed.
pub fn changed_pixels(
    prev: &Image,
    next: &Image,
    region: Option<Region>,
    threshold: f64,
    stop_at: u64,
) -> Result<u64, VisionError> {
    let region = region.unwrap_or_else(|| Region::full(prev.width(), prev.height()));
    if !region.fits(prev.width(), prev.height()) {
        return Err(VisionError::BadRegion {
            region: region.to_string(),
            width: prev.width(),
            height: prev.height(),
        });
    }
    if (prev.width(), prev.height()) != (next.width(), next.height()) {
        return Ok(u64::from(region.width()) * u64::from(region.height()));
    }
    let max_delta = 35215.0 * threshold * threshold;
    let (ca, cb) = (prev.layout().channels(), next.layout().channels());
    let width = prev.width() as usize;
    let mut changed = 0;
    for y in region.top as usize..region.bottom as usize {
        let (left, right) = (region.left as usize, region.right as usize);
        let row_a = &prev.data()[(y * width + left) * ca..(y * width + right) * ca];
        let row_b = &next.data()[(y * width + left) * cb..(y * width + right) * cb];
        if prev.layout() == next.layout() && row_a == row_b {
            continue;
        }
        for x in 0..right - left {
            let pa = rgba(prev.layout(), &row_a[x * ca..x * ca + ca]);
            let pb = rgba(next.layout(), &row_b[x * cb..x * cb + cb]);
            if pa != pb && yiq_distance(pa, pb) > max_delta {
                changed += 1;
                if changed >= stop_at {
                    return Ok(changed);
                }
            }
        }
    }
    Ok(changed)
}

fn rgba(layout: PixelLayout, p: &[u8]) -> [u8; 4] {
    match layout {
        PixelLayout::Gray => [p[0], p[0], p[0], 255],
        PixelLayout::GrayAlpha => [p[0], p[0], p[0], p[1]],
        PixelLayout::Rgb => [p[0], p[1], p[2], 255],
        PixelLayout::Rgba => [p[0], p[1], p[2], p[3]],
    }
}

/// pixelmatch's squared YIQ distance, with semi-transparent pixels blended over white.
fn yiq_distance(a: [u8; 4], b: [u8; 4]) -> f64 {
    let blend = |p: [u8; 4]| {
        let alpha = f64::from(p[3]) / 255.0;
        [p[0], p[1], p[2]].map(|c| 255.0 + (f64::from(c) - 255.0) * alpha)
    };
    let ([r1, g1, b1], [r2, g2, b2]) = (blend(a), blend(b));
    let (dr, dg, db) = (r1 - r2, g1 - g2, b1 - b2);
    let y = dr * 0.29889531 + dg * 0.58662247 + db * 0.11448223;
    let i = dr * 0.59597799 - dg * 0.27417610 - db * 0.32180189;
    let q = dr * 0.21147017 - dg * 0.52261711 + db * 0.31114694;
    0.5053 * y * y + 0.299 * i * i + 0.1957 * q * q
}

#[cfg(test)]
mod tests {
    use super::*;

    fn screen(value: u8) -> Image {
        Image::new(20, 10, PixelLayout::Rgb, vec![value; 20 * 10 * 3]).unwrap()
    }

    #[test]
    fn equal_screens_are_stable_and_a_change_is_seen_only_in_its_region() {
        let a = screen(200);
        assert!(is_stable(&a, &a.clone(), None).unwrap());
        let mut data = a.data().to_vec();
        let p = (5 * 20 + 15) * 3;
        data[p..p + 3].copy_from_slice(&[0, 0, 0]);
        let b = Image::new(20, 10, PixelLayout::Rgb, data).unwrap();
        assert!(!is_stable(&a, &b, None).unwrap());
        assert!(is_stable(&a, &b, Some(Region::new(0, 0, 10, 10))).unwrap());
        assert!(!is_stable(&a, &b, Some(Region::new(10, 0, 20, 10))).unwrap());
        assert_eq!(changed_pixels(&a, &b, None, 0.1, u64::MAX).unwrap(), 1);
    }

    #[test]
    fn invisible_noise_is_stable_and_other_sizes_are_not() {
        assert!(is_stable(&screen(200), &screen(201), None).unwrap());
        let small = Image::new(10, 10, PixelLayout::Rgb, vec![200; 300]).unwrap();
        assert!(!is_stable(&small, &screen(200), None).unwrap());
        assert!(is_stable(&screen(1), &screen(1), Some(Region::new(0, 0, 30, 5))).is_err());
    }
}
