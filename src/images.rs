//! A leaf: an image from elsewhere (an event's banner) decoded within limits on its size and
//! on the memory decoding takes, and made into copies at a few widths for `srcset`.
//!
//! The formats: JPEG for an opaque image and PNG for one that uses transparency, which every
//! browser shows; and WebP beside them where it is the smaller. The `image` crate's only WebP
//! encoder is lossless: on a 1,600 × 400 graphic with text, resized, its copies were 1.9 to 2.1
//! times the JPEG ones (quality 82), and on render-like 1,920 × 640 banners larger still; on
//! flat colours it is the smaller. So a banner gets its WebP copies only where they are the
//! smaller in all ([`make_copies`]), and no browser is sent more bytes for the modern format.
//! A lossy WebP or AVIF encoder would need libwebp (C) or rav1e, a heavier build for every
//! user; JPEG at 82 already makes a 1 MiB banner 85 KiB at 1,440 px.

use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::PngEncoder;
use image::codecs::webp::WebPEncoder;
use image::imageops::FilterType;
use image::{DynamicImage, ImageEncoder, ImageFormat, ImageReader, Limits};
use std::io::Cursor;

/// The widths the copies are made at, each only where the source is wider (never scaled up);
/// the widest copy is the source's width when that is narrower than the last.
pub const WIDTHS: [u32; 3] = [480, 960, 1440];

/// The largest side an image may declare: a decompression bomb declares a huge one.
const MAX_SIDE: u32 = 12_000;
/// What decoding may allocate: 128 MiB holds a 5,600 × 5,600 RGBA image.
const MAX_ALLOC: u64 = 128 * 1024 * 1024;
/// JPEG's quality, 0 to 100: 82 shows no artefacts on banners' text at their widths.
const JPEG_QUALITY: u8 = 82;

/// A file format a copy is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Webp,
    Jpeg,
    Png,
}

impl Format {
    pub fn extension(self) -> &'static str {
        match self {
            Format::Webp => "webp",
            Format::Jpeg => "jpg",
            Format::Png => "png",
        }
    }

    /// Its media type, for `<source type>`.
    pub fn media_type(self) -> &'static str {
        match self {
            Format::Webp => "image/webp",
            Format::Jpeg => "image/jpeg",
            Format::Png => "image/png",
        }
    }
}

/// One copy of an image, encoded.
#[derive(Clone, Debug)]
pub struct EncodedCopy {
    pub width: u32,
    pub height: u32,
    pub format: Format,
    pub bytes: Vec<u8>,
}

/// What an image was made into: its size as decoded, and its copies, narrowest first (the
/// WebP ones, if any, after the fallback's).
#[derive(Clone, Debug)]
pub struct ImageCopies {
    pub width: u32,
    pub height: u32,
    pub copies: Vec<EncodedCopy>,
}

/// The copies of the image `bytes` hold (PNG, JPEG or WebP), or why there are none: "not an
/// image in a format vatcar-site reads", "the image is 100000 × 100000 pixels, larger than
/// ...". Never a panic, and never more memory than the limits allow.
pub fn make_copies(bytes: &[u8]) -> Result<ImageCopies, String> {
    let image = decode(bytes)?;
    let (width, height) = (image.width(), image.height());
    if width == 0 || height == 0 {
        return Err("the image has no pixels".to_owned());
    }
    let transparent = uses_transparency(&image);
    let fallback = if transparent {
        Format::Png
    } else {
        Format::Jpeg
    };
    let mut fallbacks = Vec::new();
    let mut webps = Vec::new();
    for target in widths(width) {
        let resized = if target == width {
            image.clone()
        } else {
            let target_height = scaled_height(width, height, target);
            image.resize_exact(target, target_height, FilterType::Lanczos3)
        };
        fallbacks.push(encode(&resized, fallback)?);
        webps.push(encode(&resized, Format::Webp)?);
    }
    let size = |copies: &[EncodedCopy]| copies.iter().map(|c| c.bytes.len()).sum::<usize>();
    if size(&webps) < size(&fallbacks) {
        fallbacks.extend(webps);
    }
    Ok(ImageCopies {
        width,
        height,
        copies: fallbacks,
    })
}

/// The widths of the copies of an image `width` pixels wide: those of [`WIDTHS`] it is wider
/// than, and its own width (or the widest of them) last.
pub fn widths(width: u32) -> Vec<u32> {
    let widest = WIDTHS[WIDTHS.len() - 1];
    let mut widths: Vec<u32> = WIDTHS.into_iter().filter(|w| *w < width).collect();
    let last = width.min(widest);
    if widths.last() != Some(&last) {
        widths.push(last);
    }
    widths
}

/// The height of a copy `target` pixels wide, the proportions kept, at least one pixel.
pub fn scaled_height(width: u32, height: u32, target: u32) -> u32 {
    let scaled = (u64::from(height) * u64::from(target) + u64::from(width) / 2) / u64::from(width);
    u32::try_from(scaled.max(1)).unwrap_or(u32::MAX)
}

