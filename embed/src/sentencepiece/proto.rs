//! The legacy SentencePiece `ModelProto` of the shipped `sp.model`, read with a
//! minimal protobuf wire-format reader (field numbers as the reference
//! `pure_tokenizer.py` reads them): field 1 the repeated pieces (each: 1 piece
//! string, 2 score float), field 3 the trainer spec whose field 2 is the
//! precompiled `nmt_nfkc` charsmap.

use super::SpError;

/// The parts of the model the tokenizer needs.
pub(crate) struct ModelProto {
    /// Piece text by id (UTF-8, with U+2581 for a space).
    pub(crate) pieces: Vec<String>,
    /// Unigram log-probability by id (0.0 when the piece has none).
    pub(crate) scores: Vec<f32>,
    /// darts-clone double array + replacement table, when the model has one.
    pub(crate) charsmap: Option<Vec<u8>>,
}

/// Length-delimited (wire type 2) and 32-bit (wire type 5) fields of one
/// message, in order, as (field number, bytes); varint and 64-bit fields are skipped.
fn fields(mut b: &[u8]) -> Result<Vec<(u64, &[u8])>, SpError> {
    let mut out = Vec::new();
    while !b.is_empty() {
        let tag = varint(&mut b)?;
        let (field, wire) = (tag >> 3, tag & 7);
        let len = match wire {
            0 => {
                varint(&mut b)?;
                continue;
            }
            1 => 8,
            2 => usize::try_from(varint(&mut b)?).map_err(|_| SpError::corrupt("length"))?,
            5 => 4,
            _ => return Err(SpError::corrupt("wire type")),
        };
        let Some(value) = b.get(..len) else {
            return Err(SpError::corrupt("field runs past the end"));
        };
        if wire != 1 {
            out.push((field, value));
        }
        b = &b[len..];
    }
    Ok(out)
}

fn varint(b: &mut &[u8]) -> Result<u64, SpError> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let Some((&byte, rest)) = b.split_first() else {
            return Err(SpError::corrupt("truncated varint"));
        };
        *b = rest;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(SpError::corrupt("varint longer than 10 bytes"))
}

/// Parses `sp.model` bytes.
pub(crate) fn parse(bytes: &[u8]) -> Result<ModelProto, SpError> {
    let top = fields(bytes)?;
    let mut pieces = Vec::new();
    let mut scores = Vec::new();
    let mut charsmap = None;
    for (field, value) in top {
        match field {
            1 => {
                let p = fields(value)?;
                // As the reference: a piece without text is skipped (ids follow the kept ones).
                let Some((_, text)) = p.iter().find(|(f, _)| *f == 1) else {
                    continue;
                };
                let text =
                    std::str::from_utf8(text).map_err(|_| SpError::corrupt("piece not UTF-8"))?;
                let score = match p.iter().find(|(f, _)| *f == 2) {
                    Some((_, s)) if s.len() == 4 => f32::from_le_bytes([s[0], s[1], s[2], s[3]]),
                    Some(_) => return Err(SpError::corrupt("piece score")),
                    None => 0.0,
                };
                pieces.push(text.to_owned());
                scores.push(score);
            }
            3 if charsmap.is_none() => {
                charsmap = fields(value)?
                    .into_iter()
                    .find(|(f, _)| *f == 2)
                    .map(|(_, v)| v.to_vec());
            }
            _ => {}
        }
    }
    if pieces.len() < 3 {
        return Err(SpError::corrupt(
            "fewer than 3 pieces (no <unk>, <s>, </s>)",
        ));
    }
    Ok(ModelProto {
        pieces,
        scores,
        charsmap,
    })
}
