//! Pictures: which formats the models take, told from the bytes themselves (a file's name or
//! Telegram's media type can be wrong), and the limits on their size.

/// The most bytes of one picture sent to a model: Anthropic refuses larger images, and a photo
/// Telegram has already scaled to about 1,280 pixels is far smaller.
pub const IMAGE_MAX_BYTES: u64 = 5 * 1024 * 1024;

/// The longest side of the photo size to pick among those Telegram offers: enough for a model to
/// read text in a screenshot, small enough to keep the request light.
pub const PHOTO_MAX_SIDE: u32 = 1_280;

/// The media type of a picture in a format both dialects accept (JPEG, PNG, GIF, WebP), from its
/// first bytes; `None` for anything else, a broken or empty file included.
pub fn image_media_type(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// Which of the sizes `(longest side)` Telegram offers for a photo to send: the largest within
/// [`PHOTO_MAX_SIDE`], or the smallest when all are larger. Returns its index.
pub fn pick_photo_size(longest_sides: &[u32]) -> Option<usize> {
    let within = longest_sides
        .iter()
        .enumerate()
        .filter(|(_, side)| **side <= PHOTO_MAX_SIDE)
        .max_by_key(|(_, side)| **side);
    let smallest = || {
        longest_sides
            .iter()
            .enumerate()
            .min_by_key(|(_, side)| **side)
    };
    within.or_else(smallest).map(|(index, _)| index)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_told_from_the_bytes() {
        assert_eq!(
            image_media_type(b"\xff\xd8\xff\xe0rest"),
            Some("image/jpeg")
        );
        assert_eq!(
            image_media_type(b"\x89PNG\r\n\x1a\nrest"),
            Some("image/png")
        );
        assert_eq!(image_media_type(b"GIF89a..."), Some("image/gif"));
        assert_eq!(
            image_media_type(b"RIFF\0\0\0\0WEBPVP8 "),
            Some("image/webp")
        );
        assert_eq!(image_media_type(b"%PDF-1.7"), None);
        assert_eq!(image_media_type(b""), None);
    }

    #[test]
    fn the_largest_photo_size_within_the_bound_is_picked() {
        assert_eq!(pick_photo_size(&[90, 320, 800, 1280, 2560]), Some(3));
        assert_eq!(pick_photo_size(&[320, 90]), Some(0));
        assert_eq!(pick_photo_size(&[4000, 2000]), Some(1));
        assert_eq!(pick_photo_size(&[]), None);
    }
}
