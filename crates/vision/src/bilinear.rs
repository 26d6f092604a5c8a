//! Bilinear resizing of RGBA pixels: what a model is shown (a screenshot at the size the
//! computer tool declares, a tall page fitted to a provider's image limits). Replay hashing
//! never sees these images; it uses the Pillow-exact [`crate::resize_lanczos`].

/// Resizes RGBA pixels with bilinear sampling (pixel centres aligned). Good enough for a model
/// to read a screen; at scales of one half and above every source pixel contributes (at
/// exactly one half it is a 2x2 box average), below that pixels are skipped.
pub fn resize_bilinear(rgba: &[u8], from: (u32, u32), to: (u32, u32)) -> Vec<u8> {
    let (sw, sh) = (from.0 as usize, from.1 as usize);
    let (dw, dh) = (to.0 as usize, to.1 as usize);
    let mut out = vec![0u8; dw * dh * 4];
    if sw == 0 || sh == 0 || rgba.len() < sw * sh * 4 {
        return out;
    }
    let sample = |x: usize, y: usize, c: usize| f64::from(rgba[(y * sw + x) * 4 + c]);
    for dy in 0..dh {
        let fy = ((dy as f64 + 0.5) * sh as f64 / dh as f64 - 0.5).clamp(0.0, (sh - 1) as f64);
        let (y0, wy) = (fy.floor() as usize, fy.fract());
        let y1 = (y0 + 1).min(sh - 1);
        for dx in 0..dw {
            let fx = ((dx as f64 + 0.5) * sw as f64 / dw as f64 - 0.5).clamp(0.0, (sw - 1) as f64);
            let (x0, wx) = (fx.floor() as usize, fx.fract());
            let x1 = (x0 + 1).min(sw - 1);
            for c in 0..4 {
                let top = sample(x0, y0, c) * (1.0 - wx) + sample(x1, y0, c) * wx;
                let bottom = sample(x0, y1, c) * (1.0 - wx) + sample(x1, y1, c) * wx;
                out[(dy * dw + dx) * 4 + c] = (top * (1.0 - wy) + bottom * wy).round() as u8;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn bilinear_resize_keeps_flat_colours_and_averages_edges() {
        // 4x2: left half red, right half blue, scaled to 2x1.
        let mut rgba = Vec::new();
        for _ in 0..2 {
            for x in 0..4 {
                rgba.extend_from_slice(if x < 2 {
                    &[255, 0, 0, 255]
                } else {
                    &[0, 0, 255, 255]
                });
            }
        }
        let out = resize_bilinear(&rgba, (4, 2), (2, 1));
        assert_eq!(out, vec![255, 0, 0, 255, 0, 0, 255, 255]);
        let wide = resize_bilinear(&rgba, (4, 2), (3, 1));
        assert_eq!(&wide[4..8], &[128, 0, 128, 255]);
    }
}
