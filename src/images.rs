//! A leaf: an image from elsewhere (an event's banner) decoded within limits that match what
//! copying it costs, turned as its EXIF orientation says, and made into copies at a few widths
//! for `srcset`.
//!
//! The formats: JPEG for an opaque image and PNG for one that uses transparency, which every
//! browser shows; and WebP beside them where it is the smaller. The `image` crate's only WebP
//! encoder is lossless: on photographs and render-like banners its copies are about twice the
//! JPEG ones (quality 82); on flat graphics it is the smaller. So each banner is judged once,
//! on its narrowest copy, and gets WebP copies only where that one is the smaller
//! ([`make_copies`]): no browser is sent more bytes for the modern format, and a photograph is
//! never encoded twice. A lossy WebP or AVIF encoder would need libwebp (C) or rav1e, a heavier
//! build for every user; JPEG at 82 already makes a 1 MiB banner 85 KiB at 1,440 px.
//!
//! Resizing is `fast_image_resize`'s Catmull-Rom on 8-bit pixels, each copy from the source:
//! about a quarter of the CPU of `image`'s own resize, with no f32 copy of the image.

use fast_image_resize::images::{Image, ImageRef};
use fast_image_resize::{FilterType, PixelType, ResizeAlg, ResizeOptions, Resizer};
use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::PngEncoder;
use image::codecs::webp::WebPEncoder;
use image::{
    DynamicImage, ExtendedColorType, ImageDecoder, ImageEncoder, ImageFormat, ImageReader, Limits,
};
use std::io::Cursor;

/// The widths the copies are made at, each only where the source is wider (never scaled up);
/// the widest copy is the source's width when that is narrower than the last.
pub const WIDTHS: [u32; 3] = [480, 960, 1440];

/// The largest side an image may declare: a decompression bomb declares a huge one.
pub const MAX_SIDE: u32 = 12_000;
/// The most pixels decoded: a 6,000 × 4,000 photograph. Beyond it the decoded image alone
/// passes 96 MiB, and two decoded at once (one a core) would pass the memory a build should
/// take for its banners; a banner shown 1,440 px wide at most needs nothing near it.
pub const MAX_PIXELS: u64 = 24_000_000;
/// What the decoded pixels may take, in the format they are decoded in (16-bit PNGs take twice
/// as much as 8-bit ones): 96 MiB.
const MAX_DECODED: u64 = 96 * 1024 * 1024;
/// What decoding may allocate besides, as the decoders count it.
const MAX_ALLOC: u64 = 128 * 1024 * 1024;
/// JPEG's quality, 0 to 100: 82 shows no artefacts on banners' text at their widths.
const JPEG_QUALITY: u8 = 82;

