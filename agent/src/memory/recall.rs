//! Choosing and rendering the lessons for a new run: the experiences whose
//! task (and domain) is closest to the new one's, above a similarity floor.

use super::cosine;
use super::store::Stored;
use super::summary::Experience;

/// Lessons given by default.
pub const DEFAULT_K: usize = 3;

/// Lowest score (cosine + domain bonus) of a lesson. Calibrated on the
/// multilingual USE model (test `memory_floor`, `memory search`): related
/// tasks in English or Chinese score 0.52–0.74, a two-word query in the other
/// language (`提交理赔` for "file a claim for policy P-1234") 0.33–0.44;
/// unrelated tasks at most 0.21, even on the same site. 0.3 keeps every
/// related run: a needless lesson costs a line, a missed one a repeated failure.
pub const DEFAULT_FLOOR: f32 = 0.3;

/// Added to the score of a past run on the same domain.
pub const DOMAIN_BONUS: f32 = 0.05;

/// A chosen past run and its score.
#[derive(Debug, Clone, PartialEq)]
pub struct Lesson<'a> {
    /// Cosine similarity plus the domain bonus.
    pub score: f32,
    /// The past run.
    pub experience: &'a Experience,
}

/// The `k` best past runs for `query` (the vector of the new task) on
/// `domain` ("" when unknown) scoring at least `floor`, best first.
pub fn recall<'a>(
    stored: &'a [Stored],
    query: &[f32],
    domain: &str,
    k: usize,
    floor: f32,
) -> Vec<Lesson<'a>> {
    let mut lessons: Vec<Lesson<'a>> = stored
        .iter()
        .map(|s| {
            let same = !domain.is_empty() && s.experience.domain == domain;
            Lesson {
                score: cosine(&s.vector, query) + if same { DOMAIN_BONUS } else { 0.0 },
                experience: &s.experience,
            }
        })
        .filter(|l| l.score >= floor)
        .collect();
    lessons.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(b.experience.created.cmp(&a.experience.created))
    });
    lessons.truncate(k);
    lessons
}

/// The block added to the first user message, or `None` without lessons:
/// `Lessons from earlier runs:\n- <experience text>` per lesson.
pub fn lessons_text(lessons: &[Lesson<'_>]) -> Option<String> {
    if lessons.is_empty() {
        return None;
    }
    let mut text = String::from("Lessons from earlier runs:");
    for lesson in lessons {
        text.push_str("\n- ");
        text.push_str(&lesson.experience.text);
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(id: &str, domain: &str, created: u64, vector: Vec<f32>) -> Stored {
        Stored {
            experience: Experience {
                id: id.into(),
                created,
                task: id.into(),
                start_url: String::new(),
                domain: domain.into(),
                outcome: "failed".into(),
                success: false,
                steps: 2,
                failures: vec![],
                fixes: vec![],
                text: format!("lesson {id}"),
            },
            vector,
        }
    }

    #[test]
    fn the_best_above_the_floor_with_a_same_domain_bonus() {
        let all = vec![
            stored("far", "a.test", 1, vec![0.0, 1.0]),
            stored("near", "b.test", 2, vec![0.8, 0.6]),
            stored("near-same-site", "a.test", 3, vec![0.78, 0.626]),
            stored("nearest", "c.test", 4, vec![1.0, 0.0]),
        ];
        let query = [1.0, 0.0];
        let ids = |lessons: Vec<Lesson>| -> Vec<String> {
            lessons.iter().map(|l| l.experience.id.clone()).collect()
        };
        assert_eq!(
            ids(recall(&all, &query, "a.test", 3, 0.5)),
            ["nearest", "near-same-site", "near"]
        );
        assert_eq!(ids(recall(&all, &query, "a.test", 1, 0.5)), ["nearest"]);
        assert_eq!(ids(recall(&all, &query, "", 3, 0.9)), ["nearest"]);
        assert!(recall(&all, &[0.0, -1.0], "", 3, 0.5).is_empty());
        assert_eq!(
            lessons_text(&recall(&all, &query, "", 2, 0.5)).unwrap(),
            "Lessons from earlier runs:\n- lesson nearest\n- lesson near"
        );
        assert_eq!(lessons_text(&[]), None);
    }
}
