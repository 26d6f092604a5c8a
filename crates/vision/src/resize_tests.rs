use super::*;

/// Pillow's two passes exactly as `Resample.c` writes them: every row horizontally, then
/// every column vertically, one `i32` sum per pixel.
fn reference(src: &GrayImage, out_w: usize, out_h: usize) -> Vec<u8> {
    let (in_w, in_h) = (src.width as usize, src.height as usize);
    let mut temp = src.data.clone();
    let mut w = in_w;
    if out_w != in_w {
        let c = precompute(in_w, out_w);
        temp = (0..in_h * out_w)
            .map(|i| {
                let (y, xx) = (i / out_w, i % out_w);
                let (xmin, count) = c.bounds[xx];
                let k = &c.weights[xx * c.ksize..][..count];
                let row = &src.data[y * in_w + xmin..][..count];
                let sum = row.iter().zip(k).fold(1i32 << 21, |s, (&p, &w)| {
                    s.wrapping_add(i32::from(p).wrapping_mul(w))
                });
                clip8(sum)
            })
            .collect();
        w = out_w;
    }
    if out_h == in_h {
        return temp;
    }
    let c = precompute(in_h, out_h);
    (0..out_h * w)
        .map(|i| {
            let (yy, x) = (i / w, i % w);
            let (ymin, count) = c.bounds[yy];
            let k = &c.weights[yy * c.ksize..][..count];
            let sum = k.iter().enumerate().fold(1i32 << 21, |s, (t, &wt)| {
                s.wrapping_add(i32::from(temp[(ymin + t) * w + x]).wrapping_mul(wt))
            });
            clip8(sum)
        })
        .collect()
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
            if oh != h {
                let v = precompute(h as usize, oh as usize);
                let a = vertical_pass_body(&i32_pass, ow as usize, 0, &v, oh as usize);
                let b = vertical_pass_i32(&i32_pass, ow as usize, 0, &v, oh as usize);
                assert_eq!(a, want, "{w}x{h} -> {ow}x{oh}");
                assert_eq!(b, want, "{w}x{h} -> {ow}x{oh}");
            }
        }
    }
}