/// A file format a copy is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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

    /// Whether `bytes` begin as a file of this format does: a copy read back from a cache is
    /// published only if it is what its name says.
    pub fn begins(self, bytes: &[u8]) -> bool {
        match self {
            Format::Jpeg => bytes.starts_with(&[0xFF, 0xD8, 0xFF]),
            Format::Png => bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
            Format::Webp => bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP",
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

/// What an image was made into: its size as decoded (and turned), and its copies, narrowest
/// first (the WebP ones, if any, after the fallback's).
#[derive(Clone, Debug)]
pub struct ImageCopies {
    pub width: u32,
    pub height: u32,
    pub copies: Vec<EncodedCopy>,
}

/// Decoded pixels, 8 bits a channel: RGB, or RGBA where some pixel is less than opaque.
struct Pixels {
    width: u32,
    height: u32,
    transparent: bool,
    bytes: Vec<u8>,
}

impl Pixels {
    fn pixel_type(&self) -> PixelType {
        if self.transparent {
            PixelType::U8x4
        } else {
            PixelType::U8x3
        }
    }

    fn layout(&self) -> ExtendedColorType {
        if self.transparent {
            ExtendedColorType::Rgba8
        } else {
            ExtendedColorType::Rgb8
        }
    }
}

/// The copies of the image `bytes` hold (PNG, JPEG or WebP), or why there are none: "not an
/// image in a format vatcar-site reads", "the image is larger than ...". Never a panic, and
/// never more memory than the limits allow.
pub fn make_copies(bytes: &[u8]) -> Result<ImageCopies, String> {
    let source = decode(bytes)?;
    let (width, height) = (source.width, source.height);
    let fallback = if source.transparent {
        Format::Png
    } else {
        Format::Jpeg
    };
    // Each from the source: a copy made from the next wider one (filtered twice) costs 2 % less
    // CPU but came out up to 0.5 % larger than f609daa's at 480 px (issue 47).
    let mut resizer = Resizer::new();
    let mut made = (widths(width).into_iter())
        .filter(|&target| target != width)
        .map(|target| resize(&mut resizer, &source, target))
        .collect::<Result<Vec<Pixels>, String>>()?;
    // The copy at the source's own width (the widest, where it is no wider than the last of
    // WIDTHS) is the source, moved rather than copied.
    if widths(width).last() == Some(&width) {
        made.push(source);
    }
    let mut copies = (made.iter())
        .map(|copy| encode(copy, fallback))
        .collect::<Result<Vec<EncodedCopy>, String>>()?;
    // Judged once, on the narrowest copy: WebP for all, or for none.
    let narrowest = encode(&made[0], Format::Webp)?;
    if narrowest.bytes.len() < copies[0].bytes.len() {
        copies.push(narrowest);
        for copy in &made[1..] {
            copies.push(encode(copy, Format::Webp)?);
        }
    }
    Ok(ImageCopies {
        width,
        height,
        copies,
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

/// The width and height an image shows at by itself, for an `<img>`'s `width` and `height`
/// (so that the page keeps its room before it loads): a PNG's, JPEG's or WebP's from its header
/// (turned as its EXIF says), an SVG's from its root's `width` and `height` in pixels, else
/// from its `viewBox`. `None` for anything else, or sizes it does not give.
pub fn natural_size(bytes: &[u8]) -> Option<(u32, u32)> {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(64 * 1024)]);
    if let Some(at) = head.find("<svg") {
        let tag = &head[at..at + head[at..].find('>')?];
        let attribute = |name: &str| {
            let key = format!("{name}=");
            let (at, _) = (tag.match_indices(&key))
                .find(|(at, _)| tag[..*at].ends_with(char::is_whitespace))?;
            let rest = &tag[at + key.len()..];
            let quote = rest.chars().next().filter(|q| *q == '"' || *q == '\'')?;
            rest[1..].split(quote).next()
        };
        let pixels = |name| {
            attribute(name)?
                .trim()
                .trim_end_matches("px")
                .parse::<f64>()
                .ok()
        };
        let view_box: Vec<f64> = (attribute("viewBox")?.split([' ', ',']))
            .filter_map(|n| n.parse().ok())
            .collect();
        let (width, height) = match (pixels("width"), pixels("height")) {
            (Some(width), Some(height)) => (width, height),
            _ => (*view_box.get(2)?, *view_box.get(3)?),
        };
        // A viewBox of a few units keeps its proportions at a hundred pixels high.
        let scale = if width.min(height) < 16.0 {
            100.0 / height
        } else {
            1.0
        };
        let side = |n: f64| (n * scale).round().clamp(1.0, f64::from(MAX_SIDE)) as u32;
        return (width > 0.0 && height > 0.0).then(|| (side(width), side(height)));
    }
    let mut decoder = (ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .ok())?
    .into_decoder()
    .ok()?;
    let (width, height) = decoder.dimensions();
    use image::metadata::Orientation::{Rotate90, Rotate90FlipH, Rotate270, Rotate270FlipH};
    match decoder.orientation().ok()? {
        Rotate90 | Rotate270 | Rotate90FlipH | Rotate270FlipH => Some((height, width)),
        _ => Some((width, height)),
    }
}

/// Whether a PNG, JPEG or WebP has no transparent pixel (a logo on its own ground); `None`
/// for anything else (an SVG) or an image that does not decode within the limits.
pub fn is_opaque(bytes: &[u8]) -> Option<bool> {
    decode(bytes).ok().map(|pixels| !pixels.transparent)
}

fn too_large() -> String {
    format!(
        "the image is larger than vatcar-site decodes ({} million pixels, {MAX_SIDE} a side)",
        MAX_PIXELS / 1_000_000
    )
}

/// The pixels of `bytes`, turned upright, refused before any is decoded where the header
/// declares more than the limits.
fn decode(bytes: &[u8]) -> Result<Pixels, String> {
    let mut reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| format!("could not read the image: {e}"))?;
    match reader.format() {
        Some(ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::WebP) => {}
        Some(other) => {
            let name = (other.extensions_str().first())
                .map_or("another format".to_owned(), |name| {
                    name.to_ascii_uppercase()
                });
            return Err(format!("the image is {name}, not PNG, JPEG or WebP"));
        }
        None => return Err("not an image (PNG, JPEG or WebP)".to_owned()),
    }
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_ALLOC);
    reader.limits(limits);
    let failed = |e: image::ImageError| match e {
        image::ImageError::Limits(_) => too_large(),
        other => format!("could not decode the image: {other}"),
    };
    let mut decoder = reader.into_decoder().map_err(failed)?;
    let (width, height) = decoder.dimensions();
    if width == 0 || height == 0 {
        return Err("the image has no pixels".to_owned());
    }
    if u64::from(width) * u64::from(height) > MAX_PIXELS || decoder.total_bytes() > MAX_DECODED {
        return Err(too_large());
    }
    let orientation = decoder.orientation().map_err(failed)?;
    let mut image = DynamicImage::from_decoder(decoder).map_err(failed)?;
    image.apply_orientation(orientation);
    let (width, height) = (image.width(), image.height());
    // An alpha channel every pixel of which is opaque is dropped: the copy is then a JPEG, and
    // its resize a quarter cheaper.
    let (transparent, bytes) = match image {
        DynamicImage::ImageRgb8(rgb) => (false, rgb.into_raw()),
        other if !other.color().has_alpha() => (false, other.to_rgb8().into_raw()),
        // Moved, not copied, where it is RGBA already.
        other => match other.into_rgba8() {
            rgba if rgba.pixels().any(|p| p.0[3] < 255) => (true, rgba.into_raw()),
            rgba => (
                false,
                (rgba.into_raw().chunks_exact(4))
                    .flat_map(|p| [p[0], p[1], p[2]])
                    .collect(),
            ),
        },
    };
    Ok(Pixels {
        width,
        height,
        transparent,
        bytes,
    })
}

/// `from` resized to `target` pixels wide, its proportions kept.
fn resize(resizer: &mut Resizer, from: &Pixels, target: u32) -> Result<Pixels, String> {
    let failed = |e: &dyn std::fmt::Display| format!("could not resize the image: {e}");
    let source = ImageRef::new(from.width, from.height, &from.bytes, from.pixel_type())
        .map_err(|e| failed(&e))?;
    let height = scaled_height(from.width, from.height, target);
    let mut copy = Image::new(target, height, from.pixel_type());
    // Catmull-Rom: a touch softer than Lanczos3, with less ringing at edges, and its copies
    // 2.5 % smaller (14 photographs: 1,369 KiB of JPEG against 1,404 KiB with `image`'s
    // Lanczos3 at f609daa, and 1,416 KiB with this crate's Lanczos3; every copy no larger than
    // f609daa's).
    let catmull_rom =
        ResizeOptions::new().resize_alg(ResizeAlg::Convolution(FilterType::CatmullRom));
    (resizer.resize(&source, &mut copy, &catmull_rom)).map_err(|e| failed(&e))?;
    Ok(Pixels {
        width: target,
        height,
        transparent: from.transparent,
        bytes: copy.into_vec(),
    })
}

fn encode(copy: &Pixels, format: Format) -> Result<EncodedCopy, String> {
    let (pixels, width, height, layout) = (&copy.bytes, copy.width, copy.height, copy.layout());
    let mut bytes = Vec::new();
    let encoded = match format {
        Format::Jpeg => JpegEncoder::new_with_quality(&mut bytes, JPEG_QUALITY)
            .write_image(pixels, width, height, layout),
        Format::Png => PngEncoder::new(&mut bytes).write_image(pixels, width, height, layout),
        Format::Webp => {
            WebPEncoder::new_lossless(&mut bytes).write_image(pixels, width, height, layout)
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
        for copy in &made.copies {
            assert!(copy.format.begins(&copy.bytes), "{:?}", copy.format);
            let decoded = image::load_from_memory(&copy.bytes).unwrap();
            assert_eq!(
                (decoded.width(), decoded.height()),
                (copy.width, copy.height)
            );
        }
        let made = make_copies(&png(300, 100, true)).unwrap();
        assert!(made.copies.iter().any(|c| c.format == Format::Png));
        assert!(made.copies.iter().all(|c| c.format != Format::Jpeg));
        let png_copy = image::load_from_memory(&made.copies[0].bytes).unwrap();
        assert_eq!(png_copy.to_rgba8().get_pixel(0, 0).0[3], 0);
    }

    /// A JPEG whose EXIF says to turn it a quarter right (orientation 6): 40 × 20 as stored,
    /// 20 × 40 as every browser shows it, and as the copies must be.
    #[test]
    fn the_exif_orientation_is_applied() {
        let image = image::RgbImage::from_fn(40, 20, |x, _| {
            if x < 20 {
                image::Rgb([250, 0, 0])
            } else {
                image::Rgb([0, 0, 250])
            }
        });
        let mut jpeg = Vec::new();
        JpegEncoder::new_with_quality(&mut jpeg, 95)
            .write_image(image.as_raw(), 40, 20, ExtendedColorType::Rgb8)
            .unwrap();
        // An APP1 segment right after SOI: "Exif\0\0", a big-endian TIFF header, one IFD
        // entry: Orientation (0x0112), SHORT, 1, value 6.
        let mut exif =
            b"Exif\0\0MM\0\x2a\0\0\0\x08\0\x01\x01\x12\0\x03\0\0\0\x01\0\x06\0\0\0\0\0\0".to_vec();
        let length = u16::try_from(exif.len() + 2).unwrap();
        let mut segment = vec![0xFF, 0xE1];
        segment.extend_from_slice(&length.to_be_bytes());
        segment.append(&mut exif);
        jpeg.splice(2..2, segment);
        let made = make_copies(&jpeg).unwrap();
        assert_eq!((made.width, made.height), (20, 40));
        assert_eq!(natural_size(&jpeg), Some((20, 40)));
        let copy = image::load_from_memory(&made.copies[0].bytes)
            .unwrap()
            .to_rgb8();
        // Turned right: the left half (red) is now the top.
        assert!(
            copy.get_pixel(10, 5).0[0] > 200,
            "{:?}",
            copy.get_pixel(10, 5)
        );
        assert!(
            copy.get_pixel(10, 35).0[2] > 200,
            "{:?}",
            copy.get_pixel(10, 35)
        );
    }

    /// A PNG's header declaring `width` × `height` pixels of `bits` a channel in colour type
    /// `colour` (2: RGB, 6: RGBA), and nothing behind it.
    fn declaring(width: u32, height: u32, bits: u8, colour: u8) -> Vec<u8> {
        let mut bomb = png(1, 1, false);
        bomb[16..20].copy_from_slice(&width.to_be_bytes());
        bomb[20..24].copy_from_slice(&height.to_be_bytes());
        bomb[24] = bits;
        bomb[25] = colour;
        let crc = crc32fast::hash(&bomb[12..29]);
        bomb[29..33].copy_from_slice(&crc.to_be_bytes());
        bomb
    }

    #[test]
    fn an_images_own_size_is_read_from_its_header_or_its_svg_root() {
        assert_eq!(natural_size(&png(40, 10, false)), Some((40, 10)));
        let svg = |root: &str| {
            natural_size(format!("<?xml version=\"1.0\"?>\n{root}<g/></svg>").as_bytes())
        };
        assert_eq!(
            svg(r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">"#),
            Some((64, 64))
        );
        assert_eq!(
            svg(r#"<svg viewBox="0,0,240,60" width="100%">"#),
            Some((240, 60))
        );
        assert_eq!(
            svg("<svg\n  width='300px'\theight=\"75\" viewBox=\"0 0 4 1\">"),
            Some((300, 75))
        );
        assert_eq!(svg(r#"<svg viewBox="0 0 4 1">"#), Some((400, 100)));
        for sizeless in [
            r#"<svg>"#,
            r#"<svg viewBox="0 0 0 10">"#,
            r#"<svg viewBox="x">"#,
            "<svg",
        ] {
            assert_eq!(svg(sizeless), None, "{sizeless}");
        }
        assert_eq!(natural_size(b"not an image"), None);
    }

    #[test]
    fn a_bomb_or_a_non_image_is_a_reason_not_a_panic() {
        for (what, bomb) in [
            ("over the limit on sides", declaring(100_000, 100_000, 8, 6)),
            // The size of a 118 KB bomb that fitted the old limit on memory alone.
            ("over the pixels", declaring(5_600, 5_600, 8, 2)),
            // 16.5 million pixels, within the limit, at 8 bytes each: 126 MiB.
            ("over the memory", declaring(11_000, 1_500, 16, 6)),
        ] {
            let reason = make_copies(&bomb).unwrap_err();
            assert!(
                reason.contains("larger than vatcar-site decodes"),
                "{what}: {reason}"
            );
        }
        let reason = make_copies(b"<html>not an image</html>").unwrap_err();
        assert_eq!(reason, "not an image (PNG, JPEG or WebP)");
        let gif = b"GIF89a\x01\x00\x01\x00\x00\x00\x00;";
        assert_eq!(
            make_copies(gif).unwrap_err(),
            "the image is GIF, not PNG, JPEG or WebP"
        );
        assert!(make_copies(&png(40, 40, false)[..30]).is_err());
    }
}