fn decode(bytes: &[u8]) -> Result<DynamicImage, String> {
    let mut reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| format!("could not read the image: {e}"))?;
    match reader.format() {
        Some(ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::WebP) => {}
        Some(other) => {
            return Err(format!(
                "the image is {}, not PNG, JPEG or WebP",
                other.extensions_str().first().unwrap_or(&"another format")
            ));
        }
        None => return Err("not an image (PNG, JPEG or WebP)".to_owned()),
    }
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_ALLOC);
    reader.limits(limits);
    reader.decode().map_err(|e| match e {
        image::ImageError::Limits(_) => format!(
            "the image is larger than vatcar-site decodes ({MAX_SIDE} pixels a side, {} MiB decoded)",
            MAX_ALLOC / (1024 * 1024)
        ),
        other => format!("could not decode the image: {other}"),
    })
}

/// Whether any pixel is less than opaque (a PNG may carry an alpha channel it does not use).
fn uses_transparency(image: &DynamicImage) -> bool {
    image.color().has_alpha() && image.to_rgba8().pixels().any(|p| p.0[3] < 255)
}

fn encode(image: &DynamicImage, format: Format) -> Result<EncodedCopy, String> {
    let mut bytes = Vec::new();
    let (width, height) = (image.width(), image.height());
    // JPEG has no alpha; PNG is chosen for the images that have one; WebP keeps what it is given.
    let alpha = match format {
        Format::Jpeg => false,
        Format::Png => true,
        Format::Webp => image.color().has_alpha(),
    };
    let (pixels, layout) = if alpha {
        (image.to_rgba8().into_raw(), image::ExtendedColorType::Rgba8)
    } else {
        (image.to_rgb8().into_raw(), image::ExtendedColorType::Rgb8)
    };
    let encoded = match format {
        Format::Jpeg => JpegEncoder::new_with_quality(&mut bytes, JPEG_QUALITY)
            .write_image(&pixels, width, height, layout),
        Format::Png => PngEncoder::new(&mut bytes).write_image(&pixels, width, height, layout),
        Format::Webp => {
            WebPEncoder::new_lossless(&mut bytes).write_image(&pixels, width, height, layout)
        }
    };
    encoded.map_err(|e| format!("could not write a {width} px copy: {e}"))?;
    Ok(EncodedCopy {
        width,
        height,
        format,
        bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(width: u32, height: u32, transparent: bool) -> Vec<u8> {
        let mut image = image::RgbaImage::new(width, height);
        for (x, y, p) in image.enumerate_pixels_mut() {
            let a = if transparent && x == 0 { 0 } else { 255 };
            *p = image::Rgba([(x % 256) as u8, (y % 256) as u8, 90, a]);
        }
        let mut bytes = Vec::new();
        DynamicImage::ImageRgba8(image)
            .write_to(&mut Cursor::new(&mut bytes), ImageFormat::Png)
            .unwrap();
        bytes
    }

    #[test]
    fn copies_are_never_wider_than_the_source() {
        assert_eq!(widths(3000), [480, 960, 1440]);
        assert_eq!(widths(1440), [480, 960, 1440]);
        assert_eq!(widths(1200), [480, 960, 1200]);
        assert_eq!(widths(960), [480, 960]);
        assert_eq!(widths(300), [300]);
        assert_eq!(widths(1), [1]);
        assert_eq!(scaled_height(1200, 400, 480), 160);
        assert_eq!(scaled_height(100_000, 1, 480), 1);
    }

    #[test]
    fn an_opaque_image_falls_back_to_jpeg_and_a_transparent_one_to_png() {
        let made = make_copies(&png(600, 200, false)).unwrap();
        assert_eq!((made.width, made.height), (600, 200));
        assert!(made.copies.iter().all(|c| c.format != Format::Png));
        assert_eq!(
            made.copies
                .iter()
                .filter(|c| c.format == Format::Jpeg)
                .map(|c| (c.width, c.height))
                .collect::<Vec<_>>(),
            [(480, 160), (600, 200)]
        );
        let made = make_copies(&png(300, 100, true)).unwrap();
        assert!(made.copies.iter().any(|c| c.format == Format::Png));
        assert!(made.copies.iter().all(|c| c.format != Format::Jpeg));
    }

    #[test]
    fn a_bomb_or_a_non_image_is_a_reason_not_a_panic() {
        // A PNG's header declaring `side` × `side` pixels, and nothing behind it.
        let declaring = |side: u32| {
            let mut bomb = png(1, 1, false);
            bomb[16..20].copy_from_slice(&side.to_be_bytes());
            bomb[20..24].copy_from_slice(&side.to_be_bytes());
            let crc = crc32fast::hash(&bomb[12..29]);
            bomb[29..33].copy_from_slice(&crc.to_be_bytes());
            bomb
        };
        // 100,000 a side: over the limit on sides; 11,000: within it, but 346 MiB decoded, over
        // the memory limit.
        for side in [100_000, 11_000] {
            let reason = make_copies(&declaring(side)).unwrap_err();
            assert!(
                reason.contains("larger than vatcar-site decodes"),
                "{side}: {reason}"
            );
        }
        let reason = make_copies(b"<html>not an image</html>").unwrap_err();
        assert_eq!(reason, "not an image (PNG, JPEG or WebP)");
        let gif = b"GIF89a\x01\x00\x01\x00\x00\x00\x00;";
        assert!(make_copies(gif).unwrap_err().contains("gif"));
        assert!(make_copies(&png(40, 40, false)[..30]).is_err());
    }
}
