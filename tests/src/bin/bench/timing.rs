//! Timed series: warm-up, back-to-back or after untimed pauses.

use std::time::{Duration, Instant};

use anyhow::Result;

use crate::table::Samples;

/// Least warm-up before each timed series (a page just opened is not what a
/// p99 should measure). The raw CDP references get the same; Playwright's and
/// the corpus's extracts are timed without it.
pub(crate) const WARM_UP: Duration = Duration::from_millis(500);

/// Times `n` runs of `f`, ms each, after a warm-up of at least two runs and
/// [`WARM_UP`].
pub(crate) async fn time<F, Fut>(n: usize, mut f: F) -> Result<Samples>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<()>>,
{
    measure(n, || {
        let run = f();
        async move {
            let t = Instant::now();
            run.await?;
            Ok(t.elapsed())
        }
    })
    .await
}

/// Most of the untimed pause before each sample of [`time_paced`] (ms).
pub(crate) const PACE_MS: u64 = 50;

/// [`time`] with an untimed pause before each run, spread evenly over
/// 0–[`PACE_MS`] ms: an agent's next action comes after its own think time, at
/// any phase of the page's frame clock, where a back-to-back loop locks onto it.
pub(crate) async fn time_paced<F, Fut>(n: usize, mut f: F) -> Result<Samples>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<()>>,
{
    let mut i = 0u64;
    measure(n, || {
        // A stride coprime to 500 spreads the pauses evenly over 0–PACE_MS
        // (tokio's timer rounds them to whole ms).
        i += 1;
        let pause = Duration::from_micros((i * 7_919) % (PACE_MS * 10) * 100);
        let run = f();
        async move {
            tokio::time::sleep(pause).await;
            let t = Instant::now();
            run.await?;
            Ok(t.elapsed())
        }
    })
    .await
}

/// `n` durations that `f` reports, in ms, after a warm-up of at least two runs
/// and [`WARM_UP`].
pub(crate) async fn measure<F, Fut>(n: usize, mut f: F) -> Result<Samples>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<Duration>>,
{
    let warming = Instant::now();
    let mut warm = 0;
    while warm < 2 || warming.elapsed() < WARM_UP {
        f().await?;
        warm += 1;
    }
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(f().await?.as_secs_f64() * 1000.0);
    }
    Ok(Samples(out))
}
