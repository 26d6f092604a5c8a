//! The demo's animated GIF (`/site/assets/progress.gif`), generated here byte by byte: a bar
//! that steps across a strip, one column per frame, [`FRAMES`] frames of 20 ms, looping
//! forever; the first frame's bar has a colour of its own ([`FIRST_FRAME_BAR`]), so a
//! screenshot tells whether it shows the first frame. An animated image in an `<img>` keeps changing however a page's CSS is frozen, so
//! a visual checker must pause it itself.
//!
//! The encoder is the smallest valid GIF89a writer: a 4-colour global palette and LZW data of
//! literal codes only, with a clear code after every second one so the code width stays 3
//! bits (no dictionary is ever needed to read it back). Bigger than a real encoder's output,
//! and trivially correct.

/// The strip's width and height in pixels.
pub const WIDTH: u16 = 64;
/// See [`WIDTH`].
pub const HEIGHT: u16 = 16;
/// How many frames; frame `n` has the bar at columns `n..n + BAR`.
pub const FRAMES: u16 = 48;
/// The bar's width in pixels.
pub const BAR: u16 = 8;
/// Each frame's delay, in hundredths of a second (20 ms; Chromium shows delays of 10 ms and
/// under as 100 ms, so this is about as fast as a GIF runs).
pub const DELAY_CS: u16 = 2;
/// The palette: background, the bar of every frame but the first, the first frame's bar, and
/// an unused entry.
pub const PALETTE: [[u8; 3]; 4] = [
    [226, 232, 240],
    BAR_COLOUR,
    FIRST_FRAME_BAR,
    [255, 255, 255],
];
/// The bar's colour in every frame but the first.
pub const BAR_COLOUR: [u8; 3] = [3, 87, 201];
/// The bar's colour in the first frame.
pub const FIRST_FRAME_BAR: [u8; 3] = [201, 87, 3];
/// The file's name under `/site/assets/`.
pub const FILE: &str = "progress.gif";

/// The whole file.
pub fn progress_gif() -> Vec<u8> {
    let mut gif = b"GIF89a".to_vec();
    gif.extend(WIDTH.to_le_bytes());
    gif.extend(HEIGHT.to_le_bytes());
    // A global colour table of 2^(1+1) entries, 2 bits of colour resolution.
    gif.extend([0x91, 0, 0]);
    gif.extend(PALETTE.iter().flatten());
    // Loop forever (the NETSCAPE2.0 application extension, 0 repetitions = forever).
    gif.extend([0x21, 0xff, 0x0b]);
    gif.extend(b"NETSCAPE2.0");
    gif.extend([3, 1, 0, 0, 0]);
    for frame in 0..FRAMES {
        // Graphic control: dispose by leaving the frame in place, the delay, no transparency.
        gif.extend([0x21, 0xf9, 4, 0x04]);
        gif.extend(DELAY_CS.to_le_bytes());
        gif.extend([0, 0]);
        // The image: the whole strip, no local palette.
        gif.push(0x2c);
        gif.extend(0u16.to_le_bytes());
        gif.extend(0u16.to_le_bytes());
        gif.extend(WIDTH.to_le_bytes());
        gif.extend(HEIGHT.to_le_bytes());
        gif.push(0);
        let bar = if frame == 0 { 2 } else { 1 };
        let pixels = (0..HEIGHT).flat_map(move |_| {
            (0..WIDTH).map(move |x| {
                if (frame..frame + BAR).contains(&x) {
                    bar
                } else {
                    0
                }
            })
        });
        gif.push(MIN_CODE_SIZE);
        for block in lzw_literals(pixels).chunks(255) {
            gif.push(block.len() as u8);
            gif.extend(block);
        }
        gif.push(0);
    }
    gif.push(0x3b);
    gif
}

/// LZW's minimum code size for a 4-colour palette: codes 0-3 are the colours, 4 clears, 5
/// ends; codes are 3 bits wide.
const MIN_CODE_SIZE: u8 = 2;
const CLEAR: u16 = 4;
const END: u16 = 5;

/// `pixels` as LZW codes, every one a literal: a clear code, then at most two literals (the
/// second adds dictionary entry 6, the next would reach 8 and widen the codes), and again.
fn lzw_literals(pixels: impl Iterator<Item = u8>) -> Vec<u8> {
    let mut bits = BitWriter::default();
    for (i, pixel) in pixels.enumerate() {
        if i % 2 == 0 {
            bits.write(CLEAR);
        }
        bits.write(u16::from(pixel));
    }
    bits.write(END);
    bits.finish()
}

/// Packs 3-bit codes least significant bit first, as GIF's LZW data is.
#[derive(Default)]
struct BitWriter {
    bytes: Vec<u8>,
    pending: u32,
    count: u32,
}

impl BitWriter {
    fn write(&mut self, code: u16) {
        self.pending |= u32::from(code) << self.count;
        self.count += u32::from(MIN_CODE_SIZE) + 1;
        while self.count >= 8 {
            self.bytes.push((self.pending & 0xff) as u8);
            self.pending >>= 8;
            self.count -= 8;
        }
    }

    fn finish(mut self) -> Vec<u8> {
        if self.count > 0 {
            self.bytes.push((self.pending & 0xff) as u8);
        }
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads codes back from the packed bits (3 bits each, least significant first).
    fn codes(bytes: &[u8]) -> Vec<u16> {
        let bits: Vec<u16> = bytes
            .iter()
            .flat_map(|b| (0..8).map(move |i| u16::from((b >> i) & 1)))
            .collect();
        bits.chunks_exact(3)
            .map(|c| c[0] | (c[1] << 1) | (c[2] << 2))
            .collect()
    }

    #[test]
    fn the_codes_are_literals_between_clears_and_read_back() {
        let packed = lzw_literals([1, 0, 0, 1, 1].into_iter());
        let read = codes(&packed);
        assert_eq!(read[..9], [CLEAR, 1, 0, CLEAR, 0, 1, CLEAR, 1, END]);
    }

    #[test]
    fn the_file_has_every_frame_and_ends() {
        let gif = progress_gif();
        assert_eq!(&gif[..6], b"GIF89a");
        assert_eq!(gif.last(), Some(&0x3b));
        let frames = gif
            .windows(4)
            .filter(|w| *w == [0x21, 0xf9, 4, 0x04])
            .count();
        assert_eq!(frames, usize::from(FRAMES));
        assert!(gif.len() < 64 * 1024, "{} bytes", gif.len());
    }
}
