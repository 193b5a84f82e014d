//! A reader for NumPy's `.npz` as `numpy.savez_compressed` writes it: a zip of
//! deflated (or stored) `.npy` members, C order, little-endian.
//!
//! Only what the shipped `weights.npz` uses: `.npy` format 1.0/2.0/3.0 headers, and the dtypes
//! `|u1`, `|i1`, `<f4`, `<f8`. Everything is bounds-checked: a truncated or corrupt file
//! is an [`NpzError`], never a panic.

use std::collections::HashMap;

use crate::zip::{self, ZipError, u16_at, u32_at};

/// What is wrong with an `.npz` (the caller adds the path).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct NpzError(String);

impl From<ZipError> for NpzError {
    fn from(e: ZipError) -> Self {
        Self(e.to_string())
    }
}

fn err<T>(msg: impl Into<String>) -> Result<T, NpzError> {
    Err(NpzError(msg.into()))
}

/// One array: its shape and its elements in C order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Array {
    pub(crate) shape: Vec<usize>,
    pub(crate) data: Data,
}

/// The elements of an [`Array`], by dtype.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Data {
    /// `|u1`
    U8(Vec<u8>),
    /// `|i1`
    I8(Vec<i8>),
    /// `<f4`
    F32(Vec<f32>),
    /// `<f8`
    F64(Vec<f64>),
}

/// The members of an `.npz` by array name (the member name without `.npy`).
pub(crate) fn read(bytes: &[u8]) -> Result<HashMap<String, Array>, NpzError> {
    let mut out = HashMap::new();
    for entry in zip::entries(bytes)? {
        let raw = zip::inflate(bytes, &entry)?;
        let name = entry
            .name
            .strip_suffix(".npy")
            .unwrap_or(&entry.name)
            .to_owned();
        let array = parse_npy(&raw).map_err(|e| NpzError(format!("member {name}: {e}")))?;
        out.insert(name, array);
    }
    Ok(out)
}

/// One `.npy` (NumPy's format.py): magic, version, header length, a Python dict
/// literal `{'descr': '<f4', 'fortran_order': False, 'shape': (512, 256), }`, data.
fn parse_npy(b: &[u8]) -> Result<Array, NpzError> {
    if b.get(..6) != Some(b"\x93NUMPY") {
        return err("not an .npy (bad magic)");
    }
    let (header_len, header_start) = match b.get(6) {
        Some(1) => (usize::from(u16_at(b, 8)?), 10),
        Some(2 | 3) => (u32_at(b, 8)? as usize, 12),
        _ => return err("unsupported .npy version"),
    };
    let Some(header) = b.get(header_start..header_start + header_len) else {
        return err("truncated .npy header");
    };
    let header = String::from_utf8_lossy(header);
    let descr = dict_value(&header, "descr")?
        .trim_matches(|c| c == '\'' || c == '"')
        .to_owned();
    if dict_value(&header, "fortran_order")?.trim() != "False" {
        return err("fortran_order arrays are not supported");
    }
    let shape_text = dict_value(&header, "shape")?;
    let shape = shape_text
        .trim_matches(|c| c == '(' || c == ')')
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<usize>()
                .map_err(|_| NpzError(format!("bad shape {shape_text}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let count: usize = shape.iter().product();
    let body = &b[header_start + header_len..];
    let width = match descr.as_str() {
        "|u1" | "|i1" => 1,
        "<f4" => 4,
        "<f8" => 8,
        other => return err(format!("unsupported dtype {other}")),
    };
    if body.len() != count * width {
        return err(format!(
            "{} data bytes for shape {shape:?} of {descr}",
            body.len()
        ));
    }
    let data = match width {
        1 if descr == "|i1" => Data::I8(body.iter().map(|&b| b as i8).collect()),
        1 => Data::U8(body.to_vec()),
        4 => Data::F32(
            body.chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        ),
        _ => Data::F64(
            body.chunks_exact(8)
                .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
                .collect(),
        ),
    };
    Ok(Array { shape, data })
}

/// The text of `'key': value` in the header dict, up to the next top-level comma.
fn dict_value<'a>(header: &'a str, key: &str) -> Result<&'a str, NpzError> {
    let pat = format!("'{key}':");
    let Some(at) = header.find(&pat) else {
        return err(format!(".npy header lacks {key}"));
    };
    let rest = &header[at + pat.len()..];
    let mut depth = 0i32;
    for (i, c) in rest.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' | '}' if depth == 0 => return Ok(rest[..i].trim()),
            _ => {}
        }
    }
    err(format!(".npy header: unterminated {key}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npy(descr: &str, shape: &str, body: &[u8]) -> Vec<u8> {
        let header =
            format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}\n");
        let mut b = b"\x93NUMPY\x01\x00".to_vec();
        b.extend_from_slice(&(header.len() as u16).to_le_bytes());
        b.extend_from_slice(header.as_bytes());
        b.extend_from_slice(body);
        b
    }

    #[test]
    fn npy_headers_give_shape_and_values() {
        let a = parse_npy(&npy("<f4", "(2, 1)", &[0, 0, 128, 63, 0, 0, 0, 64])).unwrap();
        assert_eq!(a.shape, vec![2, 1]);
        assert_eq!(a.data, Data::F32(vec![1.0, 2.0]));
        let s = parse_npy(&npy("<f8", "()", &1e-6f64.to_le_bytes())).unwrap();
        assert_eq!((s.shape.len(), s.data), (0, Data::F64(vec![1e-6])));
    }

    #[test]
    fn bad_npy_is_an_error() {
        assert!(
            parse_npy(&npy("<f4", "(3,)", &[0; 8])).is_err(),
            "short body"
        );
        assert!(parse_npy(&npy("<i8", "(1,)", &[0; 8])).is_err(), "dtype");
        assert!(
            parse_npy(b"\x93NUMPY\x01\x00\xff\xff{").is_err(),
            "truncated header"
        );
        assert!(read(b"PK\x03\x04 not a zip").is_err());
        let whole = npy("<f4", "(2, 1)", &[0, 0, 128, 63, 0, 0, 0, 64]);
        for len in 0..whole.len() {
            assert!(parse_npy(&whole[..len]).is_err(), "truncated to {len}");
        }
    }
}
