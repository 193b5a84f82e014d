//! The bench's samples and its Markdown table.

/// Milliseconds of each sample.
#[derive(Debug, Clone, Default)]
pub(crate) struct Samples(pub(crate) Vec<f64>);

impl Samples {
    /// The `q` quantile (nearest rank), ms.
    pub(crate) fn quantile(&self, q: f64) -> f64 {
        if self.0.is_empty() {
            return f64::NAN;
        }
        let mut v = self.0.clone();
        v.sort_by(f64::total_cmp);
        let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
        v[rank - 1]
    }

    pub(crate) fn p50(&self) -> f64 {
        self.quantile(0.5)
    }

    pub(crate) fn p99(&self) -> f64 {
        self.quantile(0.99)
    }
}

/// One line of the table.
pub(crate) struct Row {
    pub(crate) figure: String,
    pub(crate) ours: Option<Samples>,
    pub(crate) reference: Option<(String, Samples)>,
    pub(crate) note: String,
}

impl Row {
    pub(crate) fn new(figure: &str, ours: Samples, reference: Option<(&str, Samples)>) -> Row {
        Row {
            figure: figure.to_owned(),
            ours: Some(ours),
            reference: reference.map(|(name, s)| (name.to_owned(), s)),
            note: String::new(),
        }
    }

    pub(crate) fn note(figure: &str, note: impl Into<String>) -> Row {
        Row {
            figure: figure.to_owned(),
            ours: None,
            reference: None,
            note: note.into(),
        }
    }
}

pub(crate) fn fmt_ms(v: f64) -> String {
    if v < 10.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.1}")
    }
}

/// The Markdown table of `rows`.
pub(crate) fn render(rows: &[Row]) -> String {
    let mut s = String::from(
        "| figure | ours p50 ms | ours p99 ms | reference | ref p50 ms | ref p99 ms | p50 ratio | p99/p50 |\n\
         |---|---:|---:|---|---:|---:|---:|---:|\n",
    );
    for row in rows {
        let Some(ours) = &row.ours else {
            s.push_str(&format!(
                "| {} | — | — | {} | | | | |\n",
                row.figure, row.note
            ));
            continue;
        };
        let (name, rp50, rp99, ratio) = match &row.reference {
            Some((name, r)) => (
                name.clone(),
                fmt_ms(r.p50()),
                fmt_ms(r.p99()),
                format!("{:.1}×", ours.p50() / r.p50()),
            ),
            None => ("—".into(), String::new(), String::new(), String::new()),
        };
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {:.1} |\n",
            row.figure,
            fmt_ms(ours.p50()),
            fmt_ms(ours.p99()),
            name,
            rp50,
            rp99,
            ratio,
            ours.p99() / ours.p50()
        ));
    }
    s
}
