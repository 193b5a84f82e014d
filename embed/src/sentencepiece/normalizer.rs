//! SentencePiece's `nmt_nfkc` normalizer over the model's precompiled charsmap,
//! as `Normalizer::Normalize` in sentencepiece's `normalizer.cc` (ported from the
//! reference `pure_tokenizer.py`): longest-prefix replacement through a
//! darts-clone double array, then whitespace handling (remove extra
//! whitespace, add the dummy prefix, escape spaces as U+2581).

/// U+2581 LOWER ONE EIGHTH BLOCK, SentencePiece's visible space.
const SPACE: &str = "\u{2581}";

/// The charsmap: a darts-clone double array of u32 units whose leaves index
/// NUL-terminated replacement strings.
pub(crate) struct Normalizer {
    units: Vec<u32>,
    normalized: Vec<u8>,
}

impl Normalizer {
    /// From the precompiled charsmap bytes: u32 LE trie size, the trie, the
    /// replacement strings. `None` (no charsmap) normalizes whitespace only.
    pub(crate) fn new(charsmap: Option<&[u8]>) -> Result<Self, super::SpError> {
        let Some(map) = charsmap.filter(|m| !m.is_empty()) else {
            return Ok(Self {
                units: Vec::new(),
                normalized: Vec::new(),
            });
        };
        let size = map
            .get(..4)
            .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]) as usize);
        let Some(trie) = size.and_then(|n| map.get(4..4 + n)) else {
            return Err(super::SpError::corrupt("charsmap trie runs past the end"));
        };
        let units = trie
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Ok(Self {
            units,
            normalized: map[4 + trie.len()..].to_vec(),
        })
    }

    fn offset(unit: u32) -> usize {
        ((unit >> 10) << ((unit & 0x200) >> 6)) as usize
    }

    /// The replacement of the longest charsmap key at `data[pos..]` and the
    /// bytes it consumes; without a key, the one UTF-8 character there (or one
    /// byte when it is not well-formed).
    fn normalize_prefix<'a>(&'a self, data: &'a [u8], pos: usize) -> (&'a [u8], usize) {
        let (mut best_len, mut best_value) = (0, 0usize);
        if let Some(&root) = self.units.first() {
            let mut node = Self::offset(root);
            for (i, &c) in data[pos..].iter().enumerate() {
                node ^= usize::from(c);
                let Some(&unit) = self.units.get(node) else {
                    break;
                };
                if unit & 0x8000_00FF != u32::from(c) {
                    break;
                }
                node ^= Self::offset(unit);
                if unit & 0x100 != 0 {
                    best_len = i + 1;
                    best_value = self
                        .units
                        .get(node)
                        .map_or(usize::MAX, |v| (v & 0x7FFF_FFFF) as usize);
                }
            }
        }
        if best_len == 0 || best_value >= self.normalized.len() {
            let first = data[pos];
            let mut len = match first {
                0..0x80 => 1,
                _ if first >> 5 == 0x6 => 2,
                _ if first >> 4 == 0xE => 3,
                _ if first >> 3 == 0x1E => 4,
                _ => 1,
            };
            if (1..len).any(|k| data.get(pos + k).is_none_or(|b| b & 0xC0 != 0x80)) {
                len = 1;
            }
            return (&data[pos..pos + len], len);
        }
        let rest = &self.normalized[best_value..];
        let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
        (&rest[..end], best_len)
    }

    /// The normalized text: empty when `text` is empty or only whitespace.
    pub(crate) fn normalize(&self, text: &str) -> String {
        let raw = text.as_bytes();
        let n = raw.len();
        let mut pos = 0;
        // Leading whitespace (after normalization) is dropped.
        while pos < n {
            let (p, adv) = self.normalize_prefix(raw, pos);
            if p != b" " {
                break;
            }
            pos += adv;
        }
        if pos >= n {
            return String::new();
        }
        let mut out: Vec<u8> = SPACE.as_bytes().to_vec();
        let mut prev_space = true;
        while pos < n {
            let (mut p, adv) = self.normalize_prefix(raw, pos);
            pos += adv;
            if prev_space {
                while let Some(rest) = p.strip_prefix(b" ") {
                    p = rest;
                }
            }
            if p.is_empty() {
                continue;
            }
            for &b in p {
                if b == b' ' {
                    out.extend_from_slice(SPACE.as_bytes());
                } else {
                    out.push(b);
                }
            }
            prev_space = p.last() == Some(&b' ');
        }
        while out.ends_with(SPACE.as_bytes()) {
            out.truncate(out.len() - SPACE.len());
        }
        String::from_utf8(out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_charsmap_only_whitespace_changes() {
        let n = Normalizer::new(None).unwrap();
        assert_eq!(n.normalize("  a  b "), "\u{2581}a\u{2581}b");
        assert_eq!(n.normalize("   "), "");
        assert_eq!(n.normalize(""), "");
    }
}
