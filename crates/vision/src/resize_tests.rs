use super::*;

/// Pillow's horizontal pass exactly as `Resample.c` writes it: one `i32` sum per pixel.
fn reference_horizontal(data: &[u8], in_w: usize, in_h: usize, out_w: usize) -> Vec<u8> {
    let c = precompute(in_w, out_w);
    (0..in_h * out_w)
        .map(|i| {
            let (y, xx) = (i / out_w, i % out_w);
            let (xmin, count) = c.bounds[xx];
            let k = &c.weights[xx * c.ksize..][..count];
            let row = &data[y * in_w + xmin..][..count];
            let sum = row.iter().zip(k).fold(1i32 << 21, |s, (&p, &w)| {
                s.wrapping_add(i32::from(p).wrapping_mul(w))
            });
            clip8(sum)
        })
        .collect()
}

/// Pillow's vertical pass, likewise.
fn reference_vertical(data: &[u8], w: usize, in_h: usize, out_h: usize) -> Vec<u8> {
    let c = precompute(in_h, out_h);
    (0..out_h * w)
        .map(|i| {
            let (yy, x) = (i / w, i % w);
            let (ymin, count) = c.bounds[yy];
            let k = &c.weights[yy * c.ksize..][..count];
            let sum = k.iter().enumerate().fold(1i32 << 21, |s, (t, &wt)| {
                s.wrapping_add(i32::from(data[(ymin + t) * w + x]).wrapping_mul(wt))
            });
            clip8(sum)
        })
        .collect()
}

/// Pillow 13's two passes: skipped when the size does not change, vertical first when the
/// height shrinks by more than twice as many pixels as the width (`horizontal_first` in
/// `ImagingResampleInner`), horizontal first otherwise.
fn reference(src: &GrayImage, out_w: usize, out_h: usize) -> Vec<u8> {
    let (in_w, in_h) = (src.width as usize, src.height as usize);
    let (dh, dw) = (in_h as i64 - out_h as i64, in_w as i64 - out_w as i64);
    let vertical_first = dh > 0 && dh > 2 * dw;
    let mut data = src.data.clone();
    if vertical_first {
        data = reference_vertical(&data, in_w, in_h, out_h);
        if out_w != in_w {
            data = reference_horizontal(&data, in_w, out_h, out_w);
        }
        return data;
    }
    if out_w != in_w {
        data = reference_horizontal(&data, in_w, in_h, out_w);
    }
    if out_h != in_h {
        data = reference_vertical(&data, out_w, in_h, out_h);
    }
    data
}

fn image(w: u32, h: u32, seed: u32) -> GrayImage {
    let data = (0..w * h)
        .map(|i| {
            let x = i.wrapping_mul(2_654_435_761).wrapping_add(seed) >> 13;
            // Some flat runs and repeated rows, as screenshots have.
            if (i / w) % 5 == 1 { 255 } else { x as u8 }
        })
        .collect();
    GrayImage {
        width: w,
        height: h,
        data,
    }
}

#[test]
fn every_path_matches_pillows_loops() {
    let sizes = [
        (100, 100, 32, 32),
        (1280, 800, 32, 32),
        (99, 57, 9, 8),
        (3, 2, 32, 32),
        (1, 40, 8, 8),
        (40, 1, 8, 8),
        (64, 64, 64, 32),
        (33, 77, 32, 77),
        (200, 13, 41, 5),
        // The height shrinks more than twice as much as the width: vertical pass first.
        (37, 53, 32, 32),
        (5, 30, 8, 8),
        (13, 49, 9, 8),
        (800, 1280, 32, 32),
    ];
    for (seed, (w, h, ow, oh)) in sizes.into_iter().enumerate() {
        let src = image(w, h, seed as u32);
        let want = reference(&src, ow as usize, oh as usize);
        let got = resize_lanczos(&src, ow, oh);
        assert_eq!(got.data, want, "{w}x{h} -> {ow}x{oh}");
        // The portable passes, whichever the CPU would pick.
        if ow != w {
            let c = precompute(w as usize, ow as usize);
            let rows: Vec<usize> = (0..h as usize).collect();
            let mut f32_pass = vec![0u8; rows.len() * ow as usize];
            let mut i32_pass = f32_pass.clone();
            let source = RowSource::of(&src);
            horizontal_pass_i32(source, &c, ow as usize, &rows, &mut i32_pass);
            // Pillow's 22-bit weights always split into `i16` halves, so the `vpmaddwd`
            // pass is the one AVX2 CPUs run (and `resize_lanczos` above checked it).
            assert!(c.split_ok, "{w}x{h} -> {ow}x{oh}");
            if c.exact_f32 {
                horizontal_pass_f32(source, &c, ow as usize, &rows, &mut f32_pass);
                assert_eq!(f32_pass, i32_pass, "{w}x{h} -> {ow}x{oh}");
            }
            if oh != h && !runs_vertical_first(w as usize, h as usize, ow as usize, oh as usize) {
                let v = precompute(h as usize, oh as usize);
                let a = vertical_pass_body(&i32_pass, ow as usize, 0, &v, oh as usize);
                let b = vertical_pass_i32(&i32_pass, ow as usize, 0, &v, oh as usize);
                assert_eq!(a, want, "{w}x{h} -> {ow}x{oh}");
                assert_eq!(b, want, "{w}x{h} -> {ow}x{oh}");
            }
        }
    }
}

#[test]
fn tall_images_resize_vertically_first_as_pillow_13_does() {
    // `Image.new("L", (5, 30))` with pixel (x, y) = (97x + 31y + 7xy) % 256, then
    // `.resize((8, 8), Image.LANCZOS)` in Pillow 13.0.0. Horizontal-first gives other pixels
    // (26, 90, 170, 153, ... in its first row).
    let data = (0..30u32)
        .flat_map(|y| (0..5u32).map(move |x| ((x * 97 + y * 31 + x * y * 7) % 256) as u8))
        .collect();
    let src = GrayImage {
        width: 5,
        height: 30,
        data,
    };
    let pillow: [u8; 64] = [
        25, 90, 170, 152, 115, 119, 148, 169, 180, 155, 127, 138, 152, 147, 140, 137, 117, 122,
        133, 142, 148, 146, 125, 111, 142, 116, 85, 91, 123, 147, 137, 121, 131, 140, 147, 138,
        137, 150, 155, 154, 110, 105, 103, 113, 137, 154, 139, 122, 145, 147, 153, 159, 135, 97,
        97, 109, 69, 80, 108, 138, 135, 119, 137, 157,
    ];
    assert!(runs_vertical_first(5, 30, 8, 8));
    assert_eq!(resize_lanczos(&src, 8, 8).data, pillow);
}
