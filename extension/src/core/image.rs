//! Pixel size of a screenshot (PROTOCOL.md §5 `screenshot`: `width`, `height`).

/// `(width, height)` in px from a PNG (`IHDR`) or JPEG (`SOFn`) header; `None`
/// for anything else or a truncated header. Never reads past `bytes`.
pub fn image_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.starts_with(b"\x89PNG") {
        let be = |i: usize| Some(u32::from_be_bytes(bytes.get(i..i + 4)?.try_into().ok()?));
        return Some((be(16)?, be(20)?));
    }
    if !bytes.starts_with(&[0xFF, 0xD8]) {
        return None;
    }
    let mut i = 2;
    while i + 9 < bytes.len() {
        if bytes[i] != 0xFF {
            i += 1;
            continue;
        }
        let marker = bytes[i + 1];
        let len = u16::from_be_bytes([bytes[i + 2], bytes[i + 3]]) as usize;
        if matches!(marker, 0xC0..=0xC3 | 0xC5..=0xC7 | 0xC9..=0xCB | 0xCD..=0xCF) {
            let h = u16::from_be_bytes([bytes[i + 5], bytes[i + 6]]) as u32;
            let w = u16::from_be_bytes([bytes[i + 7], bytes[i + 8]]) as u32;
            return Some((w, h));
        }
        i += 2 + len;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(width: u32, height: u32) -> Vec<u8> {
        let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        b.extend(width.to_be_bytes());
        b.extend(height.to_be_bytes());
        b.extend([8, 6, 0, 0, 0]);
        b
    }

    fn jpeg(sof: u8, width: u16, height: u16) -> Vec<u8> {
        let mut b = vec![0xFF, 0xD8];
        // APP0 (JFIF), 16 bytes long, skipped by its length.
        b.extend([0xFF, 0xE0, 0x00, 0x10]);
        b.extend([b'J', b'F', b'I', b'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]);
        b.extend([0xFF, sof, 0x00, 0x11, 8]);
        b.extend(height.to_be_bytes());
        b.extend(width.to_be_bytes());
        b.extend([3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
        b
    }

    #[test]
    fn png_size_from_ihdr() {
        assert_eq!(image_size(&png(1280, 900)), Some((1280, 900)));
        assert_eq!(image_size(&png(1, 65_536)), Some((1, 65_536)));
    }

    #[test]
    fn jpeg_size_from_baseline_and_progressive_frames() {
        assert_eq!(image_size(&jpeg(0xC0, 800, 600)), Some((800, 600)));
        assert_eq!(image_size(&jpeg(0xC2, 1920, 1080)), Some((1920, 1080)));
        // DHT (0xC4) is not a frame header.
        let mut no_frame = jpeg(0xC4, 1, 1);
        no_frame.truncate(no_frame.len() - 4);
        assert_eq!(image_size(&no_frame), None);
    }

    #[test]
    fn truncated_or_foreign_data_is_none() {
        assert_eq!(image_size(&png(10, 10)[..20]), None);
        assert_eq!(image_size(b"\x89PNG"), None);
        assert_eq!(image_size(&jpeg(0xC0, 800, 600)[..24]), None);
        assert_eq!(image_size(b"GIF89a\x01\x00\x01\x00"), None);
        assert_eq!(image_size(&[]), None);
    }
}
