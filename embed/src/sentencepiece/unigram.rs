//! Unigram segmentation: the best-scoring split of normalized text into pieces
//! (sentencepiece's `unigram_model.cc` lattice Viterbi, as the reference
//! `pure_tokenizer.py` ports it). Scores are summed in f64 like the reference.

use std::collections::HashMap;

/// Piece id of `<unk>`.
pub(crate) const UNK: u32 = 0;

/// The vocabulary as a flat prefix table: every prefix of every piece maps to
/// `Some(id)` when it is a piece itself, `None` when it only continues the walk.
pub(crate) struct Unigram {
    prefixes: HashMap<String, Option<u32>>,
    scores: Vec<f32>,
    /// Longest piece, in chars.
    max_len: usize,
    /// The score of a one-char `<unk>` node: the lowest piece score minus 10.
    unk_score: f64,
}

impl Unigram {
    pub(crate) fn new(pieces: &[String], scores: Vec<f32>) -> Self {
        let mut prefixes: HashMap<String, Option<u32>> = HashMap::with_capacity(pieces.len() * 2);
        for (id, piece) in pieces.iter().enumerate() {
            for (end, _) in piece.char_indices().skip(1) {
                prefixes.entry(piece[..end].to_owned()).or_insert(None);
            }
            prefixes.insert(piece.clone(), Some(id as u32));
        }
        let min = scores.iter().copied().fold(f32::INFINITY, f32::min);
        let max_len = pieces.iter().map(|p| p.chars().count()).max().unwrap_or(1);
        Self {
            prefixes,
            scores,
            max_len,
            unk_score: f64::from(min) - 10.0,
        }
    }

    /// Piece ids of `normalized` (no BOS/EOS); `[UNK]` for empty text.
    ///
    /// All nodes starting at one position share its best predecessor, so a
    /// left-to-right DP over char positions equals the lattice; ties keep the
    /// earliest start (the C++ strict-greater comparison).
    pub(crate) fn encode(&self, normalized: &str) -> Vec<u32> {
        // Byte offset of each char boundary, the end included.
        let bounds: Vec<usize> = normalized
            .char_indices()
            .map(|(i, _)| i)
            .chain([normalized.len()])
            .collect();
        let len = bounds.len() - 1;
        if len == 0 {
            return vec![UNK];
        }
        let mut best = vec![-1e38f64; len + 1];
        best[0] = 0.0;
        let mut start_of = vec![0usize; len + 1];
        let mut piece_of = vec![UNK; len + 1];
        for i in 0..len {
            let base = best[i];
            let mut has_single = false;
            for j in i + 1..=(i + self.max_len).min(len) {
                let Some(entry) = self.prefixes.get(&normalized[bounds[i]..bounds[j]]) else {
                    break;
                };
                if let Some(id) = *entry {
                    let score = base + f64::from(self.scores[id as usize]);
                    if score > best[j] {
                        (best[j], start_of[j], piece_of[j]) = (score, i, id);
                    }
                    has_single |= j == i + 1;
                }
            }
            if !has_single {
                let score = base + self.unk_score;
                if score > best[i + 1] {
                    (best[i + 1], start_of[i + 1], piece_of[i + 1]) = (score, i, UNK);
                }
            }
        }
        let mut ids = Vec::new();
        let mut p = len;
        while p > 0 {
            ids.push(piece_of[p]);
            p = start_of[p];
        }
        ids.reverse();
        ids
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_split_wins_and_unknown_chars_are_unk() {
        let pieces: Vec<String> = ["<unk>", "<s>", "</s>", "a", "b", "ab", "abc"]
            .map(String::from)
            .into();
        let u = Unigram::new(&pieces, vec![0.0, 0.0, 0.0, -1.0, -1.0, -1.5, -5.0]);
        assert_eq!(u.encode("ab"), vec![5]);
        assert_eq!(u.encode("abc"), vec![6]);
        assert_eq!(u.encode("abx"), vec![5, 0]);
        assert_eq!(u.encode(""), vec![UNK]);
    }
}
