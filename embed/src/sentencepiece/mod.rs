//! The SentencePiece tokenizer of the shipped `sp.model` (unigram, `nmt_nfkc`),
//! byte-identical to the reference for that model: [`Tokenizer::encode`] gives
//! `<s>`, the piece ids, `</s>`.

mod normalizer;
mod proto;
mod unigram;

/// A corrupt or unreadable `sp.model`.
#[derive(Debug, thiserror::Error)]
#[error("corrupt SentencePiece model: {0}")]
pub struct SpError(String);

impl SpError {
    fn corrupt(what: &str) -> Self {
        Self(what.to_owned())
    }
}

/// Piece id of `<s>`.
const BOS: u32 = 1;
/// Piece id of `</s>`.
const EOS: u32 = 2;

/// Normalizer + unigram vocabulary.
pub(crate) struct Tokenizer {
    normalizer: normalizer::Normalizer,
    unigram: unigram::Unigram,
    vocab_size: usize,
}

impl Tokenizer {
    /// From the bytes of `sp.model`.
    pub(crate) fn from_bytes(bytes: &[u8]) -> Result<Self, SpError> {
        let model = proto::parse(bytes)?;
        let normalizer = normalizer::Normalizer::new(model.charsmap.as_deref())?;
        let vocab_size = model.pieces.len();
        let unigram = unigram::Unigram::new(&model.pieces, model.scores);
        Ok(Self {
            normalizer,
            unigram,
            vocab_size,
        })
    }

    /// Number of pieces (ids are `0..vocab_size`).
    pub(crate) fn vocab_size(&self) -> usize {
        self.vocab_size
    }

    /// `[<s>, pieces of text…, </s>]`; `[<s>, <unk>, </s>]` for empty or blank text.
    pub(crate) fn encode(&self, text: &str) -> Vec<u32> {
        let mut ids = vec![BOS];
        ids.extend(self.unigram.encode(&self.normalizer.normalize(text)));
        ids.push(EOS);
        ids
    }
}

impl SpError {
    /// The model has more pieces than the embedding table has rows.
    pub(crate) fn vocab_mismatch(pieces: usize, rows: usize) -> Self {
        Self(format!(
            "{pieces} pieces but the weights embed only {rows} ids"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXTS: [&str; 4] = [
        "Hello world",
        "登录 GitHub 账号",
        "ＦＵＬＬ　ｗｉｄｔｈ ①",
        "  a\tb  ",
    ];

    /// Damage anywhere in the shipped model (a truncation, flipped bytes) is an
    /// error or a model that still tokenizes without panicking.
    #[test]
    fn damaged_models_never_panic() {
        let dir = crate::Embedder::locate().unwrap_or_else(|e| panic!("{e}"));
        let good = std::fs::read(dir.join("sp.model")).unwrap();
        let n = good.len();
        let mut errors = 0;
        for i in 1..8 {
            let at = n * i / 8 + 13;
            let truncated = good[..at].to_vec();
            let mut flipped = good.clone();
            flipped[at..at + 16].iter_mut().for_each(|b| *b ^= 0x5A);
            for bytes in [truncated, flipped] {
                match Tokenizer::from_bytes(&bytes) {
                    Ok(t) => TEXTS.iter().for_each(|x| assert!(t.encode(x).len() >= 3)),
                    Err(e) => {
                        assert!(e.to_string().starts_with("corrupt SentencePiece model: "));
                        errors += 1;
                    }
                }
            }
        }
        assert!(
            errors >= 7,
            "only {errors} of 14 damaged models were rejected"
        );
    }
}
