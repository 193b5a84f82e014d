//! The reconnect backoff (PROTOCOL.md §2): 1 s doubling to 30 s, ±25 % jitter.

/// First delay (ms).
pub const BACKOFF_MIN_MS: f64 = 1_000.0;
/// Longest delay (ms).
pub const BACKOFF_MAX_MS: f64 = 30_000.0;

/// The delay before reconnect attempt `attempts + 1` (ms): `1 s · 2^attempts`,
/// at most 30 s, scaled by `0.75 + 0.5 · random` (`random` in `[0, 1)`, clamped).
pub fn delay_ms(attempts: u32, random: f64) -> u32 {
    let base = (BACKOFF_MIN_MS * 2f64.powi(attempts.min(5) as i32)).min(BACKOFF_MAX_MS);
    (base * (0.75 + 0.5 * random.clamp(0.0, 1.0))) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_from_one_second_to_thirty() {
        let centre: Vec<u32> = (0..8).map(|a| delay_ms(a, 0.5)).collect();
        assert_eq!(
            centre,
            [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]
        );
        assert_eq!(delay_ms(u32::MAX, 0.5), 30_000);
    }

    #[test]
    fn jitter_is_plus_minus_a_quarter() {
        assert_eq!(delay_ms(0, 0.0), 750);
        assert_eq!(delay_ms(0, 0.999_999), 1_249);
        assert_eq!(delay_ms(5, 0.0), 22_500);
        assert_eq!(delay_ms(5, 1.0), 37_500);
        // Out-of-range randomness cannot leave the band.
        assert_eq!(delay_ms(1, -3.0), 1_500);
        assert_eq!(delay_ms(1, 7.0), 2_500);
    }
}
