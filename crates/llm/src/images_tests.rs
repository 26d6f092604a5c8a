#![allow(clippy::unwrap_used, clippy::expect_used)]

use pretty_assertions::assert_eq;
use proptest::prelude::*;

use super::*;

const ANTHROPIC: ImageLimits = ImageLimits {
    max_long_side: 8000,
    recommended_long_side: 1568,
};

fn within(limits: ImageLimits, pieces: &[PieceTransform]) {
    for piece in pieces {
        let long = piece.width.max(piece.height);
        assert!(long <= limits.recommended_long_side, "{piece:?}");
        assert!(long <= limits.max_long_side, "{piece:?}");
    }
}

#[test]
fn an_image_within_the_recommended_size_is_sent_as_it_is() {
    let pieces = plan_pieces(1280, 720, ANTHROPIC);
    assert_eq!(pieces.len(), 1);
    assert!(pieces[0].is_identity());
}

#[test]
fn a_page_that_stays_legible_is_shrunk_to_the_recommended_long_side() {
    let pieces = plan_pieces(1280, 2400, ANTHROPIC);
    assert_eq!(
        pieces,
        vec![PieceTransform {
            page_width: 1280,
            page_top: 0,
            page_rows: 2400,
            width: 836,
            height: 1568,
        }]
    );
}

#[test]
fn a_very_tall_page_is_tiled_at_half_scale_with_overlaps() {
    let pieces = plan_pieces(1280, 12000, ANTHROPIC);
    within(ANTHROPIC, &pieces);
    assert_eq!(pieces.len(), 4, "{pieces:?}");
    let tops: Vec<u32> = pieces.iter().map(|p| p.page_top).collect();
    assert_eq!(tops, vec![0, 2955, 5909, 8864]);
    for piece in &pieces {
        assert_eq!(
            (piece.width, piece.height, piece.page_rows),
            (640, 1568, 3136)
        );
    }
    for pair in pieces.windows(2) {
        assert!(pair[0].page_top + pair[0].page_rows >= pair[1].page_top + TILE_OVERLAP_ROWS);
    }
    assert_eq!(pieces[3].page_top + pieces[3].page_rows, 12000);
}

#[test]
fn a_box_in_a_tile_maps_back_to_page_pixels() {
    let pieces = plan_pieces(1280, 12000, ANTHROPIC);
    // Part 3 starts at page row 5909, at half scale.
    let page = pieces[2].to_page(BoundingBox {
        x: 50.0,
        y: 100.0,
        width: 20.0,
        height: 10.0,
    });
    assert_eq!(
        page,
        BoundingBox {
            x: 100.0,
            y: 6109.0,
            width: 40.0,
            height: 20.0
        }
    );
    assert_eq!(
        pieces[0].to_piece(BoundingBox {
            x: 0.0,
            y: 9000.0,
            width: 10.0,
            height: 10.0
        }),
        None,
        "a box below the tile is not in it"
    );
}

#[test]
fn a_wide_page_is_shrunk_whole_and_tiny_limits_still_hold() {
    let pieces = plan_pieces(12000, 1000, ANTHROPIC);
    assert_eq!(pieces.len(), 1);
    within(ANTHROPIC, &pieces);
    let tiny = ImageLimits {
        max_long_side: 8,
        recommended_long_side: 8,
    };
    let pieces = plan_pieces(100, 1000, tiny);
    within(tiny, &pieces);
    assert_eq!(
        pieces.last().unwrap().page_top + pieces.last().unwrap().page_rows,
        1000
    );
}

