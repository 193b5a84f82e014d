//! Golden files from the upstream reference (`reference/make_reference.py`):
//! identical token ids for every text, cosine ≥ 0.999 for every vector.

mod common;

use browser_bridge_embed::{DIM, cosine};
use serde::Deserialize;

#[derive(Deserialize)]
struct Tokens {
    text: String,
    ids: Vec<u32>,
}

#[derive(Deserialize)]
struct Vector {
    text: String,
    vector: Vec<f32>,
}

#[test]
fn token_ids_match_the_reference_tokenizer() {
    let cases: Vec<Tokens> = serde_json::from_str(include_str!("reference/tokens.json")).unwrap();
    assert!(cases.len() >= 30);
    let e = common::embedder();
    let wrong: Vec<_> = cases
        .iter()
        .filter_map(|c| {
            let got = e.tokenize(&c.text);
            (got != c.ids).then(|| format!("{:?}:\n  want {:?}\n  got  {got:?}", c.text, c.ids))
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} texts differ:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}

#[test]
fn vectors_match_the_reference_forward_pass() {
    let cases: Vec<Vector> = serde_json::from_str(include_str!("reference/vectors.json")).unwrap();
    assert!(cases.len() >= 10);
    let e = common::embedder();
    let texts: Vec<&str> = cases.iter().map(|c| c.text.as_str()).collect();
    let batch = e.embed_batch(&texts);
    let mut lowest = 1.0f32;
    for (c, got) in cases.iter().zip(&batch) {
        assert_eq!(got.len(), DIM);
        let norm: f32 = got.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "{:?}: norm {norm}", c.text);
        let cos = cosine(got, &c.vector);
        lowest = lowest.min(cos);
        assert!(
            cos >= 0.999,
            "{:?}: cosine {cos} with the reference",
            c.text
        );
        assert_eq!(
            got,
            &e.embed(&c.text),
            "batch and single differ for {:?}",
            c.text
        );
    }
    eprintln!("lowest cosine with the reference: {lowest}");
}