#[test]
fn fit_png_keeps_small_images_and_tiles_tall_ones() {
    let small = retrace_vision::encode_png_rgba(4, 3, &[200; 4 * 3 * 4]).unwrap();
    let fitted = fit_png(&small, ANTHROPIC).unwrap();
    assert!(fitted.is_unchanged());
    assert_eq!(fitted.pieces[0].png, small, "the bytes are kept");
    assert_eq!(fitted.label("Image 1", 0), "Image 1");

    // 100x1000, one row in ten black, the rest white, under a 64 px limit.
    let limits = ImageLimits {
        max_long_side: 64,
        recommended_long_side: 64,
    };
    let mut rgba = Vec::new();
    for y in 0..1000 {
        let v = if y % 10 == 0 { 0 } else { 255 };
        for _ in 0..100 {
            rgba.extend_from_slice(&[v, v, v, 255]);
        }
    }
    let tall = retrace_vision::encode_png_rgba(100, 1000, &rgba).unwrap();
    let fitted = fit_png(&tall, limits).unwrap();
    assert!(fitted.pieces.len() > 1);
    for piece in &fitted.pieces {
        let image = retrace_vision::decode_png(&piece.png).unwrap();
        assert_eq!(
            (image.width(), image.height()),
            (piece.transform.width, piece.transform.height)
        );
        assert!(image.width().max(image.height()) <= 64);
    }
    let label = fitted.label("Image 2, the candidate", 1);
    assert!(
        label.starts_with(&format!(
            "Image 2, the candidate, part 2 of {}, page rows ",
            fitted.pieces.len()
        )),
        "{label}"
    );
    assert!(label.contains("at scale 0.5"), "{label}");
}

proptest! {
    #[test]
    fn every_page_pixel_is_in_some_piece_and_boxes_round_trip(
        width in 1u32..4000,
        height in 1u32..40000,
        recommended in 16u32..2400,
        extra in 0u32..8000,
        fx in 0.0f64..1.0,
        fy in 0.0f64..1.0,
        fw in 0.0f64..1.0,
        fh in 0.0f64..1.0,
    ) {
        let limits = ImageLimits { max_long_side: recommended + extra, recommended_long_side: recommended };
        let pieces = plan_pieces(width, height, limits);
        // Within the limits, in order, the full width each.
        for piece in &pieces {
            prop_assert!(piece.width.max(piece.height) <= recommended, "{:?}", piece);
            prop_assert!(piece.width >= 1 && piece.height >= 1);
            prop_assert_eq!(piece.page_width, width);
        }
        // Every page row is covered (so every pixel: each piece spans the full width).
        let mut covered = 0u32;
        for piece in &pieces {
            prop_assert!(piece.page_top <= covered, "gap before {:?}", piece);
            covered = covered.max(piece.page_top + piece.page_rows);
        }
        prop_assert_eq!(covered, height);
        // A page box inside one piece, sent in whole piece pixels (as a model answers),
        // comes back within one piece pixel (one page pixel at the scales of 1/2 and up that
        // tiles use).
        let piece = pieces[((fx * 7.0) as usize) % pieces.len()];
        let x = (fx * f64::from(width)).floor();
        let y = f64::from(piece.page_top) + (fy * f64::from(piece.page_rows)).floor();
        let w = (fw * (f64::from(width) - x)).floor();
        let h = (fh * (f64::from(piece.page_top + piece.page_rows) - y)).floor();
        let page = BoundingBox { x, y, width: w, height: h };
        let exact = piece.to_page(BoundingBox {
            x: x * piece.scale_x(),
            y: (y - f64::from(piece.page_top)) * piece.scale_y(),
            width: w * piece.scale_x(),
            height: h * piece.scale_y(),
        });
        for (a, b) in [(exact.x, x), (exact.y, y), (exact.width, w), (exact.height, h)] {
            prop_assert!((a - b).abs() < 1e-6, "{:?} vs {:?}", exact, page);
        }
        if w >= 1.0 && h >= 1.0 {
            let sent = piece.to_piece(page).unwrap();
            let rounded = BoundingBox {
                x: sent.x.round(),
                y: sent.y.round(),
                width: sent.width.round(),
                height: sent.height.round(),
            };
            let back = piece.to_page(rounded);
            let (tx, ty) = (0.5 / piece.scale_x() + 1e-6, 0.5 / piece.scale_y() + 1e-6);
            prop_assert!((back.x - x).abs() <= tx && (back.y - y).abs() <= ty, "{:?} vs {:?}", back, page);
            if piece.scale_x() >= MIN_LEGIBLE_SCALE && piece.scale_y() >= MIN_LEGIBLE_SCALE {
                prop_assert!((back.x - x).abs() <= 1.0 + 1e-6 && (back.y - y).abs() <= 1.0 + 1e-6);
            }
        }
    }
}
